"""Strict JSON, as docs/format.md reads it: the one place where texts become values.

RFC 8259 and then some: bytes that are not UTF-8, duplicate keys, ``NaN``/``Infinity``,
integers outside the signed 64-bit range, numbers too large for a 64-bit float, lone
surrogates, raw control characters and nesting deeper than 1,024 levels are all
:class:`JsonError` with a line and column where known. A leading UTF-8 byte-order mark is
accepted.

orjson parses; what it lets through (duplicate keys, large integers) is found by one pass
over the bytes: it counts the keys of the text (every quote followed by a colon), to
compare with the keys of the parsed value, and flags any run of 19 digits. Any doubt
sends the text to the standard library's parser with every check hooked in. Compiled
with Cython where a compiler is available (``strictjson.pxd``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, Final

import orjson

from ..rules.problems import Code, Problem
from .number_kinds import INT64_MAX, INT64_MIN

_BOM: Final = b"\xef\xbb\xbf"
# Floats this large may have been written as integers outside the 64-bit range (orjson
# reads those as floats): such texts take the exact check.
_DOUBTFUL_FLOAT = 9.0e18
# A key is a string followed by a colon (spaces allowed between); in a string value a
# quote is escaped, so this pattern counts every key of a text at least once.
_KEY_PATTERN: Final = re.compile(rb'"\s*:')
# 19 digits in a row may be an integer outside the signed 64-bit range (orjson reads some
# of those as floats, silently): such texts take the exact check.
_DOUBTFUL_DIGITS = 19
_LONG_DIGITS: Final = re.compile(rb"[0-9]{%d}" % _DOUBTFUL_DIGITS)
#: The deepest nesting of arrays and objects read (orjson's limit): a deeper text is a
#: ``json`` problem, whichever parser reads it and however deep the caller's stack is.
MAX_DEPTH: Final = 1024
#: True in the compiled build (the loop of _text_keys is then C); the pure-Python build
#: counts with the regular expression instead.
COMPILED: Final = not __file__.endswith(".py")


class JsonError(Exception):
    """A text that is not JSON as docs/format.md accepts it.

    ``cut`` is set for a text that ends before its last value does (a file cut short):
    what was open at its end (``string``, ``object``, ``array``, or a ``value`` such as a
    number or ``true`` cut within), with ``line`` and ``column`` where it begins; ``empty``
    for a text with no value at all."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        cut: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.cut = cut

    def problem(self, line_offset: int = 0, column_offset: int = 0, text: str = "file") -> Problem:
        """The ``json`` problem, its line (and, on the text's first line, its column)
        counted in the whole source; ``text`` names what was parsed, for a text cut short:
        the ``file``, or a ``line`` of JSON Lines (one that ends with a line break, so the
        file goes on)."""
        line = None if self.line is None else self.line + line_offset
        column = self.column
        if self.line == 1 and column is not None:
            column += column_offset
        if self.cut == _EMPTY:
            return Problem(Code.JSON, f"the {text} is empty: it holds no JSON value")
        if self.cut is not None:
            article = "an" if self.cut[0] in "aeiou" else "a"
            return Problem(
                Code.JSON,
                f"the {text} ends early, inside {article} {self.cut} that begins at line "
                f"{line}, column {column}",
                hint=_CUT_HINTS[text],
                line=line,
                column=column,
            )
        where = ""
        if line is not None:
            where = f"line {line}: " if column is None else f"line {line}, column {column}: "
        return Problem(Code.JSON, where + self.message, hint=_JSON_HINT, line=line, column=column)


