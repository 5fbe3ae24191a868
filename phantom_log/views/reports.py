"""Reports on verified records, as they are printed: compiler-style problem lines, the
verdict line of a valid record, record names and headings, and the escaping that keeps
any record text from forging a terminal's output; and a record's line of the JSON Lines
report (``verify --format json``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from ..checking.verdict import RecordReport
from ..rules.cards import Role
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


def counted(number: int, word: str) -> str:
    """``1 record``, ``3 records``: a count and its word."""
    return f"{number} {word}{'' if number == 1 else 's'}"


def printable(text: str) -> str:
    """A line of text with every character that could forge a terminal's output escaped."""
    # Every character _UNSAFE escapes is one str.isprintable refuses (a control or format
    # character, a separator other than the space, a surrogate, a non-character): a
    # printable text, most of them, is already safe, and is told at C speed.
    return text if text.isprintable() else text.translate(_UNSAFE)


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
    """A record for people at a terminal: ``source#index (game id)``: the file it was read
    from tells the user which file."""
    name = f"{report.source}#{report.index}"
    return name if report.game_id is None else f"{name} ({report.game_id})"


def shared_name(report: RecordReport) -> str:
    """A record as a page or a picture meant to be shared names it: the game id (or, for a
    record without one, its place in its file, ``record #N``, never the file's local
    path), then the event and the stage when the record gives them:
    ``example-open/s1/t1 (Example Open 2026, stage 1)``."""
    name = report.game_id if report.game_id else f"record #{report.index}"
    record = report.record if isinstance(report.record, dict) else {}
    details = []
    event, stage = record.get("event"), record.get("stage")
    if isinstance(event, str) and event:
        details.append(event)
    if isinstance(stage, str) and stage:
        details.append(f"stage {stage}")
    return f"{name} ({', '.join(details)})" if details else name


# The names a player may be given that are the role's own: such a player is named once.
_ROLE_NAMES: Final = {Role.PHANTOM: ("phantom", "the phantom"), Role.CHRISTINE: ("christine",)}


def player_name(role: Role, name: str) -> str:
    """A player as people name them: the name, then the role in brackets (``Erik
    (Phantom)``), or the name alone when it is the role's own (``Christine``, not
    ``Christine (Christine)``; case and surrounding spaces aside)."""
    if name.strip().casefold() in _ROLE_NAMES[role]:
        return name
    return f"{name} ({role.title})"


def players_text(players: Mapping[str, str]) -> str:
    """Both players, the Phantom first: ``Erik (Phantom) vs Christine``."""
    return " vs ".join(player_name(role, players[role.key]) for role in Role)


def game_heading(name: str, players: Mapping[str, str], sheet_name: str) -> str:
    """A replayed game's heading: ``NAME: Erik (Phantom) vs Christine, sheet S`` (not yet
    made printable)."""
    return f"{name}: {players_text(players)}, sheet {sheet_name}"


def game_title(name: str, report: RecordReport) -> str:
    """A record's heading under ``name``: its players, sheet and rules when it was
    replayed, else ``name`` alone (not yet made printable)."""
    record = report.record
    if not isinstance(record, dict) or report.log is None:
        return name
    title = game_heading(name, record["players"], report.log.sheet.name)
    rules = [rule for rule in ("beginner", "balance") if getattr(report.log.rules, rule)]
    if rules:
        title += f", {' and '.join(rules)} rule{'s' if len(rules) > 1 else ''}"
    return title


def record_title(report: RecordReport) -> str:
    """The record's name (with the file it was read from), players, sheet and rules, as a
    terminal prints it."""
    return printable(game_title(record_name(report), report))


def shared_title(report: RecordReport) -> str:
    """The title of a page or a picture meant to be shared: :func:`shared_name`, the
    players, the sheet and the rules; no local path (made printable)."""
    return printable(game_title(shared_name(report), report))


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
            printable(f"{record_name(report)}: and {counted(more, 'more problem')}, not listed")
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
    notes = counted(result.notes, "note")
    if result.winner is None:
        return f"unfinished, {notes} completed so far"
    outcome = f"{result.winner.in_text} wins with {notes} completed"
    if ended_at is not None:
        outcome += f" (round {ended_at[0]}, trick {ended_at[1]})"
    return outcome


