"""The games and tricks tables against a reference construction.

The tables are made from the engine's events and the parsed record, without the record
model (:func:`~phantom_log.tabular.rows.game_row`,
:class:`~phantom_log.tabular.tables.TableRows`).
The reference here builds the same rows the plain way: the metadata from the record model
(validated by pydantic from the record's JSON), each trick from annotate's own JSON of it,
the counts from the game's whole event list, and a frame made from dicts. Both must agree
on every example (invalid ones included) and on a few thousand records of the benchmark
corpus, whether the rows are made a record at a time or by a worker's chunk.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from pydantic import ValidationError

import phantom_log
from phantom_log.checking.verdict import RecordReport
from phantom_log.records.chunks import read_chunks
from phantom_log.records.found_sources import find_sources
from phantom_log.records.model import GameRecord
from phantom_log.rules.events import RoundEnded, RoundStarted
from phantom_log.rules.problems import Code, Severity
from phantom_log.running.pipeline import tables_chunk
from phantom_log.tabular.tables import (
    GAME_KEY,
    GAME_SCHEMA,
    TRICK_SCHEMA,
    TrickCsv,
    build_tables,
    chunk_tables,
    decode_tricks,
    record_rows,
)
from phantom_log.views.annotate import ANNOTATION_FIELDS, annotate
from phantom_log.views.csv_output import CsvRows
from tests.helpers.paths import REPO

CORPUS_RECORDS = 3_000


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Every example (valid, invalid, game text) and a few thousand corpus records."""
    from benchmarks.corpus import build_part

    corpus = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    corpus.write_bytes(build_part((1, CORPUS_RECORDS, 0, CORPUS_RECORDS)).lines)
    examples = sorted((REPO / "examples").glob("*.json")) + sorted(
        (REPO / "examples" / "invalid").iterdir()
    )
    examples += sorted((REPO / "examples").glob("*.ptn"))
    return [*examples, corpus]


@pytest.fixture(scope="module")
def reports(sources: list[Path]) -> list[RecordReport]:
    return list(phantom_log.verify(sources))


