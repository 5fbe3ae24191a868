"""The report text of each record, written at once, is the text the reports' own values
make: ``verify --format json``'s line is ``orjson.dumps`` of the report's dictionary as
docs/format.md describes it, and the text report is what the escaping of every
character gives, on every example, on records of the benchmark's corpus (valid ones and
one of each problem code) and on hostile texts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from benchmarks.corpus import build_record
from phantom_log.checking.verdict import RecordReport, verify_record
from phantom_log.records.chunks import read_chunks
from phantom_log.records.found_sources import find_sources
from phantom_log.records.source_records import chunk_records, read_source
from phantom_log.rules.problems import Code, Problem, Severity
from phantom_log.rules.replay import VerdictBuilder
from phantom_log.running.outcomes import CheckedRecord, Options, chunk_batch, report_text
from phantom_log.views import reports
from phantom_log.views.reports import _UNSAFE, _json_string, printable

EXAMPLES = Path(__file__).parents[2] / "examples"
#: Records of the benchmark's corpus: 90% valid, 5% unfinished, and one record of each
#: problem code a record can have in every run of 340.
CORPUS_RECORDS = 2_040


def reference_json(report: RecordReport) -> str:
    """The report's line as it was written before it was written at once: a dictionary of
    docs/format.md's fields, written by orjson."""
    problems = []
    for problem in report.problems:
        found: dict[str, Any] = {
            "code": problem.code.value,
            "severity": problem.severity.value,
            "message": problem.message,
            "pointer": problem.pointer,
            "round": problem.round,
            "trick": problem.trick,
        }
        if problem.line is not None:
            found["line"] = problem.line
            found["column"] = problem.column
        problems.append(found)
    result = report.result
    document = {
        "source": report.source,
        "index": report.index,
        "game_id": report.game_id,
        "valid": all(problem.severity is not Severity.ERROR for problem in report.problems),
        "problems": problems,
        "result": None
        if result is None
        else {
            "winner": None if result.winner is None else result.winner.key,
            "notes": result.notes,
        },
    }
    return orjson.dumps(document).decode() + "\n"


def example_reports(strict: bool) -> list[RecordReport]:
    return [
        verify_record(record, None, strict, VerdictBuilder)
        for source in find_sources([str(EXAMPLES)])
        for record in read_source(source)
    ]


@pytest.fixture(scope="module")
def corpus_checked(tmp_path_factory: pytest.TempPathFactory) -> list[CheckedRecord]:
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    path.write_bytes(
        b"".join(
            build_record(1, index, CORPUS_RECORDS).line + b"\n" for index in range(CORPUS_RECORDS)
        )
    )
    return [
        CheckedRecord(record, verify_record(record, None, False, VerdictBuilder))
        for chunk in read_chunks(str(path))
        for record in chunk_records(chunk)
    ]


def assert_outcomes_are_the_reports(reports_: list[RecordReport], options: Options) -> None:
    """Each report, verified alone, is counted as it says and (as JSON) written as orjson
    writes it."""
    for report in reports_:
        batch = chunk_batch([CheckedRecord(cast(Any, None), report)], options)
        tally = batch.tally
        assert (tally.records, bool(tally.valid), tally.warnings, bool(tally.failed)) == (
            1,
            report.valid,
            report.warnings,
            report.failed,
        )
        assert tally.codes == dict(Counter(problem.code.value for problem in report.problems))
        if options.output == "json":
            assert batch.text == reference_json(report)


@pytest.mark.parametrize("strict", [False, True])
def test_every_example_s_json_line_is_its_report_written_by_orjson(strict: bool) -> None:
    found = example_reports(strict)
    # Every kind of line: valid, unfinished, invalid, placed in game text, a json problem.
    assert {report.valid for report in found} == {True, False}
    assert any(problem.line is not None for report in found for problem in report.problems)
    assert any(report.result is not None and report.result.winner is None for report in found)
    assert_outcomes_are_the_reports(found, Options(output="json"))


