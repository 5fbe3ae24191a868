"""The README's recorder session ("Recording an event's games") is a real one: each command
of its transcript is run on a pseudo-terminal, each answer typed as the transcript shows
it, and every line the transcript shows must come, in order."""

from __future__ import annotations

import datetime
import os
import re
import sys
from pathlib import Path

import pexpect

from tests.helpers.paths import REPO
from tests.helpers.recorder import LOOK_SECONDS, environment

README = (REPO / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## Recording an event's games", 1)[1].split("\n## ", 1)[0]
TRANSCRIPT = re.search(r"```text\n(\$ phantom-log record table-2\.json\n.*?)```", SECTION, re.S)
# Where a question ends and the answer typed begins.
_QUESTION_END = re.compile(r"(?:leads|follows|\)|\]|gives \d)(: |:$)")
_DATE = re.compile(r"\[\d{4}-\d{2}-\d{2}\]")


def question_and_answer(line: str) -> tuple[str, str] | None:
    """The question and what was typed, for a line of the transcript that is a question."""
    if not re.match(r"(round \d|[a-z_]+ \()", line):
        return None
    found = _QUESTION_END.search(line)
    if found is None:
        return None
    return line[: found.end()].rstrip(" "), line[found.end() :]


def test_the_readme_session_is_what_the_recorder_says(tmp_path: Path) -> None:
    assert TRANSCRIPT is not None
    today = f"[{datetime.date.today().isoformat()}]"
    child: pexpect.spawn | None = None
    for line in TRANSCRIPT.group(1).splitlines():
        if line.startswith("$ "):
            if child is not None:
                child.expect(pexpect.EOF)
                child.close()
                assert child.exitstatus == 0
            child = pexpect.spawn(
                sys.executable,
                ["-m", "phantom_log", *line.split()[2:]],
                cwd=str(tmp_path),
                env={**environment(), "TERM": "dumb"},
                encoding="utf-8",
                timeout=LOOK_SECONDS,
                dimensions=(50, 200),
            )
            continue
        assert child is not None
        asked = question_and_answer(line)
        if asked is None:
            child.expect_exact(line)
            continue
        question, typed = asked
        child.expect_exact(_DATE.sub(today, question))
        child.sendline(typed)
    assert child is not None
    child.sendline("quit")
    child.expect_exact("Stopped: table-2.json holds every entry taken")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert os.listdir(tmp_path) == ["table-2.json"]
