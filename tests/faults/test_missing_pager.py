"""A missing or broken pager (the reliability issue, second pass, point 7): on a real
pseudo-terminal, so that the pager's path is really taken, a pager that is not there,
cannot be run, or fails at once leaves the text printed straight, every record's verdict
in it, with the command's own exit code; a pager that works still gets the text, and a
pager that took more than a pipe holds before it failed is not given it twice."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from phantom_log.cli import pager
from tests.helpers.paths import EXAMPLES

INVALID = EXAMPLES / "invalid"
#: Every record of examples/invalid/, as verify names it at the start of its lines.
RECORDS = sorted(f"examples/invalid/{path.name}#0" for path in INVALID.glob("*.json"))


def on_a_terminal(args: list[str], environment: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    """Run phantom-log with its standard output on a pseudo-terminal, read while it runs;
    its exit code, what reached the terminal and its standard error."""
    master, slave = pty.openpty()
    base = {
        name: value
        for name, value in os.environ.items()
        if name not in ("PAGER", "PHANTOM_LOG_PAGER", "LESS")
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**base, "COLUMNS": "100", **environment},
        cwd=cwd,
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        assert ready, "nothing reached the terminal for 60 s"
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer of the terminal has closed it
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert process.stderr is not None
    errors = process.stderr.read().decode("utf-8", "replace")
    code = process.wait(timeout=60)
    return code, shown.decode("utf-8", "replace").replace("\r\n", "\n"), errors


@pytest.fixture(scope="module")
def straight() -> str:
    """What ``verify examples/invalid/`` prints into a pipe, where no pager is used."""
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", "verify", "examples/invalid/"],
        capture_output=True,
        encoding="utf-8",
        cwd=EXAMPLES.parent,
        check=False,
    ).stdout


def verdicts_printed(shown: str, straight: str) -> None:
    """Every record's verdict is in ``shown``, once, as a pipe gets them."""
    for record in RECORDS:
        assert f"\n{record}" in "\n" + shown, f"{record} is missing"
    assert shown == straight


def test_no_less_on_the_path_prints_straight_and_quietly(tmp_path: Path, straight: str) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    code, shown, errors = on_a_terminal(
        ["verify", "examples/invalid/"], {"PATH": str(empty)}, EXAMPLES.parent
    )
    assert code == 1, errors
    verdicts_printed(shown, straight)
    assert "not found" not in shown + errors
    assert "note" not in errors  # the default pager, not one the user named


@pytest.mark.parametrize(
    ("named", "said"),
    [
        ("no-such-pager-anywhere", "cannot be run"),
        ("no-such-pager-anywhere -R", "cannot be run"),
        ("false", "failed (exit status 1)"),
        ("sh -c 'exit 7'", "failed (exit status 7)"),  # through the shell
        ("head -c 10 >/dev/null; exit 1", "failed (exit status 1)"),  # took some, then failed
        ("no-such-pager-anywhere | cat; exit 127", "failed (exit status 127)"),
    ],
)
def test_a_pager_that_cannot_show_the_text_leaves_it_printed_straight(
    named: str, said: str, straight: str
) -> None:
    for variable in ("PHANTOM_LOG_PAGER", "PAGER"):
        code, shown, errors = on_a_terminal(
            ["verify", "examples/invalid/"], {variable: named}, EXAMPLES.parent
        )
        assert code == 1, errors
        verdicts_printed(shown, straight)
        assert f"phantom-log: note: the pager {named!r} {said}" in errors


def test_a_file_that_is_no_program_as_the_pager(tmp_path: Path, straight: str) -> None:
    script = tmp_path / "pager"
    script.write_text("#!/bin/sh\ncat\n", encoding="utf-8")  # no execute permission
    code, shown, errors = on_a_terminal(
        ["verify", "examples/invalid/"], {"PHANTOM_LOG_PAGER": str(script)}, EXAMPLES.parent
    )
    assert code == 1, errors
    verdicts_printed(shown, straight)
    assert "cannot be run" in errors


def test_a_pager_that_works_still_gets_the_whole_text(tmp_path: Path, straight: str) -> None:
    paged = tmp_path / "paged.txt"
    code, shown, errors = on_a_terminal(
        ["verify", "examples/invalid/"], {"PHANTOM_LOG_PAGER": f"cat > {paged}"}, EXAMPLES.parent
    )
    assert code == 1, errors
    assert RECORDS[0] not in shown
    verdicts_printed(paged.read_text(encoding="utf-8"), straight)


def test_a_pager_that_took_more_than_a_pipe_holds_is_not_given_the_text_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Straight to the PagerInput, with a real pager process: past KEPT_CHARACTERS the
    # text is no longer kept (memory stays bounded), so a late failure prints nothing.
    printed = io.StringIO()
    monkeypatch.setattr(sys, "stdout", printed)
    line = "x" * 99 + "\n"
    with pager.paged("cat > /dev/null; exit 1") as stream:
        for _ in range(2 * pager.KEPT_CHARACTERS // len(line)):
            stream.write(line)
        assert isinstance(stream, pager.PagerInput) and stream.kept is None
    assert printed.getvalue() == ""
    with pager.paged("cat > /dev/null; exit 1") as stream:
        stream.write(line)
    assert printed.getvalue() == line  # a short text, kept, is printed straight


def test_a_reader_who_quits_the_pager_ends_the_run_as_a_closed_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with pytest.raises(BrokenPipeError), pager.paged("true") as stream:
        for _ in range(pager.KEPT_CHARACTERS // 100):
            stream.write("y" * 99 + "\n")
    assert sys.stdout.getvalue() == ""
