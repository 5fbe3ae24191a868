"""``phantom-log stats``: the statistics of the valid records (polars expressions over
the tables), and the progress curve, drawn with ``--plot``."""

from __future__ import annotations

from functools import partial
from typing import IO, TYPE_CHECKING

import click

from ..rules.engine import TRICKS_PER_GAME
from .destination import say_tables_notes, say_written
from .exits import finish, library_errors, usage_error, writing_output
from .help import STATS_EPILOG, STATS_EXAMPLES
from .inputs import input_paths, load_sheets
from .options import (
    PATHS,
    jobs_option,
    max_record_size_option,
    output_options,
    scheduler_option,
    selection_options,
    sheets_option,
)

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
    from ..files.output_checks import check_outputs
    from ..files.outputs import outputs_together
    from ..records.source_names import RECORD_SUFFIXES
    from ..running.pipeline import default_jobs
    from ..running.runs import TablesWork, table_statistics

    keys = list(dict.fromkeys(groupings))
    if plot_path is not None and not plot_path.lower().endswith((".svg", ".png")):
        raise usage_error(f"--plot {plot_path}: give a .svg or .png file")
    if plot_path is not None and not _plotting_installed():
        from .extras import install_command

        raise usage_error(
            f"--plot draws with matplotlib, which is not installed: {install_command('plot')}"
        )
    inputs = input_paths({"paths": paths, "sheets_path": sheets_path})
    with writing_output():
        plot = [("--plot", plot_path)]
        check_outputs(inputs, plot, RECORD_SUFFIXES, force, [("-o", output.path)])
    work = TablesWork(load_sheets(sheets_path), False, jobs or default_jobs(), scheduler, quiet)
    notes = partial(say_tables_notes, quiet=quiet)
    with library_errors():
        curved = curve or plot_path is not None
        frame, run = table_statistics(paths, keys, curved, work, notes, work_url)
    # The files are put in place together, once all are written: a failure leaves none.
    with writing_output(), outputs_together(force) as outputs:
        if plot_path is not None:
            from ..tabular.plot import plot_curve

            temporary = outputs.path(plot_path)
            plot_curve(frame, keys, temporary, plot_path.lower().endswith(".png"))
        if plot_path is None or curve:  # --plot alone draws the curve, and no more
            with output.text(outputs) as stream:
                _write_figures(stream, output, frame, keys)
    for path in (plot_path, None if plot_path and not curve else output.path):
        say_written(path, quiet)
    finish(run.failed > 0, run.invalid > 0)


def _plotting_installed() -> bool:
    """Whether matplotlib (the ``plot`` extra) can be imported; it is not imported here."""
    import importlib.util

    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


def _write_figures(
    stream: IO[str], output: Destination, frame: pl.DataFrame, keys: list[str]
) -> None:
    """The figures as ``--format`` says: a table for people (fitted to the terminal), CSV
    or JSON Lines."""
    from ..views.csv_output import frame_csv
    from ..views.reports import figure_lines
    from ..views.terminal import terminal_width

    if output.format == "table":
        width = terminal_width() if output.to_terminal else None
        stream.writelines(
            line + "\n" for line in figure_lines(frame.columns, frame.rows(), keys, width)
        )
    elif output.format == "csv":
        stream.write(frame_csv(frame))
    else:
        stream.write(frame.write_ndjson())
