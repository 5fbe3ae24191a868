"""The pydantic models and the JSON Schema accept exactly the same documents.

Every document here goes through both: the schema (``schema_problems(data) == []`` means
accepted) and the models (``GameRecord.from_json`` succeeds). The verdicts must agree on
the examples, on near misses of a valid record built by hand and by hypothesis, and where
the schema's verdict is certain the test says which it is.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from phantom_log.records.model import GameRecord, RecordModel
from phantom_log.records.schema import (
    _VALID_RECORD,
    _VALID_ROUND,
    _VALID_TRICK,
    _checked_parts,
    _schema_errors,
    _sort_key,
    _without_valid_parts,
    schema_problems,
    schema_text,
    schema_valid,
    schema_validator,
)
from phantom_log.records.source_records import read_source
from phantom_log.rules import cards
from phantom_log.rules.replay import replay_record
from tests.helpers.paths import REPO

# The codes the record model's fields take (the Literals of phantom_log.rules.cards).
CARD_CODES: tuple[str, ...] = get_args(cards.CardCode)
ROLE_NAMES: tuple[str, ...] = get_args(cards.RoleKey)
SUIT_CODES: tuple[str, ...] = get_args(cards.SuitCode)

EXAMPLES = REPO / "examples"

Path_ = tuple[str | int, ...]

# A legal record (rulebook sheet, Phantom leads): Christine wins the first trick (note 1 is
# hers); she leads Ch3, the special number, so a swap follows; the Phantom, made to follow
# Chandelier, wins with Ch6 and owns note 2: in order with a special card, 1 -> 3 notes.
BASE: dict[str, Any] = {
    "format": "phantom-log/1",
    "game_id": "seoul-open-2026/s3/t2",
    "event": "Seoul Open 2026",
    "site": "Seoul",
    "date": "2026-11-29",
    "stage": "3",
    "players": {"phantom": "Kim", "christine": "Lee"},
    "sheet": "rulebook",
    "rules": {"beginner": False, "balance": False},
    "rounds": [
        {
            "deal": {
                "phantom": ["Ma5", "Ch4", "Ch3", "Mi1", "Mi2", "Ri2", "Ri3", "Ch2", "Mi4", "Ri4"],
                "christine": ["Ma6", "Ch5", "Ch1", "Ch6", "Ri1", "Ri5", "Mi3", "Mi5", "Ma4", "Ma1"],
                "aside": ["Mi6", "Ri6", "Ma2", "Ma3"],
            },
            "exchange": {"phantom": "Ch3", "christine": "Ri5"},
            "special_number": 3,
            "tricks": [
                {
                    "plays": [
                        {"player": "phantom", "card": "Ma5"},
                        {"player": "christine", "card": "Ma6"},
                    ],
                    "winner": "christine",
                },
                {
                    "plays": [
                        {
                            "player": "christine",
                            "card": "Ch3",
                            "swap": {"christine": ["Ch1", "Ch6"], "phantom": ["Mi2", "Ri4"]},
                        },
                        {"player": "phantom", "card": "Ch6"},
                    ],
                    "winner": "phantom",
                    "comment": "free text",
                },
            ],
        }
    ],
    "result": {"winner": None, "notes": 3},
}

# The other shapes: a sheet object, the beginner rule (no exchange), an empty swap, a last
# trick of one play, and an x- key on every object.
VARIANT: dict[str, Any] = {
    "format": "phantom-log/1",
    "game_id": "g2",
    "x-source": {"scanned": True, "pages": [1, 2]},
    "players": {"phantom": "Kim", "christine": "Lee", "x-ratings": [1500, 1480.5]},
    "sheet": {
        "name": "my sheet",
        "x-printed": False,
        "bars": [
            {"suit": "Mi", "notes": "CPC", "x-colour": "red"},
            {"suit": "Ch", "notes": "PCP"},
            {"suit": "Ri", "notes": "PPC"},
            {"suit": "Ma", "notes": "PCP"},
        ],
    },
    "rules": {"beginner": True, "x-house-rule": None},
    "rounds": [
        {
            "x-table": 4,
            "deal": {
                "phantom": ["Ma5", "Ch4", "Ch3", "Mi1", "Mi2", "Ri2", "Ri3", "Ch2", "Mi4", "Ri4"],
                "christine": ["Ma6", "Ch5", "Ch1", "Ch6", "Ri1", "Ri5", "Mi3", "Mi5", "Ma4", "Ma1"],
                "x-shuffled-by": "arbiter",
            },
            "special_number": 2,
            "tricks": [
                {
                    "plays": [
                        {"player": "phantom", "card": "Ma5", "swap": {"x-why": "none due"}},
                        {"player": "christine", "card": "Ma6", "x-seconds": 12.5},
                    ],
                    "x-photo": "t1.jpg",
                },
                {"plays": [{"player": "christine", "card": "Mi5"}]},
            ],
        }
    ],
    "result": {"winner": None, "notes": 1, "x-": "the bare prefix is an x- key too"},
}

BASES = {"base": BASE, "variant": VARIANT}


# --- Helpers ------------------------------------------------------------------------------


def schema_accepts(document: object) -> bool:
    """The schema's verdict."""
    return schema_problems(document) == []


def models_accept(document: object) -> bool:
    """The models' verdict."""
    try:
        GameRecord.from_json(document)
    except ValidationError:
        return False
    return True


