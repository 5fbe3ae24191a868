"""The record schema's gate, generated from the schema file: the source of a module whose
one function walks a parsed record once, checking it against the schema and counting its
keys.

:func:`generate` reads a schema (``schemas/game-record-1.schema.json``) and writes a
Python module (and the ``.pxd`` of C types Cython compiles it with) that implements the
keywords that schema uses and no other: a keyword, a type or a pattern it does not
implement is a :class:`NotImplementedInGate` error, which stops the build (``setup.py``
generates the module) rather than let a gate pass what the schema refuses. The module's
``gate(value)`` gives the number of keys of the objects of a parsed record (all levels
together) when the record passes the schema, and -1 when it does not: one walk does the
schema's yes or no and the strict parse's key count (:mod:`.strictjson`).

The module holds two walks of the same checks, one for each build: the compiled build's
reads strings character by character (patterns as loops, string enums as decision trees)
and knows a key by the identity of orjson's string for it; the pure-Python build's uses
regular expressions and sets, which do that work in C there.

The gate is for values as orjson parses them (dicts with string keys, lists, strings,
64-bit integers, floats, booleans, ``None``), and exact on them: it passes what
``jsonschema`` passes. A value of another type (a tuple, a subclass of ``str``) is refused.

This module imports nothing of the package: ``setup.py`` loads it by its path, before the
package's dependencies are installed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Final

#: The name of the generated module, in ``phantom_log/records/``.
MODULE: Final = "record_gate"
_DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"
# Keywords that say nothing about validity.
_ANNOTATIONS: Final = frozenset({"title", "description", "$comment", "examples", "default"})
_STRING_KEYWORDS: Final = frozenset({"minLength", "maxLength", "pattern", "format"})
_NUMBER_KEYWORDS: Final = frozenset({"minimum", "maximum"})
_OBJECT_KEYWORDS: Final = frozenset(
    {"properties", "patternProperties", "additionalProperties", "required"}
)
_ARRAY_KEYWORDS: Final = frozenset({"items", "minItems", "maxItems"})
_APPLICATORS: Final = frozenset({"$ref", "if", "then", "else"})
_VALUE_KEYWORDS: Final = frozenset({"type", "enum", "const"})
_KEYWORDS: Final = (
    _ANNOTATIONS
    | _STRING_KEYWORDS
    | _NUMBER_KEYWORDS
    | _OBJECT_KEYWORDS
    | _ARRAY_KEYWORDS
    | _APPLICATORS
    | _VALUE_KEYWORDS
)
# Keywords of the schema's root only.
_ROOT_KEYWORDS: Final = frozenset({"$schema", "$id", "$defs"})
_FORMATS: Final = frozenset({"date"})
_DEFS_PREFIX: Final = "#/$defs/"

# A test of the value in {v} for each type of JSON Schema, on the values orjson makes.
_TYPE_TESTS: Final = {
    "object": "type({v}) is dict",
    "array": "type({v}) is list",
    "string": "type({v}) is str",
    # jsonschema's integer: an int (not a bool) or a float without a fraction (2.0).
    "integer": "(type({v}) is int or (type({v}) is float and {v}.is_integer()))",
    "number": "(type({v}) is int or type({v}) is float)",
    "boolean": "type({v}) is bool",
    "null": "{v} is None",
}
_SCALAR_TYPES: Final = frozenset({"string", "integer", "number", "boolean", "null"})


class NotImplementedInGate(Exception):
    """A schema uses a keyword (or a value of a keyword) that the gate's generator does not
    implement: no gate is made from it."""


def source_digest(schema_text: str) -> str:
    """The digest of what a generated gate is made from: the schema's text and this
    generator's own source. A built module of another digest is out of date."""
    digest = hashlib.sha256()
    digest.update(schema_text.encode("utf-8"))
    digest.update(b"\0")
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class GeneratedGate:
    """A gate's module: its Python source and the ``.pxd`` Cython compiles it with."""

    python: str
    pxd: str


def generate(schema_text: str) -> GeneratedGate:
    """The gate of a schema (its JSON text); raises :class:`NotImplementedInGate` for a
    schema that uses what the generator does not implement."""
    try:
        schema = json.loads(schema_text)
    except ValueError as error:
        raise NotImplementedInGate(f"the schema is not JSON: {error}") from None
    return _Generator(schema, source_digest(schema_text)).module()


def load(schema_text: str, compiled_paths: bool = False) -> ModuleType:
    """The gate of a schema, generated and run in memory, as a module. ``compiled_paths``
    makes it take the walk written for the compiled build (strings read character by
    character, keys known by their identity), so that tests run both walks."""
    generated = generate(schema_text)
    module = ModuleType(f"phantom_log.records.{MODULE}")
    # The module's code reads __file__ to know it is not compiled.
    module.__file__ = f"<{MODULE} generated in memory>.py"
    exec(compile(generated.python, module.__file__, "exec"), module.__dict__)
    if compiled_paths:
        module.__dict__["COMPILED"] = True
    return module


