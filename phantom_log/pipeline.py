"""Verifying many records, on one core or several, with the output in input order.

The main process reads the sources as raw chunks (:func:`~phantom_log.sources.read_chunks`),
workers parse and verify them and return what is to be printed, and the main process
prints it in order. At most a few chunks per worker are in flight, so memory stays
bounded on any input size.
"""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.pool
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import IO, TYPE_CHECKING, Protocol, TypeVar

import orjson

from .check import RecordReport, problem_lines, verdict_line, verify_record
from .sheets import Sheet
from .sources import Chunk, chunk_records, find_sources, read_chunks
from .tournament import RecordFacts, TournamentProblem, record_facts

if TYPE_CHECKING:  # the tables need polars: imported only by the commands that use them
    from .tables import RecordRows

Item = TypeVar("Item")
Output = TypeVar("Output")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def ordered_map(
    function: Callable[[Item], Output], items: Iterable[Item], jobs: int
) -> Iterator[Output]:
    """``map(function, items)`` on ``jobs`` worker processes, results in input order,
    with at most ``4 * jobs`` items in flight. ``function`` must be picklable (a
    module-level function, or a ``functools.partial`` of one)."""
    iterator = iter(items)
    first = list(itertools.islice(iterator, 2))
    if jobs <= 1 or len(first) < 2:
        # One core, or a single chunk: starting workers would only cost time.
        yield from map(function, itertools.chain(first, iterator))
        return
    items = itertools.chain(first, iterator)
    methods = multiprocessing.get_all_start_methods()
    # fork is the cheapest, but forking a process whose polars thread pool may be running
    # can deadlock; export and statistics (which load polars) start clean workers.
    if "fork" in methods and "polars" not in sys.modules:
        method = "fork"
    else:
        method = "forkserver" if "forkserver" in methods else "spawn"
    context = multiprocessing.get_context(method)
    with context.Pool(jobs) as pool:
        pending: deque[multiprocessing.pool.AsyncResult[Output]] = deque()
        for item in items:
            pending.append(pool.apply_async(function, (item,)))
            if len(pending) >= 4 * jobs:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()


@dataclass(slots=True)
class Outcome:
    """What the main process needs of one verified record: its verdict, the text to
    print, and (for tournament checking) its facts and problems."""

    valid: bool
    warnings: int
    text: str
    facts: RecordFacts | None = None
    problems: tuple[TournamentProblem, ...] = ()


@dataclass(frozen=True, slots=True)
class Options:
    """How to verify and what to return: ``output`` is ``text``, ``json`` or ``facts``
    (tournament checking: the text lines and the facts)."""

    sheets: Mapping[str, Sheet] | None = None
    strict: bool = False
    output: str = "text"
    quiet: bool = False


def report_outcome(report: RecordReport, options: Options) -> Outcome:
    """The outcome of one report."""
    if options.output == "json":
        text = orjson.dumps(report.to_json()).decode() + "\n"
        return Outcome(report.valid, report.warnings, text)
    lines = [line for problem in report.problems for line in problem_lines(report, problem)]
    if report.valid and not options.quiet:
        lines.append(verdict_line(report))
    text = "".join(line + "\n" for line in lines)
    if options.output == "facts":
        problems = tuple(
            TournamentProblem(
                report.source,
                report.index,
                report.game_id,
                problem.code.value,
                problem.severity,
                problem.message,
            )
            for problem in report.problems
        )
        return Outcome(report.valid, report.warnings, text, record_facts(report), problems)
    return Outcome(report.valid, report.warnings, text)


def verify_chunk(chunk: Chunk, options: Options) -> list[Outcome]:
    """Parse and verify the records of one chunk (in a worker, or in the main process)."""
    return [
        report_outcome(verify_record(record, options.sheets, options.strict, False), options)
        for record in chunk_records(chunk)
    ]


class ProgressHook(Protocol):
    """What the pipeline tells a progress display: the input's size, the bytes read."""

    def start(self, total_bytes: int | None) -> None: ...

    def add_bytes(self, size: int) -> None: ...


def _chunks(
    paths: Iterable[str], stdin: IO[bytes] | None, progress: ProgressHook | None
) -> Iterator[Chunk]:
    """The chunks of every source of the paths, counted on ``progress`` as they are read.

    Raises :class:`~phantom_log.sources.SourceError` for a path that does not exist,
    before any chunk is read."""
    sources = find_sources(paths)
    if progress is not None:
        sizes = [None if source == "-" else os.path.getsize(source) for source in sources]
        progress.start(None if None in sizes else sum(size or 0 for size in sizes))

    def chunks() -> Iterator[Chunk]:
        for source in sources:
            for chunk in read_chunks(source, stdin):
                if progress is not None:
                    progress.add_bytes(chunk.size)
                yield chunk

    return chunks()


def verify_sources(
    paths: Iterable[str],
    options: Options,
    jobs: int,
    stdin: IO[bytes] | None = None,
    progress: ProgressHook | None = None,
) -> Iterator[Outcome]:
    """The outcome of every record of the paths, in input order, on ``jobs`` processes.

    Raises :class:`~phantom_log.sources.SourceError` for a path that does not exist,
    before any record is read.
    """
    chunks = _chunks(paths, stdin, progress)
    for outcomes in ordered_map(partial(verify_chunk, options=options), chunks, jobs):
        yield from outcomes


def rows_chunk(
    chunk: Chunk, sheets: Mapping[str, Sheet] | None, include_invalid: bool
) -> list[RecordRows]:
    """The table rows of the records of one chunk (for export and statistics)."""
    from .tables import record_rows

    return [
        record_rows(verify_record(record, sheets), include_invalid)
        for record in chunk_records(chunk)
    ]


def source_rows(
    paths: Iterable[str],
    sheets: Mapping[str, Sheet] | None,
    include_invalid: bool,
    jobs: int,
    stdin: IO[bytes] | None = None,
    progress: ProgressHook | None = None,
) -> Iterator[RecordRows]:
    """The table rows of every record of the paths, in input order, on ``jobs`` processes."""
    chunks = _chunks(paths, stdin, progress)
    work = partial(rows_chunk, sheets=sheets, include_invalid=include_invalid)
    for rows in ordered_map(work, chunks, jobs):
        yield from rows
