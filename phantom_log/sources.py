"""Reading records from every input form: files, directories, JSON Lines and stdin.

Each text is parsed by :func:`phantom_log.strictjson.parse_json` (strict JSON as FORMAT.md
reads it). Nothing here raises for a bad input: a source that cannot be parsed yields a
:class:`SourceRecord` carrying its problem, and the other records go on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from .problems import Code, Problem
from .strictjson import JsonError, parse_json, split_array

__all__ = ["JsonError", "parse_json"]  # re-exported: where records are read

RECORD_SUFFIXES: Final = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
STDIN: Final = "-"
_BOM: Final = b"\xef\xbb\xbf"


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
    or a run of records' texts (the lines of JSON Lines, or the elements of an array), each
    ``(index, line, column, bytes)`` with the line and column where it starts. Chunks are
    what worker processes receive."""

    source: str
    document: bytes | None = None
    lines: tuple[tuple[int, int, int, bytes], ...] | None = None
    problem: Problem | None = None

    @property
    def size(self) -> int:
        """The bytes of text the chunk holds."""
        if self.lines is not None:
            return sum(len(line) for _, _, _, line in self.lines)
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
            yield from _document_chunks(source, data, lines_per_chunk)
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
    yield from _document_chunks(source, data, lines_per_chunk)


def _document_chunks(source: str, data: bytes, size: int) -> Iterator[Chunk]:
    """A document as chunks: an array of objects is cut into its elements (each then parsed
    and checked on its own, as a line of JSON Lines is), anything else is one chunk."""
    text = data[len(_BOM) :] if data.startswith(_BOM) else data
    spans = split_array(text)
    if not spans:
        yield Chunk(source, document=data)
        return
    batch: list[tuple[int, int, int, bytes]] = []
    line, line_start, counted = 1, 0, 0
    for index, (start, end) in enumerate(spans):
        line += text.count(b"\n", counted, start)
        line_start = text.rfind(b"\n", 0, start) + 1
        counted = start
        column = len(text[line_start:start].decode("utf-8", "replace")) + 1
        batch.append((index, line, column, text[start:end]))
        if len(batch) >= size:
            yield Chunk(source, lines=tuple(batch))
            batch = []
    if batch:
        yield Chunk(source, lines=tuple(batch))


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
    batch: list[tuple[int, int, int, bytes]] = []
    index = 0
    for number, line in enumerate(lines, start=1):
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if not line or line.isspace():
            continue
        batch.append((index, number, 1, line))
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
        for index, number, column, line in chunk.lines:
            try:
                value = parse_json(line)
            except JsonError as error:
                problem = error.problem(number - 1, column - 1)
                yield SourceRecord(source, index, problem=problem, line=number)
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
