"""The sources that URLs name, for a run on a cluster: the paths of this machine found and
told apart by the command line's own search (:mod:`phantom_log.records.found_sources`),
so that a run on a cluster reads and reports them exactly as a run without one does;
the objects of any other store (a file or object, a glob, a folder) through fsspec."""

from __future__ import annotations

import glob
import os
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..records.found_sources import SourceError, find_sources, regular_file_size, source_size
from ..records.source_names import RECORD_SUFFIXES, STDIN, display_name
from .dask_extra import require_cluster

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

_GLOB_CHARACTERS: Final = frozenset("*?[")
#: The protocols of fsspec that name this machine's files.
_LOCAL_PROTOCOLS: Final = frozenset({"file", "local"})


@dataclass(frozen=True, slots=True)
class StoredSource:
    """One source to read: its name in the rows, its URL (a path of this machine, as the
    search found it), whether it is JSON Lines, its size (``None`` when not known ahead:
    a FIFO, an object whose store does not say)."""

    name: str
    url: str
    json_lines: bool
    size: int | None
    #: A path of this machine: a read that fails is worded as the command line words it.
    local: bool = False
    #: A path of this machine that is not a regular file the tasks can cut into ranges:
    #: one that cannot be read (a broken link, a link loop, no permission, gone, a FIFO
    #: or a device found in a folder), or a FIFO or a device given by name. It is read
    #: here, by the command line's own reader
    #: (:func:`~phantom_log.records.chunks.read_chunks`), which gives its
    #: ``unreadable`` problem or its records.
    read_here: bool = False


def find_stored_sources(
    urls: Sequence[str], storage_options: Mapping[str, Any] | None = None
) -> list[StoredSource]:
    """The sources the URLs name, in order.

    A path of this machine (or a ``file://`` URL) is searched as the command line
    searches it (:func:`~phantom_log.records.found_sources.find_sources`: a folder's
    record files in sorted order, hidden ones left out, links to folders not followed;
    a broken link, a FIFO, a file without permission are kept, to be reported); a glob
    is its matches, sorted. Any other URL is an object of a store, a glob of them or a
    folder of them (its ``.json``, ``.jsonl`` and ``.ndjson`` objects at any depth,
    sorted, hidden ones left out). A ``.jsonl`` or ``.ndjson`` source is JSON Lines; any
    other, one document.

    Raises :class:`~phantom_log.records.found_sources.SourceError` for a URL that names
    nothing, and for standard input (``-``): a cluster reads storage."""
    require_cluster()
    if STDIN in urls:
        raise SourceError("a cluster reads storage (paths, URLs): not standard input (-)")
    found: list[StoredSource] = []
    for url in urls:
        path = _local_path(url)
        if path is None:
            found.extend(_stored_objects(url, storage_options or {}))
        else:
            found.extend(_local_source(source) for source in find_sources(_matches(url, path)))
    return found


def _local_path(url: str) -> str | None:
    """The path of this machine that the URL names, ``None`` for another store's."""
    from fsspec.core import split_protocol

    protocol, _ = split_protocol(url)
    if protocol is None:
        return url
    if protocol in _LOCAL_PROTOCOLS:
        from fsspec.implementations.local import LocalFileSystem

        return str(LocalFileSystem._strip_protocol(url))
    return None


def _matches(url: str, path: str) -> list[str]:
    """A local path as it is, or a glob's matches (sorted; none is a usage error)."""
    if not _GLOB_CHARACTERS & set(path) or os.path.lexists(path):
        return [path]
    matches = sorted(glob.glob(path))
    if not matches:
        raise SourceError(f"{url}: matches no file")
    return matches


def _local_source(source: str) -> StoredSource:
    """A source found on this machine: cut into ranges by the tasks when it is a regular
    file that can be opened, otherwise read here as the command line reads it."""
    name = display_name(source)
    json_lines = RECORD_SUFFIXES.get(Path(source).suffix.lower()) == "jsonl"
    size = regular_file_size(source)
    if size is None:
        return StoredSource(name, source, json_lines, source_size(source), True, True)
    return StoredSource(name, os.path.abspath(source), json_lines, size, True)


def _stored_objects(url: str, storage_options: Mapping[str, Any]) -> list[StoredSource]:
    """The objects of a store that a URL names: an object, a glob's matches, a folder's
    record objects."""
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url, **storage_options)
    if _GLOB_CHARACTERS & set(path):
        matches = sorted(fs.glob(path))
        if not matches:
            raise SourceError(f"{url}: matches no file")
    elif fs.isdir(path):
        matches = _folder_files(fs, path)
    elif fs.exists(path):
        matches = [path]
    else:
        raise SourceError(f"{url}: no such file or folder")
    found = []
    for match in matches:
        for item in _folder_files(fs, match) if fs.isdir(match) else [match]:
            suffix = posixpath.splitext(item)[1].lower()
            name = fs.unstrip_protocol(item)
            json_lines = RECORD_SUFFIXES.get(suffix) == "jsonl"
            found.append(StoredSource(name, name, json_lines, _object_size(fs, item)))
    return found


def _object_size(fs: AbstractFileSystem, path: str) -> int | None:
    """An object's size; ``None`` when the store cannot say (its read then says why)."""
    try:
        size = fs.info(path).get("size")
    except Exception:  # any store's failure: the object's read reports it
        return None
    return None if size is None else int(size)


def _folder_files(fs: AbstractFileSystem, folder: str) -> list[str]:
    """The record files below a folder, sorted, hidden files and folders left out."""
    files = []
    for path in sorted(fs.find(folder)):
        relative = posixpath.relpath(path, folder)
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        if posixpath.splitext(path)[1].lower() in RECORD_SUFFIXES:
            files.append(path)
    return files
