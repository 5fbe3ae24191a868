"""Instructions a record for each command's work on a chunk, against the parse floor's:
figures that do not move with the machine's load.

    python benchmarks/bench_instructions.py [--records 100000] [--seed 1] [--workdir DIR]
                                            [--array-records N] [--limit 1000]

Wall and CPU times on a shared machine move by a fifth between identical runs, more than
most changes this project weighs. Valgrind's callgrind counts the instructions a piece
of work executes, the same from run to run to a fraction of a percent. For each stage
below, the first ``--limit`` records of the realistic corpus's JSON Lines (the corpus of
``bench_corpus.py``, cached in the same work folder) are read into chunks, and the stage
is run over them in a process under callgrind; the same process without the pass is
counted too, and the difference, over the records, is the stage's instructions a record
(start-up, imports and reading the file cancel out):

- ``floor``: ``orjson.loads`` of each line (the parse floor of ``bench_corpus.py``);
- ``verify``: verify's work on each chunk (``verify --format json``:
  :func:`phantom_log.running.pipeline.verify_chunk`, reports and their text);
- ``tournament``: the same with each record's facts (``tournament check``, its chunks
  read as spans of the file, as the command reads them);
- ``tables``: the tables' work on each chunk (``export``, ``stats``:
  :func:`phantom_log.running.pipeline.tables_chunk`, every event, the rows and frames);
- ``annotate-csv``: ``annotate --format csv``'s work (each record checked with every
  event, its tricks written as CSV, a batch at a time, into memory);
- ``export-csv``: ``export --jobs 1``'s work to CSV (the tables built in work files, then
  both written as CSV files).

Instructions are not time (a cache miss costs many, SHA-256 runs in software under
valgrind where the processor has instructions for it), so these ratios weigh changes
against each other; ``bench_corpus.py`` gives the time. Needs ``valgrind`` on the path.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from bench_corpus import add_corpus_options, prepare_corpus

#: The work of each stage, run in the measured process on ``chunks`` (the chunks of the
#: records) and ``lines`` (their lines).
STAGES: Final = {
    "floor": "for line in lines:\n    try:\n        orjson.loads(line)\n"
    "    except orjson.JSONDecodeError:\n        pass",
    "verify": "for chunk in chunks:\n    verify_chunk(chunk, Options(output='json'))",
    # tournament check reads its files as spans (each record then knows its place in the
    # file, and its content is digested only if it may be a copy).
    "tournament": "for chunk in span_chunks:\n"
    "    verify_chunk(chunk, Options(output='facts', quiet=True))",
    "tables": "for chunk in chunks:\n    tables_chunk(chunk, None, False)",
    # annotate --format csv: each record checked with every event, its tricks as CSV.
    "annotate-csv": "trick_csv = TrickCsv(io.StringIO())\n"
    "for report in record_reports((path,), None):\n    trick_csv.add(report)\n"
    "trick_csv.flush()",
    # export --jobs 1 to CSV: the tables built in work files, then both written as CSV.
    "export-csv": "with tempfile.TemporaryDirectory() as work:\n"
    "    files = build_tables(source_tables((path,), None, False, 1), Path(work))\n"
    "    sink_csv(files.scan_games().drop('game_key'), Path(work) / 'games.csv')\n"
    "    sink_csv(files.scan_tricks(True).drop('game_key'), Path(work) / 'tricks.csv',\n"
    "             TRICK_TEXT_COLUMNS)",
}

#: What a stage needs besides the chunks and the lines, made before it is counted (and
#: only for it: objects kept alive change what the allocator does in the other stages).
SETUP: Final = {"tournament": "span_chunks = list(read_chunks(path, spans=True))"}

PROGRAM: Final = """
import io
import sys
import tempfile
from pathlib import Path
import orjson
from phantom_log.cli.inputs import record_reports
from phantom_log.records.chunks import read_chunks
from phantom_log.running.outcomes import Options
from phantom_log.running.pipeline import source_tables, tables_chunk, verify_chunk
from phantom_log.views.csv_output import sink_csv
from phantom_log.tabular.tables import TRICK_TEXT_COLUMNS, TrickCsv, build_tables
path = sys.argv[1]
with open(path, "rb") as handle:
    lines = handle.read().splitlines(keepends=True)
chunks = list(read_chunks(path))
{setup}
# The stage once first (its lazy set-up: the gate, jsonschema's validators, polars), so
# that the pass counted below is the steady work of a record. Only this stage: polars'
# threads, once started by another stage's work, would be counted in this one's.
{warm}
if sys.argv[2] == "run":
{work}
"""


def instructions(program: str, path: Path, mode: str, folder: Path) -> int:
    """The instructions callgrind counts for ``program`` run on ``path`` in ``mode``."""
    out = folder / f"callgrind.{mode}.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         sys.executable, "-c", program, str(path), mode],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode not in (0, 1) or found is None:
        raise RuntimeError(f"callgrind failed:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def indented(code: str) -> str:
    return "\n".join("    " + line for line in code.splitlines())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--limit", type=int, default=1_000, help="Records counted (1,000).")
    parser.add_argument(
        "--stages",
        default=",".join(STAGES),
        help="The stages counted, by name, with commas (every one; the floor always).",
    )
    options = parser.parse_args(argv)
    chosen = {"floor", *options.stages.split(",")}
    unknown = chosen - set(STAGES)
    if unknown:
        parser.error(f"no stage {', '.join(sorted(unknown))}: the stages are {', '.join(STAGES)}")
    if shutil.which("valgrind") is None:
        print("bench_instructions.py needs valgrind on the path", file=sys.stderr)
        return 2
    corpus = prepare_corpus(options)
    with open(corpus.jsonl, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)[: options.limit]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        path = folder / "records.jsonl"
        path.write_bytes(b"".join(lines))
        per_record: dict[str, float] = {}
        for stage, work in STAGES.items():
            if stage not in chosen:
                continue
            program = PROGRAM.format(setup=SETUP.get(stage, ""), warm=work, work=indented(work))
            base = instructions(program, path, "skip", folder)
            total = instructions(program, path, "run", folder)
            per_record[stage] = (total - base) / len(lines)
            print(f"  {stage}: {per_record[stage]:,.0f} instructions a record", file=sys.stderr)
    floor = per_record["floor"]
    print(f"{len(lines):,} records of the corpus; instructions a record (callgrind)")
    print(f"{'stage':14} {'instructions':>14} {'x floor':>8}")
    for stage, count in per_record.items():
        print(f"{stage:14} {count:14,.0f} {count / floor:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
