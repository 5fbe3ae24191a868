"""The recorder (``phantom-log record``) as the tests drive it: on a pseudo-terminal of its
own (pexpect), and the walkthrough as a person at the table types it.

The terminal's output holds prompt_toolkit's escape sequences: the tests look for the words
of a prompt or a reply, which are written whole. A look that finds nothing within its
time fails the test (the recorder hung, or said something else); no test measures a time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect

from phantom_log.records.record_texts import record_text

ROOT = Path(__file__).resolve().parents[2]
WALKTHROUGH = ROOT / "examples" / "rulebook-walkthrough.json"
# How long one look at the terminal may wait for the words it wants: the machine is shared.
LOOK_SECONDS = 30


def walkthrough() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return data


def walkthrough_text(*, deals: bool = True) -> str:
    text, _ = record_text(walkthrough())
    if deals:
        return text
    kept = [line for line in text.splitlines() if not line.startswith(("deal", "aside"))]
    return "\n".join(kept) + "\n"


def trick_lines(text: str, round_number: int) -> list[str]:
    """The trick lines of one round of a game text, without their number, comment or
    claimed winner (what a person at the table types)."""
    lines = text.split(f"round {round_number}\n", 1)[1].split("\nround ", 1)[0].splitlines()
    tricks = [line for line in lines if re.match(r"\d+\. ", line)]
    return [re.sub(r"^\d+\. | \{.*\}| =[PC]$", "", line) for line in tricks]


def environment() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "TERM": "xterm",
        "NO_COLOR": "1",
    }


class Recorder:
    """``phantom-log record PATH`` on a pseudo-terminal of its own."""

    def __init__(self, path: Path, *args: str) -> None:
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "phantom_log", "record", str(path), *args],
            cwd=str(path.parent),
            env=environment(),
            encoding="utf-8",
            timeout=LOOK_SECONDS,
            dimensions=(50, 160),
        )

    def wait_for(self, words: str) -> str:
        """Wait until the terminal shows ``words`` (a regular expression); what came
        before them."""
        self.child.expect(words)
        return str(self.child.before)

    def answer(self, question: str, typed: str) -> None:
        self.wait_for(question)
        self.child.sendline(typed)

    def ended(self) -> int:
        """The exit code, once the recorder has ended by itself."""
        self.child.expect(pexpect.EOF)
        self.child.close()
        return int(self.child.exitstatus)


def enter_header(recorder: Recorder) -> None:
    for question, typed in (
        ("game_id", "table-2"),
        ("event", "Club night"),
        ("date", "2026-11-29"),
        ("stage", ""),
        ("phantom", "Erik"),
        ("christine", "Christine"),
        ("sheet", ""),
        ("rules", ""),
    ):
        recorder.answer(re.escape(question) + r" \(", typed)


def enter_round_1_opening(recorder: Recorder, *, deals: bool = True) -> None:
    if deals:
        recorder.answer("the Phantom's deal", "Mi3 Mi6 Ch1 Ch4 Ch6 Ri1 Ri3 Ri5 Ma2 Ma5")
        recorder.answer("Christine's deal", "Mi1 Mi2 Mi4 Mi5 Ch2 Ch5 Ri6 Ma1 Ma4 Ma6")
    else:
        recorder.answer("the Phantom's deal", "")
    recorder.answer(r"the exchange \(P CARD C CARD\)", "Ri3 Mi5")
    recorder.answer(r"the special number \(3 or 5\)", "3")


def saved(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def plays(data: dict[str, Any]) -> list[str]:
    return [
        play["card"]
        for round_ in data["rounds"]
        for trick in round_["tricks"]
        for play in trick["plays"]
    ]


def record_from(path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", "record", str(path), *args],
        input=text,
        capture_output=True,
        text=True,
        env=environment(),
        timeout=600,
        check=False,
    )
