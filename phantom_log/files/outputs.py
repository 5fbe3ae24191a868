"""Writing output files safely: never over an existing file unless asked, and atomically
(a temporary file in the same folder, then a rename), so a reader never sees half a file
and a failed run leaves nothing behind.

What "safely" covers:

- ``-`` and ``/dev/stdout`` are standard output, for the commands that accept it.
- ``--force`` on a symbolic link writes the file at the end of the link chain (the
  temporary file in that file's folder); the link itself stays.
- A FIFO, a socket, a device, a directory or a link loop is never a place to write: it is
  refused (:class:`OutputRefused`, a usage error), with or without ``--force``.
- A write that fails (a full disk, a folder without write permission) is
  :class:`OutputFailed`, naming the output; the temporary file is removed.
- SIGTERM and SIGHUP unwind the run as Ctrl-C does (:func:`ending_cleanly_on_signals`),
  so every temporary file and folder is removed then too.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType
from typing import IO, Final

from .kinds import file_kind

STANDARD_OUTPUT: Final = "-"
# The names of standard output: writing there means writing to our own standard output,
# never replacing whatever file it happens to be redirected to.
_STANDARD_OUTPUT_NAMES: Final = frozenset({"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
# Other open descriptors (/dev/stderr, /proc/self/fd/3, ...) are refused: their link
# targets are no paths to write ("pipe:[123]"), or files another process has open.
_DESCRIPTOR: Final = re.compile(r"/dev/(?:std(?:in|err)|fd/\d+)|/proc/[^/]+/fd/\d+")
# Names of what is written that are no file names.
_STANDARD_OUTPUT_NAME: Final = "standard output"
_TEMPORARY_FOLDER_NAME: Final = "the temporary folder (TMPDIR)"
_MAX_LINKS: Final = 40  # as the kernel's limit on a chain of symbolic links
# A failure of the operating system as Rust libraries (polars) word it in their errors.
_RUST_OS_ERROR: Final = re.compile(r"\(os error (\d+)\)")
_POLARS_WRITE_ERROR: Final = re.compile(r"IO error|transport error")


class OutputExists(FileExistsError):
    """The output file exists and overwriting it was not asked for."""


class OutputRefused(ValueError):
    """The output path is no place for a file (a FIFO, a device, a directory, a link
    loop, a folder that does not exist): a usage error, whatever ``--force`` says."""


class OutputFailed(OSError):
    """The output could not be written (a full disk, no permission): the message names
    the output and the reason; nothing was left in its place."""


def is_standard_output(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names standard output: ``-``, ``/dev/stdout`` (or ``/dev/fd/1``)."""
    text = os.fspath(path)
    return text == STANDARD_OUTPUT or os.path.normpath(text) in _STANDARD_OUTPUT_NAMES


def write_failure(error: BaseException) -> str | None:
    """The reason, worded by the operating system, when ``error`` is the failure of a
    write (a full disk, no permission); ``None`` for any other error, which is left to
    propagate. A closed pipe is no failure of ours: ``None`` too."""
    if isinstance(error, BrokenPipeError):
        return None
    text = str(error)
    found = _RUST_OS_ERROR.search(text)
    if found is not None and isinstance(error, Exception):
        # polars raises OSError (sink_csv) or its ComputeError (sink_parquet) with the
        # text of the Rust error, whose number is the errno.
        return os.strerror(int(found.group(1)))
    if isinstance(error, OSError):
        return error.strerror or text or type(error).__name__
    if type(error).__module__.startswith("polars") and _POLARS_WRITE_ERROR.search(text):
        # A Parquet writer that failed in its footer has lost the errno on the way.
        return text
    return None


def _failed(path: str, reason: str, target: str | None = None) -> OutputFailed:
    if path in (_STANDARD_OUTPUT_NAME, _TEMPORARY_FOLDER_NAME):
        return OutputFailed(f"cannot write {path}: {reason}")
    through = f" (the file its link points to, {target})" if target else ""
    return OutputFailed(f"cannot write {path}{through}: {reason}; {path} is left as it was")


