"""``phantom-log export``: the games and tricks tables of the records, as CSV, Parquet or
JSON Lines."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Final

import click

from .destination import say_tables_notes, say_written
from .exits import finish, library_errors, no_records, usage_error, writing_output
from .help import EXPORT_EPILOG, EXPORT_EXAMPLES
from .inputs import input_paths, load_sheets
from .options import (
    PATHS,
    jobs_option,
    max_record_size_option,
    scheduler_option,
    selection_options,
    sheets_option,
)

if TYPE_CHECKING:
    from ..running.runs import TableTarget

# The formats of export's tables, and the names --format takes for them.
TABLE_FORMATS: Final = ["csv", "jsonl", "parquet"]


_TABLE_FORMAT_NAMES: Final = {"csv": "csv", "jsonl": "jsonl", "json": "jsonl", "parquet": "parquet"}


@click.command(epilog=EXPORT_EXAMPLES + EXPORT_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--games",
    "games_path",
    metavar="FILE",
    type=PATHS,
    help="Write the games table (one row per record) to FILE; - for standard output.",
)
@click.option(
    "--tricks",
    "tricks_path",
    metavar="FILE",
    type=PATHS,
    help="Write the tricks table (one row per trick) to FILE; - for standard output.",
)
@click.option(
    "--format",
    "format_name",
    type=click.Choice(list(_TABLE_FORMAT_NAMES)),
    default=None,
    help="The format of the tables: csv, jsonl (JSON Lines; json is the same) or parquet. "
    "[default: as each file's extension says; csv on standard output]",
)
@click.option("--include-invalid", is_flag=True, help="Keep invalid records (valid = false).")
@jobs_option
@scheduler_option
@click.option("--force", is_flag=True, help="Overwrite output files that exist.")
@click.option("--quiet", "-q", is_flag=True, help="No progress, no count of left-out records.")
@sheets_option
@selection_options
@max_record_size_option
def export(
    paths: tuple[str, ...],
    games_path: str | None,
    tricks_path: str | None,
    format_name: str | None,
    include_invalid: bool,
    jobs: int | None,
    scheduler: str | None,
    force: bool,
    quiet: bool,
    sheets_path: str | None,
) -> None:
    """Export the games and tricks tables of the records as CSV, Parquet or JSON Lines.

    The format of each file follows its extension (.csv, .parquet, .jsonl or .ndjson),
    or --format; one of the tables may go to standard output (-). Invalid records are
    left out, and counted on standard error, unless --include-invalid. An existing file
    is never overwritten without --force; each file is written to a temporary file first
    and then renamed.
    """
    from ..files.output_checks import check_outputs
    from ..records.source_names import RECORD_SUFFIXES
    from ..running.pipeline import default_jobs
    from ..running.runs import TablesWork, export_tables

    if games_path is None and tricks_path is None:
        raise usage_error("export: give --games FILE, --tricks FILE, or both")
    if games_path == tricks_path == "-":
        raise usage_error("--games - and --tricks -: standard output takes one table")
    targets = [
        _target(table, path, format_name)
        for table, path in (("games", games_path), ("tricks", tricks_path))
        if path is not None
    ]
    inputs = input_paths({"paths": paths, "sheets_path": sheets_path})
    with writing_output():
        check_outputs(inputs, [(target.option, target.path) for target in targets], RECORD_SUFFIXES)
    work = TablesWork(
        load_sheets(sheets_path), include_invalid, jobs or default_jobs(), scheduler, quiet
    )
    with library_errors():
        run = export_tables(paths, targets, work, force, partial(say_tables_notes, quiet=quiet))
    for target in targets:
        say_written(target.path, quiet)
    if run.records == 0:  # a cluster's run has written its datasets
        raise no_records()
    finish(run.failed > 0, run.invalid > 0)


def _target(table: str, path: str, format_name: str | None) -> TableTarget:
    """Where ``--games`` or ``--tricks`` writes its table, and in which format: as
    ``--format`` or the extension names it (``None`` when neither does); a usage error
    (exit 2) when they disagree, or the extension is of a format export cannot write."""
    from ..running.runs import TableTarget
    from .destination import DestinationError, resolve_destination

    option = f"--{table}"
    try:
        named = resolve_destination(TABLE_FORMATS, format_name, path, False, "", option)
    except DestinationError as error:
        raise usage_error(str(error)) from None
    return TableTarget(table, option, path, named.format or None, format_name is not None)
