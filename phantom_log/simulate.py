"""A seeded simulator of whole games, for tests, benchmarks and study (not real play).

Every rule comes from the engine (:func:`~phantom_log.engine.legal_cards`,
:func:`~phantom_log.engine.swap_size`, :func:`~phantom_log.engine.judge_trick`,
:func:`~phantom_log.engine.notes_after_trick`, the sheet's super trump and note owners);
the simulator only chooses among the legal moves. Game ``i`` of seed ``s`` draws from its
own generator, seeded with ``"s:i"``, so a game does not depend on the games before it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Protocol

from .cards import CARD_CODES, Role, Suit, card_number, card_suit, hand_cards
from .engine import (
    TRICKS_PER_ROUND,
    Rules,
    judge_trick,
    legal_cards,
    notes_after_trick,
    round_leader,
    swap_size,
)
from .sheets import NOTES_PER_SHEET, Sheet

POLICIES: Final = ("random", "greedy")
FORMAT_VERSION: Final = "phantom-log/1"
CLAIM_SHARE: Final = 0.3  # the share of tricks whose winner the simulated record claims
_NAMES: Final = (
    "Ahn", "Baek", "Cho", "Choi", "Han", "Jang", "Jung", "Kang", "Kim", "Kwon",
    "Lee", "Lim", "Moon", "Oh", "Park", "Seo", "Shin", "Song", "Yoo", "Yoon",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class View:
    """What a player knows when choosing: their role, the notes completed, the sheet,
    the round's special number."""

    role: Role
    notes: int
    sheet: Sheet
    special_number: int

    @property
    def super_trump(self) -> Suit | None:
        """The super trump in force."""
        return self.sheet.super_trump(self.notes)

    @property
    def wants_to_win(self) -> bool:
        """Whether this player wants the trick: the Phantom wants it to go in order, and
        Christine out of order, so both want to win exactly when the next note is the
        Phantom's."""
        return self.sheet.owner_of(self.notes + 1) is Role.PHANTOM


class Policy(Protocol):
    """How one side chooses among legal moves."""

    def give_in_exchange(self, rng: random.Random, hand: int, view: View) -> int: ...

    def choose_special_number(
        self, rng: random.Random, numbers: list[int], hand: int, view: View
    ) -> int: ...

    def lead(self, rng: random.Random, hand: int, view: View) -> int: ...

    def follow(self, rng: random.Random, legal: int, lead: int, view: View) -> int: ...

    def give_in_swap(self, rng: random.Random, hand: int, size: int, view: View) -> list[int]: ...


class RandomPolicy:
    """Uniform among the legal cards; random exchange, number and swap choices."""

    def give_in_exchange(self, rng: random.Random, hand: int, view: View) -> int:
        return rng.choice(hand_cards(hand))

    def choose_special_number(
        self, rng: random.Random, numbers: list[int], hand: int, view: View
    ) -> int:
        return rng.choice(numbers)

    def lead(self, rng: random.Random, hand: int, view: View) -> int:
        return rng.choice(hand_cards(hand))

    def follow(self, rng: random.Random, legal: int, lead: int, view: View) -> int:
        return rng.choice(hand_cards(legal))

    def give_in_swap(self, rng: random.Random, hand: int, size: int, view: View) -> list[int]:
        return sorted(rng.sample(hand_cards(hand), size))


def strength(card: int, super_trump: Suit | None) -> int:
    """How strong a card is to win tricks: super trump above Mask above the rest, then by
    number."""
    suit = card_suit(card)
    rank = 3 if suit == super_trump else 2 if suit == Suit.MASK else 1
    return rank * 10 + card_number(card)


class GreedyPolicy:
    """Plays each trick to win or lose it as the next note requires (the Phantom wants
    tricks in order, Christine out of order), with the cheapest card that does it, and
    gives away its weakest cards in exchanges and swaps."""

    def _weakest(self, cards: list[int], view: View) -> list[int]:
        return sorted(cards, key=lambda card: (strength(card, view.super_trump), card))

    def give_in_exchange(self, rng: random.Random, hand: int, view: View) -> int:
        return self._weakest(hand_cards(hand), view)[0]

    def choose_special_number(
        self, rng: random.Random, numbers: list[int], hand: int, view: View
    ) -> int:
        # The number this player holds most of: its swaps and extra notes are theirs to time.
        held = [card_number(card) for card in hand_cards(hand)]
        return max(sorted(numbers), key=held.count)

    def lead(self, rng: random.Random, hand: int, view: View) -> int:
        ranked = self._weakest(hand_cards(hand), view)
        return ranked[-1] if view.wants_to_win else ranked[0]

    def follow(self, rng: random.Random, legal: int, lead: int, view: View) -> int:
        ranked = self._weakest(hand_cards(legal), view)
        for card in ranked:
            leader_wins, _ = judge_trick(lead, card, view.super_trump)
            if leader_wins != view.wants_to_win:
                return card
        return ranked[0]

    def give_in_swap(self, rng: random.Random, hand: int, size: int, view: View) -> list[int]:
        return sorted(self._weakest(hand_cards(hand), view)[:size])


def make_policy(name: str) -> Policy:
    """The policy of a name in :data:`POLICIES`."""
    if name == "random":
        return RandomPolicy()
    if name == "greedy":
        return GreedyPolicy()
    raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})")


@dataclass(frozen=True, slots=True)
class Simulation:
    """What to simulate: the sheet (and whether to name it or carry it in the record),
    the optional rules, each side's policy, the seed."""

    sheet: Sheet
    rules: Rules
    phantom: str = "random"
    christine: str = "random"
    seed: int = 0
    sheet_is_builtin: bool = True