def write_module(schema_path: Path, folder: Path) -> bool:
    """Writes the gate of the schema file into ``folder`` (``record_gate.py`` and its
    ``.pxd``); a file whose text is already that is left as it is, so that Cython does not
    compile it again. True when a file was written."""
    generated = generate(schema_path.read_text(encoding="utf-8"))
    written = False
    for suffix, text in ((".py", generated.python), (".pxd", generated.pxd)):
        path = folder / f"{MODULE}{suffix}"
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.write_text(text, encoding="utf-8")
        written = True
    return written


# -- patterns -------------------------------------------------------------------------


@dataclass(frozen=True)
class _CharClass:
    """A set of characters, as ranges of code points (a negated class is its complement)."""

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False

    def refuses(self, code: str) -> str:
        """A Python test that the code point in ``code`` is not in the class."""
        either = self.either(code)
        return either if self.negated else f"not {either}"

    def holds(self, code: str) -> str:
        """A Python test that the code point in ``code`` is in the class."""
        either = self.either(code)
        return f"not {either}" if self.negated else either

    def either(self, code: str) -> str:
        parts = [
            f"{code} == {low}" if low == high else f"{low} <= {code} <= {high}"
            for low, high in self.ranges
        ]
        return f"({' or '.join(parts)})"

    def regex(self) -> str:
        """The class in Python's regular expressions."""
        inside = "".join(
            _regex_char(low) if low == high else f"{_regex_char(low)}-{_regex_char(high)}"
            for low, high in self.ranges
        )
        return f"[{'^' if self.negated else ''}{inside}]"


def _regex_char(code: int) -> str:
    """A character in a class of Python's regular expressions: a letter or a digit as it
    is, any other as an escape."""
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


@dataclass(frozen=True)
class _Repeat:
    """A class repeated ``least`` to ``most`` times (``None``: no limit)."""

    chars: _CharClass
    least: int
    most: int | None


@dataclass(frozen=True)
class _Pattern:
    """A pattern the generator implements: anchored at the start; a run of items of fixed
    length, each a class repeated a fixed count, with literal lookaheads between them;
    then at most one item of varying length; anchored at the end, or a prefix."""

    fixed: tuple[_Repeat, ...]
    lookaheads: tuple[tuple[int, str], ...]  # (offset, text the string must not hold there)
    tail: _Repeat | None
    anchored_end: bool

    @property
    def fixed_length(self) -> int:
        return sum(item.least for item in self.fixed)

    def regex(self) -> str:
        """The pattern in Python's regular expressions, for ``re.match``."""
        parts = []
        offset = 0
        lookaheads = dict(self.lookaheads)
        for item in self.fixed:
            if offset in lookaheads:
                parts.append(f"(?!{re.escape(lookaheads[offset])})")
            parts.append(f"{item.chars.regex()}{{{item.least}}}")
            offset += item.least
        if offset in lookaheads:
            parts.append(f"(?!{re.escape(lookaheads[offset])})")
        if self.tail is not None and self.anchored_end:
            most = "" if self.tail.most is None else str(self.tail.most)
            parts.append(f"{self.tail.chars.regex()}{{{self.tail.least},{most}}}")
        elif self.tail is not None:
            parts.append(f"{self.tail.chars.regex()}{{{self.tail.least}}}")
        return "".join(parts) + (r"\Z" if self.anchored_end else "")


_END_OF_TEXT: Final = (r"(?![\s\S])", r"(?![\S\s])", "$")
_PLAIN: Final = re.compile(r"[^\\\[\]()*+?{}.|^$/]")


