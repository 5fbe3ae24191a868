"""Hypothesis strategies for the fuzz suite: legal records, structural mutations of them,
hostile values, byte-level damage, and the files, folders and standard input that carry
them to the commands (as :class:`~tests.helpers.fuzz_harness.Case`).

A record is a tree of JSON values (dicts, lists, strings, numbers) in which some leaves
are tokens written as they are, so that the emitter can write what ``json.dumps`` would
not: integers of any length (:class:`Raw`), keys given twice (:class:`Pairs`), nesting of
any depth (:class:`Nested`), arrays of a million items (:class:`Repeated`), strings with
raw control characters (:class:`RawString`). Nothing here recurses with the depth of the
text, so any depth can be written.
"""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from phantom_log.analysis.simulator import POLICIES, Simulation, simulate_game
from phantom_log.records.size_limit import DEFAULT_MAX_RECORD_SIZE
from phantom_log.rules.cards import Suit
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET, Sheet, sheet_from_json
from tests.helpers.fuzz_harness import Case, json_lines_count
from tests.helpers.paths import EXAMPLES, JSON_TEST_SUITE

Draw = Callable[[st.SearchStrategy[Any]], Any]


# -- tokens the emitter writes as they are -------------------------------------------------


@dataclass(frozen=True)
class Raw:
    """A literal written as it is: an integer of thousands of digits, ``NaN``, ``1e400``."""

    text: bytes


@dataclass(frozen=True)
class RawString:
    """A string written without escaping its control characters (quotes and backslashes
    are still escaped, so that the string ends where it should): not JSON."""

    text: str


@dataclass(frozen=True)
class Pairs:
    """An object written from its pairs, so that a key may be given twice."""

    items: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Nested:
    """``inner`` inside ``depth`` arrays (``[[[...]]]``) or objects (``{"x-n": ...}``)."""

    depth: int
    kind: str
    inner: Any


@dataclass(frozen=True)
class Repeated:
    """An array of ``count`` copies of ``item``."""

    item: Any
    count: int


@dataclass(frozen=True)
class Style:
    """How the emitter writes: escaped to ASCII or as UTF-8, compact or spaced."""

    ascii: bool = False
    spaced: bool = True


TOKENS = (Raw, RawString, Pairs, Nested, Repeated)


def emit(value: Any, style: Style = Style()) -> bytes:
    """The JSON text of a tree (with its tokens); strings with lone surrogates are written
    as escapes (``ascii``) or as the bytes of the surrogate (not UTF-8)."""
    comma, colon = (b", ", b": ") if style.spaced else (b",", b":")
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, RawString):
        text = value.text.replace("\\", "\\\\").replace('"', '\\"')
        return b'"' + text.encode("utf-8", "surrogatepass") + b'"'
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=style.ascii).encode("utf-8", "surrogatepass")
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return json.dumps(value).encode()
    if isinstance(value, int):
        return str(value).encode()  # the generators keep ints under Python's digit limit
    if isinstance(value, Nested):
        inner = emit(value.inner, style)
        if value.kind == "array":
            return b"[" * value.depth + inner + b"]" * value.depth
        return (b'{"x-n"' + colon) * value.depth + inner + b"}" * value.depth
    if isinstance(value, Repeated):
        item = emit(value.item, style)
        return b"[" + comma.join([item] * value.count) + b"]"
    if isinstance(value, Pairs):
        items = value.items
    elif isinstance(value, dict):
        items = tuple(value.items())
    elif isinstance(value, list):
        return b"[" + comma.join(emit(item, style) for item in value) + b"]"
    else:
        raise TypeError(f"cannot emit {type(value).__name__}")
    return (
        b"{"
        + comma.join(emit(key, style) + colon + emit(item, style) for key, item in items)
        + b"}"
    )


#: The most text one generated record may have: far below the size limit (64 MiB), so that
#: no record is refused as too large, and small enough to keep an example quick.
MAX_RECORD_TEXT = 8 * 1024 * 1024


