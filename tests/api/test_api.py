"""The Python API as an analyst uses it: load, verify, positions, tables."""

from __future__ import annotations

import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import polars as pl
import pytest
from click.testing import CliRunner

import phantom_log
from phantom_log import Card, IllegalMove, InvalidRecord, Position, PositionNotReached, Role, Suit
from phantom_log.cli import main
from phantom_log.rules.engine import PlayCard
from phantom_log.rules.problems import Code
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples"
WALKTHROUGH = EXAMPLES / "rulebook-walkthrough.json"
REVOKE = EXAMPLES / "invalid" / "revoke.json"


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A JSON Lines file: a good record, a line that is not JSON, a record that breaks
    the schema, and the good record again."""
    good = json.dumps(json.loads(WALKTHROUGH.read_text()))
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good, "{not json", '{"format": "phantom-log/1"}', good]) + "\n")
    return path


# -- load ------------------------------------------------------------------------------------


def test_load_is_a_stream() -> None:
    records = phantom_log.load(EXAMPLES)
    assert iter(records) is records
    assert next(records).game_id


def test_load_raises_at_the_first_bad_record_after_the_good_ones(mixed: Path) -> None:
    records = phantom_log.load(mixed)
    assert next(records).game_id == "rulebook-walkthrough"
    with pytest.raises(InvalidRecord) as raised:
        next(records)
    assert (raised.value.source, raised.value.index) == (str(mixed), 1)


def test_load_collect_yields_each_bad_record_in_its_place(mixed: Path) -> None:
    items = list(phantom_log.load(mixed, errors="collect"))
    assert [type(item).__name__ for item in items] == [
        "GameRecord",
        "InvalidRecord",
        "InvalidRecord",
        "GameRecord",
    ]
    bad = items[2]
    assert isinstance(bad, InvalidRecord) and bad.index == 2
    assert [(problem.code, problem.message) for problem in bad.problems] == [
        (Code.SCHEMA, f"required: the key '{key}' is missing")
        for key in ("game_id", "players", "sheet", "rounds")
    ]


def test_load_skip_leaves_the_bad_records_out(mixed: Path) -> None:
    assert [record.game_id for record in phantom_log.load(mixed, errors="skip")] == [
        "rulebook-walkthrough"
    ] * 2


def test_load_reads_several_paths_and_stdin(mixed: Path) -> None:
    stdin = io.BytesIO(WALKTHROUGH.read_bytes())
    records = list(phantom_log.load([mixed, "-", WALKTHROUGH], errors="skip", stdin=stdin))
    # The two good records of mixed.jsonl, then standard input, then the file.
    assert [record.game_id for record in records] == ["rulebook-walkthrough"] * 4
    assert records[2] == records[3] == next(phantom_log.load(WALKTHROUGH))


def test_load_refuses_an_unknown_error_mode() -> None:
    with pytest.raises(ValueError, match="errors="):
        list(phantom_log.load(WALKTHROUGH, errors="ignore"))  # type: ignore[call-overload]


def test_load_of_a_missing_path_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        list(phantom_log.load(tmp_path / "nothing.json", errors="skip"))


# -- verify ----------------------------------------------------------------------------------


def test_verify_takes_several_paths() -> None:
    reports = list(phantom_log.verify(WALKTHROUGH, REVOKE))
    assert [(report.game_id, report.valid) for report in reports] == [
        ("rulebook-walkthrough", True),
        ("invalid/revoke", False),
    ]


def test_verify_on_worker_processes_gives_the_same_reports() -> None:
    one = [report.to_json() for report in phantom_log.verify(EXAMPLES, WALKTHROUGH)]
    two = [report.to_json() for report in phantom_log.verify(EXAMPLES, WALKTHROUGH, jobs=2)]
    assert one == two and len(one) > 10


# -- enums that print their names ----------------------------------------------------------


def test_roles_suits_and_cards_print_as_records_write_them() -> None:
    assert str(Role.PHANTOM) == "phantom" and f"{Role.CHRISTINE}" == "christine"
    assert str(Suit.RING) == "Ri"
    assert str(Card.Ma5) == "Ma5" and repr(Card.Ma5) == "Card.Ma5"
    assert Card.parse("Ma5") is Card.Ma5 and Card.Ma5.suit is Suit.MASK
    assert Card.Ma5.number == 5


def test_the_winner_prints_a_name() -> None:
    (record,) = phantom_log.load(WALKTHROUGH)
    game = phantom_log.replay(record)
    assert game.result is not None and str(game.result.winner) == "christine"


def test_replay_rounds_show_hands_as_cards() -> None:
    (record,) = phantom_log.load(WALKTHROUGH)
    opening = phantom_log.replay(record).rounds[0]
    assert opening.leader is Role.PHANTOM
    assert all(isinstance(card, Card) for card in opening.hands.phantom + opening.hands.christine)
    assert len(opening.hands.phantom) == len(opening.hands.christine) == 10


# -- positions -------------------------------------------------------------------------------


def walkthrough_position(round_no: int, trick: int) -> Position:
    (record,) = phantom_log.load(WALKTHROUGH)
    return phantom_log.position(record, round_no, trick)


def test_a_position_holds_the_hands_notes_super_trump_and_turn() -> None:
    position = walkthrough_position(2, 4)
    assert (position.round, position.trick, position.phase) == (2, 4, "play")
    assert position.notes == 7 and position.super_trump is Suit.RING
    assert position.turn is Role.PHANTOM and position.lead is None
    assert position.hands.phantom == (
        Card.Ch3,
        Card.Ch4,
        Card.Ch6,
        Card.Ri4,
        Card.Ma2,
        Card.Ma3,
        Card.Ma6,
    )


def test_the_follower_must_follow_the_lead_suit() -> None:
    position = walkthrough_position(2, 4).play("Ri4")
    assert position.turn is Role.CHRISTINE and position.lead is Card.Ri4
    assert position.legal_cards() == (Card.Ri1, Card.Ri5, Card.Ri6)


def test_play_is_the_engine_step() -> None:
    position = walkthrough_position(2, 4)
    after = position.play(Card.Ri4).play(Card.Ri1)
    engine = position.state.apply(PlayCard(Role.PHANTOM, Card.Ri4))
    assert not isinstance(engine, phantom_log.rules.problems.Illegal)
    engine = engine.apply(PlayCard(Role.CHRISTINE, Card.Ri1))
    assert not isinstance(engine, phantom_log.rules.problems.Illegal)
    assert after.state.hands == engine.hands and after.notes == engine.notes
    assert after.last_trick is not None and after.last_trick.winner is Role.PHANTOM
    assert after.trick == 5 and after.turn is Role.PHANTOM


def test_the_position_of_the_next_trick_follows_the_records_plays() -> None:
    (record,) = phantom_log.load(WALKTHROUGH)
    position = phantom_log.position(record, 1, 1)
    trick = record.rounds[0].tricks[0]
    for play in trick.plays:
        position = position.play(play.card)
    assert position.state.hands == phantom_log.position(record, 1, 2).state.hands


def test_a_card_not_held_is_an_illegal_move() -> None:
    position = walkthrough_position(2, 4)
    with pytest.raises(IllegalMove) as raised:
        position.play(Card.Mi2)
    assert raised.value.code is Code.CARD_NOT_HELD
    assert position.hand(Role.PHANTOM)[0] is Card.Ch3  # unchanged


def test_a_card_of_the_special_number_makes_a_swap_due() -> None:
    position = walkthrough_position(2, 4).play("Ch3")
    assert position.phase == "swap" and position.turn is None and position.swap_due == 2
    swapped = position.swap(position.hands.phantom[:2], position.hands.christine[:2])
    assert swapped.turn is Role.CHRISTINE and swapped.legal_cards() == (Card.Ch4, Card.Ch6)


def test_a_position_the_record_does_not_reach() -> None:
    (record,) = phantom_log.load(REVOKE, errors="skip")
    phantom_log.position(record, 2, 3)
    with pytest.raises(PositionNotReached):
        phantom_log.position(record, 2, 5)  # the replay stops at the revoke of round 2, trick 4


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({1: 2}, "json: not JSON data"),
        ({"format": "phantom-log/1"}, "schema: required"),
        ({**json.loads(WALKTHROUGH.read_text(encoding="utf-8")), "sheet": 7}, "at /sheet"),
    ],
)
def test_a_position_of_what_is_no_record_says_why(data: dict[Any, Any], said: str) -> None:
    with pytest.raises(PositionNotReached, match="it is no valid record") as raised:
        phantom_log.position(data, 1, 1)
    assert said in str(raised.value)


@pytest.mark.parametrize("data", [[], None, "a record"])
def test_a_position_of_what_is_no_object_is_a_type_error(data: Any) -> None:
    with pytest.raises(TypeError, match="a record is a GameRecord or a parsed JSON object"):
        phantom_log.position(data, 1, 1)


def test_position_pictures_for_notebooks() -> None:
    position = walkthrough_position(2, 4)
    svg = ElementTree.fromstring(position._repr_svg_())
    assert svg.tag.endswith("svg")
    assert "Phantom to play" in position._repr_html_()
    assert "round 2, trick 4" in str(position) and "round 2, trick 4" in repr(position)


# -- tables ----------------------------------------------------------------------------------


def test_tables_are_the_export_tables(tmp_path: Path) -> None:
    games, tricks = phantom_log.tables(EXAMPLES, jobs=2)
    games_file, tricks_file = tmp_path / "games.parquet", tmp_path / "tricks.parquet"
    result = CliRunner().invoke(
        main,
        ["export", str(EXAMPLES), "--games", str(games_file), "--tricks", str(tricks_file), "-q"],
    )
    assert result.exit_code == 1  # invalid records among the examples
    assert games.equals(pl.read_parquet(games_file))
    assert tricks.equals(pl.read_parquet(tricks_file))
    assert games.height == 11 and tricks.height > 100


def test_tables_keep_invalid_records_when_asked(tmp_path: Path) -> None:
    shutil.copy(REVOKE, tmp_path)
    games, _ = phantom_log.tables(tmp_path)
    assert games.height == 0
    games, tricks = phantom_log.tables(tmp_path, include_invalid=True)
    assert games["valid"].to_list() == [False] and tricks.height > 0


def test_tables_of_a_missing_path_is_file_not_found(tmp_path: Path) -> None:
    """As the docstring says, and as load and verify do: not the SourceError inside."""
    with pytest.raises(FileNotFoundError, match=r"missing\.jsonl"):
        phantom_log.tables(tmp_path / "missing.jsonl")


# -- numbers the API cannot take --------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: list(phantom_log.verify(WALKTHROUGH, jobs=-1)), "jobs=-1"),
        (lambda: list(phantom_log.verify(WALKTHROUGH, jobs=0)), "jobs=0"),
        (lambda: list(phantom_log.verify(WALKTHROUGH, jobs=1025)), "jobs=1025"),
        (lambda: list(phantom_log.verify(WALKTHROUGH, max_record_size=0)), "max_record_size=0"),
        (lambda: list(phantom_log.verify(WALKTHROUGH, max_record_size=2**63)), "max_record_size="),
        (lambda: list(phantom_log.load(WALKTHROUGH, max_record_size=-1)), "max_record_size=-1"),
        (lambda: phantom_log.tables(WALKTHROUGH, jobs=-1), "jobs=-1"),
        (lambda: phantom_log.analyse(_walkthrough(), time_limit=-1), "time_limit=-1"),
        (lambda: phantom_log.analyse(_walkthrough(), time_limit=0), "time_limit=0"),
        (lambda: phantom_log.analyse(_walkthrough(), time_limit=float("nan")), "time_limit=nan"),
        (lambda: phantom_log.analyse(_walkthrough(), time_limit=float("inf")), "time_limit=inf"),
        (lambda: phantom_log.analyse(_walkthrough(), hidden=True, worlds=0), "worlds=0"),
        (lambda: phantom_log.analyse(_walkthrough(), hidden=True, seed=2**63), "seed="),
        (lambda: phantom_log.analyse(_walkthrough(), start=(3, 0)), "start=(3, 0)"),
        (lambda: phantom_log.analyse(_walkthrough(), start=(1, -1)), "start=(1, -1)"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_number_the_api_cannot_take_is_a_value_error_saying_so(call: Any, argument: str) -> None:
    """Before any work, and never an error from deep inside (max() of an empty sequence,
    a time limit of nan that turned the limit off, -1 workers taken as one)."""
    with pytest.raises(ValueError, match=re.escape(argument)) as raised:
        call()
    assert type(raised.value) is ValueError
    message = str(raised.value)
    assert message.startswith(argument) and ("give" in message or "the round is" in message)


@pytest.mark.parametrize(
    "call",
    [
        lambda: list(phantom_log.verify(WALKTHROUGH, jobs=True)),
        lambda: list(phantom_log.verify(WALKTHROUGH, jobs=2.0)),
        lambda: list(phantom_log.verify(WALKTHROUGH, max_record_size="64M")),
        lambda: phantom_log.analyse(_walkthrough(), time_limit="60"),
    ],
    ids=["jobs=True", "jobs=2.0", "max_record_size='64M'", "time_limit='60'"],
)
def test_what_is_no_number_of_the_kind_is_a_type_error(call: Any) -> None:
    with pytest.raises(TypeError, match=r"is not a .*: give a"):
        call()


def test_a_size_limit_of_exabytes_reads_a_small_file() -> None:
    (report,) = phantom_log.verify(WALKTHROUGH, max_record_size=2**63 - 1)
    assert report.valid
    (record,) = phantom_log.load(WALKTHROUGH, max_record_size=2**63 - 1)
    assert record.game_id == "rulebook-walkthrough"


def test_a_whole_time_limit_and_none_for_no_limit_are_taken() -> None:
    decisions = phantom_log.analyse(_walkthrough(), start=(2, 9), time_limit=30)
    assert decisions and all(decision.solved for decision in decisions)
    assert phantom_log.analyse(_walkthrough(), start=(2, 9), time_limit=None) == decisions


def _walkthrough() -> dict[str, Any]:
    return dict(json.loads(WALKTHROUGH.read_text(encoding="utf-8")))


# -- replay of what is no JSON data -------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "pointer", "what"),
    [
        (lambda record: {1: 2}, "", "the key 1 is an int"),
        (lambda record: {**record, "rounds": tuple(record["rounds"])}, "/rounds", "a tuple"),
        (
            lambda record: {
                **record,
                "rounds": [{**record["rounds"][0], "tricks": tuple(record["rounds"][0]["tricks"])}],
            },
            "/rounds/0/tricks",
            "a tuple",
        ),
        (lambda record: {**record, "players": {**record["players"], 3: "x"}}, "/players", "key 3"),
        (lambda record: {**record, "x-score": float("nan")}, "/x-score", "nan"),
        (lambda record: {**record, "x-score": 2**64}, "/x-score", "64-bit"),
        (lambda record: {**record, "x-tags": {"a", "b"}}, "/x-tags", "a set"),
        (lambda record: {**record, "game_id": b"g1"}, "/game_id", "a bytes"),
    ],
    ids=[
        "int key",
        "tuple rounds",
        "tuple tricks",
        "int key inside",
        "nan",
        "huge",
        "set",
        "bytes",
    ],
)
def test_replay_of_an_object_that_is_no_json_data_is_a_json_problem(
    change: Any, pointer: str, what: str
) -> None:
    """replay never raises for a bad record, whichever build of the engine runs (the
    compiled one took a tuple for a TypeError): what a JSON parser never gives is a json
    problem pointing at it, and analyse finds no decision in it."""
    record = change(_walkthrough())
    game = phantom_log.replay(record)
    (problem,) = game.problems
    assert problem.code is Code.JSON and problem.pointer == pointer
    assert what in problem.message
    assert game.result is None and not game.valid and game.tricks == []
    assert phantom_log.analyse(record) == []


# -- the module ------------------------------------------------------------------------------


def test_dir_shows_the_api() -> None:
    names = dir(phantom_log)
    for name in ("load", "verify", "replay", "tables", "position", "Position", "Card", "Role"):
        assert name in names
    assert "import_module" not in names and "MetaPathFinder" not in names
    assert {"load", "verify", "replay", "tables", "position"} <= set(phantom_log.__all__)
    for name in phantom_log.__all__:
        assert getattr(phantom_log, name) is not None


def test_tables_is_the_api_function_after_the_tables_module_is_imported() -> None:
    import phantom_log.tabular.tables
    from phantom_log import tables

    assert tables is phantom_log.api.tables and not isinstance(tables, type(phantom_log))
    games, _ = phantom_log.tables(WALKTHROUGH)
    assert games["game_id"].to_list() == ["rulebook-walkthrough"]


def test_every_name_of_the_api_is_itself_once_every_module_is_imported() -> None:
    """Importing a submodule sets the package's attribute of its name: no module of the
    package may be named as a name of the API, or that name would become the module
    (``phantom_log.position`` was the module once anything had loaded a record)."""
    import importlib
    import inspect
    import pkgutil

    for module in pkgutil.walk_packages(phantom_log.__path__, "phantom_log."):
        if module.name not in ("phantom_log.__main__",):
            importlib.import_module(module.name)
    record = next(phantom_log.load(WALKTHROUGH))
    position = phantom_log.position(record, 2, 4)
    with pytest.deprecated_call():
        state = record.state_at(2, 4)
    assert (position.hands, position.notes) == (state.hands, state.notes)
    assert "position" in phantom_log.__all__
    for name in phantom_log.__all__:
        value = getattr(phantom_log, name)
        assert not inspect.ismodule(value), name


# -- the collector ---------------------------------------------------------------------------


@pytest.fixture
def default_collector() -> Iterator[tuple[int, int, int]]:
    """The collector at Python's defaults for the test, then as it was."""
    import gc

    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield gc.get_threshold()
    finally:
        gc.set_threshold(*before)