_JSON_HINT: Final = (
    "The record must be strict JSON in UTF-8: no comments, no trailing commas, "
    "no NaN or Infinity, each key once per object."
)
_CUT_HINTS: Final = {
    "file": "Was the file cut short (a copy, a download or a save that did not finish)? "
    "Write it again in full.",
    "line": "A line of JSON Lines holds one whole record: was this one cut short, or its "
    "record written over several lines?",
}
_EMPTY: Final = "empty"
# What is left of a number, a literal or an escape cut short, where the standard library's
# parser stops (after "1": ".", "e" or "e+"; "-"; a beginning of true, false, null; "u12" of
# a \u escape, or all four of its digits when nothing follows).
_CUT_TOKEN: Final = re.compile(
    r"(?:t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?|-|\.|[eE][+-]?|u[0-9a-fA-F]{0,4})\Z"
)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """Line and column (both from 1, column in characters) of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def _reject_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _checked_int(text: str) -> int:
    # A signed 64-bit integer has at most 19 digits: longer texts are refused unread
    # (int() itself refuses texts of more than 4,300 digits).
    if len(text.lstrip("-")) > 19:
        raise JsonError(f"the number {text[:30]}... is outside the 64-bit integer range")
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise JsonError(f"the number {text[:30]} is outside the 64-bit integer range")
    return value


def _checked_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JsonError(f"the number {text[:30]} is too large for a 64-bit float")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise JsonError(f"duplicate key {key!r} in one object")
        result[key] = value
    return result


def _slow_parse(data: bytes) -> Any:
    """The standard library's parser, with every check of docs/format.md hooked in."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.end == len(data) and error.reason == "unexpected end of data":
            # A character cut short, at the text's end: the text is cut short.
            opened = _open_at_end(data[: error.start])
            if opened is not None:
                raise _cut_short(data, *opened) from None
        line, column = _position(data, error.start)
        raise JsonError(
            f"the bytes are not UTF-8 (byte 0x{data[error.start]:02x})", line, column
        ) from None
    if _nesting(data) > MAX_DEPTH:
        raise JsonError(f"the JSON is nested more than {MAX_DEPTH} levels deep")
    # The standard library's parser recurses once a level, within the interpreter's
    # recursion limit: room for MAX_DEPTH levels is made above the caller's frames, so
    # that the verdict does not depend on how deep the caller is.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + MAX_DEPTH + 100)
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_reject_constant,
            parse_int=_checked_int,
            parse_float=_checked_float,
        )
    except json.JSONDecodeError as error:
        if _ends_early(error):
            opened = _open_at_end(data)
            if opened is None:  # a number or a literal cut short, alone in the text
                opened = ("value", len(text[: error.pos].encode("utf-8")))
            raise _cut_short(data, *opened) from None
        if not text.strip(" \t\r\n"):
            raise JsonError("no JSON value", cut=_EMPTY) from None
        raise JsonError(error.msg, error.lineno, error.colno) from None
    finally:
        sys.setrecursionlimit(limit)


def _ends_early(error: json.JSONDecodeError) -> bool:
    """Whether the standard library's parser stopped because the text ended: in a string,
    after a value or a separator, or in a number, a literal or an escape."""
    rest = error.doc[error.pos :]
    if error.msg.startswith("Unterminated string"):
        return True
    if not error.doc.strip(" \t\r\n"):
        return False  # nothing at all: empty, not cut
    return not rest.strip(" \t\r\n") or _CUT_TOKEN.match(rest) is not None


def _open_at_end(data: bytes) -> tuple[str, int] | None:
    """The innermost string, object or array still open at the end of a text, and the
    byte offset where it begins; ``None`` when nothing is open."""
    opened: list[tuple[str, int]] = []
    for match in _TOKENS.finditer(data):
        token = data[match.start()]
        if token == 34:  # '"'
            if match.group(1) is None:  # no closing quote: the text ends in it
                return ("string", match.start())
        elif token == 123 or token == 91:  # '{' or '['
            opened.append(("object" if token == 123 else "array", match.start()))
        elif opened:
            opened.pop()
    return opened[-1] if opened else None


def _cut_short(data: bytes, kind: str, offset: int) -> JsonError:
    line, column = _position(data, offset)
    return JsonError(f"the text ends early, inside a {kind}", line, column, cut=kind)


def _nesting(data: bytes) -> int:
    """How deep the arrays and objects of a text nest (brackets in strings not counted;
    the text need not be valid JSON)."""
    deepest = 0
    depth = 0
    if not COMPILED:
        for match in _TOKENS.finditer(data):
            byte = data[match.start()]
            if byte == 91 or byte == 123:  # '[' or '{'
                depth += 1
                deepest = max(deepest, depth)
            elif byte != 34:  # a closing bracket; a string ('"') counts nothing
                depth -= 1
        return deepest
    text = data  # a C pointer to the bytes in the compiled build
    length = len(data)
    index = 0
    while index < length:
        byte = text[index]
        index += 1
        if byte == 34:  # '"': skip the string, escapes included
            while index < length and text[index] != 34:
                if text[index] == 92:  # a backslash escapes the next byte
                    index += 1
                index += 1
            index += 1
        elif byte == 91 or byte == 123:  # '[' or '{'
            depth += 1
            if depth > deepest:
                deepest = depth
        elif byte == 93 or byte == 125:  # ']' or '}'
            depth -= 1
    return deepest


