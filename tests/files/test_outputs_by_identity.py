"""An output that is an input is refused by what the file is (its device and inode), not by
its name (the reliability issue, second pass): through a hard link, a bind mount (where
``bind/in.jsonl`` is the very file ``io/in.jsonl``), a record file read below an input
folder, and standard output redirected to an input. Each is refused before any work, with
or without ``--force``, and the input is left as it was, every byte. The bind mounts are
real, skipped where the machine refuses to mount."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import run
from tests.helpers.mounts import bind_mount
from tests.helpers.paths import REPO

WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"


def cli(*args: object, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )


@pytest.fixture
def io(tmp_path: Path) -> Path:
    """A folder of inputs: ``in.jsonl`` (three records) and ``game.json``."""
    folder = tmp_path / "io"
    folder.mkdir()
    result = run("simulate", "-n", "3", "--seed", "4", "-o", folder / "in.jsonl", "-q")
    assert result.exit_code == 0
    (folder / "game.json").write_bytes(WALKTHROUGH.read_bytes())
    return folder


def contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


# Each command writing OUT, the other name of the input IN (IN is io/in.jsonl).
COMMANDS: dict[str, tuple[list[str], str]] = {
    "tournament check -o": (["tournament", "check", "IN", "--format", "json", "-o", "OUT"], "-o"),
    "annotate -o": (["annotate", "IN", "--format", "json", "-o", "OUT"], "-o"),
    "verify -o": (["verify", "IN", "--format", "json", "-o", "OUT"], "-o"),
    "verify --valid-out": (["verify", "IN", "--valid-out", "OUT"], "--valid-out"),
    "verify --invalid-out": (["verify", "IN", "--invalid-out", "OUT"], "--invalid-out"),
    "export --tricks": (["export", "IN", "-q", "--tricks", "OUT"], "--tricks"),
    "export --games": (["export", "IN", "-q", "--games", "OUT", "--format", "jsonl"], "--games"),
    "stats -o": (["stats", "IN", "-q", "--format", "json", "-o", "OUT"], "-o"),
}


def command(name: str, given: Path, out: Path) -> tuple[list[str], str]:
    template, option = COMMANDS[name]
    args = [str(given) if arg == "IN" else str(out) if arg == "OUT" else arg for arg in template]
    return args, option


@pytest.mark.parametrize("name", COMMANDS)
def test_an_output_hard_linked_to_an_input_is_refused(name: str, io: Path, tmp_path: Path) -> None:
    """Two names, one file: replacing one name would part them silently."""
    link = tmp_path / "link.jsonl"
    os.link(io / "in.jsonl", link)
    before = contents(io)
    args, option = command(name, io / "in.jsonl", link)
    completed = cli(*args, "--force")
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr == (
        f"phantom-log: error: {option} {link}: it is an input; write it elsewhere\n"
    )
    assert completed.stdout == ""
    assert contents(io) == before
    assert os.path.samefile(link, io / "in.jsonl")


@pytest.mark.parametrize("name", COMMANDS)
def test_an_output_through_a_bind_mount_is_refused(name: str, io: Path, tmp_path: Path) -> None:
    """``mount --bind io bind``: ``bind/in.jsonl`` is ``io/in.jsonl`` itself, which a
    rename over it would destroy."""
    before = contents(io)
    with bind_mount(io, tmp_path / "bind") as bind:
        assert (bind / "in.jsonl").read_bytes() == before["in.jsonl"]
        args, option = command(name, io / "in.jsonl", bind / "in.jsonl")
        completed = cli(*args, "--force")
        assert completed.returncode == 2, completed.stderr
        assert completed.stderr == (
            f"phantom-log: error: {option} {bind / 'in.jsonl'}: it is an input; "
            "write it elsewhere\n"
        )
        assert contents(io) == before


def test_the_issues_bind_mount_case_keeps_the_records(io: Path, tmp_path: Path) -> None:
    before = contents(io)
    with bind_mount(io, tmp_path / "bind") as bind:
        completed = cli(
            "tournament", "check", io / "in.jsonl", "--format", "json",
            "-o", bind / "in.jsonl", "--force",
        )  # fmt: skip
        assert completed.returncode == 2
        assert "it is an input" in completed.stderr
    assert contents(io) == before
    assert run("verify", io / "in.jsonl", "-q").exit_code == 0


def test_a_record_file_below_an_input_folder_is_an_input(io: Path, tmp_path: Path) -> None:
    """The folder given, its records read: ``io/in.jsonl`` is an input, under any name."""
    before = contents(io)
    with bind_mount(io, tmp_path / "bind") as bind:
        for target in (io / "in.jsonl", bind / "in.jsonl", bind / "game.json"):
            completed = cli("annotate", io, "--format", "json", "-o", target, "--force")
            assert completed.returncode == 2
            assert completed.stderr == (
                f"phantom-log: error: -o {target}: it is an input (a record file below the "
                f"input folder {io}); write it elsewhere\n"
            )
    assert contents(io) == before


def test_a_file_below_an_input_folder_that_is_read_as_no_record_may_be_written(
    io: Path,
) -> None:
    """A report beside the records, in a name the search for records leaves out, is no
    input: written (with --force) as before."""
    report = io / "report.txt"
    report.write_text("old")
    hidden = io / ".report.jsonl"
    hidden.write_text("old")
    for target in (report, hidden):
        completed = cli("verify", io, "-o", target, "--force")
        assert completed.returncode == 0, completed.stderr
        written = target.read_text()
        assert str(io / "game.json") in written
        assert str(io / "in.jsonl") in written


def test_valid_out_inside_an_input_folder_through_a_bind_mount_is_refused(
    io: Path, tmp_path: Path
) -> None:
    """It would be read as records by the next run over the folder."""
    before = contents(io)
    with bind_mount(io, tmp_path / "bind") as bind:
        completed = cli("verify", io, "--valid-out", bind / "valid.jsonl")
        assert completed.returncode == 2
        assert completed.stderr == (
            f"phantom-log: error: --valid-out {bind / 'valid.jsonl'}: it is inside the input "
            f"folder {io}, where it would be read as records; write it elsewhere\n"
        )
    assert contents(io) == before


def test_two_outputs_that_are_one_file_by_a_bind_mount_are_refused(
    io: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with bind_mount(out, tmp_path / "bind") as bind:
        completed = cli(
            "export", io / "in.jsonl", "--games", out / "t.csv", "--tricks", bind / "t.csv"
        )
        assert completed.returncode == 2
        assert completed.stderr == (
            f"phantom-log: error: --games and --tricks are the same file: {out / 't.csv'}\n"
        )
        completed = cli(
            "verify", io / "in.jsonl", "--valid-out", out / "v.jsonl",
            "--invalid-out", bind / "v.jsonl",
        )  # fmt: skip
        assert completed.returncode == 2
        assert "--valid-out and --invalid-out are the same file" in completed.stderr
    assert list(out.iterdir()) == []


def test_two_outputs_hard_linked_are_one_file(io: Path, tmp_path: Path) -> None:
    first = tmp_path / "first.csv"
    first.write_text("old")
    os.link(first, tmp_path / "second.csv")
    completed = cli(
        "export", io / "in.jsonl", "--games", first, "--tricks", tmp_path / "second.csv",
        "--force",
    )  # fmt: skip
    assert completed.returncode == 2
    assert "same file" in completed.stderr
    assert first.read_text() == "old"


def test_standard_output_redirected_to_an_input_is_refused(io: Path) -> None:
    """``phantom-log verify --format json in.jsonl >> in.jsonl`` would add its report to
    its own records (as ``cat f >> f``, which cat refuses too)."""
    before = contents(io)
    with open(io / "in.jsonl", "a") as appended:
        completed = cli("verify", "--format", "json", io / "in.jsonl", stdout=appended.fileno())
    assert completed.returncode == 2
    assert completed.stderr == (
        "phantom-log: error: standard output is redirected to a file that is an input; "
        "write it elsewhere\n"
    )
    assert contents(io) == before
    with open(io / "report.jsonl", "a") as appended:
        completed = cli("verify", "--format", "json", io, stdout=appended.fileno())
    assert completed.returncode == 2
    assert completed.stderr == (
        "phantom-log: error: standard output is redirected to a file that is an input (a "
        f"record file below the input folder {io}); write it elsewhere\n"
    )
    assert (io / "report.jsonl").read_bytes() == b""