def test_the_collector_is_set_for_the_librarys_work_only(
    default_collector: tuple[int, int, int],
) -> None:
    import gc

    from phantom_log.running.collector import RUN_COLLECTOR_THRESHOLD, collector_for_records

    with collector_for_records():
        assert gc.get_threshold() == (RUN_COLLECTOR_THRESHOLD, 10, 10)
        with collector_for_records():  # nested: left as it is
            assert gc.get_threshold()[0] == RUN_COLLECTOR_THRESHOLD
        assert gc.get_threshold()[0] == RUN_COLLECTOR_THRESHOLD
    assert gc.get_threshold() == default_collector
    with pytest.raises(KeyError), collector_for_records():
        raise KeyError("work that fails")
    assert gc.get_threshold() == default_collector
    gc.set_threshold(0, 10, 10)  # a caller who turned the collector off keeps it off
    with collector_for_records():
        assert gc.get_threshold() == (0, 10, 10)


def test_the_caller_has_its_own_collector_whenever_its_code_runs(
    default_collector: tuple[int, int, int], tmp_path: Path
) -> None:
    """load and verify yield to the caller between records, replay and tables return:
    each time the caller's code runs, the collector is as the caller set it."""
    import gc

    games = tmp_path / "games.jsonl"
    lines = [json.dumps(json.loads(path.read_text())) for path in sorted(EXAMPLES.glob("*.json"))]
    games.write_text("\n".join(lines * 3) + "\n")
    seen = []
    for record in phantom_log.load(games):
        seen.append(gc.get_threshold())
        game = phantom_log.replay(record)
        seen.append(gc.get_threshold())
        assert game.tricks
        seen.append(gc.get_threshold())
    seen += [gc.get_threshold() for _ in phantom_log.verify(games)]
    phantom_log.tables(games)
    seen.append(gc.get_threshold())
    assert len(seen) == 3 * 3 * len(lines) + 3 * len(lines) + 1
    assert set(seen) == {default_collector}


