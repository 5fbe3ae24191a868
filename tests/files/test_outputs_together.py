"""A run's outputs carry that run's data (the reliability issue, second pass): two runs
writing the same outputs at once leave one run's files, never one's games table beside the
other's tricks table; a reader holding the folder's lock sees no change while it reads;
an output that fails puts back the ones renamed before it; ``show --html DIR`` is the old
folder or the new one, never a mix, on a disk that fills too; a full disk is worded as the
system words it, Parquet's footer too. Real processes, run many times; real disks that
fill (a small tmpfs), skipped where the machine refuses to mount."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from phantom_log.files import locks, renames
from phantom_log.files import outputs as output
from tests.helpers.cli import run
from tests.helpers.mounts import resize, small_disk

# How many times each pair of runs is started at once.
ROUNDS = 12


def simulated(folder: Path, name: str, games: int, seed: int) -> Path:
    path = folder / name
    result = run("simulate", "-n", games, "--seed", seed, "-o", path, "-q")
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two inputs whose tables differ in every row: game ids ``sim-11-*`` and ``sim-12-*``."""
    folder = tmp_path_factory.mktemp("inputs")
    return simulated(folder, "a.jsonl", 150, 11), simulated(folder, "b.jsonl", 150, 12)


def start(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "phantom_log", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        stdout, stderr = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stdout, stderr


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` that a reader sees (not the hidden temporary files of a
    run under way), by its path there."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.startswith(".")
    }


def hidden(folder: Path) -> list[str]:
    """What a run may leave behind in ``folder``: temporary files and folders."""
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


def run_alone(*args: object) -> None:
    result = run(*args)
    assert result.exit_code in (0, 1), result.output


def export_args(source: Path, folder: Path) -> list[object]:
    return [
        *("export", source, "-q", "--jobs", "1", "--force"),
        *("--games", folder / "games.csv", "--tricks", folder / "tricks.jsonl"),
    ]


def test_two_exports_at_once_leave_one_runs_games_and_tricks(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    """Two ``export --force`` runs to the same two files, started together, again and
    again: the tables there are always both of one run (byte for byte as that run alone
    writes them), and both runs succeed."""
    expected = []
    for source in inputs:
        alone = tmp_path / f"alone-{source.stem}"
        alone.mkdir()
        run_alone(*export_args(source, alone))
        expected.append(files_of(alone))
    assert expected[0] != expected[1]
    shared = tmp_path / "shared"
    shared.mkdir()
    found = []
    for _ in range(ROUNDS):
        processes = [start(*export_args(source, shared)) for source in inputs]
        for code, _, stderr in map(finish, processes):
            assert code == 0, stderr
        tables = files_of(shared)
        assert tables in expected, "the games table of one run beside the tricks of the other"
        assert hidden(shared) == []
        found.append(expected.index(tables))
    assert len(found) == ROUNDS


def test_two_verify_runs_at_once_leave_one_runs_report_valid_and_invalid_records(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    """``verify -o report --valid-out --invalid-out``: three outputs of one run, or of the
    other, whatever the two runs' timing."""
    sources = []
    for source in inputs:
        # Half of each input made invalid (a wrong number of notes): both files get records.
        lines = source.read_text().splitlines()
        mixed = []
        for number, line in enumerate(lines):
            record = json.loads(line)
            if number % 2:
                record["result"]["notes"] = (record["result"]["notes"] + 1) % 13
            mixed.append(json.dumps(record))
        path = tmp_path / f"mixed-{source.name}"
        path.write_text("\n".join(mixed) + "\n")
        sources.append(path)

    def verify_args(source: Path, folder: Path) -> list[object]:
        return [
            *("verify", source, "--format", "json", "--jobs", "1", "--force"),
            *("-o", folder / "report.jsonl", "--valid-out", folder / "valid.jsonl"),
            *("--invalid-out", folder / "invalid.jsonl"),
        ]

    expected = []
    for source in sources:
        alone = tmp_path / f"alone-{source.stem}"
        alone.mkdir()
        run_alone(*verify_args(source, alone))
        expected.append(files_of(alone))
    shared = tmp_path / "shared"
    shared.mkdir()
    for _ in range(ROUNDS):
        processes = [start(*verify_args(source, shared)) for source in sources]
        for code, _, stderr in map(finish, processes):
            assert code == 1, stderr  # invalid records, no failure
        assert files_of(shared) in expected
        assert hidden(shared) == []


def test_two_html_folders_at_once_leave_one_runs_pages_and_index(tmp_path: Path) -> None:
    """``show --html DIR --force`` twice at once, the two inputs' pages of the same names
    (the same game ids, other games): the folder holds one run's pages and index."""
    first = simulated(tmp_path, "first.jsonl", 12, 21)
    other = simulated(tmp_path, "other-ids.jsonl", 12, 22)
    ids = [json.loads(line)["game_id"] for line in first.read_text().splitlines()]
    second = tmp_path / "second.jsonl"
    second.write_text(
        "".join(
            json.dumps({**json.loads(line), "game_id": game_id}) + "\n"
            for line, game_id in zip(other.read_text().splitlines(), ids, strict=True)
        )
    )
    expected = []
    for source in (first, second):
        alone = tmp_path / f"alone-{source.stem}"
        run_alone("show", source, "--html", alone)
        expected.append(files_of(alone))
    assert expected[0].keys() == expected[1].keys()
    pages = tmp_path / "pages"
    for _ in range(ROUNDS):
        processes = [
            start("show", source, "--html", pages, "--force") for source in (first, second)
        ]
        for code, _, stderr in map(finish, processes):
            assert code == 0, stderr
        assert files_of(pages) in expected
        assert hidden(tmp_path) == []


def test_a_run_waits_for_a_reader_holding_the_folders_lock(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    """A reader that takes the folder's lock (shared, as ``flock -s DIR`` does) while it
    reads sees the files of one run throughout: the runs that finish meanwhile say that
    they wait, and put their files in place once the reader lets go."""
    expected = []
    for source in inputs:
        alone = tmp_path / f"alone-{source.stem}"
        alone.mkdir()
        run_alone(*export_args(source, alone))
        expected.append(files_of(alone))
    few = tmp_path / "few.jsonl"
    few.write_text("".join(inputs[0].read_text().splitlines(keepends=True)[:3]))
    shared = tmp_path / "shared"
    shared.mkdir()
    run_alone(*export_args(few, shared))
    before = files_of(shared)
    reader = os.open(shared, os.O_RDONLY)
    processes = []
    try:
        fcntl.flock(reader, fcntl.LOCK_SH)
        for source in inputs:
            process = start(*export_args(source, shared))
            processes.append(process)
            assert process.stderr is not None
            said = process.stderr.readline()  # the first line it says: -q says no other
            assert said == (
                f"phantom-log: note: waiting for {shared}: another run is putting its "
                "outputs there, or a reader holds the folder's lock\n"
            )
        assert files_of(shared) == before
        assert [process.poll() for process in processes] == [None, None]
    finally:
        os.close(reader)
        for code, _, stderr in map(finish, processes):
            assert code == 0, stderr
    assert files_of(shared) in expected
    assert hidden(shared) == []


def test_sigterm_while_a_run_waits_for_the_lock_ends_it_and_leaves_nothing(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    reader = os.open(shared, os.O_RDONLY)
    try:
        fcntl.flock(reader, fcntl.LOCK_SH)
        process = start(*export_args(inputs[0], shared))
        assert process.stderr is not None
        said = process.stderr.readline()
        assert said.startswith(f"phantom-log: note: waiting for {shared}: "), said
        assert len(hidden(shared)) == 2  # the two tables, whole, in their temporary files
        process.send_signal(signal.SIGTERM)
        code, _, stderr = finish(process)
    finally:
        os.close(reader)
    assert code == 143
    assert stderr == "phantom-log: terminated (SIGTERM)\n"
    assert list(shared.iterdir()) == []


# --- a failure puts back what was renamed before it ---------------------------------------------


def second_refused(real: Callable[..., None], names: set[str]) -> Callable[..., None]:
    """``os.replace`` or ``os.link`` refusing (EACCES) the second output it is asked to
    put in place, whichever that is: the first is in place by then."""
    calls = []

    def refused(source: Path, target: Path, *args: object, **kwargs: object) -> None:
        if os.path.basename(target) in names:
            calls.append(target)
            if len(calls) == 2:
                raise OSError(errno.EACCES, "refused")
        real(source, target, *args, **kwargs)

    return refused


@pytest.mark.parametrize("force", [True, False])
def test_the_second_rename_failing_puts_the_first_file_back(
    force: bool, inputs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    games, tricks = tmp_path / "games.csv", tmp_path / "tricks.jsonl"
    if force:
        games.write_text("old games")
        tricks.write_text("old tricks")
    step = "replace" if force else "link"
    monkeypatch.setattr(
        output.os, step, second_refused(getattr(os, step), {games.name, tricks.name})
    )
    result = run(
        "export", inputs[0], "-q", "--jobs", "1", "--games", games, "--tricks", tricks,
        *(["--force"] if force else []),
    )  # fmt: skip
    assert result.exit_code == 3
    assert result.stderr in (
        f"phantom-log: error: cannot write {path}: refused; {path} is left as it was\n"
        for path in (games, tricks)
    )
    if force:
        assert files_of(tmp_path) == {"games.csv": b"old games", "tricks.jsonl": b"old tricks"}
    else:
        assert files_of(tmp_path) == {}
    assert hidden(tmp_path) == []


# --- show --html DIR: the old folder or the new one -------------------------------------------


def test_html_replaces_the_folder_keeping_what_else_it_holds(tmp_path: Path) -> None:
    """The new folder is the old one with the run's pages and index replaced: files and
    folders of the user's are kept, and old pages of other names too."""
    old = simulated(tmp_path, "old.jsonl", 5, 31)
    new = simulated(tmp_path, "new.jsonl", 3, 32)
    pages = tmp_path / "pages"
    run_alone("show", old, "--html", pages)
    (pages / "notes.txt").write_text("mine")
    (pages / "assets").mkdir()
    (pages / "assets" / "logo.svg").write_text("<svg/>")
    before = files_of(pages)
    alone = tmp_path / "alone"
    run_alone("show", new, "--html", alone)
    run_alone("show", new, "--html", pages, "--force")
    after = files_of(pages)
    assert {name: after[name] for name in files_of(alone)} == files_of(alone)
    assert {name: data for name, data in after.items() if name not in files_of(alone)} == {
        name: data for name, data in before.items() if name not in files_of(alone)
    }
    assert (pages / "notes.txt").stat().st_nlink == 1  # the old folder is gone
    assert hidden(tmp_path) == []


def test_html_replaces_the_folder_by_two_renames_where_it_cannot_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(renames, "_RENAMEAT2", None)
    old = simulated(tmp_path, "old.jsonl", 4, 41)
    new = simulated(tmp_path, "new.jsonl", 4, 42)
    pages = tmp_path / "pages"
    run_alone("show", old, "--html", pages)
    (pages / "notes.txt").write_text("mine")
    alone = tmp_path / "alone"
    run_alone("show", new, "--html", alone)
    run_alone("show", new, "--html", pages, "--force")
    after = files_of(pages)
    assert after.pop("notes.txt") == b"mine"
    assert {name: after[name] for name in files_of(alone)} == files_of(alone)
    assert hidden(tmp_path) == []


def test_html_refuses_a_folder_it_cannot_replace_in_one_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = simulated(tmp_path, "game.jsonl", 1, 5)
    monkeypatch.chdir(tmp_path)
    result = run("show", game, "--html", ".", "--force")
    assert result.exit_code == 2
    assert result.stderr == (
        "phantom-log: error: . is the current folder, or holds it, and is replaced as a "
        "whole; give another folder, or run from outside it\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game.jsonl"]


def folder_size(folder: Path) -> int:
    return sum(len(data) for data in files_of(folder).values())


def test_html_on_a_disk_that_fills_leaves_the_old_folder_as_it_was(tmp_path: Path) -> None:
    """The disk fills a third of the way through the new pages: the folder is the old
    one, every byte, and nothing else is left on the disk."""
    old = simulated(tmp_path, "old.jsonl", 30, 51)
    new = simulated(tmp_path, "new.jsonl", 30, 52)
    alone = tmp_path / "alone"
    run_alone("show", new, "--html", alone)
    with small_disk(tmp_path / "disk", 64 << 20) as disk:
        pages = disk / "pages"
        run_alone("show", old, "--html", pages)
        before = files_of(pages)
        used = os.statvfs(disk)
        taken = (used.f_blocks - used.f_bfree) * used.f_frsize
        resize(disk, taken + folder_size(alone) // 3)
        completed = subprocess.run(
            [sys.executable, "-m", "phantom_log", "show", new, "--html", pages, "--force"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert completed.returncode == 3, completed.stderr
        assert completed.stderr == (
            f"phantom-log: error: cannot write {pages}: No space left on device; "
            f"{pages} is left as it was\n"
        )
        assert files_of(pages) == before
        assert sorted(path.name for path in disk.iterdir()) == ["pages"]


def test_html_on_a_full_disk_leaves_nothing_new(tmp_path: Path) -> None:
    game = simulated(tmp_path, "games.jsonl", 10, 61)
    with small_disk(tmp_path / "disk", 64 << 10) as disk:
        completed = subprocess.run(
            [sys.executable, "-m", "phantom_log", "show", game, "--html", disk / "pages"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert completed.returncode == 3, completed.stderr
        assert completed.stderr == (
            f"phantom-log: error: cannot write {disk / 'pages'}: No space left on device; "
            f"{disk / 'pages'} is left as it was\n"
        )
        assert list(disk.iterdir()) == []


# --- a full disk, as the system says it -------------------------------------------------------


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 games: Parquet tables of tens of kilobytes."""
    return simulated(tmp_path_factory.mktemp("many"), "many.jsonl", 2000, 3)


@pytest.mark.parametrize("table", ["--games", "--tricks"])
def test_a_parquet_table_on_a_full_disk_says_no_space_left(
    table: str, many: Path, tmp_path: Path
) -> None:
    """Disks that fill at every few kilobytes of the table, its footer included (where
    polars says only ``Invalid thrift: transport error``): each failure is worded as the
    system words it, and the disk is left empty."""
    reasons = set()
    for kilobytes in range(4, 29, 4):
        with small_disk(tmp_path / f"disk-{kilobytes}", kilobytes << 10) as disk:
            target = disk / "table.parquet"
            completed = subprocess.run(
                [sys.executable, "-m", "phantom_log", "export", many, "-q", table, target],
                capture_output=True,
                text=True,
                check=False,
            )
            if completed.returncode == 0:
                continue
            assert completed.returncode == 3, completed.stderr
            assert completed.stderr.startswith(f"phantom-log: error: cannot write {target}: ")
            reasons.add(completed.stderr.split(": ")[3].split(";")[0])
            assert list(disk.iterdir()) == []
    assert reasons == {"No space left on device"}


def test_a_reason_lost_on_the_way_is_asked_of_the_disk_again(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 16 << 10) as disk:
        with pytest.raises(OSError), open(disk / "filler", "wb") as filler:
            filler.write(b"\0" * (1 << 20))
        assert output.probed_failure(disk) == "No space left on device"
        assert sorted(path.name for path in disk.iterdir()) == ["filler"]
    assert output.probed_failure(tmp_path) is None


# --- the lock ---------------------------------------------------------------------------------


def test_a_folder_that_cannot_be_locked_is_locked_by_a_file_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on NFS, where flock on a folder fails: a lock file in it is locked instead."""
    real = fcntl.flock
    locked = []

    def flock(descriptor: int, operation: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{descriptor}"):
            raise OSError(errno.EBADF, "Bad file descriptor")
        real(descriptor, operation)
        locked.append(os.readlink(f"/proc/self/fd/{descriptor}"))

    monkeypatch.setattr(locks.fcntl, "flock", flock)
    with locks.folders_locked([tmp_path, tmp_path / ".", tmp_path]):
        assert locked == [str(tmp_path / locks.LOCK_FILE_NAME)]


@pytest.mark.parametrize("out", ["FILE", "-"])
def test_the_streams_of_a_set_are_closed_with_it(out: str, tmp_path: Path) -> None:
    """Python in its development mode says what a stream left open, or flushed once
    closed, does when it is collected: nothing is said."""
    target = str(tmp_path / "games.jsonl") if out == "FILE" else out
    completed = subprocess.run(
        [sys.executable, "-X", "dev", "-m", "phantom_log", "simulate", "-n", "3", "-o", target],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0
    assert completed.stderr == (f"wrote 3 games to {target}\n" if out == "FILE" else "")
    if out == "-":
        assert len(completed.stdout.splitlines()) == 3
