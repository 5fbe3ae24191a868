"""Game text as a source of records: ``.ptn`` files, folders, standard input recognised
by its first line, several games to a file, a text that cannot be read, and the
selection of records."""

from __future__ import annotations

import io
import json
from pathlib import Path

from phantom_log.checking.verdict import verify_record
from phantom_log.records.record_texts import record_text
from phantom_log.records.selection import Selection, record_selection
from phantom_log.records.source_records import read_source, record_line
from phantom_log.rules.problems import Code
from tests.helpers.paths import EXAMPLES, WALKTHROUGH

WALKTHROUGH_TEXT = record_text(json.loads(WALKTHROUGH.read_text(encoding="utf-8")))[0]
CUSTOM_TEXT = record_text(json.loads((EXAMPLES / "custom-sheet.json").read_text("utf-8")))[0]


def test_a_file_of_two_games_is_two_records_each_with_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "night.ptn"
    path.write_text(WALKTHROUGH_TEXT + "\n" + CUSTOM_TEXT, encoding="utf-8")
    records = list(read_source(str(path)))
    assert [record.index for record in records] == [0, 1]
    assert [record.data["game_id"] for record in records] == [
        "rulebook-walkthrough",
        "custom-sheet",
    ]
    assert records[0].line == 1
    assert records[1].line == WALKTHROUGH_TEXT.count("\n") + 2
    assert all(verify_record(record).valid for record in records)


def test_a_folder_holds_its_game_texts_with_its_json(tmp_path: Path) -> None:
    from phantom_log.records.found_sources import find_sources

    (tmp_path / "a.ptn").write_text(WALKTHROUGH_TEXT, encoding="utf-8")
    (tmp_path / "b.json").write_text(WALKTHROUGH.read_text("utf-8"), encoding="utf-8")
    (tmp_path / "c.txt").write_text(WALKTHROUGH_TEXT, encoding="utf-8")  # not a record file
    found = [Path(source).name for source in find_sources([str(tmp_path)])]
    assert found == ["a.ptn", "b.json"]


def test_standard_input_is_read_as_game_text_when_its_first_line_is() -> None:
    for text in (WALKTHROUGH_TEXT, "# a comment first\n" + WALKTHROUGH_TEXT):
        (record,) = read_source("-", io.BytesIO(text.encode("utf-8")))
        assert record.text_record is not None
        assert verify_record(record).valid
    # JSON is still JSON.
    (record,) = read_source("-", io.BytesIO(WALKTHROUGH.read_bytes()))
    assert record.text_record is None and verify_record(record).valid


def test_a_game_text_that_is_not_utf8_or_empty_is_one_notation_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.ptn"
    path.write_bytes(b"game_id: g\nphantom: \xff\n")
    (record,) = read_source(str(path))
    assert record.problem is not None and record.problem.code is Code.NOTATION
    assert (record.problem.line, record.problem.column) == (2, 10)
    path.write_bytes(b"\n# nothing but a comment\n")
    (record,) = read_source(str(path))
    assert record.problem is not None and "holds no game" in record.problem.message


def test_a_selection_picks_games_of_a_text(tmp_path: Path) -> None:
    path = tmp_path / "night.ptn"
    path.write_text(WALKTHROUGH_TEXT + "\n" + CUSTOM_TEXT, encoding="utf-8")
    with record_selection(Selection(("custom-*",), (), ())):
        records = list(read_source(str(path)))
    assert [record.data["game_id"] for record in records] == ["custom-sheet"]


def test_a_text_record_is_written_out_as_a_line_of_json(tmp_path: Path) -> None:
    path = tmp_path / "w.ptn"
    path.write_text(WALKTHROUGH_TEXT, encoding="utf-8")
    (record,) = read_source(str(path))
    line = record_line(record)
    assert line is not None and line.endswith(b"\n") and b"\n" not in line[:-1]
    assert json.loads(line)["game_id"] == "rulebook-walkthrough"
