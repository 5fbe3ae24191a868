"""The compact game the engine replays, and its construction from a record's JSON.

The engine never sees strings or pydantic objects: cards are ints 0-23, roles are
:class:`~phantom_log.cards.Role`, the sheet is resolved. :func:`game_from_json` builds a
:class:`Game` from a record that has passed the schema check (a plain ``dict`` as parsed,
or a model's ``to_json()``), resolving the sheet; it is the one bridge from the format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import CARD_BY_CODE, ROLE_BY_KEY, Role
from .problems import Code, Problem
from .sheets import BUILTIN_SHEETS, Sheet, sheet_from_json


@dataclass(frozen=True, slots=True)
class Rules:
    """The optional rules a game is played under."""

    beginner: bool = False
    balance: bool = False


@dataclass(frozen=True, slots=True)
class Swap:
    """The cards each player gave in a swap; ``None`` where the record has no such key."""

    phantom: tuple[int, ...] | None
    christine: tuple[int, ...] | None

    def given_by(self, role: Role) -> tuple[int, ...] | None:
        """The cards one player gave."""
        return self.phantom if role is Role.PHANTOM else self.christine

    @property
    def is_empty(self) -> bool:
        """True for ``{}`` and for a swap whose lists are all empty."""
        return not self.phantom and not self.christine


@dataclass(frozen=True, slots=True)
class Play:
    """One card played, and the swap the record gives after it (``None``: no swap key)."""

    player: Role
    card: int
    swap: Swap | None = None


@dataclass(frozen=True, slots=True)
class Trick:
    """The plays of one trick in order (one or two), and the recorder's claimed winner."""

    plays: tuple[Play, ...]
    claimed_winner: Role | None = None


@dataclass(frozen=True, slots=True)
class Exchange:
    """The card each player gave at the start of a round."""

    phantom: int
    christine: int


@dataclass(frozen=True, slots=True)
class Round:
    """One round as recorded: the deal, the exchange, the special number, the tricks."""

    phantom_deal: tuple[int, ...]
    christine_deal: tuple[int, ...]
    aside: tuple[int, ...] | None
    exchange: Exchange | None
    special_number: int
    tricks: tuple[Trick, ...]


@dataclass(frozen=True, slots=True)
class ClaimedResult:
    """The recorder's claimed result: the winner (``None``: unfinished) and the notes."""

    winner: Role | None
    notes: int


@dataclass(frozen=True, slots=True)
class Game:
    """Everything the engine needs to replay a game, and nothing else."""

    sheet: Sheet
    rules: Rules
    rounds: tuple[Round, ...]
    claimed_result: ClaimedResult | None = None


def resolve_sheet(
    value: str | Mapping[str, Any], sheets: Mapping[str, Sheet] | None = None
) -> Sheet | list[Problem]:
    """The sheet a record's ``sheet`` value names or carries, or its problems."""
    if isinstance(value, str):
        known = BUILTIN_SHEETS if sheets is None else sheets
        sheet = known.get(value)
        if sheet is None:
            names = ", ".join(sorted(known))
            return [
                Problem.of(
                    Code.UNKNOWN_SHEET,
                    f"sheet {value!r} is not a known sheet (known: {names})",
                    "/sheet",
                    hint="Name a built-in sheet, give the sheet's bars in the record, "
                    "or add a file of named sheets with --sheets FILE.",
                )
            ]
        return sheet
    return sheet_from_json(value)


def _cards(codes: list[str]) -> tuple[int, ...]:
    return tuple(CARD_BY_CODE[code] for code in codes)


def _swap(data: Mapping[str, Any] | None) -> Swap | None:
    if data is None:
        return None
    phantom = data.get("phantom")
    christine = data.get("christine")
    return Swap(
        None if phantom is None else _cards(phantom),
        None if christine is None else _cards(christine),
    )


def _trick(data: Mapping[str, Any]) -> Trick:
    winner = data.get("winner")
    return Trick(
        tuple(
            Play(ROLE_BY_KEY[play["player"]], CARD_BY_CODE[play["card"]], _swap(play.get("swap")))
            for play in data["plays"]
        ),
        None if winner is None else ROLE_BY_KEY[winner],
    )


def _round(data: Mapping[str, Any]) -> Round:
    deal = data["deal"]
    aside = deal.get("aside")
    exchange = data.get("exchange")
    return Round(
        _cards(deal["phantom"]),
        _cards(deal["christine"]),
        None if aside is None else _cards(aside),
        None
        if exchange is None
        else Exchange(CARD_BY_CODE[exchange["phantom"]], CARD_BY_CODE[exchange["christine"]]),
        int(data["special_number"]),
        tuple(_trick(trick) for trick in data["tricks"]),
    )


def game_from_json(
    record: Mapping[str, Any], sheets: Mapping[str, Sheet] | None = None
) -> Game | list[Problem]:
    """The compact game of a record that passed the schema check, or the sheet's problems.

    ``sheets`` are the named sheets known (default: the built-in ones).
    """
    sheet = resolve_sheet(record["sheet"], sheets)
    if isinstance(sheet, list):
        return sheet
    rules = record.get("rules", {})
    result = record.get("result")
    return Game(
        sheet,
        Rules(bool(rules.get("beginner", False)), bool(rules.get("balance", False))),
        tuple(_round(data) for data in record["rounds"]),
        None
        if result is None
        else ClaimedResult(
            None if result["winner"] is None else ROLE_BY_KEY[result["winner"]],
            int(result["notes"]),
        ),
    )