def text_size(value: Any) -> int:
    """About how many bytes :func:`emit` writes for a tree (at most six per character of a
    string), found without writing it."""
    if isinstance(value, Raw):
        return len(value.text)
    if isinstance(value, RawString | str):
        text = value.text if isinstance(value, RawString) else value
        return 6 * len(text) + 2
    if isinstance(value, Nested):
        return 8 * value.depth + text_size(value.inner)
    if isinstance(value, Repeated):
        return value.count * (text_size(value.item) + 2) + 2
    if isinstance(value, Pairs | dict):
        items = value.items if isinstance(value, Pairs) else tuple(value.items())
        return 2 + sum(text_size(key) + text_size(item) + 4 for key, item in items)
    if isinstance(value, list):
        return 2 + sum(text_size(item) + 2 for item in value)
    return 24


def is_object(value: Any) -> bool:
    """True when the value is written as a JSON object."""
    return isinstance(value, dict | Pairs) or (isinstance(value, Nested) and value.kind == "object")


# -- legal records -------------------------------------------------------------------------


def _example_files() -> list[Path]:
    """The examples' record files (a tournament's manifest is no record: it is skipped by
    every command, and tested apart)."""
    return sorted(path for path in EXAMPLES.rglob("*.json") if not _is_manifest(path))


def _is_manifest(path: Path) -> bool:
    try:
        value = json.loads(path.read_bytes())
    except ValueError:
        return False
    return isinstance(value, dict) and str(value.get("format", "")).startswith(
        "phantom-log-manifest/"
    )


def _example_records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in _example_files():
        try:
            value = json.loads(path.read_bytes(), object_pairs_hook=_no_duplicates)
        except ValueError:
            continue  # examples/invalid/json*.json: kept as texts
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and "rounds" in item:
                records.append(item)
    return records


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


EXAMPLE_RECORDS = _example_records()
EXAMPLE_TEXTS = [path.read_bytes() for path in _example_files()]


def _sheet(suits: list[Suit], cuts: list[int], owners: str, name: str) -> Sheet:
    bounds = [0, *sorted(cuts), 12]
    bars = [
        {"suit": suit.code, "notes": owners[start:end]}
        for suit, start, end in zip(suits, bounds, bounds[1:], strict=False)
    ]
    sheet = sheet_from_json({"name": name, "bars": bars})
    assert isinstance(sheet, Sheet), sheet
    return sheet


CUSTOM_SHEETS = st.builds(
    _sheet,
    suits=st.permutations(list(Suit)),
    cuts=st.sets(st.integers(1, 11), min_size=3, max_size=3).map(sorted),
    owners=st.text(alphabet="PC", min_size=12, max_size=12),
    name=st.sampled_from(["custom", "masquerade", "café", "x" * 200]),
)


def _simulated(
    seed: int, number: int, phantom: str, christine: str, rules: Rules, sheet: Sheet | None
) -> dict[str, Any]:
    simulation = Simulation(
        RULEBOOK_SHEET if sheet is None else sheet,
        rules,
        phantom,
        christine,
        seed,
        sheet_is_builtin=sheet is None,
    )
    return simulate_game(simulation, number)


SIMULATED = st.builds(
    _simulated,
    seed=st.integers(0, 2**32),
    number=st.integers(1, 10_000),
    phantom=st.sampled_from(POLICIES),
    christine=st.sampled_from(POLICIES),
    rules=st.builds(Rules, beginner=st.booleans(), balance=st.booleans()),
    sheet=st.none() | CUSTOM_SHEETS,
)
#: Legal records: the examples' (some with problems of the rules) and simulated games.
# An example by its number: a strategy holding the examples themselves would write them all
# out in its repr, which a strategy made of this one shows (hypothesis warned of 125 kB).
LEGAL_RECORDS = (
    st.integers(0, len(EXAMPLE_RECORDS) - 1).map(
        lambda number: copy.deepcopy(EXAMPLE_RECORDS[number])
    )
    | SIMULATED
)


# -- hostile values ------------------------------------------------------------------------

