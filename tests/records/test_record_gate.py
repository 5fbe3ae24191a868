"""The record schema's gate, generated from the schema file (records/gate_generator.py),
gives jsonschema's verdict and the exact key count, and reading a record through it gives
what the exact path gives.

Every gate is held to ``jsonschema`` (the schema file as written) on the schema's test
cases (tests/records/test_schema_models.py), on near misses built by hypothesis (as values
and as texts: duplicate keys, big integers, escaped and ``x-`` keys, 2.0 for an integer,
bad dates, wrong lengths, control characters, wrong enums, missing and extra keys), on the
JSON test suite's texts held in an ``x-`` value and on a sample of the benchmark corpus.
The gates are both walks of the module generated in memory (the pure-Python build's and
the compiled build's, run as Python), the module written as the build writes it, and the
one the package uses (compiled in the compiled build).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from phantom_log.checking.verdict import verify_record
from phantom_log.records import gate_generator, schema
from phantom_log.records.gate_generator import NotImplementedInGate
from phantom_log.records.schema import record_gate, schema_text, schema_valid, schema_validator
from phantom_log.records.source_records import SourceRecord
from phantom_log.records.strictjson import JsonError, _text_keys, parse_gated, parse_json
from tests.helpers.paths import JSON_TEST_SUITE, REPO
from tests.records.test_schema_models import (
    BASE,
    BASES,
    CASES,
    SPECIAL,
    VARIANT,
    changed,
    mutated,
)

SCHEMA_TEXT = schema_text()
PYTHON_WALK = gate_generator.load(SCHEMA_TEXT)
COMPILED_WALK = gate_generator.load(SCHEMA_TEXT, compiled_paths=True)


SCHEMA_FILE = REPO / "phantom_log" / "schemas" / schema.RECORD_SCHEMA


def _written_module(folder: Path) -> ModuleType:
    """The gate as the build writes it, imported from its file (as Python)."""
    gate_generator.write_module(SCHEMA_FILE, folder)
    path = folder / f"{gate_generator.MODULE}.py"
    spec = importlib.util.spec_from_file_location("written_record_gate", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Callable[[Any], int]]:
    written = _written_module(tmp_path_factory.mktemp("gate"))
    return {
        "python walk, in memory": PYTHON_WALK.gate,
        "compiled walk, in memory": COMPILED_WALK.gate,
        "written by the build": written.gate,
        "the package's": record_gate(),
    }


def keys_of(value: Any) -> int:
    """The keys of the objects of a value, all levels together."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += len(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def same(one: Any, other: Any) -> bool:
    """The same JSON value, of the same types (``1``, ``1.0`` and ``True`` differ), at any
    depth."""
    stack = [(one, other)]
    while stack:
        first, second = stack.pop()
        if type(first) is not type(second):
            return False
        if isinstance(first, dict):
            if list(first) != list(second):
                return False
            stack.extend((first[key], second[key]) for key in first)
        elif isinstance(first, list):
            if len(first) != len(second):
                return False
            stack.extend(zip(first, second, strict=True))
        elif first != second:
            return False
    return True


def jsonschema_passes(value: Any) -> bool:
    return bool(schema_validator().is_valid(value))


def assert_gates_agree(gates: dict[str, Callable[[Any], int]], value: Any) -> bool:
    """Each gate gives jsonschema's verdict on a parsed value, and the value's key count
    when it passes; so does the package's check of a record read otherwise."""
    expected = jsonschema_passes(value)
    for name, gate in gates.items():
        count = gate(value)
        assert (count >= 0) == expected, name
        if count >= 0:
            assert count == keys_of(value), name
    assert schema_valid(value) == expected
    return expected


def report(record: SourceRecord) -> dict[str, Any]:
    return verify_record(record).to_json()


