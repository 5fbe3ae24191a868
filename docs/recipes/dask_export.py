"""phantom-log's tables, statistics and problems on a Dask cluster
(``phantom_log.running.cluster``).

    python docs/recipes/dask_export.py SCHEDULER OUT_FOLDER URL...

SCHEDULER is ``local`` (a cluster of this machine's cores) or a scheduler's address
(``tcp://scheduler:8786``); the URLs are files, folders or globs of any store fsspec
reads (``s3://bucket/records/*.jsonl`` with s3fs installed). OUT_FOLDER receives the
games and tricks tables as Parquet datasets, and the script prints the statistics
(``phantom-log stats``) and the problems counted per code (``phantom-log verify``).
Needs ``pip install 'phantom-log[dask]'``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from phantom_log.running.cluster import cluster_client, export_on_cluster, exported_statistics


def main(scheduler: str, out: str, urls: list[str]) -> None:
    if "://" not in out:
        Path(out).mkdir(parents=True, exist_ok=True)
    games, tricks = f"{out}/games", f"{out}/tricks"
    # One client for the whole session: a local cluster starts once.
    with cluster_client(scheduler) as client:
        run = export_on_cluster(urls, games, tricks, client, include_invalid=True)
    print(f"{run.records} records in {run.parts} tasks: {run.valid} valid, {run.invalid} invalid")
    print("by code:", ", ".join(f"{code} {count}" for code, count in run.by_code()))
    # The statistics are stats's own, over the valid games of the datasets.
    print(exported_statistics(games, tricks, by=["rules"]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
