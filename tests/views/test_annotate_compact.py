"""annotate on a terminal of 80 columns: one line per trick (its sentence below it with
--explain), and only the tricks --from, --to or --at name."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from pathlib import Path

import pytest

from phantom_log.checking.verdict import check_record
from phantom_log.rules.events import REASONS, CardsSwapped, Reason, TrickEnded
from phantom_log.rules.replay import GameLog, replay_record
from phantom_log.views.annotate import Annotation, Layout, annotate, choose_layout, table_lines
from phantom_log.views.terminal import Style, visible_width
from tests.helpers.cli import run
from tests.helpers.paths import REPO, WALKTHROUGH
from tests.views.test_terminal import run_on_a_terminal

TRICK_LINE = re.compile(r"^  [12]\.\d+[♯!]? ")


def assert_a_line_per_trick(lines: list[str], tricks: int) -> None:
    """The table's lines (the indented ones, sentences left out with --no-explain) are its
    headers and a line per trick: no trick's cells wrapped onto a second line."""
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    table = [line for line in plain if line.startswith(" ")]
    rows = [line for line in table if not line.startswith(("  trick ", "  (no "))]
    assert all(TRICK_LINE.match(line) for line in rows), rows
    assert len(rows) == tricks


def on_a_terminal(columns: int, *args: str) -> list[str]:
    """The lines ``phantom-log ARGS`` shows on a terminal of ``columns`` columns, colours
    removed."""
    code, shown = run_on_a_terminal([*args, "--no-pager"], {"COLUMNS": str(columns)})
    assert code == 0, shown
    return re.sub(r"\x1b\[[0-9;]*m", "", shown).replace("\r\n", "\n").splitlines()


def test_on_80_columns_each_trick_is_one_line() -> None:
    lines = on_a_terminal(80, "annotate", str(WALKTHROUGH), "--no-explain")
    assert max(visible_width(line) for line in lines) <= 80
    assert_a_line_per_trick(lines, 20)
    tricks = [line for line in lines if TRICK_LINE.match(line)]
    assert [line.split()[0].rstrip("♯!") for line in tricks] == [
        f"{round_number}.{trick}" for round_number in (1, 2) for trick in range(1, 11)
    ]
    # No trick takes more than its line: what follows one is the next trick, the next
    # round's heading, or the game's end.
    for line, after in itertools.pairwise(lines):
        if TRICK_LINE.match(line):
            assert TRICK_LINE.match(after) or after.startswith(("Round 2: ", "Game over ")), after
    double = next(line for line in tricks if line.startswith("  2.5"))
    assert double.split()[:8] == ["2.5♯", "C", "◇Mi3", "P", "☻Ma3", "P", "trump", "5→7"]
    assert double.endswith("Ri6 Ma1⇄Ma5 Ma6, Ma5 Ma6⇄Mi2 Ri4")  # both swaps, in order
    assert "Game over after trick 2.10: Christine wins with 9 notes completed" in lines
    assert "⇄ a swap: the cards the Phantom gave, then Christine's" in " ".join(lines)


def test_with_explain_the_sentence_follows_its_trick_indented() -> None:
    lines = on_a_terminal(80, "annotate", str(WALKTHROUGH), "--color", "never")
    assert max(visible_width(line) for line in lines) <= 80
    rows = [
        json.loads(line)
        for line in run(
            "annotate", "--format", "json", "--explain", str(WALKTHROUGH)
        ).stdout.splitlines()
    ]
    sentences: list[str] = []
    for line in lines:
        if TRICK_LINE.match(line):
            sentences.append("")
        elif sentences and line.startswith(" " * 9) and not line.startswith(" " * 10):
            sentences[-1] = f"{sentences[-1]} {line.strip()}".strip()
    assert sentences == [row["explanation"] for row in rows]


def worst_trick(log: GameLog) -> TrickEnded:
    """The widest trick a compact line can hold: special, won by a super trump, 10 notes
    to 12, with two swaps of two cards (trick 8 is the last where both swaps can be of
    two: from trick 9 on, a hand holds fewer cards once the special card is played)."""
    (double,) = [outcome for outcome in log.tricks if len(outcome.swaps) == 2]
    swaps = tuple(
        CardsSwapped(
            2,
            8,
            swap.after_follow,
            swap.card,
            swap.phantom_gave,
            swap.christine_gave,
            swap.phantom_hand,
            swap.christine_hand,
            0,
        )
        for swap in double.swaps
    )
    return TrickEnded(
        2,
        8,
        double.leader_code,
        double.lead,
        double.follow,
        double.super_trump_code,
        REASONS.index(Reason.SUPER_TRUMP) * 2,
        double.note_owner_code,
        True,
        swaps,
        10,
        12,
        double.change,
        double.penalty,
        double.phantom_hand,
        double.christine_hand,
        double.super_trump_after_code,
    )


