"""``phantom-log annotate``: every completed trick of the records, who won it and why,
as a table, JSON Lines or CSV."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING

import click
import orjson

from ..checking.verdict import RecordReport
from ..rules.sheets import Sheet
from ..views.reports import printable, report_lines, verdict_line
from .destination import say_written
from .exits import EXIT_FAILED, EXIT_INVALID, EXIT_OK, writing_output
from .help import ANNOTATE_EPILOG, ANNOTATE_EXAMPLES
from .inputs import load_sheets, record_reports, record_title
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
from .reviews import ANALYSIS_SYMBOLS, decision_reviews

if TYPE_CHECKING:
    from ..records.trick_spans import TrickSpan
    from ..tabular.tables import TrickCsv
    from ..views.replay_page import Reviews
    from ..views.terminal import ColourChoice, Style
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
    help="Add a sentence per trick on who won and why (default: on for table, off otherwise).",
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
    colour: ColourChoice,
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
    from ..views.terminal import detect_style

    analysed = analysis_path is not None or analyse_games
    sheets = load_sheets(sheets_path)
    reviews = decision_reviews(analysis_path, analyse_games, time_limit, sheets)
    output_format = output.format
    explain = output_format == "table" if explain is None else explain
    style = detect_style(colour, output.to_standard_output)
    with writing_output(), output.text() as stdout:
        all_valid, failed = _annotate_to(
            stdout, paths, sheets, output_format, explain, tricks, analysed, reviews, style
        )
    say_written(output, False)
    if failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if all_valid else EXIT_INVALID)


def _annotate_to(
    stdout: IO[str],
    paths: tuple[str, ...],
    sheets: Mapping[str, Sheet] | None,
    output_format: str,
    explain: bool,
    tricks: TrickSpan,
    analysed: bool,
    reviews: Callable[[RecordReport], Reviews | None],
    style: Style,
) -> tuple[bool, bool]:
    """Write the annotations of the records to ``stdout``: whether all were valid, and
    whether the checker failed on one. Only the tricks in the span ``tricks`` are
    written."""
    from ..analysis.coach import trick_mistakes, trick_reviews
    from ..tabular.csv_output import CsvRows
    from ..views.annotate import (
        ANNOTATION_FIELDS,
        TABLE_SYMBOLS,
        annotate,
        choose_layout,
        table_lines,
        table_symbols,
    )

    writer: CsvRows | None = None
    fast_csv: TrickCsv | None = None
    symbols: dict[str, None] = {}  # the symbols of the layouts used, in order
    if output_format == "csv" and not explain and not analysed and tricks.whole_game:
        from ..tabular.tables import TrickCsv

        # The same columns as the tricks table, decoded by polars a batch at a time.
        fast_csv = TrickCsv(stdout)
    elif output_format == "csv":
        fields = [*ANNOTATION_FIELDS, *(["explanation"] if explain else [])]
        fields += ["analysis"] if analysed else []
        writer = CsvRows(stdout, fields)
        writer.write_header()
    all_valid = True
    failed = False
    first = True
    for report in record_reports(paths, sheets):
        all_valid &= report.valid
        failed |= report.failed
        if fast_csv is not None:
            fast_csv.add(report)
            for line in report_lines(report):
                sys.stderr.write(line + "\n")
            continue
        annotations = [
            annotation
            for annotation in (
                () if report.log is None else annotate(report.log, report.game_id, explain)
            )
            if tricks.covers(annotation.round, annotation.trick)
        ]
        marks = trick_reviews(reviews(report) or {}) if analysed else None
        if output_format == "table":
            if not first:
                stdout.write("\n")
            first = False
            for line in style.fit(record_title(report)):
                stdout.write(style.paint(line, bold=True) + "\n")
            if report.log is not None:
                mistakes = None
                if marks is not None:
                    mistakes = {
                        trick: printable(trick_mistakes(found)) for trick, found in marks.items()
                    }
                layout = choose_layout(annotations, report.log, style, mistakes)
                symbols.update(dict.fromkeys(table_symbols(layout)))
                lines = table_lines(
                    annotations, report.log, style, explain, mistakes, tricks, layout
                )
                for line in lines:
                    stdout.write(line + "\n")
        for annotation in annotations:
            trick = (annotation.round, annotation.trick)
            if writer is not None:
                row = annotation.to_csv_row(explain)
                if marks is not None:
                    row["analysis"] = trick_mistakes(marks.get(trick, []))
                writer.write(row)
            elif output_format == "json":
                data = annotation.to_json(explain)
                if marks is not None:
                    data["analysis"] = marks.get(trick, [])
                stdout.write(orjson.dumps(data).decode() + "\n")
        problem_stream = stdout if output_format == "table" else sys.stderr
        for line in report_lines(report):
            problem_stream.write(line + "\n")
        if output_format == "table" and report.valid:
            stdout.write(style.fitted(verdict_line(report)))
    if fast_csv is not None:
        fast_csv.flush()
    if output_format == "table" and not first:
        legend = style.legend(
            [*(symbols or TABLE_SYMBOLS), *(ANALYSIS_SYMBOLS if analysed else ())]
        )
        stdout.write("\n" + style.fitted(legend))
    return all_valid, failed
