"""A source cut into chunks of raw text, whatever its form: a ``.json`` document (an
array's elements cut apart), JSON Lines, game text, standard input (told apart by its
first lines), a text already read (an object of a store). Chunks, and the spans of a file
that stand for its texts, are what worker processes receive.

Nothing here raises for a bad input: a source that cannot be read is a chunk with its
``unreadable`` problem. No read is unbounded: a document and each line of JSON Lines hold
at most the size limit (:mod:`phantom_log.records.size_limit`), and nothing beyond it is
kept in memory. A tournament manifest among the sources gives no chunk.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import stat
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Final

from ..rules.problems import Problem
from . import size_limit
from .found_sources import FoundSource
from .selection import Selection, current_selection
from .size_limit import read_up_to
from .source_names import RECORD_SUFFIXES, STDIN, display_name
from .strictjson import JsonError, parse_json, split_array
from .unreadable import (
    CLOSED_STDIN,
    CUT_SHORT,
    error_reason,
    not_regular,
    open_problem,
    read_failure,
    stream_ended,
    too_large,
    unreadable,
)

#: The UTF-8 byte order mark, which a source may start with (and no record's text holds).
BOM: Final = b"\xef\xbb\xbf"
_SKIP_SIZE: Final = 1024 * 1024  # bytes read at a time to skip the rest of a long line

#: What a tournament manifest's ``format`` starts with (``phantom-log-manifest/1``).
MANIFEST_FORMAT_PREFIX: Final = "phantom-log-manifest/"
_MANIFEST_MARK: Final = b'"' + MANIFEST_FORMAT_PREFIX.encode()
_manifest_seen: ContextVar[Callable[[str], None] | None] = ContextVar("manifest_seen", default=None)


class FileCutShort(OSError):
    """A regular file ended before the size it had when it was opened: its last line read
    may be a part of a record."""


@contextmanager
def on_manifest(callback: Callable[[str], None] | None) -> Iterator[None]:
    """Call ``callback`` with the name of each source found to be a tournament manifest
    inside the block; a manifest is never read as a game record, and without a callback it
    is skipped without a word."""
    token = _manifest_seen.set(callback)
    try:
        yield
    finally:
        _manifest_seen.reset(token)


def is_manifest(data: bytes) -> bool:
    """True when a document is a JSON object whose ``format`` starts with
    :data:`MANIFEST_FORMAT_PREFIX` (parsed only when the text holds that prefix)."""
    if _MANIFEST_MARK not in data:
        return False
    try:
        value = parse_json(data)
    except JsonError:
        return False
    return (
        isinstance(value, dict)
        and isinstance(value.get("format"), str)
        and value["format"].startswith(MANIFEST_FORMAT_PREFIX)
    )


@dataclass(frozen=True, slots=True)
class TextFile:
    """A regular file that records are read from, as it was when it was opened: its path,
    and what tells that version of it from any later one. A record's text can be read from
    it again (:func:`read_again`) as long as it is unchanged."""

    path: str
    device: int
    inode: int
    size: int
    changed_ns: int

    @classmethod
    def of(cls, path: str, status: os.stat_result) -> TextFile:
        """The file at ``path`` (made absolute), as ``status`` found it."""
        return cls(
            os.path.abspath(path), status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns
        )

    def same_as(self, status: os.stat_result) -> bool:
        """True when ``status`` is of this file, unchanged."""
        return self == TextFile.of(self.path, status)


class FileChanged(OSError):
    """A file no longer is what it was when it was opened (:class:`TextFile`): another file
    in its place, or the same one written to since."""


def read_again(file: TextFile, places: Iterable[tuple[int, int]]) -> list[bytes]:
    """The texts at ``places`` (each an offset and a length) of a file read before. Raises
    :class:`FileChanged` when the file is not what it was when it was first opened, and
    :class:`OSError` when it cannot be read."""
    texts = []
    with open(file.path, "rb", buffering=0) as handle:
        descriptor = handle.fileno()
        if not file.same_as(os.fstat(descriptor)):
            raise FileChanged(f"{file.path} changed since it was read")
        for offset, length in places:
            text = os.pread(descriptor, length, offset)
            if len(text) != length:
                raise FileChanged(f"{file.path} is shorter than when it was read")
            texts.append(text)
    return texts


@dataclass(frozen=True, slots=True)
class Span:
    """Lines of a regular file of JSON Lines, not yet read: ``length`` bytes from
    ``offset``, holding ``records`` records, the first on line ``first_line`` with the
    index ``first_index``. The main process finds spans and a worker process reads them,
    so that the main process neither splits nor sends the records' texts."""

    file: TextFile
    offset: int
    length: int
    first_line: int
    first_index: int
    records: int
    #: For the elements of a ``.json`` array: four numbers an element, its start and end
    #: (from ``offset``), line and column, as the main process found them.
    elements: array[int] | None = None


