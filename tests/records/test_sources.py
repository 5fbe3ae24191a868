"""Every input form, and every way a text can fail to be JSON as FORMAT.md accepts it."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from phantom_log.records.found_sources import SourceError, find_sources
from phantom_log.records.source_records import read_source
from phantom_log.records.strictjson import JsonError, _slow_parse, parse_json, split_array
from phantom_log.rules.problems import Code
from tests.helpers.paths import JSON_TEST_SUITE
from tests.helpers.records import RECORD

TEXT = json.dumps(RECORD)


def records(path: Path) -> list[tuple[int, object, Code | None]]:
    return [
        (item.index, item.data, None if item.problem is None else item.problem.code)
        for item in read_source(str(path))
    ]


def json_error(text: bytes) -> JsonError:
    with pytest.raises(JsonError) as caught:
        parse_json(text)
    return caught.value


def test_parses_a_record() -> None:
    assert parse_json(TEXT.encode()) == RECORD


def test_byte_order_mark_is_accepted() -> None:
    assert parse_json(b"\xef\xbb\xbf" + TEXT.encode()) == RECORD


def test_invalid_json_has_line_and_column() -> None:
    error = json_error(b'{\n  "a": 1,\n  "b" 2\n}')
    assert (error.line, error.column) == (3, 7)
    assert "delimiter" in error.message


def test_bytes_that_are_not_utf8() -> None:
    error = json_error(b'{"a": "caf\xe9"}')
    assert "not UTF-8" in error.message
    assert (error.line, error.column) == (1, 11)


@pytest.mark.parametrize("text", [b'{"a": 1, "a": 2}', b'{"x": [{"b": 1, "c": 2, "b": 3}]}'])
def test_duplicate_keys(text: bytes) -> None:
    assert "duplicate key" in json_error(text).message


def test_duplicate_key_check_is_not_fooled_by_colons_in_strings() -> None:
    assert parse_json(b'{"a": "x\\":", "b": 1}') == {"a": 'x":', "b": 1}


@pytest.mark.parametrize(
    "text",
    [
        # an escaped quote before a colon inside a string, spelt so that orjson's own
        # text of the value would show one key pattern more than the original
        b'{"a": 1, "a": "\\u0022:"}',
        b'{"a": 1, "a": "\\"\\u003a"}',
        b'{"a": 1, "a": "\\"\\u0020:"}',
        # spaces and line breaks between a key and its colon
        b'{"a" : 1, "a"\n:2}',
        b'[{"b": [], "c": {"d": 1, "d" :2}}]',
    ],
)
def test_duplicate_keys_behind_escapes_and_spaces(text: bytes) -> None:
    assert "duplicate key" in json_error(text).message


_PIECES = st.sampled_from(
    ['"', "\\", ":", " ", "\\u0022", "\\u003a", "\\u0020", "\\u00e9", "\\n", "a", "7"]
)
_STRINGS = st.lists(_PIECES, max_size=6).map(lambda pieces: '"' + "".join(pieces) + '"')
_NUMBERS = st.sampled_from(
    [
        "0",
        "-1",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551616",
        "1.5",
        "1e19",
        "12345678901234567890.5",
        "-9223372036854775809",
    ]
)


def _text_of(tree: object) -> str:
    if isinstance(tree, list) and tree and tree[0] == "object":
        return (
            "{"
            + ", ".join(f"{key}{space}: {_text_of(value)}" for key, space, value in tree[1:])
            + "}"
        )
    if isinstance(tree, list):
        return "[" + ", ".join(_text_of(item) for item in tree) + "]"
    return str(tree)


_VALUES = st.recursive(
    st.one_of(_STRINGS, _NUMBERS),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(
            st.tuples(
                st.one_of(st.sampled_from(['"a"', '"b"']), _STRINGS),
                st.sampled_from(["", " ", "\n"]),
                children,
            ),
            max_size=4,
        ).map(lambda pairs: ["object", *pairs]),
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES.filter(lambda tree: isinstance(tree, list)))
def test_fast_strict_parse_agrees_with_the_exact_parser(tree: object) -> None:
    """Duplicate keys, numbers past 64 bits, escapes that spell quotes and colons, spaces
    before colons: the fast check (orjson, then texts compared) and the standard library's
    parser with every check hooked in reach the same verdict and the same value."""
    text = _text_of(tree).encode()
    try:
        exact: object = _slow_parse(text)
    except JsonError:
        exact = JsonError
    try:
        fast: object = parse_json(text)
    except JsonError:
        fast = JsonError
    assert fast == exact


@pytest.mark.parametrize("constant", [b"NaN", b"Infinity", b"-Infinity"])
def test_nan_and_infinity_are_not_json(constant: bytes) -> None:
    json_error(b'{"special_number": ' + constant + b"}")


@pytest.mark.parametrize(
    "number", [b"9223372036854775808", b"-9223372036854775809", b"123456789012345678901234"]
)
def test_integers_beyond_64_bits(number: bytes) -> None:
    assert "64-bit" in json_error(b'{"notes": ' + number + b"}").message


def test_64_bit_limits_are_accepted() -> None:
    assert parse_json(b"[9223372036854775807, -9223372036854775808]") == [
        2**63 - 1,
        -(2**63),
    ]


def test_floats_beyond_64_bits() -> None:
    json_error(b'{"notes": 1e400}')


def test_long_digit_runs_inside_strings_are_fine() -> None:
    assert parse_json(b'{"game_id": "12345678901234567890123"}') == {
        "game_id": "12345678901234567890123"
    }


@pytest.mark.parametrize("depth", [900, 1000, 1020])
def test_deep_nesting_that_orjson_reads_is_parsed_in_both_builds(depth: int) -> None:
    text = b'{"x-deep": ' + b"[" * depth + b"]" * depth + b', "a": {"b": 1}}'
    assert parse_json(text)["a"] == {"b": 1}


def test_deep_nesting() -> None:
    json_error(b"[" * 5000 + b"]" * 5000)


@pytest.mark.parametrize("duplicate", [False, True])
def test_the_depth_limit_is_1024_levels_for_both_parsers(duplicate: bool) -> None:
    """orjson reads 1,024 levels; the exact parser (which a duplicate key sends the text
    to) gives the same limit, whatever the depth of its caller's stack."""
    pair = b'"k": 1, "k": 1' if duplicate else b'"k": 1'

    def text(depth: int) -> bytes:
        # The outer object is one level: depth - 1 arrays inside it.
        return b'{"x-deep": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b", " + pair + b"}"

    def parsed_deep_in_the_stack(data: bytes, frames: int) -> str:
        if frames:
            return parsed_deep_in_the_stack(data, frames - 1)
        try:
            parse_json(data)
        except JsonError as error:
            return error.message
        return "parsed"

    verdict = "duplicate key 'k' in one object" if duplicate else "parsed"
    for frames in (0, 500):
        assert parsed_deep_in_the_stack(text(1024), frames) == verdict
        assert "nested more than 1024 levels" in parsed_deep_in_the_stack(text(1025), frames)