class _PatternReader:
    """Reads a pattern of the subset of ECMA-262 regular expressions that the gate
    implements; anything else is :class:`NotImplementedInGate`."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self.at = 0

    def refuse(self, why: str) -> NotImplementedInGate:
        return NotImplementedInGate(
            f"the pattern {self.pattern!r} is not one the gate implements: {why}"
        )

    def read(self) -> _Pattern:
        text = self.pattern
        if not text.startswith("^"):
            raise self.refuse("it is not anchored at the start with ^")
        self.at = 1
        items: list[_Repeat] = []
        lookaheads: list[tuple[int, str]] = []
        anchored_end = False
        offset = 0
        while self.at < len(text):
            end = next((mark for mark in _END_OF_TEXT if text.startswith(mark, self.at)), None)
            if end is not None:
                if self.at + len(end) != len(text):
                    raise self.refuse("the end of the text is matched before its end")
                anchored_end = True
                break
            if text.startswith("(?!", self.at):
                if items and items[-1].least != items[-1].most:
                    raise self.refuse("a lookahead after an item of varying length")
                lookaheads.append((offset, self.literal_lookahead()))
                continue
            if items and items[-1].least != items[-1].most:
                raise self.refuse("an item after an item of varying length")
            chars = self.atom()
            least, most = self.quantifier()
            items.append(_Repeat(chars, least, most))
            offset += least
        tail = None
        if items and items[-1].least != items[-1].most:
            tail = items.pop()
        return _Pattern(tuple(items), tuple(lookaheads), tail, anchored_end)

    def literal_lookahead(self) -> str:
        text = self.pattern
        self.at += 3
        literal = []
        while self.at < len(text) and text[self.at] != ")":
            char = text[self.at]
            if char == "\\":
                literal.append(chr(self.escape()))
                continue
            if not _PLAIN.fullmatch(char):
                raise self.refuse("a lookahead that is not a literal text")
            literal.append(char)
            self.at += 1
        if self.at >= len(text) or not literal:
            raise self.refuse("a lookahead that is not a literal text")
        self.at += 1
        return "".join(literal)

    def atom(self) -> _CharClass:
        text = self.pattern
        char = text[self.at]
        if char == "[":
            return self.char_class()
        if char == "\\":
            code = self.escape()
            return _CharClass(((code, code),))
        if not _PLAIN.fullmatch(char):
            raise self.refuse(f"{char!r} outside a character class")
        self.at += 1
        return _CharClass(((ord(char), ord(char)),))

    def char_class(self) -> _CharClass:
        text = self.pattern
        self.at += 1
        negated = text.startswith("^", self.at)
        if negated:
            self.at += 1
        ranges: list[tuple[int, int]] = []
        while self.at < len(text) and text[self.at] != "]":
            low = self.class_char()
            high = low
            if text.startswith("-", self.at) and not text.startswith("-]", self.at):
                self.at += 1
                high = self.class_char()
                if high < low:
                    raise self.refuse("a range out of order")
            ranges.append((low, high))
        if self.at >= len(text) or not ranges:
            raise self.refuse("a character class that is empty or not closed")
        self.at += 1
        return _CharClass(tuple(ranges), negated)

    def class_char(self) -> int:
        char = self.pattern[self.at]
        if char == "\\":
            return self.escape()
        if char == "[":
            raise self.refuse("'[' inside a character class")
        self.at += 1
        return ord(char)

    def escape(self) -> int:
        """The code point of an escape: ``\\uXXXX``, ``\\xXX``, or a punctuation mark."""
        text = self.pattern
        kind = text[self.at + 1 : self.at + 2]
        if kind in ("u", "x"):
            digits = 4 if kind == "u" else 2
            hexadecimal = text[self.at + 2 : self.at + 2 + digits]
            if len(hexadecimal) != digits or not all(
                digit in "0123456789abcdefABCDEF" for digit in hexadecimal
            ):
                raise self.refuse(f"the escape \\{kind}{hexadecimal}")
            code = int(hexadecimal, 16)
            if 0xD800 <= code <= 0xDFFF:
                raise self.refuse("an escape of a surrogate")
            self.at += 2 + digits
            return code
        if kind and not kind.isalnum() and kind.isascii() and kind.isprintable():
            self.at += 2
            return ord(kind)
        raise self.refuse(f"the escape \\{kind}")

    def quantifier(self) -> tuple[int, int | None]:
        text = self.pattern
        char = text[self.at : self.at + 1]
        if char in ("*", "+", "?"):
            self.at += 1
            if text.startswith(("?", "+"), self.at):
                raise self.refuse("a lazy or possessive quantifier")
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        if char == "{":
            match = re.compile(r"\{([0-9]+)(,([0-9]*))?\}").match(text, self.at)
            if match is None:
                raise self.refuse("a quantifier in braces that is not {n}, {n,} or {n,m}")
            self.at = match.end()
            least = int(match.group(1))
            if match.group(2) is None:
                return least, least
            most = int(match.group(3)) if match.group(3) else None
            if most is not None and most < least:
                raise self.refuse("a quantifier out of order")
            return least, most
        return 1, 1


def read_pattern(pattern: str) -> _Pattern:
    """A pattern of the subset the gate implements (see :class:`_Pattern`)."""
    return _PatternReader(pattern).read()


def _prefix(pattern: str) -> str:
    """The literal text a ``patternProperties`` pattern says a key begins with."""
    read = read_pattern(pattern)
    if read.anchored_end or read.lookaheads:
        raise NotImplementedInGate(
            f"the patternProperties pattern {pattern!r} is not a prefix (^ and a literal text)"
        )
    chars = [*read.fixed, *([] if read.tail is None else [read.tail])]
    prefix = []
    for item in chars:
        ranges = item.chars.ranges
        if item.chars.negated or len(ranges) != 1 or ranges[0][0] != ranges[0][1]:
            raise NotImplementedInGate(
                f"the patternProperties pattern {pattern!r} is not a prefix (^ and a literal text)"
            )
        prefix.append(chr(ranges[0][0]) * item.least)
    return "".join(prefix)


# -- the generator ----------------------------------------------------------------------

# The two walks of a gate: the compiled build's (each string read character by character, a
# string enum as a decision tree over its characters) and the pure-Python build's (regular
# expressions and sets, which do the same work in C there).
_COMPILED_WALK: Final = "c"
_PYTHON_WALK: Final = "p"


@dataclass
class _Function:
    """A generated function of the gate: its lines and the C types of its locals."""

    name: str
    lines: list[str] = field(default_factory=list)
    c_locals: dict[str, str] = field(default_factory=dict)
    loops: int = 0

    def local(self, name: str, c_type: str) -> str:
        self.c_locals[name] = c_type
        return name


class _Generator:
    """Writes the gate of one schema: for each walk, one function that checks a whole
    record in line (a function more for each ``if`` of the schema), with helpers for the
    patterns, the enums and the date format."""

    def __init__(self, schema: Any, digest: str):
        if not isinstance(schema, dict):
            raise NotImplementedInGate("the schema is not an object")
        declared = schema.get("$schema", _DRAFT)
        if declared != _DRAFT:
            raise NotImplementedInGate(
                f"the schema declares {declared!r}: the gate implements {_DRAFT} only"
            )
        definitions = schema.get("$defs", {})
        if not isinstance(definitions, dict):
            raise NotImplementedInGate("$defs is not an object")
        for name, definition in definitions.items():
            if not isinstance(definition, dict | bool):
                raise NotImplementedInGate(f"the definition {name!r} is not a schema")
        self.root: dict[str, Any] = schema
        self.definitions: dict[str, Any] = definitions
        self.digest = digest
        self.walk = _COMPILED_WALK
        self.functions: list[_Function] = []
        self.named: dict[tuple[str, int], str] = {}
        self.constants: dict[str, str] = {}  # expression -> name
        self.helpers: dict[tuple[str, str], str] = {}  # (kind, what) -> function
        self.pxd: list[str] = []
        self.inlining: list[int] = []

    def module(self) -> GeneratedGate:
        walks = {}
        for walk in (_COMPILED_WALK, _PYTHON_WALK):
            self.walk = walk
            walks[walk] = self.function_of(self.root, "record")
        python = [
            # The walks index strings from their start only: compiled, no index is tested
            # for a count from the end (4,000 instructions a record less).
            "# cython: wraparound=False",
            '"""The gate of the record schema, generated from the schema file by',
            f"{_GENERATOR} when the package is built (or in memory, where it",
            'was not): do not edit."""',
            "",
            "import re",
            "from datetime import date",
            "from typing import Any",
            "",
            f"SOURCE_DIGEST = {self.digest!r}",
            "# True in the compiled build, which takes the walk written for C.",
            'COMPILED = not __file__.endswith(".py")',
            *(f"{name} = {expression}" for expression, name in self.constants.items()),
            "",
            "",
            "def gate(value: Any) -> int:",
            '    """The number of keys of the objects of a parsed record, all levels together,',
            '    when the record passes the schema; -1 when it does not."""',
            "    if COMPILED:",
            f"        return {walks[_COMPILED_WALK]}(value)",
            f"    return {walks[_PYTHON_WALK]}(value)",
            "",
            "",
            *_KEYS_OF,
        ]
        for function in self.functions:
            python.extend(["", "", *function.lines])
        pxd = [
            f"# C types for {MODULE}.py, generated with it by {_GENERATOR}.",
            "",
            "cimport cython",
            "",
            "cdef bint COMPILED",
            "",
            "cpdef Py_ssize_t gate(object value) except -2",
            "",
            "@cython.locals(count=Py_ssize_t, stack=list)",
            "cdef Py_ssize_t _keys_of(object value) except -1",
            *self.pxd,
        ]
        return GeneratedGate("\n".join(python) + "\n", "\n".join(pxd) + "\n")

    # The schema's nodes ---------------------------------------------------------------

    def resolved(self, node: Any) -> Any:
        """A node, or the definition it is a bare ``$ref`` to (annotations aside)."""
        seen: list[str] = []
        while isinstance(node, dict) and set(node) - _ANNOTATIONS == {"$ref"}:
            name = self.definition_name(node["$ref"])
            if name in seen:
                raise NotImplementedInGate(f"the $ref {node['$ref']!r} refers to itself")
            seen.append(name)
            node = self.definitions[name]
        return node

    def definition_name(self, reference: Any) -> str:
        if not isinstance(reference, str) or not reference.startswith(_DEFS_PREFIX):
            raise NotImplementedInGate(
                f"the $ref {reference!r} is not one of the schema's own $defs"
            )
        name = reference.removeprefix(_DEFS_PREFIX)
        if name not in self.definitions:
            raise NotImplementedInGate(f"the $ref {reference!r} names no definition")
        return name

    def checked(self, node: Any) -> Any:
        """The node, resolved, once its keywords are known to be ones the gate implements."""
        node = self.resolved(node)
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise NotImplementedInGate(f"{node!r} is not a schema")
        allowed = _KEYWORDS | (_ROOT_KEYWORDS if node is self.root else frozenset())
        unknown = sorted(set(node) - allowed)
        if unknown:
            raise NotImplementedInGate(
                f"the keyword {unknown[0]!r} is not one the gate implements "
                f"(it implements {', '.join(sorted(_KEYWORDS - _ANNOTATIONS))})"
            )
        kind = node.get("type")
        if kind is not None and (not isinstance(kind, str) or kind not in _TYPE_TESTS):
            raise NotImplementedInGate(
                f"the type {kind!r} is not one the gate implements (one type, a string)"
            )
        for keywords, wanted in (
            (_STRING_KEYWORDS, ("string",)),
            (_NUMBER_KEYWORDS, ("integer", "number")),
            (_OBJECT_KEYWORDS, ("object",)),
            (_ARRAY_KEYWORDS, ("array",)),
        ):
            used = sorted(set(node) & keywords)
            if used and kind not in wanted:
                raise NotImplementedInGate(
                    f'{used[0]!r} without "type": {wanted[0]!r} is not implemented'
                )
        if ("then" in node or "else" in node) and "if" not in node:
            raise NotImplementedInGate('"then" or "else" without "if" is not implemented')
        return node

    def constant(self, prefix: str, expression: str) -> str:
        name = self.constants.get(expression)
        if name is None:
            name = f"_{prefix}_{len(self.constants)}"
            self.constants[expression] = name
        return name

    # Functions ------------------------------------------------------------------------

    def function_of(self, node: Any, hint: str) -> str:
        """The function of this walk that checks a node and counts its keys (made once)."""
        node = self.checked(node)
        key = (self.walk, id(node))
        if key in self.named:
            return self.named[key]
        number = sum(walk == self.walk for walk, _ in self.named)
        name = f"_{hint}_{number}_{self.walk}"
        self.named[key] = name
        function = _Function(name)
        self.functions.append(function)
        body: list[str] = []
        self.check(function, node, "value", body, "    ", counted=True)
        function.local("count", "Py_ssize_t")
        function.lines = [
            f"def {name}(value: Any) -> int:",
            "    count = 0",
            *body,
            "    return count",
        ]
        types = ", ".join(f"{local}={c_type}" for local, c_type in function.c_locals.items())
        self.pxd.extend(
            ["", f"@cython.locals({types})", f"cdef Py_ssize_t {name}(object value) except -2"]
        )
        return name

    def check(
        self,
        function: _Function,
        node: Any,
        value: str,
        out: list[str],
        indent: str,
        counted: bool,
    ) -> None:
        """Lines that return -1 where the value in the variable ``value`` fails ``node``;
        when ``counted``, they add the keys of the value's objects to ``count``."""
        node = self.checked(node)
        if id(node) in self.inlining:
            raise NotImplementedInGate("the schema is recursive: a definition holds itself")
        self.inlining.append(id(node))
        try:
            self.check_here(function, node, value, out, indent, counted)
        finally:
            self.inlining.pop()

    def check_here(
        self,
        function: _Function,
        node: Any,
        value: str,
        out: list[str],
        indent: str,
        counted: bool,
    ) -> None:
        if node is False:
            out.append(f"{indent}return -1")
            return
        if node is True:
            if counted:
                out.append(f"{indent}count += _keys_of({value})")
            return
        kind = node.get("type")
        tests: list[str] = []
        if kind is not None:
            tests.append(_TYPE_TESTS[kind].format(v=value))
        if "const" in node:
            tests.append(self.const_test(node["const"], value))
        if "enum" in node:
            tests.append(self.enum_test(node["enum"], value))
        if tests:
            out.append(f"{indent}if not ({' and '.join(tests)}):")
            out.append(f"{indent}    return -1")
        if kind == "string":
            self.string_checks(node, value, out, indent)
        elif kind in ("integer", "number"):
            self.number_checks(node, value, out, indent)
        elif kind == "object" and set(node) & _OBJECT_KEYWORDS:
            self.object_checks(function, node, value, out, indent, counted)
            counted = False
        elif kind == "array" and set(node) & _ARRAY_KEYWORDS:
            self.array_checks(function, node, value, out, indent, counted)
            counted = False
        if "$ref" in node:
            self.check(function, {"$ref": node["$ref"]}, value, out, indent, counted)
            counted = False
        if "if" in node:
            self.conditional(function, node, value, out, indent, counted)
            counted = False
        scalar = kind in _SCALAR_TYPES or "enum" in node or "const" in node
        if counted and not scalar:
            out.append(f"{indent}count += _keys_of({value})")

    def const_test(self, const: Any, value: str) -> str:
        if const is None:
            return f"{value} is None"
        if not isinstance(const, str):
            raise NotImplementedInGate(f"a const that is not a string or null: {const!r}")
        return f"(type({value}) is str and {value} == {const!r})"

    def enum_test(self, options: Any, value: str) -> str:
        strings = _enum_strings(options)
        if self.walk == _COMPILED_WALK:
            test = f"(type({value}) is str and {self.enum_function(strings)}({value}))"
        else:
            test = f"(type({value}) is str and {value} in {self.enum_set(strings)})"
        return f"({value} is None or {test})" if None in options else test

    def enum_set(self, strings: list[str]) -> str:
        return self.constant("ENUM", f"frozenset({strings!r})")

    def string_checks(self, node: dict[str, Any], value: str, out: list[str], indent: str) -> None:
        for keyword, comparison in (("minLength", "<"), ("maxLength", ">")):
            if keyword in node:
                limit = _count_of(node, keyword)
                if keyword == "maxLength" or limit > 0:
                    out.append(f"{indent}if len({value}) {comparison} {limit}:")
                    out.append(f"{indent}    return -1")
        if "pattern" in node:
            pattern = node["pattern"]
            if not isinstance(pattern, str):
                raise NotImplementedInGate(f"a pattern that is not a string: {pattern!r}")
            read = read_pattern(pattern)
            if self.walk == _COMPILED_WALK:
                out.append(f"{indent}if not {self.pattern_function(pattern, read)}({value}):")
            else:
                regex = self.constant("PATTERN", f"re.compile({read.regex()!r})")
                out.append(f"{indent}if {regex}.match({value}) is None:")
            out.append(f"{indent}    return -1")
        if "format" in node:
            if not isinstance(node["format"], str) or node["format"] not in _FORMATS:
                raise NotImplementedInGate(
                    f"the format {node['format']!r} is not one the gate implements "
                    f"({', '.join(sorted(_FORMATS))})"
                )
            out.append(f"{indent}if not {self.date_function()}({value}):")
            out.append(f"{indent}    return -1")

    def number_checks(self, node: dict[str, Any], value: str, out: list[str], indent: str) -> None:
        for keyword, comparison in (("minimum", "<"), ("maximum", ">")):
            if keyword in node:
                limit = node[keyword]
                if isinstance(limit, bool) or not isinstance(limit, int):
                    raise NotImplementedInGate(f"{keyword} that is not an integer: {limit!r}")
                out.append(f"{indent}if {value} {comparison} {limit}:")
                out.append(f"{indent}    return -1")

    def object_checks(
        self,
        function: _Function,
        node: dict[str, Any],
        value: str,
        out: list[str],
        indent: str,
        counted: bool,
    ) -> None:
        properties = node.get("properties", {})
        patterns = node.get("patternProperties", {})
        additional = node.get("additionalProperties", True)
        required = node.get("required", [])
        if not isinstance(properties, dict) or not isinstance(patterns, dict):
            raise NotImplementedInGate("properties or patternProperties that is not an object")
        if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
            raise NotImplementedInGate("required that is not an array of strings")
        if len(set(required)) != len(required):
            raise NotImplementedInGate("required with a key twice")
        prefixes = [(_prefix(pattern), schema) for pattern, schema in patterns.items()]
        for position, (first, _) in enumerate(prefixes):
            for second, _ in prefixes[position + 1 :]:
                if first.startswith(second) or second.startswith(first):
                    raise NotImplementedInGate(
                        f"patternProperties whose prefixes overlap ({first!r}, {second!r})"
                    )
        loop = function.loops
        function.loops += 1
        mapping = function.local(f"mapping{loop}", "dict")
        key = function.local(f"key{loop}", "str")
        item = function.local(f"item{loop}", "object")
        out.append(f"{indent}{mapping} = {value}")
        for name in required:
            if name not in properties:
                out.append(f"{indent}if {name!r} not in {mapping}:")
                out.append(f"{indent}    return -1")
        if counted:
            out.append(f"{indent}count += len({mapping})")
        # Each key is in an object once: counting the required properties met is enough.
        wanted = [name for name in required if name in properties]
        present = function.local(f"present{loop}", "Py_ssize_t") if wanted else ""
        if wanted:
            out.append(f"{indent}{present} = 0")
        inner = indent + "    "
        branches: list[tuple[str, list[str]]] = []
        for name, schema in properties.items():
            lines: list[str] = []
            self.check(function, schema, item, lines, inner + "    ", counted)
            # A property whose name a pattern matches is held to that pattern's schema too.
            for prefix, pattern_schema in prefixes:
                if name.startswith(prefix):
                    self.check(function, pattern_schema, item, lines, inner + "    ", False)
            if name in wanted:
                lines.append(f"{inner}    {present} += 1")
            branches.append((f"{key} == {name!r}", lines))
        for prefix, schema in prefixes:
            lines = []
            self.check(function, schema, item, lines, inner + "    ", counted)
            branches.append((f"{key}.startswith({prefix!r})", lines))
        others: list[str] = []
        self.check(function, additional, item, others, inner + "    ", counted)
        body: list[str] = []
        if self.walk == _COMPILED_WALK and properties:
            # orjson makes each key once and gives the same string object for it, record
            # after record: a key is known by its identity, which a comparison of its
            # characters finds the first time only.
            which = function.local(f"which{loop}", "Py_ssize_t")
            for position, name in enumerate(properties):
                body.append(
                    f"{inner}{'elif' if position else 'if'} {key} is {self.key_slot(name)}:"
                )
                body.append(f"{inner}    {which} = {position}")
            body.append(f"{inner}else:")
            body.append(
                f"{inner}    {which} = {self.which_function(list(properties), prefixes)}({key})"
            )
            branches = [
                (f"{which} == {position}", lines) for position, (_, lines) in enumerate(branches)
            ]
        for position, (test, lines) in enumerate(branches):
            body.append(f"{inner}{'elif' if position else 'if'} {test}:")
            body.extend(lines or [f"{inner}    pass"])
        if others:
            if branches:
                body.append(f"{inner}else:")
                body.extend(others)
            else:
                body.extend(line[4:] for line in others)
        if others or any(lines for _, lines in branches):
            out.append(f"{indent}for {key}, {item} in {mapping}.items():")
            out.extend(body)
        if wanted:
            out.append(f"{indent}if {present} != {len(wanted)}:")
            out.append(f"{indent}    return -1")

    def array_checks(
        self,
        function: _Function,
        node: dict[str, Any],
        value: str,
        out: list[str],
        indent: str,
        counted: bool,
    ) -> None:
        loop = function.loops
        function.loops += 1
        sequence = function.local(f"sequence{loop}", "list")
        item = function.local(f"item{loop}", "object")
        out.append(f"{indent}{sequence} = {value}")
        for keyword, comparison in (("minItems", "<"), ("maxItems", ">")):
            if keyword in node:
                out.append(f"{indent}if len({sequence}) {comparison} {_count_of(node, keyword)}:")
                out.append(f"{indent}    return -1")
        items = self.checked(node.get("items", True))
        strings = _only_a_string_enum(items)
        if strings is not None and self.walk == _PYTHON_WALK:
            # Items that can only be strings of an enum: the set checks them all in C. An
            # item that cannot be hashed (an array, an object) is no string either.
            out.append(f"{indent}try:")
            out.append(f"{indent}    if not {self.enum_set(strings)}.issuperset({sequence}):")
            out.append(f"{indent}        return -1")
            out.append(f"{indent}except TypeError:")
            out.append(f"{indent}    return -1")
            return
        lines: list[str] = []
        self.check(function, items, item, lines, indent + "    ", counted)
        if lines:
            out.append(f"{indent}for {item} in {sequence}:")
            out.extend(lines)

    def conditional(
        self,
        function: _Function,
        node: dict[str, Any],
        value: str,
        out: list[str],
        indent: str,
        counted: bool,
    ) -> None:
        condition = self.function_of(node["if"], "if")
        for keyword, opening in (("then", f"if {condition}({value}) >= 0:"), ("else", "else:")):
            lines: list[str] = []
            self.check(function, node.get(keyword, True), value, lines, indent + "    ", counted)
            out.append(f"{indent}{opening}")
            out.extend(lines or [f"{indent}    pass"])

    # The compiled walk's helpers -------------------------------------------------------

    def helper(self, kind: str, what: str, lines: list[str], pxd: list[str]) -> str:
        name = f"_{kind}_{sum(known == kind for known, _ in self.helpers)}"
        self.helpers[(kind, what)] = name
        self.functions.append(_Function(name, [line.replace("{name}", name) for line in lines]))
        self.pxd.extend(["", *(line.replace("{name}", name) for line in pxd)])
        return name

    def pattern_function(self, pattern: str, read: _Pattern) -> str:
        """A function matching a string against a pattern, one character at a time."""
        known = self.helpers.get(("pattern", pattern))
        if known is not None:
            return known
        lines = [
            f"# The schema's pattern {pattern!a}.",
            "def {name}(text: str) -> bool:",
        ]
        fixed = read.fixed_length
        if read.fixed or read.lookaheads or read.tail is None or not read.anchored_end:
            lines.append("    length = len(text)")
            if read.tail is None and read.anchored_end:
                lines += [f"    if length != {fixed}:", "        return False"]
            else:
                least = fixed + (0 if read.tail is None else read.tail.least)
                if least:
                    lines += [f"    if length < {least}:", "        return False"]
                if read.tail is not None and read.tail.most is not None and read.anchored_end:
                    lines += [f"    if length > {fixed + read.tail.most}:", "        return False"]
        elif read.tail.least or read.tail.most is not None:
            lines.append("    length = len(text)")
            if read.tail.least:
                lines += [f"    if length < {read.tail.least}:", "        return False"]
            if read.tail.most is not None:
                lines += [f"    if length > {read.tail.most}:", "        return False"]
        for offset, literal in read.lookaheads:
            lines += [f"    if text.startswith({literal!r}, {offset}):", "        return False"]
        offset = 0
        for item in read.fixed:
            for _ in range(item.least):
                lines += [
                    f"    code = ord(text[{offset}])",
                    f"    if {item.chars.refuses('code')}:",
                    "        return False",
                ]
                offset += 1
        if read.tail is not None:
            if fixed == 0 and read.anchored_end:
                lines += ["    for char in text:", "        code = ord(char)"]
            else:
                end = "length" if read.anchored_end else str(fixed + read.tail.least)
                lines += [
                    f"    for index in range({fixed}, {end}):",
                    "        code = ord(text[index])",
                ]
            lines += [f"        if {read.tail.chars.refuses('code')}:", "            return False"]
        lines.append("    return True")
        return self.helper(
            "pattern",
            pattern,
            lines,
            [
                "@cython.locals(length=Py_ssize_t, index=Py_ssize_t, char=Py_UCS4, code=Py_UCS4)",
                "cdef bint {name}(str text) except -1",
            ],
        )

    def key_slot(self, name: str) -> str:
        """The global that holds the string object last seen as the key ``name``."""
        slot = self.helpers.get(("key", name))
        if slot is None:
            slot = self.constant("KEY", repr(name))
            self.helpers[("key", name)] = slot
            self.pxd.extend(["", f"cdef object {slot}"])
        return slot

    def which_function(self, names: list[str], prefixes: list[tuple[str, Any]]) -> str:
        """A function giving the position of a key among an object's properties (keeping
        the key's string in that property's slot), or among its patterns after them; -1
        for another key."""
        what = repr((names, [prefix for prefix, _ in prefixes]))
        known = self.helpers.get(("which", what))
        if known is not None:
            return known
        slots = [self.key_slot(name) for name in names]
        lines = ["def {name}(key: str) -> int:", f"    global {', '.join(slots)}"]
        for position, (name, slot) in enumerate(zip(names, slots, strict=True)):
            lines += [
                f"    if key == {name!r}:",
                f"        {slot} = key",
                f"        return {position}",
            ]
        for position, (prefix, _) in enumerate(prefixes, len(names)):
            lines += [f"    if key.startswith({prefix!r}):", f"        return {position}"]
        lines.append("    return -1")
        return self.helper("which", what, lines, ["cdef Py_ssize_t {name}(str key) except -2"])

    def enum_function(self, strings: list[str]) -> str:
        """A function telling whether a string is one of an enum's: a decision tree over
        its length and characters (no hash of the string is computed)."""
        what = repr(strings)
        known = self.helpers.get(("enum", what))
        if known is not None:
            return known
        lines = [
            f"# One of {strings!a}.",
            "def {name}(text: str) -> bool:",
            "    length = len(text)",
        ]
        for length in sorted({len(text) for text in strings}):
            lines.append(f"    if length == {length}:")
            lines.extend(_tree([text for text in strings if len(text) == length], 0, "        "))
        lines.append("    return False")
        return self.helper(
            "enum",
            what,
            lines,
            [
                "@cython.locals(length=Py_ssize_t, code=Py_UCS4)",
                "cdef bint {name}(str text) except -1",
            ],
        )

    def date_function(self) -> str:
        """The function of this walk telling whether a string is a date."""
        known = self.helpers.get(("date", self.walk))
        if known is not None:
            return known
        if self.walk == _PYTHON_WALK:
            shape = self.constant("PATTERN", r're.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}\\Z")')
            lines = [line.replace("SHAPE", shape) for line in _IS_DATE_PYTHON]
        else:
            lines = list(_IS_DATE_COMPILED)
        return self.helper(
            "date",
            self.walk,
            lines,
            [
                "@cython.locals(year=int, month=int, day=int, index=Py_ssize_t, code=Py_UCS4)",
                "cdef bint {name}(str text) except -1",
            ],
        )