HOSTILE_CHARS = (
    "\x00", "\x07", "\x08", "\t", "\n", "\r", "\x1b", "\x1f", "\x7f", "\x85", "\x9b",
    "\u061c", "\u200b", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202e",
    "\u2066", "\u2069", "\ufeff", "\ufffe", "\uffff", "\ud800", "\udfff", "\U0001f600",
    "e\u0301", "é", "ß", "İ", "$", "<", "&", "]]>", '"', "\\", "/", "%s", "{0}", ",", "#",
)  # fmt: skip
NASTY_STRINGS = (
    "",
    " ",
    "\x1b[2K\rgames/ok.json#0 (ok): valid: the Phantom wins with 12 notes completed\n",
    "\x1b]0;title\x07",
    "\u202etxt.exe",
    "café-1",
    unicodedata.normalize("NFD", "café-1"),
    "K\u200bim",
    "\ufeffKim",
    "$\\alpha$",
    "<svg onload=alert(1)>",
    "a&b<c>d]]>",
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("http://example.invalid/","x")',
    "+1+cmd|' /C calc'!A0",
    "@SUM(1,2)",
    "-2+3",
    "Kim\u034f",
    "Kim\ufe0f",
    "Kim\U000e0020",
    "Kim\u3164",
    "Ma5",
    "ma5",
    "Ma7",
    "Ma05",
    "phantom",
    "Phantom",
    "christine ",
    "rulebook",
    "phantom-log/1",
    "phantom-log/2",
    "2026-02-30",
    "2026-13-01",
    "9999-12-31",
    "-0001-01-01",
)
LONG_LENGTHS = (199, 200, 201, 1_999, 2_000, 2_001, 10_000, 70_000)
HUGE_LENGTHS = (300_000, 1_000_000)  # 5 MB: one of the hostile cases
HUGE_DIGITS = (19, 20, 64, 309, 4_299, 4_300, 4_301, 5_000, 20_000)
DEPTHS = (2, 64, 254, 255, 256, 500, 970, 1_000, 2_000, 10_000)
RAW_NUMBERS = (
    b"NaN", b"-NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400", b"1e-400", b"-0",
    b"-0.0", b"0.5e1", b"1E+2", b"01", b"+1", b"1.", b".5", b"0x10", b"1_000", b"true1",
    b"9223372036854775807", b"9223372036854775808", b"-9223372036854775809",
    b"18446744073709551616", b"3.0", b"2.9999999999999999999",
)  # fmt: skip
INT_EDGES = (0, 1, -1, 6, 7, 12, 13, 2**31, 2**53 + 1, 2**63 - 1, 2**63, -(2**63) - 1, 2**64)

RECORD_KEYS = (
    "format", "game_id", "event", "site", "date", "stage", "players", "sheet", "rules",
    "rounds", "result", "deal", "exchange", "special_number", "tricks", "plays", "player",
    "card", "swap", "winner", "comment", "notes", "phantom", "christine", "aside",
    "beginner", "balance", "name", "bars", "suit",
)  # fmt: skip
TYPO_KEYS = ("game-id", "Format", "round", "tricks ", "winer", "Players", "x", "X-note", "")

hostile_chars = st.sampled_from(HOSTILE_CHARS)


def hostile_runs(min_size: int = 1, max_size: int = 4) -> st.SearchStrategy[str]:
    """A few of the hostile characters (some are sequences) in a row."""
    return st.lists(hostile_chars, min_size=min_size, max_size=max_size).map("".join)


def _huge_int(digits: int, negative: bool) -> Raw:
    return Raw((b"-" if negative else b"") + b"1" + b"0" * (digits - 1))


