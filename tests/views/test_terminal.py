"""Terminal output: styles, aligned tables, the progress display."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from phantom_log.cli import main
from phantom_log.rules.cards import Suit, parse_card
from phantom_log.rules.sheets import RULEBOOK_SHEET
from phantom_log.views.terminal import (
    ColourChoice,
    Progress,
    Style,
    colour_wanted,
    detect_style,
    table,
    visible_width,
)
from tests.helpers.paths import REPO, WALKTHROUGH


def test_plain_style_is_plain_text() -> None:
    style = Style()
    assert style.card(parse_card("Ma5")) == "Ma5"
    assert style.progress(RULEBOOK_SHEET, 4) == "###|#..|...|..."


def test_terminal_style_has_symbols_and_colours() -> None:
    style = Style(colour=True, symbols=True)
    card = style.card(parse_card("Ch3"))
    assert "\x1b[" in card and "✶Ch3" in card
    assert visible_width(card) == 4
    assert visible_width(style.progress(RULEBOOK_SHEET, 12)) == 15


def test_detect_style_off_a_terminal_and_with_no_colour() -> None:
    assert detect_style() == Style(colour=False, symbols=False)  # pytest captures stdout
    assert detect_style("never") == Style(colour=False, symbols=False)


def test_table_aligns_cells_by_visible_width() -> None:
    style = Style(colour=True, symbols=True)
    lines = table(["a", "bb"], [[style.card(0), "x"], ["long cell", "y"]])
    assert [visible_width(line) for line in lines] == [13, 12, 12]  # "bb" is the widest


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def progress(monkeypatch: pytest.MonkeyPatch) -> tuple[Progress, Terminal]:
    stream = Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    shown = Progress("verifying", enabled=True)
    ticks = iter([1.0, 2.0, 3.0])
    shown.clock = lambda: next(ticks)
    shown.started = 0.0
    return shown, stream


def test_progress_bar_over_the_bytes_read(progress: tuple[Progress, Terminal]) -> None:
    shown, stream = progress
    shown.start(1000)
    shown.add_bytes(500)
    shown.update(40)
    shown.close()
    bar = "verifying [############------------]  50% 40 records (40/s)"
    # The last line rubs out all of the bar's.
    assert stream.getvalue() == (
        f"\r{bar}\rverifying: 40 records{' ' * (len(bar) - len('verifying: 40 records'))}\n"
    )


def test_progress_count_when_the_size_is_unknown(progress: tuple[Progress, Terminal]) -> None:
    shown, stream = progress
    shown.start(None)
    shown.update(7)
    assert stream.getvalue() == "\rverifying: 7 records (7/s)"


def test_text_written_meanwhile_rubs_out_the_progress_line(
    progress: tuple[Progress, Terminal], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report on standard output or a note on standard error, on the terminal the bar
    is drawn on, starts on a clean line; the next update draws the bar again."""
    from phantom_log.views.terminal import clear_progress

    shown, stream = progress
    shown.start(None)
    shown.update(7)
    monkeypatch.setattr("sys.stdout", io.StringIO())  # a pipe: the bar may stay
    clear_progress(for_standard_output=True)
    assert stream.getvalue() == "\rverifying: 7 records (7/s)"
    clear_progress()  # a note on standard error
    assert stream.getvalue() == "\rverifying: 7 records (7/s)\r" + " " * 26 + "\r"
    clear_progress()  # nothing drawn: nothing to rub out
    assert stream.getvalue().count("\r") == 3
    shown.close()
    clear_progress()
    assert stream.getvalue().count("\r") == 4  # the closing line only


def test_progress_is_silent_off_a_terminal_and_when_quiet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    for shown in (Progress("x", enabled=True), Progress("x", enabled=False)):
        shown.update(10)
        shown.close()
    assert stream.getvalue() == ""


# --- --color, NO_COLOR, FORCE_COLOR, TERM=dumb ---------------------------------------------