def _enum_strings(options: Any) -> list[str]:
    """The strings of an enum of strings (and ``null``), sorted."""
    if not isinstance(options, list) or not options:
        raise NotImplementedInGate("an enum that is not a non-empty array")
    if any(not isinstance(option, str) and option is not None for option in options):
        raise NotImplementedInGate(
            f"an enum with a value that is not a string or null: {options!r}"
        )
    return sorted({option for option in options if isinstance(option, str)})


def _only_a_string_enum(node: Any) -> list[str] | None:
    """The strings of a node that passes the strings of an enum and nothing else."""
    if not isinstance(node, dict) or set(node) - _ANNOTATIONS - {"type"} != {"enum"}:
        return None
    if node.get("type", "string") != "string" or None in node["enum"]:
        return None
    return _enum_strings(node["enum"])


def _tree(strings: list[str], position: int, indent: str) -> list[str]:
    """The decision tree telling whether a string (of the length of these) is one of
    them, from the character at ``position`` on."""
    if position == len(strings[0]):
        return [f"{indent}return True"]
    if len(strings) == 1 and position:
        return [f"{indent}return text == {strings[0]!r}"]
    if position == len(strings[0]) - 1:
        codes = sorted({ord(text[position]) for text in strings})
        ranges: list[tuple[int, int]] = []
        for code in codes:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
        return [
            f"{indent}code = ord(text[{position}])",
            f"{indent}return {_CharClass(tuple(ranges)).holds('code')}",
        ]
    lines = [f"{indent}code = ord(text[{position}])"]
    for char in sorted({text[position] for text in strings}):
        lines.append(f"{indent}if code == {ord(char)}:")
        lines.extend(
            _tree(
                [text for text in strings if text[position] == char], position + 1, indent + "    "
            )
        )
    lines.append(f"{indent}return False")
    return lines


