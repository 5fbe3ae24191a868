"""``show`` on an illegal record (the reliability issue): the record's problems are printed
as ``verify`` prints them, with the state as far as the replay got, exit code 1; with
--svg, what can be drawn is drawn, or the refusal is said; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from tests.helpers.cli import run
from tests.helpers.paths import WALKTHROUGH


def walkthrough() -> dict[str, Any]:
    record: dict[str, Any] = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return record


def bad_deal_in_round_1() -> dict[str, Any]:
    record = walkthrough()
    deal = record["rounds"][0]["deal"]
    deal["phantom"][0] = deal["christine"][0]
    return record


def bad_exchange_in_round_1() -> dict[str, Any]:
    record = walkthrough()
    held = set(record["rounds"][0]["deal"]["phantom"])
    record["rounds"][0]["exchange"]["phantom"] = next(
        card for card in ("Mi1", "Mi2", "Ch2", "Ma6") if card not in held
    )
    return record


ILLEGAL_AT_THE_START = [
    pytest.param(bad_deal_in_round_1, "bad-deal", id="bad-deal"),
    pytest.param(bad_exchange_in_round_1, "bad-exchange", id="bad-exchange"),
]


def write(tmp_path: Path, record: dict[str, Any]) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("make", "code"), ILLEGAL_AT_THE_START)
def test_show_prints_the_problem_of_a_record_illegal_at_the_start_of_round_1(
    tmp_path: Path, make: Any, code: str
) -> None:
    path = write(tmp_path, make())
    result = run("show", "--no-color", path)
    assert result.exit_code == 1
    verified = run("verify", "--quiet", path)
    problem_lines = verified.output.splitlines()
    assert problem_lines and f": round 1: {code}: " in problem_lines[0]
    lines = result.output.splitlines()
    assert lines[1] == "Before round 1: the replay stops there, 0 of 12 notes completed"
    assert lines[-len(problem_lines) :] == problem_lines  # as verify prints them
    assert "--at None" not in result.output


@pytest.mark.parametrize(("make", "code"), ILLEGAL_AT_THE_START)
def test_show_svg_of_a_record_illegal_at_the_start_draws_the_empty_sheet(
    tmp_path: Path, make: Any, code: str
) -> None:
    out = tmp_path / "game.svg"
    result = run("show", "--svg", str(out), write(tmp_path, make()))
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == f"wrote {out}"
    assert f"round 1: {code}: " in result.output
    picture = ElementTree.parse(out).getroot()
    discs = picture.findall(".//{http://www.w3.org/2000/svg}circle[@class='note disc']")
    assert discs == []  # no note completed


def test_show_at_a_moment_past_where_an_illegal_record_stops_shows_where_it_stops(
    tmp_path: Path,
) -> None:
    record = walkthrough()
    record["rounds"][1]["tricks"][3]["plays"][0]["player"] = "christine"
    record["rounds"][1]["tricks"][3]["plays"][1]["player"] = "phantom"
    result = run("show", "--no-color", "--at", "2.8", write(tmp_path, record))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[1] == (
        "--at 2.8: the replay does not reach round 2, trick 8 (round 2 has 3 completed "
        "tricks); shown where the replay stops"
    )
    assert lines[2].startswith("After round 2, trick 3: ")
    assert "wrong-player" in lines[-1] or "wrong-player" in lines[-2]


def test_show_at_a_moment_a_valid_record_does_not_reach_is_a_usage_error(tmp_path: Path) -> None:
    record = walkthrough()
    record["rounds"][1]["tricks"] = record["rounds"][1]["tricks"][:2]
    del record["result"]
    result = run("show", "--at", "2.8", write(tmp_path, record))
    assert result.exit_code == 2
    assert "--at 2.8: the replay does not reach round 2, trick 8" in result.stderr


def test_show_svg_of_a_record_that_cannot_be_replayed_says_no_picture_is_written(
    tmp_path: Path,
) -> None:
    out = tmp_path / "game.svg"
    result = run("show", "--svg", str(out), write(tmp_path, {**walkthrough(), "sheet": 5}))
    assert result.exit_code == 1
    assert f"{out} not written: the record cannot be replayed" in result.stderr
    assert "schema: type" in result.stdout
    assert not out.exists()