@dataclass(frozen=True, slots=True)
class Chunk:
    """Raw text of one source, not yet parsed: a whole document (``lines`` is ``None``)
    or a run of records' texts (the lines of JSON Lines, or the elements of an array), each
    ``(index, line, column, bytes)`` with the line and column where it starts; or the
    ``problem`` that kept a source (or the record at ``index``, on ``line``) from being
    read; or the ``span`` of a file whose lines are read where the chunk is parsed.
    ``selection`` is the selection in force when it was read (see
    :mod:`phantom_log.records.selection`): parsing keeps only the records it matches.
    ``game_text``: the ``document`` is game text (``.ptn``), one game or several, not JSON.
    ``file``: the regular file whose text ``document`` (or, with ``offsets``, each of the
    ``lines``) is, where its records' texts can be read again; ``offsets`` then holds each
    line's place in it."""

    source: str
    document: bytes | None = None
    lines: tuple[tuple[int, int, int, bytes], ...] | None = None
    problem: Problem | None = None
    index: int = 0
    line: int | None = None
    selection: Selection | None = None
    span: Span | None = None
    game_text: bool = False
    file: TextFile | None = None
    offsets: array[int] | None = None

    @property
    def size(self) -> int:
        """The bytes of text the chunk holds."""
        if self.lines is not None:
            return sum(len(line) for _, _, _, line in self.lines)
        if self.span is not None:
            return self.span.length
        return len(self.document or b"")


def read_chunks(
    source: str,
    stdin: IO[bytes] | None = None,
    lines_per_chunk: int = 512,
    max_record_size: int | None = None,
    spans: bool = False,
) -> Iterator[Chunk]:
    """The raw chunks of one source: a file (its suffix tells JSON Lines, game text or one
    document) or ``-`` for ``stdin``; JSON Lines ``lines_per_chunk`` lines at a time, so
    that memory stays bounded. A path given on purpose may be a FIFO or a device, read as
    standard input is (sniffed); a path found below a folder is read only if it is a
    regular file. The size limit is ``max_record_size``, or the one in force; each chunk
    carries the selection in force (:mod:`phantom_log.records.selection`).

    With ``spans``, the lines of a regular ``.jsonl`` file and the elements of a ``.json``
    array are given as spans of the file (:class:`Span`), which worker processes read."""
    chunks = _source_chunks(source, stdin, lines_per_chunk, max_record_size, spans)
    yield from _selected(chunks, current_selection())


def _selected(chunks: Iterator[Chunk], selection: Selection | None) -> Iterator[Chunk]:
    """The chunks, each carrying ``selection`` (when there is one)."""
    if not selection:
        return chunks
    return (replace(chunk, selection=selection) for chunk in chunks)


def _source_chunks(
    source: str,
    stdin: IO[bytes] | None,
    lines_per_chunk: int,
    max_record_size: int | None,
    spans: bool = False,
) -> Iterator[Chunk]:
    """The raw chunks of one source (see :func:`read_chunks`)."""
    limit = max_record_size or size_limit.max_record_size()
    name = display_name(source)
    if isinstance(source, FoundSource) and source.problem is not None:
        yield Chunk(name, problem=source.problem)
        return
    if source == STDIN:
        if stdin is None:
            yield Chunk(name, problem=CLOSED_STDIN)
            return
        yield from _guarded(name, _sniffed_chunks(name, stdin, limit, lines_per_chunk))
        return
    found = isinstance(source, FoundSource)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    if found:
        # Never wait on a FIFO put in place of a listed file: opened without blocking,
        # then refused below as not a regular file.
        flags |= getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(source, flags)
    except OSError as error:
        yield Chunk(name, problem=open_problem(source, error))
        return
    with open(descriptor, "rb") as handle:
        try:
            status = os.fstat(descriptor)
        except OSError as error:
            yield Chunk(name, problem=read_failure(error))
            return
        mode = status.st_mode
        kind = RECORD_SUFFIXES.get(Path(source).suffix.lower())
        regular = stat.S_ISREG(mode)
        if not regular and (found or stat.S_ISDIR(mode)):
            yield Chunk(name, problem=not_regular(mode))
            return
        # With spans, workers read the records' texts from the file itself.
        file = TextFile.of(source, status) if spans and regular else None
        # A regular file that ends before this size was cut short while it was read.
        size = status.st_size if regular else None
        if kind == "jsonl" and file and not handle.peek(len(BOM)).startswith(BOM):
            chunks = _span_chunks(name, file, handle, lines_per_chunk, limit, size)
        elif kind == "jsonl":
            lines = _bounded_lines(handle, limit, skip_long=regular, expected=size)
            chunks = _line_chunks(name, lines, lines_per_chunk, limit, stream=not regular)
        elif kind == "ptn":
            chunks = _whole_game_text(name, handle, limit, size)
        elif kind == "json" or regular:
            chunks = _whole_document(name, handle, limit, lines_per_chunk, size, file)
        else:
            chunks = _sniffed_chunks(name, handle, limit, lines_per_chunk)
        yield from _guarded(name, chunks)


