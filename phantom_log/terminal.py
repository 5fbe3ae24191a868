"""How cards, roles and the sheet look in a terminal: suit symbols and colours when the
terminal can show them, plain text otherwise."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import click

from .cards import CARD_CODES, Role, Suit, card_suit
from .sheets import Sheet

SUIT_SYMBOLS: Final = {
    Suit.MIRROR: "◇",
    Suit.CHANDELIER: "✶",
    Suit.RING: "○",
    Suit.MASK: "☻",
}
SUIT_COLOURS: Final = {
    Suit.MIRROR: "cyan",
    Suit.CHANDELIER: "yellow",
    Suit.RING: "magenta",
    Suit.MASK: "red",
}
ROLE_COLOURS: Final = {Role.PHANTOM: "blue", Role.CHRISTINE: "green"}
_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")


def visible_width(text: str) -> int:
    """The width of a text once its colour codes are removed."""
    return len(_ANSI.sub("", text))


@dataclass(frozen=True, slots=True)
class Style:
    """What the output can show: colours (ANSI), and symbols beyond ASCII."""

    colour: bool = False
    symbols: bool = False

    def paint(self, text: str, colour: str | None = None, bold: bool = False) -> str:
        """The text in a colour, when colours are on."""
        if not self.colour or (colour is None and not bold):
            return text
        return click.style(text, fg=colour, bold=bold)

    def card(self, card: int) -> str:
        """A card: ``☻Ma5`` in the suit's colour, or plain ``Ma5``."""
        suit = card_suit(card)
        symbol = SUIT_SYMBOLS[suit] if self.symbols else ""
        return self.paint(symbol + CARD_CODES[card], SUIT_COLOURS[suit])

    def cards(self, cards: Sequence[int]) -> str:
        """Cards separated by spaces."""
        return " ".join(self.card(card) for card in cards)

    def suit(self, suit: Suit | None) -> str:
        """A suit's name, or ``-`` for none."""
        if suit is None:
            return "-"
        symbol = SUIT_SYMBOLS[suit] + " " if self.symbols else ""
        return self.paint(symbol + suit.title, SUIT_COLOURS[suit])

    def role(self, role: Role) -> str:
        """A role's name, in its colour."""
        return self.paint(role.title, ROLE_COLOURS[role], bold=True)

    def progress(self, sheet: Sheet, notes: int) -> str:
        """The sheet's 12 notes as cells grouped by bar: ``●●○|○○○|○○○|○○○``."""
        done, todo = ("●", "○") if self.symbols else ("#", ".")
        cells: list[str] = []
        note = 0
        for bar in sheet.bars:
            run = ""
            for _ in bar.owners:
                note += 1
                run += done if note <= notes else todo
            cells.append(self.paint(run, SUIT_COLOURS[bar.suit]))
        return "|".join(cells)


ColourChoice = Literal["auto", "always", "never"]


def colour_wanted(choice: ColourChoice, terminal: bool) -> bool:
    """Whether to paint in colour: ``--color always`` or ``never`` decides; ``auto`` paints
    on a terminal, unless ``NO_COLOR`` is set (not empty) or ``TERM`` is ``dumb``, and
    anywhere when ``FORCE_COLOR`` is set (not empty, nor ``0``)."""
    import os

    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force and force != "0":
        return True
    return terminal and os.environ.get("TERM") != "dumb"


def detect_style(colour: ColourChoice = "auto", to_standard_output: bool = True) -> Style:
    """The style of the output: colours as :func:`colour_wanted` says, and suit symbols
    when standard output is a UTF-8 terminal (or colours are on and it speaks UTF-8).
    An output that is not standard output (an ``-o`` file) gets colours only with
    ``--color always`` and plain symbols."""
    import sys

    stream = sys.stdout
    terminal = to_standard_output and bool(getattr(stream, "isatty", lambda: False)())
    painted = colour_wanted(
        colour if to_standard_output or colour == "always" else "never", terminal
    )
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return Style(colour=painted, symbols=(terminal or painted) and encoding == "utf8")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows in aligned columns under their headers (cells may hold colour codes)."""
    widths = [visible_width(header) for header in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], visible_width(cell))

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell + " " * (widths[index] - visible_width(cell)) for index, cell in enumerate(cells)
        ]
        return "  ".join(padded).rstrip()

    return [line(headers), *(line(row) for row in rows)]


class Progress:
    """Progress of a long run on standard error: a bar over the bytes of the input read
    so far (when its size is known; a count otherwise), the records done and the rate.
    Shown only on a terminal, never with ``--quiet``, and only after the first 0.2 s."""

    WIDTH: Final = 24

    def __init__(self, label: str, enabled: bool) -> None:
        import sys
        import time

        self.label = label
        self.stream = sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.clock = time.monotonic
        self.started = self.clock()
        self.shown = 0.0
        self.count = 0
        self.total_bytes: int | None = None
        self.read_bytes = 0

    def start(self, total_bytes: int | None) -> None:
        """The size of the whole input, when it is known (not for standard input)."""
        self.total_bytes = total_bytes

    def add_bytes(self, size: int) -> None:
        """Count bytes of the input as read."""
        self.read_bytes += size

    def update(self, count: int) -> None:
        """Record how many records are done; redraw at most five times a second."""
        self.count = count
        if not self.enabled:
            return
        now = self.clock()
        if now - self.shown >= 0.2:
            self.shown = now
            rate = count / max(now - self.started, 1e-9)
            self.stream.write(f"\r{self.label}{self._bar()} {count:,} records ({rate:,.0f}/s)")
            self.stream.flush()

    def _bar(self) -> str:
        if not self.total_bytes:
            return ":"
        share = min(1.0, self.read_bytes / self.total_bytes)
        filled = round(share * self.WIDTH)
        return f" [{'#' * filled}{'-' * (self.WIDTH - filled)}] {share:4.0%}"

    def close(self) -> None:
        """End the line."""
        if self.enabled and self.shown:
            self.stream.write(f"\r{self.label}: {self.count:,} records{' ' * self.WIDTH}\n")
            self.stream.flush()
