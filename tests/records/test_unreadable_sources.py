"""A source that cannot be read is an ``unreadable`` problem on that source, named by its
path, with exit code 3; the other sources are still read and reported, in order. Nothing
blocks (a FIFO or a device in a folder is not opened), nothing is read without limit
(``--max-record-size``), and no file name can make the output invalid UTF-8."""

from __future__ import annotations

import array
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import phantom_log
from phantom_log.cli import main
from phantom_log.cli.options import ByteSize
from phantom_log.records.found_sources import find_sources
from phantom_log.records.source_records import read_source
from phantom_log.running import pipeline
from tests.helpers.cli import run
from tests.helpers.paths import REPO
from tests.helpers.processes import unprivileged_prefix
from tests.helpers.records import RECORD

TIMEOUT = 60  # seconds: a test that would block fails instead of hanging the suite


def json_reports(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines()]


def record_text(game_id: str) -> str:
    return json.dumps({**RECORD, "game_id": game_id})


def write_record(path: Path, game_id: str) -> Path:
    path.write_text(record_text(game_id), encoding="utf-8")
    return path


def summary(reports: list[dict[str, Any]], root: Path) -> list[tuple[str, list[str]]]:
    """Each report as (its source, relative to ``root`` when absolute, and the codes of its
    errors; the records here are unfinished, a warning left out)."""

    def where(source: str) -> str:
        return os.path.relpath(source, root) if os.path.isabs(source) else os.path.normpath(source)

    return [
        (
            where(report["source"]),
            [problem["code"] for problem in report["problems"] if problem["severity"] == "error"],
        )
        for report in reports
    ]