def _guarded(source: str, chunks: Iterator[Chunk]) -> Iterator[Chunk]:
    """The chunks, then an ``unreadable`` chunk (after the records read) if reading
    failed on the way."""
    index = 0
    try:
        for chunk in chunks:
            if chunk.lines:
                index = chunk.lines[-1][0] + 1
            elif chunk.span is not None:
                index = chunk.span.first_index + chunk.span.records
            elif chunk.problem is not None:
                index = chunk.index + 1
            yield chunk
    except FileCutShort:
        yield Chunk(source, problem=CUT_SHORT, index=index)
    except OSError as error:
        problem = unreadable(f"cannot read ({error_reason(error)}); the rest was not read")
        yield Chunk(source, problem=problem, index=index)


def _read_whole(
    handle: IO[bytes], limit: int, known_size: int | None, head: bytes = b""
) -> bytes | None:
    """A text read whole (after ``head``, what was read of it already); ``None`` when it
    is over the limit: a regular file larger than the limit is not read at all, a stream
    no further than the limit. A file that ends before its ``known_size`` was cut short
    (:class:`FileCutShort`)."""
    if known_size is not None and known_size > limit:
        return None
    data = head + read_up_to(handle, limit + 1 - len(head), known_size)
    if len(data) > limit:
        return None
    if known_size is not None and len(data) < known_size:
        raise FileCutShort
    return data


def _whole_document(
    source: str,
    handle: IO[bytes],
    limit: int,
    batch_size: int,
    known_size: int | None,
    file: TextFile | None = None,
) -> Iterator[Chunk]:
    """A document read whole (:func:`_read_whole`), as :func:`_document_chunks`."""
    data = _read_whole(handle, limit, known_size)
    if data is None:
        yield Chunk(source, problem=too_large(limit, known_size))
    else:
        yield from _document_chunks(source, data, batch_size, file)


def _whole_game_text(
    source: str, handle: IO[bytes], limit: int, known_size: int | None, head: bytes = b""
) -> Iterator[Chunk]:
    """A game text read whole (:func:`_read_whole`), as one chunk."""
    data = _read_whole(handle, limit, known_size, head)
    if data is None:
        yield Chunk(source, problem=too_large(limit, known_size))
    else:
        yield Chunk(source, document=data, game_text=True)


#: The first line of a game text: a comment, a header's ``key:``, or a round.
_GAME_TEXT_START: Final = re.compile(rb"[ \t]*(?:#|[A-Za-z_][A-Za-z0-9_-]*[ \t]*:|round\b)", re.I)


def _sniffed_chunks(source: str, handle: IO[bytes], limit: int, size: int) -> Iterator[Chunk]:
    """Standard input (or a FIFO or device without a record suffix): game text when its
    first non-blank line starts as game text does; JSON Lines when that line is a whole
    JSON value and more non-blank lines follow; otherwise one document. JSON Lines are
    streamed, and nothing is read past the limit."""
    lines = _bounded_lines(handle, limit, skip_long=False)
    head: list[bytes] = []
    held = 0
    values = 0
    for line in lines:
        if line is None:  # a line over the limit
            if values == 1:  # JSON Lines whose second record is too large
                yield from _line_chunks(source, [*head, None], size, limit, stream=True)
            else:
                yield Chunk(source, problem=too_large(limit))
            return
        head.append(line)
        held += len(line)
        if held > limit:
            yield Chunk(source, problem=too_large(limit))
            return
        if not line.strip():
            continue
        if values == 0 and _GAME_TEXT_START.match(line.removeprefix(BOM)):
            # Game text (JSON starts with none of these): read whole, as a .ptn file.
            yield from _whole_game_text(source, handle, limit, None, b"".join(head))
            return
        values += 1
        if values == 2:
            yield from _line_chunks(source, itertools.chain(head, lines), size, limit, stream=True)
            return
        if not _is_json_value(line.removeprefix(BOM) if len(head) == 1 else line):
            break  # a document over several lines: read the rest whole
    data = _read_whole(handle, limit, None, b"".join(head))
    if data is None:
        yield Chunk(source, problem=too_large(limit))
    else:
        yield from _document_chunks(source, data, size)


