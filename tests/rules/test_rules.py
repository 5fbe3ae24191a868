"""RULES.md as executable spec: one test per rule and per [D] decision, named like the rules.

Rules about plays run real records through ``check_record`` (schema, then the replay);
the judge and the note arithmetic are also checked on the engine's pure functions. The
small games below are written out card by card; each comment says why it is legal.
"""

from __future__ import annotations

from typing import Any

import pytest

from phantom_log.rules.cards import Role, Suit, hand_mask, make_card, parse_card
from phantom_log.rules.engine import (
    DealCards,
    PlayCard,
    Rules,
    judge,
    notes_after,
    swap_size,
)
from phantom_log.rules.engine import super_trump as super_trump_of
from phantom_log.rules.events import Reason, leader_wins, verdict_reason
from phantom_log.rules.problems import Code, Illegal, Severity
from phantom_log.rules.replay import replay_record
from phantom_log.rules.sheets import RULEBOOK_SHEET, sheet_from_json
from tests.helpers.gamebuild import (
    JsonDict,
    RefGame,
    cards,
    check,
    errors,
    first,
    play,
    play_game,
    record,
    replayed,
    round_,
    sheet_object,
    shuffled_deal,
    sole_error,
    trick,
    where,
)


def judge_trick(lead: int, follow: int, super_trump: Suit | None) -> tuple[bool, Reason]:
    """The engine's verdict on a trick, read: whether the leader wins, and why."""
    verdict = judge(lead, follow, -1 if super_trump is None else int(super_trump))
    return leader_wins(verdict), verdict_reason(verdict)


PLAIN = Rules()
BALANCE = Rules(balance=True)
SUPER_TRUMPS: list[Suit | None] = [None, *Suit]


def card(code: str) -> int:
    return parse_card(code)


def mask(spec: str) -> int:
    return hand_mask([parse_card(code) for code in cards(spec)])


def judged(lead: str, follow: str, super_trump: Suit | None) -> tuple[str, Reason]:
    """Who wins (``"lead"`` or ``"follow"``) and why."""
    leader_wins, reason = judge_trick(card(lead), card(follow), super_trump)
    return ("lead" if leader_wins else "follow"), reason


# -- the games the tests share -----------------------------------------------------------

# The plain deal: the Phantom holds Mirrors and Masks, Christine Chandeliers and Rings,
# so she can never follow his leads. The sixes lie aside.
PLAIN_PHANTOM = "Mi1-5 Ma1-5"
PLAIN_CHRISTINE = "Ch1-5 Ri1-5"


def plain_tricks(count: int = 10) -> list[JsonDict]:
    """Round 1 of the plain deal with special number 5 (rulebook sheet, beginner).

    Tricks 1-8: the Phantom wins each by lead suit or trump, but note 1 is Christine's,
    so the notes stay 0 (and there is never a super trump). Trick 9: both fives, two
    one-card swaps (the Phantom holds one card after his lead); Christine wins with trump
    Ma5, in order, special: 0 -> 2. Trick 10: Christine leads her last card, so no swap
    is possible after either play; she wins by lead suit, note 3 is hers: 2 -> 4.
    """
    tricks = [
        trick(f"P {lead}", f"C {follow}")
        for lead, follow in zip(cards("Mi1-4 Ma1-4"), cards("Ch1-4 Ri1-4"), strict=True)
    ]
    tricks.append(
        trick(
            play("P", "Mi5", phantom="Ma5", christine="Ch5"),
            play("C", "Ma5", phantom="Ch5", christine="Ri5"),
        )
    )
    tricks.append(trick("C Ch5", "P Ri5"))
    return tricks[:count]


def plain_round(count: int = 10, **changes: Any) -> JsonDict:
    return round_(PLAIN_PHANTOM, PLAIN_CHRISTINE, plain_tricks(count), special=5, **changes)


def plain_record(count: int = 10, **options: Any) -> JsonDict:
    return record(plain_round(count), beginner=True, **options)


def sweep_round() -> JsonDict:
    """The plain deal with special number 6 (no special card in a hand): the Phantom wins
    all ten tricks, all out of order (note 1 is Christine's): the notes stay 0."""
    tricks = [
        trick(f"P {lead}", f"C {follow}")
        for lead, follow in zip(cards(PLAIN_PHANTOM), cards(PLAIN_CHRISTINE), strict=True)
    ]
    return round_(PLAIN_PHANTOM, PLAIN_CHRISTINE, tricks, special=6)


def second_round(count: int = 10) -> JsonDict:
    """A round 2 Christine wins throughout: she leads Chandeliers then Masks, the Phantom
    holds neither. From 4 notes: note 5 is hers (4 -> 5), then note 6 is his (stays 5)."""
    christine, phantom = "Ch1-5 Ma1-5", "Mi1-5 Ri1-5"
    tricks = [
        trick(f"C {lead}", f"P {follow}")
        for lead, follow in zip(cards(christine), cards(phantom), strict=True)
    ]
    return round_(phantom, christine, tricks[:count], special=6)


# The seesaw deal (rulebook sheet, special number 6): Christine wins a special trick in
# order (0 -> 2), then the Phantom wins a special trick out of order.
SEESAW_PHANTOM = "Mi1-3 Ch5 Ch6 Ri1 Ri2 Ma1-3"
SEESAW_CHRISTINE = "Mi4-6 Ch1 Ch2 Ri3-5 Ma4 Ma5"


def seesaw_record(*, balance: bool = False, second_leader: str = "C") -> JsonDict:
    follower = "P" if second_leader == "C" else "C"
    tricks = [
        trick("P Mi1", play("C", "Mi6", phantom="Ri1 Ri2", christine="Ri3 Ri4")),
        trick(
            f"{second_leader} Ch1",
            play(follower, "Ch6", phantom="Ri3 Ri4", christine="Ri1 Ri2"),
        ),
    ]
    return record(
        round_(SEESAW_PHANTOM, SEESAW_CHRISTINE, tricks, special=6),
        beginner=True,
        balance=balance,
    )


# A sheet where the Phantom owns every note and the Mask bar holds notes 1-9.
PHANTOM_SHEET = sheet_object(("Ma", "P" * 9), ("Mi", "P"), ("Ch", "P"), ("Ri", "P"))


