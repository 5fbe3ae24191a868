"""The digest of a record's content (``duplicate-record``): the same for two records equal
as JSON values apart from their game ids, however each is written (key order at any
depth, spaces, escapes, the forms of one number), and different for any other content;
and the facts of a record of the schema's shape are the ones its record model reads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from benchmarks.corpus import build_record
from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.checking.verdict import verify_record
from phantom_log.records.chunks import read_chunks
from phantom_log.records.found_sources import find_sources
from phantom_log.records.source_records import chunk_records, read_source
from phantom_log.records.strictjson import parse_json
from phantom_log.rules.engine import Rules
from phantom_log.rules.replay import VerdictBuilder
from phantom_log.rules.sheets import RULEBOOK_SHEET
from phantom_log.tournament.facts import (
    FactsTable,
    RecordFacts,
    content_digest,
    record_facts,
    report_facts,
)
from tests.helpers.cli import run

EXAMPLES = Path(__file__).parents[2] / "examples"


def record() -> dict[str, Any]:
    """A simulated game with an ``x-`` value of every kind: non-ASCII and escaped text,
    fractions, nested objects."""
    game = simulate_game(Simulation(RULEBOOK_SHEET, Rules(), seed=1), 3)
    game["game_id"] = "open/1"
    game["event"] = "Opéra d'été"
    game["x-clock"] = {"seconds": [1.5, 2.0, 30], "by": {"zone": "Europe/Paris", "dst": True}}
    game["x-note"] = 'a "quoted" \\ remark\tand a tab'
    return game


def reordered(value: Any) -> Any:
    """The same value with the keys of every object in the reverse order."""
    if isinstance(value, dict):
        return {key: reordered(item) for key, item in reversed(value.items())}
    if isinstance(value, list):
        return [reordered(item) for item in value]
    return value


def writings(game: dict[str, Any]) -> list[bytes]:
    """The same content written in different ways, each with its own game id."""
    compact = orjson.dumps(game)
    ascii_escaped = json.dumps(dict(game, game_id="open/2")).encode()  # é as \u00e9
    assert b"\\u00e9" in ascii_escaped
    spaced = json.dumps(reordered(dict(game, game_id="open/3")), indent=2, ensure_ascii=False)
    # Other forms of the same strings and numbers: "\/" for "/", 1.50 and 20e-1 for 1.5
    # and 2.0, a letter escaped.
    forms = (
        compact.replace(b'"open/1"', b'"open\\/4"')
        .replace(b"Europe/Paris", b"Europe\\/Paris")
        .replace(b"[1.5,2.0,30]", b"[1.50,20e-1,30]")
        .replace('"Opéra'.encode(), b'"Op\\u00E9ra')
    )
    assert forms.count(b"\\/") == 2 and b"20e-1" in forms and b"\\u00E9" in forms
    return [compact, ascii_escaped, spaced.encode(), forms]


def digest_of(text: bytes) -> bytes:
    return content_digest(parse_json(text))


def test_one_content_written_four_ways_has_one_digest() -> None:
    texts = writings(record())
    assert len(set(texts)) == len(texts)
    assert len({digest_of(text) for text in texts}) == 1


def other_contents(game: dict[str, Any]) -> list[dict[str, Any]]:
    """Records that differ from ``game`` in one value, key or form of a number."""
    other_card = json.loads(json.dumps(game))
    plays = other_card["rounds"][0]["tricks"][0]["plays"]
    plays[0]["card"], plays[1]["card"] = plays[1]["card"], plays[0]["card"]
    return [
        other_card,
        dict(game, event="Opéra d'été "),  # a space more inside a string
        dict(game, event="Ope\u0301ra d'été"),  # é decomposed: typed differently
        dict(game, **{"x-clock": {**game["x-clock"], "seconds": [1.5, 2, 30]}}),  # 2 for 2.0
        dict(game, **{"x-clock": {**game["x-clock"], "seconds": [1.5, 2.0, "30"]}}),
        dict(game, **{"x-Note": game["x-note"]}),  # the same value under another key
        {key: value for key, value in game.items() if key != "x-note"},
    ]


def test_every_other_content_has_another_digest() -> None:
    game = record()
    digests = [digest_of(orjson.dumps(game))] + [
        digest_of(orjson.dumps(other)) for other in other_contents(game)
    ]
    assert len(set(digests)) == len(digests)


def test_the_game_id_is_no_part_of_the_content() -> None:
    game = record()
    without = {key: value for key, value in game.items() if key != "game_id"}
    assert digest_of(orjson.dumps(game)) == digest_of(orjson.dumps(without))
    assert digest_of(orjson.dumps(dict(game, game_id="other"))) == digest_of(orjson.dumps(game))


def test_copies_written_differently_are_one_record_to_tournament_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    compact, ascii_escaped, spaced, forms = writings(record())
    (tmp_path / "a.jsonl").write_bytes(compact + b"\n" + ascii_escaped + b"\n" + forms + b"\n")
    (tmp_path / "b.json").write_bytes(spaced)
    result = run("tournament", "check", "--format", "json", "a.jsonl", "b.json")
    document = json.loads(result.stdout)
    copies = [
        (problem["source"], problem["index"], problem["message"])
        for problem in document["problems"]
        if problem["code"] == "duplicate-record"
    ]
    first = "the same record as a.jsonl#0 (open/1), apart from the game id"
    assert copies == [("a.jsonl", 1, first), ("a.jsonl", 2, first), ("b.json", 0, first)]


def model_facts(report: Any) -> RecordFacts:
    """The facts of a record of the schema's shape as they were made from its record
    model, its content digested as a copy without the game id written with sorted keys."""
    model = report.model
    body = {key: value for key, value in report.record.items() if key != "game_id"}
    facts = record_facts(report)
    return RecordFacts(
        report.source,
        report.index,
        report.game_id,
        report.valid,
        model.players.phantom,
        model.players.christine,
        model.stage,
        hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).digest()[:16],
        facts.deals,
        facts.winner,
        facts.notes,
        facts.finished,
    )


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    path.write_bytes(b"".join(build_record(1, index, 680).line + b"\n" for index in range(680)))
    return path


def test_the_facts_of_a_record_of_the_schema_s_shape_are_those_its_model_reads(
    corpus: Path,
) -> None:
    records = [record for chunk in read_chunks(str(corpus)) for record in chunk_records(chunk)] + [
        record for source in find_sources([str(EXAMPLES)]) for record in read_source(source)
    ]
    shaped = 0
    for source_record in records:
        report = verify_record(source_record, None, False, VerdictBuilder)
        if report.model is None:
            assert not report.schema_shaped
            continue
        shaped += 1
        assert report.schema_shaped
        assert record_facts(report) == model_facts(report)
    assert shaped > 600


def test_a_chunk_s_table_filled_from_its_reports_holds_their_record_facts(
    corpus: Path,
) -> None:
    """A worker fills its chunk's table with each report's facts as a tuple
    (``report_facts``, no RecordFacts made): the table holds the same facts, column for
    column, as one filled with each record's RecordFacts; that of a record cut short,
    refused by the schema or by the rules included."""
    records = [record for chunk in read_chunks(str(corpus)) for record in chunk_records(chunk)] + [
        record for source in find_sources([str(EXAMPLES)]) for record in read_source(source)
    ]
    reports = [verify_record(record, None, False, VerdictBuilder) for record in records]
    assert {report.schema_shaped for report in reports} == {True, False}
    assert {report.valid for report in reports} == {True, False}
    rows = FactsTable()
    for report in reports:
        rows.add(report_facts(report))
    expected = [record_facts(report) for report in reports]
    assert list(rows) == expected
    made = FactsTable(expected)
    for column in ("source_ids", "game_key_hashes", "phantom_keys", "content", "deals"):
        assert getattr(rows, column) == getattr(made, column), column
    assert rows.sources == made.sources


def test_a_deal_key_is_the_whole_deal_in_one_word() -> None:
    """The checks across records find repeated deals by their keys, a 64-bit word each in
    the table: two deals that share the Phantom's hand but not Christine's must differ
    there (with the Phantom's hand alone, a million records made a million candidates
    to compare)."""
    from types import SimpleNamespace

    from phantom_log.tournament.facts import _deal_keys

    phantom = 0b1111111111
    deals = ((phantom, 0b1111111111 << 10), (phantom, 0b1111111111 << 12))
    log = SimpleNamespace(final=SimpleNamespace(deals=deals))
    keys = _deal_keys(log)  # type: ignore[arg-type]
    assert len(set(keys)) == 2
    assert all(0 < key < 1 << 64 for key in keys)