def verdicts(document: object) -> tuple[bool, bool]:
    """(schema, models)."""
    return schema_accepts(document), models_accept(document)


def pointer(path: Path_) -> str:
    return "".join(f"/{part}" for part in path) or "/"


def parse_pointer(text: str) -> Path_:
    return tuple(int(part) if part.isdigit() else part for part in text.split("/")[1:])


def value_paths(document: object, path: Path_ = ()) -> Iterator[Path_]:
    """The path of every value below the root, parents first."""
    if isinstance(document, dict):
        items: Iterator[tuple[str | int, Any]] = iter(document.items())
    elif isinstance(document, list):
        items = iter(enumerate(document))
    else:
        return
    for key, value in items:
        yield (*path, key)
        yield from value_paths(value, (*path, key))


def object_paths(document: object) -> list[Path_]:
    """The path of every object, the root included."""
    everything = [(), *value_paths(document)]
    return [path for path in everything if isinstance(get(document, path), dict)]


def array_paths(document: object) -> list[Path_]:
    """The path of every array."""
    return [path for path in value_paths(document) if isinstance(get(document, path), list)]


def get(document: Any, path: Path_) -> Any:
    for part in path:
        document = document[part]
    return document


def replaced(document: Any, path: Path_, value: Any) -> Any:
    """A copy with the value at ``path`` replaced (or the key added)."""
    if not path:
        return copy.deepcopy(value)
    result = copy.deepcopy(document)
    get(result, path[:-1])[path[-1]] = copy.deepcopy(value)
    return result


def appended(document: Any, path: Path_, value: Any) -> Any:
    """A copy with ``value`` added at the end of the array at ``path``."""
    result = copy.deepcopy(document)
    get(result, path).append(copy.deepcopy(value))
    return result


def removed(document: Any, path: Path_) -> Any:
    """A copy without the key or the array item at ``path``."""
    result = copy.deepcopy(document)
    del get(result, path[:-1])[path[-1]]
    return result


def changed(pointer_text: str, value: Any, base: dict[str, Any] = BASE) -> Any:
    return replaced(base, parse_pointer(pointer_text), value)


def without(pointer_text: str, base: dict[str, Any] = BASE) -> Any:
    return removed(base, parse_pointer(pointer_text))


# --- The bases, the examples, the enums ---------------------------------------------------


@pytest.mark.parametrize("name", list(BASES))
def test_the_bases_are_valid_records(name: str) -> None:
    document = BASES[name]
    assert schema_problems(document) == []
    record = GameRecord.from_json(document)
    assert record.to_json() == document
    with pytest.deprecated_call():
        assert record.replay().sheet is not None


def test_the_model_replays_as_its_json() -> None:
    with pytest.deprecated_call():
        one = GameRecord.from_json(BASE).replay()
    two = replay_record(BASE)
    assert one.result == two.result and one.problems == two.problems


def example_files() -> list[Path]:
    patterns = ("*.json", "*.jsonl", "*.ndjson")
    return sorted(path for pattern in patterns for path in EXAMPLES.rglob(pattern))


def example_documents(path: Path) -> list[object]:
    """The parsed records of an example file; none when it is not JSON as FORMAT.md reads it
    (such files are the json-error examples) or holds no object."""
    documents = [item.data for item in read_source(str(path)) if item.problem is None]
    return [document for document in documents if isinstance(document, dict)]


@pytest.mark.parametrize("path", example_files(), ids=lambda path: str(path.relative_to(REPO)))
def test_examples_get_the_same_verdict(path: Path) -> None:
    documents = example_documents(path)
    if not documents:
        pytest.skip("not a JSON object, or not JSON at all")
    for index, document in enumerate(documents):
        schema, models = verdicts(document)
        assert schema == models, f"record {index}: schema {schema}, models {models}"
        if models:
            record = GameRecord.from_json(document)
            assert record.to_json() == document
            assert record.to_json() == document


def test_the_literals_are_the_schemas_enums() -> None:
    definitions = json.loads(schema_text())["$defs"]
    assert list(CARD_CODES) == definitions["card"]["enum"]
    assert list(ROLE_NAMES) == definitions["role"]["enum"]
    assert list(SUIT_CODES) == definitions["suit"]["enum"]
    assert CARD_CODES == cards.CARD_CODES


# --- Near misses written out, with the verdict both must give -----------------------------

ACCEPT, REJECT = True, False
SPECIAL = "/rounds/0/special_number"
NOTES = "/result/notes"
TRICKS = "/rounds/0/tricks"
PLAY = "/rounds/0/tricks/0/plays/0"
SWAP = "/rounds/0/tricks/1/plays/0/swap"
SHEET = {
    "name": "s",
    "bars": [
        {"suit": "Mi", "notes": "CPC"},
        {"suit": "Ch", "notes": "PCP"},
        {"suit": "Ri", "notes": "PPC"},
        {"suit": "Ma", "notes": "PCP"},
    ],
}
ROUND = BASE["rounds"][0]
TRICK = ROUND["tricks"][0]


def with_sheet(change: Callable[[dict[str, Any]], None]) -> Any:
    sheet = copy.deepcopy(SHEET)
    change(sheet)
    return changed("/sheet", sheet)