def _is_json_value(line: bytes) -> bool:
    """True when a line holds one whole JSON value by the JSON grammar, even a value that
    docs/format.md refuses (a number out of the 64-bit range, a key given twice, NaN, bytes
    that are not UTF-8): such a line is a broken record of JSON Lines, which is reported
    on its own, and not the first line of a document written over several lines."""
    try:
        parse_json(line)
        return True
    except JsonError:
        pass
    try:
        # The grammar alone: numbers are not converted (no digit limit), constants and
        # duplicate keys are let through.
        json.loads(
            line.decode("utf-8", "replace"),
            parse_int=len,
            parse_float=len,
            parse_constant=len,
        )
    except (ValueError, RecursionError):
        return False
    return True


def _bounded_lines(
    handle: IO[bytes], limit: int, skip_long: bool, expected: int | None = None
) -> Iterator[bytes | None]:
    """The lines of a binary stream, each with its line break; ``None`` in place of a line
    of more than ``limit`` bytes, which is never held whole. With ``skip_long`` (a regular
    file) the reading goes on after such a line; otherwise (a stream, which may never end)
    it ends there. A file that ends before its ``expected`` size was cut short while it
    was read: :class:`FileCutShort` instead of its last line, which may be a part of one."""
    # A line is never longer than the largest file (and readline takes no larger number).
    most = min(limit, sys.maxsize - 1) + 1
    read = 0
    while line := handle.readline(most):
        read += len(line)
        at_end = len(line) < most and not line.endswith(b"\n")
        if at_end and expected is not None and read < expected:
            raise FileCutShort
        if len(line) <= limit:
            yield line
            continue
        yield None
        if not skip_long:
            return
        while not line.endswith(b"\n"):
            line = handle.readline(_SKIP_SIZE)
            read += len(line)
            if not line:
                break
    if expected is not None and read < expected:
        raise FileCutShort


def _document_chunks(
    source: str, data: bytes, size: int, file: TextFile | None = None
) -> Iterator[Chunk]:
    """A document as chunks: an array of objects is cut into its elements (each then parsed
    and checked on its own), anything else is one chunk; a tournament manifest gives none
    (see :func:`on_manifest`). With the ``file`` that ``data`` was read from, the elements
    are given as spans of it, and any other document names it."""
    if is_manifest(data):
        seen = _manifest_seen.get()
        if seen is not None:
            seen(source)
        return
    text = data.removeprefix(BOM)
    spans = split_array(text)
    if not spans:
        yield Chunk(source, document=data, file=file)
        return
    batch: list[tuple[int, int, int, bytes]] = []
    places = array("Q")
    # Where each element starts: its line, and its column in characters, counted from the
    # last element (not from the start of its line: an array written on one line would
    # take time in the square of its length). The text between two elements' starts ends
    # with ASCII (a comma, spaces), so the characters of the parts add up to the whole's.
    line, counted, characters = 1, 0, 0  # `characters` from the line's start to `counted`
    for index, (start, end) in enumerate(spans):
        breaks = text.count(b"\n", counted, start)
        if breaks:
            line += breaks
            line_start = text.rfind(b"\n", counted, start) + 1
            characters = len(text[line_start:start].decode("utf-8", "replace"))
        else:
            characters += len(text[counted:start].decode("utf-8", "replace"))
        counted = start
        if file is None:
            batch.append((index, line, characters + 1, text[start:end]))
        else:
            places.extend((start, end, line, characters + 1))
        if len(batch) >= size or len(places) >= 4 * size:
            yield _array_chunk(source, file, batch, places, index, len(data) - len(text))
            batch, places = [], array("Q")
    if batch or places:
        yield _array_chunk(source, file, batch, places, len(spans) - 1, len(data) - len(text))