def twelve_tricks() -> list[JsonDict]:
    """The Phantom completes the sheet at trick 8 (special number 6).

    Tricks 1-3: he leads Mask, Christine (no Mask) throws a six: +2 each. Trick 4: he
    leads Ma6: +2. Tricks 5-6: +1 each (10). Trick 7: super trump Mirror, his Mi5 beats
    her Mi4 (11). Trick 8: super trump Chandelier, his Ch5 beats her Ch4 (12).
    """
    return [
        trick("P Ma1", play("C", "Ch6", phantom="Mi4 Ch4", christine="Ri1 Ri2")),
        trick("P Ma2", play("C", "Ri6", phantom="Ri1 Ri2", christine="Ri3 Ri4")),
        trick("P Ma3", play("C", "Mi6", phantom="Ri3 Ri4", christine="Ri1 Ri2")),
        trick(play("P", "Ma6", phantom="Ri1 Ri2", christine="Ri3 Ri4"), "C Ri5"),
        trick("P Ma4", "C Ri1"),
        trick("P Ma5", "C Ri2"),
        trick("P Mi5", "C Mi4"),
        trick("P Ch5", "C Ch4"),
    ]


def twelve_record(extra: list[JsonDict] | None = None, *more_rounds: JsonDict) -> JsonDict:
    first_round = round_(
        "Ma1-6 Mi4 Mi5 Ch4 Ch5",
        "Mi1 Mi2 Mi6 Ch6 Ri1-6",
        twelve_tricks() + (extra or []),
        special=6,
    )
    return record(first_round, *more_rounds, sheet=PHANTOM_SHEET, beginner=True)


# The revoke deal: Christine holds one Mirror (Mi6) among Chandeliers and Rings.
REVOKE_PHANTOM = "Mi1-5 Ma1-5"
REVOKE_CHRISTINE = "Mi6 Ch1-5 Ri1-4"


def revoke_record(*tricks: JsonDict, special: int = 5) -> JsonDict:
    return record(
        round_(REVOKE_PHANTOM, REVOKE_CHRISTINE, list(tricks), special=special), beginner=True
    )


# -- components: the rulebook sheet -----------------------------------------------------


def test_rulebook_sheet_layout() -> None:
    bars = [(bar.suit, bar.notation) for bar in RULEBOOK_SHEET.bars]
    assert bars == [
        (Suit.MIRROR, "CPC"),
        (Suit.CHANDELIER, "PCP"),
        (Suit.RING, "PPC"),
        (Suit.MASK, "PCP"),
    ]
    assert RULEBOOK_SHEET.name == "rulebook"


def test_rulebook_sheet_fits_the_rulebook_description() -> None:
    owners = RULEBOOK_SHEET.note_owners
    suits = RULEBOOK_SHEET.note_suits
    assert owners.count(Role.CHRISTINE) == 5
    assert owners.count(Role.PHANTOM) == 7
    assert RULEBOOK_SHEET.owner_of(1) is Role.CHRISTINE
    assert RULEBOOK_SHEET.owner_of(2) is Role.PHANTOM
    assert [RULEBOOK_SHEET.owner_of(note) for note in (6, 7, 8)] == [Role.PHANTOM] * 3
    assert suits[4] == suits[5] == Suit.CHANDELIER
    assert suits[6] == Suit.RING
    assert RULEBOOK_SHEET.bars[-1].suit is Suit.MASK


def test_rulebook_sheet_is_the_builtin_sheet_of_records() -> None:
    outcome = replayed(plain_record(1))
    assert outcome.sheet == RULEBOOK_SHEET


# -- sheet rules -------------------------------------------------------------------------


def test_custom_sheet_is_accepted() -> None:
    outcome = replayed(record(plain_round(2), sheet=PHANTOM_SHEET, beginner=True))
    assert outcome.sheet.note_owners == (Role.PHANTOM,) * 12
    assert super_trump_of(outcome.sheet, 9) is Suit.MASK
    assert super_trump_of(outcome.sheet, 10) is Suit.MIRROR


@pytest.mark.parametrize(
    ("bars", "pointer"),
    [
        pytest.param([("Mi", "PPPP"), ("Ch", "CCCC"), ("Ri", "PCPC")], "/sheet/bars", id="3-bars"),
        pytest.param(
            [("Mi", "PPP"), ("Mi", "CCC"), ("Ri", "PCP"), ("Ma", "CPC")],
            "/sheet/bars/1/suit",
            id="repeated-suit",
        ),
        pytest.param(
            [("Mi", "PPP"), ("Ch", "CCC"), ("Ri", "PCP"), ("Ma", "CP")],
            "/sheet/bars",
            id="11-notes",
        ),
        pytest.param(
            [("Mi", ""), ("Ch", "CCCC"), ("Ri", "PCPC"), ("Ma", "CPCP")],
            "/sheet/bars/0/notes",
            id="empty-bar",
        ),
    ],
)
def test_bad_sheet(bars: list[tuple[str, str]], pointer: str) -> None:
    data = record(plain_round(0), sheet=sheet_object(*bars), beginner=True)
    problem = sole_error(data)
    assert where(problem) == ("bad-sheet", pointer, None, None)
    assert isinstance(sheet_from_json(sheet_object(*bars)), list)


def test_unknown_sheet() -> None:
    problem = sole_error(record(plain_round(0), sheet="no-such-sheet", beginner=True))
    assert where(problem) == ("unknown-sheet", "/sheet", None, None)


# -- start of a round: deal, exchange, special number -----------------------------------


def test_bad_deal_duplicate_card() -> None:
    data = record(round_(PLAIN_PHANTOM, "Mi1 Ch2-5 Ri1-5", special=5), beginner=True)
    problem = sole_error(data)
    assert where(problem) == ("bad-deal", "/rounds/0/deal/christine/0", 1, None)


def test_bad_deal_card_both_dealt_and_aside() -> None:
    data = record(
        round_(PLAIN_PHANTOM, PLAIN_CHRISTINE, special=5, aside="Mi6 Ch6 Ri6 Ma5"),
        beginner=True,
    )
    assert where(sole_error(data)) == ("bad-deal", "/rounds/0/deal/aside/3", 1, None)


@pytest.mark.parametrize(
    ("phantom", "christine", "aside", "pointer"),
    [
        ("Mi1-5 Ma1-4", PLAIN_CHRISTINE, None, "/rounds/0/deal/phantom"),
        (PLAIN_PHANTOM, "Ch1-6 Ri1-5", "Mi6 Ri6 Ma6", "/rounds/0/deal/christine"),
        (PLAIN_PHANTOM, PLAIN_CHRISTINE, "Mi6 Ch6 Ri6", "/rounds/0/deal/aside"),
    ],
    ids=["phantom-9", "christine-11", "aside-3"],
)
def test_bad_deal_wrong_count(
    phantom: str, christine: str, aside: str | None, pointer: str
) -> None:
    data = record(round_(phantom, christine, special=5, aside=aside), beginner=True)
    assert where(sole_error(data)) == ("bad-deal", pointer, 1, None)


