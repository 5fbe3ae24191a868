"""A killed main process leaves no worker behind (the reliability issue, second pass): a
run's main process killed with SIGKILL, as the kernel's out-of-memory killer kills, runs
no clean-up of its own, so each worker watches it and ends by itself; the fork server and
the resource tracker end with them. Measured as the processes left, never as wall time:
the bound below is how long a process is given before it counts as left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest

from tests.helpers.paths import WALKTHROUGH

# The kill ends every process of the run within a second or two; one still there after
# this long was left running.
LEFT_RUNNING = 60.0
# How long the run is given to start its workers.
STARTED = 120.0

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="the processes of a run are found in /proc"
)


def group_members(group: int) -> list[int]:
    """The processes of process group ``group`` (zombies left out: they have ended)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(int(entry))
    return members


def line() -> str:
    return json.dumps(json.loads(WALKTHROUGH.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "--jobs", "2", "--format", "json", "-"],
        ["export", "--jobs", "2", "--games", "{tmp}/g.parquet", "--tricks", "{tmp}/t.csv", "-"],
        ["stats", "--jobs", "2", "-"],
    ],
    ids=["verify", "export", "stats"],
)
def test_a_main_process_killed_leaves_no_worker_running(tmp_path: Path, command: list[str]) -> None:
    endless = subprocess.Popen(["yes", line()], stdout=subprocess.PIPE)
    args = [part.format(tmp=tmp_path) for part in command]
    run = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", *args],
        stdin=endless.stdout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert endless.stdout is not None
    endless.stdout.close()
    try:
        deadline = time.monotonic() + STARTED
        while len(group_members(run.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        started = group_members(run.pid)
        assert len(started) >= 3, "the run started no workers"
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + LEFT_RUNNING
        while group_members(run.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert group_members(run.pid) == [], f"left running of {started}"
    finally:
        with suppress(ProcessLookupError):  # whatever was left, once the test has seen it
            os.killpg(run.pid, signal.SIGKILL)
        endless.kill()
        endless.wait()
