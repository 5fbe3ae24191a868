"""Identity that people mean (the reliability issue): ``tournament check`` compares game
ids and player names after NFC normalisation with Unicode's default-ignorable code points
removed, in every check across records and in the standings, and reports each record's
text as written; look-alike letters of other scripts stay apart. The content of a record
is identified at any depth of nesting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.cli import main
from phantom_log.records.identity import game_key, person_key
from phantom_log.records.ignorable import DEFAULT_IGNORABLE_RANGES
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET

SIMULATION = Simulation(RULEBOOK_SHEET, Rules(), seed=1)
NFC_CAFE = "caf\u00e9-1"
NFD_CAFE = "cafe\u0301-1"
#: The issue's Kims: a combining grapheme joiner, a variation selector, a tag space and a
#: Hangul filler after the name; each shows as "Kim".
KIMS = ["Kim", "Kim\u034f", "Kim\ufe0f", "Kim\U000e0020", "Kim\u3164"]
#: The code points a key leaves out.
DEFAULT_IGNORABLE = {
    code for first, last in DEFAULT_IGNORABLE_RANGES for code in range(first, last + 1)
}
IGNORABLE = st.sampled_from(sorted(DEFAULT_IGNORABLE)).map(chr)


def game(number: int, game_id: str, phantom: str, christine: str) -> dict[str, Any]:
    record = simulate_game(SIMULATION, number)
    record["game_id"] = game_id
    record["players"] = {"phantom": phantom, "christine": christine}
    return record


def check(*args: str) -> Result:
    return CliRunner().invoke(
        main, ["tournament", "check", "--jobs", "1", *args], catch_exceptions=False
    )


def report(*args: str) -> dict[str, Any]:
    result = check("--format", "json", *args)
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def write(path: Path, records: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path.name


# -- the keys ---------------------------------------------------------------------------


def test_nfc_and_nfd_spellings_are_one_game_id() -> None:
    assert NFC_CAFE != NFD_CAFE
    assert game_key(NFC_CAFE) == game_key(NFD_CAFE)


@pytest.mark.parametrize("invisible", [name[3:] for name in KIMS[1:]] + ["\u200b", "\u00ad"])
def test_an_invisible_character_inside_a_name_is_ignored(invisible: str) -> None:
    assert person_key(f"K{invisible}im") == person_key(f"Kim{invisible}") == person_key("Kim")
    assert game_key(f"g{invisible}1") == game_key(f"g1{invisible}") == game_key("g1")


@given(st.text(max_size=20), st.lists(st.tuples(st.integers(0, 20), IGNORABLE), max_size=6))
def test_default_ignorable_code_points_anywhere_change_no_key(
    text: str, inserted: list[tuple[int, str]]
) -> None:
    spelled = text
    for place, character in inserted:
        spelled = spelled[:place] + character + spelled[place:]
    assert game_key(spelled) == game_key(text)
    assert person_key(spelled) == person_key(text)


@given(st.text(max_size=30))
def test_a_key_is_its_own_key_and_holds_no_ignorable_code_point(text: str) -> None:
    for key in (game_key, person_key):
        made = key(text)
        assert key(made) == made
        assert not DEFAULT_IGNORABLE & {ord(character) for character in made}


@given(st.text(st.characters(codec="utf-8"), min_size=1, max_size=20))
def test_a_visible_letter_changed_changes_the_key(text: str) -> None:
    # Letters of other scripts that look the same are other letters: Cyrillic K, e, o.
    for latin, cyrillic in (("K", "\u041a"), ("e", "\u0435"), ("o", "\u043e")):
        assert game_key(text + latin) != game_key(text + cyrillic)
        assert person_key(text + latin) != person_key(text + cyrillic)


def test_names_still_differ_by_their_visible_letters() -> None:
    assert person_key("Kim") != person_key("Kin")
    assert game_key("G1") != game_key("g1")  # game ids keep their case
    assert person_key("KIM") == person_key(" kim ")  # names never did


# -- through tournament check -----------------------------------------------------------


def test_a_game_id_in_nfc_and_in_nfd_is_a_duplicate_game_id(here: Path) -> None:
    name = write(here / "games.jsonl", [game(1, NFC_CAFE, "A", "B"), game(2, NFD_CAFE, "C", "D")])
    document = report(name)
    duplicates = [p for p in document["problems"] if p["code"] == "duplicate-game-id"]
    assert [problem["index"] for problem in duplicates] == [0, 1]
    # Each record's id as written.
    assert [problem["game_id"] for problem in duplicates] == [NFC_CAFE, NFD_CAFE]
    assert f"game id {NFC_CAFE!r} is held by 2 records" in duplicates[0]["message"]
    assert document["standings"] == []


def test_kim_with_a_zero_width_space_is_the_same_player_in_the_standings(here: Path) -> None:
    name = write(
        here / "games.jsonl",
        [game(1, "g1", "Kim", "Lee"), game(4, "g2", "K\u200bim", "Lee")],
    )
    standings = report(name)["standings"]
    # One row each, Kim named as the first record writes it.
    assert sorted((row["player"], row["games"], row["wins"]) for row in standings) == [
        ("Kim", 2, 1),
        ("Lee", 2, 1),
    ]


def test_the_five_kims_of_the_issue_are_one_row_of_the_standings(here: Path) -> None:
    records = [game(number, f"g{number}", kim, "Lee") for number, kim in enumerate(KIMS)]
    standings = report(write(here / "games.jsonl", records))["standings"]
    kims = [row for row in standings if row["player"].startswith("Kim")]
    assert [(row["player"], row["games"]) for row in kims] == [("Kim", 5)]


@pytest.mark.parametrize("invisible", ["\U000e0020", "\u034f", "\ufe0f", "\u3164"])
def test_dup_and_dup_with_an_ignorable_code_point_are_a_duplicate_game_id(
    here: Path, invisible: str
) -> None:
    records = [game(1, "dup", "A", "B"), game(2, f"dup{invisible}", "C", "D")]
    problems = report(write(here / "games.jsonl", records))["problems"]
    duplicates = [problem for problem in problems if problem["code"] == "duplicate-game-id"]
    assert [(problem["index"], problem["game_id"]) for problem in duplicates] == [
        (0, "dup"),
        (1, f"dup{invisible}"),
    ]


def test_a_cyrillic_look_alike_is_another_player(here: Path) -> None:
    records = [game(1, "g1", "Kim", "Lee"), game(2, "g2", "\u041aim", "Lee")]
    standings = report(write(here / "games.jsonl", records))["standings"]
    assert sorted(row["player"] for row in standings) == ["Kim", "Lee", "\u041aim"]


def test_one_player_on_both_sides_behind_an_invisible_character(here: Path) -> None:
    name = write(here / "games.jsonl", [game(1, "g1", "Kim", "K\ufeffim")])
    problems = report(name)["problems"]
    assert [problem["code"] for problem in problems] == ["same-player"]
    assert problems[0]["message"] == "'Kim' plays both the Phantom and Christine"


def test_the_manifest_matches_ids_and_names_by_the_same_keys(here: Path) -> None:
    name = write(here / "games.jsonl", [game(1, NFD_CAFE, "Kim", "Le\u00e9")])
    (here / "manifest.json").write_text(
        json.dumps(
            {
                "format": "phantom-log-manifest/1",
                "players": ["K\u200bim", "Lee\u0301"],
                "stages": [
                    {
                        "stage": "1",
                        "games": [
                            {"game_id": NFC_CAFE, "phantom": "Kim", "christine": "Lee\u0301"}
                        ],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    codes = [problem["code"] for problem in report("--manifest", "manifest.json", name)["problems"]]
    assert codes == ["wrong-stage"]  # found by its id, its players known; no stage recorded


def test_a_manifest_listing_one_id_in_two_spellings_lists_it_twice(here: Path) -> None:
    (here / "manifest.json").write_text(
        json.dumps(
            {
                "format": "phantom-log-manifest/1",
                "stages": [{"stage": "1", "games": [{"game_id": NFC_CAFE}, {"game_id": NFD_CAFE}]}],
            }
        ),
        encoding="utf-8",
    )
    name = write(here / "games.jsonl", [game(1, "g1", "A", "B")])
    result = check("--manifest", "manifest.json", name)
    assert result.exit_code == 2
    assert "the schedule lists game ids more than once" in result.stderr


# -- the content of a record, at any depth ----------------------------------------------


@pytest.mark.parametrize("depth", [256, 600])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_x_value_nested_deeper_than_orjson_writes_is_still_compared(
    here: Path, depth: int, jobs: str
) -> None:
    text = json.dumps(game(1, "g1", "A", "B"))
    nested = text[:-1] + ', "x-deep": ' + "[" * depth + "]" * depth + "}"
    other = nested.replace('"g1"', '"g2"')
    (here / "games.jsonl").write_text(f"{nested}\n{other}\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["tournament", "check", "--jobs", jobs, "--format", "json", "games.jsonl"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["valid"] == 2
    assert [problem["code"] for problem in document["problems"]] == ["duplicate-record"]
