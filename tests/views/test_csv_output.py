"""The one rule of every CSV cell (``views/csv_output.py``): text a spreadsheet would run
as a formula gets a single quote before it, the same in rows of Python values and in
polars frames; numbers stay numbers; and no module writes CSV another way."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from phantom_log.views.csv_output import (
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


def test_only_the_tricks_tables_text_columns_can_begin_a_formula() -> None:
    """The tricks table's CSV marks the cells of its columns of anyone's text only
    (``TRICK_TEXT_COLUMNS``): each of its other text columns holds codes of phantom-log's
    own, every one of which a spreadsheet shows as it is. A new text column must be put in
    one group or the other."""
    from phantom_log.rules.cards import CARD_CODES, SUIT_CODES, Role
    from phantom_log.tabular.tables import (
        _AFTER,
        _CSV_TRICK_SCHEMA,
        _SIDE_TEXTS,
        REASONS,
        TRICK_TEXT_COLUMNS,
    )

    text_columns = {name for name, dtype in _CSV_TRICK_SCHEMA.items() if dtype == pl.String}
    assert set(TRICK_TEXT_COLUMNS) <= text_columns
    assert text_columns - set(TRICK_TEXT_COLUMNS) == {
        "leader",
        "lead",
        "follower",
        "follow",
        "lead_suit",
        "super_trump",
        "winner",
        "reason",
        "note_owner",
        "swaps",
    }
    codes = [*CARD_CODES, *SUIT_CODES, *(role.key for role in Role), *REASONS, *_AFTER]
    codes += [text for text in _SIDE_TEXTS if text is not None]
    assert all(text_cell(code) == code for code in codes)
    # A swap's text begins with "lead" or "follow".
    assert all(not after.startswith(FORMULA_STARTS) for after in _AFTER)


def test_the_codes_of_every_examples_tricks_are_cells_as_they_are(tmp_path: Path) -> None:
    from phantom_log.cli.inputs import record_reports
    from phantom_log.tabular.tables import TRICK_TEXT_COLUMNS, build_tables

    files = build_tables(record_reports((str(REPO / "examples"),), None), tmp_path, True)
    tricks = files.scan_tricks(swaps_as_written=True).collect()
    assert tricks.height > 100
    for name, dtype in tricks.schema.items():
        if dtype == pl.String and name not in TRICK_TEXT_COLUMNS:
            assert all(text_cell(cell) == cell for cell in tricks[name].drop_nulls()), name
