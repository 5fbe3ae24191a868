"""Build the example records of ``examples/`` by a seeded search, and check them.

Run it from anywhere (it finds the repository from its own path)::

    .venv/bin/python scripts/build_examples.py          # write examples/ anew
    .venv/bin/python scripts/build_examples.py --check  # compare with the files only

Every example is a game played out by random but legal choices, some of them scripted:
the rulebook's tricks of ``rulebook-walkthrough.json`` are fixed moves, and a candidate
that misses a requirement (notes at 6 before the rulebook's first illustrated trick, an
out-of-order special trick under the balance rule, a Phantom win before round 2 ends,
...) is thrown away for the next one. The random generator is seeded, so every run
writes the same files.

The rules are not written again here: every game is played on a
:class:`phantom_log.rules.engine.GameState`, which says whose turn it is, which cards are legal,
which special numbers may be picked, when a swap is due and of what size, who won each
trick, how the notes moved and when the round and the game end; the search only chooses
among the moves it allows. Every record written is checked with
:func:`phantom_log.checking.verdict.check_record` (the valid ones) or
:func:`phantom_log.checking.verdict.verify_paths` (the invalid ones). Each record of
``examples/invalid/`` is a legal game with one thing broken, said in its ``x-broken``
key; its file is named for the problem code it must produce first (``<code>.json``, or
``<code>--<variant>.json`` for another way to get it), and the script checks that it
does, at the round and trick where it was broken.

After a change here, refresh the golden outputs of the tests::

    PHANTOM_LOG_UPDATE_GOLDEN=1 .venv/bin/pytest tests/checking/test_examples.py
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, TypeVar

from phantom_log.checking.verdict import check_record, verify_paths
from phantom_log.records.record_texts import record_text
from phantom_log.rules.cards import (
    DECK_SIZE,
    FULL_DECK,
    NUMBERS_PER_SUIT,
    Role,
    Suit,
    card_code,
    card_number,
    card_suit,
    hand_cards,
    hand_mask,
    parse_card,
    popcount,
)
from phantom_log.rules.engine import (
    CARDS_PER_HAND,
    ROUNDS_PER_GAME,
    TRICKS_PER_ROUND,
    ExchangeCards,
    GameState,
    Phase,
    Rules,
    SwapCards,
    notes_after,
)
from phantom_log.rules.events import Reason, TrickEnded
from phantom_log.rules.problems import Illegal, Severity
from phantom_log.rules.sheets import NOTES_PER_SHEET, RULEBOOK_SHEET, Sheet, sheet_from_json

SEED: Final = 20261129
ROOT: Final = Path(__file__).resolve().parents[1]
EXAMPLES: Final = ROOT / "examples"
INVALID: Final = EXAMPLES / "invalid"
WIDTH: Final = 100

T = TypeVar("T")
Hands = tuple[int, int]
Gift = tuple[tuple[int, ...], tuple[int, ...]]
"""The cards each player gave in a swap, the Phantom's first."""


class Miss(Exception):
    """A candidate missed a requirement: throw it away and try the next one."""


def cards_mask(*codes: str) -> int:
    """The hand of these card codes."""
    return hand_mask([parse_card(code) for code in codes])


def holds(hand: int, card: int) -> bool:
    """True when the hand holds the card."""
    return bool(hand >> card & 1)


def liked_or_all(options: Sequence[T], liked: Callable[[T], bool]) -> list[T]:
    """The options liked, or all of them when none is liked."""
    return [option for option in options if liked(option)] or list(options)


def legal_step(problem: Illegal | None) -> None:
    """A step the search took must be legal: its choices come from the state."""
    if problem is not None:
        raise AssertionError(f"the search took an illegal step: {problem!r}")


# -- a game played out ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayDone:
    """A card played: who, which, both hands just before it, the cards the state allowed
    then, and the swap it called."""

    player: Role
    card: int
    hands_before: Hands
    legal: int
    swap: Gift | None


@dataclass(frozen=True, slots=True)
class TrickDone:
    """A trick played out: its two plays (with the hands before each) and the engine's
    :class:`~phantom_log.rules.events.TrickEnded` event, which says how it was judged."""

    plays: tuple[PlayDone, PlayDone]
    outcome: TrickEnded
    comment: str | None = None

    @property
    def leader(self) -> Role:
        """Who led the trick."""
        return self.plays[0].player


@dataclass(frozen=True, slots=True)
class RoundDone:
    """A round played out: the deal (Phantom, Christine, aside), the exchange, the special
    numbers the state offered and the one picked, the tricks."""

    deal: tuple[int, int, int]
    exchange: tuple[int, int] | None
    numbers: tuple[int, ...]
    special_number: int
    tricks: tuple[TrickDone, ...]


@dataclass(frozen=True, slots=True)
class Played:
    """A whole game played out, and the state it was left in."""

    rounds: tuple[RoundDone, ...]
    state: GameState

    def trick(self, round_no: int, trick_no: int) -> TrickDone:
        """One trick, both counted from 1."""
        return self.rounds[round_no - 1].tricks[trick_no - 1]

    def tricks(self) -> Iterator[tuple[int, int, TrickDone]]:
        """Every trick with its round and trick numbers."""
        for round_no, done in enumerate(self.rounds, start=1):
            for trick_no, trick in enumerate(done.tricks, start=1):
                yield round_no, trick_no, trick

    @property
    def end(self) -> tuple[int, int]:
        """The round and trick of the last trick played."""
        return len(self.rounds), len(self.rounds[-1].tricks)


# -- plans: the scripted moves and the requirements ----------------------------------------

HandsCheck = Callable[[Hands], bool]


@dataclass(frozen=True, slots=True)
class TrickPlan:
    """What one trick must be: fixed cards, conditions on the hands after a swap, and a
    condition on the outcome. Whatever is left open is played at random."""

    lead: str | None = None
    follow: str | None = None
    after_lead_swap: HandsCheck | None = None
    after_follow_swap: HandsCheck | None = None
    outcome: Callable[[TrickDone], bool] | None = None
    comment: str | None = None


