"""The records of a source: each chunk's texts parsed as strict JSON
(:func:`phantom_log.records.strictjson.parse_json`, as docs/format.md reads it; an object
through the record schema's gate as it is parsed), each record with its text; a text that
is not JSON, or a part of a source that could not be read, is a record carrying its
problem, and the other records go on. And a record's text as one line of JSON Lines."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any, Final

import orjson

from ..rules.problems import Code, Problem
from ..rules.sheets import Sheet
from .chunks import BOM, Chunk, TextFile, read_chunks, read_span
from .game_text import iter_games
from .schema import record_gate
from .strictjson import JsonError, parse_gated, parse_json
from .text_records import TextRecord, text_record


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """One record read from a source, or the problem that kept it from being read.

    ``index`` is the record's position in its source, from 0; ``line`` is where it starts
    in a JSON Lines source or a game text. ``text`` is the record's JSON text as read (a
    line of JSON Lines, an element of an array, a whole document). A record written as
    game text has its :class:`TextRecord` in ``text_record``, and ``data`` is the record
    the text stands for. ``schema_passed``: the record passed the schema's gate as it was
    parsed. ``file`` is the regular file where ``text`` can be read again, ``offset``
    bytes in (when the source was read as spans).
    """

    source: str
    index: int
    data: Any = None
    problem: Problem | None = None
    line: int | None = None
    text: bytes | None = None
    text_record: TextRecord | None = None
    schema_passed: bool = False
    file: TextFile | None = None
    offset: int = 0


def chunk_records(
    chunk: Chunk, sheets: Mapping[str, Sheet] | None = None
) -> Iterator[SourceRecord]:
    """The records of a chunk, parsed, each with its text; a text that is not JSON gives
    a record with its ``json`` problem (line and column counted in the whole source).

    With a selection (:attr:`~phantom_log.records.chunks.Chunk.selection`) only the
    records it matches are given, and the ``unreadable`` problems: a source that could not
    be read may hold a selected record, so the run still says it could not do all its
    work. This is the one place where every command's records are selected.

    ``sheets`` are the custom sheets known by name (``--sheets``): a game text on one of
    them needs it to find whose turn each card is."""
    records = _chunk_records(chunk, sheets)
    selection = chunk.selection
    if not selection:
        return records
    return (
        record
        for record in records
        if selection.matches(record.data)
        or (record.problem is not None and record.problem.code is Code.UNREADABLE)
    )


def _chunk_records(chunk: Chunk, sheets: Mapping[str, Sheet] | None) -> Iterator[SourceRecord]:
    source = chunk.source
    if chunk.span is not None:
        chunk = read_span(chunk, chunk.span)
    if chunk.problem is not None:
        yield SourceRecord(source, chunk.index, problem=chunk.problem, line=chunk.line)
    elif chunk.game_text:
        assert chunk.document is not None
        yield from _read_game_text(source, chunk.document, sheets)
    elif chunk.lines is not None:
        gate = record_gate()
        file = chunk.file
        offsets: Iterable[int] = itertools.repeat(0) if chunk.offsets is None else chunk.offsets
        # Without offsets, zeros as many as there are lines (repeat never ends).
        for (index, number, column, line), offset in zip(chunk.lines, offsets, strict=False):
            try:
                value, passed = parse_gated(line, gate)
            except JsonError as error:
                found = error
                stripped = line.rstrip()
                if len(stripped) < len(line):
                    # A text cut short ends where its characters end, not on the line
                    # after its line break.
                    try:
                        parse_json(stripped)
                    except JsonError as closer:
                        found = closer
                # A line with its line break is cut short where the file goes on.
                text = "line" if line.endswith((b"\n", b"\r")) else "file"
                problem = found.problem(number - 1, column - 1, text)
                # The error's traceback holds this frame, which holds the error: a cycle
                # that would keep the whole chunk alive until the collector finds it.
                del found
                yield SourceRecord(source, index, problem=problem, line=number, text=line)
            else:
                yield SourceRecord(
                    source,
                    index,
                    value,
                    line=number,
                    text=line,
                    schema_passed=passed,
                    file=file,
                    offset=offset,
                )
    else:
        assert chunk.document is not None
        yield from _read_document(source, chunk.document, chunk.file)


def read_source(
    source: str,
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
    sheets: Mapping[str, Sheet] | None = None,
) -> Iterator[SourceRecord]:
    """The records of one source, parsed (see :func:`~phantom_log.records.chunks.read_chunks`)."""
    for chunk in read_chunks(source, stdin, max_record_size=max_record_size):
        yield from chunk_records(chunk, sheets)


def _read_game_text(
    source: str, data: bytes, sheets: Mapping[str, Sheet] | None
) -> Iterator[SourceRecord]:
    """The games of a game text, each the record it stands for; a text that is not UTF-8
    is one ``notation`` problem at the first byte that is not."""
    raw = data.removeprefix(BOM)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        problem = Problem.of(
            Code.NOTATION,
            f"the text is not UTF-8 (byte 0x{raw[error.start]:02x})",
            hint="Save the file as UTF-8.",
        ).placed(line, column)
        yield SourceRecord(source, 0, problem=problem, line=line)
        return
    games = iter_games(text)
    first = next(games, None)
    if first is None:
        problem = Problem.of(
            Code.NOTATION,
            "the text holds no game",
            hint="A game text begins with its header: game_id, phantom, christine, sheet.",
        ).placed(1, 1)
        yield SourceRecord(source, 0, problem=problem, line=1)
        return
    for index, game in enumerate(itertools.chain((first,), games)):
        record = text_record(game, sheets)
        yield SourceRecord(source, index, record.data, line=game.first_line, text_record=record)


def _read_document(source: str, data: bytes, file: TextFile | None) -> Iterator[SourceRecord]:
    """The record of a document (or the elements of an array that is not one of objects);
    ``file`` is the file the document is (its text after any byte order mark)."""
    text = data.removeprefix(BOM)
    try:
        value, passed = parse_gated(data, record_gate())
    except JsonError as error:
        yield SourceRecord(source, 0, problem=error.problem(), text=text)
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
        # An array that is not one of objects: its elements' texts are not kept apart.
        for index, item in enumerate(value):
            yield SourceRecord(source, index, item)
    else:
        offset = len(data) - len(text)
        yield SourceRecord(
            source, 0, value, text=text, schema_passed=passed, file=file, offset=offset
        )


_LINE_BREAK: Final = re.compile(rb"(?:\r\n|\r|\n)[ \t]*")


def record_line(record: SourceRecord) -> bytes | None:
    """A record's text as one line of JSON Lines, as ``verify --valid-out`` and
    ``--invalid-out`` write it: its exact bytes when they are one line (every line of JSON
    Lines, an element of an array written on one line), with a line break added at the
    end of a text that has none; a text written over several lines (a pretty-printed
    document or element) with each line break and the indentation after it removed,
    which is whitespace between JSON's tokens (a string cannot hold a raw line break), so
    that the record's value is the same. ``None`` for a record without text (a source
    that could not be read)."""
    text = record.text
    if record.text_record is not None or (text is None and record.problem is None):
        # The record a game text stands for, or an element of an array of non-objects.
        return orjson.dumps(record.data) + b"\n"
    if text is None:
        return None
    body = text.rstrip(b"\r\n")
    ending = text[len(body) :]
    if b"\n" in body or b"\r" in body:
        body = _LINE_BREAK.sub(b"", body.strip(b" \t"))
        ending = b"\n"
    return body + (ending or b"\n")
