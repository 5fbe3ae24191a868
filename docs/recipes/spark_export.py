"""phantom-log's games and tricks tables on Spark, through ``mapInArrow``.

    python docs/recipes/spark_export.py OUT_FOLDER RECORDS.jsonl...

Each object is one row of Spark's ``binaryFile`` source (its path and its bytes); each
Python worker runs phantom-log's unit of work (:func:`phantom_log.tabular.batch.batch_tables`) on
it and gives back Arrow record batches, which Spark writes as Parquet. The records of an
object go to one task: cut objects larger than a few hundred MiB before (or use the Dask
front, which cuts them at line boundaries). Each table is its own pass over the records.

At the end the script checks that the tables are phantom-log's own
(:func:`phantom_log.tabular.tables`), row for row. Needs ``pip install pyspark pyarrow`` and Java.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa

from phantom_log.tabular.batch import batch_tables, empty_tables


def spark_schema(table: str) -> pa.Schema:
    """The Arrow schema Spark is told: ``string`` and ``list`` for the large ones, at any
    depth (the tricks' ``swaps`` is a list of structs of lists), which Spark's Arrow
    does not read."""
    schema = empty_tables().arrow()[table].schema
    return pa.schema([field.with_type(_plain(field.type)) for field in schema])


def _plain(kind: pa.DataType) -> pa.DataType:
    if pa.types.is_large_string(kind):
        return pa.string()
    if pa.types.is_large_list(kind) or pa.types.is_list(kind):
        return pa.list_(kind.value_field.with_type(_plain(kind.value_type)))
    if pa.types.is_struct(kind):
        return pa.struct([field.with_type(_plain(field.type)) for field in kind])
    return kind


def records_to(table: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function ``mapInArrow`` runs: each object's records to the rows of ``table``."""
    schema = spark_schema(table)

    def convert(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            paths = batch.column("path").to_pylist()
            contents = batch.column("content").to_pylist()
            for path, content in zip(paths, contents, strict=True):
                source = path.removeprefix("file:")  # named as the command line names it
                json_lines = not source.endswith(".json")  # a .json object: one document
                rows = batch_tables(content, source, json_lines=json_lines).arrow()[table]
                yield from rows.cast(schema).to_batches()

    return convert


def main(out: str, paths: list[str]) -> None:
    from pyspark.sql import SparkSession
    from pyspark.sql.pandas.types import from_arrow_schema

    # The Python workers run this interpreter, where phantom-log is installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = SparkSession.builder.master("local[2]").appName("phantom-log").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    objects = spark.read.format("binaryFile").load([str(Path(path).resolve()) for path in paths])
    for table in ("games", "tricks"):
        rows = objects.mapInArrow(records_to(table), from_arrow_schema(spark_schema(table)))
        rows.write.mode("overwrite").parquet(f"{out}/{table}")
    print(f"spark {spark.version}: wrote {out}/games and {out}/tricks")
    spark.stop()
    check(out, paths)


def check(out: str, paths: list[str]) -> None:
    """The tables Spark wrote are phantom-log's (rows in any order)."""
    import polars as pl

    import phantom_log

    absolute = [str(Path(path).resolve()) for path in paths]
    games, tricks = phantom_log.tables(*absolute)
    for name, expected in (("games", games), ("tricks", tricks)):
        found = pl.read_parquet(f"{out}/{name}/*.parquet")
        columns = expected.columns
        assert found.sort(columns).equals(expected.sort(columns)), name
        print(f"{name}: {found.height} rows, the same as phantom-log's")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