def _count_of(node: dict[str, Any], keyword: str) -> int:
    limit = node[keyword]
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise NotImplementedInGate(f"{keyword} that is not a count: {limit!r}")
    return limit


_GENERATOR: Final = "phantom_log/records/gate_generator.py"

# The keys of any value (an x- value): no recursion, whatever its depth.
_KEYS_OF: Final = (
    "def _keys_of(value: Any) -> int:",
    '    """The number of keys of the objects of a value, all levels together."""',
    "    if type(value) is not dict and type(value) is not list:",
    "        return 0",
    "    count = 0",
    "    stack: list[Any] = [value]",
    "    while stack:",
    "        item = stack.pop()",
    "        children = item",
    "        if type(item) is dict:",
    "            count += len(item)",
    "            children = item.values()",
    "        for child in children:",
    "            if type(child) is dict or type(child) is list:",
    "                stack.append(child)",
    "    return count",
)

# The date format as jsonschema checks it: four, two and two ASCII digits that
# date.fromisoformat reads as a day of the calendar (from the year 1); by hand where
# compiled, by the same two checks as jsonschema's in Python.
_IS_DATE_COMPILED: Final = (
    "def {name}(text: str) -> bool:",
    '    if len(text) != 10 or text[4] != "-" or text[7] != "-":',
    "        return False",
    "    for index in (0, 1, 2, 3, 5, 6, 8, 9):",
    "        code = ord(text[index])",
    "        if code < 48 or code > 57:",
    "            return False",
    "    year = int(text[0:4])",
    "    month = int(text[5:7])",
    "    day = int(text[8:10])",
    "    if year < 1 or month < 1 or month > 12 or day < 1:",
    "        return False",
    "    if month == 2:",
    "        return day <= (29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28)",
    "    return day <= (30 if month in (4, 6, 9, 11) else 31)",
)
_IS_DATE_PYTHON: Final = (
    "def {name}(text: str) -> bool:",
    "    if SHAPE.match(text) is None:",
    "        return False",
    "    try:",
    "        date.fromisoformat(text)",
    "    except ValueError:",
    "        return False",
    "    return True",
)