def _array_chunk(
    source: str,
    file: TextFile | None,
    batch: list[tuple[int, int, int, bytes]],
    places: array[int],
    last: int,
    skipped: int,
) -> Chunk:
    """A chunk of an array's elements: their texts, or (with the ``file``) a span of the
    file with each element's place (its text starts ``skipped`` bytes in: a byte order
    mark); ``last`` is the index of the last element."""
    if file is None:
        return Chunk(source, lines=tuple(batch))
    count = len(places) // 4
    first_start, last_end = places[0], places[-3]
    for position in range(0, len(places), 4):
        places[position] -= first_start
        places[position + 1] -= first_start
    offset, length = skipped + first_start, last_end - first_start
    span = Span(file, offset, length, places[2], last - count + 1, count, places)
    return Chunk(source, span=span)


def _no_record(line: bytes) -> bool:
    """True for a line of JSON Lines that holds no record: empty, or white space only."""
    return not line or line.isspace()


def _line_chunks(
    source: str,
    lines: Iterable[bytes | None],
    size: int,
    limit: int,
    stream: bool = False,
    first_line: int = 1,
    first_index: int = 0,
) -> Iterator[Chunk]:
    """The records of JSON Lines, ``size`` lines a chunk; a line over the limit (``None``)
    is a chunk of its own with its ``unreadable`` problem, at its index (on a ``stream``,
    the reading ended there). The first line is line ``first_line`` of its source, with
    the index ``first_index``."""
    batch: list[tuple[int, int, int, bytes]] = []
    index = first_index
    try:
        for number, line in enumerate(lines, start=first_line):
            if line is None:
                if batch:
                    yield Chunk(source, lines=tuple(batch))
                    batch = []
                problem = stream_ended(limit, number) if stream else too_large(limit, line=number)
                yield Chunk(source, problem=problem, index=index, line=number)
                index += 1
                continue
            if number == 1:
                line = line.removeprefix(BOM)
            if _no_record(line):
                continue
            batch.append((index, number, 1, line))
            index += 1
            if len(batch) >= size:
                yield Chunk(source, lines=tuple(batch))
                batch = []
    except FileCutShort:
        if batch:  # the whole lines read before the file ended are records all the same
            yield Chunk(source, lines=tuple(batch))
        raise
    if batch:
        yield Chunk(source, lines=tuple(batch))


# The bytes the main process reads at a time to find the spans of a file.
_SPAN_BLOCK: Final = 1024 * 1024
# A line of nothing but white space (bytes.isspace), after the line break before it.
_BLANK_LINE: Final = re.compile(rb"\n[ \t\r\x0b\x0c]*(?=\n)")


def _span_chunks(
    source: str,
    file: TextFile,
    handle: IO[bytes],
    lines_per_chunk: int,
    limit: int,
    expected: int | None = None,
) -> Iterator[Chunk]:
    """The chunks of a regular file of JSON Lines as spans of at most ``lines_per_chunk``
    lines (see :class:`Span`), counted as :func:`_line_chunks` counts them: blank lines
    are no record, and a line over the size limit (its line break included) is a chunk of
    its own with its ``unreadable`` problem at its index, its bytes skipped. A file that
    ends before its ``expected`` size was cut short while it was read
    (:class:`FileCutShort`, after the spans of its whole lines)."""
    buffer = b""  # read and not yet given: the file from offset `start`
    start = 0
    line_number, index = 1, 0
    ended = False
    while True:
        # The complete lines at the head of the buffer, none over the limit.
        position = lines = 0
        while lines < lines_per_chunk:
            end = buffer.find(b"\n", position)
            if end < 0 or end + 1 - position > limit:
                break
            position = end + 1
            lines += 1
        # The next line (complete or not) is over the limit.
        head = buffer.find(b"\n", position)
        over = (head - position + 1 if head >= 0 else len(buffer) - position) > limit
        full = lines == lines_per_chunk or len(buffer) >= 2 * _SPAN_BLOCK
        if lines and (full or over or ended):
            records = lines - _blank_lines(buffer, position)
            yield Chunk(source, span=Span(file, start, position, line_number, index, records))
            buffer = buffer[position:]
            start += position
            line_number += lines
            index += records
            continue
        if over:
            # A line over the limit: its own unreadable chunk, and its bytes skipped.
            problem = too_large(limit, line=line_number)
            yield Chunk(source, problem=problem, index=index, line=line_number)
            index += 1
            line_number += 1
            while head < 0 and not ended:
                start += len(buffer)
                buffer = handle.read(_SPAN_BLOCK)
                ended = not buffer
                head = buffer.find(b"\n")
            if head < 0:
                if expected is not None and start < expected:
                    raise FileCutShort
                return
            start += head + 1
            buffer = buffer[head + 1 :]
            continue
        if ended:
            if expected is not None and start + len(buffer) < expected:
                raise FileCutShort
            if buffer:  # the last line, without a line break
                records = 0 if buffer.isspace() else 1
                yield Chunk(
                    source, span=Span(file, start, len(buffer), line_number, index, records)
                )
            return
        more = handle.read(_SPAN_BLOCK)
        ended = not more
        buffer += more


