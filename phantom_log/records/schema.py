"""The record's schema: the fast gate every record passes, and the wording of what it refuses.

``schemas/game-record-1.schema.json`` is the contract. Every record passes the gate
generated from that file (:func:`record_gate`, :mod:`.gate_generator`): a record read from
a text as it is parsed, in one walk with the strict parse's key count; any other when it
is checked (:func:`schema_valid`). Only a record the gate refuses goes to ``jsonschema``,
which words every error (:func:`schema_problems`), on the parts of the record the gate
refuses only, with bounded messages for values of any size.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module, resources
from typing import TYPE_CHECKING, Any, Final

from ..rules.problems import Code, Problem, pointer
from .number_kinds import INT64_MAX, INT64_MIN
from .quoting import EXCERPT, counted, excerpt

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

RECORD_SCHEMA: Final = "game-record-1.schema.json"
SHEETS_SCHEMA: Final = "sheet-1.schema.json"
MANIFEST_SCHEMA: Final = "manifest-1.schema.json"
#: The schema errors of one document that are worded: past them the check stops and says
#: so, so that a record of any size gives a report of a bounded size, in bounded time.
SCHEMA_ERROR_LIMIT: Final = 100
#: The items of an array of a record that the schema check reads: more than any array of
#: a record may hold, so that a longer one still breaks its ``maxItems``.
ARRAY_ITEMS_CHECKED: Final = 64
# The depth of the deepest array of the record schema (a swap's list of cards).
_SCHEMA_DEPTH: Final = 8
# Values this many levels below the schema's depth are emptied before the schema check.
_DEPTH_MARGIN: Final = 8


def schema_text(name: str = RECORD_SCHEMA) -> str:
    """The text of one of the schemas shipped with the package."""
    return (resources.files("phantom_log.schemas") / name).read_text(encoding="utf-8")


@cache
def record_gate() -> Callable[[Any], int]:
    """The gate generated from the record schema (see :mod:`.gate_generator`): the number
    of keys of a parsed record (all levels together) that passes the schema, -1 for one
    that does not. It is the module built with the package (compiled where a compiler
    was); where there is none, or it was made from another schema file or generator (a
    checkout run from its source), the same module is generated now, in memory, from the
    schema file."""
    from . import gate_generator

    text = schema_text()
    try:
        built: Any = import_module(f"{__package__}.{gate_generator.MODULE}")
    except ImportError:
        built = None
    if built is not None and gate_generator.source_digest(text) == built.SOURCE_DIGEST:
        gate: Callable[[Any], int] = built.gate
        return gate
    generated: Callable[[Any], int] = gate_generator.load(text).gate
    return generated


def schema_valid(data: Any) -> bool:
    """True when a parsed record passes the record schema (the generated gate)."""
    return record_gate()(data) >= 0


@cache
def schema_validator(name: str = RECORD_SCHEMA) -> Draft202012Validator:
    """A validator for one of the shipped schemas, with format checks (``date``) on.

    The schema's ``$ref``s to its own ``$defs`` are written in place first (none is
    recursive): the errors are the same, and found about three times faster than with
    each reference looked up as it is met."""
    schema = json.loads(schema_text(name))
    return _validator(schema, schema.get("$defs", {}))


@cache
def definition_validator(definition: str) -> Draft202012Validator:
    """A validator for one definition of the record schema (``round``, ``trick``), as
    :func:`schema_validator` makes it: its errors are those the whole schema finds in such
    a value, their paths counted from the value."""
    definitions = json.loads(schema_text(RECORD_SCHEMA))["$defs"]
    return _validator(definitions[definition], definitions)


def _validator(schema: Any, definitions: Mapping[str, Any]) -> Draft202012Validator:
    from jsonschema import Draft202012Validator, FormatChecker

    return Draft202012Validator(_inline_refs(schema, definitions), format_checker=FormatChecker())


def _inline_refs(node: Any, definitions: Mapping[str, Any]) -> Any:
    """A schema with each ``{"$ref": "#/$defs/NAME"}`` replaced by that definition."""
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/") and len(node) == 1:
            return _inline_refs(definitions[reference.removeprefix("#/$defs/")], definitions)
        return {
            key: _inline_refs(value, definitions) for key, value in node.items() if key != "$defs"
        }
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    return node


_JSON_TYPES: Final = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def json_type(value: Any) -> str:
    """What kind of JSON value ``value`` is, for a message: ``an object``, ``null``..."""
    if value is None:
        return "null"
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def json_data_problem(data: Any) -> Problem | None:
    """The ``json`` problem of a Python object given as a parsed record (to the Python
    API) that holds what no JSON text parses to: a tuple, a set, bytes or another object, a
    key that is not a string, ``nan`` or an infinity, an integer past 64 bits. It points at
    the first such value, in the record's order; ``None`` for JSON data, which is what
    the schema and the rules may be given."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    return _not_json_data(f"the key {key!r} is {_python_type(key)}", path)
            stack.extend((value[key], (*path, key)) for key in reversed(value))
        elif isinstance(value, list):
            stack.extend((value[i], (*path, i)) for i in range(len(value) - 1, -1, -1))
        elif isinstance(value, bool | str) or value is None:
            continue
        elif isinstance(value, int):
            if not INT64_MIN <= value <= INT64_MAX:
                return _not_json_data("an integer outside the 64-bit range", path)
        elif isinstance(value, float):
            if not math.isfinite(value):
                return _not_json_data(f"{value!r}, which JSON has no number for", path)
        else:
            return _not_json_data(_python_type(value), path)
    return None


