"""Trick-by-trick annotations: rows built from the engine's events, and a sentence per trick.

No rule is applied here: every fact comes from the game log's events
(:class:`~phantom_log.rules.events.TrickEnded`, :class:`~phantom_log.rules.events.RoundStarted`,
:class:`~phantom_log.rules.events.GameEnded`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import IO, Any, Final, Literal, Protocol, TypedDict, cast

import orjson

from ..checking.verdict import RecordReport
from ..records.trick_spans import WHOLE_GAME, TrickSpan
from ..rules.cards import CARD_CODES, Role, RoleKey, SuitCode, card_suit
from ..rules.events import (
    CardsSwapped,
    GameEnded,
    NoteChange,
    Reason,
    RoundEnded,
    RoundStarted,
    TrickEnded,
)
from ..rules.replay import GameLog
from .csv_output import CsvRows
from .reports import printable, record_title, report_lines, verdict_line
from .terminal import (
    ANALYSIS_SYMBOLS,
    ROLE_COLOURS,
    SUIT_COLOURS,
    Style,
    table,
    table_parts,
    visible_width,
)

#: Why a trick was won (:class:`~phantom_log.rules.events.Reason`'s values).
TrickReason = Literal["higher-number", "super-trump", "trump", "lead-suit"]


#: After which card of the trick a swap was made.
SwapAfter = Literal["lead", "follow"]


class SwapRow(TypedDict):
    """A swap as the annotations write it: after the ``lead`` or the ``follow`` card,
    the cards each player gave."""

    after: SwapAfter
    phantom: list[str]
    christine: list[str]


ANNOTATION_FIELDS: Final = (
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
)


@dataclass(frozen=True, slots=True)
class Annotation:
    """One completed trick of one game as annotate writes it: the fields of docs/format.md's
    annotation rows, with the values the JSON rows hold (card and suit codes, role names),
    the explanation, and the engine's :class:`~phantom_log.rules.events.TrickEnded` event
    it is made from (``outcome``), for compact access."""

    game_id: str | None
    round: int
    trick: int
    leader: RoleKey
    lead: str
    follower: RoleKey
    follow: str
    lead_suit: SuitCode
    super_trump: SuitCode | None
    winner: RoleKey
    reason: TrickReason
    note_owner: RoleKey
    in_order: bool
    special: bool
    swaps: list[SwapRow]
    notes_before: int
    notes_after: int
    explanation: str
    outcome: TrickEnded

    @classmethod
    def of(cls, game_id: str | None, outcome: TrickEnded, explanation: str) -> Annotation:
        """The annotation of one trick."""
        return cls(game_id=game_id, **trick_json(outcome), explanation=explanation, outcome=outcome)

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The row as docs/format.md's ``annotate --format json`` writes it (plus the
        ``explanation`` when asked)."""
        row = {name: getattr(self, name) for name in ANNOTATION_FIELDS}
        if explain:
            row["explanation"] = self.explanation
        return row

    def to_csv_row(self, explain: bool = False) -> dict[str, Any]:
        """The row for CSV: the same columns, ``swaps`` as a compact string, booleans as
        ``true``/``false`` and ``None`` as an empty cell."""
        row = self.to_json(explain)
        row["swaps"] = swaps_text(self.outcome.swaps)
        for key, value in row.items():
            if isinstance(value, bool):
                row[key] = "true" if value else "false"
            elif value is None:
                row[key] = ""
        return row


def swap_json(swap: CardsSwapped) -> SwapRow:
    """A swap as docs/format.md's annotations write it."""
    return {
        "after": cast(SwapAfter, swap.after),  # the engine's "lead" or "follow"
        "phantom": [CARD_CODES[card] for card in swap.phantom_gave],
        "christine": [CARD_CODES[card] for card in swap.christine_gave],
    }