@pytest.mark.parametrize(
    ("choice", "terminal", "environment", "expected"),
    [
        ("auto", True, {}, True),
        ("auto", False, {}, False),
        ("auto", True, {"NO_COLOR": "1"}, False),
        ("auto", True, {"NO_COLOR": ""}, True),  # set but empty: as if unset
        ("auto", True, {"TERM": "dumb"}, False),
        ("auto", False, {"FORCE_COLOR": "1"}, True),
        ("auto", False, {"FORCE_COLOR": "0"}, False),
        ("auto", True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        ("always", False, {"NO_COLOR": "1", "TERM": "dumb"}, True),
        ("never", True, {"FORCE_COLOR": "1"}, False),
    ],
)
def test_colour_follows_the_option_then_the_environment(
    choice: ColourChoice,
    terminal: bool,
    environment: dict[str, str],
    expected: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert colour_wanted(choice, terminal) is expected


@pytest.mark.parametrize("command", ["annotate", "show"])
def test_color_always_paints_and_never_does_not(command: str) -> None:
    walkthrough = str(WALKTHROUGH)
    runner = CliRunner()
    painted = runner.invoke(main, [command, walkthrough, "--color", "always"])
    plain = runner.invoke(main, [command, walkthrough, "--color", "never"])
    assert "\x1b[" in painted.stdout
    assert "\x1b[" not in plain.stdout
    forced = runner.invoke(main, [command, walkthrough], env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout
    legacy = runner.invoke(main, [command, walkthrough, "--no-color"], env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in legacy.stdout


# --- tables that fit the terminal ----------------------------------------------------------

HEADERS = ["trick", "lead", "follow", "winner", "why", "swaps", "sheet"]
ROWS = [
    [
        "1.1",
        "P Ma5",
        "C Ma6",
        "Christine",
        "higher number",
        "follow P:Mi5+Ch1 C:Mi1+Ma4",
        "#..|...|...|...",
    ],
    ["1.2", "C Ch5", "P Ch4", "Phantom", "trump", "", "##.|...|...|..."],
]


def words_of(lines: list[str]) -> list[str]:
    return " ".join(lines).replace("|", "| ").replace("+", "+ ").split()


@pytest.mark.parametrize("width", [200, 90, 70, 60, 50])
def test_a_table_fits_the_width_it_is_given_and_keeps_every_word(width: int) -> None:
    natural = table(HEADERS, ROWS)
    fitted = table(HEADERS, ROWS, width)
    assert all(visible_width(line) <= width for line in fitted)
    if width >= max(visible_width(line) for line in natural):
        assert fitted == natural
    # Nothing is lost: the same words, row by row (in blocks, each value after its label).
    labels = {f"{header}:" for header in HEADERS}
    body = [word for word in words_of(fitted) if word not in labels]
    if fitted[0].startswith("trick:"):
        assert sorted(body) == sorted(words_of(natural[1:]))
    else:
        assert sorted(body) == sorted(words_of(natural))


def test_a_table_too_wide_for_its_words_becomes_blocks() -> None:
    fitted = table(HEADERS, ROWS, 40)
    assert fitted[:3] == ["trick:  1.1", "lead:   P Ma5", "follow: C Ma6"]
    assert "" in fitted  # a blank line between the rows' blocks


def test_wrapping_never_cuts_a_coloured_span() -> None:
    painted = Style(colour=True, symbols=True)
    cell = painted.suit(Suit.MIRROR) + " " + painted.cards([parse_card("Ma5"), parse_card("Ch1")])
    lines = table(["x"], [[cell]], 12)
    for line in lines[1:]:
        assert line.count("\x1b[0m") >= 1  # each line closes what it opened
    assert visible_width("".join(lines[1:])) == visible_width(cell) - 1  # a space went
    assert "◇ Mirror" in lines[1]


def test_annotate_fits_the_terminal() -> None:
    """On a terminal of 80 columns, annotate's table and its sentences are 80 columns
    wide at most; without a terminal, lines are whole."""
    import json

    from phantom_log.rules.replay import replay_record
    from phantom_log.views.annotate import annotate, table_lines

    walkthrough = WALKTHROUGH
    replayed = replay_record(json.loads(walkthrough.read_text(encoding="utf-8")))
    annotations = list(annotate(replayed))
    whole = table_lines(annotations, replayed, Style())
    fitted = table_lines(annotations, replayed, Style(width=80))
    assert max(visible_width(line) for line in whole) > 100
    assert max(visible_width(line) for line in fitted) <= 80
    assert words_of(fitted).count("Ma6") == words_of(whole).count("Ma6")


# --- the pager ---------------------------------------------------------------------------


def run_on_a_terminal(args: list[str], environment: dict[str, str]) -> tuple[int, str]:
    """Run phantom-log with its standard output on a pseudo-terminal; its exit code and
    what reached the terminal."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    completed = subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        stdout=slave,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "100", **environment},
        check=False,
    )
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return completed.returncode, shown.decode("utf-8", "replace")


def test_long_text_on_a_terminal_goes_through_the_pager(tmp_path: Path) -> None:
    walkthrough = str(WALKTHROUGH)
    paged = tmp_path / "paged.txt"
    pager = {"PHANTOM_LOG_PAGER": f"cat > {paged}"}
    code, shown = run_on_a_terminal(["annotate", walkthrough, "--color", "never"], pager)
    assert code == 0
    assert shown == ""
    text = paged.read_text(encoding="utf-8")
    assert "Round 2: Christine leads" in text
    table_lines = [line for line in text.splitlines() if line.startswith("  ")]
    assert max(len(line) for line in table_lines) <= 100  # COLUMNS: the pager's width
    paged.unlink()
    code, shown = run_on_a_terminal(["annotate", walkthrough, "--no-pager"], pager)
    assert code == 0 and "Round 2" in shown and not paged.exists()
    code, shown = run_on_a_terminal(["annotate", walkthrough], {"PHANTOM_LOG_PAGER": "cat"})
    assert code == 0 and "Round 2" in shown


# --- one meaning per symbol ----------------------------------------------------------------


def test_each_symbol_has_one_meaning() -> None:
    from phantom_log.views.terminal import SUIT_SYMBOLS, SYMBOLS

    fancy = [symbol for symbol, _, _ in SYMBOLS.values()] + list(SUIT_SYMBOLS.values())
    plain = [text for _, text, _ in SYMBOLS.values()]
    assert len(set(fancy)) == len(fancy)
    assert len(set(plain)) == len(plain)
    legend = Style(symbols=True).legend(list(SYMBOLS))
    for symbol, _, meaning in SYMBOLS.values():
        assert f"{symbol} {meaning}" in legend
    assert "○ Ring" in legend and "· an open note" in legend


@pytest.mark.parametrize("columns", [60, 80])
@pytest.mark.parametrize(
    "args",
    [
        ["show", "examples/rulebook-walkthrough.json", "--at", "2.4"],
        ["show", "examples/custom-sheet.json"],
        ["annotate", "examples/rulebook-walkthrough.json"],
        ["annotate", "examples/optional-rules.json", "--color", "never"],
        ["stats", "examples/tournament", "--by", "player", "-q"],
        ["stats", "examples/rulebook-walkthrough.json", "--curve"],
        ["tournament", "check", "examples/tournament", "-q"],
        ["analyse", "examples/rulebook-walkthrough.json", "--from", "2.8", "--jobs", "1"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_every_line_fits_the_terminal(args: list[str], columns: int) -> None:
    """On a terminal of 60 or 80 columns, the tables, the sheet, the titles, the
    sentences and the legends all fit: no line is wider than the terminal. A problem's
    report line (``SOURCE[#INDEX] (id): code: message``) is the one line it is everywhere,
    as verify prints it, so that it reads the same on the terminal and in a grep."""
    import re

    repository = REPO
    code, shown = run_on_a_terminal(
        [arg if not arg.startswith("examples") else str(repository / arg) for arg in args]
        + ["--no-pager"],
        {"COLUMNS": str(columns)},
    )
    assert code == (1 if args[0] == "tournament" else 0)  # the event has its errors
    assert "\\x1b" not in shown  # colours are painted, not printed as escapes
    lines = re.sub(r"\x1b\[[0-9;]*m", "", shown).replace("\r\n", "\n").splitlines()
    assert len(lines) > 5
    report = re.compile(r"^\S+(#\d+)? \([^)]*\): [a-z-]+: ")
    too_wide = [line for line in lines if len(line) > columns and not report.match(line)]
    assert too_wide == []


def test_a_wide_character_takes_two_columns() -> None:
    """Hangul, kana and CJK take two columns of a terminal: a table of names in them
    stays aligned, and fits its width by those columns."""
    assert visible_width("김민준") == 6 and visible_width("Kim") == 3
    assert visible_width("\x1b[1m서울\x1b[0m x") == 6
    lines = table(["player", "wins"], [["김민준", "2"], ["Lee", "1"], ["さくら", "3"]])
    # "wins" starts at the same column on every line.
    starts = {visible_width(line[: line.rindex(" ") + 1]) for line in lines}
    assert len(starts) == 1
    fitted = table(["event"], [["서울 오픈 결승전 서울 오픈 결승전"]], 12)
    assert len(fitted) > 2 and all(visible_width(line) <= 12 for line in fitted)


@pytest.mark.parametrize("width", [100, 120, 80])
def test_a_sheets_progress_is_never_cut(width: int) -> None:
    """A column narrowed to fit wraps its cells, but a sheet's progress stays whole: cut
    at its bars it would read as two rows."""
    import json
    import re

    from phantom_log.rules.replay import replay_record
    from phantom_log.views.annotate import Layout, annotate, table_lines

    walkthrough = WALKTHROUGH
    replayed = replay_record(json.loads(walkthrough.read_text(encoding="utf-8")))
    annotations = list(annotate(replayed))
    # The wide table, narrowed (on a terminal this narrow annotate lays it out compact).
    lines = table_lines(annotations, replayed, Style(width=width), layout=Layout.WIDE)
    assert all(visible_width(line) <= width for line in lines)
    whole = re.compile(r"(?<![#.|])[#.]{3}\|[#.]{3}\|[#.]{3}\|[#.]{3}(?![#.|])")
    assert sum(len(whole.findall(line)) for line in lines) == 20