def assert_reading_agrees(gates: dict[str, Callable[[Any], int]], text: bytes) -> tuple[str, bool]:
    """The text read through each gate is what the exact path reads: the same value or
    the same ``json`` error, and the same report. Gives the verdict (``json error``,
    ``valid``, ``invalid``: the schema's) and whether the package's gate passed it."""
    try:
        expected = parse_json(text)
    except JsonError as error:
        for gate in gates.values():
            with pytest.raises(JsonError) as caught:
                parse_gated(text, gate)
            assert (caught.value.message, caught.value.line, caught.value.column) == (
                error.message,
                error.line,
                error.column,
            )
        return "json error", False
    valid = assert_gates_agree(gates, expected) if isinstance(expected, dict) else False
    exact = report(SourceRecord("s", 0, expected, text=text))
    fast = False
    for name, gate in gates.items():
        value, passed = parse_gated(text, gate)
        assert same(value, expected), name
        # Passed exactly when the record passes the schema and the bytes count its keys
        # (a string holding an escaped quote before a colon counts one key too many).
        counted = _text_keys(text.removeprefix(b"\xef\xbb\xbf")) == keys_of(value)
        assert passed == (valid and counted), name
        assert report(SourceRecord("s", 0, value, text=text, schema_passed=passed)) == exact
        fast = passed
    return ("valid" if valid else "invalid"), fast


# --- The schema's own test cases -------------------------------------------------------


@pytest.mark.parametrize(
    "document",
    [
        pytest.param(BASE, id="base"),
        pytest.param(VARIANT, id="variant"),
        *(pytest.param(document, id=name) for name, document, _ in CASES),
    ],
)
def test_the_schema_cases_get_jsonschemas_verdict(
    gates: dict[str, Callable[[Any], int]], document: object
) -> None:
    try:
        text = orjson.dumps(document)
    except TypeError:  # a number past 64 bits: no text orjson reads holds it
        text = json.dumps(document).encode()
    else:
        assert_gates_agree(gates, orjson.loads(text))
    assert_reading_agrees(gates, text)


# --- Near misses by hypothesis -----------------------------------------------------------


def _escaped(key: str) -> str:
    """A key written with its x's, hyphens and vowels as \\u escapes: the same key."""
    return "".join(
        f"\\u{ord(char):04x}" if char in "x-aeiou" else json.dumps(char)[1:-1] for char in key
    )


def to_text(value: Any, duplicate: int | None, escape: bool, spaces: str, state: list[int]) -> str:
    """JSON text of a value; the ``duplicate``-th object (counted as written) has its
    first member written twice, keys may be written with escapes, and ``spaces`` stand
    before each colon."""
    if isinstance(value, dict):
        number = state[0]
        state[0] += 1
        members = [
            (key, to_text(item, duplicate, escape, spaces, state)) for key, item in value.items()
        ]
        if number == duplicate and members:
            members.insert(1, members[0])
        written = []
        for key, text in members:
            name = '"' + _escaped(key) + '"' if escape else json.dumps(key)
            written.append(f"{name}{spaces}:{text}")
        return "{" + ",".join(written) + "}"
    if isinstance(value, list):
        return (
            "[" + ",".join(to_text(item, duplicate, escape, spaces, state) for item in value) + "]"
        )
    return json.dumps(value)


NEAR_VALUES = st.sampled_from(
    [
        2.0,
        6.0,
        12.0,
        0.5,
        2**63 - 1,
        2**63,
        -(2**63) - 1,
        10**20,
        1e19,
        9.3e18,
        "2026-02-29",
        "2024-02-29",
        "1900-02-29",
        "2026-13-01",
        "2026-04-31",
        "0000-01-01",
        "0001-01-01",
        "2026-1-01",
        "2026-01-00",
        "2026-00-10",
        "2026-12-31",
        "2026-12-32",
        "२०२६-११-२९",
        "x" * 200,
        "x" * 201,
        "",
        "K\u0007m",
        "K\u007fm",
        "K\u0085m",
        "K\u009fm",
        "K\u00a0m",
        "tab\tand\nline",
        "vertical\u000btab",
        "Mi7",
        "mi1",
        "Mi1 ",
        "Phantom",
        "christine\u0000",
        "Ma",
        "PCPX",
        "P" * 13,
        'a":b',
        {"x-deep": [[[{"a": {"b": [1, {"c": None}]}}]]]},
    ]
)


