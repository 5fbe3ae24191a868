"""``phantom-log analyse``: every decision of the records valued by the solver, on worker
processes, as a coach's lines, JSON Lines or CSV."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..records.number_kinds import COUNT, SECONDS, SEED
from .destination import say_written
from .exits import finish, library_errors, usage_error
from .help import ANALYSE_EPILOG, ANALYSE_EXAMPLES
from .inputs import load_sheets, source_records
from .options import (
    PATHS,
    NumberOption,
    colour_option,
    jobs_option,
    max_record_size_option,
    output_options,
    selection_options,
    sheets_option,
    trick_span_options,
)

if TYPE_CHECKING:
    from ..records.trick_spans import TrickSpan
    from ..views.terminal import Style
    from .destination import Destination


@click.command(epilog=ANALYSE_EXAMPLES + ANALYSE_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@trick_span_options
@click.option(
    "--deep",
    is_flag=True,
    help="At each swap and exchange, also the value when either side commits first (the "
    "whole matrix: slow).",
)
@click.option(
    "--hidden",
    is_flag=True,
    help="Judge each decision by what its player could see: the mean over layouts of the "
    "cards they could not see.",
)
@click.option(
    "--worlds",
    type=NumberOption(COUNT),
    default=None,
    metavar="N",
    help="With --hidden: layouts per decision, 1 or more (all of them when fewer). [default: 20]",
)
@click.option(
    "--seed",
    type=NumberOption(SEED),
    default=None,
    metavar="N",
    help="With --hidden: the seed of the layouts, a 64-bit integer. [default: 0]",
)
@click.option(
    "--time-limit",
    type=NumberOption(SECONDS),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="CPU seconds of the solver per game (above 0; a busy machine takes longer by the "
    "clock, not fewer decisions); a decision not solved by then is marked unsolved.",
)
@jobs_option
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
@output_options(
    ["table", "json", "csv"],
    "table: a coach's line per decision and a summary per player; json: JSON Lines, one "
    "object per decision; csv: one row per decision.",
)
@colour_option
@sheets_option
@selection_options
@max_record_size_option
def analyse(
    paths: tuple[str, ...],
    tricks: TrickSpan,
    deep: bool,
    hidden: bool,
    worlds: int | None,
    seed: int | None,
    time_limit: float,
    jobs: int | None,
    quiet: bool,
    output: Destination,
    force: bool,
    style: Style,
    sheets_path: str | None,
) -> None:
    """Analyse every decision of the records with the solver: what each choice cost.

    Each decision (the special number, each lead and follow, each side's give at a swap;
    with --deep the exchange too) is valued with both hands known: the notes at the end
    of the round after the choice made and after the best one, the cost in notes for the
    player who chose, and a label: ?! for 1 note, ? for 2, ?? for 3 or more or a won game
    thrown away. A swap or an exchange is judged against what the opponent gave. A choice
    with no alternative is left out. --from, --to and --at analyse only the decisions of
    those tricks (a round's special number goes with its first trick). Each game closes
    with a summary: its turning points, and per player the decisions that were the best
    play and the costliest mistakes in words. An illegal record is analysed up to its
    first problem.
    """
    from ..analysis.decisions import DEFAULT_WORLDS, AnalysisOptions
    from ..running.analyses import AnalysisProgress, write_analyses
    from ..running.pipeline import default_jobs

    if not hidden and (worlds is not None or seed is not None):
        raise usage_error("--worlds and --seed take --hidden")
    options = AnalysisOptions(
        (1, 0),
        deep,
        hidden,
        DEFAULT_WORLDS if worlds is None else worlds,
        0 if seed is None else seed,
        time_limit,
        tricks,
    )
    sheets = load_sheets(sheets_path)
    progress = AnalysisProgress(not quiet and output.pager_command is None)
    with library_errors(), output.text() as stream, progress:
        records = source_records(paths, sheets)
        jobs = jobs or default_jobs()
        valid, failed = write_analyses(
            stream, output.format, records, sheets, options, jobs, style, progress
        )
    say_written(output.path, quiet)
    finish(failed, not valid)
