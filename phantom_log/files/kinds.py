"""What a path in the file system is, in words: shared by the reading of sources and the
writing of outputs, which both refuse what is not a regular file."""

from __future__ import annotations

import stat


def file_kind(mode: int) -> str | None:
    """What a file that is not a regular file is (``"a FIFO"``, ``"a socket"``, ...), from
    its ``st_mode``; ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"
