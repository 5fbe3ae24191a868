"""``phantom-log tournament check``: every record of an event verified (on the one verify
pipeline), then the checks across records, the schedule of a manifest, and the
standings."""

from __future__ import annotations

import io
import sys
from typing import IO, TYPE_CHECKING

import click

from ..records.found_sources import SourceError
from ..records.size_limit import read_limited
from ..rules.problems import Severity
from ..views.reports import printable
from .destination import say_written
from .exits import EXIT_FAILED, EXIT_INVALID, EXIT_OK, run_failed, usage_error, writing_output
from .help import TOURNAMENT_EPILOG, TOURNAMENT_EXAMPLES
from .inputs import load_sheets, manifest_skipped, no_records, standard_input
from .options import (
    PATHS,
    jobs_option,
    max_record_size_option,
    output_options,
    selection_options,
    sheets_option,
)

if TYPE_CHECKING:
    from ..tournament.manifest import Manifest
    from ..tournament.report import TournamentReport
    from .destination import Destination


@click.group(epilog=TOURNAMENT_EXAMPLES + TOURNAMENT_EPILOG)
def tournament() -> None:
    """Check the records of a whole tournament: `tournament check`."""


@tournament.command("check", epilog=TOURNAMENT_EXAMPLES + TOURNAMENT_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--manifest",
    "manifest_path",
    metavar="FILE",
    type=PATHS,
    help="The event's players and schedule.",
)
@output_options(
    ["text", "json", "csv"],
    "text: problems, a summary and the standings; json: the report as one JSON object; "
    "csv: the standings (the problems and the summary then go to standard error).",
)
@jobs_option
@click.option(
    "--strict",
    is_flag=True,
    help="Treat every warning (unfinished, duplicate-record, duplicate-deal) as an error.",
)
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="No progress bar (and with --format csv, no report on standard error).",
)
@sheets_option
@selection_options
@max_record_size_option
def tournament_check(
    paths: tuple[str, ...],
    manifest_path: str | None,
    output: Destination,
    force: bool,
    jobs: int | None,
    strict: bool,
    quiet: bool,
    sheets_path: str | None,
) -> None:
    """Verify every record of a tournament, then check across records and standings.

    Every record is verified as by `verify`. Across records: the same game id twice
    (duplicate-game-id, error, naming every source), the same record content twice
    (duplicate-record, warning, naming where it was first seen), the same deal in two
    games (duplicate-deal, warning), one player on both sides (same-player, error).
    With --manifest: missing-game, unscheduled-game, wrong-players, wrong-stage and
    unknown-player (errors). Then the standings: per player, games, wins, losses, wins
    as the Phantom and as Christine, and notes completed as the Phantom (the tie-break).
    """
    import os

    from ..records.chunks import on_manifest
    from ..running.outcomes import Options
    from ..running.pipeline import (
        WorkerLost,
        default_jobs,
        digest_possible_copies,
        verify_sources_in_batches,
    )
    from ..tournament.cross_checks import TournamentProblem
    from ..tournament.facts import FactsTable
    from ..tournament.report import tournament_report
    from ..tournament.standings import STANDINGS_COLUMNS, standings_dicts
    from ..views.terminal import Progress, terminal_width

    manifest: Manifest | None = None
    if manifest_path is not None:
        manifest = _read_manifest(manifest_path, "--manifest ")
    options = Options(load_sheets(sheets_path), strict, "facts", quiet=True)
    facts = FactsTable()
    record_problems: list[TournamentProblem] = []
    output_format = output.format
    # The text report: the output itself, or standard error when the output is the
    # standings as CSV.
    stdout: IO[str] = sys.stderr if output_format == "csv" else sys.stdout
    if (output_format == "text" and not output.to_standard_output) or (
        output_format == "csv" and quiet
    ):
        stdout = io.StringIO()
    progress = Progress("checking", not quiet and output.pager_command is None)
    failed = False
    manifests_found: list[str] = []
    jobs = jobs or default_jobs()
    try:
        batches = verify_sources_in_batches(paths, options, jobs, standard_input(), progress)
        with on_manifest(manifests_found.append):
            for batch in batches:
                if batch.facts is not None:
                    facts.extend(batch.facts)
                record_problems.extend(batch.problems)
                failed |= batch.tally.failed > 0
                if output_format != "json":
                    stdout.write(batch.text)
                progress.update(len(facts))
    except SourceError as error:
        raise usage_error(str(error)) from None
    except WorkerLost:
        raise run_failed(f"a worker process died after {len(facts)} records") from None
    finally:
        progress.close()
    if not facts:
        raise no_records()
    comparing = Progress("comparing possible copies", progress.enabled)
    try:
        not_read_again = digest_possible_copies(facts, jobs, comparing.update)
    except WorkerLost:
        raise run_failed("a worker process died while records were compared") from None
    finally:
        comparing.close()
    failed |= bool(not_read_again)
    if manifest is None:
        manifest = _found_manifest(manifests_found)
    else:
        for found in manifests_found:
            if not os.path.exists(found) or not os.path.samefile(found, manifest.source):
                manifest_skipped(found)
    report = tournament_report(facts, record_problems, manifest, strict, not_read_again)
    if output_format != "json":
        width = terminal_width() if output.to_terminal else None
        _tournament_text(report, len(record_problems), stdout, output_format == "text", width)
    with writing_output(), output.text() as stream:
        if output_format == "json":
            report.write_json(stream)
        elif output_format == "csv":
            from ..tabular.csv_output import CsvRows

            writer = CsvRows(stream, STANDINGS_COLUMNS)
            writer.write_header()
            writer.write_all(standings_dicts(report.standings))
        elif output_format == "text" and isinstance(stdout, io.StringIO):
            stream.write(stdout.getvalue())
    say_written(output, quiet)
    if failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_INVALID if report.errors else EXIT_OK)


