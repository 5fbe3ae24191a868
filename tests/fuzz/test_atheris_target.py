"""``fuzz/atheris_target.py``, the coverage-guided target, keeps working where atheris is
not installed (it is the ``fuzz`` extra, not ``dev``): with a stand-in for atheris it
imports the test suite's harness, builds its seed corpus and checks an input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import REPO, WALKTHROUGH

TARGET = REPO / "fuzz" / "atheris_target.py"
#: What the target calls of atheris, doing nothing: no instrumentation, no fuzzing.
STAND_IN = """
import contextlib

@contextlib.contextmanager
def instrument_imports(include=None):
    yield

def instrument_func(function):
    return function

def Setup(argv, target):
    pass

def Fuzz():
    pass
"""
#: The target's check of one input, run as libFuzzer would run it: a ``FuzzFailure`` (a
#: broken promise) or any other exception ends the process with a traceback.
CHECK_ONE = """
import runpy, sys
from pathlib import Path
target = runpy.run_path(sys.argv[1])
target["test_one_input"](Path(sys.argv[2]).read_bytes())
print("checked")
"""


def stand_in_environment(folder: Path) -> dict[str, str]:
    (folder / "atheris.py").write_text(STAND_IN, encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def test_the_atheris_target_builds_its_seeds_and_checks_one(tmp_path: Path) -> None:
    env = stand_in_environment(tmp_path)
    corpus = tmp_path / "corpus"
    made = subprocess.run(
        [sys.executable, str(TARGET), "--make-corpus", str(corpus)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert made.returncode == 0, made.stderr
    seeds = sorted(corpus.iterdir())
    assert made.stdout == f"wrote {len(seeds)} seeds to {corpus}\n"
    # Each text in each of the four forms: the walkthrough among them, as a .json file.
    assert len(seeds) > 4 * 20
    walkthrough_as_file = b"\x00" + WALKTHROUGH.read_bytes()
    (seed,) = [path for path in seeds if path.read_bytes() == walkthrough_as_file]
    checked = subprocess.run(
        [sys.executable, "-c", CHECK_ONE, str(TARGET), str(seed)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (checked.returncode, checked.stdout) == (0, "checked\n"), checked.stderr
