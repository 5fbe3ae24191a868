"""What one task of a run on a cluster does, on a worker: check one range of records (the
unit of work of every engine, :func:`phantom_log.tabular.batch.batch_tables`), or one
chunk of a source read by the command line's reader, write its Parquet files, and send
back its counts and problems."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import polars as pl

from ..records.chunks import Chunk
from ..records.selection import Selection
from ..records.source_records import chunk_records
from ..rules.problems import FAILURE_CODES, Code, Problem
from ..rules.sheets import Sheet
from ..tabular.batch import BatchTables, batch_rows, batch_tables, failed_batch

_PART_NAME: Final = "part-{source:06d}-{block:06d}.parquet"
_FAILURE_VALUES: Final = [code.value for code in FAILURE_CODES]


class PartWriteFailed(OSError):
    """A task could not write its Parquet files (raised on the worker, ends the run)."""


@dataclass(frozen=True, slots=True)
class Part:
    """One task's share of the input: a byte range of one object (the whole object when
    it is small), with where it starts in its object."""

    #: The object's place among the sources, and the range's among its ranges.
    source_number: int
    block_number: int
    #: The object as the rows name it (a local path as given, or a URL).
    source: str
    json_lines: bool
    first_line: int = 1
    first_index: int = 0

    @property
    def file_name(self) -> str:
        """The name of its Parquet file in each dataset (in input order when sorted)."""
        return _PART_NAME.format(source=self.source_number, block=self.block_number)


@dataclass(frozen=True, slots=True)
class Job:
    """What every task of a run is asked (sent with each task)."""

    sheets: Mapping[str, Sheet] | None = None
    include_invalid: bool = False
    strict: bool = False
    #: Make the games and tricks tables (export, stats) or only the problems (verify).
    tables: bool = True
    selection: Selection | None = None
    max_record_size: int | None = None
    #: The temporary dataset folders the tasks write to (``None``: that table is not
    #: written).
    games_folder: str | None = None
    tricks_folder: str | None = None
    storage_options: Mapping[str, Any] = field(default_factory=dict)
    #: Send back every problem (verify) or only the runs' failures (export, stats).
    all_problems: bool = True


@dataclass(frozen=True, slots=True)
class PartResult:
    """What a task sends back: its counts, its problems, the bytes it read."""

    part: Part
    records: int
    included: int
    invalid: int
    warnings: int
    failed: int
    codes: dict[str, int]
    problems: pl.DataFrame
    size: int


def run_part(data: bytes | Chunk, part: Part, job: Job) -> PartResult:
    """Check one range of records, or one chunk read by the command line's reader
    (:func:`~phantom_log.records.chunks.read_chunks`: records, or the ``unreadable``
    problem of a source), and write its tables (on a worker). A failure of the checker
    on a record is that record's ``internal-error``; a failure outside any record is one
    ``internal-error`` at the range's first record. Raises :class:`PartWriteFailed` when
    a Parquet file cannot be written."""
    try:
        if isinstance(data, Chunk):
            tables = batch_rows(
                chunk_records(data, job.sheets),
                job.sheets,
                include_invalid=job.include_invalid,
                strict=job.strict,
                tables=job.tables,
            ).decoded()
        else:
            tables = batch_tables(
                data,
                part.source,
                sheets=job.sheets,
                include_invalid=job.include_invalid,
                strict=job.strict,
                tables=job.tables,
                first_line=part.first_line,
                first_index=part.first_index,
                json_lines=part.json_lines,
                selection=job.selection,
                max_record_size=job.max_record_size,
            )
    except Exception as error:  # a bug outside any one record: this range's problem
        tables = failed_batch(part.source, part.first_index, part_failure(error))
    for folder, frame in ((job.games_folder, tables.games), (job.tricks_folder, tables.tricks)):
        if folder is not None:
            _write_part(frame, folder, part.file_name, job.storage_options)
    size = data.size if isinstance(data, Chunk) else len(data)
    return part_result(part, tables, job.all_problems, size)


def part_failure(error: BaseException) -> Problem:
    """The ``internal-error`` of a range of records that the checker failed on as a
    whole (reported at its first record)."""
    return Problem.of(
        Code.INTERNAL_ERROR,
        f"the checker failed on the records from here to the end of this part of the input "
        f"({type(error).__name__}); the other parts are still checked",
        hint="This is a bug in phantom-log: please report it with the records.",
    )


def part_result(part: Part, tables: BatchTables, all_problems: bool, size: int) -> PartResult:
    """What a task sends back of its tables: their counts, the problems counted per code,
    and every problem (``all_problems``) or only the run's failures; ``size`` bytes read."""
    codes: dict[str, int] = dict(tables.problems.group_by("code").len().iter_rows())
    problems = tables.problems
    if not all_problems:
        problems = problems.filter(pl.col("code").is_in(_FAILURE_VALUES))
    return PartResult(
        part,
        tables.records,
        tables.included,
        tables.invalid,
        tables.warnings,
        tables.failed,
        codes,
        problems,
        size,
    )


def _write_part(
    frame: pl.DataFrame, folder: str, name: str, storage_options: Mapping[str, Any]
) -> None:
    from fsspec.core import url_to_fs

    try:
        fs, path = url_to_fs(folder, **storage_options)
        with fs.open(posixpath.join(path, name), "wb") as handle:
            frame.write_parquet(handle)
    except Exception as error:
        raise PartWriteFailed(f"cannot write {folder}/{name}: {error}") from None
