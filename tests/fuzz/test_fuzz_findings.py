"""Defects the fuzz suite (``test_fuzz.py``) found, each kept as a test named for its class,
through the real CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from phantom_log.cli import main
from tests.helpers.paths import WALKTHROUGH

RECORD = json.dumps(json.loads(WALKTHROUGH.read_text(encoding="utf-8"))).encode()


@pytest.mark.parametrize(
    "first",
    [
        RECORD[:-1] + b', "x-score": 1' + b"0" * 5_000 + b"}",  # outside the 64-bit range
        RECORD[:-1] + b', "x-score": 1e400}',
        RECORD[:-1] + b', "x-score": NaN}',
        RECORD[:-1] + b', "game_id": "again"}',  # a key given twice
        RECORD[:-1] + b', "x-name": "caf\xe9"}',  # not UTF-8
    ],
    ids=["huge-int", "huge-float", "nan", "duplicate-key", "latin-1"],
)
def test_a_bad_first_record_on_standard_input_does_not_swallow_the_records_after_it(
    first: bytes,
) -> None:
    """JSON Lines on standard input whose first record is whole JSON by the grammar but
    not as FORMAT.md accepts it: that record is a json problem, and every record after
    it is still read and checked (the sniffing took the whole input for one broken
    document)."""
    text = first + b"\n" + RECORD + b"\n" + RECORD + b"\n"
    result = CliRunner().invoke(main, ["verify", "--format", "json", "-"], input=text)
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert [report["index"] for report in reports] == [0, 1, 2]
    assert [problem["code"] for problem in reports[0]["problems"]] == ["json"]
    assert reports[1]["valid"] and reports[2]["valid"]
    assert result.exit_code == 1


def test_a_document_over_several_lines_on_standard_input_is_still_one_record() -> None:
    text = json.dumps(json.loads(RECORD), indent=2).encode()
    result = CliRunner().invoke(main, ["verify", "--format", "json", "-"], input=text)
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert len(reports) == 1 and reports[0]["valid"]
