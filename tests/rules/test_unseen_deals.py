"""A round dealt unseen (``DealUnseen``): the rules follow a game whose hands nobody wrote
down, refuse only what cannot be, and find the deal at the round's end
(``GameState.inferred_deal``). Laws over simulated games of every variant and the
examples: nothing legal is refused, every turn is the same as with the deal known, and
the deal found is the deal that was dealt."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from phantom_log.analysis.simulator import Simulation, simulate
from phantom_log.rules.cards import CARD_BY_CODE
from phantom_log.rules.engine import (
    Action,
    DealCards,
    DealUnseen,
    ExchangeCards,
    GameState,
    PickSpecialNumber,
    PlayCard,
    Result,
    Rules,
    SwapCards,
)
from phantom_log.rules.events import Dealt, RoundStarted
from phantom_log.rules.problems import Code, Illegal
from phantom_log.rules.replay import GameVisitor, replay_record
from phantom_log.rules.sheets import RULEBOOK_SHEET, Sheet
from tests.helpers.paths import WALKTHROUGH


class _Steps(GameVisitor[list[Any]]):
    """The deals and the decisions of a record, in order, and its final state."""

    wants_decisions = True

    def __init__(self) -> None:
        self.steps: list[Any] = []
        self.final: GameState | None = None
        self.sheet: Sheet | None = None
        self.rules: Rules | None = None

    def begin_game(self, sheet: Sheet, rules: Rules) -> None:
        self.sheet, self.rules = sheet, rules

    def visit_deal(self, event: Dealt) -> None:
        self.steps.append(DealCards(event.phantom_hand, event.christine_hand))

    def visit_round_start(self, event: RoundStarted) -> None:
        if self.rules is not None and self.rules.beginner:  # the die's, no player's pick
            self.steps.append(PickSpecialNumber(event.special_number))

    def visit_decision(self, state: GameState, action: Action) -> None:
        self.steps.append((state.copy(), action))

    def end_game(self, result: Result | None, final: GameState) -> None:
        self.final = final.copy()

    def result(self) -> list[Any]:
        return self.steps


def _followed_unseen(record: dict[str, Any]) -> int:
    """Replay ``record`` (legal) with every round dealt unseen; the rounds whose deal was
    found again. Fails on any refusal, any other turn, any other deal."""
    seen = _Steps()
    replay_record(record, seen)
    assert seen.sheet is not None and seen.rules is not None and seen.final is not None
    unseen = GameState.start(seen.sheet, seen.rules, tracking=False)
    dealt: DealCards | None = None
    found = 0

    def round_ended(left: tuple[int, int]) -> None:
        nonlocal found
        assert dealt is not None
        assert unseen.inferred_deal(*left) == (dealt.phantom, dealt.christine)
        found += 1

    for step in seen.steps:
        if isinstance(step, DealCards):
            if dealt is not None:
                round_ended((0, 0))  # a round that was played to its tenth trick
            dealt = step
            after = unseen.apply(DealUnseen())
        elif isinstance(step, PickSpecialNumber):
            after = unseen.apply(step)
        else:
            real, action = step
            assert unseen.turn == real.turn
            assert unseen.phase == real.phase
            assert unseen.swap_due() == real.swap_due()
            if unseen.turn is not None:
                assert real.legal_cards() & ~unseen.legal_cards() == 0
            after = unseen.apply(action)
        assert not isinstance(after, Illegal), (after, step)
        unseen = after
    final = seen.final
    round_ended((final.phantom_hand, final.christine_hand))
    assert unseen.winner == final.winner and unseen.notes == final.notes
    return found


VARIANTS = [
    Simulation(RULEBOOK_SHEET, Rules(beginner, balance), phantom, christine, seed)
    for (beginner, balance), (phantom, christine), seed in itertools.product(
        [(False, False), (True, False), (False, True), (True, True)],
        [("random", "random"), ("greedy", "random")],
        [1, 2],
    )
]


@pytest.mark.parametrize("simulation", VARIANTS, ids=lambda s: f"{s.rules}-{s.phantom}-{s.seed}")
def test_a_game_dealt_unseen_is_followed_and_its_deals_found(simulation: Simulation) -> None:
    rounds = sum(_followed_unseen(record) for record in simulate(simulation, 25))
    assert rounds >= 25  # every game has a round; most have two


def test_the_walkthrough_dealt_unseen() -> None:
    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    assert _followed_unseen(record) == len(record["rounds"])


def _card(code: str) -> int:
    return CARD_BY_CODE[code]


def _unseen_round(*actions: Action) -> GameState | Illegal:
    state: GameState | Illegal = GameState.start(RULEBOOK_SHEET, Rules(), tracking=False)
    for action in (DealUnseen(), *actions):
        assert isinstance(state, GameState)
        state = state.apply(action)
    return state


def _open(*plays: Action) -> GameState | Illegal:
    # The exchange shows a 3 and a 5; the Phantom picks 3.
    return _unseen_round(ExchangeCards(_card("Ri3"), _card("Mi5")), PickSpecialNumber(3), *plays)


def test_unseen_a_card_played_twice_is_not_held() -> None:
    problem = _open(
        PlayCard(_phantom(), _card("Ma5")),
        PlayCard(_christine(), _card("Ma6")),
        PlayCard(_christine(), _card("Ma5")),
    )
    assert isinstance(problem, Illegal) and problem.code == Code.CARD_NOT_HELD


def test_unseen_a_card_given_away_is_not_held_until_it_comes_back() -> None:
    # The Phantom gave Ri3 in the exchange: he cannot lead it.
    problem = _open(PlayCard(_phantom(), _card("Ri3")))
    assert isinstance(problem, Illegal) and problem.code == Code.CARD_NOT_HELD


def test_unseen_a_revoke_is_known_only_from_a_card_received() -> None:
    # Christine received Ri3 in the exchange: she must follow a Ring lead with it...
    problem = _open(PlayCard(_phantom(), _card("Ri5")), PlayCard(_christine(), _card("Ma6")))
    assert isinstance(problem, Illegal) and problem.code == Code.REVOKE
    # ...but a Mask lead she may answer with anything: her Masks are not known.
    state = _open(PlayCard(_phantom(), _card("Ma5")), PlayCard(_christine(), _card("Ch6")))
    assert isinstance(state, GameState)


def test_unseen_a_suit_shown_void_cannot_be_played_after() -> None:
    # Christine does not follow a Mask lead: she holds no Mask, and cannot play one later,
    # whether she leads the next trick or follows in it.
    state = _open(PlayCard(_phantom(), _card("Ma5")), PlayCard(_christine(), _card("Ch6")))
    assert isinstance(state, GameState)
    if state.turn == _phantom():
        led = state.apply(PlayCard(_phantom(), _card("Mi1")))
        assert isinstance(led, GameState)
        state = led
    assert state.turn == _christine()
    problem = state.apply(PlayCard(_christine(), _card("Ma2")))
    assert isinstance(problem, Illegal) and problem.code == Code.CARD_NOT_HELD
    # Any other suit she may still hold.
    assert isinstance(state.apply(PlayCard(_christine(), _card("Mi2"))), GameState)


def test_an_unseen_deal_that_cannot_have_been_dealt_is_a_bad_deal() -> None:
    state = _open(PlayCard(_phantom(), _card("Ma5")), PlayCard(_christine(), _card("Ma6")))
    assert isinstance(state, GameState)
    # Nine cards still held each, said at the round's end: one too many for Christine...
    hands = state.inferred_deal(0, 0)
    assert isinstance(hands, Illegal) and hands.code == Code.BAD_DEAL
    assert hands.facts["left"] == 0 and hands.facts["expected"] == 9


def test_the_deal_found_is_refused_for_a_round_dealt_seen() -> None:
    state = GameState.start(RULEBOOK_SHEET, Rules(), tracking=False)
    problem = state.inferred_deal(0, 0)
    assert isinstance(problem, Illegal) and problem.code == Code.BAD_DEAL


def test_an_unseen_swap_is_as_large_as_the_hands_allow() -> None:
    # A special card (3) with ten cards each: a swap of two is due.
    state = _open(PlayCard(_phantom(), _card("Ch3")))
    assert isinstance(state, GameState) and state.swap_due() == 2
    refused = state.apply(SwapCards((_card("Mi1"),), (_card("Ri1"),)))
    assert isinstance(refused, Illegal) and refused.code == Code.MISSING_SWAP


def _phantom() -> Any:
    from phantom_log.rules.cards import Role

    return Role.PHANTOM


def _christine() -> Any:
    from phantom_log.rules.cards import Role

    return Role.CHRISTINE
