"""Writing output files safely: never over an existing file unless asked, and atomically
(a temporary file in the same folder, then a rename), so a reader never sees half a file
and a failed run leaves nothing behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


class OutputExists(FileExistsError):
    """The output file exists and overwriting it was not asked for."""


def check_writable(path: str | os.PathLike[str], force: bool) -> None:
    """Raise :class:`OutputExists` if ``path`` exists and ``force`` is false."""
    if not force and os.path.lexists(path):
        raise OutputExists(f"{os.fspath(path)} exists; use --force to overwrite it")


@contextmanager
def atomic_path(path: str | os.PathLike[str], force: bool = False) -> Iterator[Path]:
    """A temporary path, beside ``path``, to write; on success it becomes ``path`` in one
    step.

    Raises :class:`OutputExists` when the file exists and ``force`` is false (checked
    before and again at the end), ``OSError`` when the folder cannot be written. If the
    block raises, the temporary file is removed and ``path`` is left as it was.
    """
    check_writable(path, force)
    target = Path(path)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        # mkstemp makes the file private (0600); give it the permissions any new file gets.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        yield temporary
        if force:
            os.replace(temporary, target)
        else:
            # link() fails if the target appeared meanwhile, where rename would overwrite it.
            try:
                os.link(temporary, target)
            except FileExistsError:
                raise OutputExists(
                    f"{os.fspath(path)} exists; use --force to overwrite it"
                ) from None
    finally:
        if temporary.exists():
            temporary.unlink()


@contextmanager
def atomic_output(path: str | os.PathLike[str], force: bool = False) -> Iterator[IO[bytes]]:
    """A binary file to write, through :func:`atomic_path`."""
    with atomic_path(path, force) as temporary, open(temporary, "wb") as stream:
        yield stream
        stream.flush()
        os.fsync(stream.fileno())


def write_atomically(path: str | os.PathLike[str], data: bytes | str, force: bool = False) -> None:
    """Write ``data`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path, force) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)
