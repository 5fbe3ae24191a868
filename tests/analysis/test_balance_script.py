"""``scripts/balance.py``: the table of the Phantom's win rates in simulated games.

Only the table's shape and its internal consistency are checked, never its figures: a
rate is a share of the games, inside its own 95% interval, and the same seed gives the
same table.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache

import pytest

from tests.helpers.paths import REPO

SCRIPT = REPO / "scripts" / "balance.py"
GAMES = 50
PAIRINGS = {("random", "random"), ("greedy", "greedy"), ("greedy", "random"), ("random", "greedy")}
RULES = {"none", "beginner", "balance", "beginner + balance"}
HEADER = "| Phantom | Christine | rules | Phantom wins | 95% interval | mean notes |"
PERCENT = r"(\d{1,3}(?:\.\d)?)%"
ROW = re.compile(
    rf"\| (random|greedy) \| (random|greedy) \| ([a-z +]+) \| {PERCENT} "
    rf"\| {PERCENT} - {PERCENT} \| (\d+\.\d\d) \|"
)


@cache
def run_balance(games: int = GAMES, seed: int = 1) -> str:
    """The script's standard output (it must succeed, with nothing on standard error)."""
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", str(games), "--seed", str(seed)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
    return completed.stdout


def table_lines(output: str) -> list[str]:
    """The lines of the Markdown table, header first."""
    return [line for line in output.splitlines() if line.startswith("|")]


def data_rows(output: str) -> list[re.Match[str]]:
    """The table's data rows, each parsed (the header and the separator left out)."""
    lines = table_lines(output)[2:]
    rows = [ROW.fullmatch(line) for line in lines]
    assert all(rows), [line for line, row in zip(lines, rows, strict=True) if row is None]
    return [row for row in rows if row is not None]


def test_balance_script_prints_a_markdown_table_of_16_rows() -> None:
    lines = table_lines(run_balance())
    assert lines[0] == HEADER
    assert re.fullmatch(r"\|(---\|){6}", lines[1])
    rows = data_rows(run_balance())
    assert len(rows) == 16
    combinations = {(row[1], row[2], row[3]) for row in rows}
    assert combinations == {
        (phantom, christine, rules) for phantom, christine in PAIRINGS for rules in RULES
    }
    assert f"{GAMES} games per row, seed 1" in run_balance()


@pytest.mark.parametrize("row_index", range(16))
def test_balance_script_rates_are_shares_inside_their_intervals(row_index: int) -> None:
    row = data_rows(run_balance())[row_index]
    rate, low, high = (float(row[index]) for index in (4, 5, 6))
    for value in (rate, low, high):
        assert 0.0 <= value <= 100.0
    assert low <= rate <= high
    assert low < high  # fifty games never pin a rate down exactly
    # A rate is a whole number of games won out of fifty: a multiple of 2%.
    assert abs(rate * GAMES / 100 - round(rate * GAMES / 100)) < 1e-6
    assert 0.0 <= float(row[7]) <= 12.0  # mean notes completed


def test_balance_script_gives_the_same_table_for_the_same_seed() -> None:
    first = table_lines(run_balance())
    again = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", str(GAMES), "--seed", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert table_lines(again) == first