CASES: list[tuple[str, object, bool]] = [
    # JSON Schema's integers: 1.0 is one, 1.5, true and "3" are not.
    ("special-number 3.0", changed(SPECIAL, 3.0), ACCEPT),
    ("special-number 1.0", changed(SPECIAL, 1.0), ACCEPT),
    ("special-number 6.0", changed(SPECIAL, 6.0), ACCEPT),
    ("special-number 1.5", changed(SPECIAL, 1.5), REJECT),
    ("special-number 3.5", changed(SPECIAL, 3.5), REJECT),
    ("special-number true", changed(SPECIAL, True), REJECT),
    ("special-number false", changed(SPECIAL, False), REJECT),
    ("special-number '3'", changed(SPECIAL, "3"), REJECT),
    ("special-number 0", changed(SPECIAL, 0), REJECT),
    ("special-number 7", changed(SPECIAL, 7), REJECT),
    ("special-number 7.0", changed(SPECIAL, 7.0), REJECT),
    ("special-number 2**64", changed(SPECIAL, 2**64), REJECT),
    ("special-number 1e300", changed(SPECIAL, 1e300), REJECT),
    ("special-number null", changed(SPECIAL, None), REJECT),
    ("special-number [3]", changed(SPECIAL, [3]), REJECT),
    ("special-number missing", without(SPECIAL), REJECT),
    ("result notes 0", changed(NOTES, 0), ACCEPT),
    ("result notes 12", changed(NOTES, 12), ACCEPT),
    ("result notes 12.0", changed(NOTES, 12.0), ACCEPT),
    ("result notes -0.0", changed(NOTES, -0.0), ACCEPT),
    ("result notes 13", changed(NOTES, 13), REJECT),
    ("result notes -1", changed(NOTES, -1), REJECT),
    ("result notes 2.5", changed(NOTES, 2.5), REJECT),
    ("result notes true", changed(NOTES, True), REJECT),
    ("result notes '3'", changed(NOTES, "3"), REJECT),
    ("result notes null", changed(NOTES, None), REJECT),
    # Dates: YYYY-MM-DD, and a day of the calendar.
    ("date leap day", changed("/date", "2024-02-29"), ACCEPT),
    ("date 2026-02-29", changed("/date", "2026-02-29"), REJECT),
    ("date 2026-02-30", changed("/date", "2026-02-30"), REJECT),
    ("date 2026-13-01", changed("/date", "2026-13-01"), REJECT),
    ("date trailing newline", changed("/date", "2026-11-29\n"), REJECT),
    ("date leading space", changed("/date", " 2026-11-29"), REJECT),
    ("date 2026-1-29", changed("/date", "2026-1-29"), REJECT),
    ("date basic format", changed("/date", "20261129"), REJECT),
    ("date with time", changed("/date", "2026-11-29T10:00:00"), REJECT),
    ("date year 0", changed("/date", "0000-01-01"), REJECT),
    ("date year 1", changed("/date", "0001-01-01"), ACCEPT),
    (
        "date arabic-indic digits",
        changed("/date", "\u0662\u0660\u0662\u0666-\u0661\u0661-\u0662\u0669"),
        REJECT,
    ),
    ("date empty", changed("/date", ""), REJECT),
    ("date null", changed("/date", None), REJECT),
    ("date number", changed("/date", 20261129), REJECT),
    ("date missing", without("/date"), ACCEPT),
    # Cards, roles, suits: the exact strings only.
    ("card Mi1 trailing newline", changed(f"{PLAY}/card", "Mi1\n"), REJECT),
    ("card mi1", changed(f"{PLAY}/card", "mi1"), REJECT),
    ("card MI1", changed(f"{PLAY}/card", "MI1"), REJECT),
    ("card Mi7", changed(f"{PLAY}/card", "Mi7"), REJECT),
    ("card Mi0", changed(f"{PLAY}/card", "Mi0"), REJECT),
    ("card Ma6", changed(f"{PLAY}/card", "Ma6"), ACCEPT),
    ("card number", changed(f"{PLAY}/card", 1), REJECT),
    ("card null", changed(f"{PLAY}/card", None), REJECT),
    ("card list", changed(f"{PLAY}/card", ["Ma5"]), REJECT),
    ("exchange card Xx1", changed("/rounds/0/exchange/phantom", "Xx1"), REJECT),
    ("deal card lower case", changed("/rounds/0/deal/phantom/0", "ma5"), REJECT),
    ("aside card padded", changed("/rounds/0/deal/aside/0", " Mi6"), REJECT),
    ("swap card Ch7", changed(f"{SWAP}/christine/0", "Ch7"), REJECT),
    ("player Phantom", changed(f"{PLAY}/player", "Phantom"), REJECT),
    ("player P", changed(f"{PLAY}/player", "P"), REJECT),
    ("player null", changed(f"{PLAY}/player", None), REJECT),
    ("trick winner nobody", changed(f"{TRICKS}/0/winner", "nobody"), REJECT),
    ("trick winner null", changed(f"{TRICKS}/0/winner", None), REJECT),
    ("result winner phantom", changed("/result/winner", "phantom"), ACCEPT),
    ("result winner christine", changed("/result/winner", "christine"), ACCEPT),
    ("result winner draw", changed("/result/winner", "draw"), REJECT),
    ("result winner false", changed("/result/winner", False), REJECT),
    ("result without winner", without("/result/winner"), REJECT),
    ("result without notes", without("/result/notes"), REJECT),
    ("result empty", changed("/result", {}), REJECT),
    ("result null", changed("/result", None), REJECT),
    ("result missing", without("/result"), ACCEPT),
    # Strings: lengths in code points, emptiness where a name is needed.
    ("game-id empty", changed("/game_id", ""), REJECT),
    ("game-id 200", changed("/game_id", "g" * 200), ACCEPT),
    ("game-id 201", changed("/game_id", "g" * 201), REJECT),
    ("game-id 200 astral", changed("/game_id", "\U0001f3b5" * 200), ACCEPT),
    ("game-id 201 astral", changed("/game_id", "\U0001f3b5" * 201), REJECT),
    ("game-id number", changed("/game_id", 7), REJECT),
    ("game-id missing", without("/game_id"), REJECT),
    ("phantom name empty", changed("/players/phantom", ""), REJECT),
    ("christine name 201", changed("/players/christine", "L" * 201), REJECT),
    ("christine name lone surrogate", changed("/players/christine", "\ud800"), ACCEPT),
    ("christine name 200 surrogates", changed("/players/christine", "\udc00" * 200), ACCEPT),
    ("christine name 201 surrogates", changed("/players/christine", "\udc00" * 201), REJECT),
    ("players without christine", without("/players/christine"), REJECT),
    ("players list", changed("/players", ["Kim", "Lee"]), REJECT),
    ("event empty", changed("/event", ""), ACCEPT),
    ("event 200", changed("/event", "e" * 200), ACCEPT),
    ("event 201", changed("/event", "e" * 201), REJECT),
    ("site null", changed("/site", None), REJECT),
    ("stage number", changed("/stage", 3), REJECT),
    ("stage 201", changed("/stage", "s" * 201), REJECT),
    ("comment 2000", changed(f"{TRICKS}/1/comment", "c" * 2000), ACCEPT),
    ("comment 2001", changed(f"{TRICKS}/1/comment", "c" * 2001), REJECT),
    ("comment 2001 surrogates", changed(f"{TRICKS}/1/comment", "\ud800" * 2001), REJECT),
    ("comment empty", changed(f"{TRICKS}/1/comment", ""), ACCEPT),
    ("comment null", changed(f"{TRICKS}/1/comment", None), REJECT),
    # The format.
    ("format phantom-log/2", changed("/format", "phantom-log/2"), REJECT),
    ("format trailing space", changed("/format", "phantom-log/1 "), REJECT),
    ("format missing", without("/format"), REJECT),
    # Rules: booleans, strictly.
    ("rules empty", changed("/rules", {}), ACCEPT),
    ("rules missing", without("/rules"), ACCEPT),
    ("rules null", changed("/rules", None), REJECT),
    ("rules beginner 'true'", changed("/rules/beginner", "true"), REJECT),
    ("rules beginner 1", changed("/rules/beginner", 1), REJECT),
    ("rules balance 0", changed("/rules/balance", 0), REJECT),
    ("rules balance 0.0", changed("/rules/balance", 0.0), REJECT),
    ("rules balance null", changed("/rules/balance", None), REJECT),
    ("rules balance true", changed("/rules/balance", True), ACCEPT),
    ("rules list", changed("/rules", [True]), REJECT),
    # Array bounds.
    ("rounds empty", changed("/rounds", []), REJECT),
    ("rounds 2", changed("/rounds", [ROUND, ROUND]), ACCEPT),
    ("rounds 3", changed("/rounds", [ROUND, ROUND, ROUND]), REJECT),
    ("rounds object", changed("/rounds", ROUND), REJECT),
    ("rounds missing", without("/rounds"), REJECT),
    ("round empty", changed("/rounds/0", {}), REJECT),
    ("round null", changed("/rounds/0", None), REJECT),
    ("tricks empty", changed(TRICKS, []), ACCEPT),
    ("tricks 10", changed(TRICKS, [TRICK] * 10), ACCEPT),
    ("tricks 11", changed(TRICKS, [TRICK] * 11), REJECT),
    ("tricks missing", without(TRICKS), REJECT),
    ("plays 0", changed(f"{TRICKS}/0/plays", []), REJECT),
    ("plays 1", changed(f"{TRICKS}/0/plays", TRICK["plays"][:1]), ACCEPT),
    ("plays 3", changed(f"{TRICKS}/0/plays", [*TRICK["plays"], TRICK["plays"][0]]), REJECT),
    ("plays missing", without(f"{TRICKS}/0/plays"), REJECT),
    ("trick empty", changed(f"{TRICKS}/0", {}), REJECT),
    ("deal phantom 0 cards", changed("/rounds/0/deal/phantom", []), ACCEPT),
    ("deal phantom 24 cards", changed("/rounds/0/deal/phantom", list(CARD_CODES)), ACCEPT),
    ("deal phantom 25 cards", changed("/rounds/0/deal/phantom", [*CARD_CODES, "Mi1"]), REJECT),
    ("deal aside null", changed("/rounds/0/deal/aside", None), REJECT),
    ("deal aside missing", without("/rounds/0/deal/aside"), ACCEPT),
    ("deal without phantom", without("/rounds/0/deal/phantom"), REJECT),
    ("deal string", changed("/rounds/0/deal/phantom", "Ma5 Ch4"), REJECT),
    ("exchange missing", without("/rounds/0/exchange"), ACCEPT),
    ("exchange null", changed("/rounds/0/exchange", None), REJECT),
    ("exchange empty", changed("/rounds/0/exchange", {}), REJECT),
    ("exchange without christine", without("/rounds/0/exchange/christine"), REJECT),
    ("swap empty", changed(SWAP, {}), ACCEPT),
    ("swap lists empty", changed(SWAP, {"phantom": [], "christine": []}), ACCEPT),
    ("swap one side", without(f"{SWAP}/phantom"), ACCEPT),
    ("swap 10 cards", changed(f"{SWAP}/phantom", ["Mi1"] * 10), ACCEPT),
    ("swap 11 cards", changed(f"{SWAP}/phantom", ["Mi1"] * 11), REJECT),
    ("swap null", changed(SWAP, None), REJECT),
    ("swap list", changed(SWAP, []), REJECT),
    ("swap string", changed(SWAP, "Ch1 Ch6"), REJECT),
    ("swap side null", changed(f"{SWAP}/phantom", None), REJECT),
    ("swap side string", changed(f"{SWAP}/phantom", "Mi2"), REJECT),
    # The sheet: a name, or an object.
    ("sheet object", changed("/sheet", SHEET), ACCEPT),
    ("sheet unknown name", changed("/sheet", "no such sheet"), ACCEPT),
    ("sheet name empty", changed("/sheet", ""), REJECT),
    ("sheet name 201", changed("/sheet", "s" * 201), REJECT),
    ("sheet null", changed("/sheet", None), REJECT),
    ("sheet number", changed("/sheet", 5), REJECT),
    ("sheet true", changed("/sheet", True), REJECT),
    ("sheet list", changed("/sheet", ["rulebook"]), REJECT),
    ("sheet empty object", changed("/sheet", {}), REJECT),
    ("sheet missing", without("/sheet"), REJECT),
    ("sheet object name empty", with_sheet(lambda s: s.update(name="")), REJECT),
    ("sheet object name number", with_sheet(lambda s: s.update(name=1)), REJECT),
    ("sheet object without name", with_sheet(lambda s: s.pop("name")), REJECT),
    ("sheet object without bars", with_sheet(lambda s: s.pop("bars")), REJECT),
    ("sheet object no bars", with_sheet(lambda s: s.update(bars=[])), ACCEPT),
    ("sheet object 12 bars", with_sheet(lambda s: s.update(bars=s["bars"] * 3)), ACCEPT),
    ("sheet object 13 bars", with_sheet(lambda s: s.update(bars=s["bars"] * 3 + [{}])), REJECT),
    ("sheet object bar suit Xx", with_sheet(lambda s: s["bars"][0].update(suit="Xx")), REJECT),
    ("sheet object bar suit mi", with_sheet(lambda s: s["bars"][0].update(suit="mi")), REJECT),
    ("sheet object bar suit Mi1", with_sheet(lambda s: s["bars"][0].update(suit="Mi1")), REJECT),
    ("sheet object bar suit null", with_sheet(lambda s: s["bars"][0].update(suit=None)), REJECT),
    ("sheet object notes PCX", with_sheet(lambda s: s["bars"][0].update(notes="PCX")), REJECT),
    (
        "sheet object notes PC newline",
        with_sheet(lambda s: s["bars"][0].update(notes="PC\n")),
        REJECT,
    ),
    ("sheet object notes pc", with_sheet(lambda s: s["bars"][0].update(notes="pc")), REJECT),
    ("sheet object notes empty", with_sheet(lambda s: s["bars"][0].update(notes="")), ACCEPT),
    ("sheet object notes 12", with_sheet(lambda s: s["bars"][0].update(notes="PC" * 6)), ACCEPT),
    (
        "sheet object notes 13",
        with_sheet(lambda s: s["bars"][0].update(notes="PC" * 6 + "P")),
        REJECT,
    ),
    ("sheet object notes list", with_sheet(lambda s: s["bars"][0].update(notes=["P"])), REJECT),
    ("sheet object bar without notes", with_sheet(lambda s: s["bars"][0].pop("notes")), REJECT),
    ("sheet object bar unknown key", with_sheet(lambda s: s["bars"][0].update(colour=1)), REJECT),
    ("sheet object unknown key", with_sheet(lambda s: s.update(title="t")), REJECT),
    ("sheet object x- key", with_sheet(lambda s: s.update({"x-title": "t"})), ACCEPT),
    # Keys: x- anything, anything else an error; the prefix is case-sensitive.
    ("root x- key", changed("/x-note", [1, {"a": None}]), ACCEPT),
    ("root bare x- key", changed("/x-", 0), ACCEPT),
    ("root X- key", changed("/X-note", 1), REJECT),
    ("root x_ key", changed("/x_note", 1), REJECT),
    ("root key with space", changed("/ x-note", 1), REJECT),
    ("root typo", changed("/game-id", "g"), REJECT),
    ("root x- key lone surrogate", changed("/x-\ud800", "\udc00"), ACCEPT),
    ("root unknown key lone surrogate", changed("/\ud800", 1), REJECT),
    ("x- value huge integer", changed("/x-big", 2**80), ACCEPT),
    # Not an object at all.
    ("root list", [BASE], REJECT),
    ("root string", json.dumps(BASE), REJECT),
    ("root null", None, REJECT),
    ("root empty object", {}, REJECT),
]


