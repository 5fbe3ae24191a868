"""One batch of records as the tables of ``export``: the unit of work of any engine.

:func:`batch_tables` turns a batch of records (the bytes of JSON Lines, a whole object of a store or
a byte range of one cut at line boundaries, or a list of parsed records) into three tables: the
games and the tricks, with exactly the columns and types of ``export``
(:data:`~phantom_log.tabular.tables.GAME_SCHEMA`, :data:`~phantom_log.tabular.tables.TRICK_SCHEMA`),
and the problems, one row per problem as ``verify --format json`` gives it. It needs nothing but its
arguments, so Dask, Spark, Ray or a plain loop can run it anywhere. Its one step from records to
rows, :func:`batch_rows`, is the very function ``export``'s worker processes run on each chunk of
their sources (:func:`phantom_log.running.pipeline.tables_chunk`), so the two cannot drift.

A record that makes the checker fail is an ``internal-error`` problem of that record,
never a lost batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from ..checking.verdict import RecordReport, verify_record
from ..records.chunks import text_chunks
from ..records.selection import Selection
from ..records.source_records import SourceRecord, chunk_records
from ..rules.problems import Problem
from ..rules.replay import GameLogBuilder, VerdictBuilder
from ..rules.sheets import Sheet
from .tables import (
    GAME_KEY,
    GAME_SCHEMA,
    TRICK_SCHEMA,
    ChunkTables,
    RecordRows,
    chunk_tables,
    decode_tricks,
    isolated_rows,
)

if TYPE_CHECKING:
    import pyarrow as pa

#: The problems table: one row per problem, with the record it belongs to. ``code``,
#: ``severity``, ``message``, ``pointer``, ``round`` and ``trick`` are the fields of a
#: problem in ``verify --format json``; ``hint`` is the second line of the text report.
PROBLEM_SCHEMA: Final = {
    "source": pl.String,
    "index": pl.Int64,
    "game_id": pl.String,
    "code": pl.String,
    "severity": pl.String,
    "pointer": pl.String,
    "round": pl.Int64,
    "trick": pl.Int64,
    "message": pl.String,
    "hint": pl.String,
}


@dataclass(frozen=True, slots=True)
class BatchTables:
    """The tables of one batch of records, and its counts.

    The tables are polars DataFrames, which hold Arrow memory: :meth:`arrow` gives them
    as pyarrow tables without a copy, and any Arrow library takes a DataFrame as it is
    (the Arrow PyCapsule interface)."""

    #: The games table (:data:`~phantom_log.tabular.tables.GAME_SCHEMA`): one row per included
    #: record.
    games: pl.DataFrame
    #: The tricks table (:data:`~phantom_log.tabular.tables.TRICK_SCHEMA`): one row per trick of
    #: the included records, in play order.
    tricks: pl.DataFrame
    #: The problems table (:data:`PROBLEM_SCHEMA`): one row per problem of every record.
    problems: pl.DataFrame
    #: Records read (after the selection, if any).
    records: int = 0
    #: Records in the games table (invalid ones only with ``include_invalid``).
    included: int = 0
    #: Invalid records (included or not).
    invalid: int = 0
    #: Warnings, all records together (the count of ``verify``'s summary line).
    warnings: int = 0
    #: Records the run could not check (``unreadable``, ``internal-error``).
    failed: int = 0

    @property
    def left_out(self) -> int:
        """Records not in the games table (invalid ones, without ``include_invalid``)."""
        return self.records - self.included

    @property
    def valid(self) -> int:
        """Valid records (a warning does not make a record invalid)."""
        return self.records - self.invalid

    def arrow(self) -> dict[str, pa.Table]:
        """The three tables as pyarrow tables (``games``, ``tricks``, ``problems``), with
        the string types every Arrow reader knows (``large_string``). Needs pyarrow."""
        oldest = pl.CompatLevel.oldest()
        return {
            "games": self.games.to_arrow(compat_level=oldest),
            "tricks": self.tricks.to_arrow(compat_level=oldest),
            "problems": self.problems.to_arrow(compat_level=oldest),
        }


def batch_tables(
    records: bytes | Iterable[Any],
    source: str = "-",
    *,
    sheets: Mapping[str, Sheet] | None = None,
    include_invalid: bool = False,
    strict: bool = False,
    tables: bool = True,
    first_line: int = 1,
    first_index: int = 0,
    json_lines: bool = True,
    selection: Selection | None = None,
    max_record_size: int | None = None,
) -> BatchTables:
    """The games, tricks and problems tables of one batch of records.

    ``records`` is either bytes, the text of JSON Lines (a whole object of a store, or a
    byte range of one cut at line boundaries: its first line is line ``first_line`` of
    the object and its first record has the index ``first_index``; with ``json_lines``
    false, one ``.json`` document), or parsed records (JSON values, indexed from
    ``first_index``). ``source`` names the records' source in every row, as ``export``
    and ``verify`` name a file.

    Each record is checked as ``verify`` checks it (``sheets`` adds named sheets,
    ``strict`` makes warnings errors). Invalid records are left out of the games and
    tricks tables unless ``include_invalid``; every problem of every record is in the
    problems table. Without ``tables`` the games and tricks tables are left empty and
    only the problems and the counts are made (``verify``'s work, faster). ``selection``
    keeps only the records it matches; ``max_record_size`` is the size limit of a line
    (default: the one in force).
    """
    if isinstance(records, bytes | bytearray | memoryview):
        read: Iterator[SourceRecord] = (
            record
            for chunk in text_chunks(
                source,
                bytes(records),
                json_lines,
                first_line,
                first_index,
                max_record_size=max_record_size,
                selection=selection,
            )
            for record in chunk_records(chunk, sheets)
        )
    else:
        read = (
            SourceRecord(source, first_index + offset, data)
            for offset, data in enumerate(records)
            if selection is None or selection.matches(data)
        )
    return batch_rows(
        read, sheets, include_invalid=include_invalid, strict=strict, tables=tables
    ).decoded()


@dataclass(frozen=True, slots=True)
class BatchRows:
    """The rows of one batch of records before its tricks are decoded: the tables of its
    chunk as ``export``'s worker processes send them back (games keyed from 0, tricks
    packed, :class:`~phantom_log.tabular.tables.ChunkTables`), with its problems and warnings."""

    chunk: ChunkTables
    #: Rows of the problems table (:data:`PROBLEM_SCHEMA`), when asked for.
    problems: list[tuple[Any, ...]]
    warnings: int

    def decoded(self) -> BatchTables:
        """The batch's tables as :func:`batch_tables` gives them: the tricks decoded
        (:func:`~phantom_log.tabular.tables.decode_tricks`, which ``export`` applies to the
        same frames when it writes them), without the key joining the two."""
        chunk = self.chunk
        return BatchTables(
            chunk.games.drop(GAME_KEY),
            decode_tricks(chunk.tricks).drop(GAME_KEY),
            pl.DataFrame(self.problems, schema=PROBLEM_SCHEMA, orient="row"),
            chunk.records,
            chunk.included,
            chunk.invalid,
            self.warnings,
            chunk.failed,
        )


def batch_rows(
    records: Iterable[SourceRecord],
    sheets: Mapping[str, Sheet] | None = None,
    *,
    include_invalid: bool = False,
    strict: bool = False,
    tables: bool = True,
    problems: bool = True,
) -> BatchRows:
    """The one step from records read to the rows of the tables, for every engine: the
    records are checked as ``verify`` checks them, and each one's rows made
    (:func:`~phantom_log.tabular.tables.isolated_rows`: a failure is that record's
    ``internal-error``) and gathered into frames (:func:`~phantom_log.tabular.tables.chunk_tables`).
    :func:`batch_tables` runs it on its batch; ``export``, ``stats`` and
    :func:`phantom_log.tabular.tables` run it on each chunk of their sources
    (:func:`phantom_log.running.pipeline.tables_chunk`), so the unit of work and ``export`` cannot
    drift. Without ``tables`` no row is made (only the problems and the counts); without
    ``problems`` the problem rows are not gathered (the counts still are)."""
    found: list[tuple[Any, ...]] = []
    warnings = 0

    def rows() -> Iterator[RecordRows]:
        nonlocal warnings
        for record in records:
            report = verify_record(
                record, sheets, strict, GameLogBuilder if tables else VerdictBuilder
            )
            if tables:
                report, one = isolated_rows(report, include_invalid)
            else:
                one = RecordRows(report.valid, None, ([], []), report.failed)
            warnings += report.warnings
            if problems:
                found.extend(problem_row(report, problem) for problem in report.problems)
            yield one

    chunk = chunk_tables(rows(), include_invalid)
    return BatchRows(chunk, found, warnings)


def problem_row(report: RecordReport, problem: Problem) -> tuple[Any, ...]:
    """A row of the problems table, in the order of :data:`PROBLEM_SCHEMA`."""
    return (report.source, report.index, report.game_id, *problem_fields(problem))


def problem_fields(problem: Problem) -> tuple[Any, ...]:
    """The problem's own columns of the problems table (from ``code`` to ``hint``)."""
    found = problem.to_json()
    return (
        found["code"],
        found["severity"],
        found["pointer"],
        found["round"],
        found["trick"],
        found["message"],
        problem.hint,
    )


