"""The console script watches over its run from a second process (the reliability issue,
second pass): a memory limit is one line and exit 3, never a library's abort; SIGTERM
ends a run that cannot act on it; a run killed with SIGKILL, or whose watching process
is, leaves no temporary file; the progress line is drawn on a terminal as before. Real
processes, real limits (``RLIMIT_AS``, as ``ulimit -v`` sets), real signals; measured as
exit codes, lines and files left, never as wall time."""

from __future__ import annotations

import json
import os
import pty
import re
import resource
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from phantom_log.cli.supervisor import _ErrorCopier
from tests.helpers.paths import WALKTHROUGH

# How long a process is given to do what it must before the test takes it for hung.
HUNG = 120.0
# A memory limit under which the commands run out (polars alone reserves more).
LIMIT = 500 * 2**20

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the supervisor runs where fork and /proc are"
)


def corpus(folder: Path, records: int = 20_000) -> Path:
    line = json.dumps(json.loads(WALKTHROUGH.read_text(encoding="utf-8"))) + "\n"
    path = folder / "games.jsonl"
    path.write_text(line * records, encoding="utf-8")
    return path


def limited(size: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


# How often a test looks for what a process must do, 20 times a second, before it takes
# the process for hung.
LOOKS = int(HUNG * 20)


def wait_for(condition: Callable[[], bool], what: str) -> None:
    for _ in range(LOOKS):
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"never: {what}")


def private_tmpdir(tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    return {**os.environ, "TMPDIR": str(folder), "RUST_BACKTRACE": "1"}


@pytest.mark.parametrize(
    "command",
    [
        ["stats", "{games}", "--by", "player", "--jobs", "1"],
        [
            "export",
            "{games}",
            "--games",
            "{out}/g.parquet",
            "--tricks",
            "{out}/t.csv",
            "--force",
            "--jobs",
            "1",
        ],
        [
            "export",
            "{games}",
            "--games",
            "{out}/g.parquet",
            "--tricks",
            "{out}/t.csv",
            "--force",
            "--jobs",
            "2",
        ],
    ],
    ids=["stats", "export", "export-jobs-2"],
)
def test_a_memory_limit_is_one_line_and_exit_3(tmp_path: Path, command: list[str]) -> None:
    games = corpus(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "g.parquet").write_bytes(b"an earlier run's table")
    env = private_tmpdir(tmp_path)
    args = [part.format(games=games, out=out) for part in command]
    done = subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limited(LIMIT),
        timeout=HUNG,
    )
    assert done.returncode == 3, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(
        r"phantom-log: error: (memory ran out( after [\d,]+ records)? \(this process may use "
        r"500 MiB: ulimit -v\); the run did not finish, and its output files were left as "
        r"they were|a worker process died after [\d,]+ records; .*)",
        lines[0],
    ), lines[0]
    assert sorted(path.name for path in out.iterdir()) == ["g.parquet"]
    assert (out / "g.parquet").read_bytes() == b"an earlier run's table"
    assert list((tmp_path / "tmpdir").iterdir()) == []