@pytest.mark.parametrize(
    ("document", "accepted"),
    [pytest.param(document, accepted, id=name) for name, document, accepted in CASES],
)
def test_near_misses_get_the_same_verdict(document: object, accepted: bool) -> None:
    assert verdicts(document) == (accepted, accepted)
    if accepted:
        assert GameRecord.from_json(document).to_json() == document


def test_case_names_are_unique() -> None:
    names = [name for name, _, _ in CASES]
    assert len(names) > 50 and len(names) == len(set(names))
    # Near misses both ways: documents the schema accepts and documents it rejects.
    assert {accepted for _, _, accepted in CASES} == {True, False}


# --- Near misses by the hundred: every value replaced, every key dropped or added ---------

WRONG_VALUES: list[tuple[str, object]] = [
    ("null", None),
    ("true", True),
    ("false", False),
    ("0", 0),
    ("1", 1),
    ("1.0", 1.0),
    ("1.5", 1.5),
    ("-1", -1),
    ("13", 13),
    ("'3'", "3"),
    ("''", ""),
    ("'x'*201", "x" * 201),
    ("'Mi1'", "Mi1"),
    ("'Mi1\\n'", "Mi1\n"),
    ("'mi1'", "mi1"),
    ("'Mi7'", "Mi7"),
    ("'phantom'", "phantom"),
    ("'Ma'", "Ma"),
    ("'PCX'", "PCX"),
    ("[]", []),
    ("['Mi1']", ["Mi1"]),
    ("{}", {}),
    ("{x-}", {"x-a": 1}),
]

