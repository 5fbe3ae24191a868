"""One bad record or one lost worker never costs the others (the reliability issue):
each failure is a problem on its own record, or a clear end of the run with exit code 3."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import CliRunner

from phantom_log.checking import verdict as check
from phantom_log.cli import main
from tests.helpers.cli import run
from tests.helpers.paths import REPO
from tests.helpers.records import RECORD


def records_file(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "games.jsonl"
    lines = [json.dumps({**RECORD, "game_id": f"g{index}"}) for index in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def checker_fails_on_g1(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker raises (as a bug would) on the record whose game id is g1."""
    original = check.check_record

    def failing(data: Any, *args: Any, **kwargs: Any) -> Any:
        if data.get("game_id") == "g1":
            raise RuntimeError("boom")
        return original(data, *args, **kwargs)

    monkeypatch.setattr(check, "check_record", failing)


@pytest.mark.usefixtures("checker_fails_on_g1")
def test_a_failure_of_the_checker_is_an_internal_error_on_that_record_only(
    tmp_path: Path,
) -> None:
    result = run("verify", "--jobs", "1", "--format", "json", str(records_file(tmp_path, 3)))
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert [report["game_id"] for report in reports] == ["g0", "g1", "g2"]
    assert [problem["code"] for problem in reports[1]["problems"]] == ["internal-error"]
    assert "RuntimeError" in reports[1]["problems"][0]["message"]
    assert reports[0]["valid"] and reports[2]["valid"]
    assert result.exit_code == 3


def test_a_failure_to_make_a_records_table_rows_is_that_records_problem_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """export and stats: a bug in a record's rows leaves that record out (exit 3, said),
    never the batch: the other records are in the tables."""
    from phantom_log.tabular import tables

    original = tables.game_row

    def failing(report: Any) -> Any:
        if report.game_id == "g1":
            raise RuntimeError("boom")
        return original(report)

    monkeypatch.setattr(tables, "game_row", failing)
    out = tmp_path / "games.csv"
    result = run("export", str(records_file(tmp_path, 3)), "--jobs", "1", "--games", str(out))
    assert result.exit_code == 3
    assert "could not read or check 1 record" in result.stderr
    assert [line.split(",")[2] for line in out.read_text().splitlines()[1:]] == ["g0", "g2"]


def test_an_integer_of_thousands_of_digits_is_a_json_problem(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    huge = json.dumps({**RECORD, "game_id": "big"}).replace(
        '"format"', '"x-n": 1' + "9" * 5000 + ', "format"'
    )
    path.write_text(huge + "\n" + json.dumps(RECORD) + "\n", encoding="utf-8")
    result = run("verify", "--format", "json", str(path))
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert reports[0]["problems"][0]["code"] == "json"
    assert "64-bit" in reports[0]["problems"][0]["message"]
    assert len(reports[0]["problems"][0]["message"]) < 200
    assert reports[1]["valid"]
    assert result.exit_code == 1


#: ``ordered_map`` of a worker function over 20 items on 2 processes, in an interpreter of
#: its own: prints the count of chunks done that ``WorkerLost`` gives, and the results
#: received before it.
LOSING_A_WORKER: Final = """
import sys
from functools import partial
sys.path.insert(0, {repo!r})
from tests.helpers.workers import die_on_three, half_a_result_then
from phantom_log.running.pipeline import WorkerLost, ordered_map

received = []
try:
    for result in ordered_map({function}, range(20), 2):
        received.append(result)
except WorkerLost as lost:
    print(lost.done, received)
"""


def lose_a_worker(function: str) -> tuple[int, list[int]]:
    """The run of :data:`LOSING_A_WORKER`, which must end by itself: a hang is a timeout
    (far longer than the run needs, even on a loaded machine)."""
    ended = subprocess.run(
        [sys.executable, "-c", LOSING_A_WORKER.format(repo=str(REPO), function=function)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ended.returncode == 0, ended.stderr
    done, received = ended.stdout.split(" ", 1)
    return int(done), json.loads(received)


def test_a_lost_worker_ends_the_run_instead_of_hanging() -> None:
    done, received = lose_a_worker("die_on_three")
    # The results before the lost one, in order, and never the lost one or any after it.
    assert received == list(range(len(received))) and len(received) <= 3
    assert done == len(received)


def test_control_characters_of_a_record_cannot_forge_the_report(tmp_path: Path) -> None:
    path = tmp_path / "forged.json"
    forged = {**RECORD, "game_id": "a\x1b[2K\rother.json#0 (x): valid: \u202eforged"}
    path.write_text(json.dumps({**forged, "rounds": []}), encoding="utf-8")
    result = run("verify", str(path))
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "\u202e" not in result.output
    assert "a\\x1b[2K\\x0dother.json#0" in result.output


def test_a_closed_output_pipe_ends_the_run_quietly_with_141(tmp_path: Path) -> None:
    path = records_file(tmp_path, 3000)
    command = f"{sys.executable} -m phantom_log verify --jobs 1 {path} | head -n 1 >/dev/null"
    done = subprocess.run(
        ["bash", "-c", command + "; exit ${PIPESTATUS[0]}"], capture_output=True, text=True
    )
    assert done.returncode == 141
    assert done.stderr == ""


def test_a_failure_of_phantom_log_itself_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import phantom_log.cli as cli

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(cli.main, "main", broken)
    with pytest.raises(SystemExit) as ended:
        cli.entry()
    assert ended.value.code == 3
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "ZeroDivisionError" in error and "Traceback" not in error


@pytest.mark.parametrize(
    "command",
    [
        ["annotate", "--format", "json"],
        ["export", "--jobs", "1", "--games", "{out}/games.csv"],
        ["stats", "--jobs", "1"],
        ["tournament", "check", "--jobs", "1"],
    ],
    ids=lambda command: command[0],
)
@pytest.mark.usefixtures("checker_fails_on_g1")
def test_every_command_reports_a_checker_failure_with_exit_3(
    command: list[str], tmp_path: Path
) -> None:
    path = records_file(tmp_path, 3)
    args = [part.format(out=tmp_path) for part in command]
    result = CliRunner().invoke(main, [*args, str(path)])
    assert result.exit_code == 3, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_worker_lost_while_sending_a_result_ends_the_run_instead_of_hanging() -> None:
    """The pool itself would wait for the rest of the message for ever."""
    # Item 0 is the one lost: nothing was done before it.
    assert lose_a_worker('partial(half_a_result_then, end="die")') == (0, [])


INTERRUPTED_WITH_HALF_A_RESULT: Final = """
import signal, sys
from functools import partial
sys.path.insert(0, {repo!r})
from tests.helpers.workers import half_a_result_then
from phantom_log.running.pipeline import ordered_map

def interrupt(*_):
    raise KeyboardInterrupt
signal.signal(signal.SIGALRM, interrupt)
signal.alarm(1)
try:
    list(ordered_map(partial(half_a_result_then, end="sleep"), range(20), 2))
except KeyboardInterrupt:
    print("interrupted")
"""


def test_an_interrupted_run_ends_though_a_worker_left_half_a_result() -> None:
    """SIGTERM to the whole process group can end a worker in the middle of sending a
    result: the interrupted run, and then the interpreter, still end (before, both waited
    for the pool's manager thread, which waited for the rest of the message)."""
    ended = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_WITH_HALF_A_RESULT.format(repo=str(REPO))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, "interrupted\n", "")
