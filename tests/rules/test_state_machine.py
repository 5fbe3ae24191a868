"""The public game state machine: phases, legal actions, apply, problems as data, perft.

Every test here runs against whichever build of the engine is imported: the compiled one,
or the pure-Python one under ``PHANTOM_LOG_PURE_PYTHON=1`` (CI runs both).
"""

from __future__ import annotations

import ast
import copy
import re

import pytest

from phantom_log.checking import wording
from phantom_log.rules.cards import CARD_BY_CODE, Role, Suit, hand_mask
from phantom_log.rules.engine import (
    BALANCE_PENALTY,
    SPECIAL_PENALTY,
    DealCards,
    ExchangeCards,
    GameState,
    Phase,
    PickSpecialNumber,
    PlayCard,
    Rules,
    SwapCards,
)
from phantom_log.rules.events import TrickEnded
from phantom_log.rules.problems import Code, Illegal
from phantom_log.rules.replay import replay_record
from phantom_log.rules.sheets import RULEBOOK_SHEET
from tests.helpers.gamebuild import cards, record, round_, trick
from tests.helpers.paths import REPO

ENGINE = REPO / "phantom_log" / "rules" / "engine.py"
PHANTOM = cards("Mi1-5 Ch1-5")
CHRISTINE = cards("Ri1-5 Ma1-5")


def mask(codes: list[str]) -> int:
    return hand_mask([CARD_BY_CODE[code] for code in codes])


def dealt(rules: Rules | None = None) -> GameState:
    state = GameState.start(RULEBOOK_SHEET, rules or Rules())
    after = state.apply(DealCards(mask(PHANTOM), mask(CHRISTINE)))
    assert isinstance(after, GameState)
    return after


def step(state: GameState, action: object) -> GameState:
    after = state.apply(action)  # type: ignore[arg-type]
    assert isinstance(after, GameState), after
    return after


def test_a_game_starts_waiting_for_the_deal() -> None:
    state = GameState.start(RULEBOOK_SHEET)
    assert state.phase is Phase.DEAL
    assert state.round == 1 and state.notes == 0 and state.super_trump is None
    assert state.legal_actions() == []  # dealing is chance's, not a player's


def test_after_the_deal_every_pair_of_cards_may_be_exchanged() -> None:
    state = dealt()
    assert state.phase is Phase.EXCHANGE
    actions = state.legal_actions()
    assert len(actions) == 10 * 10
    assert all(isinstance(action, ExchangeCards) for action in actions)


def test_the_exchange_offers_the_numbers_of_the_two_cards() -> None:
    state = step(dealt(), ExchangeCards(CARD_BY_CODE["Mi3"], CARD_BY_CODE["Ma5"]))
    assert state.phase is Phase.SPECIAL_NUMBER
    assert state.number_options() == (3, 5)
    same = step(dealt(), ExchangeCards(CARD_BY_CODE["Mi3"], CARD_BY_CODE["Ma3"]))
    assert same.number_options() == (3,)


def test_under_the_beginner_rule_the_die_gives_any_number() -> None:
    state = dealt(Rules(beginner=True))
    assert state.phase is Phase.SPECIAL_NUMBER
    assert state.number_options() == (1, 2, 3, 4, 5, 6)
    problem = state.apply(ExchangeCards(CARD_BY_CODE["Mi1"], CARD_BY_CODE["Ri1"]))
    assert isinstance(problem, Illegal) and problem.code is Code.BAD_EXCHANGE


def playing(number: int = 5) -> GameState:
    """Round 1 after the Phantom gave Mi1 and Christine Ma5, with special number 1 or 5."""
    state = step(dealt(), ExchangeCards(CARD_BY_CODE["Mi1"], CARD_BY_CODE["Ma5"]))
    return step(state, PickSpecialNumber(number))