FREE_TRICK: Final = TrickPlan()


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """What one round must be.

    ``keep``: cards dealt to each player (Phantom first) for a scripted trick; random
    moves neither play them nor give them away while there is another choice.
    ``christine_never``: cards never dealt to Christine. ``exchange``: a condition on the
    two cards exchanged (the Phantom's, Christine's). ``special_number``: fixed, or
    ``None`` for the leader's random pick (a die roll under the beginner rule).
    """

    keep: Hands = (0, 0)
    christine_never: int = 0
    exchange: Callable[[int, int], bool] | None = None
    special_number: int | None = None
    tricks: Mapping[int, TrickPlan] = field(default_factory=dict)
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class GamePlan:
    """A game to find: its sheet and rules, a plan per round, and a final condition."""

    sheet: Sheet
    rules: Rules
    rounds: tuple[RoundPlan, ...] = (RoundPlan(), RoundPlan())
    check: Callable[[Played], bool] | None = None
    attempts: int = 200_000


# -- playing at random -----------------------------------------------------------------


def choose_card(rng: random.Random, state: GameState, wanted: str | None, kept: Hands) -> int:
    """A card the state allows the player to move: the wanted one (a miss if it is not
    allowed) or one at random, sparing the cards kept for later."""
    role = state.turn
    assert role is not None
    allowed = state.legal_cards()
    if wanted is not None:
        card = parse_card(wanted)
        if not holds(allowed, card):
            raise Miss
        return card
    return rng.choice(liked_or_all(hand_cards(allowed), lambda card: not holds(kept[role], card)))


def choose_swap(
    rng: random.Random, state: GameState, check: HandsCheck | None, kept: Hands
) -> Gift:
    """A swap of the size the state waits for, at random among those whose result passes
    ``check`` (the state tells the hands each would leave), sparing the cards kept for
    later."""
    size = state.swap_due()
    hands = state.hands

    def spares(gift: Gift) -> bool:
        return not any(holds(kept[role], card) for role in Role for card in gift[role])

    if check is None:
        gives: list[tuple[int, ...]] = []
        for role in Role:
            cards = hand_cards(hands[role])
            spared = [card for card in cards if not holds(kept[role], card)]
            pool = spared if len(spared) >= size else cards
            gives.append(tuple(sorted(rng.sample(pool, size))))
        return gives[0], gives[1]
    gifts = [
        (action.phantom, action.christine)
        for action in state.legal_actions()
        if isinstance(action, SwapCards) and check(hands_after(state, action))
    ]
    if not gifts:
        raise Miss
    return rng.choice(liked_or_all(gifts, spares))


def hands_after(state: GameState, action: SwapCards) -> Hands:
    """Both hands once a swap is done, as the state does it."""
    after = state.apply(action)
    assert isinstance(after, GameState), after
    return after.hands


def play_cards(
    rng: random.Random, state: GameState, plan: TrickPlan, kept: Hands = (0, 0)
) -> list[PlayDone]:
    """The two plays of a trick and their swaps, stepped on the state; random choices
    spare the cards ``kept`` for later while they can."""
    plays: list[PlayDone] = []
    steps = ((plan.lead, plan.after_lead_swap), (plan.follow, plan.after_follow_swap))
    for wanted, check in steps:
        role = state.turn
        assert role is not None
        before = state.hands
        allowed = state.legal_cards()
        card = choose_card(rng, state, wanted, kept)
        legal_step(state.step_play(role, card))
        gift = None
        if state.phase == Phase.SWAP:
            gift = choose_swap(rng, state, check, kept)
            legal_step(state.step_swap(*gift))
        if check is not None and not check(state.hands):
            raise Miss
        plays.append(PlayDone(role, card, before, allowed, gift))
    return plays


def deal_cards(rng: random.Random, plan: RoundPlan) -> tuple[int, int, int]:
    """A deal (Phantom, Christine, aside) that gives each player the cards kept."""
    kept = plan.keep[0] | plan.keep[1]
    rest = [card for card in range(DECK_SIZE) if not holds(kept, card)]
    rng.shuffle(rest)
    christine = plan.keep[1]
    for card in rest:
        if popcount(christine) == CARDS_PER_HAND:
            break
        if not holds(plan.christine_never, card):
            christine |= 1 << card
    rest = [card for card in rest if not holds(christine, card)]
    phantom = plan.keep[0] | hand_mask(rest[: CARDS_PER_HAND - popcount(plan.keep[0])])
    if popcount(christine) != CARDS_PER_HAND:
        raise Miss
    return phantom, christine, FULL_DECK & ~phantom & ~christine


def play_round(rng: random.Random, state: GameState, plan: RoundPlan) -> RoundDone:
    """The next round stepped on the state by the plan; a :class:`Miss` if it cannot be."""
    deal = deal_cards(rng, plan)
    legal_step(state.step_deal(deal[0], deal[1]))
    exchange = None
    if state.phase == Phase.EXCHANGE:
        kept_phantom, kept_christine = plan.keep
        pairs = [
            (action.phantom, action.christine)
            for action in state.legal_actions()
            if isinstance(action, ExchangeCards)
            and not (kept_phantom >> action.phantom | kept_christine >> action.christine) & 1
            and (plan.exchange is None or plan.exchange(action.phantom, action.christine))
        ]
        if not pairs:
            raise Miss
        exchange = rng.choice(pairs)
        legal_step(state.step_exchange(*exchange))
    numbers = state.number_options()
    if state.rules.beginner:
        # The die shows the number: a roll over the faces the state offers.
        number = plan.special_number or rng.randint(numbers[0], numbers[-1])
    else:
        number = plan.special_number or rng.choice(numbers)
    if state.step_special_number(number) is not None:
        raise Miss
    tricks: list[TrickDone] = []
    while state.phase == Phase.PLAY:
        trick_plan = plan.tricks.get(len(tricks) + 1, FREE_TRICK)
        plays = play_cards(rng, state, trick_plan, plan.keep)
        outcome = state.last_trick
        assert outcome is not None
        done = TrickDone((plays[0], plays[1]), outcome, trick_plan.comment)
        if trick_plan.outcome is not None and not trick_plan.outcome(done):
            raise Miss
        tricks.append(done)
    if plan.tricks and max(plan.tricks) > len(tricks):
        raise Miss
    return RoundDone(deal, exchange, numbers, number, tuple(tricks))