def test_deal_without_aside_is_accepted() -> None:
    data = plain_record(1)
    del data["rounds"][0]["deal"]["aside"]
    replayed(data)


def exchange_record(
    exchange: tuple[str, str], special: int, tricks: list[JsonDict] | None = None
) -> JsonDict:
    return record(
        round_(PLAIN_PHANTOM, PLAIN_CHRISTINE, tricks or [], special=special, exchange=exchange)
    )


def test_exchange_swaps_the_two_cards() -> None:
    outcome = replayed(exchange_record(("Mi1", "Ch3"), 3))
    start = outcome.rounds[0]
    assert start.hands == (mask("Mi2-5 Ma1-5 Ch3"), mask("Ch1 Ch2 Ch4 Ch5 Ri1-5 Mi1"))
    # The card given is gone: leading it afterwards is a card-not-held.
    problem = sole_error(exchange_record(("Mi1", "Ch3"), 3, [trick("P Mi1", "C Ch1")]))
    assert where(problem) == ("card-not-held", "/rounds/0/tricks/0/plays/0/card", 1, 1)
    # ... and the card received can be played.
    replayed(exchange_record(("Mi1", "Ch3"), 1, [trick("P Ch3", "C Ch2")]))


@pytest.mark.parametrize(
    ("exchange", "pointer"),
    [
        (("Ch1", "Ch3"), "/rounds/0/exchange/phantom"),  # Christine's card
        (("Mi1", "Ri6"), "/rounds/0/exchange/christine"),  # a card aside
        # [D] Simultaneous: the Phantom cannot give the card he is about to receive.
        (("Ch3", "Ch3"), "/rounds/0/exchange/phantom"),
    ],
    ids=["opponents-card", "aside-card", "card-being-received"],
)
def test_exchange_card_must_be_held(exchange: tuple[str, str], pointer: str) -> None:
    problem = sole_error(exchange_record(exchange, 3))
    assert where(problem) == ("bad-exchange", pointer, 1, None)


@pytest.mark.parametrize("special", [1, 3])
def test_special_number_of_either_exchanged_card(special: int) -> None:
    outcome = replayed(exchange_record(("Mi1", "Ch3"), special))
    assert outcome.rounds[0].special_number == special


@pytest.mark.parametrize("special", [2, 4, 5, 6])
def test_special_number_must_be_an_exchanged_number(special: int) -> None:
    problem = sole_error(exchange_record(("Mi1", "Ch3"), special))
    assert where(problem) == ("bad-special-number", "/rounds/0/special_number", 1, None)


@pytest.mark.parametrize("special", range(1, 7))
def test_same_number_exchange(special: int) -> None:
    data = exchange_record(("Mi3", "Ch3"), special)
    if special == 3:
        replayed(data)
    else:
        assert where(sole_error(data))[0] == "bad-special-number"


@pytest.mark.parametrize("special", range(1, 7))
def test_beginner_no_exchange_any_die_number(special: int) -> None:
    data = record(round_(PLAIN_PHANTOM, PLAIN_CHRISTINE, special=special), beginner=True)
    outcome = replayed(data)
    assert outcome.rounds[0].special_number == special
    assert outcome.rounds[0].hands == (mask(PLAIN_PHANTOM), mask(PLAIN_CHRISTINE))


def test_beginner_rule_forbids_an_exchange() -> None:
    data = exchange_record(("Mi1", "Ch3"), 3)
    data["rules"]["beginner"] = True
    assert where(sole_error(data)) == ("bad-exchange", "/rounds/0/exchange", 1, None)


def test_exchange_required_without_beginner_rule() -> None:
    data = record(round_(PLAIN_PHANTOM, PLAIN_CHRISTINE, special=3))
    assert where(sole_error(data)) == ("bad-exchange", "/rounds/0", 1, None)


# -- who wins a trick --------------------------------------------------------------------


def test_same_suit_higher_number_wins() -> None:
    for suit in Suit:
        for lead in range(1, 7):
            for follow in range(1, 7):
                if lead == follow:
                    continue
                for super_trump in SUPER_TRUMPS:
                    leader_wins, reason = judge_trick(
                        make_card(suit, lead), make_card(suit, follow), super_trump
                    )
                    assert leader_wins == (lead > follow)
                    assert reason is Reason.HIGHER_NUMBER
    # The rulebook: Mask 6 beats Mask 5.
    assert judged("Ma5", "Ma6", None) == ("follow", Reason.HIGHER_NUMBER)
    # Through a replay: Christine's Mi2 beats the Phantom's Mi1.
    outcome = replayed(mask_first_record("rulebook"))
    assert outcome.tricks[0].winner is Role.CHRISTINE
    assert outcome.tricks[0].reason is Reason.HIGHER_NUMBER


def test_super_trump_beats_trump() -> None:
    # The rulebook: super trump Chandelier 2 beats trump Mask 4.
    assert judged("Ch2", "Ma4", Suit.CHANDELIER) == ("lead", Reason.SUPER_TRUMP)
    # The rulebook: super trump Ring 1 beats lead-suit Chandelier 3.
    assert judged("Ch3", "Ri1", Suit.RING) == ("follow", Reason.SUPER_TRUMP)
    # Any super trump card beats any Mask and any lead-suit card, whatever the numbers.
    for super_trump in (Suit.MIRROR, Suit.CHANDELIER, Suit.RING):
        for number in range(1, 7):
            for other in range(1, 7):
                strong = make_card(super_trump, number)
                assert judge_trick(make_card(Suit.MASK, other), strong, super_trump) == (
                    False,
                    Reason.SUPER_TRUMP,
                )
                assert judge_trick(strong, make_card(Suit.MASK, other), super_trump) == (
                    True,
                    Reason.SUPER_TRUMP,
                )
    # Through a replay on the rulebook sheet: Christine completes note 1 (Mi2 over Mi1), so
    # Mirror is the super trump; she leads Ma4 and the Phantom, who holds no Mask, wins
    # with Mi3.
    tricks = [trick("P Mi1", "C Mi2"), trick("C Ma4", "P Mi3")]
    data = record(
        round_("Mi1 Mi3 Ri1-5 Ch1-3", "Mi2 Mi4 Mi5 Ma1-5 Ch4 Ch5", tricks, special=6),
        beginner=True,
    )
    second = replayed(data).tricks[1]
    assert (second.notes_before, second.super_trump) == (1, Suit.MIRROR)
    assert (second.winner, second.reason) == (Role.PHANTOM, Reason.SUPER_TRUMP)