def test_the_phantom_leads_round_one_with_any_card() -> None:
    state = playing()
    assert state.phase is Phase.PLAY and state.turn is Role.PHANTOM
    hand = state.hand(Role.PHANTOM)
    assert state.legal_cards() == hand
    assert [action.card for action in state.legal_actions()] == [  # type: ignore[union-attr]
        card for card in range(24) if hand >> card & 1
    ]


def test_the_follower_must_follow_suit_when_able() -> None:
    state = step(playing(), PlayCard(Role.PHANTOM, CARD_BY_CODE["Ma5"]))
    state = step(
        state,
        SwapCards(
            (CARD_BY_CODE["Mi2"], CARD_BY_CODE["Mi3"]), (CARD_BY_CODE["Ri1"], CARD_BY_CODE["Ri2"])
        ),
    )
    assert state.turn is Role.CHRISTINE
    assert state.legal_cards() == state.hand(Role.CHRISTINE) & Suit.MASK.mask
    problem = state.apply(PlayCard(Role.CHRISTINE, CARD_BY_CODE["Ri3"]))
    assert isinstance(problem, Illegal) and problem.code is Code.REVOKE
    assert problem.facts["lead_suit"] is Suit.MASK
    assert problem.facts["card"] == CARD_BY_CODE["Ri3"]


def test_apply_leaves_the_state_it_was_called_on_unchanged() -> None:
    state = playing()
    before = copy.copy((state.phase, state.hands, state.notes, state.turn))
    state.apply(PlayCard(Role.PHANTOM, CARD_BY_CODE["Ch2"]))
    state.apply(PlayCard(Role.CHRISTINE, CARD_BY_CODE["Ri2"]))
    assert (state.phase, state.hands, state.notes, state.turn) == before


def test_a_wrong_player_is_a_problem_with_its_facts() -> None:
    problem = playing().apply(PlayCard(Role.CHRISTINE, CARD_BY_CODE["Ri2"]))
    assert isinstance(problem, Illegal)
    assert problem.code is Code.WRONG_PLAYER
    assert problem.facts["player"] is Role.CHRISTINE
    assert problem.facts["expected"] is Role.PHANTOM


def test_a_special_card_waits_for_a_swap_of_two() -> None:
    state = step(playing(5), PlayCard(Role.PHANTOM, CARD_BY_CODE["Ma5"]))
    assert state.phase is Phase.SWAP and state.swap_due() == 2
    swaps = state.legal_actions()
    phantom_cards = state.hand(Role.PHANTOM).bit_count()
    christine_cards = state.hand(Role.CHRISTINE).bit_count()
    pairs = phantom_cards * (phantom_cards - 1) // 2 * christine_cards * (christine_cards - 1) // 2
    assert len(swaps) == pairs
    given = SwapCards((CARD_BY_CODE["Mi2"], CARD_BY_CODE["Mi3"]), (CARD_BY_CODE["Ri1"],))
    problem = state.apply(given)
    assert isinstance(problem, Illegal) and problem.code is Code.MISSING_SWAP
    after = step(
        state,
        SwapCards(
            (CARD_BY_CODE["Mi2"], CARD_BY_CODE["Mi3"]), (CARD_BY_CODE["Ri1"], CARD_BY_CODE["Ri2"])
        ),
    )
    assert after.phase is Phase.PLAY and after.turn is Role.CHRISTINE
    assert after.hand(Role.PHANTOM) >> CARD_BY_CODE["Ri1"] & 1


def test_a_completed_trick_reports_its_outcome() -> None:
    state = step(playing(), PlayCard(Role.PHANTOM, CARD_BY_CODE["Ch2"]))
    state = step(state, PlayCard(Role.CHRISTINE, CARD_BY_CODE["Ma2"]))
    outcome = state.last_trick
    assert isinstance(outcome, TrickEnded)
    assert outcome.winner is Role.CHRISTINE and outcome.reason.value == "trump"
    assert (outcome.notes_before, outcome.notes_after) == (0, 1)  # note 1 is Christine's
    assert state.turn is Role.CHRISTINE and state.trick == 2