VALUE_CASES = [
    pytest.param(base, path, id=f"{name}:{pointer(path)}")
    for name, base in BASES.items()
    for path in value_paths(base)
]
OBJECT_CASES = [
    pytest.param(base, path, id=f"{name}:{pointer(path)}")
    for name, base in BASES.items()
    for path in object_paths(base)
    if not any(isinstance(part, str) and part.startswith("x-") for part in path)
]


@pytest.mark.parametrize(("base", "path"), VALUE_CASES)
def test_every_value_replaced(base: dict[str, Any], path: Path_) -> None:
    mismatches = []
    for label, value in WRONG_VALUES:
        document = replaced(base, path, value)
        schema, models = verdicts(document)
        if schema != models:
            mismatches.append(f"{label}: schema {schema}, models {models}")
    assert mismatches == []


@pytest.mark.parametrize(("base", "path"), VALUE_CASES)
def test_every_key_or_item_removed(base: dict[str, Any], path: Path_) -> None:
    schema, models = verdicts(removed(base, path))
    assert schema == models


EXTRA_KEYS: list[tuple[str, object, bool | None]] = [
    ("x-note", {"any": ["json", 1, None]}, ACCEPT),
    ("x-", None, ACCEPT),
    ("X-note", 1, REJECT),
    ("bogus", 1, REJECT),
    ("", 1, REJECT),
    ("winner", "phantom", None),  # a key of some objects only
    ("comment", "c", None),
    ("swap", {}, None),
    ("aside", [], None),
    ("name", "n", None),
]


