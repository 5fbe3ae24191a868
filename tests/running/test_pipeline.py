"""Verifying on several processes (phantom_log.running.pipeline): ``ordered_map`` keeps the input
order on one process or several, and ``verify_batches`` gives exactly the reports of
``verify_record``, record by record."""

from __future__ import annotations

import copy
import io
import itertools
import json
import os
import time
from pathlib import Path
from typing import Any, cast

import orjson
import pytest

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.checking.verdict import verify_record
from phantom_log.records.chunks import read_again
from phantom_log.records.found_sources import SourceError, find_sources
from phantom_log.records.source_records import read_source, record_line
from phantom_log.records.strictjson import parse_json
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET
from phantom_log.running.outcomes import Batch, Options, Tally
from phantom_log.running.pipeline import ordered_map, verify_batches
from phantom_log.tournament.facts import (
    FactsRow,
    FactsTable,
    content_digest,
    report_facts,
)
from phantom_log.views.reports import problem_lines, verdict_line

JOBS = [1, 2]


def square(number: int) -> int:
    return number * number


def late_for_early_items(number: int) -> int:
    """The items given first take the longest, so workers finish out of order."""
    time.sleep(0.002 * max(0, 20 - number))
    return number


def with_process(number: int) -> tuple[int, int]:
    return number, os.getpid()


def modules_at_hand(number: int) -> tuple[int, bool]:
    """Whether the tables' modules were imported before this task (this test module
    imports neither)."""
    import sys

    return number, {"phantom_log.tabular.batch", "phantom_log.tabular.tables"} <= sys.modules.keys()


def fail_on_three(number: int) -> int:
    if number == 3:
        raise ValueError("three")
    return number


@pytest.mark.parametrize("jobs", JOBS)
def test_ordered_map_keeps_the_input_order(jobs: int) -> None:
    assert list(ordered_map(late_for_early_items, range(40), jobs)) == list(range(40))
    assert list(ordered_map(square, iter(range(100)), jobs)) == [n * n for n in range(100)]


def test_ordered_map_on_two_jobs_uses_worker_processes() -> None:
    results = list(ordered_map(with_process, range(20), 2))
    assert [number for number, _ in results] == list(range(20))
    assert os.getpid() not in {pid for _, pid in results}


def test_ordered_map_on_one_job_stays_in_this_process() -> None:
    results = list(ordered_map(with_process, range(5), 1))
    assert {pid for _, pid in results} == {os.getpid()}


def test_workers_started_by_the_fork_server_find_what_they_run_imported() -> None:
    """Once polars is loaded, workers are started by a fork server (forking a process
    whose polars threads may run can deadlock); the server imports what the workers run
    before it forks them, so that no worker imports it again."""
    import multiprocessing

    import polars  # noqa: F401

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork server on this system")
    results = list(ordered_map(modules_at_hand, range(8), 2))
    assert results == [(number, True) for number in range(8)]


@pytest.mark.parametrize("jobs", JOBS)
def test_ordered_map_of_nothing_is_nothing(jobs: int) -> None:
    assert list(ordered_map(square, [], jobs)) == []
    assert list(ordered_map(square, iter(()), jobs)) == []


@pytest.mark.parametrize("jobs", JOBS)
def test_ordered_map_of_a_single_item(jobs: int) -> None:
    assert list(ordered_map(square, [7], jobs)) == [49]
    assert list(ordered_map(square, iter([7]), jobs)) == [49]


@pytest.mark.parametrize("jobs", JOBS)
def test_ordered_map_is_lazy(jobs: int) -> None:
    """An endless input: the first results come without reading it all."""
    results = ordered_map(square, itertools.count(), jobs)
    assert list(itertools.islice(results, 10)) == [n * n for n in range(10)]
    results.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("jobs", JOBS)
def test_ordered_map_raises_what_the_function_raises(jobs: int) -> None:
    results = ordered_map(fail_on_three, range(10), jobs)
    assert list(itertools.islice(results, 3)) == [0, 1, 2]
    with pytest.raises(ValueError, match="three"):
        next(results)


# -- verify_batches -----------------------------------------------------------------


