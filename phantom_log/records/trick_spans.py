"""Which tricks of a game a report covers: ``--from ROUND.TRICK``, ``--to ROUND.TRICK``
and ``--at ROUND.TRICK`` (or ``--at ROUND``, a whole round), as ``annotate`` and
``analyse`` take them. A round alone stands for its first trick as a start and its last
as an end; a point no game can reach (``3.1``, ``1.11``) is refused as the user types it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from ..rules.engine import ROUNDS_PER_GAME, TRICKS_PER_ROUND

_POINT: Final = re.compile(r"\s*(\d{1,3})(?:\.(\d{1,3}))?\s*")


@dataclass(frozen=True, slots=True, order=True)
class TrickPoint:
    """A trick of a game: its round and its number in the round, both from 1."""

    round: int
    trick: int

    def __str__(self) -> str:
        return f"{self.round}.{self.trick}"


def parse_trick_point(text: str, *, end: bool = False) -> TrickPoint:
    """The point ``text`` names (``ROUND.TRICK``, or ``ROUND``: its first trick, or its
    last when the point ``end``s a span); :class:`ValueError`, worded for the user, when
    it names none."""
    found = _POINT.fullmatch(text)
    if found is None:
        raise ValueError("not ROUND.TRICK (a round and a trick, as 2.5) nor a ROUND (as 2)")
    round_number = int(found[1])
    if not 1 <= round_number <= ROUNDS_PER_GAME:
        raise ValueError(f"a game has rounds 1 to {ROUNDS_PER_GAME}")
    if found[2] is None:
        return TrickPoint(round_number, TRICKS_PER_ROUND if end else 1)
    trick = int(found[2])
    if not 1 <= trick <= TRICKS_PER_ROUND:
        raise ValueError(f"a round has tricks 1 to {TRICKS_PER_ROUND}")
    return TrickPoint(round_number, trick)


@dataclass(frozen=True, slots=True)
class TrickSpan:
    """The tricks from ``start`` to ``end``, both included; ``None`` is the game's first
    or last trick."""

    start: TrickPoint | None = None
    end: TrickPoint | None = None

    @property
    def whole_game(self) -> bool:
        return self.start is None and self.end is None

    def covers(self, round_number: int, trick: int) -> bool:
        """Whether the span holds trick ``trick`` of round ``round_number`` (from 1)."""
        point = TrickPoint(round_number, trick)
        return (self.start is None or self.start <= point) and (
            self.end is None or point <= self.end
        )

    def __str__(self) -> str:
        if self.whole_game:
            return "the whole game"
        if self.start == self.end:
            return f"trick {self.start}"
        if (
            self.start is not None
            and self.end is not None
            and self.start.round == self.end.round
            and (self.start.trick, self.end.trick) == (1, TRICKS_PER_ROUND)
        ):
            return f"round {self.start.round}"
        first = "the first trick" if self.start is None else f"trick {self.start}"
        last = "the last trick" if self.end is None else f"trick {self.end}"
        return f"{first} to {last}"


WHOLE_GAME: Final = TrickSpan()


def trick_span(start: str | None, end: str | None, at: str | None) -> TrickSpan:
    """The span ``--from start --to end``, or ``--at at``; :class:`ValueError`, worded for
    the user and naming the option, when they name none (a point no game reaches,
    ``--at`` with ``--from`` or ``--to``, an end before the start)."""
    if at is not None:
        if start is not None or end is not None:
            raise ValueError("--at names the tricks alone: give --at, or --from and --to")
        return TrickSpan(_point("--at", at), _point("--at", at, end=True))
    span = TrickSpan(
        None if start is None else _point("--from", start),
        None if end is None else _point("--to", end, end=True),
    )
    if span.start is not None and span.end is not None and span.end < span.start:
        raise ValueError(f"--to {end} comes before --from {start}")
    return span


def _point(option: str, text: str, *, end: bool = False) -> TrickPoint:
    try:
        return parse_trick_point(text, end=end)
    except ValueError as error:
        raise ValueError(f"{option} {text!r}: {error}") from None
