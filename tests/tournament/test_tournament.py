"""``phantom-log tournament check`` through click's CliRunner: the checks across records,
the manifest, the standings (worked out by hand), the text and JSON reports, the CSV
export, the usage errors, and ``--jobs`` giving the same bytes as one process."""

from __future__ import annotations

import copy
import itertools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

import phantom_log
from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.cli import main
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET
from tests.helpers.cli import run

Record = dict[str, Any]

SIMULATION = Simulation(RULEBOOK_SHEET, Rules(), seed=1)
MANIFEST_FORMAT = "phantom-log-manifest/1"
STANDINGS_COLUMNS = [
    "player",
    "games",
    "wins",
    "losses",
    "wins_as_phantom",
    "wins_as_christine",
    "notes_as_phantom",
]

# The simulated games the events below are made of, and their results as the replay
# finds them (checked by the first test): the standings are worked out from these.
RESULTS = {
    1: ("phantom", 12),
    2: ("phantom", 12),
    3: ("phantom", 12),
    4: ("christine", 7),
    5: ("christine", 4),
    7: ("christine", 4),
    8: ("christine", 10),
    9: ("christine", 2),
    13: ("christine", 8),
}


def game(number: int, game_id: str, phantom: str, christine: str, stage: str | None) -> Record:
    """Simulated game ``number`` of seed 1, renamed: its id, its players, its stage."""
    record = simulate_game(SIMULATION, number)
    record["game_id"] = game_id
    record["players"] = {"phantom": phantom, "christine": christine}
    record["event"] = "Test Open"
    if stage is not None:
        record["stage"] = stage
    return record


def unfinished(record: Record, game_id: str, tricks: int) -> Record:
    """The record cut after ``tricks`` tricks of its last round, without its result:
    the same deals, another content; valid, with an ``unfinished`` warning."""
    cut = copy.deepcopy(record)
    assert tricks < len(cut["rounds"][-1]["tricks"])
    cut["game_id"] = game_id
    cut["rounds"][-1]["tricks"] = cut["rounds"][-1]["tricks"][:tricks]
    del cut["result"]
    return cut


def write_json(path: Path, value: Any) -> str:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path.name


def write_jsonl(path: Path, records: list[Record]) -> str:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path.name


def manifest(*stages: tuple[str, list[dict[str, str]]], **extra: Any) -> dict[str, Any]:
    return {
        "format": MANIFEST_FORMAT,
        **extra,
        "stages": [{"stage": stage, "games": games} for stage, games in stages],
    }


def check(*args: str, stdin: str | None = None) -> Result:
    return run("tournament", "check", *args, stdin=stdin)


def report(*args: str) -> tuple[int, dict[str, Any]]:
    """The exit code and the JSON report of ``tournament check --format json ARGS``."""
    result = check("--format", "json", *args)
    assert result.stdout.count("\n") == 1
    return result.exit_code, json.loads(result.stdout)


