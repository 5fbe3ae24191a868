"""The events declared once: each event is a dataclass whose annotated fields are its facts,
and the C types the compiled build declares them with (``events.pxd``) are generated from
those fields when the package is built (``rules/events_pxd.py``).

Both builds are held to the one declaration: the classes in use (compiled or not) have the
declared facts, in order, with their C types in the compiled build; every event the engine
emits sets each of them; and a fact added to a dataclass is declared, compared, hashed and
shown, generated and run in both builds from the changed source.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
import textwrap
from dataclasses import fields
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import pytest

from phantom_log.rules import events, events_pxd
from phantom_log.rules.events import Event
from phantom_log.rules.replay import replay_record
from tests.helpers.paths import EXAMPLES, REPO

SOURCE = REPO / "phantom_log" / "rules" / events_pxd.SOURCE
DECLARED = events_pxd.facts(SOURCE.read_text(encoding="utf-8"))
EVENTS = get_args(Event)
COMPILED = not str(events.__file__).endswith(".py")
# A value of each C type a fact may have.
SAMPLES: dict[str, Any] = {"int": 1, "bint": True, "tuple": (), "object": None}
PYTHON_TYPES = {"int": int, "bint": bool, "tuple": tuple}


def c_type(annotation: Any) -> str:
    """The C type of a dataclass field's annotation (a string: the module's annotations are
    postponed)."""
    return events_pxd.c_type(ast.parse(str(annotation), mode="eval").body)


def test_the_generated_declarations_are_the_facts_of_every_event() -> None:
    assert list(DECLARED) == [event.__name__ for event in EVENTS]
    for event in EVENTS:
        facts = [(fact.name, c_type(fact.type)) for fact in fields(event)]
        assert facts == DECLARED[event.__name__], event


def test_the_build_declares_the_events_as_generated() -> None:
    """The compiled build's ``events.pxd`` is the one generated from the source: a fact
    added since the last build shows here, not only as a compiled engine gone wrong."""
    built = SOURCE.with_name(events_pxd.PXD)
    assert built.exists() or not COMPILED
    if built.exists():
        assert built.read_text(encoding="utf-8") == events_pxd.generate(
            SOURCE.read_text(encoding="utf-8")
        )


@pytest.mark.parametrize("event", EVENTS, ids=lambda event: event.__name__)
def test_each_fact_is_a_field_of_its_class_in_this_build(event: type) -> None:
    facts = DECLARED[event.__name__]
    made = event(*(SAMPLES[kind] for _, kind in facts))
    assert [getattr(made, name) for name, _ in facts] == [SAMPLES[kind] for _, kind in facts]
    assert made == event(*(SAMPLES[kind] for _, kind in facts))
    if not COMPILED:
        return
    for place, (name, kind) in enumerate(facts):
        # A read-only C field of the declared type.
        with pytest.raises(AttributeError):
            setattr(made, name, SAMPLES[kind])
        if kind in ("int", "tuple"):  # a bint takes any value's truth
            values = [SAMPLES[kind] for _, kind in facts]
            values[place] = "not a " + kind
            with pytest.raises(TypeError):
                event(*values)


def test_every_event_the_engine_emits_sets_each_of_its_facts() -> None:
    """The engine makes each event without its constructor (``X.__new__(X)``, then each
    field): a fact it does not set is missing in the pure-Python build (0 in the compiled
    one), and one set to another type is caught here in either."""
    kinds: set[str] = set()
    for example in ("rulebook-walkthrough.json", "optional-rules.json"):
        log = replay_record(json.loads((EXAMPLES / example).read_text(encoding="utf-8")))
        for made in log.events:
            kinds.add(type(made).__name__)
            for name, kind in DECLARED[type(made).__name__]:
                value = getattr(made, name)
                assert kind not in PYTHON_TYPES or type(value) is PYTHON_TYPES[kind], (made, name)
    assert kinds == set(DECLARED)


# -- a fact added ---------------------------------------------------------------------------

ADDED = "with_a_fact"


def with_a_fact(source: str, event: str, declaration: str) -> str:
    """The source of ``events.py`` with one more fact declared last in ``event``."""
    tree = ast.parse(source)
    (node,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == event]
    last = max(
        statement.end_lineno or 0 for statement in node.body if isinstance(statement, ast.AnnAssign)
    )
    lines = source.splitlines(keepends=True)
    return "".join([*lines[:last], f"    {declaration}\n", *lines[last:]])


def compiled_module(source: str, folder: Path) -> ModuleType:
    """``source`` compiled as the build compiles ``events.py`` (with the ``.pxd``
    generated from it), as a module of ``phantom_log.rules``."""
    rules = folder / "phantom_log" / "rules"
    rules.mkdir(parents=True)
    for package in (folder / "phantom_log", rules):
        (package / "__init__.py").write_text("", encoding="utf-8")
    (rules / f"{ADDED}.py").write_text(source, encoding="utf-8")
    (rules / f"{ADDED}.pxd").write_text(events_pxd.generate(source), encoding="utf-8")
    build = textwrap.dedent(
        f"""
        from Cython.Build import cythonize
        from setuptools import setup
        directives = {{"language_level": "3", "binding": True, "annotation_typing": False}}
        modules = cythonize(["phantom_log/rules/{ADDED}.py"], include_path=[{str(REPO)!r}],
                            compiler_directives=directives, quiet=True)
        for module in modules:
            module.extra_compile_args = ["-O0", "-g0"]  # built to be run once
        setup(ext_modules=modules, script_args=["build_ext", "--inplace", "-q"])
        """
    )
    built = subprocess.run(
        [sys.executable, "-c", build], cwd=folder, capture_output=True, text=True, timeout=600
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (library,) = rules.glob(f"{ADDED}.*.so")
    return loaded(f"phantom_log.rules.{ADDED}", library)


def python_module(source: str, folder: Path) -> ModuleType:
    path = folder / f"{ADDED}.py"
    path.write_text(source, encoding="utf-8")
    return loaded(f"phantom_log.rules.{ADDED}", path)


def loaded(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # where its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


# The compiled build of the changed source where this one is compiled and Cython is at
# hand (a build in an isolated environment installs it for the build alone).
BUILDS = ["pure Python"]
if COMPILED and importlib.util.find_spec("Cython") is not None:
    BUILDS.append("compiled")


@pytest.mark.parametrize("build", BUILDS)
def test_a_fact_added_to_an_event_is_declared_compared_and_shown(
    build: str, tmp_path: Path
) -> None:
    source = with_a_fact(SOURCE.read_text(encoding="utf-8"), "Exchanged", "added: int")
    declared = events_pxd.facts(source)["Exchanged"]
    assert declared == [*DECLARED["Exchanged"], ("added", "int")]
    (block,) = [
        block
        for block in events_pxd.generate(source).split("cdef class ")
        if block.startswith("Exchanged:")
    ]
    assert block.rstrip().endswith("\n    cdef readonly int added")
    made = compiled_module if build == "compiled" else python_module
    module = made(source, tmp_path)
    assert str(module.__file__).endswith(".py") is (build == "pure Python")
    exchanged = module.Exchanged(1, 2, 3, 4, 5, 6)
    assert exchanged.added == 6
    same = module.Exchanged(1, 2, 3, 4, 5, 6)
    assert exchanged == same and hash(exchanged) == hash(same)
    assert exchanged != module.Exchanged(1, 2, 3, 4, 5, 7)
    assert repr(exchanged) == "Exchanged(round=1, phantom_gave=2, christine_gave=3, added=6)"
    if build == "compiled":
        with pytest.raises(AttributeError):  # a read-only C field, as the others
            exchanged.added = 7


def test_the_declarations_are_written_once(tmp_path: Path) -> None:
    (tmp_path / events_pxd.SOURCE).write_text(SOURCE.read_text(encoding="utf-8"), "utf-8")
    assert events_pxd.write_pxd(tmp_path)
    written = (tmp_path / events_pxd.PXD).read_text(encoding="utf-8")
    assert written == events_pxd.generate(SOURCE.read_text(encoding="utf-8"))
    # Unchanged, it is left as it is (Cython does not compile the module again).
    assert not events_pxd.write_pxd(tmp_path)
