"""``show`` reads only what it shows (the reliability issue, second pass): the record it
shows is the only one checked and held, and reading stops once it is found, so an endless
standard input shows its first record (``--index 0``) and ends, and a large file costs what
one record does. Without ``--index``, a path of several records is refused: standard
input at its second record, a file once its records are counted, none of them held.
Measured as the records shown and the memory taken, never as wall time."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers.paths import WALKTHROUGH
from tests.helpers.processes import run_measured

# The most memory ``show`` of one record may take, whatever the input holds: the
# interpreter, the libraries and one record (about 60 MB here; a run that held the 20,000
# records of the test below took over 700 MB).
ONE_RECORD = 200 * 1024 * 1024


def line() -> bytes:
    return json.dumps(json.loads(WALKTHROUGH.read_text(encoding="utf-8"))).encode() + b"\n"


def test_show_of_an_endless_standard_input_shows_the_first_record_and_ends(
    tmp_path: Path,
) -> None:
    endless = subprocess.Popen(["yes", line().decode().rstrip("\n")], stdout=subprocess.PIPE)
    try:
        done = run_measured(tmp_path, "show", "-", "--index", "0", stdin=endless.stdout)
    finally:
        endless.kill()
        endless.wait()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"-#0 (rulebook-walkthrough): ")
    assert b"After round 2, trick 10: 9 of 12 notes completed" in done.stdout
    assert done.peak_memory < ONE_RECORD


def test_show_of_an_endless_standard_input_without_index_is_refused_at_once(
    tmp_path: Path,
) -> None:
    endless = subprocess.Popen(["yes", line().decode().rstrip("\n")], stdout=subprocess.PIPE)
    try:
        done = run_measured(tmp_path, "show", "-", stdin=endless.stdout)
    finally:
        endless.kill()
        endless.wait()
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"standard input holds more than one record, and show shows one" in done.stderr
    assert done.peak_memory < ONE_RECORD


def test_show_of_a_record_deep_in_an_endless_standard_input_reads_up_to_it(
    tmp_path: Path,
) -> None:
    endless = subprocess.Popen(["yes", line().decode().rstrip("\n")], stdout=subprocess.PIPE)
    try:
        done = run_measured(tmp_path, "show", "-", "--index", "5000", stdin=endless.stdout)
    finally:
        endless.kill()
        endless.wait()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"-#5000 (rulebook-walkthrough): ")
    assert done.peak_memory < ONE_RECORD


def test_show_of_the_first_of_twenty_thousand_records_holds_one(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    path.write_bytes(line() * 20_000)
    for args in ([], ["--svg", str(tmp_path / "first.svg")], ["--html", str(tmp_path / "a.html")]):
        done = run_measured(tmp_path, "show", str(path), "--index", "0", *args)
        assert done.returncode == 0, done.stderr
        assert done.peak_memory < ONE_RECORD, args
    assert (tmp_path / "first.svg").read_text(encoding="utf-8").startswith("<svg")
    assert "<html" in (tmp_path / "a.html").read_text(encoding="utf-8")


def test_show_of_many_records_without_index_counts_them_without_holding_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "many.jsonl"
    path.write_bytes(line() * 20_000)
    for args in ([], ["--svg", str(tmp_path / "first.svg")], ["--html", str(tmp_path / "a.html")]):
        done = run_measured(tmp_path, "show", str(path), *args)
        assert done.returncode == 2, args
        assert done.stdout == b""
        assert f"{path} holds 20000 records, and show shows one".encode() in done.stderr
        assert b"--index N (0 to 19999)" in done.stderr
        assert done.peak_memory < ONE_RECORD, args
    assert not (tmp_path / "first.svg").exists() and not (tmp_path / "a.html").exists()


def test_show_past_the_last_record_counts_them_without_holding_them(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    path.write_bytes(line() * 20_000)
    done = run_measured(tmp_path, "show", str(path), "--index", "20000")
    assert done.returncode == 2
    assert f"--index 20000: {path} holds 20000 record(s)".encode() in done.stderr
    assert done.peak_memory < ONE_RECORD
