"""The ``phantom-log`` process watches over its run, which a second process carries out.

Some ends of a run cannot be handled by the process that runs it: a library written in
Rust (polars, jsonschema-rs) that cannot allocate memory aborts the whole process (a
memory limit, ``ulimit -v``), a thread parked inside such a library does not let Python
act on SIGTERM, and the kernel's out-of-memory killer sends SIGKILL. So the console
script forks: the child runs the command line (:func:`.process.run_command_line`), and
the parent, which loads nothing and holds nothing, waits for it and

- passes its exit code on;
- says in one line that memory ran out, and after how many records, when the child was
  aborted (SIGABRT) or killed by SIGKILL from elsewhere, exit 3;
- passes SIGTERM, SIGHUP and SIGINT on to the child when they were sent to the parent
  alone (from the terminal, the whole process group gets them), and ends the child with
  SIGKILL when it has not ended :data:`END_SECONDS` after SIGTERM, SIGHUP, or a SIGINT
  sent by a process (Ctrl-C at the terminal is the child's to take as it does);
- removes the temporary files and folders the child had not removed
  (:mod:`phantom_log.files.temporaries`), whenever it did not end by itself;
- copies the child's standard error to its own, leaving out what a Rust library prints
  as it aborts (``memory allocation of N bytes failed``, its backtrace, jemalloc's
  complaints), so that the memory limit is said in phantom-log's one line. The child is
  told whether that standard error is a terminal (``PHANTOM_LOG_STDERR_TERMINAL``), so its
  progress line is drawn as before.

The child watches the parent in turn: a parent killed with SIGKILL makes the child remove
its temporaries and end (:mod:`phantom_log.running.worker_watch`).

Where ``fork`` or ``sigtimedwait`` is missing (not Linux), where the process already runs
other threads (a program that loaded a library before calling the console script's
function), or with ``PHANTOM_LOG_SUPERVISOR=0``, the command line runs in the one
process, as before.
"""

from __future__ import annotations

import os
import re
import select
import signal
import sys
import time
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
#: What a Rust library prints as it aborts for want of memory: whole lines, and the parts
#: of lines that several threads aborting at once write into each other's.
_ABORT_LINES: Final = re.compile(
    rb"stack backtrace:|skipping backtrace printing|note: Some details are omitted|"
    rb"Fatal glibc error: |"
    rb"fatal runtime error: |note: run with `RUST_BACKTRACE="
)
#: The first line of a Rust library's panic: it and the lines after it, up to the note on
#: backtraces that ends it, are left out.
_PANIC: Final = re.compile(rb"thread '[^']*'(?: \(\d+\))? panicked at ")
_PANIC_END: Final = re.compile(rb"note: run with `RUST_BACKTRACE=")
_ABORT_PARTS: Final = re.compile(
    rb"memory allocation of (?:\d+ bytes failed)?|<jemalloc>: [^\r\n]*|\d+ bytes failed"
)
#: The starts of those lines, which the parent holds back until the line is whole.
_NOISE_STARTS: Final = (
    b"memory",
    b"<jemalloc>",
    b"stack",
    b"skipping",
    b"note:",
    b"fatal",
    b"Fatal",
    b"thread",
)


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
    read_end, write_end = os.pipe()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        sys.stderr.flush()
        os.dup2(write_end, 2)
        os.close(write_end)
        _reopen_standard_error()
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        os.environ[STDERR_TERMINAL] = "1" if terminal else "0"
        # The abort of a Rust library: no backtrace. Unset, its panics end with a note
        # saying how to get one, which ends what the parent leaves out of standard error.
        os.environ.pop("RUST_BACKTRACE", None)
        keep_ledger(ledger)
        from ..running.worker_watch import watch_main_process

        watch_main_process(parent, on_end=ledger.remove_all)
        run_command_line(program)
    os.close(write_end)
    code = _watch_over(child, read_end, ledger)
    os._exit(code)


def _reopen_standard_error() -> None:
    """A new ``sys.stderr`` over descriptor 2, now the pipe to the parent: the one made at
    start-up took its descriptor for what it was then (a file, which may seek), and a
    stream that believes it may seek fails on a pipe. Encoding, errors and buffering as
    they were."""
    import io

    before = sys.stderr
    if not isinstance(before, io.TextIOWrapper):
        return
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
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


