"""When two paths are one file: by what the file system says (the device and the inode, as
:func:`os.path.samefile` compares them), never by their names. Two names differ, yet name
one file, through a symbolic link, a hard link, or a bind mount (``mount --bind io bind``
makes ``bind/in.jsonl`` the very entry ``io/in.jsonl``, on the same device)."""

from __future__ import annotations

import os
from typing import NamedTuple


class FileIdentity(NamedTuple):
    """What makes a file itself: its device and its inode."""

    device: int
    inode: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileIdentity:
        return cls(status.st_dev, status.st_ino)


class Place(NamedTuple):
    """Where a name is, whether or not a file is there yet: the folder that holds it (by
    its identity) and the name in it. Two paths of one place are one output."""

    folder: FileIdentity | None
    name: str


def file_identity(path: str | os.PathLike[str]) -> FileIdentity | None:
    """The identity of the file ``path`` names (links followed); ``None`` when there is
    none (or it cannot be looked at)."""
    try:
        return FileIdentity.of(os.stat(path))
    except (OSError, ValueError):
        return None


def place(path: str | os.PathLike[str]) -> Place:
    """The place of ``path``: the links on the way to it followed, its folder known by
    identity (``None`` when the folder does not exist)."""
    real = os.path.realpath(os.fspath(path))
    return Place(file_identity(os.path.dirname(real) or os.sep), os.path.basename(real))


def same_output(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether writing ``first`` and ``second`` writes one file: one place, or one
    existing file under two names (a hard link)."""
    if place(first) == place(second):
        return True
    identity = file_identity(first)
    return identity is not None and identity == file_identity(second)


def folders_above(path: str | os.PathLike[str]) -> list[tuple[FileIdentity, str]]:
    """The folders that hold ``path`` (links followed), nearest first, each with its
    identity and the rest of the path below it."""
    real = os.path.realpath(os.fspath(path))
    found = []
    below = os.path.basename(real)
    folder = os.path.dirname(real)
    while True:
        identity = file_identity(folder)
        if identity is not None:
            found.append((identity, below))
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        below = os.path.join(os.path.basename(folder), below)
        folder = parent