def play_game(rng: random.Random, plan: GamePlan) -> Played:
    """The first game found that follows the plan (a game over before its last round is
    thrown away)."""
    for _ in range(plan.attempts):
        state = GameState.start(plan.sheet, plan.rules)
        rounds: list[RoundDone] = []
        for round_plan in plan.rounds:
            if state.phase != Phase.DEAL:
                break
            for _ in range(round_plan.attempts):
                trial = state.copy()
                try:
                    rounds.append(play_round(rng, trial, round_plan))
                except Miss:
                    continue
                state = trial
                break
            else:
                break
        else:
            played = Played(tuple(rounds), state)
            if plan.check is None or plan.check(played):
                return played
    raise RuntimeError("no game found: raise the attempts or loosen the plan")


def going_on(state: GameState) -> GameState:
    """A copy of a finished game's state as if the game went on, waiting for the next
    card: the same hands, the same leader (the last trick's winner), the same special
    number. Only for the after-game-end example: the engine has no step for it (there is
    no legal one), so the copy's phase is set back by hand; the cards are then chosen and
    checked by the state as any others."""
    more = state.copy()
    more.phase_code = Phase.PLAY
    return more


# -- records ------------------------------------------------------------------------


def codes(cards: Sequence[int] | int) -> list[str]:
    """Card codes in deck order, of a hand or of some cards."""
    mask = cards if isinstance(cards, int) else hand_mask(list(cards))
    return [card_code(card) for card in hand_cards(mask)]


def play_json(play: PlayDone) -> dict[str, Any]:
    """A play as the format writes it."""
    data: dict[str, Any] = {"player": play.player.key, "card": card_code(play.card)}
    if play.swap is not None:
        data["swap"] = {"phantom": codes(play.swap[0]), "christine": codes(play.swap[1])}
    return data


def trick_json(trick: TrickDone, winner: bool) -> dict[str, Any]:
    """A trick as the format writes it, its winner claimed or not."""
    data: dict[str, Any] = {"plays": [play_json(play) for play in trick.plays]}
    if winner:
        data["winner"] = trick.outcome.winner.key
    if trick.comment:
        data["comment"] = trick.comment
    return data


WinnerShown = Callable[[int, int, TrickDone], bool]


def record_json(
    played: Played,
    header: Mapping[str, Any],
    sheet: str | Mapping[str, Any],
    winners: WinnerShown = lambda round_no, trick_no, trick: False,
) -> dict[str, Any]:
    """The game as a record: the header (``game_id``, ``event``, ``players``, ...), then
    the sheet, the rules, the rounds and the result."""
    record: dict[str, Any] = {"format": "phantom-log/1", **header, "sheet": sheet}
    rules = played.state.rules
    record["rules"] = {"beginner": rules.beginner, "balance": rules.balance}
    rounds: list[dict[str, Any]] = []
    for round_no, done in enumerate(played.rounds, start=1):
        phantom, christine, aside = done.deal
        data: dict[str, Any] = {
            "deal": {
                "phantom": codes(phantom),
                "christine": codes(christine),
                "aside": codes(aside),
            }
        }
        if done.exchange is not None:
            data["exchange"] = {
                "phantom": card_code(done.exchange[0]),
                "christine": card_code(done.exchange[1]),
            }
        data["special_number"] = done.special_number
        data["tricks"] = [
            trick_json(trick, winners(round_no, trick_no, trick))
            for trick_no, trick in enumerate(done.tricks, start=1)
        ]
        rounds.append(data)
    record["rounds"] = rounds
    winner = played.state.winner
    record["result"] = {
        "winner": None if winner is None else winner.key,
        "notes": played.state.notes,
    }
    return record


def render(value: Any, indent: int = 0, prefix: int = 0) -> str:
    """JSON text with a 2-space indent, keeping on one line each array or object that fits
    in :data:`WIDTH` columns (``prefix``: the columns taken by its key on that line)."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, dict | list) or not value or indent + prefix + len(flat) < WIDTH:
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            head = json.dumps(key, ensure_ascii=False) + ": "
            lines.append(inner + head + render(item, indent + 2, len(head)))
        opening, closing = "{", "}"
    else:
        lines = [inner + render(item, indent + 2) for item in value]
        opening, closing = "[", "]"
    return opening + "\n" + ",\n".join(lines) + "\n" + " " * indent + closing


# -- the valid examples -------------------------------------------------------------


def numbers_of(*cards: int) -> list[int]:
    """The numbers shown by some cards, sorted."""
    return sorted(card_number(card) for card in cards)


def no_suit(role: Role, suit: Suit) -> HandsCheck:
    """A check: the player holds no card of the suit."""
    return lambda hands: not hands[role] & suit.mask


def holding(role: Role, code: str) -> HandsCheck:
    """A check: the player holds the card."""
    card = parse_card(code)
    return lambda hands: holds(hands[role], card)


def both(*checks: HandsCheck) -> HandsCheck:
    """A check passed when all the checks pass."""
    return lambda hands: all(check(hands) for check in checks)


def outcome(
    winner: Role, notes: tuple[int, int], reason: Reason | None = None
) -> Callable[[TrickDone], bool]:
    """A condition on a trick's winner, notes before and after, and reason."""

    def check(trick: TrickDone) -> bool:
        return (
            trick.outcome.winner == winner
            and (trick.outcome.notes_before, trick.outcome.notes_after) == notes
            and (reason is None or trick.outcome.reason == reason)
        )

    return check


PHANTOM, CHRISTINE = Role.PHANTOM, Role.CHRISTINE
STANDARD: Final = Rules()

WALKTHROUGH_ROUND_1: Final = RoundPlan(
    keep=(cards_mask("Ma5", "Ch4"), cards_mask("Ma6", "Ch5")),
    exchange=lambda mine, hers: numbers_of(mine, hers) == [3, 5],
    special_number=3,
    tricks={
        1: TrickPlan(
            lead="Ma5",
            follow="Ma6",
            outcome=outcome(CHRISTINE, (0, 1)),
            comment="Rulebook, the opening: the exchange showed a 3 and a 5 and the Phantom "
            "chose 3 as the special number. First trick: Mask 6 beats Mask 5, the same suit "
            "and a higher number. Note 1 is Christine's: in order, notes 0 -> 1.",
        ),
        2: TrickPlan(
            lead="Ch5",
            follow="Ch4",
            outcome=outcome(CHRISTINE, (1, 1)),
            comment="Rulebook, second trick: Chandelier 5 beats Chandelier 4. Note 2 is the "
            "Phantom's, so Christine's win is out of order: the notes stay at 1.",
        ),
    },
    attempts=1,
)

