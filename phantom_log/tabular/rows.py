"""A record's rows of the games and tricks tables, from its report: the metadata read from
the parsed record, every other value from the engine's events in its game log.

Compiled like the engine where a compiler is (``rows.pxd`` gives the C types: the game
log and its events are read as C structs), run as Python elsewhere; it imports no
polars, so that the workers' hot loop is this module and the engine alone.
"""

from __future__ import annotations

from typing import Any, Final

from ..checking.verdict import RecordReport
from ..rules.problems import Severity


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


_NO_KEYS: Final[dict[str, Any]] = {}
_UNKNOWN_RULES: Final[dict[str, Any]] = {"beginner": None, "balance": None}


def game_row(report: RecordReport) -> tuple[Any, ...]:
    """The games-table row of one record, in the order of
    :data:`~phantom_log.tabular.tables.GAME_SCHEMA` (``date`` as the record's text: whole
    columns are read as dates at once). See the README for the columns' meaning.

    The metadata is read from the parsed record itself, the rest from the engine's
    events: no record model is made (a record that passed the schema holds exactly what
    its model would, and one that did not has each cell of the right type, or empty)."""
    replayed = report.log
    parsed = report.record
    record: dict[str, Any] = parsed if isinstance(parsed, dict) else _NO_KEYS
    get = record.get
    players = get("players")
    if not isinstance(players, dict):
        players = _NO_KEYS
    sheet_name: str | None = None
    beginner: bool | None = None
    balance: bool | None = None
    if replayed is None:
        # The sheet and rules as the record gives them (the replay, which says them too,
        # did not get that far).
        sheet = get("sheet")
        sheet_name = _text(sheet) or (_text(sheet.get("name")) if isinstance(sheet, dict) else None)
        if parsed is not None:
            rules = get("rules", _NO_KEYS)
            if not isinstance(rules, dict):
                rules = _UNKNOWN_RULES
            beginner = _flag(rules.get("beginner", False))
            balance = _flag(rules.get("balance", False))
    result = report.result
    first = None
    for problem in report.problems:
        if problem.severity is Severity.ERROR:
            first = problem
            break
    if first is None and report.problems:
        first = report.problems[0]
    rounds_played = tricks_played = special = added = removed = 0
    after_round_1 = number_1 = number_2 = None
    if replayed is not None:
        sheet_name = replayed.sheet.name
        beginner = replayed.rules.beginner
        balance = replayed.rules.balance
        rounds_played = len(replayed.rounds)
        tricks_played = len(replayed.tricks)
        numbers = [start.special_number for start in replayed.rounds]
        number_1 = numbers[0] if numbers else None
        number_2 = numbers[1] if len(numbers) > 1 else None
        if replayed.round_ends:
            after_round_1 = replayed.round_ends[0].notes
        for outcome in replayed.tricks:
            if outcome.special:
                special += 1
                added += outcome.notes_added_by_special
                removed += outcome.notes_removed_by_special
    return (
        report.source,
        report.index,
        report.game_id,
        _text(get("event")),
        _text(get("site")),
        _text(get("date")),
        _text(get("stage")),
        _text(players.get("phantom")),
        _text(players.get("christine")),
        sheet_name,
        beginner,
        balance,
        report.valid,
        None if first is None else first.code.value,
        None if result is None or result.winner is None else result.winner.key,
        None if result is None else result.notes,
        rounds_played,
        tricks_played,
        after_round_1,
        number_1,
        number_2,
        special,
        added,
        removed,
    )


TrickRows = tuple[list[int], list[int]]
"""The tricks of a record as the workers send them, a column each: the engine's packed
facts of each trick, and its packed swaps (0 when there was no swap)."""


def trick_rows(report: RecordReport) -> TrickRows:
    """The tricks of one record, compact: one per completed trick."""
    replayed = report.log
    if replayed is None:
        return [], []
    tricks = replayed.tricks
    packed = []
    swaps = []
    for trick in tricks:
        packed.append(trick.packed_facts())
        swaps.append(trick.packed_swaps())
    return packed, swaps
