"""The cluster front (``phantom_log.running.cluster``) gives the command line's tables,
statistics and problems, row for row, from a local Dask cluster of two workers.

The corpus is the benchmark corpus's (``benchmarks/corpus.py``): custom sheets, optional
rules, unfinished records and an invalid record of every code, in several files (JSON
Lines, one of them with a blank line and a record cut in two; an ``.ndjson`` file in a
sub-folder; an array of records as a ``.json`` document). The objects are cut into byte
ranges of 64 KiB, so that most tasks start in the middle of a file. The workers are
threads of this process (``processes=False``), so that a monkeypatch reaches them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.helpers.paths import REPO

distributed = pytest.importorskip("distributed")

import phantom_log.running.cluster as cluster  # noqa: E402
import phantom_log.running.cluster_tasks as cluster_tasks  # noqa: E402
import phantom_log.running.dask_extra as dask_extra  # noqa: E402
from phantom_log.files.outputs import OutputExists, OutputRefused  # noqa: E402
from phantom_log.running.parquet_datasets import dataset_files  # noqa: E402
from phantom_log.running.stored_sources import find_stored_sources  # noqa: E402
from phantom_log.tabular.batch import PROBLEM_SCHEMA, batch_tables  # noqa: E402
from phantom_log.tabular.tables import GAME_SCHEMA, TRICK_SCHEMA  # noqa: E402
from tests.helpers.cli import run as run_cli  # noqa: E402

BLOCKSIZE = 64 * 1024
RECORDS = 360


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several files of realistic records, valid, unfinished and invalid."""
    from benchmarks.corpus import build_part

    folder = tmp_path_factory.mktemp("cluster") / "corpus"
    (folder / "sub").mkdir(parents=True)
    first = build_part((7, RECORDS, 0, 120))
    second = build_part((7, RECORDS, 120, 240))
    third = build_part((7, RECORDS, 240, RECORDS))
    (folder / "a.jsonl").write_bytes(first.lines)
    # A blank line first, and a record cut in two by a blank line: two json problems.
    cut = second.lines.index(b"\n", 5000) - 100
    (folder / "b.jsonl").write_bytes(b"\n" + second.lines[:cut] + b"\n  \n" + second.lines[cut:])
    (folder / "sub" / "c.ndjson").write_bytes(third.lines)
    (folder / "d.json").write_bytes(b"[\n" + b",\n".join(first.items[:30]) + b"\n]\n")
    return folder


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A local cluster of two workers (threads of this process: fast to start)."""
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as local,
        distributed.Client(local) as connected,
    ):
        yield connected


@pytest.fixture(scope="module")
def single_machine(corpus: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The command line's export of the corpus, invalid records included."""
    folder = corpus.parent / "cli"
    folder.mkdir()
    games, tricks = folder / "games.parquet", folder / "tricks.parquet"
    result = run_cli(
        "export", corpus, "--games", games, "--tricks", tricks, "--include-invalid", "-q"
    )
    assert result.exit_code == 1, result.output  # the corpus has invalid records
    return pl.read_parquet(games), pl.read_parquet(tricks)


def read_dataset(url: str) -> pl.DataFrame:
    return pl.read_parquet(dataset_files(url))


def export(
    corpus: Path, folder: Path, client: Any, **options: Any
) -> tuple[cluster.ClusterRun, pl.DataFrame, pl.DataFrame]:
    games, tricks = str(folder / "games"), str(folder / "tricks")
    run = cluster.export_on_cluster(
        [str(corpus)], games, tricks, client, blocksize=BLOCKSIZE, quiet=True, **options
    )
    return run, read_dataset(games), read_dataset(tricks)