def test_the_corpus_s_json_lines_are_the_reports_written_by_orjson(
    corpus_checked: list[CheckedRecord],
) -> None:
    found = [report for _, report in corpus_checked]
    codes = {problem.code for report in found for problem in report.problems}
    assert len(found) == CORPUS_RECORDS
    assert {Code.JSON, Code.SCHEMA, Code.REVOKE, Code.UNFINISHED} <= codes
    assert_outcomes_are_the_reports(found, Options(output="json"))
    batch = chunk_batch(corpus_checked, Options(output="json"))
    assert batch.text == "".join(reference_json(report) for report in found)
    assert batch.tally.records == CORPUS_RECORDS
    assert batch.tally.valid == sum(report.valid for report in found)


def reference_text(checked: list[CheckedRecord], options: Options) -> str:
    """The text report as it was written before a printable line was told at once: every
    line escaped character by character."""
    saved = reports.printable
    reports.printable = lambda text: text.translate(_UNSAFE)
    try:
        return chunk_batch(checked, options).text
    finally:
        reports.printable = saved


@pytest.mark.parametrize("options", [Options(), Options(quiet=True), Options(strict=True)])
def test_the_text_report_of_the_examples_and_the_corpus_is_every_line_escaped(
    corpus_checked: list[CheckedRecord], options: Options
) -> None:
    checked = corpus_checked + [
        CheckedRecord(record, verify_record(record, None, options.strict, VerdictBuilder))
        for source in find_sources([str(EXAMPLES)])
        for record in read_source(source)
    ]
    text = chunk_batch(checked, options).text
    assert text == reference_text(checked, options)
    assert text.count(": valid: ") == (
        0 if options.quiet else sum(item.report.valid for item in checked)
    )


# Texts such as records and file names may hold: quotes, backslashes, controls, the
# characters that could forge a terminal's output, lone surrogates, letters and spaces.
SPECIAL = ['"', "\\", "\x00", "\t", "\x1f", "\x7f", "\x85", "\u2028", "\u202e", "\ud800"]
HOSTILE = st.text(st.sampled_from([*SPECIAL, "a", "é", " ", "\U0001f3b5"]), max_size=12) | st.text(
    max_size=40
)


@given(HOSTILE)
@example('a "quoted" name')
@example("C:\\games\\t1")
@example("")
def test_a_string_is_written_as_orjson_writes_it_or_refused_as_orjson_refuses_it(
    text: str,
) -> None:
    try:
        expected = orjson.dumps(text).decode()
    except orjson.JSONEncodeError:
        with pytest.raises(orjson.JSONEncodeError):
            _json_string(text)
    else:
        assert _json_string(text) == expected


@given(HOSTILE)
def test_a_printable_text_is_every_character_escaped(text: str) -> None:
    assert printable(text) == text.translate(_UNSAFE)


@given(
    game_id=st.none() | HOSTILE.filter(lambda text: "\ud800" not in text),
    message=HOSTILE.filter(lambda text: "\ud800" not in text),
    pointer=HOSTILE.filter(lambda text: "\ud800" not in text),
    place=st.none() | st.tuples(st.integers(1, 10**6), st.none() | st.integers(1, 10**6)),
    numbers=st.tuples(st.none() | st.integers(1, 99), st.none() | st.integers(1, 99)),
    code=st.sampled_from(list(Code)),
)
def test_a_report_of_any_texts_is_its_report_written_by_orjson(
    game_id: str | None,
    message: str,
    pointer: str,
    place: tuple[int, int | None] | None,
    numbers: tuple[int | None, int | None],
    code: Code,
) -> None:
    problem = Problem.of(code, message, pointer, *numbers, hint=message)
    if place is not None:
        problem = Problem(**{**_fields(problem), "line": place[0], "column": place[1]})
    report = RecordReport('a "b" \\ é.jsonl', 7, game_id, (problem, problem.as_error()))
    assert report_text(report, Options(output="json"), report.valid) == reference_json(report)


def _fields(problem: Problem) -> dict[str, Any]:
    return {name: getattr(problem, name) for name in Problem.__slots__}
