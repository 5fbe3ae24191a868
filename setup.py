"""The compiled build of the rules engine; everything else is in pyproject.toml.

The rules engine (``phantom_log/rules/cards.py``, ``events.py``, ``engine.py`` and
``replay.py``), the strict JSON reader (``records/strictjson.py``), the game text's reader
(``records/game_text.py`` and ``text_records.py``) and the solver (``analysis/solver.py``)
are plain Python.
Where Cython and a C compiler are available, each is also compiled (with the C types of the
``.pxd`` beside it, Cython's "pure Python mode") into an extension module that Python
imports in its place. Where either is missing, or the build fails, phantom-log installs
without it and runs the very same source as Python, only more slowly. ``phantom-log
--version`` says which build is in use.
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "phantom_log/rules/cards.py",
    "phantom_log/rules/events.py",
    "phantom_log/rules/engine.py",
    "phantom_log/rules/replay.py",
    "phantom_log/records/strictjson.py",
    "phantom_log/records/game_text.py",
    "phantom_log/records/text_records.py",
    "phantom_log/analysis/solver.py",
]


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


setup(ext_modules=extensions())