@st.composite
def near_miss_texts(draw: st.DrawFn) -> bytes:
    """A near miss of a valid record, as a text: the schema tests' random near misses,
    or a valid record with one value replaced by a value near the schema's edges, then
    written with or without a duplicate key, escaped keys, spaces before colons."""
    if draw(st.booleans()):
        document: Any = draw(mutated())
    else:
        document = copy.deepcopy(draw(st.sampled_from(list(BASES.values()))))
        paths = list(_value_paths(document))
        path = draw(st.sampled_from(paths))
        target = document
        for part in path[:-1]:
            target = target[part]
        if draw(st.booleans()) and isinstance(target, dict):
            target["x-" + str(path[-1])] = draw(NEAR_VALUES)
        else:
            target[path[-1]] = draw(NEAR_VALUES)
    duplicate = draw(st.one_of(st.none(), st.integers(0, 40)))
    escape = draw(st.booleans())
    spaces = draw(st.sampled_from(["", " ", "\n\t"]))
    return to_text(document, duplicate, escape, spaces, [0]).encode()


def _value_paths(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from _value_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*path, index)
            yield from _value_paths(item, (*path, index))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_miss_texts())
def test_near_misses_read_as_the_exact_path_reads_them(
    gates: dict[str, Callable[[Any], int]], text: bytes
) -> None:
    note(text.decode("utf-8", "replace"))
    assert_reading_agrees(gates, text)


def _text(document: Any, duplicate: int | None = None, escape: bool = False) -> str:
    return to_text(document, duplicate, escape, "", [0])


@pytest.mark.parametrize(
    ("text", "verdict", "fast"),
    [
        pytest.param(_text(BASE), "valid", True, id="valid"),
        pytest.param(to_text(BASE, None, True, " ", [0]), "valid", True, id="escaped keys"),
        pytest.param(_text(BASE, 0), "json error", False, id="a duplicate key"),
        pytest.param(_text(BASE, 7, True), "json error", False, id="a duplicate key, deeper"),
        pytest.param(_text({**BASE, "x-n": 10**20}), "json error", False, id="a big integer in x-"),
        pytest.param(_text({**BASE, "x-n": 10**18}), "valid", False, id="19 digits in x-"),
        pytest.param(_text(changed(SPECIAL, 3.0)), "valid", True, id="3.0 for an integer"),
        pytest.param(_text({**BASE, "x-n": 'a":b'}), "valid", False, id="an escaped quote"),
        pytest.param(_text({**BASE, "X-n": 1}), "invalid", False, id="an unknown key"),
        pytest.param(_text({**BASE, "date": "2026-02-30"}), "invalid", False, id="a bad date"),
    ],
)
def test_each_way_a_record_is_read(
    gates: dict[str, Callable[[Any], int]], text: str, verdict: str, fast: bool
) -> None:
    assert assert_reading_agrees(gates, text.encode()) == (verdict, fast)


DATES = st.one_of(
    st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", fullmatch=True),
    st.from_regex(
        r"(0000|0001|1900|2000|2024|2026|9999)-(0[0-9]|1[0-3])-([0-3][0-9])", fullmatch=True
    ),
    st.text(st.sampled_from("0123456789-٢"), min_size=9, max_size=11),
)


@settings(max_examples=400, deadline=None)
@given(DATES)
def test_dates_get_jsonschemas_verdict(gates: dict[str, Callable[[Any], int]], date: str) -> None:
    assert_gates_agree(gates, {**BASE, "date": date})


def test_a_record_whose_count_the_bytes_overstate_takes_the_exact_path() -> None:
    text = to_text({**BASE, "x-n": 'a":b'}, None, False, "", [0]).encode()
    value, passed = parse_gated(text, record_gate())
    assert value == {**BASE, "x-n": 'a":b'} and not passed


def test_an_x_value_nested_a_thousand_levels_deep_is_counted_without_recursion(
    gates: dict[str, Callable[[Any], int]],
) -> None:
    deep = b"[" * 500 + b'{"k": ' * 499 + b"1" + b"}" * 499 + b"]" * 500
    text = b'{"x-deep": ' + deep + b", " + orjson.dumps(BASE)[1:]
    value, passed = parse_gated(text, record_gate())
    assert passed
    for gate in gates.values():
        assert gate(value) == keys_of(BASE) + 1 + 499


# --- The schema's patterns -----------------------------------------------------------------


def _patterns(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("pattern"), str):
            yield value["pattern"]
        for child in value.values():
            yield from _patterns(child)
    elif isinstance(value, list):
        for child in value:
            yield from _patterns(child)


