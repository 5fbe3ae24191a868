"""A Dask cluster of this machine for one run (``--scheduler local``), that ends as every
run of the command line ends: Ctrl-C, SIGTERM or SIGHUP end it with the command line's
one line and exit code, never a traceback of Dask's, and it leaves nothing behind.

- **Only this process hears Ctrl-C.** Ctrl-C sends SIGINT to every process of the
  terminal's process group, the worker processes too, where it would raise
  ``KeyboardInterrupt`` in the middle of Dask's event loop (and print its traceback).
  SIGINT is blocked while the cluster starts, in the thread that starts it: every thread
  the cluster starts (its event loop) and every worker process they start inherit the
  block and never see SIGINT. The run's own thread takes it back at once, and takes a
  Ctrl-C that came meanwhile, when the cluster has started; unwinding then closes the
  cluster, which stops its workers. SIGTERM and SIGHUP end the workers as they end any
  worker process of a run (:func:`phantom_log.files.outputs.ending_cleanly_on_signals`);
  while the cluster starts, they too wait until it has started (or failed to), so that
  no thread of a cluster cut short in its start goes on after the run. The resource
  tracker the workers share never sees SIGHUP.
- **Its scratch space** (``dask-scratch-space``, the workers' lock files and spilled
  data) is in a temporary folder of the run (:func:`phantom_log.files.outputs.work_folder`),
  removed at its end, by Ctrl-C and SIGTERM too; never in the working folder or
  ``TMPDIR`` itself.
- **It is private.** Its scheduler, its web server and its workers listen on this
  machine only, each on a free port: another cluster on Dask's ports changes nothing.
- **Its logs are silent.** Dask's warnings of a cluster going down (a worker that takes
  time to end, the connections closed) say nothing the run does not say: a worker that
  dies ends the run with its own message.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

#: Above every level Dask logs at: nothing of the cluster's logging is shown.
SILENT: Final = logging.CRITICAL + 10
#: The loggers of Dask and of what it runs on (the last words of an event loop stopped).
_LOGGERS: Final = ("distributed", "tornado", "asyncio")


@contextmanager
def local_cluster_client(workers: int) -> Iterator[Client]:
    """A client of a cluster of this machine, ``workers`` worker processes of one thread
    each, for the block: deaf to Ctrl-C but for this process, its scratch space in a
    temporary folder of the run, its logs silent (see the module's description)."""
    import dask.config
    from distributed import Client, LocalCluster

    from ..files.outputs import signals_held, work_folder

    with ExitStack() as stack:
        scratch = stack.enter_context(work_folder())
        # The scheduler's and the workers' scratch space (the workers are given this
        # configuration when they start).
        stack.enter_context(dask.config.set({"temporary-directory": str(scratch)}))
        stack.enter_context(_silent_logs())
        # Started whole, or not at all: a signal meanwhile is taken once it has started
        # (or failed to), and unwinding then closes it.
        with _interrupts_held(), signals_held():
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # The scheduler's own web server (metrics, health) on a free port of
                    # this machine only: another cluster on Dask's port 8787 would
                    # otherwise make it warn on standard error.
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=SILENT,
                )
            )
        client = stack.enter_context(Client(cluster))
        try:
            yield client
        except BaseException:
            # Interrupted (or failed): the tasks in flight are dropped, so the workers
            # are ended now rather than asked to finish them.
            _end_workers(cluster)
            raise


def _end_workers(cluster: LocalCluster) -> None:
    """Send SIGTERM to the cluster's worker processes, which end at once (SIGTERM does
    what it does by default there); closing the cluster then waits for no task."""
    import os

    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if isinstance(pid, int):
            with suppress(OSError):  # it may have ended meanwhile
                os.kill(pid, signal.SIGTERM)


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Within the block, SIGINT is blocked in this thread, and so in every thread and
    process started here; one that came meanwhile is taken when the block ends (raising
    ``KeyboardInterrupt`` there). Nothing is held outside the main thread, which is the
    one that takes signals, nor where threads' signal masks cannot be set."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not (
        threading.main_thread()
    ):
        yield
        return
    _start_resource_tracker()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the process that the cluster's worker
    processes tell of their semaphores), SIGHUP blocked in it for good: it ignores SIGINT
    and SIGTERM itself, but SIGHUP to the process group (a terminal closed) would end it,
    and the one started again in its place would print a traceback for every semaphore
    it was never told of. Started here, before SIGINT is blocked: starting it unblocks
    SIGINT in the thread that starts it (bpo-33613), and no thread of the cluster must."""
    from multiprocessing import resource_tracker

    hangup = getattr(signal, "SIGHUP", None)
    held = {hangup} if hangup is not None else set()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def _silent_logs() -> Iterator[None]:
    """Within the block, Dask's loggers (and tornado's and asyncio's) say nothing."""
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    levels = [found.level for found in loggers]
    for found in loggers:
        found.setLevel(SILENT)
    try:
        yield
    finally:
        for found, level in zip(loggers, levels, strict=True):
            found.setLevel(level)