WALKTHROUGH_ROUND_2: Final = RoundPlan(
    keep=(cards_mask("Ch2", "Ch3", "Ma3"), cards_mask("Ma4", "Ri1", "Mi3")),
    christine_never=Suit.CHANDELIER.mask,
    exchange=lambda mine, hers: 3 in numbers_of(mine, hers) and card_suit(mine) != Suit.CHANDELIER,
    special_number=3,
    tricks={
        2: TrickPlan(
            outcome=lambda trick: trick.outcome.winner == PHANTOM and trick.outcome.notes_after == 6
        ),
        3: TrickPlan(
            lead="Ch2",
            follow="Ma4",
            outcome=outcome(PHANTOM, (6, 7), Reason.SUPER_TRUMP),
            comment="Rulebook illustration 1, super trump: with 6 notes completed the "
            "Chandelier bar holds the last one, so Chandelier is the super trump. Christine "
            "has no Chandelier and plays Mask 4, a trump, but the super trump beats it. Note "
            "7 is the Phantom's: notes 6 -> 7, and Ring becomes the super trump.",
        ),
        4: TrickPlan(
            lead="Ch3",
            after_lead_swap=both(no_suit(CHRISTINE, Suit.CHANDELIER), holding(CHRISTINE, "Ri1")),
            follow="Ri1",
            outcome=outcome(CHRISTINE, (7, 5), Reason.SUPER_TRUMP),
            comment="Rulebook illustration 2, the special number: Chandelier 3 calls a swap of "
            "2 cards each at once. Christine, still with no Chandelier, plays Ring 1, the super "
            "trump, and wins. Note 8 is the Phantom's: out of order with a special card, the "
            "last two notes are removed, notes 7 -> 5, and Chandelier is the super trump again.",
        ),
        5: TrickPlan(
            lead="Mi3",
            after_lead_swap=both(no_suit(PHANTOM, Suit.MIRROR), holding(PHANTOM, "Ma3")),
            follow="Ma3",
            outcome=outcome(PHANTOM, (5, 7), Reason.TRUMP),
            comment="Rulebook illustration 3, two special cards: Mirror 3 calls a swap; the "
            "Phantom, left with no Mirror, plays Mask 3, which calls a second swap. Trump beats "
            "the lead suit. Note 6 is the Phantom's: in order with a special card, counted once "
            "for the two 3s: notes 5 -> 7, and Ring is the super trump again.",
        ),
    },
    attempts=3000,
)


def walkthrough_winners(round_no: int, trick_no: int, trick: TrickDone) -> bool:
    """The recorder wrote the winner of the rulebook's tricks and of each round's last."""
    return trick.comment is not None or trick_no == TRICKS_PER_ROUND


def rulebook_walkthrough(rng: random.Random) -> tuple[Played, dict[str, Any]]:
    """The rulebook's worked example, played out to the end of the game."""
    played = play_game(
        rng,
        GamePlan(
            RULEBOOK_SHEET,
            STANDARD,
            (WALKTHROUGH_ROUND_1, WALKTHROUGH_ROUND_2),
            check=lambda played: played.state.winner is not None,
            attempts=2000,
        ),
    )
    header = {
        "game_id": "rulebook-walkthrough",
        "event": "The rulebook's worked example, played out",
        "date": "2026-11-29",
        "players": {"phantom": "Erik", "christine": "Christine"},
    }
    return played, record_json(played, header, "rulebook", walkthrough_winners)


def without_balance(trick: TrickDone) -> int:
    """The notes the trick would have left without the balance rule, as the engine counts
    them."""
    outcome = trick.outcome
    return notes_after(outcome.notes_before, outcome.in_order, outcome.special, False)


def balance_trick(trick: TrickDone) -> bool:
    """A trick that the balance rule changes (an out-of-order special one)."""
    return trick.outcome.notes_after != without_balance(trick)


def optional_rules(rng: random.Random) -> tuple[Played, dict[str, Any]]:
    """A Phantom win under the beginner and balance rules, with a balance trick in it."""
    played = play_game(
        rng,
        GamePlan(
            RULEBOOK_SHEET,
            Rules(beginner=True, balance=True),
            check=lambda played: (
                played.state.winner == PHANTOM
                and any(balance_trick(trick) for _, _, trick in played.tricks())
            ),
        ),
    )
    round_no, trick_no, trick = next(item for item in played.tricks() if balance_trick(item[2]))
    number = played.rounds[round_no - 1].special_number
    before, after = trick.outcome.notes_before, trick.outcome.notes_after
    comment = (
        f"Balance rule: out of order with a special card (a {number}), but only the last note "
        f"is removed: notes {before} -> {after} (without the rule, "
        f"{before} -> {without_balance(trick)})."
    )
    played = with_comment(played, round_no, trick_no, comment)
    header = {
        "game_id": "optional-rules",
        "event": "Club night: beginner and balance rules",
        "site": "Busan",
        "date": "2026-11-27",
        "players": {"phantom": "Jun", "christine": "Mina"},
    }
    return played, record_json(
        played, header, "rulebook", lambda round_no, trick_no, trick: trick.comment is not None
    )


MASQUERADE: Final[dict[str, Any]] = {
    "name": "masquerade",
    "bars": [
        {"suit": "Ma", "notes": "PC"},
        {"suit": "Ri", "notes": "CPPC"},
        {"suit": "Mi", "notes": "PPC"},
        {"suit": "Ch", "notes": "CPP"},
    ],
}


def masked_trick(trick: TrickDone) -> bool:
    """A trick won by Mask as the super trump."""
    return trick.outcome.super_trump == Suit.MASK and trick.outcome.reason == Reason.SUPER_TRUMP