def _watch_over(child: int, errors: int, ledger: Ledger) -> int:
    """Wait for ``child``, copying its standard error from ``errors``; its exit code."""
    import threading

    copier = _ErrorCopier(errors)
    # The copy waits on the pipe in a thread of its own (which inherits the blocked
    # signals), and this thread on the signals: neither wakes but for something to do.
    copying = threading.Thread(target=copier.copy_all, name="standard error", daemon=True)
    copying.start()
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
            if (
                number != signal.SIGCHLD
                and not from_terminal
                and info.si_pid
                not in (
                    child,
                    os.getpid(),
                )
            ):
                # Sent to this process alone (``kill PID``): the child is told too. From
                # the terminal (si_pid 0), the whole group, the child with it, got it.
                with suppress(ProcessLookupError):
                    os.kill(child, number)
            info = signal.sigtimedwait(_WATCHED, 0)
        done, found = os.waitpid(child, os.WNOHANG)
        if done == child:
            status = found
        elif deadline is not None and time.monotonic() >= deadline:
            with suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
            deadline = None
    copying.join(_DRAIN_SECONDS)
    copier.finish()
    if not os.WIFEXITED(status):
        copier.end_line()
    return _exit_code(status, asked, ledger)


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
    if ended_by in (signal.SIGABRT, signal.SIGKILL):
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


def _quiet(line: bytes) -> bytes | None:
    """``line`` without what a Rust library wrote into it as it aborted, or ``None`` when
    nothing else is left (a progress line before it, up to its carriage return, stays)."""
    head, separator, tail = line.rpartition(b"\r")
    cleaned = b"" if _ABORT_LINES.match(tail) else _ABORT_PARTS.sub(b"", tail)
    if cleaned == tail:
        return line  # nothing of the library's (a blank line of ours, too)
    if cleaned.strip():
        return head + separator + cleaned
    return head + separator if separator else None


class _ErrorCopier:
    """Copies the child's standard error to this process's, leaving out the lines a Rust
    library prints as it aborts. A part of a line is copied at once (a progress line is
    redrawn without a line break), unless it may begin such a line."""

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        self.held = b""
        self.open = True
        #: Whether the lines copied now are a Rust library's panic message.
        self.in_panic = False
        #: Whether a blank line is held, until the next line says whether it begins a
        #: panic's message.
        self.blank = False
        #: Whether what was copied last ended its line (the supervisor's own line, if
        #: it must say one, starts on a line of its own).
        self.line_ended = True

    def copy(self, timeout: float | None) -> None:
        """Copy what the child wrote within ``timeout`` seconds (``None``: once it has
        written something, or ended)."""
        if not self.open:
            return
        ready, _, _ = select.select([self.descriptor], [], [], timeout)
        if not ready:
            return
        data = os.read(self.descriptor, 65536)
        if not data:
            self.open = False
            os.close(self.descriptor)
            self._write(b"\n" * self.blank + self.held)
            self.held = b""
            self.blank = False
            return
        self._write(self._filtered(self.held + data))

    def copy_all(self) -> None:
        """Copy until the pipe ends (the child and whatever it started have ended)."""
        while self.open:
            self.copy(None)

    def finish(self) -> None:
        """Write what is held back, once copying has stopped."""
        if self.held or self.blank:
            self._write(b"\n" * self.blank + self.held)
            self.held = b""
            self.blank = False

    def _filtered(self, data: bytes) -> bytes:
        lines = data.split(b"\n")
        last = lines.pop()
        out = b""
        if lines and not self.line_ended:
            # The first line goes on with what was copied already (a line written in
            # parts, a progress line): it ends that line, whatever is left of it.
            kept = _quiet(lines[0]) if lines[0] else lines[0]
            out += (kept or b"") + b"\n"
            lines = lines[1:]
        for line in lines:
            tail = line.rpartition(b"\r")[2]
            if self.in_panic or _PANIC.match(tail):
                # A panic's lines, and the blank line Rust writes before them.
                self.in_panic = not _PANIC_END.match(tail)
                self.blank = False
                continue
            if self.blank:
                out += b"\n"
                self.blank = False
            if not line:
                self.blank = True  # written once the next line is known
                continue
            kept = _quiet(line)
            if kept is not None:
                out += kept + b"\n"
        # A progress line is redrawn after a carriage return: what follows the last one
        # may be the start of a Rust library's line, held until it is whole.
        tail = last.rpartition(b"\r")[2]
        if tail and (
            tail[:1].isdigit()  # what is left of a line another process wrote into
            or _ABORT_PARTS.search(tail)
            or any(tail.startswith(start) or start.startswith(tail) for start in _NOISE_STARTS)
        ):
            self.held = last
            return out
        self.held = b""
        return out + last

    def end_line(self) -> None:
        """End the line copied last, if it was left open (a progress line)."""
        if not self.line_ended:
            self._write(b"\n")

    def _write(self, data: bytes) -> None:
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
