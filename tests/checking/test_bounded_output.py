"""Bounded output (the reliability issue): a message quotes at most a short excerpt of a
value from the record, a text report lists at most 20 problems of a record and counts the
rest, and one record's report stays small, and its checking bounded, whatever the record's
size. The work is measured as what the checker reports and what memory it takes, never as
wall time (which a loaded machine stretches)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from phantom_log.checking.verdict import check_record
from phantom_log.records.quoting import EXCERPT, excerpt, quoted, shortened
from phantom_log.records.schema import ARRAY_ITEMS_CHECKED, SCHEMA_ERROR_LIMIT, schema_text
from phantom_log.views.reports import PROBLEMS_LISTED
from tests.helpers.cli import run
from tests.helpers.paths import WALKTHROUGH
from tests.helpers.processes import Measured, run_measured

# "Tens of KB at most" for one record's report, whatever its size.
SMALL = 40_000
# The most memory the check of a record of some megabytes may take: reading it (a million
# cards take some 190 MB) and checking a bounded part of it.
BOUNDED_MEMORY = 512 * 1024 * 1024


def record() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return data


def write(tmp_path: Path, data: Any, name: str = "record.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- excerpts -------------------------------------------------------------------------


def test_a_long_string_is_quoted_by_its_start_an_ellipsis_and_its_length() -> None:
    assert excerpt("x" * 5_000_000) == '"' + "x" * EXCERPT + '…" (5,000,000 characters)'
    assert excerpt("short") == '"short"'
    assert excerpt("y" * EXCERPT) == '"' + "y" * EXCERPT + '"'


def test_a_long_array_or_object_is_quoted_by_its_start_and_its_size() -> None:
    quoted_array = excerpt(["Ma5"] * 1_000_000)
    assert quoted_array.startswith('["Ma5", "Ma5", ')
    assert quoted_array.endswith("… (1,000,000 items)")
    assert len(quoted_array) < 2 * EXCERPT
    assert excerpt({f"k{i}": i for i in range(1000)}).endswith("… (1,000 keys)")
    assert excerpt(["Mi1", "Ch2"]) == '["Mi1", "Ch2"]'


def test_an_excerpt_of_a_value_nested_without_end_reads_only_its_start() -> None:
    nested: list[Any] = []
    inner = nested
    for _ in range(100_000):  # deeper than any recursion could go
        inner.append([])
        inner = inner[0]
    assert excerpt(nested) == "[" * EXCERPT + "… (1 item)"


def test_names_in_prose_are_cut_the_same_way() -> None:
    assert shortened("Kim") == "Kim"
    assert shortened("z" * 70) == "z" * EXCERPT + "… (70 characters)"
    assert quoted("z" * 70) == "'" + "z" * EXCERPT + "…' (70 characters)"
    assert quoted("K\u200bim") == "'K\\u200bim'"  # the invisible character is shown


# -- one record with a huge value ------------------------------------------------------


def test_a_five_megabyte_event_gives_a_short_report(tmp_path: Path) -> None:
    path = write(tmp_path, {**record(), "event": "x" * 5_000_000})
    for output_format in ("text", "json"):
        result = run("verify", "--format", output_format, str(path))
        assert result.exit_code == 1
        assert len(result.output) < SMALL
        assert "(5,000,000 characters) has more than 200 characters" in result.output
    shown = run("show", "--no-color", str(path))
    assert shown.exit_code == 1
    assert len(shown.output) < SMALL


@pytest.fixture(scope="module", params=["Ma5", "XX"], ids=["valid-cards", "invalid-cards"])
def million_cards(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Measured]]:
    """``verify`` (text and json) on a record whose Phantom is dealt a million cards: a
    card, or a code that is no card."""
    card: str = request.param
    folder = tmp_path_factory.mktemp("million")
    data = record()
    data["rounds"][0]["deal"]["phantom"] = [card] * 1_000_000
    path = write(folder, data)
    return card, {
        output_format: run_measured(
            folder, "verify", "--jobs", "1", "--format", output_format, str(path)
        )
        for output_format in ("text", "json")
    }


def test_an_array_of_a_million_cards_gives_a_short_report(
    million_cards: tuple[str, dict[str, Measured]],
) -> None:
    card, runs = million_cards
    for done in runs.values():
        assert done.returncode == 1, done.stderr
        assert len(done.stdout) < SMALL
        text = done.stdout.decode()
        assert "(1,000,000 items) has more than 24 items" in text
        assert f"only its first {ARRAY_ITEMS_CHECKED} are checked" in text
    # What was checked: the array's length, and of its items the first ones only.
    problems = json.loads(runs["json"].stdout)["problems"]
    assert problems[0]["pointer"] == "/rounds/0/deal/phantom"
    expected = [f"/rounds/0/deal/phantom/{index}" for index in range(ARRAY_ITEMS_CHECKED)]
    assert [problem["pointer"] for problem in problems[1:]] == ([] if card == "Ma5" else expected)


def test_an_array_of_a_million_cards_is_checked_in_bounded_memory(
    million_cards: tuple[str, dict[str, Measured]],
) -> None:
    _card, runs = million_cards
    for output_format, done in runs.items():
        assert done.peak_memory < BOUNDED_MEMORY, (output_format, done.peak_memory)


def test_every_array_of_a_record_is_shorter_than_what_the_schema_check_reads() -> None:
    """Arrays are cut to ARRAY_ITEMS_CHECKED items before the schema check: a longer one
    must still break its maxItems."""

    def limits(node: Any) -> list[int]:
        if isinstance(node, dict):
            own = [node["maxItems"]] if "maxItems" in node else []
            return own + [limit for value in node.values() for limit in limits(value)]
        if isinstance(node, list):
            return [limit for value in node for limit in limits(value)]
        return []

    found = limits(json.loads(schema_text()))
    assert found and max(found) < ARRAY_ITEMS_CHECKED


def test_a_million_tricks_give_a_short_report(tmp_path: Path) -> None:
    data = record()
    data["rounds"][0]["tricks"] = [{"plays": [{"player": "phantom", "card": "Ma1"}]}] * 1_000_000
    result = run("verify", "--jobs", "1", str(write(tmp_path, data)))
    assert result.exit_code == 1
    assert len(result.output) < SMALL
    assert "(1,000,000 items) has more than 10 items" in result.output


def test_a_long_unknown_key_is_quoted_short_and_points_at_its_object(tmp_path: Path) -> None:
    data = record()
    data["players"]["y" * 1_000_000] = 1
    result = run("verify", "--format", "json", str(write(tmp_path, data)))
    assert len(result.output) < SMALL
    (problem,) = json.loads(result.output)["problems"]
    assert problem["message"].startswith('additionalProperties: unknown key "yyy')
    assert "(1,000,000 characters)" in problem["message"]
    assert problem["pointer"] == "/players"


def test_a_long_game_id_names_the_record_by_an_excerpt(tmp_path: Path) -> None:
    path = write(tmp_path, {**record(), "game_id": "g" * 5_000_000, "event": 1, "site": 2})
    text = run("verify", str(path))
    assert len(text.output) < SMALL
    assert "… (5,000,000 characters)" in text.output.splitlines()[0]
    report = json.loads(run("verify", "--format", "json", str(path)).output)
    assert report["game_id"] == "g" * EXCERPT + "… (5,000,000 characters)"


# -- many problems in one record -------------------------------------------------------


def many_problems(count: int) -> dict[str, Any]:
    """A record with ``count`` unknown keys, one schema problem each."""
    return {**record(), **{f"unknown-{index:04}": index for index in range(count)}}


def test_a_text_report_lists_twenty_problems_and_counts_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path, many_problems(30))
    lines = run("verify", "--quiet", str(path)).output.splitlines()
    assert len(lines) == PROBLEMS_LISTED + 1
    assert lines[-1].endswith(
        "record.json#0 (rulebook-walkthrough): and 10 more problems, not listed"
    )
    shown = run("show", "--no-color", str(path)).output.splitlines()
    assert shown[-1].endswith("and 10 more problems, not listed")
    annotated = run("annotate", "--no-color", str(path)).output.splitlines()
    assert annotated[-1].startswith("Legend: ")
    assert annotated[-3].endswith("and 10 more problems, not listed")


def test_the_json_report_lists_every_problem(tmp_path: Path) -> None:
    report = json.loads(
        run("verify", "--format", "json", str(write(tmp_path, many_problems(30)))).output
    )
    assert [problem["pointer"] for problem in report["problems"]] == [
        f"/unknown-{index:04}" for index in range(30)
    ]


def test_the_schema_check_stops_after_a_hundred_errors_and_says_so(tmp_path: Path) -> None:
    problems, _ = check_record(many_problems(100_000))
    assert len(problems) == SCHEMA_ERROR_LIMIT + 1
    assert problems[-1].message == (
        f"too many errors: the schema check stopped after {SCHEMA_ERROR_LIMIT}"
    )
    path = write(tmp_path, many_problems(100_000))
    done = run_measured(tmp_path, "verify", "--jobs", "1", "--format", "json", str(path))
    assert done.returncode == 1, done.stderr
    assert len(done.stdout) < SMALL
    reported = json.loads(done.stdout)["problems"]
    assert len(reported) == SCHEMA_ERROR_LIMIT + 1
    assert reported[-1]["message"] == problems[-1].message
    assert done.peak_memory < BOUNDED_MEMORY


def test_a_tournament_names_five_other_holders_of_a_game_id_and_counts_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("games.jsonl").write_text("\n".join([json.dumps(record())] * 30) + "\n", encoding="utf-8")
    result = run("tournament", "check", "--jobs", "1", "games.jsonl")
    duplicate = [line for line in result.output.splitlines() if "duplicate-game-id" in line]
    assert len(duplicate) == 30
    assert duplicate[0].endswith(
        "held by 30 records: this one and games.jsonl#1, games.jsonl#2, games.jsonl#3, "
        "games.jsonl#4, games.jsonl#5 and 24 more"
    )


def test_a_tournament_report_on_a_huge_record_stays_short(tmp_path: Path) -> None:
    data = {**record(), "event": "x" * 5_000_000}
    data["players"] = {"phantom": "p" * 1_000_000, "christine": "p" * 1_000_000}
    path = write(tmp_path, data)
    for output_format in ("text", "json"):
        result = run("tournament", "check", "--format", output_format, str(path))
        assert result.exit_code == 1
        assert len(result.output) < SMALL
