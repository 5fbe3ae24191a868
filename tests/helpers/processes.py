"""The command run in a process of its own, measured: its exit code, its outputs and its
peak memory (for the tests that hold memory bounded: assert the work and the bytes, never
a wall time)."""

from __future__ import annotations

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
