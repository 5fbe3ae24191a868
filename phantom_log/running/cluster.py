"""Records on a Dask cluster: the tables, statistics and problems of the command line,
from JSON Lines in any store fsspec reads (local paths, ``s3://``, ``gs://``, globs).

Each task takes one object of the store, or a byte range of a large one cut at line
boundaries (:func:`dask.bytes.read_bytes`), and runs the unit of work of every engine on
it (:func:`phantom_log.tabular.batch.batch_tables`): the very code ``export`` runs. The games and
tricks tables are written as Parquet datasets, one file per task, named in input order;
the statistics are ``stats``'s own functions over those files. A record that makes the
checker fail is an ``internal-error`` row of that record; an object (or range) that
cannot be read is an ``unreadable`` row; neither loses the rest.

What one task does is :mod:`phantom_log.running.cluster_tasks`; the objects of a store to
read, :mod:`phantom_log.running.stored_sources`; the datasets written and read back,
:mod:`phantom_log.running.parquet_datasets`; this module runs them. Everything needs the
``dask`` extra (``pip install 'phantom-log[dask]'``, :mod:`phantom_log.running.dask_extra`);
these modules import Dask only when one of their functions runs, so that importing them
costs nothing.
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, TypeVar

import polars as pl

from ..files.outputs import OutputExists, OutputFailed, OutputRefused
from ..records.chunks import json_lines_extent, read_chunks
from ..records.selection import Selection
from ..records.unreadable import open_problem, read_failure
from ..rules.sheets import Sheet
from ..tabular.batch import PROBLEM_SCHEMA, failed_batch, problems_of
from .cluster_tasks import Job, Part, PartResult, PartWriteFailed, part_result, run_part
from .dask_extra import require_cluster
from .failures import ClusterFailed, RunRefused
from .parquet_datasets import (
    DatasetTarget,
    check_dataset_target,
    commit_datasets,
    dataset_target,
    exported_tables,
    filesystem,
)
from .stored_sources import StoredSource, find_stored_sources

if TYPE_CHECKING:
    from distributed import Client

    from ..views.terminal import Progress

Returned = TypeVar("Returned")

#: The bytes of one task, by default: an object larger than this is cut into ranges of
#: about this size, at line boundaries.
DEFAULT_BLOCKSIZE: Final = 64 * 2**20
#: How the scheduler is named to run a cluster of this machine's cores.
LOCAL: Final = "local"


# --- running on the cluster -------------------------------------------------------------


@dataclass
class ClusterRun:
    """What a run on the cluster found: the counts of ``export``'s and ``verify``'s
    summaries, the problems counted per code, and the problems themselves (every one
    for :func:`verify_on_cluster`; those that say the run could not do all its work,
    ``unreadable`` and ``internal-error``, for the tables)."""

    records: int = 0
    included: int = 0
    invalid: int = 0
    warnings: int = 0
    failed: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    problems: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=PROBLEM_SCHEMA))
    #: The tasks run (objects and ranges of objects).
    parts: int = 0
    #: The datasets written (``None`` when not asked).
    games: str | None = None
    tricks: str | None = None

    @property
    def valid(self) -> int:
        """Valid records (a warning does not make a record invalid)."""
        return self.records - self.invalid

    @property
    def left_out(self) -> int:
        """Records not in the games table (invalid ones, without ``include_invalid``)."""
        return self.records - self.included

    def by_code(self) -> list[tuple[str, int]]:
        """The problems counted per code, the most frequent first (then by code), as
        ``verify``'s ``by code:`` line lists them."""
        return sorted(self.codes.items(), key=lambda item: (-item[1], item[0]))

    def problem_lines(self) -> Iterator[str]:
        """The problems as ``verify``'s text report words them, record by record, in
        input order (:func:`phantom_log.views.reports.report_lines`)."""
        from ..views.reports import report_lines

        for report in problems_of(self.problems):
            yield from report_lines(report)