def custom_sheet(rng: random.Random) -> tuple[Played, dict[str, Any]]:
    """A Christine win on a sheet of the record's own, with Mask as its first bar."""
    sheet = sheet_from_json(MASQUERADE)
    assert isinstance(sheet, Sheet)
    played = play_game(
        rng,
        GamePlan(
            sheet,
            STANDARD,
            check=lambda played: (
                played.state.winner == CHRISTINE
                and any(masked_trick(trick) for _, _, trick in played.tricks())
            ),
        ),
    )
    round_no, trick_no, _ = next(item for item in played.tricks() if masked_trick(item[2]))
    comment = (
        "On this sheet Mask is the first bar: with the last completed note in it, Mask is "
        "the super trump (and there is no other trump)."
    )
    played = with_comment(played, round_no, trick_no, comment)
    header = {
        "game_id": "custom-sheet",
        "event": "Club night: a sheet of our own",
        "site": "Seoul",
        "date": "2026-11-28",
        "players": {"phantom": "Hana", "christine": "Dae"},
    }
    return played, record_json(played, header, MASQUERADE, lambda r, t, trick: t % 5 == 0)


UNFINISHED_AT: Final = (2, 6)


def unfinished(rng: random.Random) -> tuple[Played, dict[str, Any]]:
    """A record that stops after the lead (a special card, with its swap) of round 2,
    trick 6."""
    round_no, trick_no = UNFINISHED_AT

    def stops_well(played: Played) -> bool:
        if len(played.rounds) < round_no or len(played.rounds[-1].tricks) < trick_no:
            return False
        return played.trick(round_no, trick_no).plays[0].swap is not None

    played = play_game(rng, GamePlan(RULEBOOK_SHEET, STANDARD, check=stops_well))
    header = {
        "game_id": "unfinished",
        "event": "Club night: a game left unfinished",
        "site": "Daegu",
        "date": "2026-11-26",
        "players": {"phantom": "Soo", "christine": "Yeon"},
    }
    record = record_json(played, header, "rulebook", lambda r, t, trick: t == 1)
    trick = played.trick(round_no, trick_no)
    tricks = record["rounds"][round_no - 1]["tricks"]
    del tricks[trick_no:]
    tricks[-1] = {
        "plays": tricks[-1]["plays"][:1],
        "comment": "The recording stops here, after the lead and its swap.",
    }
    record["result"] = {"winner": None, "notes": trick.outcome.notes_before}
    return played, record


def with_comment(played: Played, round_no: int, trick_no: int, comment: str) -> Played:
    """The same game with a comment on one trick."""
    rounds = list(played.rounds)
    tricks = list(rounds[round_no - 1].tricks)
    tricks[trick_no - 1] = replace(tricks[trick_no - 1], comment=comment)
    rounds[round_no - 1] = replace(rounds[round_no - 1], tricks=tuple(tricks))
    return replace(played, rounds=tuple(rounds))


# -- the invalid examples -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Broken:
    """An invalid example: a legal record with one thing broken.

    ``where`` is the round and trick of the problem it must produce first; ``text`` is
    the file's text when it is not the record's JSON.
    """

    name: str
    where: tuple[int | None, int | None]
    record: dict[str, Any]
    text: str | None = None
    #: The file's suffix: ``.ptn`` for an example written as game text.
    suffix: str = ".json"

    @property
    def code(self) -> str:
        """The problem code the file must produce first."""
        return self.name.split("--")[0]


def copy_to_break(base: Mapping[str, Any], name: str, what: str) -> dict[str, Any]:
    """A deep copy of a legal record, renamed ``invalid/<name>`` and saying in its
    ``x-broken`` key what is about to be broken."""
    record: dict[str, Any] = {}
    for key, value in copy.deepcopy(dict(base)).items():
        record[key] = value
        if key == "game_id":
            record[key] = f"invalid/{name}"
            record["x-broken"] = what
    return record


def trick_of(record: Mapping[str, Any], round_no: int, trick_no: int) -> dict[str, Any]:
    """The JSON of one trick of a record."""
    trick: dict[str, Any] = record["rounds"][round_no - 1]["tricks"][trick_no - 1]
    return trick


def title(role: Role) -> str:
    """The role as the messages write it."""
    return "the Phantom" if role is PHANTOM else "Christine"


def pronoun(role: Role) -> str:
    """He or she."""
    return "he" if role is PHANTOM else "she"


def revoke_card(trick: TrickDone, special_number: int) -> int | None:
    """A card that the follower held but the state did not allow (so following the lead
    suit was required), and that shows no special number; ``None`` when there is none."""
    follow = trick.plays[1]
    refused = hand_cards(follow.hands_before[follow.player] & ~follow.legal)
    return next((card for card in refused if card_number(card) != special_number), None)


def swap_of_two(trick: TrickDone) -> int | None:
    """The index of the first play of the trick followed by a swap of 2 cards each."""
    return next(
        (index for index, play in enumerate(trick.plays) if play.swap and len(play.swap[0]) == 2),
        None,
    )


@dataclass(frozen=True, slots=True)
class Base:
    """The legal game most invalid examples break, and where in round 2 each kind of
    break goes: a trick whose follower could have revoked, one with a swap of 2, one with
    no special card, one won by a trump or the super trump; and the first trick (round and
    trick) opened by a special card that calls a swap of 1 card each."""

    played: Played
    record: dict[str, Any]
    revoke: int
    swap: int
    plain: int
    trumped: int
    swap_of_one: tuple[int, int]

    @classmethod
    def find(cls, played: Played, record: dict[str, Any]) -> Base | None:
        """The base of a game, or ``None`` when a kind of break finds no place in it."""
        if len(played.rounds) < ROUNDS_PER_GAME:
            return None
        number = played.rounds[1].special_number
        revoke = mid_game(played, lambda trick: revoke_card(trick, number) is not None)
        swap = mid_game(played, lambda trick: swap_of_two(trick) is not None)
        plain = mid_game(played, lambda trick: not trick.outcome.special)
        trumped = mid_game(
            played, lambda trick: trick.outcome.reason in (Reason.TRUMP, Reason.SUPER_TRUMP)
        )
        swap_of_one = next(
            (
                (round_no, trick_no)
                for round_no, trick_no, trick in played.tricks()
                if (gift := trick.plays[0].swap) is not None and len(gift[0]) == 1
            ),
            None,
        )
        if revoke is None or swap is None or plain is None or trumped is None:
            return None
        if swap_of_one is None or len({revoke, swap, plain, trumped}) < 3:
            return None
        return cls(played, record, revoke, swap, plain, trumped, swap_of_one)