def test_the_balance_penalty_is_one_number_in_the_engine() -> None:
    assert (SPECIAL_PENALTY, BALANCE_PENALTY) == (2, 1)


def perft(state: GameState, tricks: int) -> int:
    """How many ways the game can go on for ``tricks`` more tricks (plays and swaps)."""
    if tricks == 0 or state.is_over:
        return 1
    total = 0
    for action in state.legal_actions():
        after = state.apply(action)
        assert isinstance(after, GameState)
        done = after.phase is Phase.PLAY and after.lead is None
        total += perft(after, tricks - 1 if done else tricks)
    return total


@pytest.mark.parametrize(("tricks", "expected"), [(1, 100), (2, 8_100)])
def test_perft_counts_from_a_fixed_deal(tricks: int, expected: int) -> None:
    """The count of ways to play the first tricks of a fixed deal (python-chess's perft
    numbers, for this game): a golden figure that any change to the order of play or the
    follow-suit rule would move. The deal holds no 6 and the die shows 6, so no swap;
    neither player ever holds the other's suits, so every trick is any card against any
    card: 10 x 10, then 9 x 9 (worked out by hand)."""
    state = step(dealt(Rules(beginner=True)), PickSpecialNumber(6))
    assert perft(state, tricks) == expected


def test_perft_of_a_trick_with_swaps() -> None:
    """The rest of a trick led with a special card: every swap, then every follow (a
    golden figure from the engine itself)."""
    led = step(playing(5), PlayCard(Role.PHANTOM, CARD_BY_CODE["Ma5"]))
    assert perft(led, 1) == 5_184


def test_replay_is_a_fold_of_the_records_actions_over_the_state() -> None:
    data = record(
        round_(
            PHANTOM,
            CHRISTINE,
            [trick("P Ch2", "C Ma2"), trick("C Ri3", "P Mi3"), trick("P Ch3", "C Ma3")],
            exchange=("Mi1", "Ma5"),
            special=1,
        )
    )
    replayed = replay_record(data)
    state = GameState.start(RULEBOOK_SHEET)
    state = step(state, DealCards(mask(PHANTOM), mask(CHRISTINE)))
    state = step(state, ExchangeCards(CARD_BY_CODE["Mi1"], CARD_BY_CODE["Ma5"]))
    state = step(state, PickSpecialNumber(1))
    outcomes = []
    for item in data["rounds"][0]["tricks"]:
        for entry in item["plays"]:
            role = Role.PHANTOM if entry["player"] == "phantom" else Role.CHRISTINE
            state = step(state, PlayCard(role, CARD_BY_CODE[entry["card"]]))
        outcomes.append(state.last_trick)
    assert outcomes == replayed.tricks
    assert replayed.final is not None
    assert (replayed.final.notes, replayed.final.hands) == (state.notes, state.hands)


def test_every_code_the_engine_returns_is_worded() -> None:
    engine_codes = {
        node.attr
        for node in ast.walk(ast.parse(ENGINE.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Code"
    }
    for name in engine_codes:
        assert Code[name] in wording._WORDS, name


def test_the_engine_holds_no_english() -> None:
    """Problems leave the engine as codes and facts: apart from docstrings and comments,
    no string in engine.py is a phrase (two words or more)."""
    tree = ast.parse(ENGINE.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    phrases = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", node.value)
    ]
    assert phrases == []


def test_card_codes_are_read_from_their_characters_exactly() -> None:
    """The replay reads each card code from its three characters; every code of the deck
    gives its card, anything else is refused as the table would refuse it."""
    from phantom_log.rules.cards import CARD_BY_CODE, parse_card

    for code, card in CARD_BY_CODE.items():
        assert parse_card(code) == card
    for wrong in ["Mi0", "Mi7", "mi1", "MI1", "Mx1", "Ca1", "Mi", "Mi11", "", 3, None, "\uff2di1"]:
        with pytest.raises((KeyError, TypeError)):
            parse_card(wrong)
