"""A seeded simulator of whole games, for tests, benchmarks and study (not real play).

A :class:`~phantom_log.rules.engine.GameState` plays each game: it says whose turn it is, which
cards are legal, when a swap is due and of what size, who won each trick and when the
game is over; the simulator only chooses among the moves it allows (the greedy policy
also predicts tricks with :func:`~phantom_log.rules.engine.judge` to choose its card, and
ranks cards by their class in a trick, :func:`~phantom_log.rules.engine.card_class`).
Game ``i`` of seed ``s`` draws from its own generator, seeded with ``"s:i"``, so a game
does not depend on the games before it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from ..records.number_kinds import SEED
from ..rules.cards import (
    CARD_CODES,
    DECK_SIZE,
    Role,
    card_number,
    card_suit_index,
    hand_cards,
    hand_mask,
)
from ..rules.engine import (
    CARDS_PER_HAND,
    GameState,
    Phase,
    Rules,
    card_class,
    judge,
    next_note_owner_code,
    super_trump_code,
)
from ..rules.events import leader_wins
from ..rules.problems import Illegal
from ..rules.sheets import Sheet

POLICIES: Final = ("random", "greedy")
FORMAT_VERSION: Final = "phantom-log/1"
CLAIM_SHARE: Final = 0.3  # the share of tricks whose winner the simulated record claims
_NAMES: Final = (
    "Ahn", "Baek", "Cho", "Choi", "Han", "Jang", "Jung", "Kang", "Kim", "Kwon",
    "Lee", "Lim", "Moon", "Oh", "Park", "Seo", "Shin", "Song", "Yoo", "Yoon",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class View:
    """What a policy reads of the game when choosing: the notes completed, the sheet."""

    notes: int
    sheet: Sheet

    @property
    def super_trump(self) -> int:
        """The super trump in force, as a suit int (-1 for none)."""
        return super_trump_code(self.sheet.suit_bits, self.notes)

    @property
    def wants_to_win(self) -> bool:
        """Whether this player wants the trick: the Phantom wants it to go in order, and
        Christine out of order, so both want to win exactly when the player who must win
        it for it to be in order is the Phantom."""
        return next_note_owner_code(self.sheet.owner_bits, self.notes) == Role.PHANTOM


class RandomPolicy:
    """Uniform among the legal cards; random exchange, number and swap choices."""

    def give_in_exchange(self, rng: random.Random, hand: int, view: View) -> int:
        return rng.choice(hand_cards(hand))

    def choose_special_number(
        self, rng: random.Random, numbers: list[int], hand: int, view: View
    ) -> int:
        return rng.choice(numbers)

    def play(self, rng: random.Random, legal: int, lead: int | None, view: View) -> int:
        return rng.choice(hand_cards(legal))

    def give_in_swap(self, rng: random.Random, hand: int, size: int, view: View) -> list[int]:
        return sorted(rng.sample(hand_cards(hand), size))


def strength(card: int, super_trump: int) -> int:
    """How strong a card is to win tricks: its class were it led (the super trump above
    Mask above the rest, :func:`~phantom_log.rules.engine.card_class`), then its number."""
    return card_class(card, super_trump, card_suit_index(card)) * 10 + card_number(card)


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

    def play(self, rng: random.Random, legal: int, lead: int | None, view: View) -> int:
        ranked = self._weakest(hand_cards(legal), view)
        if lead is None:
            return ranked[-1] if view.wants_to_win else ranked[0]
        for card in ranked:
            if leader_wins(judge(lead, card, view.super_trump)) != view.wants_to_win:
                return card
        return ranked[0]

    def give_in_swap(self, rng: random.Random, hand: int, size: int, view: View) -> list[int]:
        return sorted(self._weakest(hand_cards(hand), view)[:size])


#: How one side chooses among the moves the state allows.
Policy = RandomPolicy | GreedyPolicy


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
    the optional rules, each side's policy, the seed (a 64-bit integer, which each
    record carries: ``ValueError`` for another)."""

    sheet: Sheet
    rules: Rules
    phantom: str = "random"
    christine: str = "random"
    seed: int = 0
    sheet_is_builtin: bool = True

    def __post_init__(self) -> None:
        SEED.checked(self.seed, "seed")


