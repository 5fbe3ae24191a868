"""The temporary files and folders a run has made and not yet removed, written where the
process that supervises the run can read them, so that a run that could not clean up
after itself (killed with SIGKILL, aborted by a library that ran out of memory) is
cleaned up after all.

A run removes its temporaries itself (:mod:`.outputs`); this ledger is for when it
cannot. The command line's supervisor (``phantom_log.cli.supervisor``) gives the run a
:class:`Ledger` in memory shared with it; the library alone keeps none, and then
:func:`made` and :func:`removed` do nothing."""

from __future__ import annotations

import os
import shutil
import struct
from collections.abc import Iterator
from contextlib import suppress
from typing import Final

#: How many temporaries may be listed at once (a run has a few: its outputs' temporary
#: files, its work folder); one more is not listed, and is only removed by the run.
SLOTS: Final = 64
#: The longest path listed, in bytes (the usual PATH_MAX).
SLOT_BYTES: Final = 4096
#: Where the count of records done is kept, before the slots.
_COUNT: Final = struct.Struct("<Q")
LEDGER_BYTES: Final = _COUNT.size + SLOTS * SLOT_BYTES


class Ledger:
    """The temporaries of a run and how many records it has done, in a writable buffer
    of :data:`LEDGER_BYTES` bytes (a shared ``mmap``): each slot holds a path, ended by a
    zero byte, or starts with a zero byte when free. Only the run writes it; the
    supervisor reads it once the run has ended."""

    def __init__(self, buffer: memoryview) -> None:
        if len(buffer) < LEDGER_BYTES:
            raise ValueError(f"a ledger takes {LEDGER_BYTES} bytes, not {len(buffer)}")
        self.buffer = buffer

    def records_done(self) -> int:
        """The count of records the run last said it had done."""
        done: int = _COUNT.unpack_from(self.buffer, 0)[0]
        return done

    def set_records_done(self, count: int) -> None:
        _COUNT.pack_into(self.buffer, 0, max(0, count))

    def add(self, path: str) -> None:
        """List ``path`` in a free slot (not when it is too long or no slot is free)."""
        encoded = os.fsencode(path)
        if len(encoded) >= SLOT_BYTES or b"\0" in encoded:
            return
        for start in self._slots():
            if self.buffer[start] == 0:
                self.buffer[start + 1 : start + len(encoded) + 1] = encoded
                self.buffer[start + len(encoded) + 1] = 0
                self.buffer[start] = encoded[0]  # the slot is taken once it is whole
                return

    def discard(self, path: str) -> None:
        """Free the slot of ``path``, if it is listed."""
        encoded = os.fsencode(path)
        for start in self._slots():
            if self.buffer[start] != 0 and self._path_at(start) == encoded:
                self.buffer[start] = 0

    def paths(self) -> list[str]:
        """The paths listed."""
        return [os.fsdecode(self._path_at(start)) for start in self._slots() if self.buffer[start]]

    def remove_all(self) -> None:
        """Remove every temporary listed (a folder with what it holds) and free its slot."""
        for path in self.paths():
            with suppress(OSError):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)
            self.discard(path)

    def _slots(self) -> Iterator[int]:
        return iter(range(_COUNT.size, LEDGER_BYTES, SLOT_BYTES))

    def _path_at(self, start: int) -> bytes:
        # The first byte of a taken slot repeats the path's first; the path follows it.
        end = bytes(self.buffer[start + 1 : start + SLOT_BYTES]).find(b"\0")
        return bytes(self.buffer[start + 1 : start + 1 + end])


_ledger: list[Ledger] = []


def keep_ledger(ledger: Ledger) -> None:
    """List this process's temporaries in ``ledger`` from now on (the supervisor's run)."""
    _ledger[:] = [ledger]


def forget_ledger() -> None:
    """Keep no ledger in this process (a worker forked from the run's process)."""
    _ledger.clear()


def current_ledger() -> Ledger | None:
    """The ledger of this process's temporaries, if it keeps one."""
    return _ledger[0] if _ledger else None


def made(path: str | os.PathLike[str]) -> None:
    """A temporary file or folder was made at ``path``."""
    if _ledger:
        _ledger[0].add(os.path.abspath(path))


def removed(path: str | os.PathLike[str]) -> None:
    """The temporary at ``path`` is gone (removed, or renamed into place)."""
    if _ledger:
        _ledger[0].discard(os.path.abspath(path))
