"""Verifying many records, on one core or several, with the output in input order.

The main process reads the sources as raw chunks (:func:`~phantom_log.records.chunks.read_chunks`),
workers parse and verify them and return what is to be printed, and the main process
prints it in order. At most a few chunks per worker are in flight, so memory stays
bounded on any input size. Each job has one entry: :func:`verify_batches` verifies (every
verify run, of the command line or of the API), :func:`source_tables` makes the tables,
:func:`digest_possible_copies` compares a tournament's possible copies.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final, Protocol, TypeVar

from ..checking.verdict import verify_record
from ..files import temporaries
from ..files.outputs import is_library_panic, ran_out_of_memory
from ..records.chunks import Chunk, read_chunks
from ..records.found_sources import find_sources, source_size
from ..records.source_records import chunk_records
from ..rules.replay import GameLogBuilder, VerdictBuilder
from ..rules.sheets import Sheet
from ..views.terminal import Progress
from .collector import collector_for_records
from .failures import WorkerLost
from .outcomes import Batch, CheckedRecord, Options, chunk_batch
from .thread_failures import failure_of
from .worker_watch import start_worker

if TYPE_CHECKING:  # the tables need polars: imported only by the commands that use them
    from ..tabular.tables import ChunkTables
    from ..tournament.cross_checks import TournamentProblem
    from ..tournament.facts import FactsTable

Item = TypeVar("Item")
Output = TypeVar("Output")


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# What worker processes started by a fork server run: the server imports it before forking
# them (about a quarter of a CPU second a worker).
_PRELOADED: Final = [
    "phantom_log.running.pipeline",
    "phantom_log.tabular.batch",
    "phantom_log.tabular.tables",
]


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
    if method == "forkserver":
        # The server that forks the workers imports what they run once, before it forks
        # them, instead of every worker importing it (polars, the checker, the tables).
        context.set_forkserver_preload(_PRELOADED)
    # concurrent.futures notices a worker that dies (killed, out of memory) and fails every
    # pending task at once, where multiprocessing.Pool would wait for it for ever.
    # Each worker watches this process, and ends within a second if it is killed.
    with ProcessPoolExecutor(
        jobs, mp_context=context, initializer=start_worker, initargs=(os.getpid(),)
    ) as pool:
        if method == "forkserver":
            # The server's socket lives in a folder multiprocessing removes as this
            # process ends; listed, for a supervisor to remove if this process is killed.
            temporaries.made(multiprocessing.util.get_temp_dir())
        pending: deque[Future[Output]] = deque()
        done = 0
        try:
            for item in items:
                pending.append(pool.submit(_in_worker, function, item))
                if len(pending) >= 4 * jobs:
                    yield _result(pending.popleft(), pool)
                    done += 1
            while pending:
                yield _result(pending.popleft(), pool)
                done += 1
        except BrokenProcessPool:
            raise WorkerLost(done) from None
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM), or the reader stopped early: the workers end
            # now, so that leaving the pool waits for no task in flight.
            _end_workers(pool)
            raise


def _in_worker(function: Callable[[Item], Output], item: Item) -> Output:
    """``function(item)`` in a worker process, its failures sent back as exceptions the
    main process can unpickle: a Rust library's panic (pyo3's ``PanicException``, whose
    class cannot be pickled) becomes :class:`MemoryError` when it says memory ran out
    (under a memory limit, the library cannot start a thread), a ``RuntimeError``
    naming it otherwise."""
    try:
        return function(item)
    except Exception:
        raise
    except BaseException as error:
        if not is_library_panic(error):
            raise
        if ran_out_of_memory(error):
            raise MemoryError(str(error)) from None
        raise RuntimeError(f"{type(error).__name__}: {error}") from None


# How often a run waiting for a result looks whether a worker process has died.
WORKERS_WATCH_SECONDS: Final = 1.0


def _result(future: Future[Output], pool: ProcessPoolExecutor) -> Output:
    """The result of a task of the pool, or :class:`BrokenProcessPool` if a worker dies.

    The pool notices a worker that dies by itself, except one that dies while sending a
    result (the out-of-memory killer can do that): the pool's manager thread then waits
    for the rest of the message for ever. The run looks every second: once a worker is
    gone, the others are ended and the pool is broken."""
    while True:
        try:
            return future.result(WORKERS_WATCH_SECONDS)
        except TimeoutError:
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None and not manager.is_alive() and not future.done():
                # The thread that hands tasks to the workers died (it could not start
                # the thread that feeds them, under a memory limit): nothing comes.
                _end_workers(pool)
                failure = failure_of(manager)
                if failure is not None and ran_out_of_memory(failure):
                    raise MemoryError(str(failure)) from None
                raise BrokenProcessPool("the pool's manager thread died") from failure
            processes = list((getattr(pool, "_processes", None) or {}).values())
            if any(process.exitcode is not None for process in processes):
                _end_workers(pool)
                try:
                    return future.result(WORKERS_END_SECONDS)
                except TimeoutError:
                    raise BrokenProcessPool("a worker process died") from None


# How long an interrupted run gives its worker processes to end after SIGTERM, before
# SIGKILL (a worker ends at once unless the system is swapping).
WORKERS_END_SECONDS: Final = 5.0


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's worker processes now, so that shutting the pool down waits for no task.

    A worker ended while it was sending a result (SIGTERM to the whole process group
    does that) leaves half a message in the results pipe, and the pool's manager thread
    would wait for the rest for ever: once the workers are gone, this process's own end
    of that pipe for writing is closed too, so that the thread reads the end of the pipe,
    takes the pool for broken, and finishes."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with suppress(OSError, ValueError, AttributeError):
            process.terminate()
    for process in processes:
        with suppress(OSError, ValueError, AttributeError, AssertionError):
            process.join(WORKERS_END_SECONDS)
            if process.exitcode is None:
                process.kill()
                process.join()
    results = getattr(pool, "_result_queue", None)
    with suppress(OSError, AttributeError):
        results._writer.close()  # type: ignore[union-attr]


class ProgressHook(Protocol):
    """What the pipeline tells a progress display: the input's size, the bytes read."""

    def start(self, total_bytes: int | None) -> None: ...

    def add_bytes(self, size: int) -> None: ...