@contextmanager
def cluster_client(scheduler: str | Client, workers: int | None = None) -> Iterator[Client]:
    """A client of the scheduler: ``"local"`` starts a cluster of this machine (one
    worker process per core, or ``workers``) for the block, which Ctrl-C and SIGTERM end
    cleanly and which leaves nothing behind
    (:func:`~phantom_log.running.local_cluster.local_cluster_client`); an address
    (``tcp://host:8786``) connects to a running one; a :class:`distributed.Client` is
    used as it is. Raises :class:`ClusterFailed` when the scheduler cannot be reached."""
    require_cluster()
    from distributed import Client

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler == LOCAL:
        from .local_cluster import local_cluster_client
        from .pipeline import default_jobs

        with local_cluster_client(workers or default_jobs()) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout="30s")
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterFailed(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    with client:
        yield client


def _is_local_cluster(client: Client) -> bool:
    from distributed import LocalCluster

    return isinstance(getattr(client, "cluster", None), LocalCluster)


def run_on_cluster(
    client: Client,
    sources: Sequence[StoredSource],
    job: Job,
    blocksize: int | None = DEFAULT_BLOCKSIZE,
    quiet: bool = False,
    progress: Progress | None = None,
) -> ClusterRun:
    """Run the job on every source: each object, or range of a large JSON Lines object,
    is one task; the results are gathered in input order, counted on ``progress`` (by
    default a bar of its own, unless ``quiet``).

    A source of this machine that is no regular file (a broken link, a link loop, a file
    without permission or gone, a FIFO or device found in a folder; a FIFO or a device
    given by name) is read here by the command line's own reader, which gives its
    ``unreadable`` problem, or its records, a chunk a task: the same problems, with the
    same words, as a run without a cluster. A range that cannot be read is an
    ``unreadable`` problem at its first record (the ranges after it in the same object
    are then not read, as the command line stops reading a file that fails). Raises
    :class:`ClusterFailed` when a worker dies, and
    :class:`~phantom_log.files.outputs.OutputFailed` when a task cannot write its files."""
    from dask.delayed import delayed
    from distributed import as_completed

    from ..views.terminal import Progress

    if progress is None:
        progress = Progress("reading", not quiet)
    sizes = [source.size for source in sources]
    progress.start(None if None in sizes else sum(size or 0 for size in sizes))
    results: list[PartResult] = []
    futures: dict[Any, Part] = {}
    try:
        _submit_read_here(client, sources, job, futures)
        blocks: list[tuple[StoredSource, int, list[Any]]] = []
        for number, source in enumerate(sources):
            if source.read_here or (source.size == 0 and source.json_lines):
                continue  # read here already; or no block (read_bytes gives none): no record
            try:
                blocks.append((source, number, _blocks(source, job, blocksize)))
            except Exception as error:  # any store's failure: this object's problem
                part = Part(number, 0, source.name, source.json_lines)
                results.append(_unread(part, source, error))
        # Where each range starts in its object: counted first for the objects cut in
        # several.
        extents = {
            (number, index): delayed(json_lines_extent)(block, index == 0, job.max_record_size)
            for source, number, found in blocks
            if len(found) > 1
            for index, block in enumerate(found[:-1])
        }
        counted = _gather(client, extents)
        tasks: dict[Part, Any] = {}
        for source, number, found in blocks:
            first_line, first_index = 1, 0
            for index, block in enumerate(found):
                part = Part(number, index, source.name, source.json_lines, first_line, first_index)
                extent = counted.get((number, index))
                if isinstance(extent, BaseException):
                    results.append(_unread(part, source, extent))
                    break
                tasks[part] = delayed(run_part)(block, part, job)
                if extent is not None:
                    lines, records = extent
                    first_line += lines
                    first_index += records
        futures.update(zip(client.compute(list(tasks.values())), tasks, strict=True))
        records = 0
        for future in as_completed(list(futures)):
            part = futures[future]
            try:
                result: PartResult = future.result()
            except Exception as error:
                results.append(_failed_part(part, sources[part.source_number], error))
                continue
            results.append(result)
            records += result.records
            progress.add_bytes(result.size)
            progress.update(records)
    finally:
        # Forgotten at once (the results are here): the scheduler keeps no result, nor
        # a failed read, for the next run that asks for the same keys.
        client.cancel(list(futures))
        progress.close()
    return _combined(results, len(futures))


def _blocks(source: StoredSource, job: Job, blocksize: int | None) -> list[Any]:
    """The delayed reads of an object's ranges (one for a document)."""
    from dask.bytes.core import read_bytes

    _, found, _ = read_bytes(
        source.url,
        delimiter=b"\n" if source.json_lines else None,
        blocksize=blocksize if source.json_lines else None,
        sample=False,
        include_path=True,
        **({} if source.local else job.storage_options),
    )
    return list(found[0])


def _submit_read_here(
    client: Client, sources: Sequence[StoredSource], job: Job, futures: dict[Any, Part]
) -> None:
    """Read here, by the command line's reader, the sources that are read here (see
    :attr:`~phantom_log.running.stored_sources.StoredSource.read_here`), each chunk sent
    as a task at once (its future added to ``futures``): the ``unreadable`` problem of
    one that cannot be read, the records of a FIFO or a device given by name, read within
    the size limit, with a few chunks a worker in flight at most, so that a stream is
    never held whole."""
    from dask.delayed import delayed
    from distributed import wait

    in_flight = 4 * max(sum(client.nthreads().values()), 1)
    streamed: list[Any] = []
    for number, source in enumerate(sources):
        if not source.read_here:
            continue
        chunks = read_chunks(source.url, max_record_size=job.max_record_size)
        for block, chunk in enumerate(chunks):
            first_index = chunk.lines[0][0] if chunk.lines else chunk.index
            part = Part(number, block, source.name, source.json_lines, chunk.line or 1, first_index)
            task = delayed(run_part)(replace(chunk, selection=job.selection), part, job)
            future = client.compute(task)
            futures[future] = part
            streamed = [found for found in streamed if not found.done()]
            streamed.append(future)
            if len(streamed) > in_flight:
                wait(streamed, return_when="FIRST_COMPLETED")


def _gather(client: Client, tasks: Mapping[Any, Any]) -> dict[Any, Any]:
    """The results of the tasks by key, or the exception a task raised."""
    if not tasks:
        return {}
    found: dict[Any, Any] = {}
    futures = client.compute(list(tasks.values()))
    try:
        for key, future in zip(tasks, futures, strict=True):
            try:
                found[key] = future.result()
            except Exception as error:
                found[key] = _checked_failure(error)
    finally:
        client.cancel(futures)
    return found


def _checked_failure(error: BaseException) -> BaseException:
    """A task's exception, unless it ends the run: a worker that died, a task the
    scheduler gave up on."""
    from distributed import KilledWorker

    if isinstance(error, KilledWorker):
        raise ClusterFailed(f"a worker died: {error}") from None
    if isinstance(error, CancelledError):
        raise ClusterFailed("the scheduler cancelled the run's tasks") from None
    return error


def _failed_part(part: Part, source: StoredSource, error: BaseException) -> PartResult:
    """A task that failed: the end of the run when it could not write, or when a worker
    died; an ``unreadable`` problem when its range could not be read."""
    if isinstance(error, PartWriteFailed):
        raise OutputFailed(str(error))
    return _unread(part, source, _checked_failure(error))


def _unread(part: Part, source: StoredSource, error: BaseException) -> PartResult:
    """The ``unreadable`` problem of a range that could not be read, at its first record:
    for a file of this machine, in the command line's words (a file gone since it was
    listed, no permission), for an object of a store, the store's reason."""
    if source.local and isinstance(error, OSError):
        problem = open_problem(source.url, error)
    else:
        problem = read_failure(error)
    tables = failed_batch(part.source, part.first_index, problem)
    return part_result(part, tables, True, 0)


def _combined(results: Sequence[PartResult], parts: int) -> ClusterRun:
    ordered = sorted(results, key=lambda result: result.part.file_name)
    run = ClusterRun(parts=parts)
    for result in ordered:
        run.records += result.records
        run.included += result.included
        run.invalid += result.invalid
        run.warnings += result.warnings
        run.failed += result.failed
        for code, count in result.codes.items():
            run.codes[code] = run.codes.get(code, 0) + count
    frames = [result.problems for result in ordered if result.problems.height]
    if frames:
        run.problems = pl.concat(frames, how="vertical")
    return run


# --- the three commands -----------------------------------------------------------------


def run_for_command(
    function: Callable[..., Returned], urls: Sequence[str], *args: Any, **kwargs: Any
) -> Returned:
    """``function`` (one of the three below) run for a command: on the records that the
    command's selection and size limit take (:mod:`phantom_log.records.selection`,
    :mod:`phantom_log.records.size_limit`), what it refuses to do (standard input, any
    ``ValueError``) a :class:`~.failures.RunRefused`."""
    from ..records.selection import current_selection
    from ..records.size_limit import max_record_size

    if "-" in urls:
        raise RunRefused("--scheduler reads storage (paths, URLs): not standard input (-)")
    try:
        return function(
            list(urls),
            *args,
            selection=current_selection(),
            max_record_size=max_record_size(),
            **kwargs,
        )
    except ValueError as error:
        raise RunRefused(str(error)) from None


def export_on_cluster(
    urls: Sequence[str],
    games_url: str | None,
    tricks_url: str | None,
    scheduler: str | Client = LOCAL,
    *,
    include_invalid: bool = False,
    sheets: Mapping[str, Sheet] | None = None,
    force: bool = False,
    quiet: bool = False,
    blocksize: int | None = DEFAULT_BLOCKSIZE,
    selection: Selection | None = None,
    max_record_size: int | None = None,
    storage_options: Mapping[str, Any] | None = None,
    workers: int | None = None,
) -> ClusterRun:
    """``export`` on a cluster: the games and tricks tables of the records of the URLs as
    Parquet datasets (folders of Parquet files, one per task, in input order) at
    ``games_url`` and ``tricks_url`` (either may be ``None``), the same rows as ``export``.

    Each dataset is written to a temporary sibling folder and put in place at the end,
    both only once both are written; an existing one is replaced only with ``force`` (and
    only when it holds nothing but Parquet files). Progress goes to standard error on a
    terminal, never with ``quiet``. Raises as :func:`run_on_cluster`, and
    :class:`~phantom_log.records.found_sources.SourceError` for a URL that names nothing.
    """
    options = dict(storage_options or {})
    outputs = [url for url in (games_url, tricks_url) if url is not None]
    if not outputs:
        raise ValueError("give a games URL, a tricks URL, or both")
    if games_url is not None and games_url == tricks_url:
        raise ValueError(f"the games and tricks tables are the same URL: {games_url}")
    for url in outputs:
        check_dataset_target(url, force, options)
    sources = find_stored_sources(urls, options)
    with cluster_client(scheduler, workers) as client:
        return _export(
            client,
            sources,
            games_url,
            tricks_url,
            Job(
                sheets,
                include_invalid,
                selection=selection,
                max_record_size=max_record_size,
                storage_options=options,
                all_problems=False,
            ),
            force,
            quiet,
            blocksize,
        )


def _export(
    client: Client,
    sources: Sequence[StoredSource],
    games_url: str | None,
    tricks_url: str | None,
    job: Job,
    force: bool,
    quiet: bool,
    blocksize: int | None,
) -> ClusterRun:
    targets: dict[str, DatasetTarget] = {}
    try:
        for which, url in (("games", games_url), ("tricks", tricks_url)):
            if url is not None:
                targets[which] = dataset_target(url, force, job.storage_options)
        job = replace(
            job,
            games_folder=targets["games"].temporary if "games" in targets else None,
            tricks_folder=targets["tricks"].temporary if "tricks" in targets else None,
        )
        run = run_on_cluster(client, sources, job, blocksize, quiet)
        try:
            commit_datasets(list(targets.values()))
        except OSError as error:
            if isinstance(error, OutputExists | OutputRefused | OutputFailed):
                raise
            raise OutputFailed(f"cannot put the dataset in place: {error}") from None
    finally:
        for target in targets.values():
            target.discard()
    run.games, run.tricks = games_url, tricks_url
    return run


def verify_on_cluster(
    urls: Sequence[str],
    scheduler: str | Client = LOCAL,
    *,
    sheets: Mapping[str, Sheet] | None = None,
    strict: bool = False,
    quiet: bool = False,
    blocksize: int | None = DEFAULT_BLOCKSIZE,
    selection: Selection | None = None,
    max_record_size: int | None = None,
    storage_options: Mapping[str, Any] | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> ClusterRun:
    """``verify`` on a cluster: the counts of its summary line, its problems counted per
    code (:meth:`ClusterRun.by_code`), and every problem of every record, in input order
    (:attr:`ClusterRun.problems`, worded as the text report words them by
    :meth:`ClusterRun.problem_lines`), counted on ``progress`` as
    :func:`run_on_cluster` counts."""
    options = dict(storage_options or {})
    sources = find_stored_sources(urls, options)
    job = Job(
        sheets,
        strict=strict,
        tables=False,
        selection=selection,
        max_record_size=max_record_size,
        storage_options=options,
    )
    with cluster_client(scheduler, workers) as client:
        return run_on_cluster(client, sources, job, blocksize, quiet, progress)


def stats_on_cluster(
    urls: Sequence[str],
    scheduler: str | Client = LOCAL,
    *,
    by: Sequence[str] = (),
    curve: bool = False,
    sheets: Mapping[str, Sheet] | None = None,
    quiet: bool = False,
    work_url: str | None = None,
    blocksize: int | None = DEFAULT_BLOCKSIZE,
    selection: Selection | None = None,
    max_record_size: int | None = None,
    storage_options: Mapping[str, Any] | None = None,
    workers: int | None = None,
) -> tuple[pl.DataFrame, ClusterRun]:
    """``stats`` on a cluster: the valid records' tables are written as Parquet datasets
    under ``work_url`` (a folder every worker and this machine reach; by default a
    temporary folder of this machine, which only a cluster of this machine reaches), and
    ``stats``'s own figures are computed from them here (:func:`exported_statistics`).
    The work folder's datasets are removed at the end. Gives the figures (``--curve``'s
    with ``curve``) and the run (for its counts)."""
    from ..files.outputs import work_folder

    options = dict(storage_options or {})
    sources = find_stored_sources(urls, options)
    job = Job(
        sheets,
        selection=selection,
        max_record_size=max_record_size,
        storage_options=options,
        all_problems=False,
    )
    with cluster_client(scheduler, workers) as client:
        if work_url is None and not _is_local_cluster(client):
            raise ValueError(
                "statistics on a cluster of other machines need a work folder that every "
                "worker and this machine reach (an s3:// or shared folder URL): give it "
                "with --work-url URL"
            )
        with work_folder() as local:
            base = work_url if work_url is not None else str(local)
            token = uuid.uuid4().hex
            games = posixpath.join(base, f"phantom-log-games-{token}")
            tricks = posixpath.join(base, f"phantom-log-tricks-{token}")
            try:
                run = _export(client, sources, games, tricks, job, False, quiet, blocksize)
                frame = exported_statistics(games, tricks, by, curve, options)
            finally:
                for url in (games, tricks):
                    fs, path = filesystem(url, options)
                    with suppress(OSError, FileNotFoundError):
                        if fs.exists(path):
                            fs.rm(path, recursive=True)
    return frame, run


def exported_statistics(
    games_url: str,
    tricks_url: str,
    by: Sequence[str] = (),
    curve: bool = False,
    storage_options: Mapping[str, Any] | None = None,
) -> pl.DataFrame:
    """``stats``'s figures (:func:`phantom_log.tabular.stats.summary`, or
    :func:`~phantom_log.tabular.stats.progress_curve` with ``curve``) over exported tables: one
    row per group of ``by`` (the ``--by`` fields)."""
    from ..tabular.stats import progress_curve, summary

    tables = exported_tables(games_url, tricks_url, storage_options)
    keys = list(dict.fromkeys(by))
    return progress_curve(tables, keys) if curve else summary(tables, keys)
