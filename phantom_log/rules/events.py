"""What happened in a game: the events the state machine emits as it takes each action.

Each step of :class:`~phantom_log.rules.engine.GameState` that tracks events says what it
did with one or more of these: the deal, the exchange (who received what), the start of a
round's play (the special number and how it was chosen), each card played, each swap
(who received what), each trick's end (the winner and why, the note it was about, whether
it was in order and special, the notes before and after and *why* they changed), the end
of a round and the end of the game. They carry every fact a report needs, so that no
consumer (verify, annotate, show, the replay page, the tables, the tournament checks, the
simulator, the analysis) works one out again.

Cards are ints 0-23, hands bit masks, roles and suits ints; each event also reads them
back as :class:`~phantom_log.rules.cards.Role`, :class:`~phantom_log.rules.cards.Suit` and
:class:`~phantom_log.rules.engine.Reason` through its properties. No English here: wording
an event is the views' job.

Each event is a dataclass whose annotated fields are its facts, declared once: its
constructor, equality, hash and repr (of the facts not marked ``repr=False``) follow from
them, and so do the C types Cython compiles this module with (``events.pxd``, which
:mod:`.events_pxd` writes from these classes when the package is built): in the compiled
build each event is a C struct with read-only fields. The engine makes an event without
its constructor (``X.__new__(X)``, then each fact set: the fastest way in both builds), so
an event is not frozen; it hashes by its facts all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Final

from .cards import Role, Suit, card_suit_index

ROLES: Final = (Role.PHANTOM, Role.CHRISTINE)
SUITS: Final = (Suit.MIRROR, Suit.CHANDELIER, Suit.RING, Suit.MASK)
#: No role (a turn nobody has, the die that picks a special number), no suit (no super
#: trump), no card: -1 in every compact field.
NONE: Final = -1


class Reason(StrEnum):
    """Why a trick was won: by the higher number in one suit, or by the winning card's class."""

    HIGHER_NUMBER = "higher-number"
    SUPER_TRUMP = "super-trump"
    TRUMP = "trump"
    LEAD_SUIT = "lead-suit"


REASONS: Final = tuple(Reason)


def verdict_reason_code(verdict: int) -> int:
    """Why the trick of a verdict (:func:`~phantom_log.rules.engine.judge`'s) was won, as
    the index of its :class:`Reason` in :data:`REASONS`."""
    return verdict >> 1


def verdict_reason(verdict: int) -> Reason:
    """Why the trick of a verdict (:func:`~phantom_log.rules.engine.judge`'s) was won."""
    return REASONS[verdict_reason_code(verdict)]


def leader_wins(verdict: int) -> bool:
    """True when a verdict (:func:`~phantom_log.rules.engine.judge`'s) gives the trick to
    the leader."""
    return bool(verdict & 1)


def trick_winner(leader_code: int, verdict: int) -> int:
    """Who won a trick led by ``leader_code`` with that verdict, as an int (0 the Phantom,
    1 Christine)."""
    return leader_code if leader_wins(verdict) else 1 - leader_code


def trick_in_order(leader_code: int, verdict: int, note_owner_code: int) -> bool:
    """True when the winner of such a trick owns the note it was about."""
    return trick_winner(leader_code, verdict) == note_owner_code


class NoteChange(IntEnum):
    """Why the notes changed as they did at a trick (RULES: "Notes"), one value a branch
    of the rule: a trick without a card of the special number completes its note when in
    order (``COMPLETED``) and leaves the notes when not (``UNCHANGED``); one with such a
    card completes an extra note when in order (``EXTRA``; ``EXTRA_CAPPED`` when the sheet
    then holds fewer than two more), and removes notes when not (``REMOVED``;
    ``REMOVED_FLOORED`` when fewer notes were completed than the rule removes)."""

    COMPLETED = 0
    UNCHANGED = 1
    EXTRA = 2
    EXTRA_CAPPED = 3
    REMOVED = 4
    REMOVED_FLOORED = 5


NOTE_CHANGES: Final = tuple(NoteChange)
# C copies of the branches the events read (events.pxd types them).
_EXTRA = int(NoteChange.EXTRA)
_REMOVED = int(NoteChange.REMOVED)
_REMOVED_FLOORED = int(NoteChange.REMOVED_FLOORED)


def _role(code: int) -> Role | None:
    return None if code < 0 else ROLES[code]


def _suit(code: int) -> Suit | None:
    return None if code < 0 else SUITS[code]


@dataclass(unsafe_hash=True)
class Dealt:
    """Chance dealt a round: each player's ten cards (bit masks)."""

    round: int
    phantom_hand: int = field(repr=False)
    christine_hand: int = field(repr=False)

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands dealt, the Phantom's first."""
        return (self.phantom_hand, self.christine_hand)


