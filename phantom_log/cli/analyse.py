"""``phantom-log analyse``: every decision of the records valued by the solver, on worker
processes, as a coach's lines, JSON Lines or CSV."""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import click
import orjson

from ..records.number_kinds import COUNT, SECONDS, SEED
from ..rules.sheets import Sheet
from ..views.reports import printable, report_lines, verdict_line
from .destination import say_written
from .exits import EXIT_FAILED, EXIT_INVALID, EXIT_OK, run_failed, usage_error, writing_output
from .help import ANALYSE_EPILOG, ANALYSE_EXAMPLES
from .inputs import load_sheets, record_title, source_records
from .options import (
    PATHS,
    NumberOption,
    colour_option,
    jobs_option,
    max_record_size_option,
    output_options,
    selection_options,
    sheets_option,
)
from .reviews import ANALYSIS_SYMBOLS

if TYPE_CHECKING:
    from ..analysis.decisions import AnalysisOptions, Decision
    from ..analysis.solver import Solver
    from ..records.source_records import SourceRecord
    from ..rules.cards import Role
    from ..views.terminal import ColourChoice, Style
    from .destination import Destination


@click.command(epilog=ANALYSE_EXAMPLES + ANALYSE_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--from",
    "from_text",
    metavar="ROUND.TRICK",
    help="Analyse from that trick on (ROUND.0: from the round's start, its exchange). "
    "Default: the whole game.",
)
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
    help="Seconds per game (above 0); a decision not solved by then is marked unsolved.",
)
@jobs_option
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
    from_text: str | None,
    deep: bool,
    hidden: bool,
    worlds: int | None,
    seed: int | None,
    time_limit: float,
    jobs: int | None,
    output: Destination,
    force: bool,
    colour: ColourChoice,
    sheets_path: str | None,
) -> None:
    """Analyse every decision of the records with the solver: what each choice cost.

    Each decision (the special number, each lead and follow, each side's give at a swap;
    with --deep the exchange too) is valued with both hands known: the notes at the end
    of the round after the choice made and after the best one, the cost in notes for the
    player who chose, and a label: ?! for 1 note, ? for 2, ?? for 3 or more or a won game
    thrown away. A swap or an exchange is judged against what the opponent gave. A choice
    with no alternative is left out. An illegal record is analysed up to its first
    problem.
    """
    from ..analysis.decisions import DEFAULT_WORLDS, AnalysisOptions
    from ..running.pipeline import WorkerLost, default_jobs, ordered_map
    from ..views.picture import parse_moment
    from ..views.terminal import Progress, clear_progress, detect_style

    start = (1, 0)
    if from_text is not None:
        try:
            start = parse_moment(from_text)
        except ValueError as error:
            raise usage_error(f"--from {error}") from None
    if not hidden and (worlds is not None or seed is not None):
        raise usage_error("--worlds and --seed take --hidden")
    options = AnalysisOptions(
        start,
        deep,
        hidden,
        DEFAULT_WORLDS if worlds is None else worlds,
        0 if seed is None else seed,
        time_limit,
    )
    sheets = load_sheets(sheets_path)
    style = detect_style(colour, output.to_standard_output)
    output_format = output.format
    work = functools.partial(_analyse_record, sheets=sheets, options=options)
    progress = Progress("analysing", output.pager_command is None)
    done = 0
    all_valid = True
    failed = False
    with writing_output(), output.text() as stream:
        emit = stream.write
        problem_text = emit if output_format == "table" else sys.stderr.write
        if output_format == "csv":
            emit(_csv_text([], header=True))
        try:
            records = source_records(paths, sheets)
            for analysed in ordered_map(work, records, jobs or default_jobs()):
                all_valid &= analysed.valid
                failed |= analysed.failed
                clear_progress(for_standard_output=not analysed.problems)
                if output_format == "table":
                    emit(("\n" if done else "") + _analysis_table(analysed, style))
                elif output_format == "json":
                    emit(
                        "".join(
                            orjson.dumps(row.to_json()).decode() + "\n" for row in analysed.rows
                        )
                    )
                else:
                    emit(_csv_text(analysed.rows))
                problem_text("".join(line + "\n" for line in analysed.problems))
                done += 1
                progress.update(done)
            if output_format == "table" and done:
                legend = style.legend(ANALYSIS_SYMBOLS)
                emit("\n" + style.fitted(legend))
        except WorkerLost:
            raise run_failed(f"a worker process died after {done} records") from None
        finally:
            progress.close()
    say_written(output, False)
    if failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if all_valid else EXIT_INVALID)


@dataclass(frozen=True)
class _Analysed:
    """One record analysed (in a worker): what the output needs of it."""

    title: str
    rows: list[Decision]
    problems: list[str]
    verdict: str | None
    valid: bool
    failed: bool
    stopped: bool
    players: dict[Role, str]


@functools.cache
def _process_solver() -> Solver:
    """One solver a process, its table reused game after game (emptied before each)."""
    from ..analysis.solver import Solver

    return Solver()


def _analyse_record(
    record: SourceRecord, sheets: Mapping[str, Sheet] | None, options: AnalysisOptions
) -> _Analysed:
    """Check and analyse one record; a failure of the analysis is the record's
    internal-error problem, not the run's."""
    from ..analysis.decisions import analyse_replay, record_decisions
    from ..checking.verdict import internal_error, verify_record
    from ..rules.cards import Role

    report = verify_record(record, sheets)
    rows: list[Decision] = []
    if report.log is not None and not report.failed:
        try:
            replayed = record_decisions(report.record, sheets)
            rows = analyse_replay(replayed, report.game_id, options, _process_solver())
        except Exception as error:  # a bug of the analysis: this record's problem
            report = replace(report, problems=(*report.problems, internal_error(error)))
    players: dict[Role, str] = {}
    if isinstance(report.record, dict) and isinstance(report.record.get("players"), dict):
        names = report.record["players"]
        players = {role: printable(str(names.get(role.key, ""))) for role in Role}
    return _Analysed(
        record_title(report),
        rows,
        report_lines(report),
        verdict_line(report) if report.valid and report.result is not None else None,
        report.valid,
        report.failed,
        report.log is not None and not report.valid,
        players,
    )


def _analysis_table(analysed: _Analysed, style: Style) -> str:
    """One record's analysis as the table prints it: the title, a coach's line a decision,
    the summary per player, and the verdict (or where an illegal record stopped)."""
    from ..analysis.coach import decision_line, stopped_line, summary_lines
    from ..analysis.decisions import summarise

    # The title is made printable by record_title; a decision's line holds only what
    # the engine and the solver say (cards, numbers, roles), painted: escaping it would
    # print its colour codes as text.
    lines = [style.paint(line, bold=True) for line in style.fit(analysed.title)]
    for row in analysed.rows:
        lines += style.fit(decision_line(row, style))
    if analysed.rows:
        for line in summary_lines(summarise(analysed.rows), analysed.players):
            lines += style.fit(line)
    if analysed.stopped:
        lines += style.fit(stopped_line())
    elif analysed.verdict is not None:
        lines += style.fit(analysed.verdict)
    return "".join(line + "\n" for line in lines)


def _csv_text(rows: list[Decision], header: bool = False) -> str:
    """The decisions as CSV rows (after the header, with ``header``)."""
    from ..analysis.decisions import ANALYSIS_FIELDS
    from ..tabular.csv_output import CsvRows

    buffer = io.StringIO()
    writer = CsvRows(buffer, ANALYSIS_FIELDS)
    if header:
        writer.write_header()
    writer.write_all(row.to_csv_row() for row in rows)
    return buffer.getvalue()