def test_nul_byte() -> None:
    error = json_error(b'{"game_id": "a\x00b"}')
    assert error.line == 1


def test_lone_surrogate() -> None:
    json_error(b'{"game_id": "\\ud800"}')


def test_problem_carries_line_and_column() -> None:
    problem = json_error(b"{\n\n  oops}").problem(line_offset=10)
    assert problem.code is Code.JSON
    assert (problem.line, problem.column) == (13, 3)
    assert problem.message.startswith("line 13, column 3: ")


def test_json_file_with_one_record(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(TEXT)
    assert records(path) == [(0, RECORD, None)]


def test_json_file_with_an_array_of_records(tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    path.write_text(json.dumps([RECORD, RECORD]))
    assert [index for index, _, _ in records(path)] == [0, 1]


def test_empty_array_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    path.write_text("[]")
    assert records(path) == [(0, None, Code.SCHEMA)]


def test_unparsable_json_file_gives_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(TEXT[:-5])
    assert records(path) == [(0, None, Code.JSON)]


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson"])
def test_json_lines_skip_blank_lines_and_go_on_after_a_bad_line(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"games{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode() + b"\n\n  \n{broken\n" + TEXT.encode() + b"\n")
    items = list(read_source(str(path)))
    assert [(item.index, item.line) for item in items] == [(0, 1), (1, 4), (2, 5)]
    assert items[1].problem is not None and items[1].problem.code is Code.JSON
    assert items[1].problem.line == 4
    assert items[0].data == items[2].data == RECORD


def test_stdin_record_array_and_json_lines() -> None:
    def read(data: str) -> list[object]:
        return [item.data for item in read_source("-", io.BytesIO(data.encode()))]

    assert read(TEXT) == [RECORD]
    assert read(json.dumps(RECORD, indent=2)) == [RECORD]
    assert read(json.dumps([RECORD, RECORD], indent=2)) == [RECORD, RECORD]
    assert read(TEXT + "\n\n" + TEXT + "\n") == [RECORD, RECORD]


def test_stdin_broken_pretty_record_is_one_problem() -> None:
    text = json.dumps(RECORD, indent=2)[:-3]
    items = list(read_source("-", io.BytesIO(text.encode())))
    assert len(items) == 1
    assert items[0].problem is not None and items[0].problem.code is Code.JSON


def test_directories_are_searched_recursively_in_sorted_order(tmp_path: Path) -> None:
    for name in ["b/2.json", "b/10.jsonl", "a.ndjson", "c/d/e.json", ".hidden/x.json", "n.txt"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(TEXT)
    found = [Path(path).relative_to(tmp_path).as_posix() for path in find_sources([str(tmp_path)])]
    assert found == ["a.ndjson", "b/10.jsonl", "b/2.json", "c/d/e.json"]


def test_files_keep_the_order_given(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text(TEXT)
    (tmp_path / "a.json").write_text(TEXT)
    given = [str(tmp_path / "b.json"), "-", str(tmp_path / "a.json")]
    assert find_sources(given) == given


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        find_sources([str(tmp_path / "nope.json")])


def suite_files(prefix: str) -> list[Path]:
    return sorted(JSON_TEST_SUITE.glob(f"{prefix}_*.json"))


@pytest.mark.parametrize("path", suite_files("n"), ids=lambda path: path.name)
def test_json_test_suite_rejected_texts_are_json_problems(path: Path) -> None:
    items = list(read_source(str(path)))
    assert [item.problem.code if item.problem else None for item in items] == [Code.JSON]


@pytest.mark.parametrize("path", suite_files("y") + suite_files("i"), ids=lambda path: path.name)
def test_json_test_suite_no_text_is_a_record(path: Path) -> None:
    from phantom_log.checking.verdict import verify_record

    reports = [verify_record(item) for item in read_source(str(path))]
    assert reports
    assert not any(report.valid for report in reports)


def test_an_array_is_read_element_by_element(tmp_path: Path) -> None:
    """Each element of an array is parsed and checked on its own: a broken one is a json
    problem at its own index, line and column, and the others are still read."""
    path = tmp_path / "games.json"
    path.write_bytes(
        b'[\n  {"a": 1},\n  {"b": tru},\n  {"c": 1, "c": 2}, {"d": [1, {"e": "]"}]}\n]\n'
    )
    records = list(read_source(str(path)))
    assert [record.index for record in records] == [0, 1, 2, 3]
    assert records[0].data == {"a": 1}
    assert records[1].problem is not None
    assert (records[1].problem.line, records[1].problem.column) == (3, 9)
    assert records[2].problem is not None and "duplicate key" in records[2].problem.message
    assert records[3].data == {"d": [1, {"e": "]"}]}


@pytest.mark.parametrize(
    "text",
    [b"[]", b'[{"a": 1},]', b'[{"a": 1} {"b": 2}]', b'[1, {"a": 1}]', b'[{"a": 1}] x', b"[{"],
)
def test_an_array_that_is_not_a_list_of_objects_is_read_whole(text: bytes) -> None:
    from phantom_log.records.strictjson import split_array

    assert not split_array(text)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        (b'{"a": [1, {"b": "x]}"}]}', 3),
        (b"[[[", 3),
        (b'{"a": "[[[', 1),
        (b'"\\"[', 0),
        (b'{"a": "' + b"x" * 100_000, 1),  # a string cut short: read once, to its end
        (b"[" * 1025 + b"]" * 1025, 1025),
    ],
)
def test_the_nesting_count_skips_strings_even_cut_short(text: bytes, depth: int) -> None:
    from phantom_log.records.strictjson import _nesting

    assert _nesting(text) == depth


def test_a_text_that_is_not_json_leaves_no_reference_cycle(tmp_path: Path) -> None:
    """The error of a line that is not JSON is not kept in the reading frame: its traceback
    would hold the frame, and the frame the whole chunk of lines, until the garbage
    collector found the cycle (a tournament check of a million records held hundreds of
    MiB that way)."""
    import gc

    path = tmp_path / "games.jsonl"
    path.write_bytes(b'{"format": 1}\n{"format": \n[1, 2\n{"a": 1, "a": 2}\n' * 50)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        records = list(read_source(str(path)))
        del records
        gc.collect()
        left = [item for item in gc.garbage if isinstance(item, BaseException)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == []


def _spans_byte_by_byte(data: bytes) -> list[tuple[int, int]] | None:
    """The test's own reading of split_array's rule, a byte at a time: the elements of a
    top-level array of objects, or None when the text is anything else."""
    index, length = 0, len(data)
    while index < length and data[index] in b" \t\r\n":
        index += 1
    if index >= length or data[index] != ord("["):
        return None
    spans: list[tuple[int, int]] = []
    depth, element, index = 0, -1, index + 1
    while index < length:
        byte = data[index]
        if byte == ord('"'):
            if depth == 0:
                return None
            index += 1
            while index < length and data[index] != ord('"'):
                index += 2 if data[index] == ord("\\") else 1
            if index >= length:
                return None
        elif byte in b"{[":
            if depth == 0 and (element != -1 or byte != ord("{")):
                return None
            element = index if depth == 0 else element
            depth += 1
        elif byte in b"}]":
            if depth == 0:
                if byte == ord("]") and (element == -2 or (element == -1 and not spans)):
                    return spans if not data[index + 1 :].strip(b" \t\r\n") else None
                return None
            depth -= 1
            if depth == 0:
                spans.append((element, index + 1))
                element = -2
        elif depth == 0:
            if byte == ord(",") and element == -2:
                element = -1
            elif byte not in b" \t\r\n":
                return None
        index += 1
    return None


@given(
    st.lists(
        st.sampled_from([b"[", b"]", b"{", b"}", b'"', b"\\", b",", b" ", b"a", b"\n", b"\x0b"]),
        max_size=16,
    )
)
def test_both_builds_cut_an_array_into_the_same_elements(parts: list[bytes]) -> None:
    """The pure-Python build's cutting of a .json array (a pattern, token by token) and the
    compiled byte loop give the same spans, or both refuse the text."""
    from phantom_log.records.strictjson import (
        _split_with_decoder,
        _split_with_pattern,
        split_array,
    )

    text = b"[" + b"".join(parts)
    assert _split_with_pattern(text, 0) == _spans_byte_by_byte(text)
    assert split_array(text) == _spans_byte_by_byte(text)
    # The pure-Python build's parser route gives spans only where they are the same.
    assert _split_with_decoder(text, 0) in (None, _spans_byte_by_byte(text))


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"), max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(
    st.lists(
        st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=4), _JSON_VALUES),
        max_size=5,
    ),
    st.sampled_from([None, 0, 2]),
    st.booleans(),
    st.sampled_from(["", " ", "\n", "\t \r\n"]),
)
def test_the_pure_build_cuts_an_array_of_objects_where_their_brackets_close(
    elements: list[dict[str, Any]], indent: int | None, ascii_only: bool, spaces: str
) -> None:
    """The pure-Python build cuts an array of objects with the standard library's parser
    (an element at a time): the same spans as the rule's, on any objects however written
    (escaped or not, indented or not, brackets and quotes in their strings)."""
    from phantom_log.records.strictjson import _split_with_decoder

    text = (spaces + json.dumps(elements, indent=indent, ensure_ascii=ascii_only) + spaces).encode(
        "utf-8", "surrogatepass"
    )
    start = len(spaces)
    expected = _spans_byte_by_byte(text)
    assert expected is not None
    assert _split_with_decoder(text, start) == expected


def test_the_pure_build_reads_an_array_of_objects_without_its_token_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pure-Python build's route for a .json array of records: the parser's, with no
    scan of the token pattern at all (that loop took 150 us a record, the parser 23)."""
    from phantom_log.records import strictjson

    scans: list[object] = []
    pattern = strictjson._TOKENS

    class Counted:
        def finditer(self, *args: Any) -> Any:
            scans.append(args)
            return pattern.finditer(*args)

    text = json.dumps([RECORD, {"é": '["{', "b": [{}]}, RECORD], indent=1).encode()
    monkeypatch.setattr(strictjson, "COMPILED", False)
    monkeypatch.setattr(strictjson, "_TOKENS", Counted())
    assert strictjson.split_array(text) == _spans_byte_by_byte(text)
    assert scans == []
    broken = text.replace(b"]", b"", 1)
    assert strictjson.split_array(broken) == _spans_byte_by_byte(broken)
    assert len(scans) == 1  # a text the parser refuses: the token loop reads it
    # A text too large to decode whole beside its bytes: the token loop, the same spans.
    monkeypatch.setattr(strictjson, "_DECODED_AT_MOST", len(text) - 1)
    assert strictjson.split_array(text) == _spans_byte_by_byte(text)
    assert len(scans) == 2


@pytest.mark.parametrize(
    "text",
    [
        b'[{"a": 1}, [2]]',  # an element that is not an object
        b'[{"a": 1},]',  # a comma after the last element
        b'[{"a": "\x01"}]',  # a control character in a string
        b'[{"a": 1 {"b": 2}]',  # no comma
        b'[{"a": 1}] x',  # a text after the array
        b'[{"a": "\xff"}]',  # not UTF-8
        b'[{"a": 1]}]',  # brackets that do not close as they open
        b"[" + b'{"a": [' * 3000 + b"]}" * 3000 + b"]",  # deeper than the parser goes
    ],
)
def test_the_pure_build_leaves_any_other_array_to_its_token_loop(text: bytes) -> None:
    """Where the standard library's parser cannot read an element as an object, the
    pure-Python build's parser route gives no spans, and the token loop's answer (the
    rule's) stands: an element the rules refuse is still found, on its own."""
    from phantom_log.records.strictjson import _split_with_decoder, _split_with_pattern

    assert _split_with_decoder(text, 0) is None
    assert _split_with_pattern(text, 0) == _spans_byte_by_byte(text)


def test_an_array_ending_in_a_string_cut_short_is_refused_at_once() -> None:
    """A .json array whose last string is never closed (170 KB of it, as the fuzz suite
    made one) is read in one pass: the pure-Python build took 38-90 s, looking for a
    bracket from every byte of the string. The work is the tokens read: one scan of the
    text, four tokens, the string cut short read whole to the end as one."""
    from phantom_log.records import strictjson

    class Counted:
        """The token pattern, writing down every scan and every token it finds."""

        def __init__(self, pattern: Any) -> None:
            self.pattern = pattern
            self.scans = 0
            self.tokens: list[tuple[int, int]] = []

        def finditer(self, *args: Any) -> Any:
            self.scans += 1
            for match in self.pattern.finditer(*args):
                self.tokens.append(match.span())
                yield match

    text = b'[{"a": 1},"' + "é\u202e".encode() * 50_000
    counted = Counted(strictjson._TOKENS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strictjson, "_TOKENS", counted)
        assert strictjson._split_with_pattern(text, 0) is None
    assert counted.scans == 1
    assert counted.tokens == [(1, 2), (2, 5), (8, 9), (10, len(text))]  # { "a" } "...


def _nesting_byte_by_byte(data: bytes) -> int:
    """The test's own count of how deep a text nests: strings skipped (a backslash escapes
    the next byte, whatever it is), brackets counted."""
    deepest = depth = index = 0
    while index < len(data):
        byte = data[index]
        index += 1
        if byte == ord('"'):
            while index < len(data) and data[index] != ord('"'):
                index += 2 if data[index] == ord("\\") else 1
            index += 1
        elif byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


@example([b'"', b"\\", b"\n", b"["])  # a string cut short after an escaped line break
@given(st.lists(st.sampled_from([b"[", b"]", b"{", b"}", b'"', b"\\", b"a", b"\n"]), max_size=16))
def test_both_builds_count_the_nesting_alike(parts: list[bytes]) -> None:
    """The depth limit reads the same depth in both builds, a backslash before a line
    break inside a string included (the pure-Python pattern missed it)."""
    from phantom_log.records.strictjson import _nesting

    text = b"".join(parts)
    assert _nesting(text) == _nesting_byte_by_byte(text)


# -- spans: the lines of a file read by the worker processes --------------------------

SPAN_LINES = [
    '{"a": 1}',
    "",
    " ",
    "\t \x0b\x0c",
    "\r",
    '{"b": [1, 2, 3], "c": "text"}',
    "not json",
    '{"long": "' + "y" * 40 + '"}',
    "\ufeff{}",
    "[1,",
]


def _records(path: Path, **options: Any) -> list[tuple[Any, ...]]:
    from phantom_log.records.chunks import read_chunks
    from phantom_log.records.source_records import chunk_records

    return [
        (r.source, r.index, r.line, r.data, r.problem, r.text)
        for chunk in read_chunks(str(path), **options)
        for r in chunk_records(chunk)
    ]


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(SPAN_LINES), max_size=25),
    breaks=st.sampled_from(["\n", "\r\n"]),
    last_break=st.booleans(),
    per_chunk=st.integers(1, 6),
    limit=st.sampled_from([12, 30, 10_000]),
    block=st.sampled_from([1, 5, 64, 1 << 20]),
)
@example(lines=["", '{"a": 1}'], breaks="\n", last_break=False, per_chunk=1, limit=12, block=1)
def test_a_file_read_as_spans_gives_the_records_read_as_lines(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    breaks: str,
    last_break: bool,
    per_chunk: int,
    limit: int,
    block: int,
) -> None:
    """With worker processes, the main process cuts a file of JSON Lines into spans, which
    the workers read: the records, their indexes, lines, texts and problems (blank lines,
    lines over the size limit, a last line without its break) are those of the lines read
    by the main process, whatever the size of its reads."""
    from phantom_log.records import chunks

    path = tmp_path_factory.mktemp("spans") / "games.jsonl"
    text = breaks.join(lines) + (breaks if last_break and lines else "")
    path.write_bytes(text.encode("utf-8"))
    options = {"lines_per_chunk": per_chunk, "max_record_size": limit}
    expected = _records(path, **options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chunks, "_SPAN_BLOCK", block)
        assert _records(path, spans=True, **options) == expected


def test_a_span_of_a_file_cut_short_since_is_unreadable(tmp_path: Path) -> None:
    from phantom_log.records.chunks import read_chunks
    from phantom_log.records.source_records import chunk_records

    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps({**RECORD, "game_id": f"g{i}"}) + "\n" for i in range(6)))
    chunks = list(read_chunks(str(path), lines_per_chunk=2, spans=True))
    assert [chunk.span.records for chunk in chunks if chunk.span] == [2, 2, 2]
    path.write_text(path.read_text()[:100])
    (record,) = chunk_records(chunks[1])
    assert record.problem is not None and record.problem.code is Code.UNREADABLE
    assert record.index == 2 and "cut short" in record.problem.message
    path.unlink()
    (record,) = chunk_records(chunks[2])
    assert record.problem is not None and record.problem.code is Code.UNREADABLE
    assert record.index == 4


