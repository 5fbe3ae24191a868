"""How cards, roles and the sheet look in a terminal: suit symbols and colours when the
terminal can show them, plain text otherwise."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import click

from ..files.temporaries import current_ledger
from ..rules.cards import CARD_CODES, Role, Suit, card_suit
from ..rules.sheets import Sheet

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
# Every other symbol of the terminal output: its form, its plain-text form, and its one
# meaning, as the legend says it (the suits' symbols are theirs alone: SUIT_SYMBOLS).
SYMBOLS: Final = {
    "done": ("●", "#", "a completed note"),
    "open": ("·", ".", "an open note"),
    "super_trump": ("★", "*", "the super trump's bar"),
    "special": ("♯", "!", "a card of the special number was played"),
    "swap": ("⇄", "/", "a swap: the cards the Phantom gave, then Christine's"),
    # The analysis's labels, as chess annotators mark moves (the same in plain text).
    "inaccuracy": ("?!", "?!", "an inaccuracy, 1 note lost"),
    "mistake": ("?", "?", "a mistake, 2 notes lost"),
    "blunder": ("??", "??", "a blunder, 3 notes or more, or a won game, lost"),
}
#: The symbols of analysed decisions, for the legends of analyse, annotate and show.
ANALYSIS_SYMBOLS: Final = ("inaccuracy", "mistake", "blunder")
_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")


def visible_width(text: str) -> int:
    """The columns a text takes on a terminal once its colour codes are removed: two for
    a wide character (East Asian wide or full-width: Hangul, kana, CJK), one for any
    other."""
    shown = _ANSI.sub("", text)
    if shown.isascii():
        return len(shown)
    from unicodedata import east_asian_width

    return sum(2 if east_asian_width(character) in ("W", "F") else 1 for character in shown)


@dataclass(frozen=True, slots=True)
class Style:
    """What the output can show: colours (ANSI), and symbols beyond ASCII."""

    colour: bool = False
    symbols: bool = False
    #: The terminal's width, that tables fit (``None``: not a terminal, lines are whole).
    width: int | None = None

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

    def symbol(self, name: str) -> str:
        """One of :data:`SYMBOLS`, or its plain-text form."""
        symbol, plain, _ = SYMBOLS[name]
        return symbol if self.symbols else plain

    def fit(self, text: str) -> list[str]:
        """A line of text in lines that fit the terminal's width (wrapped at spaces, never
        inside a word or a coloured span); off a terminal, the line whole."""
        if self.width is None:
            return [text]
        return _wrapped(text, self.width)

    def fitted(self, text: str) -> str:
        """:meth:`fit`'s lines as text, each ending with a line break."""
        return "".join(line + "\n" for line in self.fit(text))

    def text_width(self, widest: int) -> int:
        """The width to wrap prose at: ``widest``, or the terminal's when it is narrower."""
        return widest if self.width is None else min(widest, self.width)

    def legend(self, names: Sequence[str]) -> str:
        """What the symbols of an output mean: the suits' (when shown) and ``names``."""
        parts = []
        if self.symbols:
            parts.append(", ".join(f"{SUIT_SYMBOLS[suit]} {suit.title}" for suit in Suit))
        parts += [f"{self.symbol(name)} {SYMBOLS[name][2]}" for name in names]
        return "Legend: " + "; ".join(parts)

    def progress(self, sheet: Sheet, notes: int) -> str:
        """The sheet's 12 notes as cells grouped by bar: ``●●·|···|···|···``."""
        done, todo = self.symbol("done"), self.symbol("open")
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
    return Style(
        colour=painted,
        symbols=(terminal or painted) and encoding == "utf8",
        width=terminal_width() if terminal else None,
    )


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None
) -> list[str]:
    """Rows in aligned columns under their headers (cells may hold colour codes), fitted
    to ``width`` as :func:`table_parts` says."""
    head, body = table_parts(headers, rows, width)
    return [*head, *(line for lines in body for line in lines)]


