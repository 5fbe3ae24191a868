"""``phantom-log annotate``: every completed trick of the records, who won it and why,
as a table, JSON Lines or CSV."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .destination import say_written
from .exits import finish, writing_output
from .help import ANNOTATE_EPILOG, ANNOTATE_EXAMPLES
from .inputs import load_sheets, record_reports
from .options import (
    PATHS,
    analysis_options,
    colour_option,
    max_record_size_option,
    output_options,
    selection_options,
    sheets_option,
    trick_span_options,
)
from .reviews import decision_marks

if TYPE_CHECKING:
    from ..records.trick_spans import TrickSpan
    from ..views.terminal import Style
    from .destination import Destination


@click.command(epilog=ANNOTATE_EXAMPLES + ANNOTATE_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@output_options(
    ["table", "json", "csv"],
    "table: for people; json: JSON Lines, one object per trick; csv: one row per trick.",
)
@click.option(
    "--explain/--no-explain",
    default=None,
    help="Add a sentence per trick on who won and why (default: on for the wide table, off "
    "for the 80-column one and the other formats).",
)
@trick_span_options
@analysis_options(
    from_file="Add each trick's analysed decisions (cost and label) from FILE, as analyse "
    "--format json writes it (matched by game id).",
    analyse="Add each trick's analysed decisions, analysing each game as analyse does.",
    unsolved="has no cost",
)
@colour_option
@sheets_option
@selection_options
@max_record_size_option
def annotate(
    paths: tuple[str, ...],
    output: Destination,
    force: bool,
    explain: bool | None,
    tricks: TrickSpan,
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    style: Style,
    sheets_path: str | None,
) -> None:
    """Annotate every completed trick of the records, in play order.

    Each trick: the two cards, the winner and why (higher number, super trump, trump or
    lead suit), whether it followed the sheet, the swaps, the super trump, the notes before
    and after. An illegal record is annotated up to its first problem, which is then
    printed (on standard error for json and csv); the exit code is then 1. With
    --analysis FILE or --analyse, each trick also lists its analysed decisions (the
    json key and csv column "analysis", the table's "mistakes").

    --from, --to and --at keep the tricks they name (ROUND.TRICK, as 2.5). On a
    terminal narrower than the table (about 115 columns), each trick is one line of at
    most 80 columns (its sentence, with --explain, below it).
    """
    from ..analysis.coach import trick_mistakes
    from ..views.annotate import AnnotationOutput

    sheets = load_sheets(sheets_path)
    marks = decision_marks(analysis_path, analyse_games, time_limit, sheets)
    with writing_output(), output.text() as stdout:
        fast = None
        if output.format == "csv" and not explain and marks is None and tricks.whole_game:
            from ..tabular.tables import TrickCsv

            # The fast path: the tricks table's columns, decoded a batch at a time.
            fast = TrickCsv(stdout)
        # Unasked, a table explains each trick where it has the room (the wide layout);
        # the 80-column one keeps a line per trick.
        annotated = AnnotationOutput(
            stdout,
            output.format,
            style,
            output.format == "table" if explain is None else explain,
            tricks,
            explain is not None,
            marks,
            trick_mistakes,
            fast,
        )
        annotated.write(record_reports(paths, sheets))
    say_written(output.path)
    finish(annotated.failed, not annotated.valid)
