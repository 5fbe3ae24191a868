"""The fast schema check gives jsonschema's verdict on every document we can think of.

jsonschema stays the authority for the wording; the fast check only decides valid or
invalid first (phantom_log.fastschema). Both must agree everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from test_schema_models import (
    BASES,
    CASES,
    WRONG_VALUES,
    mutated,
    removed,
    replaced,
    value_paths,
)

from phantom_log.check import RECORD_SCHEMA, SHEETS_SCHEMA, fast_schema_check, schema_validator
from phantom_log.fastschema import UnsupportedSchema, compile_schema
from phantom_log.game import Rules
from phantom_log.sheets import RULEBOOK_SHEET
from phantom_log.simulate import Simulation, simulate_game

REPO = Path(__file__).resolve().parent.parent


def agree(document: object, name: str = RECORD_SCHEMA) -> None:
    authority = not any(True for _ in schema_validator(name).iter_errors(document))
    assert fast_schema_check(name)(document) is authority, json.dumps(document)[:300]


@pytest.mark.parametrize(("name", "document", "accepted"), CASES, ids=[c[0] for c in CASES])
def test_near_misses(name: str, document: object, accepted: bool) -> None:
    agree(document)
    assert fast_schema_check()(document) is accepted


def test_every_value_replaced_and_removed() -> None:
    for base in BASES.values():
        for path in value_paths(base):
            for _, value in WRONG_VALUES:
                agree(replaced(base, path, value))
            if path:
                agree(removed(base, path))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_random_mutations(document: object) -> None:
    agree(document)


def example_documents() -> list[Any]:
    documents = []
    for path in sorted((REPO / "examples").rglob("*.json")):
        try:
            value = json.loads(path.read_text())
        except ValueError:
            continue
        documents.extend(value if isinstance(value, list) else [value])
    return documents


def test_examples() -> None:
    documents = example_documents()
    assert len(documents) > 20
    for document in documents:
        agree(document)


@pytest.mark.parametrize("rules", [Rules(), Rules(beginner=True, balance=True)])
def test_simulated_games(rules: Rules) -> None:
    simulation = Simulation(RULEBOOK_SHEET, rules, "random", "greedy", seed=5)
    for number in range(1, 60):
        record = simulate_game(simulation, number)
        assert fast_schema_check()(record)
        agree(record)


def test_sheets_files() -> None:
    sheet = {"name": "waltz", "bars": [{"suit": "Ri", "notes": "PC"}]}
    for document in [
        {"format": "phantom-log-sheets/1", "sheets": [sheet]},
        {"format": "phantom-log-sheets/1", "sheets": []},
        {"format": "phantom-log-sheets/1", "sheets": [sheet], "x-note": 1},
        {"format": "phantom-log-sheets/2", "sheets": [sheet]},
        {"format": "phantom-log-sheets/1", "sheets": [{**sheet, "bars": [{"suit": "Xx"}]}]},
        {"format": "phantom-log-sheets/1", "sheets": [{**sheet, "extra": 1}]},
        [],
    ]:
        agree(document, SHEETS_SCHEMA)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "propertyNames": {"maxLength": 3}},
        {"format": "email"},
        {"enum": [1, 2]},
        {"patternProperties": {"^y-": {}}},
        {"$ref": "https://example.com/other.json"},
    ],
)
def test_unsupported_keywords_are_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchema):
        compile_schema(schema)


@pytest.mark.parametrize(
    ("value", "valid"),
    [(1, True), (1.0, True), (True, False), (1.5, False), ("1", False), (7, False), (0, False)],
)
def test_integers_as_json_schema_counts_them(value: object, valid: bool) -> None:
    check = compile_schema({"type": "integer", "minimum": 1, "maximum": 6})
    assert check(value) is valid
