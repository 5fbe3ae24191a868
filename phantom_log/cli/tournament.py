"""``phantom-log tournament check``: every record of an event verified (on the one verify
pipeline), then the checks across records, the schedule of a manifest, and the
standings."""

from __future__ import annotations

import io
import sys
from typing import IO, TYPE_CHECKING

import click

from ..records.size_limit import read_limited
from ..views.reports import printable
from .destination import say_written
from .exits import finish, library_errors, usage_error, writing_output
from .help import TOURNAMENT_EPILOG, TOURNAMENT_EXAMPLES
from .inputs import load_sheets, manifest_skipped
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
    from ..running.outcomes import Options
    from ..running.pipeline import default_jobs
    from ..running.runs import check_records
    from ..tournament.report import tournament_report
    from ..views.reports import tournament_lines
    from ..views.terminal import terminal_width

    manifest = None if manifest_path is None else _read_manifest(manifest_path, "--manifest ")
    options = Options(load_sheets(sheets_path), strict, "facts", quiet=True)
    # The text report: the output itself, or standard error when the output is the
    # standings as CSV; held until the end when it goes to a file (or nowhere, quiet).
    text: IO[str] | None = sys.stderr if output.format == "csv" else sys.stdout
    if output.format == "json":
        text = None
    elif (output.format == "text" and not output.to_standard_output) or (
        output.format == "csv" and quiet
    ):
        text = io.StringIO()
    progress = not quiet and output.pager_command is None
    with library_errors():
        checked = check_records(paths, options, jobs or default_jobs(), text, progress)
    manifest = _chosen_manifest(manifest, checked.manifests)
    report = tournament_report(
        checked.facts, checked.problems, manifest, strict, checked.not_read_again
    )
    if text is not None:
        width = terminal_width() if output.to_terminal else None
        lines = tournament_lines(report, len(checked.problems), output.format == "text", width)
        text.write("".join(line + "\n" for line in lines))
    with writing_output(), output.text() as stream:
        _write_report(stream, output.format, report, text)
    say_written(output.path, quiet)
    finish(checked.failed, report.errors > 0)


def _write_report(
    stream: IO[str], form: str, report: TournamentReport, text: IO[str] | None
) -> None:
    """The output of ``tournament check``: the report as JSON, the standings as CSV, or
    the text report held for a file."""
    from ..tournament.standings import STANDINGS_COLUMNS, standings_dicts
    from ..views.csv_output import CsvRows

    if form == "json":
        report.write_json(stream)
    elif form == "csv":
        writer = CsvRows(stream, STANDINGS_COLUMNS)
        writer.write_header()
        writer.write_all(standings_dicts(report.standings))
    elif isinstance(text, io.StringIO):
        stream.write(text.getvalue())


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


def _chosen_manifest(given: Manifest | None, found: list[str]) -> Manifest | None:
    """The manifest of ``tournament check``: the one given, each found among the paths
    then said to be skipped (unless it is that one); else the one found among the paths,
    said on standard error; ``None`` without one; a usage error when there are several
    (which one is meant cannot be guessed)."""
    import os

    if given is not None:
        for path in found:
            if not os.path.exists(path) or not os.path.samefile(path, given.source):
                manifest_skipped(path)
        return given
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
