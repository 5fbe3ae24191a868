"""Reading records from every input form: files, directories, JSON Lines and stdin.

Parsing is strict JSON (RFC 8259) and then some, as FORMAT.md asks: bytes that are not
UTF-8, duplicate keys, ``NaN``/``Infinity``, integers outside the signed 64-bit range,
lone surrogates, NUL and other raw control characters, and nesting deeper than 1,000 are
all ``json`` problems with a line and column where known. A leading UTF-8 byte-order mark
is accepted. Nothing here raises for a bad input: a source that cannot be parsed yields a
:class:`SourceRecord` carrying its problem, and the other records go on.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import orjson

from .problems import Code, Problem

RECORD_SUFFIXES: Final = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
STDIN: Final = "-"
_BOM: Final = b"\xef\xbb\xbf"
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
# A key is a string followed by a colon; in a string value a quote is escaped, so this
# pattern counts every key of a text at least once (and a few odd strings too).
_KEY_PATTERN: Final = re.compile(rb'"\s*:')
# Nineteen digits or more may be an integer outside the 64-bit range; orjson would read
# it as a float, so such texts take the slow path, which checks each integer.
_LONG_DIGITS: Final = re.compile(rb"[0-9]{19}")


class JsonError(Exception):
    """A text that is not JSON as FORMAT.md accepts it."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def problem(self, line_offset: int = 0) -> Problem:
        """The ``json`` problem, its line counted in the whole source."""
        line = None if self.line is None else self.line + line_offset
        where = ""
        if line is not None:
            where = f"line {line}" + ("" if self.column is None else f", column {self.column}")
            where += ": "
        return Problem(
            Code.JSON,
            f"{where}{self.message}",
            hint=_JSON_HINT,
            line=line,
            column=self.column,
        )


_JSON_HINT: Final = (
    "The record must be strict JSON in UTF-8: no comments, no trailing commas, "
    "no NaN or Infinity, each key once per object."
)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """Line and column (both from 1, column in characters) of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def _python_count_keys(value: Any) -> int:
    """How many keys the objects of a parsed value hold, all levels together."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


_count_keys = _python_count_keys


def _reject_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _checked_int(text: str) -> int:
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
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
    """The standard library's parser, with every check of FORMAT.md hooked in."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _position(data, error.start)
        raise JsonError(
            f"the bytes are not UTF-8 (byte 0x{data[error.start]:02x})", line, column
        ) from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_reject_constant,
            parse_int=_checked_int,
            parse_float=_checked_float,
        )
    except json.JSONDecodeError as error:
        raise JsonError(error.msg, error.lineno, error.colno) from None
    except RecursionError:
        raise JsonError("the JSON is nested too deeply") from None


def parse_json(data: bytes) -> Any:
    """Parse one JSON text; raises :class:`JsonError` for anything FORMAT.md rejects."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        # orjson is right to refuse; the standard library words most errors better.
        _slow_parse(data)
        line, column = _position(data, error.pos)
        message = str(error.args[0]) if error.args else "invalid JSON"
        message = message.split(": line ")[0]
        raise JsonError(message, line, column) from None
    if _LONG_DIGITS.search(data) or (
        isinstance(value, dict | list) and _count_keys(value) != len(_KEY_PATTERN.findall(data))
    ):
        return _slow_parse(data)
    return value


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """One record read from a source, or the problem that kept it from being read.

    ``index`` is the record's position in its source, from 0; ``line`` is where it starts
    in a JSON Lines source.
    """

    source: str
    index: int
    data: Any = None
    problem: Problem | None = None
    line: int | None = None


class SourceError(Exception):
    """A path that cannot be used at all (a usage error)."""


def find_sources(paths: Iterable[str]) -> list[str]:
    """The files to read, in order: each path as given, directories expanded recursively
    into their ``.json``/``.jsonl``/``.ndjson`` files in sorted path order (hidden files
    and folders left out). Raises :class:`SourceError` for a path that does not exist."""
    found: list[str] = []
    for path in paths:
        if path == STDIN:
            found.append(path)
            continue
        if os.path.isdir(path):
            found.extend(_directory_files(path))
        elif os.path.exists(path):
            found.append(path)
        else:
            raise SourceError(f"{path}: no such file or directory")
    return found


