"""The rulebook's worked example (RULES.md, "The rulebook's worked example, as checks"),
replayed from ``examples/rulebook-walkthrough.json`` trick by trick.

Round 1 opens as the rulebook does: an exchange of a 3 and a 5, special number 3, then
its first two tricks. Round 2 (special number 3 again) brings the rulebook's three
illustrated tricks as tricks 3, 4 and 5, with the notes as the rulebook gives them:
6 -> 7 -> 5 -> 7.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from phantom_log.checking.verdict import check_record
from phantom_log.rules.cards import Role, Suit, card_code, card_number, parse_card
from phantom_log.rules.engine import super_trump as super_trump_of
from phantom_log.rules.events import TrickEnded
from phantom_log.rules.replay import GameLog
from tests.helpers.paths import WALKTHROUGH


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def replay(record: dict[str, Any]) -> GameLog:
    problems, outcome = check_record(record)
    assert problems == []
    assert outcome is not None
    return outcome


def trick(replay: GameLog, round_no: int, trick_no: int) -> TrickEnded:
    """One trick of the replay, both numbers counted from 1."""
    return next(t for t in replay.tricks if (t.round, t.trick) == (round_no, trick_no))


def hands_at_start(replay: GameLog, round_no: int, trick_no: int) -> tuple[int, int]:
    """Both hands (bit masks, the Phantom's first) as a trick begins."""
    if trick_no == 1:
        return replay.rounds[round_no - 1].hands
    return trick(replay, round_no, trick_no - 1).hands


def hands_when_following(replay: GameLog, round_no: int, trick_no: int) -> tuple[int, int]:
    """Both hands as the follower plays: after the lead, and after the swap it called."""
    outcome = trick(replay, round_no, trick_no)
    hands = list(hands_at_start(replay, round_no, trick_no))
    hands[outcome.leader] &= ~(1 << outcome.lead)
    for swap in outcome.swaps:
        if swap.after == "lead":
            phantom_gives = sum(1 << card for card in swap.phantom_gave)
            christine_gives = sum(1 << card for card in swap.christine_gave)
            hands = [
                hands[0] & ~phantom_gives | christine_gives,
                hands[1] & ~christine_gives | phantom_gives,
            ]
    return hands[0], hands[1]


def summary(outcome: TrickEnded) -> dict[str, object]:
    """The trick's facts the rulebook states, cards as codes."""
    return {
        "leader": outcome.leader,
        "lead": card_code(outcome.lead),
        "follower": outcome.follower,
        "follow": card_code(outcome.follow),
        "super_trump": outcome.super_trump,
        "winner": outcome.winner,
        "reason": outcome.reason.value,
        "note_owner": outcome.note_owner,
        "in_order": outcome.in_order,
        "special": outcome.special,
        "swaps": [swap.after for swap in outcome.swaps],
        "notes": (outcome.notes_before, outcome.notes_after),
    }


def test_rulebook_walkthrough_is_a_finished_legal_game(
    record: dict[str, Any], replay: GameLog
) -> None:
    assert record["sheet"] == "rulebook"
    assert all(len(data["deal"]["aside"]) == 4 for data in record["rounds"])
    assert replay.result is not None
    assert replay.result.winner is not None
    assert replay.result.to_json() == record["result"]


def test_rulebook_round_1_exchange_of_a_3_and_a_5_makes_3_special(
    record: dict[str, Any], replay: GameLog
) -> None:
    exchange = record["rounds"][0]["exchange"]
    given_by_phantom = parse_card(exchange["phantom"])
    given_by_christine = parse_card(exchange["christine"])
    assert sorted(card_number(card) for card in (given_by_phantom, given_by_christine)) == [3, 5]
    start = replay.rounds[0]
    assert start.leader is Role.PHANTOM
    assert start.special_number == 3
    assert start.hands[Role.CHRISTINE] >> given_by_phantom & 1
    assert start.hands[Role.PHANTOM] >> given_by_christine & 1


def test_rulebook_trick_1_higher_mask_wins(replay: GameLog) -> None:
    assert summary(trick(replay, 1, 1)) == {
        "leader": Role.PHANTOM,
        "lead": "Ma5",
        "follower": Role.CHRISTINE,
        "follow": "Ma6",
        "super_trump": None,
        "winner": Role.CHRISTINE,
        "reason": "higher-number",
        "note_owner": Role.CHRISTINE,
        "in_order": True,
        "special": False,
        "swaps": [],
        "notes": (0, 1),
    }


def test_rulebook_trick_2_out_of_order_win_completes_no_note(replay: GameLog) -> None:
    assert summary(trick(replay, 1, 2)) == {
        "leader": Role.CHRISTINE,
        "lead": "Ch5",
        "follower": Role.PHANTOM,
        "follow": "Ch4",
        "super_trump": Suit.MIRROR,
        "winner": Role.CHRISTINE,
        "reason": "higher-number",
        "note_owner": Role.PHANTOM,
        "in_order": False,
        "special": False,
        "swaps": [],
        "notes": (1, 1),
    }


def test_rulebook_round_2_keeps_3_special_and_reaches_6_notes(replay: GameLog) -> None:
    start = replay.rounds[1]
    assert start.leader is Role.CHRISTINE
    assert start.special_number == 3
    assert trick(replay, 2, 2).winner is Role.PHANTOM
    assert trick(replay, 2, 2).notes_after == 6


def test_rulebook_super_trump_beats_trump(replay: GameLog) -> None:
    assert not hands_at_start(replay, 2, 3)[Role.CHRISTINE] & Suit.CHANDELIER.mask
    assert summary(trick(replay, 2, 3)) == {
        "leader": Role.PHANTOM,
        "lead": "Ch2",
        "follower": Role.CHRISTINE,
        "follow": "Ma4",
        "super_trump": Suit.CHANDELIER,
        "winner": Role.PHANTOM,
        "reason": "super-trump",
        "note_owner": Role.PHANTOM,
        "in_order": True,
        "special": False,
        "swaps": [],
        "notes": (6, 7),
    }
    assert super_trump_of(replay.sheet, 7) is Suit.RING


def test_rulebook_special_trick_out_of_order_removes_two_notes(replay: GameLog) -> None:
    outcome = trick(replay, 2, 4)
    assert [(len(swap.phantom_gave), len(swap.christine_gave)) for swap in outcome.swaps] == [
        (2, 2)
    ]
    assert not hands_when_following(replay, 2, 4)[Role.CHRISTINE] & Suit.CHANDELIER.mask
    assert summary(outcome) == {
        "leader": Role.PHANTOM,
        "lead": "Ch3",
        "follower": Role.CHRISTINE,
        "follow": "Ri1",
        "super_trump": Suit.RING,
        "winner": Role.CHRISTINE,
        "reason": "super-trump",
        "note_owner": Role.PHANTOM,
        "in_order": False,
        "special": True,
        "swaps": ["lead"],
        "notes": (7, 5),
    }
    assert super_trump_of(replay.sheet, 5) is Suit.CHANDELIER


def test_rulebook_two_special_cards_count_once(replay: GameLog) -> None:
    outcome = trick(replay, 2, 5)
    assert [(len(swap.phantom_gave), len(swap.christine_gave)) for swap in outcome.swaps] == [
        (2, 2)
    ] * 2
    assert not hands_when_following(replay, 2, 5)[Role.PHANTOM] & Suit.MIRROR.mask
    assert summary(outcome) == {
        "leader": Role.CHRISTINE,
        "lead": "Mi3",
        "follower": Role.PHANTOM,
        "follow": "Ma3",
        "super_trump": Suit.CHANDELIER,
        "winner": Role.PHANTOM,
        "reason": "trump",
        "note_owner": Role.PHANTOM,
        "in_order": True,
        "special": True,
        "swaps": ["lead", "follow"],
        "notes": (5, 7),
    }
    assert super_trump_of(replay.sheet, 7) is Suit.RING


def test_rulebook_super_trump_follows_the_last_note(replay: GameLog) -> None:
    tricks = [trick(replay, 2, number) for number in (3, 4, 5)]
    read_before = [outcome.super_trump for outcome in tricks]
    after_last = super_trump_of(replay.sheet, tricks[-1].notes_after)
    assert [*read_before, after_last] == [Suit.CHANDELIER, Suit.RING, Suit.CHANDELIER, Suit.RING]
    assert [outcome.notes_after for outcome in tricks] == [7, 5, 7]
