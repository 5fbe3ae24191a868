"""``export`` and ``stats``: every figure checked against values computed here.

The corpus mixes simulated games (plain, balance with a greedy Phantom who often wins
early, beginner), copies of the examples (one of them unfinished, valid with a warning)
and invalid records. The expected figures come from ``phantom_log.verify`` and
``phantom_log.replay`` record by record and plain Python arithmetic; neither polars nor
``phantom_log.tabular.tables`` is used to compute them.
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import json
import math
import shutil
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import Result

import phantom_log
from phantom_log.tabular.tables import GAME_SCHEMA, SWAPS_TYPE, TRICK_SCHEMA, swaps_as_text
from phantom_log.views.annotate import swaps_text
from tests.helpers.cli import run
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples"
Z_95 = 1.959963984540054
SLOTS = 20
REASONS = ("higher-number", "super-trump", "trump", "lead-suit")
SUMMARY_COLUMNS = [
    "games",
    "phantom_wins",
    "christine_wins",
    "unfinished",
    "phantom_win_rate",
    "phantom_win_rate_low",
    "phantom_win_rate_high",
    "mean_notes",
    "mean_notes_after_round_1",
    "mean_tricks",
    "share_higher_number",
    "share_super_trump",
    "share_trump",
    "share_lead_suit",
    "special_tricks_per_game",
    "mean_special_effect",
]
PLAYER_COLUMNS = [
    "wins",
    "games_as_phantom",
    "wins_as_phantom",
    "games_as_christine",
    "wins_as_christine",
]
GAME_COLUMNS = [
    "source",
    "index",
    "game_id",
    "event",
    "site",
    "date",
    "stage",
    "phantom",
    "christine",
    "sheet",
    "beginner",
    "balance",
    "valid",
    "first_problem",
    "winner",
    "notes",
    "rounds_played",
    "tricks_played",
    "notes_after_round_1",
    "special_number_1",
    "special_number_2",
    "special_tricks",
    "notes_added_by_special",
    "notes_removed_by_special",
]
TRICK_COLUMNS = [
    "source",
    "index",
    "game_id",
    "round",
    "trick",
    "leader",
    "lead",
    "follower",
    "follow",
    "lead_suit",
    "super_trump",
    "winner",
    "reason",
    "note_owner",
    "in_order",
    "special",
    "swaps",
    "notes_before",
    "notes_after",
]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# --- running the command line ------------------------------------------------------------


def ok(*args: str | Path) -> Result:
    """A run that did all its work: exit 0, or 1 when the input holds invalid records (the
    corpus does; the exit codes themselves are tested below)."""
    result = run(*args)
    assert result.exit_code in (0, 1), result.output
    return result


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def stats_rows(*args: str | Path) -> list[dict[str, Any]]:
    return json_lines(ok("stats", *args, "--format", "json", "-q").stdout)


def files_in(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


# --- what the test knows of each record ----------------------------------------------------


def compact_swaps(swaps: Sequence[dict[str, Any]]) -> str:
    """The swaps of an ``annotate --format json`` row as the tables' compact string."""

    def side(cards: Sequence[str]) -> str:
        return "+".join(cards) or "-"

    return "; ".join(
        f"{swap['after']} P:{side(swap.get('phantom', []))} C:{side(swap.get('christine', []))}"
        for swap in swaps
    )


@dataclass(frozen=True)
class Facts:
    """One record: its games-table row and tricks-table rows, as the test computes them."""

    row: dict[str, Any]
    tricks: list[dict[str, Any]]
    annotations: list[dict[str, Any]]

    @property
    def valid(self) -> bool:
        return bool(self.row["valid"])

    @property
    def finished(self) -> bool:
        return self.row["winner"] is not None

    def notes_by_slot(self) -> list[int]:
        """Notes completed after each trick 1-20 of the game (the final notes once over)."""
        after = {(t["round"] - 1) * 10 + t["trick"]: t["notes_after"] for t in self.tricks}
        return [after.get(slot, self.row["notes"]) for slot in range(1, SLOTS + 1)]

    def running(self, slot: int) -> bool:
        return any((t["round"] - 1) * 10 + t["trick"] == slot for t in self.tricks)


def rules_label(beginner: bool, balance: bool) -> str:
    if beginner and balance:
        return "beginner+balance"
    return "beginner" if beginner else "balance" if balance else "none"