def output_target(
    path: str | os.PathLike[str], force: bool, standard_output: bool = False
) -> Path | None:
    """Where writing ``path`` goes: the file to create or replace, or ``None`` for
    standard output (only when ``standard_output`` is accepted).

    A symbolic link is followed to the end of its chain (with ``force``: without it,
    any existing path, a dangling link too, raises :class:`OutputExists`). Raises
    :class:`OutputRefused` for a FIFO, socket, device, directory, link loop, open
    descriptor or missing folder, and :class:`OutputFailed` for a folder that cannot be
    written, so that a run can be refused before it does its work.
    """
    text = os.fspath(path)
    if is_standard_output(text):
        if not standard_output:
            raise OutputRefused(
                f"{text}: standard output is not accepted for this output; give a file name"
            )
        return None
    if not text or os.path.basename(text) in ("", ".", ".."):
        raise OutputRefused(f"{text!r}: not a file name")
    current = text
    for _ in range(_MAX_LINKS):
        name = os.path.normpath(os.path.abspath(current))
        if name in _STANDARD_OUTPUT_NAMES:  # reached through a link
            if not force:
                raise OutputExists(f"{text} exists; use --force to overwrite it")
            if not standard_output:
                raise OutputRefused(
                    f"{text}: a link to standard output, not accepted for this output"
                )
            return None
        if _DESCRIPTOR.fullmatch(name):
            raise OutputRefused(f"{text}: an open file descriptor, not a file to write")
        if not os.path.islink(current):
            break
        try:
            link = os.readlink(current)
        except OSError as error:
            raise _failed(text, write_failure(error) or str(error)) from None
        current = os.path.join(os.path.dirname(current), link)
    else:
        raise OutputRefused(f"{text}: a loop of symbolic links")
    through = current if current != text else None
    where = f"{text} (through its link to {through})" if through else text
    try:
        mode: int | None = os.stat(current).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OutputRefused(f"{where}: a loop of symbolic links") from None
        if error.errno == errno.ENOTDIR:
            raise OutputRefused(f"{where}: a folder in the path is a file") from None
        raise _failed(text, write_failure(error) or str(error), through) from None
    kind = None if mode is None else file_kind(mode)
    if kind is not None:
        raise OutputRefused(
            f"{where} is {kind}; phantom-log writes regular files only "
            "(- or /dev/stdout for standard output, where a command accepts it)"
        )
    if not force and os.path.lexists(text):
        raise OutputExists(f"{text} exists; use --force to overwrite it")
    folder = os.path.dirname(current) or "."
    if not os.path.isdir(folder):
        raise OutputRefused(f"{where}: the folder {folder} does not exist")
    effective = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if not os.access(folder, os.W_OK | os.X_OK, **effective):
        raise _failed(text, f"the folder {folder} is not writable (permission denied)", through)
    return Path(current)


def check_writable(
    path: str | os.PathLike[str], force: bool, standard_output: bool = False
) -> None:
    """Refuse, before any work, an output that cannot be written: see
    :func:`output_target` for what is raised."""
    output_target(path, force, standard_output)