def table_parts(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None
) -> tuple[list[str], list[list[str]]]:
    """The lines of a table: the header's, and each row's.

    Given the ``width`` of the terminal, a table wider than that is fitted to it: the
    widest columns are narrowed and their cells wrapped at spaces (never inside a word,
    nor inside a coloured span); when even words do not fit, each row is printed as a
    block of ``header: value`` lines instead (and the header has no line)."""
    widths = [visible_width(header) for header in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], visible_width(cell))
    if width is not None and _total(widths) > width:
        narrowest = [
            max([_longest_word(header), *(_longest_word(row[index]) for row in rows)])
            for index, header in enumerate(headers)
        ]
        # First no column narrower than a comfortable 10 (or its own width), then down to
        # its longest word; each step narrows the column with the most room to give.
        comfortable = [min(w, max(n, _COMFORTABLE)) for w, n in zip(widths, narrowest, strict=True)]
        for floor in (comfortable, narrowest):
            while _total(widths) > width:
                room = [widths[i] - floor[i] for i in range(len(widths))]
                wide = max(range(len(widths)), key=lambda i: room[i])
                if room[wide] <= 0:
                    break
                widths[wide] -= 1
        if _total(widths) > width:
            return [], _blocks(headers, rows, width)

    def lines(cells: Sequence[str]) -> list[str]:
        wrapped = [_wrapped(cell, widths[index]) for index, cell in enumerate(cells)]
        height = max((len(parts) for parts in wrapped), default=1)
        out = []
        for number in range(height):
            padded = [
                (part := parts[number] if number < len(parts) else "")
                + " " * (widths[index] - visible_width(part))
                for index, parts in enumerate(wrapped)
            ]
            out.append("  ".join(padded).rstrip())
        return out

    return lines(headers), [lines(cells) for cells in rows]


_COMFORTABLE: Final = 10


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + 2 * max(len(widths) - 1, 0)


def _words(cell: str) -> list[tuple[str, str]]:
    """A cell's words, each with what joins it to the word before on one line: split at
    its spaces (joined by a space) and after a ``+`` (joined by nothing: the cards of a
    swap), but not inside a coloured span. A sheet's progress (``●●·|···|···|···``) is
    one word: cut in two it would read as two rows."""
    words = [("", "")]
    painted = False
    index = 0
    while index < len(cell):
        code = _ANSI.match(cell, index)
        if code is not None:
            painted = code.group() not in ("\x1b[0m", "\x1b[m")
            words[-1] = (words[-1][0] + code.group(), words[-1][1])
            index = code.end()
            continue
        character = cell[index]
        index += 1
        if character == " " and not painted:
            words.append(("", " "))
            continue
        words[-1] = (words[-1][0] + character, words[-1][1])
        if character == "+" and not painted and index < len(cell):
            words.append(("", ""))
    return words


def _longest_word(cell: str) -> int:
    return max((visible_width(word) for word, _ in _words(cell)), default=0)


def _wrapped(cell: str, width: int) -> list[str]:
    """A cell in lines of at most ``width`` (a word longer than that on its own line)."""
    if visible_width(cell) <= width:
        return [cell]
    lines = [""]
    for word, joiner in _words(cell):
        if lines[-1] and visible_width(lines[-1]) + len(joiner) + visible_width(word) > width:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]}{joiner}{word}" if lines[-1] else word
    return lines