@pytest.mark.parametrize("pattern", sorted(set(_patterns(json.loads(SCHEMA_TEXT)))))
def test_the_gate_s_patterns_match_the_strings_the_schema_s_match(pattern: str) -> None:
    """The generator writes each pattern of the schema as code (its end-of-text lookahead
    too): both walks match the strings jsonschema's pattern matches, line breaks and
    control characters at the end included."""
    one_string = json.dumps(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"s": {"type": "string", "pattern": pattern}},
        }
    )
    walks = [gate_generator.load(one_string, compiled).gate for compiled in (False, True)]
    schema_walk = Draft202012Validator({"pattern": pattern})
    ends = ["", "\n", "\r\n", "\x00", "\x1f", "\x7f", "\x9f", "x", "\u2028"]
    samples = ["", "Kim", "PCP", "2024-01-31", "0000-01-01", "2024-01-31 ", "a\tb", "é" * 3]

    def agree(text: str) -> None:
        expected = schema_walk.is_valid(text)
        assert [walk({"s": text}) >= 0 for walk in walks] == [expected, expected], repr(text)

    for text in [sample + end for sample in samples for end in ends]:
        agree(text)
    settings(max_examples=300, deadline=None)(
        given(st.text(st.characters(codec="utf-8"), max_size=16))(agree)
    )()


# --- The JSON test suite, held in an x- value ----------------------------------------------


def test_the_json_test_suite_in_an_x_value(gates: dict[str, Callable[[Any], int]]) -> None:
    verdicts: dict[str, int] = {}
    fast = 0
    files = sorted(JSON_TEST_SUITE.glob("*.json"))
    assert len(files) > 300
    for path in files:
        text = b'{"x-suite": ' + path.read_bytes() + b", " + orjson.dumps(BASE)[1:]
        verdict, passed = assert_reading_agrees(gates, text)
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        fast += passed
    assert verdicts["valid"] > 50 and verdicts["json error"] > 100 and fast > 50


# --- A sample of the benchmark corpus ------------------------------------------------------

CORPUS_RECORDS = 3000


@pytest.fixture(scope="module")
def corpus_lines() -> list[bytes]:
    from benchmarks.corpus import build_part

    return build_part((11, CORPUS_RECORDS, 0, CORPUS_RECORDS)).lines.splitlines()


def test_a_sample_of_the_benchmark_corpus(
    gates: dict[str, Callable[[Any], int]], corpus_lines: list[bytes]
) -> None:
    verdicts: dict[str, int] = {}
    fast = 0
    for line in corpus_lines:
        verdict, passed = assert_reading_agrees(gates, line)
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        fast += passed
    assert sum(verdicts.values()) == CORPUS_RECORDS
    # The corpus's mix: one record in twenty breaks a rule of the format (its text, its
    # schema, ...); the others pass the gate, nearly all of them on the fast path.
    assert verdicts["invalid"] > 0 and verdicts["json error"] > 0
    assert fast > 0.9 * CORPUS_RECORDS


# --- The generator ----------------------------------------------------------------------


def _schema_with(change: Callable[[dict[str, Any]], None]) -> str:
    document = json.loads(SCHEMA_TEXT)
    change(document)
    return json.dumps(document)


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        target = document
        for part in parents:
            target = target[part]
        target[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (_set("$defs/cards/uniqueItems", True), "'uniqueItems'"),
        (_set("$defs/trick/minProperties", 1), "'minProperties'"),
        (_set("properties/date/format", "email"), "'email'"),
        (_set("$defs/bar/properties/notes/pattern", "[PC]*"), "anchored"),
        (_set("$defs/bar/properties/notes/pattern", "^(P|C)*$"), "'('"),
        (_set("$defs/bar/properties/notes/pattern", "^[PC]*?$"), "lazy"),
        (_set("$defs/bar/patternProperties", {"^x-[a-z]": {}}), "prefix"),
        (_set("$defs/suit/enum", ["Mi", 1]), "not a string or null"),
        (_set("$defs/round/properties/special_number/type", ["integer", "null"]), "type"),
        (_set("$defs/play/properties/card", {"$ref": "other.json#/card"}), "own $defs"),
        (_set("$defs/trick/properties/x-next", {"$ref": "#/$defs/trick"}), "recursive"),
        (_set("$schema", "http://json-schema.org/draft-07/schema#"), "draft-07"),
    ],
)
def test_the_generator_refuses_what_it_does_not_implement(
    change: Callable[[dict[str, Any]], None], named: str
) -> None:
    with pytest.raises(NotImplementedInGate) as refused:
        gate_generator.generate(_schema_with(change))
    assert named in str(refused.value)


