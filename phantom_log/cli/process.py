"""The ``phantom-log`` process from start to end: the console script runs the command
line, and whatever ends it (a command's exit, a usage error, Ctrl-C, SIGTERM or SIGHUP,
a closed pipe, a full disk, a bug of phantom-log) becomes one exit code and at most one
line on standard error; standard output is flushed last, without waiting for ever on a
reader that stopped reading."""

from __future__ import annotations

import errno
import resource
import sys
from contextlib import suppress
from typing import Final, NoReturn

import click

from ..files.outputs import is_library_panic, ran_out_of_memory
from ..files.temporaries import current_ledger
from .exits import EXIT_FAILED, EXIT_OK


def run_command_line(program: click.Group) -> NoReturn:
    """Run the command line ``program`` as the console script does, and exit: ending
    quietly when the reader of standard output goes away (``phantom-log ... | head``,
    exit 141), on Ctrl-C (exit 130), on SIGTERM or SIGHUP (exit 143 or 129) once the
    temporary files are removed, with one line and exit 3 when standard output cannot be
    written (a full disk) or on a failure of phantom-log itself."""
    from ..files.outputs import Terminated, ending_cleanly_on_signals
    from ..running.collector import tune_collector_for_a_run
    from ..running.thread_failures import keep_thread_failures
    from .streams import escape_what_the_encoding_cannot_hold

    tune_collector_for_a_run()
    keep_thread_failures()
    escape_what_the_encoding_cannot_hold()
    try:
        with ending_cleanly_on_signals():
            code = _run_program(program)
    except Terminated as stop:  # the signal came as the run ended
        code = _terminated(stop)
    sys.exit(_flushed(code))


#: The errors of a write that found no room: a full disk, a quota, a file too large, a
#: device that failed.
_NO_ROOM: Final = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _run_program(program: click.Group) -> int:
    """Run ``program``; its exit code, whatever ends it."""
    from ..files.outputs import Terminated

    try:
        returned = program.main(prog_name="phantom-log", standalone_mode=False)
    except SystemExit as done:
        # click ends with 1 when standard output's reader went away, after wrapping stdout
        # to keep it quiet: that is no invalid record, but the end of a Unix tool's pipe.
        if type(sys.stdout).__name__.lstrip("_") == "PacifyFlushWrapper":
            return 141
        # An exit asked for while unwinding (a command's clean-up) after a signal or
        # Ctrl-C: the interruption is what ended the run.
        if isinstance(done.__context__, Terminated):
            return _terminated(done.__context__)
        if isinstance(done.__context__, KeyboardInterrupt):
            _say("phantom-log: interrupted")
            return 130
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        _say(str(done.code))
        return 1
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except Terminated as stop:
        return _terminated(stop)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _say("phantom-log: interrupted")
        return 130
    except BrokenPipeError:
        # End as a Unix tool whose reader went away (128 + SIGPIPE).
        _silence_standard_output()
        return 141
    except OSError as error:
        # What is written to a file goes through phantom_log.files.outputs, which names the file;
        # a failed write without a file name is one to standard output.
        if error.filename is None and error.errno in _NO_ROOM:
            _silence_standard_output()
            _say(f"phantom-log: error: cannot write standard output: {error.strerror}")
            return EXIT_FAILED
        return _out_of_memory() if ran_out_of_memory(error) else _internal_error(error)
    except MemoryError:
        return _out_of_memory()
    except Exception as error:
        return _out_of_memory() if ran_out_of_memory(error) else _internal_error(error)
    except BaseException as error:
        # A Rust library's panic (pyo3's PanicException) is no Exception.
        if not is_library_panic(error):
            raise
        return _out_of_memory() if ran_out_of_memory(error) else _internal_error(error)
    # with standalone_mode=False, click returns the code of an exit (a usage error).
    return returned if isinstance(returned, int) else EXIT_OK