def _fsync(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


@contextmanager
def _failures_as(path: str, target: str | None = None) -> Iterator[None]:
    """A write failure in the block becomes :class:`OutputFailed` naming ``path``."""
    try:
        yield
    except (OutputExists, OutputRefused, OutputFailed):
        raise
    except Exception as error:
        reason = write_failure(error)
        if reason is None:
            raise
        raise _failed(path, reason, target) from error


@contextmanager
def atomic_path(
    path: str | os.PathLike[str], force: bool = False, standard_output: bool = False
) -> Iterator[Path]:
    """A temporary path, beside the output, to write; on success it becomes the output
    in one step (for standard output, its bytes are copied there).

    Refuses as :func:`output_target` does (the file existing without ``force`` is
    checked before and again at the end). A write that fails in the block or at the end
    raises :class:`OutputFailed`. Whatever ends the block early (an error, Ctrl-C,
    SIGTERM), the temporary file is removed and the output is left as it was.
    """
    text = os.fspath(path)
    target = output_target(text, force, standard_output)
    if target is None:
        with _standard_output_copy() as copied:
            yield copied
        return
    through = os.fspath(target) if os.path.islink(text) else None
    temporary: Path | None = None
    try:
        # Made and remembered with the signals held, so that no SIGTERM falls between.
        with _signals_deferred(), _failures_as(text, through):
            handle, name = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
            )
            temporary = Path(name)
            os.close(handle)
        with _failures_as(text, through):
            try:
                # A replaced file keeps its permissions; a new one gets those any new file
                # gets (mkstemp makes it private, 0600).
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(temporary, mode)
            yield temporary
            # A full disk may only show when the data reaches it.
            _fsync(temporary)
            if force:
                os.replace(temporary, target)
            else:
                _link_new(temporary, target, text)
    finally:
        if temporary is not None:
            with _signals_deferred(), suppress(OSError):
                temporary.unlink(missing_ok=True)


def _link_new(temporary: Path, target: Path, text: str) -> None:
    """Give ``temporary`` the name ``target``, which must not exist."""
    try:
        # link() fails if the target appeared meanwhile, where rename would overwrite it.
        os.link(temporary, target)
    except FileExistsError:
        raise OutputExists(f"{text} exists; use --force to overwrite it") from None
    except OSError as error:
        # A file system without hard links (FAT, some network ones): check, then rename.
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if os.path.lexists(target):
            raise OutputExists(f"{text} exists; use --force to overwrite it") from None
        os.rename(temporary, target)


@contextmanager
def _standard_output_copy() -> Iterator[Path]:
    """A temporary path whose bytes go to standard output once the block succeeds (for
    writers that need a path, as polars and matplotlib do)."""
    with work_folder() as folder:
        temporary = folder / "output"
        yield temporary
        with _standard_output() as stream, open(temporary, "rb") as source:
            shutil.copyfileobj(source, stream)


@contextmanager
def _standard_output() -> Iterator[IO[bytes]]:
    """Standard output as bytes, after what was printed before; a failed write (not a
    closed pipe) raises :class:`OutputFailed`."""
    with _failures_as(_STANDARD_OUTPUT_NAME):
        sys.stdout.flush()
        stream = sys.stdout.buffer
        yield stream
        stream.flush()


@contextmanager
def atomic_output(
    path: str | os.PathLike[str], force: bool = False, standard_output: bool = False
) -> Iterator[IO[bytes]]:
    """A binary file to write, through :func:`atomic_path` (standard output itself,
    written as it comes, when ``path`` names it and ``standard_output`` is accepted)."""
    if standard_output and output_target(path, force, standard_output) is None:
        with _standard_output() as stream:
            yield stream
        return
    with atomic_path(path, force) as temporary, open(temporary, "wb") as stream:
        yield stream