# ``phantom-log ARGS...`` whose output is held, once written to its temporary file, in a
# thread that takes no signal (as a thread parked in a library takes none): the moment is
# told in the file named first, with the pid of the process that runs the command.
HELD = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path

    from phantom_log.files import outputs

    ready = Path(sys.argv.pop(1))
    synced = outputs._fsync

    def held(path):
        synced(path)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP, signal.SIGINT})
        Path(f"{ready}.part").write_text(str(os.getpid()))
        os.replace(f"{ready}.part", ready)
        time.sleep(600)

    outputs._fsync = held
    sys.argv[0] = "phantom-log"
    from phantom_log.cli import entry

    entry()
    """
)


def held_run(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    out = tmp_path / "out"
    out.mkdir()
    ready = tmp_path / "ready"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HELD,
            str(ready),
            "simulate",
            "--count",
            "3",
            "-o",
            str(out / "games.jsonl"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=private_tmpdir(tmp_path),
    )
    wait_for(ready.exists, "the output written to its temporary file")
    assert len(list(out.iterdir())) == 1  # the temporary file
    return process, out, ready


def test_sigterm_ends_a_run_that_takes_no_signal(tmp_path: Path) -> None:
    process, out, ready = held_run(tmp_path)
    run = int(ready.read_text())
    assert run != process.pid  # the run is the supervisor's child
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=HUNG)
    assert process.returncode == 143
    assert stderr == "phantom-log: terminated (SIGTERM)\n"
    assert list(out.iterdir()) == []  # the temporary file removed by the supervisor


def test_a_run_killed_with_sigkill_is_said_and_leaves_no_temporary(tmp_path: Path) -> None:
    process, out, ready = held_run(tmp_path)
    os.kill(int(ready.read_text()), signal.SIGKILL)
    _, stderr = process.communicate(timeout=HUNG)
    assert process.returncode == 3
    assert stderr.startswith("phantom-log: error: the run was killed (SIGKILL, ")
    assert list(out.iterdir()) == []


def test_a_supervisor_killed_with_sigkill_leaves_no_run_and_no_temporary(
    tmp_path: Path,
) -> None:
    process, out, ready = held_run(tmp_path)
    run = int(ready.read_text())
    process.kill()
    process.communicate(timeout=HUNG)

    def run_gone() -> bool:
        try:
            state = Path(f"/proc/{run}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        return state == "Z"

    wait_for(run_gone, "the run ends with its supervisor")
    wait_for(lambda: list(out.iterdir()) == [], "the temporary file removed")


def test_the_progress_line_is_drawn_on_a_terminal_under_the_supervisor(tmp_path: Path) -> None:
    games = corpus(tmp_path, 20_000)
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "phantom_log",
            "verify",
            "--jobs",
            "1",
            "--format",
            "json",
            str(games),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    seen = b""
    while True:
        try:
            data = os.read(controller, 65536)
        except OSError:  # the terminal's other end closed: the run ended
            break
        if not data:
            break
        seen += data
    os.close(controller)
    assert process.wait(timeout=HUNG) == 0
    assert re.search(rb"\rverifying.* [\d,]+ records \(", seen), seen[-300:]
    assert seen.rstrip().endswith(b"verifying: 20,000 records")


def copied(*parts: bytes) -> bytes:
    read, write = os.pipe()
    copier = _ErrorCopier(read)
    out_read, out_write = os.pipe()
    saved = os.dup(2)
    os.dup2(out_write, 2)
    try:
        for part in parts:
            os.write(write, part)
            copier.copy(1.0)
        os.close(write)
        copier.copy_all()
        copier.finish()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(out_write)
    with os.fdopen(out_read, "rb") as result:
        return result.read()


def test_a_rust_librarys_abort_lines_are_left_out_of_standard_error() -> None:
    # The progress line stays (the run rubs it out, or the supervisor ends it).
    assert (
        copied(
            b"\rreading: 2,048 records (900/s)",
            b"memory allocation of 131072 bytes failed\n<jemalloc>: background thread creat",
            b"ion failed (11)\nstack backtrace:\nnote: run with `RUST_BACKTRACE=1` for more\n",
            b"a line of ours\n",
        )
        == b"\rreading: 2,048 records (900/s)\na line of ours\n"
    )
    assert copied(b"\rreading: 10 records\rmemory allocation of 8 bytes failed\n") == (
        b"\rreading: 10 records\r\n"
    )
    # Two threads aborting at once write into each other's lines.
    assert (
        copied(
            b"memory allocation of <jemalloc>: background thread creation failed (11)\n",
            b"65536 bytes failed\nours\n\n",
        )
        == b"ours\n\n"
    )
    # What is left of a line another process wrote into, in whatever parts it comes.
    assert copied(b"ours\nmemory allocation of ", b"1520", b" bytes failed", b"\n") == b"ours\n"
    assert copied(b"1520 bytes failed", b"\nours\n") == b"ours\n"
    # A line of ours that starts as theirs is held until it is whole, then copied.
    assert copied(b"memory is what we say\n", b"memo", b"ry allocation of 1 bytes failed\n") == (
        b"memory is what we say\n"
    )
    assert copied(b"no line break at the end") == b"no line break at the end"

    # A panic's message, from the blank line before it to the note that ends it.
    assert (
        copied(
            b"ours\n\nthread '<unnamed>' (13900) panicked at crates/polars-async/src/x.rs:4:2:\n",
            b"called `Result::unwrap()` on an `Err` value: Os { code: 11 }\n",
            b"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
            b"\nstill ours\n\n",
        )
        == b"ours\n\nstill ours\n\n"
    )


def test_a_line_written_in_two_parts_is_copied_as_soon_as_it_ends() -> None:
    # print() writes its text, then its line break: the line is copied once it ends,
    # never held back until the run writes more (a run waiting for a lock writes no more).
    read, write = os.pipe()
    copier = _ErrorCopier(read)
    out_read, out_write = os.pipe()
    os.set_blocking(out_read, False)
    saved = os.dup(2)
    os.dup2(out_write, 2)
    try:
        os.write(write, b"phantom-log: note: waiting for out")
        copier.copy(1.0)
        os.write(write, b"\n")
        copier.copy(1.0)
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(out_write)
        os.close(write)
    assert os.read(out_read, 1000) == b"phantom-log: note: waiting for out\n"
    os.close(out_read)


def test_a_run_whose_standard_error_is_a_file_writes_it_through_the_supervisor(
    tmp_path: Path,
) -> None:
    # Standard error a file when the process starts (it may seek), a pipe to the
    # supervisor once the run is forked: the run's stream is made again for the pipe.
    games = corpus(tmp_path, 30)
    errors = tmp_path / "stderr.txt"
    with open(errors, "w") as stream:
        done = subprocess.run(
            [sys.executable, "-m", "phantom_log", "export", "-", "--games", "-", "--force"],
            input=games.read_bytes(),
            stdout=subprocess.DEVNULL,
            stderr=stream,
            timeout=HUNG,
        )
    assert done.returncode == 0, errors.read_text()
    assert errors.read_text() == ""
    with open(errors, "w") as stream:
        done = subprocess.run(
            [sys.executable, "-m", "phantom_log", "verify", str(tmp_path / "missing.jsonl")],
            stdout=subprocess.DEVNULL,
            stderr=stream,
            timeout=HUNG,
        )
    assert done.returncode == 2
    assert errors.read_text().startswith("phantom-log: error: ")
    assert "Traceback" not in errors.read_text()
