"""The sources that paths name: each path as given, directories expanded into their record
files, with what the search already knows cannot be read; and which of them are regular
files that a run may read by other means (a cluster's tasks)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..rules.problems import Problem
from .source_names import RECORD_SUFFIXES, STDIN, display_name
from .unreadable import folder_problem, not_regular


class SourceError(Exception):
    """A path that cannot be used at all (a usage error)."""


class FoundSource(str):
    """A path found below a given directory, not given by the user: it is read only if it
    is a regular file, so that a FIFO or a device in a folder can never block the run.
    ``problem`` is set when the search already knows why it cannot be read (a folder that
    cannot be listed, a file that is not a regular one)."""

    problem: Problem | None

    def __new__(cls, path: str, problem: Problem | None = None) -> FoundSource:
        found = super().__new__(cls, path)
        found.problem = problem
        return found


def find_sources(paths: Iterable[str]) -> list[str]:
    """The sources to read, in order: each path as given, directories expanded into their
    record files (:func:`_directory_sources`). Raises :class:`SourceError` for a path that
    does not exist; one that cannot be read is kept, and reading it says why."""
    found: list[str] = []
    for path in paths:
        if path == STDIN:
            found.append(path)
            continue
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            raise SourceError(f"{display_name(path)}: no such file or directory") from None
        except OSError:
            found.append(path)  # e.g. a folder on the way that cannot be entered
            continue
        if os.path.isdir(path):
            found.extend(_directory_sources(path))
        else:
            found.append(path)
    return found


def _directory_sources(directory: str) -> list[str]:
    """The record files below a directory in sorted path order, hidden entries left out;
    each folder that cannot be listed and each record-named entry that is not a regular
    file among them as a :class:`FoundSource` with its problem. Links to files are
    followed, links to folders are not (as ``find`` and ``grep -r`` do), so that no link
    can make the search go round in a loop."""
    found: list[str] = []
    folders = [directory]
    while folders:  # a stack, not recursion: any depth of folders is fine
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            found.append(FoundSource(folder, folder_problem(error)))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            if is_folder:
                folders.append(entry.path)
            elif Path(entry.name).suffix.lower() in RECORD_SUFFIXES:
                source = _found_file(entry)
                if source is not None:
                    found.append(source)
    return sorted(found, key=lambda path: Path(path).parts)


def _found_file(entry: os.DirEntry[str]) -> FoundSource | None:
    """A record-named entry of a folder as a source; ``None`` for a link to a folder."""
    try:
        mode = entry.stat().st_mode  # through a link
    except OSError:
        return FoundSource(entry.path)  # a broken link, a loop, gone: reading says which
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return FoundSource(entry.path)
    return FoundSource(entry.path, not_regular(mode))


def regular_file_size(source: str) -> int | None:
    """The bytes of a source that is, now, a regular file this process can open for
    reading; ``None`` for any other (reading it with
    :func:`~phantom_log.records.chunks.read_chunks` says why). What is not a regular file
    is never opened here: a FIFO neither blocks nor loses its writer."""
    if source == STDIN or (isinstance(source, FoundSource) and source.problem is not None):
        return None
    try:
        if not stat.S_ISREG(os.stat(source).st_mode):
            return None
        flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(source, flags)
    except OSError:
        return None
    try:
        status = os.fstat(descriptor)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def source_size(source: str) -> int | None:
    """The bytes a source holds, for a progress display: ``None`` when not known ahead
    (standard input, a FIFO, a device), 0 for a source that cannot be read."""
    if source == STDIN:
        return None
    try:
        status = os.stat(source)
    except OSError:
        return 0
    if stat.S_ISREG(status.st_mode):
        return status.st_size
    return 0 if isinstance(source, FoundSource) else None