def empty_tables() -> BatchTables:
    """The tables of a batch without records."""
    return BatchTables(
        pl.DataFrame(schema=GAME_SCHEMA),
        pl.DataFrame(schema=TRICK_SCHEMA),
        pl.DataFrame(schema=PROBLEM_SCHEMA),
    )


def failed_batch(source: str, index: int, problem: Problem) -> BatchTables:
    """The tables of a batch that could not be read or checked at all: one problem row,
    at the index of its first record, and one record that the run could not check."""
    empty = empty_tables()
    row = (source, index, None, *problem_fields(problem))
    return BatchTables(
        empty.games,
        empty.tricks,
        pl.DataFrame([row], schema=PROBLEM_SCHEMA, orient="row"),
        records=1,
        invalid=1,
        failed=1,
    )


def problems_of(rows: pl.DataFrame) -> Iterator[RecordReport]:
    """The problems table's rows back as one report per record, in the table's order (the
    problems of a record are consecutive), for wording them as ``verify`` does
    (:func:`phantom_log.views.reports.report_lines`). A report so made has no result."""
    from ..rules.problems import Code, Severity

    current: tuple[str, int, str | None] | None = None
    found: list[Problem] = []
    for row in rows.iter_rows(named=True):
        key = (row["source"], row["index"], row["game_id"])
        if current is not None and key != current:
            yield RecordReport(*current, tuple(found))
            found = []
        current = key
        found.append(
            Problem(
                Code(row["code"]),
                row["message"],
                row["pointer"],
                row["round"],
                row["trick"],
                Severity(row["severity"]),
                row["hint"],
            )
        )
    if current is not None:
        yield RecordReport(*current, tuple(found))
