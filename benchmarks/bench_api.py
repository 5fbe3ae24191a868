"""The Python API's speed against the command line's: load and replay N simulated records
(as an analyst's session does), verify them and make their tables through the API,
against ``phantom-log verify --jobs 1`` and ``phantom-log export --jobs 1`` on the same
file (each the best of ``--runs``; the command line's times include its start-up).

    python benchmarks/bench_api.py [--records 5000] [--runs 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import phantom_log


def best(runs: int, work: Callable[[], object]) -> float:
    """The shortest of ``runs`` timings of ``work``."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    records, runs = arguments.records, arguments.runs
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.jsonl"
        cli = [sys.executable, "-m", "phantom_log"]
        subprocess.run([*cli, "simulate", "-n", str(records), "-q", "-o", path], check=True)
        loaded = list(phantom_log.load(path))
        assert len(loaded) == records
        assert all(phantom_log.replay(record).valid for record in loaded)
        times = {
            "load": best(runs, lambda: list(phantom_log.load(path))),
            "replay": best(runs, lambda: [phantom_log.replay(record) for record in loaded]),
            "verify (API)": best(runs, lambda: list(phantom_log.verify(path))),
            "tables (API)": best(runs, lambda: phantom_log.tables(path)),
        }
        games, tricks = Path(folder) / "games.parquet", Path(folder) / "tricks.parquet"
        times["verify (CLI, jobs 1)"] = best(
            runs,
            lambda: subprocess.run([*cli, "verify", "-q", "--jobs", "1", path], check=True),
        )
        export = [*cli, "export", "-q", "--jobs", "1", "--force", path]
        times["export (CLI, jobs 1)"] = best(
            runs,
            lambda: subprocess.run([*export, "--games", games, "--tricks", tricks], check=True),
        )
    print(f"{records:,} records, best of {runs}")
    for name, seconds in times.items():
        each = seconds / records * 1e6
        print(f"  {name:<22}{seconds:6.2f} s  ({each:5.0f} us each)")
    load_replay = times["load"] + times["replay"]
    print(f"  load + replay         {load_replay:6.2f} s")
    print(
        f"  load + replay / CLI verify: {load_replay / times['verify (CLI, jobs 1)']:.2f}x; "
        f"tables / CLI export: {times['tables (API)'] / times['export (CLI, jobs 1)']:.2f}x"
    )


if __name__ == "__main__":
    main()
