"""What ended a thread of the run by an exception: the command line keeps it instead of
printing a traceback, and the pipeline asks for it when the thread that feeds its worker
processes has died (under a memory limit, a thread the pool starts cannot get its
stack), so that the run ends with what happened instead of waiting for ever."""

from __future__ import annotations

import threading
from contextlib import suppress
from typing import Final

_failures: Final[dict[int, BaseException]] = {}


def keep_thread_failures() -> None:
    """From now on, an exception that ends a thread is kept, not printed (the command
    line's process: it says what ended the run in one line)."""
    threading.excepthook = _keep


#: The thread of a process pool that hands tasks to its workers: the pipeline says what
#: ended it.
_POOL_MANAGER: Final = "_ExecutorManagerThread"


def _keep(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is None or args.thread is None or not args.thread.ident:
        return
    _failures[args.thread.ident] = args.exc_value
    if type(args.thread).__name__ != _POOL_MANAGER:
        import sys

        from ..files.outputs import ran_out_of_memory

        what = "memory ran out" if ran_out_of_memory(args.exc_value) else args.exc_type.__name__
        with suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(f"phantom-log: warning: a thread of the run ended ({what})\n")


def failure_of(thread: threading.Thread) -> BaseException | None:
    """The exception that ended ``thread``, if one did and it was kept."""
    return None if thread.ident is None else _failures.get(thread.ident)