def _python_type(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _not_json_data(what: str, path: tuple[str | int, ...]) -> Problem:
    where = pointer(*path)
    return Problem.of(
        Code.JSON,
        f"not JSON data at {where or 'the top'}: {what}",
        where,
        hint="Give the record as json.loads gives it: dicts with string keys, lists (not "
        "tuples), strings, finite numbers within 64 bits, True, False and None.",
    )


_ENUM_WORDS: Final = {
    "Mi1": ("a card", "a card is a suit code (Mi, Ch, Ri, Ma) and a number 1-6, as in Ma5"),
    "phantom": ("a role", "a role is phantom or christine"),
    "Mi": ("a suit code", "a suit code is Mi, Ch, Ri or Ma"),
}


def _schema_message(error: ValidationError, instance: Any) -> tuple[str, str | None]:
    """A message that names the keyword, and a hint where one helps. ``instance`` is the
    value of the record the error is about; the message quotes only an excerpt of it."""
    keyword = str(error.validator)
    value: Any = error.validator_value
    if keyword == "type":
        return f"type: expected {value}, got {json_type(instance)} {excerpt(instance)}", None
    if keyword == "enum" and isinstance(value, list) and value:
        words = _ENUM_WORDS.get(value[0])
        if words is None:
            return f"enum: {excerpt(instance)} is not one of {excerpt(value)}", None
        what, rule = words
        return f"enum: {excerpt(instance)} is not {what}", rule[:1].upper() + rule[1:] + "."
    if keyword == "required":
        required: list[str] = list(value) if isinstance(value, list) else []
        missing = [key for key in required if isinstance(instance, dict) and key not in instance]
        # jsonschema gives one error per missing key, its message opening with the key's
        # repr: each error names its own key.
        key = next((key for key in missing if error.message.startswith(repr(key))), None)
        if key is None:
            return f"required: {error.message}", None
        return f"required: the key {key!r} is missing", None
    if keyword == "const":
        return f"const: {excerpt(instance)} must be {excerpt(value)}", None
    if keyword in ("maxLength", "maxItems") and isinstance(instance, str | list):
        unit = "character" if isinstance(instance, str) else "item"
        cut = isinstance(instance, list) and len(instance) > ARRAY_ITEMS_CHECKED
        return (
            f"{keyword}: {excerpt(instance)} has more than {counted(value, unit)}"
            + (f"; only its first {ARRAY_ITEMS_CHECKED} are checked" if cut else ""),
            None,
        )
    if keyword in ("minLength", "minItems") and isinstance(instance, str | list):
        unit = "character" if isinstance(instance, str) else "item"
        if not instance:
            what = "string" if isinstance(instance, str) else "array"
            return f"{keyword}: the {what} is empty; it needs at least {counted(value, unit)}", None
        return f"{keyword}: {excerpt(instance)} has fewer than {counted(value, unit)}", None
    if keyword in ("minimum", "maximum"):
        than = "less" if keyword == "minimum" else "greater"
        return f"{keyword}: {excerpt(instance)} is {than} than {value}", None
    if keyword == "format":
        return f"format: {excerpt(instance)} is not a {value}", None
    if keyword == "pattern" and isinstance(instance, str) and "\\u0000" in str(value):
        control = next(
            (char for char in instance if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0), ""
        )
        return (
            f"pattern: the string holds the control character U+{ord(control):04X}",
            "Strings hold no control characters (a comment may hold tabs and line breaks).",
        )
    if keyword == "pattern":
        return f"pattern: {excerpt(instance)} does not match {excerpt(value)}", None
    # jsonschema's own words, which may quote the whole value: cut to a bounded length.
    message = error.message
    if len(message) > 4 * EXCERPT:
        message = message[: 4 * EXCERPT] + f"… ({counted(len(message), 'character')})"
    return f"{keyword}: {message}", None


def _bounded_for_schema(value: Any, depth: int = 0) -> Any:
    """A document the schema check takes a bounded time and stack on, with the same
    errors: every array cut to its first :data:`ARRAY_ITEMS_CHECKED` items, and every
    array or object well below the deepest value the schema reads emptied (jsonschema
    words an error with the ``repr`` of the value, which recurses as deep as the value
    goes). What is not changed is shared, not copied."""
    if depth > _SCHEMA_DEPTH + _DEPTH_MARGIN:
        return type(value)() if isinstance(value, (list, dict)) and value else value
    if isinstance(value, list):
        kept = [_bounded_for_schema(item, depth + 1) for item in value[:ARRAY_ITEMS_CHECKED]]
        same = len(kept) == len(value) and all(
            new is old for new, old in zip(kept, value, strict=False)
        )
        return value if same else kept
    if isinstance(value, dict):
        changed = {
            key: new
            for key, item in value.items()
            if (new := _bounded_for_schema(item, depth + 1)) is not item
        }
        return {**value, **changed} if changed else value
    return value


def _value_at(data: Any, path: Iterable[str | int], default: Any) -> Any:
    """The value at a path of a document, or ``default`` if the path is not in it."""
    value = data
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return default
    return value


# Stand-ins, valid under the schema, for the rounds and tricks that have no schema error:
# jsonschema then finds the very same errors, without walking the rest of the record. And
# a record valid but for its rounds, which the gate is shown one round at a time.
_VALID_ROUND: Final = {"deal": {"phantom": [], "christine": []}, "special_number": 1, "tricks": []}
_VALID_TRICK: Final = {"plays": [{"player": "phantom", "card": "Mi1"}]}
_VALID_RECORD: Final = {
    "format": "phantom-log/1",
    "game_id": "g",
    "players": {"phantom": "P", "christine": "C"},
    "sheet": "rulebook",
}


@dataclass
class _Failing:
    """Where the gate finds a record's errors, round by round."""

    #: The tricks with errors, by round.
    tricks: dict[int, set[int]] = field(default_factory=dict)
    #: The rounds with errors of their own (outside their tricks).
    rounds: set[int] = field(default_factory=set)
    #: The rounds whose array of tricks itself has an error.
    arrays: set[int] = field(default_factory=set)
    #: True when an error is outside the rounds.
    outside: bool = False


def _refuses(*rounds: Any) -> bool:
    """Whether the gate refuses these rounds (shown to it in a record valid but for them)."""
    return record_gate()({**_VALID_RECORD, "rounds": list(rounds)}) < 0


def _failing(data: Any) -> _Failing | None:
    """Where the gate finds a record's errors: outside the rounds, in each round's own
    values, in each of its tricks. ``None`` when the record is to be checked whole, as it
    is (no rounds to stand in, or an error of the rounds array itself). It reads the
    record as the wording reads it: arrays cut, deep values emptied."""
    bounded = _bounded_for_schema(data)
    if not isinstance(bounded, dict) or not isinstance(bounded.get("rounds"), list):
        return None
    rounds = bounded["rounds"]
    stood_in = [_VALID_ROUND] * len(rounds)
    if _refuses(*stood_in):
        return None
    failing = _Failing(outside=record_gate()({**bounded, "rounds": stood_in}) < 0)
    for index, item in enumerate(rounds):
        if not _refuses(item):
            continue
        failing.rounds.add(index)
        tricks = item.get("tricks") if isinstance(item, dict) else None
        if not isinstance(tricks, list):
            continue
        valid_tricks = [_VALID_TRICK] * len(tricks)
        if _refuses({**_VALID_ROUND, "tricks": valid_tricks}):
            failing.arrays.add(index)
            continue
        found = {
            position
            for position, trick in enumerate(tricks)
            if _refuses({**_VALID_ROUND, "tricks": [trick]})
        }
        if found:
            failing.tricks[index] = found
            if not _refuses({**item, "tricks": valid_tricks}):
                failing.rounds.discard(index)
    return failing


def _round_stood_in(item: Any, index: int, failing: _Failing) -> Any:
    """A failing round with its tricks without an error stood in (all of them kept when
    its array of tricks has an error)."""
    tricks = item.get("tricks") if isinstance(item, dict) else None
    if not isinstance(tricks, list) or index in failing.arrays:
        return item
    kept = failing.tricks.get(index, set())
    stood_in = [
        trick if position in kept else _VALID_TRICK for position, trick in enumerate(tricks)
    ]
    return {**item, "tricks": stood_in}


def _record_stood_in(data: dict[str, Any], failing: _Failing) -> dict[str, Any]:
    rounds = [
        _round_stood_in(item, index, failing)
        if index in failing.rounds or index in failing.tricks
        else _VALID_ROUND
        for index, item in enumerate(data["rounds"])
    ]
    return {**data, "rounds": rounds}


def _without_valid_parts(data: Any) -> Any:
    """The record with each round and trick that the gate finds no error in replaced by a
    small valid stand-in (the same count of each, so that the errors, their
    paths and their order stay those of the whole record). A round with an error of its
    own (outside its tricks) keeps its own values, its tricks without an error stood in:
    no keyword of a round reads what its tricks hold."""
    failing = _failing(data)
    return data if failing is None else _record_stood_in(data, failing)


# What jsonschema is given to word a record's errors: the definition of the record schema
# it is checked against (None: the whole schema), the value, and the value's path.
_Part = tuple[str | None, Any, tuple[str | int, ...]]


def _checked_parts(data: Any) -> list[_Part]:
    """The parts of a record that ``jsonschema`` words the errors of: when every error the
    gate finds is in the rounds, each failing round (against the ``round``
    definition, its valid tricks stood in) or, when a round's only errors are in its
    tricks, each failing trick (against the ``trick`` definition), in document order;
    otherwise the whole record, its valid rounds and tricks stood in. No keyword of a
    record or a round reads into its rounds' or tricks' values, so the errors are the
    same as the whole record's."""
    failing = _failing(data)
    if failing is None:
        return [(None, data, ())]
    if failing.outside:
        return [(None, _record_stood_in(data, failing), ())]
    rounds = data["rounds"]
    parts: list[_Part] = []
    for index in sorted({*failing.tricks, *failing.rounds}):
        if index in failing.rounds:
            parts.append(
                ("round", _round_stood_in(rounds[index], index, failing), ("rounds", index))
            )
        else:  # its tricks have errors: it holds tricks
            parts.extend(
                ("trick", rounds[index]["tricks"][position], ("rounds", index, "tricks", position))
                for position in sorted(failing.tricks[index])
            )
    return parts


def _schema_errors(data: Any, name: str) -> Iterator[tuple[ValidationError, list[str | int]]]:
    """Each error ``jsonschema`` finds in a document, with its path in the document."""
    if name != RECORD_SCHEMA:
        for error in schema_validator(name).iter_errors(data):
            yield error, list(error.absolute_path)
        return
    for definition, value, at in _checked_parts(data):
        validator = schema_validator() if definition is None else definition_validator(definition)
        for error in validator.iter_errors(_bounded_for_schema(value, len(at))):
            yield error, [*at, *error.absolute_path]


def _round_and_trick(path: list[str | int]) -> tuple[int | None, int | None]:
    round_no = trick_no = None
    if len(path) >= 2 and path[0] == "rounds" and isinstance(path[1], int):
        round_no = path[1] + 1
        if len(path) >= 4 and path[2] == "tricks" and isinstance(path[3], int):
            trick_no = path[3] + 1
    return round_no, trick_no


def schema_problems(
    data: Any, name: str = RECORD_SCHEMA, base: tuple[str | int, ...] = ()
) -> list[Problem]:
    """Every schema error of a document, in document order, as ``schema`` problems.

    A record the gate passes has none; any other document is worded by ``jsonschema``.
    Past :data:`SCHEMA_ERROR_LIMIT` errors the check stops, and a last problem says so;
    the items of an array past :data:`ARRAY_ITEMS_CHECKED` are not read (the array
    breaks its ``maxItems``, which says so).
    """
    if name == RECORD_SCHEMA and schema_valid(data):
        return []
    problems: list[tuple[tuple[tuple[int, str | int], ...], Problem]] = []
    stopped = False
    for error, at in _schema_errors(data, name):
        if len(problems) >= SCHEMA_ERROR_LIMIT:
            stopped = True
            break
        path = [*base, *at]
        round_no, trick_no = _round_and_trick(path)
        schema = error.schema
        if (
            error.validator == "additionalProperties"
            and isinstance(error.instance, dict)
            and isinstance(schema, Mapping)
        ):
            allowed = list(schema.get("properties", {}))
            for key in error.instance:
                if key in allowed or key.startswith("x-"):
                    continue
                if len(problems) >= SCHEMA_ERROR_LIMIT:
                    stopped = True
                    break
                close = difflib.get_close_matches(key[: 2 * EXCERPT], allowed, n=1)
                hint = f"Did you mean {close[0]!r}?" if close else None
                # A key too long to quote whole is not put in the pointer: it points at
                # the object that holds the key.
                where = [*path, key] if len(key) <= EXCERPT else path
                problems.append(
                    (
                        _sort_key([*path, key]),
                        Problem.of(
                            Code.SCHEMA,
                            f"additionalProperties: unknown key {excerpt(key)} (allowed: "
                            f"{', '.join(allowed)}, and keys starting with x-)",
                            pointer(*where),
                            round_no,
                            trick_no,
                            hint,
                        ),
                    )
                )
            continue
        instance = _value_at(data, at, error.instance)
        message, hint = _schema_message(error, instance)
        problems.append(
            (
                _sort_key(path),
                Problem.of(Code.SCHEMA, message, pointer(*path), round_no, trick_no, hint),
            )
        )
    problems.sort(key=lambda item: item[0])
    found = [problem for _, problem in problems]
    if stopped:
        found.append(
            Problem.of(
                Code.SCHEMA,
                f"too many errors: the schema check stopped after {SCHEMA_ERROR_LIMIT}",
                hint="Put these right and check the record again.",
            )
        )
    return found


def _sort_key(path: list[str | int]) -> tuple[tuple[int, str | int], ...]:
    return tuple((0, part) if isinstance(part, int) else (1, part) for part in path)