@pytest.mark.parametrize(("base", "path"), OBJECT_CASES)
def test_every_object_of_the_format_with_a_key_added(base: dict[str, Any], path: Path_) -> None:
    mismatches = []
    for key, value, expected in EXTRA_KEYS:
        if key in get(base, path):
            continue
        schema, models = verdicts(replaced(base, (*path, key), value))
        if schema != models or (expected is not None and schema != expected):
            mismatches.append(f"{key!r}: schema {schema}, models {models}, expected {expected}")
    assert mismatches == []


# --- Random near misses -------------------------------------------------------------------

FIELD_NAMES = sorted(
    {name for model in RecordModel.__subclasses__() for name in model.model_fields}
)
TEXT = st.text(st.characters(exclude_categories=()), max_size=8)
DOMAIN_VALUES = st.sampled_from(
    [
        *CARD_CODES[::5],
        *ROLE_NAMES,
        *SUIT_CODES,
        "Mi1\n",
        "PCP",
        "PC\n",
        "rulebook",
        "phantom-log/1",
        "2026-11-29",
        "2026-02-30",
        "x" * 200,
        "x" * 201,
        "c" * 2001,
        "\ud800",
        0,
        1,
        3,
        6,
        7,
        12,
        13,
        1.0,
        1.5,
        -0.0,
        2**63,
        True,
        None,
        [],
        {},
        ["Mi1", "Mi2"],
        {"phantom": "Kim", "christine": "Lee"},
        {"player": "phantom", "card": "Ma5"},
        {"winner": None, "notes": 0},
        copy.deepcopy(SHEET),
    ]
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=8,
)
VALUES = st.one_of(DOMAIN_VALUES, JSON_VALUES).map(copy.deepcopy)
KEYS = st.one_of(
    st.sampled_from([*FIELD_NAMES, "x-", "x-note", "X-note", "bogus"]),
    TEXT,
    TEXT.map(lambda text: "x-" + text),
)


