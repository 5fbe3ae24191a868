"""Where a record's time goes: each stage of the commands' work, against the parse floor.

    python benchmarks/bench_stages.py [--records 100000] [--seed 1] [--workdir DIR]
                                      [--array-records N] [--runs 3] [--limit N]

On the JSON Lines form of the realistic corpus of ``benchmarks/corpus.py`` (the one
``bench_corpus.py`` builds, and caches in the same work folder), in one process, with the
collector tuned as the commands tune it, this times a pass over the corpus's lines for
each stage below, each pass doing the stages before it too, and prints the CPU time per
record (process time, the best of ``--runs``; the machine may be shared), each stage's
own share (its pass less the one before) and both against the parse floor:

1. ``floor``: ``orjson.loads`` of each line (the floor of ``bench_corpus.py``);
2. ``scan``: and the strict parse's scan of the bytes (the keys of the text counted, 19
   digits in a row found: :func:`phantom_log.records.strictjson._text_keys`);
3. ``gate``: and the schema's gate generated from the schema file, whose one walk of the
   parsed record checks it and counts its keys
   (:func:`phantom_log.records.strictjson.parse_gated` with
   :func:`phantom_log.records.schema.record_gate`): the strict parse is then whole, and each
   record the gate refused also takes the exact path (the key-count walk, the exact parser
   at any doubt, then ``jsonschema-rs``);
4. ``replay``: the rules engine's replay of each record that passed, told to the verdict
   builder (no event is made: what ``verify`` needs);
5. ``wording``: ``jsonschema`` wording the errors of each record refused;
6. ``verify``: ``verify --format json``'s whole work on the corpus's chunks
   (:func:`phantom_log.running.pipeline.verify_chunk_in_one`: the stages above, the reports and
   their JSON Lines text), without the command's start-up and writing;
7. ``tournament``: the same with each record's tournament facts
   (``tournament check``'s work on a chunk);
8. ``tables``: ``export`` and ``stats``'s work on a chunk
   (:func:`phantom_log.running.pipeline.tables_chunk`: the replay with every event, the
   rows and their data frames; no record model).

A last line, ``exact``, times stage 3 done as every record was before the generated gate
(and as a refused record still is): the strict parse with its key-count walk
(:func:`phantom_log.records.strictjson.parse_json`), then ``jsonschema-rs``; its own time
is counted from stage 2, like the gate's.

Stages 1 to 5 are what every verdict needs with this design (the schema's gate and its
wording, the strict parse and one replay by the rules engine): their sum is the least
``verify`` can cost before it writes a byte, and the script prints it against the
command-line targets of ``bench_corpus.py`` (verify at most 3 times the floor).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Any, Final

import orjson
from bench_corpus import add_corpus_options, prepare_corpus
from corpus import CORPUS_VERSION

from phantom_log.records.chunks import read_chunks
from phantom_log.records.schema import record_gate, schema_problems, schema_valid
from phantom_log.records.strictjson import JsonError, _text_keys, parse_gated, parse_json
from phantom_log.rules.replay import SheetProblems, VerdictBuilder, replay_record
from phantom_log.running.collector import tune_collector_for_a_run
from phantom_log.running.outcomes import Options
from phantom_log.running.pipeline import tables_chunk, verify_chunk_in_one

VERIFY_LIMIT: Final = 3.0


def cpu_seconds(work: Callable[[], object]) -> float:
    """The CPU time of one pass of ``work``."""
    started = time.process_time()
    work()
    return time.process_time() - started


def passes(lines: list[bytes], chunk_path: Path) -> list[tuple[str, Callable[[], object]]]:
    """Each stage's pass over the corpus (each doing the stages before it)."""

    def floor() -> None:
        for line in lines:
            with suppress(orjson.JSONDecodeError):
                orjson.loads(line)

    def scanned() -> None:
        for line in lines:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            _text_keys(line)

    record_gate_walk = record_gate()

    def read_then(step: Callable[[Any, bool], object]) -> Callable[[], None]:
        def work() -> None:
            for line in lines:
                try:
                    value, passed = parse_gated(line, record_gate_walk)
                except JsonError:
                    continue
                step(value, passed)

        return work

    def gate(value: Any, passed: bool) -> bool:
        return passed or (isinstance(value, dict) and schema_valid(value))

    def replayed(value: Any, passed: bool) -> bool:
        valid = gate(value, passed)
        if valid:
            with suppress(SheetProblems):
                replay_record(value, VerdictBuilder())
        return valid

    def worded(value: Any, passed: bool) -> None:
        if not replayed(value, passed) and isinstance(value, dict):
            schema_problems(value)

    def exact() -> None:
        for line in lines:
            try:
                value = parse_json(line)
            except JsonError:
                continue
            if isinstance(value, dict):
                schema_valid(value)

    chunks = list(read_chunks(str(chunk_path)))
    as_json, facts = Options(output="json"), Options(output="facts", quiet=True)

    def each_chunk(step: Callable[[Any], object]) -> Callable[[], None]:
        def work() -> None:
            for chunk in chunks:
                step(chunk)  # its result dropped at once, as a command sends it on

        return work

    verify = partial(verify_chunk_in_one, options=as_json)
    tournament = partial(verify_chunk_in_one, options=facts)
    tables = partial(tables_chunk, sheets=None, include_invalid=False)
    return [
        ("floor: orjson.loads", floor),
        ("scan: the bytes' keys and long numbers", scanned),
        ("gate: generated, one walk with the keys", read_then(gate)),
        ("replay: the rules engine", read_then(replayed)),
        ("wording: jsonschema, refused records", read_then(worded)),
        ("verify: a chunk, reports and text", each_chunk(verify)),
        ("tournament: a chunk, with facts", each_chunk(tournament)),
        ("tables: a chunk, rows and frames", each_chunk(tables)),
        ("exact: key-count walk, jsonschema-rs", exact),
    ]


