"""Laws that hold for every game, checked with hypothesis.

The random games are legal by construction: :class:`~tests.helpers.gamebuild.RefGame`, a
small reference implementation of RULES.md that never calls the engine, decides which
cards and which swaps are legal, and hypothesis picks among them. The engine must then
accept every such game, agree with the reference trick by trick, and keep its own books
straight.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from phantom_log.checking.verdict import check_record
from phantom_log.rules.cards import CARD_CODES, Role, Suit, hand_cards, hand_codes, hand_mask
from phantom_log.rules.engine import SwapCards, judge, notes_after
from phantom_log.rules.events import Reason, leader_wins, verdict_reason
from phantom_log.rules.problems import Code
from phantom_log.rules.replay import GameLog, GameLogBuilder, VerdictBuilder, replay_record
from tests.helpers.gamebuild import (
    DECK,
    ROLES,
    SUITS,
    JsonDict,
    RefGame,
    follower_wins,
    sheet_object,
)

SUPER_TRUMPS = st.sampled_from([None, *Suit])
CARDS = st.integers(min_value=0, max_value=23)
GAMES = settings(max_examples=200, deadline=None)


def judge_trick(lead: int, follow: int, super_trump: Suit | None) -> tuple[bool, Reason]:
    """The engine's verdict on a trick, read: whether the leader wins, and why."""
    verdict = judge(lead, follow, -1 if super_trump is None else int(super_trump))
    return leader_wins(verdict), verdict_reason(verdict)


# Classes of a card in a different-suit trick, strongest first (RULES.md).
REASON_OF_CLASS = {3: Reason.SUPER_TRUMP, 2: Reason.TRUMP, 1: Reason.LEAD_SUIT}


def card_class(suit: Suit, lead_suit: Suit, super_trump: Suit | None) -> int:
    if suit == super_trump:
        return 3
    if suit == Suit.MASK:
        return 2
    return 1 if suit == lead_suit else 0


# -- the judge and the notes -------------------------------------------------------------