def trick_json(outcome: TrickEnded) -> dict[str, Any]:
    """A trick's annotation fields of docs/format.md (without ``game_id``)."""
    super_trump = outcome.super_trump
    return {
        "round": outcome.round,
        "trick": outcome.trick,
        "leader": outcome.leader.key,
        "lead": CARD_CODES[outcome.lead],
        "follower": outcome.follower.key,
        "follow": CARD_CODES[outcome.follow],
        "lead_suit": outcome.lead_suit.code,
        "super_trump": None if super_trump is None else super_trump.code,
        "winner": outcome.winner.key,
        "reason": outcome.reason.value,
        "note_owner": outcome.note_owner.key,
        "in_order": outcome.in_order,
        "special": outcome.special,
        "swaps": [swap_json(swap) for swap in outcome.swaps],
        "notes_before": outcome.notes_before,
        "notes_after": outcome.notes_after,
    }


def swaps_text(swaps: tuple[CardsSwapped, ...]) -> str:
    """Swaps as one compact string: ``lead P:Mi2+Ri4 C:Ch1+Ch6; follow P:Ma1 C:Ri2``
    (``P:-`` when a side gave nothing)."""

    # Written for speed: export writes this for every trick with a swap.
    parts = []
    for swap in swaps:
        phantom = "+".join([CARD_CODES[card] for card in swap.phantom_gave]) or "-"
        christine = "+".join([CARD_CODES[card] for card in swap.christine_gave]) or "-"
        parts.append(f"{swap.after} P:{phantom} C:{christine}")
    return "; ".join(parts)


def _title(text: str) -> str:
    return text[:1].upper() + text[1:]


_NOTE_COUNTS: Final = {1: "one note", 2: "two notes", 3: "three notes"}


def explain(
    outcome: TrickEnded, special_number: int, balance: bool, ended: GameEnded | None = None
) -> str:
    """One paragraph on a trick: the swaps, who won and why, what the notes did and why,
    and, given the game's end at this trick (``ended``), who won the game. ``balance``:
    the game is played under the balance rule (which set the notes a special card
    removes)."""
    sentences: list[str] = []
    for swap in outcome.swaps:
        sentences.append(
            f"{CARD_CODES[swap.card]} shows the special number {special_number}: the Phantom "
            f"gives {' and '.join(CARD_CODES[c] for c in swap.phantom_gave)}, Christine gives "
            f"{' and '.join(CARD_CODES[c] for c in swap.christine_gave)}."
        )
    win, lose = CARD_CODES[outcome.winning_card], CARD_CODES[outcome.losing_card]
    if outcome.reason is Reason.HIGHER_NUMBER:
        sentences.append(f"{win} beats {lose}: same suit, higher number.")
    elif outcome.reason is Reason.SUPER_TRUMP:
        sentences.append(f"Super trump {win} beats {lose}.")
    elif outcome.reason is Reason.TRUMP:
        sentences.append(f"Trump {win} beats {lose}.")
    else:
        sentences.append(
            f"{win} of the lead suit wins: {lose} is neither trump nor of the lead suit."
        )
    owner = f"note {outcome.note} was {outcome.note_owner.in_text}'s"
    before, after = outcome.notes_before, outcome.notes_after
    change = outcome.note_change
    if change is NoteChange.COMPLETED:
        sentences.append(f"{_title(owner)}: in order, {before} -> {after}.")
    elif change is NoteChange.UNCHANGED:
        sentences.append(f"{_title(owner)}: out of order, the notes stay at {before}.")
    elif change is NoteChange.EXTRA or change is NoteChange.EXTRA_CAPPED:
        extra = "" if change is NoteChange.EXTRA else " (the sheet is full)"
        sentences.append(
            f"{_title(owner)} and a {special_number} was played, so an extra note is "
            f"completed{extra}: {before} -> {after}."
        )
    else:
        penalty = outcome.penalty
        removed = _NOTE_COUNTS.get(penalty, f"{penalty} notes")
        if balance:
            removed += " (balance rule)"
        if before == 0:
            removed += ", but none is completed"
        elif change is NoteChange.REMOVED_FLOORED:
            removed += f", but only {before} is completed"
        sentences.append(
            f"{_title(owner)}, so the special card removes {removed}: {before} -> {after}."
        )
    if after != before:
        super_trump_after = outcome.super_trump_after
        if super_trump_after != outcome.super_trump:
            if super_trump_after is None:
                shift = "no super trump now"
            elif outcome.super_trump is None:
                shift = f"{super_trump_after.title} is now the super trump"
            else:
                shift = f"super trump {outcome.super_trump.title} -> {super_trump_after.title}"
            sentences[-1] = f"{sentences[-1][:-1]}; {shift}."
    if ended is not None and ended.winner is Role.PHANTOM:
        sentences.append("The sheet is complete: the Phantom wins.")
    return " ".join(sentences)