def _passed_schema(report: RecordReport) -> bool:
    return isinstance(report.record, dict) and not any(
        problem.code in (Code.JSON, Code.SCHEMA) for problem in report.problems
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def reference_game(report: RecordReport) -> dict[str, Any]:
    """A record's games row, the plain way: the record model's metadata, the counts from
    the game's whole event list."""
    record = report.record if isinstance(report.record, dict) else {}
    model = None
    if _passed_schema(report):
        # A game text whose deal was left out and cannot be found is no full record.
        with contextlib.suppress(ValidationError):
            model = GameRecord.from_json(record)
    players = record.get("players") if isinstance(record.get("players"), dict) else {}
    if model is not None:
        meta = [model.event, model.site, model.date, model.stage]
        names = [model.players.phantom, model.players.christine]
        sheet = model.sheet if isinstance(model.sheet, str) else model.sheet.name
        rules = model.rules
        flags = [rules.beginner, rules.balance] if rules is not None else [False, False]
    else:
        meta = [_text(record.get(key)) for key in ("event", "site", "date", "stage")]
        names = [_text(players.get("phantom")), _text(players.get("christine"))]
        given = record.get("sheet")
        sheet = _text(given) or (_text(given.get("name")) if isinstance(given, dict) else None)
        rules = record.get("rules", {})
        if report.record is None or not isinstance(rules, dict):
            flags = [None, None]
        else:
            flags = [rules.get(key, False) for key in ("beginner", "balance")]
            flags = [flag if isinstance(flag, bool) else None for flag in flags]
    log = report.log
    starts = [] if log is None else [e for e in log.events if type(e) is RoundStarted]
    ends = [] if log is None else [e for e in log.events if type(e) is RoundEnded]
    tricks = [] if log is None else list(annotate(log, report.game_id, explained=False))
    if log is not None:
        sheet, flags = log.sheet.name, [log.rules.beginner, log.rules.balance]
    errors = [p for p in report.problems if p.severity is Severity.ERROR]
    first = (errors or list(report.problems) or [None])[0]
    result = report.result
    special = [trick.outcome for trick in tricks if trick.special]
    return {
        "source": report.source,
        "index": report.index,
        "game_id": report.game_id,
        "event": meta[0],
        "site": meta[1],
        "date": meta[2],
        "stage": meta[3],
        "phantom": names[0],
        "christine": names[1],
        "sheet": sheet or None,
        "beginner": flags[0],
        "balance": flags[1],
        "valid": report.valid,
        "first_problem": None if first is None else first.code.value,
        "winner": None if result is None or result.winner is None else result.winner.key,
        "notes": None if result is None else result.notes,
        "rounds_played": len(starts),
        "tricks_played": len(tricks),
        "notes_after_round_1": ends[0].notes if ends else None,
        "special_number_1": starts[0].special_number if starts else None,
        "special_number_2": starts[1].special_number if len(starts) > 1 else None,
        "special_tricks": len(special),
        "notes_added_by_special": sum(outcome.notes_added_by_special for outcome in special),
        "notes_removed_by_special": sum(outcome.notes_removed_by_special for outcome in special),
    }


def reference_tables(
    reports: list[RecordReport], include_invalid: bool
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The games and tricks tables of the reports, built from dicts of the plain rows."""
    kept = [report for report in reports if report.valid or include_invalid]
    games = [reference_game(report) for report in kept]
    tricks = [
        {"source": report.source, "index": report.index, **annotation.to_json()}
        for report in kept
        if report.log is not None
        for annotation in annotate(report.log, report.game_id, explained=False)
    ]
    # The date as the record's text, read as a date (or none) the way the tables read it.
    dates = pl.col("date").str.to_date("%Y-%m-%d", strict=False)
    return (
        pl.DataFrame(games, schema={**GAME_SCHEMA, "date": pl.String}).with_columns(dates),
        pl.DataFrame(tricks, schema=TRICK_SCHEMA, orient="row"),
    )


def test_the_sources_hold_every_kind_of_record(reports: list[RecordReport]) -> None:
    """The comparison covers valid, unfinished and invalid records of many codes, and
    records that never reached the replay (json, schema, sheets)."""
    codes = {problem.code for report in reports for problem in report.problems}
    assert len(reports) > CORPUS_RECORDS
    assert {Code.JSON, Code.SCHEMA, Code.UNKNOWN_SHEET, Code.BAD_SHEET, Code.REVOKE} <= codes
    assert sum(report.valid for report in reports) > CORPUS_RECORDS * 0.8
    assert any(report.log is None and not report.valid for report in reports)


@pytest.mark.parametrize("include_invalid", [False, True])
def test_the_tables_of_records_are_the_reference_tables(
    reports: list[RecordReport], include_invalid: bool
) -> None:
    """Rows made a record at a time, gathered in chunks: the reference's every cell."""
    games, tricks = reference_tables(reports, include_invalid)
    rows = [record_rows(report, include_invalid) for report in reports]
    chunks = [chunk_tables(rows[i : i + 700], include_invalid) for i in range(0, len(rows), 700)]
    made_games = pl.concat([chunk.games.drop(GAME_KEY) for chunk in chunks])
    made_tricks = pl.concat([decode_tricks(chunk.tricks).drop(GAME_KEY) for chunk in chunks])
    assert made_games.schema == games.schema and made_tricks.schema == tricks.schema
    assert made_games.height == games.height > 2_500
    assert made_tricks.height == tricks.height > 50_000
    assert made_games.equals(games)
    assert made_tricks.equals(tricks)


@pytest.mark.parametrize("include_invalid", [False, True])
def test_the_tables_a_worker_makes_are_the_reference_tables(
    sources: list[Path], reports: list[RecordReport], include_invalid: bool, tmp_path: Path
) -> None:
    """The worker's unit (a chunk of a source, read, checked and made into frames) and the
    work files export and stats read: the reference's tables, each trick under its own
    game's key."""
    games, tricks = reference_tables(reports, include_invalid)
    chunks = [
        tables_chunk(chunk, None, include_invalid)
        for source in find_sources([str(path) for path in sources])
        for chunk in read_chunks(source)
    ]
    files = build_tables(chunks, tmp_path, include_invalid)
    assert files.records == len(reports)
    assert files.included == games.height
    made_games = files.scan_games().collect()
    made_tricks = files.scan_tricks().collect()
    assert made_games.drop(GAME_KEY).equals(games)
    assert made_tricks.drop(GAME_KEY).equals(tricks)
    owners = made_tricks.join(made_games, on=GAME_KEY, suffix="_game")
    assert owners.height == made_tricks.height
    assert (owners["game_id"] == owners["game_id_game"]).all()
    assert (owners["index"] == owners["index_game"]).all()
    # The CSV text of the swaps, decoded straight from their packing, is the text of the
    # decoded lists.
    as_written = files.scan_tricks(swaps_as_written=True).collect()
    assert as_written.drop("swaps").equals(made_tricks.drop("swaps"))
    texts = [
        "; ".join(
            f"{swap['after']} P:{'+'.join(swap['phantom']) or '-'} "
            f"C:{'+'.join(swap['christine']) or '-'}"
            for swap in swaps
        )
        or None
        for swaps in made_tricks["swaps"].to_list()
    ]
    assert as_written["swaps"].to_list() == texts
    assert sum(text is not None for text in texts) > 10_000


def test_the_fast_trick_csv_is_annotates_row_by_row_csv(reports: list[RecordReport]) -> None:
    """``annotate --format csv`` (columns decoded by polars, a batch at a time) writes the
    very bytes of the row-by-row CSV of each annotation (the path ``--explain`` takes)."""
    fast = io.StringIO()
    writer = TrickCsv(fast, batch_size=5_000)
    for report in reports:
        writer.add(report)
    writer.flush()
    reference = io.StringIO()
    rows = CsvRows(reference, list(ANNOTATION_FIELDS))
    rows.write_header()
    for report in reports:
        if report.log is not None:
            rows.write_all(
                annotation.to_csv_row()
                for annotation in annotate(report.log, report.game_id, explained=False)
            )
    assert fast.getvalue().count("\n") > 50_000
    assert fast.getvalue() == reference.getvalue()
