"""The rules of RULES.md, as a pure replay of a :class:`~phantom_log.game.Game`.

No I/O, no printing, no global state: :func:`replay` takes a game and returns what
happened (each completed trick's outcome, the state at each round's start), the problems
found, and the result. The replay stops at the first illegal move, since the state after
it is undefined; claims that disagree with the replay (``winner-mismatch``,
``notes-mismatch``) are reported and the replay goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from .cards import (
    CARD_CODES,
    DECK_SIZE,
    Role,
    Suit,
    card_number,
    card_suit,
    hand_codes,
    hand_size,
)
from .game import Exchange, Game, Play, Round, Rules, Trick
from .problems import Code, Problem, pointer
from .sheets import NOTES_PER_SHEET, Sheet

TRICKS_PER_ROUND: Final = 10
ROUNDS_PER_GAME: Final = 2
CARDS_PER_HAND: Final = 10
CARDS_ASIDE: Final = 4
SWAP_SIZE: Final = 2


class Reason(StrEnum):
    """Why a trick was won: by the higher number in one suit, or by the winning card's class."""

    HIGHER_NUMBER = "higher-number"
    SUPER_TRUMP = "super-trump"
    TRUMP = "trump"
    LEAD_SUIT = "lead-suit"


# Card classes in a different-suit trick, strongest last; "other" can never win.
_OTHER, _LEAD_SUIT, _TRUMP, _SUPER_TRUMP = range(4)
_REASON_OF_CLASS: Final = {
    _LEAD_SUIT: Reason.LEAD_SUIT,
    _TRUMP: Reason.TRUMP,
    _SUPER_TRUMP: Reason.SUPER_TRUMP,
}


def judge_trick(lead: int, follow: int, super_trump: Suit | None) -> tuple[bool, Reason]:
    """Who wins a trick: ``(True, reason)`` when the leader's card wins.

    Same suit: the higher number wins. Different suits: the stronger class wins (super
    trump, then Mask when Mask is not the super trump, then the lead suit); the leader's
    card is always of the lead suit, so a different-suit trick never ties.
    """
    lead_suit = card_suit(lead)
    follow_suit = card_suit(follow)
    if lead_suit == follow_suit:
        return lead > follow, Reason.HIGHER_NUMBER

    def card_class(suit: Suit) -> int:
        if suit == super_trump:
            return _SUPER_TRUMP
        if suit == Suit.MASK:
            return _TRUMP
        return _LEAD_SUIT if suit == lead_suit else _OTHER

    lead_class = card_class(lead_suit)
    follow_class = card_class(follow_suit)
    if follow_class > lead_class:
        return False, _REASON_OF_CLASS[follow_class]
    return True, _REASON_OF_CLASS[lead_class]


def notes_after_trick(notes_before: int, in_order: bool, special: bool, rules: Rules) -> int:
    """The notes completed after a trick (RULES.md, "Notes")."""
    if not special:
        return notes_before + 1 if in_order else notes_before
    if in_order:
        return min(NOTES_PER_SHEET, notes_before + 2)
    return max(0, notes_before - (1 if rules.balance else 2))


def legal_cards(hand: int, lead_suit: Suit | None) -> int:
    """The cards of a hand (bit mask) that may be played: any card to lead
    (``lead_suit`` ``None``); to follow, the cards of the lead suit if the hand holds any,
    otherwise any card."""
    if lead_suit is None:
        return hand
    follow_suit_required = hand & lead_suit.mask
    return follow_suit_required or hand


def round_leader(round_index: int) -> Role:
    """Who leads the first trick of a round (index from 0): the Phantom, then Christine."""
    return Role.PHANTOM if round_index == 0 else Role.CHRISTINE


def swap_size(phantom_hand: int, christine_hand: int) -> int:
    """How many cards each player gives in a swap: 2, 1 when either holds only one card,
    0 when either holds none."""
    return min(SWAP_SIZE, hand_size(phantom_hand), hand_size(christine_hand))


@dataclass(frozen=True, slots=True)
class SwapOutcome:
    """A swap that happened: after the ``lead`` or the ``follow`` card, who gave what."""

    after: str
    phantom: tuple[int, ...]
    christine: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        """As FORMAT.md's annotations write it."""
        return {
            "after": self.after,
            "phantom": [CARD_CODES[card] for card in self.phantom],
            "christine": [CARD_CODES[card] for card in self.christine],
        }