@pytest.fixture
def sources(tmp_path: Path) -> list[str]:
    """Several files: JSON Lines (with an unreadable line and a blank one), a JSON array,
    a single record, an empty array, a file that is not JSON, and a folder."""
    simulation = Simulation(RULEBOOK_SHEET, Rules(), seed=4)
    games = [simulate_game(simulation, number) for number in range(1, 41)]
    wrong = copy.deepcopy(games[3])
    wrong["result"]["notes"] = 13 - wrong["result"]["notes"]
    cut = copy.deepcopy(games[5])
    cut["rounds"][0]["tricks"] = cut["rounds"][0]["tricks"][:3]
    del cut["rounds"][1:]
    del cut["result"]
    lines = [json.dumps(game) + "\n" for game in games[:15]]
    lines[4:4] = ["{not json\n", "\n"]
    (tmp_path / "a.jsonl").write_text("".join(lines), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps([*games[15:30], wrong, cut, 17]), "utf-8")
    (tmp_path / "c.json").write_text(json.dumps(games[30]), encoding="utf-8")
    (tmp_path / "d.json").write_text("[]", encoding="utf-8")
    (tmp_path / "e.json").write_text('{"format": "phantom-log/1",', encoding="utf-8")
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "x.ndjson").write_text(
        "".join(json.dumps(game) + "\n" for game in games[31:]), encoding="utf-8"
    )
    return [
        str(tmp_path / name) for name in ("a.jsonl", "b.json", "c.json", "d.json", "e.json")
    ] + [str(folder)]


def checked(paths: list[str], strict: bool = False) -> list[Any]:
    """Each record of the paths as read, and ``verify_record``'s report on it."""
    return [
        (record, verify_record(record, None, strict))
        for source in find_sources(paths)
        for record in read_source(source)
    ]


def reports(paths: list[str], strict: bool = False) -> list[Any]:
    return [report for _, report in checked(paths, strict)]


def tally_of(reports: list[Any]) -> Tally:
    """What verify counts of the reports."""
    tally = Tally(
        len(reports),
        sum(r.valid for r in reports),
        sum(r.warnings for r in reports),
        sum(r.failed for r in reports),
    )
    for report in reports:
        for problem in report.problems:
            tally.codes[problem.code.value] = tally.codes.get(problem.code.value, 0) + 1
    return tally


def verified(
    paths: list[str], options: Options, jobs: int, stdin: Any = None
) -> tuple[str, Tally, list[Batch]]:
    """The text of the pipeline's batches, their counts merged, and the batches."""
    batches = list(verify_batches(paths, options, jobs, stdin))
    tally = Tally()
    for batch in batches:
        tally.merge(batch.tally)
    return "".join(batch.text for batch in batches), tally, batches


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("strict", [False, True])
def test_verify_batches_json_is_verify_record_s_report(
    sources: list[str], jobs: int, strict: bool
) -> None:
    expected = reports(sources, strict)
    text, tally, batches = verified(sources, Options(strict=strict, output="json"), jobs)
    assert len(expected) == 16 + 18 + 1 + 1 + 1 + 9
    assert text == "".join(orjson.dumps(report.to_json()).decode() + "\n" for report in expected)
    assert tally == tally_of(expected)
    assert 0 < tally.valid < tally.records and tally.codes
    assert {batch.facts is None for batch in batches} == {True}


def text_of(report: Any, quiet: bool) -> str:
    lines = [line for problem in report.problems for line in problem_lines(report, problem)]
    if report.valid and not quiet:
        lines.append(verdict_line(report))
    return "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("quiet", [False, True])
def test_verify_batches_text_is_verify_record_s_report(
    sources: list[str], jobs: int, quiet: bool
) -> None:
    expected = reports(sources)
    text, tally, _ = verified(sources, Options(quiet=quiet), jobs)
    assert text == "".join(text_of(r, quiet) for r in expected)
    assert tally == tally_of(expected)