def by_record(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort("source", "index")


# --- the unit of work ---------------------------------------------------------------------


def test_unit_of_work_gives_exports_columns_and_types(corpus: Path) -> None:
    tables = batch_tables((corpus / "a.jsonl").read_bytes(), "a.jsonl", include_invalid=True)
    assert dict(tables.games.schema) == GAME_SCHEMA
    assert dict(tables.tricks.schema) == TRICK_SCHEMA
    assert dict(tables.problems.schema) == PROBLEM_SCHEMA
    assert tables.records == tables.included == 120
    arrow = tables.arrow()
    assert arrow["games"].column_names == list(GAME_SCHEMA)
    assert arrow["tricks"].num_rows == tables.tricks.height


def test_unit_of_work_arrow_tables_have_the_types_of_exports_parquet(
    corpus: Path, single_machine: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    """As pyarrow reads them: the unit of work's Arrow tables and export's Parquet files
    have the same schema (names, order, types, nested ones included)."""
    import pyarrow.parquet as pq

    arrow = batch_tables((corpus / "a.jsonl").read_bytes(), "a.jsonl").arrow()
    for table in ("games", "tricks"):
        written = pq.read_schema(corpus.parent / "cli" / f"{table}.parquet")
        assert arrow[table].schema.remove_metadata() == written.remove_metadata()


def test_unit_of_work_on_parsed_records_is_the_same_as_on_text(corpus: Path) -> None:
    parsed = json.loads((corpus / "d.json").read_bytes())
    text = b"".join(json.dumps(record).encode() + b"\n" for record in parsed)
    from_text = batch_tables(text, "c", first_index=240)
    from_records = batch_tables(parsed, "c", first_index=240)
    assert from_text.games.equals(from_records.games)
    assert from_text.tricks.equals(from_records.tricks)
    assert from_text.problems.equals(from_records.problems)
    assert from_text.games["index"].min() == 240


@pytest.mark.parametrize("include_invalid", [True, False])
def test_unit_of_work_is_exports_rows(
    corpus: Path, single_machine: tuple[pl.DataFrame, pl.DataFrame], include_invalid: bool
) -> None:
    """Each file of the corpus, as one batch, gives export's rows of that file: its games
    rows, and the tricks rows of those games (the next ``tricks_played`` rows of each)."""
    games, tricks = single_machine
    if not include_invalid:
        starts = games["tricks_played"].cum_sum() - games["tricks_played"]
        kept = [
            row
            for start, count, valid in zip(
                starts, games["tricks_played"], games["valid"], strict=True
            )
            if valid
            for row in range(start, start + count)
        ]
        games, tricks = games.filter(pl.col("valid")), tricks[kept]
    offset = 0
    files = sorted(path for path in corpus.rglob("*") if path.is_file())
    for path in files:
        source = str(path)
        tables = batch_tables(
            path.read_bytes(),
            source,
            include_invalid=include_invalid,
            json_lines=path.suffix != ".json",
        )
        expected = games.filter(pl.col("source") == source)
        assert tables.games.height == expected.height > 0
        assert tables.games.equals(expected)
        assert tables.tricks.equals(tricks.slice(offset, tables.tricks.height))
        assert tables.tricks.height == expected["tricks_played"].sum()
        offset += tables.tricks.height
    # The files' tables, one after the other, are the whole tables.
    assert offset == tricks.height > 0
    assert offset == tricks.height


def test_export_runs_the_unit_of_work(
    corpus: Path,
    single_machine: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every record export reads goes through the unit of work's one step from records
    to rows (``batch_rows``): the two are one code, not two that agree today."""
    import phantom_log.tabular.batch

    batch_rows = phantom_log.tabular.batch.batch_rows
    seen: list[int] = []

    def counted(*args: Any, **options: Any) -> phantom_log.tabular.batch.BatchRows:
        rows = batch_rows(*args, **options)
        seen.append(rows.chunk.records)
        return rows

    monkeypatch.setattr(phantom_log.tabular.batch, "batch_rows", counted)
    games = tmp_path / "games.parquet"
    result = run_cli("export", corpus, "--games", games, "--jobs", "1", "-q")
    assert result.exit_code == 1, result.output
    # Every record (the invalid ones too: --include-invalid keeps a row of each).
    assert len(seen) >= 4 and sum(seen) == single_machine[0].height
    assert pl.read_parquet(games).equals(single_machine[0].filter(pl.col("valid")))


# --- the same results on the cluster ---------------------------------------------------------


def test_export_on_a_cluster_gives_the_command_lines_tables(
    corpus: Path,
    client: Any,
    single_machine: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: Path,
) -> None:
    run, games, tricks = export(corpus, tmp_path, client, include_invalid=True)
    expected_games, expected_tricks = single_machine
    assert run.parts > 8  # the objects were cut into ranges
    assert by_record(games).equals(by_record(expected_games))
    assert games.equals(expected_games)  # in input order too
    assert tricks.equals(expected_tricks)
    assert (run.records, run.included, run.failed) == (expected_games.height,) * 2 + (0,)
    assert run.invalid == expected_games.filter(~pl.col("valid")).height


def test_export_on_a_cluster_leaves_out_invalid_records(
    corpus: Path,
    client: Any,
    single_machine: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: Path,
) -> None:
    run, games, _ = export(corpus, tmp_path, client)
    expected = single_machine[0].filter(pl.col("valid"))
    assert games.equals(expected)
    assert run.left_out == single_machine[0].height - expected.height


@pytest.mark.parametrize(
    ("by", "curve"), [((), False), (("sheet", "rules"), False), (("player",), False), ((), True)]
)
def test_stats_on_a_cluster_are_the_command_lines(
    corpus: Path, client: Any, by: tuple[str, ...], curve: bool
) -> None:
    frame, run = cluster.stats_on_cluster(
        [str(corpus)], client, by=by, curve=curve, blocksize=BLOCKSIZE, quiet=True
    )
    options = [option for key in by for option in ("--by", key)]
    result = run_cli(
        "stats", corpus, *options, *(["--curve"] if curve else []), "--format", "json", "-q"
    )
    expected = pl.read_ndjson(result.stdout_bytes, schema=frame.schema)
    assert frame.equals(expected)
    assert run.records > run.included > 0


def test_verify_on_a_cluster_gives_the_command_lines_problems(corpus: Path, client: Any) -> None:
    run = cluster.verify_on_cluster([str(corpus)], client, blocksize=BLOCKSIZE, quiet=True)
    text = run_cli("verify", corpus, "--jobs", "1")
    lines = text.output.splitlines()
    summary, by_code = lines[-2:]
    assert summary == (
        f"{run.records} records: {run.valid} valid, {run.records - run.valid} invalid, "
        f"{run.warnings} warnings"
    )
    assert by_code == "by code: " + ", ".join(f"{code} {n}" for code, n in run.by_code())
    quiet = run_cli("verify", corpus, "--jobs", "1", "--quiet")
    assert list(run.problem_lines()) == quiet.output.splitlines()
    reports = [
        json.loads(line)
        for line in run_cli("verify", corpus, "--format", "json").output.splitlines()
    ]
    problems = [
        {
            "source": report["source"],
            "index": report["index"],
            "game_id": report["game_id"],
            **problem,
        }
        for report in reports
        for problem in report["problems"]
    ]
    assert run.problems.drop("hint").to_dicts() == [
        {key: problem[key] for key in PROBLEM_SCHEMA if key != "hint"} for problem in problems
    ]


# --- failure is local ----------------------------------------------------------------------


def test_a_record_that_crashes_its_task_is_an_internal_error_row(
    corpus: Path,
    client: Any,
    single_machine: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import phantom_log.tabular.tables

    victim = single_machine[0].filter(pl.col("valid")).row(50, named=True)
    game_row = phantom_log.tabular.tables.game_row

    def crashing(report: Any) -> tuple[Any, ...]:
        if report.index == victim["index"] and report.source == victim["source"]:
            raise ZeroDivisionError("a bug")
        return game_row(report)

    monkeypatch.setattr(phantom_log.tabular.tables, "game_row", crashing)
    run, games, tricks = export(corpus, tmp_path, client)
    assert run.failed == 1
    [problem] = run.problems.to_dicts()
    assert (problem["source"], problem["index"], problem["code"]) == (
        victim["source"],
        victim["index"],
        "internal-error",
    )
    expected = single_machine[0].filter(pl.col("valid"))
    others = ~((pl.col("source") == victim["source"]) & (pl.col("index") == victim["index"]))
    assert games.equals(expected.filter(others))
    # Each game's tricks are as many rows as its tricks_played.
    assert tricks.height == expected["tricks_played"].sum() - victim["tricks_played"]


def test_an_object_that_cannot_be_read_is_an_unreadable_row(
    corpus: Path,
    client: Any,
    single_machine: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import dask.bytes.core

    read = dask.bytes.core.read_block_from_file

    def failing(lazy_file: Any, *args: Any) -> bytes:
        if lazy_file.path.endswith("d.json"):
            raise PermissionError(13, "Permission denied")
        return bytes(read(lazy_file, *args))

    monkeypatch.setattr(dask.bytes.core, "read_block_from_file", failing)
    run, games, _ = export(corpus, tmp_path, client, include_invalid=True)
    [problem] = run.problems.to_dicts()
    assert problem["source"] == str(corpus / "d.json")
    assert (problem["index"], problem["code"]) == (0, "unreadable")
    assert problem["message"] == "cannot read (permission denied)"
    assert run.failed == 1
    assert games.equals(single_machine[0].filter(pl.col("source") != str(corpus / "d.json")))


def test_a_range_the_checker_fails_on_is_one_internal_error_row(
    corpus: Path, client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = cluster_tasks.batch_tables

    def failing(data: bytes, source: str, **options: Any) -> Any:
        if source.endswith("c.ndjson") and options["first_index"] == 0:
            raise MemoryError
        return batch(data, source, **options)

    monkeypatch.setattr(cluster_tasks, "batch_tables", failing)
    run, games, _ = export(corpus, tmp_path, client)
    [problem] = run.problems.to_dicts()
    assert (problem["index"], problem["code"]) == (0, "internal-error")
    assert "MemoryError" in problem["message"]
    assert games.filter(pl.col("source").str.ends_with("c.ndjson")).height > 0


# --- the outputs ---------------------------------------------------------------------------


def test_datasets_are_never_overwritten_without_force(
    corpus: Path, client: Any, tmp_path: Path
) -> None:
    source = [str(corpus / "sub")]
    games, tricks = str(tmp_path / "games"), str(tmp_path / "tricks")
    cluster.export_on_cluster(source, games, tricks, client, quiet=True)
    with pytest.raises(OutputExists, match="use --force"):
        cluster.export_on_cluster(source, games, tricks, client, quiet=True)
    cluster.export_on_cluster(source, games, None, client, quiet=True, force=True)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games", "tricks"]
    (tmp_path / "notes.txt").mkdir()
    (tmp_path / "notes.txt" / "mine.txt").write_text("keep me")
    with pytest.raises(OutputRefused, match="other files than Parquet"):
        cluster.export_on_cluster(
            source, str(tmp_path / "notes.txt"), None, client, quiet=True, force=True
        )
    with pytest.raises(OutputRefused, match="does not exist"):
        cluster.export_on_cluster(source, str(tmp_path / "no" / "g"), None, client, quiet=True)


def test_missing_sources_and_missing_dask_are_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phantom_log.records.found_sources import SourceError

    with pytest.raises(SourceError, match="no such file"):
        find_stored_sources([str(tmp_path / "absent.jsonl")])
    with pytest.raises(SourceError, match="matches no file"):
        find_stored_sources([str(tmp_path / "*.jsonl")])
    monkeypatch.setattr(dask_extra, "cluster_installed", lambda: False)
    with pytest.raises(dask_extra.ClusterUnavailable, match=r"pip install 'phantom-log\[dask\]'"):
        cluster.verify_on_cluster([str(tmp_path)], "local")


def test_the_command_line_does_not_import_dask() -> None:
    import subprocess

    code = (
        "import sys, phantom_log.cli, phantom_log.running.cluster; "
        "assert not {'dask', 'distributed', 'fsspec'} & set(sys.modules), sys.modules.keys()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- the command line's --scheduler --------------------------------------------------------


def test_the_command_line_runs_on_a_cluster_with_scheduler(
    corpus: Path, client: Any, tmp_path: Path
) -> None:
    """``--scheduler ADDRESS`` gives verify's problems and summary, export's tables and
    stats' figures as the same commands without it, with the same exit codes."""
    address = client.scheduler.address
    here = run_cli("verify", corpus, "--quiet")
    there = run_cli("verify", corpus, "--quiet", "--scheduler", address)
    assert (there.exit_code, there.stdout) == (here.exit_code, here.stdout)
    summary = run_cli("verify", corpus).stdout.splitlines()[-2:]
    assert run_cli("verify", corpus, "--scheduler", address).stdout.splitlines()[-2:] == summary

    games = tmp_path / "games"
    exported = run_cli("export", corpus, "--games", games, "-q", "--scheduler", address)
    local = run_cli("export", corpus, "--games", tmp_path / "games.parquet", "-q")
    assert exported.exit_code == local.exit_code
    assert pl.read_parquet(games).equals(pl.read_parquet(tmp_path / "games.parquet"))

    figures = run_cli(
        *("stats", corpus, "--by", "sheet", "--format", "csv", "-q", "--scheduler", address),
        *("--work-url", tmp_path / "work"),
    )
    assert (
        figures.stdout == run_cli("stats", corpus, "--by", "sheet", "--format", "csv", "-q").stdout
    )
    assert figures.exit_code == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["verify", "-", "--scheduler", "local"], "not standard input"),
        (["verify", "CORPUS", "--format", "json", "--scheduler", "local"], "--format text"),
        (
            ["verify", "CORPUS", "--valid-out", "OUT/ok.jsonl", "--scheduler", "local"],
            "not written",
        ),
        (
            ["export", "CORPUS", "--games", "OUT/g", "--format", "csv", "--scheduler", "local"],
            "Parquet",
        ),
        (["export", "CORPUS", "--games", "OUT/g.csv", "--scheduler", "local"], "not standard"),
        (["export", "CORPUS", "--tricks", "-", "--scheduler", "local"], "not standard output"),
        (["stats", "CORPUS", "--work-url", "OUT"], "takes --scheduler"),
    ],
)
def test_scheduler_refuses_what_a_cluster_cannot_do(
    args: list[str], message: str, corpus: Path, tmp_path: Path
) -> None:
    result = run_cli(
        *(a.replace("CORPUS", str(corpus)).replace("OUT", str(tmp_path)) for a in args)
    )
    assert result.exit_code == 2
    assert message in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_scheduler_without_dask_says_what_to_install(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dask_extra, "cluster_installed", lambda: False)
    result = run_cli("verify", corpus, "--scheduler", "local")
    assert result.exit_code == 2
    # The command that works for this installation (from a checkout: the checkout's own
    # extra; from the package index: the package's), as the plot extra's hint says it.
    from phantom_log.cli.extras import install_command

    command = install_command("dask")
    assert command.startswith("pip install ") and "[dask]" in command
    assert result.stderr.rstrip().endswith(f"which is not installed: {command}")


