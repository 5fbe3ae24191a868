"""The rules of the game as one state machine, and the replay of a record as a fold over it.

:class:`GameState` is the one place where each rule lives: who deals, exchanges, picks the
special number, leads and follows, when a swap is due and how large it is, who wins a
trick, how the notes move, when a round and the game end. Everything else in phantom-log
(verify, annotate, show, the tables, the tournament checks, the simulator, the examples
builder, the solver) drives it and restates no rule.

No I/O, no printing, no English, no global state. An illegal step is returned as an
:class:`~phantom_log.rules.problems.Illegal`: a code and the facts it is about (cards, players,
the hand, the lead suit); :mod:`phantom_log.checking.wording` turns it into a sentence.

Cards are ints 0-23 and hands bit masks (:mod:`phantom_log.rules.cards`); a sheet is read as two
ints, the owner of each note and the suit of its bar. This module is compiled with Cython
(``engine.pxd`` gives the C types) where a compiler is available; the very same source runs
as plain Python elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any, Final

from .cards import CARD_BY_CODE, NUMBERS_PER_SUIT, SUIT_CODES, Role, Suit
from .problems import Code, Illegal
from .sheets import BUILTIN_SHEETS, NOTES_PER_SHEET, Sheet, sheet_from_json

TRICKS_PER_ROUND: Final = 10
ROUNDS_PER_GAME: Final = 2
TRICKS_PER_GAME: Final = TRICKS_PER_ROUND * ROUNDS_PER_GAME
CARDS_PER_HAND: Final = 10
CARDS_ASIDE: Final = 4
SWAP_SIZE: Final = 2
DIE_FACES: Final = 6
#: Notes an out-of-order trick with a special card removes, and the same under the
#: balance rule (docs/rules.md, "Filling the sheet" and "Optional rules").
SPECIAL_PENALTY: Final = 2
BALANCE_PENALTY: Final = 1

# C copies of the numbers above for the compiled build (engine.pxd types them); the
# values are the ones above, not written again.
_NOTES = NOTES_PER_SHEET
_TRICKS = TRICKS_PER_ROUND
_ROUNDS = ROUNDS_PER_GAME
_SWAP_SIZE = SWAP_SIZE
_SPECIAL_PENALTY = SPECIAL_PENALTY
_BALANCE_PENALTY = BALANCE_PENALTY
_SUIT_MASK: Final = 0x3F  # the six cards of suit 0; shift by 6 * suit
_NO_CARD: Final = -1
_NOBODY: Final = -1
ROLES: Final = (Role.PHANTOM, Role.CHRISTINE)
SUITS: Final = (Suit.MIRROR, Suit.CHANDELIER, Suit.RING, Suit.MASK)
ROLE_KEYS: Final = ("phantom", "christine")


# The phases as plain ints, for the compiled build (engine.pxd makes them C ints).
_DEAL = 0
_EXCHANGE = 1
_SPECIAL_NUMBER = 2
_PLAY = 3
_SWAP = 4
_OVER = 5


class Phase(IntEnum):
    """What the game waits for."""

    DEAL = _DEAL
    EXCHANGE = _EXCHANGE
    SPECIAL_NUMBER = _SPECIAL_NUMBER
    PLAY = _PLAY
    SWAP = _SWAP
    OVER = _OVER


class Reason(StrEnum):
    """Why a trick was won: by the higher number in one suit, or by the winning card's class."""

    HIGHER_NUMBER = "higher-number"
    SUPER_TRUMP = "super-trump"
    TRUMP = "trump"
    LEAD_SUIT = "lead-suit"


REASONS: Final = tuple(Reason)
_HIGHER_NUMBER, _SUPER_TRUMP_REASON, _TRUMP_REASON, _LEAD_SUIT_REASON = range(4)


@dataclass(frozen=True, slots=True)
class Rules:
    """The optional rules a game is played under."""

    beginner: bool = False
    balance: bool = False


# -- the pure rules ------------------------------------------------------------------------


def card_number_of(card: int) -> int:
    """The number (1-6) of a compact card."""
    return card % 6 + 1


def suit_mask(suit: int) -> int:
    """The bit mask of the six cards of a suit."""
    return _SUIT_MASK << (6 * suit)


def judge(lead: int, follow: int, super_trump: int) -> int:
    """Who wins a trick, as ``reason * 2 + (1 if the leader wins else 0)``.

    ``super_trump`` is a suit, or -1 for none. Same suit: the higher number wins.
    Different suits: the stronger class wins (super trump, then Mask when Mask is not the
    super trump, then the lead suit); the leader's card is always of the lead suit, so a
    different-suit trick never ties.
    """
    lead_suit = lead // 6
    follow_suit = follow // 6
    if lead_suit == follow_suit:
        return _HIGHER_NUMBER * 2 + (1 if lead > follow else 0)
    lead_class = 3 if lead_suit == super_trump else (2 if lead_suit == 3 else 1)
    follow_class = 3 if follow_suit == super_trump else (2 if follow_suit == 3 else 0)
    if follow_class > lead_class:
        return (_SUPER_TRUMP_REASON if follow_class == 3 else _TRUMP_REASON) * 2
    if lead_class == 3:
        return _SUPER_TRUMP_REASON * 2 + 1
    return (_TRUMP_REASON if lead_class == 2 else _LEAD_SUIT_REASON) * 2 + 1


def judge_trick(lead: int, follow: int, super_trump: Suit | None) -> tuple[bool, Reason]:
    """Who wins a trick: ``(True, reason)`` when the leader's card wins."""
    verdict = judge(lead, follow, -1 if super_trump is None else int(super_trump))
    return bool(verdict & 1), REASONS[verdict >> 1]