def explained_tricks(log: GameLog) -> Iterator[tuple[TrickEnded, str]]:
    """Each completed trick of a game log, with its explanation (:func:`explain`): a
    trick is explained once the events after it say whether the game ended there."""
    special_number = 0
    pending: TrickEnded | None = None
    balance = log.rules.balance
    for event in log.events:
        if isinstance(event, RoundEnded):
            continue
        if isinstance(event, GameEnded):
            if pending is not None:
                yield pending, explain(pending, special_number, balance, event)
                pending = None
            continue
        if pending is not None:
            yield pending, explain(pending, special_number, balance)
            pending = None
        if isinstance(event, TrickEnded):
            pending = event
        elif isinstance(event, RoundStarted):
            special_number = event.special_number
    if pending is not None:
        yield pending, explain(pending, special_number, balance)


def annotate(
    log: GameLog, game_id: str | None = None, explained: bool = True
) -> Iterator[Annotation]:
    """The annotations of every completed trick of a game log, in play order; without
    ``explained``, the explanation is left empty (it is the costly part)."""
    if not explained:
        for outcome in log.tricks:
            yield Annotation.of(game_id, outcome, "")
        return
    for outcome, text in explained_tricks(log):
        yield Annotation.of(game_id, outcome, text)


_REASON_WORDS: Final = {
    "higher-number": "higher number",
    "super-trump": "super trump",
    "trump": "trump",
    "lead-suit": "lead suit",
}

# The compact layout's words for why a trick was won: the same, "higher number" cut to
# its first word, so that a trick's line holds 80 columns with two swaps in it.
_COMPACT_REASON_WORDS: Final = {**_REASON_WORDS, "higher-number": "higher"}


# The symbols of the annotations' table, for its legend.
TABLE_SYMBOLS: Final = ("special", "done", "open")

# The compact layout's symbols: it marks the special tricks and draws the swaps with ⇄.
COMPACT_SYMBOLS: Final = ("special", "swap")


class Layout(Enum):
    """How annotate lays a game out for people: the ``WIDE`` table (a column for each
    fact, the sheet drawn; about 115 columns) or the ``COMPACT`` one (one line of at most
    80 columns per trick)."""

    WIDE = "wide"
    COMPACT = "compact"


def table_symbols(layout: Layout) -> tuple[str, ...]:
    """The symbols a layout uses, as :meth:`~phantom_log.views.terminal.Style.legend`
    names them."""
    return TABLE_SYMBOLS if layout is Layout.WIDE else COMPACT_SYMBOLS


def choose_layout(
    annotations: list[Annotation],
    log: GameLog,
    style: Style,
    mistakes: Mapping[tuple[int, int], str] | None = None,
) -> Layout:
    """The layout of a game: the wide table off a terminal (lines are whole there) and on
    a terminal wide enough for its every row on one line; the compact one otherwise."""
    if style.width is None:
        return Layout.WIDE
    headers = _headers(Layout.WIDE, style, mistakes is not None)
    for start in log.rounds:
        rows = [
            _wide_row(annotation.outcome, log, style, mistakes)
            for annotation in annotations
            if annotation.round == start.round
        ]
        head, body = table_parts(headers, rows)
        lines = [*head, *(line for row in body for line in row)]
        if any(visible_width(line) + 2 > style.width for line in lines):
            return Layout.COMPACT
    return Layout.WIDE


