"""Writes that cannot clobber (the reliability issue): the temp-then-rename rule holds
under SIGTERM and SIGHUP, --force writes through a symbolic link and refuses a FIFO or a
device, and a full disk or an unwritable output is a clear error, exit 3, with nothing
left behind. Signals and full disks are tried on the real command, in a process of its
own."""

from __future__ import annotations

import errno
import fcntl
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Final

import pytest

from phantom_log.files import outputs as output
from tests.helpers.cli import run
from tests.helpers.paths import REPO

WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 simulated games, each with its own game id, as JSON Lines."""
    path = tmp_path_factory.mktemp("games") / "games.jsonl"
    result = run("simulate", "-n", "200", "--seed", "7", "-o", path, "-q")
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def many_games(games: Path) -> Path:
    """1,200 games: more than two chunks of records, so that worker processes start."""
    path = games.with_name("many.jsonl")
    path.write_bytes(games.read_bytes() * 6)
    return path


def leftovers(*folders: Path) -> list[str]:
    """Temporary files (``.NAME.XXXX.tmp``) and work folders (``phantom-log-XXXX``)."""
    return sorted(
        path.name
        for folder in folders
        for path in folder.iterdir()
        if path.name.endswith(".tmp") or path.name.startswith("phantom-log-")
    )


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def no_traceback(text: str) -> bool:
    return "Traceback" not in text and "Process " not in text


# --- every command that writes a file ---------------------------------------------------------

# Each command, with OUT for its output file (the extension is the output's).
WRITERS: dict[str, list[str]] = {
    "simulate -o": ["simulate", "-n", "30", "-q", "-o", "OUT.jsonl"],
    "show --svg": ["show", "GAMES", "--index", "0", "--svg", "OUT.svg"],
    "export --games csv": ["export", "GAMES", "-q", "--games", "OUT.csv"],
    "export --tricks parquet": ["export", "GAMES", "-q", "--tricks", "OUT.parquet"],
    "export --tricks jsonl": ["export", "GAMES", "-q", "--tricks", "OUT.jsonl"],
    "stats -o": [
        *("stats", "GAMES", "-q", "--by", "player", "--curve", "--format", "json"),
        *("-o", "OUT.json"),
    ],
    "stats --plot svg": ["stats", "GAMES", "-q", "--by", "player", "--plot", "OUT.svg"],
    "stats --plot png": ["stats", "GAMES", "-q", "--by", "player", "--plot", "OUT.png"],
    "tournament check -o": ["tournament", "check", "GAMES", "-q", "-o", "OUT.csv"],
}


def writer_args(name: str, games: Path, out: Path) -> tuple[list[str], Path]:
    """The arguments of the command ``name`` writing to ``out`` (with the extension its
    output needs), and the output's path."""
    template = WRITERS[name]
    extension = next(arg for arg in template if arg.startswith("OUT")).removeprefix("OUT")
    target = out.with_name(out.name + extension)
    args = [
        str(games) if arg == "GAMES" else str(target) if arg.startswith("OUT") else arg
        for arg in template
    ]
    return args, target


@pytest.mark.parametrize("name", WRITERS)
def test_every_output_is_written_whole_with_no_temporary_left(
    name: str, games: Path, tmp_path: Path
) -> None:
    args, target = writer_args(name, games, tmp_path / "out")
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert target.stat().st_size > 0
    assert [path.name for path in tmp_path.iterdir()] == [target.name]


