"""``phantom-log analyse``: every decision of the records valued by the solver, on worker
processes, as a coach's lines, JSON Lines or CSV."""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

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
    trick_span_options,
)
from .reviews import ANALYSIS_SYMBOLS

if TYPE_CHECKING:
    from ..analysis.decisions import AnalysisOptions, Decision
    from ..analysis.solver import Solver
    from ..records.source_records import SourceRecord
    from ..records.trick_spans import TrickSpan
    from ..rules.cards import Role
    from ..views.terminal import ColourChoice, Style
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
    colour: ColourChoice,
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
    from ..running.pipeline import WorkerLost, default_jobs, ordered_map
    from ..views.terminal import clear_progress, detect_style

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
    style = detect_style(colour, output.to_standard_output)
    output_format = output.format
    work = functools.partial(_analyse_record, sheets=sheets, options=options)
    progress = AnalysisProgress(not quiet and output.pager_command is None)
    done = 0
    all_valid = True
    failed = False
    with writing_output(), output.text() as stream, progress:
        emit = stream.write
        problem_text = emit if output_format == "table" else sys.stderr.write
        if output_format == "csv":
            emit(_csv_text([], header=True))
        try:
            records = source_records(paths, sheets)
            for analysed in ordered_map(work, records, jobs or default_jobs()):
                all_valid &= analysed.valid
                failed |= analysed.failed
                with progress.lock:
                    clear_progress(for_standard_output=not analysed.problems)
                    if output_format == "table":
                        emit(("\n" if done else "") + _analysis_table(analysed, style, tricks))
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
                progress.game_done(sum(row.solved for row in analysed.rows), analysed.counted)
            if output_format == "table" and done:
                legend = style.legend(ANALYSIS_SYMBOLS)
                emit("\n" + style.fitted(legend))
        except WorkerLost:
            raise run_failed(f"a worker process died after {done} records") from None
    say_written(output, quiet)
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
    #: Who won the game (``None``: unfinished, or illegal).
    winner: Role | None = None
    #: The decisions were counted on the run's counter as they were solved (see
    #: :class:`AnalysisProgress`), not only now that the game is done.
    counted: bool = False


#: The count of decisions solved by this run's processes, shared with the workers it
#: forks (``None``: no progress line is drawn, or this process was not forked from the
#: run's: spawned workers leave it to the run to count a game's decisions when it is done).
_solved: Any = None


def _count_solved() -> None:
    with _solved.get_lock():
        _solved.value += 1


class AnalysisProgress:
    """``analyse``'s progress line on standard error (:class:`~phantom_log.views.terminal.Progress`,
    as ``verify`` and ``export`` draw theirs): the games done, the decisions solved so far
    (counted by the workers as they solve them) and the time elapsed. A thread redraws it
    twice a second, since one game can take a minute; text written to the terminal first
    takes :attr:`lock`. Drawn only on a terminal, never with ``--quiet``."""

    def __init__(self, enabled: bool) -> None:
        import threading
        import time

        from ..views.terminal import Progress

        self.line = Progress("analysing", enabled)
        self.enabled = self.line.enabled
        self.lock = threading.Lock()
        self.clock = time.monotonic
        self.started = self.clock()
        self.games = 0
        self.uncounted = 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._tick, name="analyse-progress", daemon=True)

    def __enter__(self) -> AnalysisProgress:
        global _solved
        if self.enabled:
            import multiprocessing

            _solved = multiprocessing.Value("q", 0)
            self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        global _solved
        if self.enabled:
            self.stopped.set()
            self.thread.join()
            with self.lock:
                self._draw()
                self.line.close()
        _solved = None

    def game_done(self, decisions: int, counted: bool) -> None:
        """One more game done, with its ``decisions`` solved (already ``counted`` as
        they were, or not)."""
        with self.lock:
            self.games += 1
            if not counted:
                self.uncounted += decisions
            self._draw()

    def _tick(self) -> None:
        while not self.stopped.wait(0.5):
            with self.lock:
                self._draw()

    def _draw(self) -> None:
        solved = self.uncounted + (0 if _solved is None else _solved.value)
        elapsed = int(self.clock() - self.started)
        detail = f"{solved:,} decision{'' if solved == 1 else 's'} solved, {elapsed} s elapsed"
        self.line.update(self.games, detail)


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
            on_solved = None if _solved is None else _count_solved
            rows = analyse_replay(replayed, report.game_id, options, _process_solver(), on_solved)
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
        report.result.winner if report.valid and report.result is not None else None,
        _solved is not None,
    )


def _analysis_table(analysed: _Analysed, style: Style, tricks: TrickSpan) -> str:
    """One record's analysis as the table prints it: the title, a coach's line a decision,
    the summary (the span of ``tricks``, the turning points, per player), and the verdict
    (or where an illegal record stopped)."""
    from ..analysis.coach import decision_line, stopped_line, summary_lines
    from ..analysis.decisions import summarise

    # The title is made printable by record_title; a decision's line holds only what
    # the engine and the solver say (cards, numbers, roles), painted: escaping it would
    # print its colour codes as text.
    lines = [style.paint(line, bold=True) for line in style.fit(analysed.title)]
    for row in analysed.rows:
        lines += style.fit(decision_line(row, style))
    if analysed.rows:
        summary = summary_lines(
            analysed.rows, summarise(analysed.rows), analysed.players, analysed.winner, tricks
        )
        for line in summary:
            lines += style.fit(line)
    elif not tricks.whole_game and not analysed.stopped:
        lines += style.fit(f"Summary of {tricks}: no decision with a choice there")
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
