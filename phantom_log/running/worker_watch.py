"""A worker process ends when the run's main process is gone.

A main process killed with SIGKILL (as the kernel's out-of-memory killer kills) runs no
clean-up: its workers would go on for minutes, one of them blocked for ever writing a
result to a pipe nobody reads. Each worker therefore watches the main process from a
thread of its own and ends itself (``os._exit``, which no blocked write can hold up)
within :data:`WATCH_SECONDS` of the main process's end. On Linux the watch holds a
descriptor of the main process (``pidfd_open``), which becomes readable when it ends and
cannot be fooled by a new process given the same number; elsewhere it asks, every
:data:`WATCH_SECONDS`, whether its parent changed or the main process still exists.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Final, NoReturn

from ..files.temporaries import forget_ledger
from .collector import tune_collector_for_a_run

#: How long a worker may outlive the run's main process, at most (seconds).
WATCH_SECONDS: Final = 0.5
#: A worker's exit status when it ends because the main process is gone.
ORPHANED_EXIT: Final = 70


def start_worker(main_pid: int) -> None:
    """What every worker process of a run does first (the pool's initializer): watch
    ``main_pid``, the run's main process, and tune the garbage collector for the run. A
    worker forked from the main process lists no temporaries in the main process's
    ledger: it removes its own."""
    forget_ledger()
    watch_main_process(main_pid)
    tune_collector_for_a_run()


def watch_main_process(main_pid: int, on_end: Callable[[], None] | None = None) -> None:
    """End this process, from a daemon thread, within :data:`WATCH_SECONDS` of the end of
    process ``main_pid``, calling ``on_end`` first (the command line's run removes its
    temporaries). A process already gone ends this one at once."""
    parent = os.getppid()
    descriptor = _process_descriptor(main_pid)
    if descriptor is None and not _alive(main_pid):
        _end(on_end)
    thread = threading.Thread(
        target=_watch,
        args=(main_pid, parent, descriptor, on_end),
        name="phantom-log main process watch",
        daemon=True,
    )
    thread.start()


def _process_descriptor(pid: int) -> int | None:
    """A descriptor of process ``pid`` that becomes readable when it ends (Linux 5.3 and
    later), or ``None`` where there is none (then :func:`_watch` polls)."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        descriptor: int = opener(pid)
    except OSError:
        return None
    return descriptor


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one this process may not signal exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _watch(
    main_pid: int, parent: int, descriptor: int | None, on_end: Callable[[], None] | None
) -> None:
    """Wait for the main process's end, then end this process."""
    if descriptor is not None:
        with suppress(OSError, ValueError):
            select.select([descriptor], [], [])
    else:
        while os.getppid() == parent and _alive(main_pid):
            threading.Event().wait(WATCH_SECONDS)
    _end(on_end)


def _end(on_end: Callable[[], None] | None) -> NoReturn:
    """End this process at once, once ``on_end`` has run."""
    if on_end is not None:
        with suppress(Exception):
            on_end()
    os._exit(ORPHANED_EXIT)
