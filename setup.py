"""The compiled build of the rules engine; everything else is in pyproject.toml.

The rules engine (``phantom_log/rules/cards.py``, ``events.py``, ``engine.py`` and
``replay.py``), the strict JSON reader (``records/strictjson.py``), the game text's reader
(``records/game_text.py`` and ``text_records.py``), the tables' rows of a record
(``tabular/rows.py``) and the solver (``analysis/solver.py``) are plain Python. So is the
record schema's gate (``records/record_gate.py``), which the build first generates from the
schema file (``records/gate_generator.py``; a keyword the generator does not implement
stops the build). The build also first writes the events' C types (``rules/events.pxd``)
from their dataclasses (``rules/events_pxd.py``).
Where Cython and a C compiler are available, each is also compiled (with the C types of the
``.pxd`` beside it, Cython's "pure Python mode") into an extension module that Python
imports in its place. Where either is missing, or the build fails, phantom-log installs
without it and runs the very same source as Python, only more slowly. ``phantom-log
--version`` says which build is in use.
"""

from __future__ import annotations

import os
import sys
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any

from setuptools import setup

HERE = Path(__file__).resolve().parent

COMPILED = [
    "phantom_log/rules/cards.py",
    "phantom_log/rules/events.py",
    "phantom_log/rules/engine.py",
    "phantom_log/rules/replay.py",
    "phantom_log/records/strictjson.py",
    "phantom_log/records/game_text.py",
    "phantom_log/records/text_records.py",
    "phantom_log/records/record_gate.py",
    "phantom_log/tabular/rows.py",
    "phantom_log/analysis/solver.py",
]


def generator(path: Path) -> Any:
    """A generator of the package loaded by its path: the package's dependencies may not
    be installed yet."""
    spec = spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    sys.modules[spec.name] = module  # where its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def generate() -> None:
    """Writes ``phantom_log/records/record_gate.py`` (and its ``.pxd``) from the record
    schema, and ``phantom_log/rules/events.pxd`` from the events' dataclasses."""
    records = HERE / "phantom_log" / "records"
    schema = HERE / "phantom_log" / "schemas" / "game-record-1.schema.json"
    generator(records / "gate_generator.py").write_module(schema, records)
    rules = HERE / "phantom_log" / "rules"
    generator(rules / "events_pxd.py").write_pxd(rules)


def extensions() -> list[object]:
    if os.environ.get("PHANTOM_LOG_NO_COMPILE") == "1":
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    modules = cythonize(
        COMPILED,
        compiler_directives={"language_level": "3", "binding": True, "annotation_typing": False},
        quiet=True,
    )
    for module in modules:
        # cythonize() drops Extension(optional=True); without it a failed C build would
        # fail the install instead of falling back to the Python source.
        module.optional = True
        module.extra_compile_args = ["-O2"]
    return list(modules)


generate()
setup(ext_modules=extensions())