def write_atomically(
    path: str | os.PathLike[str],
    data: bytes | str,
    force: bool = False,
    standard_output: bool = False,
) -> None:
    """Write ``data`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path, force, standard_output) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)


@contextmanager
def work_folder() -> Iterator[Path]:
    """A private temporary folder (in ``TMPDIR``) for intermediate files, removed when
    the block ends, by an error, Ctrl-C or SIGTERM alike."""
    folder: str | None = None
    try:
        with _signals_deferred(), _failures_as(_TEMPORARY_FOLDER_NAME):
            folder = tempfile.mkdtemp(prefix="phantom-log-")
        yield Path(folder)
    finally:
        if folder is not None:
            with _signals_deferred():
                shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def writing_work_files(folder: Path) -> Iterator[None]:
    """A failure to write intermediate files into ``folder`` becomes
    :class:`OutputFailed` with a hint (a full ``TMPDIR`` is no bug of phantom-log)."""
    try:
        yield
    except Exception as error:
        reason = write_failure(error)
        if reason is None:
            raise
        raise OutputFailed(
            f"cannot write the temporary folder {folder}: {reason} "
            "(set TMPDIR to a folder with room)"
        ) from error


# --- ending on a signal --------------------------------------------------------------------

TERMINATING_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Terminated(BaseException):
    """The process was asked to end (SIGTERM, SIGHUP). Raised in the main thread, as
    KeyboardInterrupt is for Ctrl-C, so that every ``finally`` block and context manager
    runs and removes its temporaries; a :class:`BaseException`, so that no
    ``except Exception`` (a record's isolation) takes it for a failure of one record."""

    def __init__(self, signal_number: int) -> None:
        self.signal_number = signal_number
        self.signal_name = signal.Signals(signal_number).name
        super().__init__(f"ended by {self.signal_name}")

    @property
    def exit_code(self) -> int:
        """128 + the signal's number, as a shell reports a process a signal ended."""
        return 128 + self.signal_number


class _Ending:
    """The state of :func:`ending_cleanly_on_signals` shared with its handler."""

    def __init__(self) -> None:
        self.held = 0  # inside _signals_deferred: a signal waits for the end of the block
        self.pending: int | None = None
        self.ending = False

    def reset(self) -> None:
        self.held, self.pending, self.ending = 0, None, False


_ending = _Ending()


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Within the block, :class:`Terminated` waits: it is raised when the block ends.

    For the few steps that must not be cut in two: making a temporary and remembering
    it (so that it is removed), removing it.
    """
    _ending.held += 1
    try:
        yield
    finally:
        _ending.held -= 1
    if not _ending.held and _ending.pending is not None:
        signal_number, _ending.pending = _ending.pending, None
        raise Terminated(signal_number)


@contextmanager
def signals_held() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP wait: :class:`Terminated` is raised when the
    block ends, even when the block failed meanwhile (the signal ended its workers: the
    failure is the signal's).

    For a step that must run whole or leave threads behind: starting a Dask cluster,
    whose threads, cut short, would go on writing after the run unwound."""
    try:
        with _signals_deferred():
            yield
    except Exception:
        if _ending.held or _ending.pending is None:
            raise
        signal_number, _ending.pending = _ending.pending, None
        raise Terminated(signal_number) from None


@contextmanager
def ending_cleanly_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` in this process.

    A signal set to be ignored when the block starts (``nohup``) stays ignored. The
    worker processes are sent the same signal, so that none outlives the run or holds it
    up. A worker forked while the handler is in place inherits it: there, the signal
    does what it does by default (the worker ends), never raising in the worker. A second
    signal while the run unwinds is ignored, so that the clean-up is not cut short.
    """
    main_process = os.getpid()

    def handler(signal_number: int, _frame: FrameType | None) -> None:
        if os.getpid() != main_process:
            signal.signal(signal_number, signal.SIG_DFL)
            os.kill(os.getpid(), signal_number)
            return
        if _ending.ending:
            return
        _ending.ending = True
        _signal_workers(signal_number)
        if _ending.held:
            _ending.pending = signal_number
            return
        raise Terminated(signal_number)

    previous = {}
    for signal_number in TERMINATING_SIGNALS:
        if signal.getsignal(signal_number) is signal.SIG_DFL:
            previous[signal_number] = signal.signal(signal_number, handler)
    try:
        yield
    finally:
        for signal_number, before in previous.items():
            signal.signal(signal_number, before)
        _ending.reset()


def _signal_workers(signal_number: int) -> None:
    """Send the signal to the worker processes (multiprocessing's children), if any."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    try:
        children = multiprocessing.active_children()
    except Exception:  # in the middle of multiprocessing's own book-keeping: let it be
        return
    for child in children:
        if child.pid is not None:
            with suppress(OSError):  # it may have ended meanwhile
                os.kill(child.pid, signal_number)