def table_lines(
    annotations: list[Annotation],
    log: GameLog,
    style: Style,
    explain: bool = True,
    mistakes: Mapping[tuple[int, int], str] | None = None,
    tricks: TrickSpan = WHOLE_GAME,
    layout: Layout | None = None,
) -> list[str]:
    """The annotations of one game for people: a table per round, each trick's cards,
    winner and why, the notes and the swaps (and, given ``mistakes``, the costly
    decisions of each trick, worded), each row followed by its explanation when
    ``explain``; the game's end on a line of its own.

    Only the tricks in the span ``tricks`` are shown (``annotations`` may hold others),
    after a line that says the span, and only the rounds that have one. The ``layout``
    (:func:`choose_layout` when not given) is the wide table, with the super trump, the
    order and the sheet's progress in columns, or the compact one: one line of at most 80
    columns per trick (the trick, marked when special; the lead; the follow; the winner
    and why; the notes before and after; the swaps), its mistakes on a line below it."""
    shown = [a for a in annotations if tricks.covers(a.round, a.trick)]
    if layout is None:
        layout = choose_layout(shown, log, style, mistakes)
    lines: list[str] = []
    if not tricks.whole_game:
        lines += style.fit(f"Tricks shown: {tricks}")
    headers = _headers(layout, style, mistakes is not None)
    played = {outcome.round for outcome in log.tricks}
    for start in log.rounds:
        rows: list[list[str]] = []
        below: list[list[str]] = []
        for annotation in shown:
            outcome = annotation.outcome
            if outcome.round != start.round:
                continue
            if layout is Layout.WIDE:
                rows.append(_wide_row(outcome, log, style, mistakes))
                text_width = _wide_text_width(style)
                under = []
            else:
                rows.append(_compact_row(outcome, style))
                text_width = _compact_text_width(style)
                wording = (mistakes or {}).get((outcome.round, outcome.trick), "-")
                under = [] if wording == "-" else _wrap(f"mistakes: {wording}", text_width)
            if explain:
                under += _wrap(annotation.explanation, text_width)
            below.append(under)
        if not rows and (start.round in played or not tricks.covers(start.round, 1)):
            continue  # a round whose tricks are all outside the span
        lines += _round_heading(start, style)
        if not rows:
            lines.append("  (no trick completed)")
            continue
        width = None if style.width is None else style.width - 2
        head, body = table_parts(headers, rows, width)
        lines.extend("  " + style.paint(line, bold=True) for line in head)
        indent = " " * (8 if layout is Layout.WIDE else _COMPACT_INDENT)
        for row, texts in zip(body, below, strict=True):
            lines.extend("  " + line for line in row)
            lines.extend(indent + text for text in texts)
    if not shown and not tricks.whole_game:
        lines.append("  (no completed trick in the span)")
    for event in log.events:
        if isinstance(event, GameEnded) and tricks.covers(*event.ended_at):
            lines += style.fit(_game_end(event))
    return lines


def _headers(layout: Layout, style: Style, analysed: bool) -> list[str]:
    if layout is Layout.COMPACT:
        return ["trick", "lead", "follow", "won", "notes", f"swaps P{style.symbol('swap')}C"]
    headers = ["trick", "lead", "follow", "winner", "why", "order", "super trump", "swaps"]
    return [*headers, "notes", "sheet", *(["mistakes"] if analysed else [])]


def _round_heading(start: RoundStarted, style: Style) -> list[str]:
    exchange = (
        "no exchange (beginner rule)"
        if start.exchange is None
        else f"exchange: the Phantom gave {style.card(start.exchange.phantom_gave)}, Christine "
        f"gave {style.card(start.exchange.christine_gave)}"
    )
    heading = (
        f"Round {start.round}: {style.role(start.leader)} leads; {exchange}; special "
        f"number {style.paint(str(start.special_number), bold=True)}"
    )
    return [heading] if style.width is None else table([heading], [], style.width)