def scan(value: Any) -> int:
    """How many keys the objects of a parsed value hold, all levels together; -1 when a
    number in it needs the exact check (an integer outside the 64-bit range, or a float
    that may have been written as one)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            mapping = item
            count += len(mapping)
            for child in mapping.values():
                if _doubtful(child, stack):
                    return -1
        elif type(item) is list:
            sequence = item
            for child in sequence:
                if _doubtful(child, stack):
                    return -1
    return count


def _doubtful(child: Any, stack: list[Any]) -> bool:
    """Puts a container on the stack; True for a number that needs the exact check."""
    kind = type(child)
    if kind is dict or kind is list:
        stack.append(child)
    elif kind is int:
        return bool(child < INT64_MIN or child > INT64_MAX)
    elif kind is float:
        return not -_DOUBTFUL_FLOAT < child < _DOUBTFUL_FLOAT
    return False


def _text_keys(data: bytes) -> int:
    """The keys of a text, counted from its bytes: every quote followed by a colon, spaces
    allowed between (at least the true count; more when a string holds an escaped quote
    followed by a colon); -1 when the text holds 19 digits in a row."""
    if not COMPILED:
        if _LONG_DIGITS.search(data):
            return -1
        return len(_KEY_PATTERN.findall(data))
    text = data  # a C pointer to the bytes in the compiled build
    count = 0
    digits = 0
    length = len(data)
    index = 0
    while index < length:
        byte = text[index]
        index += 1
        if byte > 57:  # letters, colons, brackets: the most common bytes, nothing to count
            digits = 0
        elif byte >= 48:  # a digit
            digits += 1
            if digits >= _DOUBTFUL_DIGITS:
                return -1
        else:
            digits = 0
            if byte == 34:  # '"'
                after = index
                while after < length and text[after] in (32, 9, 10, 13):  # JSON whitespace
                    after += 1
                if after < length and text[after] == 58:  # ':'
                    count += 1
    return count


def parse_json(data: bytes) -> Any:
    """Parse one JSON text; raises :class:`JsonError` for anything docs/format.md rejects."""
    return parse_gated(data, None)[0]


def parse_gated(data: bytes, gate: Callable[[Any], int] | None) -> tuple[Any, bool]:
    """:func:`parse_json` of a record's text, with the record schema's gate
    (:func:`~phantom_log.records.schema.record_gate`) walking an object in the place of
    the key count: ``gate`` gives the keys of a value it passes and -1 for one it refuses.
    An object it passes, with as many keys as the text's bytes count, is given with
    ``True`` (it passed the schema); any other value with ``False``."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    value = _orjson_value(data)
    kind = type(value)
    if kind is dict or kind is list:
        keys = _text_keys(data)
        if kind is dict and gate is not None and keys >= 0 and gate(value) == keys:
            return value, True
        return _checked(data, value, keys), False
    if (kind is int or kind is float) and scan([value]) < 0:
        return _slow_parse(data), False
    return value, False