@pytest.mark.parametrize("jobs", JOBS)
def test_verify_batches_reports_are_verify_record_s(sources: list[str], jobs: int) -> None:
    """The reports themselves (what ``phantom_log.verify`` gives), every event in their
    game logs, and no text."""
    _, tally, batches = verified(sources, Options(output="reports"), jobs)
    found = [report for batch in batches for report in batch.reports]
    assert [r.to_json() for r in found] == [r.to_json() for r in reports(sources)]
    assert sum(len(r.log.events) for r in found if r.log is not None) > 1000
    assert tally == Tally()


def digested(facts: FactsRow | None) -> FactsRow | None:
    """Facts whose content digest is left to be made from the record's text
    (``text_at``), with the digest made from that text."""
    if facts is None or facts[12] is None:
        return facts
    file, offset, length = facts[12:]
    [text] = read_again(file, [(offset, length)])
    return (*facts[:7], content_digest(parse_json(text)), *facts[8:12], None, 0, 0)


def facts_rows(batches: list[Batch]) -> list[FactsRow]:
    """The facts of the batches' records, a tuple each, in order."""
    table = FactsTable()
    for batch in batches:
        assert batch.facts is not None
        table.extend(batch.facts)
    return [cast(FactsRow, tuple(facts)) for facts in table]


@pytest.mark.parametrize("jobs", JOBS)
def test_verify_batches_facts_are_those_of_verify_record_s_report(
    sources: list[str], jobs: int
) -> None:
    """A record read from a regular file, whose replay dealt, says where its text is
    instead of its content's digest; the digest made from that text is the one made of the
    record when it was checked."""
    expected = reports(sources)
    text, _, batches = verified(sources, Options(output="facts", quiet=True), jobs)
    rows = facts_rows(batches)
    left_to_read = [facts for facts in rows if facts[12] is not None]
    assert len(left_to_read) > 16
    assert all(facts[7] is None and facts[8] for facts in left_to_read)
    assert [digested(facts) for facts in rows] == [report_facts(r) for r in expected]
    assert [
        (p.source, p.index, p.game_id, p.code, p.severity, p.message)
        for batch in batches
        for p in batch.problems
    ] == [
        (r.source, r.index, r.game_id, p.code.value, p.severity, p.message)
        for r in expected
        for p in r.problems
    ]
    assert text == "".join(text_of(r, True) for r in expected)


def test_verify_batches_gives_the_same_on_one_job_and_two(sources: list[str]) -> None:
    for output in ("text", "json", "facts"):
        options = Options(output=output)
        one, two = verified(sources, options, 1), verified(sources, options, 2)
        assert one[:2] == two[:2]
        if output == "facts":
            assert facts_rows(one[2]) == facts_rows(two[2])


@pytest.mark.parametrize("jobs", JOBS)
@pytest.mark.parametrize("output", ["text", "json"])
def test_verify_batches_keep_each_records_text_by_its_verdict(
    sources: list[str], jobs: int, output: str
) -> None:
    """What verify splits into --valid-out and --invalid-out: each record's text as a line
    of JSON Lines, in input order, with the valid records or the invalid ones."""
    read = checked(sources)
    _, _, batches = verified(sources, Options(output=output, keep_text=True), jobs)
    assert 1 < len(batches) < len(read)
    for valid, field in ((True, "valid_records"), (False, "invalid_records")):
        texts = [record_line(record) for record, report in read if report.valid == valid]
        assert b"".join(getattr(batch, field) for batch in batches) == b"".join(
            text for text in texts if text
        )


@pytest.mark.parametrize("jobs", JOBS)
def test_verify_batches_reads_standard_input(jobs: int) -> None:
    simulation = Simulation(RULEBOOK_SHEET, Rules(), seed=4)
    games = [simulate_game(simulation, number) for number in range(1, 4)]
    stdin = io.BytesIO(b"".join(orjson.dumps(game) + b"\n" for game in games))
    text, _, _ = verified(["-"], Options(output="json"), jobs, stdin)
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["source"] for line in lines] == ["-"] * 3
    assert [line["game_id"] for line in lines] == [game["game_id"] for game in games]


def test_verify_batches_refuses_a_missing_path_before_reading(sources: list[str]) -> None:
    with pytest.raises(SourceError, match="no such file or directory"):
        verify_batches([*sources, sources[0] + ".missing"], Options(), 2)
