"""The rules of the game as one state machine.

:class:`GameState` is the one place where each rule lives: who deals, exchanges, picks the
special number, leads and follows, when a swap is due and how large it is, who wins a
trick, how the notes move, when a round and the game end. Everything else in phantom-log
(verify, annotate, show, the tables, the tournament checks, the simulator, the examples
builder, the solver) drives it and restates no rule.

A state that tracks events says what each step did (:mod:`phantom_log.rules.events`): the
deal, the exchange, the start of a round's play, each card, each swap, each trick's end
and why the notes moved, the end of a round and of the game. The replay of a record
(:mod:`phantom_log.rules.replay`) is a fold of its actions over a state.

No I/O, no printing, no English, no global state. An illegal step is returned as an
:class:`~phantom_log.rules.problems.Illegal`: a code and the facts it is about (cards,
players, the hand, the lead suit); :mod:`phantom_log.checking.wording` words it.

Cards are ints 0-23 and hands bit masks (:mod:`phantom_log.rules.cards`); a sheet is read
as two ints, the owner of each note and the suit of its bar. This module is compiled with
Cython (``engine.pxd`` gives the C types) where a compiler is available; the very same
source runs as plain Python elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final

from .cards import (
    DECK_SIZE,
    FULL_DECK,
    NUMBERS_PER_SUIT,
    Role,
    Suit,
    card_number,
    card_suit_index,
    hand_cards,
    number_mask,
    popcount,
    suit_mask,
)
from .events import (
    ROLES,
    SUITS,
    CardPlayed,
    CardsSwapped,
    Dealt,
    Exchanged,
    GameEnded,
    NoteChange,
    RoundEnded,
    RoundStarted,
    TrickEnded,
    trick_winner,
)
from .problems import Code, Illegal
from .sheets import NOTES_PER_SHEET, Sheet

TRICKS_PER_ROUND: Final = 10
#: A trick is a card from each of the two players.
PLAYS_PER_TRICK: Final = 2
ROUNDS_PER_GAME: Final = 2
TRICKS_PER_GAME: Final = TRICKS_PER_ROUND * ROUNDS_PER_GAME
CARDS_PER_HAND: Final = 10
CARDS_ASIDE: Final = DECK_SIZE - 2 * CARDS_PER_HAND
SWAP_SIZE: Final = 2
DIE_FACES: Final = NUMBERS_PER_SUIT
#: Notes an out-of-order trick with a special card removes, and the same under the
#: balance rule (docs/rules.md, "Filling the sheet" and "Optional rules").
SPECIAL_PENALTY: Final = 2
BALANCE_PENALTY: Final = 1

# C copies of the numbers above for the compiled build (engine.pxd types them); the
# values are the ones above, not written again.
_NOTES = NOTES_PER_SHEET
_TRICKS = TRICKS_PER_ROUND
_ROUNDS = ROUNDS_PER_GAME
_HAND = CARDS_PER_HAND
_DECK = DECK_SIZE
_FACES = DIE_FACES
_SWAP_SIZE = SWAP_SIZE
_SPECIAL_PENALTY = SPECIAL_PENALTY
_BALANCE_PENALTY = BALANCE_PENALTY
_NO_CARD: Final = -1
_NOBODY: Final = -1
_MASK_SUIT: Final = int(Suit.MASK)
ROLE_KEYS: Final = ("phantom", "christine")

# The phases as plain ints, for the compiled build (engine.pxd makes them C ints).
_DEAL = 0
_EXCHANGE = 1
_SPECIAL_NUMBER = 2
_PLAY = 3
_SWAP = 4
_OVER = 5

# The classes of a card in a trick, strongest first (RULES: "Who wins a trick").
_SUPER_TRUMP_CLASS = 3
_TRUMP_CLASS = 2
_LEAD_SUIT_CLASS = 1
_OTHER_CLASS = 0
# Why a trick was won, as the ints of events.REASONS.
_HIGHER_NUMBER, _SUPER_TRUMP_REASON, _TRUMP_REASON, _LEAD_SUIT_REASON = range(4)
# The branches of the notes rule, as the ints of events.NoteChange.
_COMPLETED = int(NoteChange.COMPLETED)
_UNCHANGED = int(NoteChange.UNCHANGED)
_EXTRA = int(NoteChange.EXTRA)
_EXTRA_CAPPED = int(NoteChange.EXTRA_CAPPED)
_REMOVED = int(NoteChange.REMOVED)
_REMOVED_FLOORED = int(NoteChange.REMOVED_FLOORED)


class Phase(IntEnum):
    """What the game waits for."""

    DEAL = _DEAL
    EXCHANGE = _EXCHANGE
    SPECIAL_NUMBER = _SPECIAL_NUMBER
    PLAY = _PLAY
    SWAP = _SWAP
    OVER = _OVER


@dataclass(frozen=True, slots=True)
class Rules:
    """The optional rules a game is played under."""

    beginner: bool = False
    balance: bool = False


# -- the pure rules ------------------------------------------------------------------------


def card_class(card: int, super_trump: int, lead_suit: int) -> int:
    """The class of a card in a trick, strongest first: 3 the super trump suit, 2 Mask
    (always a trump suit) when Mask is not the super trump, 1 the lead suit, 0 any other
    suit (which never wins). ``super_trump`` is a suit, or -1 for none."""
    return _suit_class(card_suit_index(card), super_trump, lead_suit)


def _suit_class(suit: int, super_trump: int, lead_suit: int) -> int:
    if suit == super_trump:
        return _SUPER_TRUMP_CLASS
    if suit == _MASK_SUIT:
        return _TRUMP_CLASS
    return _LEAD_SUIT_CLASS if suit == lead_suit else _OTHER_CLASS


def judge(lead: int, follow: int, super_trump: int) -> int:
    """Who wins a trick and why, as one int, the verdict: ``reason * 2`` (the index of
    its :class:`~phantom_log.rules.events.Reason` in ``REASONS``), plus 1 when the
    leader's card wins (read it with :func:`~phantom_log.rules.events.leader_wins` and
    :func:`~phantom_log.rules.events.verdict_reason`).

    ``super_trump`` is a suit, or -1 for none. Same suit: the higher number wins.
    Different suits: the stronger class wins (:func:`card_class`); the leader's card is
    always of the lead suit, so a different-suit trick never ties.
    """
    lead_suit = card_suit_index(lead)
    follow_suit = card_suit_index(follow)
    if lead_suit == follow_suit:
        return _HIGHER_NUMBER * 2 + (1 if lead > follow else 0)
    lead_class = _suit_class(lead_suit, super_trump, lead_suit)
    follow_class = _suit_class(follow_suit, super_trump, lead_suit)
    if follow_class > lead_class:
        winning_class = follow_class
        leader_won = 0
    else:
        winning_class = lead_class
        leader_won = 1
    if winning_class == _SUPER_TRUMP_CLASS:
        return _SUPER_TRUMP_REASON * 2 + leader_won
    if winning_class == _TRUMP_CLASS:
        return _TRUMP_REASON * 2 + leader_won
    return _LEAD_SUIT_REASON * 2 + leader_won


def special_penalty(balance: bool) -> int:
    """How many notes an out-of-order trick with a special card removes."""
    return _BALANCE_PENALTY if balance else _SPECIAL_PENALTY


def note_change(notes_before: int, in_order: bool, special: bool, balance: bool) -> int:
    """Which branch of the notes rule a trick takes (RULES: "Notes"), as an int of
    :class:`~phantom_log.rules.events.NoteChange`: ``notes_before`` completed before
    it, in order or not, with a card of the special number or not, under the balance
    rule or not."""
    if not special:
        return _COMPLETED if in_order else _UNCHANGED
    if in_order:
        return _EXTRA if notes_before + 2 <= _NOTES else _EXTRA_CAPPED
    return _REMOVED if notes_before >= special_penalty(balance) else _REMOVED_FLOORED


def notes_after(notes_before: int, in_order: bool, special: bool, balance: bool) -> int:
    """The notes completed after a trick: the one count of the notes rule."""
    change = note_change(notes_before, in_order, special, balance)
    if change == _COMPLETED:
        return notes_before + 1
    if change == _UNCHANGED:
        return notes_before
    if change == _EXTRA:
        return notes_before + 2
    if change == _EXTRA_CAPPED:
        return _NOTES
    if change == _REMOVED:
        return notes_before - special_penalty(balance)
    return 0


def playable(hand: int, lead_suit: int) -> int:
    """The cards of a hand (bit mask) that may be played: any card to lead (``lead_suit``
    -1); to follow, the cards of the lead suit if the hand holds any, otherwise any card."""
    if lead_suit < 0:
        return hand
    follow_suit_required = hand & suit_mask(lead_suit)
    return follow_suit_required or hand


def round_leader(round_index: int) -> int:
    """Who leads the first trick of a round (index from 0): the Phantom (0) in round 1,
    Christine (1) in round 2."""
    return 0 if round_index == 0 else 1


def swap_size(phantom_hand: int, christine_hand: int) -> int:
    """How many cards each player gives in a swap, from their hands (bit masks)."""
    return swap_size_of(popcount(phantom_hand), popcount(christine_hand))


def swap_size_of(phantom_cards: int, christine_cards: int) -> int:
    """How many cards each player gives in a swap, from how many each holds: 2, 1 when
    either holds only one card, 0 when either holds none."""
    return min(_SWAP_SIZE, phantom_cards, christine_cards)


def game_winner(round_index: int, notes: int, round_over: bool) -> int:
    """Who has won once a trick leaves ``notes`` completed in round ``round_index`` (from
    0), ``round_over`` when it was the round's last trick: 0 the Phantom (the sheet is
    complete), 1 Christine (the last round is over without it), -1 nobody yet."""
    if notes == _NOTES:
        return 0
    if round_over and round_index == _ROUNDS - 1:
        return 1
    return _NOBODY


def super_trump_code(suit_bits: int, notes: int) -> int:
    """The super trump with ``notes`` completed on a sheet whose bars' suits are
    ``suit_bits`` (:attr:`~phantom_log.rules.sheets.Sheet.suit_bits`): the suit of the bar
    that holds the last completed note, -1 for none (no note completed)."""
    if notes == 0:
        return -1
    return (suit_bits >> (2 * (notes - 1))) & 3


def next_note_owner_code(owner_bits: int, notes: int) -> int:
    """Who owns the note a trick is about with ``notes`` completed (note ``notes + 1``):
    the one who must win the trick for it to be in order; -1 once the sheet is full."""
    if notes >= _NOTES:
        return -1
    return (owner_bits >> notes) & 1


def next_note_number(notes: int) -> int | None:
    """The note a trick is about with ``notes`` completed: the one after them (``None``
    once the sheet is full)."""
    return notes + 1 if notes < _NOTES else None


def super_trump(sheet: Sheet, notes: int) -> Suit | None:
    """The super trump suit on ``sheet`` with ``notes`` completed (``None``: none)."""
    code = super_trump_code(sheet.suit_bits, notes)
    return None if code < 0 else SUITS[code]


def next_note_owner(sheet: Sheet, notes: int) -> Role | None:
    """Who must win the next trick on ``sheet`` with ``notes`` completed for it to be in
    order (``None`` once the sheet is full)."""
    code = next_note_owner_code(sheet.owner_bits, notes)
    return None if code < 0 else ROLES[code]


# -- what the state machine reports --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: the winner (``None`` while unfinished) and the notes completed."""

    winner: Role | None
    notes: int

    def to_json(self) -> dict[str, object]:
        """As docs/format.md's ``result`` writes it."""
        return {"winner": None if self.winner is None else self.winner.key, "notes": self.notes}