def notes_after(notes_before: int, in_order: bool, special: bool, balance: bool) -> int:
    """The notes completed after a trick (docs/rules.md, "Filling the sheet")."""
    if not special:
        return notes_before + 1 if in_order else notes_before
    if in_order:
        return min(_NOTES, notes_before + 2)
    return max(0, notes_before - (_BALANCE_PENALTY if balance else _SPECIAL_PENALTY))


def special_penalty(balance: bool) -> int:
    """How many notes an out-of-order trick with a special card removes."""
    return BALANCE_PENALTY if balance else SPECIAL_PENALTY


def notes_after_trick(notes_before: int, in_order: bool, special: bool, rules: Rules) -> int:
    """The notes completed after a trick, under a game's rules."""
    return notes_after(notes_before, in_order, special, rules.balance)


def playable(hand: int, lead_suit: int) -> int:
    """The cards of a hand (bit mask) that may be played: any card to lead (``lead_suit``
    -1); to follow, the cards of the lead suit if the hand holds any, otherwise any card."""
    if lead_suit < 0:
        return hand
    follow_suit_required = hand & suit_mask(lead_suit)
    return follow_suit_required or hand


def legal_cards(hand: int, lead_suit: Suit | int | None) -> int:
    """:func:`playable`, with the lead suit as a :class:`~phantom_log.rules.cards.Suit` (or
    ``None`` to lead)."""
    return playable(hand, -1 if lead_suit is None else int(lead_suit))


def leader_code(round_index: int) -> int:
    """Who leads the first trick of a round (index from 0): the Phantom (0), then
    Christine (1)."""
    return 0 if round_index == 0 else 1


def round_leader(round_index: int) -> Role:
    """:func:`leader_code` as a :class:`~phantom_log.rules.cards.Role`."""
    return ROLES[leader_code(round_index)]


def swap_size(phantom_hand: int, christine_hand: int) -> int:
    """How many cards each player gives in a swap: 2, 1 when either holds only one card,
    0 when either holds none."""
    return min(_SWAP_SIZE, popcount(phantom_hand), popcount(christine_hand))


def game_winner(round_index: int, notes: int, round_over: bool) -> int:
    """Who has won once a trick leaves ``notes`` completed in round ``round_index`` (from
    0), ``round_over`` when it was the round's last trick: 0 the Phantom (the sheet is
    complete), 1 Christine (the last round is over without it), -1 nobody yet."""
    if notes == _NOTES:
        return 0
    if round_over and round_index == _ROUNDS - 1:
        return 1
    return _NOBODY


def number_mask(number: int) -> int:
    """The bit mask of the four cards showing ``number`` (1-6); 0 for any other number."""
    if not 1 <= number <= _NUMBERS:
        return 0
    return _ONES << (number - 1)


def popcount(mask: int) -> int:
    """How many cards a hand (bit mask of up to 24 cards) holds."""
    # Bit arithmetic rather than int.bit_count(), so that the compiled build stays in C.
    mask = mask - ((mask >> 1) & 0x555555)
    mask = (mask & 0x333333) + ((mask >> 2) & 0x333333)
    mask = (mask + (mask >> 4)) & 0x0F0F0F
    return (mask & 0xFF) + ((mask >> 8) & 0xFF) + ((mask >> 16) & 0xFF)


# -- what the state machine reports --------------------------------------------------------


class SwapOutcome:
    """A swap that happened: after the ``lead`` or the ``follow`` card, who gave what."""

    def __init__(self, after: str, phantom: tuple[int, ...], christine: tuple[int, ...]) -> None:
        self.after = after
        self.phantom = phantom
        self.christine = christine

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SwapOutcome) and (
            self.after,
            self.phantom,
            self.christine,
        ) == (other.after, other.phantom, other.christine)

    def __hash__(self) -> int:
        return hash((self.after, self.phantom, self.christine))

    def __repr__(self) -> str:
        return f"SwapOutcome({self.after!r}, {self.phantom!r}, {self.christine!r})"


#: How :attr:`TrickOutcome.packed` lays a trick's facts out in one int, as
#: ``(name, shift, bits)``: tables decode whole columns of these at once.
PACKED_LAYOUT: Final = (
    ("round", 0, 2),
    ("trick", 2, 4),
    ("leader", 6, 1),
    ("lead", 7, 5),
    ("follow", 12, 5),
    ("super_trump", 17, 3),  # the suit + 1; 0 for none
    ("verdict", 20, 3),  # the reason * 2, + 1 when the leader won
    ("note_owner", 23, 1),
    ("special", 24, 1),
    ("notes_before", 25, 4),
    ("notes_after", 29, 4),
)


def pack_trick(
    round_no: int,
    trick_no: int,
    leader: int,
    lead: int,
    follow: int,
    super_trump: int,
    verdict: int,
    note_owner: int,
    special: bool,
    notes_before: int,
    notes_after: int,
) -> int:
    """A trick's facts in one int, as :data:`PACKED_LAYOUT` lays them out (built from the
    highest field down, so that the compiled build computes in 64 bits)."""
    packed = notes_after
    packed = packed << 4 | notes_before
    packed = packed << 1 | (1 if special else 0)
    packed = packed << 1 | note_owner
    packed = packed << 3 | verdict
    packed = packed << 3 | (super_trump + 1)
    packed = packed << 5 | follow
    packed = packed << 5 | lead
    packed = packed << 1 | leader
    packed = packed << 4 | trick_no
    return packed << 2 | round_no


