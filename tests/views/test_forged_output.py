"""Forged output (the reliability issue): no record and no file name can move the cursor,
clear a line, reorder the text or break a line of what a command prints; an SVG picture
is well-formed XML whatever the record holds; plot labels are taken literally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET
from tests.helpers.cli import run

SIMULATION = Simulation(RULEBOOK_SHEET, Rules(), seed=1)
# What a terminal would obey: escape sequences, a carriage return, a line break, the
# bidirectional overrides and isolates, the line separator.
FORGING = ["\x1b", "\r", "\x85", "\u202e", "\u2066", "\u200f", "\u2028"]
# Legal in a record's own strings (no control character), yet trouble elsewhere: bidi
# overrides, characters no XML document may hold, markup, a dollar sign for matplotlib.
HOSTILE_NAME = "\u202eKim <&>\"' ]]> \ufffe\uffff $x$ \\frac{"


def game(number: int = 1, **fields: Any) -> dict[str, Any]:
    record = simulate_game(SIMULATION, number)
    record.update(fields)
    return record


def unforged(text: str) -> bool:
    """True when the text holds no character a terminal would obey, and each line ends
    only where the command ended it."""
    return not any(character in text for character in FORGING)


def write(path: Path, *records: dict[str, Any]) -> str:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return str(path)


@pytest.fixture
def hostile(tmp_path: Path) -> str:
    """A file of two valid records whose names and ids hold bidi overrides and
    characters that XML does not allow, under a file name that holds an escape sequence."""
    return write(
        tmp_path / "games\x1b[2K\r.jsonl",
        game(
            1,
            game_id="g\u202e1",
            players={"phantom": HOSTILE_NAME, "christine": "Lee"},
            event="Open\u202e",
            stage="\u20661",
        ),
        game(4, game_id="g\u20662", players={"phantom": "Lee", "christine": HOSTILE_NAME}),
    )


# -- text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["verify"],
        ["verify", "--format", "text", "--strict"],
        ["show", "--no-color", "--index", "0"],
        ["show", "--no-color", "--index", "0", "--at", "1.3"],
        ["annotate", "--no-color"],
        ["tournament", "check", "--jobs", "1"],
        ["stats", "--by", "player", "--jobs", "1", "-q"],
        ["stats", "--by", "event", "--by", "stage", "--jobs", "1", "-q"],
    ],
    ids=" ".join,
)
def test_text_output_escapes_what_records_and_file_names_hold(
    hostile: str, command: list[str]
) -> None:
    result = run(*command, hostile)
    assert result.exit_code in (0, 1), result.output
    assert unforged(result.output)
    assert "\\u202e" in result.output  # shown, as an escape


def test_the_refusal_of_several_records_is_escaped(hostile: str) -> None:
    result = run("show", "--no-color", hostile)
    assert result.exit_code == 2
    assert "holds 2 records, and show shows one" in result.output
    assert unforged(result.output)


def test_an_invalid_record_with_an_escape_sequence_forges_no_line(tmp_path: Path) -> None:
    forged = "a\x1b[2K\rother.json#0 (x): valid: \u202eforged"
    path = write(tmp_path / "forged.jsonl", game(game_id=forged, event=forged, site=5))
    for command in (["show", "--no-color"], ["annotate", "--no-color"], ["tournament", "check"]):
        result = run(*command, path)
        assert unforged(result.output), command
        assert "a\\x1b[2K\\x0dother.json#0" in result.output, command


def test_a_problem_across_records_is_escaped_too(tmp_path: Path) -> None:
    path = write(
        tmp_path / "games.jsonl",
        game(1, game_id="g\u202e1"),
        game(2, game_id="g\u202e1", players={"phantom": "K\u2028", "christine": "K\u2028"}),
    )
    result = run("tournament", "check", path)
    lines = [line for line in result.output.splitlines() if "duplicate-game-id" in line]
    assert len(lines) == 2
    assert unforged(result.output)


def test_a_usage_error_naming_a_file_is_escaped(tmp_path: Path) -> None:
    path = write(tmp_path / "one\x1b[2K.jsonl", game())
    result = run("show", "--index", "5", path)
    assert result.exit_code == 2
    assert unforged(result.stderr)


# -- SVG -------------------------------------------------------------------------------


@pytest.mark.parametrize("index", ["0", "1"])
def test_the_svg_of_a_hostile_record_is_well_formed_xml(
    hostile: str, tmp_path: Path, index: str
) -> None:
    out = tmp_path / "game.svg"
    result = run("show", "--index", index, "--svg", str(out), hostile)
    assert result.exit_code == 0, result.output
    title = ElementTree.parse(out).getroot().find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text is not None
    assert "<&>\"' ]]>" in title.text  # markup is text, as written
    assert "\\u202e" in title.text and "\\ufffe" in title.text
    # A picture meant to be shared names the game, never the file it was read from.
    assert "games" not in title.text and "\\x1b[2K" not in title.text


def test_the_svg_of_a_file_name_that_is_not_utf8_is_well_formed_xml(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad\xff\x01.json")
    (tmp_path / name).write_text(json.dumps(game()), encoding="utf-8")
    out = tmp_path / "game.svg"
    done = subprocess.run(
        [sys.executable, "-m", "phantom_log", "show", "--svg", str(out), name],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    ElementTree.parse(out)


# -- plots -----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_a_dollar_sign_in_a_name_is_drawn_literally(
    hostile: str, tmp_path: Path, suffix: str
) -> None:
    out = tmp_path / f"curve{suffix}"
    result = run("stats", "--by", "player", "--jobs", "1", "-q", "--plot", str(out), hostile)
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0
    if suffix == ".svg":
        text = out.read_text(encoding="utf-8")
        ElementTree.fromstring(text)
        assert "$x$ \\frac{" in text  # the label as written (matplotlib's comment of it)
