"""A record's rows of the games and tricks tables, from its report: the metadata read from
the parsed record, every other value from the engine's events in its game log.

A trick goes to the tables as two ints, its facts and its swaps, each field of them a
plain number packed as a :class:`BitLayout` lays it out (:data:`TRICK_LAYOUT`,
:data:`SWAP_LAYOUT`): the tables decode whole columns of them at once, by the same layouts.

Compiled like the engine where a compiler is (``rows.pxd`` gives the C types: the game
log and its events are read as C structs), run as Python elsewhere; it imports no
polars, so that the workers' hot loop is this module and the engine alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any, Final

from ..checking.verdict import RecordReport
from ..rules.cards import DECK_SIZE, card_suit_index
from ..rules.engine import PLAYS_PER_TRICK, ROUNDS_PER_GAME, SWAP_SIZE, TRICKS_PER_ROUND
from ..rules.events import (
    REASONS,
    ROLES,
    SUITS,
    CardsSwapped,
    TrickEnded,
    trick_in_order,
    trick_winner,
    verdict_reason_code,
)
from ..rules.problems import Severity
from ..rules.sheets import NOTES_PER_SHEET

#: The bits of a packed int: the tables hold them as polars' Int64, never negative.
INT_BITS: Final = 63


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


class BitLayout:
    """Named fields side by side in one int, the first in the lowest bits: each is
    declared by the largest value it holds, and is as wide as that value needs; its place
    follows from the widths before it. ``copies`` places that many copies of the fields
    one after the other. A layout that needs more than :data:`INT_BITS` raises
    :class:`OverflowError` when it is made (so the module declaring it fails to import)."""

    def __init__(self, fields: Sequence[tuple[str, int]], copies: int = 1) -> None:
        self.names = tuple(name for name, _ in fields)
        self.largest = tuple(largest for _, largest in fields)
        self.widths = tuple(largest.bit_length() for largest in self.largest)
        places = tuple(accumulate(self.widths, initial=0))
        self.shifts = places[:-1]
        self.width = places[-1]
        self.count = len(self.names)
        self.copies = copies
        if min(self.largest) < 1:
            raise ValueError(f"a field of {', '.join(self.names)} holds no value but 0")
        if self.width * copies > INT_BITS:
            raise OverflowError(
                f"the layout of {', '.join(self.names)} ({copies} times) needs "
                f"{self.width * copies} bits: an int holds {INT_BITS}"
            )
        # What Packing reads, every copy's fields in turn: a field is a bit wide at least,
        # so INT_BITS of them at most, then -1, the largest value of no field.
        unused = INT_BITS + 1 - self.count * copies
        self.packed_largest = [*self.largest * copies, *[-1] * unused]
        self.packed_widths = [*self.widths * copies, *[0] * unused]

    def field(self, name: str, copy: int = 0) -> tuple[int, int]:
        """Where a field lies: its shift and its width (in the ``copy``-th copy)."""
        index = self.names.index(name)
        return copy * self.width + self.shifts[index], self.widths[index]


class Packing:
    """An int being packed as a :class:`BitLayout` lays it out: :meth:`start` with the
    layout, then :meth:`put` each value in the order of its fields (copy after copy), then
    :meth:`packed`; then again, for the next int. A value out of its field's range, or
    past the layout's end, raises :class:`ValueError` rather than spill into another
    field. The methods are C methods in the compiled build: :func:`pack_trick` and
    :func:`pack_swaps` call them."""

    def start(self, layout: BitLayout) -> None:
        """Starts a new int, laid out by ``layout``."""
        self.layout = layout
        self.largest = layout.packed_largest
        self.widths = layout.packed_widths
        self.value = 0
        self.shift = 0
        self.index = 0

    def put(self, value: int) -> None:
        """The next field's value."""
        index = self.index
        if not 0 <= value <= self.largest[index]:
            self.refuse(value)
        self.value |= value << self.shift
        self.shift += self.widths[index]
        self.index = index + 1

    def refuse(self, value: int) -> None:
        """Raises the :class:`ValueError` of a value the next field cannot hold."""
        names = self.layout.names * self.layout.copies
        name = names[self.index] if self.index < len(names) else "the end"
        raise ValueError(f"{value} does not fit {name} of the layout")

    def packed(self) -> int:
        """The int packed (whole copies of the layout's fields, the rest 0)."""
        if self.index % self.layout.count:
            name = self.layout.names[self.index % self.layout.count]
            raise ValueError(f"{name} was not packed")
        return self.value


