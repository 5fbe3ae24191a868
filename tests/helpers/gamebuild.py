"""Game records for the tests, built from short card lists, and a reference player.

Two halves:

* Builders (:func:`cards`, :func:`play`, :func:`trick`, :func:`round_`, :func:`record`)
  write record dicts of FORMAT.md's shape from compact notation such as
  ``trick("P Mi5", "C Ri1")``, and checkers (:func:`errors`, :func:`sole_error`,
  :func:`replayed`) run them through ``check_record``.
* :class:`RefGame`, a tiny reference implementation of RULES.md that works on card codes
  and never calls the engine. It deals with legality (which cards may be played, how many
  cards a swap takes), judges tricks and counts notes, and plays whole rounds by any
  policy: :func:`first` (always the first legal choice), a seeded ``random.Random``'s
  ``choice``, or a hypothesis ``draw``. Tests use it to build long legal games and to
  cross-check the engine.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from phantom_log.checking.verdict import check_record
from phantom_log.rules.problems import Problem, Severity
from phantom_log.rules.replay import GameLog

T = TypeVar("T")
Choose = Callable[[Sequence[Any]], Any]
"""A policy: given the legal options (never empty), pick one."""

SUITS = ("Mi", "Ch", "Ri", "Ma")
DECK = tuple(f"{suit}{number}" for suit in SUITS for number in range(1, 7))
ROLES = ("phantom", "christine")
ROLE_OF_LETTER = {"P": "phantom", "C": "christine"}
NOTES = 12
TRICKS_PER_ROUND = 10

# The built-in "rulebook" sheet, copied from the table of RULES.md (not from the package).
RULEBOOK_BARS = (("Mi", "CPC"), ("Ch", "PCP"), ("Ri", "PPC"), ("Ma", "PCP"))

JsonDict = dict[str, Any]


# -- builders ----------------------------------------------------------------------------


def cards(spec: str | Sequence[str]) -> list[str]:
    """Card codes from a short notation: ``"Mi1-5 Ma2"`` is Mi1 ... Mi5 and Ma2.

    A list of codes is returned as a list, unchanged.
    """
    if not isinstance(spec, str):
        return list(spec)
    result: list[str] = []
    for token in spec.split():
        suit, numbers = token[:2], token[2:]
        if "-" in numbers:
            low, high = numbers.split("-")
            result.extend(f"{suit}{number}" for number in range(int(low), int(high) + 1))
        else:
            result.append(token)
    return result


def rest(*hands: str | Sequence[str]) -> list[str]:
    """The cards of the deck in none of the given hands, in deck order."""
    held = {card for hand in hands for card in cards(hand)}
    return [card for card in DECK if card not in held]


def play(
    who: str,
    card: str,
    *,
    phantom: str | Sequence[str] | None = None,
    christine: str | Sequence[str] | None = None,
    swap: Mapping[str, Any] | None = None,
) -> JsonDict:
    """One play; ``who`` is ``P``/``C`` or a role. ``phantom``/``christine`` give a swap's
    cards (both lists are written when either is given); ``swap`` writes it verbatim."""
    entry: JsonDict = {"player": ROLE_OF_LETTER.get(who, who), "card": card}
    if swap is not None:
        entry["swap"] = dict(swap)
    elif phantom is not None or christine is not None:
        entry["swap"] = {"phantom": cards(phantom or ""), "christine": cards(christine or "")}
    return entry


def trick(*plays: str | JsonDict, winner: str | None = None) -> JsonDict:
    """A trick from its plays: ``"P Ma5"`` or a :func:`play` dict; ``winner`` is the claim
    (``P``/``C`` or a role)."""
    entries: list[JsonDict] = []
    for item in plays:
        if isinstance(item, str):
            who, card = item.split()
            entries.append(play(who, card))
        else:
            entries.append(item)
    result: JsonDict = {"plays": entries}
    if winner is not None:
        result["winner"] = ROLE_OF_LETTER.get(winner, winner)
    return result


def round_(
    phantom: str | Sequence[str],
    christine: str | Sequence[str],
    tricks: Sequence[JsonDict] = (),
    *,
    special: int,
    exchange: tuple[str, str] | None = None,
    aside: str | Sequence[str] | None = None,
) -> JsonDict:
    """A round: the deal (aside: as given, else the 4 cards left when there are exactly
    4), the exchange (Phantom's card first), the special number and the tricks."""
    deal: JsonDict = {"phantom": cards(phantom), "christine": cards(christine)}
    if aside is not None:
        deal["aside"] = cards(aside)
    else:
        left = rest(phantom, christine)
        if len(left) == 4:
            deal["aside"] = left
    result: JsonDict = {"deal": deal}
    if exchange is not None:
        result["exchange"] = {"phantom": exchange[0], "christine": exchange[1]}
    result["special_number"] = special
    result["tricks"] = list(tricks)
    return result


def record(
    *rounds: JsonDict,
    sheet: str | Mapping[str, Any] = "rulebook",
    beginner: bool = False,
    balance: bool = False,
    result: tuple[str | None, int] | None = None,
) -> JsonDict:
    """A whole record; ``result`` is the claim ``(winner or None, notes)``."""
    data: JsonDict = {
        "format": "phantom-log/1",
        "game_id": "test",
        "players": {"phantom": "Kim", "christine": "Lee"},
        "sheet": sheet if isinstance(sheet, str) else dict(sheet),
        "rules": {"beginner": beginner, "balance": balance},
        "rounds": list(rounds),
    }
    if result is not None:
        winner, notes = result
        data["result"] = {"winner": ROLE_OF_LETTER.get(winner or "", winner), "notes": notes}
    return data


def sheet_object(*bars: tuple[str, str], name: str = "custom") -> JsonDict:
    """A sheet object from ``(suit, owners)`` pairs, e.g. ``("Ma", "PPP")``."""
    return {"name": name, "bars": [{"suit": suit, "notes": owners} for suit, owners in bars]}


# -- checkers ----------------------------------------------------------------------------


def check(data: JsonDict) -> tuple[list[Problem], GameLog]:
    """``check_record``, asserting that the record got as far as the replay."""
    problems, outcome = check_record(data)
    assert outcome is not None, [problem.to_json() for problem in problems]
    return problems, outcome


def errors(data: JsonDict) -> list[Problem]:
    """The problems of severity ``error`` (schema and sheet problems included)."""
    problems, _ = check_record(data)
    return [problem for problem in problems if problem.severity is Severity.ERROR]


def sole_error(data: JsonDict) -> Problem:
    """The one error of a record; fails the test unless there is exactly one."""
    found = errors(data)
    assert len(found) == 1, [problem.to_json() for problem in found]
    return found[0]


def where(problem: Problem) -> tuple[str, str, int | None, int | None]:
    """A problem's code, pointer, round and trick, for one-line comparisons."""
    return problem.code.value, problem.pointer, problem.round, problem.trick


def replayed(data: JsonDict) -> GameLog:
    """The replay of a record that must have no error (warnings such as ``unfinished``
    are allowed)."""
    problems, outcome = check(data)
    bad = [problem.to_json() for problem in problems if problem.severity is Severity.ERROR]
    assert not bad, bad
    return outcome


# -- the reference rules -----------------------------------------------------------------


def card_suit(card: str) -> str:
    """The suit code of a card code."""
    return card[:2]


def card_number(card: str) -> int:
    """The number of a card code."""
    return int(card[2:])


def in_deck_order(hand: Sequence[str] | set[str] | frozenset[str]) -> list[str]:
    """Cards sorted as the deck lists them."""
    return sorted(hand, key=DECK.index)


@dataclass(frozen=True)
class RefSheet:
    """A sheet as the reference sees it: each note's suit and owner (notes 1-12)."""

    suits: tuple[str, ...]
    owners: tuple[str, ...]

    @classmethod
    def of(cls, sheet: str | Mapping[str, Any]) -> RefSheet:
        """The sheet of a record's ``sheet`` value (``"rulebook"`` or an object)."""
        if isinstance(sheet, str):
            assert sheet == "rulebook"
            bars: Sequence[tuple[str, str]] = RULEBOOK_BARS
        else:
            bars = [(bar["suit"], bar["notes"]) for bar in sheet["bars"]]
        return cls(
            tuple(suit for suit, owners in bars for _ in owners),
            tuple(ROLE_OF_LETTER[letter] for _, owners in bars for letter in owners),
        )

    def super_trump(self, notes: int) -> str | None:
        """The suit of the bar of the last completed note; none before the first note."""
        return self.suits[notes - 1] if notes else None


def follower_wins(lead: str, follow: str, super_trump: str | None) -> bool:
    """RULES.md, "Who wins a trick"."""
    if card_suit(lead) == card_suit(follow):
        return card_number(follow) > card_number(lead)

    def strength(suit: str) -> int:
        if suit == super_trump:
            return 3
        if suit == "Ma":
            return 2
        return 1 if suit == card_suit(lead) else 0

    return strength(card_suit(follow)) > strength(card_suit(lead))


def notes_after(notes: int, in_order: bool, special: bool, balance: bool) -> int:
    """RULES.md, "Notes"."""
    if not special:
        return notes + 1 if in_order else notes
    if in_order:
        return min(NOTES, notes + 2)
    return max(0, notes - (1 if balance else 2))


def first(options: Sequence[T]) -> T:
    """The simple policy: always the first legal option (cards in deck order)."""
    return options[0]


def seeded(seed: int) -> Choose:
    """A policy that picks uniformly at random, reproducibly."""
    return random.Random(seed).choice


def shuffled_deal(seed: int) -> tuple[list[str], list[str], list[str]]:
    """A reproducible shuffle: the Phantom's 10 cards, Christine's 10 and the 4 aside."""
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return in_deck_order(deck[:10]), in_deck_order(deck[10:20]), in_deck_order(deck[20:])


@dataclass(frozen=True)
class RefTrick:
    """What the reference saw in one completed trick (``follower_hand``: the follower's
    hand when it was their turn, after any swap the lead called for)."""

    round: int
    trick: int
    leader: str
    lead: str
    follow: str
    super_trump: str | None
    winner: str
    in_order: bool
    special: bool
    notes_before: int
    notes_after: int
    follower_hand: frozenset[str]
    hands_after: Mapping[str, frozenset[str]]


class RefGame:
    """A game played by the rules of RULES.md, written as a record as it goes."""

    def __init__(
        self,
        sheet: str | Mapping[str, Any] = "rulebook",
        *,
        beginner: bool = False,
        balance: bool = False,
    ) -> None:
        self.sheet_value = sheet
        self.sheet = RefSheet.of(sheet)
        self.beginner = beginner
        self.balance = balance
        self.notes = 0
        self.winner: str | None = None
        self.rounds: list[JsonDict] = []
        self.tricks: list[RefTrick] = []
        self.hands: dict[str, set[str]] = {role: set() for role in ROLES}
        self.leader = "phantom"
        self.special = 0

    @property
    def over(self) -> bool:
        """True once the game has a winner."""
        return self.winner is not None

    def start_round(
        self,
        phantom: Sequence[str],
        christine: Sequence[str],
        choose: Choose = first,
        *,
        exchange: tuple[str, str] | None = None,
        special: int | None = None,
    ) -> None:
        """Deal, exchange (chosen by ``choose`` unless given) and special number."""
        assert not self.over and len(self.rounds) < 2
        if self.rounds:
            assert len(self.rounds[-1]["tricks"]) == TRICKS_PER_ROUND
        self.hands = {"phantom": set(phantom), "christine": set(christine)}
        self.leader = "phantom" if not self.rounds else "christine"
        if self.beginner:
            self.special = special if special is not None else choose(list(range(1, 7)))
        else:
            if exchange is None:
                exchange = (
                    choose(in_deck_order(self.hands["phantom"])),
                    choose(in_deck_order(self.hands["christine"])),
                )
            given_by_phantom, given_by_christine = exchange
            assert given_by_phantom in self.hands["phantom"]
            assert given_by_christine in self.hands["christine"]
            self.hands["phantom"] = self.hands["phantom"] - {given_by_phantom} | {
                given_by_christine
            }
            self.hands["christine"] = self.hands["christine"] - {given_by_christine} | {
                given_by_phantom
            }
            allowed = sorted({card_number(given_by_phantom), card_number(given_by_christine)})
            self.special = special if special is not None else choose(allowed)
            assert self.special in allowed
        data = round_(
            list(phantom),
            list(christine),
            special=self.special,
            exchange=None if self.beginner else exchange,
        )
        self.rounds.append(data)

    def legal_cards(self, role: str, lead_suit: str | None) -> list[str]:
        """The cards ``role`` may play now: any card to lead; a card of the lead suit when
        holding one, else any card, to follow."""
        hand = in_deck_order(self.hands[role])
        if lead_suit is not None:
            following = [card for card in hand if card_suit(card) == lead_suit]
            if following:
                return following
        return hand

    def swap_size(self) -> int:
        """2, or 1 when either player holds one card, or 0 when either holds none."""
        return min(2, *(len(hand) for hand in self.hands.values()))

    def _play(self, role: str, lead_suit: str | None, choose: Choose) -> JsonDict:
        card: str = choose(self.legal_cards(role, lead_suit))
        self.hands[role].discard(card)
        entry = play(role, card)
        if card_number(card) == self.special:
            size = self.swap_size()
            if size:
                given = {
                    giver: list(choose(list(itertools.combinations(in_deck_order(hand), size))))
                    for giver, hand in self.hands.items()
                }
                self.hands = {
                    "phantom": self.hands["phantom"] - set(given["phantom"])
                    | set(given["christine"]),
                    "christine": self.hands["christine"] - set(given["christine"])
                    | set(given["phantom"]),
                }
                entry["swap"] = given
        return entry

    def play_trick(self, choose: Choose = first, *, claim: bool = False) -> JsonDict:
        """Play one trick by ``choose``; returns the trick as recorded (``claim``: with
        the winner written in)."""
        assert not self.over
        tricks: list[JsonDict] = self.rounds[-1]["tricks"]
        assert len(tricks) < TRICKS_PER_ROUND
        leader = self.leader
        follower = "christine" if leader == "phantom" else "phantom"
        lead_play = self._play(leader, None, choose)
        lead = lead_play["card"]
        follower_hand = frozenset(self.hands[follower])
        follow_play = self._play(follower, card_suit(lead), choose)
        follow = follow_play["card"]
        super_trump = self.sheet.super_trump(self.notes)
        winner = follower if follower_wins(lead, follow, super_trump) else leader
        in_order = self.sheet.owners[self.notes] == winner
        special = self.special in (card_number(lead), card_number(follow))
        before = self.notes
        self.notes = notes_after(before, in_order, special, self.balance)
        entry = trick(lead_play, follow_play, winner=winner if claim else None)
        tricks.append(entry)
        self.tricks.append(
            RefTrick(
                len(self.rounds),
                len(tricks),
                leader,
                lead,
                follow,
                super_trump,
                winner,
                in_order,
                special,
                before,
                self.notes,
                follower_hand,
                {role: frozenset(hand) for role, hand in self.hands.items()},
            )
        )
        self.leader = winner
        if self.notes == NOTES:
            self.winner = "phantom"
        elif len(self.rounds) == 2 and len(tricks) == TRICKS_PER_ROUND:
            self.winner = "christine"
        return entry

    def play_round(
        self,
        phantom: Sequence[str],
        christine: Sequence[str],
        choose: Choose = first,
        *,
        tricks: int = TRICKS_PER_ROUND,
        exchange: tuple[str, str] | None = None,
        special: int | None = None,
    ) -> JsonDict:
        """Start a round and play up to ``tricks`` tricks of it (fewer if the game ends);
        returns the round as recorded."""
        self.start_round(phantom, christine, choose, exchange=exchange, special=special)
        for _ in range(tricks):
            if self.over:
                break
            self.play_trick(choose)
        return self.rounds[-1]

    def record(self, *, claim_result: bool = False) -> JsonDict:
        """The record so far; ``claim_result`` writes the reference's result in."""
        return record(
            *self.rounds,
            sheet=self.sheet_value,
            beginner=self.beginner,
            balance=self.balance,
            result=(self.winner, self.notes) if claim_result else None,
        )


def play_game(
    deals: Sequence[tuple[Sequence[str], Sequence[str]]],
    choose: Choose = first,
    *,
    sheet: str | Mapping[str, Any] = "rulebook",
    beginner: bool = False,
    balance: bool = False,
) -> RefGame:
    """A whole game (one round per deal, as long as it lasts) played by ``choose``."""
    game = RefGame(sheet, beginner=beginner, balance=balance)
    for phantom, christine in deals:
        if game.over:
            break
        game.play_round(phantom, christine, choose)
    return game