@pytest.mark.parametrize("spans", [False, True], ids=["one process", "workers"])
def test_a_document_cut_short_while_it_is_read_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spans: bool
) -> None:
    """A .json document that another process cuts in two once it is opened (its size
    then known): one unreadable problem, never the half read taken for broken JSON."""
    from phantom_log.records import chunks
    from phantom_log.records.unreadable import CUT_SHORT

    path = tmp_path / "games.json"
    path.write_text(json.dumps([{**RECORD, "game_id": f"g{i}"} for i in range(3)]))
    read_up_to = chunks.read_up_to

    def cut_then_read(handle: Any, count: int, expected: int | None = None) -> bytes:
        os.truncate(path, path.stat().st_size // 2)
        return read_up_to(handle, count, expected)

    monkeypatch.setattr(chunks, "read_up_to", cut_then_read)
    (chunk,) = chunks.read_chunks(str(path), spans=spans)
    assert chunk.problem == CUT_SHORT and chunk.index == 0


def test_a_file_that_starts_with_a_byte_order_mark_is_read_as_lines(tmp_path: Path) -> None:
    from phantom_log.records.chunks import read_chunks

    path = tmp_path / "games.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(RECORD).encode() + b"\n")
    (chunk,) = read_chunks(str(path), spans=True)
    assert chunk.span is None and chunk.lines is not None


@settings(max_examples=300, deadline=None)
@given(
    elements=st.lists(
        st.sampled_from(['{"a": "é"}', '{"b": "\\u00e9x"}', '{"c": [1, 2]}', '{"日本": 1}', "{}"]),
        min_size=1,
        max_size=12,
    ),
    gaps=st.lists(st.sampled_from(["", " ", "\n", " \n\t", "\r\n  "]), min_size=13, max_size=13),
)
def test_the_elements_of_an_array_start_at_their_line_and_column(
    tmp_path_factory: pytest.TempPathFactory, elements: list[str], gaps: list[str]
) -> None:
    """Each element's line and column (in characters) are counted from the element before
    it, not from the start of its line (an array on one line would take time in the square
    of its length): the same as counted from the start."""
    from phantom_log.records.chunks import read_chunks

    pieces = [element + gap for element, gap in zip(elements, gaps[1:], strict=False)]
    text = "[" + gaps[0] + ", ".join(pieces) + "]"
    data = text.encode("utf-8")
    path = tmp_path_factory.mktemp("array") / "games.json"
    path.write_bytes(data)
    found = [
        (index, line, column)
        for chunk in read_chunks(str(path), lines_per_chunk=5)
        for index, line, column, _ in chunk.lines or ()
    ]
    starts = [start for start, _ in split_array(data) or ()]
    expected = [
        (
            index,
            data.count(b"\n", 0, start) + 1,
            len(data[data.rfind(b"\n", 0, start) + 1 : start].decode("utf-8")) + 1,
        )
        for index, start in enumerate(starts)
    ]
    assert found == expected and len(found) == len(elements)


@settings(max_examples=200, deadline=None)
@given(
    elements=st.lists(
        st.sampled_from(['{"a": "é"}', '{"b": [1, 2]}', "{}", '{"c": 1, "c": 2}', '{"d": 1e999}']),
        max_size=12,
    ),
    gap=st.sampled_from(["", "\n", " \r\n "]),
    bom=st.booleans(),
    per_chunk=st.integers(1, 5),
)
def test_an_array_read_as_spans_gives_the_records_read_whole(
    tmp_path_factory: pytest.TempPathFactory,
    elements: list[str],
    gap: str,
    bom: bool,
    per_chunk: int,
) -> None:
    """With worker processes, an array's elements are sent as their places in the file,
    which the workers read: the records, their indexes, lines, columns, texts and
    problems are those of the elements the main process cut."""
    path = tmp_path_factory.mktemp("spans") / "games.json"
    text = "[" + gap + ("," + gap).join(elements) + gap + "]"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    expected = _records(path, lines_per_chunk=per_chunk)
    assert _records(path, lines_per_chunk=per_chunk, spans=True) == expected