def test_mask_is_trump_when_not_super_trump() -> None:
    # The rulebook: trump Mask 3 beats lead-suit Mirror 3.
    assert judged("Mi3", "Ma3", None) == ("follow", Reason.TRUMP)
    for super_trump in (None, Suit.MIRROR, Suit.CHANDELIER, Suit.RING):
        for lead_suit in (Suit.MIRROR, Suit.CHANDELIER, Suit.RING):
            if lead_suit == super_trump:
                continue
            # Mask 1 beats the lead suit's 6, and the lead Mask beats any other suit.
            assert judge_trick(make_card(lead_suit, 6), card("Ma1"), super_trump) == (
                False,
                Reason.TRUMP,
            )
            assert judge_trick(card("Ma1"), make_card(lead_suit, 6), super_trump) == (
                True,
                Reason.TRUMP,
            )
    # Through a replay on the rulebook sheet (super trump Mirror): Ma1 beats Ch1 as trump.
    outcome = replayed(mask_first_record("rulebook"))
    second = outcome.tricks[1]
    assert second.super_trump is Suit.MIRROR
    assert (second.winner, second.reason) == (Role.PHANTOM, Reason.TRUMP)


# Note 1 lies in the Mask bar: after one note, Mask is the super trump.
MASK_FIRST_SHEET = sheet_object(("Ma", "C"), ("Mi", "PPP"), ("Ch", "PPPP"), ("Ri", "PPPP"))


def mask_first_record(sheet: str | JsonDict) -> JsonDict:
    """Christine wins trick 1 (Mi2 over Mi1), completing note 1 (hers on both sheets);
    trick 2: she leads Ch1, the Phantom (no Chandelier) plays Ma1."""
    tricks = [trick("P Mi1", "C Mi2"), trick("C Ch1", "P Ma1")]
    return record(
        round_("Mi1 Mi3 Ma1-3 Ri1-5", "Mi2 Mi4 Mi5 Ch1-5 Ma4 Ma5", tricks, special=6),
        sheet=sheet,
        beginner=True,
    )


def test_mask_super_trump_when_last_note_in_mask_bar() -> None:
    for notes in (10, 11, 12):
        assert super_trump_of(RULEBOOK_SHEET, notes) is Suit.MASK
    assert judged("Ch6", "Ma1", Suit.MASK) == ("follow", Reason.SUPER_TRUMP)
    assert judged("Ma1", "Ri6", Suit.MASK) == ("lead", Reason.SUPER_TRUMP)
    # ... and there is no other trump: between two other suits the lead suit wins.
    assert judged("Ch1", "Ri6", Suit.MASK) == ("lead", Reason.LEAD_SUIT)
    assert judged("Ri1", "Mi6", Suit.MASK) == ("lead", Reason.LEAD_SUIT)
    outcome = replayed(mask_first_record(MASK_FIRST_SHEET))
    second = outcome.tricks[1]
    assert second.notes_before == 1
    assert second.super_trump is Suit.MASK
    assert (second.winner, second.reason) == (Role.PHANTOM, Reason.SUPER_TRUMP)


