"""``phantom-log stats``: the statistics of the valid records (polars expressions over
the tables), and the progress curve, drawn with ``--plot``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..rules.engine import TRICKS_PER_GAME
from ..views.reports import printable
from .cluster_runs import cluster_options, on_cluster
from .exits import exit_once_written, usage_error, writing_output
from .help import STATS_EPILOG, STATS_EXAMPLES
from .inputs import input_paths, load_sheets, no_records, refuse_inputs_as_outputs
from .options import (
    PATHS,
    jobs_option,
    max_record_size_option,
    output_options,
    scheduler_option,
    selection_options,
    sheets_option,
)
from .record_tables import build_record_tables, say_tables_notes

if TYPE_CHECKING:
    import polars as pl

    from .destination import Destination


@click.command(epilog=STATS_EXAMPLES + STATS_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--by",
    "groupings",
    multiple=True,
    type=click.Choice(["sheet", "rules", "event", "stage", "special_number", "player"]),
    help="Group by a field (repeatable). special_number: each round's number; player: "
    "each player of each game.",
)
@output_options(
    ["table", "csv", "json"],
    "table: for people; csv; json: JSON Lines, one object per row.",
    force_help="Overwrite the -o file (and the --plot file) if it exists.",
)
@click.option(
    "--curve", is_flag=True, help=f"The progress curve: per trick 1-{TRICKS_PER_GAME} of the game."
)
@click.option(
    "--plot",
    "plot_path",
    metavar="FILE.svg|FILE.png",
    type=PATHS,
    help="Draw the progress curve (with matplotlib: the plot extra).",
)
@jobs_option
@scheduler_option
@click.option(
    "--work-url",
    metavar="URL",
    default=None,
    help="With --scheduler on a remote cluster: a folder (URL) that the workers and this "
    "machine can reach, for the tables the figures are computed from.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress, no count of left-out records.")
@sheets_option
@selection_options
@max_record_size_option
def stats(
    paths: tuple[str, ...],
    groupings: tuple[str, ...],
    output: Destination,
    force: bool,
    curve: bool,
    plot_path: str | None,
    jobs: int | None,
    scheduler: str | None,
    work_url: str | None,
    quiet: bool,
    sheets_path: str | None,
) -> None:
    """Statistics over the valid records: one row per group (one in all without --by).

    Each row: games, phantom_wins, christine_wins, unfinished, the Phantom's win rate
    over finished games with its 95% Wilson interval, the mean notes, notes after round
    1 and tricks, the share of tricks won by each reason, special tricks per game and
    their mean net effect on the notes. --curve gives, per trick of the game, the mean
    notes completed and the share of games still running; --plot draws it.
    """
    from ..files.outputs import check_writable, outputs_together, work_folder
    from ..tabular.stats import progress_curve, summary
    from ..views.terminal import terminal_width

    keys = list(dict.fromkeys(groupings))
    if plot_path is not None and not plot_path.lower().endswith((".svg", ".png")):
        raise usage_error(f"--plot {plot_path}: give a .svg or .png file")
    if plot_path is not None and not _plotting_installed():
        from .extras import install_command

        raise usage_error(
            f"--plot draws with matplotlib, which is not installed: {install_command('plot')}"
        )
    if plot_path is not None and output.path is not None:
        from ..files.outputs import is_standard_output
        from ..files.same_files import same_output

        if not is_standard_output(output.path) and same_output(plot_path, output.path):
            raise usage_error(f"--plot and -o are the same file: {plot_path}")
    refuse_inputs_as_outputs(
        input_paths({"paths": paths, "sheets_path": sheets_path}), [("--plot", plot_path)]
    )
    with writing_output():
        if plot_path is not None:
            check_writable(plot_path, force)
    if scheduler is not None:
        options = cluster_options(paths, sheets_path)
        with on_cluster() as cluster:
            frame, run = cluster.stats_on_cluster(
                list(paths),
                scheduler,
                by=keys,
                curve=curve or plot_path is not None,
                quiet=quiet,
                work_url=work_url,
                **options,
            )
        if run.records == 0:
            raise no_records()
        say_tables_notes(run, quiet)
        exit_once_written(run.failed > 0, run.invalid > 0)
    else:
        if work_url is not None:
            raise usage_error("--work-url takes --scheduler")
        sheets = load_sheets(sheets_path)
        with writing_output(), work_folder() as folder:
            files = build_record_tables(paths, sheets, str(folder), False, quiet, jobs)
            frame = progress_curve(files, keys) if curve or plot_path else summary(files, keys)
    shown = plot_path is None or curve  # --plot alone draws the curve, and no more
    written = []
    # The files are put in place together, once all are written: a failure leaves none.
    with writing_output(), outputs_together(force) as outputs:
        if plot_path is not None:
            from ..tabular.plot import plot_curve

            temporary = outputs.path(plot_path)
            plot_curve(frame, keys, temporary, plot_path.lower().endswith(".png"))
            written.append(plot_path)
        if shown:
            with output.text(outputs) as stream:
                if output.format == "table":
                    width = terminal_width() if output.to_terminal else None
                    for line in _frame_lines(frame, keys, width):
                        stream.write(line + "\n")
                elif output.format == "csv":
                    from ..tabular.csv_output import frame_csv

                    stream.write(frame_csv(frame))
                else:
                    stream.write(frame.write_ndjson())
            if not output.to_standard_output:
                written.append(str(output.path))
    if not quiet:
        for path in written:
            click.echo(printable(f"wrote {path}"), err=True)


def _plotting_installed() -> bool:
    """Whether matplotlib (the ``plot`` extra) can be imported; it is not imported here."""
    import importlib.util

    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def _frame_lines(frame: pl.DataFrame, keys: list[str], width: int | None = None) -> list[str]:
    """A table of statistics for people, fitted to the terminal's ``width``."""
    from ..views.terminal import table

    rows = frame.rows()
    # Few groups and many figures read best as one column per group; a curve (a row per
    # trick) or many groups as rows.
    grouped = len(rows) <= 6 if keys else len(rows) == 1
    if not grouped or not rows:
        lines = table(frame.columns, [[_cell(value) for value in row] for row in rows], width)
    else:
        # Few groups and many figures: one column per group reads best.
        headers = [
            "",
            *(" / ".join(_cell(row[i]) for i in range(len(keys))) or "all" for row in rows),
        ]
        body = [
            [name, *(_cell(row[index]) for row in rows)]
            for index, name in enumerate(frame.columns)
            if name not in keys
        ]
        lines = table(headers, body, width)
    return lines


def _cell(value: object) -> str:
    """A figure as a table shows it: ``-`` for none, three decimals for a fraction."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return printable(str(value))
