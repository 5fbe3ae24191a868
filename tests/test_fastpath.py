"""The fast path never accepts what the full check rejects, and agrees on what it accepts.

The C check may decline anything (the full check then decides), but when it accepts a
record, the full check must find no problem at all and the same result.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_schema_models import mutated

from phantom_log.cards import CARD_CODES
from phantom_log.check import check_record, read_sheets
from phantom_log.fastpath import AVAILABLE, fast_verdict, sheet_layouts
from phantom_log.game import Rules
from phantom_log.sheets import RULEBOOK_SHEET, Sheet
from phantom_log.simulate import Simulation, simulate_game

REPO = Path(__file__).resolve().parent.parent
LAYOUTS = sheet_layouts(None)

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="the C extension is not built")


def full_verdict(record: Any, sheets: dict[str, Sheet] | None = None) -> tuple[Any, ...] | None:
    problems, replayed = check_record(record, sheets)
    if problems or replayed is None or replayed.result is None:
        return None
    result = replayed.result
    assert result.winner is not None
    return (result.winner, result.notes, replayed.ended_at)


def assert_agree(text: bytes, layouts: dict[str, bytes] = LAYOUTS, sheets: Any = None) -> bool:
    """The fast verdict is None or the full one; returns whether the fast path decided."""
    fast = fast_verdict(text, layouts)
    if fast is None:
        return False
    from phantom_log.sources import parse_json

    full = full_verdict(parse_json(text), sheets)
    assert full == (fast.winner, fast.notes, fast.ended_at), text[:200]
    return True


def simulated(seed: int, count: int, **options: Any) -> list[dict[str, Any]]:
    rules = Rules(options.pop("beginner", False), options.pop("balance", False))
    simulation = Simulation(RULEBOOK_SHEET, rules, seed=seed, **options)
    return [simulate_game(simulation, number) for number in range(1, count + 1)]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"beginner": True},
        {"balance": True},
        {"phantom": "greedy", "christine": "greedy"},
        {"phantom": "greedy", "beginner": True, "balance": True},
    ],
)
def test_simulated_games_are_decided_fast_and_alike(options: dict[str, Any]) -> None:
    decided = 0
    for record in simulated(11, 150, **options):
        decided += assert_agree(orjson.dumps(record))
    assert decided == 150  # every simulated game is plain and wholly valid


def test_named_custom_sheets() -> None:
    sheets_file = {
        "format": "phantom-log-sheets/1",
        "sheets": [
            {
                "name": "waltz",
                "bars": [
                    {"suit": "Ri", "notes": "PC"},
                    {"suit": "Mi", "notes": "CPPC"},
                    {"suit": "Ma", "notes": "PPC"},
                    {"suit": "Ch", "notes": "CPP"},
                ],
            }
        ],
    }
    sheets = read_sheets(json.dumps(sheets_file).encode())
    assert isinstance(sheets, dict)
    simulation = Simulation(sheets["waltz"], Rules(), "greedy", "random", seed=3)
    layouts = sheet_layouts(sheets)
    for number in range(1, 80):
        text = orjson.dumps(simulate_game(simulation, number))
        assert assert_agree(text, layouts, sheets)
        # Without the sheets file, the name is unknown: declined, and the full check says so.
        assert fast_verdict(text, LAYOUTS) is None


def test_examples_agree() -> None:
    for path in sorted((REPO / "examples").rglob("*.json")):
        assert_agree(path.read_bytes())


def test_unfinished_and_invalid_examples_are_declined() -> None:
    for path in [
        REPO / "examples" / "unfinished.json",
        *sorted((REPO / "examples" / "invalid").glob("*.json")),
    ]:
        assert fast_verdict(path.read_bytes(), LAYOUTS) is None, path.name


@pytest.mark.parametrize(
    "text",
    [
        b'"x-a": 1, "x-a": 2',  # a duplicate key
        b'"x-big": 9223372036854775808',  # beyond 64 bits, read by orjson as an int
        b'"x-huge": 123456789012345678901234567890',  # read by orjson as a float
        b'"x-float": 1.5',
        b'"x-deep": [[[[{"a": {"b": 1, "b": 2}}]]]]',
        b'"x-note": "a: b"',  # a colon in a string: the duplicate check cannot count keys
    ],
)
def test_json_oddities_are_declined(text: bytes) -> None:
    record = orjson.dumps(simulated(5, 1)[0])
    spliced = record[:-1] + b", " + text + b"}"
    assert fast_verdict(spliced, LAYOUTS) is None


def test_a_plain_extension_key_is_accepted() -> None:
    record = simulated(5, 1)[0]
    record["x-referee"] = {"name": "Baek", "table": 4, "flags": [True, None]}
    assert assert_agree(orjson.dumps(record))


def test_integers_written_as_floats_are_left_to_the_full_check() -> None:
    record = simulated(5, 1)[0]
    record["rounds"][0]["special_number"] = float(record["rounds"][0]["special_number"])
    text = orjson.dumps(record)
    assert fast_verdict(text, LAYOUTS) is None
    assert full_verdict(json.loads(text)) is not None


def _mutations(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One rule-level change: a card, a player, a number, a claim, a swap, a trick."""
    record = copy.deepcopy(record)
    round_ = rng.choice(record["rounds"])
    trick = rng.choice(round_["tricks"])
    play = rng.choice(trick["plays"])
    choice = rng.randrange(9)
    if choice == 0:
        play["card"] = rng.choice(CARD_CODES)
    elif choice == 1:
        play["player"] = "phantom" if play["player"] == "christine" else "christine"
    elif choice == 2:
        round_["special_number"] = rng.randint(1, 6)
    elif choice == 3:
        trick["winner"] = rng.choice(["phantom", "christine"])
    elif choice == 4:
        play.pop("swap", None) if "swap" in play else play.update(
            swap={"phantom": [rng.choice(CARD_CODES)], "christine": [rng.choice(CARD_CODES)]}
        )
    elif choice == 5:
        round_["tricks"].remove(trick)
    elif choice == 6:
        record["result"]["notes"] = rng.randint(0, 12)
    elif choice == 7:
        hand = round_["deal"][rng.choice(["phantom", "christine", "aside"])]
        hand[rng.randrange(len(hand))] = rng.choice(CARD_CODES)
    else:
        trick["plays"] = trick["plays"][:1]
    return record


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(["random", "greedy"]), st.booleans())
def test_rule_mutations_are_never_wrongly_accepted(seed: int, policy: str, balance: bool) -> None:
    (record,) = simulated(seed, 1, phantom=policy, balance=balance)
    rng = random.Random(seed)
    for _ in range(4):
        assert_agree(orjson.dumps(_mutations(record, rng)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_schema_mutations_are_never_wrongly_accepted(document: object) -> None:
    try:
        text = orjson.dumps(document)
    except (TypeError, orjson.JSONEncodeError):
        return  # lone surrogates cannot be written as UTF-8 JSON text
    assert_agree(text)