@st.composite
def mutated(draw: st.DrawFn) -> object:
    """The base or the variant with one to three random changes."""
    document: Any = copy.deepcopy(draw(st.sampled_from(list(BASES.values()))))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["replace", "delete", "add", "repeat"]))
        if kind == "replace":
            paths = [(), *value_paths(document)]
            document = replaced(document, draw(st.sampled_from(paths)), draw(VALUES))
        elif kind == "delete":
            paths = list(value_paths(document))
            if paths:
                document = removed(document, draw(st.sampled_from(paths)))
        elif kind == "add":
            objects = object_paths(document)
            if objects:
                path = draw(st.sampled_from(objects))
                document = replaced(document, (*path, draw(KEYS)), draw(VALUES))
        else:  # an array one item longer: a third play, an eleventh trick, a third round
            arrays = [path for path in array_paths(document) if get(document, path)]
            if arrays:
                path = draw(st.sampled_from(arrays))
                items = get(document, path)
                document = appended(document, path, draw(st.sampled_from(items)))
    return document


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_random_near_misses_get_the_same_verdict(document: object) -> None:
    note(json.dumps(document))
    schema, models = verdicts(document)
    assert schema == models
    if models:
        assert GameRecord.from_json(document).to_json() == document


# --- Round trip and immutability ------------------------------------------------------------


@pytest.mark.parametrize(
    "document",
    [
        pytest.param(document, id=name)
        for name, document, accepted in [
            ("base", BASE, True),
            ("variant", VARIANT, True),
            *CASES,
        ]
        if accepted
    ],
)
def test_round_trip(document: dict[str, Any]) -> None:
    record = GameRecord.from_json(document)
    assert record.to_json() == document
    assert GameRecord.from_json(record.to_json()) == record


def test_integers_given_as_floats_come_back_as_integers() -> None:
    document = changed(SPECIAL, 3.0)
    value = GameRecord.from_json(document).to_json()["rounds"][0]["special_number"]
    assert value == 3
    assert type(value) is int


def test_absent_keys_stay_absent() -> None:
    document = without("/rules")
    document = removed(document, parse_pointer("/rounds/0/deal/aside"))
    output = GameRecord.from_json(document).to_json()
    assert "rules" not in output
    assert "aside" not in output["rounds"][0]["deal"]
    assert GameRecord.from_json(document).rules is None


def all_models(model: RecordModel) -> Iterator[RecordModel]:
    yield model
    for name in type(model).model_fields:
        value = getattr(model, name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, RecordModel):
                yield from all_models(item)


@pytest.mark.parametrize("name", list(BASES))
def test_models_are_frozen(name: str) -> None:
    record = GameRecord.from_json(BASES[name])
    models = list(all_models(record))
    assert len(models) > 10
    for model in models:
        for field in type(model).model_fields:
            with pytest.raises(ValidationError, match="frozen"):
                setattr(model, field, getattr(model, field))
    assert isinstance(record.rounds, tuple)
    assert isinstance(record.rounds[0].deal.phantom, tuple)
    assert hash(GameRecord.from_json(BASE)) == hash(GameRecord.from_json(BASE))


def test_extensions_are_kept_and_not_shared() -> None:
    document = copy.deepcopy(VARIANT)
    record = GameRecord.from_json(document)
    assert record.extensions == {"x-source": {"scanned": True, "pages": [1, 2]}}
    assert record.players.extensions == {"x-ratings": [1500, 1480.5]}
    document["x-source"]["pages"].append(3)
    record.extensions["x-source"]["pages"].append(4)
    record.to_json()["x-source"]["pages"].append(5)
    assert record.to_json() == VARIANT


def test_errors_name_the_unknown_key_and_the_bad_value() -> None:
    document = changed("/rounds/0/tricks/0/colour", "red")
    document = replaced(document, parse_pointer(SPECIAL), True)
    with pytest.raises(ValidationError) as caught:
        GameRecord.from_json(document)
    locations = {error["loc"] for error in caught.value.errors()}
    assert locations == {
        ("rounds", 0, "tricks", 0, "colour"),
        ("rounds", 0, "special_number"),
    }


@pytest.mark.parametrize("name", list(BASES))
def test_a_record_built_from_validated_data_is_the_validated_record(name: str) -> None:
    """Commands build the record model from JSON the schema gate passed, without a second
    validation: it reads as the validated model does, rounds included."""
    document = BASES[name]
    built, validated = GameRecord.from_validated(document), GameRecord.from_json(document)
    assert built.to_json() == validated.to_json() == document
    fields = ("game_id", "event", "site", "date", "stage", "players", "sheet", "rules", "result")
    for field in fields:
        assert getattr(built, field) == getattr(validated, field), field
    assert built.rounds == validated.rounds
    # Its objects are made into models when first read: read as a whole, before or after,
    # it is the validated record.
    for whole in (
        lambda record: record,
        lambda record: record.model_dump(),
        lambda record: record.model_dump_json(),
        repr,
        hash,
        dict,
        lambda record: pickle.loads(pickle.dumps(record)),
        copy.deepcopy,
        lambda record: record.model_copy(update={"stage": "final"}).model_dump(),
    ):
        assert whole(GameRecord.from_validated(document)) == whole(validated)
        assert whole(built) == whole(validated)


def _errors(document: object, checked: object) -> list[tuple[str, list[object]]]:
    return [
        (error.message, list(error.absolute_path))
        for error in schema_validator().iter_errors(checked)
    ]


