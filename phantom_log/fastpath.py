"""The fast path of verify: wholly valid records decided by a C check.

:mod:`phantom_log._fastpath` (C, optional: built when a compiler is there) walks a record
as orjson parsed it and answers only "valid, finished, every claim right" or "not
decided here". For the first answer the result needs nothing more; for the second (any
problem at all, an unfinished game, anything unusual), the full check runs and words
every problem. The full check stays the authority: tests hold both to the same verdict.
The JSON checks that orjson does not make (duplicate keys, integers beyond 64 bits) are
made here too, cheaply, and send any doubtful text to the full check.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .cards import Role
from .sheets import BUILTIN_SHEETS, Sheet

_check: Callable[[dict[str, Any], dict[str, bytes]], tuple[int, int, int, int, int] | None] | None
try:
    from ._fastpath import check as _check
except ImportError:  # built without a C compiler: every record takes the full check
    _check = None
if os.environ.get("PHANTOM_LOG_FASTPATH") == "0":  # for measuring the full check alone
    _check = None

AVAILABLE: Final = _check is not None
ROLES: Final = (Role.PHANTOM, Role.CHRISTINE)


def sheet_layouts(sheets: Mapping[str, Sheet] | None) -> dict[str, bytes]:
    """The known sheets as the C check reads them: per name, the owners of notes 1-12
    (0 Phantom, 1 Christine), then their suits (0-3)."""
    if sheets is None:
        return _BUILTIN_LAYOUTS
    return _layouts(sheets)


def _layouts(sheets: Mapping[str, Sheet]) -> dict[str, bytes]:
    return {
        name: bytes(sheet.note_owners) + bytes(sheet.note_suits) for name, sheet in sheets.items()
    }


_BUILTIN_LAYOUTS: Final = _layouts(BUILTIN_SHEETS)  # read for every record: made once


@dataclass(slots=True)
class FastVerdict:
    """A record the fast path found wholly valid, and its result."""

    record: dict[str, Any]
    winner: Role
    notes: int
    ended_at: tuple[int, int]


def fast_verdict(text: bytes, layouts: dict[str, bytes]) -> FastVerdict | None:
    """The verdict on one record's JSON text, or ``None`` when the full check must
    decide (the fast path is off, the text is not one plain record, or anything in it is
    not wholly valid)."""
    if _check is None:
        return None
    try:
        record = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(record) is not dict:
        return None
    verdict = _check(record, layouts)
    if verdict is None:
        return None
    winner, notes, end_round, end_trick, keys = verdict
    # Every key is followed by a colon, so as many colons as keys means no key twice; a
    # text with colons in its strings takes the full check. (The C check has declined
    # any float and any integer beyond 64 bits, which orjson does not refuse.)
    if text.count(b":") != keys:
        return None
    return FastVerdict(record, ROLES[winner], notes, (end_round, end_trick))


def wholly_valid(record: dict[str, Any], sheets: Mapping[str, Sheet] | None) -> bool:
    """True when the C check finds a parsed record wholly valid (so its schema check can be
    skipped); False when it is off or declines."""
    return _check is not None and _check(record, sheet_layouts(sheets)) is not None
