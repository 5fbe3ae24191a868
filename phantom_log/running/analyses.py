"""The records of ``analyse``, each analysed by the solver on a worker process, and what
the command writes of them: a coach's lines, JSON Lines or CSV, in input order, with a
progress line of the decisions solved as they are."""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Any

import orjson

from ..analysis.decisions import ANALYSIS_FIELDS, AnalysisOptions
from ..rules.sheets import Sheet
from ..views.csv_output import CsvRows
from ..views.reports import printable, record_title, report_lines, verdict_line
from ..views.terminal import ANALYSIS_SYMBOLS, Progress, Style, clear_progress
from .failures import WorkerLost
from .pipeline import ordered_map

if TYPE_CHECKING:
    from ..analysis.decisions import Decision
    from ..analysis.solver import Solver
    from ..records.source_records import SourceRecord
    from ..records.trick_spans import TrickSpan
    from ..rules.cards import Role


def write_analyses(
    stream: IO[str],
    form: str,
    records: Iterable[SourceRecord],
    sheets: Mapping[str, Sheet] | None,
    options: AnalysisOptions,
    jobs: int,
    style: Style,
    progress: AnalysisProgress,
) -> tuple[bool, bool]:
    """Analyse the records on ``jobs`` processes and write each, in input order, as
    ``form`` says: ``table`` (a coach's lines in ``style``, its problems after it, a legend
    at the end), ``json`` (JSON Lines, a decision a line) or ``csv``, the problems then on
    standard error. Whether all were valid, and whether the run failed on one."""
    work = functools.partial(analyse_record, sheets=sheets, options=options)
    problem_text = stream.write if form == "table" else sys.stderr.write
    rows = CsvRows(stream, ANALYSIS_FIELDS) if form == "csv" else None
    if rows is not None:
        rows.write_header()
    done, valid, failed = 0, True, False
    try:
        for analysed in ordered_map(work, records, jobs):
            valid, failed = valid and analysed.valid, failed or analysed.failed
            with progress.lock:
                clear_progress(for_standard_output=not analysed.problems)
                if form == "table":
                    stream.write(
                        ("\n" if done else "") + analysis_table(analysed, style, options.tricks)
                    )
                elif rows is not None:
                    rows.write_all(row.to_csv_row() for row in analysed.rows)
                else:
                    stream.writelines(
                        orjson.dumps(row.to_json()).decode() + "\n" for row in analysed.rows
                    )
                problem_text("".join(line + "\n" for line in analysed.problems))
            done += 1
            progress.game_done(sum(row.solved for row in analysed.rows), analysed.counted)
    except WorkerLost as lost:
        raise WorkerLost(lost.done, f"after {done} records") from None
    if form == "table" and done:
        stream.write("\n" + style.fitted(style.legend(ANALYSIS_SYMBOLS)))
    return valid, failed


@dataclass(frozen=True)
class AnalysedRecord:
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


def analyse_record(
    record: SourceRecord, sheets: Mapping[str, Sheet] | None, options: AnalysisOptions
) -> AnalysedRecord:
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
    return AnalysedRecord(
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


def analysis_table(analysed: AnalysedRecord, style: Style, tricks: TrickSpan) -> str:
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