def test_other_suit_never_wins() -> None:
    for super_trump in SUPER_TRUMPS:
        for lead in range(24):
            for follow in range(24):
                follow_suit = Suit(follow // 6)
                lead_suit = Suit(lead // 6)
                if follow_suit in (lead_suit, Suit.MASK, super_trump):
                    continue
                leader_wins, reason = judge_trick(lead, follow, super_trump)
                assert leader_wins, (lead, follow, super_trump)
                assert reason is not Reason.HIGHER_NUMBER


def test_lead_suit_beats_other_suit() -> None:
    assert judged("Ch1", "Ri6", None) == ("lead", Reason.LEAD_SUIT)
    assert judged("Ch1", "Mi6", Suit.RING) == ("lead", Reason.LEAD_SUIT)


def test_no_super_trump_before_first_note() -> None:
    assert super_trump_of(RULEBOOK_SHEET, 0) is None
    # Mirror (the suit of bar 1) is no super trump yet: lead-suit Ch1 beats Mi6.
    assert judged("Ch1", "Mi6", super_trump_of(RULEBOOK_SHEET, 0)) == ("lead", Reason.LEAD_SUIT)
    # GameLog: the Phantom leads Ch1, Christine (no Chandelier) plays Mi5.
    data = record(
        round_(PLAIN_CHRISTINE, PLAIN_PHANTOM, [trick("P Ch1", "C Mi5")], special=6),
        beginner=True,
    )
    first_trick = replayed(data).tricks[0]
    assert first_trick.super_trump is None
    assert (first_trick.winner, first_trick.reason) == (Role.PHANTOM, Reason.LEAD_SUIT)


def test_super_trump_follows_the_last_completed_note() -> None:
    expected = [None] + [Suit.MIRROR] * 3 + [Suit.CHANDELIER] * 3 + [Suit.RING] * 3
    expected += [Suit.MASK] * 3
    assert [super_trump_of(RULEBOOK_SHEET, notes) for notes in range(13)] == expected
    # In a replay, the super trump of a trick is read from the notes before it.
    outcome = replayed(plain_record())
    assert [t.super_trump for t in outcome.tricks] == [None] * 9 + [Suit.MIRROR]


def test_rulebook_worked_example() -> None:
    """RULES.md, "The rulebook's worked example, as checks" (special number 3)."""

    def step(notes: int, lead: str, follow: str, leader: Role) -> tuple[Role, Reason, int]:
        super_trump = super_trump_of(RULEBOOK_SHEET, notes)
        leader_wins, reason = judge_trick(card(lead), card(follow), super_trump)
        winner = leader if leader_wins else leader.other
        in_order = winner is RULEBOOK_SHEET.owner_of(notes + 1)
        special = 3 in (int(lead[2]), int(follow[2]))
        return winner, reason, notes_after(notes, in_order, special, PLAIN.balance)

    phantom, christine = Role.PHANTOM, Role.CHRISTINE
    assert step(0, "Ma5", "Ma6", phantom) == (christine, Reason.HIGHER_NUMBER, 1)
    assert step(1, "Ch5", "Ch4", christine) == (christine, Reason.HIGHER_NUMBER, 1)
    assert super_trump_of(RULEBOOK_SHEET, 6) is Suit.CHANDELIER
    assert step(6, "Ch2", "Ma4", phantom) == (phantom, Reason.SUPER_TRUMP, 7)
    assert super_trump_of(RULEBOOK_SHEET, 7) is Suit.RING
    assert step(7, "Ch3", "Ri1", phantom) == (christine, Reason.SUPER_TRUMP, 5)
    assert super_trump_of(RULEBOOK_SHEET, 5) is Suit.CHANDELIER
    assert step(5, "Mi3", "Ma3", christine) == (phantom, Reason.TRUMP, 7)
    assert super_trump_of(RULEBOOK_SHEET, 7) is Suit.RING


# -- notes -------------------------------------------------------------------------------


def test_trick_in_order_adds_one_note() -> None:
    for notes in range(12):
        assert notes_after(notes, True, False, PLAIN.balance) == notes + 1
        assert notes_after(notes, False, False, PLAIN.balance) == notes
        assert notes_after(notes, False, False, BALANCE.balance) == notes
    # GameLog: the second round's first trick is Christine's note 5 (4 -> 5), then her wins
    # are out of order (note 6 is the Phantom's) and the notes stay 5.
    outcome = replayed(record(plain_round(), second_round(), beginner=True))
    assert [(t.notes_before, t.notes_after) for t in outcome.tricks[10:13]] == [
        (4, 5),
        (5, 5),
        (5, 5),
    ]


def test_special_trick_in_order_adds_two_notes() -> None:
    for notes in range(11):
        assert notes_after(notes, True, True, PLAIN.balance) == notes + 2
        assert notes_after(notes, True, True, BALANCE.balance) == notes + 2
    outcome = replayed(seesaw_record())
    first_trick = outcome.tricks[0]
    assert (first_trick.in_order, first_trick.special) == (True, True)
    assert (first_trick.notes_before, first_trick.notes_after) == (0, 2)
    # A special lead card counts as well as a special follow card.
    twelve = replayed(twelve_record())
    assert (twelve.tricks[3].notes_before, twelve.tricks[3].notes_after) == (6, 8)


def test_extra_note_counts_whoever_owns_it() -> None:
    # Christine completes note 1 (hers) with a special trick; note 2 is the Phantom's,
    # and it is completed too.
    assert RULEBOOK_SHEET.owner_of(2) is Role.PHANTOM
    first_trick = replayed(seesaw_record()).tricks[0]
    assert first_trick.winner is Role.CHRISTINE
    assert first_trick.note_owner is Role.CHRISTINE
    assert first_trick.notes_after == 2


def test_notes_capped_at_twelve() -> None:
    assert notes_after(11, True, True, PLAIN.balance) == 12
    assert notes_after(11, True, True, BALANCE.balance) == 12
    assert notes_after(10, True, True, PLAIN.balance) == 12


def test_special_trick_out_of_order_removes_two_notes() -> None:
    for notes in range(12):
        assert notes_after(notes, False, True, PLAIN.balance) == max(0, notes - 2)
    second = replayed(seesaw_record()).tricks[1]
    assert (second.winner, second.note_owner) == (Role.PHANTOM, Role.CHRISTINE)
    assert (second.in_order, second.special) == (False, True)
    assert (second.notes_before, second.notes_after) == (2, 0)


def test_notes_never_below_zero() -> None:
    assert notes_after(0, False, True, PLAIN.balance) == 0
    assert notes_after(1, False, True, PLAIN.balance) == 0
    assert notes_after(0, False, True, BALANCE.balance) == 0


def test_balance_removes_one_note() -> None:
    for notes in range(12):
        assert notes_after(notes, False, True, BALANCE.balance) == max(0, notes - 1)
    second = replayed(seesaw_record(balance=True)).tricks[1]
    assert (second.notes_before, second.notes_after) == (2, 1)


def test_two_special_cards_count_once() -> None:
    ninth = replayed(plain_record()).tricks[8]
    assert (ninth.lead, ninth.follow) == (card("Mi5"), card("Ma5"))
    assert ninth.special and ninth.in_order
    assert (ninth.notes_before, ninth.notes_after) == (0, 2)


# -- a trick: follow suit and swaps ------------------------------------------------------


def test_follower_must_follow_suit() -> None:
    # Trick 1: the Phantom leads Ma1; Christine holds no Mask, so any card of hers may
    # follow (Ch1), and the Phantom wins by the lead suit. Trick 2: he leads Mi1, and
    # Christine, who holds one Mirror (Mi6), must play it...
    void_then_held = [trick("P Ma1", "C Ch1"), trick("P Mi1", "C Mi6")]
    outcome = replayed(revoke_record(*void_then_held))
    assert [(t.lead, t.follow) for t in outcome.tricks] == [
        (card("Ma1"), card("Ch1")),
        (card("Mi1"), card("Mi6")),
    ]
    assert outcome.tricks[1].winner is Role.CHRISTINE
    # ... any other card of hers is a revoke, at that play: the replay stops there.
    for other in cards("Ch2-4 Ri1-4"):
        problem = sole_error(revoke_record(void_then_held[0], trick("P Mi1", f"C {other}")))
        assert where(problem) == ("revoke", "/rounds/0/tricks/1/plays/1/card", 1, 2)
        assert problem.severity is Severity.ERROR


def test_follower_without_lead_suit_plays_any_card() -> None:
    # Christine holds no Mirror: any of her cards may follow Mi1 (not the fives, which
    # would call for a swap).
    for follow in cards("Ch1-4 Ri1-4"):
        data = plain_record(0)
        data["rounds"][0]["tricks"] = [trick("P Mi1", f"C {follow}")]
        (first_trick,) = replayed(data).tricks
        assert (first_trick.follow, first_trick.winner) == (card(follow), Role.PHANTOM)


def test_follow_suit_judged_after_swap_follower_receives_lead_suit() -> None:
    # Christine holds no Mirror, but the swap after the Phantom's Mi5 gives her Mi1 and
    # Mi2: she must now follow Mirror.
    swap = play("P", "Mi5", phantom="Mi1 Mi2", christine="Ch1 Ch2")
    legal = plain_record(0)
    legal["rounds"][0]["tricks"] = [trick(swap, "C Mi2")]
    assert replayed(legal).tricks[0].winner is Role.PHANTOM
    revoke = plain_record(0)
    revoke["rounds"][0]["tricks"] = [trick(swap, "C Ri1")]
    problem = sole_error(revoke)
    assert where(problem) == ("revoke", "/rounds/0/tricks/0/plays/1/card", 1, 1)


def test_follow_suit_judged_after_swap_follower_loses_lead_suit() -> None:
    # Christine's only Mirror, Mi6, goes to the Phantom in the swap after his Mi5: she
    # may then play any card.
    swap = play("P", "Mi5", phantom="Ma1 Ma2", christine="Mi6 Ch1")
    outcome = replayed(revoke_record(trick(swap, "C Ri1")))
    assert outcome.tricks[0].winner is Role.PHANTOM
    # Without the swap (special number 6: Mi5 is plain) Ri1 would be a revoke.
    problem = sole_error(revoke_record(trick("P Mi5", "C Ri1"), special=6))
    assert where(problem) == ("revoke", "/rounds/0/tricks/0/plays/1/card", 1, 1)


def test_swap_two_cards() -> None:
    assert swap_size(mask("Mi1-4 Ma1-5"), mask(PLAIN_CHRISTINE)) == 2
    swap = play("P", "Mi5", phantom="Ma1 Ma2", christine="Ch1 Ch2")
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick(swap, "C Ri1")]
    outcome = replayed(data)
    first_trick = outcome.tricks[0]
    assert [(s.after, s.phantom_gave, s.christine_gave) for s in first_trick.swaps] == [
        ("lead", (card("Ma1"), card("Ma2")), (card("Ch1"), card("Ch2")))
    ]
    assert first_trick.hands == (mask("Mi1-4 Ma3-5 Ch1 Ch2"), mask("Ch3-5 Ri2-5 Ma1 Ma2"))


@pytest.mark.parametrize(
    ("phantom", "christine", "code", "pointer"),
    [
        ("Ma1", "Ch1", "missing-swap", "/rounds/0/tricks/0/plays/0/swap/phantom"),
        ("Ma1 Ma2", "Ch1", "missing-swap", "/rounds/0/tricks/0/plays/0/swap/christine"),
        (
            "Ma1 Ma2 Ma3",
            "Ch1 Ch2 Ch3",
            "unexpected-swap",
            "/rounds/0/tricks/0/plays/0/swap/phantom",
        ),
        ("Ma1 Ma2", "Ch1 Ch2 Ch3", "unexpected-swap", "/rounds/0/tricks/0/plays/0/swap/christine"),
    ],
    ids=["one-each", "christine-short", "three-each", "christine-three"],
)
def test_swap_of_the_wrong_size(phantom: str, christine: str, code: str, pointer: str) -> None:
    data = plain_record(0)
    swap = play("P", "Mi5", phantom=phantom, christine=christine)
    data["rounds"][0]["tricks"] = [trick(swap, "C Ri1")]
    assert where(sole_error(data)) == (code, pointer, 1, 1)


def test_swap_one_card_when_a_player_holds_one() -> None:
    assert swap_size(mask("Ma5"), mask("Ch5 Ri5")) == 1
    assert swap_size(mask("Ch5 Ri5"), mask("Ma5")) == 1
    assert swap_size(mask("Ma5"), mask("Ri5")) == 1
    ninth = replayed(plain_record()).tricks[8]
    assert [(s.after, s.phantom_gave, s.christine_gave) for s in ninth.swaps] == [
        ("lead", (card("Ma5"),), (card("Ch5"),)),
        ("follow", (card("Ch5"),), (card("Ri5"),)),
    ]
    # Christine holds two cards, but the Phantom holds one: two each is the wrong size.
    data = plain_record()
    data["rounds"][0]["tricks"][8]["plays"][0]["swap"] = {
        "phantom": ["Ma5"],
        "christine": ["Ch5", "Ri5"],
    }
    problem = sole_error(data)
    assert where(problem) == ("unexpected-swap", "/rounds/0/tricks/8/plays/0/swap/christine", 1, 9)


def test_swap_zero_when_leader_plays_last_card() -> None:
    assert swap_size(0, mask("Ri5")) == 0
    assert swap_size(0, 0) == 0
    tenth = replayed(plain_record()).tricks[9]
    assert tenth.special
    assert tenth.swaps == ()  # a special card with an empty hand makes no swap
    # "swap": {} is the same as no swap.
    data = plain_record()
    data["rounds"][0]["tricks"][9]["plays"][0]["swap"] = {}
    replayed(data)
    # A swap with cards is unexpected: Christine has none left.
    data["rounds"][0]["tricks"][9]["plays"][0]["swap"] = {"phantom": ["Ri5"], "christine": []}
    problem = sole_error(data)
    assert where(problem) == ("unexpected-swap", "/rounds/0/tricks/9/plays/0/swap", 1, 10)


def test_card_received_in_swap_cannot_go_back() -> None:
    # Christine receives Mi1 in the swap after the Phantom's Mi5 and tries to give it
    # straight back in the same swap.
    data = plain_record(0)
    swap = play("P", "Mi5", phantom="Mi1 Mi2", christine="Mi1 Ch1")
    data["rounds"][0]["tricks"] = [trick(swap, "C Mi2")]
    problem = sole_error(data)
    assert where(problem) == ("card-not-held", "/rounds/0/tricks/0/plays/0/swap/christine/0", 1, 1)


def test_card_given_twice_in_one_swap() -> None:
    data = plain_record(0)
    swap = play("P", "Mi5", phantom="Ma1 Ma1", christine="Ch1 Ch2")
    data["rounds"][0]["tricks"] = [trick(swap, "C Ri1")]
    problem = sole_error(data)
    assert where(problem) == ("card-not-held", "/rounds/0/tricks/0/plays/0/swap/phantom/1", 1, 1)


def test_card_played_cannot_be_given_in_its_swap() -> None:
    data = plain_record(0)
    swap = play("P", "Mi5", phantom="Mi5 Ma1", christine="Ch1 Ch2")
    data["rounds"][0]["tricks"] = [trick(swap, "C Ri1")]
    problem = sole_error(data)
    assert where(problem) == ("card-not-held", "/rounds/0/tricks/0/plays/0/swap/phantom/0", 1, 1)


def test_two_special_cards_two_swaps() -> None:
    # Mi5 leads: swap. Christine (no Mirror) plays Ch5: swap again, in which the Phantom
    # gives back the two cards he received in the first one (a later swap may).
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [
        trick(
            play("P", "Mi5", phantom="Ma1 Ma2", christine="Ch1 Ch2"),
            play("C", "Ch5", phantom="Ch1 Ch2", christine="Ma1 Ma2"),
        )
    ]
    first_trick = replayed(data).tricks[0]
    assert [s.after for s in first_trick.swaps] == ["lead", "follow"]
    assert first_trick.hands == (mask("Mi1-4 Ma1-5"), mask("Ch1-4 Ri1-5"))
    # The second swap is due as well.
    del data["rounds"][0]["tricks"][0]["plays"][1]["swap"]
    problem = sole_error(data)
    assert where(problem) == ("missing-swap", "/rounds/0/tricks/0/plays/1", 1, 1)


def test_missing_swap() -> None:
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("P Mi5", "C Ri1")]
    assert where(sole_error(data)) == ("missing-swap", "/rounds/0/tricks/0/plays/0", 1, 1)
    # "swap": {} where a swap is due.
    data["rounds"][0]["tricks"] = [trick(play("P", "Mi5", swap={}), "C Ri1")]
    assert where(sole_error(data)) == ("missing-swap", "/rounds/0/tricks/0/plays/0/swap", 1, 1)
    # One side absent.
    data["rounds"][0]["tricks"] = [
        trick(play("P", "Mi5", swap={"phantom": ["Ma1", "Ma2"]}), "C Ri1")
    ]
    assert where(sole_error(data)) == ("missing-swap", "/rounds/0/tricks/0/plays/0/swap", 1, 1)


