"""Where a record's time goes: each stage of the commands' work, against the parse floor.

    python benchmarks/bench_stages.py [--records 100000] [--seed 1] [--workdir DIR]
                                      [--array-records N] [--runs 3] [--limit N] [--json]

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
   at any doubt);
4. ``replay``: the rules engine's replay of each record that passed, told to the verdict
   builder (no event is made: what ``verify`` needs);
5. ``wording``: ``jsonschema`` wording the errors of each record refused;
6. ``verify``: ``verify --format json``'s whole work on the corpus's chunks
   (:func:`phantom_log.running.pipeline.verify_chunk`: the stages above, the reports and
   their JSON Lines text), without the command's start-up and writing;
7. ``tournament``: the same with each record's tournament facts
   (``tournament check``'s work on a chunk, read as spans of the file as the command reads
   it: a record's content is digested only if it may be a copy, in the main process
   after the chunks, which this corpus's records are not);
8. ``events``: stage 5 with the replay telling every event (the game log the tables are
   made from) instead of the verdict only;
9. ``tables``: ``export`` and ``stats``'s work on a chunk
   (:func:`phantom_log.running.pipeline.tables_chunk`: the replay with every event, the
   rows and their data frames; no record model);
10. ``written``: the same, the frames then written as the work files the commands write
   (:func:`phantom_log.running.pipeline.written_tables_chunk`).

One more line times one part on its own: ``digest``, the tournament's content digest of
each record that passed the gate (the record written as JSON with sorted keys, then
SHA-256), counted from stage 3: what every record paid before ``tournament check`` made
it only for the records that may be copies.

Last, for each command-line target, where its time goes in one process: the stages it
is made of, each against the floor (``--json`` prints the figures as JSON instead, for
``bench_corpus.py``, which prints the same beside the commands' own figures).

Stages 1 to 5 are what every verdict needs with this design (the schema's gate and its
wording, the strict parse and one replay by the rules engine): their sum is the least
``verify`` can cost before it writes a byte, and the script prints it against the
command-line targets of ``bench_corpus.py`` (verify at most 3 times the floor).
"""

from __future__ import annotations

import argparse
import json
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
from phantom_log.records.strictjson import JsonError, _text_keys, parse_gated
from phantom_log.rules.replay import (
    GameLogBuilder,
    GameVisitor,
    SheetProblems,
    VerdictBuilder,
    replay_record,
)
from phantom_log.running.collector import tune_collector_for_a_run
from phantom_log.running.outcomes import Options
from phantom_log.running.pipeline import tables_chunk, verify_chunk, written_tables_chunk
from phantom_log.tournament.facts import content_digest


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

    def replayed(
        value: Any, passed: bool, builder: Callable[[], GameVisitor[Any]] = VerdictBuilder
    ) -> bool:
        valid = gate(value, passed)
        if valid:
            with suppress(SheetProblems):
                replay_record(value, builder())
        return valid

    def worded(value: Any, passed: bool) -> None:
        if not replayed(value, passed) and isinstance(value, dict):
            schema_problems(value)

    def worded_with_events(value: Any, passed: bool) -> None:
        if not replayed(value, passed, GameLogBuilder) and isinstance(value, dict):
            schema_problems(value)

    def digested(value: Any, passed: bool) -> None:
        if gate(value, passed):
            content_digest(value)

    chunks = list(read_chunks(str(chunk_path)))
    # tournament check reads its files as spans, whatever its jobs: each record then says
    # where its text is, for its digest to be made only if it may be a copy.
    spans = list(read_chunks(str(chunk_path), spans=True))
    as_json, facts = Options(output="json"), Options(output="facts", quiet=True)

    def each_chunk(step: Callable[[Any], object], chunks: list[Any] = chunks) -> Callable[[], None]:
        def work() -> None:
            for chunk in chunks:
                step(chunk)  # its result dropped at once, as a command sends it on

        return work

    verify = partial(verify_chunk, options=as_json)
    tournament = partial(verify_chunk, options=facts)
    tables = partial(tables_chunk, sheets=None, include_invalid=False)
    work_files = chunk_path.parent / "work"
    work_files.mkdir(exist_ok=True)

    def written(chunk: Any) -> None:
        written_tables_chunk((0, chunk), None, False, work_files)

    return [
        ("floor: orjson.loads", floor),
        ("scan: the bytes' keys and long numbers", scanned),
        ("gate: generated, one walk with the keys", read_then(gate)),
        ("replay: the rules engine", read_then(replayed)),
        ("wording: jsonschema, refused records", read_then(worded)),
        ("verify: a chunk, reports and text", each_chunk(verify)),
        ("tournament: a chunk, with facts", each_chunk(tournament, spans)),
        ("events: stage 5, every event", read_then(worded_with_events)),
        ("tables: a chunk, rows and frames", each_chunk(tables)),
        ("written: the same, work files written", each_chunk(written)),
        ("digest: the content digest, from stage 3", read_then(digested)),
    ]


