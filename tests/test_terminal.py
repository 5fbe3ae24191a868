"""Terminal output: styles, aligned tables, the progress display."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from phantom_log.cards import parse_card
from phantom_log.cli import main
from phantom_log.sheets import RULEBOOK_SHEET
from phantom_log.terminal import (
    ColourChoice,
    Progress,
    Style,
    colour_wanted,
    detect_style,
    table,
    visible_width,
)


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
    assert stream.getvalue() == (
        "\rverifying [############------------]  50% 40 records (40/s)"
        f"\rverifying: 40 records{' ' * 24}\n"
    )


def test_progress_count_when_the_size_is_unknown(progress: tuple[Progress, Terminal]) -> None:
    shown, stream = progress
    shown.start(None)
    shown.update(7)
    assert stream.getvalue() == "\rverifying: 7 records (7/s)"


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
    walkthrough = str(Path(__file__).resolve().parent.parent / "examples/rulebook-walkthrough.json")
    runner = CliRunner()
    painted = runner.invoke(main, [command, walkthrough, "--color", "always"])
    plain = runner.invoke(main, [command, walkthrough, "--color", "never"])
    assert "\x1b[" in painted.stdout
    assert "\x1b[" not in plain.stdout
    forced = runner.invoke(main, [command, walkthrough], env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout
    legacy = runner.invoke(main, [command, walkthrough, "--no-color"], env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in legacy.stdout
