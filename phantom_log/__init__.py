"""phantom-log: verify, annotate and analyse records of The Phantom of the Opera card game.

The Python API:

- :func:`load` yields the records of paths as frozen models (:class:`GameRecord`),
  ``errors="raise"|"collect"|"skip"`` for the records that are not;
- :func:`replay` replays one record: ``.tricks`` (:class:`Annotation` per trick),
  ``.result``, ``.problems``;
- :func:`verify` yields a :class:`RecordReport` per record of the paths, as
  ``phantom-log verify`` reports them;
- :func:`position` gives a :class:`Position` (``position(record, round, trick)``):
  hands, notes, super trump, whose turn, ``legal_cards()``, ``play(card)``;
- :func:`tables` gives the games and tricks tables as polars DataFrames;
- :class:`Card`, :class:`Role` and :class:`Suit` are enums that print as records write them;
- :func:`analyse` analyses one record's decisions with the solver: a :class:`Decision`
  per choice made, with its cost in notes.

The names are imported on first use, so that the command line starts fast.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, SourceFileLoader
from importlib.util import spec_from_file_location
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analysis.decisions import Decision, analyse
    from .api import GameReplay, InvalidRecord, RoundOpening, load, replay, tables, verify
    from .checking.verdict import RecordReport
    from .positions import Hands, IllegalMove, Position, PositionNotReached, position
    from .records.model import GameRecord
    from .rules.cards import Card, Role, Suit
    from .rules.engine import Result
    from .rules.problems import Code, Problem, Severity
    from .views.annotate import Annotation

#: The modules that may be compiled (see setup.py); each is also plain Python.
COMPILED_MODULES = (
    "phantom_log.rules.cards",
    "phantom_log.rules.events",
    "phantom_log.rules.engine",
    "phantom_log.rules.replay",
    "phantom_log.records.strictjson",
    "phantom_log.records.game_text",
    "phantom_log.records.text_records",
    "phantom_log.records.record_gate",
    "phantom_log.tabular.rows",
    "phantom_log.analysis.solver",
)


class _PythonSource(MetaPathFinder):
    """Imports the compiled modules from their Python source (``PHANTOM_LOG_PURE_PYTHON=1``),
    so that the pure-Python build can be run and tested beside the compiled one."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if fullname not in COMPILED_MODULES:
            return None
        source = os.path.join(os.path.dirname(__file__), *fullname.split(".")[1:]) + ".py"
        if not os.path.exists(source):
            # The record gate of a checkout that was not built: the gate is made in memory.
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return spec_from_file_location(fullname, source, loader=SourceFileLoader(fullname, source))


if os.environ.get("PHANTOM_LOG_PURE_PYTHON") == "1":
    sys.meta_path.insert(0, _PythonSource())


def engine_build() -> str:
    """Which build of the rules engine is in use: ``"compiled (Cython)"`` or ``"pure Python"``."""
    from .rules import engine

    return "pure Python" if engine.__file__.endswith(".py") else "compiled (Cython)"


_HOMES = {
    "Decision": "analysis.decisions",
    "analyse": "analysis.decisions",
    "Annotation": "views.annotate",
    "GameReplay": "api",
    "tables": "api",
    "InvalidRecord": "api",
    "RoundOpening": "api",
    "load": "api",
    "replay": "api",
    "verify": "api",
    "Card": "rules.cards",
    "Role": "rules.cards",
    "Suit": "rules.cards",
    "Hands": "positions",
    "IllegalMove": "positions",
    "Position": "positions",
    "PositionNotReached": "positions",
    "position": "positions",
    "Result": "rules.engine",
    "Code": "rules.problems",
    "Problem": "rules.problems",
    "Severity": "rules.problems",
    "GameRecord": "records.model",
    "RecordReport": "checking.verdict",
}

__all__ = [
    "Annotation",
    "Card",
    "Code",
    "Decision",
    "GameRecord",
    "GameReplay",
    "Hands",
    "IllegalMove",
    "InvalidRecord",
    "Position",
    "PositionNotReached",
    "Problem",
    "RecordReport",
    "Result",
    "Role",
    "RoundOpening",
    "Severity",
    "Suit",
    "__version__",
    "analyse",
    "engine_build",
    "load",
    "position",
    "replay",
    "tables",
    "verify",
]


def __dir__() -> list[str]:
    """The API (the lazily imported names included), not the import machinery."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("phantom-log")
        except PackageNotFoundError:  # a source tree that is not installed
            return "0.0.0+unknown"
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'phantom_log' has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value
