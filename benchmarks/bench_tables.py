"""Benchmark of ``export`` and ``stats`` (with ``verify`` as the reference).

Run from the repository's root, with the project's virtual environment::

    .venv/bin/python benchmarks/bench_tables.py                 # 100,000 games
    .venv/bin/python benchmarks/bench_tables.py --games 20000 --workdir /tmp/bench

The first run writes ``phantom-log simulate -n N --seed 1`` to the work folder
(``sim-N-seed1.jsonl``; default ``$TMPDIR/phantom-log-bench``) and later runs reuse it. Each command
then runs in a fresh subprocess: a small Python wrapper starts ``phantom-log``, waits for
it, and reports the wall time and ``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` (the
peak resident memory of that one command, since the wrapper has no other child). The
table gives seconds, records per second and peak MiB; with ``--repeat R`` each command
runs R times and the fastest run is shown, with the highest peak.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# Runs one command with its standard output sent to /dev/null and prints, as JSON, its
# exit code, wall time and peak resident memory in bytes (ru_maxrss is KiB on Linux, bytes
# on macOS).
WRAPPER = """\
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
scale = 1 if sys.platform == "darwin" else 1024
print(json.dumps({"code": code, "wall": wall, "peak": peak * scale}))
"""


@dataclass
class Measure:
    """One command's figures: the fastest wall time and the highest peak memory."""

    name: str
    seconds: float
    peak_bytes: int


def phantom_log_command() -> list[str]:
    """The ``phantom-log`` console script beside this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("phantom-log")
    if script.exists():
        return [str(script)]
    found = shutil.which("phantom-log")
    return [found] if found else [sys.executable, "-m", "phantom_log"]


def corpus(workdir: Path, games: int) -> Path:
    """The simulated games, written once and cached in ``workdir``."""
    path = workdir / f"sim-{games}-seed1.jsonl"
    if path.exists():
        print(f"using {path}", file=sys.stderr)
        return path
    print(f"simulating {games} games into {path} ...", file=sys.stderr)
    command = [*phantom_log_command(), "simulate", "-n", str(games), "--seed", "1"]
    subprocess.run([*command, "-q", "-o", str(path)], check=True)
    return path


def measure(name: str, command: list[str], repeat: int) -> Measure:
    """Run ``command`` ``repeat`` times, each in a fresh wrapper process."""
    best: Measure | None = None
    for _ in range(repeat):
        output = subprocess.run(
            [sys.executable, "-c", WRAPPER, *command],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        figures = json.loads(output)
        if figures["code"] != 0:
            raise SystemExit(f"{name}: exit code {figures['code']}: {' '.join(command)}")
        if best is None:
            best = Measure(name, figures["wall"], figures["peak"])
        else:
            best.seconds = min(best.seconds, figures["wall"])
            best.peak_bytes = max(best.peak_bytes, figures["peak"])
    assert best is not None
    return best


def commands(source: Path, out: Path) -> list[tuple[str, list[str]]]:
    """The commands measured, by name."""
    tool = phantom_log_command()

    def export(kind: str) -> list[str]:
        games, tricks = out / f"games.{kind}", out / f"tricks.{kind}"
        return [*tool, "export", str(source), "--games", str(games), "--tricks", str(tricks)]

    return [
        ("verify --format json (ref)", [*tool, "verify", "--format", "json", str(source)]),
        ("export parquet", [*export("parquet"), "--force", "-q"]),
        ("export csv", [*export("csv"), "--force", "-q"]),
        ("stats", [*tool, "stats", str(source), "-q"]),
        (
            "stats --by rules --by special_number",
            [*tool, "stats", str(source), "--by", "rules", "--by", "special_number", "-q"],
        ),
        ("stats --curve", [*tool, "stats", str(source), "--curve", "-q"]),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="How many games.")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "phantom-log-bench",
        help="Where the simulated games are cached and the exports written.",
    )
    parser.add_argument("--repeat", type=int, default=1, help="Runs of each command.")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    source = corpus(args.workdir, args.games)
    size = source.stat().st_size
    print(f"{args.games} games, {size / 2**20:.1f} MiB of JSON Lines; {os.cpu_count()} CPUs")
    header = f"{'command':<38} {'seconds':>8} {'records/s':>10} {'peak MiB':>9}"
    print(header)
    print("-" * len(header))
    for name, command in commands(source, args.workdir):
        figures = measure(name, command, args.repeat)
        rate = args.games / figures.seconds
        print(
            f"{name:<38} {figures.seconds:>8.2f} {rate:>10,.0f} {figures.peak_bytes / 2**20:>9.0f}",
            flush=True,
        )
    for kind in ("parquet", "csv"):
        sizes = [(args.workdir / f"{table}.{kind}").stat().st_size for table in ("games", "tricks")]
        print(f"{kind}: games {sizes[0] / 2**20:.1f} MiB, tricks {sizes[1] / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
