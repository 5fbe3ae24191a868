"""The game text of a record: what :mod:`.game_text` reads back as the same record.

The text lists the deals, writes no player (each card is the turn's player's), and
carries no ``x-`` key: :func:`record_text` says which it left out. A header value or a
sheet's name that a line could not hold as it is (a ``#``, spaces at its ends, a line
break, a leading quote) is written as a JSON string; a comment in braces escapes ``\\``
and ``}``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from ..rules.cards import ROLE_KEYS
from ..rules.sheets import Sheet
from .game_text import SIDE_OF_ROLE

_PLAIN: Final = re.compile(
    r"[^\s\"#\x00-\x1f\x7f-\x9f](?:[^#\x00-\x1f\x7f-\x9f]*[^\s#\x00-\x1f\x7f-\x9f])?"
)
_TEXT_KEYS: Final = ("game_id", "event", "site", "date", "stage")


def record_text(record: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The game text of ``record`` (a parsed record of the schema's shape), ending with a
    line break, and the JSON pointers of the ``x-`` keys it does not carry."""
    left_out = list(_extension_keys(record, ""))
    lines: list[str] = []
    if record.get("format") != "phantom-log/1" and "format" in record:
        lines.append(f"format: {_value(record['format'])}")
    for key in _TEXT_KEYS:
        if key in record:
            lines.append(f"{key}: {_value(record[key])}")
    players = record.get("players", {})
    for role in ROLE_KEYS:
        if role in players:
            lines.append(f"{role}: {_value(players[role])}")
    if "sheet" in record:
        lines.append(f"sheet: {_sheet(record['sheet'])}")
    if "rules" in record:
        chosen = [rule for rule in ("beginner", "balance") if record["rules"].get(rule)]
        lines.append(f"rules: {' '.join(chosen) or 'none'}")
    if "result" in record:
        result = record["result"]
        winner = result.get("winner") or "unfinished"
        lines.append(f"result: {winner} {result.get('notes')}")
    for number, round_ in enumerate(record.get("rounds", ()), 1):
        lines.append("")
        lines.extend(_round(number, round_))
    return "\n".join(lines) + "\n", left_out


def _extension_keys(value: Any, at: str) -> Iterator[str]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            here = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if isinstance(key, str) and key.startswith("x-"):
                yield here
            else:
                yield from _extension_keys(inner, here)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _extension_keys(inner, f"{at}/{index}")


def header_value(value: Any) -> str:
    """A header value as a line holds it: as it is, or as a JSON string."""
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    return json.dumps(value, ensure_ascii=False)


_value = header_value


def _sheet(sheet: Any) -> str:
    if isinstance(sheet, str):
        return _value(sheet)
    name = sheet.get("name", "")
    bars = " ".join(f"{bar['suit']}:{bar['notes']}" for bar in sheet.get("bars", ()))
    plain = isinstance(name, str) and _PLAIN.fullmatch(name) and " " * 2 not in name
    return f"{name if plain else json.dumps(name, ensure_ascii=False)} {bars}"


def _round(number: int, round_: Mapping[str, Any]) -> Iterator[str]:
    yield f"round {number}"
    deal = round_.get("deal", {})
    for role in ROLE_KEYS:
        if role in deal:
            yield f"deal {SIDE_OF_ROLE[role]} {' '.join(deal[role])}"
    if "aside" in deal:
        yield f"aside {' '.join(deal['aside'])}"
    if "exchange" in round_:
        exchange = round_["exchange"]
        yield "exchange " + " ".join(f"{SIDE_OF_ROLE[role]} {exchange[role]}" for role in ROLE_KEYS)
    if "special_number" in round_:
        yield f"special {round_['special_number']}"
    for number_in_round, trick in enumerate(round_.get("tricks", ()), 1):
        words = [f"{number_in_round}.", *play_words(trick.get("plays", ()))]
        if "comment" in trick:
            escaped = trick["comment"].replace("\\", "\\\\").replace("}", "\\}")
            words.append("{" + escaped + "}")
        if trick.get("winner") in SIDE_OF_ROLE:
            words.append(f"={SIDE_OF_ROLE[trick['winner']]}")
        yield " ".join(words)
    left = round_.get("left", {})  # a game being written: the cards each still held
    for role in ROLE_KEYS:
        if role in left:
            yield f"left {SIDE_OF_ROLE[role]} {' '.join(left[role])}".rstrip()


def play_words(plays: Iterable[Mapping[str, Any]]) -> list[str]:
    """The words of a trick's line for its cards: each card, and the swap after it in
    parentheses (the sides that gave cards: ``(P Mi1 Ma2 C Ri1 Ri2)``)."""
    words: list[str] = []
    for play in plays:
        words.append(play["card"])
        if "swap" in play:
            swap = play["swap"]
            sides = [
                f"{SIDE_OF_ROLE[role]} {' '.join(swap[role])}"
                for role in ROLE_KEYS
                if swap.get(role)
            ]
            words.append(f"({' '.join(sides)})")
    return words


def canonical_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` as its game text keeps it: no ``x-`` key, the optional rules both named
    when they are given, and the format named."""

    def kept(value: Any) -> Any:
        if isinstance(value, Mapping):
            return {
                key: kept(inner)
                for key, inner in value.items()
                if not (isinstance(key, str) and key.startswith("x-"))
            }
        if isinstance(value, list):
            return [kept(inner) for inner in value]
        return value

    found: dict[str, Any] = kept(record)
    found.setdefault("format", "phantom-log/1")
    if isinstance(found.get("rules"), Mapping):
        found["rules"] = {rule: bool(found["rules"].get(rule)) for rule in ("beginner", "balance")}
    return found


def text_losses(record: Mapping[str, Any], sheets: Mapping[str, Sheet] | None = None) -> list[str]:
    """The JSON pointers of what the game text of ``record`` does not keep as the record
    has it, ``x-`` keys aside: the text read back, compared with the record. A record of
    the schema's shape whose players are each the turn's keeps everything; one whose
    cards were given to a player whose turn it was not (``wrong-player``) does not, for
    the text never names who plays."""
    from .game_text import read_games
    from .text_records import text_record

    text, _ = record_text(record)
    games = read_games(text)
    if len(games) != 1:
        return [""]
    back = text_record(games[0], sheets)
    if back.problems:
        return [""]
    return _differences(canonical_record(record), canonical_record(back.data), "")


def _differences(before: Any, after: Any, at: str) -> list[str]:
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found: list[str] = []
        for key in [*before, *(key for key in after if key not in before)]:
            here = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key not in before or key not in after:
                found.append(here)
            else:
                found.extend(_differences(before[key], after[key], here))
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            found
            for index, (one, other) in enumerate(zip(before, after, strict=True))
            for found in _differences(one, other, f"{at}/{index}")
        ]
    return [] if before == after and type(before) is type(after) else [at]
