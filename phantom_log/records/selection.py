"""Which records a run reads: ``--game-id``, ``--player`` and ``--event``.

Each selector is an exact value or a glob pattern (as :mod:`fnmatch` reads them), compared
by the keys of :mod:`phantom_log.records.identity` (a game id by its ``game_key``, a name
and an event by their ``person_key``). The values of one selector are alternatives;
different selectors must all match. A record whose selected value cannot be read is not
selected. The selection in force is set once around a command (:func:`record_selection`)
and applied where every record is parsed
(:func:`phantom_log.records.source_records.chunk_records`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from .identity import game_key, person_key


@dataclass(frozen=True, slots=True)
class Selection:
    """The selectors of a run; an empty tuple selects every record on that field."""

    game_ids: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    events: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.game_ids or self.players or self.events)

    def matches(self, data: Any) -> bool:
        """True when a parsed record is selected."""
        if not self:
            return True
        if not isinstance(data, dict):
            return False
        if self.game_ids and not _any_match(data.get("game_id"), self.game_ids, game_key):
            return False
        if self.events and not _any_match(data.get("event"), self.events, person_key):
            return False
        players = data.get("players")
        names = players.values() if isinstance(players, dict) else ()
        return not self.players or any(_any_match(name, self.players, person_key) for name in names)

    def describe(self) -> str:
        """The selectors as given on the command line, for messages."""
        return " ".join(
            f"{option} {pattern}"
            for option, patterns in (
                ("--game-id", self.game_ids),
                ("--player", self.players),
                ("--event", self.events),
            )
            for pattern in patterns
        )


def _any_match(value: Any, patterns: tuple[str, ...], key: Callable[[str], str]) -> bool:
    """True when ``value`` is a string whose key equals, or matches as a glob, the key of
    one of the patterns (an id holding ``[`` still matches itself exactly)."""
    if not isinstance(value, str):
        return False
    value_key = key(value)
    return any(
        value_key == (pattern_key := key(pattern)) or fnmatchcase(value_key, pattern_key)
        for pattern in patterns
    )


_selection: ContextVar[Selection | None] = ContextVar("selection", default=None)


@contextmanager
def record_selection(selection: Selection | None) -> Iterator[None]:
    """Read only the records ``selection`` matches inside the block (the selection
    options of every command that reads records set it once, around the command)."""
    token = _selection.set(selection or None)
    try:
        yield
    finally:
        _selection.reset(token)


def current_selection() -> Selection | None:
    """The selection in force (see :func:`record_selection`), ``None`` for every record."""
    return _selection.get()