@pytest.mark.parametrize("name", WRITERS)
def test_force_on_a_symbolic_link_writes_the_file_it_points_to(
    name: str, games: Path, tmp_path: Path
) -> None:
    """The link chain is followed to the file; the temporary file is made beside that
    file (and removed); the links stay links; the file keeps its permissions."""
    real_folder, link_folder = tmp_path / "real", tmp_path / "links"
    real_folder.mkdir()
    link_folder.mkdir()
    args, link = writer_args(name, games, link_folder / "out")
    real = real_folder / link.name
    real.write_text("old")
    real.chmod(0o640)
    middle = link_folder / f"middle{link.suffix}"
    middle.symlink_to(real)
    link.symlink_to(middle.name)  # a relative link to a link

    refused = run(*args)
    assert refused.exit_code == 2
    assert f"{link} exists; use --force" in refused.stderr
    assert real.read_text() == "old"

    result = run(*args, "--force")
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and middle.is_symlink()
    assert os.readlink(link) == middle.name
    assert real.read_bytes() != b"old" and real.stat().st_size > 0
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert leftovers(real_folder, link_folder) == []
    assert sorted(path.name for path in real_folder.iterdir()) == [real.name]


def test_force_on_a_dangling_link_creates_the_file_it_points_to(tmp_path: Path) -> None:
    link = tmp_path / "games.jsonl"
    link.symlink_to("made/here.jsonl")
    (tmp_path / "made").mkdir()
    refused = run("simulate", "-n", "2", "-q", "-o", link)
    assert refused.exit_code == 2
    assert "exists; use --force" in refused.stderr
    assert not (tmp_path / "made" / "here.jsonl").exists()
    assert run("simulate", "-n", "2", "-q", "-o", link, "--force").exit_code == 0
    assert link.is_symlink()
    assert len((tmp_path / "made" / "here.jsonl").read_text().splitlines()) == 2


def test_force_on_a_link_into_a_folder_that_does_not_exist_is_a_usage_error(
    tmp_path: Path,
) -> None:
    link = tmp_path / "games.jsonl"
    link.symlink_to("nowhere/here.jsonl")
    result = run("simulate", "-n", "2", "-q", "-o", link, "--force")
    assert result.exit_code == 2
    assert "the folder" in result.stderr and "does not exist" in result.stderr
    assert [path.name for path in tmp_path.iterdir()] == ["games.jsonl"]


