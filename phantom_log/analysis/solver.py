# cython: boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A perfect-information solver for the rest of a round: both hands known.

The value of a position is the notes completed at the end of the round, 12 when the sheet
is completed (in round 2, 12 means the Phantom wins); the Phantom maximises it, Christine
minimises it. The solver is an alpha-beta search over :class:`~phantom_log.rules.engine.GameState`:
it asks the state what may be played (``legal_cards``, ``swap_due``, ``number_choices``),
steps copies of it (``assign`` and the ``step_*`` methods), bounds what is left with the
state's own ``notes_floor`` and ``notes_ceiling``, and reads the notes when the round is
over. It writes no rule again: no trick is judged and no note counted here (the engine's
``judge`` is asked only to order the moves).

Simultaneous choices (each swap, the exchange) are matrix games. The search resolves them
one way, documented in ``docs/analysis.md``: the *security value* of one side, the
``side`` of the search. At every simultaneous choice of the tree that side commits first
and the other answers knowing its choice, so the value is what ``side`` can guarantee with
pure choices whatever the opponent does: a lower bound of the game's value for the
Phantom, an upper bound for Christine. A decision is judged from the side of the player
who makes it unless told otherwise.

The search: MTD(f) (null-window searches converging on the value) over a fail-soft
alpha-beta; a transposition table of fixed size shared by every solve of a
:class:`Solver`, keyed on the position with each suit's cards renumbered among the cards
still in play; move ordering by the table's best move, then by whether a card wins or
loses the trick as both players want it, then by a history of cut-offs (gives at swaps
too); and one exact equivalence: cards of one suit held by the player to move, with no
other card in play (in either hand or on the table) between them and none of them showing
the special number, are one option *to play* (the card left behind stands in the same
relation to every other card as the card played). They are not one option *to give* in a
swap (then both stay in play, on opposite sides, and can meet), and the solver does not
treat them so. ``tests/analysis/test_solver.py`` proves all of it exact against a plain
minimax.

Every size the search packs or allocates comes from the engine's numbers (cards per suit,
the deck, the hand, the swap, the die, the notes, the tricks): the fields of the table's key
are declared once (:data:`KEY_FIELDS`), and the import fails, naming the field or the
number, when they no longer fit the packing (:func:`check_encoding`).