def _read_manifest(path: str, option: str) -> Manifest:
    """The manifest of a file; a usage error (exit 2) naming the file for a bad one."""
    from ..tournament.manifest import read_manifest

    try:
        data = read_limited(path)
    except OSError as error:
        raise usage_error(f"{option}{path}: {error.strerror}") from None
    read = read_manifest(data, path)
    if isinstance(read, list):
        raise usage_error(f"{option}{path}: " + "; ".join(read))
    return read


def _found_manifest(found: list[str]) -> Manifest | None:
    """The manifest found among the paths of ``tournament check`` without ``--manifest``:
    the one there is, said on standard error; ``None`` without one; a usage error when
    there are several (which one is meant cannot be guessed)."""
    if not found:
        return None
    if len(found) > 1:
        raise usage_error(
            f"the paths hold {len(found)} tournament manifests ({', '.join(found)}): "
            "give the one to use with --manifest FILE"
        )
    click.echo(
        printable(f"phantom-log: note: using the manifest {found[0]} (found among the paths)"),
        err=True,
    )
    return _read_manifest(found[0], "the manifest ")


def _tournament_text(
    report: TournamentReport,
    record_problems: int,
    stream: IO[str],
    standings: bool,
    width: int | None = None,
) -> None:
    """The text report of ``tournament check`` after the records' problems: the problems
    across records, the summary and (``standings``) the standings table."""
    from ..views.terminal import table

    for problem in report.problems[record_problems:]:
        where = problem.source if problem.index is None else f"{problem.source}#{problem.index}"
        name = f" ({problem.game_id})" if problem.game_id else ""
        severity = "warning: " if problem.severity is Severity.WARNING else ""
        stream.write(
            printable(f"{where}{name}: {severity}{problem.code}: {problem.message}") + "\n"
        )
    all_warnings = sum(p.severity is Severity.WARNING for p in report.problems)
    stream.write(
        f"{report.records} record{'s' if report.records != 1 else ''}: {report.valid} "
        f"valid, {report.invalid} invalid; {report.errors} error"
        f"{'s' if report.errors != 1 else ''}, {all_warnings} warning"
        f"{'s' if all_warnings != 1 else ''}\n"
    )
    if standings and report.standings:
        columns = list(report.standings[0])
        stream.write("\nStandings\n")
        rows = [
            [str(place), *(printable(str(row[column])) for column in columns)]
            for place, row in enumerate(report.standings, start=1)
        ]
        for line in table(["#", *columns], rows, width):
            stream.write(line + "\n")
