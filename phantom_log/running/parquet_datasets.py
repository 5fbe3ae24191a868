"""The Parquet datasets of a run on a cluster: refused before any work when they cannot be
written, written by the tasks to a temporary sibling folder that becomes the dataset in one
step at the end, and read back (their files, the games and tricks tables)."""

from __future__ import annotations

import errno
import os
import posixpath
import shutil
import uuid
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..files.locks import folders_locked
from ..files.outputs import OutputExists, OutputFailed, OutputRefused, signals_held
from ..files.renames import exchange, rename_to_free_name
from .dask_extra import require_cluster

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

    from ..tabular.tables import ExportedTables


@dataclass(frozen=True, slots=True)
class DatasetTarget:
    """A Parquet dataset to write: its URL, and the temporary sibling folder the tasks
    write to, which becomes the dataset in one step at the end (a rename on a local
    disk; a copy then a delete on an object store, which has no rename)."""

    url: str
    temporary: str
    force: bool
    storage_options: Mapping[str, Any]

    def commit(self) -> None:
        """Put the written dataset in place (replacing the old one only with ``force``).
        On a local disk use :func:`commit_datasets`, which puts several in place
        together."""
        fs, path = filesystem(self.url, self.storage_options)
        if _is_local(fs):
            commit_datasets([self])
            return
        _, temporary = filesystem(self.temporary, self.storage_options)
        if fs.exists(path):
            if not self.force:
                raise OutputExists(f"{self.url} exists; use --force to overwrite it")
            _check_replaceable(fs, path, self.url)
            fs.rm(path, recursive=True)
        fs.mv(temporary, path, recursive=True)

    def _place_locally(self) -> tuple[str, str | None]:
        """Put the dataset in place on a local disk: its path, and where the old one is
        now (to remove once every dataset is in place, or to put back), ``None`` for
        none. The old and the new are exchanged in one step where the system can."""
        fs, path = filesystem(self.url, self.storage_options)
        if os.path.lexists(path):
            if not self.force:
                raise OutputExists(f"{self.url} exists; use --force to overwrite it")
            _check_replaceable(fs, path, self.url)
            if exchange(self.temporary, path):
                return path, self.temporary
            old = f"{self.temporary}.old"
            os.rename(path, old)
            try:
                os.rename(self.temporary, path)
            except BaseException:
                os.rename(old, path)
                raise
            return path, old
        try:
            if not rename_to_free_name(self.temporary, path):
                if os.path.lexists(path):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
                os.rename(self.temporary, path)
        except FileExistsError:  # made meanwhile, by another program
            raise OutputExists(f"{self.url} exists; use --force to overwrite it") from None
        return path, None

    def discard(self) -> None:
        """Remove the temporary folder and what it holds."""
        fs, temporary = filesystem(self.temporary, self.storage_options)
        with suppress(OSError, FileNotFoundError):
            if fs.exists(temporary):
                fs.rm(temporary, recursive=True)


def commit_datasets(targets: Sequence[DatasetTarget]) -> None:
    """Put the datasets of a run in place together: on a local disk under the lock of
    their folders (so that two runs writing the same datasets at once take turns, as
    :class:`~phantom_log.files.outputs.OutputSet`'s files do), each old one kept until
    every new one is in place and put back should one fail. On an object store, which
    has neither locks nor renames, one after the other."""
    local = [
        target for target in targets if _is_local(filesystem(target.url, target.storage_options)[0])
    ]
    for target in targets:
        if target not in local:
            target.commit()
    if not local:
        return
    folders = [
        os.path.dirname(filesystem(target.url, target.storage_options)[1]) for target in local
    ]
    placed: list[tuple[str, str | None, DatasetTarget]] = []
    with folders_locked(folders), signals_held():
        try:
            for target in local:
                path, old = target._place_locally()
                placed.append((path, old, target))
        except BaseException:
            for path, old, target in reversed(placed):
                with suppress(OSError):
                    _put_back(path, old, target.temporary)
            raise
    for _, old, _ in placed:
        if old is not None and os.path.isdir(old):
            shutil.rmtree(old, ignore_errors=True)
        elif old is not None:
            with suppress(OSError):
                os.unlink(old)


def _put_back(path: str, old: str | None, temporary: str) -> None:
    """Undo a dataset put in place: the new one back at ``temporary``, the old back."""
    if old is None:
        os.rename(path, temporary)
    elif old == temporary:
        exchange(temporary, path)
    else:
        os.rename(path, temporary)
        os.rename(old, path)


