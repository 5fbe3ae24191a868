"""Real mounts for the fault tests: a small tmpfs (a disk that fills) and a bind mount (one
folder under two names). Where the machine refuses to mount (no root, no CAP_SYS_ADMIN, a
container without it), the test is skipped, saying what ``mount`` said."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    if shutil.which("mount") is None:
        pytest.skip("no mount command on this machine")
    completed = subprocess.run(
        ["mount", *args], capture_output=True, text=True, check=False, timeout=60
    )
    if completed.returncode != 0:
        said = (completed.stderr or completed.stdout).strip() or f"exit {completed.returncode}"
        pytest.skip(f"this machine refuses to mount ({' '.join(args[:2])}): {said}")


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False, timeout=60)


@contextmanager
def small_disk(folder: Path, size: int) -> Iterator[Path]:
    """``folder`` made a tmpfs of ``size`` bytes (rounded up to pages by the kernel) for
    the block: a disk that fills."""
    folder.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        _unmount(folder)


def resize(disk: Path, size: int) -> None:
    """Give the tmpfs ``disk`` a new size (at least what it holds)."""
    subprocess.run(
        ["mount", "-o", f"remount,size={size}", str(disk)],
        capture_output=True,
        check=True,
        timeout=60,
    )


@contextmanager
def bind_mount(source: Path, target: Path) -> Iterator[Path]:
    """``target`` made the folder ``source`` under a second name for the block
    (``mount --bind``): the same files, the same device and inodes."""
    target.mkdir(parents=True, exist_ok=True)
    _mount("--bind", str(source), str(target))
    try:
        yield target
    finally:
        _unmount(target)
