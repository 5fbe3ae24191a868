"""The Dask front (``phantom_log.running.cluster``) against the command line, on one machine.

Run from the repository's root, with the project's virtual environment and the ``dask``
extra (``pip install -e '.[dask]'``)::

    .venv/bin/python benchmarks/bench_dask.py                       # 20,000 records
    .venv/bin/python benchmarks/bench_dask.py --records 100000 --workers 2 --blocksize 8

The corpus is ``benchmarks/corpus.py``'s (built once into the work folder, then reused):
valid, unfinished and invalid records, custom sheets, optional rules, as JSON Lines. Then,
each timed on its own, with the same number of processes:

- ``verify --format json --jobs W`` and ``export --jobs W`` (Parquet) of the command line,
  each in a fresh process (its start counted);
- a local Dask cluster of W worker processes started (its start timed apart), then
  ``verify_on_cluster`` and ``export_on_cluster`` on it (the corpus cut into ranges of
  ``--blocksize`` MiB).

It prints seconds and records per second, and checks that the cluster's games and tricks
tables are the command line's (the script exits 1 otherwise).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import build_corpus, load_corpus, phantom_log_command


def timed(command: list[str]) -> float:
    """Wall seconds of a command run in a fresh process (its output discarded)."""
    start = time.perf_counter()
    code = subprocess.call(command, stdout=subprocess.DEVNULL)
    if code not in (0, 1):
        raise SystemExit(f"exit code {code}: {' '.join(command)}")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000, help="Records (20,000).")
    parser.add_argument("--seed", type=int, default=1, help="The corpus's seed (1).")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="Processes (all cores)."
    )
    parser.add_argument("--blocksize", type=float, default=4.0, help="MiB per task (4).")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "phantom-log-bench-dask",
        help="Where the corpus is cached and the outputs written.",
    )
    args = parser.parse_args(argv)

    import polars as pl
    from distributed import Client, LocalCluster

    from phantom_log.running.cluster import export_on_cluster, verify_on_cluster
    from phantom_log.running.parquet_datasets import dataset_files

    folder = args.workdir / f"corpus-{args.records}-seed{args.seed}"
    corpus = load_corpus(folder) or build_corpus(folder, args.records, args.seed, jobs=2)
    source = str(corpus.jsonl)
    out = args.workdir / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    tool = phantom_log_command()
    jobs = ["--jobs", str(args.workers)]
    size = corpus.jsonl.stat().st_size
    print(
        f"{corpus.records:,} records, {size / 2**20:.1f} MiB of JSON Lines; "
        f"{args.workers} processes; ranges of {args.blocksize} MiB"
    )
    verify = [*tool, "verify", source, *jobs, "--format", "json"]
    export = [*tool, "export", source, *jobs, "-q", "--games", str(out / "games.parquet")]
    export += ["--tricks", str(out / "tricks.parquet")]
    rows: list[tuple[str, float]] = [
        ("command line: verify --format json", timed(verify)),
        ("command line: export (parquet)", timed(export)),
    ]
    start = time.perf_counter()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        rows.append(("dask: local cluster start", time.perf_counter() - start))
        blocksize = int(args.blocksize * 2**20)
        start = time.perf_counter()
        verify_on_cluster([source], client, blocksize=blocksize, quiet=True)
        rows.append(("dask: verify_on_cluster", time.perf_counter() - start))
        start = time.perf_counter()
        games, tricks = str(out / "games"), str(out / "tricks")
        run = export_on_cluster([source], games, tricks, client, blocksize=blocksize, quiet=True)
        rows.append(("dask: export_on_cluster", time.perf_counter() - start))
    print(f"{'':<38} {'seconds':>8} {'records/s':>10}")
    for name, seconds in rows:
        rate = "" if "start" in name else f"{corpus.records / seconds:>10,.0f}"
        print(f"{name:<38} {seconds:>8.2f} {rate}")
    print(f"dask: {run.parts} tasks")
    same = all(
        pl.read_parquet(out / f"{table}.parquet").equals(
            pl.read_parquet(dataset_files(str(out / table)))
        )
        for table in ("games", "tricks")
    )
    print("games and tricks tables the same as the command line's:", "yes" if same else "NO")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
