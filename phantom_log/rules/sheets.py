"""Sheets of music: four bars, each a suit and a run of note owners, 12 notes in all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from .cards import NOTE_OWNER_LETTERS, SUIT_BY_CODE, Role, Suit
from .problems import Code, Illegal, pointer

NOTES_PER_SHEET: Final = 12
BARS_PER_SHEET: Final = 4


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of a sheet: its suit and the owners of its notes, left to right."""

    suit: Suit
    owners: tuple[Role, ...]

    @property
    def notation(self) -> str:
        """The owners as a record writes them, e.g. ``"PCP"``."""
        return "".join("P" if owner is Role.PHANTOM else "C" for owner in self.owners)


@dataclass(frozen=True, slots=True)
class Sheet:
    """A valid sheet. Build one with :func:`sheet_from_json` to have it checked."""

    name: str
    bars: tuple[Bar, ...]
    #: The owner of each note, notes 1-12 at indexes 0-11 (derived from the bars).
    note_owners: tuple[Role, ...] = field(init=False, compare=False, repr=False)
    #: The suit of the bar of each note, notes 1-12 at indexes 0-11 (derived).
    note_suits: tuple[Suit, ...] = field(init=False, compare=False, repr=False)
    #: The owners as the engine reads them: bit ``n - 1`` set when note ``n`` is
    #: Christine's (derived).
    owner_bits: int = field(init=False, compare=False, repr=False)
    #: The suits as the engine reads them: two bits a note, note 1 lowest (derived).
    suit_bits: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Read at every trick of every replay: worked out once here.
        owners = tuple(owner for bar in self.bars for owner in bar.owners)
        suits = tuple(bar.suit for bar in self.bars for _ in bar.owners)
        object.__setattr__(self, "note_owners", owners)
        object.__setattr__(self, "note_suits", suits)
        object.__setattr__(
            self, "owner_bits", sum(int(owner) << index for index, owner in enumerate(owners))
        )
        object.__setattr__(
            self, "suit_bits", sum(int(suit) << (2 * index) for index, suit in enumerate(suits))
        )

    def owner_of(self, note: int) -> Role:
        """The owner of a note (1-12)."""
        return self.note_owners[note - 1]

    def to_json(self) -> dict[str, Any]:
        """The sheet as a record's sheet object."""
        return {
            "name": self.name,
            "bars": [{"suit": bar.suit.code, "notes": bar.notation} for bar in self.bars],
        }


def _bar(suit: Suit, owners: str) -> Bar:
    return Bar(suit, tuple(NOTE_OWNER_LETTERS[letter] for letter in owners))


RULEBOOK_SHEET: Final = Sheet(
    "rulebook",
    (
        _bar(Suit.MIRROR, "CPC"),
        _bar(Suit.CHANDELIER, "PCP"),
        _bar(Suit.RING, "PPC"),
        _bar(Suit.MASK, "PCP"),
    ),
)

BUILTIN_SHEETS: Final[Mapping[str, Sheet]] = {RULEBOOK_SHEET.name: RULEBOOK_SHEET}


def sheet_from_json(data: Mapping[str, Any], at: str = "/sheet") -> Sheet | list[Illegal]:
    """Check a sheet object of the schema's shape against the sheet rules.

    Returns the sheet, or the ``bad-sheet`` problems found (as data), with pointers below
    ``at``: four bars, the four suits once each, every bar at least one note, 12 notes in
    all.
    """
    layout = tuple((bar["suit"], bar["notes"]) for bar in data["bars"])
    checked = _checked_sheet(data["name"], layout, at)
    return checked if isinstance(checked, Sheet) else list(checked)


@lru_cache(maxsize=1024)
def _checked_sheet(
    name: str, layout: tuple[tuple[str, str], ...], at: str
) -> Sheet | tuple[Illegal, ...]:
    # A corpus carries the same few sheets in many records: each is checked and built
    # once (the values are immutable, so sharing them is safe).
    bars = [{"suit": suit, "notes": notes} for suit, notes in layout]
    problems = _sheet_problems(name, bars, at)
    if problems:
        return tuple(problems)
    return Sheet(name, tuple(_bar(SUIT_BY_CODE[suit], notes) for suit, notes in layout))


def _sheet_problems(name: str, bars: Sequence[Mapping[str, Any]], at: str) -> list[Illegal]:
    problems: list[Illegal] = []
    if len(bars) != BARS_PER_SHEET:
        problems.append(
            Illegal(Code.BAD_SHEET, {"name": name, "bars": len(bars)}, pointer_join(at, "bars"))
        )
    seen: dict[str, int] = {}
    for index, bar in enumerate(bars):
        code = bar["suit"]
        if code in seen:
            problems.append(
                Illegal(
                    Code.BAD_SHEET,
                    {"name": name, "bar": index + 1, "suit": code, "first": seen[code] + 1},
                    pointer_join(at, "bars", index, "suit"),
                )
            )
        else:
            seen[code] = index
        if not bar["notes"]:
            problems.append(
                Illegal(
                    Code.BAD_SHEET,
                    {"name": name, "bar": index + 1, "empty": True},
                    pointer_join(at, "bars", index, "notes"),
                )
            )
    total = sum(len(bar["notes"]) for bar in bars)
    if total != NOTES_PER_SHEET:
        problems.append(
            Illegal(Code.BAD_SHEET, {"name": name, "notes": total}, pointer_join(at, "bars"))
        )
    return problems


def pointer_join(base: str, *parts: str | int) -> str:
    """A JSON pointer below ``base``."""
    return base + pointer(*parts)
