"""Processes the tests start and look at: the command run in a process of its own and
measured (its exit code, its outputs, its peak memory: assert the work and the bytes,
never a wall time), running without the power to read what may not be read, and the
processes of a session (a run and every process it started)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

# A process that has not ended by itself in this long is hung, not slow.
HUNG = 600

#: ``python -m phantom_log ARGS...`` that writes, as it ends, its peak memory (bytes) to
#: the file named first. Linux's VmHWM is the peak of this program alone; ru_maxrss would
#: count the test process it was forked from.
MEASURED = """
import re, resource, runpy, sys
measure = sys.argv.pop(1)
sys.argv[0] = "phantom-log"
try:
    runpy.run_module("phantom_log", run_name="__main__", alter_sys=True)
finally:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)) * 1024
    except OSError:
        scale = 1 if sys.platform == "darwin" else 1024
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    with open(measure, "w", encoding="utf-8") as handle:
        handle.write(str(peak))
"""


@dataclass(frozen=True)
class Measured:
    """A command run in its own process: its exit code, its output and its peak memory."""

    returncode: int
    stdout: bytes
    stderr: bytes
    peak_memory: int


def run_measured(folder: Path, *args: str, stdin: bytes | IO[bytes] | None = None) -> Measured:
    """The real command in its own process, reading ``stdin`` (bytes, or a pipe from
    another process; nothing by default), which must end by itself (it is given
    :data:`HUNG` seconds)."""
    measure = folder / "peak-memory"
    command = [sys.executable, "-c", MEASURED, str(measure), *args]
    if isinstance(stdin, bytes):
        done = subprocess.run(command, capture_output=True, input=stdin, timeout=HUNG)
    else:
        done = subprocess.run(command, capture_output=True, stdin=stdin, timeout=HUNG)
    return Measured(done.returncode, done.stdout, done.stderr, int(measure.read_text()))


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


def read_terminal(controller: int) -> bytes:
    """All a process wrote to the pseudo-terminal whose controlling end is ``controller``,
    read until the terminal's other end closes (the process and its children ended);
    ``controller`` is closed."""
    import os

    seen = b""
    while True:
        try:
            data = os.read(controller, 65536)
        except OSError:  # the terminal's other end closed: the run ended
            break
        if not data:
            break
        seen += data
    os.close(controller)
    return seen