@given(lead=CARDS, follow=CARDS, super_trump=SUPER_TRUMPS)
def test_different_suits_one_side_wins_for_its_class(
    lead: int, follow: int, super_trump: Suit | None
) -> None:
    lead_suit, follow_suit = Suit(lead // 6), Suit(follow // 6)
    assume(lead_suit != follow_suit)
    leader_wins, reason = judge_trick(lead, follow, super_trump)
    winner, loser = (lead_suit, follow_suit) if leader_wins else (follow_suit, lead_suit)
    winner_class = card_class(winner, lead_suit, super_trump)
    loser_class = card_class(loser, lead_suit, super_trump)
    # The winner's class is strictly stronger: there is no tie, and it names the reason.
    assert winner_class > loser_class
    assert reason is REASON_OF_CLASS[winner_class]
    assert leader_wins != follower_wins(
        CARD_CODES[lead], CARD_CODES[follow], None if super_trump is None else super_trump.code
    )


@given(
    suit=st.sampled_from(list(Suit)),
    numbers=st.lists(st.integers(1, 6), min_size=2, max_size=2, unique=True),
    super_trump=SUPER_TRUMPS,
)
def test_same_suit_is_decided_by_the_number(
    suit: Suit, numbers: list[int], super_trump: Suit | None
) -> None:
    lead, follow = (suit * 6 + number - 1 for number in numbers)
    leader_wins, reason = judge_trick(lead, follow, super_trump)
    assert leader_wins == (numbers[0] > numbers[1])
    assert reason is Reason.HIGHER_NUMBER


@given(
    notes=st.integers(0, 11),
    in_order=st.booleans(),
    special=st.booleans(),
    balance=st.booleans(),
)
def test_notes_stay_in_range_and_move_by_the_rules(
    notes: int, in_order: bool, special: bool, balance: bool
) -> None:
    # Notes before a trick are 0-11: at 12 the game is over.
    after = notes_after(notes, in_order, special, balance)
    assert 0 <= after <= 12
    if not special:
        assert after - notes == (1 if in_order else 0)
    elif in_order:
        assert after - notes == min(2, 12 - notes)
    else:
        assert notes - after == min(notes, 1 if balance else 2)


# -- random legal games ------------------------------------------------------------------


@st.composite
def sheets(draw: st.DrawFn) -> str | JsonDict:
    """The rulebook sheet, or any valid sheet: four suits in any order, 12 notes split
    into four non-empty bars, any owners."""
    if draw(st.booleans()):
        return "rulebook"
    suits = draw(st.permutations(SUITS))
    cuts = sorted(draw(st.lists(st.integers(1, 11), min_size=3, max_size=3, unique=True)))
    bounds = [0, *cuts, 12]
    owners = draw(st.text(alphabet="PC", min_size=12, max_size=12))
    return sheet_object(
        *(
            (suit, owners[start:end])
            for suit, start, end in zip(suits, bounds, bounds[1:], strict=False)
        )
    )


@st.composite
def legal_games(draw: st.DrawFn) -> RefGame:
    """A game played by random legal choices: one or two rounds, the last one stopped
    after any number of tricks (or at the end of the game)."""
    game = RefGame(draw(sheets()), beginner=draw(st.booleans()), balance=draw(st.booleans()))

    def choose(options: Any) -> Any:
        return draw(st.sampled_from(options))

    rounds = draw(st.integers(1, 2))
    for index in range(rounds):
        if game.over:
            break
        deck = draw(st.permutations(DECK))
        tricks = 10 if index < rounds - 1 else draw(st.integers(0, 10))
        game.play_round(deck[:10], deck[10:20], choose, tricks=tricks)
    return game


@GAMES
@given(game=legal_games(), claim=st.booleans())
def test_legal_game_replays_without_error(game: RefGame, claim: bool) -> None:
    data = game.record(claim_result=claim)
    problems, outcome = check_record(data)
    assert outcome is not None
    expected = [] if game.over else [Code.UNFINISHED]
    assert [problem.code for problem in problems] == expected
    assert outcome.result is not None
    assert outcome.result.to_json() == {"winner": game.winner, "notes": game.notes}
    assert [
        (
            t.round,
            t.trick,
            t.leader.key,
            CARD_CODES[t.lead],
            CARD_CODES[t.follow],
            None if t.super_trump is None else t.super_trump.code,
            t.winner.key,
            t.in_order,
            t.special,
            t.notes_before,
            t.notes_after,
        )
        for t in outcome.tricks
    ] == [
        (
            t.round,
            t.trick,
            t.leader,
            t.lead,
            t.follow,
            t.super_trump,
            t.winner,
            t.in_order,
            t.special,
            t.notes_before,
            t.notes_after,
        )
        for t in game.tricks
    ]


@GAMES
@given(game=legal_games())
def test_notes_chain_from_trick_to_trick(game: RefGame) -> None:
    outcome = replay_record(game.record())
    notes = 0
    for start in outcome.rounds:
        assert start.notes == notes
        for trick in (t for t in outcome.tricks if t.round == start.round):
            assert trick.notes_before == notes
            assert 0 <= trick.notes_after <= 12
            notes = trick.notes_after
    assert outcome.result is not None and outcome.result.notes == notes
    if notes == 12:
        assert outcome.result.winner is Role.PHANTOM
        assert outcome.ended_at == (outcome.tricks[-1].round, outcome.tricks[-1].trick)


@GAMES
@given(game=legal_games())
def test_hands_stay_disjoint_and_sized(game: RefGame) -> None:
    data = game.record()
    outcome = replay_record(data)
    for start, round_data in zip(outcome.rounds, data["rounds"], strict=True):
        phantom, christine = start.hands
        assert phantom & christine == 0
        assert len(hand_cards(phantom)) == len(hand_cards(christine)) == 10
        dealt = hand_mask([DECK.index(card) for role in ROLES for card in round_data["deal"][role]])
        assert phantom | christine == dealt
        played = 0
        for trick in (t for t in outcome.tricks if t.round == start.round):
            played |= 1 << trick.lead | 1 << trick.follow
            phantom, christine = trick.hands
            assert phantom & christine == 0
            assert len(hand_cards(phantom)) == len(hand_cards(christine)) == 10 - trick.trick
            # Swaps move cards between the hands only: nothing is lost or made.
            assert phantom | christine | played == dealt
            assert phantom & played == christine & played == 0
    for ours, theirs in zip(outcome.tricks, game.tricks, strict=True):
        assert set(hand_codes(ours.hands[0])) == theirs.hands_after["phantom"]
        assert set(hand_codes(ours.hands[1])) == theirs.hands_after["christine"]


@settings(max_examples=100, deadline=None)
@given(game=legal_games())
def test_replay_is_deterministic(game: RefGame) -> None:
    data = game.record(claim_result=True)
    first: GameLog = replay_record(data)
    second: GameLog = replay_record(data)
    assert first == second
    assert check_record(data) == check_record(data)


@GAMES
@given(game=legal_games(), data=st.data())
def test_a_revoke_anywhere_is_caught(game: RefGame, data: st.DataObject) -> None:
    """Replace one follow by an off-suit card while the follower held the lead suit (after
    any swap): the replay stops there with a revoke."""
    candidates = [
        (index, t)
        for index, t in enumerate(game.tricks)
        if any(card[:2] == t.lead[:2] for card in t.follower_hand)
        and any(card[:2] != t.lead[:2] for card in t.follower_hand)
    ]
    assume(candidates)  # a game with no such trick is no example of this law
    index, chosen = data.draw(st.sampled_from(candidates))
    off_suit = sorted(card for card in chosen.follower_hand if card[:2] != chosen.lead[:2])
    record = game.record()
    round_index = chosen.round - 1
    tricks = record["rounds"][round_index]["tricks"]
    follow = {"player": tricks[chosen.trick - 1]["plays"][1]["player"]}
    follow["card"] = data.draw(st.sampled_from(off_suit))
    tricks[chosen.trick - 1]["plays"][1] = follow
    problems, _ = check_record(record)
    assert [(p.code, p.pointer, p.round, p.trick) for p in problems] == [
        (
            Code.REVOKE,
            f"/rounds/{round_index}/tricks/{chosen.trick - 1}/plays/1/card",
            chosen.round,
            chosen.trick,
        )
    ], index


# -- a swap as masks is the swap as cards ------------------------------------------------

#: How a record's swap is tampered with: a card named twice, a card replaced by any card,
#: a card more, a card less, a side left out, the two sides' cards reversed.
TAMPERINGS = st.sampled_from(["twice", "replace", "more", "less", "no side", "reverse"])


def swaps_of(record: JsonDict) -> list[JsonDict]:
    return [
        play["swap"]
        for round_data in record["rounds"]
        for trick in round_data["tricks"]
        for play in trick["plays"]
        if "swap" in play
    ]


def outcome_of(log: GameLog) -> tuple[object, ...]:
    """What a replay says, whatever its builder: the problems (with their facts and
    places), the result, where the game ended and the state it stopped in."""
    final = log.final
    assert final is not None
    return (
        log.problems,
        log.result,
        log.ended_at,
        (final.phase_code, final.notes, final.phantom_hand, final.christine_hand),
    )


@GAMES
@given(game=legal_games(), data=st.data(), tampering=TAMPERINGS)
def test_a_tampered_swap_gets_the_same_verdict_as_masks_and_as_cards(
    game: RefGame, data: st.DataObject, tampering: str
) -> None:
    """The verdict's replay (no event) takes a record's swap as two bit masks when the
    state takes it; any other swap is stepped with its cards in the record's order. Both
    must say what the replay with every event says, which steps the cards themselves."""
    record = game.record(claim_result=True)
    swaps = swaps_of(record)
    assume(swaps)  # a game with no swap is no example of this law
    swap = data.draw(st.sampled_from(swaps))
    side = data.draw(st.sampled_from(ROLES))
    given = swap.get(side) or []
    if tampering == "twice" and given:
        given.append(given[0])
    elif tampering == "replace" and given:
        given[data.draw(st.integers(0, len(given) - 1))] = data.draw(st.sampled_from(DECK))
    elif tampering == "more":
        given.append(data.draw(st.sampled_from(DECK)))
    elif tampering == "less" and given:
        given.pop()
    elif tampering == "no side":
        swap.pop(side, None)
    elif tampering == "reverse":
        given.reverse()
    if tampering != "no side":
        swap[side] = given
    verdict = replay_record(record, VerdictBuilder())
    every_event = replay_record(record, GameLogBuilder())
    assert outcome_of(verdict) == outcome_of(every_event)
    assert verdict.events == []


@GAMES
@given(game=legal_games(), data=st.data())
def test_swap_masks_are_taken_exactly_when_the_cards_would_be(
    game: RefGame, data: st.DataObject
) -> None:
    """``took_swap_masks`` takes a swap (and changes the state as ``step_swap`` does) when
    ``step_swap`` takes the same cards without a problem, and otherwise leaves the state
    as it was."""
    log = replay_record(game.record(), GameLogBuilder(events=False, decisions=True))
    assert log.decisions is not None
    states = [state for state, action in log.decisions if isinstance(action, SwapCards)]
    assume(states)
    state = data.draw(st.sampled_from(states))
    masks = data.draw(
        st.tuples(
            st.sampled_from([0, state.phantom_hand, state.christine_hand, (1 << 24) - 1])
            | st.integers(0, (1 << 24) - 1),
            st.sampled_from([0, state.phantom_hand, state.christine_hand, (1 << 24) - 1])
            | st.integers(0, (1 << 24) - 1),
        )
        | st.tuples(
            st.sampled_from(hand_cards(state.phantom_hand)).map(lambda card: 1 << card),
            st.sampled_from(hand_cards(state.christine_hand)).map(lambda card: 1 << card),
        )
    )
    by_cards = state.copy()
    problem = by_cards.step_swap(tuple(hand_cards(masks[0])), tuple(hand_cards(masks[1])))
    by_masks = state.copy()
    took = by_masks.took_swap_masks(*masks)
    assert took == (problem is None)
    fields = ("phase_code", "phantom_hand", "christine_hand", "notes", "turn_code", "leader_code")
    expected = by_cards if took else state
    assert [getattr(by_masks, name) for name in fields] == [
        getattr(expected, name) for name in fields
    ]


@GAMES
@given(game=legal_games(), rounds=st.integers(1, 2))
def test_the_state_keeps_each_round_dealt_as_its_deal_events_say(
    game: RefGame, rounds: int
) -> None:
    """``GameState.deals`` says what was dealt without any event (the verdict's replay,
    which the tournament's deal keys read): each round's two hands, as the ``Dealt``
    events of the replay with every event have them, and only the rounds dealt."""
    record = game.record(claim_result=True)
    del record["rounds"][rounds:]
    verdict = replay_record(record, VerdictBuilder())
    every_event = replay_record(record, GameLogBuilder())
    assert verdict.final is not None and every_event.final is not None
    dealt = [(event.phantom_hand, event.christine_hand) for event in every_event.deals]
    assert list(verdict.final.deals) == dealt == list(every_event.final.deals)
    assert len(dealt) == min(rounds, len(game.record(claim_result=True)["rounds"]))