class TrickOutcome:
    """A completed trick: the cards, the judgement, and the notes before and after.

    ``hands_after`` are the two hands (bit masks, Phantom first) once the trick is over;
    ``super_trump_after`` is the super trump the notes after it give. Roles, suits and
    reasons come back as enums; the compact ints are on the ``_``-less fields named
    ``*_code``.
    """

    def __init__(
        self,
        round_no: int,
        trick_no: int,
        leader: int,
        lead: int,
        follow: int,
        super_trump: int,
        verdict: int,
        note_owner: int,
        special: bool,
        swaps: tuple[SwapOutcome, ...],
        notes_before: int,
        notes_after: int,
        phantom_after: int,
        christine_after: int,
        super_trump_after: int,
    ) -> None:
        self.round = round_no
        self.trick = trick_no
        self.leader_code = leader
        self.lead = lead
        self.follow = follow
        self.super_trump_code = super_trump
        self.verdict = verdict
        self.note_owner_code = note_owner
        self.special = special
        self.swaps = swaps
        self.notes_before = notes_before
        self.notes_after = notes_after
        self.phantom_after = phantom_after
        self.christine_after = christine_after
        self.super_trump_after_code = super_trump_after

    @property
    def leader(self) -> Role:
        """Who led the trick."""
        return ROLES[self.leader_code]

    @property
    def follower(self) -> Role:
        """Who followed."""
        return ROLES[1 - self.leader_code]

    @property
    def winner_code(self) -> int:
        """The winner as an int (0 the Phantom, 1 Christine)."""
        return self.leader_code if self.verdict & 1 else 1 - self.leader_code

    @property
    def winner(self) -> Role:
        """Who won the trick."""
        return ROLES[self.winner_code]

    @property
    def reason(self) -> Reason:
        """Why the winner won."""
        return REASONS[self.verdict >> 1]

    @property
    def note_owner(self) -> Role:
        """The owner of the next note: who had to win for the trick to be in order."""
        return ROLES[self.note_owner_code]

    @property
    def in_order(self) -> bool:
        """True when the winner owns the next note."""
        return self.winner_code == self.note_owner_code

    @property
    def lead_suit(self) -> Suit:
        """The suit of the leader's card."""
        return SUITS[self.lead // 6]

    @property
    def super_trump(self) -> Suit | None:
        """The super trump in force for the trick (read before it was judged)."""
        return None if self.super_trump_code < 0 else SUITS[self.super_trump_code]

    @property
    def super_trump_after(self) -> Suit | None:
        """The super trump the notes after the trick give."""
        code = self.super_trump_after_code
        return None if code < 0 else SUITS[code]

    @property
    def hands_after(self) -> tuple[int, int]:
        """Both hands once the trick is over (bit masks, the Phantom's first)."""
        return (self.phantom_after, self.christine_after)

    @property
    def packed(self) -> int:
        """The trick's facts in one int, laid out as :data:`PACKED_LAYOUT` says."""
        return pack_trick(
            self.round,
            self.trick,
            self.leader_code,
            self.lead,
            self.follow,
            self.super_trump_code,
            self.verdict,
            self.note_owner_code,
            self.special,
            self.notes_before,
            self.notes_after,
        )

    def fields(self) -> tuple[Any, ...]:
        """Every fact of the trick, compact, as one tuple (for comparisons)."""
        return (
            self.round,
            self.trick,
            self.leader_code,
            self.lead,
            self.follow,
            self.super_trump_code,
            self.verdict,
            self.note_owner_code,
            self.special,
            self.swaps,
            self.notes_before,
            self.notes_after,
            self.phantom_after,
            self.christine_after,
            self.super_trump_after_code,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TrickOutcome) and self.fields() == other.fields()

    def __hash__(self) -> int:
        return hash(self.fields())

    def __repr__(self) -> str:
        return f"TrickOutcome(round={self.round}, trick={self.trick}, winner={self.winner.key})"


@dataclass(frozen=True, slots=True)
class Exchange:
    """The card each player gave at the start of a round."""

    phantom: int
    christine: int


@dataclass(frozen=True, slots=True)
class RoundStart:
    """A round's state once the exchange is done: the hands (bit masks, Phantom first),
    the leader, the special number, the notes carried in, and the exchange (``None``
    under the beginner rule)."""

    round: int
    leader: Role
    special_number: int
    hands: tuple[int, int]
    notes: int
    exchange: Exchange | None


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
class Deal:
    """Chance deals a round: each player's hand (bit masks)."""

    phantom: int
    christine: int


@dataclass(frozen=True, slots=True)
class ExchangeCards:
    """Both players give one card at the same time at the start of a round."""

    phantom: int
    christine: int


@dataclass(frozen=True, slots=True)
class SpecialNumber:
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


Action = Deal | ExchangeCards | SpecialNumber | PlayCard | SwapCards


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
    """

    def __init__(self, owners: int, suits: int, beginner: bool, balance: bool) -> None:
        self.owners = owners
        self.suits = suits
        self.beginner = beginner
        self.balance = balance
        self.phase_code = 0
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
        self.tracking = False
        self.swaps: list[SwapOutcome] = []
        self.last_trick: TrickOutcome | None = None

    @classmethod
    def start(cls, sheet: Sheet, rules: Rules = Rules(), tracking: bool = True) -> GameState:
        """A game about to be dealt, on ``sheet`` under ``rules``. With ``tracking``, each
        completed trick's :class:`TrickOutcome` is kept in :attr:`last_trick`."""
        state = cls(sheet.owner_bits, sheet.suit_bits, rules.beginner, rules.balance)
        state.tracking = tracking
        return state

    def copy(self) -> GameState:
        """An independent copy."""
        other = GameState(self.owners, self.suits, self.beginner, self.balance)
        other.phase_code = self.phase_code
        other.round_index = self.round_index
        other.phantom_hand = self.phantom_hand
        other.christine_hand = self.christine_hand
        other.notes = self.notes
        other.leader_code = self.leader_code
        other.turn_code = self.turn_code
        other.lead_card = self.lead_card
        other.follow_card = self.follow_card
        other.special_number = self.special_number
        other.number_choices = self.number_choices
        other.tricks_played = self.tricks_played
        other.pending_swap = self.pending_swap
        other.swap_after_follow = self.swap_after_follow
        other.special_in_trick = self.special_in_trick
        other.winner_code = self.winner_code
        other.ended_round = self.ended_round
        other.ended_trick = self.ended_trick
        other.last_lead = self.last_lead
        other.last_follow = self.last_follow
        other.last_verdict = self.last_verdict
        other.tracking = self.tracking
        other.swaps = list(self.swaps)
        other.last_trick = self.last_trick
        return other

    def assign(self, other: GameState) -> None:
        """Make this state a copy of ``other``, in place: a search keeps one state per ply
        and reuses it instead of allocating a copy per move. The list of swaps is copied
        only when either state tracks tricks."""
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
        if self.tracking or other.tracking:
            self.swaps = list(other.swaps)
        self.tracking = other.tracking
        self.last_trick = other.last_trick

    # -- reading the state -----------------------------------------------------------------

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
        notes = self.notes
        if notes == 0:
            return -1
        return (self.suits >> (2 * (notes - 1))) & 3

    def note_owner_code(self, note: int) -> int:
        """The owner (0 the Phantom, 1 Christine) of note ``note`` (1-12)."""
        return (self.owners >> (note - 1)) & 1

    def swap_due(self) -> int:
        """The size of the swap the game waits for (0 outside the swap phase)."""
        return self.pending_swap if self.phase_code == _SWAP else 0

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
        return playable(hand, -1 if self.lead_card < 0 else self.lead_card // 6)

    def number_options(self) -> tuple[int, ...]:
        """The special numbers that may be picked now."""
        if self.phase_code != _SPECIAL_NUMBER:
            return ()
        return tuple(
            number for number in range(1, DIE_FACES + 1) if self.number_choices >> number & 1
        )

    def legal_actions(self) -> list[Action]:
        """Every action that may be taken now (deals are chance's: not listed)."""
        phase = self.phase_code
        if phase == _EXCHANGE:
            return [
                ExchangeCards(mine, theirs)
                for mine in _cards_of(self.phantom_hand)
                for theirs in _cards_of(self.christine_hand)
            ]
        if phase == _SPECIAL_NUMBER:
            return [SpecialNumber(number) for number in self.number_options()]
        if phase == _PLAY:
            player = ROLES[self.turn_code]
            return [PlayCard(player, card) for card in _cards_of(self.legal_cards())]
        if phase == _SWAP:
            size = self.pending_swap
            return [
                SwapCards(mine, theirs)
                for mine in _subsets(self.phantom_hand, size)
                for theirs in _subsets(self.christine_hand, size)
            ]
        return []

    def apply(self, action: Action) -> GameState | Illegal:
        """The state after ``action``, or the illegal step (this state is unchanged)."""
        state = self.copy()
        if isinstance(action, PlayCard):
            problem = state.step_play(int(action.player), action.card)
        elif isinstance(action, SwapCards):
            problem = state.step_swap(action.phantom, action.christine)
        elif isinstance(action, SpecialNumber):
            problem = state.step_special_number(action.number)
        elif isinstance(action, ExchangeCards):
            problem = state.step_exchange(action.phantom, action.christine)
        elif isinstance(action, Deal):
            problem = state.step_deal(action.phantom, action.christine)
        else:
            raise TypeError(action)
        return state if problem is None else problem

    # -- the steps -------------------------------------------------------------------------

    def _out_of_phase(self) -> Illegal:
        """The problem of a deal or a card played when the game waits for something else."""
        if self.phase_code == _OVER:
            return _illegal(
                Code.AFTER_GAME_END, end_round=self.ended_round, end_trick=self.ended_trick
            )
        if self.phase_code == _SWAP:
            return _illegal(
                Code.MISSING_SWAP,
                card=self.follow_card if self.swap_after_follow else self.lead_card,
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
            return self._out_of_phase()
        if phantom & christine:
            return _illegal(Code.BAD_DEAL, overlap=phantom & christine)
        for role, hand in ((0, phantom), (1, christine)):
            if popcount(hand) != CARDS_PER_HAND or hand >> 24:
                return _illegal(
                    Code.BAD_DEAL, part=ROLE_KEYS[role], count=popcount(hand), expected=10
                )
        self.phantom_hand = phantom
        self.christine_hand = christine
        self.leader_code = leader_code(self.round_index)
        self.turn_code = self.leader_code
        self.tricks_played = 0
        if self.beginner:
            self.number_choices = ((1 << DIE_FACES) - 1) << 1
            self.phase_code = _SPECIAL_NUMBER
        else:
            self.phase_code = _EXCHANGE
        return None

    def step_exchange(self, phantom_card: int, christine_card: int) -> Illegal | None:
        """Both players give one card of their hand at the same time."""
        if self.phase_code != _EXCHANGE:
            if self.phase_code == _SPECIAL_NUMBER and self.beginner:
                return _illegal(Code.BAD_EXCHANGE, beginner=True, round=self.round_index + 1)
            return self._out_of_phase()
        for role, card, hand in (
            (0, phantom_card, self.phantom_hand),
            (1, christine_card, self.christine_hand),
        ):
            if not hand >> card & 1:
                return _illegal(
                    Code.BAD_EXCHANGE,
                    player=ROLES[role],
                    card=card,
                    hand=hand,
                    round=self.round_index + 1,
                )
        self.phantom_hand = self.phantom_hand & ~(1 << phantom_card) | 1 << christine_card
        self.christine_hand = self.christine_hand & ~(1 << christine_card) | 1 << phantom_card
        self.number_choices = (1 << (phantom_card % 6 + 1)) | (1 << (christine_card % 6 + 1))
        self.phase_code = _SPECIAL_NUMBER
        return None

    def step_special_number(self, number: int) -> Illegal | None:
        """The round's leader picks the special number (or the die shows it)."""
        if self.phase_code != _SPECIAL_NUMBER:
            return self._out_of_phase()
        if not 1 <= number <= DIE_FACES or not self.number_choices >> number & 1:
            return _illegal(
                Code.BAD_SPECIAL_NUMBER,
                number=number,
                round=self.round_index + 1,
                beginner=self.beginner,
                leader=ROLES[self.leader_code],
            )
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
            return self._out_of_phase()
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
            return _illegal(Code.CARD_NOT_HELD, player=ROLES[player], card=card, hand=hand)
        if not leading:
            lead_suit = self.lead_card // 6
            if not playable(hand, lead_suit) >> card & 1:
                return _illegal(
                    Code.REVOKE,
                    player=ROLES[player],
                    card=card,
                    held=hand & suit_mask(lead_suit),
                    lead_suit=SUITS[lead_suit],
                )
        hand &= ~(1 << card)
        if player:
            self.christine_hand = hand
        else:
            self.phantom_hand = hand
        if leading:
            self.lead_card = card
            if self.tracking:
                self.swaps = []
        else:
            self.follow_card = card
        if card % 6 + 1 == self.special_number:
            self.special_in_trick = True
            size = swap_size(self.phantom_hand, self.christine_hand)
            if size > 0:
                self.pending_swap = size
                self.swap_after_follow = not leading
                self.phase_code = _SWAP
                return None
        self._after_card(leading)
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
            return self._out_of_phase()
        size = self.pending_swap
        given = (phantom, christine)
        for role in (0, 1):
            if len(given[role]) < size:
                return _illegal(
                    Code.MISSING_SWAP,
                    player=ROLES[role],
                    count=len(given[role]),
                    size=size,
                    card=self._swap_card(),
                )
        for role in (0, 1):
            if len(given[role]) > size:
                return _illegal(
                    Code.UNEXPECTED_SWAP,
                    player=ROLES[role],
                    count=len(given[role]),
                    size=size,
                    card=self._swap_card(),
                )
        mask0 = 0
        mask1 = 0
        for role in (0, 1):
            hand = self.christine_hand if role else self.phantom_hand
            mask = 0
            for position, card in enumerate(given[role]):
                if not (0 <= card < 24 and hand >> card & 1):
                    return _illegal(
                        Code.CARD_NOT_HELD,
                        player=ROLES[role],
                        card=card,
                        position=position,
                        twice=bool(0 <= card < 24 and mask >> card & 1),
                        after=self._swap_card(),
                        hand=self.christine_hand if role else self.phantom_hand,
                        swap=True,
                    )
                hand &= ~(1 << card)
                mask |= 1 << card
            if role:
                mask1 = mask
            else:
                mask0 = mask
        self.phantom_hand = self.phantom_hand & ~mask0 | mask1
        self.christine_hand = self.christine_hand & ~mask1 | mask0
        if self.tracking:
            self.swaps.append(
                SwapOutcome(
                    "follow" if self.swap_after_follow else "lead", tuple(phantom), tuple(christine)
                )
            )
        self.pending_swap = 0
        self.phase_code = _PLAY
        self._after_card(not self.swap_after_follow)
        return None

    def step_swap_masks(self, phantom: int, christine: int) -> Illegal | None:
        """:meth:`step_swap` with each side's cards as a bit mask: the same checks and the
        same result, without building tuples (for searches). A state that tracks tricks,
        or a swap that is not legal, goes through :meth:`step_swap` itself."""
        size = self.pending_swap
        if (
            self.phase_code != _SWAP
            or self.tracking
            or phantom & ~self.phantom_hand
            or christine & ~self.christine_hand
            or popcount(phantom) != size
            or popcount(christine) != size
        ):
            return self.step_swap(tuple(_cards_of(phantom)), tuple(_cards_of(christine)))
        self.phantom_hand = self.phantom_hand & ~phantom | christine
        self.christine_hand = self.christine_hand & ~christine | phantom
        self.pending_swap = 0
        self.phase_code = _PLAY
        self._after_card(not self.swap_after_follow)
        return None

    def _swap_card(self) -> int:
        return self.follow_card if self.swap_after_follow else self.lead_card

    def _finish_trick(self) -> None:
        lead = self.lead_card
        follow = self.follow_card
        leader = self.leader_code
        notes = self.notes
        super_trump = -1 if notes == 0 else (self.suits >> (2 * (notes - 1))) & 3
        verdict = judge(lead, follow, super_trump)
        winner = leader if verdict & 1 else 1 - leader
        note_owner = (self.owners >> notes) & 1 if notes < _NOTES else 0
        in_order = winner == note_owner
        special = self.special_in_trick
        after = notes_after(notes, in_order, special, self.balance)
        self.notes = after
        self.tricks_played += 1
        if self.tracking:
            outcome = TrickOutcome.__new__(TrickOutcome)
            outcome.round = self.round_index + 1
            outcome.trick = self.tricks_played
            outcome.leader_code = leader
            outcome.lead = lead
            outcome.follow = follow
            outcome.super_trump_code = super_trump
            outcome.verdict = verdict
            outcome.note_owner_code = note_owner
            outcome.special = special
            outcome.swaps = tuple(self.swaps)
            outcome.notes_before = notes
            outcome.notes_after = after
            outcome.phantom_after = self.phantom_hand
            outcome.christine_after = self.christine_hand
            outcome.super_trump_after_code = (
                -1 if after == 0 else (self.suits >> (2 * (after - 1))) & 3
            )
            self.last_trick = outcome
        self.last_lead = lead
        self.last_follow = follow
        self.last_verdict = verdict
        self.lead_card = _NO_CARD
        self.follow_card = _NO_CARD
        self.special_in_trick = False
        self.leader_code = winner
        self.turn_code = winner
        decided = game_winner(self.round_index, after, self.tricks_played == _TRICKS)
        if decided != _NOBODY:
            self._end(decided)
        elif self.tricks_played == _TRICKS:
            self.round_index += 1
            self.phase_code = _DEAL

    def _end(self, winner: int) -> None:
        self.winner_code = winner
        self.ended_round = self.round_index + 1
        self.ended_trick = self.tricks_played
        self.phase_code = _OVER


def _cards_of(mask: int) -> list[int]:
    return [card for card in range(24) if mask >> card & 1]


def _subsets(mask: int, size: int) -> list[tuple[int, ...]]:
    cards = _cards_of(mask)
    if size == 1:
        return [(card,) for card in cards]
    return [(a, b) for index, a in enumerate(cards) for b in cards[index + 1 :]]


# -- the replay of a record -----------------------------------------------------------------


class Replay:
    """What the replay of one record found.

    ``problems`` are the engine's findings as data (:class:`~phantom_log.rules.problems.Illegal`,
    with pointer, round and trick). ``result`` is set when the replay got to the end of the
    record (an unfinished game has a result whose winner is ``None``); it is ``None`` when
    an illegal step stopped the replay. ``ended_at`` is the (round, trick) where the game
    was decided; ``final`` the state where the replay stopped.
    """

    def __init__(self, sheet: Sheet, rules: Rules) -> None:
        self.sheet = sheet
        self.rules = rules
        self.rounds: list[RoundStart] = []
        self.tricks: list[TrickOutcome] = []
        self.problems: list[Illegal] = []
        self.result: Result | None = None
        self.ended_at: tuple[int, int] | None = None
        self.final: GameState | None = None
        #: The notes completed at the end of each round that ended (its last trick
        #: played, or the game won in it).
        self.round_ends: list[int] = []
        #: With ``replay(..., decisions=True)``: every decision a player made, in order,
        #: as the state just before it and the action taken (the exchange, the special
        #: number when the leader picks it, each card played, each swap), up to the
        #: first illegal step; else ``None``.
        self.decisions: list[tuple[GameState, Action]] | None = None

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return all(problem.is_warning for problem in self.problems)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Replay) and (
            self.sheet,
            self.rules,
            self.rounds,
            self.tricks,
            self.problems,
            self.result,
            self.ended_at,
        ) == (
            other.sheet,
            other.rules,
            other.rounds,
            other.tricks,
            other.problems,
            other.result,
            other.ended_at,
        )

    def __hash__(self) -> int:
        raise TypeError(type(self).__name__)


# The four combinations of the optional rules, made once (records name them by flags).
_RULES: Final = {
    (beginner, balance): Rules(beginner, balance)
    for beginner in (False, True)
    for balance in (False, True)
}


class SheetProblems(ValueError):
    """A record whose sheet is unknown or breaks the sheet rules: nothing to replay."""

    def __init__(self, problems: list[Illegal]) -> None:
        super().__init__(", ".join(problem.code for problem in problems))
        self.problems = problems


class _Stop(Exception):
    """Ends a replay at its first illegal step."""

    def __init__(self, problem: Illegal) -> None:
        super().__init__(problem.code)
        self.problem = problem


def _cards(codes: list[Any]) -> list[int]:
    return [_card_of(code) for code in codes]


def _card_of(code: Any) -> int:
    """The card of a card code such as ``"Ma5"`` (``KeyError`` for anything else), read
    from its three characters: every card of every record passes here, and a dict lookup
    would hash each fresh string."""
    if type(code) is str and len(code) == 3:
        text = code
        first = ord(text[0])
        second = ord(text[1])
        number = ord(text[2]) - 49  # "1" is 49
        if first < 128 and second < 128 and 0 <= number < _NUMBERS:
            suit = _SUIT_OF_LETTERS[first * 128 + second] - 1
            if suit >= 0:
                return suit * _NUMBERS + number
    return CARD_BY_CODE[code]


def _suit_table() -> bytes:
    table = bytearray(128 * 128)
    for suit, letters in enumerate(SUIT_CODES):
        table[ord(letters[0]) * 128 + ord(letters[1])] = suit + 1
    return bytes(table)


# The suit of a card code's two letters (both ASCII, first * 128 + second), plus one; 0
# for two letters that are no suit's code.
_SUIT_OF_LETTERS = _suit_table()
_NUMBERS = NUMBERS_PER_SUIT
# The four cards showing a 1, one a suit (shifted to show another number).
_ONES = sum(1 << (suit * NUMBERS_PER_SUIT) for suit in range(len(SUITS)))


def record_sheet(value: Any, sheets: Mapping[str, Sheet] | None = None) -> Sheet | list[Illegal]:
    """The sheet a record's ``sheet`` value names or carries, or its problems."""
    if isinstance(value, str):
        known = BUILTIN_SHEETS if sheets is None else sheets
        sheet = known.get(value)
        if sheet is None:
            return [
                Illegal(
                    Code.UNKNOWN_SHEET, {"name": value, "known": tuple(sorted(known))}, "/sheet"
                )
            ]
        return sheet
    return sheet_from_json(value)


def replay(
    record: Mapping[str, Any],
    sheets: Mapping[str, Sheet] | None = None,
    trace: bool = True,
    decisions: bool = False,
) -> Replay:
    """Replay a record that passed the schema check, by the rules.

    Raises :class:`SheetProblems` when the record's sheet is unknown or broken (there is
    nothing to replay); never raises for anything else such a record can hold. With
    ``trace``, the replay keeps
    each round's start and each completed trick (for annotations, pictures and tables);
    without, only the problems and the result (for verify). With ``decisions``, the
    replay also keeps each decision a player made, in :attr:`Replay.decisions` (for the
    analysis).
    """
    rules_value = record.get("rules")
    rules = _RULES[
        (bool(rules_value.get("beginner", False)), bool(rules_value.get("balance", False)))
        if rules_value
        else (False, False)
    ]
    sheet = record_sheet(record["sheet"], sheets)
    if isinstance(sheet, list):
        raise SheetProblems(sheet)
    out = Replay(sheet, rules)
    if decisions:
        out.decisions = []
    state = GameState.start(sheet, rules, trace)
    try:
        _fold(record if type(record) is dict else dict(record), state, out, trace)
    except _Stop as stop:
        out.problems.append(stop.problem)
    out.final = state
    return out


def _at(problem: Illegal, pointer: str, round_no: int | None, trick_no: int | None) -> _Stop:
    return _Stop(problem.located(pointer, round_no, trick_no))


def _fold(record: Mapping[str, Any], state: GameState, out: Replay, trace: bool) -> None:
    # Pointers are written only for a problem: the replay of a valid record makes none.
    rounds = record["rounds"]
    last_round = len(rounds) - 1
    for index, data in enumerate(rounds):
        round_no = index + 1
        if state.phase_code == _OVER:
            problem = state._out_of_phase().with_facts(what="round", round=round_no)
            raise _at(problem, f"/rounds/{index}", round_no, None)
        if index >= ROUNDS_PER_GAME:  # the schema allows no third round
            raise _at(
                Illegal(Code.SCHEMA, {"rounds": len(rounds)}), f"/rounds/{index}", round_no, None
            )
        _deal(state, data, index)
        _round_start(state, data, out, index, trace)
        tricks = data["tricks"]
        last_trick = len(tricks) - 1
        for trick_index, trick in enumerate(tricks):
            trick_no = trick_index + 1
            if state.phase_code == _OVER:
                problem = state._out_of_phase().with_facts(
                    what="trick", round=round_no, trick=trick_no
                )
                raise _at(problem, _trick_pointer(index, trick_index), round_no, trick_no)
            if trick_index >= TRICKS_PER_ROUND:  # the schema allows no eleventh trick
                raise _at(
                    Illegal(Code.SCHEMA, {"tricks": len(tricks)}),
                    _trick_pointer(index, trick_index),
                    round_no,
                    trick_no,
                )
            is_last = index == last_round and trick_index == last_trick
            _trick(state, trick, out, index, trick_index, is_last, trace)
    _finish(record, state, out)


def _trick_pointer(index: int, trick_index: int) -> str:
    return f"/rounds/{index}/tricks/{trick_index}"


_DEAL_PARTS: Final = (("phantom", CARDS_PER_HAND), ("christine", CARDS_PER_HAND))
_DEAL_PARTS_ASIDE: Final = (*_DEAL_PARTS, ("aside", CARDS_ASIDE))


def _deal(state: GameState, data: Mapping[str, Any], index: int) -> None:
    round_no = index + 1
    at = f"/rounds/{index}"
    if state.phase_code != _DEAL:
        # A round before this one stopped short of its tenth trick.
        raise _at(
            Illegal(
                Code.INCOMPLETE_ROUND,
                {"round": index, "played": state.tricks_played, "next": round_no},
            ),
            f"/rounds/{index - 1}/tricks",
            index,
            None,
        )
    deal = data["deal"]
    seen = 0
    hands = [0, 0, 0]
    parts = _DEAL_PARTS_ASIDE if "aside" in deal else _DEAL_PARTS
    for part_index, (key, expected) in enumerate(parts):
        codes = deal[key]
        if len(codes) != expected:
            raise _at(
                Illegal(
                    Code.BAD_DEAL,
                    {"part": key, "count": len(codes), "expected": expected, "round": round_no},
                ),
                f"/rounds/{index}/deal/{key}",
                round_no,
                None,
            )
        hand = 0
        for position, code in enumerate(codes):
            card = _card_of(code)
            if seen >> card & 1:
                first = key if hand >> card & 1 else _holder(hands, card)
                raise _at(
                    Illegal(
                        Code.BAD_DEAL,
                        {"card": card, "first": first, "part": key, "round": round_no},
                    ),
                    f"/rounds/{index}/deal/{key}/{position}",
                    round_no,
                    None,
                )
            seen |= 1 << card
            hand |= 1 << card
        hands[part_index] = hand
    problem = state.step_deal(hands[0], hands[1])
    if problem is not None:  # only reachable through a state built by hand
        raise _at(problem, f"{at}/deal", round_no, None)


def _holder(hands: list[int], card: int) -> str:
    """Which part of a deal (read so far) holds a card."""
    for key, hand in zip(("phantom", "christine", "aside"), hands, strict=True):
        if hand >> card & 1:
            return key
    return "aside"


def _round_start(
    state: GameState, data: Mapping[str, Any], out: Replay, index: int, trace: bool
) -> None:
    round_no = index + 1
    decisions = out.decisions
    exchange = data.get("exchange")
    if exchange is not None:
        phantom_card = _card_of(exchange["phantom"])
        christine_card = _card_of(exchange["christine"])
        before = None if decisions is None else state.copy()
        problem = state.step_exchange(phantom_card, christine_card)
        if problem is not None:
            player = problem.facts.get("player")
            pointer = (
                f"/rounds/{index}/exchange"
                if player is None
                else f"/rounds/{index}/exchange/{player.key}"
            )
            raise _at(problem, pointer, round_no, None)
        if decisions is not None and before is not None:
            decisions.append((before, ExchangeCards(phantom_card, christine_card)))
    before = None if decisions is None or state.beginner else state.copy()
    problem = state.step_special_number(int(data["special_number"]))
    if problem is not None:
        if problem.code is Code.BAD_SPECIAL_NUMBER and exchange is not None:
            problem = problem.with_facts(exchange=Exchange(phantom_card, christine_card))
        pointer = (
            f"/rounds/{index}"
            if problem.code is Code.BAD_EXCHANGE
            else f"/rounds/{index}/special_number"
        )
        raise _at(problem, pointer, round_no, None)
    if decisions is not None and before is not None:  # not the die's (beginner rule)
        decisions.append((before, SpecialNumber(state.special_number)))
    if trace:
        out.rounds.append(
            RoundStart(
                round_no,
                ROLES[state.leader_code],
                state.special_number,
                (state.phantom_hand, state.christine_hand),
                state.notes,
                None if exchange is None else Exchange(phantom_card, christine_card),
            )
        )


def _trick(
    state: GameState,
    trick: Mapping[str, Any],
    out: Replay,
    index: int,
    trick_index: int,
    is_last: bool,
    trace: bool,
) -> None:
    plays = trick["plays"]
    round_no = index + 1
    trick_no = trick_index + 1
    _play(state, plays[0], index, trick_index, 0, out.decisions)
    claimed = trick.get("winner")
    if len(plays) < 2:
        if not is_last:
            raise _at(
                Illegal(Code.INCOMPLETE_TRICK, {"round": round_no, "trick": trick_no}),
                _trick_pointer(index, trick_index) + "/plays",
                round_no,
                trick_no,
            )
        if claimed is not None:
            out.problems.append(
                Illegal(
                    Code.WINNER_MISMATCH,
                    {
                        "claimed": _role(claimed),
                        "one_card": True,
                        "round": round_no,
                        "trick": trick_no,
                    },
                    _trick_pointer(index, trick_index) + "/winner",
                    round_no,
                    trick_no,
                )
            )
        return
    _play(state, plays[1], index, trick_index, 1, out.decisions)
    if trace and state.last_trick is not None:
        out.tricks.append(state.last_trick)
    if state.phase_code == _DEAL or state.phase_code == _OVER:
        out.round_ends.append(state.notes)
    if claimed is not None:
        winner = state.leader_code  # the winner leads the next trick
        if _role(claimed) is not ROLES[winner]:
            out.problems.append(
                Illegal(
                    Code.WINNER_MISMATCH,
                    {
                        "claimed": _role(claimed),
                        "winner": ROLES[winner],
                        "lead": state.last_lead,
                        "follow": state.last_follow,
                        "reason": REASONS[state.last_verdict >> 1],
                        "round": round_no,
                        "trick": trick_no,
                    },
                    _trick_pointer(index, trick_index) + "/winner",
                    round_no,
                    trick_no,
                )
            )


def _role(key: str) -> Role:
    return ROLES[0] if key == "phantom" else ROLES[1]


def _play(
    state: GameState,
    play: Mapping[str, Any],
    index: int,
    trick_index: int,
    position: int,
    decisions: list[tuple[GameState, Action]] | None,
) -> None:
    role = play["player"]
    player = 0 if role == "phantom" else 1
    card = _card_of(play["card"])
    before = None if decisions is None else state.copy()
    problem = state.step_play(player, card)
    if problem is not None:
        field = "player" if problem.code is Code.WRONG_PLAYER else "card"
        raise _at(
            problem,
            f"{_trick_pointer(index, trick_index)}/plays/{position}/{field}",
            index + 1,
            trick_index + 1,
        )
    if decisions is not None and before is not None:
        decisions.append((before, PlayCard(ROLES[player], card)))
    swap = play.get("swap")
    if state.phase_code == _SWAP:
        if swap is None:
            at = f"{_trick_pointer(index, trick_index)}/plays/{position}"
            raise _at(state._out_of_phase(), at, index + 1, trick_index + 1)
        phantom = swap.get("phantom")
        christine = swap.get("christine")
        phantom = () if phantom is None else tuple(_cards(phantom))
        christine = () if christine is None else tuple(_cards(christine))
        before = None if decisions is None else state.copy()
        problem = state.step_swap(phantom, christine)
        if problem is not None:
            at = f"{_trick_pointer(index, trick_index)}/plays/{position}"
            key = problem.facts["player"].key
            if problem.code is Code.CARD_NOT_HELD:
                pointer = f"{at}/swap/{key}/{problem.facts['position']}"
            elif swap.get(key) is None:
                pointer = f"{at}/swap"
            else:
                pointer = f"{at}/swap/{key}"
            raise _at(problem, pointer, index + 1, trick_index + 1)
        if decisions is not None and before is not None:
            decisions.append((before, SwapCards(phantom, christine)))
    elif swap and (swap.get("phantom") or swap.get("christine")):
        problem = _illegal(
            Code.UNEXPECTED_SWAP,
            card=card,
            special_number=state.special_number,
            no_swap_possible=card % 6 + 1 == state.special_number,
            empty=ROLES[0] if not state.phantom_hand else ROLES[1],
        )
        raise _at(
            problem,
            f"{_trick_pointer(index, trick_index)}/plays/{position}/swap",
            index + 1,
            trick_index + 1,
        )


def _finish(record: Mapping[str, Any], state: GameState, out: Replay) -> None:
    winner = state.winner if state.phase_code == _OVER else None
    if winner is not None:
        out.ended_at = (state.ended_round, state.ended_trick)
    out.result = result = Result(winner, state.notes)
    rounds = record["rounds"]
    if winner is None:
        tricks = len(rounds[-1]["tricks"])
        out.problems.append(
            Illegal(
                Code.UNFINISHED,
                {"rounds": len(rounds), "tricks": tricks, "notes": state.notes},
                "/rounds",
                len(rounds),
                tricks or None,
            )
        )
    claim = record.get("result")
    if claim is None:
        return
    claimed_winner = claim["winner"]
    claimed = None if claimed_winner is None else _role(claimed_winner)
    if claimed is not result.winner:
        out.problems.append(
            Illegal(
                Code.WINNER_MISMATCH,
                {"claimed": claimed, "winner": result.winner, "result": True},
                "/result/winner",
            )
        )
    if int(claim["notes"]) != result.notes:
        out.problems.append(
            Illegal(
                Code.NOTES_MISMATCH,
                {"claimed": int(claim["notes"]), "notes": result.notes},
                "/result/notes",
            )
        )
