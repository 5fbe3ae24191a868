"""Renames that ``rename(2)`` cannot do in one step: two names exchanged (a folder put in
the place of another, the old one kept under the new one's name until it is removed), and
a name given only while it is free. Linux has both as ``renameat2()``
(``RENAME_EXCHANGE``, ``RENAME_NOREPLACE``), called through :mod:`ctypes`; where the
system or the file system has neither, each function says so (``False``) and changes
nothing, and the caller falls back to plain renames."""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Callable
from typing import Final

_AT_FDCWD: Final = -100
_RENAME_NOREPLACE: Final = 1
_RENAME_EXCHANGE: Final = 2
# What renameat2 fails with where it cannot do what is asked: not in the kernel (ENOSYS),
# not by this file system (EINVAL; some say ENOTSUP).
_UNSUPPORTED: Final = frozenset({errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP})


def _renameat2() -> Callable[..., int] | None:
    """The C library's ``renameat2``; ``None`` where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        library = ctypes.CDLL(None, use_errno=True)
        function = library.renameat2
    except (OSError, AttributeError):  # a C library before glibc 2.28, or none to load
        return None
    name = ctypes.c_char_p
    function.argtypes = [ctypes.c_int, name, ctypes.c_int, name, ctypes.c_uint]
    function.restype = ctypes.c_int
    found: Callable[..., int] = function
    return found


_RENAMEAT2: Final = _renameat2()


def _rename(source: str | os.PathLike[str], target: str | os.PathLike[str], flags: int) -> bool:
    """``renameat2(source, target, flags)``: ``True`` when done, ``False`` when the system
    cannot do it (nothing changed); any other failure raises its :class:`OSError`."""
    if _RENAMEAT2 is None:
        return False
    result = _RENAMEAT2(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), flags)
    if result == 0:
        return True
    number = ctypes.get_errno()
    if number in _UNSUPPORTED:
        return False
    raise OSError(number, os.strerror(number), os.fspath(source), None, os.fspath(target))


def exchange(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Exchange the two names in one step (both must exist): whoever looks finds either
    both as they were or both exchanged. ``False`` when the system cannot."""
    return _rename(first, second, _RENAME_EXCHANGE)


def rename_to_free_name(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> bool:
    """Give ``source`` the name ``target`` in one step, only if nothing has it (else
    :class:`FileExistsError`). ``False`` when the system cannot tell in one step."""
    return _rename(source, target, _RENAME_NOREPLACE)