@dataclass(unsafe_hash=True)
class Exchanged:
    """Both players gave one card at once at the start of a round. ``phantom_gave`` is
    the card the Phantom gave, which Christine received, and the other way round; the
    hands are those after the exchange."""

    round: int
    phantom_gave: int
    christine_gave: int
    phantom_hand: int = field(repr=False)
    christine_hand: int = field(repr=False)

    @property
    def phantom_received(self) -> int:
        """The card the Phantom received: the one Christine gave."""
        return self.christine_gave

    @property
    def christine_received(self) -> int:
        """The card Christine received: the one the Phantom gave."""
        return self.phantom_gave

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands after the exchange, the Phantom's first."""
        return (self.phantom_hand, self.christine_hand)


@dataclass(unsafe_hash=True)
class RoundStarted:
    """A round's play begins: its special number is set. ``chooser_code`` is the role
    that picked it (the round's leader), or -1 when the die showed it (the beginner
    rule); ``choices`` the numbers that could be taken. The hands are those play starts
    with, ``notes`` the notes carried in, ``super_trump_code`` the super trump they give,
    ``exchange`` the round's exchange (``None`` under the beginner rule)."""

    round: int
    leader_code: int = field(repr=False)
    special_number: int
    chooser_code: int = field(repr=False)
    choices: tuple[int, ...] = field(repr=False)
    phantom_hand: int = field(repr=False)
    christine_hand: int = field(repr=False)
    notes: int = field(repr=False)
    super_trump_code: int = field(repr=False)
    exchange: Exchanged | None = field(repr=False)

    @property
    def leader(self) -> Role:
        """Who leads the round's first trick."""
        return ROLES[self.leader_code]

    @property
    def chooser(self) -> Role | None:
        """Who picked the special number (``None``: the die showed it)."""
        return _role(self.chooser_code)

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands as play begins, the Phantom's first."""
        return (self.phantom_hand, self.christine_hand)

    @property
    def super_trump(self) -> Suit | None:
        """The super trump the notes carried in give (``None`` with none completed)."""
        return _suit(self.super_trump_code)


@dataclass(unsafe_hash=True)
class CardPlayed:
    """A card was played: by whom, whether it led the trick, whether it shows the
    special number and the size of the swap it calls (0: none, also when a special card
    finds a hand empty). The hands are those after the card; ``next_code`` is who plays
    next (-1 when a swap is due or no card is: the round or the game is over)."""

    round: int
    trick: int
    player_code: int = field(repr=False)
    card: int
    leading: bool = field(repr=False)
    special: bool = field(repr=False)
    swap_due: int = field(repr=False)
    phantom_hand: int = field(repr=False)
    christine_hand: int = field(repr=False)
    next_code: int = field(repr=False)

    @property
    def player(self) -> Role:
        """Who played the card."""
        return ROLES[self.player_code]

    @property
    def next_player(self) -> Role | None:
        """Who plays next (``None`` when a swap is due or no card is)."""
        return _role(self.next_code)

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands after the card, the Phantom's first."""
        return (self.phantom_hand, self.christine_hand)


@dataclass(unsafe_hash=True)
class CardsSwapped:
    """A swap was made, after the ``lead`` or the ``follow`` card (``card``, which shows
    the special number): the cards each side gave (in the order given), and so received
    the other's. The hands are those after the swap; ``next_code`` is who plays next (-1
    when the swap ended the trick's cards: the trick is judged)."""

    round: int
    trick: int
    after_follow: bool
    card: int
    phantom_gave: tuple[int, ...]
    christine_gave: tuple[int, ...]
    phantom_hand: int
    christine_hand: int
    next_code: int

    @property
    def after(self) -> str:
        """After which card of the trick the swap came: ``"lead"`` or ``"follow"``."""
        return "follow" if self.after_follow else "lead"

    @property
    def phantom_received(self) -> tuple[int, ...]:
        """The cards the Phantom received: those Christine gave."""
        return self.christine_gave

    @property
    def christine_received(self) -> tuple[int, ...]:
        """The cards Christine received: those the Phantom gave."""
        return self.phantom_gave

    @property
    def size(self) -> int:
        """How many cards each side gave."""
        return len(self.phantom_gave)

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands after the swap, the Phantom's first."""
        return (self.phantom_hand, self.christine_hand)

    @property
    def next_player(self) -> Role | None:
        """Who plays next (``None`` when the trick is judged)."""
        return _role(self.next_code)

    def __repr__(self) -> str:
        return (
            f"CardsSwapped(round={self.round}, trick={self.trick}, after={self.after!r}, "
            f"phantom_gave={self.phantom_gave!r}, christine_gave={self.christine_gave!r})"
        )


