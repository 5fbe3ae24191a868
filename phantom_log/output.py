"""Writing output files safely: never over an existing file unless asked, and atomically
(a temporary file in the same folder, then a rename), so a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class OutputExists(FileExistsError):
    """The output file exists and overwriting it was not asked for."""


def check_writable(path: str | os.PathLike[str], force: bool) -> None:
    """Raise :class:`OutputExists` if ``path`` exists and ``force`` is false."""
    if not force and os.path.lexists(path):
        raise OutputExists(f"{os.fspath(path)} exists; use --force to overwrite it")


def write_atomically(path: str | os.PathLike[str], data: bytes | str, force: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    Raises :class:`OutputExists` when the file exists and ``force`` is false, and
    ``OSError`` when the folder cannot be written.
    """
    check_writable(path, force)
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent if str(target.parent) else "."
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        if force:
            os.replace(temporary, target)
        else:
            # link() fails if the target appeared meanwhile, where rename would overwrite it.
            os.link(temporary, target)
            os.unlink(temporary)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