def found(document: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [problem for problem in document["problems"] if problem["code"] == code]


def codes_at(document: dict[str, Any], source: str, index: int | None) -> list[str]:
    return [
        problem["code"]
        for problem in document["problems"]
        if (problem["source"], problem["index"]) == (source, index)
    ]


def test_the_games_used_have_the_results_the_standings_are_worked_from() -> None:
    for number, (winner, notes) in RESULTS.items():
        replayed = phantom_log.replay(simulate_game(SIMULATION, number))
        assert replayed.valid
        assert replayed.result is not None
        assert replayed.result.winner is not None
        assert (replayed.result.winner.key, replayed.result.notes) == (winner, notes)


# -- a small event, its standings worked out by hand ------------------------------------

# Four players, every pairing once over three stages. By hand, from RESULTS:
#   t/1  Ada (P) v Ben (C): the Phantom, 12      -> Ada wins as the Phantom, 12 notes
#   t/2  Cyd (P) v Ada (C): Christine, 10 notes   -> Ada wins as Christine; Cyd 10 notes
#   t/3  Ada (P) v Dee (C): Christine, 2 notes    -> Dee wins as Christine; Ada 2 notes
#   t/4  Ben (P) v Cyd (C): Christine, 4 notes    -> Cyd wins as Christine; Ben 4 notes
#   t/5  Dee (P) v Ben (C): Christine, 8 notes    -> Ben wins as Christine; Dee 8 notes
#   t/6  Dee (P) v Cyd (C): the Phantom, 12       -> Dee wins as the Phantom, 12 notes
# Dee and Ada have 2 wins each, Cyd and Ben 1 each; the notes completed as the Phantom
# (Dee 8 + 12 = 20, Ada 12 + 2 = 14; Cyd 10, Ben 4) break both ties, against the
# alphabetical order each time.
EVENT = [
    (1, "t/1", "Ada", "Ben", "1"),
    (8, "t/2", "Cyd", "Ada", "1"),
    (9, "t/3", "Ada", "Dee", "2"),
    (5, "t/4", "Ben", "Cyd", "2"),
    (13, "t/5", "Dee", "Ben", "3"),
    (2, "t/6", "Dee", "Cyd", "3"),
]
EXPECTED_STANDINGS = [
    # player, games, wins, losses, wins_as_phantom, wins_as_christine, notes_as_phantom
    ("Dee", 3, 2, 1, 1, 1, 20),
    ("Ada", 3, 2, 1, 1, 1, 14),
    ("Cyd", 3, 1, 2, 0, 1, 10),
    ("Ben", 3, 1, 2, 0, 1, 4),
]
STANDINGS_LINES = [
    "Standings",
    "#  player  games  wins  losses  wins_as_phantom  wins_as_christine  notes_as_phantom",
    "1  Dee     3      2     1       1                1                  20",
    "2  Ada     3      2     1       1                1                  14",
    "3  Cyd     3      1     2       0                1                  10",
    "4  Ben     3      1     2       0                1                  4",
]


def table(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The standings of a JSON report as rows of values, in STANDINGS_COLUMNS order."""
    return [tuple(row[column] for column in STANDINGS_COLUMNS) for row in document["standings"]]


def event_records() -> list[Record]:
    return [game(*entry) for entry in EVENT]


def event_manifest() -> dict[str, Any]:
    stages: dict[str, list[dict[str, str]]] = {}
    for _, game_id, phantom, christine, stage in EVENT:
        stages.setdefault(stage, []).append(
            {"game_id": game_id, "phantom": phantom, "christine": christine}
        )
    return manifest(*stages.items(), event="Test Open", players=["Ada", "Ben", "Cyd", "Dee"])


def write_event(folder: Path) -> list[str]:
    """The event in two files: stage 1 and 2 as JSON Lines, stage 3 as a JSON array."""
    records = event_records()
    return [
        write_jsonl(folder / "stages-1-2.jsonl", records[:4]),
        write_json(folder / "stage-3.json", records[4:]),
    ]


def test_standings_of_a_small_event_worked_out_by_hand(here: Path) -> None:
    paths = write_event(here)
    code, document = report(*paths)
    assert code == 0
    assert table(document) == EXPECTED_STANDINGS
    assert [list(row) for row in document["standings"]] == [STANDINGS_COLUMNS] * 4


def test_a_clean_event_exits_0_with_no_problem(here: Path) -> None:
    paths = write_event(here)
    write_json(here / "event.manifest.json", event_manifest())
    result = check("--manifest", "event.manifest.json", *paths)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "6 records: 6 valid, 0 invalid; 0 errors, 0 warnings",
        "",
        *STANDINGS_LINES,
    ]
    code, document = report("--manifest", "event.manifest.json", *paths)
    assert code == 0
    assert document["problems"] == []
    assert (document["records"], document["valid"], document["invalid"]) == (6, 6, 0)


def test_standings_leave_out_records_with_errors(here: Path) -> None:
    extra = [
        game(3, "t/1", "Eve", "Fay", "4"),  # t/1 again: duplicate-game-id, no copy counts
        unfinished(game(7, "t/7", "Ben", "Ada", "4"), "t/7", 3),  # unfinished: not counted
        dict(game(6, "t/8", "Ben", "Ada", "4"), result={"winner": "christine", "notes": 12}),
    ]  # t/8 claims the wrong result: invalid, not counted
    paths = [*write_event(here), write_json(here / "extra.json", extra)]
    code, document = report(*paths)
    assert code == 1
    assert codes_at(document, "extra.json", 0) == ["duplicate-game-id"]
    assert codes_at(document, "extra.json", 1) == ["unfinished"]
    assert "winner-mismatch" in codes_at(document, "extra.json", 2)
    # By hand: the event without t/1 (Ada's win as the Phantom over Ben, 12 notes).
    assert table(document) == [
        ("Dee", 3, 2, 1, 1, 1, 20),
        ("Cyd", 3, 1, 2, 0, 1, 10),
        ("Ben", 2, 1, 1, 0, 1, 4),
        ("Ada", 2, 1, 1, 0, 1, 2),
    ]


def test_standings_ties_on_wins_and_notes_are_in_name_order(here: Path) -> None:
    # Two Christine wins with 4 notes each: Cyd and Dee tie with 1 win and no note as the
    # Phantom, Ada and Bea with no win and 4 notes.
    records = [game(5, "t/1", "Bea", "Dee", "1"), game(7, "t/2", "Ada", "Cyd", "1")]
    code, document = report(write_json(here / "ties.json", records))
    assert code == 0
    assert table(document) == [
        ("Cyd", 1, 1, 0, 0, 1, 0),
        ("Dee", 1, 1, 0, 0, 1, 0),
        ("Ada", 1, 0, 1, 0, 0, 4),
        ("Bea", 1, 0, 1, 0, 0, 4),
    ]


# -- the checks across records ------------------------------------------------------


def test_duplicate_game_id_is_an_error_on_every_holder_naming_the_others(here: Path) -> None:
    first = game(1, "t/1", "Ada", "Ben", "1")
    second = game(2, "t/1", "Cyd", "Dee", "1")
    third = game(3, "t/1", "Eve", "Fay", "2")
    other = game(4, "t/2", "Ada", "Cyd", "2")
    paths = [
        write_json(here / "a.json", [first, other, second]),
        write_jsonl(here / "b.jsonl", [third]),
    ]
    code, document = report(*paths)
    assert code == 1
    problems = found(document, "duplicate-game-id")
    assert [(p["source"], p["index"], p["game_id"], p["severity"]) for p in problems] == [
        ("a.json", 0, "t/1", "error"),
        ("a.json", 2, "t/1", "error"),
        ("b.jsonl", 0, "t/1", "error"),
    ]
    messages = [problem["message"] for problem in problems]
    assert messages == [
        "game id 't/1' is held by 3 records: this one and a.json#2 and b.jsonl#0",
        "game id 't/1' is held by 3 records: this one and a.json#0 and b.jsonl#0",
        "game id 't/1' is held by 3 records: this one and a.json#0 and a.json#2",
    ]
    assert codes_at(document, "a.json", 1) == []
    assert (document["valid"], document["invalid"]) == (1, 3)


def test_duplicate_game_id_of_two_records_names_the_other(here: Path) -> None:
    paths = [
        write_json(here / "a.json", game(1, "t/1", "Ada", "Ben", "1")),
        write_json(here / "b.json", game(2, "t/1", "Cyd", "Dee", "1")),
    ]
    result = check(*paths)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "a.json#0 (t/1): duplicate-game-id: game id 't/1' is held by 2 records: this one and "
        "b.json#0",
        "b.json#0 (t/1): duplicate-game-id: game id 't/1' is held by 2 records: this one and "
        "a.json#0",
    ]


def test_duplicate_record_warns_on_later_copies_naming_where_first_seen(here: Path) -> None:
    original = game(1, "t/1", "Ada", "Ben", "1")
    copies = [dict(copy.deepcopy(original), game_id=f"t/1-copy{n}") for n in (1, 2)]
    paths = [
        write_jsonl(here / "a.jsonl", [game(2, "t/0", "Cyd", "Dee", "1"), original]),
        write_json(here / "b.json", copies),
    ]
    code, document = report(*paths)
    assert code == 0
    problems = found(document, "duplicate-record")
    assert [(p["source"], p["index"], p["game_id"], p["severity"]) for p in problems] == [
        ("b.json", 0, "t/1-copy1", "warning"),
        ("b.json", 1, "t/1-copy2", "warning"),
    ]
    for problem in problems:
        assert problem["message"] == "the same record as a.jsonl#1 (t/1), apart from the game id"
    # A copy repeats the deals too, but that is said once, as duplicate-record.
    assert found(document, "duplicate-deal") == []
    assert codes_at(document, "a.jsonl", 1) == []
    assert (document["valid"], document["invalid"]) == (4, 0)


def test_duplicate_deal_warns_on_the_later_game_naming_the_first(here: Path) -> None:
    first = game(1, "t/1", "Ada", "Ben", "1")
    again = unfinished(first, "t/9", 2)
    again["players"] = {"phantom": "Cyd", "christine": "Dee"}
    for data in again["rounds"]:  # the same hands, listed in another order
        for role in ("phantom", "christine"):
            data["deal"][role].reverse()
    paths = [
        write_json(here / "a.json", first),
        write_jsonl(here / "b.jsonl", [game(2, "t/2", "Eve", "Fay", "1"), again]),
    ]
    code, document = report(*paths)
    assert code == 0
    assert codes_at(document, "a.json", 0) == []
    problems = found(document, "duplicate-deal")
    assert [(p["source"], p["index"], p["game_id"], p["severity"]) for p in problems] == [
        ("b.jsonl", 1, "t/9", "warning"),
        ("b.jsonl", 1, "t/9", "warning"),
    ]
    assert [problem["message"] for problem in problems] == [
        f"the deal of round {n} is the deal of round {n} of a.json#0 (t/1): a reused shuffle "
        "or a copied record"
        for n in (1, 2)
    ]
    assert codes_at(document, "b.jsonl", 1) == ["unfinished", "duplicate-deal", "duplicate-deal"]


def test_only_the_rounds_the_replay_dealt_are_compared_as_deals(here: Path) -> None:
    # The second record copies both deals, but its first trick is played by the wrong
    # player: the replay stops in round 1, and the deal of round 2 was never dealt.
    first = game(1, "t/1", "Ada", "Ben", "1")
    broken = copy.deepcopy(first)
    broken["game_id"] = "t/2"
    broken["players"] = {"phantom": "Cyd", "christine": "Dee"}
    play = broken["rounds"][0]["tricks"][0]["plays"][0]
    play["player"] = "christine" if play["player"] == "phantom" else "phantom"
    code, document = report(write_json(here / "a.json", [first, broken]))
    assert code == 1
    problems = found(document, "duplicate-deal")
    assert [(p["index"], p["message"]) for p in problems] == [
        (
            1,
            "the deal of round 1 is the deal of round 1 of a.json#0 (t/1): a reused shuffle "
            "or a copied record",
        )
    ]


def test_the_same_hands_with_the_roles_exchanged_are_another_deal(here: Path) -> None:
    first = game(1, "t/1", "Ada", "Ben", "1")
    other = unfinished(first, "t/2", 0)
    del other["rounds"][1:]
    other["rounds"][0]["tricks"] = []
    deal = other["rounds"][0]["deal"]
    deal["phantom"], deal["christine"] = deal["christine"], deal["phantom"]
    exchange = other["rounds"][0]["exchange"]
    exchange["phantom"], exchange["christine"] = exchange["christine"], exchange["phantom"]
    code, document = report(write_json(here / "a.json", [first, other]))
    assert code == 0
    assert found(document, "duplicate-deal") == []


@pytest.mark.parametrize(
    ("phantom", "christine"),
    [("Kim", "Kim"), ("Ada Lee", "  ada   LEE "), ("ÉLISE", "élise")],
)
def test_same_player_on_both_sides_is_an_error(here: Path, phantom: str, christine: str) -> None:
    records = [game(1, "t/1", "Ada", "Ben", "1"), game(2, "t/2", phantom, christine, "1")]
    code, document = report(write_json(here / "a.json", records))
    assert code == 1
    (problem,) = found(document, "same-player")
    assert (problem["source"], problem["index"], problem["game_id"]) == ("a.json", 1, "t/2")
    assert problem["severity"] == "error"
    assert problem["message"] == f"{phantom!r} plays both the Phantom and Christine"
    assert (document["valid"], document["invalid"]) == (1, 1)


def test_players_with_close_names_are_not_the_same_player(here: Path) -> None:
    records = [game(1, "t/1", "Ada Lee", "Ada Le", "1"), game(2, "t/2", "Kim", "Kimm", "1")]
    code, document = report(write_json(here / "a.json", records))
    assert code == 0
    assert document["problems"] == []


def test_same_player_is_reported_on_a_duplicate_record_copy_too(here: Path) -> None:
    record = game(1, "t/1", "Kim", "kim", "1")
    copied = dict(copy.deepcopy(record), game_id="t/2")
    code, document = report(write_json(here / "a.json", [record, copied]))
    assert code == 1
    assert codes_at(document, "a.json", 0) == ["same-player"]
    assert sorted(codes_at(document, "a.json", 1)) == ["duplicate-record", "same-player"]
    assert document["valid"] == 0


# -- the manifest ---------------------------------------------------------------------


def test_missing_game_is_an_error_of_the_manifest(here: Path) -> None:
    records = [game(1, "t/1", "Ada", "Ben", "1")]
    path = write_json(here / "a.json", records)
    write_json(
        here / "event.manifest.json",
        manifest(
            ("1", [{"game_id": "t/1"}, {"game_id": "t/2", "phantom": "Cyd", "christine": "Dee"}]),
            ("2", [{"phantom": "Ben", "christine": "Ada"}]),
        ),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    assert found(document, "missing-game") == [
        {
            "source": "event.manifest.json",
            "index": None,
            "game_id": "t/2",
            "code": "missing-game",
            "severity": "error",
            "message": "the schedule expects game 't/2' of stage 1, and no record holds it",
        },
        {
            "source": "event.manifest.json",
            "index": None,
            "game_id": None,
            "code": "missing-game",
            "severity": "error",
            "message": "the schedule expects the game of Ben (the Phantom) against Ada "
            "(Christine) of stage 2, and no record holds it",
        },
    ]
    assert len(document["problems"]) == 2
    # The record itself is fine: the problems are the manifest's.
    assert (document["valid"], document["invalid"]) == (1, 0)
    result = check("--manifest", "event.manifest.json", path)
    assert result.stdout.splitlines()[:2] == [
        "event.manifest.json (t/2): missing-game: the schedule expects game 't/2' of stage 1, "
        "and no record holds it",
        "event.manifest.json: missing-game: the schedule expects the game of Ben (the Phantom) "
        "against Ada (Christine) of stage 2, and no record holds it",
    ]


def test_unscheduled_game_is_an_error_on_the_record(here: Path) -> None:
    records = [game(1, "t/1", "Ada", "Ben", "1"), game(2, "t/5", "Cyd", "Dee", "1")]
    path = write_json(here / "a.json", records)
    write_json(here / "event.manifest.json", manifest(("1", [{"game_id": "t/1"}])))
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    assert document["problems"] == [
        {
            "source": "a.json",
            "index": 1,
            "game_id": "t/5",
            "code": "unscheduled-game",
            "severity": "error",
            "message": "the schedule has no such game (the Phantom Cyd, Christine Dee)",
        }
    ]


def test_wrong_players_by_game_id_and_swapped_roles(here: Path) -> None:
    records = [
        game(1, "t/1", "Ada", "Cyd", "1"),  # Cyd instead of Ben
        game(2, "t/2", "Dee", "Cyd", "1"),  # Cyd and Dee, the roles swapped
        game(3, "t/3", "  eve ", "FAY", "1"),  # the right players, written otherwise
    ]
    path = write_json(here / "a.json", records)
    write_json(
        here / "event.manifest.json",
        manifest(
            (
                "1",
                [
                    {"game_id": "t/1", "phantom": "Ada", "christine": "Ben"},
                    {"game_id": "t/2", "phantom": "Cyd", "christine": "Dee"},
                    {"game_id": "t/3", "phantom": "Eve", "christine": "Fay"},
                ],
            )
        ),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    problems = document["problems"]
    assert [(p["source"], p["index"], p["code"], p["severity"]) for p in problems] == [
        ("a.json", 0, "wrong-players", "error"),
        ("a.json", 1, "wrong-players", "error"),
    ]
    assert problems[0]["message"] == (
        "the schedule has Ada as the Phantom against Ben as Christine in game 't/1'; "
        "the record has Ada against Cyd"
    )
    assert problems[1]["message"] == (
        "the schedule has Cyd as the Phantom against Dee as Christine in game 't/2'; "
        "the record has Dee against Cyd (the roles are swapped)"
    )


def test_wrong_players_of_a_record_without_players_names_no_python_none(here: Path) -> None:
    record = game(1, "t/1", "Ada", "Ben", "1")
    del record["players"]  # a schema error of its own
    path = write_json(here / "a.json", record)
    write_json(
        here / "event.manifest.json",
        manifest(("1", [{"game_id": "t/1", "phantom": "Ada", "christine": "Ben"}])),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    assert "schema" in codes_at(document, "a.json", 0)
    for problem in document["problems"]:
        assert "None" not in problem["message"]


def test_wrong_players_by_pairing_when_the_roles_are_swapped(here: Path) -> None:
    records = [game(1, "t/1", "Ben", "Ada", "2")]
    path = write_json(here / "a.json", records)
    write_json(
        here / "event.manifest.json",
        manifest(("2", [{"phantom": "Ada", "christine": "Ben"}])),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    (problem,) = document["problems"]
    assert (problem["source"], problem["index"], problem["code"]) == ("a.json", 0, "wrong-players")
    assert problem["message"] == (
        "the schedule has Ada as the Phantom against Ben as Christine in the game of Ada "
        "(the Phantom) against Ben (Christine); the record has Ben against Ada "
        "(the roles are swapped)"
    )


def test_a_pairing_matches_the_record_with_the_right_roles_and_stage(here: Path) -> None:
    # A rematch with the roles swapped: each scheduled game takes its own record.
    records = [game(1, "t/1", "Ben", "Ada", "2"), game(2, "t/2", "Ada", "Ben", "1")]
    path = write_json(here / "a.json", records)
    write_json(
        here / "event.manifest.json",
        manifest(
            ("1", [{"phantom": "Ada", "christine": "Ben"}]),
            ("2", [{"phantom": "Ben", "christine": "Ada"}]),
        ),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 0
    assert document["problems"] == []


def test_wrong_stage_by_game_id_and_by_pairing(here: Path) -> None:
    records = [
        game(1, "t/1", "Ada", "Ben", "2"),
        game(2, "t/2", "Cyd", "Dee", None),
    ]
    path = write_json(here / "a.json", records)
    write_json(
        here / "event.manifest.json",
        manifest(("1", [{"game_id": "t/1"}, {"phantom": "Cyd", "christine": "Dee"}])),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    problems = document["problems"]
    assert [(p["source"], p["index"], p["code"], p["severity"]) for p in problems] == [
        ("a.json", 0, "wrong-stage", "error"),
        ("a.json", 1, "wrong-stage", "error"),
    ]
    assert problems[0]["message"] == (
        "the schedule puts game 't/1' in stage 1, but the record says stage 2"
    )
    assert problems[1]["message"] == (
        "the schedule puts the game of Cyd (the Phantom) against Dee (Christine) in stage 1, "
        "but the record says no stage"
    )


def test_unknown_player_is_an_error_naming_the_role(here: Path) -> None:
    records = [
        game(1, "t/1", "Zed", "Ben", "1"),
        game(2, "t/2", "ada", "Yan", "1"),
        game(3, "t/3", " BEN  ", "Ada", "1"),  # known, written otherwise
    ]
    path = write_json(here / "a.json", records)
    write_json(
        here / "event.manifest.json",
        manifest(
            ("1", [{"game_id": f"t/{n}"} for n in (1, 2, 3)]),
            players=["Ada", "Ben"],
        ),
    )
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 1
    assert [
        (p["source"], p["index"], p["game_id"], p["code"], p["severity"], p["message"])
        for p in document["problems"]
    ] == [
        ("a.json", 0, "t/1", "unknown-player", "error", "'Zed' (the Phantom) is not a player "
         "of the event"),
        ("a.json", 1, "t/2", "unknown-player", "error", "'Yan' (Christine) is not a player of "
         "the event"),
    ]  # fmt: skip


def test_without_a_player_list_no_player_is_unknown(here: Path) -> None:
    path = write_json(here / "a.json", [game(1, "t/1", "Zed", "Yan", "1")])
    write_json(here / "event.manifest.json", manifest(("1", [{"game_id": "t/1"}])))
    code, document = report("--manifest", "event.manifest.json", path)
    assert code == 0
    assert document["problems"] == []


# -- the reports ----------------------------------------------------------------------


def text_event(folder: Path) -> list[str]:
    """An event with a problem of a record (a warning with its hint), one across records
    and one of the manifest."""
    ada_ben = game(1, "t/1", "Ada", "Ben", "1")
    cyd_dee = game(8, "t/2", "Cyd", "Dee", "1")
    rematch = unfinished(game(9, "t/3", "Ben", "Ada", "2"), "t/3", 2)
    copied = dict(copy.deepcopy(cyd_dee), game_id="t/2b")
    write_json(
        folder / "event.manifest.json",
        manifest(
            ("1", [{"game_id": "t/1"}, {"game_id": "t/2"}, {"game_id": "t/2b"}]),
            ("2", [{"game_id": "t/3"}, {"phantom": "Dee", "christine": "Cyd"}]),
        ),
    )
    return [
        write_json(folder / "stage-1.json", [ada_ben, cyd_dee, copied]),
        write_jsonl(folder / "stage-2.jsonl", [rematch]),
    ]


def test_text_output_problems_summary_and_standings(here: Path) -> None:
    paths = text_event(here)
    result = check("--manifest", "event.manifest.json", *paths)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "stage-2.jsonl#0 (t/3): round 2, trick 2: warning: unfinished: the record stops at "
        "round 2, trick 2 with 4 notes completed; the game is not over, so it has no winner",
        "    hint: A finished game ends when the Phantom completes the 12th note or when "
        "round 2's 10th trick is played.",
        "stage-1.json#2 (t/2b): warning: duplicate-record: the same record as stage-1.json#1 "
        "(t/2), apart from the game id",
        "event.manifest.json: missing-game: the schedule expects the game of Dee (the Phantom) "
        "against Cyd (Christine) of stage 2, and no record holds it",
        "4 records: 4 valid, 0 invalid; 1 error, 2 warnings",
        "",
        "Standings",
        "#  player  games  wins  losses  wins_as_phantom  wins_as_christine  notes_as_phantom",
        "1  Ada     1      1     0       1                0                  12",
        "2  Dee     1      1     0       0                1                  0",
        "3  Cyd     1      0     1       0                0                  10",
        "4  Ben     1      0     1       0                0                  0",
    ]
    assert result.stderr == ""


def test_text_output_without_standings_when_no_game_is_finished(here: Path) -> None:
    record = unfinished(game(1, "t/1", "Ada", "Ben", "1"), "t/1", 0)
    result = check("--quiet", write_json(here / "a.json", record))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "1 record: 1 valid, 0 invalid; 0 errors, 1 warning"
    assert "Standings" not in result.stdout
    _, document = report(write_json(here / "a.json", record))
    assert document["standings"] == []


def test_json_report_shape(here: Path) -> None:
    paths = text_event(here)
    code, document = report("--manifest", "event.manifest.json", *paths)
    assert code == 1
    assert list(document) == ["records", "valid", "invalid", "problems", "standings"]
    assert (document["records"], document["valid"], document["invalid"]) == (4, 4, 0)
    for problem in document["problems"]:
        assert list(problem) == ["source", "index", "game_id", "code", "severity", "message"]
        assert problem["severity"] in ("error", "warning")
        assert isinstance(problem["message"], str) and problem["message"]
    # The records' own problems first, in input order, then those across records and
    # against the manifest.
    assert [(p["source"], p["index"], p["game_id"], p["code"]) for p in document["problems"]] == [
        ("stage-2.jsonl", 0, "t/3", "unfinished"),
        ("stage-1.json", 2, "t/2b", "duplicate-record"),
        ("event.manifest.json", None, None, "missing-game"),
    ]
    # The copy t/2b (duplicate-record) is left out of the standings.
    assert document["standings"] == [
        {
            "player": "Ada",
            "games": 1,
            "wins": 1,
            "losses": 0,
            "wins_as_phantom": 1,
            "wins_as_christine": 0,
            "notes_as_phantom": 12,
        },
        {
            "player": "Dee",
            "games": 1,
            "wins": 1,
            "losses": 0,
            "wins_as_phantom": 0,
            "wins_as_christine": 1,
            "notes_as_phantom": 0,
        },
        {
            "player": "Cyd",
            "games": 1,
            "wins": 0,
            "losses": 1,
            "wins_as_phantom": 0,
            "wins_as_christine": 0,
            "notes_as_phantom": 10,
        },
        {
            "player": "Ben",
            "games": 1,
            "wins": 0,
            "losses": 1,
            "wins_as_phantom": 0,
            "wins_as_christine": 0,
            "notes_as_phantom": 0,
        },
    ]


def test_a_record_error_is_reported_and_exits_1(here: Path) -> None:
    record = game(1, "t/1", "Ada", "Ben", "1")
    record["result"] = {"winner": "phantom", "notes": 11}
    code, document = report(write_json(here / "a.json", record))
    assert code == 1
    assert [(p["code"], p["severity"]) for p in document["problems"]] == [
        ("notes-mismatch", "error")
    ]
    assert (document["valid"], document["invalid"], document["standings"]) == (0, 1, [])


def test_strict_makes_an_unfinished_record_an_error(here: Path) -> None:
    path = write_json(here / "a.json", unfinished(game(1, "t/1", "Ada", "Ben", "1"), "t/1", 3))
    code, document = report(path)
    assert code == 0
    assert [(p["code"], p["severity"]) for p in document["problems"]] == [("unfinished", "warning")]
    code, document = report("--strict", path)
    assert code == 1
    assert [(p["code"], p["severity"]) for p in document["problems"]] == [("unfinished", "error")]
    assert document["invalid"] == 1


def test_records_from_standard_input(here: Path) -> None:
    records = event_records()
    text = "".join(json.dumps(record) + "\n" for record in records)
    result = check("--format", "json", "-", stdin=text)
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["records"] == 6
    assert [row["player"] for row in document["standings"]] == ["Dee", "Ada", "Cyd", "Ben"]


# -- the standings as CSV -------------------------------------------------------------

EXPECTED_CSV = (
    "player,games,wins,losses,wins_as_phantom,wins_as_christine,notes_as_phantom\n"
    "Dee,3,2,1,1,1,20\n"
    "Ada,3,2,1,1,1,14\n"
    "Cyd,3,1,2,0,1,10\n"
    "Ben,3,1,2,0,1,4\n"
)


def test_standings_csv_is_written_atomically(here: Path) -> None:
    paths = write_event(here)
    before = set(here.iterdir())
    result = check("-o", "standings.csv", *paths)
    assert result.exit_code == 0
    assert (here / "standings.csv").read_text(encoding="utf-8") == EXPECTED_CSV
    # The standings are the output; the summary goes to standard error with the note.
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "6 records: 6 valid, 0 invalid; 0 errors, 0 warnings",
        "wrote standings.csv",
    ]
    text = check(*paths)
    assert text.stdout.splitlines()[-5:] == STANDINGS_LINES[1:]
    # Nothing else is left in the folder: no temporary file.
    assert set(here.iterdir()) == before | {here / "standings.csv"}
    assert not any(path.name.startswith(".") for path in here.iterdir())


def test_standings_csv_is_not_overwritten_without_force(here: Path) -> None:
    paths = write_event(here)
    (here / "standings.csv").write_text("keep me\n", encoding="utf-8")
    before = set(here.iterdir())
    result = check("-o", "standings.csv", *paths)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "standings.csv exists; use --force to overwrite it" in result.stderr
    assert (here / "standings.csv").read_text(encoding="utf-8") == "keep me\n"
    result = check("-o", "standings.csv", "--force", "--quiet", *paths)
    assert result.exit_code == 0
    assert (here / "standings.csv").read_text(encoding="utf-8") == EXPECTED_CSV
    assert result.stderr == ""
    assert set(here.iterdir()) == before


def test_standings_csv_is_written_even_when_the_event_has_errors(here: Path) -> None:
    paths = write_event(here)
    write_json(here / "extra.json", game(3, "t/9", "Eve", "eve ", "4"))  # same-player
    result = check("-o", "standings.csv", "--quiet", *paths, "extra.json")
    assert result.exit_code == 1
    lines = (here / "standings.csv").read_text(encoding="utf-8").splitlines()
    assert lines == EXPECTED_CSV.splitlines()


@pytest.mark.parametrize(
    ("name", "start"),
    [("standings.txt", "6 records"), ("standings", "6 records"), ("standings.json", "{")],
)
def test_the_output_file_takes_the_format_of_its_extension(
    here: Path, name: str, start: str
) -> None:
    """-o FILE is the command's output, in the format its extension names (text without
    one); only .csv writes the standings alone."""
    paths = write_event(here)
    printed = check(*paths, "--format", "json" if start == "{" else "text")
    result = check("-o", name, *paths)
    assert result.exit_code == 0
    written = (here / name).read_text(encoding="utf-8")
    assert written == printed.stdout
    assert written.lstrip().startswith(start) or start in written


def test_an_output_of_another_format_is_refused(here: Path) -> None:
    paths = write_event(here)
    result = check("-o", "standings.svg", *paths)
    assert result.exit_code == 2
    assert "-o standings.svg: a .svg file is SVG" in result.stderr
    assert not (here / "standings.svg").exists()


# -- usage errors ---------------------------------------------------------------------

BAD_MANIFESTS = [
    pytest.param(b'{"format": "phantom-log-manifest/1", "stages": [', "json: ", id="bad-json"),
    pytest.param(b"", "json: ", id="empty-file"),
    pytest.param(
        b'{"format": "phantom-log-manifest/1", "stages": [], "stages": []}',
        "json: ",
        id="duplicate-key",
    ),
    pytest.param(
        json.dumps({"format": "phantom-log-manifest/2", "stages": [{"stage": "1", "games": []}]}),
        "/format: schema: const",
        id="wrong-format",
    ),
    pytest.param(
        json.dumps({"format": MANIFEST_FORMAT, "stages": []}),
        "/stages: schema: minItems",
        id="no-stage",
    ),
    pytest.param(
        json.dumps({"format": MANIFEST_FORMAT, "stages": [{"stage": "1", "games": []}], "s": 1}),
        "/s: schema: additionalProperties",
        id="unknown-key",
    ),
    pytest.param(
        json.dumps(
            {"format": MANIFEST_FORMAT, "stages": [{"stage": "1", "games": [{"game_id": ""}]}]}
        ),
        "/stages/0/games/0/game_id: schema: minLength",
        id="empty-game-id",
    ),
    pytest.param(
        json.dumps({"format": MANIFEST_FORMAT, "stages": [{"games": []}]}),
        "/stages/0: schema: required",
        id="stage-without-name",
    ),
    pytest.param(
        json.dumps(
            {"format": MANIFEST_FORMAT, "players": "Ada", "stages": [{"stage": "1", "games": []}]}
        ),
        "/players: schema: type",
        id="players-not-a-list",
    ),
    pytest.param(
        json.dumps([{"format": MANIFEST_FORMAT}]),
        "/: schema: type",
        id="not-an-object",
    ),
    pytest.param(
        json.dumps(
            {"format": MANIFEST_FORMAT, "stages": [{"stage": "3", "games": [{"phantom": "Ada"}]}]}
        ),
        "a game of stage 3 has neither a game_id nor both players",
        id="game-without-id-or-players",
    ),
    pytest.param(
        json.dumps({"format": MANIFEST_FORMAT, "stages": [{"stage": "3", "games": [{}]}]}),
        "a game of stage 3 has neither a game_id nor both players",
        id="empty-game",
    ),
    pytest.param(
        json.dumps(
            manifest(
                ("1", [{"game_id": "t/1"}, {"game_id": "t/2"}]),
                ("2", [{"game_id": "t/1"}]),
            )
        ),
        "the schedule lists game ids more than once: t/1",
        id="duplicate-ids",
    ),
]


@pytest.mark.parametrize(("content", "message"), BAD_MANIFESTS)
def test_a_bad_manifest_is_a_usage_error(here: Path, content: str | bytes, message: str) -> None:
    paths = write_event(here)
    data = content.encode() if isinstance(content, str) else content
    (here / "bad.manifest.json").write_bytes(data)
    result = check("--manifest", "bad.manifest.json", *paths)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("phantom-log: error: --manifest bad.manifest.json: ")
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_an_unknown_manifest_path_is_a_usage_error(here: Path) -> None:
    paths = write_event(here)
    result = check("--manifest", "nowhere.manifest.json", *paths)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "phantom-log: error: --manifest nowhere.manifest.json: No such file or directory\n"
    )


def test_a_manifest_with_x_keys_and_no_players_is_accepted(here: Path) -> None:
    paths = write_event(here)
    document = event_manifest()
    del document["players"]
    document["x-note"] = {"anything": [1, 2]}
    document["stages"][0]["x-room"] = "Hall A"
    document["stages"][0]["games"][0]["x-table"] = 3
    write_json(here / "event.manifest.json", document)
    result = check("--manifest", "event.manifest.json", *paths)
    assert result.exit_code == 0


def test_a_missing_path_is_a_usage_error(here: Path) -> None:
    paths = write_event(here)
    result = check(*paths, "nowhere.json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "phantom-log: error: nowhere.json: no such file or directory\n"


def test_paths_without_records_are_a_usage_error(here: Path) -> None:
    (here / "empty").mkdir()
    result = check("empty")
    assert result.exit_code == 2
    assert result.stderr == "phantom-log: error: the paths given hold no records\n"


def test_help_lists_the_exit_codes() -> None:
    result = run("tournament", "check", "--help")
    assert result.exit_code == 0
    for text in ["--manifest FILE", "--jobs", "0  no error", "1  at least one error", "2  a usage"]:
        assert text in result.stdout


# -- --jobs: the same bytes on one core or several -------------------------------------


@pytest.fixture(scope="module")
def big_event(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """A few hundred simulated games over several files, JSON Lines and JSON arrays, with
    problems of records (an unreadable line, a wrong claim, unfinished records) and
    across records (a game id twice, a copy, a reused deal)."""
    folder = tmp_path_factory.mktemp("big-event")
    simulations = [
        Simulation(RULEBOOK_SHEET, Rules(), seed=11),
        Simulation(RULEBOOK_SHEET, Rules(beginner=True, balance=True), "greedy", "random", 12),
    ]
    records = [
        simulate_game(simulation, number) for simulation in simulations for number in range(1, 161)
    ]
    for index, record in enumerate(records):
        record["stage"] = str(index % 5 + 1)
    records[7]["result"]["notes"] -= 1  # wrong claims
    records[8]["result"]["winner"] = (
        "phantom" if records[8]["result"]["winner"] == "christine" else "christine"
    )
    records[40] = unfinished(records[40], records[40]["game_id"], 4)
    records[90]["game_id"] = records[10]["game_id"]  # a game id twice
    records[150] = dict(copy.deepcopy(records[20]), game_id="copy-of-20")
    records[200] = unfinished(records[30], "deal-of-30", 1)
    records[250]["players"] = {"phantom": "Kim", "christine": "KIM"}
    paths = []
    for part in range(4):  # four JSON Lines files of 50 records
        lines = [json.dumps(record) + "\n" for record in records[part * 50 : part * 50 + 50]]
        if part == 1:
            lines.insert(17, '{"format": "phantom-log/1", "game_id": \n')
        path = folder / f"part-{part}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(str(path))
    for part in range(4):  # four JSON arrays of 30 records
        start = 200 + part * 30
        path = folder / f"part-{part + 4}.json"
        path.write_text(json.dumps(records[start : start + 30]), encoding="utf-8")
        paths.append(str(path))
    yield paths


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "check", "--format", "json"],
        ["tournament", "check", "--quiet"],
        ["verify", "--format", "json"],
        ["verify"],
    ],
    ids=" ".join,
)
def test_jobs_2_prints_the_same_bytes_as_jobs_1(big_event: list[str], command: list[str]) -> None:
    one = CliRunner().invoke(main, [*command, "--jobs", "1", *big_event])
    two = CliRunner().invoke(main, [*command, "--jobs", "2", *big_event])
    assert one.exception is None or isinstance(one.exception, SystemExit)
    assert one.exit_code == two.exit_code == 1
    assert one.stdout_bytes == two.stdout_bytes
    assert len(one.stdout_bytes) > 1000


def test_the_big_event_has_problems_of_every_kind(big_event: list[str]) -> None:
    code, document = report("--jobs", "2", *big_event)
    assert code == 1
    assert document["records"] == 321
    codes = {problem["code"] for problem in document["problems"]}
    assert codes == {
        "json",
        "winner-mismatch",
        "notes-mismatch",
        "unfinished",
        "duplicate-game-id",
        "duplicate-record",
        "duplicate-deal",
        "same-player",
    }
    # Input order: every file in turn, each record in its place (part-1.jsonl has 51,
    # with its unreadable line).
    result = CliRunner().invoke(main, ["verify", "--format", "json", "--jobs", "2", *big_event])
    places = [
        (entry["source"], entry["index"]) for entry in map(json.loads, result.stdout.splitlines())
    ]
    sizes = [50, 51, 50, 50, 30, 30, 30, 30]
    assert places == [
        (path, index) for path, size in zip(big_event, sizes, strict=True) for index in range(size)
    ]


# -- the compact table of facts ------------------------------------------------------------


def test_the_facts_table_gives_back_every_fact_as_it_was_added() -> None:
    """The checks across records read a compact table (:class:`FactsTable`) instead of a
    list of facts: each record's facts come back from it unchanged, whatever they hold
    (absent names and ids, lone surrogates, no content, zero, one or two deals)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from phantom_log.records.chunks import TextFile
    from phantom_log.tournament.facts import FactsTable, RecordFacts

    texts = st.none() | st.text(st.characters(exclude_categories=()), max_size=12)
    digests = st.binary(min_size=16, max_size=16)
    files = [TextFile("/event/a.jsonl", 1, 2, 300, 4), TextFile("/event/b.json", 1, 3, 5, 6)]
    facts = st.builds(
        RecordFacts,
        source=st.sampled_from(["a.jsonl", "b.json", "-"]),
        index=st.integers(0, 2**40),
        game_id=texts,
        valid=st.booleans(),
        phantom=texts,
        christine=texts,
        stage=st.none() | st.sampled_from(["final", "round 1"]),
        content=st.none() | digests,
        deals=st.lists(st.integers(1, 2**48 - 1), max_size=2).map(tuple),
        winner=st.sampled_from([None, "phantom", "christine"]),
        notes=st.none() | st.integers(0, 12),
        finished=st.booleans(),
        text_file=st.none() | st.sampled_from(files),
        text_offset=st.integers(0, 2**40),
        text_length=st.integers(0, 2**32),
    )

    @settings(max_examples=200, deadline=None)
    @given(st.lists(facts, max_size=8), st.lists(st.integers(0, 8), max_size=4))
    def agree(items: list[RecordFacts], cuts: list[int]) -> None:
        table = FactsTable(items)
        assert len(table) == len(items)
        assert list(table) == items
        assert table[:] == items
        # Joined from the tables of parts (as worker processes make them): the same
        # records, and the same columns the checks across records read.
        joined = FactsTable()
        bounds = [0, *sorted(min(cut, len(items)) for cut in cuts), len(items)]
        for start, end in itertools.pairwise(bounds):
            joined.extend(FactsTable(items[start:end]))
        assert list(joined) == items
        assert joined.game_key_hashes == table.game_key_hashes
        assert joined.sources == table.sources and joined.source_ids == table.source_ids
        assert joined.text_files == table.text_files
        assert joined.text_file_ids == table.text_file_ids
        # A digest made afterwards (copies.py) is held as if it had been given.
        for position, item in enumerate(items):
            if item.content is None:
                joined.set_content(position, bytes(range(position, position + 16)))
        assert [item.content for item in joined] == [
            item.content or bytes(range(position, position + 16))
            for position, item in enumerate(items)
        ]

    agree()


def test_the_checks_across_records_are_the_same_on_a_table_and_on_a_list(here: Path) -> None:
    from phantom_log.tournament.cross_checks import cross_record_problems
    from phantom_log.tournament.facts import FactsTable, record_facts
    from phantom_log.tournament.standings import standings

    folder = here / "event"
    folder.mkdir()
    first = game(1, "game-1", "Kim", "Lee", None)
    twin = copy.deepcopy(first)
    twin["game_id"] = "game-2"
    same = game(3, "game-3", "Kim", "Kim", "final")
    (folder / "a.json").write_text(json.dumps([first, twin, same, first]))
    facts = [record_facts(report) for report in phantom_log.verify(folder)]
    table = FactsTable(facts)
    problems = cross_record_problems(facts)
    assert {problem.code for problem in problems} >= {
        "duplicate-game-id",
        "duplicate-record",
        "same-player",
    }
    assert cross_record_problems(table) == problems
    assert standings(table) == standings(facts)


def test_one_player_by_the_key_of_their_name_however_written(here: Path) -> None:
    """The standings and the same-player check compare the digests of the players' keys
    (made in the workers): a name written in several ways is one player, named as in
    their first game; names with other keys are other players."""
    from phantom_log.tournament.cross_checks import cross_record_problems
    from phantom_log.tournament.facts import FactsTable, record_facts
    from phantom_log.tournament.standings import standings

    folder = here / "event"
    folder.mkdir()
    records = [
        game(1, "game-1", "Kim", "Lee", None),
        game(2, "game-2", "lee", " KIM ", None),
        game(3, "game-3", "Ana", "Kim", None),
        game(4, "game-4", "Kim", "kim", None),
        game(5, "game-5", "Bo", "Ana", None),
        game(6, "game-6", "Kim", "Kimm", None),
    ]
    (folder / "a.json").write_text(json.dumps(records))
    table = FactsTable(record_facts(report) for report in phantom_log.verify(folder))
    rows = {row.player: row for row in standings(table)}
    assert sorted(rows) == ["Ana", "Bo", "Kim", "Kimm", "Lee"]
    assert [rows[name].games for name in ("Ana", "Bo", "Kim", "Kimm", "Lee")] == [2, 1, 6, 1, 2]
    same = [p.game_id for p in cross_record_problems(table) if p.code == "same-player"]
    assert same == ["game-4"]


def test_two_names_have_the_same_digest_exactly_when_they_have_the_same_key() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from phantom_log.records.identity import person_key
    from phantom_log.tournament.facts import _person_digest

    letters = st.text(st.sampled_from("aAéÉe\u0301 \u200bKk\u212a"), max_size=5)

    @settings(max_examples=300, deadline=None)
    @given(letters, letters)
    def agree(first: str, second: str) -> None:
        same_key = person_key(first) == person_key(second)
        assert (_person_digest(first) == _person_digest(second)) == same_key

    agree()


@pytest.mark.parametrize("at_once", [1, 2, 4096])
def test_the_json_report_is_written_as_it_is_built(
    here: Path, monkeypatch: pytest.MonkeyPatch, at_once: int
) -> None:
    """``write_json`` streams the very text of ``to_json`` (``at_once`` problems and
    players at a time), whatever the problems and the standings hold."""
    import io

    from phantom_log.tournament import report as tournament
    from phantom_log.tournament.facts import FactsTable, record_facts
    from phantom_log.tournament.report import tournament_report

    monkeypatch.setattr(tournament, "_ITEMS_WRITTEN_AT_ONCE", at_once)

    folder = here / "event"
    folder.mkdir()
    first = game(1, "g-1", "Kim", "Lee", None)
    twin = copy.deepcopy(first)
    twin["game_id"] = "g-2"
    records = [
        first,
        twin,
        game(3, "g-3", "Kim", "Kim", "final"),
        game(4, "g-1", "Ann", "Bo", None),
        game(5, "g-5", "Cy", "Di", None),
    ]
    (folder / "a.json").write_text(json.dumps(records))
    reports = phantom_log.verify(folder)
    report = tournament_report(FactsTable(record_facts(item) for item in reports), [], None)
    assert report.problems and report.standings
    stream = io.StringIO()
    report.write_json(stream)
    assert len(report.problems) > 2 and len(report.standings) >= 2
    assert (
        stream.getvalue()
        == json.dumps(report.to_json(), separators=(",", ":"), ensure_ascii=False) + "\n"
    )


def test_standings_are_a_sequence_of_rows_made_when_read() -> None:
    """The standings hold a column per count, not a row object per player: read, they
    are rows in order (by index from either end, by slice, in a loop) equal to the rows
    they stand for, and a player is named as in their first game."""
    from phantom_log.tournament.facts import RecordFacts
    from phantom_log.tournament.standings import StandingsRow, standings

    def facts(index: int, phantom: str, christine: str, winner: str, notes: int) -> RecordFacts:
        return RecordFacts(
            "event.jsonl", index, f"g{index}", True, phantom, christine, None, None, (),
            winner, notes, True,
        )  # fmt: skip

    table = standings(
        [
            facts(0, "ada", "Bea", "phantom", 12),
            facts(1, "Bea", "ADA", "christine", 5),
            facts(2, "Cyd", "Dee", "christine", 7),
        ]
    )

    def row(player: str, *counts: int) -> StandingsRow:
        made = StandingsRow(player)
        for column, value in zip(
            phantom_log.tournament.standings.STANDINGS_COLUMNS[1:], counts, strict=True
        ):
            setattr(made, column, value)
        return made

    expected = [
        row("ada", 2, 2, 0, 1, 1, 12),
        row("Dee", 1, 1, 0, 0, 1, 0),
        row("Cyd", 1, 0, 1, 0, 0, 7),
        row("Bea", 2, 0, 2, 0, 0, 5),
    ]
    assert len(table) == 4
    assert table == expected
    assert list(table) == expected
    assert table[-1] == expected[-1]
    assert table[1:3] == expected[1:3]
    assert dict(table[0]) == {
        "player": "ada",
        "games": 2,
        "wins": 2,
        "losses": 0,
        "wins_as_phantom": 1,
        "wins_as_christine": 1,
        "notes_as_phantom": 12,
    }
    with pytest.raises(IndexError):
        table[4]


@given(
    keys=st.lists(st.integers(min_value=-(2**63), max_value=2**64 - 1), max_size=60),
    present=st.lists(st.booleans(), min_size=60, max_size=60),
    every=st.sampled_from([1, 2]),
)
def test_repeated_keys_are_those_held_by_two_present_positions(
    keys: list[int], present: list[bool], every: int
) -> None:
    """The candidates for repeated ids, contents and deals, found a part of the keys at a
    time: exactly the present positions whose key another present position holds."""
    from collections import Counter

    from phantom_log.tournament.columns import repeated

    positions = range(len(keys) // every)
    held = Counter(keys[position * every] for position in positions if present[position])
    expected = {
        position for position in positions if present[position] and held[keys[position * every]] > 1
    }
    assert repeated(keys, present, every) == expected
    everywhere = Counter(keys[position * every] for position in positions)
    assert repeated(keys, None, every) == {
        position for position in positions if everywhere[keys[position * every]] > 1
    }


def test_game_id_hashes_are_the_same_in_every_process() -> None:
    """Workers make the facts tables of their chunks and the main process joins them: the
    hashes of the game ids must not depend on the process's hash seed."""
    import subprocess
    import sys

    script = (
        "from phantom_log.tournament.facts import FactsTable, RecordFacts\n"
        "facts = RecordFacts('a', 0, 'Game\\u00e9 1', True, None, None, None, None, (),"
        " None, None, False)\n"
        "print(FactsTable([facts]).game_key_hashes[0])\n"
    )
    hashes = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "random")
    }
    from phantom_log.tournament.facts import FactsTable, RecordFacts

    facts = RecordFacts("a", 0, "Game\u00e9 1", True, None, None, None, None, (), None, None, False)
    # One hash whatever the seed, and the one this process (with its own seed) gives.
    assert hashes == {f"{FactsTable([facts]).game_key_hashes[0]}\n"}