def _game_end(event: GameEnded) -> str:
    notes = f"{event.notes} note{'s' if event.notes != 1 else ''}"
    return (
        f"Game over after trick {event.round}.{event.trick}: "
        f"{_title(event.winner.in_text)} wins with {notes} completed"
    )


def _wide_row(
    outcome: TrickEnded,
    log: GameLog,
    style: Style,
    mistakes: Mapping[tuple[int, int], str] | None,
) -> list[str]:
    arrow = "→" if style.symbols else "->"
    order = "in" if outcome.in_order else "out"
    if outcome.special:
        order += " " + style.symbol("special")
    row = [
        f"{outcome.round}.{outcome.trick}",
        f"{outcome.leader.title[0]} {style.card(outcome.lead)}",
        f"{outcome.follower.title[0]} {style.card(outcome.follow)}",
        style.role(outcome.winner),
        _REASON_WORDS[outcome.reason.value],
        order,
        style.suit(outcome.super_trump),
        _swap_cell(outcome.swaps, style),
        f"{outcome.notes_before}{arrow}{outcome.notes_after}",
        style.progress(log.sheet, outcome.notes_after),
    ]
    if mistakes is not None:
        row.append(mistakes.get((outcome.round, outcome.trick), "-"))
    return row


# Where a compact trick's sentence starts: under its lead card.
_COMPACT_INDENT: Final = 9


def _compact_row(outcome: TrickEnded, style: Style) -> list[str]:
    """A trick in the compact layout's cells, at most 80 columns in all: ``1.7♯``,
    ``P Ri1``, ``C Ri3``, ``C higher``, ``2→4``, ``Mi5 Ch1⇄Mi1 Ma4``."""
    arrow = "→" if style.symbols else "->"
    point = f"{outcome.round}.{outcome.trick}"
    if outcome.special:
        point += style.symbol("special")
    winner = outcome.winner
    return [
        point,
        f"{outcome.leader.title[0]} {style.card(outcome.lead)}",
        f"{outcome.follower.title[0]} {style.card(outcome.follow)}",
        f"{style.paint(winner.title[0], ROLE_COLOURS[winner], bold=True)} "
        f"{_COMPACT_REASON_WORDS[outcome.reason.value]}",
        f"{outcome.notes_before}{arrow}{outcome.notes_after}",
        ", ".join(
            f"{_codes(swap.phantom_gave, style)}{style.symbol('swap')}"
            f"{_codes(swap.christine_gave, style)}"
            for swap in outcome.swaps
        ),
    ]


def _codes(cards: Sequence[int], style: Style) -> str:
    """Cards by their codes alone (in their suit's colour), without the suit symbols
    that would not leave room for two swaps on one line."""
    return (
        " ".join(style.paint(CARD_CODES[card], SUIT_COLOURS[card_suit(card)]) for card in cards)
        or "-"
    )


def _wide_text_width(style: Style) -> int:
    return 88 if style.width is None else max(min(88, style.width - 8), 20)


def _compact_text_width(style: Style) -> int:
    return 88 if style.width is None else max(min(88, style.width - _COMPACT_INDENT), 20)


def _swap_cell(swaps: tuple[CardsSwapped, ...], style: Style) -> str:
    parts = []
    for swap in swaps:
        parts.append(
            f"P gave {style.cards(swap.phantom_gave)}, C gave {style.cards(swap.christine_gave)}"
        )
    return "; ".join(parts) or "-"


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width) or [""]


#: A record's analysed decisions by trick (round, trick), as JSON objects (``player``,
#: ``kind``, ``played``, ``cost``, ``label``), for annotate to add to its tricks.
Marks = Mapping[tuple[int, int], list[Any]]


class FastRows(Protocol):
    """A writer of the rows of ``annotate --format csv`` of whole records (the tricks of
    the whole game, no explanation, no analysis), faster than a row at a time."""

    def add(self, report: RecordReport) -> None: ...

    def flush(self) -> None: ...


