"""What finding copies costs ``tournament check``: events with no copy, a few, and nothing but.

    python benchmarks/bench_copies.py [--records 100000] [--seed 1] [--workdir DIR]
                                      [--runs 3] [--jobs 1,2]

A record's content is digested only if it may be a copy: if another record of the event
shares its first deal (every copy does). Those records' texts are read again from their
files, after every record is checked, and digested then (docs/engine.md). This times
``tournament check --format json`` on events made of the realistic corpus of
``benchmarks/corpus.py`` (the one ``bench_corpus.py`` builds, and caches in the same work
folder), its JSON Lines file as it is and with copies added:

- ``none``: the corpus alone (its records share no first deal with another, but for the
  reused deals the corpus holds on purpose);
- ``1%``: the corpus, and a second file of JSON Lines holding a copy of every hundredth
  record (another game id, its keys in another order, pretty-printed on one line);
- ``all``: the corpus twice, under two names (an organiser who gave the same file twice):
  every record is a copy of another, so every text is read again.

Each event runs in a fresh process, the cases taking turns, ``--runs`` rounds, for each
number of ``--jobs``; it prints the best and the median wall and CPU seconds, the records
found (``duplicate-record`` warnings), and the CPU time a record of the event, and how
much more than a record of ``none`` it is: what reading the possible copies' texts again
and digesting them costs, spread over the event.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench_corpus import add_corpus_options, prepare_corpus, warm
from corpus import phantom_log_command


def events(corpus_jsonl: Path, folder: Path) -> dict[str, list[Path]]:
    """The events' files, made in ``folder`` from the corpus's JSON Lines."""
    folder.mkdir(parents=True, exist_ok=True)
    copies = folder / "copies-1pc.jsonl"
    twice = folder / "corpus-again.jsonl"
    if not copies.exists():
        lines = []
        with open(corpus_jsonl, "rb") as handle:
            for number, line in enumerate(handle):
                if number % 100:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                record = {key: record[key] for key in reversed(list(record))}
                record["game_id"] = f"copy-{number}"
                lines.append(json.dumps(record, ensure_ascii=False, separators=(", ", ": ")))
        copies.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if not twice.exists():
        shutil.copyfile(corpus_jsonl, twice)
    return {"none": [corpus_jsonl], "1%": [corpus_jsonl, copies], "all": [corpus_jsonl, twice]}


def run(command: list[str]) -> tuple[float, float, dict[str, int]]:
    """Wall and CPU seconds of one run, and its problems counted by code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]!r}")
    report = json.loads(done.stdout)
    codes: dict[str, int] = {}
    for problem in report["problems"]:
        codes[problem["code"]] = codes.get(problem["code"], 0) + 1
    codes["records"] = report["records"]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, codes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--runs", type=int, default=3, help="Rounds (each figure the best).")
    parser.add_argument("--jobs", default="1,2", help="Numbers of jobs, comma-separated.")
    options = parser.parse_args(argv)
    corpus = prepare_corpus(options)
    warm(corpus)
    made = events(corpus.jsonl, options.workdir / "copies")
    tool = phantom_log_command()
    jobs = [int(number) for number in options.jobs.split(",")]
    cases = [(name, number) for number in jobs for name in made]
    timings: dict[tuple[str, int], list[tuple[float, float]]] = {case: [] for case in cases}
    counts: dict[tuple[str, int], dict[str, int]] = {}
    for _ in range(options.runs):
        for name, number in cases:
            command = [*tool, "tournament", "check", "--format", "json", "-q"]
            command += ["--jobs", str(number), *map(str, made[name])]
            wall, cpu, codes = run(command)
            timings[(name, number)].append((wall, cpu))
            counts[(name, number)] = codes
    print(
        f"tournament check on corpus v{corpus.composition['version']} "
        f"({corpus.composition['records']:,} records), best / median of {options.runs}"
    )
    print(
        f"{'event':6} {'jobs':>4} {'records':>9} {'copies':>7} {'wall s':>14} {'cpu s':>14} "
        f"{'cpu us/record':>13} {'vs none':>8}"
    )
    for name, number in cases:
        walls = sorted(wall for wall, _ in timings[(name, number)])
        cpus = sorted(cpu for _, cpu in timings[(name, number)])
        codes = counts[(name, number)]
        base = (
            min(cpu for _, cpu in timings[("none", number)]) / counts[("none", number)]["records"]
        )
        per_record = cpus[0] / codes["records"]
        print(
            f"{name:6} {number:>4} {codes['records']:>9,} {codes.get('duplicate-record', 0):>7,} "
            f"{walls[0]:>6.2f} / {walls[len(walls) // 2]:<5.2f} "
            f"{cpus[0]:>6.2f} / {cpus[len(cpus) // 2]:<5.2f} {per_record * 1e6:>8.2f} "
            f"{(per_record - base) * 1e6:>+8.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
