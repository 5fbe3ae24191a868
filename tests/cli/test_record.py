"""``phantom-log record``: the recorder at the table, driven through a real pseudo-terminal
(pexpect, :mod:`tests.helpers.recorder`), and its standard-input mode, run as a process of
its own. A killed recorder and its resume are fault tests (tests/faults/)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from phantom_log.cli import main
from phantom_log.records.record_texts import record_text
from tests.helpers.recorder import (
    ROOT,
    Recorder,
    enter_header,
    enter_round_1_opening,
    plays,
    record_from,
    saved,
    trick_lines,
    walkthrough,
    walkthrough_text,
)

# -- on a terminal -------------------------------------------------------------------------


def test_the_prompts_name_the_round_the_trick_and_the_player(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "game.json")
    enter_header(recorder)
    enter_round_1_opening(recorder)
    recorder.answer(r"round 1, trick 1: the Phantom leads:", "Ma5")
    recorder.answer(r"round 1, trick 1: Christine follows:", "Ma6")
    recorder.wait_for(r"Christine wins the trick \(Ma5 against Ma6, higher number\): 1 of 12")
    recorder.answer(r"round 1, trick 2: Christine leads:", "quit")
    assert recorder.ended() == 0
    assert plays(saved(tmp_path / "game.json")) == ["Ma5", "Ma6"]


def test_tab_offers_only_the_cards_legal_now(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "game.json")
    enter_header(recorder)
    enter_round_1_opening(recorder)
    recorder.wait_for("the Phantom leads:")
    # The Phantom's hand after the exchange: of his Chandeliers, Ch1, Ch4 and Ch6.
    recorder.child.send("Ch\t")
    listed = recorder.wait_for(r"Ch6 ")
    assert re.search(r"Ch1 +Ch4 +$", listed), listed
    recorder.child.send("\x15")  # the line emptied
    recorder.child.sendline("Ma5")
    recorder.wait_for("Christine follows:")
    # Christine holds Mirrors too, but must follow Mask: Tab offers her Masks alone.
    recorder.child.send("M\t\t")
    listed = recorder.wait_for(r"Ma6 ")
    assert re.search(r"Ma1 +Ma4 +$", listed), listed
    assert "Mi1" not in listed and "Mi2" not in listed
    recorder.child.send("\x15")
    recorder.child.sendline("quit")
    assert recorder.ended() == 0


def test_an_illegal_card_is_refused_with_verify_s_words_and_the_rule(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "game.json")
    enter_header(recorder)
    enter_round_1_opening(recorder)
    recorder.answer("the Phantom leads:", "Ma5")
    recorder.answer("Christine follows:", "Ch2")
    recorder.wait_for(
        re.escape(
            "refused: round 1, trick 1: revoke: Christine played Ch2 but holds Ma1, Ma4 and "
            "Ma6; she must follow Mask"
        )
    )
    recorder.wait_for(
        re.escape("hint: A player who holds a card of the lead suit (after any swap) must play")
    )
    # Refused: nothing of it is saved, and the same question comes again.
    recorder.answer("Christine follows:", "quit")
    assert recorder.ended() == 0
    assert plays(saved(tmp_path / "game.json")) == ["Ma5"]


def test_undo_takes_back_the_last_entry_and_saves(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "game.ptn")
    enter_header(recorder)
    enter_round_1_opening(recorder)
    recorder.answer("the Phantom leads:", "Ma5 Ma6")
    recorder.answer("round 1, trick 2: Christine leads:", "undo")
    recorder.wait_for("took back 1 entry")
    recorder.wait_for("round 1, trick 1: the Phantom leads:")
    assert "1. " not in (tmp_path / "game.ptn").read_text(encoding="utf-8")
    recorder.child.sendline("Ma5")
    recorder.answer("round 1, trick 1: Christine follows:", "quit")
    assert recorder.ended() == 0
    assert (tmp_path / "game.ptn").read_text(encoding="utf-8").endswith("special 3\n1. Ma5\n")


def test_show_draws_the_sheet_and_the_hands_as_show_does(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "game.json")
    enter_header(recorder)
    enter_round_1_opening(recorder)
    recorder.answer("the Phantom leads:", "Ma5 Ma6")
    recorder.answer("Christine leads:", "show")
    recorder.wait_for(re.escape("After round 1, trick 1: 1 of 12 notes completed"))
    recorder.wait_for(re.escape("Special number of round 1: 3"))
    recorder.wait_for(re.escape("Phantom's hand (9): "))
    recorder.wait_for(re.escape("Christine's hand (9): "))
    recorder.answer("Christine leads:", "quit")
    assert recorder.ended() == 0


def test_ctrl_c_keeps_every_entry_and_exits_130(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "game.json")
    enter_header(recorder)
    enter_round_1_opening(recorder)
    recorder.answer("the Phantom leads:", "Ma5")
    recorder.wait_for("Christine follows:")
    recorder.child.send("Ma")
    recorder.child.sendintr()
    recorder.wait_for("Interrupted: ")
    assert recorder.ended() == 130
    assert plays(saved(tmp_path / "game.json")) == ["Ma5"]


def test_hidden_hands_refuse_what_cannot_be_and_find_the_deal_at_the_round_s_end(
    tmp_path: Path,
) -> None:
    recorder = Recorder(tmp_path / "game.json")
    enter_header(recorder)
    enter_round_1_opening(recorder, deals=False)
    recorder.answer("the Phantom leads:", "Ma5 Ma6")
    # A card already played: no hand can hold it.
    recorder.answer("Christine leads:", "Ma5")
    recorder.wait_for(re.escape("refused: round 1, trick 2: card-not-held: Christine played Ma5"))
    # The Phantom gave Ri3 in the exchange and has not received it back.
    recorder.answer("Christine leads:", "Ch5")
    recorder.answer("the Phantom follows:", "Ri3")
    recorder.wait_for(re.escape("refused: round 1, trick 2: card-not-held: the Phantom played Ri3"))
    recorder.answer("the Phantom follows:", "Ch4")
    for line in trick_lines(walkthrough_text(), 1)[2:]:
        recorder.answer(r"trick \d+: .* leads:", line)
    recorder.answer("round 2: the Phantom's deal", "quit")
    assert recorder.ended() == 0
    record = saved(tmp_path / "game.json")
    # The deal found at the round's end is the one dealt (the cards aside are not known).
    expected = {role: walkthrough()["rounds"][0]["deal"][role] for role in ("phantom", "christine")}
    assert record["rounds"][0]["deal"] == expected


# -- from standard input -------------------------------------------------------------------


def test_a_whole_text_gives_the_record_it_stands_for(tmp_path: Path) -> None:
    done = record_from(tmp_path / "game.json", walkthrough_text())
    assert done.returncode == 0, done.stderr
    assert saved(tmp_path / "game.json") == walkthrough()
    assert "recorded" in done.stderr


def test_a_text_without_deals_gives_the_deals_found_at_each_round_s_end(tmp_path: Path) -> None:
    done = record_from(tmp_path / "game.ptn", walkthrough_text(deals=False))
    assert done.returncode == 0, done.stderr
    converted = record_from(tmp_path / "game.json", (tmp_path / "game.ptn").read_text())
    assert converted.returncode == 0, converted.stderr
    record = saved(tmp_path / "game.json")
    for found, dealt in zip(record["rounds"], walkthrough()["rounds"], strict=True):
        assert found["deal"] == {role: dealt["deal"][role] for role in ("phantom", "christine")}


def test_an_illegal_entry_stops_at_its_line_and_column_keeping_what_came_before(
    tmp_path: Path,
) -> None:
    text = walkthrough_text()
    bad = text.replace("9. Ma4 Ch1", "9. Ma4 Ch3")
    line = bad.splitlines().index("9. Ma4 Ch3") + 1
    path = tmp_path / "game.json"
    done = record_from(path, bad)
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"-:{line}:8: round 1, trick 9: card-not-held: the Phantom played Ch3, but he does "
        "not hold it\n"
    )
    kept = saved(path)
    assert plays(kept) == plays(walkthrough())[:17]
    # The mended text goes on where the record stopped.
    done = record_from(path, text)
    assert done.returncode == 0, done.stderr
    assert saved(path) == walkthrough()


def test_a_wrong_claim_in_a_round_without_deals_is_found_at_the_round_s_end(
    tmp_path: Path,
) -> None:
    text = walkthrough_text(deals=False)
    bad = text.replace("notes stay at 1.} =C", "notes stay at 1.} =P")
    claim_line = next(i for i, line in enumerate(bad.splitlines(), 1) if line.endswith("} =P"))
    last_line = bad.splitlines().index("10. Mi5 Mi1 =P") + 1
    path = tmp_path / "game.json"
    done = record_from(path, bad)
    assert done.returncode == 1
    first = done.stderr.splitlines()[0]
    assert re.fullmatch(
        rf"-:{claim_line}:\d+: round 1, trick 2: winner-mismatch: the record claims the "
        r"Phantom won round 1, trick 2, but Christine did: .*",
        first,
    ), first
    assert f"the recorder stops at {last_line}:" in done.stderr
    assert len(plays(saved(path))) == 19


def test_a_notation_problem_stops_the_text_at_its_place(tmp_path: Path) -> None:
    bad = walkthrough_text().replace("3. Ri6 Ri5", "3. Ri6 Rx5")
    line = bad.splitlines().index("3. Ri6 Rx5") + 1
    done = record_from(tmp_path / "game.ptn", bad)
    assert done.returncode == 1
    assert done.stderr.startswith(f"-:{line}:8: notation: 'Rx5' is no card\n")
    kept = (tmp_path / "game.ptn").read_text(encoding="utf-8")
    assert "\n2. Ch5 Ch4 {" in kept
    assert "\n3. " not in kept


def test_a_file_that_is_no_record_is_never_written_over(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_bytes(b'{"shopping": ["eggs"]}\n')
    for args in ((), ("--force",)):
        done = record_from(path, walkthrough_text(), *args)
        assert done.returncode == 2
        assert "is no game record the recorder can read" in done.stderr
        assert path.read_bytes() == b'{"shopping": ["eggs"]}\n'


def test_a_finished_record_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    assert record_from(path, walkthrough_text()).returncode == 0
    before = path.read_bytes()
    same = record_from(path, walkthrough_text())
    assert same.returncode == 0
    assert "nothing to record" in same.stderr
    other = record_from(path, walkthrough_text().replace("game_id: rulebook", "game_id: other"))
    assert other.returncode == 2
    assert path.read_bytes() == before
    forced = record_from(
        path, walkthrough_text().replace("game_id: rulebook", "game_id: other"), "--force"
    )
    assert forced.returncode == 0, forced.stderr
    assert saved(path)["game_id"].startswith("other")


def test_a_name_that_is_neither_json_nor_ptn_is_refused(tmp_path: Path) -> None:
    done = record_from(tmp_path / "game.txt", walkthrough_text())
    assert done.returncode == 2
    assert "give a file ending in .json (a record) or .ptn (game text)" in done.stderr
    assert not (tmp_path / "game.txt").exists()


@pytest.mark.parametrize("example", sorted(ROOT.glob("examples/*.json")), ids=lambda p: p.name)
def test_every_example_typed_from_its_text_is_itself(example: Path, tmp_path: Path) -> None:
    record = json.loads(example.read_text(encoding="utf-8"))
    text, left_out = record_text(record)
    for pointer in left_out:  # the text carries no x- keys
        parent, _, key = pointer.rpartition("/")
        holder = record
        for part in [part for part in parent.split("/") if part]:
            holder = holder[int(part) if isinstance(holder, list) else part]
        del holder[key]
    result = CliRunner().invoke(main, ["record", str(tmp_path / "game.json")], input=text)
    assert result.exit_code == 0, result.output
    assert saved(tmp_path / "game.json") == record