def _codes(cards: list[int]) -> list[str]:
    return [CARD_CODES[card] for card in cards]


class _Game:
    """One simulated game while it is played: a :class:`~phantom_log.rules.engine.GameState`
    carries it, and the policies choose among the moves it allows."""

    def __init__(self, simulation: Simulation, rng: random.Random) -> None:
        self.simulation = simulation
        self.rng = rng
        self.policies = (make_policy(simulation.phantom), make_policy(simulation.christine))
        self.state = GameState.start(simulation.sheet, simulation.rules)

    def view(self) -> View:
        return View(self.state.notes, self.simulation.sheet)

    def play_round(self) -> dict[str, Any]:
        rng = self.rng
        state = self.state
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        phantom = sorted(deck[:CARDS_PER_HAND])
        christine = sorted(deck[CARDS_PER_HAND : 2 * CARDS_PER_HAND])
        aside = sorted(deck[2 * CARDS_PER_HAND :])
        _legal(state.step_deal(hand_mask(phantom), hand_mask(christine)))
        deal = {"phantom": _codes(phantom), "christine": _codes(christine), "aside": _codes(aside)}
        data: dict[str, Any] = {"deal": deal}
        if state.phase == Phase.EXCHANGE:
            given = [
                self.policies[role].give_in_exchange(rng, state.hand(role), self.view())
                for role in Role
            ]
            _legal(state.step_exchange(given[0], given[1]))
            data["exchange"] = {"phantom": CARD_CODES[given[0]], "christine": CARD_CODES[given[1]]}
        options = state.number_options()
        if self.simulation.rules.beginner:
            # The die shows the number: a roll over the faces the state offers.
            number = rng.randint(options[0], options[-1])
        else:
            leader = state.leader
            number = self.policies[leader].choose_special_number(
                rng, list(options), state.hand(leader), self.view()
            )
        _legal(state.step_special_number(number))
        data["special_number"] = number
        tricks: list[dict[str, Any]] = []
        data["tricks"] = tricks
        while state.phase == Phase.PLAY:
            tricks.append(self.play_trick())
        return data

    def play_trick(self) -> dict[str, Any]:
        state = self.state
        plays = [self.play_card()]
        while state.lead is not None:
            plays.append(self.play_card())
        outcome = state.last_trick
        assert outcome is not None
        trick: dict[str, Any] = {"plays": plays}
        if self.rng.random() < CLAIM_SHARE:
            trick["winner"] = outcome.winner.key
        return trick

    def play_card(self) -> dict[str, Any]:
        """The card of the player to move, and the swap it calls, if any."""
        state = self.state
        role = state.turn
        assert role is not None
        card = self.policies[role].play(self.rng, state.legal_cards(), state.lead, self.view())
        _legal(state.step_play(role, card))
        play: dict[str, Any] = {"player": role.key, "card": CARD_CODES[card]}
        if state.phase == Phase.SWAP:
            size = state.swap_due()
            given = [
                self.policies[side].give_in_swap(self.rng, state.hand(side), size, self.view())
                for side in Role
            ]
            _legal(state.step_swap(given[0], given[1]))
            play["swap"] = {"phantom": _codes(given[0]), "christine": _codes(given[1])}
        return play


def _legal(problem: Illegal | None) -> None:
    """A step the simulator took must be legal: its choices come from the state."""
    if problem is not None:
        raise AssertionError(f"the simulator took an illegal step: {problem!r}")


def simulate_game(simulation: Simulation, number: int) -> dict[str, Any]:
    """Game ``number`` (from 1) of a simulation, as a complete, legal record."""
    rng = random.Random(f"{simulation.seed}:{number}")
    phantom, christine = rng.sample(_NAMES, 2)
    game = _Game(simulation, rng)
    rounds = []
    while game.state.phase == Phase.DEAL:
        rounds.append(game.play_round())
    state = game.state
    winner = state.winner
    assert winner is not None
    rules = simulation.rules
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
        "result": {"winner": winner.key, "notes": state.notes},
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
