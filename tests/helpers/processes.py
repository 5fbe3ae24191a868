"""Processes the tests start and look at: running without the power to read what may not
be read, and the processes of a session (a run and every process it started)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess


@functools.cache
def unprivileged_prefix() -> list[str] | None:
    """The command prefix that runs a program without the power to read what it may not:
    nothing for a normal user; as root, setpriv dropping the capabilities that override
    file permissions. ``None`` where that cannot be done."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    if subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        return None
    return prefix


def session_processes(session: int) -> dict[int, str]:
    """The live processes of a session (zombies left out), each with its command line."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # pid (comm) state ppid pgrp session ...: comm may hold spaces and ')'.
                fields = stat.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        if int(fields[3]) == session and fields[0] != b"Z":
            found[int(entry)] = command
    return found
