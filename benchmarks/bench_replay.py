"""The rules engine's replay alone, per record, with each builder of its game log.

    python benchmarks/bench_replay.py [--records 100000] [--seed 1] [--workdir DIR]
                                      [--limit 20000] [--runs 5] [--instructions N]

On the records of the realistic corpus (``benchmarks/corpus.py``, cached as
``bench_corpus.py`` caches it) that pass the schema, this replays each record with
:func:`phantom_log.rules.replay.replay_record` told to

- ``verdict``: :class:`~phantom_log.rules.replay.VerdictBuilder`, which wants no event (what
  ``verify`` and ``tournament check`` run);
- ``events``: :class:`~phantom_log.rules.replay.GameLogBuilder`, every event (annotate,
  show, the replay page, the tables);
- ``visitor``: a visitor of the user's kind (a subclass of ``GameVisitor`` counting the
  tricks), to which every event is told by a method call;

and prints the CPU time per record (the best of ``--runs``, the builders taking turns).

With ``--instructions N`` it also counts the machine instructions the replay of the first
N records takes, under ``valgrind --tool=callgrind``: the process run once with N
records and once with none, the difference divided by N. Instruction counts do not
depend on what else the machine is doing, so two builds can be compared on a busy
machine (run this script from each checkout, with that checkout's Python).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import orjson
from bench_corpus import add_corpus_options, prepare_corpus

from phantom_log import engine_build
from phantom_log.records.schema import schema_valid
from phantom_log.rules.events import TrickEnded
from phantom_log.rules.replay import (
    GameLogBuilder,
    GameVisitor,
    SheetProblems,
    VerdictBuilder,
    replay_record,
)


class _TrickCount(GameVisitor[int]):
    """A visitor as a user writes one: every event reaches it by a method call."""

    def __init__(self) -> None:
        self.tricks = 0

    def visit_trick(self, event: TrickEnded) -> None:
        self.tricks += 1

    def result(self) -> int:
        return self.tricks


BUILDERS: dict[str, Callable[[], GameVisitor[Any]]] = {
    "verdict": VerdictBuilder,
    "events": GameLogBuilder,
    "visitor": _TrickCount,
}


def replayable(jsonl: Path, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` records of the corpus's JSON Lines that pass the schema."""
    found = []
    with open(jsonl, "rb") as lines:
        for line in lines:
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict) and schema_valid(value):
                found.append(value)
                if len(found) >= limit:
                    break
    return found


def replay_all(records: list[dict[str, Any]], builder: Callable[[], GameVisitor[Any]]) -> None:
    for record in records:
        with suppress(SheetProblems):
            replay_record(record, builder())


def seconds_per_record(records: list[dict[str, Any]], runs: int) -> dict[str, float]:
    best = dict.fromkeys(BUILDERS, float("inf"))
    for _ in range(runs):
        for name, builder in BUILDERS.items():
            gc.collect()
            started = time.process_time()
            replay_all(records, builder)
            best[name] = min(best[name], (time.process_time() - started) / len(records))
    return best


def instructions(jsonl: Path, count: int, builder: str) -> float:
    """Instructions per record of the replay of ``count`` records with ``builder``: the
    same records read by two processes, one of which replays them."""
    totals = []
    for replayed in ("no", "yes"):
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "callgrind.out"
            done = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={out}",
                    sys.executable,
                    __file__,
                    "--count-only",
                    str(jsonl),
                    str(count),
                    builder,
                    replayed,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise RuntimeError(f"valgrind said no count: {done.stderr[-500:]}")
        totals.append(int(found.group(1)))
    return (totals[1] - totals[0]) / count


def main() -> None:
    if sys.argv[1:2] == ["--count-only"]:
        # Under valgrind: replay the first N records once, nothing timed.
        jsonl, count, builder = Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        records = replayable(jsonl, count)
        gc.disable()
        if sys.argv[5] == "yes":
            replay_all(records, BUILDERS[builder])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--limit", type=int, default=20_000, help="Records replayed per pass.")
    parser.add_argument("--runs", type=int, default=5, help="Passes per builder (the best).")
    parser.add_argument(
        "--instructions",
        type=int,
        default=0,
        metavar="N",
        help="Also count the instructions of N records' replay (needs valgrind).",
    )
    options = parser.parse_args()
    jsonl = prepare_corpus(options).jsonl
    records = replayable(jsonl, options.limit)
    print(
        f"{len(records):,} records of the corpus that pass the schema; rules engine "
        f"{engine_build()}; Python {sys.version.split()[0]}; {os.cpu_count()} cores"
    )
    times = seconds_per_record(records, options.runs)
    counts: dict[str, float] = {}
    if options.instructions:
        if shutil.which("valgrind") is None:
            raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
        counts = {name: instructions(jsonl, options.instructions, name) for name in BUILDERS}
    print(f"{'builder':<10} {'us/record':>10} {'instructions/record':>20}")
    for name in BUILDERS:
        count = f"{counts[name]:,.0f}" if name in counts else "-"
        print(f"{name:<10} {times[name] * 1e6:>10.2f} {count:>20}")


if __name__ == "__main__":
    main()
