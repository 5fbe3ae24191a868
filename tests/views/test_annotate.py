"""Annotations, explanations, the terminal picture, the SVG and the Python API."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

import phantom_log
from phantom_log.views.annotate import ANNOTATION_FIELDS, Annotation, swaps_text
from tests.helpers.cli import run
from tests.helpers.paths import REPO

WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"
SVG = "{http://www.w3.org/2000/svg}"


def walkthrough_rows() -> list[dict[str, Any]]:
    result = run("annotate", "--format", "json", str(WALKTHROUGH))
    assert result.exit_code == 0
    return [json.loads(line) for line in result.stdout.splitlines()]


def row(rows: list[dict[str, Any]], round_no: int, trick_no: int) -> dict[str, Any]:
    (found,) = [r for r in rows if (r["round"], r["trick"]) == (round_no, trick_no)]
    return found


def test_json_rows_carry_exactly_the_fields_of_the_format() -> None:
    rows = walkthrough_rows()
    assert len(rows) == 20
    assert all(list(r) == list(ANNOTATION_FIELDS) for r in rows)
    assert [(r["round"], r["trick"]) for r in rows] == [
        (round_no, trick_no) for round_no in (1, 2) for trick_no in range(1, 11)
    ]


def test_walkthrough_shows_the_rulebook_openings() -> None:
    rows = walkthrough_rows()
    assert row(rows, 1, 1) | {"swaps": None} == {
        "game_id": "rulebook-walkthrough",
        "round": 1,
        "trick": 1,
        "leader": "phantom",
        "lead": "Ma5",
        "follower": "christine",
        "follow": "Ma6",
        "lead_suit": "Ma",
        "super_trump": None,
        "winner": "christine",
        "reason": "higher-number",
        "note_owner": "christine",
        "in_order": True,
        "special": False,
        "swaps": None,
        "notes_before": 0,
        "notes_after": 1,
    }
    second = row(rows, 1, 2)
    assert (second["lead"], second["follow"], second["winner"]) == ("Ch5", "Ch4", "christine")
    assert (second["in_order"], second["notes_before"], second["notes_after"]) == (False, 1, 1)


def test_walkthrough_shows_the_worked_example_notes_and_super_trumps() -> None:
    rows = walkthrough_rows()
    tricks = [row(rows, 2, trick_no) for trick_no in (3, 4, 5)]
    assert [r["notes_before"] for r in tricks] + [tricks[-1]["notes_after"]] == [6, 7, 5, 7]
    assert [r["super_trump"] for r in tricks] == ["Ch", "Ri", "Ch"]
    assert [(r["lead"], r["follow"]) for r in tricks] == [
        ("Ch2", "Ma4"),
        ("Ch3", "Ri1"),
        ("Mi3", "Ma3"),
    ]
    assert [r["reason"] for r in tricks] == ["super-trump", "super-trump", "trump"]
    assert [r["winner"] for r in tricks] == ["phantom", "christine", "phantom"]
    assert [r["special"] for r in tricks] == [False, True, True]
    assert [[s["after"] for s in r["swaps"]] for r in tricks] == [[], ["lead"], ["lead", "follow"]]
    after = phantom_log.replay(json.loads(WALKTHROUGH.read_text())).tricks
    assert (
        next(a.outcome.super_trump_after for a in after if (a.round, a.trick) == (2, 5)).code
        == "Ri"
    )


def test_every_reason_appears_in_the_examples() -> None:
    reasons = set()
    for path in sorted((REPO / "examples").glob("*.json")):
        result = run("annotate", "--format", "json", str(path))
        reasons |= {json.loads(line)["reason"] for line in result.stdout.splitlines()}
    assert reasons == {"higher-number", "super-trump", "trump", "lead-suit"}


def test_csv_has_the_same_columns_and_compact_swaps() -> None:
    result = run("annotate", "--format", "csv", str(WALKTHROUGH))
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert list(rows[0]) == list(ANNOTATION_FIELDS)
    special = next(r for r in rows if (r["round"], r["trick"]) == ("2", "5"))
    assert re.fullmatch(
        r"lead P:\w+\+\w+ C:\w+\+\w+; follow P:\w+\+\w+ C:\w+\+\w+", special["swaps"]
    )
    assert special["in_order"] == "true" and special["super_trump"] == "Ch"
    first = rows[0]
    assert first["super_trump"] == "" and first["swaps"] == ""


def test_explain_adds_a_sentence_per_trick_to_json_and_csv() -> None:
    result = run("annotate", "--format", "json", "--explain", str(WALKTHROUGH))
    rows = [json.loads(line) for line in result.output.splitlines()]
    fourth = row(rows, 2, 4)
    assert fourth["explanation"] == (
        "Ch3 shows the special number 3: the Phantom gives "
        + " and ".join(fourth["swaps"][0]["phantom"])
        + ", Christine gives "
        + " and ".join(fourth["swaps"][0]["christine"])
        + ". Super trump Ri1 beats Ch3. Note 8 was the Phantom's, so the special card "
        "removes two notes: 7 -> 5; super trump Ring -> Chandelier."
    )
    assert row(rows, 2, 3)["explanation"] == (
        "Super trump Ch2 beats Ma4. Note 7 was the Phantom's: in order, 6 -> 7; super trump "
        "Chandelier -> Ring."
    )
    assert "counted once" not in row(rows, 2, 5)["explanation"]
    assert row(rows, 2, 5)["explanation"].endswith(
        "Trump Ma3 beats Mi3. Note 6 was the Phantom's and a 3 was played, so an extra note is "
        "completed: 5 -> 7; super trump Chandelier -> Ring."
    )
    csv_result = run("annotate", "--format", "csv", "--explain", str(WALKTHROUGH))
    assert next(csv.DictReader(io.StringIO(csv_result.output)))["explanation"].startswith(
        "Ma6 beats Ma5"
    )


def test_balance_explanation_says_one_note() -> None:
    result = run(
        "annotate", "--format", "json", "--explain", str(REPO / "examples/optional-rules.json")
    )
    texts = [json.loads(line)["explanation"] for line in result.stdout.splitlines()]
    assert any("removes one note (balance rule)" in text for text in texts)


def test_table_is_for_people() -> None:
    result = run("annotate", "--no-color", str(WALKTHROUGH))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("examples") or "rulebook-walkthrough" in lines[0]
    assert any(
        line.startswith("Round 1: Phantom leads; exchange: the Phantom gave") for line in lines
    )
    assert any(line.startswith("Round 2: Christine leads") for line in lines)
    trick = next(line for line in lines if line.lstrip().startswith("2.4 "))
    assert "Christine" in trick and "super trump" in trick and "out" in trick and "7" in trick
    assert "\x1b[" not in result.output
    # The sheet's progress: 12 cells in four bars after round 2, trick 4 (5 notes).
    assert re.search(r"[●#]{3}\|[●#]{2}[·.]\|[·.]{3}\|[·.]{3}", trick)
    assert "Super trump Ri1 beats Ch3." in result.output.replace("\n        ", " ")
    assert lines[-3] == (
        f"{WALKTHROUGH}#0 (rulebook-walkthrough): "
        "valid: Christine wins with 9 notes completed (round 2, trick 10)"
    )
    # Each symbol has one meaning, said once at the end.
    assert lines[-1] == (
        "Legend: ! a card of the special number was played; # a completed note; . an open note"
    )


def test_table_without_explanations() -> None:
    result = run("annotate", "--no-color", "--no-explain", str(WALKTHROUGH))
    assert "Super trump Ri1 beats Ch3." not in result.output


def test_illegal_record_is_annotated_up_to_its_first_problem() -> None:
    path = REPO / "examples" / "invalid" / "revoke.json"
    record = json.loads(path.read_text())
    replayed = phantom_log.replay(record)
    problem = replayed.problems[0]
    assert problem.code == "revoke"
    result = run("annotate", "--format", "json", str(path))
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert f"round {problem.round}, trick {problem.trick}: revoke:" in result.stderr
    last = rows[-1]
    assert (last["round"], last["trick"]) < (problem.round, problem.trick)
    assert len(rows) == (problem.round - 1) * 10 + problem.trick - 1
    table = run("annotate", "--no-color", str(path))
    assert table.exit_code == 1
    assert f"round {problem.round}, trick {problem.trick}: revoke:" in table.output


def test_swaps_text() -> None:
    replayed = phantom_log.replay(json.loads(WALKTHROUGH.read_text()))
    (both,) = [a for a in replayed.tricks if (a.round, a.trick) == (2, 5)]
    lead, follow = both.swaps
    assert swaps_text(both.outcome.swaps) == (
        f"lead P:{'+'.join(lead['phantom'])} C:{'+'.join(lead['christine'])}; "
        f"follow P:{'+'.join(follow['phantom'])} C:{'+'.join(follow['christine'])}"
    )
    assert swaps_text(()) == ""


def test_special_card_without_a_possible_swap_records_no_swap() -> None:
    # optional-rules.json, round 1, trick 10: Christine leads her last card, a special one.
    replayed = phantom_log.replay(json.loads((REPO / "examples/optional-rules.json").read_text()))
    (last,) = [a for a in replayed.tricks if (a.round, a.trick) == (1, 10)]
    assert last.special and last.swaps == []
    assert "no swap" not in last.explanation or "empty" in last.explanation


# -- show --------------------------------------------------------------------------------


def test_show_at_the_start() -> None:
    result = run("show", "--no-color", "--at", "1.0", str(WALKTHROUGH))
    assert result.exit_code == 0
    text = result.output
    assert "At the start of round 1: 0 of 12 notes completed" in text
    assert "Super trump: none (no note completed yet)" in text
    assert "Special number of round 1: 3" in text
    assert "Next note: 1, Christine's" in text
    assert re.search(r"Phantom's hand \(10\):", text)
    assert re.search(r"Christine's hand \(10\):", text)
    assert "●" not in text and "@" not in text


def test_show_mid_round_places_notes_above_and_below_the_centre_line() -> None:
    result = run("show", "--no-color", "--at", "2.4", str(WALKTHROUGH))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "After round 2, trick 4: 5 of 12 notes completed" in lines[1]
    christine = next(line for line in lines if line.startswith("Christine |"))[10:]
    phantom = next(line for line in lines if line.startswith("Phantom   |"))[10:]
    discs = {"●", "#"}
    opens = {"·", "."}
    # rulebook: Christine owns notes 1, 3, 5, 9, 11; the Phantom the others.
    assert sum(c in discs for c in christine) == 3  # notes 1, 3, 5
    assert sum(c in opens for c in christine) == 2  # notes 9, 11
    assert sum(c in discs for c in phantom) == 2  # notes 2, 4
    assert sum(c in opens for c in phantom) == 5
    assert (
        "Super trump: Chandelier" in result.output or "Super trump: ✶ Chandelier" in result.output
    )
    assert re.search(r"Phantom's hand \(6\):", result.output)


def test_show_at_the_end_by_default() -> None:
    result = run("show", "--no-color", str(WALKTHROUGH))
    assert "After round 2, trick 10: 9 of 12 notes completed" in result.output
    assert "Phantom's hand (0): empty" in result.output


@pytest.mark.parametrize("at", ["3.1", "1.11", "x", "1", "2.-1"])
def test_show_refuses_a_bad_moment(at: str) -> None:
    result = run("show", "--at", at, str(WALKTHROUGH))
    assert result.exit_code == 2
    assert "--at" in result.output


def test_show_refuses_a_moment_the_record_does_not_reach() -> None:
    result = run("show", "--at", "2.9", str(REPO / "examples" / "unfinished.json"))
    assert result.exit_code == 2
    assert "does not reach round 2, trick 9" in result.output


def test_svg(tmp_path: Path) -> None:
    out = tmp_path / "game.svg"
    result = run("show", str(WALKTHROUGH), "--svg", str(out))
    assert result.exit_code == 0
    root = ElementTree.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    notes = root.findall(f".//{SVG}circle[@class='note disc']")
    assert len(notes) == 9
    assert len(root.findall(f".//{SVG}circle[@class='note']")) == 3
    assert len(root.findall(f".//{SVG}line[@class='centre-line']")) == 1
    assert len(root.findall(f".//{SVG}line[@class='round-boundary']")) == 1
    (curve,) = root.findall(f".//{SVG}polyline[@class='notes-curve']")
    assert len(curve.attrib["points"].split()) == 21
    rows = walkthrough_rows()
    tricks = [c for c in root.iter(f"{SVG}circle") if "trick" in c.get("class", "").split()]
    assert len(tricks) == 20
    specials = [c for c in tricks if "special" in c.attrib["class"].split()]
    assert len(specials) == sum(r["special"] for r in rows)
    # Each trick's winner: its marker's class and the letter under its number.
    winners = [c.attrib["class"].split()[1] for c in tricks]
    assert winners == [f"won-by-{r['winner']}" for r in rows]
    letters = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "winner"]
    assert letters == ["P" if r["winner"] == "phantom" else "C" for r in rows]
    bars = root.findall(f".//{SVG}rect[@class='bar']")
    assert len(bars) == 4
    verdicts = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "verdict"]
    assert verdicts == ["Result: Christine wins with 9 notes completed (round 2, trick 10)"]


def svg_texts(root: ElementTree.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def test_svg_at_a_moment_draws_the_sheet_then_and_marks_it(tmp_path: Path) -> None:
    out = tmp_path / "game.svg"
    assert run("show", str(WALKTHROUGH), "--svg", str(out), "--at", "2.4").exit_code == 0
    root = ElementTree.parse(out).getroot()
    assert len(root.findall(f".//{SVG}circle[@class='note disc']")) == 5  # notes at 2.4
    assert "at 2.4" in svg_texts(root)
    faded = [c for c in root.iter(f"{SVG}circle") if c.get("opacity") == "0.3"]
    assert len(faded) == 6  # tricks 2.5 to 2.10
    refused = run("show", str(WALKTHROUGH), "--svg", str(tmp_path / "x.svg"), "--at", "1.11")
    assert refused.exit_code == 2
    assert not (tmp_path / "x.svg").exists()


def test_svg_of_an_illegal_record_marks_where_it_stops(tmp_path: Path) -> None:
    out = tmp_path / "revoke.svg"
    result = run("show", str(REPO / "examples/invalid/revoke.json"), "--svg", str(out))
    assert result.exit_code == 1
    texts = svg_texts(ElementTree.parse(out).getroot())
    assert "the replay stops here" in texts
    assert any(text.startswith("Illegal: the replay stops at revoke: ") for text in texts)


def test_svg_title_fits_the_picture(tmp_path: Path) -> None:
    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    record["game_id"] = "a-very-long-game-id-" * 6
    path = tmp_path / "long.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = tmp_path / "long.svg"
    assert run("show", str(path), "--svg", str(out)).exit_code == 0
    root = ElementTree.parse(out).getroot()
    heading = next(root.iter(f"{SVG}text"))
    lines = [span.text or "" for span in heading.iter(f"{SVG}tspan")]
    assert len(lines) >= 2
    assert all(len(line) <= 72 for line in lines)
    assert "".join(lines).replace(" ", "") == (root.find(f"{SVG}title").text or "").replace(" ", "")


def test_svg_is_not_overwritten_without_force(tmp_path: Path) -> None:
    out = tmp_path / "game.svg"
    out.write_text("keep me")
    result = run("show", str(WALKTHROUGH), "--svg", str(out))
    assert result.exit_code == 2
    assert out.read_text() == "keep me"
    assert run("show", str(WALKTHROUGH), "--svg", str(out), "--force").exit_code == 0
    assert out.read_text().startswith("<svg")


# -- the Python API ----------------------------------------------------------------------


def test_api_load_replay_verify() -> None:
    (record,) = phantom_log.load(WALKTHROUGH)
    assert isinstance(record, phantom_log.GameRecord)
    game = phantom_log.replay(record)
    assert game.valid
    assert game.result is not None and game.result.winner is not None
    assert (game.result.winner.key, game.result.notes) == ("christine", 9)
    assert all(isinstance(trick, Annotation) for trick in game.tricks)
    assert game.tricks[0].to_json() == walkthrough_rows()[0]
    assert game.tricks[0].lead == "Ma5"
    (report,) = phantom_log.verify(WALKTHROUGH)
    assert report.valid and report.game_id == "rulebook-walkthrough"


def test_api_replay_of_a_broken_dict_lists_its_problems() -> None:
    game = phantom_log.replay({"format": "phantom-log/1"})
    assert not game.valid
    assert game.tricks == [] and game.result is None
    assert {problem.code for problem in game.problems} == {"schema"}


def test_api_load_raises_for_a_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "phantom-log/1"}')
    with pytest.raises(phantom_log.InvalidRecord, match="schema"):
        list(phantom_log.load(path))
    with pytest.raises(FileNotFoundError):
        list(phantom_log.load(tmp_path / "missing.json"))


def test_api_names_are_exported() -> None:
    exported: dict[str, Any] = {}
    exec("from phantom_log import *", exported)
    del exported["__builtins__"]
    assert sorted(exported) == sorted(phantom_log.__all__)
    assert {"load", "verify", "replay", "GameRecord", "Annotation"} <= set(exported)
    for name, value in exported.items():
        assert value == getattr(phantom_log, name) and value is not None, name


def test_svg_title_of_wide_characters_fits_the_picture(tmp_path: Path) -> None:
    """A wide character (Hangul, kana, CJK) takes two columns: a title of them is wrapped
    at half as many characters, so it stays inside the picture."""
    from phantom_log.views.terminal import visible_width as _columns

    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    record["event"] = "서울 오픈"
    record["game_id"] = "서울오픈결승전" * 6
    path = tmp_path / "wide.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "wide.svg"
    assert run("show", str(path), "--svg", str(out)).exit_code == 0
    root = ElementTree.parse(out).getroot()
    lines = [span.text or "" for span in next(root.iter(f"{SVG}text")).iter(f"{SVG}tspan")]
    assert len(lines) >= 2
    assert all(_columns(line) <= 72 for line in lines)
    assert "".join(lines).replace(" ", "") == (root.find(f"{SVG}title").text or "").replace(" ", "")


@given(st.text(max_size=300), st.integers(min_value=1, max_value=100))
def test_fitted_text_keeps_every_character_within_its_columns(text: str, columns: int) -> None:
    from phantom_log.views.picture import _fitted
    from phantom_log.views.terminal import visible_width as _columns

    lines = _fitted(text, columns)
    assert all(_columns(line) <= columns or len(line) == 1 for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())
