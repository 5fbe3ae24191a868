"""The ``unreadable`` problems: why a source, or a record of one, could not be read (no
permission, a broken link or a link loop, a folder that cannot be listed, a FIFO or device
found in a folder, more than the size limit, a failure on the way), each with a hint."""

from __future__ import annotations

import errno
import math
import os
from typing import Final

from ..files.kinds import file_kind
from ..rules.problems import Code, Problem
from .size_limit import size_text
from .source_names import display_name


def unreadable(message: str, hint: str | None = None, line: int | None = None) -> Problem:
    """An ``unreadable`` problem: what could not be read, with a hint, on ``line``."""
    return Problem(Code.UNREADABLE, message, hint=hint, line=line)


_PERMISSION_HINT: Final = "Give phantom-log permission to read it, or leave it out of the paths."
_LINK_HINT: Final = "Point the link at a record file, or remove it."


def error_reason(error: OSError) -> str:
    """Why the system refused, in words to follow others (``permission denied``)."""
    text = error.strerror or type(error).__name__
    return text[:1].lower() + text[1:]


def not_regular(mode: int) -> Problem:
    """A file below a folder that is not a regular file (of this ``st_mode``): not opened."""
    return unreadable(
        f"not a regular file ({file_kind(mode)}); not opened",
        "Below a folder only regular files are read, so that a FIFO or a device cannot "
        "block the run; give it as a path of its own to read it.",
    )


def folder_problem(error: OSError) -> Problem:
    """A folder that could not be listed: the records below it were not read."""
    if error.errno == errno.ELOOP:
        return unreadable(
            "cannot list this folder: a symbolic link loop (too many levels of symbolic "
            "links); the records below it were not read",
            _LINK_HINT,
        )
    return unreadable(
        f"cannot list this folder ({error_reason(error)}): the records below it were not read",
        "Give phantom-log permission to read and enter the folder (chmod u+rx), "
        "or leave it out of the paths.",
    )


def open_problem(path: str, error: OSError) -> Problem:
    """Why a path could not be opened, as an ``unreadable`` problem."""
    if error.errno == errno.ELOOP:
        return unreadable(
            "a symbolic link loop (too many levels of symbolic links): nothing to read",
            _LINK_HINT,
        )
    if isinstance(error, FileNotFoundError):
        try:
            target = os.readlink(path)
        except OSError:
            return unreadable(
                "the file went away before it could be read (removed or renamed after the "
                "paths were listed)"
            )
        return unreadable(
            f"a broken symbolic link: it points to {display_name(target)}, which does not exist",
            _LINK_HINT,
        )
    if isinstance(error, PermissionError):
        return unreadable(f"cannot read ({error_reason(error)})", _PERMISSION_HINT)
    if error.errno == errno.ENXIO:  # a socket, or a device with no driver
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = 0
        return unreadable(f"not a regular file ({file_kind(mode)}); it cannot be read")
    return read_failure(error)


def too_large(limit: int, size: int | None = None, line: int | None = None) -> Problem:
    """A source or a record over the size limit: the limit and how to raise it."""
    where = "" if line is None else f"line {line}: the record is "
    what = f"{where}larger than the size limit of {size_text(limit)}"
    if size is not None:
        what += f" ({size} bytes)"
    suggested = max(math.ceil((size or 4 * limit) / 1024**2), 1)
    return unreadable(
        what + ("; not read" if line is None else "; skipped"),
        f"Raise the limit with --max-record-size (e.g. --max-record-size {suggested}M) "
        "if it is meant to be this large.",
        line,
    )


def stream_ended(limit: int, line: int) -> Problem:
    """A line over the size limit on a stream, where the reading ends."""
    return unreadable(
        f"line {line}: the record is larger than the size limit of {size_text(limit)}; "
        "the rest of this input was not read",
        "Raise the limit with --max-record-size if a record is meant to be this large.",
        line,
    )


#: A file that ended, while it was read, before the size it had when it was opened (or
#: that no longer holds the lines found in it), whether one process reads it or several.
CUT_SHORT: Final = unreadable(
    "the file was cut short while it was read; the rest was not read",
    "Check the file once whatever writes or truncates it is done.",
)

CLOSED_STDIN: Final = unreadable(
    "standard input is closed: nothing to read",
    "Give the records on standard input (phantom-log verify - < games.jsonl), or give their paths.",
)


def read_failure(error: BaseException) -> Problem:
    """The ``unreadable`` problem of a source, or a part of one, that failed to be read
    (a file, an object of a store)."""
    reason = error_reason(error) if isinstance(error, OSError) else type(error).__name__
    return unreadable(f"cannot read ({reason})")