def test_unexpected_swap() -> None:
    # No special card: no swap.
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [
        trick(play("P", "Mi1", phantom="Ma1 Ma2", christine="Ch2 Ch3"), "C Ch1")
    ]
    assert where(sole_error(data)) == ("unexpected-swap", "/rounds/0/tricks/0/plays/0/swap", 1, 1)
    # Wrong size: three cards each where two are due.
    data["rounds"][0]["tricks"] = [
        trick(play("P", "Mi5", phantom="Ma1 Ma2 Ma3", christine="Ch1 Ch2 Ch3"), "C Ri1")
    ]
    problem = sole_error(data)
    assert where(problem) == ("unexpected-swap", "/rounds/0/tricks/0/plays/0/swap/phantom", 1, 1)


# -- the checks at one play, and their order ---------------------------------------------


def test_wrong_player() -> None:
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("C Ch1", "P Mi1")]
    assert where(sole_error(data)) == ("wrong-player", "/rounds/0/tricks/0/plays/0/player", 1, 1)
    data["rounds"][0]["tricks"] = [trick("P Mi1", "P Mi2")]
    assert where(sole_error(data)) == ("wrong-player", "/rounds/0/tricks/0/plays/1/player", 1, 1)


def test_card_not_held() -> None:
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("P Ch1", "C Ch2")]
    assert where(sole_error(data)) == ("card-not-held", "/rounds/0/tricks/0/plays/0/card", 1, 1)
    # A card aside, by the follower.
    data["rounds"][0]["tricks"] = [trick("P Mi1", "C Ri6")]
    assert where(sole_error(data)) == ("card-not-held", "/rounds/0/tricks/0/plays/1/card", 1, 1)
    # A card already played.
    data["rounds"][0]["tricks"] = [trick("P Mi1", "C Ch1"), trick("P Mi1", "C Ch2")]
    assert where(sole_error(data)) == ("card-not-held", "/rounds/0/tricks/1/plays/0/card", 1, 2)


