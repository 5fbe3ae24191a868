"""How messages quote what a record holds: a bounded excerpt of a value of any size, and
how large the value was."""

from __future__ import annotations

import json
from typing import Any, Final

#: How many characters of a value from a record a message quotes.
EXCERPT: Final = 60


def counted(number: int, word: str) -> str:
    """``1 item``, ``1,000,000 items``."""
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def _size(value: Any) -> str:
    if isinstance(value, str):
        return counted(len(value), "character")
    if isinstance(value, list):
        return counted(len(value), "item")
    if isinstance(value, dict):
        return counted(len(value), "key")
    return counted(len(str(value)), "character")


def _json_prefix(value: Any, budget: int) -> tuple[str, bool]:
    """The JSON text of a value and ``True``; or, when that text would be longer than
    ``budget`` characters, a prefix of it longer than ``budget`` and ``False``. No more of
    the value is read than that needs: its size and its depth do not matter."""
    if isinstance(value, str):
        if len(value) <= budget:
            return json.dumps(value, ensure_ascii=False), True
        return json.dumps(value[: budget + 1], ensure_ascii=False), False
    if isinstance(value, list | dict):
        text = "[" if isinstance(value, list) else "{"
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for position, (key, item) in enumerate(pairs):
            if len(text) > budget:
                return text, False
            if position:
                text += ", "
            if isinstance(value, dict):
                text += json.dumps(str(key)[:budget], ensure_ascii=False) + ": "
            part, whole = _json_prefix(item, budget - len(text))
            text += part
            if not whole:
                return text, False
        text += "]" if isinstance(value, list) else "}"
        return text, len(text) <= budget
    plain = value is None or isinstance(value, bool | int | float)
    text = json.dumps(value) if plain else str(value)
    return text[: budget + 1], len(text) <= budget


def _visible(text: str) -> str:
    # A lone surrogate (possible in a value given through the Python API) as an escape,
    # so that a message is always UTF-8 text.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """A value from a record as a message quotes it, in JSON: whole when short; otherwise
    its first ``limit`` characters, an ellipsis and its size, as in ``"xxx…" (5,000,000
    characters)`` or ``["Ma5", "Ma5", …] (1,000,000 items)``. Only a bounded prefix of
    the value is read, however large it is."""
    if isinstance(value, str) and len(value) > limit:
        cut = json.dumps(value[:limit], ensure_ascii=False)[:-1]
        return _visible(f'{cut}…" ({_size(value)})')
    text, whole = _json_prefix(value, limit)
    if whole:
        return _visible(text)
    return _visible(f"{text[:limit]}… ({_size(value)})")


def shortened(text: str, limit: int = EXCERPT) -> str:
    """A text from a record as prose quotes it: whole when at most ``limit`` characters,
    otherwise its first ``limit``, an ellipsis and its length."""
    if len(text) <= limit:
        return _visible(text)
    return _visible(f"{text[:limit]}… ({_size(text)})")


def quoted(text: str, limit: int = EXCERPT) -> str:
    """A name from a record in quotes (Python's, with anything unprintable escaped), cut
    as :func:`shortened` cuts it."""
    if len(text) <= limit:
        return _visible(repr(text))
    return _visible(f"{repr(text[:limit])[:-1]}…{repr(text[:1])[-1]} ({_size(text)})")
