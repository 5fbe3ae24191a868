"""The recipes of docs/cluster.md for Spark (``mapInArrow``) and Ray Data (``map_batches``)
give phantom-log's own tables, row for row.

Neither engine is installed here: each recipe's conversion function, the code that runs on
the engine's workers, is given its input as the engine gives it (Spark's ``binaryFile``
rows as Arrow record batches, Ray's ``read_binary_files`` rows as a pyarrow table), and
its output must be what the engine is told to expect (Spark: the schema it declares).
What the engines themselves add (reading the objects, writing Parquet) is theirs.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import polars as pl
import pytest

from tests.helpers.paths import REPO

pa = pytest.importorskip("pyarrow")

import phantom_log  # noqa: E402

RECIPES = REPO / "docs" / "recipes"
EXAMPLES = REPO / "examples"


def recipe(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, RECIPES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Objects of both kinds: JSON Lines of the examples' records, valid and invalid
    (left out of the tables), and .json documents (a record, an array of records)."""
    folder = tmp_path_factory.mktemp("objects")
    records = [
        json.loads(path.read_bytes())
        for path in sorted(EXAMPLES.glob("*.json")) + sorted(EXAMPLES.glob("invalid/[a-i]*.json"))
        if not path.name.startswith("json")
    ]
    lines = folder / "records.jsonl"
    lines.write_text("".join(json.dumps(record) + "\n" for record in records))
    array = folder / "stage-2.json"
    array.write_bytes((EXAMPLES / "tournament" / "stage-2.json").read_bytes())
    return [lines, EXAMPLES / "optional-rules.json", array]


def expected(objects: list[Path]) -> tuple[pl.DataFrame, pl.DataFrame]:
    games, tricks = phantom_log.tables(*objects)
    assert games.height > 3 and not games["valid"].is_empty()
    return games, tricks


def large_types(kind: object) -> list[object]:
    """The large Arrow types within a type, at any depth (Spark's Arrow reads none)."""
    found: list[object] = []
    if pa.types.is_large_string(kind) or pa.types.is_large_list(kind):
        found.append(kind)
    if pa.types.is_large_list(kind) or pa.types.is_list(kind):
        found += large_types(kind.value_type)
    if pa.types.is_struct(kind):
        found += [inner for field in kind for inner in large_types(field.type)]
    return found


@pytest.mark.parametrize("table", ["games", "tricks"])
def test_spark_recipe_gives_phantom_logs_tables(objects: list[Path], table: str) -> None:
    spark = recipe("spark_export")
    schema = spark.spark_schema(table)
    # Spark 4.3 refused the tricks' swaps as a large_list (UNSUPPORTED_ARROWTYPE).
    assert [kind for field in schema for kind in large_types(field.type)] == []
    assert large_types(pa.large_list(pa.struct({"a": pa.list_(pa.large_string())})))
    # binaryFile's rows, two objects a batch, paths as Spark gives them (file: URLs).
    rows = [(f"file:{path}", path.read_bytes()) for path in objects]
    batches = [
        pa.record_batch(
            {
                "path": pa.array([path for path, _ in rows[start : start + 2]], pa.string()),
                "content": pa.array([data for _, data in rows[start : start + 2]], pa.binary()),
            }
        )
        for start in range(0, len(rows), 2)
    ]
    out = list(spark.records_to(table)(iter(batches)))
    assert out and all(batch.schema == schema for batch in out)
    found = pl.from_arrow(pa.Table.from_batches(out, schema))
    assert isinstance(found, pl.DataFrame)
    assert found.equals(expected(objects)[table == "tricks"])


@pytest.mark.parametrize("table", ["games", "tricks"])
def test_ray_recipe_gives_phantom_logs_tables(objects: list[Path], table: str) -> None:
    ray = recipe("ray_export")
    convert = ray.records_to(table)
    # read_binary_files' rows (bytes, path), one object a batch as the recipe asks.
    parts = [
        convert(pa.table({"bytes": [path.read_bytes()], "path": [str(path)]})) for path in objects
    ]
    found = pl.from_arrow(pa.concat_tables(parts))
    assert isinstance(found, pl.DataFrame)
    assert found.equals(expected(objects)[table == "tricks"])