def facts_of(report: Any) -> Facts:
    """The expected table rows of one verify report, from the record and its replay."""
    record = report.record if isinstance(report.record, dict) else None
    data = record or {}
    errors = [p for p in report.problems if p.severity is phantom_log.Severity.ERROR]
    first = (errors or list(report.problems) or [None])[0]
    game = phantom_log.replay(record) if record is not None else None
    annotations = [a.to_json() for a in game.tricks] if game is not None else []
    # A trick's row names its record as the games row does: the two join on (source, index).
    tricks = [{"source": report.source, "index": report.index, **a} for a in annotations]
    if game is not None:
        # The compact string of CSV is the one phantom_log.views.annotate.swaps_text writes.
        compact = [compact_swaps(t["swaps"]) for t in tricks]
        assert compact == [swaps_text(a.outcome.swaps) for a in game.tricks]
    result = game.result if game is not None else None
    assert (None if result is None else result.to_json()) == (
        None if report.result is None else report.result.to_json()
    )
    sheet = data.get("sheet")
    players = data.get("players", {})
    rules = data.get("rules", {})
    round_one = [t for t in tricks if t["round"] == 1]
    if any(t["trick"] == 10 for t in round_one):
        after_round_1 = next(t["notes_after"] for t in round_one if t["trick"] == 10)
    elif round_one and round_one[-1]["notes_after"] == 12:
        after_round_1 = 12
    else:
        after_round_1 = None
    rounds_played = len(game.rounds) if game is not None else 0
    numbers = [data["rounds"][i]["special_number"] for i in range(rounds_played)]
    special = [t for t in tricks if t["special"]]
    row = {
        "source": report.source,
        "index": report.index,
        "game_id": report.game_id,
        "event": data.get("event"),
        "site": data.get("site"),
        "date": dt.date.fromisoformat(data["date"]) if "date" in data else None,
        "stage": data.get("stage"),
        "phantom": players.get("phantom"),
        "christine": players.get("christine"),
        "sheet": sheet if isinstance(sheet, str) else sheet["name"] if sheet else None,
        # Unknown for a record that could not be read.
        "beginner": rules.get("beginner", False) if record is not None else None,
        "balance": rules.get("balance", False) if record is not None else None,
        "valid": report.valid,
        "first_problem": None if first is None else first.code.value,
        "winner": None if result is None or result.winner is None else result.winner.key,
        "notes": None if result is None else result.notes,
        "rounds_played": rounds_played,
        "tricks_played": len(tricks),
        "notes_after_round_1": after_round_1,
        "special_number_1": numbers[0] if len(numbers) > 0 else None,
        "special_number_2": numbers[1] if len(numbers) > 1 else None,
        "special_tricks": len(special),
        "notes_added_by_special": sum(
            t["notes_after"] - t["notes_before"] - 1 for t in special if t["in_order"]
        ),
        "notes_removed_by_special": sum(
            t["notes_before"] - t["notes_after"] for t in special if not t["in_order"]
        ),
    }
    assert list(row) == GAME_COLUMNS
    return Facts(row, tricks, annotations)


@dataclass(frozen=True)
class Corpus:
    folder: Path
    facts: list[Facts]

    @property
    def valid(self) -> list[Facts]:
        return [f for f in self.facts if f.valid]


def simulate(out: Path, count: int, seed: int, *options: str) -> None:
    ok("simulate", "-n", str(count), "--seed", str(seed), *options, "-q", "-o", out)