def mid_game(played: Played, liked: Callable[[TrickDone], bool]) -> int | None:
    """A trick of round 2 in mid-game, before the last one (trick 4 when it will do)."""
    last = len(played.rounds[1].tricks)
    return next(
        (
            trick_no
            for trick_no in (4, 5, 6, 3, 7, 8)
            if trick_no < last and liked(played.trick(2, trick_no))
        ),
        None,
    )


def base_game(rng: random.Random) -> Base:
    """A legal game won by the Phantom in round 2, before its last trick, with a place in
    mid-game for every kind of break."""
    header = {
        "game_id": "base",
        "event": "Spring league",
        "site": "Incheon",
        "stage": "4",
        "date": "2026-04-18",
        "players": {"phantom": "Park", "christine": "Choi"},
    }

    def record_of(played: Played) -> dict[str, Any]:
        return record_json(played, header, "rulebook", lambda round_no, trick_no, trick: True)

    def good(played: Played) -> bool:
        return (
            played.state.winner == PHANTOM
            and played.end[0] == ROUNDS_PER_GAME
            and 6 <= played.end[1] < TRICKS_PER_ROUND
            and Base.find(played, {}) is not None
        )

    played = play_game(rng, GamePlan(RULEBOOK_SHEET, STANDARD, check=good))
    base = Base.find(played, record_of(played))
    assert base is not None
    return base


def broken_json(base: Base) -> list[Broken]:
    """Texts that are not JSON: a comma lost in hand-editing, a winner corrected by adding
    a second key."""
    trick_no = base.trumped
    trick = trick_of(base.record, 2, trick_no)
    out = []
    for name, what in (
        ("json", f"round 2, trick {trick_no}: the comma after the plays is missing"),
        ("json--duplicate-key", f"round 2, trick {trick_no}: the key winner is given twice"),
    ):
        record = copy_to_break(base.record, name, what)
        record["rounds"][1]["tricks"][trick_no - 1] = PLACEHOLDER
        lines = render(trick, TRICK_INDENT).split("\n")
        at = next(i for i, line in enumerate(lines) if line.lstrip().startswith('"winner"'))
        if name == "json":
            lines[at - 1] = lines[at - 1].removesuffix(",")
        else:
            loser = "christine" if trick["winner"] == "phantom" else "phantom"
            lines.insert(at, lines[at].replace(trick["winner"], loser) + ",")
        text = render(record).replace(json.dumps(PLACEHOLDER), "\n".join(lines)) + "\n"
        out.append(Broken(name, (None, None), record, text))
    return out


PLACEHOLDER: Final = "@broken trick@"
TRICK_INDENT: Final = 8  # a trick's column in a rendered record: record, rounds, round, tricks


def broken_schema(base: Base, custom: Mapping[str, Any]) -> list[Broken]:
    """Records that break the schema or name a sheet that is not one."""
    out = []
    trick_no = base.revoke
    card = trick_of(base.record, 2, trick_no)["plays"][1]["card"]
    record = copy_to_break(
        base.record,
        "schema",
        f"round 2, trick {trick_no}: the card {card} is written in lower case",
    )
    trick_of(record, 2, trick_no)["plays"][1]["card"] = card.lower()
    out.append(Broken("schema", (2, trick_no), record))

    trick_no = base.plain
    what = f"round 2, trick {trick_no}: the key winner is misspelt winer"
    record = copy_to_break(base.record, "schema--typo-key", what)
    trick = trick_of(record, 2, trick_no)
    trick["winer"] = trick.pop("winner")
    out.append(Broken("schema--typo-key", (2, trick_no), record))

    record = copy_to_break(base.record, "unknown-sheet", "the sheet's name is capitalised")
    record["sheet"] = "Rulebook"
    out.append(Broken("unknown-sheet", (None, None), record))

    what = "the sheet's Ring bar has lost a note: 11 notes in all"
    record = copy_to_break(custom, "bad-sheet", what)
    record["sheet"]["bars"][1]["notes"] = "CPP"
    out.append(Broken("bad-sheet", (None, None), record))

    what = "the sheet's Mirror bar is marked Ring: two Ring bars and no Mirror"
    record = copy_to_break(custom, "bad-sheet--suit-twice", what)
    record["sheet"]["bars"][2]["suit"] = "Ri"
    out.append(Broken("bad-sheet--suit-twice", (None, None), record))
    return out


def broken_round_start(base: Base, optional: tuple[Played, dict[str, Any]]) -> list[Broken]:
    """Round 2 started wrong: the deal, the exchange, the special number."""
    out = []
    deal = base.record["rounds"][1]["deal"]
    mine, hers = deal["phantom"][-1], deal["christine"][-1]
    what = f"round 2's deal: Christine's {hers} is written {mine}, a card of the Phantom's"
    record = copy_to_break(base.record, "bad-deal", what)
    record["rounds"][1]["deal"]["christine"][-1] = mine
    out.append(Broken("bad-deal", (2, None), record))

    what = f"round 2's deal: the Phantom's {deal['phantom'][3]} is left out (9 cards)"
    record = copy_to_break(base.record, "bad-deal--count", what)
    del record["rounds"][1]["deal"]["phantom"][3]
    out.append(Broken("bad-deal--count", (2, None), record))

    what = "round 2's exchange: the two cards are written the wrong way round"
    record = copy_to_break(base.record, "bad-exchange", what)
    exchange = record["rounds"][1]["exchange"]
    exchange["phantom"], exchange["christine"] = exchange["christine"], exchange["phantom"]
    out.append(Broken("bad-exchange", (2, None), record))

    what = "round 2's exchange is left out, but the game is not played under the beginner rule"
    record = copy_to_break(base.record, "bad-exchange--missing", what)
    del record["rounds"][1]["exchange"]
    out.append(Broken("bad-exchange--missing", (2, None), record))

    optional_played, optional_record = optional
    phantom, christine, _ = optional_played.rounds[1].deal
    what = "round 2 records an exchange, but the game is played under the beginner rule"
    record = copy_to_break(optional_record, "bad-exchange--beginner", what)
    deal_only = {"deal": record["rounds"][1].pop("deal")}
    exchange = {"phantom": codes(phantom)[0], "christine": codes(christine)[0]}
    record["rounds"][1] = {**deal_only, "exchange": exchange, **record["rounds"][1]}
    out.append(Broken("bad-exchange--beginner", (2, None), record))

    allowed = base.played.rounds[1].numbers
    shown = " and ".join(str(number) for number in allowed)
    number = base.played.rounds[0].special_number
    if number in allowed:
        number = next(value for value in range(1, NUMBERS_PER_SUIT + 1) if value not in allowed)
        what = f"round 2's special number is written {number}, but the exchange shows {shown}"
    else:
        what = f"round 1's special number {number} is written again for round 2 ({shown} allowed)"
    record = copy_to_break(base.record, "bad-special-number", what)
    record["rounds"][1]["special_number"] = number
    out.append(Broken("bad-special-number", (2, None), record))
    return out