def parse_options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--runs", type=int, default=3, help="Passes per stage (the best).")
    parser.add_argument(
        "--limit", type=int, default=None, help="Time only the first N records of the corpus."
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    corpus = prepare_corpus(options)
    tune_collector_for_a_run()
    with open(corpus.jsonl, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)[: options.limit]
    with tempfile.TemporaryDirectory() as folder:
        chunk_path = Path(folder) / "corpus.jsonl"
        chunk_path.write_bytes(b"".join(lines))
        count = len(lines)
        print(
            f"{count:,} records of corpus v{CORPUS_VERSION} (seed {options.seed}), CPU "
            f"seconds, best of {options.runs}; {sys.version.split()[0]}"
        )
        print(f"{'stage':42} {'us/record':>10} {'x floor':>8} {'own us':>8} {'own x':>7}")
        stages = passes(lines, chunk_path)
        # The stages take turns, run after run, so that a spell of slowness of a shared
        # machine falls on all of them alike; each keeps its best run.
        best = [float("inf")] * len(stages)
        for _ in range(options.runs):
            for position, (_, work) in enumerate(stages):
                best[position] = min(best[position], cpu_seconds(work))
        figures: dict[str, float] = {}
        before = 0.0
        floor = best[0] / count * 1e6
        for (name, _), seconds in zip(stages, best, strict=True):
            per_record = seconds / count * 1e6
            key = name.split(":")[0]
            figures[key] = per_record
            cumulative = key in ("floor", "scan", "gate", "replay", "wording")
            own = per_record - before if cumulative and key != "floor" else None
            if key == "exact":  # the gate's stage as it was: counted from the scan too
                own = per_record - figures["scan"]
            print(
                f"{name:42} {per_record:10.2f} {per_record / floor:8.2f} "
                + (f"{own:8.2f} {own / floor:7.2f}" if own is not None else f"{'':8} {'':7}")
            )
            if cumulative:
                before = per_record
    least = figures["wording"] / floor
    gate_walk = figures["gate"] - figures["scan"]
    exact_walk = figures["exact"] - figures["scan"]
    print(
        f"\nThe generated gate and the key count, in one walk: {gate_walk:.2f} us a record, "
        f"against {exact_walk:.2f} for the key-count walk and jsonschema-rs."
    )
    print(
        f"The verdict's stages (strict parse, gate, replay, wording) come to {least:.2f} "
        f"times the floor before any report is made or written; verify's whole work on a "
        f"chunk to {figures['verify'] / floor:.2f} (the command-line target, start-up and "
        f"writing included: at most {VERIFY_LIMIT:g})."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
