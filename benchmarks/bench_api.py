"""The Python API's speed against the command line's: load and replay N simulated records
(as an analyst's session does) and verify them through the API, against
``phantom-log verify --jobs 1`` on the same file.

    python benchmarks/bench_api.py [--records 5000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import phantom_log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=5000)
    records = parser.parse_args().records
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.jsonl"
        cli = [sys.executable, "-m", "phantom_log"]
        subprocess.run([*cli, "simulate", "-n", str(records), "-q", "-o", path], check=True)
        started = time.perf_counter()
        loaded = list(phantom_log.load(path))
        load_seconds = time.perf_counter() - started
        started = time.perf_counter()
        games = [phantom_log.replay(record) for record in loaded]
        replay_seconds = time.perf_counter() - started
        assert all(game.valid for game in games)
        started = time.perf_counter()
        reports = list(phantom_log.verify(path))
        verify_seconds = time.perf_counter() - started
        assert len(reports) == records
        started = time.perf_counter()
        subprocess.run([*cli, "verify", "-q", "--jobs", "1", path], check=True)
        cli_seconds = time.perf_counter() - started
    print(f"{records:,} records")
    for name, seconds in (("load", load_seconds), ("replay", replay_seconds)):
        each = seconds / records * 1e6
        print(f"  {name:<22}{seconds:6.2f} s  ({each:5.0f} us each)")
    print(f"  load + replay         {load_seconds + replay_seconds:6.2f} s")
    print(f"  verify (API)          {verify_seconds:6.2f} s")
    print(f"  verify (CLI, jobs 1)  {cli_seconds:6.2f} s  (a process: start-up included)")


if __name__ == "__main__":
    main()