def broken_plays(base: Base, rng: random.Random) -> list[Broken]:
    """Illegal plays and swaps in mid-game, and a trick played after the game's end."""
    out = []
    played = base.played
    trick_no = base.plain
    what = (
        f"round 2, trick {trick_no}: the plays are written in the wrong order "
        f"({title(played.trick(2, trick_no).leader)} led)"
    )
    record = copy_to_break(base.record, "wrong-player", what)
    trick_of(record, 2, trick_no)["plays"].reverse()
    out.append(Broken("wrong-player", (2, trick_no), record))

    trick_no = base.trumped
    lead, follow = played.trick(2, trick_no).plays
    hand = follow.hands_before[follow.player]
    wrong = next(
        card
        for card in hand_cards(card_suit(follow.card).mask)
        if not holds(hand, card) and card != lead.card
    )
    what = (
        f"round 2, trick {trick_no}: {title(follow.player)}'s {card_code(follow.card)} is "
        f"written {card_code(wrong)}, a card {pronoun(follow.player)} does not hold"
    )
    record = copy_to_break(base.record, "card-not-held", what)
    trick_of(record, 2, trick_no)["plays"][1]["card"] = card_code(wrong)
    out.append(Broken("card-not-held", (2, trick_no), record))

    trick_no = base.swap
    index = swap_of_two(played.trick(2, trick_no))
    assert index is not None
    special = played.trick(2, trick_no).plays[index]
    code, role = card_code(special.card), special.player
    what = (
        f"round 2, trick {trick_no}: in the swap after {code}, {title(role)} is said to give "
        f"{code} itself, the card just played"
    )
    record = copy_to_break(base.record, "card-not-held--swap", what)
    trick_of(record, 2, trick_no)["plays"][index]["swap"][role.key][0] = code
    out.append(Broken("card-not-held--swap", (2, trick_no), record))

    trick_no = base.revoke
    revoked = played.trick(2, trick_no)
    off_suit = revoke_card(revoked, played.rounds[1].special_number)
    assert off_suit is not None
    follower, lead_suit = revoked.plays[1].player, card_suit(revoked.plays[0].card)
    what = (
        f"round 2, trick {trick_no}: {title(follower)} plays {card_code(off_suit)} instead of "
        f"{card_code(revoked.plays[1].card)}, while holding {lead_suit.title}"
    )
    record = copy_to_break(base.record, "revoke", what)
    trick_of(record, 2, trick_no)["plays"][1] = {
        "player": follower.key,
        "card": card_code(off_suit),
    }
    out.append(Broken("revoke", (2, trick_no), record))

    trick_no = base.swap
    what = f"round 2, trick {trick_no}: the swap after {code} is left out"
    record = copy_to_break(base.record, "missing-swap", what)
    del trick_of(record, 2, trick_no)["plays"][index]["swap"]
    out.append(Broken("missing-swap", (2, trick_no), record))

    what = f"round 2, trick {trick_no}: in the swap after {code}, {title(role)} gives one card"
    record = copy_to_break(base.record, "missing-swap--short", what)
    del trick_of(record, 2, trick_no)["plays"][index]["swap"][role.key][1]
    out.append(Broken("missing-swap--short", (2, trick_no), record))

    trick_no = base.plain
    plain, next_play = played.trick(2, trick_no).plays
    hands = next_play.hands_before  # after the lead, which called no swap
    what = (
        f"round 2, trick {trick_no}: a swap is recorded after {card_code(plain.card)}, but the "
        f"special number is {played.rounds[1].special_number}"
    )
    record = copy_to_break(base.record, "unexpected-swap", what)
    swap = {role.key: codes(hand_cards(hands[role])[:2]) for role in Role}
    trick_of(record, 2, trick_no)["plays"][0]["swap"] = swap
    out.append(Broken("unexpected-swap", (2, trick_no), record))

    round_no, trick_no = base.swap_of_one
    opening = played.trick(round_no, trick_no).plays[0]
    assert opening.swap is not None
    follower = opening.player.other
    given = opening.swap[follower]
    extra = next(card for card in hand_cards(opening.hands_before[follower]) if card not in given)
    what = (
        f"round {round_no}, trick {trick_no}: after {card_code(opening.card)}, "
        f"{title(opening.player)} holds one card, so each gives 1; {title(follower)} is said "
        "to give 2"
    )
    record = copy_to_break(base.record, "unexpected-swap--size", what)
    trick_of(record, round_no, trick_no)["plays"][0]["swap"][follower.key] = codes([*given, extra])
    out.append(Broken("unexpected-swap--size", (round_no, trick_no), record))

    end_round, end_trick = played.end
    more = play_cards(rng, going_on(played.state), FREE_TRICK)
    what = (
        f"round {end_round}, trick {end_trick + 1}: a trick is recorded after the Phantom "
        f"completed the sheet at trick {end_trick}"
    )
    record = copy_to_break(base.record, "after-game-end", what)
    record["rounds"][end_round - 1]["tricks"].append({"plays": [play_json(p) for p in more]})
    out.append(Broken("after-game-end", (end_round, end_trick + 1), record))
    return out