def _long_string(length: int, fill: str) -> str:
    return (fill * (length // len(fill) + 1))[:length]


def _with_inserted(text: str, position: int, inserted: str) -> str:
    position = min(position, len(text))
    return text[:position] + inserted + text[position:]


hostile_text = st.one_of(
    st.sampled_from(NASTY_STRINGS),
    st.lists(hostile_chars | st.characters(), max_size=12).map("".join),
    st.builds(
        _long_string,
        st.sampled_from(LONG_LENGTHS),
        st.sampled_from(["x", "é", "\u202e", "\x1b", "\U0001f600", "Ma5 "]),
    ),
)
hostile_numbers = st.one_of(
    st.sampled_from(INT_EDGES),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.builds(Raw, st.sampled_from(RAW_NUMBERS)),
    st.builds(_huge_int, st.sampled_from(HUGE_DIGITS), st.booleans()),
)
hostile_keys = st.one_of(
    st.sampled_from(RECORD_KEYS),
    st.sampled_from(TYPO_KEYS),
    st.builds(lambda text: "x-" + text, hostile_text),
    hostile_text,
)
hostile_leaves = st.one_of(
    st.none(),
    st.booleans(),
    hostile_numbers,
    hostile_text,
    st.builds(RawString, hostile_runs()),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Arrays and objects of ``children``, nested deep, or repeated. (A named function:
    hypothesis reads a lambda's source to see that it uses its argument, and could not
    always read this one's, over several lines.)"""
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(hostile_keys, children, max_size=4),
        st.builds(Nested, st.sampled_from(DEPTHS), st.sampled_from(["array", "object"]), children),
        st.builds(Repeated, children, st.sampled_from([11, 64, 65, 1_000])),
    )


#: Any JSON value (with tokens), small but of every type and every kind of nastiness.
hostile_values = st.recursive(hostile_leaves, _containers, max_leaves=8)


# -- structural mutations ------------------------------------------------------------------

Path_ = tuple[str | int, ...]


def node_paths(tree: Any) -> list[Path_]:
    """The path of every node of a tree (tokens are leaves), the root first."""
    paths: list[Path_] = [()]
    stack: list[tuple[Path_, Any]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        children: list[tuple[str | int, Any]] = []
        if isinstance(node, dict):
            children = list(node.items())
        elif isinstance(node, list):
            children = list(enumerate(node))
        for key, child in reversed(children):
            paths.append((*path, key))
            stack.append(((*path, key), child))
    return paths


def value_at(tree: Any, path: Path_) -> Any:
    for part in path:
        tree = tree[part]
    return tree


def set_at(tree: Any, path: Path_, value: Any) -> Any:
    """The tree with the node at ``path`` replaced (in place below the root)."""
    if not path:
        return value
    value_at(tree, path[:-1])[path[-1]] = value
    return tree


def _delete(tree: Any, path: Path_) -> Any:
    if not path:
        return tree
    parent = value_at(tree, path[:-1])
    if isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent.pop(path[-1])
    return tree


def mutate_dict(draw: Draw, node: dict[str, Any]) -> Any:
    keys = list(node)
    op = draw(st.sampled_from(["duplicate", "swap", "rename", "unknown", "x-key", "pairs"]))
    if op == "duplicate" and keys:
        key = draw(st.sampled_from(keys))
        items = list(node.items())
        position = draw(st.integers(0, len(items)))
        # The value repeated, none or a hostile one: chosen by number, since a strategy
        # holding the value itself (a whole round, say) would be written out in its repr.
        kind = draw(st.integers(0, 2))
        value = node[key] if kind == 0 else None if kind == 1 else draw(hostile_values)
        items.insert(position, (key, value))
        return Pairs(tuple(items))
    if op == "swap" and len(keys) >= 2:
        first, second = draw(st.lists(st.sampled_from(keys), min_size=2, max_size=2, unique=True))
        node[first], node[second] = node[second], node[first]
        return node
    if op == "rename" and keys:
        key = draw(st.sampled_from(keys))
        new = draw(st.sampled_from(keys) | hostile_keys)
        return Pairs(tuple((new if k == key else k, v) for k, v in node.items()))
    if op == "unknown":
        node[draw(hostile_keys)] = draw(hostile_values)
        return node
    if op == "x-key":
        node["x-" + draw(hostile_text)] = draw(hostile_values)
        return node
    return Pairs(tuple(node.items()))


def mutate_list(draw: Draw, node: list[Any]) -> Any:
    op = draw(st.sampled_from(["truncate", "duplicate", "swap", "drop", "append", "repeat"]))
    if op == "truncate":
        return node[: draw(st.integers(0, max(len(node) - 1, 0)))]
    if node and op == "duplicate":
        index = draw(st.integers(0, len(node) - 1))
        node.insert(draw(st.integers(0, len(node))), copy.deepcopy(node[index]))
        return node
    if len(node) >= 2 and op == "swap":
        first = draw(st.integers(0, len(node) - 1))
        second = draw(st.integers(0, len(node) - 1))
        node[first], node[second] = node[second], node[first]
        return node
    if node and op == "drop":
        node.pop(draw(st.integers(0, len(node) - 1)))
        return node
    if op == "repeat" and node:
        return Repeated(node[0], draw(st.sampled_from([11, 64, 65, 1_000, 20_000])))
    node.append(draw(hostile_values))
    return node


def mutate_string(draw: Draw, node: str) -> Any:
    op = draw(st.sampled_from(["insert", "nfd", "long", "raw", "case"]))
    if op == "insert":
        inserted = draw(hostile_runs())
        return _with_inserted(node, draw(st.integers(0, len(node))), inserted)
    if op == "nfd":
        return unicodedata.normalize("NFD", node + "é")
    if op == "long":
        return _long_string(draw(st.sampled_from(LONG_LENGTHS)), node or "x")
    if op == "raw":
        return RawString(node + draw(hostile_runs(1, 3)))
    return node.swapcase()


def mutate_node(draw: Draw, node: Any) -> Any:
    """A mutation of one node, chosen for its type; or any other value in its place; or
    the node deep inside arrays or objects."""
    how = draw(st.sampled_from(["typed", "typed", "replace", "nest"]))
    if how == "replace":
        return draw(hostile_values)
    if how == "nest":
        return Nested(
            draw(st.sampled_from(DEPTHS)), draw(st.sampled_from(["array", "object"])), node
        )
    if isinstance(node, dict):
        return mutate_dict(draw, node)
    if isinstance(node, list):
        return mutate_list(draw, node)
    if isinstance(node, str):
        return mutate_string(draw, node)
    if isinstance(node, bool) or node is None:
        return draw(hostile_values)
    if isinstance(node, int):
        return draw(hostile_numbers)
    return draw(hostile_values)


def _tricks(record: Any) -> list[Path_]:
    """The paths of the tricks of a record (that still look like tricks)."""
    found: list[Path_] = []
    rounds = record.get("rounds") if isinstance(record, dict) else None
    for round_index, round_ in enumerate(rounds if isinstance(rounds, list) else []):
        tricks = round_.get("tricks") if isinstance(round_, dict) else None
        for trick_index, trick in enumerate(tricks if isinstance(tricks, list) else []):
            if isinstance(trick, dict) and isinstance(trick.get("plays"), list):
                found.append(("rounds", round_index, "tricks", trick_index))
    return found


def mutate_game(draw: Draw, record: Any) -> Any:
    """A mutation that knows the game: a play moved to another trick, a trick or a round
    given twice, a card moved between the hands of the deal."""
    tricks = _tricks(record)
    op = draw(st.sampled_from(["move-play", "extra-trick", "extra-round", "move-card"]))
    if op == "move-play" and len(tricks) >= 2:
        source, target = (draw(st.sampled_from(tricks)) for _ in range(2))
        plays = value_at(record, source)["plays"]
        if plays:
            play = plays.pop(draw(st.integers(0, len(plays) - 1)))
            target_plays = value_at(record, target)["plays"]
            target_plays.insert(draw(st.integers(0, len(target_plays))), play)
        return record
    if op == "extra-trick" and tricks:
        path = draw(st.sampled_from(tricks))
        value_at(record, path[:-1]).insert(path[-1], copy.deepcopy(value_at(record, path)))
        return record
    rounds = record.get("rounds") if isinstance(record, dict) else None
    if op == "extra-round" and isinstance(rounds, list) and rounds:
        rounds.append(copy.deepcopy(rounds[draw(st.integers(0, len(rounds) - 1))]))
        return record
    if isinstance(rounds, list) and rounds and isinstance(rounds[0], dict):
        deal = rounds[0].get("deal")
        if isinstance(deal, dict):
            hands = [hand for hand in deal.values() if isinstance(hand, list) and hand]
            if len(hands) >= 2:
                giver, taker = hands[0], hands[1]
                taker.append(giver.pop(draw(st.integers(0, len(giver) - 1))))
    return record


@st.composite
def mutated_records(draw: Draw, base: st.SearchStrategy[Any] = LEGAL_RECORDS) -> Any:
    """A legal record with up to four structural mutations, each at any node."""
    record = draw(base)
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 4)) == 0:
            record = mutate_game(draw, record)
            continue
        paths = node_paths(record)
        path = paths[draw(st.integers(0, len(paths) - 1))]
        if draw(st.integers(0, 5)) == 0:
            record = _delete(record, path)
            continue
        record = set_at(record, path, mutate_node(draw, value_at(record, path)))
    return record


@st.composite
def heavy_records(draw: Draw) -> Any:
    """A legal record with one large hostile value at any node: a string of megabytes, an
    integer of thousands of digits, nesting thousands deep, an array of many items."""
    record = draw(LEGAL_RECORDS)
    paths = node_paths(record)
    path = paths[draw(st.integers(0, len(paths) - 1))]
    node = value_at(record, path)
    kind = draw(st.sampled_from(["string", "int", "nest", "array", "x-key"]))
    if kind == "string":
        value: Any = _long_string(
            draw(st.sampled_from(HUGE_LENGTHS)), draw(st.sampled_from(["x", "é\u202e", "\x1b"]))
        )
    elif kind == "int":
        value = _huge_int(draw(st.sampled_from((4_301, 20_000, 100_000))), draw(st.booleans()))
    elif kind == "nest":
        value = Nested(
            draw(st.sampled_from((970, 1_000, 10_000, 100_000))),
            draw(st.sampled_from(["array", "object"])),
            node,
        )
    elif kind == "array":
        value = Repeated(
            node if not isinstance(node, dict | list) else "Ma5",
            draw(st.sampled_from((100_000, 300_000))),
        )
    else:
        key = "x-" + draw(st.sampled_from(["big", "é" * 300, "\x1b[2K"]))
        inner = draw(st.sampled_from([copy.deepcopy(node), "Ma5"]))  # node may be the record
        value = Nested(draw(st.sampled_from((255, 256, 1_000, 10_000))), "array", inner)
        if isinstance(record, dict):
            record[key] = value
            return record
    return set_at(record, path, value)


# -- byte-level damage ---------------------------------------------------------------------

INTERESTING_BYTES = (
    b"\xff", b"\xfe", b"\xc0\x80", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
    b"\xef\xbb\xbf", b"\x00", b"\r", b"\n", b"\r\n", b"{", b"}", b"[", b"]", b'"', b",",
    b":", b"\\", b"\\u", b"\\ud800", b"\\u0000", b"1e400", b"-", b"\x1b[2K", b"\xe2\x80\xae",
)  # fmt: skip
BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf\xef\xbb\xbf")


@st.composite
def damaged(draw: Draw, data: bytes) -> bytes:
    """The bytes with one to three kinds of damage: a bit flipped, bytes inserted, deleted
    or repeated, the end cut off, a byte order mark, CRLF line ends, re-encoded text."""
    for _ in range(draw(st.integers(1, 3))):
        op = draw(
            st.sampled_from(
                ["flip", "insert", "delete", "truncate", "repeat", "bom", "crlf", "encode"]
            )
        )
        position = draw(st.integers(0, len(data)))
        if op == "flip" and data:
            position = min(position, len(data) - 1)
            bit = 1 << draw(st.integers(0, 7))
            data = data[:position] + bytes([data[position] ^ bit]) + data[position + 1 :]
        elif op == "insert":
            inserted = draw(st.sampled_from(INTERESTING_BYTES) | st.binary(min_size=1, max_size=6))
            data = data[:position] + inserted + data[position:]
        elif op == "delete":
            data = data[:position] + data[position + draw(st.integers(1, 16)) :]
        elif op == "truncate":
            data = data[:position]
        elif op == "repeat":
            data = data[:position] + data[position : position + 64] + data[position:]
        elif op == "bom":
            data = draw(st.sampled_from(BOMS)) + data
        elif op == "crlf":
            data = data.replace(b"\n", b"\r\n")
        else:
            encoding = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1"]))
            encoded = data.decode("utf-8", "replace").encode(encoding, "replace")
            # Re-encoded (up to four times the bytes), a file of large records could pass
            # the size limit, and be rightly refused as unreadable: that is another case.
            if len(encoded) <= DEFAULT_MAX_RECORD_SIZE:
                data = encoded
    return data


# -- carrying records to the commands ------------------------------------------------------

NAME_STEMS = (
    "games", "a b", "récord", "r\u0301ecord", "\x1b[2Kvalid", "\u202eevil", "new\nline",
    "tab\t", "-dash", "😀", "caf\udcff", "\udc80raw", "CON", "a" * 100, "#0 (x): valid",
)  # fmt: skip
SUFFIXES = {"json": (".json", ".JSON"), "jsonl": (".jsonl", ".ndjson", ".JSONL")}


def file_names(kind: str) -> st.SearchStrategy[str]:
    """File names of a kind (``json`` or ``jsonl``): any character but ``/`` and NUL
    (and no leading dot), some of bytes that are not UTF-8."""
    stems = st.sampled_from(NAME_STEMS) | st.text(
        st.characters(exclude_characters="/\x00.", exclude_categories=("Cs",)),
        min_size=1,
        max_size=20,
    )
    return st.builds(lambda stem, suffix: stem + suffix, stems, st.sampled_from(SUFFIXES[kind]))


@dataclass
class Emitted:
    """A record's text, and whether it is written as a JSON object."""

    text: bytes
    is_object: bool


@st.composite
def emitted(draw: Draw, records: st.SearchStrategy[Any]) -> Emitted:
    value = draw(records)
    assume(text_size(value) <= MAX_RECORD_TEXT)
    style = Style(ascii=draw(st.booleans()), spaced=draw(st.booleans()))
    return Emitted(emit(value, style), is_object(value))


def json_lines(draw: Draw, items: list[Emitted]) -> bytes:
    """Records as JSON Lines: LF or CRLF, blank lines between, the last break or not."""
    end = draw(st.sampled_from([b"\n", b"\r\n"]))
    lines: list[bytes] = []
    for item in items:
        if draw(st.integers(0, 4)) == 0:
            lines.append(draw(st.sampled_from([b"", b"  ", b"\t"])))
        lines.append(item.text)
    return end.join(lines) + (end if draw(st.booleans()) else b"")


def json_array(draw: Draw, items: list[Emitted]) -> bytes:
    separator = draw(st.sampled_from([b",", b",\n", b" ,\r\n  "]))
    return b"[" + separator.join(item.text for item in items) + b"]\n"


@st.composite
def cases(
    draw: Draw,
    records: st.SearchStrategy[Any],
    max_records: int = 3,
    damage: bool = False,
) -> Case:
    """Records carried in one of the input forms: a ``.json`` file of one record or an
    array, JSON Lines (``.jsonl``/``.ndjson``), standard input, or a folder of such files;
    with ``damage``, the bytes of one source are damaged."""
    items = draw(st.lists(emitted(records), min_size=1, max_size=max_records))
    form = draw(st.sampled_from(["single", "array", "jsonl", "stdin", "folder"]))
    if form == "single":
        items = items[:1]
    case = Case()
    if form == "stdin":
        case.stdin = items[0].text if len(items) == 1 else json_lines(draw, items)
        case.paths = ["-"]
        if damage:
            case.stdin = draw(damaged(case.stdin))
        return case
    sources = [(form, items)]
    if form == "folder":
        sources = [(draw(st.sampled_from(["single", "array", "jsonl"])), [item]) for item in items]
    damaged_file = draw(st.integers(0, len(sources) - 1)) if damage else -1
    for number, (kind, batch) in enumerate(sources):
        name = draw(file_names("jsonl" if kind == "jsonl" else "json"))
        if form == "folder":
            name = f"{number:02d}-{name}"
        if kind == "jsonl":
            data = json_lines(draw, batch)
        elif kind == "array":
            data = json_array(draw, batch)
        else:
            data = batch[0].text
        if number == damaged_file:
            data = draw(damaged(data))
        case.files[name] = data
        if kind == "jsonl":
            case.records[name] = json_lines_count(data)
        elif number != damaged_file and all(item.is_object for item in batch):
            case.records[name] = len(batch)
    case.paths = ["."] if form == "folder" else list(case.files)
    return case


def json_test_suite_files() -> list[Path]:
    """The texts of the JSON test suite."""
    return sorted(path for path in JSON_TEST_SUITE.iterdir() if path.suffix == ".json")