def _directory_files(directory: str) -> list[str]:
    files: list[str] = []
    for root, folders, names in os.walk(directory):
        folders[:] = [folder for folder in folders if not folder.startswith(".")]
        for name in names:
            if not name.startswith(".") and Path(name).suffix.lower() in RECORD_SUFFIXES:
                files.append(os.path.join(root, name))
    return sorted(files, key=lambda path: Path(path).parts)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Raw text of one source, not yet parsed: a whole document (``lines`` is ``None``)
    or a run of JSON Lines, each ``(index, line number, bytes)``. Chunks are what worker
    processes receive."""

    source: str
    document: bytes | None = None
    lines: tuple[tuple[int, int, bytes], ...] | None = None
    problem: Problem | None = None

    @property
    def size(self) -> int:
        """The bytes of text the chunk holds."""
        if self.lines is not None:
            return sum(len(line) for _, _, line in self.lines)
        return len(self.document or b"")


def read_chunks(
    source: str, stdin: IO[bytes] | None = None, lines_per_chunk: int = 512
) -> Iterator[Chunk]:
    """The raw chunks of one source: a file (JSON Lines by the suffix ``.jsonl`` or
    ``.ndjson``, otherwise one document) or ``-`` for ``stdin``. JSON Lines are read
    lazily, ``lines_per_chunk`` at a time, so memory stays bounded."""
    if source == STDIN:
        if stdin is None:
            raise SourceError("-: no standard input to read")
        data = stdin.read()
        if _is_json_lines(data):
            yield from _line_chunks(source, data.splitlines(keepends=True), lines_per_chunk)
        else:
            yield Chunk(source, document=data)
        return
    try:
        if RECORD_SUFFIXES.get(Path(source).suffix.lower()) == "jsonl":
            with open(source, "rb") as handle:
                yield from _line_chunks(source, handle, lines_per_chunk)
            return
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError as error:
        yield Chunk(source, problem=Problem(Code.JSON, f"cannot read: {error.strerror}"))
        return
    yield Chunk(source, document=data)


def _is_json_lines(data: bytes) -> bool:
    """Standard input is JSON Lines when its first non-blank line is a whole JSON value
    and more non-blank lines follow."""
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        parse_json(lines[0])
    except JsonError:
        return False
    return True


def _line_chunks(source: str, lines: Iterable[bytes], size: int) -> Iterator[Chunk]:
    batch: list[tuple[int, int, bytes]] = []
    index = 0
    for number, line in enumerate(lines, start=1):
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if not line or line.isspace():
            continue
        batch.append((index, number, line))
        index += 1
        if len(batch) >= size:
            yield Chunk(source, lines=tuple(batch))
            batch = []
    if batch:
        yield Chunk(source, lines=tuple(batch))


def chunk_records(chunk: Chunk) -> Iterator[SourceRecord]:
    """The records of a chunk, parsed; a text that is not JSON gives a record with its
    ``json`` problem (line and column counted in the whole source)."""
    source = chunk.source
    if chunk.problem is not None:
        yield SourceRecord(source, 0, problem=chunk.problem)
    elif chunk.lines is not None:
        for index, number, line in chunk.lines:
            try:
                value = parse_json(line)
            except JsonError as error:
                yield SourceRecord(source, index, problem=error.problem(number - 1), line=number)
            else:
                yield SourceRecord(source, index, value, line=number)
    else:
        assert chunk.document is not None
        yield from _read_document(source, chunk.document)


def read_source(source: str, stdin: IO[bytes] | None = None) -> Iterator[SourceRecord]:
    """The records of one source, parsed (see :func:`read_chunks`)."""
    for chunk in read_chunks(source, stdin):
        yield from chunk_records(chunk)


def _read_document(source: str, data: bytes) -> Iterator[SourceRecord]:
    try:
        value = parse_json(data)
    except JsonError as error:
        yield SourceRecord(source, 0, problem=error.problem())
        return
    if isinstance(value, list):
        if not value:
            yield SourceRecord(
                source,
                0,
                problem=Problem(
                    Code.SCHEMA,
                    "the file holds an empty array: no record to check",
                    hint="A .json file holds one record (an object) or an array of records.",
                ),
            )
        for index, item in enumerate(value):
            yield SourceRecord(source, index, item)
    else:
        yield SourceRecord(source, 0, value)