def broken_record(base: Base, walkthrough: Mapping[str, Any]) -> list[Broken]:
    """Records cut short, and claims that the replay does not bear out."""
    out = []
    trick_no = base.revoke
    what = f"round 2, trick {trick_no}: the second card is left out, and the record goes on"
    record = copy_to_break(base.record, "incomplete-trick", what)
    trick = trick_of(record, 2, trick_no)
    del trick["plays"][1], trick["winner"]
    out.append(Broken("incomplete-trick", (2, trick_no), record))

    what = f"round 1, trick {TRICKS_PER_ROUND} is left out, and round 2 follows"
    record = copy_to_break(base.record, "incomplete-round", what)
    del record["rounds"][0]["tricks"][-1]
    out.append(Broken("incomplete-round", (1, None), record))

    what = "round 2 is not recorded: the record stops after round 1 (an error under --strict)"
    record = copy_to_break(base.record, "unfinished", what)
    del record["rounds"][1], record["result"]
    out.append(Broken("unfinished", (1, TRICKS_PER_ROUND), record))

    trick_no = base.trumped
    trumped = base.played.trick(2, trick_no)
    card = trumped.plays[0 if trumped.outcome.winner == trumped.leader else 1].card
    given_to = title(trumped.outcome.winner.other)
    what = (
        f"round 2, trick {trick_no}: the trick is given to {given_to}, but "
        f"{card_code(card)} wins it as "
        + ("a trump" if trumped.outcome.reason is Reason.TRUMP else "the super trump")
    )
    record = copy_to_break(base.record, "winner-mismatch", what)
    trick_of(record, 2, trick_no)["winner"] = trumped.outcome.winner.other.key
    out.append(Broken("winner-mismatch", (2, trick_no), record))

    what = "the result names Christine as the winner"
    record = copy_to_break(base.record, "winner-mismatch--result", what)
    record["result"]["winner"] = "christine"
    out.append(Broken("winner-mismatch--result", (None, None), record))

    notes = walkthrough["result"]["notes"]
    claimed = notes + 1 if notes < NOTES_PER_SHEET - 1 else notes - 1
    what = f"the result claims {claimed} notes; the game ended with {notes}"
    record = copy_to_break(walkthrough, "notes-mismatch", what)
    record["result"]["notes"] = claimed
    out.append(Broken("notes-mismatch", (None, None), record))
    return out


def invalid_examples(
    rng: random.Random,
    walkthrough: Mapping[str, Any],
    optional: tuple[Played, dict[str, Any]],
    custom: Mapping[str, Any],
) -> list[Broken]:
    """One record per problem code (and a few variants), each a legal game broken once."""
    base = base_game(rng)
    return [
        *broken_json(base),
        *broken_schema(base, custom),
        *broken_round_start(base, optional),
        *broken_plays(base, rng),
        *broken_record(base, walkthrough),
    ]


# -- writing and checking ---------------------------------------------------------------


def check_valid(name: str, record: dict[str, Any]) -> None:
    """A valid example must verify with no problem (an unfinished one: its warning only)
    and with the result it claims."""
    problems, outcome_ = check_record(record)
    codes_found = [problem.code.value for problem in problems]
    expected = ["unfinished"] if record["result"]["winner"] is None else []
    if codes_found != expected or outcome_ is None or outcome_.result is None:
        raise SystemExit(f"{name}: expected {expected}, got {problems}")
    if outcome_.result.to_json() != record["result"]:
        raise SystemExit(f"{name}: the result {record['result']} is not the replay's")


def check_invalid(path: Path, example: Broken) -> None:
    """An invalid example must give its code first, where it was broken."""
    reports = list(verify_paths([str(path)], strict=True))
    errors = [p for report in reports for p in report.problems if p.severity is Severity.ERROR]
    first = errors[0] if errors else None
    if first is None or (first.code.value, (first.round, first.trick)) != (
        example.code,
        example.where,
    ):
        raise SystemExit(f"{path.name}: expected {example.code} at {example.where}, got {first}")


def build() -> tuple[dict[Path, str], list[Broken]]:
    """Every example file's path and text, and the invalid examples."""
    rng = random.Random(SEED)
    valid = {
        "rulebook-walkthrough": rulebook_walkthrough(rng),
        "optional-rules": optional_rules(rng),
        "custom-sheet": custom_sheet(rng),
        "unfinished": unfinished(rng),
    }
    files: dict[Path, str] = {}
    for name, (_, record) in valid.items():
        check_valid(name, record)
        files[EXAMPLES / f"{name}.json"] = render(record) + "\n"
    broken_ones = invalid_examples(
        rng, valid["rulebook-walkthrough"][1], valid["optional-rules"], valid["custom-sheet"][1]
    )
    walkthrough = valid["rulebook-walkthrough"][1]
    files[EXAMPLES / "rulebook-walkthrough.ptn"] = record_text(walkthrough)[0]
    broken_ones += game_text_examples(walkthrough, valid["optional-rules"][1])
    for example in broken_ones:
        text = example.text if example.text is not None else render(example.record) + "\n"
        files[INVALID / f"{example.name}{example.suffix}"] = text
    return files, broken_ones


def game_text_examples(walkthrough: dict[str, Any], early: dict[str, Any]) -> list[Broken]:
    """The invalid examples written as game text, each saying in a comment what is
    broken: a card code that is none (the notation's own problem, at its line), and a
    game whose deals are left out, with a round that ends early without the cards still
    held (its deal cannot be found)."""
    typo_record = copy_to_break(walkthrough, "notation", "a card code that is none: Ri7")
    text = record_text(typo_record)[0]
    typo = text.replace("\n3. Ri6 Ri5", "\n3. Ri6 Ri7", 1)
    assert typo != text
    what = "the deals left out, and no 'left' lines after the round that ended early"
    early_record = copy_to_break(early, "bad-deal--left-out", what)
    left_out = "".join(
        line
        for line in record_text(early_record)[0].splitlines(keepends=True)
        if not line.startswith(("deal ", "aside "))
    )
    return [
        Broken(
            "notation", (None, None), typo_record, f"# {typo_record['x-broken']}\n{typo}", ".ptn"
        ),
        Broken(
            "bad-deal--left-out",
            (len(early["rounds"]), None),
            early_record,
            f"# {what}\n{left_out}",
            ".ptn",
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Write the examples and check them (or, with ``--check``, compare with the files)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; write nothing")
    options = parser.parse_args(argv)
    files, broken_ones = build()
    if options.check:
        stale = [
            path for path, text in files.items() if not path.exists() or path.read_text() != text
        ]
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)}", file=sys.stderr)
        return 1 if stale else 0
    INVALID.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    for example in broken_ones:
        check_invalid(INVALID / f"{example.name}{example.suffix}", example)
    print(f"wrote {len(files)} files under {EXAMPLES.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