def test_revoke() -> None:
    problem = sole_error(revoke_record(trick("P Mi1", "C Ch1")))
    assert where(problem) == ("revoke", "/rounds/0/tricks/0/plays/1/card", 1, 1)
    assert problem.severity is Severity.ERROR


def test_check_order_player_before_card_held() -> None:
    # Christine leads trick 1 (the Phantom's turn) with a card she does not hold.
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("C Mi1", "P Mi2")]
    assert where(sole_error(data))[:2] == ("wrong-player", "/rounds/0/tricks/0/plays/0/player")


def test_check_order_player_before_swap() -> None:
    # The Phantom follows his own special lead, with no swap recorded after it.
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("C Ch5", "P Mi1")]
    assert where(sole_error(data))[0] == "wrong-player"


def test_check_order_card_held_before_follow_suit() -> None:
    # Christine plays Ri5 (aside: not held) off-suit while holding Mi6.
    problem = sole_error(revoke_record(trick("P Mi1", "C Ri5")))
    assert where(problem)[:2] == ("card-not-held", "/rounds/0/tricks/0/plays/1/card")


def test_check_order_card_held_before_swap() -> None:
    # The Phantom leads Ch5 (special, Christine's card) with no swap.
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("P Ch5", "C Ch1")]
    assert where(sole_error(data))[:2] == ("card-not-held", "/rounds/0/tricks/0/plays/0/card")


def test_check_order_follow_suit_before_swap() -> None:
    # Christine plays Ch5 (special) off-suit while holding Mi6, and records no swap.
    problem = sole_error(revoke_record(trick("P Mi1", "C Ch5")))
    assert where(problem)[:2] == ("revoke", "/rounds/0/tricks/0/plays/1/card")


def test_replay_stops_at_the_first_illegal_move() -> None:
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [trick("P Ch1", "C Mi1"), trick("C Mi1", "C Mi2")]
    problems, outcome = check(data)
    assert [problem.code for problem in problems] == [Code.CARD_NOT_HELD]
    assert outcome.result is None
    assert outcome.tricks == []


# -- leaders ------------------------------------------------------------------------------


def test_phantom_leads_round_one() -> None:
    outcome = replayed(plain_record(1))
    assert outcome.rounds[0].leader is Role.PHANTOM
    assert outcome.tricks[0].leader is Role.PHANTOM


def test_trick_winner_leads_next() -> None:
    outcome = replayed(seesaw_record())
    assert outcome.tricks[0].winner is Role.CHRISTINE
    assert outcome.tricks[1].leader is Role.CHRISTINE
    problem = sole_error(seesaw_record(second_leader="P"))
    assert where(problem) == ("wrong-player", "/rounds/0/tricks/1/plays/0/player", 1, 2)


def test_round_two_led_by_christine() -> None:
    # The Phantom wins the last trick of round 1, yet Christine leads round 2.
    data = record(sweep_round(), second_round(1), beginner=True)
    outcome = replayed(data)
    assert outcome.tricks[9].winner is Role.PHANTOM
    assert outcome.rounds[1].leader is Role.CHRISTINE
    assert outcome.tricks[10].leader is Role.CHRISTINE
    wrong = record(
        sweep_round(),
        round_("Mi1-5 Ri1-5", "Ch1-5 Ma1-5", [trick("P Mi1", "C Ma1")], special=6),
        beginner=True,
    )
    assert where(sole_error(wrong)) == ("wrong-player", "/rounds/1/tricks/0/plays/0/player", 2, 1)


# -- rounds and the end of the game -------------------------------------------------------


def test_notes_carry_over_to_round_two() -> None:
    outcome = replayed(record(plain_round(), second_round(), beginner=True))
    assert outcome.tricks[9].notes_after == 4
    assert outcome.rounds[1].notes == 4
    assert outcome.tricks[10].notes_before == 4
    assert outcome.result is not None and outcome.result.notes == 5


def test_christine_wins_after_round_two() -> None:
    data = record(plain_round(), second_round(), beginner=True, result=("C", 5))
    problems, outcome = check(data)
    assert problems == []
    assert outcome.result is not None
    assert (outcome.result.winner, outcome.result.notes) == (Role.CHRISTINE, 5)
    assert outcome.ended_at == (2, 10)


def test_phantom_wins_at_twelve_immediately() -> None:
    problems, outcome = check(twelve_record())
    assert problems == []
    assert [t.notes_after for t in outcome.tricks] == [2, 4, 6, 8, 9, 10, 11, 12]
    assert outcome.result is not None
    assert (outcome.result.winner, outcome.result.notes) == (Role.PHANTOM, 12)
    assert outcome.ended_at == (1, 8)
    claimed = twelve_record()
    claimed["result"] = {"winner": "phantom", "notes": 12}
    assert check(claimed)[0] == []


