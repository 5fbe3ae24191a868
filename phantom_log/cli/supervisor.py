"""The ``phantom-log`` process watches over its run, which a second process carries out.

Some ends of a run cannot be handled by the process that runs it: a library written in
Rust (polars) that cannot allocate memory aborts the whole process (a
memory limit, ``ulimit -v``), a thread parked inside such a library does not let Python
act on SIGTERM, and the kernel's out-of-memory killer sends SIGKILL. So the console
script forks: the child runs the command line (:func:`.process.run_command_line`), and
the parent, which loads nothing and holds nothing, waits for it and

- passes its exit code on;
- says in one line that memory ran out, and after how many records, when the child was
  aborted (SIGABRT), killed by SIGKILL from elsewhere, or crashed (SIGSEGV, SIGBUS) under
  a memory limit (``ulimit -v``, where a library that finds no memory may crash), exit 3;
- passes SIGTERM, SIGHUP and SIGINT on to the child when they were sent to the parent
  alone (from the terminal, the whole process group gets them), and ends the child with
  SIGKILL when it has not ended :data:`END_SECONDS` after SIGTERM, SIGHUP, or a SIGINT
  sent by a process (Ctrl-C at the terminal is the child's to take as it does);
- removes the temporary files and folders the child had not removed
  (:mod:`phantom_log.files.temporaries`), whenever it did not end by itself;
- copies the child's standard error to its own. The child's standard error comes on two
  pipes: what phantom-log writes (``sys.stderr``: its problems, its progress line), copied
  as it comes and as it is; and what is written to descriptor 2 itself, by the libraries
  (a Rust library's ``memory allocation of N bytes failed`` and backtrace as it aborts,
  jemalloc's complaints, multiprocessing's resource tracker), by the C runtime, or by a
  program the run starts (the pager). That second stream is held, and copied once the
  child has ended, unless the run failed (it ended by a signal, or with exit 3): then
  phantom-log's one line says what happened, and the libraries' lines are left out. The
  child is told whether standard error is a terminal (``PHANTOM_LOG_STDERR_TERMINAL``),
  so its progress line is drawn as before.

The child watches the parent in turn: a parent killed with SIGKILL makes the child remove
its temporaries and end (:mod:`phantom_log.running.worker_watch`).

Where ``fork`` or ``sigtimedwait`` is missing (not Linux), where the process already runs
other threads (a program that loaded a library before calling the console script's
function), or with ``PHANTOM_LOG_SUPERVISOR=0``, the command line runs in the one
process, as before.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Final, NoReturn

import click

from ..files.temporaries import LEDGER_BYTES, Ledger, keep_ledger
from ..views.terminal import STDERR_TERMINAL
from .exits import EXIT_FAILED
from .process import out_of_memory_line, run_command_line

#: How long a child sent a terminating signal has to end before SIGKILL (it ends its
#: workers within 5 s and flushes its output within 1 s).
END_SECONDS: Final = 8.0
#: How long the parent sleeps, at most, between two looks at the child (it wakes at once
#: on a signal and when the child ends).
_WAKE_SECONDS: Final = 1.0
#: How long the parent copies standard error after the child's end (a worker of the child
#: may still hold it a moment: they end within half a second of the child).
_DRAIN_SECONDS: Final = 2.0
_TERMINATING: Final = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
_WATCHED: Final = (*_TERMINATING, signal.SIGCHLD)
#: The most the parent holds of what was written to the child's descriptor 2 itself; the
#: rest is left out (a library's abort writes a few lines).
_HELD_BYTES: Final = 256 * 1024


def supervised(program: click.Group) -> NoReturn:
    """Run ``program`` in a child process watched over as the module says, and exit as
    it did."""
    if (
        os.environ.get("PHANTOM_LOG_SUPERVISOR") == "0"
        or not hasattr(os, "fork")
        or not hasattr(signal, "sigtimedwait")
        or not _single_threaded()
    ):
        run_command_line(program)
    import mmap

    shared = mmap.mmap(-1, LEDGER_BYTES)
    ledger = Ledger(memoryview(shared))
    terminal = _is_terminal(2)
    own_read, own_write = os.pipe()
    raw_read, raw_write = os.pipe()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        os.close(own_read)
        os.close(raw_read)
        sys.stderr.flush()
        os.dup2(raw_write, 2)
        os.close(raw_write)
        _reopen_standard_error(own_write)
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        os.environ[STDERR_TERMINAL] = "1" if terminal else "0"
        # The abort of a Rust library: no backtrace.
        os.environ.pop("RUST_BACKTRACE", None)
        keep_ledger(ledger)
        from ..running.worker_watch import watch_main_process

        watch_main_process(parent, on_end=ledger.remove_all)
        run_command_line(program)
    os.close(own_write)
    os.close(raw_write)
    code = _watch_over(child, own_read, raw_read, ledger)
    os._exit(code)


def _reopen_standard_error(descriptor: int) -> None:
    """A new ``sys.stderr`` over ``descriptor``, the pipe that carries phantom-log's own
    lines to the parent. Encoding, errors and buffering as they were."""
    import io

    before = sys.stderr
    if not isinstance(before, io.TextIOWrapper):
        os.dup2(descriptor, 2)  # a stream replaced by the embedding program: one pipe
        os.close(descriptor)
        return
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(descriptor, "w", closefd=True)),
        encoding=before.encoding,
        errors=before.errors,
        line_buffering=True,
        write_through=before.write_through,
    )


def _single_threaded() -> bool:
    """Whether this process runs one thread, as the console script does: the signals it
    blocks then reach it alone (a thread of a library loaded before, as an embedding
    program may have, would take them). Known from /proc; elsewhere, not known: no."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _is_terminal(descriptor: int) -> bool:
    try:
        return os.isatty(descriptor)
    except OSError:
        return False


