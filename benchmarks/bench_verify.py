"""Throughput of verify and tournament check, against the parse floor and jsonschema.

    python benchmarks/bench_verify.py [--games 100000] [--workdir DIR]

Makes `phantom-log simulate -n GAMES --seed 1` once (kept in the work folder), then times,
each in a fresh process:

- the parse floor: reading the lines and parsing each with orjson, nothing else;
- `phantom-log verify --jobs 1 --format json` (the engine as installed, compiled or not);
- the same with the pure-Python build of the engine (PHANTOM_LOG_PURE_PYTHON=1);
- `verify --jobs 2`, and `tournament check --jobs 1` and `--jobs 2`;
- jsonschema alone, validating a sample of the records (the issue's reference point).

It prints the figures and the ratios the issue asks for: verify --jobs 1 against the parse
floor (target: at most 3x) and against jsonschema alone (target: at least 100x faster).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
PHANTOM_LOG = [PYTHON, "-m", "phantom_log"]

FLOOR = """
import sys, orjson
count = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        orjson.loads(line)
        count += 1
"""

JSONSCHEMA = """
import sys, json, time
from jsonschema import Draft202012Validator, FormatChecker
from phantom_log.records.schema import schema_text
validator = Draft202012Validator(json.loads(schema_text()), format_checker=FormatChecker())
with open(sys.argv[1], "rb") as handle:
    records = [json.loads(next(handle)) for _ in range(int(sys.argv[2]))]
started = time.perf_counter()
for record in records:
    for error in validator.iter_errors(record):
        raise SystemExit("a simulated record broke the schema")
print(len(records) / (time.perf_counter() - started))
"""


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and the peak resident memory (MiB) of a command, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(
        command, stdout=subprocess.DEVNULL, check=False, env={**os.environ, **(env or {})}
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def best_of(
    runs: int, command: list[str], env: dict[str, str] | None = None
) -> tuple[float, float]:
    results = [timed(command, env) for _ in range(runs)]
    return min(seconds for seconds, _ in results), max(peak for _, peak in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    parser.add_argument("--sample", type=int, default=1000, help="records for jsonschema")
    options = parser.parse_args()
    corpus = options.workdir / f"phantom-log-bench-{options.games}.jsonl"
    if not corpus.exists():
        print(f"simulating {options.games} games into {corpus} ...", file=sys.stderr)
        subprocess.run(
            [*PHANTOM_LOG, "simulate", "-n", str(options.games), "--seed", "1", "-q",
             "-o", str(corpus)],
            check=True,
        )  # fmt: skip
    games = options.games
    size = corpus.stat().st_size / 2**20
    print(f"corpus: {games} games, {size:.0f} MiB ({corpus}); best of {options.runs} runs\n")
    rows = []

    def measure(label: str, command: list[str], env: dict[str, str] | None = None) -> float:
        seconds, peak = best_of(options.runs, command, env)
        rows.append((label, seconds, games / seconds, peak))
        return seconds

    floor = measure("parse floor (orjson, lines)", [PYTHON, "-c", FLOOR, str(corpus)])
    jobs1 = measure("verify --jobs 1 --format json", [*PHANTOM_LOG, "verify", "--jobs", "1",
                    "--format", "json", str(corpus)])  # fmt: skip
    measure("verify --jobs 2 --format json", [*PHANTOM_LOG, "verify", "--jobs", "2",
            "--format", "json", str(corpus)])  # fmt: skip
    full = measure("verify --jobs 1, pure-Python engine", [*PHANTOM_LOG, "verify", "--jobs", "1",
                   "--format", "json", str(corpus)], {"PHANTOM_LOG_PURE_PYTHON": "1"})  # fmt: skip
    measure("tournament check --jobs 1", [*PHANTOM_LOG, "tournament", "check", "--jobs", "1",
            "--format", "json", str(corpus)])  # fmt: skip
    measure("tournament check --jobs 2", [*PHANTOM_LOG, "tournament", "check", "--jobs", "2",
            "--format", "json", str(corpus)])  # fmt: skip
    sample = min(options.sample, games)
    out = subprocess.run(
        [PYTHON, "-c", JSONSCHEMA, str(corpus), str(sample)],
        check=True,
        capture_output=True,
        text=True,
    )
    jsonschema_rate = float(out.stdout)
    print(f"{'what':36} {'seconds':>9} {'records/s':>11} {'peak MiB':>9}")
    for label, seconds, rate, peak in rows:
        print(f"{label:36} {seconds:9.2f} {rate:11,.0f} {peak:9.0f}")
    print(f"{'jsonschema alone (' + str(sample) + ' records)':36} {'':9} {jsonschema_rate:11,.0f}")
    print()
    print(f"verify --jobs 1 / parse floor:        {jobs1 / floor:5.2f}x  (target: at most 3x)")
    print(
        f"verify --jobs 1 vs jsonschema alone:  {games / jobs1 / jsonschema_rate:5.0f}x faster"
        "  (target: at least 100x)"
    )
    print(f"pure-Python engine / parse floor:     {full / floor:5.2f}x")
    scaling = [row for row in rows if row[0].startswith("verify --jobs")]
    print(f"verify scaling, 1 -> 2 jobs:          {scaling[0][1] / scaling[1][1]:5.2f}x")
    print(json.dumps({"cores": os.cpu_count()}))


if __name__ == "__main__":
    main()