def special_files(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    yield "FIFO", fifo
    # AF_UNIX paths are short: bind the socket from inside its folder.
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        server = socket.socket(socket.AF_UNIX)
        server.bind("socket.jsonl")
    finally:
        os.chdir(here)
    yield "socket", tmp_path / "socket.jsonl"
    server.close()
    yield "device", Path("/dev/null")
    link = tmp_path / "to-fifo.jsonl"
    link.symlink_to(fifo)
    yield "FIFO", link
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    yield "folder", folder


def test_force_on_a_fifo_a_socket_a_device_or_a_folder_is_refused(tmp_path: Path) -> None:
    """Never replaced by a regular file, never opened: a usage error, exit 2."""
    for kind, path in special_files(tmp_path):
        before = path.lstat()
        for force in ([], ["--force"]):
            result = run("simulate", "-n", "2", "-q", "-o", path, *force)
            assert result.exit_code == 2, (kind, path, result.output)
            assert kind in result.stderr
            assert result.stderr.startswith("phantom-log: error: ")
            assert len(result.stderr.splitlines()) == 1
            after = path.lstat()
            assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert leftovers(tmp_path) == []


def test_a_loop_of_links_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").symlink_to("b.jsonl")
    (tmp_path / "b.jsonl").symlink_to("a.jsonl")
    for force in ([], ["--force"]):
        result = run("simulate", "-n", "2", "-q", "-o", tmp_path / "a.jsonl", *force)
        assert result.exit_code == 2
    assert "loop of symbolic links" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl"]


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_dash_and_dev_stdout_write_to_standard_output(name: str, games: Path) -> None:
    """Without --force: standard output is no file to keep."""
    simulated = run("simulate", "-n", "3", "-o", name)
    assert simulated.exit_code == 0
    assert len(simulated.stdout.splitlines()) == 3
    assert simulated.stderr == ""
    printed = run("stats", games, "-q", "--format", "csv").stdout
    result = run("stats", games, "-q", "--format", "csv", "-o", name)
    assert result.exit_code == 0
    assert result.stdout == printed
    assert run("stats", games, "-q", "-o", name).exit_code == 0  # the table, printed


def test_a_link_to_standard_output_writes_there_with_force(tmp_path: Path) -> None:
    link = tmp_path / "out.jsonl"
    link.symlink_to("/dev/stdout")
    assert run("simulate", "-n", "1", "-o", link).exit_code == 2
    result = run("simulate", "-n", "1", "-o", link, "--force")
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 1
    assert link.is_symlink()


def test_dev_stdout_redirected_to_a_file_writes_into_that_file(tmp_path: Path) -> None:
    """The file the shell opened is written through the descriptor, never replaced."""
    target = tmp_path / "out.jsonl"
    with open(target, "wb") as stdout:
        completed = subprocess.run(
            [sys.executable, "-m", "phantom_log", "simulate", "-n", "2", "-o", "/dev/stdout"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert completed.returncode == 0, completed.stderr
    assert len(target.read_text().splitlines()) == 2
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "args",
    [
        ["show", "GAMES", "--index", "0", "--svg", "-"],
        ["show", "GAMES", "--index", "0", "-o", "-", "--format", "svg"],
        ["tournament", "check", "GAMES", "-q", "--format", "csv", "-o", "-"],
        ["export", "GAMES", "-q", "--games", "-"],
        ["export", "GAMES", "-q", "--tricks", "/dev/stdout", "--format", "jsonl"],
    ],
)
def test_every_output_may_be_standard_output(args: list[str], games: Path) -> None:
    """``-`` (and ``/dev/stdout``) is standard output for every output: what would be
    written to a file is printed, and nothing else is."""
    result = run(*(str(games) if arg == "GAMES" else arg for arg in args))
    assert result.exit_code in (0, 1), result.stderr
    assert result.stdout
    assert "wrote" not in result.stderr
    if "svg" in args or "--svg" in args:
        assert result.stdout.startswith("<svg") or result.stdout.startswith("<?xml")
    elif "csv" in args or "--games" in args:
        assert result.stdout.split("\n", 1)[0].count(",") >= 5
    else:
        assert result.stdout.startswith("{")


def test_the_plot_is_never_standard_output(games: Path) -> None:
    result = run("stats", games, "--plot", "-")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("phantom-log: error: ")


def test_export_refuses_the_same_file_for_games_and_tricks(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "both.csv"
    result = run("export", games, "--games", out, "--tricks", out, "--force")
    assert result.exit_code == 2
    assert "same file" in result.stderr
    assert list(tmp_path.iterdir()) == []


# --- a full disk, an unwritable output --------------------------------------------------------


def limit_file_size(size: int) -> Callable[[], None]:
    """For a child process: no file may grow beyond ``size`` bytes; a write beyond fails
    with EFBIG ("File too large"), as a write on a full disk fails with ENOSPC."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


def cli(
    *args: str | Path,
    limit: int | None = None,
    stdout: int | IO[str] | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The real command, in a process of its own; ``limit``: the largest file it may
    write (see :func:`limit_file_size`)."""
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", *map(str, args)],
        stdout=subprocess.PIPE if stdout is None else stdout,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        env=env,
        preexec_fn=None if limit is None else limit_file_size(limit),
    )


# The file size limit that each output outgrows on 40 games, where the intermediate
# tables (Parquet, in the temporary folder) stay within it. The games table as CSV and
# any Parquet output are as small as those tables: their failures are tried below, with
# the system refusing the last steps of the write.
FULL_DISK_LIMITS = {
    "simulate -o": 16384,
    "show --svg": 4096,
    "export --tricks jsonl": 16384,
    "stats -o": 16384,
    "stats --plot svg": 16384,
    "stats --plot png": 16384,
    "tournament check -o": 300,
}


@pytest.mark.parametrize("name", FULL_DISK_LIMITS)
def test_a_full_disk_is_exit_3_naming_the_output_with_nothing_left(
    name: str, games: Path, tmp_path: Path
) -> None:
    few = tmp_path / "few.jsonl"
    few.write_text("".join(games.read_text().splitlines(keepends=True)[:40]))
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    args, target = writer_args(name, few, out_folder / "out")
    limit = FULL_DISK_LIMITS[name]
    completed = cli(*args, limit=limit)
    assert completed.returncode == 3, completed.stderr
    assert completed.stderr == (
        f"phantom-log: error: cannot write {target}: File too large; {target} is left as it was\n"
    )
    assert list(out_folder.iterdir()) == []
    # With --force, the file there is kept as it was.
    target.write_text("old")
    completed = cli(*args, "--force", limit=limit)
    assert completed.returncode == 3
    assert target.read_text() == "old"
    assert [path.name for path in out_folder.iterdir()] == [target.name]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_full_temporary_folder_is_exit_3_with_a_hint(
    jobs: str, many_games: Path, tmp_path: Path
) -> None:
    """With two jobs, the worker processes write the tables' work files: their failure is
    worded as the main process's is."""
    tmpdir, env = private_tmpdir(tmp_path)
    out = tmp_path / "tricks.csv"
    completed = cli(
        "export", many_games, "-q", "--jobs", jobs, "--tricks", out, limit=2048, env=env
    )
    assert completed.returncode == 3
    assert completed.stderr.startswith("phantom-log: error: cannot write the temporary folder")
    assert "TMPDIR" in completed.stderr
    assert len(completed.stderr.splitlines()) == 1
    assert [path.name for path in tmp_path.iterdir()] == ["tmpdir"]
    assert list(tmpdir.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
@pytest.mark.parametrize("name", WRITERS)
def test_an_output_folder_without_write_permission_is_exit_3(
    name: str, games: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        args, target = writer_args(name, games, folder / "out")
        result = run(*args)
        assert result.exit_code == 3
        assert result.stderr == (
            f"phantom-log: error: cannot write {target}: the folder {folder} is not writable "
            f"(permission denied); {target} is left as it was\n"
        )
    finally:
        folder.chmod(0o700)
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("step", ["fsync", "rename"])
@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("name", WRITERS)
def test_a_write_the_system_refuses_is_exit_3_and_leaves_no_temporary(
    name: str,
    step: str,
    force: bool,
    games: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last steps failing (the data reaching a full disk at the flush; the rename
    refused): the output is as it was, the temporary file removed."""

    def refuse(*_args: object) -> None:
        raise OSError(errno.ENOSPC if step == "fsync" else errno.EACCES, "refused")

    args, target = writer_args(name, games, tmp_path / "out")
    if force:
        target.write_text("old")
    if step == "fsync":
        monkeypatch.setattr(output, "_fsync", refuse)
    else:
        monkeypatch.setattr(output.os, "replace" if force else "link", refuse)
    result = run(*args, *(["--force"] if force else []))
    assert result.exit_code == 3
    assert result.stderr.endswith(
        f"phantom-log: error: cannot write {target}: refused; {target} is left as it was\n"
    )
    assert [path.name for path in tmp_path.iterdir()] == ([target.name] if force else [])
    if force:
        assert target.read_text() == "old"


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "EXAMPLES"],
        ["verify", "--format", "json", "EXAMPLES"],
        ["annotate", "--format", "json", "WALKTHROUGH"],
        ["stats", "GAMES", "-q", "--format", "csv"],
        ["simulate", "-n", "50", "-o", "-"],
        ["stats", "GAMES", "-q", "--format", "csv", "-o", "/dev/stdout"],
    ],
)
def test_standard_output_on_a_full_device_is_exit_3_in_one_line(
    args: list[str], games: Path
) -> None:
    names = {"EXAMPLES": REPO / "examples", "WALKTHROUGH": WALKTHROUGH, "GAMES": games}
    with open("/dev/full", "w") as full:
        completed = cli(*(names.get(arg, arg) for arg in args), stdout=full)
    assert completed.returncode == 3
    assert completed.stderr == (
        "phantom-log: error: cannot write standard output: No space left on device\n"
    )


def test_a_usage_error_exits_2_from_the_installed_command(tmp_path: Path) -> None:
    """click returns (not raises) the code of an exit when not standalone: the console
    script must pass it on."""
    completed = cli("verify", tmp_path / "missing.json")
    assert completed.returncode == 2
    existing = tmp_path / "games.jsonl"
    existing.write_text("old")
    completed = cli("simulate", "-n", "1", "-o", existing)
    assert completed.returncode == 2
    assert (
        completed.stderr == f"phantom-log: error: {existing} exists; use --force to overwrite it\n"
    )


# --- SIGTERM and SIGHUP ----------------------------------------------------------------------

# The real command, held at one moment so that the signal falls there: "written" holds it
# once the output's data is all in the temporary file, before the rename; "reading" holds
# it in the middle of the records, the worker processes running. The moment reached is
# written to the file given first, with the worker processes' ids.
HELD = textwrap.dedent(
    """
    import multiprocessing, os, sys, time
    from pathlib import Path

    from phantom_log.files import outputs as output
    from phantom_log.tabular import tables

    moment, ready = sys.argv.pop(1), Path(sys.argv.pop(1))

    def say_ready():
        workers = [str(child.pid) for child in multiprocessing.active_children()]
        Path(f"{ready}.part").write_text(" ".join(workers))
        os.replace(f"{ready}.part", ready)
        time.sleep(120)

    if moment == "written":
        synced = output._fsync

        def held_after_writing(path):
            synced(path)
            say_ready()

        output._fsync = held_after_writing
    else:
        build = tables.build_tables

        def held_while_reading(records, *args, **kwargs):
            def records_then_hold():
                count = 0  # records, a chunk's tables at a time
                for chunk in records:
                    if count < 600 <= count + chunk.records:
                        say_ready()
                    count += chunk.records
                    yield chunk

            return build(records_then_hold(), *args, **kwargs)

        tables.build_tables = held_while_reading

    from phantom_log.cli import entry

    sys.argv[0] = "phantom-log"
    entry()
    """
)


def default_signals() -> None:
    """In the child, before it runs: SIGTERM and SIGHUP as their defaults, whatever the
    test run inherited (under ``nohup`` SIGHUP is ignored, and phantom-log rightly keeps
    an ignored signal ignored)."""
    for name in ("SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def held_cli(
    moment: str, ready: Path, args: list[str], env: dict[str, str]
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HELD, moment, str(ready), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=default_signals,
    )


def private_tmpdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A TMPDIR of the test's own, to see the work folders in it."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    return folder, {**os.environ, "TMPDIR": str(folder)}


def end_with(process: subprocess.Popen[str], signal_number: int) -> tuple[int, str]:
    try:
        process.send_signal(signal_number)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"  # ended, waiting to be reaped


SIGNALS = {"SIGTERM": (signal.SIGTERM, 143), "SIGHUP": (signal.SIGHUP, 129)}


@pytest.mark.parametrize("signal_name", SIGNALS)
@pytest.mark.parametrize("name", WRITERS)
def test_a_signal_while_writing_leaves_no_temporary_and_no_output(
    name: str, signal_name: str, games: Path, tmp_path: Path
) -> None:
    signal_number, exit_code = SIGNALS[signal_name]
    tmpdir, env = private_tmpdir(tmp_path)
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    args, target = writer_args(name, games, out_folder / "out")
    ready = tmp_path / "ready"
    process = held_cli("written", ready, args, env)
    wait_for(ready.exists, "the output written to its temporary file")
    assert len(leftovers(out_folder)) == 1  # the temporary file, whole, before the rename
    code, stderr = end_with(process, signal_number)
    assert code == exit_code
    assert stderr == f"phantom-log: terminated ({signal_name})\n"
    assert list(out_folder.iterdir()) == []
    assert list(tmpdir.iterdir()) == []
    assert not target.exists()


@pytest.mark.parametrize("command", ["export", "stats"])
def test_sigterm_while_reading_removes_the_work_folder_and_ends_the_workers(
    command: str, many_games: Path, tmp_path: Path
) -> None:
    tmpdir, env = private_tmpdir(tmp_path)
    out = tmp_path / "out.csv"
    args = [command, str(many_games), "--jobs", "2", "-q"]
    args += ["--tricks", str(out)] if command == "export" else ["--format", "csv", "-o", str(out)]
    ready = tmp_path / "ready"
    process = held_cli("reading", ready, args, env)
    wait_for(ready.exists, "the records half read")
    workers = [int(pid) for pid in ready.read_text().split()]
    assert workers, "no worker process was running"
    assert len(leftovers(tmpdir)) == 1  # the work folder
    code, stderr = end_with(process, signal.SIGTERM)  # a hang is end_with's timeout
    assert code == 143
    assert stderr == "phantom-log: terminated (SIGTERM)\n"
    wait_for(lambda: all(gone(pid) for pid in workers), "the workers to end")
    assert list(tmpdir.iterdir()) == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["ready", "tmpdir"]


def test_sigterm_on_a_run_waiting_for_standard_input_removes_the_work_folder(
    games: Path, tmp_path: Path
) -> None:
    """No hook: the real command reads records from a pipe that stays open."""
    tmpdir, env = private_tmpdir(tmp_path)
    out = tmp_path / "games.csv"
    process = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", "export", "-", "--games", str(out), "-q"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=default_signals,
    )
    assert process.stdin is not None
    process.stdin.write(games.read_text()[:20000])
    process.stdin.flush()
    try:
        wait_for(lambda: len(leftovers(tmpdir)) == 1, "the work folder")
        process.send_signal(signal.SIGTERM)
        stderr = process.stderr.read() if process.stderr else ""
        process.wait(timeout=60)
    finally:
        process.stdin.close()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143
    assert stderr == "phantom-log: terminated (SIGTERM)\n"
    assert list(tmpdir.iterdir()) == []
    assert not out.exists()


def test_sigterm_during_a_long_simulation_leaves_no_temporary(tmp_path: Path) -> None:
    """No hook: the temporary file grows as games are simulated."""
    out = tmp_path / "games.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", "simulate", "-n", "1000000", "-q", "-o", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )

    def temporary_written() -> bool:
        return any(path.stat().st_size > 0 for path in tmp_path.glob(".games.jsonl.*.tmp"))

    try:
        wait_for(temporary_written, "games in the temporary file")
    except AssertionError:
        process.kill()
        raise
    code, stderr = end_with(process, signal.SIGTERM)
    assert code == 143
    assert stderr == "phantom-log: terminated (SIGTERM)\n"
    assert list(tmp_path.iterdir()) == []


def test_sighup_ignored_as_by_nohup_stays_ignored(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", "simulate", "-n", "1000000", "-q", "-o", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )
    try:
        wait_for(lambda: any(tmp_path.glob(".games.jsonl.*.tmp")), "the temporary file")
        process.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        assert process.poll() is None  # still simulating
    except AssertionError:
        process.kill()
        raise
    code, _ = end_with(process, signal.SIGTERM)
    assert code == 143
    assert list(tmp_path.iterdir()) == []


def without_unbuffered() -> dict[str, str]:
    """This environment without PYTHONUNBUFFERED (which would make standard output
    unbuffered, unlike a user's)."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}


def pipe_bytes(stream: int) -> int:
    """How many bytes wait in a pipe."""
    buffer = bytearray(4)
    fcntl.ioctl(stream, termios.FIONREAD, buffer)
    return int.from_bytes(buffer, sys.byteorder)


def test_sigterm_to_the_process_group_ends_forked_workers_without_a_traceback(
    many_games: Path, tmp_path: Path
) -> None:
    """verify forks its workers, which inherit the handler: in a worker, SIGTERM ends it
    as by default (never an exception raised in the worker, printed with a traceback).
    The run is held by a full output pipe that nobody reads."""
    errors = tmp_path / "stderr"
    with open(errors, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "phantom_log", "verify", "--jobs", "2", str(many_games)],
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=default_signals,
            # Buffered standard output, as a user's shell gives it; on a hang, SIGABRT
            # prints where each thread stands.
            env={**without_unbuffered(), "PYTHONFAULTHANDLER": "1"},
        )
    assert process.stdout is not None
    try:
        wait_for(lambda: pipe_bytes(process.stdout.fileno()) >= 60_000, "a full output pipe")
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGABRT)
            process.wait(timeout=10)
            pytest.fail("the run did not end; where it stood:\n" + errors.read_text())
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        process.stdout.close()
    assert process.returncode == 143
    text = errors.read_text()
    assert no_traceback(text), text
    assert text == "phantom-log: terminated (SIGTERM)\n"


FULL_PIPE_AFTER_A_SIGNAL: Final = """
import os, sys
from phantom_log.cli import process as cli
read_end, write_end = os.pipe()
os.set_blocking(write_end, False)
written = 0
try:
    while True:
        written += os.write(write_end, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(write_end, True)
os.dup2(write_end, 1)
sys.stdout = open(1, "w", closefd=False)  # buffered, whatever PYTHONUNBUFFERED says
sys.stdout.write("what a signal left buffered\\n")
code = cli._flushed({code})
# What the pipe holds now: what filled it, and nothing of what was left buffered.
os.set_blocking(read_end, False)
held = b""
try:
    while chunk := os.read(read_end, 65536):
        held += chunk
except BlockingIOError:
    pass
print(code, written, len(held), held == b"x" * written, file=sys.stderr)
"""


@pytest.mark.parametrize("code", [143, 129, 130])
def test_a_run_ended_by_a_signal_waits_for_no_reader_of_a_full_pipe(code: int) -> None:
    """A signal can cut a write to a full pipe in two and leave the rest buffered: the
    ending run waits a while for a reader, then drops what is left (before, a reader that
    had stopped reading held it for ever). The run must end by itself: a hang is the
    timeout, far longer than the second it waits."""
    ended = subprocess.run(
        [sys.executable, "-c", FULL_PIPE_AFTER_A_SIGNAL.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ended.returncode == 0, ended.stderr
    returned, written, held, only_what_filled_it = ended.stderr.split()
    assert int(returned) == code
    # The pipe was full (a pipe holds 4 KiB at least), and the text left buffered was
    # dropped, not written into it.
    assert int(written) >= 4096 and held == written and only_what_filled_it == "True"


def test_terminated_is_no_exception_a_record_could_catch() -> None:
    """Isolation per record catches Exception: a signal must go past it."""
    assert not issubclass(output.Terminated, Exception)
    assert output.Terminated(signal.SIGTERM).exit_code == 143
    assert output.Terminated(signal.SIGHUP).exit_code == 129


@pytest.mark.skipif(
    signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL, reason="SIGTERM has a handler here"
)
def test_a_signal_while_a_temporary_is_made_waits_until_it_is_remembered(
    tmp_path: Path,
) -> None:
    """The steps that make (or remove) a temporary are not cut in two: the signal is
    raised once they are done, and the temporary is then removed."""
    made: list[Path] = []
    mkstemp = output.tempfile.mkstemp

    def signalled_mkstemp(*args: object, **kwargs: object) -> tuple[int, str]:
        handle, name = mkstemp(*args, **kwargs)  # type: ignore[call-overload]
        made.append(Path(name))
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs at once, here
        return handle, name  # type: ignore[no-any-return]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output.tempfile, "mkstemp", signalled_mkstemp)
        with (
            pytest.raises(output.Terminated),
            output.ending_cleanly_on_signals(),
            output.outputs_together() as outputs,
        ):
            outputs.path(tmp_path / "out.csv").write_text("never")
    assert made and not made[0].exists()
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
