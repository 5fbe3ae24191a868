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
import io
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, Final, cast

from . import temporaries
from .kinds import file_kind

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

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
# What link() fails with on a file system without hard links (FAT, some network ones).
_NO_HARD_LINKS: Final = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK})
# A write that failed without its reason is tried again with up to 64 blocks of 64 KiB.
_PROBE_BLOCK: Final = 1 << 16
_PROBE_BLOCKS: Final = 64


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


# How the libraries word an allocation that failed: polars' OSError "Cannot allocate
# memory (os error 12)" or "LZ4 error: ERROR_allocation_failed", a thread that could not
# be given its stack.
_OUT_OF_MEMORY: Final = re.compile(
    r"\(os error 12\)|allocation[_ ]failed|Allocation error|Cannot allocate memory|"
    r"not enough memory|out of memory|can't start new thread|can't spawn worker thread|"
    r"could not spawn threads",
    re.IGNORECASE,
)


# A Rust library's panic when a thread cannot be started (EAGAIN: under a memory limit,
# no room for its stack).
_NO_THREAD: Final = re.compile(r"Resource temporarily unavailable|code: 11, kind: WouldBlock")


def is_library_panic(error: BaseException) -> bool:
    """Whether ``error`` is a Rust library's panic (pyo3's ``PanicException``, which is
    no ``Exception``, and whose class cannot be pickled)."""
    return type(error).__name__ == "PanicException"