@pytest.mark.parametrize(
    "document", [pytest.param(document, id=name) for name, document, _ in CASES]
)
def test_schema_errors_are_the_same_with_valid_parts_stood_in(document: object) -> None:
    """jsonschema words the errors of a record whose valid rounds and tricks are replaced
    by small stand-ins: the errors must be exactly those of the whole record."""
    assert _errors(document, _without_valid_parts(document)) == _errors(document, document)


def test_a_round_with_an_error_of_its_own_has_its_valid_tricks_stood_in() -> None:
    """A round's own error (its special number here) keeps the round's values, not its
    tricks: jsonschema reads only the tricks that have an error, the same errors found."""
    record = copy.deepcopy(BASE)
    record["rounds"][0]["special_number"] = "2"
    record["rounds"][0]["tricks"][1]["winer"] = "phantom"
    checked = _without_valid_parts(record)
    tricks = checked["rounds"][0]["tricks"]
    assert checked["rounds"][0]["special_number"] == "2"
    assert tricks[1] is record["rounds"][0]["tricks"][1]
    assert all(trick is _VALID_TRICK for index, trick in enumerate(tricks) if index != 1)
    assert len(tricks) == len(record["rounds"][0]["tricks"])
    assert _errors(record, checked) == _errors(record, record)


def _in_order(errors: list[tuple[str, list[object]]]) -> list[tuple[str, list[object]]]:
    return sorted(errors, key=lambda error: _sort_key(error[1]))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "document", [pytest.param(document, id=name) for name, document, _ in CASES]
)
def test_schema_errors_of_the_failing_parts_are_the_whole_records(document: object) -> None:
    """jsonschema words the errors of each failing round or trick against its definition
    (or of the whole record, valid parts stood in, when an error is outside the rounds):
    the errors, with their paths in the record, are exactly those of the whole record."""
    parts = [
        (error.message, at) for error, at in _schema_errors(document, "game-record-1.schema.json")
    ]
    assert _in_order(parts) == _in_order(_errors(document, document))


def test_an_error_in_a_trick_is_worded_from_that_trick_alone() -> None:
    record = copy.deepcopy(BASE)
    record["rounds"][0]["tricks"][1]["winer"] = "phantom"
    record["rounds"][0]["tricks"][0]["plays"][0]["card"] = "Mi9"
    parts = _checked_parts(record)
    assert [(definition, at) for definition, _, at in parts] == [
        ("trick", ("rounds", 0, "tricks", 0)),
        ("trick", ("rounds", 0, "tricks", 1)),
    ]
    assert parts[1][1] is record["rounds"][0]["tricks"][1]
    assert [problem.pointer for problem in schema_problems(record)] == [
        "/rounds/0/tricks/0/plays/0/card",
        "/rounds/0/tricks/1/winer",
    ]


def test_a_round_with_an_error_of_its_own_is_worded_from_that_round() -> None:
    record = copy.deepcopy(BASE)
    record["rounds"][0]["special_number"] = "2"
    ((definition, value, at),) = _checked_parts(record)
    assert (definition, at) == ("round", ("rounds", 0))
    assert len(value["tricks"]) == len(record["rounds"][0]["tricks"]) > 0
    assert all(trick is _VALID_TRICK for trick in value["tricks"])
    assert [problem.pointer for problem in schema_problems(record)] == ["/rounds/0/special_number"]


def test_the_stand_ins_are_valid_in_a_record() -> None:
    record = copy.deepcopy(BASE)
    record["rounds"] = [_VALID_ROUND, {**BASE["rounds"][0], "tricks": [_VALID_TRICK] * 10}]
    assert schema_problems(record) == []
    # The record the gate is shown one round at a time in.
    assert schema_problems({**_VALID_RECORD, "rounds": [_VALID_ROUND]}) == []


@pytest.mark.parametrize(
    ("where", "text", "accepted"),
    [
        ("event", "Seoul\x1b[2K", False),
        ("event", "two\nlines", False),
        ("event", "C1 \x85 next line", False),
        ("event", "Seoul: finals, café 김", True),
        ("game_id", "id\rforged", False),
        ("comment", "a comment\nover\ttwo lines", True),
        ("comment", "a bell\x07", False),
    ],
)
def test_strings_hold_no_control_characters(where: str, text: str, accepted: bool) -> None:
    """FORMAT.md: the record's own strings hold no control characters; a comment alone may
    hold tabs and line breaks. The schema and the models agree, and the message names the
    character."""
    document = copy.deepcopy(BASE)
    if where == "comment":
        document["rounds"][0]["tricks"][0]["comment"] = text
    else:
        document[where] = text
    assert verdicts(document) == (accepted, accepted)
    problems = schema_problems(document)
    if not accepted:
        assert [problem.code for problem in problems] == ["schema"]
        assert "control character U+" in problems[0].message


@pytest.mark.parametrize(
    "document", [pytest.param(document, id=name) for name, document, _ in CASES]
)
def test_the_schema_gate_gives_the_verdict_of_the_schema_as_written(document: object) -> None:
    """The fast check every record passes (the gate generated from the schema file) gives
    jsonschema's verdict on the schema as written, on values no JSON text parses to (a
    lone surrogate, an integer past 64 bits) too."""
    assert schema_valid(document) == schema_validator().is_valid(document)
