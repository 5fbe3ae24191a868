"""The recorder's session (``phantom_log.views.recording``): what each entry does, without a
terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from phantom_log.records.record_texts import record_text
from phantom_log.views.recording import (
    HEADER_QUESTIONS,
    Awaiting,
    Recording,
    Refusal,
    Step,
    StepKind,
)

ROOT = Path(__file__).resolve().parents[2]


def walkthrough() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (ROOT / "examples" / "rulebook-walkthrough.json").read_text(encoding="utf-8")
    )
    return data


def typed(*, deals: bool) -> list[str]:
    """The walkthrough as a person types it: each card and each swap an entry."""
    text, _ = record_text(walkthrough())
    entries: list[str] = []
    for line in text.splitlines():
        if (line.startswith("deal ") and deals) or line.startswith(("exchange ", "special ")):
            entries.append(line)
        elif re.match(r"\d+\. ", line):
            body = re.sub(r"^\d+\. | \{.*\}| =[PC]$", "", line)
            entries += [part.strip("()") for part in re.findall(r"\([^)]*\)|\S+", body)]
    return entries


def started(*, rules: str = "none") -> Recording:
    recording = Recording()
    values = {"game_id": "g", "phantom": "Erik", "christine": "Christine", "sheet": "rulebook"}
    for key, _ in HEADER_QUESTIONS:
        if key in values or key == "rules":
            assert recording.set_header(key, values.get(key, rules)) is None
    recording.finish_header()
    return recording


def enter(recording: Recording, line: str) -> Refusal | None:
    if recording.next_step.awaiting is Awaiting.DEAL and not line.startswith("deal"):
        recording.pass_over_deals()
    steps = recording.read_entry(line)
    if isinstance(steps, Refusal):
        return steps
    return recording.offer(steps)


def without_notes(record: dict[str, Any]) -> list[Any]:
    """The rounds without what the typing leaves out: comments, claims, the cards aside."""
    rounds = []
    for round_ in record["rounds"]:
        deal = {role: round_["deal"][role] for role in ("phantom", "christine")}
        tricks = [{"plays": trick["plays"]} for trick in round_["tricks"]]
        rounds.append({**round_, "deal": deal, "tricks": tricks})
    return rounds


@pytest.mark.parametrize("deals", [True, False], ids=["deals entered", "hands hidden"])
def test_the_walkthrough_typed_card_by_card_is_the_walkthrough(deals: bool) -> None:
    recording = started()
    for line in typed(deals=deals):
        assert enter(recording, line) is None, line
    assert recording.finished
    record = recording.data()
    assert without_notes(record) == without_notes(walkthrough())
    assert record["result"] == {"winner": "christine", "notes": 9}


def test_a_trick_with_two_swaps_is_typed_a_card_and_a_swap_at_a_time() -> None:
    recording = started()
    lines = typed(deals=True)
    round_2 = lines.index("special 3", lines.index("special 3") + 1)
    round_2_trick_5 = lines.index("Mi3", round_2)
    for line in lines[:round_2_trick_5]:
        assert enter(recording, line) is None
    assert recording.question() == "round 2, trick 5: Christine leads"
    assert enter(recording, "Mi3") is None
    assert recording.question() == "round 2, trick 5: swap after the lead: P gives 2, C gives 2"
    assert enter(recording, "P Ri6 Ma1 C Ma5 Ma6") is None
    assert enter(recording, "Ma3") is None
    assert recording.question() == "round 2, trick 5: swap after the follow: P gives 2, C gives 2"
    assert enter(recording, "P Ma5 Ma6 C Mi2 Ri4") is None
    assert (
        recording.text.splitlines()[-1] == "5. Mi3 (P Ri6 Ma1 C Ma5 Ma6) Ma3 (P Ma5 Ma6 C Mi2 Ri4)"
    )


def test_the_cards_offered_are_the_legal_ones() -> None:
    recording = started()
    for line in typed(deals=True)[:4]:
        assert enter(recording, line) is None
    # Trick 1: the Phantom leads from his whole hand, Christine must follow Mask.
    assert recording.card_choices("") == [
        "Mi3", "Mi5", "Mi6", "Ch1", "Ch4", "Ch6", "Ri1", "Ri5", "Ma2", "Ma5",
    ]  # fmt: skip
    assert recording.card_choices("Ma5 ") == ["Ma1", "Ma4", "Ma6"]


def test_hidden_hands_offer_the_cards_a_player_may_hold() -> None:
    recording = started()
    assert enter(recording, "exchange P Ri3 C Mi5") is None
    assert enter(recording, "special 3") is None
    offered = recording.card_choices("")
    # Every card but the one the Phantom gave away (and has not received back).
    assert "Ri3" not in offered and len(offered) == 23
    assert enter(recording, "Ma5") is None
    assert "Ma5" not in recording.card_choices("")


def test_an_entry_refused_leaves_nothing_of_it() -> None:
    recording = started()
    for line in typed(deals=True)[:5]:
        assert enter(recording, line) is None
    before = recording.text
    refusal = enter(recording, "Ch2 =C")
    assert refusal is not None and refusal.problem is not None
    assert refusal.problem.code == "revoke"
    assert recording.text == before


def test_undo_takes_back_a_whole_entry_but_never_the_header() -> None:
    recording = started()
    for line in typed(deals=True)[:4]:
        assert enter(recording, line) is None
    assert enter(recording, "Ma5 Ma6") is None
    assert recording.undo() == 1
    assert recording.question() == "round 1, trick 1: the Phantom leads"
    assert recording.undo(10) == 4
    assert recording.undo() == 0
    assert recording.header()["game_id"] == "g"
    assert recording.question().startswith("round 1: the Phantom's deal")


def test_a_header_value_is_checked_as_the_record_s_check_words_it() -> None:
    recording = Recording()
    refusal = recording.set_header("date", "2026-13-40")
    assert refusal is not None and refusal.problem is not None
    assert refusal.problem.pointer == "/date"
    refusal = recording.set_header("sheet", "nosuch")
    assert refusal is not None and refusal.problem is not None
    assert refusal.problem.code == "unknown-sheet"
    refusal = recording.set_header("rules", "fast")
    assert refusal is not None and refusal.notation is not None
    assert "'fast' is no optional rule" in refusal.message


def test_a_notation_problem_of_an_entry_says_its_column() -> None:
    recording = started()
    for line in typed(deals=True)[:4]:
        assert enter(recording, line) is None
    refusal = enter(recording, "Ma5 Xx7")
    assert refusal is not None and refusal.notation is not None
    assert refusal.message == "notation: 'Xx7' is no card"
    assert refusal.place is not None and refusal.place.column == 5


def test_a_round_the_phantom_ends_early_asks_for_the_cards_left() -> None:
    text = (ROOT / "tests" / "data" / "recorder-early-end.ptn").read_text(encoding="utf-8")
    head = text.partition("left P")[0]
    recording = Recording.of_text(head)
    assert recording.next_step.awaiting is Awaiting.LEFT
    assert (
        recording.question()
        == "round 2, after trick 9: the Phantom's cards left (1), as left P ..."
    )
    assert enter(recording, "Ch6") is None
    assert recording.next_step.awaiting is Awaiting.LEFT
    refusal = enter(recording, "Ch1")
    assert refusal is not None and refusal.problem is not None
    assert refusal.problem.code == "bad-deal"
    # The deal found names its round (text_records gives the inferred deal's round).
    assert (
        refusal.problem.message
        == "the cards seen in round 2 make a deal of 11 cards for Christine, not 10"
    )
    assert enter(recording, "Mi6") is None
    assert recording.finished


def test_a_record_with_keys_the_text_cannot_carry_is_not_taken() -> None:
    record = {**walkthrough(), "x-scorer": "Ann"}
    with pytest.raises(ValueError, match="x- keys"):
        Recording.of_record(record)


def test_a_step_written_out_of_place_is_refused() -> None:
    recording = started()
    refusal = recording.offer([Step(StepKind.LEFT, 1, role="phantom", cards=("Ma5",))])
    assert refusal is not None and refusal.notation is not None


def test_a_finished_record_without_its_result_is_read_as_finished() -> None:
    record = walkthrough()
    del record["result"]
    recording = Recording.of_record(record)
    assert recording.finished


def test_each_trick_is_told_once_and_a_hidden_round_s_end_names_the_deals_found() -> None:
    recording = started()
    told: list[str] = []
    for line in typed(deals=False):
        before, round_number = recording.tricks_completed(), recording.next_step.round
        assert enter(recording, line) is None
        if recording.tricks_completed() != before:
            told += [recording.trick_line(), *recording.round_end_lines(round_number)]
    assert sum("wins the trick" in line for line in told) == 20
    dealt = walkthrough()["rounds"][0]["deal"]
    assert told[told.index("round 1 is over: 8 of 12 notes") + 1 :][:2] == [
        f"the Phantom was dealt, found from the play: {' '.join(dealt['phantom'])}",
        f"Christine was dealt, found from the play: {' '.join(dealt['christine'])}",
    ]


def test_undo_after_passing_over_the_deals_asks_for_them_again() -> None:
    recording = started()
    recording.pass_over_deals()
    assert recording.question() == "round 1: the exchange (P CARD C CARD)"
    assert recording.undo() == 1
    assert recording.question().startswith("round 1: the Phantom's deal")
