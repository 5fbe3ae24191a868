"""``phantom-log export``: the games and tricks tables of the records, as CSV, Parquet or
JSON Lines."""

from __future__ import annotations

from typing import Final

import click

from ..views.reports import printable
from .cluster_runs import cluster_options, exit_for_cluster_run, on_cluster
from .destination import say_written
from .exits import usage_error, writing_output
from .help import EXPORT_EPILOG, EXPORT_EXAMPLES
from .inputs import input_paths, load_sheets, refuse_inputs_as_outputs
from .options import (
    PATHS,
    jobs_option,
    max_record_size_option,
    scheduler_option,
    selection_options,
    sheets_option,
)
from .record_tables import build_record_tables, say_tables_notes

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
    import os

    from ..files.outputs import outputs_together, work_folder
    from ..files.same_files import same_output
    from .destination import Destination, DestinationError, resolve_destination

    if games_path is None and tricks_path is None:
        raise usage_error("export: give --games FILE, --tricks FILE, or both")
    if scheduler is not None:
        if format_name not in (None, "parquet"):
            raise usage_error("--scheduler writes Parquet datasets (folders of .parquet files)")
        for path, option in ((games_path, "--games"), (tricks_path, "--tricks")):
            suffix = os.path.splitext(path or "")[1].lower()
            if path == "-" or suffix in (".csv", ".jsonl", ".ndjson", ".json"):
                raise usage_error(
                    f"{option} {path}: --scheduler writes Parquet datasets (folders of "
                    ".parquet files), not standard output, CSV or JSON Lines"
                )
        options = cluster_options(paths, sheets_path)
        with on_cluster() as cluster:
            run = cluster.export_on_cluster(
                list(paths),
                games_path,
                tricks_path,
                scheduler,
                include_invalid=include_invalid,
                force=force,
                quiet=quiet,
                **options,
            )
        say_tables_notes(run, quiet)
        if run.failed:
            for line in run.problem_lines():
                click.echo(line, err=True)
        for path in (games_path, tricks_path):
            if path is not None and not quiet:
                click.echo(printable(f"wrote {path}"), err=True)
        exit_for_cluster_run(run)
    if games_path == tricks_path == "-":
        raise usage_error("--games - and --tricks -: standard output takes one table")
    outputs: list[tuple[Destination, str]] = []
    for path, option in ((games_path, "--games"), (tricks_path, "--tricks")):
        if path is None:
            continue
        try:
            table = resolve_destination(TABLE_FORMATS, format_name, path, force, "", option)
        except DestinationError as error:
            raise usage_error(str(error)) from None
        if not table.format:
            if not table.to_standard_output:
                raise usage_error(
                    f"{option} {path}: name the format with --format, or by the extension: "
                    ".csv, .parquet, .jsonl or .ndjson"
                )
            table = Destination("csv", path, force)
        outputs.append((table, option))
    if games_path and tricks_path and same_output(games_path, tricks_path):
        raise usage_error(f"--games and --tricks are the same file: {games_path}")
    refuse_inputs_as_outputs(
        input_paths({"paths": paths, "sheets_path": sheets_path}),
        [("--games", games_path), ("--tricks", tricks_path)],
    )
    with writing_output():
        for table, _ in outputs:
            table.check()
    sheets = load_sheets(sheets_path)
    with writing_output(), work_folder() as folder:
        files = build_record_tables(paths, sheets, str(folder), include_invalid, quiet, jobs)
        # Both files are put in place together, once both are written: a failure leaves
        # neither, and another run writing them meanwhile waits (OutputSet).
        with outputs_together(force) as written:
            for table, option in outputs:
                as_text = table.format == "csv"  # the swaps decoded straight to their text
                frame = files.scan_games() if option == "--games" else files.scan_tricks(as_text)
                frame = frame.drop("game_key")
                temporary = written.path(table.path or "-", standard_output=True)
                if table.format == "csv":
                    from ..tabular.csv_output import sink_csv
                    from ..tabular.tables import TRICK_TEXT_COLUMNS

                    tricks = option == "--tricks"
                    sink_csv(frame, temporary, TRICK_TEXT_COLUMNS if tricks else None)
                elif table.format == "parquet":
                    frame.sink_parquet(temporary)
                else:
                    frame.sink_ndjson(temporary)
    for table, _ in outputs:
        say_written(table, quiet)
