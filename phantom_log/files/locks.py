"""The lock of an output folder: held while a run puts its outputs in place there, so that
two runs writing the same outputs at once take turns, and the outputs of one run are
never mixed with another's.

The lock is ``flock(2)`` on the folder itself: no lock file is made, nothing is left
behind, and a process that dies (even by SIGKILL) lets go of it. A reader that must never
see two runs' outputs side by side takes the same lock, shared, while it reads:
``flock -s out/ python join.py``. Where a file system cannot lock a folder (NFS), a file
``.phantom-log.lock`` in it is locked instead; where it cannot lock at all, the outputs are
put in place without a lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import Final

from .same_files import FileIdentity, file_identity

#: The file locked in a folder that cannot itself be locked.
LOCK_FILE_NAME: Final = ".phantom-log.lock"
# What flock fails with where the file system does not lock (this kind of file).
_NO_LOCKS: Final = frozenset(
    {errno.EBADF, errno.ENOLCK, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}
)


@contextmanager
def folders_locked(folders: Iterable[str | os.PathLike[str]]) -> Iterator[None]:
    """Hold the lock of each of ``folders`` (each one once, however named) for the block.

    The locks are taken in one order, the folders' identities', so that two runs that
    lock the same folders never wait for each other in a circle. A lock another process
    holds is waited for, and the wait said on standard error; Ctrl-C and SIGTERM end the
    wait as they end the run.
    """
    found: dict[FileIdentity, str] = {}
    for folder in folders:
        name = os.fspath(folder)
        identity = file_identity(name)
        if identity is not None:
            found.setdefault(identity, name)
    with ExitStack() as held:
        for identity in sorted(found):
            descriptor = _locked(found[identity])
            if descriptor is not None:
                held.callback(os.close, descriptor)
        yield


def _locked(folder: str) -> int | None:
    """A descriptor holding the lock of ``folder`` (closing it lets go); ``None`` where
    the file system has no locks."""
    descriptor = _open(folder)
    if descriptor is None:
        return None
    try:
        if _lock(descriptor, folder):
            return descriptor
    except BaseException:
        os.close(descriptor)
        raise
    os.close(descriptor)
    # The folder cannot be locked: a file in it can, on most file systems that cannot.
    lock_file = os.path.join(folder, LOCK_FILE_NAME)
    try:
        descriptor = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return None
    try:
        if _lock(descriptor, folder):
            return descriptor
    except BaseException:
        os.close(descriptor)
        raise
    os.close(descriptor)
    return None


def _open(folder: str) -> int | None:
    try:
        return os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # a folder we may write but not read: nothing to lock it by
        return None


def _lock(descriptor: int, folder: str) -> bool:
    """Take the exclusive lock of the open ``descriptor``, waiting for it if another
    process holds it; ``False`` when it cannot be locked."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    except OSError as error:
        if error.errno in _NO_LOCKS:
            return False
        raise
    _say_waiting(folder)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
    except OSError as error:
        if error.errno in _NO_LOCKS:
            return False
        raise
    return True


def _say_waiting(folder: str) -> None:
    name = os.fspath(folder).encode("utf-8", "backslashreplace").decode("utf-8")
    name = "".join(char if char.isprintable() else repr(char)[1:-1] for char in name)
    with suppress(OSError, ValueError):
        print(
            f"phantom-log: note: waiting for {name}: another run is putting its outputs "
            "there, or a reader holds the folder's lock",
            file=sys.stderr,
            flush=True,
        )