def _orjson_value(data: bytes) -> Any:
    """orjson's value of a text; a text it refuses is a :class:`JsonError`."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        # orjson is right to refuse; the standard library words most errors better.
        _slow_parse(data)
        line, column = _position(data, error.pos)
        message = str(error.args[0]) if error.args else "invalid JSON"
        message = message.split(": line ")[0]
        raise JsonError(message, line, column) from None


def _checked(data: bytes, value: Any, keys: int) -> Any:
    """The value of a text holding an object or an array, ``keys`` being the keys its
    bytes count (:func:`_text_keys`): the value itself when nothing is in doubt, the
    exact parser's otherwise.

    The text's count is at least the true number of keys in the text, which is at least
    the parsed value's (a repeated key is kept once): equal counts leave no room for a
    duplicate. Either count is -1 for a number that may be past 64 bits."""
    if keys < 0 or keys != scan(value):
        return _slow_parse(data)
    return value


# A string, whole (its closing quote captured: none for a string cut short; a backslash
# escapes any byte, a line break too), or a bracket: one match each, found in one pass
# (the text between is skipped by the search).
_TOKENS: Final = re.compile(rb'"(?:[^"\\]++|\\.)*+(")?|[\[\]{}]', re.DOTALL)
_JSON_SPACES: Final = b" \t\r\n"


def split_array(data: bytes) -> list[tuple[int, int]] | None:
    """The byte spans ``(start, end)`` of the elements of a top-level JSON array, so that
    each can be parsed (and checked) on its own; ``None`` when the text is not an array of
    objects whose brackets, braces and strings are balanced (such a text is parsed whole).

    Only the structure is read here: each element is still parsed strictly afterwards.
    """
    length = len(data)
    start = 0
    while start < length and data[start] in b" \t\r\n":
        start += 1
    if start >= length or data[start] != 91:  # '['
        return None
    if not COMPILED:
        parsed = _split_with_decoder(data, start) if len(data) <= _DECODED_AT_MOST else None
        return _split_with_pattern(data, start) if parsed is None else parsed
    text = data  # a C byte buffer in the compiled build
    spans: list[tuple[int, int]] = []
    depth = 0
    # element: the start of the element being read; -1 while one is expected (after "["
    # or ","), -2 once one is read (a "," or the closing "]" must follow).
    element = -1
    index = start + 1
    while index < length:
        byte = text[index]
        if byte == 34:  # '"': skip the string, escapes included
            if depth == 0:
                return None
            index += 1
            while index < length and text[index] != 34:
                if text[index] == 92:  # a backslash escapes the next byte
                    index += 1
                index += 1
            if index >= length:
                return None
        elif byte == 123 or byte == 91:  # '{' or '['
            if depth == 0:
                if element != -1 or byte != 123:
                    return None
                element = index
            depth += 1
        elif byte == 125 or byte == 93:  # '}' or ']'
            if depth == 0:
                if byte == 93 and (element == -2 or (element == -1 and not spans)):
                    return None if data[index + 1 :].strip(_JSON_SPACES) else spans
                return None
            depth -= 1
            if depth == 0:
                spans.append((element, index + 1))
                element = -2
        elif depth == 0:
            if byte == 44 and element == -2:  # ',' between elements
                element = -1
            elif byte not in (32, 9, 10, 13):
                return None
        index += 1
    return None


def _split_with_decoder(data: bytes, start: int) -> list[tuple[int, int]] | None:
    """:func:`split_array` for the pure-Python build, of an array whose elements are all
    objects the standard library's parser reads (almost every array): the spans of the
    elements, found by that parser's C scanner an element at a time, much faster than a
    loop of Python a token at a time. ``None`` for any other text (an element that is not
    an object, or that the parser refuses; a text that is not UTF-8, or nests too deep),
    which :func:`_split_with_pattern` then reads."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    plain = text.isascii()  # then a character's offset is its byte's
    # The characters before "[" are spaces: ``start`` is its offset in characters too.
    spans: list[tuple[int, int]] = []
    index = _after_spaces(text, start + 1)
    counted_chars = counted_bytes = 0  # a character offset and its byte offset
    while not spans or text.startswith(",", index):
        if spans:
            index = _after_spaces(text, index + 1)
        elif text.startswith("]", index):
            break  # no element
        if not text.startswith("{", index):
            return None
        try:
            end = _DECODER.raw_decode(text, index)[1]
        except (ValueError, RecursionError):
            return None
        if plain:
            spans.append((index, end))
        else:
            first = counted_bytes + len(text[counted_chars:index].encode("utf-8"))
            counted_chars, counted_bytes = end, first + len(text[index:end].encode("utf-8"))
            spans.append((first, counted_bytes))
        index = _after_spaces(text, end)
    if not text.startswith("]", index) or text[index + 1 :].strip(_TEXT_SPACES):
        return None
    return spans


def _after_spaces(text: str, index: int) -> int:
    """The offset of the first character from ``index`` on that is not a space of JSON."""
    match = _TEXT_SPACE_RUN.match(text, index)
    return index if match is None else match.end()


_DECODER: Final = json.JSONDecoder()
# The largest array the pure-Python build reads with the parser, which decodes its text
# whole; a larger one takes the token loop, which holds nothing but the spans.
_DECODED_AT_MOST: Final = 64 * 1024 * 1024
_TEXT_SPACES: Final = " \t\r\n"
_TEXT_SPACE_RUN: Final = re.compile(r"[ \t\r\n]*")


def _split_with_pattern(data: bytes, start: int) -> list[tuple[int, int]] | None:
    """:func:`split_array` for the pure-Python build: the same spans, found token by token
    (strings and brackets) with a pattern, in one pass over the text."""
    spans: list[tuple[int, int]] = []
    depth = 0
    element = -1  # as in split_array
    last = start + 1  # where the text not yet looked at begins
    for match in _TOKENS.finditer(data, start + 1):
        at = match.start()
        if depth == 0:
            gap = data[last:at].strip(_JSON_SPACES)
            if gap and not (gap == b"," and element == -2):
                return None
            if gap:
                element = -1
        token = data[at]
        if token == 34:  # '"': a string, skipped whole inside an element
            if depth == 0 or match.group(1) is None:
                return None
            continue
        last = at + 1
        if token == 123 or token == 91:  # '{' or '['
            if depth == 0:
                if element != -1 or token != 123:
                    return None
                element = at
            depth += 1
        elif depth == 0:  # '}' or ']' with nothing open
            if token == 93 and (element == -2 or (element == -1 and not spans)):
                return spans if not data[last:].strip(_JSON_SPACES) else None
            return None
        else:
            depth -= 1
            if depth == 0:
                spans.append((element, at + 1))
                element = -2
    return None
