"""The one rule of every CSV cell (``tabular/csv_output.py``): text a spreadsheet would run
as a formula gets a single quote before it, the same in rows of Python values and in
polars frames; numbers stay numbers; and no module writes CSV another way."""

from __future__ import annotations

import csv
import io
import re

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from phantom_log.tabular.csv_output import (
    FORMULA_STARTS,
    TEXT_MARK,
    CsvRows,
    frame_csv,
    text_cell,
)
from tests.helpers.paths import REPO

TEXTS = st.text(st.sampled_from([*FORMULA_STARTS, "a", "1", "'", ",", '"', "\n", " "]))


def test_the_issues_formulas_get_a_quote() -> None:
    for formula in ('=HYPERLINK("http://x")', "+1+cmd|' /C calc'!A0", "@SUM(1,2)", "-2+3"):
        assert text_cell(formula) == "'" + formula
    assert text_cell("\t=1") == "'\t=1"
    assert text_cell("\r=1") == "'\r=1"


def test_text_that_runs_nothing_is_left_as_it_is() -> None:
    for text in ("Kim", "x=1", "", "-", "=", " =1", "'=1"):
        assert text_cell(text) == text


@given(TEXTS)
def test_a_cell_never_begins_a_formula_and_keeps_its_text(text: str) -> None:
    cell = text_cell(text)
    assert not (len(cell) > 1 and cell.startswith(FORMULA_STARTS))
    assert cell in (text, TEXT_MARK + text)


@given(st.lists(st.tuples(TEXTS, st.integers(-5, 5) | st.floats(-9, 9)), min_size=1))
def test_rows_and_frames_write_the_same_cells(rows: list[tuple[str, float]]) -> None:
    written = io.StringIO()
    writer = CsvRows(written, ["name", "number"])
    writer.write_header()
    writer.write_all({"name": name, "number": number} for name, number in rows)
    from_rows = list(csv.reader(io.StringIO(written.getvalue())))
    frame = pl.DataFrame(
        {"name": [name for name, _ in rows], "number": [float(number) for _, number in rows]}
    )
    from_frame = list(csv.reader(io.StringIO(frame_csv(frame))))
    assert [row[0] for row in from_rows] == [row[0] for row in from_frame]
    expected = [text_cell(name) for name, _ in rows]
    assert [row[0] for row in from_rows[1:]] == expected
    # Numbers are written as numbers, a minus sign and all.
    assert [float(row[1]) for row in from_frame[1:]] == [float(number) for _, number in rows]


def test_a_lazy_frame_gets_the_same_rule() -> None:
    frame = pl.LazyFrame({"name": ["=1+1", "Kim"], "notes": [-3, 12]})
    assert frame_csv(frame.collect()) == "name,notes\n'=1+1,-3\nKim,12\n"


def test_every_csv_writer_goes_through_csv_output() -> None:
    writers = re.compile(r"\.write_csv\(|\.sink_csv\(|csv\.DictWriter|csv\.writer\(")
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "phantom_log").rglob("*.py"))
        if path.name != "csv_output.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if writers.search(line) and not line.lstrip().startswith("#")
    ]
    assert found == []


def test_a_carriage_return_inside_a_cell_is_quoted_so_no_row_begins_there() -> None:
    written = io.StringIO()
    writer = CsvRows(written, ["name", "number"])
    writer.write_header()
    writer.write({"name": "x\r=1+1", "number": -3})
    assert written.getvalue() == 'name,number\n"x\r=1+1",-3\n'
    frame = pl.DataFrame({"name": ["x\r=1+1"], "number": [-3]})
    assert frame_csv(frame) == written.getvalue()