def _blank_lines(buffer: bytes, end: int) -> int:
    """How many of the complete lines of ``buffer[:end]`` are blank (white space only)."""
    first = buffer.find(b"\n")
    count = 1 if buffer[:first].isspace() or first == 0 else 0
    return count + len(_BLANK_LINE.findall(buffer, 0, end))


def read_span(chunk: Chunk, span: Span) -> Chunk:
    """The chunk of a span's lines, read from its file, with each line's place in the file;
    an ``unreadable`` chunk at the span's first record when the file cannot be read, or no
    longer holds the span."""
    file = span.file
    try:
        with open(file.path, "rb", buffering=0) as handle:
            data = os.pread(handle.fileno(), span.length, span.offset)
    except OSError as error:
        problem = unreadable(f"cannot read ({error_reason(error)}); the rest was not read")
        return Chunk(chunk.source, problem=problem, index=span.first_index)
    if len(data) != span.length:
        return Chunk(chunk.source, problem=CUT_SHORT, index=span.first_index)
    places = span.elements
    lines = []
    offsets = array("Q")
    index = span.first_index
    if places is not None:  # the elements of an array, where the main process found them
        for at in range(0, len(places), 4):
            start, end, line_number, column = places[at : at + 4]
            lines.append((index, line_number, column, data[start:end]))
            offsets.append(span.offset + start)
            index += 1
    else:
        # The lines of JSON Lines, counted as the main process counted them (a blank line
        # is no record; every line of a span is within the size limit, and a span's file
        # starts with no byte order mark).
        position = span.offset
        for number, line in enumerate(io.BytesIO(data), start=span.first_line):
            if not _no_record(line):
                lines.append((index, number, 1, line))
                offsets.append(position)
                index += 1
            position += len(line)
    return Chunk(
        chunk.source, lines=tuple(lines), selection=chunk.selection, file=file, offsets=offsets
    )


def text_chunks(
    source: str,
    data: bytes,
    json_lines: bool = True,
    first_line: int = 1,
    first_index: int = 0,
    lines_per_chunk: int = 512,
    max_record_size: int | None = None,
    selection: Selection | None = None,
) -> Iterator[Chunk]:
    """The raw chunks of a text already read: a whole object of a store, or a byte range
    of one cut at line boundaries whose first line is line ``first_line`` of the object,
    with the index ``first_index``. JSON Lines are read as a ``.jsonl`` file is, any other
    text as a ``.json`` file is. The size limit and the selection are the ones given, or
    the ones in force."""
    limit = max_record_size or size_limit.max_record_size()
    handle = io.BytesIO(data)
    if json_lines:
        lines = _bounded_lines(handle, limit, skip_long=True)
        chunks = _line_chunks(
            source, lines, lines_per_chunk, limit, first_line=first_line, first_index=first_index
        )
    else:
        chunks = _whole_document(source, handle, limit, lines_per_chunk, len(data))
    yield from _selected(chunks, selection if selection is not None else current_selection())


def json_lines_extent(
    data: bytes, at_start: bool = True, max_record_size: int | None = None
) -> tuple[int, int]:
    """The line breaks and the records of a byte range of JSON Lines cut at line
    boundaries (``at_start``: the range starts its object), counted as
    :func:`text_chunks` counts them: the next range of the same object starts that many
    lines and records further (its ``first_line`` and ``first_index``)."""
    records = 0
    first_line = 1 if at_start else 2  # only the object's first line may start with a BOM
    for chunk in text_chunks("", data, True, first_line, 0, 4096, max_record_size):
        records += 1 if chunk.lines is None else len(chunk.lines)
    return data.count(b"\n"), records