def _blocks(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[list[str]]:
    """Each row as a block of ``header: value`` lines, a blank line before each but the
    first; a value too long for the ``width`` goes on over lines of its own, under its
    first line."""
    label = max((visible_width(header) for header in headers), default=0)
    room = max(width - label - 2, 1)
    blocks: list[list[str]] = []
    for row in rows:
        block = [""] if blocks else []
        for header, cell in zip(headers, row, strict=False):
            first, *rest = _wrapped(cell, room)
            block.append(f"{header}:{' ' * (label - visible_width(header))} {first}".rstrip())
            block += [" " * (label + 2) + part for part in rest]
        blocks.append(block)
    return blocks


def terminal_width() -> int | None:
    """The width of the terminal standard output writes to; ``None`` when it writes
    elsewhere (a pipe, a file), where lines are never cut."""
    import shutil
    import sys

    isatty = getattr(sys.stdout, "isatty", None)
    if not (isatty and isatty()):
        return None
    return max(shutil.get_terminal_size().columns, 40)


class Progress:
    """Progress of a long run on standard error: a bar over the bytes of the input read
    so far (when its size is known; a count otherwise), the records done and the rate.
    Shown only on a terminal, never with ``--quiet``, and only after the first 0.2 s.

    Its line is the last of the terminal's: anything else written there meanwhile (a
    record's report, a note) first rubs it out with :func:`clear_progress`, and the next
    update draws it again below."""

    WIDTH: Final = 24

    def __init__(self, label: str, enabled: bool) -> None:
        import sys
        import time

        self.label = label
        self.stream = sys.stderr
        self.enabled = enabled and stderr_is_terminal()
        self.clock = time.monotonic
        self.started = self.clock()
        self.shown = 0.0
        self.count = 0
        self.total_bytes: int | None = None
        self.read_bytes = 0
        self.detail = ""
        #: The width of the line drawn on the terminal now (0: none is).
        self.drawn = 0

    def start(self, total_bytes: int | None) -> None:
        """The size of the whole input, when it is known (not for standard input)."""
        self.total_bytes = total_bytes

    def add_bytes(self, size: int) -> None:
        """Count bytes of the input as read."""
        self.read_bytes += size

    def update(self, count: int, detail: str = "") -> None:
        """Record how many records are done (and tell the run's supervisor, which says it
        if the run runs out of memory); redraw at most five times a second. A ``detail``
        (what a record's work has done so far) replaces the rate, and ends the closing
        line too."""
        self.count = count
        self.detail = detail
        ledger = current_ledger()
        if ledger is not None:
            ledger.set_records_done(count)
        if not self.enabled:
            return
        now = self.clock()
        if now - self.shown >= 0.2:
            self.shown = now
            rate = count / max(now - self.started, 1e-9)
            line = f"{self.label}{self._bar()} {count:,} records ({rate:,.0f}/s)"
            if detail:
                line = f"{self.label}{self._bar()} {count:,} records, {detail}"
            self.stream.write("\r" + line + " " * max(self.drawn - len(line), 0))
            self.stream.flush()
            self.drawn = len(line)
            _shown.add(self)

    def _bar(self) -> str:
        if not self.total_bytes:
            return ":"
        share = min(1.0, self.read_bytes / self.total_bytes)
        filled = round(share * self.WIDTH)
        return f" [{'#' * filled}{'-' * (self.WIDTH - filled)}] {share:4.0%}"

    def clear(self) -> None:
        """Rub out the line drawn, so that the terminal's next text starts on a clean line."""
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0

    def close(self) -> None:
        """End the line (once: closed again, it says nothing more)."""
        _shown.discard(self)
        if self.enabled and self.shown:
            line = f"{self.label}: {self.count:,} records"
            if self.detail:
                line += f", {self.detail}"
            padding = max(self.drawn - len(line), self.WIDTH)
            self.stream.write(f"\r{line}{' ' * padding}\n")
            self.stream.flush()
            self.drawn = 0
            self.shown = 0.0


#: The environment variable that tells a run whether its standard error is a terminal,
#: where that standard error is a pipe to the process that supervises the run.
STDERR_TERMINAL: Final = "PHANTOM_LOG_STDERR_TERMINAL"


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal as the user sees it: a run under the command
    line's supervisor writes it through a pipe, and is told (:data:`STDERR_TERMINAL`)."""
    import os
    import sys

    told = os.environ.get(STDERR_TERMINAL)
    if told is not None:
        return told == "1"
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


#: The progress lines on the terminal now.
_shown: set[Progress] = set()


def clear_progress(for_standard_output: bool = False) -> None:
    """Rub out the progress line on the terminal, before other text is written there: on
    standard error (a note), or ``for_standard_output`` (a report), which shares the
    terminal only when it is one."""
    if not _shown:
        return
    if for_standard_output:
        import sys

        isatty = getattr(sys.stdout, "isatty", None)
        if not (isatty and isatty()):
            return
    for progress in list(_shown):
        progress.clear()