def facts_of_folder(folder: Path) -> list[Facts]:
    return [facts_of(report) for report in phantom_log.verify(folder)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    folder = tmp_path_factory.mktemp("stats") / "corpus"
    folder.mkdir()
    simulate(folder / "a-plain.jsonl", 40, 101)
    simulate(folder / "b-balance-greedy.jsonl", 40, 12, "--balance", "--phantom", "greedy")
    simulate(folder / "c-beginner.jsonl", 30, 103, "--beginner")
    for path in sorted(EXAMPLES.glob("*.json")):
        shutil.copy(path, folder / f"example-{path.name}")
    # One more recorded game with a stage, so that --by stage has two groups.
    staged = json.loads((EXAMPLES / "rulebook-walkthrough.json").read_text())
    staged.update(game_id="staged", event="Staged cup", stage="2", site="Ulsan")
    (folder / "example-staged.json").write_text(json.dumps(staged))
    # A game left off in round 1, in the middle of a trick: no notes after round 1.
    stopped = json.loads((EXAMPLES / "rulebook-walkthrough.json").read_text())
    stopped.update(game_id="stopped", event="Stopped early")
    del stopped["result"]
    stopped["rounds"] = stopped["rounds"][:1]
    tricks = stopped["rounds"][0]["tricks"]
    tricks[5:] = [{"plays": tricks[5]["plays"][:1]}]
    (folder / "example-stopped.json").write_text(json.dumps(stopped))
    shutil.copy(EXAMPLES / "invalid" / "revoke.json", folder / "invalid-revoke.json")
    shutil.copy(EXAMPLES / "invalid" / "json.json", folder / "invalid-json.json")
    facts = facts_of_folder(folder)
    valid = [f for f in facts if f.valid]
    # The corpus holds what the checks below need.
    assert len(facts) == 40 + 40 + 30 + 6 + 2
    assert len(valid) == len(facts) - 2
    assert sum(f.row["winner"] is None for f in valid) == 2
    assert any(f.row["notes_after_round_1"] is None for f in valid)
    assert any(f.row["winner"] == "phantom" and f.row["rounds_played"] == 1 for f in valid)
    assert any(f.row["winner"] == "phantom" and 10 < f.row["tricks_played"] < 20 for f in valid)
    assert any(f.row["special_number_1"] != f.row["special_number_2"] for f in valid)
    assert any(f.row["special_number_1"] == f.row["special_number_2"] for f in valid)
    return Corpus(folder, facts)


# --- the expected statistics ---------------------------------------------------------------


def wilson(wins: int, games: int) -> tuple[float, float]:
    p = wins / games
    z2 = Z_95 * Z_95
    denominator = 1 + z2 / games
    centre = (p + z2 / (2 * games)) / denominator
    margin = Z_95 * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / denominator
    return centre - margin, centre + margin


def mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return sum(items) / len(items) if items else None


def key_values(facts: Facts, key: str) -> list[tuple[Any, str | None]]:
    """The group values of one game for one key, each with the role it stands for."""
    row = facts.row
    if key == "rules":
        return [(rules_label(row["beginner"], row["balance"]), None)]
    if key == "special_number":
        numbers = {row["special_number_1"], row["special_number_2"]} - {None}
        return [(number, None) for number in sorted(numbers)]
    if key == "player":
        return [(row["phantom"], "phantom"), (row["christine"], "christine")]
    return [(row[key], None)]


def groups(
    games: Iterable[Facts], keys: Sequence[str]
) -> dict[tuple[Any, ...], list[tuple[Facts, set[str]]]]:
    """Each group's members: each game once, with the roles the grouping player had in it
    (both when one player is named on both sides; none without ``--by player``)."""
    members: dict[tuple[Any, ...], dict[int, tuple[Facts, set[str]]]] = {}
    for game in games:
        for combination in itertools.product(*(key_values(game, key) for key in keys)):
            group = tuple(value for value, _ in combination)
            _, roles = members.setdefault(group, {}).setdefault(id(game), (game, set()))
            roles.update(role for _, role in combination if role is not None)
    return {group: list(entries.values()) for group, entries in members.items()}


def group_order(group: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((value is None, value if value is not None else 0) for value in group)


def expected_summary(games: Iterable[Facts], keys: Sequence[str]) -> list[dict[str, Any]]:
    members = groups(games, keys)
    if not keys:
        members = members or {(): []}
    rows = []
    for group in sorted(members, key=group_order):
        entries = members[group]
        rows_of = [game.row for game, _ in entries]
        finished = [row for row in rows_of if row["winner"] is not None]
        phantom_wins = sum(row["winner"] == "phantom" for row in rows_of)
        christine_wins = sum(row["winner"] == "christine" for row in rows_of)
        low, high = wilson(phantom_wins, len(finished)) if finished else (None, None)
        reasons = [t["reason"] for game, _ in entries for t in game.tricks]
        special = sum(row["special_tricks"] for row in rows_of)
        effect = sum(
            row["notes_added_by_special"] - row["notes_removed_by_special"] for row in rows_of
        )
        row: dict[str, Any] = dict(zip(keys, group, strict=True))
        row |= {
            "games": len(entries),
            "phantom_wins": phantom_wins,
            "christine_wins": christine_wins,
            "unfinished": len(rows_of) - len(finished),
            "phantom_win_rate": phantom_wins / len(finished) if finished else None,
            "phantom_win_rate_low": low,
            "phantom_win_rate_high": high,
            "mean_notes": mean(r["notes"] for r in finished),
            "mean_notes_after_round_1": mean(
                r["notes_after_round_1"] for r in rows_of if r["notes_after_round_1"] is not None
            ),
            "mean_tricks": mean(r["tricks_played"] for r in finished),
        }
        for reason in REASONS:
            share = reasons.count(reason) / len(reasons) if reasons else None
            row[f"share_{reason.replace('-', '_')}"] = share
        row["special_tricks_per_game"] = mean(r["special_tricks"] for r in rows_of)
        row["mean_special_effect"] = effect / special if special else None
        if "player" in keys:
            as_phantom = [game.row for game, roles in entries if "phantom" in roles]
            as_christine = [game.row for game, roles in entries if "christine" in roles]
            wins_as_phantom = sum(r["winner"] == "phantom" for r in as_phantom)
            wins_as_christine = sum(r["winner"] == "christine" for r in as_christine)
            row |= {
                "wins": wins_as_phantom + wins_as_christine,
                "games_as_phantom": len(as_phantom),
                "wins_as_phantom": wins_as_phantom,
                "games_as_christine": len(as_christine),
                "wins_as_christine": wins_as_christine,
            }
        rows.append(row)
    return rows


def expected_curve(games: Iterable[Facts], keys: Sequence[str]) -> list[dict[str, Any]]:
    members = groups([g for g in games if g.finished], keys)
    rows = []
    for group in sorted(members, key=group_order):
        entries = [game for game, _ in members[group]]
        notes = [game.notes_by_slot() for game in entries]
        for slot in range(1, SLOTS + 1):
            row: dict[str, Any] = dict(zip(keys, group, strict=True))
            row |= {
                "trick": slot,
                "mean_notes": sum(n[slot - 1] for n in notes) / len(entries),
                "share_running": sum(game.running(slot) for game in entries) / len(entries),
                "games": len(entries),
            }
            rows.append(row)
    return rows


def assert_rows(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    """Same rows in the same order, same columns in the same order, same values (floats
    to 1e-9); rows there must be, or nothing is compared."""
    assert expected, "no expected rows: the figures compared would be none"
    assert [list(row) for row in actual] == [list(row) for row in expected]
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        for name, value in want.items():
            if isinstance(value, float) and not isinstance(value, bool):
                assert got[name] == pytest.approx(value, rel=1e-9, abs=1e-12), (name, got, want)
            else:
                assert got[name] == value, (name, got, want)
                assert type(got[name]) is type(value), (name, got, want)


# --- stats: the summary --------------------------------------------------------------------

GROUPINGS = [
    [],
    ["rules"],
    ["special_number"],
    ["player"],
    ["sheet"],
    ["event"],
    ["stage"],
    ["rules", "sheet"],
    ["player", "special_number"],
]


@pytest.mark.parametrize("keys", GROUPINGS, ids=lambda keys: "+".join(keys) or "all")
def test_summary_figures(corpus: Corpus, keys: list[str]) -> None:
    options = [arg for key in keys for arg in ("--by", key)]
    actual = stats_rows(corpus.folder, *options)
    expected = expected_summary(corpus.valid, keys)
    columns = [*keys, *SUMMARY_COLUMNS, *(PLAYER_COLUMNS if "player" in keys else [])]
    assert [list(row) for row in expected] == [columns] * len(expected)
    assert_rows(actual, expected)


def test_summary_groups_are_the_expected_ones(corpus: Corpus) -> None:
    """A few figures that the arithmetic above must find, so that it is not vacuous."""
    by_rules = {row["rules"]: row for row in stats_rows(corpus.folder, "--by", "rules")}
    assert set(by_rules) == {"none", "balance", "beginner", "beginner+balance"}
    assert by_rules["balance"]["games"] == 40
    assert by_rules["beginner"]["games"] == 30
    assert by_rules["none"]["games"] == 40 + 5  # 3 examples, the staged and stopped copies
    assert by_rules["none"]["unfinished"] == 2
    by_player = stats_rows(corpus.folder, "--by", "player")
    assert sum(row["games"] for row in by_player) == 2 * len(corpus.valid)
    by_number = stats_rows(corpus.folder, "--by", "special_number")
    assert [row["special_number"] for row in by_number] == [1, 2, 3, 4, 5, 6]
    assert len(corpus.valid) < sum(row["games"] for row in by_number) < 2 * len(corpus.valid)
    by_stage = stats_rows(corpus.folder, "--by", "stage")
    assert [row["stage"] for row in by_stage] == ["2", None]  # nulls last


def test_summary_group_without_finished_games(corpus: Corpus) -> None:
    """The unfinished example's event is a group of one game, never finished."""
    rows = stats_rows(corpus.folder, "--by", "event")
    (row,) = [row for row in rows if row["event"] == "Club night: a game left unfinished"]
    assert row["games"] == 1
    assert row["unfinished"] == 1
    assert row["phantom_wins"] == row["christine_wins"] == 0
    for name in ["phantom_win_rate", "phantom_win_rate_low", "phantom_win_rate_high"]:
        assert row[name] is None
    assert row["mean_notes"] is None
    assert row["mean_tricks"] is None
    assert row["mean_notes_after_round_1"] is not None  # round 1 was completed


def test_only_unfinished_records(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "unfinished.json", tmp_path / "unfinished.json")
    facts = facts_of_folder(tmp_path)
    (row,) = stats_rows(tmp_path)
    assert_rows([row], expected_summary(facts, []))
    assert row["games"] == 1
    assert row["unfinished"] == 1
    for name in ["phantom_win_rate", "phantom_win_rate_low", "phantom_win_rate_high"]:
        assert row[name] is None
    assert row["mean_notes"] is None
    table = ok("stats", tmp_path, "-q").stdout
    assert "phantom_win_rate " in table
    assert [
        line.split()[1] for line in table.splitlines() if line.startswith("phantom_win_rate")
    ] == ["-"] * 3


def test_duplicate_by_counts_once(corpus: Corpus) -> None:
    assert stats_rows(corpus.folder, "--by", "rules", "--by", "rules") == stats_rows(
        corpus.folder, "--by", "rules"
    )


def test_stats_leaves_out_invalid_records(corpus: Corpus) -> None:
    result = ok("stats", corpus.folder, "--format", "json")
    assert "left out 2 invalid records of 118" in result.stderr
    assert json_lines(result.stdout)[0]["games"] == len(corpus.valid)
    assert ok("stats", corpus.folder, "--format", "json", "-q").stderr == ""


def test_stats_csv_has_the_json_values(corpus: Corpus) -> None:
    rows = stats_rows(corpus.folder, "--by", "rules", "--by", "sheet")
    text = ok("stats", corpus.folder, "--by", "rules", "--by", "sheet", "--format", "csv", "-q")
    frame = pl.read_csv(io.StringIO(text.stdout))
    assert frame.columns == list(rows[0])
    assert_rows(frame.to_dicts(), rows)


def test_stats_table_for_people(corpus: Corpus) -> None:
    rows = stats_rows(corpus.folder, "--by", "rules")
    lines = ok("stats", corpus.folder, "--by", "rules", "-q").stdout.splitlines()
    assert lines[0].split() == [row["rules"] for row in rows]
    cells = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert list(cells) == SUMMARY_COLUMNS
    assert cells["games"] == [str(row["games"]) for row in rows]
    assert cells["mean_notes"] == [f"{row['mean_notes']:.3f}" for row in rows]


def test_wilson_bounds_hand_computed() -> None:
    """8 Phantom wins of 10: p = 0.8, z = 1.96: the 95% Wilson interval is
    [0.490162, 0.943318] (worked by hand from the formula; also in published tables)."""
    from phantom_log.tabular.stats import wilson_bounds

    low, high = wilson_bounds(pl.lit(8), pl.lit(10))
    values = pl.select(low=low, high=high).row(0)
    assert values == pytest.approx((0.49016247153664183, 0.9433178485456247), abs=1e-12)
    assert values == pytest.approx((0.4902, 0.9433), abs=5e-5)
    assert wilson(8, 10) == pytest.approx(values, abs=1e-12)
    edge_low, edge_high = wilson_bounds(pl.lit(0), pl.lit(0))
    assert pl.select(low=edge_low, high=edge_high).row(0) == (None, None)


def test_wilson_bounds_through_stats(corpus: Corpus, tmp_path: Path) -> None:
    """A file of 8 Phantom wins and 2 Christine wins gives the interval above."""
    lines = []
    for path in sorted(corpus.folder.glob("*.jsonl")):
        lines += path.read_text().splitlines()
    phantom = [line for line in lines if json.loads(line)["result"]["winner"] == "phantom"]
    christine = [line for line in lines if json.loads(line)["result"]["winner"] == "christine"]
    (tmp_path / "ten.jsonl").write_text("\n".join(phantom[:8] + christine[:2]) + "\n")
    (row,) = stats_rows(tmp_path / "ten.jsonl")
    assert (row["games"], row["phantom_wins"], row["christine_wins"]) == (10, 8, 2)
    assert row["phantom_win_rate"] == pytest.approx(0.8)
    assert row["phantom_win_rate_low"] == pytest.approx(0.49016247153664183, abs=1e-12)
    assert row["phantom_win_rate_high"] == pytest.approx(0.9433178485456247, abs=1e-12)


def test_shares_are_null_without_tricks(tmp_path: Path) -> None:
    """A group without tricks has null shares (not NaN), with --by or without."""
    record = json.loads((EXAMPLES / "unfinished.json").read_text())
    record["rounds"] = record["rounds"][:1]
    record["rounds"][0]["tricks"] = []
    del record["result"]
    (tmp_path / "start.json").write_text(json.dumps(record))
    (row,) = stats_rows(tmp_path)
    assert_rows([row], expected_summary(facts_of_folder(tmp_path), []))
    assert row["games"] == 1
    (by_event,) = stats_rows(tmp_path, "--by", "event")
    assert {k: v for k, v in by_event.items() if k != "event"} == row
    frame = pl.read_csv(io.StringIO(ok("stats", tmp_path, "--format", "csv", "-q").stdout))
    for reason in REASONS:
        assert row[f"share_{reason.replace('-', '_')}"] is None
        assert frame[f"share_{reason.replace('-', '_')}"].is_null().all()
    assert "nan" not in ok("stats", tmp_path, "-q").stdout.lower()


# --- stats: the progress curve ---------------------------------------------------------------


@pytest.mark.parametrize(
    "keys", [[], ["rules"], ["special_number"], ["player"]], ids=lambda k: "+".join(k) or "all"
)
def test_curve_figures(corpus: Corpus, keys: list[str]) -> None:
    options = [arg for key in keys for arg in ("--by", key)]
    actual = stats_rows(corpus.folder, "--curve", *options)
    assert_rows(actual, expected_curve(corpus.valid, keys))


def test_curve_counts_early_wins(corpus: Corpus) -> None:
    """Games the Phantom won early keep their 12 notes and stop running."""
    rows = {row["trick"]: row for row in stats_rows(corpus.folder, "--curve")}
    finished = [f for f in corpus.valid if f.finished]
    assert rows[1]["games"] == len(finished)
    assert rows[1]["share_running"] == 1.0
    assert rows[10]["share_running"] < 1.0  # some Phantom won within round 1
    early = sum(f.row["tricks_played"] < 20 for f in finished)
    assert rows[20]["share_running"] == pytest.approx(1 - early / len(finished))
    means = [rows[slot]["mean_notes"] for slot in range(1, SLOTS + 1)]
    assert means[-1] == pytest.approx(mean(f.row["notes"] for f in finished))
    by_rules = stats_rows(corpus.folder, "--curve", "--by", "rules")
    balance = [row for row in by_rules if row["rules"] == "balance"]
    assert balance[-1]["share_running"] < 1.0


def test_curve_without_finished_games_has_no_nan(tmp_path: Path) -> None:
    """No finished game, no curve: no NaN in any format (no rows: the header alone)."""
    shutil.copy(EXAMPLES / "unfinished.json", tmp_path / "unfinished.json")
    for keys, group in [([], ""), (["--by", "rules"], "rules,")]:
        assert stats_rows(tmp_path, "--curve", *keys) == []
        csv_text = ok("stats", tmp_path, "--curve", *keys, "--format", "csv", "-q").stdout
        assert csv_text == f"{group}trick,mean_notes,share_running,games\n"
    table = ok("stats", tmp_path, "--curve", "-q").stdout
    assert table.split() == ["trick", "mean_notes", "share_running", "games"]


def test_plot_svg(corpus: Corpus, tmp_path: Path) -> None:
    path = tmp_path / "curve.svg"
    result = ok("stats", corpus.folder, "--by", "rules", "--plot", path, "-q")
    assert result.stdout == ""  # --plot alone draws; --curve also prints
    root = ElementTree.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "all games" not in path.read_text()
    assert "balance (40)" in path.read_text()
    assert files_in(tmp_path) == ["curve.svg"]


def test_plot_png_with_curve(corpus: Corpus, tmp_path: Path) -> None:
    path = tmp_path / "curve.png"
    result = ok("stats", corpus.folder, "--curve", "--plot", path, "--format", "json", "-q")
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    assert_rows(json_lines(result.stdout), expected_curve(corpus.valid, []))


def test_plot_no_overwrite_and_bad_extension(corpus: Corpus, tmp_path: Path) -> None:
    path = tmp_path / "curve.svg"
    path.write_text("old")
    result = run("stats", corpus.folder, "--plot", path, "-q")
    assert result.exit_code == 2
    assert "exists" in result.stderr
    assert path.read_text() == "old"
    assert files_in(tmp_path) == ["curve.svg"]
    ok("stats", corpus.folder, "--plot", path, "--force", "-q")
    ElementTree.parse(path)
    assert files_in(tmp_path) == ["curve.svg"]
    result = run("stats", corpus.folder, "--plot", tmp_path / "curve.pdf", "-q")
    assert result.exit_code == 2
    assert files_in(tmp_path) == ["curve.svg"]


# --- stats -o FILE -----------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["csv", "json"])
def test_stats_output_file(corpus: Corpus, tmp_path: Path, output_format: str) -> None:
    args: list[str | Path] = [corpus.folder, "--by", "player", "--format", output_format, "-q"]
    printed = ok("stats", *args).stdout
    path = tmp_path / f"stats.{output_format}"
    assert ok("stats", *args, "-o", path).stdout == ""
    assert path.read_text(encoding="utf-8") == printed
    assert files_in(tmp_path) == [path.name]
    # No overwrite without --force: the file is untouched and nothing is left behind.
    path.write_text("old")
    result = run("stats", *args, "-o", path)
    assert result.exit_code == 2
    assert "--force" in result.stderr
    assert path.read_text() == "old"
    assert files_in(tmp_path) == [path.name]
    ok("stats", *args, "-o", path, "--force")
    assert path.read_text(encoding="utf-8") == printed
    assert files_in(tmp_path) == [path.name]


def test_stats_table_goes_to_a_txt_file_as_printed(corpus: Corpus, tmp_path: Path) -> None:
    printed = run("stats", corpus.folder, "-q", "--by", "sheet")
    result = run("stats", corpus.folder, "-o", tmp_path / "stats.txt", "-q", "--by", "sheet")
    assert result.exit_code == printed.exit_code
    assert result.stdout == ""
    assert (tmp_path / "stats.txt").read_text(encoding="utf-8") == printed.stdout


# --- export --------------------------------------------------------------------------------


def export(corpus: Corpus, folder: Path, extension: str, *options: str) -> Result:
    return ok(
        "export",
        corpus.folder,
        "--games",
        folder / f"games.{extension}",
        "--tricks",
        folder / f"tricks.{extension}",
        *options,
    )


@pytest.fixture(scope="module")
def exported(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus exported with --include-invalid in every format."""
    folder = tmp_path_factory.mktemp("export")
    for extension in ["parquet", "csv", "jsonl", "ndjson"]:
        export(corpus, folder, extension, "--include-invalid", "-q")
    return folder


def test_export_schemas(exported: Path) -> None:
    games = pl.read_parquet(exported / "games.parquet")
    tricks = pl.read_parquet(exported / "tricks.parquet")
    assert games.schema == pl.Schema(GAME_SCHEMA)  # names, order and dtypes
    assert tricks.schema == pl.Schema(TRICK_SCHEMA)
    assert games.columns == GAME_COLUMNS
    assert tricks.columns == TRICK_COLUMNS
    literal = {"index": pl.Int64, "date": pl.Date, "valid": pl.Boolean, "notes": pl.Int64}
    assert {name: games.schema[name] for name in literal} == literal
    assert tricks.schema["in_order"] == pl.Boolean
    assert tricks.schema["swaps"] == SWAPS_TYPE
    assert tricks.schema["notes_after"] == pl.Int64


def test_export_games_table(corpus: Corpus, exported: Path) -> None:
    games = pl.read_parquet(exported / "games.parquet").to_dicts()
    expected = [facts.row for facts in corpus.facts]
    assert len(games) == len(expected)
    for got, want in zip(games, expected, strict=True):
        assert got == want
    invalid = {row["source"].rsplit("/", 1)[-1]: row for row in games if not row["valid"]}
    assert set(invalid) == {"invalid-revoke.json", "invalid-json.json"}
    assert invalid["invalid-revoke.json"]["first_problem"] == "revoke"
    assert invalid["invalid-revoke.json"]["winner"] is None
    assert invalid["invalid-revoke.json"]["rounds_played"] == 2
    assert invalid["invalid-json.json"]["first_problem"] == "json"
    assert invalid["invalid-json.json"]["game_id"] is None
    (unfinished,) = [row for row in games if row["game_id"] == "unfinished"]
    assert (unfinished["valid"], unfinished["first_problem"]) == (True, "unfinished")
    assert unfinished["winner"] is None and unfinished["notes"] is not None
    round_one_wins = [r for r in games if r["rounds_played"] == 1 and r["winner"] == "phantom"]
    assert round_one_wins
    assert all(row["notes_after_round_1"] == 12 for row in round_one_wins)
    assert all(row["special_number_2"] is None for row in round_one_wins)
    (stopped,) = [row for row in games if row["game_id"] == "stopped"]
    assert (stopped["winner"], stopped["notes_after_round_1"], stopped["tricks_played"]) == (
        None,
        None,
        5,
    )


def test_export_unreadable_record_has_unknown_rules(exported: Path) -> None:
    """A record that is not JSON has unknown rules, like its unknown sheet and players."""
    games = pl.read_parquet(exported / "games.parquet")
    (row,) = games.filter(pl.col("first_problem") == "json").to_dicts()
    assert row["sheet"] is None
    assert row["beginner"] is None
    assert row["balance"] is None


def test_export_tricks_table(corpus: Corpus, exported: Path) -> None:
    tricks = pl.read_parquet(exported / "tricks.parquet").to_dicts()
    expected = [row for facts in corpus.facts for row in facts.tricks]
    assert tricks == expected
    assert any(len(row["swaps"]) == 2 for row in tricks)  # two swaps in a trick
    assert any(row["swaps"] == [] for row in tricks)


def test_tricks_table_rows_are_the_annotate_rows(corpus: Corpus, exported: Path) -> None:
    """``annotate --format json`` rows are the tricks table's rows, swaps and all."""
    result = run("annotate", "--format", "json", corpus.folder)
    annotated = json_lines(result.stdout)
    assert annotated == [row for facts in corpus.facts for row in facts.annotations]
    tricks = pl.read_parquet(exported / "tricks.parquet").to_dicts()
    assert len(tricks) == len(annotated) > 0
    for trick, row in zip(tricks, annotated, strict=True):
        assert {name: trick[name] for name in row} == row
        assert list(trick) == ["source", "index", *row]


def test_the_tricks_table_joins_the_games_table_on_source_and_index(
    corpus: Corpus, exported: Path
) -> None:
    """Every trick finds its game, and only its own, on the record's place, whatever the
    game ids (the corpus repeats some) and whatever the order of the rows."""
    games = pl.read_parquet(exported / "games.parquet")
    tricks = pl.read_parquet(exported / "tricks.parquet").sample(fraction=1.0, shuffle=True, seed=7)
    assert games.select("source", "index").is_duplicated().sum() == 0
    joined = tricks.join(games, on=["source", "index"], how="left", suffix="_game")
    assert joined.height == tricks.height
    assert joined["tricks_played"].null_count() == 0  # every trick has its game
    assert (joined["game_id"].eq_missing(joined["game_id_game"])).all()
    # Each game's tricks, counted through the join, are the tricks it played.
    counted = joined.group_by("source", "index").agg(pl.len(), pl.col("tricks_played").first())
    assert (counted["len"] == counted["tricks_played"]).all()
    assert counted.height == games.filter(pl.col("tricks_played") > 0).height
    # The games row of each trick is its record's, as verify names it.
    expected = {
        (facts.row["source"], facts.row["index"]): facts.row["game_id"] for facts in corpus.facts
    }
    for source, index, game_id in joined.select("source", "index", "game_id_game").rows():
        assert expected[(source, index)] == game_id


@pytest.mark.parametrize("extension", ["csv", "jsonl", "ndjson"])
def test_export_round_trips(exported: Path, extension: str) -> None:
    for table, schema in [("games", GAME_SCHEMA), ("tricks", TRICK_SCHEMA)]:
        parquet = pl.read_parquet(exported / f"{table}.parquet")
        path = exported / f"{table}.{extension}"
        if extension == "csv":
            assert path.read_text().splitlines()[0] == ",".join(schema)
            if table == "tricks":  # the swaps as annotate's CSV writes them
                parquet = swaps_as_text(parquet)
                schema = {**schema, "swaps": pl.String}
                texts = [
                    compact_swaps(swaps) or None
                    for swaps in pl.read_parquet(exported / "tricks.parquet")["swaps"].to_list()
                ]
                assert parquet["swaps"].to_list() == texts
            back = pl.read_csv(path, schema=schema)
        else:
            assert list(json.loads(path.read_text().splitlines()[0])) == list(schema)
            back = pl.read_ndjson(path, schema=schema)
        assert back.equals(parquet, null_equal=True), table
        assert back.to_dicts() == parquet.to_dicts()


@pytest.mark.parametrize("command", ["export", "stats"])
def test_exit_code_is_1_when_a_record_is_invalid_and_0_when_all_are_valid(
    corpus: Corpus, tmp_path: Path, command: str
) -> None:
    """As for every command that reads records: 1 when at least one record is invalid (its
    outputs still written), 0 when every record is valid."""
    valid = tmp_path / "valid"
    valid.mkdir()
    shutil.copy(EXAMPLES / "rulebook-walkthrough.json", valid)
    outputs = ["--games", tmp_path / "g.csv"] if command == "export" else []
    assert run(command, valid, *outputs, "-q").exit_code == 0
    outputs = ["--games", tmp_path / "h.csv"] if command == "export" else []
    assert run(command, corpus.folder, *outputs, "-q").exit_code == 1
    if command == "export":
        assert (tmp_path / "h.csv").exists()
        included = run(
            command, corpus.folder, "--games", tmp_path / "i.csv", "--include-invalid", "-q"
        )
        assert included.exit_code == 1


def test_export_leaves_out_invalid_records(corpus: Corpus, tmp_path: Path) -> None:
    result = export(corpus, tmp_path, "parquet")
    assert "left out 2 invalid records of 118" in result.stderr
    games = pl.read_parquet(tmp_path / "games.parquet").to_dicts()
    tricks = pl.read_parquet(tmp_path / "tricks.parquet").to_dicts()
    valid = corpus.valid
    assert [row["source"] for row in games] == [f.row["source"] for f in valid]
    assert all(row["valid"] for row in games)
    assert tricks == [row for facts in valid for row in facts.tricks]
    quiet = run("export", corpus.folder, "--games", tmp_path / "g.csv", "-q")
    assert quiet.exit_code == 1  # invalid records were read
    assert quiet.stderr == ""
    assert pl.read_csv(tmp_path / "g.csv").height == len(valid)


def test_export_no_overwrite_and_force(corpus: Corpus, tmp_path: Path) -> None:
    games, tricks = tmp_path / "games.csv", tmp_path / "tricks.parquet"
    games.write_text("old")
    result = run("export", corpus.folder, "--games", games, "--tricks", tricks, "-q")
    assert result.exit_code == 2
    assert "--force" in result.stderr
    assert games.read_text() == "old"
    assert files_in(tmp_path) == ["games.csv"]  # nothing written, no temporary file
    ok("export", corpus.folder, "--games", games, "--tricks", tricks, "--force", "-q")
    assert pl.read_csv(games).height == len(corpus.valid)
    assert pl.read_parquet(tricks).height == sum(len(f.tricks) for f in corpus.valid)
    assert files_in(tmp_path) == ["games.csv", "tricks.parquet"]
    # The other file existing also stops the run before anything is written.
    games.unlink()
    result = run("export", corpus.folder, "--games", games, "--tricks", tricks, "-q")
    assert result.exit_code == 2
    assert files_in(tmp_path) == ["tricks.parquet"]


@pytest.mark.parametrize(
    "args",
    [
        ["--games", "games.txt"],
        ["--tricks", "tricks.xlsx"],
        ["--games", "games.csv", "--tricks", "tricks"],
        [],
    ],
)
def test_export_usage_errors(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("export", corpus.folder, *args, "-q")
    assert result.exit_code == 2
    assert result.stderr.startswith("phantom-log: error:")
    assert files_in(tmp_path) == []


def test_export_missing_folder(corpus: Corpus, tmp_path: Path) -> None:
    result = run("export", corpus.folder, "--games", tmp_path / "no" / "games.csv", "-q")
    assert result.exit_code == 2
    assert files_in(tmp_path) == []


def test_include_invalid_stats_unchanged(corpus: Corpus, tmp_path: Path) -> None:
    """stats reads only valid records whatever the folder holds: the invalid copies change
    nothing but the count of left-out records."""
    valid_only = tmp_path / "valid"
    valid_only.mkdir()
    for path in corpus.folder.iterdir():
        if not path.name.startswith("invalid-"):
            shutil.copy(path, valid_only / path.name)
    rows = stats_rows(valid_only, "--by", "sheet")
    assert len(rows) > 1 and rows == stats_rows(corpus.folder, "--by", "sheet")


def test_tables_in_small_batches(corpus: Corpus, tmp_path: Path) -> None:
    """Many batch files give the same tables and figures as one (the corpus through
    ``build_tables`` in batches of 7 records)."""
    from phantom_log.tabular.stats import progress_curve, summary
    from phantom_log.tabular.tables import build_tables

    files = build_tables(phantom_log.verify(corpus.folder), tmp_path, batch_size=7)
    assert len(files.games) == math.ceil(len(corpus.valid) / 7)
    assert (files.records, files.included, files.left_out) == (len(corpus.facts), 116, 2)
    games = files.scan_games().drop("game_key").collect().to_dicts()
    assert games == [f.row for f in corpus.valid]
    tricks = files.scan_tricks().drop("game_key").collect().to_dicts()
    assert tricks == [row for f in corpus.valid for row in f.tricks]
    for keys in [[], ["special_number", "rules"]]:
        assert_rows(summary(files, keys).to_dicts(), expected_summary(corpus.valid, keys))
        assert_rows(progress_curve(files, keys).to_dicts(), expected_curve(corpus.valid, keys))


@pytest.mark.parametrize("include_invalid", [False, True])
def test_tables_from_chunks_are_the_tables_of_the_records(
    corpus: Corpus, tmp_path: Path, include_invalid: bool
) -> None:
    """Workers send a chunk's tables (keyed from 0), or, with several jobs, write them
    themselves (keyed by the chunk's number): built from such chunks, alone or between
    single records and each other, the tables (each trick joined to its own game), the
    counts and the figures are those built a record at a time."""
    from phantom_log.tabular.stats import progress_curve, summary
    from phantom_log.tabular.tables import build_tables, chunk_tables, record_rows

    reports = list(phantom_log.verify(corpus.folder))
    rows = [record_rows(report, include_invalid) for report in reports]
    chunks = [chunk_tables(rows[i : i + 5], include_invalid) for i in range(0, len(rows), 5)]
    (tmp_path / "work").mkdir()
    written = [chunk.written(tmp_path / "work", n) for n, chunk in enumerate(chunks)]
    assert all(chunk.files is not None and chunk.games.is_empty() for chunk in written)
    built = []
    for name, items in [
        ("records", reports),
        ("chunks", chunks),
        ("mixed", [chunks[0], *reports[5:10], *chunks[2:]]),
        ("written", written),
        ("mixed-written", [chunks[0], written[1], *reports[10:15], *written[3:]]),
    ]:
        (tmp_path / name).mkdir()
        files = build_tables(items, tmp_path / name, include_invalid, batch_size=7)
        counts = (files.records, files.included, files.left_out, files.invalid, files.failed)
        games = files.scan_games().collect()
        tricks = files.scan_tricks().collect()
        assert games["game_key"].is_unique().all()
        joined = tricks.join(games.select("game_key", game="game_id"), on="game_key")
        assert joined.height == tricks.height
        assert (joined["game"] == joined["game_id"]).all()
        figures = [
            (summary(files, keys).to_dicts(), progress_curve(files, keys).to_dicts())
            for keys in [[], ["special_number", "rules"]]
        ]
        games, tricks = games.drop("game_key"), tricks.drop("game_key")
        built.append((counts, games.to_dicts(), tricks.to_dicts(), figures))
    assert built[0][0][0] == len(reports) and built[0][1]
    assert all(one == built[0] for one in built[1:])


def test_player_on_both_sides_counts_once(tmp_path: Path) -> None:
    """A player named on both sides of a game: the game once in their group, in both roles."""
    record = json.loads((EXAMPLES / "rulebook-walkthrough.json").read_text())
    record["players"] = {"phantom": "Kim", "christine": "Kim"}
    (tmp_path / "kim.json").write_text(json.dumps(record))
    shutil.copy(EXAMPLES / "optional-rules.json", tmp_path / "other.json")
    rows = stats_rows(tmp_path, "--by", "player")
    assert_rows(rows, expected_summary(facts_of_folder(tmp_path), ["player"]))
    (row,) = [row for row in rows if row["player"] == "Kim"]
    assert (row["games"], row["phantom_wins"], row["christine_wins"]) == (1, 0, 1)
    assert (row["games_as_phantom"], row["games_as_christine"], row["wins"]) == (1, 1, 1)
    assert (row["wins_as_phantom"], row["wins_as_christine"]) == (0, 1)
    assert row["special_tricks_per_game"] == pytest.approx(5.0)
    curve = stats_rows(tmp_path, "--curve", "--by", "player")
    assert_rows(curve, expected_curve(facts_of_folder(tmp_path), ["player"]))
    assert {row["games"] for row in curve if row["player"] == "Kim"} == {1}


def test_a_code_is_taken_by_its_index_in_a_stream() -> None:
    """The tricks' codes come from their list by index, lazily and in polars' streaming
    engine (replace_strict kept the whole table in memory): an index out of range is an
    error, a code that is None gives null."""
    from phantom_log.tabular.tables import _codes

    frame = pl.LazyFrame({"code": [2, 0, 1, 0]})
    decoded = frame.select(code=_codes(pl.col("code"), [None, "Mi", "Ch"]))
    assert decoded.collect(engine="streaming")["code"].to_list() == ["Ch", None, "Mi", None]
    with pytest.raises(pl.exceptions.OutOfBoundsError):
        pl.LazyFrame({"code": [3]}).select(_codes(pl.col("code"), ["a", "b"])).collect()