@dataclass
class AnnotationOutput:
    """``annotate``'s output of many records, added one at a time: ``form`` is ``table``
    (for people, in ``style``; the record's problems follow its table), ``json`` or ``csv``
    (a row per trick of the span ``tricks``; the problems on standard error). Each trick
    has its explanation with ``explain`` (in the table's compact layout only if
    ``explain_asked``), and its analysed decisions given ``marks`` (``worded``: how a
    trick's are put in a cell). ``fast`` writes the CSV instead, when it is given.
    :meth:`close` ends the output; ``valid`` and ``failed`` then say how the run ends."""

    stream: IO[str]
    form: str
    style: Style
    explain: bool
    tricks: TrickSpan = WHOLE_GAME
    explain_asked: bool = True
    marks: Callable[[RecordReport], Marks] | None = None
    worded: Callable[[Sequence[Mapping[str, Any]]], str] = str
    fast: FastRows | None = None
    valid: bool = True
    failed: bool = False
    records: int = 0
    #: The symbols of the table layouts used, in order.
    symbols: dict[str, None] = field(default_factory=dict)
    csv: CsvRows | None = None

    def __post_init__(self) -> None:
        if self.form == "csv" and self.fast is None:
            fields = [*ANNOTATION_FIELDS, *(["explanation"] if self.explain else [])]
            self.csv = CsvRows(self.stream, fields + (["analysis"] if self.marks else []))
            self.csv.write_header()

    def write(self, reports: Iterable[RecordReport]) -> None:
        """Annotate the records, and end the output."""
        for report in reports:
            self.add(report)
        self.close()

    def add(self, report: RecordReport) -> None:
        """Annotate one record."""
        self.valid &= report.valid
        self.failed |= report.failed
        self.records += 1
        if self.fast is not None:
            self.fast.add(report)
        else:
            annotations = [
                annotation
                for annotation in (
                    () if report.log is None else annotate(report.log, report.game_id, self.explain)
                )
                if self.tricks.covers(annotation.round, annotation.trick)
            ]
            marks = None if self.marks is None else self.marks(report)
            if self.form == "table":
                self._table(report, annotations, marks)
                return
            self._rows(annotations, marks)
        for line in report_lines(report):
            sys.stderr.write(line + "\n")

    def _rows(self, annotations: list[Annotation], marks: Marks | None) -> None:
        for annotation in annotations:
            trick = (annotation.round, annotation.trick)
            if self.csv is not None:
                row = annotation.to_csv_row(self.explain)
                if marks is not None:
                    row["analysis"] = self.worded(marks.get(trick, []))
                self.csv.write(row)
                continue
            data = annotation.to_json(self.explain)
            if marks is not None:
                data["analysis"] = marks.get(trick, [])
            self.stream.write(orjson.dumps(data).decode() + "\n")

    def _table(
        self, report: RecordReport, annotations: list[Annotation], marks: Marks | None
    ) -> None:
        style, stream = self.style, self.stream
        if self.records > 1:
            stream.write("\n")
        for line in style.fit(record_title(report)):
            stream.write(style.paint(line, bold=True) + "\n")
        if report.log is not None:
            mistakes = None
            if marks is not None:
                mistakes = {trick: printable(self.worded(found)) for trick, found in marks.items()}
            layout = choose_layout(annotations, report.log, style, mistakes)
            self.symbols.update(dict.fromkeys(table_symbols(layout)))
            explained = self.explain and (self.explain_asked or layout is Layout.WIDE)
            for line in table_lines(
                annotations, report.log, style, explained, mistakes, self.tricks, layout
            ):
                stream.write(line + "\n")
        for line in report_lines(report):
            stream.write(line + "\n")
        if report.valid:
            stream.write(style.fitted(verdict_line(report)))

    def close(self) -> None:
        """End the output: the rows held written, the table's legend."""
        if self.fast is not None:
            self.fast.flush()
        if self.form == "table" and self.records:
            analysed = ANALYSIS_SYMBOLS if self.marks is not None else ()
            legend = self.style.legend([*(self.symbols or TABLE_SYMBOLS), *analysed])
            self.stream.write("\n" + self.style.fitted(legend))
