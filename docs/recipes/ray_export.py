"""phantom-log's games and tricks tables on Ray Data, through ``map_batches``.

    python docs/recipes/ray_export.py OUT_FOLDER RECORDS.jsonl...

Each object is one row of ``ray.data.read_binary_files`` (its bytes and its path); each
batch of objects goes through phantom-log's unit of work
(:func:`phantom_log.tabular.batch.batch_tables`) as pyarrow tables, and Ray writes them as Parquet.
The records of an object go to one task: cut objects larger than a few hundred MiB before
(or use the Dask front, which cuts them at line boundaries). Each table is its own pass.

At the end the script checks that the tables are phantom-log's own
(:func:`phantom_log.tabular.tables`), row for row. Needs ``pip install 'ray[data]'``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from phantom_log.tabular.batch import batch_tables


def records_to(table: str) -> Callable[[pa.Table], pa.Table]:
    """The function ``map_batches`` runs: a batch of objects to the rows of ``table``."""

    def convert(objects: pa.Table) -> pa.Table:
        contents = objects.column("bytes").to_pylist()
        paths = objects.column("path").to_pylist()
        parts = [
            # A .json object is one document; any other, JSON Lines.
            batch_tables(content, path, json_lines=not path.endswith(".json")).arrow()[table]
            for content, path in zip(contents, paths, strict=True)
        ]
        return pa.concat_tables(parts)

    return convert


def main(out: str, paths: list[str]) -> None:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    absolute = [str(Path(path).resolve()) for path in paths]
    objects = ray.data.read_binary_files(absolute, include_paths=True)
    for table in ("games", "tricks"):
        rows = objects.map_batches(records_to(table), batch_format="pyarrow", batch_size=1)
        rows.write_parquet(f"{out}/{table}")
    print(f"ray {ray.__version__}: wrote {out}/games and {out}/tricks")
    ray.shutdown()
    check(out, absolute)


def check(out: str, paths: list[str]) -> None:
    """The tables Ray wrote are phantom-log's (rows in any order)."""
    import polars as pl

    import phantom_log

    games, tricks = phantom_log.tables(*paths)
    for name, expected in (("games", games), ("tricks", tricks)):
        found = pl.read_parquet(f"{out}/{name}/*.parquet")
        columns = expected.columns
        assert found.sort(columns).equals(expected.sort(columns)), name
        print(f"{name}: {found.height} rows, the same as phantom-log's")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
