"""The C types of the events (``events.pxd``), generated from the events' dataclasses.

Each event of :mod:`.events` is a dataclass whose annotated fields are its facts. The
``.pxd`` Cython compiles that module with declares each of them as an extension type with
one read-only C field per fact, in the same order, typed by its annotation (``int`` a C
int, ``bool`` a C bint, ``tuple[...]`` a tuple, anything else an object); Cython then
writes each dataclass's constructor, equality, hash and repr in C, and the compiled engine
fills an event's fields in without a Python call. ``setup.py`` writes the file
(:func:`write_pxd`) before it compiles anything, so that a fact is declared once, in
``events.py``; the pure-Python build does not read it.

This module imports nothing of the package: ``setup.py`` loads it by its path, before the
package's dependencies are installed.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

#: The module whose dataclasses are declared, and the file written beside it.
SOURCE: Final = "events.py"
PXD: Final = "events.pxd"

_C_TYPES: Final = {"int": "int", "bool": "bint", "tuple": "tuple"}

# The C types of the module's names that are not an event's facts.
_HEADER: Final = """\
# The C types of events.py, generated from its dataclasses by events_pxd.py when the
# package is built (setup.py): do not edit, and do not commit.

from phantom_log.rules.cards cimport card_suit_index

cdef int _EXTRA
cdef int _REMOVED
cdef int _REMOVED_FLOORED

cpdef int verdict_reason_code(int verdict) noexcept
cpdef bint leader_wins(int verdict) noexcept
cpdef int trick_winner(int leader_code, int verdict) noexcept
cpdef bint trick_in_order(int leader_code, int verdict, int note_owner_code) noexcept
"""


def c_type(annotation: ast.expr) -> str:
    """The C type of a fact annotated so: the annotation's own type where Cython has a
    faster one, an object otherwise."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    name = annotation.id if isinstance(annotation, ast.Name) else ""
    return _C_TYPES.get(name, "object")


def facts(source: str) -> dict[str, list[tuple[str, str]]]:
    """Each dataclass of a module's source, by name: its facts, each as ``(name, C type)``,
    in their order."""
    declared = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and any(_is_dataclass(d) for d in node.decorator_list):
            declared[node.name] = [
                (statement.target.id, c_type(statement.annotation))
                for statement in node.body
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            ]
    return declared


def _is_dataclass(decorator: ast.expr) -> bool:
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    return isinstance(decorator, ast.Name) and decorator.id == "dataclass"


def generate(source: str) -> str:
    """The text of ``events.pxd`` for the source of ``events.py``."""
    blocks = [_HEADER]
    for name, declared in facts(source).items():
        lines = [f"cdef class {name}:"]
        lines += [f"    cdef readonly {kind} {fact}" for fact, kind in declared]
        blocks.append("\n".join(lines) + "\n")
    return "\n\n".join(blocks)


def write_pxd(folder: Path) -> bool:
    """Writes ``events.pxd`` beside ``events.py`` in ``folder``; a file whose text is
    already that is left as it is, so that Cython does not compile the module again.
    True when the file was written."""
    text = generate((folder / SOURCE).read_text(encoding="utf-8"))
    path = folder / PXD
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