def _build(folder: Path) -> subprocess.CompletedProcess[str]:
    """``setup.py`` run in ``folder`` (nothing compiled): the build's first step, which
    writes the gate from the schema file."""
    return subprocess.run(
        [sys.executable, "setup.py", "--version"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "PHANTOM_LOG_NO_COMPILE": "1"},
        timeout=120,
    )


def test_a_schema_with_an_unknown_keyword_fails_the_build(tmp_path: Path) -> None:
    """setup.py generates the gate first: a keyword the generator does not implement
    stops the build with its name, and no gate is written."""
    (tmp_path / "phantom_log" / "records").mkdir(parents=True)
    (tmp_path / "phantom_log" / "schemas").mkdir()
    shutil.copy(REPO / "setup.py", tmp_path / "setup.py")
    shutil.copy(
        REPO / "phantom_log" / "records" / "gate_generator.py",
        tmp_path / "phantom_log" / "records" / "gate_generator.py",
    )
    # The build's first step also writes the events' C types from their source.
    (tmp_path / "phantom_log" / "rules").mkdir()
    for name in ("events.py", "events_pxd.py"):
        shutil.copy(REPO / "phantom_log" / "rules" / name, tmp_path / "phantom_log" / "rules")
    (tmp_path / "phantom_log" / "schemas" / schema.RECORD_SCHEMA).write_text(
        _schema_with(_set("$defs/cards/uniqueItems", True)), encoding="utf-8"
    )
    built = _build(tmp_path)
    assert built.returncode != 0
    assert "NotImplementedInGate" in built.stderr and "'uniqueItems'" in built.stderr
    assert not (tmp_path / "phantom_log" / "records" / "record_gate.py").exists()
    # The schema as it is builds.
    shutil.copy(SCHEMA_FILE, tmp_path / "phantom_log" / "schemas" / schema.RECORD_SCHEMA)
    built = _build(tmp_path)
    assert built.returncode == 0, built.stderr
    written = (tmp_path / "phantom_log" / "records" / "record_gate.py").read_text("utf-8")
    assert written == gate_generator.generate(SCHEMA_TEXT).python


def test_the_module_is_written_once(tmp_path: Path) -> None:
    assert gate_generator.write_module(SCHEMA_FILE, tmp_path)
    generated = gate_generator.generate(SCHEMA_TEXT)
    assert (tmp_path / "record_gate.py").read_text("utf-8") == generated.python
    assert (tmp_path / "record_gate.pxd").read_text("utf-8") == generated.pxd
    # Unchanged, it is left as it is (Cython does not compile it again).
    assert not gate_generator.write_module(SCHEMA_FILE, tmp_path)


# --- Which module the package uses -------------------------------------------------------


def test_the_package_uses_the_built_module_when_it_is_up_to_date() -> None:
    gate = record_gate()
    built = REPO / "phantom_log" / "records" / "record_gate.py"
    current = built.exists() and gate_generator.generate(SCHEMA_TEXT).python == built.read_text(
        "utf-8"
    )
    if os.environ.get("PHANTOM_LOG_EXPECT_BUILD") == "compiled (Cython)":
        # CI's compiled run: the gate is the compiled module, not the one made in memory.
        module = sys.modules["phantom_log.records.record_gate"]
        assert not str(module.__file__).endswith(".py") and current
        assert gate is module.gate
    elif current:
        assert gate is sys.modules["phantom_log.records.record_gate"].gate
    else:
        assert gate.__code__.co_filename.endswith("generated in memory>.py")


def test_a_built_module_of_another_schema_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = ModuleType("phantom_log.records.record_gate")
    stale.__dict__.update(SOURCE_DIGEST="made from another schema", gate=lambda value: 0)
    monkeypatch.setitem(sys.modules, "phantom_log.records.record_gate", stale)
    record_gate.cache_clear()
    try:
        gate = record_gate()
        assert gate is not stale.gate
        assert gate({"format": "phantom-log/1"}) == -1
    finally:
        record_gate.cache_clear()
