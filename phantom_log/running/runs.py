"""What each command runs over many records, on this machine's worker processes (the one
pipeline, :mod:`.pipeline`) or on a Dask cluster given its scheduler (:mod:`.cluster`): the
choice between the two is made here, once. ``verify``'s report written, ``tournament
check``'s records checked, ``export``'s tables written, ``stats``' figures made."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..files.outputs import outputs_together, work_folder
from ..records.chunks import on_manifest
from ..rules.sheets import Sheet
from ..tournament.cross_checks import TournamentProblem
from ..tournament.facts import FactsTable
from ..views.terminal import Progress, clear_progress
from .failures import NoRecords, RunRefused, WorkerLost
from .outcomes import Batch, Options, Tally
from .pipeline import digest_possible_copies, source_tables, verify_batches

if TYPE_CHECKING:
    import polars as pl

    from ..tabular.tables import TableFiles


def _standard_input() -> IO[bytes] | None:
    """Standard input as bytes (``None`` when it is closed, which reading ``-`` then
    reports as an unreadable source)."""
    return None if sys.stdin is None else sys.stdin.buffer


# -- verify --------------------------------------------------------------------------------


def _verified_on_cluster(
    paths: Sequence[str], options: Options, scheduler: str, progress: Progress | None
) -> Iterator[Batch]:
    if options.keep_text:
        raise RunRefused("--valid-out and --invalid-out are not written with --scheduler")
    if options.output != "text":
        raise RunRefused("--scheduler prints the problems and the summary: --format text")
    from .cluster import run_for_command, verify_on_cluster

    run = run_for_command(
        verify_on_cluster,
        paths,
        scheduler,
        sheets=options.sheets,
        strict=options.strict,
        quiet=options.quiet,
        progress=progress,
    )
    tally = Tally(run.records, run.valid, run.warnings, run.failed, dict(run.codes))
    return iter([Batch("".join(line + "\n" for line in run.problem_lines()), tally)])


def write_verified(
    stdout: IO[str],
    kept: Mapping[bool, IO[bytes]],
    paths: Sequence[str],
    options: Options,
    jobs: int,
    progress: Progress,
    scheduler: str | None = None,
) -> Tally:
    """What ``phantom-log verify`` writes, a chunk at a time (:func:`verify_batches`, of
    standard input for ``-``): the reports' text to ``stdout``, then the summary and the
    count per code (for the text, unless ``quiet``); each record's text to ``kept[True]``
    or ``kept[False]`` as it is valid or not. Its counts; :class:`~.failures.NoRecords`
    when the paths hold no record."""
    tally = Tally()
    try:
        batches = (
            _verified_on_cluster(paths, options, scheduler, progress)
            if scheduler is not None
            else verify_batches(paths, options, jobs, _standard_input(), progress)
        )
        for batch in batches:
            tally.merge(batch.tally)
            if batch.text:
                clear_progress(for_standard_output=True)
            stdout.write(batch.text)
            for valid, stream in kept.items():
                stream.write(batch.valid_records if valid else batch.invalid_records)
            progress.update(tally.records)
    except WorkerLost as lost:
        raise WorkerLost(lost.done, f"after {tally.records} records") from None
    finally:
        progress.close()
    if tally.records == 0:
        raise NoRecords
    if options.output == "text" and not options.quiet:
        stdout.write(tally.summary() + "\n")
        by_code = tally.by_code()
        if by_code is not None:
            stdout.write(by_code + "\n")
    return tally


# -- tournament check ----------------------------------------------------------------------


@dataclass
class CheckedRecords:
    """What the checks across records need of a tournament's records: their facts, their
    own problems, the manifests found among the paths, and the records whose texts could
    not be read again to be compared (``unreadable`` problems)."""

    facts: FactsTable = field(default_factory=FactsTable)
    problems: list[TournamentProblem] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    not_read_again: list[TournamentProblem] = field(default_factory=list)
    #: The run could not check every record (exit 3).
    failed: bool = False


def check_records(
    paths: Sequence[str], options: Options, jobs: int, text: IO[str] | None, progress: bool
) -> CheckedRecords:
    """The records of the paths verified (``options.output`` is ``facts``) on ``jobs``
    processes, each record's problems written to ``text`` as ``verify --quiet`` words them
    (``None``: not written), with a progress bar (``progress``); then their possible
    copies compared. :class:`~.failures.NoRecords` when the paths hold none."""
    checked = CheckedRecords()
    checking = Progress("checking", progress)
    try:
        batches = verify_batches(paths, options, jobs, _standard_input(), checking)
        with on_manifest(checked.manifests.append):
            for batch in batches:
                if batch.facts is not None:
                    checked.facts.extend(batch.facts)
                checked.problems.extend(batch.problems)
                checked.failed |= batch.tally.failed > 0
                if text is not None:
                    text.write(batch.text)
                checking.update(len(checked.facts))
    except WorkerLost as lost:
        raise WorkerLost(lost.done, f"after {len(checked.facts)} records") from None
    finally:
        checking.close()
    if not checked.facts:
        raise NoRecords
    comparing = Progress("comparing possible copies", checking.enabled)
    try:
        checked.not_read_again = digest_possible_copies(checked.facts, jobs, comparing.update)
    except WorkerLost as lost:
        raise WorkerLost(lost.done, "while records were compared") from None
    finally:
        comparing.close()
    checked.failed |= bool(checked.not_read_again)
    return checked


# -- export and stats -----------------------------------------------------------------------


#: What a run that made the tables tells its command once they are made: its counts
#: (``records``, ``left_out``, ``failed``, ``invalid``).
Notes = Callable[[Any], None]


@dataclass(frozen=True)
class TableTarget:
    """Where ``export`` writes a table: ``games`` or ``tricks``, the option that named it,
    the path (``-``: standard output), and the format (``csv``, ``jsonl``, ``parquet``;
    ``None`` when neither ``--format`` nor the extension names one), ``by_format`` when
    ``--format`` named it."""

    table: str
    option: str
    path: str
    format: str | None
    by_format: bool = False


@dataclass(frozen=True)
class TablesWork:
    """How the tables are made: the records' ``sheets``, whether invalid records are kept,
    on how many processes (``jobs``), on which cluster (``scheduler``, ``None`` for this
    machine), and whether the run is ``quiet`` (no progress)."""

    sheets: Mapping[str, Sheet] | None
    include_invalid: bool
    jobs: int
    scheduler: str | None = None
    quiet: bool = False


def built_tables(paths: Sequence[str], work: TablesWork, folder: Path) -> TableFiles:
    """The tables of the records of the paths, built in ``folder`` on ``work.jobs``
    processes with a progress bar (unless quiet); :class:`~.failures.NoRecords` when the
    paths hold none."""
    from ..tabular.tables import build_tables

    progress = Progress("reading", not work.quiet)
    chunks = source_tables(
        paths, work.sheets, work.include_invalid, work.jobs, _standard_input(), progress, folder
    )
    try:
        files = build_tables(chunks, folder, work.include_invalid, on_record=progress.update)
    except WorkerLost as lost:
        raise WorkerLost(lost.done, f"after {progress.count} records") from None
    finally:
        progress.close()
    if files.records == 0:
        raise NoRecords
    return files


def export_tables(
    paths: Sequence[str],
    targets: Sequence[TableTarget],
    work: TablesWork,
    force: bool,
    notes: Notes,
) -> Any:
    """``export``: the tables written to the targets, all put in place together once all
    are written (a failure leaves none); ``notes`` told the run's counts once the tables
    are made, before they are written. On a cluster, the targets are Parquet datasets
    (folders), written by the cluster's workers, and the records it could not read or
    check are said on standard error. The run (its counts)."""
    if work.scheduler is not None:
        return _exported_on_cluster(paths, targets, work, force, notes)
    from ..files.outputs import check_writable, is_standard_output
    from ..tabular.tables import TRICK_TEXT_COLUMNS
    from ..views.csv_output import sink_csv

    for target in targets:
        if target.format is None and not is_standard_output(target.path):
            raise RunRefused(
                f"{target.option} {target.path}: name the format with --format, or by the "
                "extension: .csv, .parquet, .jsonl or .ndjson"
            )
    for target in targets:
        check_writable(target.path, force, standard_output=True)
    with work_folder() as folder:
        files = built_tables(paths, work, folder)
        notes(files)
        with outputs_together(force) as written:
            for target in targets:
                form = target.format or "csv"
                as_text = form == "csv"  # the swaps decoded straight to their text
                games = target.table == "games"
                frame = (files.scan_games() if games else files.scan_tricks(as_text)).drop(
                    "game_key"
                )
                temporary = written.path(target.path, standard_output=True)
                if form == "csv":
                    sink_csv(frame, temporary, None if games else TRICK_TEXT_COLUMNS)
                elif form == "parquet":
                    frame.sink_parquet(temporary)
                else:
                    frame.sink_ndjson(temporary)
    return files


def _exported_on_cluster(
    paths: Sequence[str],
    targets: Sequence[TableTarget],
    work: TablesWork,
    force: bool,
    notes: Notes,
) -> Any:
    if any(target.by_format and target.format != "parquet" for target in targets):
        raise RunRefused("--scheduler writes Parquet datasets (folders of .parquet files)")
    for target in targets:
        if target.path == "-" or target.format not in (None, "parquet"):
            raise RunRefused(
                f"{target.option} {target.path}: --scheduler writes Parquet datasets (folders "
                "of .parquet files), not standard output, CSV or JSON Lines"
            )
    from .cluster import export_on_cluster, run_for_command

    found = {target.table: target.path for target in targets}
    run = run_for_command(
        export_on_cluster,
        paths,
        found.get("games"),
        found.get("tricks"),
        work.scheduler,
        include_invalid=work.include_invalid,
        force=force,
        quiet=work.quiet,
        sheets=work.sheets,
    )
    notes(run)
    for line in run.problem_lines():
        sys.stderr.write(line + "\n")
    return run


def table_statistics(
    paths: Sequence[str],
    keys: list[str],
    curve: bool,
    work: TablesWork,
    notes: Notes,
    work_url: str | None = None,
) -> tuple[pl.DataFrame, Any]:
    """``stats``: the figures of the valid records, a row per group of ``keys``
    (:func:`~phantom_log.tabular.stats.summary`, or with ``curve``
    :func:`~phantom_log.tabular.stats.progress_curve`), computed from their tables, and
    the run (its counts); ``notes`` told those counts once the tables are made. On a
    cluster, the tables are written under ``work_url`` (a folder the workers and this
    machine reach)."""
    if work.scheduler is not None:
        from .cluster import run_for_command, stats_on_cluster

        frame, run = run_for_command(
            stats_on_cluster,
            paths,
            work.scheduler,
            by=keys,
            curve=curve,
            quiet=work.quiet,
            work_url=work_url,
            sheets=work.sheets,
        )
        if run.records == 0:
            raise NoRecords
        notes(run)
        return frame, run
    if work_url is not None:
        raise RunRefused("--work-url takes --scheduler")
    from ..tabular.stats import progress_curve, summary

    with work_folder() as folder:
        files = built_tables(paths, work, folder)
        notes(files)
        return (progress_curve(files, keys) if curve else summary(files, keys)), files