#: A trick's facts as the tables receive them, each a plain number to decode: roles, cards
#: and suits as codes, ``super_trump`` the suit + 1 (0 for none), flags 0 or 1; reading
#: them applies no rule. :func:`pack_trick` puts them in this order.
TRICK_LAYOUT: Final = BitLayout(
    [
        ("round", ROUNDS_PER_GAME),
        ("trick", TRICKS_PER_ROUND),
        ("leader", len(ROLES) - 1),
        ("follower", len(ROLES) - 1),
        ("lead", DECK_SIZE - 1),
        ("follow", DECK_SIZE - 1),
        ("lead_suit", len(SUITS) - 1),
        ("super_trump", len(SUITS)),
        ("winner", len(ROLES) - 1),
        ("reason", len(REASONS) - 1),
        ("note_owner", len(ROLES) - 1),
        ("in_order", 1),
        ("special", 1),
        ("notes_before", NOTES_PER_SHEET),
        ("notes_after", NOTES_PER_SHEET),
    ]
)
#: A trick's swaps (one at most after each of its cards, in play order), a copy of these
#: fields each: ``present`` 1, ``after_follow`` 0 after the lead and 1 after the follow,
#: how many cards each side gave, and the cards given as codes, in the order given (0
#: where a side gave fewer). No swap: 0. :func:`pack_swaps` puts them in this order.
SWAP_LAYOUT: Final = BitLayout(
    [
        ("present", 1),
        ("after_follow", 1),
        ("phantom_count", SWAP_SIZE),
        ("christine_count", SWAP_SIZE),
        *[
            (f"{side}_{place}", DECK_SIZE - 1)
            for side in ("phantom", "christine")
            for place in range(1, SWAP_SIZE + 1)
        ],
    ],
    copies=PLAYS_PER_TRICK,
)


def pack_trick(trick: TrickEnded, packing: Packing) -> int:
    """A trick's facts in one int, laid out by :data:`TRICK_LAYOUT` (``packing`` may be
    reused from int to int)."""
    leader = trick.leader_code
    packing.start(TRICK_LAYOUT)
    packing.put(trick.round)
    packing.put(trick.trick)
    packing.put(leader)
    packing.put(1 - leader)
    packing.put(trick.lead)
    packing.put(trick.follow)
    packing.put(card_suit_index(trick.lead))
    packing.put(trick.super_trump_code + 1)
    packing.put(trick_winner(leader, trick.verdict))
    packing.put(verdict_reason_code(trick.verdict))
    packing.put(trick.note_owner_code)
    packing.put(trick_in_order(leader, trick.verdict, trick.note_owner_code))
    packing.put(trick.special)
    packing.put(trick.notes_before)
    packing.put(trick.notes_after)
    return packing.packed()


def pack_swaps(swaps: tuple[CardsSwapped, ...], packing: Packing) -> int:
    """A trick's swaps in one int, laid out by :data:`SWAP_LAYOUT` (``packing`` may be
    reused from int to int)."""
    cards = SWAP_SIZE  # looked up once a trick (a C int in the compiled build)
    packing.start(SWAP_LAYOUT)
    for swap in swaps:
        packing.put(1)
        packing.put(swap.after_follow)
        packing.put(len(swap.phantom_gave))
        packing.put(len(swap.christine_gave))
        _put_cards(packing, swap.phantom_gave, cards)
        _put_cards(packing, swap.christine_gave, cards)
    return packing.packed()


def _put_cards(packing: Packing, given: tuple[int, ...], places: int) -> None:
    for place in range(places):
        packing.put(given[place] if place < len(given) else 0)


TrickRows = tuple[list[int], list[int]]
"""The tricks of a record as the workers send them, a column each: the engine's packed
facts of each trick, and its packed swaps (0 when there was no swap)."""


def trick_rows(report: RecordReport) -> TrickRows:
    """The tricks of one record, compact: one per completed trick."""
    replayed = report.log
    if replayed is None:
        return [], []
    packing = Packing()
    packed = []
    swaps = []
    for trick in replayed.tricks:
        packed.append(pack_trick(trick, packing))
        swaps.append(pack_swaps(trick.swaps, packing))
    return packed, swaps
