"""Records on a Dask cluster: the tables, statistics and problems of the command line,
from JSON Lines in any store fsspec reads (local paths, ``s3://``, ``gs://``, globs).

Each task takes one object of the store, or a byte range of a large one cut at line
boundaries (:func:`dask.bytes.read_bytes`), and runs the unit of work of every engine on
it (:func:`phantom_log.tabular.batch.batch_tables`): the very code ``export`` runs. The games and
tricks tables are written as Parquet datasets, one file per task, named in input order;
the statistics are ``stats``'s own functions over those files. A record that makes the
checker fail is an ``internal-error`` row of that record; an object (or range) that
cannot be read is an ``unreadable`` row; neither loses the rest.

Everything needs the ``dask`` extra (``pip install 'phantom-log[dask]'``); this module
imports Dask only when a function here runs, so that importing it costs nothing.
"""

from __future__ import annotations

import importlib.util
import os
import posixpath
import uuid
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from ..files.outputs import OutputExists, OutputFailed, OutputRefused
from ..records.chunks import json_lines_extent
from ..records.found_sources import SourceError
from ..records.selection import Selection
from ..records.source_names import RECORD_SUFFIXES
from ..records.unreadable import read_failure
from ..rules.problems import FAILURE_CODES, Code, Problem
from ..rules.sheets import Sheet
from ..tabular.batch import PROBLEM_SCHEMA, BatchTables, batch_tables, failed_batch, problems_of

if TYPE_CHECKING:
    from distributed import Client
    from fsspec import AbstractFileSystem

    from ..tabular.tables import ExportedTables

#: What to install for this module.
INSTALL: Final = "pip install 'phantom-log[dask]'"
#: The bytes of one task, by default: an object larger than this is cut into ranges of
#: about this size, at line boundaries.
DEFAULT_BLOCKSIZE: Final = 64 * 2**20
#: How the scheduler is named to run a cluster of this machine's cores.
LOCAL: Final = "local"
_GLOB_CHARACTERS: Final = frozenset("*?[")
_PART_NAME: Final = "part-{source:06d}-{block:06d}.parquet"
_FAILURE_VALUES: Final = [code.value for code in FAILURE_CODES]


class ClusterUnavailable(RuntimeError):
    """Dask is not installed (the ``dask`` extra)."""


class ClusterFailed(RuntimeError):
    """The cluster could not do the run: the scheduler cannot be reached, or a worker
    died (the run ends; its outputs are left as they were)."""


class PartWriteFailed(OSError):
    """A task could not write its Parquet files (raised on the worker, ends the run)."""


def cluster_installed() -> bool:
    """Whether Dask, distributed and fsspec can be imported (none is imported here)."""
    try:
        return all(
            importlib.util.find_spec(name) is not None for name in ("dask", "distributed", "fsspec")
        )
    except (ImportError, ValueError):
        return False


def _require_cluster() -> None:
    if not cluster_installed():
        raise ClusterUnavailable(f"the cluster needs Dask, which is not installed: {INSTALL}")


# --- what one task does -----------------------------------------------------------------


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


def run_part(data: bytes, part: Part, job: Job) -> PartResult:
    """Check one range of records and write its tables (on a worker). A failure of the
    checker on a record is that record's ``internal-error``; a failure outside any record
    is one ``internal-error`` at the range's first record. Raises
    :class:`PartWriteFailed` when a Parquet file cannot be written."""
    try:
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
    return _result(part, tables, job.all_problems, len(data))


def part_failure(error: BaseException) -> Problem:
    """The ``internal-error`` of a range of records that the checker failed on as a
    whole (reported at its first record)."""
    return Problem.of(
        Code.INTERNAL_ERROR,
        f"the checker failed on the records from here to the end of this part of the input "
        f"({type(error).__name__}); the other parts are still checked",
        hint="This is a bug in phantom-log: please report it with the records.",
    )


def _result(part: Part, tables: BatchTables, all_problems: bool, size: int) -> PartResult:
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


# --- the sources ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredSource:
    """One object of a store to read: its name in the rows, its URL, its size."""

    name: str
    url: str
    json_lines: bool
    size: int