@dataclass(unsafe_hash=True)
class TrickEnded:
    """A trick was judged: its cards, the super trump in force (read before it was
    judged), the verdict (``reason * 2``, plus 1 when the leader's card won), the owner
    of the note it was about (who had to win for it to be in order), whether a card of
    the special number was in it, its swaps (:class:`CardsSwapped`), the notes before
    and after and why they changed (:class:`NoteChange`, with ``penalty``, the notes the
    rules remove for an out-of-order special trick), the hands once it is over and the
    super trump the notes after it give. Roles, suits and reasons come back as enums
    through the properties; the compact fields are named ``*_code``."""

    round: int
    trick: int
    leader_code: int
    lead: int
    follow: int
    super_trump_code: int
    verdict: int
    note_owner_code: int
    special: bool
    swaps: tuple[CardsSwapped, ...]
    notes_before: int
    notes_after: int
    change: int
    penalty: int
    phantom_hand: int
    christine_hand: int
    super_trump_after_code: int

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
        return trick_winner(self.leader_code, self.verdict)

    @property
    def winner(self) -> Role:
        """Who won the trick."""
        return ROLES[self.winner_code]

    @property
    def leader_won(self) -> bool:
        """True when the leader's card won."""
        return leader_wins(self.verdict)

    @property
    def winning_card(self) -> int:
        """The card that won the trick."""
        return self.lead if leader_wins(self.verdict) else self.follow

    @property
    def losing_card(self) -> int:
        """The card that lost it."""
        return self.follow if leader_wins(self.verdict) else self.lead

    @property
    def reason(self) -> Reason:
        """Why the winner won."""
        return verdict_reason(self.verdict)

    @property
    def note_owner(self) -> Role:
        """The owner of the note the trick was about: who had to win for it to be in order."""
        return ROLES[self.note_owner_code]

    @property
    def note(self) -> int:
        """The note the trick was about: the one after those completed before it."""
        return self.notes_before + 1

    @property
    def in_order(self) -> bool:
        """True when the winner owns the note the trick was about."""
        return trick_in_order(self.leader_code, self.verdict, self.note_owner_code)

    @property
    def lead_suit(self) -> Suit:
        """The suit of the leader's card."""
        return SUITS[card_suit_index(self.lead)]

    @property
    def super_trump(self) -> Suit | None:
        """The super trump in force for the trick (read before it was judged)."""
        return _suit(self.super_trump_code)

    @property
    def super_trump_after(self) -> Suit | None:
        """The super trump the notes after the trick give."""
        return _suit(self.super_trump_after_code)

    @property
    def note_change(self) -> NoteChange:
        """Why the notes changed as they did."""
        return NOTE_CHANGES[self.change]

    @property
    def notes_added(self) -> int:
        """The notes the trick completed (0 when it removed some or none)."""
        return max(0, self.notes_after - self.notes_before)

    @property
    def notes_removed(self) -> int:
        """The notes the trick removed (0 when it completed some or none)."""
        return max(0, self.notes_before - self.notes_after)

    @property
    def notes_added_by_special(self) -> int:
        """The notes the special card added beyond the trick's own (the extra note of an
        in-order special trick, none when the sheet was capped)."""
        return 1 if self.change == _EXTRA else 0

    @property
    def notes_removed_by_special(self) -> int:
        """The notes the special card removed (an out-of-order special trick)."""
        if self.change == _REMOVED or self.change == _REMOVED_FLOORED:
            return self.notes_before - self.notes_after
        return 0

    @property
    def hands(self) -> tuple[int, int]:
        """Both hands once the trick is over (bit masks, the Phantom's first)."""
        return (self.phantom_hand, self.christine_hand)

    def __repr__(self) -> str:
        return f"TrickEnded(round={self.round}, trick={self.trick}, winner={self.winner.key})"


@dataclass(unsafe_hash=True)
class RoundEnded:
    """A round ended: after its tenth trick, or at the trick that completed the sheet.
    ``notes`` are the notes completed then (carried into the next round, if any),
    ``tricks`` the tricks the round played."""

    round: int
    notes: int
    tricks: int = field(repr=False)


@dataclass(unsafe_hash=True)
class GameEnded:
    """The game was decided, at ``trick`` of ``round``: the winner, and the notes then
    completed (12 when the Phantom completed the sheet)."""

    winner_code: int
    notes: int
    round: int
    trick: int

    @property
    def winner(self) -> Role:
        """Who won the game."""
        return ROLES[self.winner_code]

    @property
    def ended_at(self) -> tuple[int, int]:
        """Where the game was decided: ``(round, trick)``."""
        return (self.round, self.trick)

    def __repr__(self) -> str:
        return f"GameEnded(winner={self.winner.key}, notes={self.notes})"


#: Any event of a game.
Event = (
    Dealt
    | Exchanged
    | RoundStarted
    | CardPlayed
    | CardsSwapped
    | TrickEnded
    | RoundEnded
    | GameEnded
)
