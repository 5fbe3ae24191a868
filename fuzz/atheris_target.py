"""A coverage-guided fuzz target for phantom-log (atheris, i.e. libFuzzer for Python).

It checks what the hypothesis fuzz suite checks (``tests/helpers/fuzz_harness.py``): every
command that reads records, and the Python API, on the input raise no traceback, report
every record in order, exit with a code of the documented class and keep the report
small and safe. A broken promise raises ``FuzzFailure``, which libFuzzer reports as a
crash and saves as ``crash-<sha1>`` (the input's bytes).

The first byte of an input says how its rest reaches the commands: as a ``.json`` file,
as a ``.jsonl`` file, on standard input, or cut in two files of a folder (at a place the
second byte gives). Run it from the repository's root:

    pip install -e '.[fuzz]'   # atheris; a binary wheel on Linux x86-64, else clang
    python fuzz/atheris_target.py --make-corpus fuzz/corpus
    PHANTOM_LOG_PURE_PYTHON=1 python fuzz/atheris_target.py fuzz/corpus \\
        -dict=fuzz/phantom-log.dict -artifact_prefix=fuzz/ \\
        -max_len=65536 -timeout=60 -rss_limit_mb=4096 -max_total_time=3600

``PHANTOM_LOG_PURE_PYTHON=1`` lets atheris see the branches of the rules engine and of
the JSON reader (the compiled build hides them). ``PHANTOM_LOG_FUZZ_COMMANDS`` chooses
the commands: ``reading`` (the default: verify, annotate, show, tournament check and the
API), ``all`` (also export, stats, annotate csv; ten times slower), ``reports`` or
``api`` (the fastest).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

REPO = Path(__file__).resolve().parent.parent

with atheris.instrument_imports(include=["phantom_log"]):
    import phantom_log
    import phantom_log.api
    import phantom_log.checking.verdict
    import phantom_log.cli
    import phantom_log.records.chunks
    import phantom_log.records.found_sources
    import phantom_log.records.model
    import phantom_log.records.size_limit
    import phantom_log.records.source_names
    import phantom_log.records.source_records
    import phantom_log.records.strictjson
    import phantom_log.records.unreadable
    import phantom_log.rules.engine
    import phantom_log.running.pipeline
    import phantom_log.tournament.columns
    import phantom_log.tournament.cross_checks
    import phantom_log.tournament.facts
    import phantom_log.tournament.manifest
    import phantom_log.tournament.report
    import phantom_log.tournament.standings
    import phantom_log.views.annotate
    import phantom_log.views.reports


def instrument_module(module: object) -> int:
    """Instrument the functions and methods of a module that atheris's import hook did not
    see: the pure-Python build of the engine and of the JSON reader is imported by
    phantom_log's own finder. Returns how many were instrumented."""
    import inspect

    count = 0
    name = getattr(module, "__name__", "")
    for value in vars(module).values():
        members = vars(value).values() if inspect.isclass(value) else [value]
        for member in members:
            function = getattr(member, "__func__", member)
            if inspect.isfunction(function) and function.__module__ == name:
                atheris.instrument_func(function)
                count += 1
    return count


for _module in (phantom_log.rules.engine, phantom_log.records.strictjson):
    if (_module.__file__ or "").endswith(".py"):
        instrument_module(_module)
# The harness is the test suite's (tests/helpers/), imported from the repository's root;
# the root goes on the path only now, after phantom_log, which stays the one installed.
sys.path.insert(0, str(REPO))
from tests.helpers.fuzz_harness import MODES, Case, check_case, json_lines_count  # noqa: E402

COMMANDS = os.environ.get("PHANTOM_LOG_FUZZ_COMMANDS", "reading")
if COMMANDS not in MODES:
    raise SystemExit(f"PHANTOM_LOG_FUZZ_COMMANDS={COMMANDS}: one of {', '.join(MODES)}")
FORMS = ("json", "jsonl", "stdin", "folder")


def case_of(data: bytes) -> Case:
    """The case an input stands for (see the module's docstring)."""
    if not data:
        return Case(files={"empty.json": b""}, paths=["empty.json"])
    form, body = FORMS[data[0] % len(FORMS)], data[1:]
    if form == "json":
        return Case(files={"input.json": body}, paths=["input.json"])
    if form == "jsonl":
        return Case(
            files={"input.jsonl": body},
            paths=["input.jsonl"],
            records={"input.jsonl": json_lines_count(body)},
        )
    if form == "stdin":
        return Case(stdin=body, paths=["-"])
    cut = body[0] * len(body) // 256 if body else 0
    files = {"a.json": body[1:cut], "b.jsonl": body[cut:]}
    return Case(files=files, paths=["."], records={"b.jsonl": json_lines_count(files["b.jsonl"])})


def test_one_input(data: bytes) -> None:
    check_case(case_of(data), COMMANDS)


def make_corpus(folder: Path) -> None:
    """Seed inputs: every example and every text of the JSON test suite in each form, and
    a few simulated games as JSON Lines."""
    import json

    from phantom_log.analysis.simulator import Simulation, simulate_game
    from phantom_log.rules.engine import Rules
    from phantom_log.rules.sheets import RULEBOOK_SHEET
    from tests.helpers.fuzz_strategies import EXAMPLE_TEXTS, json_test_suite_files

    folder.mkdir(parents=True, exist_ok=True)
    texts = list(EXAMPLE_TEXTS) + [path.read_bytes() for path in json_test_suite_files()]
    simulation = Simulation(RULEBOOK_SHEET, Rules(), "random", "greedy", 1)
    games = [json.dumps(simulate_game(simulation, n)).encode() for n in range(1, 4)]
    texts.append(b"\n".join(games) + b"\n")
    count = 0
    for text in texts:
        for form in range(len(FORMS)):
            seed = bytes([form]) + (bytes([128]) if FORMS[form] == "folder" else b"") + text
            (folder / f"seed-{count:04d}").write_bytes(seed)
            count += 1
    print(f"wrote {count} seeds to {folder}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--make-corpus":
        make_corpus(Path(sys.argv[2]))
        return
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
