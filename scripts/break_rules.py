"""Break each rule of the engine once and list the tests that fail: a test named for a rule
must fail when that rule is broken.

    python scripts/break_rules.py [--tests tests/rules tests/checking/test_examples.py]

Each mutation below changes one rule in ``phantom_log/rules/engine.py`` (a textual
replacement that must match exactly once), runs the tests against the pure-Python build
(``PHANTOM_LOG_PURE_PYTHON=1``: the edited source is what runs, nothing is compiled), and
writes the engine back as it was, whatever happens. The script refuses to start when
``engine.py`` has changes of its own, and prints, for each rule, the tests that failed;
a rule that broke no test is a hole in the suite, and the script exits 1.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

REPO = Path(__file__).resolve().parent.parent
ENGINE = REPO / "phantom_log" / "rules" / "engine.py"
DEFAULT_TESTS = ["tests/rules", "tests/checking/test_examples.py"]
# Building the examples searches for games with the rules as written: broken, it can
# search for a very long time, and tells nothing a rule's own test does not.
DESELECTED = ["tests/checking/test_examples.py::test_examples_are_what_the_script_builds"]


@dataclass(frozen=True)
class Mutation:
    """One rule broken: what it is, and the text of engine.py that breaks it."""

    rule: str
    original: str
    broken: str


MUTATIONS = (
    Mutation(
        "follow suit: the follower may play any card",
        "    return follow_suit_required or hand\n",
        "    return hand\n",
    ),
    Mutation(
        "the swap size: always 2",
        "    return min(_SWAP_SIZE, popcount(phantom_hand), popcount(christine_hand))\n",
        "    return _SWAP_SIZE\n",
    ),
    Mutation(
        "the swap size: 2 even when a hand holds one card",
        "    return min(_SWAP_SIZE, popcount(phantom_hand), popcount(christine_hand))\n",
        "    return _SWAP_SIZE if phantom_hand and christine_hand else 0\n",
    ),
    Mutation(
        "the +2: a special trick in order completes one note",
        "        return notes_before + 2\n",
        "        return notes_before + 1\n",
    ),
    Mutation(
        "the cap at 12: a special trick in order may pass the last note",
        "        return _EXTRA if notes_before + 2 <= _NOTES else _EXTRA_CAPPED\n",
        "        return _EXTRA\n",
    ),
    Mutation(
        "the balance penalty: 2 notes removed under the balance rule",
        "    return _BALANCE_PENALTY if balance else _SPECIAL_PENALTY\n",
        "    return _SPECIAL_PENALTY\n",
    ),
    Mutation(
        "the super trump: the bar of the next note, not of the last completed",
        "    return (suit_bits >> (2 * (notes - 1))) & 3\n",
        "    return (suit_bits >> (2 * notes)) & 3\n",
    ),
    Mutation(
        "the super trump beats Mask: the super trump suit ranks as a trump only",
        "    if suit == super_trump:\n        return _SUPER_TRUMP_CLASS\n",
        "    if suit == super_trump:\n        return _TRUMP_CLASS\n",
    ),
    Mutation(
        "Mask as the super trump: in the Mask bar, Mask is only a trump",
        "    if suit == super_trump:\n        return _SUPER_TRUMP_CLASS\n"
        "    if suit == _MASK_SUIT:\n        return _TRUMP_CLASS\n",
        "    if suit == _MASK_SUIT:\n        return _TRUMP_CLASS\n"
        "    if suit == super_trump:\n        return _SUPER_TRUMP_CLASS\n",
    ),
    Mutation(
        "the game end: the Phantom does not win at 12 notes",
        "    if notes == _NOTES:\n        return 0\n",
        "    if notes > _NOTES:\n        return 0\n",
    ),
    Mutation(
        "the game end: Christine does not win after round 2",
        "    if round_over and round_index == _ROUNDS - 1:\n",
        "    if round_over and round_index == _ROUNDS:\n",
    ),
)

_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+?)(?: - .*)?$", re.M)


def failing_tests(tests: list[str]) -> tuple[int, list[str]]:
    """Run the tests on the pure-Python build: pytest's exit code and the failed tests."""
    environment = {**os.environ, "PHANTOM_LOG_PURE_PYTHON": "1"}
    environment.pop("PHANTOM_LOG_EXPECT_BUILD", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-rfE", *tests]
    command += [f"--deselect={test}" for test in DESELECTED]
    done = subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True)
    return done.returncode, sorted(set(_FAILED.findall(done.stdout)))


def _unchanged() -> bool:
    done = subprocess.run(
        ["git", "diff", "--quiet", "--", str(ENGINE)], cwd=REPO, capture_output=True
    )
    return done.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", nargs="+", default=DEFAULT_TESTS, help="Test paths to run.")
    parser.add_argument(
        "--only", default="", help="Break only the rules whose description holds this text."
    )
    options = parser.parse_args()
    if not _unchanged():
        raise SystemExit(f"{ENGINE} has changes of its own: commit or stash them first")
    original = ENGINE.read_text(encoding="utf-8")
    for mutation in MUTATIONS:
        if original.count(mutation.original) != 1:
            raise SystemExit(f"the text of {mutation.rule!r} is not once in engine.py")

    def restore_and_stop(signal_number: int, _frame: FrameType | None) -> None:
        ENGINE.write_text(original, encoding="utf-8")
        raise SystemExit(128 + signal_number)

    signal.signal(signal.SIGTERM, restore_and_stop)
    code, failed = failing_tests(options.tests)
    if code != 0:
        raise SystemExit(f"the tests fail with the rules as written: {failed}")
    holes = 0
    try:
        for mutation in MUTATIONS:
            if options.only not in mutation.rule:
                continue
            ENGINE.write_text(original.replace(mutation.original, mutation.broken), "utf-8")
            _code, failed = failing_tests(options.tests)
            ENGINE.write_text(original, encoding="utf-8")
            print(f"{mutation.rule}: {len(failed)} failed")
            for test in failed:
                print(f"    {test}")
            holes += not failed
    finally:
        ENGINE.write_text(original, encoding="utf-8")
    if holes:
        print(f"{holes} rule(s) broke no test")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
