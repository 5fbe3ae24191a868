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
from contextlib import suppress
from pathlib import Path

import pytest

from phantom_log.cli.supervisor import _ErrorCopier
from tests.helpers.paths import WALKTHROUGH
from tests.helpers.processes import read_terminal

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
    seen = read_terminal(controller)
    assert process.wait(timeout=HUNG) == 0
    assert re.search(rb"\rverifying.* [\d,]+ records \(", seen), seen[-300:]
    assert seen.rstrip().endswith(b"verifying: 20,000 records")


# The console script's supervisor over a run that writes to its standard error stream and
# to descriptor 2 itself (as a library or the C runtime does), then ends as the argument
# says: "ok" (exit 0), "exit3" (memory ran out, said by the run), "abort" (SIGABRT, as a
# Rust library that finds no memory aborts).
RAW = textwrap.dedent(
    """
    import os, signal, sys
    from phantom_log.cli import supervisor

    def run(program):
        how = sys.argv[1]
        os.write(2, b"memory allocation of 8388608 bytes failed\\n")
        os.write(2, b"80")  # a part of a line another thread writes into
        sys.stderr.write("\\rverifying: 10 records")
        sys.stderr.flush()
        if how == "abort":
            os.kill(os.getpid(), signal.SIGABRT)
        if how == "exit3":
            sys.stderr.write("\\rphantom-log: error: memory ran out\\n")
            sys.stderr.flush()
            os._exit(3)
        os._exit(0)

    supervisor.run_command_line = run
    supervisor.supervised(None)
    """
)


def raw_run(tmp_path: Path, how: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", RAW, how],
        capture_output=True,
        env=private_tmpdir(tmp_path),
        timeout=HUNG,
    )


@pytest.mark.parametrize("how", ["abort", "exit3"])
def test_a_failed_runs_library_lines_are_left_out_of_standard_error(
    tmp_path: Path, how: str
) -> None:
    # What the libraries wrote to descriptor 2 is left out, whole lines or parts; what
    # phantom-log wrote (the progress line) came as it came; the supervisor ends that
    # line before its own, or the run said its own.
    done = raw_run(tmp_path, how)
    assert done.returncode == 3, done.stderr
    if how == "abort":
        assert done.stderr.startswith(
            b"\rverifying: 10 records\nphantom-log: error: memory ran out"
        ), done.stderr
        assert done.stderr.count(b"\n") == 2, done.stderr
    else:
        assert done.stderr == b"\rverifying: 10 records\rphantom-log: error: memory ran out\n"


def test_a_finished_runs_lines_to_descriptor_2_are_copied_after_its_own(tmp_path: Path) -> None:
    # Nothing is lost of a run that did not fail: what was written to descriptor 2 comes
    # after phantom-log's own lines, once the run has ended.
    done = raw_run(tmp_path, "ok")
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        b"\rverifying: 10 records\nmemory allocation of 8388608 bytes failed\n80"
    )


def test_a_line_written_in_two_parts_is_copied_as_soon_as_it_ends() -> None:
    # print() writes its text, then its line break: the line is copied once it ends,
    # never held back until the run writes more (a run waiting for a lock writes no more).
    import threading

    read, write = os.pipe()
    copier = _ErrorCopier(read)
    out_read, out_write = os.pipe()
    os.set_blocking(out_read, False)
    saved = os.dup(2)
    os.dup2(out_write, 2)
    copying = threading.Thread(target=copier.copy_all)
    copying.start()
    seen = b""
    try:
        os.write(write, b"phantom-log: note: waiting for out")
        os.write(write, b"\n")
        for _ in range(LOOKS):
            with suppress(BlockingIOError):
                seen += os.read(out_read, 1000)
            if seen.endswith(b"\n"):
                break
            time.sleep(0.05)
    finally:
        os.close(write)
        copying.join()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(out_write)
    assert seen == b"phantom-log: note: waiting for out\n"
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


# The console script, interrupted by Ctrl-C (SIGINT) as it imports the command line.
INTERRUPTED_LOADING = textwrap.dedent(
    """
    import os, signal, sys

    class Interrupt:
        def find_spec(self, name, path=None, target=None):
            if name == "phantom_log.cli":
                os.kill(os.getpid(), signal.SIGINT)
            return None

    sys.meta_path.insert(0, Interrupt())
    sys.argv[0] = "phantom-log"
    from phantom_log.console import entry

    entry()
    """
)


def test_ctrl_c_while_the_command_line_loads_is_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_LOADING, "--version"],
        capture_output=True,
        text=True,
        env=private_tmpdir(tmp_path),
        timeout=HUNG,
    )
    assert (done.returncode, done.stderr, done.stdout) == (130, "phantom-log: interrupted\n", "")