@dataclass(frozen=True, slots=True)
class TrickOutcome:
    """A completed trick: the cards, the judgement, and the notes before and after.

    ``hands_after`` are the two hands (bit masks, Phantom first) once the trick is over;
    ``super_trump_after`` is the super trump the notes after it give.
    """

    round: int
    trick: int
    leader: Role
    lead: int
    follower: Role
    follow: int
    super_trump: Suit | None
    winner: Role
    reason: Reason
    note_owner: Role
    in_order: bool
    special: bool
    swaps: tuple[SwapOutcome, ...]
    notes_before: int
    notes_after: int
    hands_after: tuple[int, int]
    super_trump_after: Suit | None

    @property
    def lead_suit(self) -> Suit:
        """The suit of the leader's card."""
        return card_suit(self.lead)

    def to_json(self) -> dict[str, Any]:
        """The trick's annotation fields of FORMAT.md (without ``game_id``)."""
        return {
            "round": self.round,
            "trick": self.trick,
            "leader": self.leader.key,
            "lead": CARD_CODES[self.lead],
            "follower": self.follower.key,
            "follow": CARD_CODES[self.follow],
            "lead_suit": self.lead_suit.code,
            "super_trump": None if self.super_trump is None else self.super_trump.code,
            "winner": self.winner.key,
            "reason": self.reason.value,
            "note_owner": self.note_owner.key,
            "in_order": self.in_order,
            "special": self.special,
            "swaps": [swap.to_json() for swap in self.swaps],
            "notes_before": self.notes_before,
            "notes_after": self.notes_after,
        }


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
        """As FORMAT.md's ``result`` writes it."""
        return {"winner": None if self.winner is None else self.winner.key, "notes": self.notes}


@dataclass(slots=True)
class Replay:
    """What the replay of one game found.

    ``result`` is set when the replay got to the end of the record (an unfinished game
    has a result whose winner is ``None``); it is ``None`` when an illegal move stopped
    the replay. ``ended_at`` is the (round, trick) where the game was decided.
    """

    sheet: Sheet
    rules: Rules
    rounds: list[RoundStart] = field(default_factory=list)
    tricks: list[TrickOutcome] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    result: Result | None = None
    ended_at: tuple[int, int] | None = None

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return all(problem.severity != "error" for problem in self.problems)