@pytest.mark.parametrize(
    "style",
    [Style(width=80), Style(colour=True, symbols=True, width=80)],
    ids=["plain", "symbols"],
)
def test_the_widest_trick_fits_80_columns(style: Style) -> None:
    log = replay_record(json.loads(WALKTHROUGH.read_text(encoding="utf-8")))
    trick = worst_trick(log)
    annotation = Annotation.of("g", trick, "")
    lines = table_lines([annotation], log, style, explain=False, layout=Layout.COMPACT)
    at = next(index for index, line in enumerate(lines) if line.startswith("  2.8"))
    line = re.sub(r"\x1b\[[0-9;]*m", "", lines[at])
    assert visible_width(line) == 79  # the worst case, and it fits
    assert "super trump" in line and ("10→12" in line or "10->12" in line)
    swap = "⇄" if style.symbols else "/"
    assert line.endswith(f"Ri6 Ma1{swap}Ma5 Ma6, Ma5 Ma6{swap}Mi2 Ri4")  # whole, on its line
    assert not lines[at + 1].startswith(" ")  # the next line is the game's end, not a rest


def test_korean_and_japanese_names_fit_80_columns(tmp_path: Path) -> None:
    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    record["players"] = {"phantom": "김민준김민준김민준", "christine": "さくらさくらさくら"}
    record["event"] = record["game_id"] = "서울 오픈 결승전 " * 3
    path = tmp_path / "서울.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    lines = on_a_terminal(80, "annotate", str(path))
    assert max(visible_width(line) for line in lines) <= 80
    assert any(visible_width(line) > 70 for line in lines)  # the title, wrapped near 80
    assert_a_line_per_trick(on_a_terminal(80, "annotate", "--no-explain", str(path)), 20)


def test_a_wide_terminal_keeps_the_wide_table() -> None:
    lines = on_a_terminal(200, "annotate", str(WALKTHROUGH), "--no-explain")
    header = next(line for line in lines if line.lstrip().startswith("trick"))
    assert header.split()[:5] == ["trick", "lead", "follow", "winner", "why"]
    assert "super trump" in header and header.rstrip().endswith("sheet")
    assert max(visible_width(line) for line in lines if TRICK_LINE.match(line)) > 100


