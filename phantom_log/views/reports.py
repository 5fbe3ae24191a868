"""Reports on verified records, as they are printed: compiler-style problem lines, the
verdict line of a valid record, record names and headings, and the escaping that keeps
any record text from forging a terminal's output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..checking.verdict import RecordReport
from ..rules.engine import Result
from ..rules.problems import Code, Problem, Severity

# -- the text report -----------------------------------------------------------------


# Control characters (C0, DEL, C1), the bidirectional marks, embeddings, overrides and
# isolates, and the line and paragraph separators, which could move the cursor, clear a
# line, break a line or reorder text on a terminal: written as escapes in every line
# printed, so that no record or file name can forge the report. So are lone surrogates
# (a file name that is not UTF-8), which no terminal could be sent, and U+FFFE and U+FFFF,
# which no XML document may hold: the same text is safe in an SVG picture.
_UNSAFE: Final = {
    **{code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]},
    **{
        code: f"\\u{code:04x}"
        for code in [
            0x061C,
            0x200E,
            0x200F,
            0x2028,
            0x2029,
            *range(0x202A, 0x202F),
            *range(0x2066, 0x206A),
            *range(0xD800, 0xE000),
            0xFFFE,
            0xFFFF,
        ]
    },
}


def printable(text: str) -> str:
    """A line of text with every character that could forge a terminal's output escaped."""
    return text.translate(_UNSAFE)


def _where(problem: Problem) -> str:
    if problem.line is not None and problem.code is not Code.JSON:
        # A record written as game text: where the problem's part is written (a json
        # problem says its place in its message).
        place = f"line {problem.line}, column {problem.column}: "
        return place + _in_game(problem)
    if problem.round is not None:
        return _in_game(problem)
    if problem.pointer:
        return f"{problem.pointer}: "
    return ""


def _in_game(problem: Problem) -> str:
    if problem.round is None:
        return ""
    if problem.trick is None:
        return f"round {problem.round}: "
    return f"round {problem.round}, trick {problem.trick}: "


def record_name(report: RecordReport) -> str:
    """A record for people: ``source#index (game id)``."""
    name = f"{report.source}#{report.index}"
    return name if report.game_id is None else f"{name} ({report.game_id})"


def game_heading(name: str, players: Mapping[str, str], sheet_name: str) -> str:
    """A replayed game's heading: ``NAME: the Phantom P vs Christine C, sheet S`` (not
    yet made printable)."""
    return (
        f"{name}: the Phantom {players['phantom']} vs Christine {players['christine']}, "
        f"sheet {sheet_name}"
    )


#: The problems of one record that a text report lists; one more line says how many
#: others there are (``--format json`` lists them all).
PROBLEMS_LISTED: Final = 20


def report_lines(report: RecordReport) -> list[str]:
    """The problems of a record in compiler style: the first :data:`PROBLEMS_LISTED`, then
    one line saying how many more, so that a record of any size gives a short report."""
    lines = [
        line
        for problem in report.problems[:PROBLEMS_LISTED]
        for line in problem_lines(report, problem)
    ]
    more = len(report.problems) - PROBLEMS_LISTED
    if more > 0:
        lines.append(
            printable(
                f"{record_name(report)}: and {more} more problem{'s' if more != 1 else ''}, "
                "not listed"
            )
        )
    return lines


def problem_lines(report: RecordReport, problem: Problem) -> list[str]:
    """A problem in compiler style, with its hint on the next line."""
    severity = "warning: " if problem.severity is Severity.WARNING else ""
    lines = [
        printable(
            f"{record_name(report)}: {_where(problem)}{severity}{problem.code}: {problem.message}"
        )
    ]
    if problem.hint:
        lines.append(printable(f"    hint: {problem.hint}"))
    return lines


def verdict_line(report: RecordReport) -> str:
    """One line on a valid record: who won, how many notes."""
    assert report.result is not None
    ended_at = None if report.log is None else report.log.ended_at
    return verdict_text(record_name(report), report.result, ended_at)


def verdict_text(name: str, result: Result, ended_at: tuple[int, int] | None) -> str:
    """The verdict line of a valid record named ``name``."""
    return printable(f"{name}: valid: {result_text(result, ended_at)}")


def result_text(result: Result, ended_at: tuple[int, int] | None) -> str:
    """A game's result in words: who won with how many notes, and where the game ended
    (``unfinished, ... so far`` for a game without a winner)."""
    notes = f"{result.notes} note{'s' if result.notes != 1 else ''}"
    if result.winner is None:
        return f"unfinished, {notes} completed so far"
    outcome = f"{result.winner.in_text} wins with {notes} completed"
    if ended_at is not None:
        outcome += f" (round {ended_at[0]}, trick {ended_at[1]})"
    return outcome
