"""The cluster front (``--scheduler local``) against bad sources and signals, in real
processes: a source that cannot be read is reported as a run without a cluster
(``--jobs 2``) reports it, with the same problem, the same exit code, and every good
record still reported; Ctrl-C and SIGTERM end the run as they end a run without a
cluster: its exit code, one line, no traceback of Dask's, nothing left behind.

The bad sources, in one folder beside good records: a broken symbolic link, a link loop,
a FIFO, a socket, a file without read permission and a folder that cannot be listed (the
runs drop root's power to read them), a link to the folder above (a loop of folders) and
a link to a folder named like a record; given by name: a broken link, and a FIFO that a
thread writes records into; and, apart, a file that goes away after it was listed, at
each step of a run on a cluster.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.helpers.paths import REPO
from tests.helpers.processes import session_processes, unprivileged_prefix

pytest.importorskip("distributed")

TIMEOUT = 300  # seconds: a run that would hang fails instead of holding the suite
WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"
FRONTS = {"local": ["--jobs", "2"], "cluster": ["--scheduler", "local"]}
#: The paths every run of the bad sources is given.
PATHS = ["games", "named-broken.json", "stream.jsonl"]
STREAMED = 3  # records written into stream.jsonl for each run


def json_lines(count: int, prefix: str) -> bytes:
    """``count`` valid records (the rulebook's walkthrough), each its own game id."""
    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return b"".join(
        json.dumps({**record, "game_id": f"{prefix}{number}"}).encode() + b"\n"
        for number in range(count)
    )


@pytest.fixture(scope="module")
def bad_sources(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder of good records and every kind of bad source, and the bad sources given
    by name (see the module's description)."""
    root = tmp_path_factory.mktemp("bad-sources")
    games = root / "games"
    (games / "sub").mkdir(parents=True)
    (games / "good.jsonl").write_bytes(json_lines(50, "good-"))
    for name in ("custom-sheet.json", "unfinished.json", "json.json"):
        example = REPO / "examples" / name
        if not example.exists():
            example = REPO / "examples" / "invalid" / name
        (games / "sub" / name).write_bytes(example.read_bytes())
    (games / "broken.json").symlink_to("gone.json")
    (games / "loop.json").symlink_to("loop.json")
    os.mkfifo(games / "pipe.jsonl")
    locked = games / "locked.json"
    locked.write_bytes(json_lines(1, "locked-"))
    locked.chmod(0)
    closed = games / "closed"
    closed.mkdir()
    (closed / "hidden.json").write_bytes(json_lines(1, "hidden-"))
    closed.chmod(0)
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(games / "sock.json"))  # a socket file, left when it is closed
    listening.close()
    (games / "sub" / "up").symlink_to("..")
    (games / "folder.json").symlink_to("sub")
    (root / "named-broken.json").symlink_to("nowhere.json")
    os.mkfifo(root / "stream.jsonl")
    yield root
    locked.chmod(0o644)
    closed.chmod(0o755)


class StreamWriter:
    """Writes :data:`STREAMED` records into a FIFO once a run opens it for reading."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.written = False
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self) -> None:
        with open(self.fifo, "wb") as stream:  # waits for the run to open it
            stream.write(json_lines(STREAMED, "streamed-"))
        self.written = True

    def finish(self) -> bool:
        """Whether the run read the records; a writer still waiting is let go."""
        self.thread.join(1)
        if self.thread.is_alive():
            # Opened and closed at once: the writer's open returns, its write fails.
            os.close(os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK))
            self.thread.join(10)
            return False
        return self.written


def run_on(
    root: Path, *args: str, front: str | None = None, script: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``phantom-log ARGS`` (with the front's options), or the Python ``script`` with
    those arguments, in ``root``, without the power to read what may not be read, a
    thread writing records into the FIFO given by name."""
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without a way to drop the file-permission capabilities")
    program = [str(script)] if script else ["-m", "phantom_log"]
    command = [*program, *args, *(FRONTS[front] if front else [])]
    writer = StreamWriter(root / "stream.jsonl")
    try:
        done = subprocess.run(
            [*prefix, sys.executable, *command],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    finally:
        read = writer.finish()
    assert read, f"the run did not read the FIFO given by name: {done.stderr}"
    return done


def tables_of(folder: Path, front: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The games and tricks tables an export wrote (files, or a cluster's datasets)."""
    if front == "local":
        return pl.read_parquet(folder / "games.parquet"), pl.read_parquet(folder / "tricks.parquet")
    return pl.read_parquet(folder / "games"), pl.read_parquet(folder / "tricks")


def export_on(root: Path, front: str, out: Path) -> tuple[Any, ...]:
    out.mkdir()
    games, tricks = ("games.parquet", "tricks.parquet") if front == "local" else ("games", "tricks")
    done = run_on(
        root,
        *("export", *PATHS, "--include-invalid", "-q"),
        *("--games", str(out / games), "--tricks", str(out / tricks)),
        front=front,
    )
    return (done.returncode, done.stderr, *tables_of(out, front))


def problems_on_cluster(root: Path) -> subprocess.CompletedProcess[str]:
    """Every problem found by :func:`phantom_log.running.cluster.verify_on_cluster`, as
    JSON Lines, from a process of its own (the Python API's cluster front)."""
    code = (
        "import sys\n"
        "from phantom_log.running.cluster import verify_on_cluster\n"
        "if __name__ == '__main__':\n"
        "    run = verify_on_cluster(sys.argv[1:], 'local', quiet=True, workers=2)\n"
        "    sys.stdout.write(run.problems.drop('hint').write_ndjson())\n"
        "    sys.exit(3 if run.failed else 1 if run.invalid else 0)\n"
    )
    script = root.parent / "problems_on_cluster.py"
    script.write_text(code, encoding="utf-8")
    return run_on(root, *PATHS, script=script)


def flattened_problems(reports: str) -> list[dict[str, Any]]:
    """The problems of ``verify --format json``, each with its record's source, index and
    game id, as the cluster's problems table holds them."""
    return [
        {"source": report["source"], "index": report["index"], "game_id": report["game_id"]}
        | {key: problem[key] for key in ("code", "severity", "pointer", "round", "trick")}
        | {"message": problem["message"]}
        for report in map(json.loads, reports.splitlines())
        for problem in report["problems"]
    ]


# What the runs must find in the bad sources: 50 good records, 3 in the sub-folder (one
# unfinished, one broken JSON), 3 streamed; 7 sources that cannot be read.
RECORDS = 50 + 3 + STREAMED + 7
UNREADABLE = {
    "games/broken.json": "a broken symbolic link: it points to gone.json, which does not exist",
    "games/closed": (
        "cannot list this folder (permission denied): the records below it were not read"
    ),
    "games/sock.json": "not a regular file (a socket); not opened",
    "games/locked.json": "cannot read (permission denied)",
    "games/loop.json": "a symbolic link loop (too many levels of symbolic links): nothing to read",
    "games/pipe.jsonl": "not a regular file (a FIFO); not opened",
    "named-broken.json": (
        "a broken symbolic link: it points to nowhere.json, which does not exist"
    ),
}


@pytest.mark.parametrize("command", ["verify -q", "verify", "verify problems", "stats", "export"])
def test_the_cluster_reports_every_bad_source_as_a_run_without_one(
    bad_sources: Path, command: str, tmp_path: Path
) -> None:
    """The same problems in the same words, the same exit code (3), every good record
    reported, in every command the cluster runs."""
    if command == "verify -q":
        here, there = (run_on(bad_sources, "verify", *PATHS, "-q", front=front) for front in FRONTS)
        assert there.stdout == here.stdout
        assert there.stderr == here.stderr == ""
        found = re.findall(r"^(\S+)#0: unreadable: (.*)$", here.stdout, re.MULTILINE)
        assert dict(found) == UNREADABLE
        codes = (here.returncode, there.returncode)
    elif command == "verify":
        here, there = (run_on(bad_sources, "verify", *PATHS, front=front) for front in FRONTS)
        # The cluster prints the problems as --quiet does: no line for a valid record.
        assert there.stdout.splitlines() == [
            line for line in here.stdout.splitlines() if ": valid: " not in line
        ]
        assert here.stdout.splitlines()[-2:] == [
            f"{RECORDS} records: {RECORDS - 8} valid, 8 invalid, 1 warning",
            "by code: unreadable 7, json 1, unfinished 1",
        ]
        valid = re.findall(r"^\S+#\d+ \(([^)]*)\): valid: ", here.stdout, re.MULTILINE)
        assert len(valid) == RECORDS - 8
        codes = (here.returncode, there.returncode)
    elif command == "verify problems":
        here = run_on(bad_sources, "verify", *PATHS, "--format", "json", front="local")
        there = problems_on_cluster(bad_sources)
        assert there.stderr == ""
        assert [json.loads(line) for line in there.stdout.splitlines()] == flattened_problems(
            here.stdout
        )
        assert len(here.stdout.splitlines()) == RECORDS
        codes = (here.returncode, there.returncode)
    elif command == "stats":
        args = ("stats", *PATHS, "--by", "player", "--format", "json")
        here, there = (run_on(bad_sources, *args, front=front) for front in FRONTS)
        assert there.stdout == here.stdout and json.loads(here.stdout.splitlines()[0])
        assert there.stderr == here.stderr
        assert "could not read or check 7 records" in here.stderr
        codes = (here.returncode, there.returncode)
    else:
        (here_code, here_said, *here_tables), (there_code, there_said, *there_tables) = (
            export_on(bad_sources, front, tmp_path / front) for front in FRONTS
        )
        for local, cluster in zip(here_tables, there_tables, strict=True):
            assert cluster.equals(local)
        # The cluster says what export says, and names the sources it could not read.
        said = there_said.splitlines()
        assert [line for line in said if line in here_said.splitlines()] == (here_said.splitlines())
        named = [line.split("#0: unreadable: ") for line in said if "#0: unreadable: " in line]
        assert dict(named) == UNREADABLE
        games = here_tables[0]
        assert games.height == RECORDS
        assert games.filter(pl.col("valid")).height == RECORDS - 8
        codes = (here_code, there_code)
    assert codes == (3, 3)


def test_a_fifo_given_by_name_is_read_as_without_a_cluster_a_chunk_at_a_time(
    tmp_path: Path,
) -> None:
    """A stream given by name is read by the run's own process, as without a cluster, its
    chunks sent to the workers as they are read (more chunks than the cluster is given
    at once): every record, a broken one among them, at its index and line."""
    from tests.helpers.records import RECORD

    lines = [json.dumps({**RECORD, "game_id": f"s{number}"}) for number in range(6000)]
    lines[3001] = lines[3001][:-10]  # cut short: a json problem, the stream goes on
    text = ("\n".join(lines) + "\n").encode()
    fifo = tmp_path / "stream.jsonl"
    os.mkfifo(fifo)
    outputs = []
    for front in FRONTS.values():
        writer = threading.Thread(target=fifo.write_bytes, args=(text,), daemon=True)
        writer.start()
        outputs.append(
            subprocess.run(
                [sys.executable, "-m", "phantom_log", "verify", "stream.jsonl", *front],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
        )
        writer.join(10)
        assert not writer.is_alive()
    here, there = outputs
    assert there.stdout.splitlines() == [
        line for line in here.stdout.splitlines() if ": valid: " not in line
    ]
    assert here.stdout.splitlines()[-2:] == [
        "6000 records: 5999 valid, 1 invalid, 5999 warnings",
        "by code: unfinished 5999, json 1",
    ]
    assert "stream.jsonl#3001: json: the line ends early, inside " in there.stdout
    assert " that begins at line 3002, column " in there.stdout
    assert (here.returncode, there.returncode) == (1, 1)
    assert there.stderr == here.stderr == ""


# --- a file that goes away ------------------------------------------------------------------


def going_away(monkeypatch: pytest.MonkeyPatch, victim: Path, step: str) -> None:
    """Remove ``victim`` at a step of the run: once the paths are listed (both fronts),
    once a cluster's run has seen it is a regular file, or once its ranges are planned
    (before any worker reads it)."""
    import phantom_log.running.cluster as cluster
    import phantom_log.running.stored_sources as stored_sources
    from phantom_log.running import pipeline

    def after(function: Callable[..., Any], check: Callable[..., bool] = lambda *_: True) -> Any:
        def wrapped(*args: Any) -> Any:
            found = function(*args)
            if check(*args) and victim.exists():
                victim.unlink()
            return found

        return wrapped

    if step == "listed":
        for module in (pipeline, stored_sources):
            monkeypatch.setattr(module, "find_sources", after(module.find_sources))
    elif step == "measured":
        is_victim = lambda source: Path(source).name == victim.name  # noqa: E731
        monkeypatch.setattr(
            stored_sources,
            "regular_file_size",
            after(stored_sources.regular_file_size, is_victim),
        )
    else:
        monkeypatch.setattr(
            cluster,
            "_blocks",
            after(cluster._blocks, lambda source, *_: source.name.endswith(victim.name)),
        )


@pytest.mark.parametrize(
    ("front", "step"),
    [("local", "listed"), ("cluster", "listed"), ("cluster", "measured"), ("cluster", "planned")],
)
def test_a_file_that_goes_away_is_said_so_at_every_step_of_a_cluster_run(
    front: str, step: str, here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.helpers.cli import run

    folder = here / "games"
    folder.mkdir()
    for name in "abc":
        (folder / f"{name}.jsonl").write_bytes(json_lines(4, f"{name}-"))
    going_away(monkeypatch, folder / "b.jsonl", step)
    result = run("verify", "games", *FRONTS[front])
    lines = result.stdout.splitlines()
    assert (
        "games/b.jsonl#0: unreadable: the file went away before it could be read (removed "
        "or renamed after the paths were listed)"
    ) in lines
    assert lines[-2:] == ["9 records: 8 valid, 1 invalid, 0 warnings", "by code: unreadable 1"]
    assert result.exit_code == 3


# --- Ctrl-C and SIGTERM -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12,000 records in 8 files: a task per file, each a second or more of work."""
    folder = tmp_path_factory.mktemp("many") / "records"
    folder.mkdir()
    for number in range(8):
        (folder / f"part-{number}.jsonl").write_bytes(json_lines(1500, f"{number}-"))
    return folder


def on_a_terminal() -> None:
    """In the child: the pseudo-terminal on its standard input is its controlling
    terminal (Ctrl-C typed there reaches its process group), and SIGTERM and SIGHUP are
    their defaults, whatever the test run inherited."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


class TerminalRun:
    """phantom-log run on a pseudo-terminal of its own (standard input and error; its
    standard output to a file), in a session of its own, as from a user's shell."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.shown = b""
        with open(cwd.parent / f"{cwd.name}.stdout", "wb") as stdout:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "phantom_log", *args],
                stdin=slave,
                stdout=stdout,
                stderr=slave,
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=on_a_terminal,
            )
        os.close(slave)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # every process that held the terminal has closed it
                return
            if not chunk:
                return
            self.shown += chunk

    def type_control_c(self) -> None:
        os.write(self.master, b"\x03")

    def workers(self) -> list[int]:
        """The worker processes of the run's cluster."""
        return [
            pid
            for pid, command in session_processes(self.process.pid).items()
            if "spawn_main" in command
        ]

    def end(self) -> int:
        """The exit code, once every process of the run has ended and let the terminal
        go; a run that does not end is killed, and the test fails."""
        try:
            code = self.process.wait(timeout=120)
            wait_for(lambda: not session_processes(self.process.pid), "the run's processes")
            self.reader.join(30)
            assert not self.reader.is_alive(), "a process of the run holds the terminal"
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            os.close(self.master)
        return code


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


#: The progress line once a task is done: its records counted.
WORKING = re.compile(rb"[1-9][0-9,]* records \(")
EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129}
LAST_WORDS = {
    "SIGINT": "phantom-log: interrupted",
    "SIGTERM": "phantom-log: terminated (SIGTERM)",
    "SIGHUP": "phantom-log: terminated (SIGHUP)",
}


def interrupted(
    many_records: Path, tmp_path: Path, args: list[str], front: str, moment: str, name: str
) -> tuple[int, list[str], list[Path]]:
    """Run ``args`` on the records, signal the run at the moment, and give its exit code,
    what it said on the terminal (its lines, the progress line left out) and what it left
    in its working folder and its TMPDIR."""
    work, temporary = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    temporary.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(temporary), "COLUMNS": "100"}
    run = TerminalRun([*args, str(many_records), *FRONTS[front]], work, env)
    try:
        if moment == "starting":
            wait_for(lambda: bool(run.workers()), "a worker process of the cluster")
        else:
            wait_for(lambda: bool(WORKING.search(run.shown)), "a task done")
        assert run.process.poll() is None, "the run ended before it was signalled"
        if name == "SIGINT":
            run.type_control_c()
        else:
            os.killpg(run.process.pid, getattr(signal, name))
    finally:
        code = run.end()
    text = run.shown.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    lines = [
        line.strip()
        for line in re.split(r"[\r\n]", text)
        if line.strip() and not line.strip().startswith(("reading", "verifying", "^C"))
    ]
    return code, lines, [*work.rglob("*"), *temporary.rglob("*")]


SIGNALLED = [
    pytest.param("verify", "local", "working", "SIGINT", id="local-verify-SIGINT"),
    pytest.param("verify", "local", "working", "SIGTERM", id="local-verify-SIGTERM"),
    *(
        pytest.param("verify", "cluster", "working", "SIGINT", id=f"verify-SIGINT-{count}")
        for count in range(3)
    ),
    *(
        pytest.param("verify", "cluster", "working", "SIGTERM", id=f"verify-SIGTERM-{count}")
        for count in range(2)
    ),
    pytest.param("verify", "cluster", "starting", "SIGINT", id="verify-starting-SIGINT"),
    pytest.param("verify", "cluster", "starting", "SIGTERM", id="verify-starting-SIGTERM"),
    pytest.param("verify", "cluster", "working", "SIGHUP", id="verify-SIGHUP"),
    pytest.param("export", "cluster", "working", "SIGINT", id="export-SIGINT"),
    pytest.param("stats", "cluster", "working", "SIGTERM", id="stats-SIGTERM"),
]


@pytest.mark.parametrize(("command", "front", "moment", "name"), SIGNALLED)
def test_ctrl_c_and_sigterm_end_a_cluster_run_cleanly(
    many_records: Path, tmp_path: Path, command: str, front: str, moment: str, name: str
) -> None:
    """Ctrl-C typed on the run's terminal (SIGINT to its whole process group), or SIGTERM
    or SIGHUP to the whole group, while the cluster starts or while its tasks run: the
    exit code of a run without a cluster, one line, no traceback (of Dask's, tornado's,
    asyncio's or a worker's), no process left, nothing left in the working folder or in
    TMPDIR (no ``dask-scratch-space``, no dataset half written)."""
    args = {
        "verify": ["verify"],
        "export": ["export", "--games", "games", "--tricks", "tricks"],
        "stats": ["stats", "--by", "player"],
    }[command]
    if front == "local" and command == "export":
        args = ["export", "--games", "games.parquet", "--tricks", "tricks.parquet"]
    code, lines, left = interrupted(many_records, tmp_path, args, front, moment, name)
    assert code == EXIT_CODES[name]
    assert lines == [LAST_WORDS[name]]
    assert left == []