# -- the actions ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealCards:
    """Chance deals a round: each player's hand (bit masks)."""

    phantom: int
    christine: int


@dataclass(frozen=True, slots=True)
class DealUnseen:
    """Chance deals a round whose hands nobody wrote down: 10 cards each, unknown. The
    state then knows of each hand only what the play shows (:class:`GameState`)."""


@dataclass(frozen=True, slots=True)
class ExchangeCards:
    """Both players give one card at the same time at the start of a round."""

    phantom: int
    christine: int


@dataclass(frozen=True, slots=True)
class PickSpecialNumber:
    """The round's leader picks the special number (under the beginner rule: the die)."""

    number: int


@dataclass(frozen=True, slots=True)
class PlayCard:
    """The player whose turn it is plays a card."""

    player: Role
    card: int


@dataclass(frozen=True, slots=True)
class SwapCards:
    """Both players give the cards of a swap at the same time."""

    phantom: tuple[int, ...]
    christine: tuple[int, ...]


Action = DealCards | DealUnseen | ExchangeCards | PickSpecialNumber | PlayCard | SwapCards


def _illegal(code: Code, **facts: Any) -> Illegal:
    return Illegal(code, facts)


# -- the state machine ---------------------------------------------------------------------


class GameState:
    """The whole state of a game between two actions, in compact form.

    Build the start of a game with :meth:`start`; :meth:`apply` gives the next state (or
    the :class:`~phantom_log.rules.problems.Illegal` step), :meth:`legal_actions` and
    :meth:`legal_cards` what may be done. The ``step_*`` methods change the state in place
    (cheaper, for replays and searches) and return ``None`` or the illegal step, leaving
    the state as it was on an illegal step.

    A state that tracks events (``events`` is a list) appends what each step did to
    ``events`` (a state made by :meth:`apply` holds the events of that action only) and
    keeps the last trick's :class:`~phantom_log.rules.events.TrickEnded` in
    ``last_trick``; one that does not (``events`` is ``None``) builds no event at all.

    A round dealt unseen (:class:`DealUnseen`, ``unseen`` true) holds in ``phantom_hand``
    and ``christine_hand`` the cards each player *may* hold: at first every card; a card
    played leaves both, a card given leaves the giver's and joins the receiver's, and a
    player who does not follow the lead suit shows they hold none of it. The cards each
    player is known to hold (received in the exchange or a swap, not yet given or played)
    are ``phantom_known`` and ``christine_known``, how many each holds ``phantom_count``
    and ``christine_count``, and the cards each must have been dealt (played or given
    without having been received) ``phantom_dealt`` and ``christine_dealt``: so a card is
    refused when the player cannot hold it, a revoke when the player is known to hold the
    lead suit, and the deal is found at the round's end (:meth:`inferred_deal`).

    ``deals`` holds each round's deal so far, in order, as the two hands' masks
    ``(phantom, christine)`` (for a round dealt unseen, the cards each may hold then: the
    whole deck): what was dealt is known from the state, with or without events.
    """

    def __init__(self, owners: int, suits: int, beginner: bool, balance: bool) -> None:
        self.owners = owners
        self.suits = suits
        self.beginner = beginner
        self.balance = balance
        self.phase_code = _DEAL
        self.round_index = 0
        self.phantom_hand = 0
        self.christine_hand = 0
        self.notes = 0
        self.leader_code = 0
        self.turn_code = 0
        self.lead_card = _NO_CARD
        self.follow_card = _NO_CARD
        self.special_number = 0
        self.number_choices = 0
        self.tricks_played = 0
        self.pending_swap = 0
        self.swap_after_follow = False
        self.special_in_trick = False
        self.winner_code = _NOBODY
        self.ended_round = 0
        self.ended_trick = 0
        self.last_lead = _NO_CARD
        self.last_follow = _NO_CARD
        self.last_verdict = 0
        self.unseen = False
        self.phantom_count = 0
        self.christine_count = 0
        self.phantom_known = 0
        self.christine_known = 0
        self.phantom_dealt = 0
        self.christine_dealt = 0
        self.deals: tuple[tuple[int, int], ...] = ()
        self.events: list[Any] | None = None
        self.swaps: list[CardsSwapped] = []
        self.exchange: Exchanged | None = None
        self.last_trick: TrickEnded | None = None

    @classmethod
    def start(cls, sheet: Sheet, rules: Rules = Rules(), tracking: bool = True) -> GameState:
        """A game about to be dealt, on ``sheet`` under ``rules``. With ``tracking``, each
        step's events are kept in :attr:`events`."""
        state = cls(sheet.owner_bits, sheet.suit_bits, rules.beginner, rules.balance)
        if tracking:
            state.events = []
        return state

    def copy(self) -> GameState:
        """An independent copy (tracking events as this state does, with none yet)."""
        other = GameState(self.owners, self.suits, self.beginner, self.balance)
        other.assign(self)
        return other

    def assign(self, other: GameState) -> None:
        """Make this state a copy of ``other``, in place: a search keeps one state per ply
        and reuses it instead of allocating a copy per move. The events and the trick's
        swaps are copied only when either state tracks events."""
        self.owners = other.owners
        self.suits = other.suits
        self.beginner = other.beginner
        self.balance = other.balance
        self.phase_code = other.phase_code
        self.round_index = other.round_index
        self.phantom_hand = other.phantom_hand
        self.christine_hand = other.christine_hand
        self.notes = other.notes
        self.leader_code = other.leader_code
        self.turn_code = other.turn_code
        self.lead_card = other.lead_card
        self.follow_card = other.follow_card
        self.special_number = other.special_number
        self.number_choices = other.number_choices
        self.tricks_played = other.tricks_played
        self.pending_swap = other.pending_swap
        self.swap_after_follow = other.swap_after_follow
        self.special_in_trick = other.special_in_trick
        self.winner_code = other.winner_code
        self.ended_round = other.ended_round
        self.ended_trick = other.ended_trick
        self.last_lead = other.last_lead
        self.last_follow = other.last_follow
        self.last_verdict = other.last_verdict
        self.unseen = other.unseen
        self.phantom_count = other.phantom_count
        self.christine_count = other.christine_count
        self.phantom_known = other.phantom_known
        self.christine_known = other.christine_known
        self.phantom_dealt = other.phantom_dealt
        self.christine_dealt = other.christine_dealt
        self.deals = other.deals
        if self.events is not None or other.events is not None:
            self.events = None if other.events is None else []
            self.swaps = list(other.swaps)
        self.exchange = other.exchange
        self.last_trick = other.last_trick

    # -- reading the state -----------------------------------------------------------------

    @property
    def tracking(self) -> bool:
        """True when the state tracks events."""
        return self.events is not None

    @property
    def phase(self) -> Phase:
        """What the game waits for."""
        return Phase(self.phase_code)

    @property
    def rules(self) -> Rules:
        """The optional rules in force."""
        return Rules(self.beginner, self.balance)

    @property
    def round(self) -> int:
        """The round being played or about to be dealt (1 or 2)."""
        return self.round_index + 1

    @property
    def trick(self) -> int:
        """The trick being played (1-10), counted in the round."""
        return self.tricks_played + 1

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands as bit masks, the Phantom's first."""
        return (self.phantom_hand, self.christine_hand)

    def hand(self, role: Role) -> int:
        """One player's hand, as a bit mask."""
        return self.christine_hand if role else self.phantom_hand

    @property
    def leader(self) -> Role:
        """Who leads (or led) the current trick."""
        return ROLES[self.leader_code]

    @property
    def turn(self) -> Role | None:
        """Who is to play a card, or ``None`` when no card is due."""
        return ROLES[self.turn_code] if self.phase_code == _PLAY else None

    def player_due(self) -> int:
        """:attr:`turn` as a code (0 the Phantom, 1 Christine; -1 when no card is due), for
        callers that follow a game card by card."""
        return self.turn_code if self.phase_code == _PLAY else _NOBODY

    @property
    def lead(self) -> int | None:
        """The card led in the current trick, if any."""
        return None if self.lead_card < 0 else self.lead_card

    @property
    def winner(self) -> Role | None:
        """Who won the game, once it is over."""
        return None if self.winner_code < 0 else ROLES[self.winner_code]

    @property
    def is_over(self) -> bool:
        """True once the game is decided."""
        return self.phase_code == _OVER

    @property
    def super_trump(self) -> Suit | None:
        """The super trump suit in force (``None`` with no note completed)."""
        code = self.super_trump_code()
        return None if code < 0 else SUITS[code]

    def super_trump_code(self) -> int:
        """The super trump as a suit int, -1 for none."""
        return super_trump_code(self.suits, self.notes)

    def note_owner_code(self, note: int) -> int:
        """The owner (0 the Phantom, 1 Christine) of note ``note`` (1-12)."""
        return (self.owners >> (note - 1)) & 1

    def next_note_owner_code(self) -> int:
        """Who must win the trick in play for it to be in order (the owner of the note
        after those completed): 0 the Phantom, 1 Christine, -1 once the sheet is full."""
        return next_note_owner_code(self.owners, self.notes)

    @property
    def next_note_owner(self) -> Role | None:
        """:meth:`next_note_owner_code` as a role (``None`` once the sheet is full)."""
        code = self.next_note_owner_code()
        return None if code < 0 else ROLES[code]

    def swap_due(self) -> int:
        """The size of the swap the game waits for (0 outside the swap phase)."""
        return self.pending_swap if self.phase_code == _SWAP else 0

    def swap_card(self) -> int:
        """The card that called the swap the game waits for (-1 outside the swap phase)."""
        if self.phase_code != _SWAP:
            return _NO_CARD
        return self.follow_card if self.swap_after_follow else self.lead_card

    def is_special(self, card: int) -> bool:
        """True when ``card`` shows the special number of the round in play (or just
        ended); never before the first special number is picked."""
        return card_number(card) == self.special_number

    def special_cards(self) -> int:
        """The cards (bit mask) showing the round's special number; 0 before it is picked."""
        if self.phase_code < _PLAY:
            return 0
        return number_mask(self.special_number)

    def special_tricks_possible(self) -> int:
        """How many of the tricks left in the round (the one in play included) can still
        hold a card of the special number: each special card in a hand can make one more,
        and the trick in play is one already when such a card is in it. Before the special
        number is picked, every trick left."""
        if self.phase_code == _DEAL or self.phase_code == _OVER:
            return 0
        left = _TRICKS - self.tricks_played
        if self.phase_code < _PLAY:
            return left
        possible = popcount((self.phantom_hand | self.christine_hand) & self.special_cards())
        if self.special_in_trick:
            possible += 1
        return min(left, possible)

    def notes_floor(self) -> int:
        """The fewest notes the round can end with from here, whatever is played: only a
        special trick out of order removes notes (:meth:`special_tricks_possible`)."""
        notes = self.notes
        if self.phase_code == _DEAL or self.phase_code == _OVER or notes >= _NOTES:
            return notes
        for _trick in range(self.special_tricks_possible()):
            notes = notes_after(notes, False, True, self.balance)
        return notes

    def notes_ceiling(self) -> int:
        """The most notes the round can end with from here, whatever is played: every
        trick left in order, the ones that can be special special."""
        notes = self.notes
        if self.phase_code == _DEAL or self.phase_code == _OVER:
            return notes
        special = self.special_tricks_possible()
        for trick in range(_TRICKS - self.tricks_played):
            if notes >= _NOTES:
                break
            notes = notes_after(notes, True, trick < special, self.balance)
        return notes

    def legal_cards(self) -> int:
        """The cards (bit mask) the player to move may play; 0 when no card is due."""
        if self.phase_code != _PLAY:
            return 0
        hand = self.christine_hand if self.turn_code else self.phantom_hand
        lead_suit = -1 if self.lead_card < 0 else card_suit_index(self.lead_card)
        if self.unseen and lead_suit >= 0:
            # Any card the player may hold, unless they are known to hold the lead suit.
            known = self.christine_known if self.turn_code else self.phantom_known
            return hand & suit_mask(lead_suit) if known & suit_mask(lead_suit) else hand
        return playable(hand, lead_suit)

    def number_options(self) -> tuple[int, ...]:
        """The special numbers that may be picked now."""
        if self.phase_code != _SPECIAL_NUMBER:
            return ()
        return _NUMBER_TUPLES[self.number_choices]

    def legal_actions(self) -> list[Action]:
        """Every action that may be taken now (deals are chance's: not listed)."""
        phase = self.phase_code
        if phase == _EXCHANGE:
            return [
                ExchangeCards(mine, theirs)
                for mine in hand_cards(self.phantom_hand)
                for theirs in hand_cards(self.christine_hand)
            ]
        if phase == _SPECIAL_NUMBER:
            return [PickSpecialNumber(number) for number in self.number_options()]
        if phase == _PLAY:
            player = ROLES[self.turn_code]
            return [PlayCard(player, card) for card in hand_cards(self.legal_cards())]
        if phase == _SWAP:
            size = self.pending_swap
            return [
                SwapCards(mine, theirs)
                for mine in _subsets(self.phantom_hand, size)
                for theirs in _subsets(self.christine_hand, size)
            ]
        return []

    def apply(self, action: Action) -> GameState | Illegal:
        """The state after ``action`` (holding that action's events, when tracking), or
        the illegal step (this state is unchanged)."""
        state = self.copy()
        problem = state.step(action)
        return state if problem is None else problem

    def step(self, action: Action) -> Illegal | None:
        """Take ``action`` in place (:meth:`apply` without the copy): ``None``, or the
        illegal step, the state then left as it was."""
        if isinstance(action, PlayCard):
            return self.step_play(int(action.player), action.card)
        if isinstance(action, SwapCards):
            return self.step_swap(action.phantom, action.christine)
        if isinstance(action, PickSpecialNumber):
            return self.step_special_number(action.number)
        if isinstance(action, ExchangeCards):
            return self.step_exchange(action.phantom, action.christine)
        if isinstance(action, DealCards):
            return self.step_deal(action.phantom, action.christine)
        if isinstance(action, DealUnseen):
            return self.step_deal_unseen()
        raise TypeError(action)

    def with_hands(self, phantom: int, christine: int) -> GameState | Illegal:
        """This position with other hands, the same number of cards each (the analysis
        lays out what a player could not see), or the ``bad-deal`` problem of hands that
        overlap, hold a card outside the deck, or differ in size from the ones held."""
        if phantom & christine:
            return _illegal(Code.BAD_DEAL, overlap=phantom & christine)
        for role, hand, held in (
            (0, phantom, self.phantom_hand),
            (1, christine, self.christine_hand),
        ):
            if hand >> _DECK or popcount(hand) != popcount(held):
                return _illegal(
                    Code.BAD_DEAL,
                    part=ROLE_KEYS[role],
                    count=popcount(hand),
                    expected=popcount(held),
                )
        other = self.copy()
        other.phantom_hand = phantom
        other.christine_hand = christine
        return other

    # -- the steps -------------------------------------------------------------------------

    def out_of_phase(self) -> Illegal:
        """The problem of a deal or a card played when the game waits for something else."""
        if self.phase_code == _OVER:
            return _illegal(
                Code.AFTER_GAME_END, end_round=self.ended_round, end_trick=self.ended_trick
            )
        if self.phase_code == _SWAP:
            return _illegal(
                Code.MISSING_SWAP,
                card=self.swap_card(),
                special_number=self.special_number,
                size=self.pending_swap,
            )
        if self.phase_code == _PLAY and self.lead_card >= 0:
            return _illegal(Code.INCOMPLETE_TRICK)
        if self.phase_code == _PLAY:
            return _illegal(
                Code.INCOMPLETE_ROUND, round=self.round_index + 1, played=self.tricks_played
            )
        if self.phase_code == _EXCHANGE:
            return _illegal(Code.BAD_EXCHANGE, missing=True, round=self.round_index + 1)
        return _illegal(Code.BAD_DEAL, phase=int(self.phase_code))

    def step_deal(self, phantom: int, christine: int) -> Illegal | None:
        """Deal the next round: 10 distinct cards to each player."""
        if self.phase_code != _DEAL:
            return self.out_of_phase()
        if phantom & christine:
            return _illegal(Code.BAD_DEAL, overlap=phantom & christine)
        for role, hand in ((0, phantom), (1, christine)):
            if popcount(hand) != _HAND or hand >> _DECK:
                return _illegal(
                    Code.BAD_DEAL, part=ROLE_KEYS[role], count=popcount(hand), expected=_HAND
                )
        self._begin_round(phantom, christine, False)
        return None

    def step_deal_unseen(self) -> Illegal | None:
        """Deal the next round unseen: 10 cards each, which the play shows."""
        if self.phase_code != _DEAL:
            return self.out_of_phase()
        self.phantom_count = _HAND
        self.christine_count = _HAND
        self.phantom_known = 0
        self.christine_known = 0
        self.phantom_dealt = 0
        self.christine_dealt = 0
        # Unseen, each may hold any card.
        self._begin_round(FULL_DECK, FULL_DECK, True)
        return None

    def _begin_round(self, phantom: int, christine: int, unseen: bool) -> None:
        """The round dealt (``phantom`` and ``christine``: the hands, or what each may
        hold when ``unseen``), told as :class:`~phantom_log.rules.events.Dealt`."""
        self.phantom_hand = phantom
        self.christine_hand = christine
        self.unseen = unseen
        self.deals = self.deals + ((phantom, christine),)  # noqa: RUF005 (compiled: no list made)
        if self.events is not None:
            dealt = Dealt.__new__(Dealt)
            dealt.round = self.round_index + 1
            dealt.phantom_hand = phantom
            dealt.christine_hand = christine
            self.events.append(dealt)
        self.leader_code = round_leader(self.round_index)
        self.turn_code = self.leader_code
        self.tricks_played = 0
        self.exchange = None
        if self.beginner:
            self.number_choices = ((1 << _FACES) - 1) << 1
            self.phase_code = _SPECIAL_NUMBER
        else:
            self.phase_code = _EXCHANGE

    def step_exchange(self, phantom_card: int, christine_card: int) -> Illegal | None:
        """Both players give one card of their hand at the same time."""
        if self.phase_code != _EXCHANGE:
            if self.phase_code == _SPECIAL_NUMBER and self.beginner:
                return _illegal(Code.BAD_EXCHANGE, beginner=True, round=self.round_index + 1)
            return self.out_of_phase()
        for role in range(2):
            card = christine_card if role else phantom_card
            hand = self.christine_hand if role else self.phantom_hand
            if not hand >> card & 1:
                return _illegal(
                    Code.BAD_EXCHANGE,
                    player=ROLES[role],
                    card=card,
                    hand=hand,
                    round=self.round_index + 1,
                )
        if self.unseen:
            self._given(1 << phantom_card, 1 << christine_card)
        self.phantom_hand = self.phantom_hand & ~(1 << phantom_card) | 1 << christine_card
        self.christine_hand = self.christine_hand & ~(1 << christine_card) | 1 << phantom_card
        self.number_choices = (1 << card_number(phantom_card)) | (1 << card_number(christine_card))
        self.phase_code = _SPECIAL_NUMBER
        if self.events is not None:
            exchanged = Exchanged.__new__(Exchanged)
            exchanged.round = self.round_index + 1
            exchanged.phantom_gave = phantom_card
            exchanged.christine_gave = christine_card
            exchanged.phantom_hand = self.phantom_hand
            exchanged.christine_hand = self.christine_hand
            self.exchange = exchanged
            self.events.append(exchanged)
        return None

    def step_special_number(self, number: int) -> Illegal | None:
        """The round's leader picks the special number (or the die shows it)."""
        if self.phase_code != _SPECIAL_NUMBER:
            return self.out_of_phase()
        if not 1 <= number <= _FACES or not self.number_choices >> number & 1:
            return _illegal(
                Code.BAD_SPECIAL_NUMBER,
                number=number,
                round=self.round_index + 1,
                beginner=self.beginner,
                leader=ROLES[self.leader_code],
                choices=_NUMBER_TUPLES[self.number_choices],
            )
        if self.events is not None:
            started = RoundStarted.__new__(RoundStarted)
            started.round = self.round_index + 1
            started.leader_code = self.leader_code
            started.special_number = number
            started.chooser_code = _NOBODY if self.beginner else self.leader_code
            started.choices = _NUMBER_TUPLES[self.number_choices]
            started.phantom_hand = self.phantom_hand
            started.christine_hand = self.christine_hand
            started.notes = self.notes
            started.super_trump_code = super_trump_code(self.suits, self.notes)
            started.exchange = self.exchange
            self.events.append(started)
        self.special_number = number
        self.number_choices = 0
        self.phase_code = _PLAY
        self.lead_card = _NO_CARD
        self.follow_card = _NO_CARD
        self.special_in_trick = False
        return None

    def step_play(self, player: int, card: int) -> Illegal | None:
        """The player whose turn it is plays ``card``; checks, in order: right player,
        card held, follow suit."""
        if self.phase_code != _PLAY:
            return self.out_of_phase()
        leading = self.lead_card < 0
        if player != self.turn_code:
            return _illegal(
                Code.WRONG_PLAYER,
                player=ROLES[player],
                card=card,
                expected=ROLES[self.turn_code],
                leading=leading,
            )
        hand = self.christine_hand if player else self.phantom_hand
        if not hand >> card & 1:
            if self.unseen:
                return _illegal(
                    Code.CARD_NOT_HELD, player=ROLES[player], card=card, hand=hand, unseen=True
                )
            return _illegal(Code.CARD_NOT_HELD, player=ROLES[player], card=card, hand=hand)
        if not leading:
            lead_suit = card_suit_index(self.lead_card)
            # Unseen, only the cards the player is known to hold can oblige them.
            held = (
                (self.christine_known if player else self.phantom_known) | 1 << card
                if self.unseen
                else hand
            )
            if not playable(held, lead_suit) >> card & 1:
                return _illegal(
                    Code.REVOKE,
                    player=ROLES[player],
                    card=card,
                    held=held & suit_mask(lead_suit),
                    lead_suit=SUITS[lead_suit],
                )
            if self.unseen and card_suit_index(card) != lead_suit:
                hand &= ~suit_mask(lead_suit)  # shown to hold none of the lead suit
        if self.unseen:
            self._played_unseen(player, card)
        hand &= ~(1 << card)
        if player:
            self.christine_hand = hand
        else:
            self.phantom_hand = hand
        if leading:
            self.lead_card = card
            if self.events is not None and self.swaps:
                self.swaps = []
        else:
            self.follow_card = card
        special = self.is_special(card)
        size = 0
        if special:
            self.special_in_trick = True
            size = (
                swap_size_of(self.phantom_count, self.christine_count)
                if self.unseen
                else swap_size(self.phantom_hand, self.christine_hand)
            )
        played = None
        if self.events is not None:
            played = CardPlayed.__new__(CardPlayed)
            played.round = self.round_index + 1
            played.trick = self.tricks_played + 1
            played.player_code = player
            played.card = card
            played.leading = leading
            played.special = special
            played.swap_due = size
            played.phantom_hand = self.phantom_hand
            played.christine_hand = self.christine_hand
            played.next_code = _NOBODY
            self.events.append(played)
        if size > 0:
            self.pending_swap = size
            self.swap_after_follow = not leading
            self.phase_code = _SWAP
            return None
        self._after_card(leading)
        if played is not None:
            played.next_code = self.turn_code if self.phase_code == _PLAY else _NOBODY
        return None

    def _after_card(self, leading: bool) -> None:
        if leading:
            self.turn_code = 1 - self.leader_code
        else:
            self._finish_trick()

    def step_swap(self, phantom: Sequence[int], christine: Sequence[int]) -> Illegal | None:
        """Both players give the cards of the swap that is due; checks, in order: a side
        with too few cards, a side with too many, then every card held (the Phantom's side
        first), a card given twice being not held the second time."""
        if self.phase_code != _SWAP:
            if self.phase_code == _PLAY:
                card = self.follow_card if self.lead_card >= 0 else self.lead_card
                return _illegal(Code.UNEXPECTED_SWAP, card=card, special_number=self.special_number)
            return self.out_of_phase()
        size = self.pending_swap
        for role in range(2):
            count = len(christine if role else phantom)
            if count < size:
                return _illegal(
                    Code.MISSING_SWAP,
                    player=ROLES[role],
                    count=count,
                    size=size,
                    card=self.swap_card(),
                )
        for role in range(2):
            count = len(christine if role else phantom)
            if count > size:
                return _illegal(
                    Code.UNEXPECTED_SWAP,
                    player=ROLES[role],
                    count=count,
                    size=size,
                    card=self.swap_card(),
                )
        mask0 = 0
        mask1 = 0
        for role in range(2):
            hand = self.christine_hand if role else self.phantom_hand
            mask = 0
            for position, card in enumerate(christine if role else phantom):
                if not (0 <= card < _DECK and hand >> card & 1):
                    return _illegal(
                        Code.CARD_NOT_HELD,
                        player=ROLES[role],
                        card=card,
                        position=position,
                        twice=bool(0 <= card < _DECK and mask >> card & 1),
                        after=self.swap_card(),
                        hand=self.christine_hand if role else self.phantom_hand,
                        swap=True,
                        unseen=self.unseen,
                    )
                hand &= ~(1 << card)
                mask |= 1 << card
            if role:
                mask1 = mask
            else:
                mask0 = mask
        swapped = None
        if self.events is not None:
            swapped = CardsSwapped.__new__(CardsSwapped)
            swapped.round = self.round_index + 1
            swapped.trick = self.tricks_played + 1
            swapped.after_follow = self.swap_after_follow
            swapped.card = self.swap_card()
            swapped.phantom_gave = tuple(phantom)
            swapped.christine_gave = tuple(christine)
        if self.unseen:
            self._given(mask0, mask1)
        self.phantom_hand = self.phantom_hand & ~mask0 | mask1
        self.christine_hand = self.christine_hand & ~mask1 | mask0
        self.pending_swap = 0
        self.phase_code = _PLAY
        if swapped is not None:
            swapped.phantom_hand = self.phantom_hand
            swapped.christine_hand = self.christine_hand
            swapped.next_code = _NOBODY
            self.swaps.append(swapped)
            self.events.append(swapped)  # type: ignore[union-attr]
        self._after_card(not self.swap_after_follow)
        if swapped is not None:
            swapped.next_code = self.turn_code if self.phase_code == _PLAY else _NOBODY
        return None

    def step_swap_masks(self, phantom: int, christine: int) -> Illegal | None:
        """:meth:`step_swap` with each side's cards as a bit mask: the same checks and the
        same result, without building tuples (for searches). A state that tracks events,
        or a swap that is not legal, goes through :meth:`step_swap` itself."""
        if self.took_swap_masks(phantom, christine):
            return None
        return self.step_swap(tuple(hand_cards(phantom)), tuple(hand_cards(christine)))

    def took_swap_masks(self, phantom: int, christine: int) -> bool:
        """Take the swap of these cards (bit masks) in place, and say so, when
        :meth:`step_swap` would take it without a problem and tell nothing of it (the
        state tracks no event, nor is the round unseen); otherwise change nothing and say
        ``False``: the caller then steps :meth:`step_swap` with the cards as given, for
        the problem or the event (the replay of a record, whose swaps' cards are in the
        record's order)."""
        size = self.pending_swap
        if (
            self.phase_code != _SWAP
            or self.events is not None
            or self.unseen
            or phantom & ~self.phantom_hand
            or christine & ~self.christine_hand
            or popcount(phantom) != size
            or popcount(christine) != size
        ):
            return False
        self.phantom_hand = self.phantom_hand & ~phantom | christine
        self.christine_hand = self.christine_hand & ~christine | phantom
        self.pending_swap = 0
        self.phase_code = _PLAY
        self._after_card(not self.swap_after_follow)
        return True

    def _played_unseen(self, player: int, card: int) -> None:
        """What a card played shows of an unseen round: the player had it (dealt, unless
        received), and nobody holds it now."""
        bit = 1 << card
        if player:
            if not self.christine_known & bit:
                self.christine_dealt |= bit
            self.christine_known &= ~bit
            self.christine_count -= 1
            self.phantom_hand &= ~bit
        else:
            if not self.phantom_known & bit:
                self.phantom_dealt |= bit
            self.phantom_known &= ~bit
            self.phantom_count -= 1
            self.christine_hand &= ~bit

    def _given(self, phantom_gave: int, christine_gave: int) -> None:
        """What an exchange or a swap shows of an unseen round (both sides give at once):
        each had what they gave (dealt, unless received), and holds what they got."""
        self.phantom_dealt |= phantom_gave & ~self.phantom_known
        self.christine_dealt |= christine_gave & ~self.christine_known
        self.phantom_known = self.phantom_known & ~phantom_gave | christine_gave
        self.christine_known = self.christine_known & ~christine_gave | phantom_gave

    def forget_hands(self) -> None:
        """Know nothing more of either hand than how many cards it holds, in place: the
        round goes on as if dealt unseen from here. The reader of a game text, which never
        says who plays, does so past a step the rules refuse, to go on finding whose turn
        each card is (nothing past that step is checked)."""
        if not self.unseen:
            self.phantom_count = popcount(self.phantom_hand)
            self.christine_count = popcount(self.christine_hand)
            self.unseen = True
        self.phantom_hand = FULL_DECK
        self.christine_hand = FULL_DECK
        self.phantom_known = 0
        self.christine_known = 0

    def inferred_deal(self, phantom_left: int, christine_left: int) -> tuple[int, int] | Illegal:
        """The hands of the round dealt unseen that was played last, found from what the
        play showed and the cards each player still held at its end (``phantom_left``,
        ``christine_left``: none after the tenth trick), or the ``bad-deal`` problem of
        cards that cannot have been dealt so. Call it before the next round is dealt."""
        if not self.unseen:
            return _illegal(Code.BAD_DEAL, inferred=True, seen=True)
        for role, left, possible, count in (
            (0, phantom_left, self.phantom_hand, self.phantom_count),
            (1, christine_left, self.christine_hand, self.christine_count),
        ):
            if left & ~possible:
                return _illegal(
                    Code.BAD_DEAL, inferred=True, part=ROLE_KEYS[role], not_held=left & ~possible
                )
            if popcount(left) != count:
                return _illegal(
                    Code.BAD_DEAL,
                    inferred=True,
                    part=ROLE_KEYS[role],
                    left=popcount(left),
                    expected=count,
                )
        if phantom_left & christine_left:
            return _illegal(Code.BAD_DEAL, inferred=True, overlap=phantom_left & christine_left)
        phantom = self.phantom_dealt | phantom_left & ~self.phantom_known
        christine = self.christine_dealt | christine_left & ~self.christine_known
        if phantom & christine:
            return _illegal(Code.BAD_DEAL, inferred=True, overlap=phantom & christine)
        for role, hand in ((0, phantom), (1, christine)):
            if popcount(hand) != _HAND:
                return _illegal(
                    Code.BAD_DEAL,
                    inferred=True,
                    part=ROLE_KEYS[role],
                    count=popcount(hand),
                    expected=_HAND,
                )
        return phantom, christine

    def _finish_trick(self) -> None:
        lead = self.lead_card
        follow = self.follow_card
        leader = self.leader_code
        notes = self.notes
        trump = super_trump_code(self.suits, notes)
        verdict = judge(lead, follow, trump)
        winner = trick_winner(leader, verdict)
        note_owner = next_note_owner_code(self.owners, notes)
        in_order = winner == note_owner
        special = self.special_in_trick
        after = notes_after(notes, in_order, special, self.balance)
        self.notes = after
        self.tricks_played += 1
        events = self.events
        if events is not None:
            ended = TrickEnded.__new__(TrickEnded)
            ended.round = self.round_index + 1
            ended.trick = self.tricks_played
            ended.leader_code = leader
            ended.lead = lead
            ended.follow = follow
            ended.super_trump_code = trump
            ended.verdict = verdict
            ended.note_owner_code = note_owner
            ended.special = special
            ended.swaps = tuple(self.swaps)
            ended.notes_before = notes
            ended.notes_after = after
            ended.change = note_change(notes, in_order, special, self.balance)
            ended.penalty = special_penalty(self.balance)
            ended.phantom_hand = self.phantom_hand
            ended.christine_hand = self.christine_hand
            ended.super_trump_after_code = super_trump_code(self.suits, after)
            self.last_trick = ended
            events.append(ended)
        self.last_lead = lead
        self.last_follow = follow
        self.last_verdict = verdict
        self.lead_card = _NO_CARD
        self.follow_card = _NO_CARD
        self.special_in_trick = False
        self.leader_code = winner
        self.turn_code = winner
        round_over = self.tricks_played == _TRICKS
        decided = game_winner(self.round_index, after, round_over)
        if events is not None and (round_over or decided != _NOBODY):
            round_ended = RoundEnded.__new__(RoundEnded)
            round_ended.round = self.round_index + 1
            round_ended.notes = after
            round_ended.tricks = self.tricks_played
            events.append(round_ended)
        if decided != _NOBODY:
            self._end(decided)
        elif round_over:
            self.round_index += 1
            self.phase_code = _DEAL

    def _end(self, winner: int) -> None:
        self.winner_code = winner
        self.ended_round = self.round_index + 1
        self.ended_trick = self.tricks_played
        self.phase_code = _OVER
        if self.events is not None:
            ended = GameEnded.__new__(GameEnded)
            ended.winner_code = winner
            ended.notes = self.notes
            ended.round = self.ended_round
            ended.trick = self.ended_trick
            self.events.append(ended)


def _numbers(choices: int) -> tuple[int, ...]:
    """The numbers (1-6) whose bits are set in ``choices``."""
    return tuple(number for number in range(1, _FACES + 1) if choices >> number & 1)


#: :func:`_numbers` of every ``number_choices`` (bits 1-6), made once: a round's start
#: reads its choices here instead of building the tuple again.
_NUMBER_TUPLES: Final = tuple(_numbers(choices) for choices in range(1 << (_FACES + 1)))


def _subsets(mask: int, size: int) -> list[tuple[int, ...]]:
    cards = hand_cards(mask)
    if size == 1:
        return [(card,) for card in cards]
    return [(a, b) for index, a in enumerate(cards) for b in cards[index + 1 :]]