def _chunks(
    paths: Iterable[str],
    stdin: IO[bytes] | None,
    progress: ProgressHook | None,
    jobs: int,
    max_record_size: int | None = None,
    spans: bool = False,
) -> Iterator[Chunk]:
    """The chunks of every source of the paths, counted on ``progress`` as they are read,
    a record over ``max_record_size`` bytes (by default the limit in force) unreadable.
    For worker processes (``jobs`` above 1), or with ``spans``, a file of JSON Lines is
    given as spans, which the workers read (see
    :class:`~phantom_log.records.chunks.Span`), and so are the elements of an array.

    Raises :class:`~phantom_log.records.found_sources.SourceError` for a path that does not exist,
    before any chunk is read."""
    sources = find_sources(paths)
    if progress is not None:
        sizes = [source_size(source) for source in sources]
        progress.start(None if None in sizes else sum(size or 0 for size in sizes))

    def chunks() -> Iterator[Chunk]:
        for source in sources:
            for chunk in read_chunks(
                source, stdin, max_record_size=max_record_size, spans=spans or jobs > 1
            ):
                if progress is not None:
                    progress.add_bytes(chunk.size)
                yield chunk

    return chunks()


def verify_chunk(chunk: Chunk, options: Options) -> Batch:
    """Parse and verify the records of one chunk (in a worker, or in the main process), each
    by :func:`~phantom_log.checking.verdict.verify_record`, as one
    :class:`~.outcomes.Batch` of what ``options`` asks for: the reports themselves, every
    event in their game logs (``output="reports"``); else the text to print, the counts and
    the tournament's facts, of reports that need no event (a
    :class:`~phantom_log.rules.replay.VerdictBuilder`'s)."""
    sheets, strict = options.sheets, options.strict
    builder = GameLogBuilder if options.output == "reports" else VerdictBuilder
    with collector_for_records():
        return chunk_batch(
            (
                CheckedRecord(record, verify_record(record, sheets, strict, builder))
                for record in chunk_records(chunk, sheets)
            ),
            options,
        )