def find_stored_sources(
    urls: Sequence[str], storage_options: Mapping[str, Any] | None = None
) -> list[StoredSource]:
    """The objects the URLs name, in order: a file or object; a glob (its matches, sorted);
    a folder (its ``.json``, ``.jsonl`` and ``.ndjson`` files at any depth, sorted,
    hidden ones left out), as the command line reads paths. A ``.jsonl`` or ``.ndjson``
    object is JSON Lines; any other, one document.

    Raises :class:`~phantom_log.records.found_sources.SourceError` for a URL that names nothing."""
    _require_cluster()
    from fsspec.core import url_to_fs
    from fsspec.implementations.local import LocalFileSystem

    found: list[StoredSource] = []
    for url in urls:
        fs, path = url_to_fs(url, **(storage_options or {}))
        local = isinstance(fs, LocalFileSystem)
        if _GLOB_CHARACTERS & set(path):
            matches = sorted(fs.glob(path))
            if not matches:
                raise SourceError(f"{url}: matches no file")
        elif fs.isdir(path):
            matches = _folder_files(fs, path)
        elif fs.exists(path):
            matches = [path]
        else:
            raise SourceError(f"{url}: no such file or folder")
        for match in matches:
            inner = _folder_files(fs, match) if fs.isdir(match) else [match]
            for item in inner:
                suffix = posixpath.splitext(item)[1].lower()
                name = _source_name(url, item) if local else fs.unstrip_protocol(item)
                found.append(
                    StoredSource(
                        name,
                        item if local else fs.unstrip_protocol(item),
                        RECORD_SUFFIXES.get(suffix) == "jsonl",
                        int(fs.info(item).get("size") or 0),
                    )
                )
    return found


def _folder_files(fs: AbstractFileSystem, folder: str) -> list[str]:
    """The record files below a folder, sorted, hidden files and folders left out."""
    files = []
    for path in sorted(fs.find(folder)):
        relative = posixpath.relpath(path, folder)
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        if posixpath.splitext(path)[1].lower() in RECORD_SUFFIXES:
            files.append(path)
    return files


def _source_name(url: str, path: str) -> str:
    """A local file named as the command line names it: relative when given relative."""
    if url.startswith("file:") or os.path.isabs(url):
        return path
    return os.path.relpath(path)


# --- the dataset outputs --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DatasetTarget:
    """A Parquet dataset to write: its URL, and the temporary sibling folder the tasks
    write to, which becomes the dataset in one step at the end (a rename on a local
    disk; a copy then a delete on an object store, which has no rename)."""

    url: str
    temporary: str
    force: bool
    storage_options: Mapping[str, Any]

    def commit(self) -> None:
        """Put the written dataset in place (replacing the old one only with ``force``)."""
        fs, path = _fs(self.url, self.storage_options)
        _, temporary = _fs(self.temporary, self.storage_options)
        if fs.exists(path):
            if not self.force:
                raise OutputExists(f"{self.url} exists; use --force to overwrite it")
            _check_replaceable(fs, path, self.url)
            if _is_local(fs):
                old = f"{temporary}.old"
                os.rename(path, old)
                os.rename(temporary, path)
                fs.rm(old, recursive=True)
                return
            fs.rm(path, recursive=True)
        if _is_local(fs):
            os.rename(temporary, path)
        else:
            fs.mv(temporary, path, recursive=True)

    def discard(self) -> None:
        """Remove the temporary folder and what it holds."""
        fs, temporary = _fs(self.temporary, self.storage_options)
        with suppress(OSError, FileNotFoundError):
            if fs.exists(temporary):
                fs.rm(temporary, recursive=True)


def _fs(url: str, storage_options: Mapping[str, Any]) -> tuple[AbstractFileSystem, str]:
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url, **storage_options)
    return fs, path


def _is_local(fs: AbstractFileSystem) -> bool:
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _check_replaceable(fs: AbstractFileSystem, path: str, url: str) -> None:
    """Refuse to replace anything but a Parquet file or a folder of Parquet files (so that
    ``--force`` with a wrong URL cannot delete a folder of other things)."""
    if fs.isdir(path):
        others = [
            item
            for item in fs.find(path)
            if not posixpath.basename(item).endswith(".parquet")
            and not posixpath.basename(item).startswith(".")
        ]
        if others:
            raise OutputRefused(
                f"{url} is a folder that holds other files than Parquet files "
                f"({posixpath.basename(others[0])}, ...); phantom-log does not replace it"
            )
    elif not path.endswith(".parquet"):
        raise OutputRefused(f"{url} exists and is not a Parquet dataset; not replaced")


