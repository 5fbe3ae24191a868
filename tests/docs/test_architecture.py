"""The shape of the package, as docs/architecture.md draws it: layers that import only
downward, one name per type, no module named for nothing, no module shadowing a library,
a thin command line (short modules of short functions, none choosing where records are
read), and the record's limits the engine's own numbers."""

from __future__ import annotations

import ast
import json
import sys
from collections import defaultdict
from importlib import metadata
from pathlib import Path

import pytest

from phantom_log.rules.cards import DECK_SIZE
from phantom_log.rules.engine import (
    CARDS_PER_HAND,
    DIE_FACES,
    PLAYS_PER_TRICK,
    ROUNDS_PER_GAME,
    TRICKS_PER_ROUND,
)
from phantom_log.rules.sheets import NOTES_PER_SHEET
from tests.helpers.paths import REPO

PACKAGE = REPO / "phantom_log"
MODULES = sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def test_the_module_list_is_not_empty() -> None:
    assert len(MODULES) > 40
    assert PACKAGE / "rules" / "engine.py" in MODULES


def test_the_layers_import_only_downward_and_nothing_imports_in_a_circle(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The contracts of pyproject.toml's [tool.importlinter], as CI's lint-imports runs them."""
    from importlinter.cli import lint_imports

    monkeypatch.chdir(REPO)
    assert lint_imports(config_filename="pyproject.toml", no_cache=True) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert "The layers import only downward KEPT" in out
    assert "No module imports itself in a circle KEPT" in out


def _public_type_names(path: Path) -> list[str]:
    """The classes and the type aliases (capitalised names assigned at module level) a
    module defines."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else ""
                if name[:1].isupper() and not name.isupper():
                    names.append(name)
    return names


def test_no_two_types_share_a_name() -> None:
    homes: dict[str, list[str]] = defaultdict(list)
    for path in MODULES:
        for name in _public_type_names(path):
            homes[name].append(str(path.relative_to(REPO)))
    assert len(homes) > 100
    shared = {name: places for name, places in homes.items() if len(places) > 1}
    assert shared == {}


def test_no_module_is_named_for_nothing_in_particular() -> None:
    vague = {"utils", "util", "helpers", "helper", "misc", "common", "stuff", "tools"}
    assert [path for path in MODULES if path.stem in vague] == []


def test_no_module_shadows_a_library() -> None:
    """No module of the package is named as a library it could import (the standard
    library's or an installed distribution's top-level module)."""
    libraries = set(sys.stdlib_module_names) | set(metadata.packages_distributions())
    libraries -= {"phantom_log"}
    names = {path.stem for path in MODULES if path.stem != "__init__"}
    names |= {path.parent.name for path in MODULES if path.parent != PACKAGE}
    assert sorted(names & libraries) == []


def test_the_command_line_is_a_package_of_short_modules() -> None:
    cli = sorted((PACKAGE / "cli").glob("*.py"))
    assert len(cli) > 10
    lengths = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in cli}
    assert {name: lines for name, lines in lengths.items() if lines > 800} == {}


#: What the limit counts as a branch of a function (the paths through it).
BRANCHES = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.ExceptHandler,
    ast.BoolOp,
    ast.comprehension,
    ast.IfExp,
)
#: The longest function of the command line, and the most branches one may have.
FUNCTION_LINES = 60
FUNCTION_BRANCHES = 30
#: Functions of the command line past the limits until the module is rewritten, each with
#: its lines: the recorder's (issue 35's one replay loop rewrites it).
PAST_THE_LIMITS: dict[str, int] = {}


def _command_line_functions() -> dict[str, tuple[int, int]]:
    """Each function of ``phantom_log/cli/`` (``module.py:name``), with its lines (from
    ``def`` to its end) and its branches."""
    found = {}
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                branches = sum(isinstance(inner, BRANCHES) for inner in ast.walk(node))
                lines = node.end_lineno - node.lineno + 1
                found[f"{path.name}:{node.name}"] = (lines, branches)
    return found


def test_a_command_parses_its_options_and_calls_the_library() -> None:
    """No function of the command line is longer than 60 lines or has more than 30
    branches: formatting is in views/, output checks in files/, the work in the library."""
    functions = _command_line_functions()
    assert {"verify.py:verify", "export.py:export", "show.py:show"} <= functions.keys()
    assert max(branches for _, branches in functions.values()) > 10
    past = {
        name: lines
        for name, (lines, branches) in functions.items()
        if lines > FUNCTION_LINES or branches > FUNCTION_BRANCHES
    }
    assert past == PAST_THE_LIMITS


def _names(node: ast.AST) -> set[str]:
    return {inner.id for inner in ast.walk(node) if isinstance(inner, ast.Name)}


def test_no_command_chooses_between_this_machine_and_a_cluster() -> None:
    """``--scheduler`` is handed to the library, which chooses where the records are
    read (:mod:`phantom_log.running.runs`): no test of the command line reads it."""
    tested = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.If | ast.IfExp | ast.While):
                tested += [f"{path.name}:{node.lineno}"] * ("scheduler" in _names(node.test))
    assert tested == []
    runs = ast.parse((PACKAGE / "running" / "runs.py").read_text(encoding="utf-8"))
    assert any(
        isinstance(node, ast.If | ast.IfExp) and "scheduler" in ast.unparse(node.test)
        for node in ast.walk(runs)
    )


def test_the_record_schemas_limits_are_the_engines_numbers() -> None:
    """The record schema bounds each array by the game's own numbers, which the record
    model and the replay read from the engine: the three agree."""
    schema = json.loads((PACKAGE / "schemas" / "game-record-1.schema.json").read_text("utf-8"))
    definitions = schema["$defs"]
    assert schema["properties"]["rounds"]["maxItems"] == ROUNDS_PER_GAME
    assert definitions["round"]["properties"]["tricks"]["maxItems"] == TRICKS_PER_ROUND
    assert definitions["trick"]["properties"]["plays"]["maxItems"] == PLAYS_PER_TRICK
    assert definitions["round"]["properties"]["special_number"]["maximum"] == DIE_FACES
    assert schema["properties"]["result"]["properties"]["notes"]["maximum"] == NOTES_PER_SHEET
    assert definitions["cards"]["maxItems"] == DECK_SIZE
    assert definitions["swapCards"]["maxItems"] == CARDS_PER_HAND
    assert definitions["bar"]["properties"]["notes"]["maxLength"] == NOTES_PER_SHEET
    assert definitions["sheet"]["properties"]["bars"]["maxItems"] == NOTES_PER_SHEET


#: Where a game is driven step by step: the rules (the replay of what was written, its
#: completion), the searches of the analysis, and the position view.
_STEPPING_ALLOWED = ("rules/", "analysis/", "positions.py")
_STEPS = frozenset({"step", "apply", "forget_hands", "inferred_deal", "with_hands"})


def test_only_the_rules_the_analysis_and_the_position_view_step_the_state_machine() -> None:
    stepping: list[str] = []
    for path in MODULES:
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(_STEPPING_ALLOWED):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            name = node.func.attr
            started = name == "start" and ast.unparse(node.func.value) == "GameState"
            if name in _STEPS or name.startswith("step_") or started:
                stepping.append(f"{relative}:{node.lineno} {ast.unparse(node.func)}")
    assert not stepping, "\n".join(stepping)
