"""The size limit of one read: at most this many bytes in a ``.json`` document, a document
on standard input, a line of JSON Lines or a side file (``--sheets``, ``--manifest``), so
that no read is unbounded; ``--max-record-size`` raises it."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import IO, Final

#: The size limit by default. A real game's record is some kilobytes, so the limit only
#: refuses what is not a record file (``/dev/zero``, a disk image), while an array of tens
#: of thousands of records still fits, and parsing one source stays below a gigabyte.
DEFAULT_MAX_RECORD_SIZE: Final = 64 * 1024 * 1024
# The bytes a stream is read by at a time, within the size limit (see read_up_to).
_READ_PIECE: Final = 1024 * 1024
_SIZE_UNITS: Final = (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))
_max_record_size: ContextVar[int] = ContextVar("max_record_size", default=DEFAULT_MAX_RECORD_SIZE)


@contextmanager
def record_size_limit(size: int) -> Iterator[None]:
    """Read sources with ``size`` bytes as the size limit inside the block (the
    ``--max-record-size`` option of every command sets it once, around the command)."""
    token = _max_record_size.set(size)
    try:
        yield
    finally:
        _max_record_size.reset(token)


def max_record_size() -> int:
    """The size limit in force (see :func:`record_size_limit`)."""
    return _max_record_size.get()


def size_text(size: int) -> str:
    """A size for people: ``64 MiB``, ``1 GiB``, or bytes when not a whole unit."""
    for name, unit in _SIZE_UNITS:
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


def read_up_to(handle: IO[bytes], count: int, expected: int | None = None) -> bytes:
    """At most ``count`` bytes of a stream, up to its end, read in pieces of a megabyte
    (for a file of ``expected`` bytes, that many and one more at once): a limit of
    gigabytes costs nothing on a file of kilobytes."""
    pieces = []
    held = 0
    piece = _READ_PIECE if expected is None else max(expected + 1, 1)
    while held < count:
        data = handle.read(min(count - held, piece))
        if not data:
            break
        pieces.append(data)
        held += len(data)
        piece = _READ_PIECE
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def read_limited(path: str, max_record_size: int | None = None) -> bytes:
    """The whole content of a side file (``--sheets``, ``--manifest``), within the size
    limit. Raises ``OSError`` (``strerror`` says why) when it cannot be read or is larger
    than the limit."""
    limit = max_record_size or _max_record_size.get()
    with open(path, "rb") as handle:
        data = read_up_to(handle, limit + 1)
    if len(data) > limit:
        raise OSError(
            errno.EFBIG,
            f"larger than the size limit of {size_text(limit)} (raise it with --max-record-size)",
        )
    return data