def test_play_after_game_end_is_illegal() -> None:
    problem = sole_error(twelve_record([trick("P Ri3", "C Mi1")]))
    assert where(problem) == ("after-game-end", "/rounds/0/tricks/8", 1, 9)
    # Even a single play.
    problem = sole_error(twelve_record([trick("P Ri3")]))
    assert where(problem) == ("after-game-end", "/rounds/0/tricks/8", 1, 9)
    # Or a round 2.
    problem = sole_error(twelve_record(None, second_round(0)))
    assert where(problem) == ("after-game-end", "/rounds/1", 2, None)


def test_no_move_is_legal_once_the_game_is_decided() -> None:
    """The game over, whatever ended it (the Phantom's twelfth note, or round 2's last
    trick), the state machine itself takes no further move: not a card, not a deal."""
    christine_wins = record(plain_round(), second_round(), beginner=True)
    for data, winner in [(twelve_record(), Role.PHANTOM), (christine_wins, Role.CHRISTINE)]:
        final = replay_record(data).final
        assert final is not None and final.is_over and final.winner is winner
        assert final.legal_actions() == []
        moves: list[Any] = [PlayCard(winner, card) for card in range(24)]
        moves.append(DealCards(mask(PLAIN_PHANTOM), mask(PLAIN_CHRISTINE)))
        for move in moves:
            refused = final.apply(move)
            assert isinstance(refused, Illegal), move
            assert refused.code is Code.AFTER_GAME_END, move


def test_unfinished_record_has_no_winner() -> None:
    for data, round_no, trick_no in [
        (plain_record(5), 1, 5),
        (plain_record(10), 1, 10),
        (record(plain_round(), second_round(0), beginner=True), 2, None),
        (record(plain_round(), second_round(9), beginner=True), 2, 9),
    ]:
        problems, outcome = check(data)
        assert [where(problem) for problem in problems] == [
            ("unfinished", "/rounds", round_no, trick_no)
        ]
        assert problems[0].severity is Severity.WARNING
        assert outcome.result is not None and outcome.result.winner is None
        assert outcome.ended_at is None
    # Claiming no winner yet agrees with the replay; claiming one does not.
    assert errors(plain_record(5, result=(None, 0))) == []
    problem = sole_error(plain_record(5, result=("C", 0)))
    assert where(problem) == ("winner-mismatch", "/result/winner", None, None)


def test_incomplete_trick_only_last() -> None:
    # The last trick of a record may hold one play...
    data = plain_record(0)
    data["rounds"][0]["tricks"] = [*plain_tricks(2), trick("P Mi3")]
    outcome = replayed(data)
    assert len(outcome.tricks) == 2
    # ... even a special card, whose swap is then checked.
    data["rounds"][0]["tricks"] = [trick("P Mi5")]
    assert where(sole_error(data))[0] == "missing-swap"
    # ... but no other trick.
    data["rounds"][0]["tricks"] = [trick("P Mi1"), trick("P Mi2", "C Ch1")]
    assert where(sole_error(data)) == ("incomplete-trick", "/rounds/0/tricks/0/plays", 1, 1)
    # Nor the last trick of round 1 when round 2 follows.
    first_round = plain_round()
    first_round["tricks"][9]["plays"].pop()
    problem = sole_error(record(first_round, second_round(0), beginner=True))
    assert where(problem) == ("incomplete-trick", "/rounds/0/tricks/9/plays", 1, 10)


def test_incomplete_round() -> None:
    problem = sole_error(record(plain_round(9), second_round(0), beginner=True))
    assert where(problem) == ("incomplete-round", "/rounds/0/tricks", 1, None)


def test_winner_mismatch() -> None:
    # A trick's claimed winner: reported, and the replay goes on to the end.
    data = plain_record(3)
    data["rounds"][0]["tricks"][0]["winner"] = "christine"
    data["rounds"][0]["tricks"][1]["winner"] = "phantom"
    problems, outcome = check(data)
    assert [where(problem) for problem in problems] == [
        ("winner-mismatch", "/rounds/0/tricks/0/winner", 1, 1),
        ("unfinished", "/rounds", 1, 3),
    ]
    assert len(outcome.tricks) == 3
    # The game's claimed winner.
    data = record(plain_round(), second_round(), beginner=True, result=("P", 5))
    assert where(sole_error(data)) == ("winner-mismatch", "/result/winner", None, None)


def test_notes_mismatch() -> None:
    data = record(plain_round(), second_round(), beginner=True, result=("C", 6))
    assert where(sole_error(data)) == ("notes-mismatch", "/result/notes", None, None)
    data = record(plain_round(), second_round(), beginner=True, result=("P", 6))
    assert sorted(where(problem)[0] for problem in errors(data)) == [
        "notes-mismatch",
        "winner-mismatch",
    ]


# -- whole games by the simple policy -----------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_whole_game_by_simple_policy(seed: int) -> None:
    """Two shuffled deals, every choice the first legal one: the engine agrees with the
    reference of RULES.md trick by trick, and on the result."""
    deals = [shuffled_deal(seed)[:2], shuffled_deal(seed + 100)[:2]]
    game = play_game(deals, first, beginner=seed % 2 == 1, balance=seed % 3 == 0)
    data = game.record(claim_result=True)
    problems, outcome = check(data)
    assert problems == []
    assert [(t.winner.key, t.notes_after) for t in outcome.tricks] == [
        (t.winner, t.notes_after) for t in game.tricks
    ]
    assert outcome.result is not None
    assert outcome.result.to_json() == {"winner": game.winner, "notes": game.notes}


def test_notes_carry_over_by_simple_policy() -> None:
    """The plain deal, then a round 2 played by the simple policy, through the engine:
    round 2 starts from round 1's notes, and the engine agrees with the reference."""
    ref = RefGame(beginner=True)
    ref.play_round(cards(PLAIN_PHANTOM), cards(PLAIN_CHRISTINE), first, special=5)
    ref.play_round(cards("Mi1-5 Ri1-5"), cards("Ch1-5 Ma1-5"), first, special=6)
    outcome = replay_record(ref.record())
    assert outcome.rounds[1].notes == ref.tricks[9].notes_after > 0
    assert outcome.rounds[1].leader is Role.CHRISTINE
    assert [t.notes_after for t in outcome.tricks] == [t.notes_after for t in ref.tricks]
    assert outcome.result is not None
    assert outcome.result.to_json() == {"winner": ref.winner, "notes": ref.notes}
