"""A text cut short (a copy or a download that did not finish) says that the file ends
early, and where the string, object or array it left open began; not a parser's phrase
cut mid-sentence, and no hint about comments and trailing commas.

Each case cuts the rulebook's walkthrough inside a value, finds by hand where that value
began, and reads the file as ``verify`` does: a ``.json`` file, and a line of a ``.jsonl``
file (a middle line, which the file goes on after, and the last line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from phantom_log.records.source_records import read_source
from phantom_log.records.strictjson import JsonError, parse_json
from phantom_log.rules.problems import Code, Problem
from tests.helpers.cli import run
from tests.helpers.paths import EXAMPLES

WALKTHROUGH = EXAMPLES / "rulebook-walkthrough.json"
PRETTY = WALKTHROUGH.read_bytes()
ONE_LINE = json.dumps(json.loads(PRETTY), ensure_ascii=False).encode()
STRICT_JSON_HINT = "no comments, no trailing commas"


class Cut(NamedTuple):
    """A cut inside a value: the text up to ``cut_after`` (found after ``opener``, the
    text that ends with the character that begins the value)."""

    kind: str
    opener: bytes
    cut_after: bytes


CUTS = {
    "string": Cut("string", b'"comment": "', b"Rulebook, the op"),
    "object": Cut("object", b'"exchange": {', b'"phantom": "Ri3",'),
    "array": Cut("array", b'"aside": [', b'"Ch3", "Ri2"'),
}


def cut_text(text: bytes, cut: Cut) -> tuple[bytes, int, int]:
    """The text cut inside the value, and the line and column (from 1, in characters)
    where the value begins."""
    begins = text.index(cut.opener) + len(cut.opener) - 1
    end = text.index(cut.cut_after, begins) + len(cut.cut_after)
    before = text[:begins]
    line = before.count(b"\n") + 1
    column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8")) + 1
    return text[:end], line, column


def only_problem(path: Path) -> Problem:
    problems = [record.problem for record in read_source(str(path)) if record.problem]
    assert len(problems) == 1
    assert problems[0].code is Code.JSON
    return problems[0]


@pytest.mark.parametrize("kind", list(CUTS))
def test_a_json_file_cut_short_ends_early_inside_the_value_it_began(
    tmp_path: Path, kind: str
) -> None:
    text, line, column = cut_text(PRETTY, CUTS[kind])
    path = tmp_path / "game.json"
    path.write_bytes(text)
    problem = only_problem(path)
    article = "an" if kind[0] in "aeiou" else "a"
    assert problem.message == (
        f"the file ends early, inside {article} {kind} that begins at line {line}, column {column}"
    )
    assert (problem.line, problem.column) == (line, column)
    assert problem.hint is not None and STRICT_JSON_HINT not in problem.hint
    assert "cut short" in problem.hint


@pytest.mark.parametrize("kind", list(CUTS))
def test_a_json_lines_file_cut_short_ends_early_on_its_last_line(tmp_path: Path, kind: str) -> None:
    text, _, column = cut_text(ONE_LINE, CUTS[kind])
    path = tmp_path / "games.jsonl"
    path.write_bytes(ONE_LINE + b"\n" + ONE_LINE + b"\n" + text)
    problem = only_problem(path)
    article = "an" if kind[0] in "aeiou" else "a"
    assert problem.message == (
        f"the file ends early, inside {article} {kind} that begins at line 3, column {column}"
    )
    assert (problem.line, problem.column) == (3, column)
    assert problem.hint is not None and STRICT_JSON_HINT not in problem.hint


@pytest.mark.parametrize("kind", list(CUTS))
def test_a_line_of_json_lines_cut_short_ends_early_and_the_file_goes_on(
    tmp_path: Path, kind: str
) -> None:
    text, _, column = cut_text(ONE_LINE, CUTS[kind])
    path = tmp_path / "games.jsonl"
    path.write_bytes(ONE_LINE + b"\n" + text + b"\n" + ONE_LINE + b"\n")
    records = list(read_source(str(path)))
    assert [record.problem is None for record in records] == [True, False, True]
    problem = records[1].problem
    assert problem is not None
    article = "an" if kind[0] in "aeiou" else "a"
    assert problem.message == (
        f"the line ends early, inside {article} {kind} that begins at line 2, column {column}"
    )
    assert problem.hint is not None and "line of JSON Lines" in problem.hint


def test_verify_says_the_file_ends_early(tmp_path: Path) -> None:
    """What the issue saw, a file cut mid-sentence in a comment, as ``verify`` prints it."""
    text, line, column = cut_text(PRETTY, CUTS["string"])
    path = tmp_path / "game.json"
    path.write_bytes(text)
    result = run("verify", path)
    assert result.exit_code == 1
    assert result.output.splitlines()[:2] == [
        f"{path}#0: json: the file ends early, inside a string that begins at line {line}, "
        f"column {column}",
        "    hint: Was the file cut short (a copy, a download or a save that did not finish)? "
        "Write it again in full.",
    ]
    reported = json.loads(run("verify", "--format", "json", path).output)
    assert reported["problems"][0]["message"].startswith("the file ends early, inside a string")


@pytest.mark.parametrize(
    ("text", "kind", "column"),
    [
        (b'{"a": [1, 2', "array", 7),
        (b'{"a": [1, 2.', "array", 7),
        (b'{"a": -', "object", 1),
        (b'{"a": tr', "object", 1),
        (b'{"a": {"b": null}', "object", 1),
        (b'{"a": "caf\\u00e', "string", 7),
        (b'{"a": "caf\\u00e9', "string", 7),
        (b'{"a": "caf\xc3', "string", 7),  # a character of two bytes, cut after the first
        (b'{"a": "x\\', "string", 7),
        (b"[", "array", 1),
        (b"tru", "value", 1),
    ],
)
def test_a_text_cut_anywhere_names_what_it_left_open(text: bytes, kind: str, column: int) -> None:
    with pytest.raises(JsonError) as caught:
        parse_json(text)
    problem = caught.value.problem()
    assert problem.message.startswith(f"the file ends early, inside a{'n' * (kind[0] in 'ao')} ")
    assert problem.message.endswith(f" {kind} that begins at line 1, column {column}")


def test_every_cut_of_a_record_ends_early() -> None:
    """Cut after any byte (but the last of a value), the walkthrough, pretty and on one
    line, ends early; cut before its first byte it is empty."""
    for text in (PRETTY.rstrip(), ONE_LINE):
        for end in range(1, len(text)):
            with pytest.raises(JsonError) as caught:
                parse_json(text[:end])
            assert caught.value.problem().message.startswith("the file ends early, inside ")
    with pytest.raises(JsonError) as caught:
        parse_json(b" \n")
    assert caught.value.problem().message == "the file is empty: it holds no JSON value"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"a": [1, 2,]}', "line 1, column 13: Expecting value"),
        (b'{"a": 1,}', "line 1, column 9: Expecting property name enclosed in double quotes"),
        (b'{"a": 1} // a comment', "line 1, column 10: Extra data"),
        (b'{"a": tru}', "line 1, column 7: Expecting value"),
        (b'{"a": 1 "b": 2}', "line 1, column 9: Expecting ',' delimiter"),
    ],
)
def test_a_text_that_is_not_cut_keeps_the_parser_s_words_and_the_strict_json_hint(
    text: bytes, message: str
) -> None:
    with pytest.raises(JsonError) as caught:
        parse_json(text)
    problem = caught.value.problem()
    assert problem.message == message
    assert problem.hint is not None and STRICT_JSON_HINT in problem.hint


def test_the_problem_is_the_same_however_often_it_is_worded() -> None:
    with pytest.raises(JsonError) as caught:
        parse_json(b'{"a": 1 "b": 2}')
    error = caught.value
    assert error.problem(0, 5) == error.problem(0, 5)