def verify_batches(
    paths: Sequence[str],
    options: Options,
    jobs: int,
    stdin: IO[bytes] | None = None,
    progress: Progress | None = None,
    max_record_size: int | None = None,
) -> Iterator[Batch]:
    """The one pipeline that verifies records, for ``phantom-log verify``, ``tournament
    check`` and :func:`phantom_log.verify` alike: the sources of the paths are read and cut
    into chunks here (counted on ``progress``; a record over ``max_record_size`` bytes, by
    default the limit in force, is an ``unreadable`` problem), ``jobs`` worker processes
    verify each chunk (:func:`verify_chunk`), and a :class:`~.outcomes.Batch` a chunk comes
    back, in input order. The tournament's facts say where each record's text is (its
    content's digest is made only if it may be a copy: :func:`digest_possible_copies`).

    Raises :class:`~phantom_log.records.found_sources.SourceError` for a path that does not
    exist, at once, before any record is read.
    """
    spans = options.output == "facts"
    chunks = _chunks(paths, stdin, progress, jobs, max_record_size, spans)
    return ordered_map(partial(verify_chunk, options=options), chunks, jobs)


def digest_possible_copies(
    table: FactsTable, jobs: int, done: Callable[[int], object] | None = None
) -> list[TournamentProblem]:
    """The digests of the contents of the records of a tournament's ``table`` that may be
    copies of one another and have none yet, made from their texts read again
    (:mod:`phantom_log.tournament.copies`), on ``jobs`` processes (``done`` told how
    many are read, as they are), and held in the table; an ``unreadable`` problem for each
    record whose text could not be read again."""
    from ..tournament.copies import hold_digests, read_digests, texts_to_read

    # The tasks are made as they are taken; tee keeps those in flight for their digests.
    given, kept = itertools.tee(texts_to_read(table))
    problems: list[TournamentProblem] = []
    read = 0
    for task, digests in zip(kept, ordered_map(read_digests, given, jobs), strict=True):
        problems.extend(hold_digests(table, task, digests))
        read += len(task)
        if done is not None:
            done(read)
    return problems


def tables_chunk(
    chunk: Chunk, sheets: Mapping[str, Sheet] | None, include_invalid: bool
) -> ChunkTables:
    """The tables of the records of one chunk (for export and statistics), made by the
    unit of work of every engine (:func:`phantom_log.tabular.batch.batch_rows`): a record whose
    rows cannot be made is its own internal-error, not the chunk's."""
    from ..tabular.batch import batch_rows

    rows = batch_rows(
        chunk_records(chunk, sheets), sheets, include_invalid=include_invalid, problems=False
    )
    return rows.chunk


def written_tables_chunk(
    numbered: tuple[int, Chunk],
    sheets: Mapping[str, Sheet] | None,
    include_invalid: bool,
    folder: Path,
) -> ChunkTables:
    """The tables of the ``number``-th chunk of a run, written into ``folder``
    (:meth:`~phantom_log.tabular.tables.ChunkTables.written`) by the process that made them."""
    number, chunk = numbered
    return tables_chunk(chunk, sheets, include_invalid).written(folder, number)


def source_tables(
    paths: Iterable[str],
    sheets: Mapping[str, Sheet] | None,
    include_invalid: bool,
    jobs: int,
    stdin: IO[bytes] | None = None,
    progress: ProgressHook | None = None,
    folder: Path | None = None,
) -> Iterator[ChunkTables]:
    """The tables of the records of the paths, a chunk at a time, in input order, on
    ``jobs`` processes. With a work ``folder`` and more than one job, each worker writes
    the tables it made there, and sends only their files' names and its counts: writing
    them would otherwise take a good part of the main process's time."""
    chunks = _chunks(paths, stdin, progress, jobs)
    if folder is not None and jobs > 1:
        written = partial(
            written_tables_chunk, sheets=sheets, include_invalid=include_invalid, folder=folder
        )
        return ordered_map(written, enumerate(chunks), jobs)
    work = partial(tables_chunk, sheets=sheets, include_invalid=include_invalid)
    return ordered_map(work, chunks, jobs)