def out_of_memory_line(records: int | None, killed: bool = False) -> str:
    """The one line of a run that ran out of memory (or was ``killed`` with SIGKILL, as
    the kernel's out-of-memory killer kills), after ``records`` records when known.
    Everything it needs is loaded beforehand: memory may have run out."""
    if killed:
        line = (
            "phantom-log: error: the run was killed "
            "(SIGKILL, as the kernel's out-of-memory killer does)"
        )
    else:
        line = "phantom-log: error: memory ran out"
    if records is not None:
        line += f" after {records:,} record{'s' if records != 1 else ''}"
    limit, _ = resource.getrlimit(resource.RLIMIT_AS)
    if limit != resource.RLIM_INFINITY and not killed:
        line += f" (this process may use {limit / 2**20:,.0f} MiB: ulimit -v)"
    return line + "; the run did not finish, and its output files were left as they were"


def _out_of_memory() -> int:
    """Memory ran out (Python's, or a library's that raised rather than aborted): said
    in one line, with the records done so far when the supervisor keeps count, exit 3."""
    ledger = current_ledger()
    _say(out_of_memory_line(None if ledger is None else ledger.records_done()))
    return EXIT_FAILED


def _internal_error(error: BaseException) -> int:
    """A bug: said in one line, never a traceback, exit 3."""
    _say(
        f"phantom-log: internal error ({type(error).__name__}); the run did not finish. "
        "This is a bug: please report it with the command and its input."
    )
    return EXIT_FAILED


def _terminated(stop: BaseException) -> int:
    """The run ended by SIGTERM or SIGHUP, its temporary files removed: 128 + the
    signal's number, as a shell reports a process that a signal ended."""
    from ..files.outputs import Terminated

    assert isinstance(stop, Terminated)
    _say(f"phantom-log: terminated ({stop.signal_name})")
    return stop.exit_code


def _say(message: str) -> None:
    """A line on standard error, if it can still be written (after SIGHUP, the terminal
    may be gone)."""
    with suppress(OSError, ValueError):
        click.echo(message, err=True)


def _silence_standard_output() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what
    could not be written does not fail again."""
    import os

    if sys.stdout is None:
        return
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


SIGNAL_EXIT_CODES: Final = frozenset({129, 130, 143})
"""The exit codes of a run ended by SIGHUP, Ctrl-C or SIGTERM."""


FLUSH_AFTER_SIGNAL_SECONDS: Final = 1.0
"""How long a run ended by a signal waits for standard output's reader."""


class _FlushTimedOut(BaseException):
    """Standard output's reader took nothing within :data:`FLUSH_AFTER_SIGNAL_SECONDS`."""


def _flushed(code: int) -> int:
    """``code`` once standard output is flushed: a reader gone away is 141, standard
    output that cannot be written (a full disk) is said in one line and exit 3.

    A run ended by a signal waits for the reader at most
    :data:`FLUSH_AFTER_SIGNAL_SECONDS`, then drops what is left: a signal can cut a write
    to a full pipe in two, leaving the rest buffered, and a reader that stopped reading
    (the pipe is full) would otherwise hold the ending run for ever."""
    if sys.stdout is None:
        return code
    try:
        if code in SIGNAL_EXIT_CODES:
            _flush_within(FLUSH_AFTER_SIGNAL_SECONDS)
        else:
            sys.stdout.flush()
    except _FlushTimedOut:
        _silence_standard_output()
        return code
    except BrokenPipeError:
        _silence_standard_output()
        return code if code >= 128 else 141
    except OSError as error:
        _silence_standard_output()
        _say(f"phantom-log: error: cannot write standard output: {error.strerror}")
        return max(code, EXIT_FAILED)
    return code


def _flush_within(seconds: float) -> None:
    """Flush standard output, or raise :class:`_FlushTimedOut` after ``seconds`` (where
    the platform has interval timers; elsewhere, flush and wait)."""
    import signal

    if not hasattr(signal, "setitimer"):
        sys.stdout.flush()
        return

    def give_up(_signal_number: int, _frame: object) -> None:
        raise _FlushTimedOut

    before = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        sys.stdout.flush()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