def test_the_librarys_work_runs_with_the_collector_set_for_records(
    default_collector: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from phantom_log import api
    from phantom_log.running import pipeline
    from phantom_log.running.collector import RUN_COLLECTOR_THRESHOLD

    seen: list[int] = []

    def watched(function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            seen.append(gc.get_threshold()[0])
            return function(*args, **kwargs)

        return run

    monkeypatch.setattr(api, "check_record", watched(api.check_record))
    monkeypatch.setattr(api, "verify_record", watched(api.verify_record))
    # phantom_log.verify checks its records in the one verify pipeline.
    monkeypatch.setattr(pipeline, "verify_record", watched(pipeline.verify_record))
    monkeypatch.setattr(api.GameRecord, "from_validated", watched(api.GameRecord.from_validated))
    record = next(phantom_log.load(WALKTHROUGH))
    phantom_log.replay(record)
    list(phantom_log.verify(WALKTHROUGH))
    assert len(seen) == 3 and set(seen) == {RUN_COLLECTOR_THRESHOLD}


def test_an_annotations_codes_are_typed_with_the_engines_values() -> None:
    """Where a field is one of a few strings, its type lists them (Literal), and they are
    exactly the values the engine gives; every annotation of the examples holds them."""
    import typing

    from phantom_log.rules.cards import RoleKey, SuitCode
    from phantom_log.rules.events import Reason
    from phantom_log.views.annotate import SwapAfter, TrickReason

    assert set(typing.get_args(RoleKey)) == {role.key for role in Role}
    assert set(typing.get_args(SuitCode)) == {suit.code for suit in Suit}
    assert set(typing.get_args(TrickReason)) == {reason.value for reason in Reason}
    hints = typing.get_type_hints(phantom_log.Annotation)
    assert hints["winner"] == RoleKey and hints["reason"] == TrickReason
    assert hints["super_trump"] == SuitCode | None
    tricks = swaps = 0
    for record in phantom_log.load(EXAMPLES, errors="skip"):
        for trick in phantom_log.replay(record).tricks:
            tricks += 1
            assert {trick.leader, trick.follower, trick.winner, trick.note_owner} <= set(
                typing.get_args(RoleKey)
            )
            assert trick.lead_suit in typing.get_args(SuitCode)
            assert trick.reason in typing.get_args(TrickReason)
            for swap in trick.swaps:
                swaps += 1
                assert swap["after"] in typing.get_args(SwapAfter)
    assert tricks > 100 and swaps > 50  # every valid example's tricks, many with swaps


# -- the game's picture ----------------------------------------------------------------------


def picture_texts(svg: str) -> list[str]:
    """The texts of an SVG picture, each text element's parts joined."""
    root = ElementTree.fromstring(svg)
    return [
        "".join(element.itertext()) for element in root.iter("{http://www.w3.org/2000/svg}text")
    ]


def test_a_replayed_game_draws_itself_as_show_svg_does(tmp_path: Path) -> None:
    (record,) = phantom_log.load(WALKTHROUGH)
    game = phantom_log.replay(record)
    texts = picture_texts(game.svg())
    assert "Result: Christine wins with 9 notes completed (round 2, trick 10)" in texts
    assert game._repr_svg_() == game.svg()
    shown = tmp_path / "game.svg"
    assert CliRunner().invoke(main, ["show", str(WALKTHROUGH), "--svg", str(shown)]).exit_code == 0
    # The same picture as the command's but for the title (the API has no file name).
    command = picture_texts(shown.read_text(encoding="utf-8"))
    assert texts[1:] == command[1:] and texts[0] != command[0]
    assert "rulebook-walkthrough: Erik (Phantom) vs Christine" in texts[0]
    at = picture_texts(game.svg(at=(1, 7)))
    assert "at 1.7" in at and at != texts
    with pytest.raises(ValueError, match="the round is 1 or 2"):
        game.svg(at=(3, 1))


def test_an_illegal_games_picture_says_where_it_stops() -> None:
    record = json.loads((EXAMPLES / "invalid" / "card-not-held.json").read_text())
    texts = picture_texts(phantom_log.replay(record).svg())
    assert any(text.startswith("Illegal: the replay stops at card-not-held") for text in texts)
    assert "the replay stops here" in texts
    unreadable = phantom_log.replay({"format": "phantom-log/1"})
    assert unreadable._repr_svg_() is None
    with pytest.raises(ValueError, match="could not be replayed"):
        unreadable.svg()
