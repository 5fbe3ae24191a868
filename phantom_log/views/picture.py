"""Pictures of a game: the sheet at a moment in the terminal, and the whole game as SVG.

Both are drawn from the engine's replay; nothing here applies a rule.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final
from xml.etree import ElementTree

from ..checking.verdict import RecordReport
from ..rules.cards import Role, hand_cards, hand_codes
from ..rules.engine import (
    ROUNDS_PER_GAME,
    TRICKS_PER_GAME,
    TRICKS_PER_ROUND,
    next_note_number,
    next_note_owner,
    super_trump,
)
from ..rules.replay import GameLog
from ..rules.sheets import NOTES_PER_SHEET, Sheet
from .reports import printable, record_title
from .terminal import ANALYSIS_SYMBOLS, SUIT_COLOURS, SUIT_SYMBOLS, Style, visible_width

if TYPE_CHECKING:
    from ..rules.problems import Problem

_CELL: Final = 5  # characters per note in the terminal picture
_NARROW_CELL: Final = 3  # on a terminal too narrow for the picture at _CELL
_LABEL_WIDTH: Final = 10  # "Christine " before the bars


@dataclass(frozen=True, slots=True)
class Moment:
    """The state of a game at one moment: after ``trick`` of ``round`` (trick 0: once the
    round's exchange is done)."""

    round: int
    trick: int
    notes: int
    hands: tuple[int, int]
    special_number: int

    @property
    def label(self) -> str:
        """The moment in words."""
        if self.trick == 0:
            return f"the start of round {self.round}"
        return f"round {self.round}, trick {self.trick}"


class MomentError(ValueError):
    """A moment the replay does not reach."""


_MOMENT_NUMBER: Final = re.compile(r"[0-9]{1,20}")


def parse_moment(text: str) -> tuple[int, int]:
    """``ROUND.TRICK`` as two ints; ``ValueError`` with a message otherwise (digits of
    other scripts, which ``int()`` would read, and numbers of more than 20 digits are no
    moment)."""
    parts = text.split(".")
    if len(parts) != 2 or not all(_MOMENT_NUMBER.fullmatch(part) for part in parts):
        raise ValueError(f"{text!r} is not ROUND.TRICK, e.g. 2.4 (or 1.0 for round 1's start)")
    round_no, trick_no = int(parts[0]), int(parts[1])
    check_moment(round_no, trick_no, repr(text))
    return round_no, trick_no


def check_moment(round_no: int, trick_no: int, given: str) -> None:
    """``ValueError`` (naming the moment as ``given``) for a round or a trick that no game
    has; trick 0 is a round's start."""
    if not 1 <= round_no <= ROUNDS_PER_GAME or not 0 <= trick_no <= TRICKS_PER_ROUND:
        rounds = " or ".join(str(number) for number in range(1, ROUNDS_PER_GAME + 1))
        raise ValueError(f"{given}: the round is {rounds} and the trick 0 to {TRICKS_PER_ROUND}")


def moment(log: GameLog, at: tuple[int, int] | None = None) -> Moment:
    """The state at ``(round, trick)`` (default: where the replay ends)."""
    if not log.rounds:
        raise MomentError("the replay did not reach the start of round 1")
    numbers = {start.round: start.special_number for start in log.rounds}
    if at is None:
        if log.tricks:
            last = log.tricks[-1]
            if last.round == log.rounds[-1].round:
                return Moment(
                    last.round, last.trick, last.notes_after, last.hands, numbers[last.round]
                )
        start = log.rounds[-1]
        return Moment(start.round, 0, start.notes, start.hands, start.special_number)
    round_no, trick_no = at
    if trick_no == 0:
        for start in log.rounds:
            if start.round == round_no:
                return Moment(round_no, 0, start.notes, start.hands, start.special_number)
        raise MomentError(f"the replay does not reach round {round_no}")
    for outcome in log.tricks:
        if (outcome.round, outcome.trick) == at:
            return Moment(round_no, trick_no, outcome.notes_after, outcome.hands, numbers[round_no])
    played = sum(outcome.round == round_no for outcome in log.tricks)
    raise MomentError(
        f"the replay does not reach round {round_no}, trick {trick_no} "
        f"(round {round_no} has {played} completed trick{'s' if played != 1 else ''})"
    )


# The symbols of the sheet's picture, for its legend.
SHEET_SYMBOLS: Final = ("done", "open", "super_trump")


def sheet_lines(sheet: Sheet, notes: int, style: Style) -> list[str]:
    """The sheet as on the printed card: four bars with their suits, Christine's notes
    above the centre line and the Phantom's on it or below, a disc on each completed
    note, the super trump's bar marked."""
    disc, open_note = style.symbol("done"), style.symbol("open")
    star = style.symbol("super_trump")
    trump = super_trump(sheet, notes)
    label_width = _LABEL_WIDTH
    # A terminal narrower than the picture gets narrower notes (the suits' names cut).
    full = label_width + 1 + _CELL * NOTES_PER_SHEET + len(sheet.bars)
    cell_width = _CELL if style.width is None or style.width >= full else _NARROW_CELL
    heads: list[str] = []
    above: list[str] = []
    below: list[str] = []
    numbers: list[str] = []
    note = 0
    for bar in sheet.bars:
        width = cell_width * len(bar.owners)
        symbol = SUIT_SYMBOLS[bar.suit] + " " if style.symbols else ""
        head = f"{symbol}{bar.suit.title}"
        if bar.suit == trump:
            head = f"{star} {head}"
        head = head[:width].ljust(width)
        heads.append(style.paint(head, SUIT_COLOURS[bar.suit], bold=bar.suit == trump))
        top = bottom = number_row = ""
        for owner in bar.owners:
            note += 1
            mark = disc if note <= notes else open_note
            cell = mark.center(cell_width)
            blank = " " * cell_width
            top += cell if owner is Role.CHRISTINE else blank
            bottom += cell if owner is Role.PHANTOM else blank
            number_row += str(note).center(cell_width)
        above.append(top)
        below.append(bottom)
        numbers.append(number_row)
    rule, cross = ("─", "┼") if style.symbols else ("-", "+")
    lines = [
        " " * (label_width + 1) + " ".join(heads),
        "Christine".ljust(label_width) + "|" + "|".join(above) + "|",
        rule * label_width + cross + cross.join(rule * len(part) for part in above) + cross,
        "Phantom".ljust(label_width) + "|" + "|".join(below) + "|",
        " " * (label_width + 1) + " ".join(numbers),
    ]
    return [line.rstrip() for line in lines]


def before_play_lines(log: GameLog, style: Style) -> list[str]:
    """The picture of a game whose replay stopped before round 1 could start (a bad deal or
    exchange): the sheet, with no note completed."""
    return [
        f"Before round 1: the replay stops there, 0 of {NOTES_PER_SHEET} notes completed",
        "",
        *sheet_lines(log.sheet, 0, style),
        "",
        style.legend(SHEET_SYMBOLS),
    ]


def moment_lines(log: GameLog, at: Moment, style: Style) -> list[str]:
    """The picture of one moment: the sheet, the super trump, the special number, the
    next note, both hands."""
    sheet = log.sheet
    when = "At" if at.trick == 0 else "After"
    lines = [f"{when} {at.label}: {at.notes} of {NOTES_PER_SHEET} notes completed", ""]
    lines += sheet_lines(sheet, at.notes, style)
    lines.append("")
    trump = super_trump(sheet, at.notes)
    if trump is None:
        lines.append("Super trump: none (no note completed yet)")
    else:
        lines.append(
            f"Super trump: {style.suit(trump)} (note {at.notes}, the last completed, is in its bar)"
        )
    lines.append(f"Special number of round {at.round}: {at.special_number}")
    owner, note = next_note_owner(sheet, at.notes), next_note_number(at.notes)
    if owner is not None and note is not None:
        lines.append(f"Next note: {note}, {owner.title}'s")
    for role in Role:
        cards = hand_cards(at.hands[role])
        lines.append(
            f"{role.title}'s hand ({len(cards)}): {style.cards(cards) if cards else 'empty'}"
        )
    return lines


def story_lines(log: GameLog, at: Moment, width: int = 88) -> list[str]:
    """What happened at a moment, in words: the trick just played (as annotate explains
    it, in lines of at most ``width``), and the game's result when the moment is the
    game's end."""
    from .annotate import explained_tricks
    from .reports import result_text

    lines: list[str] = []
    if at.trick > 0:
        for outcome, text in explained_tricks(log):
            if (outcome.round, outcome.trick) == (at.round, at.trick):
                lines += textwrap.wrap(f"Round {at.round}, trick {at.trick}: {text}", width)
    last = log.tricks[-1] if log.tricks else None
    at_end = last is not None and (last.round, last.trick) == (at.round, at.trick)
    if log.result is not None and at_end:
        lines.append(f"Result: {result_text(log.result, log.ended_at)}")
    return lines


# -- SVG ---------------------------------------------------------------------------------

_SVG_COLOURS: Final = {
    "cyan": "#1b8fb0",
    "yellow": "#c79a00",
    "magenta": "#a0379c",
    "red": "#c0392b",
}
_SVG_NS: Final = "http://www.w3.org/2000/svg"


def _svg_root(
    width: int, height: int, title: str
) -> tuple[ElementTree.Element, ElementTree.Element]:
    """An empty picture of ``width`` by ``height`` on white, with its ``title`` (made
    printable by the caller), and the element of its heading to fill in."""
    ElementTree.register_namespace("", _SVG_NS)
    svg = ElementTree.Element(
        "svg",
        {
            "xmlns": _SVG_NS,
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
            "font-family": "sans-serif",
            "font-size": "13",
        },
    )
    ElementTree.SubElement(svg, "title").text = title
    ElementTree.SubElement(svg, "rect", width=str(width), height=str(height), fill="white")
    heading = ElementTree.SubElement(svg, "text", x="20", y="28", attrib={"font-size": "17"})
    return svg, heading


def game_svg(
    log: GameLog,
    title: str,
    problems: Sequence[Problem],
    at: tuple[int, int] | None = None,
) -> str:
    """A record's picture, as ``show --svg`` draws it: the result of a valid record (or
    where an illegal record's replay stops, and why, from its first error among
    ``problems``), at the moment ``at`` when given. Raises :class:`MomentError` for a
    moment the replay did not reach."""
    from ..rules.problems import Severity
    from .reports import result_text

    drawn = None if at is None else moment(log, at)
    first = next((problem for problem in problems if problem.severity is Severity.ERROR), None)
    verdict = stopped = None
    if first is not None:
        stopped = f"Illegal: the replay stops at {first.code}: {first.message}"
    elif log.result is not None:
        verdict = "Result: " + result_text(log.result, log.ended_at)
    return svg_picture(log, title, drawn, verdict, stopped)


def _fitted(text: str, columns: int) -> list[str]:
    """``text`` in lines of at most ``columns``, broken at spaces and after a hyphen inside
    a word; a word wider than a line is cut. A wide character (East Asian wide or
    full-width, about as wide as the font is high) takes two columns, as on a terminal
    (:func:`~phantom_log.views.terminal.visible_width`)."""
    import re

    lines: list[str] = []
    line = ""
    for chunk in re.findall(r"\S+?-(?=[^\s-])|\S+|\s+", text):
        if chunk.isspace():
            line += " " if line else ""
            continue
        if line and visible_width(line) + visible_width(chunk) > columns:
            lines.append(line.rstrip())
            line = ""
        for character in chunk:
            if line and visible_width(line) + visible_width(character) > columns:
                lines.append(line.rstrip())
                line = ""
            line += character
    if line.strip():
        lines.append(line.rstrip())
    return lines or [""]


def svg_picture(
    log: GameLog,
    title: str,
    at: Moment | None = None,
    verdict: str | None = None,
    stopped: str | None = None,
) -> str:
    """An SVG picture of a game: the title (wrapped to fit), the verdict, the sheet with
    its discs at ``at`` (where the replay ends, by default), and the notes completed
    after each trick of both rounds, each trick's winner, special tricks and the round
    boundary marked; the tricks after ``at`` are faded. ``stopped`` says why an illegal
    record's replay stops, marked where it does. A replay that stopped before round 1
    gives the empty sheet. The texts are written with the characters that could forge
    them, or that XML does not allow, as escapes: the picture is well-formed XML whatever
    the record holds."""
    from .reports import printable

    title = printable(title)
    heading_lines = _fitted(title, _TITLE_CHARACTERS)
    said = [
        (line, text == stopped)
        for text in (verdict, stopped)
        if text
        for line in _fitted(printable(text), _TEXT_CHARACTERS)
    ]
    extra = _LINE * (len(heading_lines) - 1 + len(said))
    width = 780
    svg, heading = _svg_root(width, 610 + extra, title)
    for number, line in enumerate(heading_lines):
        part = ElementTree.SubElement(heading, "tspan", x="20", dy="0" if number == 0 else "22")
        part.text = line
    y = 28 + _LINE * (len(heading_lines) - 1)
    for text, is_stop in said:
        y += _LINE
        colour = "#c0392b" if is_stop else "#222"
        said_line = ElementTree.SubElement(
            svg, "text", {"x": "20", "y": str(y), "class": "verdict", "fill": colour}
        )
        said_line.text = text
    shown = at
    if shown is None:
        try:
            shown = moment(log)
        except MomentError:  # the replay did not reach the start of round 1
            shown = None
    _svg_sheet(svg, log.sheet, 0 if shown is None else shown.notes, top=50 + extra)
    _svg_curve(svg, log, top=310 + extra, width=width, at=at, stopped=stopped is not None)
    return ElementTree.tostring(svg, encoding="unicode", xml_declaration=False) + "\n"


# A title line of the SVG, in characters of its 17-pixel font across 740 pixels; the
# height of a line of text.
_TITLE_CHARACTERS: Final = 72  # columns (see _fitted) of the title's lines
_TEXT_CHARACTERS: Final = 100
_LINE: Final = 22
_ROLE_FILLS: Final = {Role.PHANTOM: "#1f4e99", Role.CHRISTINE: "#2e8b57"}


def _svg_sheet(svg: ElementTree.Element, sheet: Sheet, notes: int, top: int) -> None:
    group = ElementTree.SubElement(svg, "g", {"class": "sheet"})
    left, step, centre = 110, 54, top + 90
    x = left
    note = 0
    trump = super_trump(sheet, notes)
    for bar in sheet.bars:
        bar_width = step * len(bar.owners)
        colour = _SVG_COLOURS[SUIT_COLOURS[bar.suit]]
        ElementTree.SubElement(
            group,
            "rect",
            {
                "class": "bar",
                "x": str(x),
                "y": str(top + 20),
                "width": str(bar_width),
                "height": "140",
                "fill": colour,
                "fill-opacity": "0.12" if bar.suit != trump else "0.3",
                "stroke": colour,
            },
        )
        label = ElementTree.SubElement(
            group, "text", {"x": str(x + 6), "y": str(top + 14), "fill": colour}
        )
        label.text = bar.suit.title + (" (super trump)" if bar.suit == trump else "")
        for owner in bar.owners:
            note += 1
            cx = left + step * (note - 1) + step // 2
            cy = centre - 40 if owner is Role.CHRISTINE else centre + 35
            completed = note <= notes
            ElementTree.SubElement(
                group,
                "circle",
                {
                    "class": "note disc" if completed else "note",
                    "cx": str(cx),
                    "cy": str(cy),
                    "r": "13",
                    "fill": "#222" if completed else "white",
                    "stroke": "#222",
                    "stroke-width": "2",
                },
            )
            number = ElementTree.SubElement(
                group,
                "text",
                {"x": str(cx), "y": str(top + 175), "text-anchor": "middle"},
            )
            number.text = str(note)
        x += bar_width
    ElementTree.SubElement(
        group,
        "line",
        {
            "class": "centre-line",
            "x1": str(left),
            "x2": str(x),
            "y1": str(centre),
            "y2": str(centre),
            "stroke": "#444",
            "stroke-width": "2",
        },
    )
    for text, y in (("Christine", centre - 36), ("Phantom", centre + 40)):
        label = ElementTree.SubElement(group, "text", {"x": "20", "y": str(y)})
        label.text = text


def _svg_curve(
    svg: ElementTree.Element,
    log: GameLog,
    top: int,
    width: int,
    at: Moment | None = None,
    stopped: bool = False,
) -> None:
    group = ElementTree.SubElement(svg, "g", {"class": "curve"})
    left, right, plot_height = 60, width - 30, 200
    bottom = top + plot_height
    slots = TRICKS_PER_GAME
    step = (right - left) / slots

    def x_of(index: int) -> float:
        return left + step * index

    def y_of(notes: int) -> float:
        return bottom - plot_height * notes / NOTES_PER_SHEET

    axis = {"stroke": "#444", "stroke-width": "1"}
    ElementTree.SubElement(
        group,
        "line",
        {"x1": str(left), "x2": str(right), "y1": str(bottom), "y2": str(bottom)} | axis,
    )
    ElementTree.SubElement(
        group, "line", {"x1": str(left), "x2": str(left), "y1": str(top), "y2": str(bottom)} | axis
    )
    for notes in range(0, NOTES_PER_SHEET + 1, 3):
        ElementTree.SubElement(
            group,
            "line",
            {
                "class": "grid",
                "x1": str(left),
                "x2": str(right),
                "y1": f"{y_of(notes):.1f}",
                "y2": f"{y_of(notes):.1f}",
                "stroke": "#ddd",
            },
        )
        tick = ElementTree.SubElement(
            group,
            "text",
            {"x": str(left - 8), "y": f"{y_of(notes) + 4:.1f}", "text-anchor": "end"},
        )
        tick.text = str(notes)
    caption = ElementTree.SubElement(group, "text", {"x": str(left), "y": str(top - 10)})
    caption.text = "Notes completed after each trick"
    boundary = x_of(TRICKS_PER_ROUND)
    ElementTree.SubElement(
        group,
        "line",
        {
            "class": "round-boundary",
            "x1": f"{boundary:.1f}",
            "x2": f"{boundary:.1f}",
            "y1": str(top),
            "y2": str(bottom),
            "stroke": "#888",
            "stroke-dasharray": "4 4",
        },
    )
    for round_no, centre in ((1, x_of(5)), (2, x_of(15))):
        label = ElementTree.SubElement(
            group,
            "text",
            {"x": f"{centre:.1f}", "y": str(bottom + 46), "text-anchor": "middle"},
        )
        label.text = f"round {round_no}"
    points = [(x_of(0), y_of(0))]
    for outcome in log.tricks:
        index = (outcome.round - 1) * TRICKS_PER_ROUND + outcome.trick
        points.append((x_of(index), y_of(outcome.notes_after)))
    ElementTree.SubElement(
        group,
        "polyline",
        {
            "class": "notes-curve",
            "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in points),
            "fill": "none",
            "stroke": "#1f4e99",
            "stroke-width": "2.5",
        },
    )
    last = 0
    for outcome in log.tricks:
        index = (outcome.round - 1) * TRICKS_PER_ROUND + outcome.trick
        last = index
        after = at is not None and (outcome.round, outcome.trick) > (at.round, at.trick)
        fade = {"opacity": "0.3"} if after else {}
        label = ElementTree.SubElement(
            group,
            "text",
            {
                "x": f"{x_of(index):.1f}",
                "y": str(bottom + 16),
                "text-anchor": "middle",
                "font-size": "10",
            }
            | fade,
        )
        label.text = str(outcome.trick)
        won = ElementTree.SubElement(
            group,
            "text",
            {
                "class": "winner",
                "x": f"{x_of(index):.1f}",
                "y": str(bottom + 28),
                "text-anchor": "middle",
                "font-size": "10",
                "fill": _ROLE_FILLS[outcome.winner],
            }
            | fade,
        )
        won.text = outcome.winner.title[0]
        marker = ElementTree.SubElement(
            group,
            "circle",
            {
                "class": f"trick won-by-{outcome.winner.key}"
                + (" special" if outcome.special else ""),
                "cx": f"{x_of(index):.1f}",
                "cy": f"{y_of(outcome.notes_after):.1f}",
                "r": "6" if outcome.special else "4",
                "fill": _ROLE_FILLS[outcome.winner],
                "stroke": "#e67e22" if outcome.special else "none",
                "stroke-width": "3",
            }
            | fade,
        )
        ElementTree.SubElement(marker, "title").text = (
            f"round {outcome.round}, trick {outcome.trick}: {outcome.winner.title} won; "
            f"notes {outcome.notes_before} -> {outcome.notes_after}"
            + (" (special)" if outcome.special else "")
        )
    if at is not None:
        index = (at.round - 1) * TRICKS_PER_ROUND + at.trick
        _svg_marker(group, x_of(index), top, bottom, f"at {at.round}.{at.trick}", "#444")
    if stopped:
        _svg_marker(group, x_of(last), top, bottom, "the replay stops here", "#c0392b")
    legend = [
        ("#1f4e99", "none", "won by the Phantom (P)"),
        ("#2e8b57", "none", "won by Christine (C)"),
        ("white", "#e67e22", "a card of the special number"),
    ]
    for number, (fill, stroke, text) in enumerate(legend):
        x = left + 10 + 200 * number
        ElementTree.SubElement(
            group,
            "circle",
            {
                "cx": str(x),
                "cy": str(bottom + 70),
                "r": "5",
                "fill": fill,
                "stroke": stroke,
                "stroke-width": "3",
            },
        )
        item = ElementTree.SubElement(
            group, "text", {"x": str(x + 10), "y": str(bottom + 74), "class": "legend"}
        )
        item.text = text


def _svg_marker(
    group: ElementTree.Element, x: float, top: int, bottom: int, text: str, colour: str
) -> None:
    """A vertical line across the curve at ``x``, labelled at its top."""
    ElementTree.SubElement(
        group,
        "line",
        {
            "class": "marker",
            "x1": f"{x:.1f}",
            "x2": f"{x:.1f}",
            "y1": str(top),
            "y2": str(bottom),
            "stroke": colour,
            "stroke-width": "2",
        },
    )
    label = ElementTree.SubElement(
        group,
        "text",
        {"x": f"{x:.1f}", "y": str(top - 10), "text-anchor": "middle", "fill": colour},
    )
    label.text = text


def svg_position(
    sheet: Sheet,
    notes: int,
    hands: tuple[int, int],
    title: str,
    lines: list[str] | tuple[str, ...] = (),
) -> str:
    """An SVG picture of one position: the sheet with its discs, then each hand and the
    given lines of text (whose turn, the card led, ...). The title and lines are written
    as :func:`svg_picture` writes its title: well-formed XML whatever they hold."""
    from .reports import printable

    texts = [f"{role.title}: {' '.join(hand_codes(hands[role])) or 'empty'}" for role in Role]
    texts += [printable(line) for line in lines]
    title = printable(title)
    svg, heading = _svg_root(780, 290 + 24 * len(texts), title)
    heading.text = title
    _svg_sheet(svg, sheet, notes, top=50)
    for number, text in enumerate(texts):
        line = ElementTree.SubElement(svg, "text", {"x": "20", "y": str(290 + 24 * number)})
        line.text = text
    return ElementTree.tostring(svg, encoding="unicode", xml_declaration=False) + "\n"


def terminal_picture(
    report: RecordReport,
    log: GameLog,
    at: tuple[int, int] | None,
    at_text: str | None,
    style: Style,
    mistakes: Callable[[tuple[int, int] | None], list[str]] | None = None,
) -> list[str]:
    """``show``'s picture of a record in the terminal, its lines ended: the title, the
    sheet at the moment ``at`` (``at_text`` as it was given; the end by default) and the
    story of the trick, given ``mistakes`` the costly decisions up to that moment, and the
    legend. An illegal record is shown where its replay stops, saying so when ``at`` is
    past it; :class:`MomentError` for a moment a valid record does not reach."""
    shown: Moment | None = None
    missed = []
    try:
        shown = moment(log, at)
    except MomentError as error:
        if report.valid:
            raise
        if at is not None:
            missed = [f"--at {at_text}: {error}; shown where the replay stops"]
        if log.rounds:
            shown = moment(log)
    title = [style.paint(line, bold=True) + "\n" for line in style.fit(record_title(report))]
    if shown is None:
        lines = [*missed, *before_play_lines(log, style)]
    else:
        lines = [*missed, *moment_lines(log, shown, style)]
        story = story_lines(log, shown, style.text_width(88))
        lines += ["", *(printable(line) for line in story)] if story else []
    if mistakes is not None:
        until = None if shown is None else (shown.round, shown.trick)
        lines += ["", *(printable(line) for line in mistakes(until))]
    if shown is not None:
        symbols = [*SHEET_SYMBOLS, *(ANALYSIS_SYMBOLS if mistakes is not None else ())]
        lines += ["", *style.fit(style.legend(symbols))]
    return title + [style.fitted(line) for line in lines]