def ran_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` says that memory ran out (Python's, or a library's: a Rust
    library's panic, which is no ``Exception``, says so in its text; under a memory limit
    a thread cannot be given its stack)."""
    if isinstance(error, MemoryError):
        return True
    if isinstance(error, OSError) and error.errno == errno.ENOMEM:
        return True
    if is_library_panic(error):
        text = str(error)
        return bool(_OUT_OF_MEMORY.search(text) or _NO_THREAD.search(text))
    return isinstance(error, Exception) and bool(_OUT_OF_MEMORY.search(str(error)))


def write_failure(error: BaseException) -> str | None:
    """The reason, worded by the operating system, when ``error`` is the failure of a
    write (a full disk, no permission); ``None`` for any other error, which is left to
    propagate. A closed pipe is no failure of ours: ``None`` too."""
    if isinstance(error, BrokenPipeError) or ran_out_of_memory(error):
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
def _failures_as(path: str, target: str | None = None, probe: Path | None = None) -> Iterator[None]:
    """A write failure in the block becomes :class:`OutputFailed` naming ``path`` (see
    :func:`_as_failed`)."""
    try:
        yield
    except Exception as error:
        failed = _as_failed(error, path, target, probe)
        if failed is None:
            raise
        raise failed from error


def _as_failed(
    error: Exception, path: str, target: str | None = None, probe: Path | None = None
) -> OutputFailed | None:
    """``error`` as the failure to write ``path`` (through its link to ``target``), or
    ``None`` when it is no failed write (or is already worded: a refused output). A
    failure whose reason was lost on the way (polars' ``Invalid thrift: transport
    error``) is asked again of the folder ``probe`` (see :func:`probed_failure`)."""
    if isinstance(error, OutputExists | OutputRefused | OutputFailed):
        return None
    reason = write_failure(error)
    if reason is None:
        return None
    if probe is not None and _reason_lost(error):
        reason = probed_failure(probe) or reason
    return _failed(path, reason, target)


def _reason_lost(error: BaseException) -> bool:
    """Whether ``error`` is a failed write that does not say what the system said."""
    return not isinstance(error, OSError) and _RUST_OS_ERROR.search(str(error)) is None


def probed_failure(folder: Path) -> str | None:
    """What the system says to a write in ``folder`` now, worded as it words it (``No
    space left on device``, ``File too large``, ``Disk quota exceeded``), for a write
    there that failed without saying why; ``None`` when a write there succeeds.

    A Parquet writer that fails at its footer reports only ``Invalid thrift: transport
    error``: the operating system's reason is lost in the Rust library. A few megabytes
    written to a file of our own (then removed) find it again: more than a writer holds
    back, so the space that was missing is missing for this write too.
    """
    try:
        with _signals_deferred():
            handle, name = tempfile.mkstemp(prefix=".phantom-log-probe.", suffix=".tmp", dir=folder)
    except OSError as error:
        return error.strerror or None
    block = bytes(_PROBE_BLOCK)
    try:
        for _ in range(_PROBE_BLOCKS):
            os.write(handle, block)
    except OSError as error:
        return error.strerror or None
    finally:
        with _signals_deferred():
            os.close(handle)
            with suppress(OSError):
                os.unlink(name)
    return None


class _Member:
    """One output of an :class:`OutputSet`: a file, or standard output."""

    def __init__(self, name: str, target: Path | None, through: str | None = None) -> None:
        #: The path as given, as messages name it.
        self.name = name
        #: The file to create or replace; ``None`` for standard output.
        self.target = target
        #: The file at the end of the link ``name`` is, when it is a link.
        self.through = through
        #: Where it is written until it is put in place (for standard output written
        #: from a copy, a file of the work folder).
        self.temporary: Path | None = None
        #: The file the set opened on ``temporary`` (or standard output), and the stream
        #: given to write it; both closed before the file is put in place.
        self.file: IO[bytes] | None = None
        self.stream: _NamedStream | None = None
        #: What the file at ``target`` was, kept under a second name until every output
        #: of the set is in place (``None`` where there was none, or no hard links).
        self.backup: Path | None = None
        #: Whether a file was there to replace.
        self.replaced = False
        #: The file written (its device and inode), once it is complete.
        self.written: tuple[int, int] | None = None
        self.placed = False

    @property
    def messages_name(self) -> str:
        if self.target is not None:
            return self.name
        return _TEMPORARY_FOLDER_NAME if self.temporary is not None else _STANDARD_OUTPUT_NAME

    def failures(self) -> AbstractContextManager[None]:
        """A write failure in the block, as :class:`OutputFailed` naming this output."""
        probe = None if self.temporary is None else self.temporary.parent
        return _failures_as(self.messages_name, self.through, probe)

    def failure(self, error: Exception) -> OutputFailed | None:
        """``error`` as the failure to write this output (see :func:`_as_failed`)."""
        probe = None if self.temporary is None else self.temporary.parent
        return _as_failed(error, self.messages_name, self.through, probe)


class _NamedStream(io.BufferedIOBase):
    """A binary stream of an :class:`OutputSet` whose write failures name the output."""

    def __init__(self, stream: IO[bytes], member: _Member) -> None:
        super().__init__()
        self._stream = stream
        self._member = member

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer, /) -> int:
        with self._member.failures():
            return self._stream.write(data)

    def flush(self) -> None:
        # Closed by the set (or at the end of the program): nothing left to flush.
        if not (self.closed or self._stream.closed):
            with self._member.failures():
                self._stream.flush()


class OutputSet:
    """The outputs of one run, put in place together: each written to a temporary file
    beside it, and all renamed into place at the end, one after the other, while the
    run holds the lock of their folders (:mod:`phantom_log.files.locks`).

    So a run's outputs carry that run's data: a second run writing the same outputs at
    the same time waits for the lock, and puts its own in place after (with ``force``;
    without it, it finds them there and is refused). A failure anywhere puts none of
    them in place: an output already renamed when a later one fails is put back as it
    was (the file it replaced was kept under a second name, a hard link, until all were
    in place). Ctrl-C, SIGTERM and SIGHUP wait for the renames to end.

    Standard output, where accepted, is written as it comes (:meth:`stream`) or from a
    copy once every file is written (:meth:`path`), before any file is put in place.
    """

    def __init__(self, force: bool) -> None:
        self.force = force
        self._members: list[_Member] = []
        self._last_path: _Member | None = None
        self._work = ExitStack()
        self._work_folder: Path | None = None
        self._committed = False

    def path(self, path: str | os.PathLike[str], standard_output: bool = False) -> Path:
        """A temporary path to write, that becomes ``path`` at the end (for standard
        output, whose bytes are copied there). Refuses as :func:`output_target` does; a
        write failure escaping the block names the output of the last path asked for."""
        text = os.fspath(path)
        target = output_target(text, self.force, standard_output)
        if target is None:
            member = _Member(text, None)
            if self._work_folder is None:
                self._work_folder = self._work.enter_context(work_folder())
            member.temporary = self._work_folder / f"output-{len(self._members)}"
            self._members.append(member)
        else:
            member = self._file(text, target)
        self._last_path = member
        assert member.temporary is not None
        return member.temporary

    def stream(self, path: str | os.PathLike[str], standard_output: bool = False) -> IO[bytes]:
        """A binary stream to write, that becomes ``path`` at the end (standard output
        itself, written as it comes, where ``path`` names it and it is accepted). Its
        write failures name its output."""
        text = os.fspath(path)
        target = output_target(text, self.force, standard_output)
        if target is None:
            member = _Member(text, None)
            self._members.append(member)
            with member.failures():
                sys.stdout.flush()
            member.stream = _NamedStream(sys.stdout.buffer, member)
            return cast(IO[bytes], member.stream)
        member = self._file(text, target)
        assert member.temporary is not None
        with member.failures():
            member.file = open(member.temporary, "wb")  # noqa: SIM115 (closed by the set)
        member.stream = _NamedStream(member.file, member)
        return cast(IO[bytes], member.stream)

    def _file(self, text: str, target: Path) -> _Member:
        """A file output, its temporary file made beside it."""
        member = _Member(text, target, os.fspath(target) if os.path.islink(text) else None)
        # Made and remembered with the signals held, so that no SIGTERM falls between.
        with _signals_deferred(), _failures_as(text, member.through):
            handle, name = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
            )
            member.temporary = Path(name)
            temporaries.made(member.temporary)
            self._members.append(member)
            os.close(handle)
        with member.failures():
            try:
                # A replaced file keeps its permissions; a new one gets those any new file
                # gets (mkstemp makes it private, 0600).
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(member.temporary, mode)
        return member

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write failure of the block, named after the last path asked for (the file
        being written when it failed; a stream names its own)."""
        try:
            yield
        except Exception as error:
            member = self._last_path
            failed = None if member is None else member.failure(error)
            if failed is None:
                raise
            raise failed from error

    def _commit(self) -> None:
        """Close, flush and copy what was written, then put every file in place."""
        files = [member for member in self._members if member.target is not None]
        for member in self._members:
            with member.failures():
                if member.stream is not None:
                    member.stream.close()  # flushed into its file, or standard output
                if member.file is not None:
                    member.file.close()
        for member in files:
            assert member.temporary is not None
            with member.failures():
                # A full disk may only show when the data reaches it.
                _fsync(member.temporary)
                member.written = _identity(member.temporary)
        for member in self._members:
            if member.target is None and member.temporary is not None:
                with _standard_output() as stream, open(member.temporary, "rb") as source:
                    shutil.copyfileobj(source, stream)
        if files:
            self._place(files)
        self._committed = True

    def _place(self, files: list[_Member]) -> None:
        """Rename every file into place, under the lock of their folders; a failure
        puts back those already renamed."""
        from .locks import folders_locked

        # The lock is waited for with the signals live (Ctrl-C ends the wait); the
        # renames, once begun, are never cut in two by one.
        folders = [member.target.parent for member in files if member.target]
        with folders_locked(folders), signals_held():
            if not self.force:
                for member in files:
                    assert member.target is not None
                    if os.path.lexists(member.target):
                        raise _exists(member.name)
            elif len(files) > 1:
                for member in files:
                    with member.failures():
                        _keep_replaced(member)
            try:
                for member in files:
                    assert member.target is not None and member.temporary is not None
                    with member.failures():
                        if self.force:
                            os.replace(member.temporary, member.target)
                        else:
                            _link_new(member.temporary, member.target, member.name)
                    member.placed = True
            except BaseException:
                for member in files:
                    _put_back(member)
                raise

    def _discard(self) -> None:
        """Remove every temporary file, and the replaced files kept aside (unless one
        could not be put back: then it is the one copy of what was there)."""
        with _signals_deferred():
            for member in self._members:
                for stream in (member.stream, member.file):
                    if stream is not None:
                        with suppress(OSError, ValueError):
                            stream.close()
                if member.target is not None and member.temporary is not None:
                    with suppress(OSError):
                        member.temporary.unlink(missing_ok=True)
                        temporaries.removed(member.temporary)
                if member.backup is not None and (self._committed or not member.placed):
                    with suppress(OSError):
                        member.backup.unlink(missing_ok=True)
                        temporaries.removed(member.backup)
            self._work.close()


def _exists(name: str) -> OutputExists:
    return OutputExists(f"{name} exists; use --force to overwrite it")


def _identity(path: Path) -> tuple[int, int]:
    status = os.lstat(path)
    return status.st_dev, status.st_ino


def _keep_replaced(member: _Member) -> None:
    """Keep the file ``member`` replaces under a second name beside it (a hard link), so
    that it can be put back; nothing where there is no file, or no hard links."""
    assert member.target is not None
    for _ in range(100):
        candidate = member.target.with_name(f".{member.target.name}.{secrets.token_hex(4)}.old.tmp")
        try:
            os.link(member.target, candidate, follow_symlinks=False)
        except FileExistsError:
            continue
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno in _NO_HARD_LINKS:
                member.replaced = True
                return
            raise
        member.backup, member.replaced = candidate, True
        temporaries.made(candidate)
        return


def _put_back(member: _Member) -> None:
    """Undo the rename of ``member`` into place: the file it replaced back, or, where
    there was none, the new file removed (only if it is still the one written)."""
    if not member.placed or member.target is None:
        return
    with suppress(OSError):
        if member.backup is not None:
            os.replace(member.backup, member.target)
            temporaries.removed(member.backup)
            member.backup, member.placed = None, False
        elif not member.replaced and _identity(member.target) == member.written:
            member.target.unlink()
            member.placed = False


def _link_new(temporary: Path, target: Path, text: str) -> None:
    """Give ``temporary`` the name ``target``, which must not exist."""
    try:
        # link() fails if the target appeared meanwhile, where rename would overwrite it.
        os.link(temporary, target)
    except FileExistsError:
        raise _exists(text) from None
    except OSError as error:
        # A file system without hard links (FAT, some network ones): check, then rename.
        if error.errno not in _NO_HARD_LINKS:
            raise
        if os.path.lexists(target):
            raise _exists(text) from None
        os.rename(temporary, target)


@contextmanager
def outputs_together(force: bool = False) -> Iterator[OutputSet]:
    """An :class:`OutputSet` to add the run's outputs to (its ``path`` and ``stream``);
    when the block ends without error, all are put in place together. Whatever ends the
    block early (an error, Ctrl-C, SIGTERM), every temporary file is removed and every
    output is left as it was."""
    outputs = OutputSet(force)
    try:
        with outputs._writing():
            yield outputs
        outputs._commit()
    finally:
        outputs._discard()


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
    """A binary file to write, through an :class:`OutputSet` of one (standard output
    itself, written as it comes, when ``path`` names it and ``standard_output`` is
    accepted)."""
    with outputs_together(force) as outputs:
        yield outputs.stream(path, standard_output)


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
            temporaries.made(folder)
        yield Path(folder)
    finally:
        if folder is not None:
            with _signals_deferred():
                shutil.rmtree(folder, ignore_errors=True)
                temporaries.removed(folder)


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
        if _reason_lost(error):
            reason = probed_failure(folder) or reason
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
def _interrupts_deferred() -> Iterator[None]:
    """Within the block, Ctrl-C waits: :class:`KeyboardInterrupt` is raised when the
    block ends. Only the main thread can set a handler, and only Python's own is
    replaced; elsewhere the block runs as it is."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    pending: list[int] = []
    signal.signal(signal.SIGINT, lambda number, _frame: pending.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pending:
        raise KeyboardInterrupt


@contextmanager
def signals_held() -> Iterator[None]:
    """Within the block, Ctrl-C, SIGTERM and SIGHUP wait for it to end, then raise
    (:class:`Terminated` for a signal even when the block failed meanwhile: the signal
    ended its workers, so the failure is the signal's). For steps that must not be cut
    in two: the renames that put a run's outputs in place, the start of a Dask cluster
    (whose threads, cut short, would go on writing after the run unwound)."""
    try:
        with _signals_deferred(), _interrupts_deferred():
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