#: Each command-line target's chunk stage in this table, and its limit (x floor).
TARGETS: Final = {
    "verify": ("verify", 3.0),
    "tournament": ("tournament", 4.0),
    "annotate-csv": ("tables", 5.0),
    "export-csv": ("written", 5.0),
    "stats": ("written", 5.0),
}


def breakdown(figures: dict[str, float], command: str) -> list[tuple[str, float]]:
    """Where a command's work on a chunk goes, in one process: its parts, each as times
    the floor (they add up to its chunk stage), from the stage figures (us a record)."""
    floor = figures["floor"]

    def x(value: float) -> float:
        return value / floor

    verdict = [
        ("parse floor", 1.0),
        ("scan", x(figures["scan"] - figures["floor"])),
        ("gate", x(figures["gate"] - figures["scan"])),
        ("replay", x(figures["replay"] - figures["gate"])),
        ("wording", x(figures["wording"] - figures["replay"])),
    ]
    if command in ("verify", "tournament"):
        parts = [*verdict, ("reports and text", x(figures["verify"] - figures["wording"]))]
        if command == "tournament":
            # The content digest is no part of it: made only for the records that may
            # be copies (the "digest" line says what it would cost every record).
            parts.append(("facts", x(figures["tournament"] - figures["verify"])))
        return parts
    parts = [
        *verdict,
        ("every event", x(figures["events"] - figures["wording"])),
        ("rows and frames", x(figures["tables"] - figures["events"])),
    ]
    if TARGETS[command][0] == "written":
        parts.append(("work files written", x(figures["written"] - figures["tables"])))
    return parts


def describe_breakdown(parts: list[tuple[str, float]]) -> str:
    """The parts as one line: ``parse floor 1.00, scan 0.20, ...``."""
    return ", ".join(f"{name} {share:.2f}" for name, share in parts)


def measure(lines: list[bytes], runs: int) -> list[tuple[str, float]]:
    """Each stage's name and CPU time per record (us), the best of ``runs``, in order."""
    with tempfile.TemporaryDirectory() as folder:
        chunk_path = Path(folder) / "corpus.jsonl"
        chunk_path.write_bytes(b"".join(lines))
        stages = passes(lines, chunk_path)
        # The stages take turns, run after run, so that a spell of slowness of a shared
        # machine falls on all of them alike; each keeps its best run.
        best = [float("inf")] * len(stages)
        for _ in range(runs):
            for position, (_, work) in enumerate(stages):
                best[position] = min(best[position], cpu_seconds(work))
    return [
        (name, seconds / len(lines) * 1e6) for (name, _), seconds in zip(stages, best, strict=True)
    ]


#: The stages each of which does the one before it too: its own time is the difference.
CUMULATIVE: Final = ("floor", "scan", "gate", "replay", "wording")
#: Parts timed from another stage: their own time is counted from that one.
COUNTED_FROM: Final = {"digest": "gate", "events": "wording"}


def parse_options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--runs", type=int, default=3, help="Passes per stage (the best).")
    parser.add_argument(
        "--limit", type=int, default=None, help="Time only the first N records of the corpus."
    )
    parser.add_argument(
        "--json", action="store_true", help="Print the figures (us a record) as JSON."
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    corpus = prepare_corpus(options)
    tune_collector_for_a_run()
    with open(corpus.jsonl, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)[: options.limit]
    measured = measure(lines, options.runs)
    figures = {name.split(":")[0]: per_record for name, per_record in measured}
    if options.json:
        print(json.dumps({"records": len(lines), "figures": figures}))
        return 0
    print(
        f"{len(lines):,} records of corpus v{CORPUS_VERSION} (seed {options.seed}), CPU "
        f"seconds, best of {options.runs}; {sys.version.split()[0]}"
    )
    print(f"{'stage':42} {'us/record':>10} {'x floor':>8} {'own us':>8} {'own x':>7}")
    floor = figures["floor"]
    before = 0.0
    for name, per_record in measured:
        key = name.split(":")[0]
        own = None
        if key in CUMULATIVE and key != "floor":
            own = per_record - before
        elif key in COUNTED_FROM:
            own = per_record - figures[COUNTED_FROM[key]]
        elif key == "written":
            own = per_record - figures["tables"]
        print(
            f"{name:42} {per_record:10.2f} {per_record / floor:8.2f} "
            + (f"{own:8.2f} {own / floor:7.2f}" if own is not None else f"{'':8} {'':7}")
        )
        if key in CUMULATIVE:
            before = per_record
    print(
        "\nWhere each command-line target's time goes in one process (times the floor; "
        "the command adds its start-up, reading the input and, for the tables, the "
        "queries and the output: bench_corpus.py prints those beside it):"
    )
    for command, (_, limit) in TARGETS.items():
        parts = breakdown(figures, command)
        total = sum(share for _, share in parts)
        print(
            f"  {command} (target {limit:g}x): {total:.2f}x in one process = "
            f"{describe_breakdown(parts)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
