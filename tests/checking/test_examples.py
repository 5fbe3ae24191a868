"""The example records of ``examples/``, and the golden outputs of ``phantom-log verify``.

- Every record at the top of ``examples/`` is valid and claims the result that the replay
  finds; ``unfinished.json`` has exactly one problem, its ``unfinished`` warning.
- Every record of ``examples/invalid/`` is named for the problem code it gives first:
  ``<code>.json``, or ``<code>--<variant>.json`` for another way to the same code
  (``unfinished``, a warning, counts as an error under ``--strict``, as in the CLI).
- Golden files: ``tests/golden/verify/<name>.txt`` holds the text output of
  ``phantom-log verify --strict examples/invalid/<name>.json``, and
  ``tests/golden/verify/valid-examples.txt`` that of ``phantom-log verify`` on the four
  valid examples, paths relative to the repository's root. After a deliberate change of
  the output (or of the examples), rewrite the golden files instead of comparing with::

      PHANTOM_LOG_UPDATE_GOLDEN=1 pytest tests/checking/test_examples.py

  and read the diff before committing it.

The examples are written by ``scripts/build_examples.py``; the last test checks that
they are still exactly what it writes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from phantom_log.checking.verdict import verify_paths
from phantom_log.cli import main
from phantom_log.rules.problems import FAILURE_CODES, Code, Problem, Severity
from tests.helpers.paths import EXAMPLES, REPO
from tests.helpers.paths import GOLDEN as GOLDEN_FOLDER

INVALID = EXAMPLES / "invalid"
GOLDEN = GOLDEN_FOLDER / "verify"
VALID_GOLDEN = "valid-examples"
UPDATE_GOLDEN = os.environ.get("PHANTOM_LOG_UPDATE_GOLDEN") == "1"

VALID_FILES = sorted(EXAMPLES.glob("*.json"))
INVALID_FILES = sorted([*INVALID.glob("*.json"), *INVALID.glob("*.ptn")])

# Problems of one play or one trick: they name the round and the trick.
TRICK_CODES = {
    Code.WRONG_PLAYER,
    Code.CARD_NOT_HELD,
    Code.REVOKE,
    Code.MISSING_SWAP,
    Code.UNEXPECTED_SWAP,
    Code.AFTER_GAME_END,
    Code.INCOMPLETE_TRICK,
    Code.UNFINISHED,
}
# Problems of a round's start or end: they name the round.
ROUND_CODES = {Code.BAD_DEAL, Code.BAD_EXCHANGE, Code.BAD_SPECIAL_NUMBER, Code.INCOMPLETE_ROUND}
# Checks across the records of a tournament: no single record can show them.
TOURNAMENT_CODES = {Code.DUPLICATE_GAME_ID, Code.DUPLICATE_DEAL}
POINTER_PLACE = re.compile(r"/rounds/(\d+)(?:/tricks/(\d+))?")


def relative(path: Path) -> str:
    """The path as the golden outputs show it: relative to the repository's root."""
    return path.relative_to(REPO).as_posix()


def code_of(path: Path) -> Code:
    """The code an invalid example is named for."""
    return Code(path.stem.split("--")[0])


def first_error(path: Path) -> Problem:
    """The first problem of severity error of a file, under ``--strict``."""
    errors = [
        problem
        for report in verify_paths([str(path)], strict=True)
        for problem in report.problems
        if problem.severity is Severity.ERROR
    ]
    assert errors, f"{relative(path)} gives no error"
    return errors[0]


@pytest.mark.parametrize("path", VALID_FILES, ids=relative)
def test_valid_example_verifies_with_its_claimed_result(path: Path) -> None:
    (report,) = verify_paths([str(path)])
    claimed = json.loads(path.read_text(encoding="utf-8"))["result"]
    assert report.valid
    assert report.result is not None
    assert report.result.to_json() == claimed
    expected = [Code.UNFINISHED] if claimed["winner"] is None else []
    assert [problem.code for problem in report.problems] == expected
    assert all(problem.severity is Severity.WARNING for problem in report.problems)


