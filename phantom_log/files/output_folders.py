"""A folder of outputs written as one (``show --html DIR``): the new folder is built beside
the old one, then put in its place in one step, so that whoever looks finds the old folder
or the new one, never a mix, and a run that fails (a full disk at page 20 of 60) leaves the
old folder, or nothing, as it was.

- The new folder is a hidden sibling, ``.DIR.XXXXXXXX.tmp``. What the old folder holds
  besides the files the run writes (other files, subfolders, older pages) is carried into
  it, by hard links where the file system has them (no byte is copied), so the new folder
  is the old one with the run's files replaced, as writing them one by one would leave it.
- The two folders are exchanged in one step (``renameat2(RENAME_EXCHANGE)``), under the
  lock of the folder that holds them (:mod:`phantom_log.files.locks`), and the old one
  (now under the hidden name) is removed after. Anything another program put in the old
  folder meanwhile is moved into the new one first.
- Where the system cannot exchange two names (not Linux, or a file system that cannot),
  two renames do it: the old folder aside, the new one in its place. Between the two, for
  the time of one rename, no folder has the name.
- A mount point, or the folder the run is in (or one that holds it), cannot be replaced
  so: each is refused (:class:`~phantom_log.files.outputs.OutputRefused`).
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from . import temporaries
from .locks import folders_locked
from .outputs import (
    OutputExists,
    OutputRefused,
    _failures_as,
    _fsync,
    _signals_deferred,
    check_writable,
    signals_held,
)
from .renames import exchange, rename_to_free_name
from .same_files import file_identity

_MAX_LINKS: Final = 40  # as the kernel's limit on a chain of symbolic links
# What link() fails with where the file system has no hard links, or not for this file.
_NO_HARD_LINK: Final = frozenset(
    {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV}
)


def folder_target(path: str | os.PathLike[str], force: bool, names: Iterable[str]) -> Path:
    """The folder that writing the files ``names`` into the folder ``path`` replaces or
    makes (a link to a folder followed to the end of its chain; the link stays).

    Raises :class:`OutputRefused` for a path that is no folder, a mount point, the
    current folder or one that holds it, or a parent folder that does not exist;
    :class:`OutputExists` for a file of ``names`` already there without ``force`` (and
    as :func:`~phantom_log.files.outputs.check_writable` does for each)."""
    text = os.fspath(path)
    current = text
    for _ in range(_MAX_LINKS):
        if not os.path.islink(current):
            break
        current = os.path.join(os.path.dirname(current), os.readlink(current))
    else:
        raise OutputRefused(f"{text}: a loop of symbolic links")
    target = Path(os.path.abspath(current))
    if os.path.lexists(target):
        if not target.is_dir():
            raise OutputRefused(f"{text}: not a folder")
        if os.path.ismount(target):
            raise OutputRefused(
                f"{text} is a mount point, which cannot be replaced in one step; "
                "give a folder inside it"
            )
        inside = Path(os.path.realpath(os.curdir))
        if file_identity(target) in {file_identity(folder) for folder in (inside, *inside.parents)}:
            raise OutputRefused(
                f"{text} is the current folder, or holds it, and is replaced as a whole; "
                "give another folder, or run from outside it"
            )
        for name in names:
            check_writable(os.path.join(text, name), force)
    parent = target.parent
    if not parent.is_dir():
        raise OutputRefused(f"{text}: the folder {parent} does not exist")
    return target


@contextmanager
def atomic_folder(
    path: str | os.PathLike[str], force: bool, names: Iterable[str]
) -> Iterator[Path]:
    """A new, empty folder beside the folder ``path``, to write the files ``names`` in;
    when the block ends without error, it takes the place of ``path`` in one step (see
    the module's notes), with what the old folder held besides those files.

    Refuses as :func:`folder_target` does. A write that fails in the block or at the
    end raises :class:`~phantom_log.files.outputs.OutputFailed` naming ``path``, and the
    old folder (or no folder) is left as it was. Whatever ends the block early (an
    error, Ctrl-C, SIGTERM), the new folder is removed.
    """
    text = os.fspath(path)
    ordered = list(names)
    written = frozenset(ordered)
    target = folder_target(text, force, ordered)
    building: Path | None = None
    made: str | None = None
    try:
        with _signals_deferred(), _failures_as(text):
            made = tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            building = Path(made)
            temporaries.made(building)
        with _failures_as(text, probe=building):
            _take_mode(building, target)
            yield building
            for entry in os.scandir(building):
                if entry.is_file(follow_symlinks=False):
                    _fsync(Path(entry.path))
            _fsync(building)
            # The old folder, under the hidden name, is removed below.
            building = _put_in_place(building, target, text, force, written)
            if building is not None and os.fspath(building) != made:
                temporaries.made(building)
    finally:
        if building is not None:
            with _signals_deferred():
                shutil.rmtree(building, ignore_errors=True)
                temporaries.removed(building)
        if made is not None:
            temporaries.removed(made)


@contextmanager
def folder_written(
    path: str, force: bool, fixed: Iterable[str]
) -> Iterator[Callable[[str, str], None]]:
    """A folder of files made one at a time (``add(name, text)``), and put in the place of
    ``path`` as a whole when the block ends without error (:func:`atomic_folder`): each
    file is written as it is made into a hidden folder beside ``path`` (so on its disk),
    and only its name is kept, so that the memory taken is one file's, however many
    there are. Refused at once as :func:`folder_target` refuses (``fixed``: names the
    folder is sure to get), before any file is made; the hidden folder is removed at the
    end, whatever ends the run."""
    folder = os.path.normpath(path)
    target = folder_target(folder, force, fixed)
    parent = os.path.dirname(os.path.abspath(target))
    made: str | None = None
    try:
        with signals_held():
            made = tempfile.mkdtemp(prefix=f".{target.name}.pages.", suffix=".tmp", dir=parent)
            temporaries.made(made)
        files = Path(made)
        names: list[str] = []

        def add(name: str, text: str) -> None:
            (files / name).write_bytes(text.encode("utf-8"))
            names.append(name)

        with _failures_as(path, probe=files):
            yield add
            with atomic_folder(folder, force, names) as building:
                for name in names:
                    os.replace(files / name, building / name)
    finally:
        if made is not None:
            with signals_held():
                shutil.rmtree(made, ignore_errors=True)
                temporaries.removed(made)


def _take_mode(building: Path, target: Path) -> None:
    """Give the new folder the old one's permissions, or those of any new folder."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o777 & ~umask
    os.chmod(building, mode)


def _put_in_place(
    building: Path, target: Path, text: str, force: bool, written: frozenset[str]
) -> Path | None:
    """Put the folder ``building`` in the place of ``target``, under the lock of their
    parent; the old folder (at a hidden name now) when there was one, to be removed."""
    with folders_locked([target.parent]), signals_held():
        if not os.path.lexists(target):
            try:
                if rename_to_free_name(building, target):
                    return None
                if not os.path.lexists(target):
                    os.rename(building, target)
                    return None
            except FileExistsError:  # made meanwhile, by another program
                pass
            if not target.is_dir():
                raise OutputRefused(f"{text}: not a folder")
        _carry_over(target, building, written, text, force)
        if exchange(building, target):
            old = building
        else:
            old = _aside(target)
            try:
                os.rename(building, target)
            except BaseException:
                os.rename(old, target)
                raise
        return old if _move_latecomers(old, target) else None


def _carry_over(old: Path, new: Path, written: frozenset[str], text: str, force: bool) -> None:
    """Carry what the old folder holds besides the run's files into the new one."""
    for entry in os.scandir(old):
        if entry.name in written:
            if not force:  # put there while the run wrote its own
                name = os.path.join(text, entry.name)
                raise OutputExists(f"{name} exists; use --force to overwrite it")
            continue
        source, destination = Path(entry.path), new / entry.name
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(source, destination, symlinks=True, copy_function=_link_or_copy)
        elif entry.is_symlink():
            os.symlink(os.readlink(source), destination)
        else:
            _link_or_copy(source, destination)


def _link_or_copy(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """A second name for ``source`` (a hard link), or a copy where there can be none."""
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError as error:
        if error.errno not in _NO_HARD_LINK:
            raise
        shutil.copy2(source, destination, follow_symlinks=False)


def _aside(target: Path) -> Path:
    """Rename ``target`` to a free hidden name beside it; that name."""
    while True:
        aside = target.with_name(f".{target.name}.{secrets.token_hex(4)}.old.tmp")
        try:
            if rename_to_free_name(target, aside):
                return aside
        except FileExistsError:
            continue
        if not os.path.lexists(aside):
            os.rename(target, aside)
            return aside


def _move_latecomers(old: Path, new: Path) -> bool:
    """Move into the new folder what another program put in the old one while the new
    one was made (what the new one has no entry of); whether all of it could be moved
    (if not, the old folder is left, hidden, rather than lose it)."""
    try:
        present = set(os.listdir(new))
        for name in os.listdir(old):
            if name not in present:
                os.rename(old / name, new / name)
    except OSError:
        return False
    return True
