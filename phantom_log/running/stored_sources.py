"""The objects of a store that URLs name (a file or object, a glob, a folder), read on a
cluster as the command line reads paths."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..records.found_sources import SourceError
from ..records.source_names import RECORD_SUFFIXES
from .dask_extra import require_cluster

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

_GLOB_CHARACTERS: Final = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class StoredSource:
    """One object of a store to read: its name in the rows, its URL, its size."""

    name: str
    url: str
    json_lines: bool
    size: int


def find_stored_sources(
    urls: Sequence[str], storage_options: Mapping[str, Any] | None = None
) -> list[StoredSource]:
    """The objects the URLs name, in order: a file or object; a glob (its matches, sorted);
    a folder (its ``.json``, ``.jsonl`` and ``.ndjson`` files at any depth, sorted,
    hidden ones left out), as the command line reads paths. A ``.jsonl`` or ``.ndjson``
    object is JSON Lines; any other, one document.

    Raises :class:`~phantom_log.records.found_sources.SourceError` for a URL that names nothing."""
    require_cluster()
    from fsspec.core import url_to_fs
    from fsspec.implementations.local import LocalFileSystem

    found: list[StoredSource] = []
    for url in urls:
        fs, path = url_to_fs(url, **(storage_options or {}))
        local = isinstance(fs, LocalFileSystem)
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
        for match in matches:
            inner = _folder_files(fs, match) if fs.isdir(match) else [match]
            for item in inner:
                suffix = posixpath.splitext(item)[1].lower()
                name = _source_name(url, item) if local else fs.unstrip_protocol(item)
                found.append(
                    StoredSource(
                        name,
                        item if local else fs.unstrip_protocol(item),
                        RECORD_SUFFIXES.get(suffix) == "jsonl",
                        int(fs.info(item).get("size") or 0),
                    )
                )
    return found


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


def _source_name(url: str, path: str) -> str:
    """A local file named as the command line names it: relative when given relative."""
    if url.startswith("file:") or os.path.isabs(url):
        return path
    return os.path.relpath(path)
