"""Invisible characters in a tournament's identities (the reliability issue, second pass,
point 11), through the real command in a process of its own: names and game ids that
differ only by Unicode's default-ignorable code points are one player and one game id;
a letter of another script that looks the same is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET

SIMULATION = Simulation(RULEBOOK_SHEET, Rules(), seed=1)
KIMS = ["Kim", "Kim\u034f", "Kim\ufe0f", "Kim\U000e0020", "Kim\u3164"]


def games_file(path: Path, games: list[tuple[str, str, str]]) -> Path:
    records = []
    for number, (game_id, phantom, christine) in enumerate(games):
        record = simulate_game(SIMULATION, number)
        record["game_id"] = game_id
        record["players"] = {"phantom": phantom, "christine": christine}
        records.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    return path


def tournament_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", "tournament", "check", *args],
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=120,
        check=False,
    )


def test_five_spellings_of_kim_are_one_row_and_a_cyrillic_kim_another(tmp_path: Path) -> None:
    games = [(f"g{number}", kim, f"Other{number}") for number, kim in enumerate(KIMS)]
    games.append(("g5", "\u041aim", "Other5"))  # CYRILLIC CAPITAL LETTER KA
    path = games_file(tmp_path / "games.jsonl", games)
    completed = tournament_check("--format", "csv", str(path))
    assert completed.returncode == 0, completed.stderr
    rows = [line.split(",") for line in completed.stdout.splitlines()[1:]]
    kims = sorted((row[0], int(row[1])) for row in rows if row[0].endswith("im"))
    assert kims == [("Kim", 5), ("\u041aim", 1)]
    assert len(rows) == 2 + 6  # Kim, the Cyrillic Kim and the six others


def test_dup_and_dup_with_a_tag_space_are_reported_as_one_id_twice(tmp_path: Path) -> None:
    path = games_file(tmp_path / "games.jsonl", [("dup", "A", "B"), ("dup\U000e0020", "C", "D")])
    completed = tournament_check("--format", "json", str(path))
    assert completed.returncode == 1, completed.stderr
    problems = json.loads(completed.stdout)["problems"]
    assert [(problem["code"], problem["index"]) for problem in problems] == [
        ("duplicate-game-id", 0),
        ("duplicate-game-id", 1),
    ]