# --- stores that fsspec reads -----------------------------------------------------------------


@pytest.fixture
def stored_corpus(corpus: Path) -> Iterator[str]:
    """The corpus copied into fsspec's in-memory store (``memory://``): a store that
    only fsspec reads, as ``s3://`` or ``gs://`` are read (the workers are threads of this
    process, so that they see it)."""
    import fsspec

    store = fsspec.filesystem("memory")
    root = "/phantom-log-corpus"
    for path in corpus.rglob("*"):
        if path.is_file():
            store.pipe(f"{root}/{path.relative_to(corpus).as_posix()}", path.read_bytes())
    yield f"memory://{root}"
    store.rm(root, recursive=True)
    if store.exists("/phantom-log-out"):
        store.rm("/phantom-log-out", recursive=True)


def test_a_store_read_through_fsspec_gives_the_command_lines_results(
    corpus: Path,
    stored_corpus: str,
    client: Any,
    single_machine: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    """Objects named by a glob, by their URL and by a folder, cut into byte ranges; the
    datasets written to the store, and the statistics read back from it."""
    urls = [f"{stored_corpus}/*.jsonl", f"{stored_corpus}/d.json", f"{stored_corpus}/sub"]
    games_url, tricks_url = "memory:///phantom-log-out/games", "memory:///phantom-log-out/tricks"
    run = cluster.export_on_cluster(
        urls, games_url, tricks_url, client, blocksize=BLOCKSIZE, include_invalid=True, quiet=True
    )
    assert run.parts > 8
    files = dataset_files(games_url)
    assert files[0].startswith("memory://") and len(files) == run.parts
    expected_games, expected_tricks = single_machine
    renamed = pl.col("source").str.replace(
        str(corpus), "memory:///phantom-log-corpus", literal=True
    )
    import fsspec

    store = fsspec.filesystem("memory")

    def read_stored(url: str) -> pl.DataFrame:
        return pl.concat([pl.read_parquet(store.cat_file(path)) for path in dataset_files(url)])

    games, tricks = read_stored(games_url), read_stored(tricks_url)
    assert games.equals(expected_games.with_columns(renamed))
    assert tricks.equals(expected_tricks.with_columns(renamed))

    # The statistics, from the datasets in the store and from a run with its work there.
    expected = run_cli("stats", corpus, "--by", "rules", "--format", "json", "-q").stdout_bytes
    from_datasets = cluster.exported_statistics(games_url, tricks_url, by=["rules"])
    assert from_datasets.equals(pl.read_ndjson(expected, schema=from_datasets.schema))
    figures, _ = cluster.stats_on_cluster(
        urls,
        client,
        by=["rules"],
        blocksize=BLOCKSIZE,
        work_url="memory:///phantom-log-out/work",
        quiet=True,
    )
    assert figures.equals(from_datasets)
    assert store.ls("/phantom-log-out/work") == []  # the work datasets are removed

    checked = cluster.verify_on_cluster(urls, client, blocksize=BLOCKSIZE, quiet=True)
    assert (checked.records, checked.invalid) == (run.records, run.invalid)

    # The command line takes the URLs as it takes paths.
    address = client.scheduler.address
    there = run_cli("verify", *urls, "--quiet", "--scheduler", address)
    here = run_cli("verify", corpus, "--quiet")
    assert there.exit_code == here.exit_code == 1
    assert there.stdout == here.stdout.replace(str(corpus), "memory:///phantom-log-corpus")
    exported = run_cli(
        *("export", *urls, "--games", "memory:///phantom-log-out/cli-games", "-q"),
        *("--scheduler", address),
    )
    assert exported.exit_code == 1
    cli_games = read_stored("memory:///phantom-log-out/cli-games")
    assert cli_games.equals(games.filter(pl.col("valid")))


def test_tables_in_two_stores_are_refused(
    corpus: Path, stored_corpus: str, tmp_path: Path, client: Any
) -> None:
    games = str(tmp_path / "games")
    tricks = "memory:///phantom-log-out/tricks"
    cluster.export_on_cluster([f"{stored_corpus}/sub"], games, tricks, client, quiet=True)
    with pytest.raises(ValueError, match="two stores"):
        cluster.exported_statistics(games, tricks)


# --- progress ---------------------------------------------------------------------------------


def test_progress_is_reported_as_the_cluster_finishes_tasks(
    corpus: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bar's total is the input's size; each task, as it finishes, adds its bytes
    and its records; ``quiet`` turns it off."""
    import phantom_log.views.terminal

    shown: list[tuple[str, Any]] = []

    class Recorded(phantom_log.views.terminal.Progress):
        def __init__(self, label: str, enabled: bool) -> None:
            super().__init__(label, enabled)
            shown.append(("enabled", enabled))

        def start(self, total_bytes: int | None) -> None:
            shown.append(("start", total_bytes))

        def add_bytes(self, size: int) -> None:
            shown.append(("bytes", size))

        def update(self, count: int) -> None:
            shown.append(("records", count))

        def close(self) -> None:
            shown.append(("close", None))

    monkeypatch.setattr(phantom_log.views.terminal, "Progress", Recorded)
    run = cluster.verify_on_cluster([str(corpus)], client, blocksize=BLOCKSIZE)
    size = sum(path.stat().st_size for path in corpus.rglob("*") if path.is_file())
    assert shown[:2] == [("enabled", True), ("start", size)]
    assert shown[-1] == ("close", None)
    done = [value for kind, value in shown if kind == "records"]
    assert len(done) == run.parts
    assert done == sorted(done) and done[-1] == run.records
    assert sum(value for kind, value in shown if kind == "bytes") == size
    shown.clear()
    cluster.verify_on_cluster([str(corpus / "sub")], client, quiet=True)
    assert shown[0] == ("enabled", False)


# --- a cluster of worker processes ------------------------------------------------------------


def test_scheduler_local_runs_worker_processes_with_the_command_lines_results(
    corpus: Path, single_machine: tuple[pl.DataFrame, pl.DataFrame], tmp_path: Path
) -> None:
    """``--scheduler local`` starts a cluster of worker processes (the tasks, their
    arguments and their results pickled, as on a cluster of machines): the same tables,
    statistics and exit codes as the command line."""
    games, tricks = tmp_path / "games", tmp_path / "tricks"
    exported = run_cli(
        *("export", corpus, "--games", games, "--tricks", tricks, "--include-invalid", "-q"),
        *("--scheduler", "local"),
    )
    assert exported.exit_code == 1  # invalid records, as without --scheduler
    assert len(list(games.iterdir())) == len(list(tricks.iterdir())) == 4  # one a file
    assert pl.read_parquet(games).equals(single_machine[0])
    assert pl.read_parquet(tricks).equals(single_machine[1])
    options = ("--by", "player", "--format", "csv", "-q")
    here = run_cli("stats", corpus, *options)
    there = run_cli("stats", corpus, *options, "--scheduler", "local")
    assert (there.exit_code, there.stdout) == (here.exit_code, here.stdout)


def test_the_dask_recipe_runs(
    corpus: Path, client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/recipes/dask_export.py, on the corpus: verify's counts, and stats's figures."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "dask_export", REPO / "docs" / "recipes" / "dask_export.py"
    )
    assert spec is not None and spec.loader is not None
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    recipe.main(client, str(tmp_path / "out"), [str(corpus)])
    counted, by_code, *figures = capsys.readouterr().out.splitlines()
    summary = run_cli("verify", corpus).stdout.splitlines()[-2:]
    records, valid, invalid = (int(word) for word in summary[0].replace(",", "").split()[::2][:3])
    assert counted == f"{records} records in 4 tasks: {valid} valid, {invalid} invalid"
    assert by_code == summary[1]
    expected = run_cli("stats", corpus, "--by", "rules", "--format", "csv", "-q").stdout
    assert (
        recipe.exported_statistics(
            str(tmp_path / "out" / "games"), str(tmp_path / "out" / "tricks"), by=["rules"]
        ).write_csv()
        == expected
    )
    assert figures


def test_datasets_are_put_in_place_together_or_not_at_all(
    corpus: Path, client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tricks dataset refused its place once the games dataset has taken its own:
    the games dataset is put back, both are the old ones, file for file."""
    import phantom_log.running.parquet_datasets as parquet_datasets

    games, tricks = tmp_path / "games", tmp_path / "tricks"
    cluster.export_on_cluster([str(corpus / "sub")], str(games), str(tricks), client, quiet=True)
    before = {
        str(path.relative_to(tmp_path)): path.read_bytes()
        for path in sorted(tmp_path.rglob("*"))
        if path.is_file()
    }
    real = parquet_datasets.exchange

    def refused(first: str, second: str) -> bool:
        if second == str(tricks):
            raise OSError(13, "refused")
        return real(first, second)

    monkeypatch.setattr(parquet_datasets, "exchange", refused)
    with pytest.raises(OSError, match="refused"):
        cluster.export_on_cluster(
            [str(corpus / "a.jsonl")], str(games), str(tricks), client, quiet=True, force=True
        )
    after = {
        str(path.relative_to(tmp_path)): path.read_bytes()
        for path in sorted(tmp_path.rglob("*"))
        if path.is_file()
    }
    assert after == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games", "tricks"]