def test_examples_show_both_winners_an_unfinished_game_and_the_options() -> None:
    records = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in VALID_FILES}
    assert set(records) == {"rulebook-walkthrough", "optional-rules", "custom-sheet", "unfinished"}
    winners = {record["result"]["winner"] for record in records.values()}
    assert winners == {"phantom", "christine", None}
    assert records["optional-rules"]["rules"] == {"beginner": True, "balance": True}
    assert isinstance(records["custom-sheet"]["sheet"], dict)
    assert records["unfinished"]["rounds"][-1]["tricks"][-1]["plays"][1:] == []


@pytest.mark.parametrize("path", INVALID_FILES, ids=relative)
def test_invalid_example_gives_its_code_first(path: Path) -> None:
    problem = first_error(path)
    assert problem.code is code_of(path)
    if problem.code in (Code.JSON, Code.NOTATION):
        assert (problem.pointer, problem.round, problem.trick) == ("", None, None)
        return
    assert problem.pointer.startswith("/")
    if problem.code in TRICK_CODES:
        assert problem.round is not None
        assert problem.trick is not None
    if problem.code in ROUND_CODES:
        assert problem.round is not None
    place = POINTER_PLACE.match(problem.pointer)
    if place is not None:
        round_index, trick_index = place.groups()
        assert problem.round == int(round_index) + 1
        assert problem.trick == (None if trick_index is None else int(trick_index) + 1)


def test_every_problem_code_of_a_record_has_an_invalid_example() -> None:
    named = {code_of(path) for path in INVALID_FILES}
    # A failure of the run (a bug, a source that cannot be read) is no record's content:
    # tests/running/test_isolation.py makes those happen.
    assert named == set(Code) - TOURNAMENT_CODES - FAILURE_CODES
    assert all(
        (INVALID / f"{code}.json").exists() or (INVALID / f"{code}.ptn").exists() for code in named
    )


def test_the_walkthrough_as_game_text_is_the_walkthrough() -> None:
    (report,) = verify_paths([str(EXAMPLES / "rulebook-walkthrough.ptn")])
    assert report.valid
    assert report.record == json.loads((EXAMPLES / "rulebook-walkthrough.json").read_text("utf-8"))


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository's root, so that relative paths name the examples."""
    monkeypatch.chdir(REPO)


def verify_output(*args: str) -> tuple[int, str]:
    """The exit code and the standard output of ``phantom-log verify ARGS``."""
    result = CliRunner().invoke(main, ["verify", *args])
    return result.exit_code, result.stdout


def compare_with_golden(name: str, output: str) -> None:
    """Compare with ``tests/golden/verify/<name>.txt``, or rewrite it when asked to."""
    golden = GOLDEN / f"{name}.txt"
    if UPDATE_GOLDEN:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(output, encoding="utf-8")
        return
    assert golden.exists(), f"no {relative(golden)}: run with PHANTOM_LOG_UPDATE_GOLDEN=1"
    assert output == golden.read_text(encoding="utf-8")


@pytest.mark.usefixtures("at_root")
@pytest.mark.parametrize("path", INVALID_FILES, ids=relative)
def test_verify_output_of_invalid_example_matches_golden(path: Path) -> None:
    exit_code, output = verify_output("--strict", relative(path))
    assert exit_code == 1
    compare_with_golden(path.stem, output)


@pytest.mark.usefixtures("at_root")
def test_verify_output_of_valid_examples_matches_golden() -> None:
    exit_code, output = verify_output(*(relative(path) for path in VALID_FILES))
    assert exit_code == 0
    compare_with_golden(VALID_GOLDEN, output)


def test_every_golden_file_has_its_example() -> None:
    names = {path.stem for path in INVALID_FILES} | {VALID_GOLDEN}
    # And every example its golden file (no subset of an empty folder passes).
    assert {path.stem for path in GOLDEN.glob("*.txt")} == names


def test_examples_are_what_the_script_builds() -> None:
    script = REPO / "scripts" / "build_examples.py"
    # The script searches for games; with the rules broken it may search for ever.
    done = subprocess.run(
        [sys.executable, str(script), "--check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