def _codes(cards: list[int]) -> list[str]:
    return [CARD_CODES[card] for card in cards]


class _Game:
    """The state of one simulated game while it is played."""

    def __init__(self, simulation: Simulation, rng: random.Random) -> None:
        self.simulation = simulation
        self.rng = rng
        self.policies = (make_policy(simulation.phantom), make_policy(simulation.christine))
        self.notes = 0
        self.hands = [0, 0]
        self.special_number = 0

    def view(self, role: Role) -> View:
        return View(role, self.notes, self.simulation.sheet, self.special_number)

    def swap(self, play: dict[str, Any]) -> None:
        size = swap_size(self.hands[0], self.hands[1])
        if size == 0:
            return
        given = [
            self.policies[role].give_in_swap(self.rng, self.hands[role], size, self.view(role))
            for role in Role
        ]
        masks = [sum(1 << card for card in cards) for cards in given]
        self.hands = [
            self.hands[0] & ~masks[0] | masks[1],
            self.hands[1] & ~masks[1] | masks[0],
        ]
        play["swap"] = {"phantom": _codes(given[0]), "christine": _codes(given[1])}

    def play_round(self, index: int) -> dict[str, Any]:
        rng = self.rng
        deck = list(range(24))
        rng.shuffle(deck)
        deal = [sorted(deck[:10]), sorted(deck[10:20]), sorted(deck[20:])]
        self.hands = [sum(1 << card for card in deal[0]), sum(1 << card for card in deal[1])]
        leader = round_leader(index)
        data: dict[str, Any] = {
            "deal": {
                "phantom": _codes(deal[0]),
                "christine": _codes(deal[1]),
                "aside": _codes(deal[2]),
            }
        }
        if self.simulation.rules.beginner:
            self.special_number = rng.randint(1, 6)
        else:
            given = [
                self.policies[role].give_in_exchange(rng, self.hands[role], self.view(role))
                for role in Role
            ]
            self.hands = [
                self.hands[0] & ~(1 << given[0]) | 1 << given[1],
                self.hands[1] & ~(1 << given[1]) | 1 << given[0],
            ]
            numbers = sorted({card_number(given[0]), card_number(given[1])})
            self.special_number = self.policies[leader].choose_special_number(
                rng, numbers, self.hands[leader], self.view(leader)
            )
            data["exchange"] = {"phantom": CARD_CODES[given[0]], "christine": CARD_CODES[given[1]]}
        data["special_number"] = self.special_number
        tricks: list[dict[str, Any]] = []
        data["tricks"] = tricks
        for _ in range(TRICKS_PER_ROUND):
            leader = self.play_trick(leader, tricks)
            if self.notes == NOTES_PER_SHEET:
                break
        return data

    def play_trick(self, leader: Role, tricks: list[dict[str, Any]]) -> Role:
        rng = self.rng
        follower = leader.other
        lead = self.policies[leader].lead(rng, self.hands[leader], self.view(leader))
        self.hands[leader] &= ~(1 << lead)
        lead_play: dict[str, Any] = {"player": leader.key, "card": CARD_CODES[lead]}
        if card_number(lead) == self.special_number:
            self.swap(lead_play)
        legal = legal_cards(self.hands[follower], card_suit(lead))
        follow = self.policies[follower].follow(rng, legal, lead, self.view(follower))
        self.hands[follower] &= ~(1 << follow)
        follow_play: dict[str, Any] = {"player": follower.key, "card": CARD_CODES[follow]}
        if card_number(follow) == self.special_number:
            self.swap(follow_play)
        sheet = self.simulation.sheet
        leader_wins, _ = judge_trick(lead, follow, sheet.super_trump(self.notes))
        winner = leader if leader_wins else follower
        in_order = winner is sheet.owner_of(self.notes + 1)
        special = self.special_number in (card_number(lead), card_number(follow))
        self.notes = notes_after_trick(self.notes, in_order, special, self.simulation.rules)
        trick: dict[str, Any] = {"plays": [lead_play, follow_play]}
        if rng.random() < CLAIM_SHARE:
            trick["winner"] = winner.key
        tricks.append(trick)
        return winner


def simulate_game(simulation: Simulation, number: int) -> dict[str, Any]:
    """Game ``number`` (from 1) of a simulation, as a complete, legal record."""
    rng = random.Random(f"{simulation.seed}:{number}")
    phantom, christine = rng.sample(_NAMES, 2)
    game = _Game(simulation, rng)
    rounds = []
    for index in range(2):
        rounds.append(game.play_round(index))
        if game.notes == NOTES_PER_SHEET:
            break
    rules = simulation.rules
    winner = Role.PHANTOM if game.notes == NOTES_PER_SHEET else Role.CHRISTINE
    return {
        "format": FORMAT_VERSION,
        "game_id": f"sim-{simulation.seed}-{number:06d}",
        "event": "phantom-log simulate",
        "players": {"phantom": phantom, "christine": christine},
        "sheet": simulation.sheet.name
        if simulation.sheet_is_builtin
        else simulation.sheet.to_json(),
        "rules": {"beginner": rules.beginner, "balance": rules.balance},
        "rounds": rounds,
        "result": {"winner": winner.key, "notes": game.notes},
        "x-simulator": {
            "seed": simulation.seed,
            "game": number,
            "phantom": simulation.phantom,
            "christine": simulation.christine,
        },
    }


def simulate(simulation: Simulation, count: int) -> Iterator[dict[str, Any]]:
    """``count`` games of a simulation, numbered from 1."""
    for number in range(1, count + 1):
        yield simulate_game(simulation, number)
