"""A fast yes/no check against phantom-log's own JSON Schemas.

``jsonschema`` stays the authority: it words every schema error. But it takes about 6 ms
a record, far more than everything else verify does, and most records are valid. This
module compiles a schema once into plain Python closures that only answer "valid or not"
for the keywords our schemas use, with JSON Schema 2020-12's meaning (``1.0`` is an
integer, ``true`` is not; ``pattern`` is searched, not matched; ``format: date`` is
asserted, as :func:`phantom_log.check.schema_validator` asserts it). A record it accepts
needs no other schema check; a record it refuses goes to ``jsonschema`` for the words.
Tests hold both to the same verdict on every example and on thousands of perturbed
documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any, Final

Check = Callable[[Any], bool]

_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)
_IGNORED: Final = frozenset({"$schema", "$id", "title", "description", "$defs"})


class UnsupportedSchema(ValueError):
    """The schema uses a keyword this compiler does not implement."""


def _is_integer(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is float and value.is_integer())


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


_TYPES: Final[dict[str, Check]] = {
    "object": lambda value: type(value) is dict,
    "array": lambda value: type(value) is list,
    "string": lambda value: type(value) is str,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "integer": _is_integer,
    "number": _is_number,
}


def _is_date(value: Any) -> bool:
    if type(value) is not str:
        return True
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, target: str) -> Check:
        if not target.startswith("#/$defs/"):
            raise UnsupportedSchema(f"$ref {target!r}")
        if target not in self.refs:
            holder: list[Check] = []
            self.refs[target] = lambda value: holder[0](value)
            holder.append(self.compile(self.root["$defs"][target.removeprefix("#/$defs/")]))
        return self.refs[target]

    def compile(self, schema: Mapping[str, Any]) -> Check:
        checks: list[Check] = []
        keys = set(schema) - _IGNORED
        if "$ref" in keys:
            checks.append(self.ref(schema["$ref"]))
        if "type" in keys:
            checks.append(_TYPES[schema["type"]])
        if "const" in keys:
            constant = schema["const"]
            if type(constant) is not str:
                raise UnsupportedSchema("const of a non-string")
            checks.append(lambda value: type(value) is str and value == constant)
        if "enum" in keys:
            members = schema["enum"]
            if not all(member is None or type(member) is str for member in members):
                raise UnsupportedSchema("enum of values other than strings and null")
            strings = frozenset(member for member in members if member is not None)
            takes_null = None in members
            checks.append(
                lambda value: (
                    (type(value) is str and value in strings) or (takes_null and value is None)
                )
            )
        checks.extend(self.strings(schema, keys))
        checks.extend(self.numbers(schema, keys))
        checks.extend(self.arrays(schema, keys))
        if keys & {"properties", "patternProperties", "additionalProperties", "required"}:
            checks.append(self.object(schema))
        if "if" in keys:
            condition = self.compile(schema["if"])
            then = self.compile(schema.get("then", {}))
            otherwise = self.compile(schema.get("else", {}))
            checks.append(lambda value: then(value) if condition(value) else otherwise(value))
        known = {
            "$ref", "type", "const", "enum", "minLength", "maxLength", "pattern", "format",
            "minimum", "maximum", "items", "minItems", "maxItems", "properties",
            "patternProperties", "additionalProperties", "required", "if", "then", "else",
        }  # fmt: skip
        unknown = keys - known
        if unknown:
            raise UnsupportedSchema(f"keywords {sorted(unknown)}")
        return _all(checks)

    def strings(self, schema: Mapping[str, Any], keys: set[str]) -> list[Check]:
        checks: list[Check] = []
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        if "minLength" in keys or "maxLength" in keys:
            limit = float("inf") if high is None else high
            checks.append(lambda value: type(value) is not str or low <= len(value) <= limit)
        if "pattern" in keys:
            search = re.compile(schema["pattern"]).search
            checks.append(lambda value: type(value) is not str or search(value) is not None)
        if "format" in keys:
            if schema["format"] != "date":
                raise UnsupportedSchema(f"format {schema['format']!r}")
            checks.append(_is_date)
        return checks

    def numbers(self, schema: Mapping[str, Any], keys: set[str]) -> list[Check]:
        if not keys & {"minimum", "maximum"}:
            return []
        low = schema.get("minimum", float("-inf"))
        high = schema.get("maximum", float("inf"))
        return [lambda value: not _is_number(value) or low <= value <= high]

    def arrays(self, schema: Mapping[str, Any], keys: set[str]) -> list[Check]:
        checks: list[Check] = []
        if "minItems" in keys or "maxItems" in keys:
            low = schema.get("minItems", 0)
            high = schema.get("maxItems", float("inf"))
            checks.append(lambda value: type(value) is not list or low <= len(value) <= high)
        if "items" in keys:
            item = self.compile(schema["items"])
            checks.append(
                lambda value: type(value) is not list or all(item(element) for element in value)
            )
        return checks

    def object(self, schema: Mapping[str, Any]) -> Check:
        properties = {key: self.compile(sub) for key, sub in schema.get("properties", {}).items()}
        patterns = schema.get("patternProperties", {})
        if any(pattern != "^x-" or sub != {} for pattern, sub in patterns.items()):
            raise UnsupportedSchema("patternProperties other than {'^x-': {}}")
        extensions = bool(patterns)
        additional = schema.get("additionalProperties", True)
        if additional not in (True, False):
            raise UnsupportedSchema("additionalProperties other than true or false")
        required = tuple(schema.get("required", ()))

        def check(value: Any) -> bool:
            if type(value) is not dict:
                return True
            for key in required:
                if key not in value:
                    return False
            for key, item in value.items():
                rule = properties.get(key)
                if rule is not None:
                    if not rule(item):
                        return False
                elif not (extensions and key.startswith("x-")) and additional is False:
                    return False
            return True

        return check


def compile_schema(schema: Mapping[str, Any]) -> Check:
    """A function telling whether a parsed JSON value is valid under ``schema``.

    Raises :class:`UnsupportedSchema` when the schema uses a keyword, or a form of one,
    that this compiler does not implement (so a schema change cannot be ignored)."""
    return _Compiler(schema).compile(schema)