def filesystem(url: str, storage_options: Mapping[str, Any]) -> tuple[AbstractFileSystem, str]:
    """The filesystem of a URL (fsspec's), and the URL's path in it."""
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url, **storage_options)
    return fs, path


def _is_local(fs: AbstractFileSystem) -> bool:
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _check_replaceable(fs: AbstractFileSystem, path: str, url: str) -> None:
    """Refuse to replace anything but a Parquet file or a folder of Parquet files (so that
    ``--force`` with a wrong URL cannot delete a folder of other things)."""
    if fs.isdir(path):
        others = [
            item
            for item in fs.find(path)
            if not posixpath.basename(item).endswith(".parquet")
            and not posixpath.basename(item).startswith(".")
        ]
        if others:
            raise OutputRefused(
                f"{url} is a folder that holds other files than Parquet files "
                f"({posixpath.basename(others[0])}, ...); phantom-log does not replace it"
            )
    elif not path.endswith(".parquet"):
        raise OutputRefused(f"{url} exists and is not a Parquet dataset; not replaced")


def check_dataset_target(
    url: str, force: bool, storage_options: Mapping[str, Any] | None = None
) -> None:
    """Refuse, before any work, a dataset URL that cannot be written: it exists (without
    ``force``), it is something else than a Parquet dataset (even with ``force``), or
    its local folder does not exist (:class:`~phantom_log.files.outputs.OutputExists`,
    :class:`~phantom_log.files.outputs.OutputRefused`)."""
    require_cluster()
    fs, path = filesystem(url, storage_options or {})
    if fs.exists(path):
        if not force:
            raise OutputExists(f"{url} exists; use --force to overwrite it")
        _check_replaceable(fs, path, url)
    if _is_local(fs):
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise OutputRefused(f"{url}: the folder {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputFailed(f"cannot write {url}: the folder {parent} is not writable")


def dataset_target(url: str, force: bool, storage_options: Mapping[str, Any]) -> DatasetTarget:
    """The dataset to write at ``url``, its temporary sibling folder made (a hidden name
    of its own, so that two runs never share one)."""
    fs, path = filesystem(url, storage_options)
    parent, name = posixpath.split(path.rstrip("/"))
    temporary_path = posixpath.join(parent, f".{name}.{uuid.uuid4().hex}.tmp")
    fs.makedirs(temporary_path, exist_ok=False)
    temporary = temporary_path if _is_local(fs) else fs.unstrip_protocol(temporary_path)
    return DatasetTarget(url, temporary, force, storage_options)


def dataset_files(url: str, storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """The Parquet files of a dataset (a folder, in name order: input order for the ones
    written here) or of one Parquet file: local paths, or URLs of their store."""
    fs, files = _dataset_paths(url, storage_options or {})
    return files if _is_local(fs) else [fs.unstrip_protocol(item) for item in files]


def _dataset_paths(
    url: str, storage_options: Mapping[str, Any]
) -> tuple[AbstractFileSystem, list[str]]:
    """The filesystem of a dataset and its Parquet files' paths there (see
    :func:`dataset_files`)."""
    require_cluster()
    fs, path = filesystem(url, storage_options)
    if fs.isdir(path):
        files = [
            item
            for item in sorted(fs.find(path))
            if item.endswith(".parquet") and not posixpath.basename(item).startswith(".")
        ]
    else:
        files = [path]
    return fs, files


def exported_tables(
    games_url: str, tricks_url: str, storage_options: Mapping[str, Any] | None = None
) -> ExportedTables:
    """The games and tricks tables exported together (by
    :func:`~phantom_log.running.cluster.export_on_cluster`, or ``export`` to Parquet
    files), read as statistics read them; raises ``ValueError`` when they were not
    exported together."""
    from ..tabular.tables import ExportedTables

    options = dict(storage_options or {})
    games_fs, _ = filesystem(games_url, options)
    tricks_fs, _ = filesystem(tricks_url, options)
    if _is_local(games_fs) and _is_local(tricks_fs):
        # Read by polars itself: the fastest way on a local disk.
        tables = ExportedTables(
            dataset_files(games_url, options), dataset_files(tricks_url, options)
        )
    else:
        # Read through fsspec, as the records were: any store it reads, with its options.
        games_fs, games = _dataset_paths(games_url, options)
        tricks_fs, tricks = _dataset_paths(tricks_url, options)
        if type(games_fs) is not type(tricks_fs) or games_fs.storage_options != (
            tricks_fs.storage_options
        ):
            raise ValueError(
                f"the games and tricks tables are in two stores: {games_url}, {tricks_url}"
            )
        tables = ExportedTables(games, tricks, filesystem=games_fs)
    tables.check_aligned()
    return tables