def _watch_over(child: int, own: int, raw: int, ledger: Ledger) -> int:
    """Wait for ``child``, copying its standard error: phantom-log's lines from ``own`` as
    they come, what was written to its descriptor 2 from ``raw`` once it has ended (or
    not at all, if the run failed); its exit code."""
    import threading

    copier = _ErrorCopier(own)
    holder = _Holder(raw)
    # The copies wait on the pipes in threads of their own (which inherit the blocked
    # signals), and this thread on the signals: none wakes but for something to do.
    copying = threading.Thread(target=copier.copy_all, name="standard error", daemon=True)
    holding = threading.Thread(target=holder.hold_all, name="descriptor 2", daemon=True)
    copying.start()
    holding.start()
    deadline: float | None = None
    asked: int | None = None  # the terminating signal the parent was sent
    status: int | None = None
    while status is None:
        wait = _WAKE_SECONDS if deadline is None else max(deadline - time.monotonic(), 0)
        info = signal.sigtimedwait(_WATCHED, wait)
        while info is not None:
            number = info.si_signo
            from_terminal = info.si_pid == 0
            if number == signal.SIGCHLD:
                pass
            elif asked is None and not (number == signal.SIGINT and from_terminal):
                # Ctrl-C from the terminal is the child's to take as it does (a pager
                # shown by the child takes it for itself, and the run goes on).
                asked = number
                deadline = time.monotonic() + END_SECONDS
            _pass_on(info, child)
            info = signal.sigtimedwait(_WATCHED, 0)
        done, found = os.waitpid(child, os.WNOHANG)
        if done == child:
            status = found
        elif deadline is not None and time.monotonic() >= deadline:
            with suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
            deadline = None
    copying.join(_DRAIN_SECONDS)
    holding.join(_DRAIN_SECONDS)
    failed = not os.WIFEXITED(status) or os.WEXITSTATUS(status) == EXIT_FAILED
    held = holder.held()
    if held and not failed:
        copier.end_line()
        copier.write(held)
    if not os.WIFEXITED(status):
        copier.end_line()
    return _exit_code(status, asked, ledger)


def _pass_on(info: signal.struct_siginfo, child: int) -> None:
    """A signal sent to this process alone (``kill PID``) is sent to the child too. From
    the terminal (``si_pid`` 0), the whole group, the child with it, got it."""
    sender = info.si_pid
    if info.si_signo != signal.SIGCHLD and sender != 0 and sender not in (child, os.getpid()):
        with suppress(ProcessLookupError):
            os.kill(child, info.si_signo)


def _exit_code(status: int, asked: int | None, ledger: Ledger) -> int:
    """The run's exit code from the child's ``status``, saying what a child that ended
    by a signal could not say itself, and cleaning up after it."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    ended_by = os.WTERMSIG(status)
    ledger.remove_all()
    records = ledger.records_done()
    if asked is not None:
        name = signal.Signals(asked).name
        _say(
            "phantom-log: interrupted"
            if asked == signal.SIGINT
            else f"phantom-log: terminated ({name})"
        )
        return 128 + asked
    if ended_by == signal.SIGPIPE:
        return 141
    limited = resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY
    if ended_by in (signal.SIGABRT, signal.SIGKILL) or (
        limited and ended_by in (signal.SIGSEGV, signal.SIGBUS)
    ):
        _say(out_of_memory_line(records, killed=ended_by == signal.SIGKILL))
        return EXIT_FAILED
    _say(
        f"phantom-log: internal error (the run ended by {signal.Signals(ended_by).name}); "
        "the run did not finish. This is a bug: please report it with the command and its "
        "input."
    )
    return EXIT_FAILED


def _say(message: str) -> None:
    with suppress(OSError):
        os.write(2, (message + "\n").encode(sys.getfilesystemencoding(), "backslashreplace"))


def _read_until_the_end(descriptor: int, take: Callable[[bytes], None]) -> None:
    """Give ``take`` what is read from ``descriptor`` until it ends, then close it."""
    while True:
        try:
            data = os.read(descriptor, 65536)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            with suppress(OSError):
                os.close(descriptor)
            return
        take(data)


class _ErrorCopier:
    """Copies phantom-log's own standard error lines to this process's, as they come (a
    progress line is redrawn without a line break), keeping whether the last line ended."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        #: Whether what was copied last ended its line (the supervisor's own line, if
        #: it must say one, starts on a line of its own).
        self.line_ended = True

    def copy_all(self) -> None:
        """Copy until the pipe ends (the child and whatever it started have ended)."""
        _read_until_the_end(self.descriptor, self.write)

    def end_line(self) -> None:
        """End the line copied last, if it was left open (a progress line)."""
        if not self.line_ended:
            self.write(b"\n")

    def write(self, data: bytes) -> None:
        if data:
            self.line_ended = data.endswith(b"\n")
        while data:
            try:
                written = os.write(2, data)
            except InterruptedError:
                continue
            except OSError:
                return
            data = data[written:]


class _Holder:
    """Holds what was written to the child's descriptor 2 itself, up to
    :data:`_HELD_BYTES`."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        self.parts: list[bytes] = []
        self.size = 0

    def hold_all(self) -> None:
        """Read until the pipe ends (the child and whatever it started have ended)."""
        _read_until_the_end(self.descriptor, self._hold)

    def _hold(self, data: bytes) -> None:
        if self.size < _HELD_BYTES:
            kept = data[: _HELD_BYTES - self.size]
            self.parts.append(kept)
            self.size += len(kept)

    def held(self) -> bytes:
        return b"".join(self.parts)