# -- the JSON Lines report -----------------------------------------------------------


def report_json_line(report: RecordReport, valid: bool) -> str:
    """The report on a record as one line of ``verify --format json``: the text of
    ``orjson.dumps(report.to_json())`` and a line break (``valid``: ``report.valid``, as the
    caller found it), written at once, each field read once, with no dictionary made."""
    game_id = report.game_id
    result = report.result
    problems = ",".join([_problem_json(problem) for problem in report.problems])
    return (
        f'{{"source":{_json_string(report.source)},"index":{report.index},"game_id":'
        f"{'null' if game_id is None else _json_string(game_id)},"
        f'"valid":{"true" if valid else "false"},"problems":[{problems}],"result":'
        + (
            "null}\n"
            if result is None
            else f'{{"winner":{_json_winner(result)},"notes":{result.notes}}}}}\n'
        )
    )


def _problem_json(problem: Problem) -> str:
    """A problem as :meth:`~phantom_log.rules.problems.Problem.to_json`'s object is written."""
    placed = (
        ""
        if problem.line is None
        else f',"line":{problem.line},"column":{_json_count(problem.column)}'
    )
    return (
        f'{{"code":"{problem.code.value}","severity":"{problem.severity.value}",'
        f'"message":{_json_string(problem.message)},"pointer":{_json_string(problem.pointer)},'
        f'"round":{_json_count(problem.round)},"trick":{_json_count(problem.trick)}{placed}}}'
    )


def _json_string(text: str) -> str:
    """A string as orjson writes it: as it is between quotes when nothing in it needs an
    escape (orjson escapes only the quote, the backslash and the C0 controls, all of
    which str.isprintable refuses; a lone surrogate, which orjson refuses, too)."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return orjson.dumps(text).decode()


def _json_count(number: int | None) -> str:
    return "null" if number is None else str(number)


def _json_winner(result: Result) -> str:
    return "null" if result.winner is None else f'"{result.winner.key}"'


# -- the tournament's report -----------------------------------------------------------


def tournament_lines(report: Any, skipped: int, standings: bool, width: int | None) -> list[str]:
    """``tournament check``'s text report (of a
    :class:`~phantom_log.tournament.report.TournamentReport`) after the records' own
    problems, the first ``skipped`` of its problems: the problems across records, the
    summary and (``standings``) the standings table, fitted to ``width``."""
    from .terminal import table

    lines = []
    for problem in report.problems[skipped:]:
        where = problem.source if problem.index is None else f"{problem.source}#{problem.index}"
        name = f" ({problem.game_id})" if problem.game_id else ""
        severity = "warning: " if problem.severity is Severity.WARNING else ""
        lines.append(printable(f"{where}{name}: {severity}{problem.code}: {problem.message}"))
    all_warnings = sum(p.severity is Severity.WARNING for p in report.problems)
    lines.append(
        f"{counted(report.records, 'record')}: {report.valid} valid, {report.invalid} "
        f"invalid; {counted(report.errors, 'error')}, {counted(all_warnings, 'warning')}"
    )
    if standings and report.standings:
        columns = list(report.standings[0])
        rows = [
            [str(place), *(printable(str(row[column])) for column in columns)]
            for place, row in enumerate(report.standings, start=1)
        ]
        lines += ["", "Standings", *table(["#", *columns], rows, width)]
    return lines


# -- the statistics --------------------------------------------------------------------


def figure_lines(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], keys: Sequence[str], width: int | None
) -> list[str]:
    """``stats``'s figures for people, fitted to the terminal's ``width``: few groups and
    many figures as one column per group (groups by ``keys``); a curve (a row per trick)
    or many groups as rows."""
    from .terminal import table

    grouped = len(rows) <= 6 if keys else len(rows) == 1
    if not grouped or not rows:
        return table(columns, [[_figure(value) for value in row] for row in rows], width)
    headers = [
        "",
        *(" / ".join(_figure(row[i]) for i in range(len(keys))) or "all" for row in rows),
    ]
    body = [
        [name, *(_figure(row[index]) for row in rows)]
        for index, name in enumerate(columns)
        if name not in keys
    ]
    return table(headers, body, width)


def _figure(value: object) -> str:
    """A figure as a table shows it: ``-`` for none, three decimals for a fraction."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return printable(str(value))