def check_dataset_target(
    url: str, force: bool, storage_options: Mapping[str, Any] | None = None
) -> None:
    """Refuse, before any work, a dataset URL that cannot be written: it exists (without
    ``force``), it is something else than a Parquet dataset (even with ``force``), or
    its local folder does not exist (:class:`~phantom_log.files.outputs.OutputExists`,
    :class:`~phantom_log.files.outputs.OutputRefused`)."""
    _require_cluster()
    fs, path = _fs(url, storage_options or {})
    if fs.exists(path):
        if not force:
            raise OutputExists(f"{url} exists; use --force to overwrite it")
        _check_replaceable(fs, path, url)
    if _is_local(fs):
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise OutputRefused(f"{url}: the folder {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputFailed(f"cannot write {url}: the folder {parent} is not writable")


def _dataset_target(url: str, force: bool, storage_options: Mapping[str, Any]) -> DatasetTarget:
    fs, path = _fs(url, storage_options)
    parent, name = posixpath.split(path.rstrip("/"))
    temporary_path = posixpath.join(parent, f".{name}.{uuid.uuid4().hex}.tmp")
    fs.makedirs(temporary_path, exist_ok=False)
    temporary = temporary_path if _is_local(fs) else fs.unstrip_protocol(temporary_path)
    return DatasetTarget(url, temporary, force, storage_options)


def dataset_files(url: str, storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """The Parquet files of a dataset (a folder, in name order: input order for the ones
    written here) or of one Parquet file: local paths, or URLs of their store."""
    fs, files = _dataset_paths(url, storage_options or {})
    return files if _is_local(fs) else [fs.unstrip_protocol(item) for item in files]


def _dataset_paths(
    url: str, storage_options: Mapping[str, Any]
) -> tuple[AbstractFileSystem, list[str]]:
    """The filesystem of a dataset and its Parquet files' paths there (see
    :func:`dataset_files`)."""
    _require_cluster()
    fs, path = _fs(url, storage_options)
    if fs.isdir(path):
        files = [
            item
            for item in sorted(fs.find(path))
            if item.endswith(".parquet") and not posixpath.basename(item).startswith(".")
        ]
    else:
        files = [path]
    return fs, files


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
    worker process per core, or ``workers``) for the block; an address (``tcp://host:
    8786``) connects to a running one; a :class:`distributed.Client` is used as it is.
    Raises :class:`ClusterFailed` when the scheduler cannot be reached."""
    _require_cluster()
    from distributed import Client, LocalCluster

    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler == LOCAL:
        from .pipeline import default_jobs

        with (
            LocalCluster(
                n_workers=workers or default_jobs(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
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
) -> ClusterRun:
    """Run the job on every source: each object, or range of a large JSON Lines object,
    is one task; the results are gathered in input order.

    A range that cannot be read is an ``unreadable`` problem at its first record (the
    ranges after it in the same object are then not read, as the command line stops
    reading a file that fails). Raises :class:`ClusterFailed` when a worker dies, and
    :class:`~phantom_log.files.outputs.OutputFailed` when a task cannot write its files."""
    from dask.bytes.core import read_bytes
    from dask.delayed import delayed

    from ..views.terminal import Progress

    progress = Progress("reading", not quiet)
    progress.start(sum(source.size for source in sources))
    blocks: list[tuple[StoredSource, int, list[Any]]] = []
    for number, source in enumerate(sources):
        if source.size == 0 and source.json_lines:
            continue  # read_bytes gives no block: no record
        _, found, _ = read_bytes(
            source.url,
            delimiter=b"\n" if source.json_lines else None,
            blocksize=blocksize if source.json_lines else None,
            sample=False,
            include_path=True,
            **job.storage_options,
        )
        blocks.append((source, number, found[0]))
    # Where each range starts in its object: counted first for the objects cut in several.
    extents = {
        (number, index): delayed(json_lines_extent)(block, index == 0, job.max_record_size)
        for source, number, found in blocks
        if len(found) > 1
        for index, block in enumerate(found[:-1])
    }
    counted = _gather(client, extents)
    results: list[PartResult] = []
    tasks: dict[Part, Any] = {}
    for source, number, found in blocks:
        first_line, first_index = 1, 0
        for index, block in enumerate(found):
            part = Part(number, index, source.name, source.json_lines, first_line, first_index)
            extent = counted.get((number, index))
            if isinstance(extent, BaseException):
                results.append(_unread(part, extent))
                break
            tasks[part] = delayed(run_part)(block, part, job)
            if extent is not None:
                lines, records = extent
                first_line += lines
                first_index += records
    futures = dict(zip(tasks, client.compute(list(tasks.values())), strict=True))
    records = 0
    try:
        from distributed import as_completed

        by_future = {future: part for part, future in futures.items()}
        for future in as_completed(list(futures.values())):
            part = by_future[future]
            try:
                result: PartResult = future.result()
            except Exception as error:
                results.append(_failed_part(part, error))
                continue
            results.append(result)
            records += result.records
            progress.add_bytes(result.size)
            progress.update(records)
    finally:
        # Forgotten at once (the results are here): the scheduler keeps no result, nor
        # a failed read, for the next run that asks for the same keys.
        client.cancel(list(futures.values()))
        progress.close()
    return _combined(results, len(futures))


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


def _failed_part(part: Part, error: BaseException) -> PartResult:
    """A task that failed: the end of the run when it could not write, or when a worker
    died; an ``unreadable`` problem when its range could not be read."""
    if isinstance(error, PartWriteFailed):
        raise OutputFailed(str(error))
    return _unread(part, _checked_failure(error))


def _unread(part: Part, error: BaseException) -> PartResult:
    tables = failed_batch(part.source, part.first_index, read_failure(error))
    return _result(part, tables, True, 0)


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
                targets[which] = _dataset_target(url, force, job.storage_options)
        job = replace(
            job,
            games_folder=targets["games"].temporary if "games" in targets else None,
            tricks_folder=targets["tricks"].temporary if "tricks" in targets else None,
        )
        run = run_on_cluster(client, sources, job, blocksize, quiet)
        try:
            for target in targets.values():
                target.commit()
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
) -> ClusterRun:
    """``verify`` on a cluster: the counts of its summary line, its problems counted per
    code (:meth:`ClusterRun.by_code`), and every problem of every record, in input order
    (:attr:`ClusterRun.problems`, worded as the text report words them by
    :meth:`ClusterRun.problem_lines`)."""
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
        return run_on_cluster(client, sources, job, blocksize, quiet)


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
                    fs, path = _fs(url, options)
                    with suppress(OSError, FileNotFoundError):
                        if fs.exists(path):
                            fs.rm(path, recursive=True)
    return frame, run


def exported_tables(
    games_url: str, tricks_url: str, storage_options: Mapping[str, Any] | None = None
) -> ExportedTables:
    """The games and tricks tables exported together (by :func:`export_on_cluster`, or
    ``export`` to Parquet files), read as statistics read them; raises ``ValueError``
    when they were not exported together."""
    from ..tabular.tables import ExportedTables

    options = dict(storage_options or {})
    games_fs, _ = _fs(games_url, options)
    tricks_fs, _ = _fs(tricks_url, options)
    if _is_local(games_fs) and _is_local(tricks_fs):
        # Read by polars itself: the fastest way on a local disk.
        tables = ExportedTables(
            dataset_files(games_url, options), dataset_files(tricks_url, options)
        )
    else:
        # Read through fsspec, as the records were: any store it reads, with its options.
        games_fs, games = _dataset_paths(games_url, options)
        tricks_fs, tricks = _dataset_paths(tricks_url, options)
        if type(games_fs) is not type(tricks_fs) or games_fs.storage_options != (
            tricks_fs.storage_options
        ):
            raise ValueError(
                f"the games and tricks tables are in two stores: {games_url}, {tricks_url}"
            )
        tables = ExportedTables(games, tricks, filesystem=games_fs)
    tables.check_aligned()
    return tables


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