def run_unprivileged(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without a way to drop the file-permission capabilities")
    return subprocess.run(
        [*prefix, sys.executable, "-m", "phantom_log", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def run_process(
    *args: str, stdin: Any = subprocess.DEVNULL, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        stdin=stdin,
        cwd=cwd,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.fixture
def restore_permissions(tmp_path: Path) -> Iterator[None]:
    """Give back every permission below tmp_path, so that pytest can remove it."""
    yield
    for root, folders, _ in os.walk(tmp_path):
        for folder in folders:
            os.chmod(os.path.join(root, folder), 0o755)


# -- permissions -----------------------------------------------------------------------


@pytest.mark.usefixtures("restore_permissions")
def test_file_without_read_permission_is_unreadable_and_the_others_are_read(
    tmp_path: Path,
) -> None:
    write_record(tmp_path / "a.json", "a")
    write_record(tmp_path / "b.json", "b").chmod(0)
    write_record(tmp_path / "c.json", "c")
    done = run_unprivileged("verify", "--format", "json", ".", cwd=tmp_path)
    reports = json_reports(done.stdout)
    assert summary(reports, tmp_path) == [
        ("a.json", []),
        ("b.json", ["unreadable"]),
        ("c.json", []),
    ]
    assert "permission denied" in reports[1]["problems"][0]["message"]
    assert done.returncode == 3
    assert "Traceback" not in done.stderr


@pytest.mark.usefixtures("restore_permissions")
def test_folder_without_permission_below_a_given_folder_is_unreadable_not_skipped(
    tmp_path: Path,
) -> None:
    write_record(tmp_path / "a.json", "a")
    locked = tmp_path / "locked"
    locked.mkdir()
    write_record(locked / "hidden.json", "hidden")
    locked.chmod(0)
    write_record(tmp_path / "z.json", "z")
    done = run_unprivileged("verify", "--format", "json", ".", cwd=tmp_path)
    reports = json_reports(done.stdout)
    assert summary(reports, tmp_path) == [
        ("a.json", []),
        ("locked", ["unreadable"]),
        ("z.json", []),
    ]
    assert "cannot list this folder" in reports[1]["problems"][0]["message"]
    assert done.returncode == 3


@pytest.mark.usefixtures("restore_permissions")
def test_folder_without_permission_given_directly_is_unreadable(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    write_record(locked / "hidden.json", "hidden")
    locked.chmod(0)
    write_record(tmp_path / "ok.json", "ok")
    done = run_unprivileged("verify", "locked", "ok.json", cwd=tmp_path)
    assert done.stdout.startswith("locked#0: unreadable: cannot list this folder")
    assert "ok.json#0 (ok): valid" in done.stdout
    assert done.returncode == 3


@pytest.mark.usefixtures("restore_permissions")
def test_folder_that_can_be_listed_but_not_entered_gives_each_file_unreadable(
    tmp_path: Path,
) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    write_record(closed / "one.json", "one")
    write_record(closed / "two.jsonl", "two")
    closed.chmod(0o444)
    done = run_unprivileged("verify", "--format", "json", ".", cwd=tmp_path)
    assert summary(json_reports(done.stdout), tmp_path) == [
        ("closed/one.json", ["unreadable"]),
        ("closed/two.jsonl", ["unreadable"]),
    ]
    assert done.returncode == 3


# -- links -----------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["folder", "path"])
def test_dangling_symlink_is_unreadable(tmp_path: Path, given: str) -> None:
    write_record(tmp_path / "a.json", "a")
    (tmp_path / "b.json").symlink_to(tmp_path / "gone.json")
    write_record(tmp_path / "c.json", "c")
    paths = [tmp_path] if given == "folder" else [tmp_path / name for name in "abc"]
    args = [str(path) + (".json" if given == "path" else "") for path in paths]
    result = run("verify", "--format", "json", *args)
    reports = json_reports(result.output)
    assert summary(reports, tmp_path) == [
        ("a.json", []),
        ("b.json", ["unreadable"]),
        ("c.json", []),
    ]
    assert "broken symbolic link" in reports[1]["problems"][0]["message"]
    assert "gone.json" in reports[1]["problems"][0]["message"]
    assert result.exit_code == 3


def test_symlink_loop_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "self.json").symlink_to(tmp_path / "self.json")
    (tmp_path / "ping.jsonl").symlink_to(tmp_path / "pong.jsonl")
    (tmp_path / "pong.jsonl").symlink_to(tmp_path / "ping.jsonl")
    write_record(tmp_path / "z.json", "z")
    result = run("verify", "--format", "json", str(tmp_path))
    reports = json_reports(result.output)
    assert summary(reports, tmp_path) == [
        ("ping.jsonl", ["unreadable"]),
        ("pong.jsonl", ["unreadable"]),
        ("self.json", ["unreadable"]),
        ("z.json", []),
    ]
    assert all("link loop" in report["problems"][0]["message"] for report in reports[:3])
    assert result.exit_code == 3


def test_directory_link_cycle_is_not_followed_and_the_search_ends(tmp_path: Path) -> None:
    write_record(tmp_path / "a.json", "a")
    sub = tmp_path / "sub"
    sub.mkdir()
    write_record(sub / "b.json", "b")
    (sub / "up").symlink_to(tmp_path)  # a cycle: sub/up/sub/up/...
    (tmp_path / "here").symlink_to(tmp_path)
    (tmp_path / "folder.json").symlink_to(sub)  # a link to a folder, named like a record
    result = run("verify", "--format", "json", str(tmp_path))
    assert summary(json_reports(result.output), tmp_path) == [("a.json", []), ("sub/b.json", [])]
    assert result.exit_code == 0


def test_file_that_vanishes_between_listing_and_reading_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in "abc":
        write_record(tmp_path / f"{name}.json", name)

    def listing_then_removal(paths: Any) -> list[str]:
        found = find_sources(paths)
        (tmp_path / "b.json").unlink()
        return found

    monkeypatch.setattr(pipeline, "find_sources", listing_then_removal)
    result = run("verify", "--jobs", "1", "--format", "json", str(tmp_path))
    reports = json_reports(result.output)
    assert summary(reports, tmp_path) == [
        ("a.json", []),
        ("b.json", ["unreadable"]),
        ("c.json", []),
    ]
    assert "went away" in reports[1]["problems"][0]["message"]
    assert result.exit_code == 3


def _input_position(pid: int, path: Path) -> int:
    """Where process ``pid`` reads the file at ``path``: its descriptor's offset, as the
    kernel keeps it (the reader's buffer included)."""
    folder = Path(f"/proc/{pid}/fd")
    for entry in folder.iterdir():
        with contextlib.suppress(OSError):
            if os.readlink(entry) == str(path):
                fields = (Path(f"/proc/{pid}/fdinfo") / entry.name).read_text().split()
                return int(fields[fields.index("pos:") + 1])
    raise AssertionError(f"process {pid} does not hold {path} open")


def _mid_line(text: bytes, near: int) -> int:
    """An offset in the middle of the line of ``text`` that holds the offset ``near``."""
    start = text.rfind(b"\n", 0, near) + 1
    return start + (text.index(b"\n", start) - start) // 2


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    "cut", ["ahead of the reading", "ahead at a line's end", "behind the reading"]
)
def test_a_file_cut_short_while_it_is_read_is_unreadable_whatever_the_jobs(
    tmp_path: Path, jobs: str, cut: str
) -> None:
    """A JSON Lines file truncated by another process while phantom-log reads it (in the
    middle of a line, or at a line's end): with one process or several, the whole lines
    read are reported, then one ``unreadable`` problem says the file was cut short (exit
    3), and the part of a line where the file now ends is never taken for a broken record
    (a ``json`` problem, exit 1). The run is held still at a known place: its output is a pipe of
    one page that nobody reads, so that once the pipe is full the run waits to write, its
    reading stopped where it is, while the file is cut ahead of that place or behind it;
    then the pipe is read to its end."""
    path = tmp_path / "games.jsonl"
    text = "".join(record_text(f"g{index}") + "\n" for index in range(20_000)).encode()
    path.write_bytes(text)
    read_end, write_end = os.pipe()
    fcntl.fcntl(read_end, fcntl.F_SETPIPE_SZ, 4096)
    capacity = fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
    process = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", "verify", "--jobs", jobs, "--format", "json", path],
        stdout=write_end,
        stderr=subprocess.DEVNULL,
        # One process, whose open files and read position the test looks at (under the
        # command line's supervisor, the reading process is its child).
        env={**os.environ, "PYTHONPATH": str(REPO), "PHANTOM_LOG_SUPERVISOR": "0"},
        start_new_session=True,
    )
    os.close(write_end)
    try:
        waiting = array.array("i", [0])
        for _ in range(TIMEOUT * 20):  # until the output is full: the run waits there
            fcntl.ioctl(read_end, termios.FIONREAD, waiting)
            if waiting[0] >= capacity or process.poll() is not None:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before its output was full"
        position = -1  # where the run stopped reading, once it is seen not to move
        while position != (position := _input_position(process.pid, path)):
            time.sleep(0.1)
        assert 0 < position < len(text) - 100 * len(text) // 20_000
        if cut == "ahead of the reading":
            end = _mid_line(text, position + 50 * len(text) // 20_000)
        elif cut == "ahead at a line's end":
            end = text.index(b"\n", position + 50 * len(text) // 20_000) + 1
        else:
            end = _mid_line(text, position // 2)
        os.truncate(path, end)
        with os.fdopen(read_end, "rb") as output:
            reports = json_reports(output.read().decode())
        process.wait(TIMEOUT)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    codes = [[problem["code"] for problem in report["problems"]] for report in reports]
    assert [report["index"] for report in reports] == sorted({r["index"] for r in reports})
    assert not any("json" in found for found in codes)
    failed = [report for report in reports if not report["valid"]]
    assert failed and all(
        [problem["message"] for problem in report["problems"]]
        == ["the file was cut short while it was read; the rest was not read"]
        for report in failed
    )
    assert process.returncode == 3
    whole_lines = text.count(b"\n", 0, end)
    if cut.startswith("ahead"):  # every whole line is read, then the cut is said
        assert [report["index"] for report in reports] == list(range(whole_lines + 1))
        assert len(failed) == 1 and failed[0]["index"] == whole_lines
    else:  # what was read before the cut is reported, never more than was read
        valid = [report["index"] for report in reports if report["valid"]]
        assert valid == list(range(len(valid)))
        assert len(valid) <= text.count(b"\n", 0, position)


# -- files that are not regular ----------------------------------------------------------


def test_fifo_in_a_folder_is_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jsonl")  # opened for reading, it would wait for a writer
    write_record(tmp_path / "z.json", "z")
    done = run_process("verify", "--format", "json", str(tmp_path))
    reports = json_reports(done.stdout.decode())
    assert summary(reports, tmp_path) == [("pipe.jsonl", ["unreadable"]), ("z.json", [])]
    assert reports[0]["problems"][0]["message"] == "not a regular file (a FIFO); not opened"
    assert done.returncode == 3


def test_socket_in_a_folder_is_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a short path: socket paths are limited to about 100 bytes
    listening = socket.socket(socket.AF_UNIX)
    listening.bind("sock.json")
    try:
        result = run("verify", "--format", "json", ".")
    finally:
        listening.close()
    reports = json_reports(result.output)
    assert summary(reports, tmp_path) == [("sock.json", ["unreadable"])]
    assert "a socket" in reports[0]["problems"][0]["message"]
    assert result.exit_code == 3


def test_fifo_given_as_a_path_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "records"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as stream:
            stream.write(record_text("first") + "\n" + record_text("second") + "\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    done = run_process("verify", "--format", "json", str(fifo))
    writer.join(TIMEOUT)
    reports = json_reports(done.stdout.decode())
    assert [(report["game_id"], report["valid"]) for report in reports] == [
        ("first", True),
        ("second", True),
    ]
    assert done.returncode == 0


def test_dev_zero_as_a_path_ends_at_the_size_limit() -> None:
    done = run_process("verify", "--format", "json", "/dev/zero")
    (report,) = json_reports(done.stdout.decode())
    assert report["source"] == "/dev/zero"
    assert report["problems"][0]["code"] == "unreadable"
    assert report["problems"][0]["message"].startswith("larger than the size limit of 64 MiB")
    assert done.returncode == 3


def test_dev_zero_on_stdin_ends_at_the_size_limit() -> None:
    with open("/dev/zero", "rb") as zeros:
        done = run_process("verify", "--max-record-size", "1M", "-", stdin=zeros)
    assert done.stdout.decode().startswith(
        "-#0: unreadable: larger than the size limit of 1 MiB; not read"
    )
    assert b"--max-record-size" in done.stdout
    assert done.returncode == 3


def test_closed_stdin_is_an_unreadable_source_not_a_traceback() -> None:
    command = f"{sys.executable} -m phantom_log verify - <&-"
    done = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.stdout.startswith("-#0: unreadable: standard input is closed")
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert done.returncode == 3


# -- the size limit ----------------------------------------------------------------------


def big_record(game_id: str, size: int) -> str:
    return json.dumps({**RECORD, "game_id": game_id, "x-padding": "p" * size})


def test_record_over_the_size_limit_in_json_lines_is_unreadable_and_the_others_are_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.jsonl"
    lines = [record_text("small"), big_record("big", 5000), "", record_text("after")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("verify", "--format", "json", "--max-record-size", "4K", str(path))
    reports = json_reports(result.output)
    assert [(report["index"], report["game_id"]) for report in reports] == [
        (0, "small"),
        (1, None),
        (2, "after"),
    ]
    problem = reports[1]["problems"][0]
    assert problem["code"] == "unreadable"
    assert problem["message"].startswith(
        "line 2: the record is larger than the size limit of 4 KiB"
    )
    assert result.exit_code == 3
    assert run("verify", "--max-record-size", "8K", str(path)).exit_code == 0


def test_json_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    path.write_text(big_record("big", 2000), encoding="utf-8")
    size = path.stat().st_size
    result = run("verify", "--max-record-size", "1000", str(path), str(path))
    assert (
        result.output.count(
            f"#0: unreadable: larger than the size limit of 1000 bytes ({size} bytes); not read"
        )
        == 2
    )
    assert "Raise the limit with --max-record-size" in result.output
    assert result.exit_code == 3
    assert run("verify", "--max-record-size", "1M", str(path)).exit_code == 0


def test_stdin_json_lines_with_a_record_over_the_size_limit_stops_there() -> None:
    text = "\n".join([record_text("small"), big_record("big", 5000), record_text("after")])
    result = run("verify", "--format", "json", "--max-record-size", "4K", "-", stdin=text)
    reports = json_reports(result.output)
    assert [report["game_id"] for report in reports] == ["small", None]
    assert "the rest of this input was not read" in reports[1]["problems"][0]["message"]
    assert result.exit_code == 3


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("123", 123),
        ("64M", 64 * 1024**2),
        ("1G", 1024**3),
        ("16MiB", 16 * 1024**2),
        ("1.5k", 1536),
        ("2 mb", 2 * 1024**2),
    ],
)
def test_max_record_size_reads_bytes_and_binary_units(text: str, size: int) -> None:
    assert ByteSize().convert(text, None, None) == size


@pytest.mark.parametrize("text", ["", "0", "-1", "lots", "1X", "0.1"])
def test_max_record_size_that_is_not_a_size_is_a_usage_error(text: str, tmp_path: Path) -> None:
    path = write_record(tmp_path / "a.json", "a")
    result = CliRunner().invoke(main, ["verify", "--max-record-size", text, str(path)])
    assert result.exit_code == 2
    assert "is not a size" in result.output


def test_sheets_file_over_the_size_limit_is_a_usage_error(tmp_path: Path) -> None:
    path = write_record(tmp_path / "a.json", "a")
    result = run("verify", "--max-record-size", "1M", "--sheets", "/dev/zero", str(path))
    assert result.exit_code == 2
    assert "larger than the size limit of 1 MiB" in result.output


# -- every command -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "--jobs", "1"],
        ["verify", "--jobs", "2", "--format", "json"],
        ["annotate"],
        ["annotate", "--format", "json"],
        ["annotate", "--format", "csv"],
        ["export", "--jobs", "1", "--games", "{out}/games.csv"],
        ["stats", "--jobs", "1"],
        ["tournament", "check", "--jobs", "1"],
        ["tournament", "check", "--format", "json"],
    ],
    ids=lambda command: "-".join(part for part in command if not part.startswith("{")),
)
def test_every_command_reports_an_unreadable_source_with_exit_3(
    command: list[str], tmp_path: Path
) -> None:
    records = tmp_path / "records"
    records.mkdir()
    write_record(records / "a.json", "a")
    (records / "b.json").symlink_to(records / "gone.json")
    write_record(records / "c.json", "c")
    args = [part.format(out=tmp_path) for part in command]
    result = CliRunner().invoke(main, [*args, str(records)])
    assert result.exit_code == 3, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    if command[0] not in ("export", "stats"):  # those two count it on standard error
        assert "b.json" in result.output


def test_show_on_an_unreadable_source_says_why_with_exit_3(tmp_path: Path) -> None:
    (tmp_path / "b.json").symlink_to(tmp_path / "gone.json")
    result = run("show", str(tmp_path / "b.json"))
    assert "b.json#0: unreadable: a broken symbolic link" in result.output
    assert result.exit_code == 3


def test_python_api_reports_an_unreadable_source_and_reads_the_others(tmp_path: Path) -> None:
    write_record(tmp_path / "a.json", "a")
    (tmp_path / "b.json").symlink_to(tmp_path / "gone.json")
    reports = list(phantom_log.verify(tmp_path))
    assert [(report.game_id, report.failed) for report in reports] == [("a", False), (None, True)]
    big = tmp_path / "a.json"
    (report,) = phantom_log.verify(big, max_record_size=100)
    assert report.problems[0].code == "unreadable"


# -- file names that are not UTF-8 -------------------------------------------------------


def non_utf8_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    folder.mkdir()
    name = os.fsdecode(os.path.join(os.fsencode(folder), b"caf\xe9-\xff.json"))
    Path(name).write_text(record_text("named"), encoding="utf-8")
    os.symlink(os.path.join(os.fsencode(folder), b"gone-\xfe"), os.fsencode(folder) + b"/z.json")
    return folder


def test_non_utf8_file_name_keeps_json_output_valid_utf8(tmp_path: Path) -> None:
    folder = non_utf8_folder(tmp_path)
    done = run_process("verify", "--format", "json", str(folder))
    reports = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [os.path.basename(report["source"]) for report in reports] == [
        "caf\\xe9-\\xff.json",
        "z.json",
    ]
    assert reports[0]["valid"]
    assert "gone-\\xfe" in reports[1]["problems"][0]["message"]
    assert done.returncode == 3


def test_non_utf8_file_name_keeps_tournament_json_valid_utf8(tmp_path: Path) -> None:
    done = run_process("tournament", "check", "--format", "json", str(non_utf8_folder(tmp_path)))
    text = done.stdout.decode("utf-8")
    assert "caf\\\\xe9-\\\\xff.json" in text  # the backslash itself escaped by JSON
    json.loads(text)
    assert done.returncode == 3


@pytest.mark.parametrize("command", [["verify"], ["annotate"], ["annotate", "--format", "json"]])
def test_non_utf8_file_name_in_text_output_does_not_crash(
    command: list[str], tmp_path: Path
) -> None:
    done = run_process(*command, str(non_utf8_folder(tmp_path)))
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr
    (done.stdout + done.stderr).decode("utf-8")
    assert b"gone-\\xfe" in done.stdout + done.stderr
    assert done.returncode == 3


def test_non_utf8_file_name_is_read_the_same_through_the_reader(tmp_path: Path) -> None:
    folder = non_utf8_folder(tmp_path)
    (source, _) = find_sources([str(folder)])
    (record,) = read_source(source)
    assert record.data["game_id"] == "named"
    assert record.source.endswith("caf\\xe9-\\xff.json")