This module is compiled with Cython where a compiler is available (``solver.pxd``); the
very same source runs as plain Python elsewhere.
"""

from __future__ import annotations

import contextlib
import mmap
import time
from array import array
from dataclasses import dataclass
from math import comb
from typing import Final

from ..rules.cards import DECK_SIZE, NUMBERS_PER_SUIT, SUIT_CODES, Role, popcount
from ..rules.engine import (
    CARDS_PER_HAND,
    DIE_FACES,
    PLAYS_PER_TRICK,
    ROUNDS_PER_GAME,
    SWAP_SIZE,
    TRICKS_PER_ROUND,
    GameState,
    Phase,
    judge,
    playable,
)
from ..rules.sheets import NOTES_PER_SHEET

#: One option at a decision: a card (to play, or to give in the exchange), a special
#: number, or the cards given in a swap (sorted).
Choice = int | tuple[int, ...]

#: Entries of a solver's transposition table unless told otherwise (a power of two): 96 MiB.
#: A whole round's solve (a special-number pick, a first lead) stores tens of millions of
#: positions; at 2^20 entries the table thrashed, and the round-1 pick of the tournament
#: example took 2.0 times the nodes it takes at 2^22 (docs/analysis.md).
DEFAULT_ENTRIES: Final = 1 << 22
#: Bytes an entry takes: three 8-byte words (the key's two, then the bounds, the best move
#: and the tricks left).
ENTRY_BYTES: Final = 24

# C copies for the compiled build (solver.pxd types them).
_NOTES = NOTES_PER_SHEET
_TRICKS = TRICKS_PER_ROUND
_HAND = CARDS_PER_HAND
_SUIT_SIZE = NUMBERS_PER_SUIT
_DEAL = int(Phase.DEAL)
_EXCHANGE = int(Phase.EXCHANGE)
_SPECIAL_NUMBER = int(Phase.SPECIAL_NUMBER)
_PLAY = int(Phase.PLAY)
_SWAP = int(Phase.SWAP)
_OVER = int(Phase.OVER)
_DECK = DECK_SIZE
_SUITS = len(SUIT_CODES)
#: A suit's cards as a mask of its own, and how many such masks there are.
_SUIT_BITS = (1 << NUMBERS_PER_SUIT) - 1
_SUIT_SPAN = 1 << NUMBERS_PER_SUIT
#: Plies of one round at most: the exchange, the special number, then each play of each
#: trick and the swap it may call; with room to spare.
_MAX_PLY = 2 + 2 * PLAYS_PER_TRICK * TRICKS_PER_ROUND + 6
#: Children kept per ply: a card of the hand, or a special number.
_WIDTH = max(CARDS_PER_HAND, NUMBERS_PER_SUIT)
#: Gives listed per ply: each side's choices at a swap (or the exchange), one half each.
_HALF = max(comb(CARDS_PER_HAND, size) for size in range(1, SWAP_SIZE + 1))
_GIVES = 2 * _HALF
#: Children of one node looked up in the table together: a side's gives, or cards.
_BATCH = max(_HALF, _WIDTH)
#: The clock is read once every this many nodes (a power of two, minus one).
_CHECK_EVERY = 1023
_NONE = -1
_MASK64 = 0xFFFFFFFFFFFFFFFF
_HASH0 = 0x9E3779B97F4A7C15
_HASH1 = 0xC2B2AE3D27D4EB4F
#: Positions with at most this many tricks left go to the small part of the table.
_NEAR_END = 2
#: The first guess of a value, above the notes already completed (MTD(f) converges from
#: it; a round's value is most often a few notes above).
_GUESS_ABOVE = 2
#: Move ordering's scores: the history of cut-offs in the low bits, how close a card comes
#: to the trick above them, winning or losing it as wanted above that, and the table's best
#: move above all.
_HISTORY_BITS = 17
_HISTORY_CAP = (1 << _HISTORY_BITS) - 1
_WANTED = 1 << 24
_TOP = 1 << 30
#: Positions with fewer tricks left than this are searched again rather than looked up:
#: they are cheap, and the most numerous. So are the positions after a plain lead: the
#: table keeps the start of each trick, the simultaneous choices and what follows a swap.
_TABLE_FROM = 2
#: Nodes with at least this many tricks left look their children up in the table before
#: searching any (their children then have at least :data:`_TABLE_FROM` left).
_ETC_FROM = 4


# -- the encoding ------------------------------------------------------------------------


def _bits(largest: int) -> int:
    """Bits that hold every number from 0 to ``largest``."""
    return max(1, largest.bit_length())


#: Bits of a word: of the key, of an entry of the table.
_WORD_BITS = 64
#: Bits of a C int, which holds a mask of cards in the compiled build (its sign bit aside),
#: and of a byte, which holds a mask of a suit's cards in the renumbering tables.
_INT_BITS = 32
_BYTE_BITS = 8
#: Widths of the key's fields (see :data:`KEY_FIELDS`), from the engine's numbers.
_ROLE_BITS = _bits(len(Role) - 1)
_NUMBER_BITS = _bits(NUMBERS_PER_SUIT)  # the special number; 0 before it is picked
_CARD_BITS = _bits(DECK_SIZE)  # a card plus one; 0 for none
_NOTE_BITS = _bits(NOTES_PER_SHEET)
_CHOICE_BITS = DIE_FACES + 1  # bit n set when n may be picked
_TRICK_BITS = _bits(TRICKS_PER_ROUND)
_ROUND_BITS = _bits(ROUNDS_PER_GAME - 1)
_SWAP_BITS = _bits(SWAP_SIZE)
_PHASE_BITS = _bits(max(Phase))

#: What the transposition table tells positions apart by: the fields of its key, word by
#: word, each as (name, bits), a word's first field in its highest bits. A field is the
#: state's attribute of that name, but for ``side`` (the side of the search, 0 in play with
#: no special card left in either hand: no swap can come, and both sides' values are one)
#: and ``marked`` (the special cards in play). In play and swaps, the hands, ``marked``, the
#: lead and the follow hold each suit's cards renumbered among its cards in play, and the
#: special number is left out (0); a card is held plus one, 0 for none. ``_keys`` packs the
#: fields in this order; :func:`check_encoding` checks that they fit.
KEY_FIELDS: Final = (
    (
        ("side", _ROLE_BITS),
        ("special_in_trick", 1),
        ("turn_code", _ROLE_BITS),
        ("leader_code", _ROLE_BITS),
        ("special_number", _NUMBER_BITS),
        ("lead_card", _CARD_BITS),
        ("notes", _NOTE_BITS),
        ("christine_hand", DECK_SIZE),
        ("phantom_hand", DECK_SIZE),
    ),
    (
        ("number_choices", _CHOICE_BITS),
        ("tricks_played", _TRICK_BITS),
        ("round_index", _ROUND_BITS),
        ("swap_after_follow", 1),
        ("pending_swap", _SWAP_BITS),
        ("phase_code", _PHASE_BITS),
        ("follow_card", _CARD_BITS),
        ("marked", DECK_SIZE),
    ),
)

#: An entry's third word, from its lowest bits: the lower bound of the value, the upper
#: bound, the best move (a card, a special number or a give, each suit's cards renumbered;
#: all ones for none) and the tricks left.
_VALUE_BITS = _NOTE_BITS
_VALUE_MASK = (1 << _VALUE_BITS) - 1
_MOVE_AT = 2 * _VALUE_BITS
_MOVE_BITS = DECK_SIZE
_MOVE_MASK = (1 << _MOVE_BITS) - 1
_LEFT_AT = _MOVE_AT + _MOVE_BITS


def check_encoding(
    fields: tuple[tuple[tuple[str, int], ...], ...] = KEY_FIELDS,
    deck: int = DECK_SIZE,
    suit: int = NUMBERS_PER_SUIT,
    swap: int = SWAP_SIZE,
) -> None:
    """Raises :class:`ValueError`, naming the field or the number, unless the key's
    ``fields``, a deck of ``deck`` cards in suits of ``suit`` and swaps of ``swap`` cards
    fit the solver's packing: each word of the key in 64 bits, with the phase (never 0 in a
    position searched) in the second, so that an empty entry matches no key; a mask of
    cards in a C int; a suit's mask in a byte (the renumbering tables); gives of one or two
    cards (what the gives' lists hold); and the entry's bounds (as wide as ``notes``), best
    move (a mask of cards) and tricks left (as wide as ``tricks_played``) in one word."""
    for index, word in enumerate(fields):
        used = 0
        for name, bits in word:
            used += bits
            if used > _WORD_BITS:
                shown = ", ".join(f"{field} {width}" for field, width in word)
                raise ValueError(
                    f"the key's field {name!r} ends at bit {used} of word {index}, past "
                    f"{_WORD_BITS} (bits of its fields: {shown})"
                )
    widths = {name: bits for word in fields for name, bits in word}
    if len(fields) != 2 or "phase_code" not in dict(fields[1]):
        raise ValueError("the key's field 'phase_code' is not in its second (and last) word")
    if deck >= _INT_BITS:
        raise ValueError(f"a hand of {deck} cards (DECK_SIZE) does not fit in a C int")
    if suit > _BYTE_BITS:
        raise ValueError(f"a suit of {suit} cards (NUMBERS_PER_SUIT) does not fit in a byte")
    if not 1 <= swap <= 2:
        raise ValueError(f"swaps of {swap} cards (SWAP_SIZE): gives are listed of 1 or 2")
    used = 2 * widths["notes"] + deck + widths["tricks_played"]
    if used > _WORD_BITS:
        raise ValueError(
            f"the entry's field 'tricks_played' does not fit in its word: {used} bits of "
            f"{_WORD_BITS} (bounds of 'notes', a move of {deck} cards)"
        )


check_encoding()


def _bit_tables() -> tuple[array[int], array[int]]:
    """For every pair of masks of a suit's cards (``bits``, ``within``), at index ``bits *
    _SUIT_SPAN + within``: the bits of ``bits`` that lie in ``within``, packed down (a
    "parallel bit extract"), and the low bits of ``bits`` spread over the bits of ``within``
    (the "deposit")."""
    extract = array("B", bytes(_SUIT_SPAN * _SUIT_SPAN))
    deposit = array("B", bytes(_SUIT_SPAN * _SUIT_SPAN))
    for bits in range(_SUIT_SPAN):
        for within in range(_SUIT_SPAN):
            packed = 0
            spread = 0
            position = 0
            for bit in range(_SUIT_SIZE):
                if within >> bit & 1:
                    if bits >> bit & 1:
                        packed |= 1 << position
                    if bits >> position & 1:
                        spread |= 1 << bit
                    position += 1
            extract[bits * _SUIT_SPAN + within] = packed
            deposit[bits * _SUIT_SPAN + within] = spread
    return extract, deposit


_EXTRACT, _DEPOSIT = _bit_tables()


def _beat_table() -> array[int]:
    """At index ``(super_trump + 1) * DECK_SIZE + lead``, the cards that win the trick when
    followed to ``lead`` (a mask), as the engine's :func:`~phantom_log.rules.engine.judge` says
    for each pair: its answers kept, to order moves without a call per card."""
    beats = array("i", [0]) * ((_SUITS + 1) * _DECK)
    for super_trump in range(-1, _SUITS):
        for lead in range(_DECK):
            mask = 0
            for follow in range(_DECK):
                if follow != lead and not judge(lead, follow, super_trump) & 1:
                    mask |= 1 << follow
            beats[(super_trump + 1) * _DECK + lead] = mask
    return beats


_BEATS = _beat_table()


def _table(words: int) -> memoryview:
    """``words`` zeroed 64-bit words for a transposition table, in memory of its own (an
    anonymous map) that the kernel is asked to back with huge pages where it can: a look-up
    is a random access into megabytes, and with small pages each one also misses the
    processor's address cache."""
    try:
        memory = mmap.mmap(-1, 8 * words, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (AttributeError, TypeError, OSError):  # pragma: no cover - not a POSIX system
        return memoryview(array("Q", bytes(8 * words)))
    if hasattr(mmap, "MADV_HUGEPAGE"):
        with contextlib.suppress(OSError):  # a kernel without it
            memory.madvise(mmap.MADV_HUGEPAGE)
    return memoryview(memory).cast("Q")


class Unsolved(Exception):
    """A solve that did not finish before its deadline: no value is given for it."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.nodes = nodes


@dataclass(frozen=True, slots=True)
class Solution:
    """A solved decision: its value, every best choice, whose decision it was (``mover``,
    ``None`` for a simultaneous choice), the side whose guarantee the value is, the kind
    of decision (the phase) and the nodes searched."""

    value: int
    best: tuple[Choice, ...]
    mover: Role | None
    side: Role
    phase: Phase
    nodes: int


@dataclass(frozen=True, slots=True)
class Verdict:
    """A choice judged against the other options of its decision (:meth:`Solver.assess`):
    the exact value of the choice made (``played``), the best value (``value``), every best
    choice, and what the search proved of each choice: ``bounds[choice]`` is (lowest,
    highest) its value can be, the two equal where it is exact (the choice made and every
    best one)."""

    played: int
    value: int
    best: tuple[Choice, ...]
    bounds: dict[Choice, tuple[int, int]]
    nodes: int


class Solver:
    """Solves positions of one sheet and rules, sharing one transposition table.

    Pass one solver to every solve of a round (or a game): sibling options, and the
    decisions that follow one another, share most of their subtrees. The table holds
    ``entries`` entries (rounded up to a power of two; :data:`DEFAULT_ENTRIES`) of
    :data:`ENTRY_BYTES` bytes each, allocated once: :attr:`memory` bytes, never more. A
    sixteenth of it (at most 65,536 entries) keeps positions two tricks from the end, so
    that their many look-ups stay in the processor's cache. A full table replaces entries,
    two to a bucket: one keeps the position with more tricks left, the other the latest.
    Every entry holds bounds proven by a finished search, so a solve cut short by its
    deadline leaves nothing wrong behind; a state of another sheet or other rules clears
    the table first.
    """

    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        bits = max(4, (max(1, entries) - 1).bit_length())
        size = 1 << bits
        self.bits = bits
        self.size = size
        # A sixteenth of the table (at most 2^16 entries) for the positions near the end.
        self.near_bits = max(2, min(16, bits - 4))
        self.near = 1 << self.near_bits
        self.far = size - self.near
        self.entries = _table(3 * size)
        self.extract = _EXTRACT
        self.deposit = _DEPOSIT
        self.beats = _BEATS
        self.pool = [GameState(0, 0, False, False) for _ in range(_MAX_PLY * _WIDTH)]
        self.cards = array("i", bytes(4 * _MAX_PLY * _WIDTH))
        self.order = array("i", bytes(4 * _MAX_PLY * _WIDTH))
        self.scores = array("i", bytes(4 * _MAX_PLY * _WIDTH))
        self.gives = array("i", bytes(4 * _MAX_PLY * _GIVES))
        self.answer_counts = array("i", bytes(4 * _MAX_PLY))
        self.live = array("i", bytes(4 * _MAX_PLY))
        self.history = array("i", bytes(4 * 2 * _DECK))
        self.give_history = array("i", bytes(4 * 2 * _DECK))
        self.give_scores = array("i", bytes(4 * _GIVES))
        # The children of one node looked up together (see _batch_cut).
        self.batch_keys = array("Q", bytes(8 * 2 * _BATCH))
        self.batch_slots = array("q", bytes(8 * _BATCH))
        self.batch_cards = array("i", bytes(4 * _BATCH))
        self.batch_hit = 0
        self.touched = 0
        self.root_gives: list[int] = []
        self.owners = -1
        self.suits = -1
        self.beginner = False
        self.balance = False
        self.side = 0
        self.deadline = -1.0
        self.found = 0
        self.key0 = 0
        self.key1 = 0
        #: Nodes with at least this many tricks left look their children up in the table
        #: before searching any (:data:`_ETC_FROM`; the tests lower it).
        self.cut_from = _ETC_FROM
        self.nodes = 0
        self.searched = 0
        self.probes = 0
        self.hits = 0
        self.stores = 0

    # -- the public side ------------------------------------------------------------------

    @property
    def memory(self) -> int:
        """Bytes the transposition table takes (fixed at creation)."""
        return self.size * ENTRY_BYTES

    @property
    def total_nodes(self) -> int:
        """Nodes searched by every solve of this solver so far (for benchmarks)."""
        return self.searched + self.nodes

    def clear(self) -> None:
        """Empties the transposition table (and the move-ordering history)."""
        self.entries = _table(3 * self.size)
        self.history = array("i", bytes(4 * 2 * _DECK))
        self.give_history = array("i", bytes(4 * 2 * _DECK))

    def value(
        self, state: GameState, side: Role | None = None, deadline: float | None = None
    ) -> int:
        """The value of ``state``: the notes ``side`` can guarantee at the end of the round
        (at least, for the Phantom; at most, for Christine). ``side`` defaults to the player
        to move, and must be given at a simultaneous choice (a swap, the exchange).
        ``deadline`` is a :func:`time.process_time` instant (this process's CPU seconds,
        so that a busy machine does not change what is solved): past it,
        :class:`Unsolved` is raised and no value is given."""
        root = self._begin(state, side, deadline)
        return self._converge(root, 0, -1, root.notes + _GUESS_ABOVE)

    def option_values(
        self, state: GameState, side: Role | None = None, deadline: float | None = None
    ) -> dict[Choice, int]:
        """The value (as :meth:`value` counts it) of every option of the decision at
        ``state``: each card that may be played, each special number that may be picked,
        or each set of cards ``side`` may give at a swap or the exchange (the opponent
        answering, knowing it, with the reply best for them)."""
        root = self._begin(state, side, deadline)
        options = self._options(root)
        values: dict[Choice, int] = {}
        guess = root.notes + _GUESS_ABOVE
        for index, members in enumerate(options):
            found = self._converge(root, 0, index, guess)
            guess = found
            for choice in members:
                values[choice] = found
        return values

    def row_values(
        self,
        state: GameState,
        side: Role,
        answer: Choice,
        deadline: float | None = None,
    ) -> dict[Choice, int]:
        """At a simultaneous choice, the value for ``side`` of each of its options against
        one answer of the opponent (the card or cards it gave): one row of the matrix."""
        root = self._begin(state, side, deadline)
        if root.phase_code not in (_SWAP, _EXCHANGE):
            raise ValueError("row_values is for a swap or the exchange")
        options = self._options(root)
        answered = self._answered(root, answer)
        values: dict[Choice, int] = {}
        guess = root.notes + _GUESS_ABOVE
        child: GameState = self.pool[_WIDTH]
        for index, members in enumerate(options):
            self._step_cell(root, child, self.root_gives[index], answered)
            found = self._converge(child, 1, -1, guess)
            guess = found
            values[members[0]] = found
        return values

    def assess(
        self,
        state: GameState,
        played: Choice,
        side: Role | None = None,
        answer: Choice | None = None,
        deadline: float | None = None,
    ) -> Verdict:
        """The choice ``played`` at the decision at ``state`` against the other options:
        its exact value, the best value and every best choice, as :meth:`option_values`
        (or, given the opponent's ``answer`` at a simultaneous choice, :meth:`row_values`)
        would find them, without the exact value of every option. The choice made is
        solved exactly; then each other option is asked, by one null-window search, only
        whether it is at least as good as the best found so far; only one that is gets an
        exact value."""
        root = self._begin(state, side, deadline)
        mover = _mover_of(root)
        maximise = (self.side if mover < 0 else mover) == 0
        options = self._options(root)
        answered = _NONE if answer is None else self._answered(root, answer)
        played_index = _index_of(options, played)
        guess = root.notes + _GUESS_ABOVE
        played_value = self._exact(root, played_index, answered, 0, _NOTES, guess)
        found_bounds: list[tuple[int, int]] = [(0, _NOTES)] * len(options)
        found_bounds[played_index] = (played_value, played_value)
        best_value = played_value
        best_indices = [played_index]
        for index in range(len(options)):
            if index == played_index:
                continue
            if maximise:
                found = self._search_option(root, index, answered, best_value - 1, best_value)
                if found < best_value:
                    found_bounds[index] = (0, found)
                    continue
                exact = self._exact(root, index, answered, found, _NOTES, found)
            else:
                found = self._search_option(root, index, answered, best_value, best_value + 1)
                if found > best_value:
                    found_bounds[index] = (found, _NOTES)
                    continue
                exact = self._exact(root, index, answered, 0, found, found)
            found_bounds[index] = (exact, exact)
            if exact == best_value:
                best_indices.append(index)
            else:
                best_value = exact
                best_indices = [index]
        best = [choice for index in best_indices for choice in options[index]]
        return Verdict(
            played=played_value,
            value=best_value,
            best=tuple(sorted(best, key=_choice_order)),
            bounds={
                choice: found_bounds[index]
                for index, members in enumerate(options)
                for choice in members
            },
            nodes=self.nodes,
        )

    def choice_value(
        self,
        state: GameState,
        choice: Choice,
        side: Role | None = None,
        answer: Choice | None = None,
        deadline: float | None = None,
        bounds: tuple[int, int] = (0, _NOTES),
    ) -> int:
        """The exact value of one choice at the decision at ``state`` (as :meth:`assess`
        counts it), known to lie within ``bounds``."""
        root = self._begin(state, side, deadline)
        mover = _mover_of(root)
        maximise = (self.side if mover < 0 else mover) == 0
        options = self._options(root)
        answered = _NONE if answer is None else self._answered(root, answer)
        low, high = bounds
        guess = high if maximise else low
        return self._exact(root, _index_of(options, choice), answered, low, high, guess)

    def solve(
        self, state: GameState, side: Role | None = None, deadline: float | None = None
    ) -> Solution:
        """The value of ``state`` (see :meth:`value`) and every best choice of the decision
        there."""
        root = self._begin(state, side, deadline)
        mover = _mover_of(root)
        maximise = (self.side if mover < 0 else mover) == 0
        found = self._converge(root, 0, -1, root.notes + _GUESS_ABOVE)
        options = self._options(root)
        best: list[Choice] = []
        for index, members in enumerate(options):
            # One null-window search per option: is it as good as the best?
            if maximise:
                good = self._option(root, index, found - 1, found) >= found
            else:
                good = self._option(root, index, found, found + 1) <= found
            if good:
                best.extend(members)
        return Solution(
            value=found,
            best=tuple(sorted(best, key=_choice_order)),
            mover=None if mover < 0 else Role(mover),
            side=Role(self.side),
            phase=Phase(root.phase_code),
            nodes=self.nodes,
        )

    def key(self, state: GameState, side: Role) -> tuple[int, int]:
        """The two words of the table's key of ``state`` searched for ``side``: the fields of
        :data:`KEY_FIELDS`."""
        self.side = int(side)
        self._keys(state, 0)
        return self.key0, self.key1

    # -- the root --------------------------------------------------------------------------

    def _begin(self, state: GameState, side: Role | None, deadline: float | None) -> GameState:
        """Checks that ``state`` holds a decision, sets the search up, and returns its copy
        at ply 0."""
        phase = state.phase_code
        if phase not in (_EXCHANGE, _SPECIAL_NUMBER, _PLAY, _SWAP):
            raise ValueError(f"no decision to solve in phase {Phase(phase).name}")
        if phase == _SPECIAL_NUMBER and state.beginner:
            raise ValueError("under the beginner rule the die gives the special number")
        if state.unseen:
            raise ValueError("a round dealt unseen: the solver needs both hands")
        if popcount(state.phantom_hand) > _HAND or popcount(state.christine_hand) > _HAND:
            raise ValueError(f"a hand of more than {CARDS_PER_HAND} cards")
        if side is None:
            mover = _mover_of(state)
            if mover < 0:
                raise ValueError("a simultaneous choice: say whose side to solve for")
            side = Role(mover)
        game = (state.owners, state.suits, state.beginner, state.balance)
        if game != (self.owners, self.suits, self.beginner, self.balance):
            if self.owners >= 0:
                self.clear()
            self.owners, self.suits, self.beginner, self.balance = game
        self.side = int(side)
        self.deadline = -1.0 if deadline is None else deadline
        self.searched += self.nodes
        self.nodes = 0
        root: GameState = self.pool[0]
        root.assign(state)
        root.events = None
        return root

    def _options(self, root: GameState) -> list[list[Choice]]:
        """The options of the root's decision, each as the choices it stands for (cards
        equivalent to play share one option), with the children of plays and numbers
        stepped at ply 1."""
        phase = root.phase_code
        options: list[list[Choice]] = []
        if phase == _PLAY:
            # In the order the search would try them: the likely best first, so that the
            # options judged after it are asked against the best value at once.
            legal = root.legal_cards()
            count = self._order_plays(root, 0, self._representatives(root, legal), _NONE)
            for position in range(count):
                card = self.cards[self.order[position]]
                child: GameState = self.pool[_WIDTH + len(options)]
                child.assign(root)
                child.step_play(root.turn_code, card)
                options.append(list(_members(root, legal, card)))
        elif phase == _SPECIAL_NUMBER:
            for number in root.number_options():
                child = self.pool[_WIDTH + len(options)]
                child.assign(root)
                child.step_special_number(number)
                options.append([number])
        else:
            # The gives, kept in a list of their own: the buffers are reordered by
            # every search.
            count = self._list_gives(root, 0)
            self.root_gives = [self.gives[index] for index in range(count)]
            for give in self.root_gives:
                if phase == _SWAP:
                    options.append([tuple(card for card in range(_DECK) if give >> card & 1)])
                else:
                    options.append([_lowest(give)])
        return options

    def _converge(self, state: GameState, ply: int, index: int, guess: int) -> int:
        """The exact value of ``state`` (``index`` -1) or of its option ``index`` (the root's),
        by null-window searches converging from ``guess`` (MTD(f)): each search only says
        whether the value reaches a bound, which prunes far more than a full window, and
        the table carries what each one proved to the next."""
        lower = 0
        upper = _NOTES
        if index < 0:
            lower = state.notes_floor()
            upper = state.notes_ceiling()
        found = min(max(guess, lower), upper)
        while lower < upper:
            beta = found + 1 if found == lower else found
            if index < 0:
                found = self._search(state, ply, beta - 1, beta)
            else:
                found = self._option(state, index, beta - 1, beta)
            if found < beta:
                upper = found
            else:
                lower = found
        return found

    def _option(self, root: GameState, index: int, alpha: int, beta: int) -> int:
        """The value of the root's option ``index`` (see :meth:`_options`), searched in
        the window."""
        phase = root.phase_code
        if phase in (_PLAY, _SPECIAL_NUMBER):
            child: GameState = self.pool[_WIDTH + index]
            return self._search(child, 1, alpha, beta)
        self._list_gives(root, 0)
        give = self.root_gives[index]
        return self._answer(root, 0, give, self.answer_counts[0], alpha, beta)

    def _answered(self, root: GameState, answer: Choice) -> int:
        """The opponent's answer at the root's simultaneous choice as a mask of cards,
        checked by the engine (call after :meth:`_options`)."""
        if root.phase_code not in (_SWAP, _EXCHANGE):
            raise ValueError("an answer is for a swap or the exchange")
        answered = 0
        for card in answer if isinstance(answer, tuple) else (answer,):
            if not 0 <= card < _DECK:
                raise ValueError(f"not a card: {card!r}")
            answered |= 1 << card
        if not answered:
            raise ValueError("an answer gives at least one card")
        # The engine says whether the answer is one the opponent could give.
        trial = root.copy()
        mine = self.root_gives[0]
        phantom, christine = (answered, mine) if self.side else (mine, answered)
        if root.phase_code == _SWAP:
            problem = trial.step_swap_masks(phantom, christine)
        else:
            problem = trial.step_exchange(_lowest(phantom), _lowest(christine))
        if problem is not None:
            raise ValueError(f"not an answer the other side could give: {answer!r}")
        return answered

    def _search_option(
        self, root: GameState, index: int, answered: int, alpha: int, beta: int
    ) -> int:
        """The value of the root's option ``index`` in the window: against the opponent's
        best reply, or against its ``answered`` cards (a mask; :data:`_NONE` for none)."""
        if answered == _NONE:
            return self._option(root, index, alpha, beta)
        child: GameState = self.pool[_WIDTH]
        self._step_cell(root, child, self.root_gives[index], answered)
        return self._search(child, 1, alpha, beta)

    def _exact(
        self, root: GameState, index: int, answered: int, low: int, high: int, guess: int
    ) -> int:
        """The exact value of the root's option ``index`` (see :meth:`_search_option`),
        known to lie in [``low``, ``high``], by MTD(f) from ``guess``."""
        found = min(max(guess, low), high)
        while low < high:
            beta = found + 1 if found == low else found
            found = self._search_option(root, index, answered, beta - 1, beta)
            if found < beta:
                high = found
            else:
                low = found
        return found

    # -- the search ------------------------------------------------------------------------

    def _search(self, state: GameState, ply: int, alpha: int, beta: int) -> int:
        """The value of ``state`` in the window (``alpha``, ``beta``), fail-soft: a value
        at most ``alpha`` is an upper bound, at least ``beta`` a lower bound."""
        phase = state.phase_code
        if phase in (_DEAL, _OVER):
            return state.notes
        self.nodes += 1
        if (
            self.nodes & _CHECK_EVERY == 0
            and self.deadline >= 0.0
            and time.process_time() > self.deadline
        ):
            raise Unsolved(self.nodes)
        low = state.notes_floor()
        high = state.notes_ceiling()
        if low >= beta:
            return low
        if high <= alpha:
            return high
        left = _TRICKS - state.tricks_played
        tabled = left >= _TABLE_FROM and (
            phase != _PLAY or state.lead_card < 0 or state.special_in_trick
        )
        key0 = 0
        key1 = 0
        slot = -1
        if tabled:
            self._keys(state, ply)
            key0 = self.key0
            key1 = self.key1
            slot = self._probe(key0, key1, left)
        else:
            self.live[ply] = -1
        best_move = _NONE
        if slot >= 0:
            data = self.entries[slot + 2]
            low = max(low, data & _VALUE_MASK)
            high = min(high, data >> _VALUE_BITS & _VALUE_MASK)
            if low >= beta or low >= high:
                return low
            if high <= alpha:
                return high
            best_move = data >> _MOVE_AT & _MOVE_MASK
            if best_move == _MOVE_MASK:
                best_move = _NONE
        window_low = max(alpha, low)
        window_high = min(beta, high)
        if phase == _PLAY:
            found = self._play(state, ply, window_low, window_high, best_move)
        elif phase == _SPECIAL_NUMBER:
            found = self._number(state, ply, window_low, window_high, best_move)
        else:
            found = self._simultaneous(state, ply, window_low, window_high, best_move)
        if found <= window_low:
            high = min(high, found)
        elif found >= window_high:
            low = max(low, found)
        else:
            low = found
            high = found
        if tabled:
            self._store(key0, key1, low, high, self.found, left)
        return found

    def _keys(self, state: GameState, ply: int) -> None:
        """Sets :attr:`key0` and :attr:`key1` to the key of ``state`` (the fields of
        :data:`KEY_FIELDS`, in its order), and the cards in play at ``ply`` (for
        :meth:`_compact`).

        While cards are played (and swapped), a card's number matters only by its order
        among the cards of its suit still in play and by whether it is special; so the
        key holds each suit's cards in play renumbered from its lowest (their owners, the
        cards on the table, the special ones), and positions that differ only by cards
        already gone share one entry. Before play (the exchange, the special number) the
        key holds the cards as they are.
        """
        phase = state.phase_code
        lead = state.lead_card
        follow = state.follow_card
        marked_all = state.special_cards()
        if phase in (_PLAY, _SWAP):
            live = state.phantom_hand | state.christine_hand
            if lead >= 0:
                live |= 1 << lead
            if follow >= 0:
                live |= 1 << follow
            self.live[ply] = live
            # Each suit renumbered in one pass: the Phantom's cards, the special ones, and
            # all the cards in play (Christine's are the rest, less the table's).
            phantom = 0
            marked = 0
            christine = 0
            for suit in range(_SUITS):
                shift = suit * _SUIT_SIZE
                within = live >> shift & _SUIT_BITS
                phantom |= (
                    self.extract[(state.phantom_hand >> shift & _SUIT_BITS) * _SUIT_SPAN + within]
                    << shift
                )
                marked |= (
                    self.extract[(marked_all >> shift & _SUIT_BITS) * _SUIT_SPAN + within] << shift
                )
                christine |= self.extract[within * _SUIT_SPAN + within] << shift
            christine &= ~phantom
            if lead >= 0:
                shift = lead - lead % _SUIT_SIZE
                lead = shift + popcount(live >> shift & ((1 << (lead - shift)) - 1))
                christine &= ~(1 << lead)
            if follow >= 0:
                shift = follow - follow % _SUIT_SIZE
                follow = shift + popcount(live >> shift & ((1 << (follow - shift)) - 1))
                christine &= ~(1 << follow)
            number = 0
        else:
            self.live[ply] = -1
            phantom = state.phantom_hand
            christine = state.christine_hand
            marked = 0
            number = state.special_number
        # The fields of KEY_FIELDS, in its order. The side of the search matters only
        # where a simultaneous choice can still come: in play with no special card left in
        # either hand, both sides' values are one (no swap is left to resolve), and so is
        # their entry.
        key = self.side
        if phase == _PLAY and not (state.phantom_hand | state.christine_hand) & marked_all:
            key = 0
        key = key << 1 | (1 if state.special_in_trick else 0)
        key = key << _ROLE_BITS | state.turn_code
        key = key << _ROLE_BITS | state.leader_code
        key = key << _NUMBER_BITS | number
        key = key << _CARD_BITS | (lead + 1)
        key = key << _NOTE_BITS | state.notes
        key = key << _DECK | christine
        self.key0 = key << _DECK | phantom
        key = state.number_choices
        key = key << _TRICK_BITS | state.tricks_played
        key = key << _ROUND_BITS | state.round_index
        key = key << 1 | (1 if state.swap_after_follow else 0)
        key = key << _SWAP_BITS | state.pending_swap
        key = key << _PHASE_BITS | phase
        key = key << _CARD_BITS | (follow + 1)
        self.key1 = key << _DECK | marked

    def _compact(self, ply: int, mask: int) -> int:
        """A mask of cards in play at ``ply``, each suit's renumbered from its lowest card
        in play (unchanged before play begins)."""
        live = self.live[ply]
        if live < 0:
            return mask
        compact = 0
        for suit in range(_SUITS):
            shift = suit * _SUIT_SIZE
            compact |= (
                self.extract[
                    (mask >> shift & _SUIT_BITS) * _SUIT_SPAN + (live >> shift & _SUIT_BITS)
                ]
                << shift
            )
        return compact

    def _expand(self, ply: int, compact: int) -> int:
        """The cards (a mask) of a mask renumbered by :meth:`_compact` at ``ply``."""
        live = self.live[ply]
        if live < 0:
            return compact
        mask = 0
        for suit in range(_SUITS):
            shift = suit * _SUIT_SIZE
            mask |= (
                self.deposit[
                    (compact >> shift & _SUIT_BITS) * _SUIT_SPAN + (live >> shift & _SUIT_BITS)
                ]
                << shift
            )
        return mask

    def _probe(self, key0: int, key1: int, left: int) -> int:
        """The index of the entry holding this key, or -1."""
        self.probes += 1
        slot = self._bucket(key0, key1, left)
        if self.entries[slot] == key0 and self.entries[slot + 1] == key1:
            self.hits += 1
            return slot
        slot += 3
        if self.entries[slot] == key0 and self.entries[slot + 1] == key1:
            self.hits += 1
            return slot
        return -1

    def _bucket(self, key0: int, key1: int, left: int) -> int:
        """The index of the first entry of the key's bucket of two. Positions with few
        tricks left, the most numerous and the cheapest to search again, share a small
        part of the table (one that stays in the processor's cache); the others the
        rest."""
        mixed = ((key0 ^ (key1 * _HASH1 & _MASK64)) * _HASH0) & _MASK64
        if left <= _NEAR_END:
            return ((mixed >> (_WORD_BITS - self.near_bits)) & ~1) * 3
        return (self.near + ((mixed >> (_WORD_BITS - self.bits)) % self.far & ~1)) * 3

    def _store(self, key0: int, key1: int, low: int, high: int, move: int, left: int) -> None:
        """Keeps the bounds of a key: in its own entry if it has one; else in the first
        entry of its bucket when that one holds a position with no more tricks left, else
        in the second."""
        self.stores += 1
        slot = self._bucket(key0, key1, left)
        if not (self.entries[slot] == key0 and self.entries[slot + 1] == key1):
            other = slot + 3
            mine = self.entries[other] == key0 and self.entries[other + 1] == key1
            deeper = self.entries[slot + 1] != 0 and (self.entries[slot + 2] >> _LEFT_AT) > left
            if mine or deeper:
                slot = other
        self.entries[slot] = key0
        self.entries[slot + 1] = key1
        data = left
        data = data << _MOVE_BITS | (move & _MOVE_MASK)
        self.entries[slot + 2] = data << _MOVE_AT | low | high << _VALUE_BITS

    def _representatives(self, state: GameState, legal: int) -> int:
        """The legal cards less the ones equivalent to play to a lower card of theirs: in a
        suit, a run of legal cards with no other card in play between them (in either hand
        or on the table), none of them special, is played as its lowest card."""
        live = state.phantom_hand | state.christine_hand
        if state.lead_card >= 0:
            live |= 1 << state.lead_card
        specials = state.special_cards()
        kept = legal & specials
        for suit in range(_SUITS):
            shift = suit * _SUIT_SIZE
            within = live >> shift & _SUIT_BITS
            # The plain legal cards, renumbered among the cards in play: a run of them is a
            # run of bits; keep the lowest bit of each run, then number back.
            plain = self.extract[((legal & ~specials) >> shift & _SUIT_BITS) * _SUIT_SPAN + within]
            lowest = plain & ~(plain << 1)
            kept |= self.deposit[lowest * _SUIT_SPAN + within] << shift
        return kept

    def _play(self, state: GameState, ply: int, alpha: int, beta: int, best_move: int) -> int:
        player = state.turn_code
        maximise = player == 0
        legal = state.legal_cards()
        base = ply * _WIDTH
        count = self._order_plays(state, ply, self._representatives(state, legal), best_move)
        best = -1 if maximise else _NOTES + 1
        best_card = _NONE
        child: GameState = self.pool[(ply + 1) * _WIDTH]
        if _TRICKS - state.tricks_played >= self.cut_from:
            # A child the table already proves good enough cuts the node off at once,
            # before any child is searched (an "enhanced transposition cut-off"). A plain
            # lead's child is not in the table: only a follow, or a special lead, is
            # looked up.
            specials = 0 if state.lead_card >= 0 else ~state.special_cards()
            queued = 0
            found = _NONE
            for position in range(count):
                card = self.cards[base + self.order[base + position]]
                if specials >> card & 1:
                    continue
                child.assign(state)
                child.step_play(player, card)
                self.batch_cards[queued] = card
                found = self._queue_cut(child, ply + 1, queued, alpha, beta, maximise)
                if found != _NONE:
                    break
                queued += 1
            if found == _NONE:
                found = self._batch_cut(queued, alpha, beta, maximise)
                card = self.batch_cards[self.batch_hit]
            if found != _NONE:
                self.found = _lowest(self._compact(ply, 1 << card))
                return found
        for position in range(count):
            card = self.cards[base + self.order[base + position]]
            child.assign(state)
            child.step_play(player, card)
            found = self._search(child, ply + 1, alpha, beta)
            if maximise:
                if found > best:
                    best = found
                    best_card = card
                    alpha = max(alpha, found)
            elif found < best:
                best = found
                best_card = card
                beta = min(beta, found)
            if alpha >= beta:
                left = _TRICKS - state.tricks_played
                self.history[player * _DECK + best_card] += left * left
                if self.history[player * _DECK + best_card] > _HISTORY_CAP:
                    for index in range(2 * _DECK):
                        self.history[index] >>= 1
                break
        self.found = _lowest(self._compact(ply, 1 << best_card))
        return best

    def _order_plays(self, state: GameState, ply: int, kept: int, best_move: int) -> int:
        """Lists the cards of ``kept`` that the player to move at ``state`` may play, at ply
        ``ply`` (``cards``, and ``order`` best first): the table's ``best_move`` first, then
        the cards that win or lose the trick as wanted, then the history of cut-offs.
        Returns their count."""
        player = state.turn_code
        base = ply * _WIDTH
        following = state.lead_card >= 0
        beats = (state.super_trump_code() + 1) * _DECK
        # Who wants the trick: the trick is in order when the one who must win it for that
        # wins it, which the Phantom wants and Christine does not; so both want to win it
        # when that is the Phantom, and both want to lose it when it is Christine.
        want_win = state.next_note_owner_code() == 0
        other_hand = state.christine_hand if player == 0 else state.phantom_hand
        best_card = _NONE if best_move == _NONE else _lowest(self._expand(ply, 1 << best_move))
        count = 0
        for card in range(_DECK):
            if kept >> card & 1:
                if card == best_card:
                    score = _TOP
                else:
                    score = self.history[player * _DECK + card]
                    number = card % _SUIT_SIZE
                    if following:
                        # A follow that wins or loses the trick as wanted, first; then
                        # win with a low card, lose with a high one.
                        won = self.beats[beats + state.lead_card] >> card & 1 != 0
                        if won == want_win:
                            score += _WANTED
                        score += (_SUIT_SIZE - number if won else number) << _HISTORY_BITS
                    else:
                        # A lead the follower cannot beat when the trick is wanted, one
                        # they must beat when it is not.
                        answers = playable(other_hand, card // _SUIT_SIZE)
                        total = popcount(answers)
                        beaten = popcount(answers & self.beats[beats + card])
                        if total > 0:
                            share = total - beaten if want_win else beaten
                            score += (share * 16 // total) << _HISTORY_BITS
                self.cards[base + count] = card
                self._insert(base, count, score)
                count += 1
        return count

    def _queue_cut(
        self, child: GameState, ply: int, position: int, alpha: int, beta: int, maximise: bool
    ) -> int:
        """The first half of a look-up of the children of a node before any is searched
        (an "enhanced transposition cut-off"): ``child`` (at ``ply``) as the ``position``-th
        to look up. A child whose round is over cuts its parent off at once by its notes:
        they are returned (see :meth:`_batch_cut`); otherwise :data:`_NONE`, the child's
        key and bucket kept for :meth:`_batch_cut` (none when the table does not keep such
        a position)."""
        self.batch_slots[position] = -1
        phase = child.phase_code
        if phase in (_DEAL, _OVER):
            found = child.notes
            if (found >= beta) if maximise else (found <= alpha):
                return found
            return _NONE
        left = _TRICKS - child.tricks_played
        if left < _TABLE_FROM or (
            phase == _PLAY and child.lead_card >= 0 and not child.special_in_trick
        ):
            return _NONE
        self._keys(child, ply)
        self.batch_keys[2 * position] = self.key0
        self.batch_keys[2 * position + 1] = self.key1
        self.batch_slots[position] = self._bucket(self.key0, self.key1, left)
        return _NONE

    def _batch_cut(self, count: int, alpha: int, beta: int, maximise: bool) -> int:
        """The second half: the ``count`` children queued are looked up together (reads
        that do not wait for one another, which the processor overlaps: a look-up is a
        random read into megabytes). Returns a bound of a child that cuts the parent off
        (for a parent that maximises, a lower bound of at least ``beta``; for one that
        minimises, an upper bound of at most ``alpha``), the child's position in
        :attr:`batch_hit`; or :data:`_NONE`."""
        touched = 0
        for position in range(count):
            slot = self.batch_slots[position]
            if slot >= 0:
                touched ^= self.entries[slot] ^ self.entries[slot + 3]
        self.touched = touched
        for position in range(count):
            slot = self.batch_slots[position]
            if slot < 0:
                continue
            self.probes += 1
            key0 = self.batch_keys[2 * position]
            key1 = self.batch_keys[2 * position + 1]
            if not (self.entries[slot] == key0 and self.entries[slot + 1] == key1):
                slot += 3
                if not (self.entries[slot] == key0 and self.entries[slot + 1] == key1):
                    continue
            self.hits += 1
            data = self.entries[slot + 2]
            if maximise:
                found = data & _VALUE_MASK
                if found >= beta:
                    self.batch_hit = position
                    return found
            else:
                found = data >> _VALUE_BITS & _VALUE_MASK
                if found <= alpha:
                    self.batch_hit = position
                    return found
        return _NONE

    def _insert(self, base: int, count: int, score: int) -> None:
        """Puts child ``count`` into the order of ply ``base``, highest score first."""
        position = count
        while position > 0 and self.scores[base + position - 1] < score:
            self.scores[base + position] = self.scores[base + position - 1]
            self.order[base + position] = self.order[base + position - 1]
            position -= 1
        self.scores[base + position] = score
        self.order[base + position] = count

    def _number(self, state: GameState, ply: int, alpha: int, beta: int, best_move: int) -> int:
        """The round's leader picks the special number."""
        maximise = state.leader_code == 0
        child: GameState = self.pool[(ply + 1) * _WIDTH]
        best = -1 if maximise else _NOTES + 1
        best_number = _NONE
        for number in range(1, _SUIT_SIZE + 1):
            if state.number_choices >> number & 1:
                child.assign(state)
                child.step_special_number(number)
                found = self._search(child, ply + 1, alpha, beta)
                if maximise:
                    if found > best:
                        best = found
                        best_number = number
                        alpha = max(alpha, found)
                elif found < best:
                    best = found
                    best_number = number
                    beta = min(beta, found)
                if alpha >= beta:
                    break
        self.found = best_number
        return best

    def _list_gives(self, state: GameState, ply: int) -> int:
        """Lists, at ply ``ply``, what the side of the search may give (from index 0) and
        what the other side may give (from :data:`_HALF`), each in the order of their
        history of cut-offs; returns the first count."""
        size = state.swap_due() if state.phase_code == _SWAP else 1
        first = state.christine_hand if self.side else state.phantom_hand
        second = state.phantom_hand if self.side else state.christine_hand
        base = ply * _GIVES
        count = self._subsets(first, size, base, self.side)
        self.answer_counts[ply] = self._subsets(second, size, base + _HALF, 1 - self.side)
        return count

    def _subsets(self, hand: int, size: int, base: int, role: int) -> int:
        """Lists the ``size``-card subsets of ``hand`` from ``base``, best first by the
        history of ``role``'s gives; returns their count."""
        count = 0
        history = role * _DECK
        for card in range(_DECK):
            if hand >> card & 1:
                if size == 1:
                    score = self.give_history[history + card]
                    self._insert_give(base, count, 1 << card, score)
                    count += 1
                else:
                    for other in range(card + 1, _DECK):
                        if hand >> other & 1:
                            score = (
                                self.give_history[history + card]
                                + self.give_history[history + other]
                            )
                            self._insert_give(base, count, 1 << card | 1 << other, score)
                            count += 1
        return count

    def _insert_give(self, base: int, count: int, give: int, score: int) -> None:
        """Puts ``give`` into the list at ``base``, highest ``score`` first."""
        position = count
        while position > 0 and self.give_scores[position - 1] < score:
            self.give_scores[position] = self.give_scores[position - 1]
            self.gives[base + position] = self.gives[base + position - 1]
            position -= 1
        self.give_scores[position] = score
        self.gives[base + position] = give

    def _credit_give(self, role: int, give: int, left: int) -> None:
        """A give that cut the search off: its cards go up in ``role``'s history."""
        for card in range(_DECK):
            if give >> card & 1:
                self.give_history[role * _DECK + card] += left * left
                if self.give_history[role * _DECK + card] > _HISTORY_CAP:
                    for index in range(2 * _DECK):
                        self.give_history[index] >>= 1

    def _simultaneous(
        self, state: GameState, ply: int, alpha: int, beta: int, best_move: int
    ) -> int:
        """A swap or the exchange: the side of the search commits first, the other answers
        knowing its choice."""
        count = self._list_gives(state, ply)
        answers = self.answer_counts[ply]
        base = ply * _GIVES
        maximise = self.side == 0
        if best_move != _NONE:
            best_give = self._expand(ply, best_move)
            for index in range(1, count):
                give = self.gives[base + index]
                if give == best_give:
                    self.gives[base + index] = self.gives[base]
                    self.gives[base] = give
                    break
        best = -1 if maximise else _NOTES + 1
        best_give = _NONE
        for index in range(count):
            give = self.gives[base + index]
            found = self._answer(state, ply, give, answers, alpha, beta)
            if maximise:
                if found > best:
                    best = found
                    best_give = give
                    alpha = max(alpha, found)
            elif found < best:
                best = found
                best_give = give
                beta = min(beta, found)
            if alpha >= beta:
                self._credit_give(self.side, give, _TRICKS - state.tricks_played)
                break
        self.found = self._compact(ply, best_give)
        return best

    def _answer(
        self, state: GameState, ply: int, give: int, answers: int, alpha: int, beta: int
    ) -> int:
        """The value of the side of the search giving ``give``, the other side answering
        with its best of the ``answers`` listed at ply ``ply``."""
        child: GameState = self.pool[(ply + 1) * _WIDTH]
        base = ply * _GIVES + _HALF
        maximise = self.side != 0
        best = -1 if maximise else _NOTES + 1
        if _TRICKS - state.tricks_played >= self.cut_from:
            found = _NONE
            for index in range(answers):
                self._step_cell(state, child, give, self.gives[base + index])
                found = self._queue_cut(child, ply + 1, index, alpha, beta, maximise)
                if found != _NONE:
                    return found
            found = self._batch_cut(answers, alpha, beta, maximise)
            if found != _NONE:
                return found
        for index in range(answers):
            answer = self.gives[base + index]
            self._step_cell(state, child, give, answer)
            found = self._search(child, ply + 1, alpha, beta)
            if maximise:
                if found > best:
                    best = found
                    alpha = max(alpha, found)
            elif found < best:
                best = found
                beta = min(beta, found)
            if alpha >= beta:
                self._credit_give(1 - self.side, answer, _TRICKS - state.tricks_played)
                if index > 0:
                    # The answer that refuted this give goes first for the next one.
                    self.gives[base + index] = self.gives[base]
                    self.gives[base] = answer
                break
        return best

    def _step_cell(self, state: GameState, child: GameState, give: int, answer: int) -> None:
        """Makes ``child`` the state after one cell of the simultaneous choice at
        ``state``: the side of the search gives ``give``, the other side ``answer``."""
        child.assign(state)
        phantom = answer if self.side else give
        christine = give if self.side else answer
        if state.phase_code == _SWAP:
            child.step_swap_masks(phantom, christine)
        else:
            child.step_exchange(_lowest(phantom), _lowest(christine))


# -- reading a state ---------------------------------------------------------------------


def _mover_of(state: GameState) -> int:
    """Whose decision it is (0 the Phantom, 1 Christine), or -1 when both choose at once."""
    if state.phase_code == _PLAY:
        return state.turn_code
    if state.phase_code == _SPECIAL_NUMBER:
        return state.leader_code
    return -1


def _lowest(mask: int) -> int:
    """The lowest card of a mask (-1 for none)."""
    for card in range(_DECK):
        if mask >> card & 1:
            return card
    return _NONE


def _members(state: GameState, legal: int, card: int) -> list[int]:
    """The cards played as ``card`` (see :meth:`Solver._representatives`): it and the
    legal, non-special cards above it in its suit with no other card in play between."""
    live = state.phantom_hand | state.christine_hand
    if state.lead_card >= 0:
        live |= 1 << state.lead_card
    special = state.special_cards()
    members = [card]
    if special >> card & 1:
        return members
    other = card + 1
    while other % _SUIT_SIZE != 0:
        if live >> other & 1:
            if not (legal >> other & 1) or special >> other & 1:
                break
            members.append(other)
        other += 1
    return members


def _index_of(options: list[list[Choice]], choice: Choice) -> int:
    """The option ``choice`` belongs to."""
    for index, members in enumerate(options):
        if choice in members:
            return index
    raise ValueError(f"not an option of this decision: {choice!r}")


def _choice_order(choice: Choice) -> tuple[int, ...]:
    return choice if isinstance(choice, tuple) else (choice,)


# -- the module's API ----------------------------------------------------------------------


def solve(
    state: GameState,
    side: Role | None = None,
    deadline: float | None = None,
    solver: Solver | None = None,
) -> Solution:
    """The value of ``state`` and every best choice of the decision there (see
    :meth:`Solver.solve`); pass one ``solver`` to every solve of a round to share its
    transposition table."""
    return (solver or Solver()).solve(state, side, deadline)


def option_values(
    state: GameState,
    side: Role | None = None,
    deadline: float | None = None,
    solver: Solver | None = None,
) -> dict[Choice, int]:
    """The value of every option of the decision at ``state`` (see
    :meth:`Solver.option_values`)."""
    return (solver or Solver()).option_values(state, side, deadline)


def value(
    state: GameState,
    side: Role | None = None,
    deadline: float | None = None,
    solver: Solver | None = None,
) -> int:
    """The value of ``state`` for ``side`` (see :meth:`Solver.value`)."""
    return (solver or Solver()).value(state, side, deadline)


__all__ = [
    "DEFAULT_ENTRIES",
    "ENTRY_BYTES",
    "KEY_FIELDS",
    "Choice",
    "Solution",
    "Solver",
    "Unsolved",
    "Verdict",
    "check_encoding",
    "option_values",
    "solve",
    "value",
]
