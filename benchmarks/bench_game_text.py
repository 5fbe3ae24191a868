"""Reading game text (``.ptn``) against reading the same records as JSON Lines.

    python benchmarks/bench_game_text.py [--records 100000] [--seed 1] [--workdir DIR]
                                         [--limit 20000] [--runs 5] [--unseen 0.2]
                                         [--mistakes 0.05]

On the records of the realistic corpus (``benchmarks/corpus.py``, cached as
``bench_corpus.py`` caches it) that have the schema's shape (custom sheets, both optional
rules, unfinished games, records that break the rules; the ones that are no JSON or
break the schema cannot be written as text and are left out), the first ``--limit`` are
written twice: as JSON Lines, and as one game text of all the games (``convert``'s text,
a share ``--unseen`` of the finished games with their deals left out, to be found from
the play, and a share ``--mistakes`` with one card of a trick mistyped, as a hand at the
table may write it: a ``notation`` problem). Then, in this process, for each form:

- ``read``: the source read into records (``read_source``): JSON parsed, or the text
  read and made into the records it stands for (turns and deals found by the rules);
- ``verify``: read and checked (``verify_record``, the verdict only, as ``verify`` does).

It prints the CPU time per record (the best of ``--runs``, the forms taking turns) and the
ratio of the text's to JSON's, against the target: at most 2x the JSON path's time per
record.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from bench_corpus import add_corpus_options, prepare_corpus

from phantom_log import engine_build
from phantom_log.checking.verdict import check_record, verify_record
from phantom_log.records.record_texts import record_text, text_losses
from phantom_log.records.schema import schema_valid
from phantom_log.records.source_records import read_source
from phantom_log.rules.problems import Severity
from phantom_log.rules.replay import VerdictBuilder

#: The target: reading text costs at most this many times what reading JSON does.
TARGET: float = 2.0


def records_of_shape(jsonl: Path, limit: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``limit`` records of the corpus's JSON Lines that have the schema's
    shape (whatever the rules say of them) and that game text keeps whole (not those
    whose cards were given to players whose turn it was not: the text never names who
    plays); and how many were passed over for that."""
    found = []
    lossy = 0
    with open(jsonl, "rb") as lines:
        for line in lines:
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict) and schema_valid(value):
                if text_losses(value):
                    lossy += 1
                    continue
                found.append(value)
                if len(found) >= limit:
                    break
    return found, lossy


def game_text(
    records: list[dict[str, Any]], unseen: float, mistakes: float, seed: int
) -> tuple[str, int, int]:
    """The records as one game text, a share ``unseen`` of the valid finished ones played
    to their last trick with their deals left out, a share ``mistakes`` with a trick's
    card mistyped; how many were left without their deals, and how many valid records
    a mistyped card made invalid."""
    rng = random.Random(seed)
    parts = []
    left_out = spoiled = 0
    for record in records:
        text, _ = record_text(record)
        if rng.random() < mistakes:
            mistyped = _mistyped(text, rng)
            spoiled += mistyped != text and _valid(record)
            text = mistyped
        rounds = record.get("rounds", [])
        played_out = all(len(round_.get("tricks", ())) == 10 for round_ in rounds)
        if played_out and rng.random() < unseen and _valid_and_finished(record):
            text = "".join(
                line
                for line in text.splitlines(keepends=True)
                if not line.startswith(("deal ", "aside "))
            )
            left_out += 1
        parts.append(text)
    return "\n".join(parts), left_out, spoiled


def _mistyped(text: str, rng: random.Random) -> str:
    """The text with the number of a trick's first card made 7, which no card has."""
    lines = text.splitlines(keepends=True)
    tricks = [index for index, line in enumerate(lines) if line[:1].isdigit() and ". " in line]
    if not tricks:
        return text
    index = rng.choice(tricks)
    number, rest = lines[index].split(". ", 1)
    lines[index] = f"{number}. {rest[:2]}7{rest[3:]}"
    return "".join(lines)


def _valid(record: dict[str, Any]) -> bool:
    problems, _ = check_record(record)
    return all(problem.severity is not Severity.ERROR for problem in problems)


def _valid_and_finished(record: dict[str, Any]) -> bool:
    problems, outcome = check_record(record)
    return not problems and outcome is not None and outcome.result is not None


def read_all(path: Path) -> int:
    return sum(1 for _ in read_source(str(path)))


def verify_all(path: Path) -> int:
    return sum(
        1
        for record in read_source(str(path))
        if verify_record(record, builder=VerdictBuilder).valid
    )


def seconds_per_record(
    paths: dict[str, Path], records: int, runs: int, spoiled: int
) -> dict[tuple[str, str], float]:
    work: dict[str, Callable[[Path], int]] = {"read": read_all, "verify": verify_all}
    best = {(stage, form): float("inf") for stage in work for form in paths}
    valid: dict[str, int] = {}
    for _ in range(runs):
        for stage, run in work.items():
            for form, path in paths.items():
                gc.collect()
                started = time.process_time()
                counted = run(path)
                spent = (time.process_time() - started) / records
                best[stage, form] = min(best[stage, form], spent)
                if stage == "verify":
                    valid[form] = counted
    if valid["jsonl"] - spoiled != valid["ptn"]:
        raise SystemExit(f"the forms' verdicts differ: {valid} valid records, {spoiled} mistyped")
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--limit", type=int, default=20_000, help="Records measured.")
    parser.add_argument("--runs", type=int, default=5, help="Runs (the best is kept).")
    parser.add_argument(
        "--unseen", type=float, default=0.2, help="Share of finished games without deals."
    )
    parser.add_argument(
        "--mistakes", type=float, default=0.05, help="Share of games with a card mistyped."
    )
    options = parser.parse_args()
    corpus = prepare_corpus(options)
    records, lossy = records_of_shape(corpus.jsonl, options.limit)
    text, left_out, spoiled = game_text(records, options.unseen, options.mistakes, options.seed)
    folder = options.workdir / "game-text"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"jsonl": folder / "records.jsonl", "ptn": folder / "records.ptn"}
    paths["jsonl"].write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    paths["ptn"].write_text(text, encoding="utf-8")
    print(
        f"{len(records):,} records of the schema's shape ({left_out:,} as text without their "
        f"deals, {spoiled:,} valid ones made invalid by a mistyped card; {lossy:,} whose "
        f"players were not the turn's passed over); rules engine: "
        f"{engine_build()}",
    )
    best = seconds_per_record(paths, len(records), options.runs, spoiled)
    met = True
    for stage in ("read", "verify"):
        json_us, text_us = best[stage, "jsonl"] * 1e6, best[stage, "ptn"] * 1e6
        ratio = text_us / json_us
        judged = "met" if ratio <= TARGET else "MISSED"
        met &= ratio <= TARGET
        print(
            f"{stage:7} JSON Lines {json_us:8.1f} us/record   game text {text_us:8.1f} "
            f"us/record   {ratio:4.2f}x   (target {TARGET:.0f}x: {judged})"
        )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