class _IllegalMove(Exception):
    """Stops the replay at the first illegal move."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _pronoun(role: Role) -> str:
    return "he" if role is Role.PHANTOM else "she"


def _possessive(role: Role) -> str:
    return "his" if role is Role.PHANTOM else "her"


def _The(role: Role) -> str:
    """Role.in_text at the start of a sentence."""
    return role.in_text[:1].upper() + role.in_text[1:]


class _Replayer:
    """The mutable state of one replay; used only by :func:`replay`."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.out = Replay(game.sheet, game.rules)
        self.notes = 0
        self.hands = [0, 0]
        self.winner: Role | None = None
        self.special_number = 0

    # -- the round's start -------------------------------------------------------------

    def start_round(self, index: int, data: Round) -> None:
        round_no = index + 1
        at = pointer("rounds", index)
        self.check_deal(round_no, at, data)
        phantom = 0
        for card in data.phantom_deal:
            phantom |= 1 << card
        christine = 0
        for card in data.christine_deal:
            christine |= 1 << card
        leader = round_leader(index)
        beginner = self.game.rules.beginner
        exchange = data.exchange
        number = data.special_number
        if beginner and exchange is not None:
            raise _IllegalMove(
                Problem.of(
                    Code.BAD_EXCHANGE,
                    f"round {round_no} records an exchange, but under the beginner rule "
                    "there is none",
                    at + "/exchange",
                    round_no,
                    hint="Remove the exchange, or set rules.beginner to false.",
                )
            )
        if not beginner:
            if exchange is None:
                raise _IllegalMove(
                    Problem.of(
                        Code.BAD_EXCHANGE,
                        f"round {round_no} has no exchange; without the beginner rule "
                        "each player gives one card at the start of a round",
                        at,
                        round_no,
                        hint='Add "exchange": {"phantom": CARD, "christine": CARD}, '
                        "or set rules.beginner to true.",
                    )
                )
            for role, card, hand in (
                (Role.PHANTOM, exchange.phantom, phantom),
                (Role.CHRISTINE, exchange.christine, christine),
            ):
                if not hand >> card & 1:
                    raise _IllegalMove(
                        Problem.of(
                            Code.BAD_EXCHANGE,
                            f"{role.in_text} gives {CARD_CODES[card]} in the exchange of round "
                            f"{round_no}, but {_pronoun(role)} was not dealt it",
                            f"{at}/exchange/{role.key}",
                            round_no,
                            hint=f"{_possessive(role).capitalize()} hand: "
                            f"{', '.join(hand_codes(hand))}.",
                        )
                    )
            phantom = phantom & ~(1 << exchange.phantom) | 1 << exchange.christine
            christine = christine & ~(1 << exchange.christine) | 1 << exchange.phantom
            allowed = sorted({card_number(exchange.phantom), card_number(exchange.christine)})
            if number not in allowed:
                shown = " or ".join(str(value) for value in allowed)
                raise _IllegalMove(
                    Problem.of(
                        Code.BAD_SPECIAL_NUMBER,
                        f"special number {number} of round {round_no} is not allowed: the "
                        f"exchanged cards {CARD_CODES[exchange.phantom]} and "
                        f"{CARD_CODES[exchange.christine]} allow only {shown}",
                        at + "/special_number",
                        round_no,
                        hint=f"{_The(leader)}, who leads round {round_no}, picks the number "
                        "of one of the two exchanged cards.",
                    )
                )
        elif not 1 <= number <= 6:
            raise _IllegalMove(
                Problem.of(
                    Code.BAD_SPECIAL_NUMBER,
                    f"special number {number} of round {round_no} is not a die roll (1-6)",
                    at + "/special_number",
                    round_no,
                )
            )
        self.hands = [phantom, christine]
        self.special_number = number
        self.out.rounds.append(
            RoundStart(round_no, leader, number, (phantom, christine), self.notes, exchange)
        )

    def check_deal(self, round_no: int, at: str, data: Round) -> None:
        seen: dict[int, str] = {}
        parts: list[tuple[str, str, tuple[int, ...], int]] = [
            ("phantom", "the Phantom", data.phantom_deal, CARDS_PER_HAND),
            ("christine", "Christine", data.christine_deal, CARDS_PER_HAND),
        ]
        if data.aside is not None:
            parts.append(("aside", "the cards aside", data.aside, CARDS_ASIDE))
        for key, title, cards, expected in parts:
            if len(cards) != expected:
                raise _IllegalMove(
                    Problem.of(
                        Code.BAD_DEAL,
                        f"the deal of round {round_no} gives {title} {len(cards)} cards, "
                        f"not {expected}",
                        f"{at}/deal/{key}",
                        round_no,
                    )
                )
            for position, card in enumerate(cards):
                if not 0 <= card < DECK_SIZE:  # only reachable through a hand-built Game
                    raise _IllegalMove(
                        Problem.of(
                            Code.BAD_DEAL,
                            f"the deal of round {round_no} holds a card outside the deck",
                            f"{at}/deal/{key}/{position}",
                            round_no,
                        )
                    )
                if card in seen:
                    raise _IllegalMove(
                        Problem.of(
                            Code.BAD_DEAL,
                            f"the deal of round {round_no} holds {CARD_CODES[card]} twice "
                            f"({seen[card]} and {title}); the deck has one of each card",
                            f"{at}/deal/{key}/{position}",
                            round_no,
                        )
                    )
                seen[card] = title

    # -- plays and swaps ---------------------------------------------------------------

    def play(
        self,
        play: Play,
        expected: Role,
        lead_suit: Suit | None,
        at: str,
        where: tuple[int, int],
        swaps: list[SwapOutcome],
    ) -> None:
        round_no, trick_no = where
        if play.player != expected:
            turn = "lead" if lead_suit is None else "follow"
            raise _IllegalMove(
                Problem.of(
                    Code.WRONG_PLAYER,
                    f"{play.player.in_text} played {CARD_CODES[play.card]}, but it is "
                    f"{expected.in_text}'s turn to {turn}",
                    at + "/player",
                    round_no,
                    trick_no,
                    hint=None
                    if lead_suit is not None
                    else "The winner of a trick leads the next one; the Phantom leads "
                    "round 1 and Christine round 2.",
                )
            )
        role = expected
        hand = self.hands[role]
        card = play.card
        if not hand >> card & 1:
            raise _IllegalMove(
                Problem.of(
                    Code.CARD_NOT_HELD,
                    f"{role.in_text} played {CARD_CODES[card]}, but {_pronoun(role)} does "
                    "not hold it",
                    at + "/card",
                    round_no,
                    trick_no,
                    hint=f"{_possessive(role).capitalize()} hand: "
                    f"{', '.join(hand_codes(hand)) or 'empty'}.",
                )
            )
        if not legal_cards(hand, lead_suit) >> card & 1:
            assert lead_suit is not None  # a lead may be any card held
            held = hand_codes(hand & lead_suit.mask)
            raise _IllegalMove(
                Problem.of(
                    Code.REVOKE,
                    f"{role.in_text} played {CARD_CODES[card]} but holds {_list(held)}; "
                    f"{_pronoun(role)} must follow {lead_suit.title}",
                    at + "/card",
                    round_no,
                    trick_no,
                    hint="A player who holds a card of the lead suit (after any swap) "
                    "must play one.",
                )
            )
        self.hands[role] = hand & ~(1 << card)
        after = "lead" if lead_suit is None else "follow"
        if card_number(card) == self.special_number:
            swapped = self.swap(play, after, at, where)
            if swapped is not None:
                swaps.append(swapped)
        elif play.swap is not None and not play.swap.is_empty:
            raise _IllegalMove(
                Problem.of(
                    Code.UNEXPECTED_SWAP,
                    f"a swap is recorded after {CARD_CODES[card]}, but only a card of the "
                    f"special number {self.special_number} calls for one",
                    at + "/swap",
                    round_no,
                    trick_no,
                )
            )

    def swap(self, play: Play, after: str, at: str, where: tuple[int, int]) -> SwapOutcome | None:
        """Checks and makes the swap after a special card; ``None`` when a hand is empty
        and no swap is possible."""
        round_no, trick_no = where
        phantom, christine = self.hands
        size = swap_size(phantom, christine)
        given = play.swap
        code = CARD_CODES[play.card]
        if size == 0:
            if given is not None and not given.is_empty:
                empty = Role.PHANTOM if not phantom else Role.CHRISTINE
                raise _IllegalMove(
                    Problem.of(
                        Code.UNEXPECTED_SWAP,
                        f"{code} shows the special number, but no swap is possible: "
                        f"{empty.in_text} has no card left",
                        at + "/swap",
                        round_no,
                        trick_no,
                        hint='Record no swap here, or "swap": {}.',
                    )
                )
            return None
        cards = "card" if size == 1 else "cards"
        if given is None:
            raise _IllegalMove(
                Problem.of(
                    Code.MISSING_SWAP,
                    f"{code} shows the special number {self.special_number}: a swap of "
                    f"{size} {cards} each must follow, and none is recorded",
                    at,
                    round_no,
                    trick_no,
                    hint='Add "swap": {"phantom": [...], "christine": [...]} to this play.',
                )
            )
        for role in Role:
            cards_given = given.given_by(role)
            if cards_given is None or len(cards_given) < size:
                count = 0 if cards_given is None else len(cards_given)
                raise _IllegalMove(
                    Problem.of(
                        Code.MISSING_SWAP,
                        f"the swap after {code} is {size} {cards} each, but {role.in_text} "
                        f"gives {count}",
                        f"{at}/swap" if cards_given is None else f"{at}/swap/{role.key}",
                        round_no,
                        trick_no,
                    )
                )
        for role in Role:
            cards_given = given.given_by(role)
            assert cards_given is not None
            if len(cards_given) > size:
                raise _IllegalMove(
                    Problem.of(
                        Code.UNEXPECTED_SWAP,
                        f"the swap after {code} is {size} {cards} each, but {role.in_text} "
                        f"gives {len(cards_given)}",
                        f"{at}/swap/{role.key}",
                        round_no,
                        trick_no,
                        hint="Each player gives 2 cards, or 1 when either player holds "
                        "only one card.",
                    )
                )
        masks = [0, 0]
        for role in Role:
            hand = self.hands[role]
            cards_given = given.given_by(role)
            assert cards_given is not None
            for position, card in enumerate(cards_given):
                if not hand >> card & 1:
                    again = masks[role] >> card & 1
                    raise _IllegalMove(
                        Problem.of(
                            Code.CARD_NOT_HELD,
                            f"{role.in_text} gives {CARD_CODES[card]} "
                            + ("twice in the swap" if again else "in the swap")
                            + f" after {code}, but {_pronoun(role)} "
                            + ("holds only one" if again else "does not hold it"),
                            f"{at}/swap/{role.key}/{position}",
                            round_no,
                            trick_no,
                            hint=f"{_possessive(role).capitalize()} hand before the swap: "
                            f"{', '.join(hand_codes(self.hands[role]))}.",
                        )
                    )
                hand &= ~(1 << card)
                masks[role] |= 1 << card
        self.hands = [
            phantom & ~masks[Role.PHANTOM] | masks[Role.CHRISTINE],
            christine & ~masks[Role.CHRISTINE] | masks[Role.PHANTOM],
        ]
        return SwapOutcome(
            after,
            tuple(given.phantom or ()),
            tuple(given.christine or ()),
        )

    # -- tricks ------------------------------------------------------------------------

    def trick(
        self, trick: Trick, leader: Role, at: str, where: tuple[int, int], is_last: bool
    ) -> Role | None:
        """Plays one trick; returns its winner, or ``None`` for a trick of one play (legal
        only as the last trick of the record)."""
        round_no, trick_no = where
        swaps: list[SwapOutcome] = []
        lead_play = trick.plays[0]
        self.play(lead_play, leader, None, at + "/plays/0", where, swaps)
        if len(trick.plays) < 2:
            if not is_last:
                raise _IllegalMove(
                    Problem.of(
                        Code.INCOMPLETE_TRICK,
                        f"trick {trick_no} of round {round_no} has one play, but the "
                        "record goes on; only the last trick of a record may be incomplete",
                        at + "/plays",
                        round_no,
                        trick_no,
                    )
                )
            if trick.claimed_winner is not None:
                self.out.problems.append(
                    Problem.of(
                        Code.WINNER_MISMATCH,
                        f"the record claims {trick.claimed_winner.in_text} won round "
                        f"{round_no}, trick {trick_no}, but only one card of it was played",
                        at + "/winner",
                        round_no,
                        trick_no,
                    )
                )
            return None
        follower = leader.other
        lead = lead_play.card
        follow_play = trick.plays[1]
        self.play(follow_play, follower, card_suit(lead), at + "/plays/1", where, swaps)
        follow = follow_play.card
        super_trump = self.game.sheet.super_trump(self.notes)
        leader_wins, reason = judge_trick(lead, follow, super_trump)
        winner = leader if leader_wins else follower
        note_owner = self.game.sheet.owner_of(self.notes + 1)
        in_order = winner == note_owner
        number = self.special_number
        special = card_number(lead) == number or card_number(follow) == number
        notes_before = self.notes
        self.notes = notes_after_trick(notes_before, in_order, special, self.game.rules)
        self.out.tricks.append(
            TrickOutcome(
                round_no,
                trick_no,
                leader,
                lead,
                follower,
                follow,
                super_trump,
                winner,
                reason,
                note_owner,
                in_order,
                special,
                tuple(swaps),
                notes_before,
                self.notes,
                (self.hands[0], self.hands[1]),
                self.game.sheet.super_trump(self.notes),
            )
        )
        if trick.claimed_winner is not None and trick.claimed_winner != winner:
            self.out.problems.append(
                Problem.of(
                    Code.WINNER_MISMATCH,
                    f"the record claims {trick.claimed_winner.in_text} won round {round_no}, "
                    f"trick {trick_no}, but {winner.in_text} did: {CARD_CODES[lead]} against "
                    f"{CARD_CODES[follow]}, {reason.value.replace('-', ' ')}",
                    at + "/winner",
                    round_no,
                    trick_no,
                )
            )
        if self.notes == NOTES_PER_SHEET:
            self.winner = Role.PHANTOM
            self.out.ended_at = where
        return winner

    # -- the game ----------------------------------------------------------------------

    def after_end(self, at: str, what: str, where: tuple[int | None, int | None]) -> None:
        assert self.out.ended_at is not None
        end_round, end_trick = self.out.ended_at
        raise _IllegalMove(
            Problem.of(
                Code.AFTER_GAME_END,
                f"{what} is recorded after the Phantom completed the sheet in round "
                f"{end_round}, trick {end_trick}; the game was over",
                at,
                where[0],
                where[1],
                hint="Remove everything after the trick that completed the 12th note.",
            )
        )

    def run(self) -> None:
        rounds = self.game.rounds
        last_round = len(rounds) - 1
        for index, data in enumerate(rounds):
            round_no = index + 1
            at = pointer("rounds", index)
            if self.winner is not None:
                self.after_end(at, f"round {round_no}", (round_no, None))
            if index > 0 and len(rounds[index - 1].tricks) < TRICKS_PER_ROUND:
                played = len(rounds[index - 1].tricks)
                raise _IllegalMove(
                    Problem.of(
                        Code.INCOMPLETE_ROUND,
                        f"round {index} has {played} tricks, but round {round_no} follows; "
                        f"a round lasts {TRICKS_PER_ROUND} tricks",
                        pointer("rounds", index - 1, "tricks"),
                        index,
                    )
                )
            if index >= ROUNDS_PER_GAME:  # only reachable through a hand-built Game
                raise _IllegalMove(
                    Problem.of(
                        Code.SCHEMA,
                        f"round {round_no} is recorded; a game has at most 2 rounds",
                        at,
                        round_no,
                    )
                )
            self.start_round(index, data)
            leader = round_leader(index)
            last_trick = len(data.tricks) - 1
            for trick_index, trick in enumerate(data.tricks):
                trick_no = trick_index + 1
                trick_at = f"{at}/tricks/{trick_index}"
                if self.winner is not None:
                    self.after_end(
                        trick_at, f"trick {trick_no} of round {round_no}", (round_no, trick_no)
                    )
                if trick_index >= TRICKS_PER_ROUND:  # only reachable through a hand-built Game
                    raise _IllegalMove(
                        Problem.of(
                            Code.SCHEMA,
                            f"round {round_no} has more than {TRICKS_PER_ROUND} tricks",
                            trick_at,
                            round_no,
                            trick_no,
                        )
                    )
                is_last = index == last_round and trick_index == last_trick
                winner = self.trick(trick, leader, trick_at, (round_no, trick_no), is_last)
                if winner is None:
                    break
                leader = winner
            if (
                self.winner is None
                and index == ROUNDS_PER_GAME - 1
                and len(data.tricks) == TRICKS_PER_ROUND
                and len(data.tricks[-1].plays) == 2
            ):
                self.winner = Role.CHRISTINE
                self.out.ended_at = (round_no, TRICKS_PER_ROUND)
        self.finish()

    def finish(self) -> None:
        out = self.out
        out.result = result = Result(self.winner, self.notes)
        if self.winner is None:
            out.problems.append(self.unfinished_problem())
        claim = self.game.claimed_result
        if claim is None:
            return
        if claim.winner != result.winner:
            claimed = "no winner yet" if claim.winner is None else f"{claim.winner.in_text} won"
            actual = (
                "the game is unfinished"
                if result.winner is None
                else (f"{result.winner.in_text} won")
            )
            out.problems.append(
                Problem.of(
                    Code.WINNER_MISMATCH,
                    f"the result claims {claimed}, but {actual} in the replay",
                    "/result/winner",
                )
            )
        if claim.notes != result.notes:
            out.problems.append(
                Problem.of(
                    Code.NOTES_MISMATCH,
                    f"the result claims {claim.notes} notes completed, but the replay "
                    f"ends with {result.notes}",
                    "/result/notes",
                )
            )

    def unfinished_problem(self) -> Problem:
        rounds = self.game.rounds
        last = rounds[-1]
        where = (
            f"round {len(rounds)}, trick {len(last.tricks)}"
            if last.tricks
            else (f"the start of round {len(rounds)}")
        )
        return Problem.of(
            Code.UNFINISHED,
            f"the record stops at {where} with {self.notes} notes completed; the game is "
            "not over, so it has no winner",
            "/rounds",
            len(rounds),
            len(last.tricks) or None,
            hint="A finished game ends when the Phantom completes the 12th note or when "
            "round 2's 10th trick is played.",
        )


def replay(game: Game) -> Replay:
    """Replay a game by the rules; never raises for anything a record can hold."""
    replayer = _Replayer(game)
    try:
        replayer.run()
    except _IllegalMove as stop:
        replayer.out.problems.append(stop.problem)
    return replayer.out