def example_records() -> list[tuple[str, dict[str, object]]]:
    """Every record of the examples that is JSON (one is not, on purpose), by name."""
    found = []
    for path in sorted((REPO / "examples").rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        for index, record in enumerate(data if isinstance(data, list) else [data]):
            if isinstance(record, dict) and "rounds" in record:
                found.append((f"{path.relative_to(REPO)}#{index}", record))
    return found


@pytest.mark.parametrize(
    ("name", "record"), example_records(), ids=lambda value: value if isinstance(value, str) else ""
)
def test_every_example_fits_80_columns_a_line_per_trick(
    name: str, record: dict[str, object]
) -> None:
    _, log = check_record(record)
    if log is None:
        assert name.startswith("examples/invalid/")  # not replayed: only its problems
        return
    annotations = list(annotate(log, None, explained=True))
    for style in (Style(width=80), Style(colour=True, symbols=True, width=80)):
        layout = choose_layout(annotations, log, style)
        if log.tricks:
            assert layout is Layout.COMPACT
        lines = table_lines(annotations, log, style, explain=False)
        assert all(visible_width(line) <= 80 for line in lines)
        assert_a_line_per_trick(lines, len(log.tricks))
        explained = table_lines(annotations, log, style, explain=True)
        assert all(visible_width(line) <= 80 for line in explained)


def test_costly_decisions_go_on_a_line_below_their_trick(tmp_path: Path) -> None:
    analysis = tmp_path / "analysis.jsonl"
    made = run("analyse", WALKTHROUGH, "--from", "2.7", "--format", "json", "-o", analysis)
    assert made.exit_code == 0, made.output
    lines = on_a_terminal(
        80, "annotate", str(WALKTHROUGH), "--no-explain", "--analysis", str(analysis)
    )
    assert max(visible_width(line) for line in lines) <= 80
    at = next(index for index, line in enumerate(lines) if line.startswith("  2.7 "))
    assert lines[at + 1] == " " * 9 + "mistakes: C lead Ma1 ? -2"
    assert "? a mistake, 2 notes lost" in " ".join(lines)


# -- --from, --to, --at --------------------------------------------------------------------


def json_points(*args: object) -> list[tuple[int, int]]:
    result = run("annotate", "--format", "json", WALKTHROUGH, *args)
    assert result.exit_code == 0, result.output
    return [(row["round"], row["trick"]) for row in map(json.loads, result.stdout.splitlines())]


@pytest.mark.parametrize(
    ("args", "points"),
    [
        (["--from", "2.3", "--to", "2.5"], [(2, 3), (2, 4), (2, 5)]),
        (["--at", "1.4"], [(1, 4)]),
        (["--at", "2"], [(2, trick) for trick in range(1, 11)]),
        (["--from", "1.9", "--to", "2.1"], [(1, 9), (1, 10), (2, 1)]),
        (["--to", "1.2"], [(1, 1), (1, 2)]),
        (["--from", "2.9"], [(2, 9), (2, 10)]),
    ],
)
def test_only_the_tricks_in_the_span_are_annotated(
    args: list[str], points: list[tuple[int, int]]
) -> None:
    assert json_points(*args) == points
    table = run("annotate", "--no-color", WALKTHROUGH, *args)
    assert table.exit_code == 0
    shown = [line.split()[0] for line in table.stdout.splitlines() if TRICK_LINE.match(line)]
    assert shown == [f"{r}.{t}" for r, t in points]
    assert table.stdout.splitlines()[1].startswith("Tricks shown: ")
    rounds = sorted({r for r, _ in points})
    headings = [
        line.split(":")[0] for line in table.stdout.splitlines() if line.startswith("Round ")
    ]
    assert headings == [f"Round {r}" for r in rounds]
    assert ("Game over after trick 2.10" in table.stdout) is ((2, 10) in points)
    rows = list(
        csv.DictReader(io.StringIO(run("annotate", "--format", "csv", WALKTHROUGH, *args).stdout))
    )
    assert [(int(row["round"]), int(row["trick"])) for row in rows] == points


def test_a_span_writes_the_same_csv_rows_as_the_whole_game() -> None:
    whole = run("annotate", "--format", "csv", WALKTHROUGH).stdout
    spanned = run("annotate", "--format", "csv", WALKTHROUGH, "--from", "1.1").stdout
    assert spanned == whole


def test_a_record_that_ends_before_the_span_has_no_trick_in_it() -> None:
    unfinished = REPO / "examples" / "unfinished.json"
    result = run("annotate", "--no-color", unfinished, "--from", "2.9")
    assert result.exit_code == 0
    assert "  (no completed trick in the span)" in result.stdout.splitlines()
    assert not any(TRICK_LINE.match(line) for line in result.stdout.splitlines())
    assert run("annotate", "--format", "json", unfinished, "--from", "2.9").stdout == ""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--at", "3.1"], "a game has rounds 1 to 2"),
        (["--from", "1.11"], "a round has tricks 1 to 10"),
        (["--to", "x"], "not ROUND.TRICK"),
        (["--at", "1.2", "--from", "1.1"], "give --at, or --from and --to"),
        (["--from", "2.5", "--to", "1.3"], "--to 1.3 comes before --from 2.5"),
    ],
)
def test_a_bad_span_is_a_usage_error(args: list[str], said: str) -> None:
    result = run("annotate", WALKTHROUGH, *args)
    assert result.exit_code == 2
    assert said in result.stderr
    assert result.stdout == ""


def test_the_readmes_compact_example_is_real() -> None:
    """The README's round 2 of the walkthrough on 80 columns is what annotate shows."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```text\n(Round 2: Christine leads.*?)```", readme, re.DOTALL)
    expected = block.splitlines()
    lines = on_a_terminal(80, "annotate", "--no-explain", "--at", "2", str(WALKTHROUGH))
    start = lines.index(expected[0])
    assert lines[start : start + len(expected)] == expected
