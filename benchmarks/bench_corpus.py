"""phantom-log's commands on a realistic corpus, against the orjson parse floor.

    python benchmarks/bench_corpus.py [--records 100000] [--seed 1] [--workdir DIR]
                                      [--runs N] [--only verify,export,...] [--forms jsonl,array]
                                      [--pure] [--build-jobs J] [--timeout SECONDS]

Builds the corpus of ``benchmarks/corpus.py`` once (cached in the work folder by version,
size, seed and array size: valid and invalid records, unfinished ones, custom sheets,
optional rules, both policies, metadata and extension keys), in two forms: JSON Lines,
and JSON arrays of at most 10,000 records (see corpus.py). Then each command runs, in
each form, in a fresh wrapper process that starts it with its standard output sent to
/dev/null and reports its exit code, wall seconds, CPU seconds, and peak resident memory:
``ru_maxrss`` of ``RUSAGE_CHILDREN`` (the largest single process of the command, workers
included: on Linux the wrapper is a child subreaper, so it adopts and reaps a forkserver
and its workers too, and their CPU time counts as well) and, sampled every 0.1 s from
/proc, the sum over the command's whole process tree (shared pages counted in each
process).

Commands (``--only`` takes these keys, or a prefix: ``export`` is every export, ``verify``
both verify rows):

- ``floor``: the parse floor: reading the JSON Lines and ``orjson.loads`` of each line,
  nothing else. Always measured; it is the floor of both forms (time per record: the
  records are the same). For reference only, ``orjson.loads`` of each whole array file,
  and ``floor-nogc``, both with the garbage collector off: a whole array loaded at once
  is millions of live objects (about 700 MiB for a file of 10,000 records), which the
  collector walks again and again, so it took 16 times the time per record of the lines
  (4 times with the collector off). The commands read an array's records one at a
  time, so that is no floor a reader has to pay: measured against it, every command met
  its target on the array form at a fifth to a half of the floor, which said nothing.
- ``verify``: ``verify --jobs 1 --format json``;
- ``annotate-csv``: ``annotate --format csv`` (annotate has no ``--jobs``);
- ``export-csv``, ``export-parquet``: ``export --jobs 1 --games G --tricks T --force``;
- ``stats``: ``stats --jobs 1``;
- ``tournament``: ``tournament check --jobs 1 --format json``;
- ``verify-j2``, ``export-csv-j2``, ``stats-j2``, ``tournament-j2``: the same with
  ``--jobs 2``, for the scaling figures.

The cases take turns: each round runs every case once, ``--runs`` rounds; each figure is
the fastest run, and the median run beside it (the ratios to the floor: best against
best, median against median). Targets, each marked as met or missed on the fastest runs
(the median printed beside it): verify at most 3x the parse floor of its form
(time per record, so that the array form's few left-out records do not count); annotate
csv, export csv, export parquet and stats at most 5x; tournament check at most 4x, and at
most 400 MiB at 1M records (below 1M records only reported, with a linear projection from
a run on the first tenth of the JSON Lines); the array form as fast as JSON Lines (time
per record at most 1.1x the JSON Lines figure); ``--jobs 2`` at least 1.7x faster than
``--jobs 1`` (the target holds from 100,000 records; below, the figure is only reported).

A command that exits with a code it should not (verify, annotate and tournament check
exit 1 on this corpus, which has invalid records; export and stats 0 or 1), prints a
traceback, times out, or writes no output file is reported loudly, and the script then
exits 1. ``--pure`` sets ``PHANTOM_LOG_PURE_PYTHON=1`` for the commands (not the floor).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from corpus import (
    CORPUS_VERSION,
    DEFAULT_ARRAY_RECORDS,
    Corpus,
    build_corpus,
    describe,
    load_corpus,
    phantom_log_command,
)

MIB: Final = 2**20
FORMS: Final = ("jsonl", "array")
VERIFY_LIMIT: Final = 3.0
TABLES_LIMIT: Final = 5.0
TOURNAMENT_LIMIT: Final = 4.0
TOURNAMENT_MIB_AT_1M: Final = 400.0
ARRAY_TOLERANCE: Final = 1.1
SCALING_TARGET: Final = 1.7
SCALING_FROM: Final = 100_000
MEMORY_AT: Final = 1_000_000
SAMPLE_MIN: Final = 1_000
#: The keys of the cases, for ``--only`` (make_cases builds these).
COMMAND_KEYS: Final = (
    "floor", "floor-nogc", "verify", "annotate-csv", "export-csv", "export-parquet", "stats",
    "tournament", "verify-j2", "export-csv-j2", "stats-j2", "tournament-j2",
)  # fmt: skip

# Runs one command (a JSON spec in argv[1]) in its own process group, its standard output
# sent to /dev/null (or to a file, for the floor's count), its standard error to a file;
# samples the RSS of its process tree; prints exit code, wall and CPU seconds, ru_maxrss
# of RUSAGE_CHILDREN (KiB on Linux, bytes on macOS) and the sampled tree peak, as JSON.
WRAPPER: Final = r"""
import json, os, resource, signal, subprocess, sys, threading, time
spec = json.loads(sys.argv[1])
page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

def tree_rss(root):
    total, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * page
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    todo.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            pass
    return total

try:  # adopt orphaned descendants (a forkserver and its workers) to count their usage
    import ctypes
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER, Linux only
except (OSError, AttributeError):
    pass
env = {**os.environ, **spec["env"]}
finished, timed_out, tree_peak = threading.Event(), threading.Event(), [0]
with open(spec["stderr"], "wb") as errors, open(spec["stdout"], "wb") as output:
    start = time.perf_counter()
    process = subprocess.Popen(
        spec["command"], stdout=output, stderr=errors, env=env, start_new_session=True
    )

    def sample():
        while not finished.wait(0.1):
            tree_peak[0] = max(tree_peak[0], tree_rss(process.pid))

    def kill():
        timed_out.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    timer = threading.Timer(spec["timeout"], kill)
    timer.start()
    process.wait()  # a blocking wait: the end is seen at once
    wall = time.perf_counter() - start
    while True:  # reap what outlived the command, so that its usage counts too
        try:
            os.wait()
        except ChildProcessError:
            break
    timer.cancel()
    finished.set()
    sampler.join()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
scale = 1 if sys.platform == "darwin" else 1024
print(json.dumps({
    "code": process.returncode, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
    "peak": usage.ru_maxrss * scale, "tree_peak": tree_peak[0],
    "timed_out": timed_out.is_set(),
}))
"""

FLOOR_JSONL: Final = """
import sys, orjson
count = broken = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        if line.isspace():
            continue
        count += 1
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            broken += 1
print(count, broken)
"""

# The floor's variant for reference only (no target uses it): the cyclic garbage collector
# off, which matters for whole arrays (millions of live objects built by one loads call).
NO_GC: Final = "import gc; gc.disable()\n"

FLOOR_ARRAY: Final = """
import sys, orjson
count = broken = 0
for path in sys.argv[1:]:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        count += 1
        broken += 1
        continue
    count += len(value) if isinstance(value, list) else 1
print(count, broken)
"""


@dataclass(frozen=True, slots=True)
class Case:
    """One command on one form of the corpus: its key (for ``--only``), its label, the
    argument list, the exit codes it may end with, the files it must write, the jobs it
    runs on, the limit of its ratio to the parse floor (if any) and whether it is the
    floor itself."""

    key: str
    label: str
    form: str
    command: list[str]
    codes: frozenset[int]
    outputs: tuple[Path, ...] = ()
    jobs: int = 1
    floor_limit: float | None = None
    is_floor: bool = False


@dataclass(slots=True)
class Measure:
    """A case's figures over its runs: the wall time of each run (the fastest, ``seconds``,
    and the median), the fastest run's CPU time, the highest peaks; ``failure`` says what
    went wrong, if anything did."""

    walls: list[float] = field(default_factory=list)
    cpu: float = 0.0
    peak_mib: float = 0.0
    tree_mib: float = 0.0
    failure: str | None = None

    @property
    def seconds(self) -> float:
        """The fastest run's wall time."""
        return min(self.walls, default=float("inf"))

    @property
    def median(self) -> float:
        """The median run's wall time."""
        return statistics.median(self.walls) if self.walls else float("inf")


@dataclass(frozen=True, slots=True)
class Check:
    """One target judged: a line for people, and whether it was met (``None``: the
    target does not apply at this size)."""

    text: str
    met: bool | None


@dataclass(slots=True)
class Row:
    """A measured case, with the records of its input and its targets judged."""

    case: Case
    records: int
    measure: Measure
    checks: list[Check] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Records per second (the fastest run)."""
        return self.records / self.measure.seconds if self.measure.failure is None else 0.0

    @property
    def median_rate(self) -> float:
        """Records per second (the median run)."""
        return self.records / self.measure.median if self.measure.failure is None else 0.0


@dataclass(frozen=True, slots=True)
class Run:
    """What one run of a command gave: its exit code (negative: killed by that signal),
    wall and CPU seconds, peak memory of its largest process and sampled over its process
    tree (bytes), whether it timed out, its standard output (kept for the floor only) and
    standard error."""

    code: int
    wall: float
    cpu: float
    peak: int
    tree_peak: int
    timed_out: bool
    stdout: str
    stderr: str


def run_once(case: Case, env: dict[str, str], logs: Path, name: str, timeout: float) -> Run:
    """Runs a case once in a fresh wrapper process, its standard error (and, for the floor,
    its standard output) written to files named ``name`` in ``logs``."""
    stderr = logs / f"{name}.stderr"
    stdout = logs / f"{name}.stdout" if case.is_floor else Path(os.devnull)
    spec = {
        "command": case.command,
        "env": env,
        "stdout": str(stdout),
        "stderr": str(stderr),
        "timeout": timeout,
    }
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, json.dumps(spec)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the measuring wrapper failed:\n{done.stderr}")
    figures = json.loads(done.stdout)
    output = stdout.read_text(errors="replace") if case.is_floor else ""
    if case.is_floor:
        stdout.unlink()
    return Run(
        code=int(figures["code"]),
        wall=float(figures["wall"]),
        cpu=float(figures["cpu"]),
        peak=int(figures["peak"]),
        tree_peak=int(figures["tree_peak"]),
        timed_out=bool(figures["timed_out"]),
        stdout=output,
        stderr=stderr.read_bytes().decode(errors="replace"),
    )


def failure_of(case: Case, run: Run, expected_count: int) -> str | None:
    """What is wrong with a run, or ``None``: a timeout, an unexpected exit code, a
    traceback, a missing output file, a floor that counted other records."""
    if run.timed_out:
        return "timed out (killed)"
    if run.code not in case.codes:
        allowed = " or ".join(str(value) for value in sorted(case.codes))
        problem = f"exit code {run.code} (expected {allowed})"
        if run.code < 0:
            problem += f": killed by signal {-run.code}"
        return problem
    if "Traceback (most recent call last)" in run.stderr:
        return f"exit code {run.code}, but a Python traceback on standard error"
    for path in case.outputs:
        if not path.exists() or path.stat().st_size == 0:
            return f"exit code {run.code}, but no output file {path.name}"
    if case.is_floor:
        counted = int(run.stdout.split()[0]) if run.stdout.split() else -1
        if counted != expected_count:
            return f"the floor counted {counted} records, not {expected_count}"
    return None


def measure_once(
    case: Case,
    result: Measure,
    number: int,
    runs: int,
    env: dict[str, str],
    logs: Path,
    timeout: float,
    expected_count: int,
) -> None:
    """Runs a case once more (its run ``number`` of ``runs``), adding its figures to
    ``result``; a failing run's standard error is kept in ``logs`` and its end printed,
    and the case is not run again."""
    if result.failure is not None:
        return
    print(f"  {case.label} [{case.form}] run {number + 1}/{runs} ...", file=sys.stderr)
    name = f"{case.key}-{case.form}-{number}"
    run = run_once(case, env, logs, name, timeout)
    problem = failure_of(case, run, expected_count)
    for path in case.outputs:
        path.unlink(missing_ok=True)
    if run.wall < result.seconds:
        result.cpu = run.cpu
    result.walls.append(run.wall)
    result.peak_mib = max(result.peak_mib, run.peak / MIB)
    result.tree_mib = max(result.tree_mib, run.tree_peak / MIB)
    if problem is not None:
        result.failure = problem
        tail = "\n".join(run.stderr.strip().splitlines()[-25:])
        print(
            f"\n!!! FAILED: {case.label} [{case.form}]: {problem}\n"
            f"!!! command: {' '.join(case.command)}\n"
            f"!!! standard error kept in {logs / name}.stderr; its end:\n{tail}\n",
            file=sys.stderr,
            flush=True,
        )
        return
    (logs / f"{name}.stderr").unlink(missing_ok=True)


INVALID_EXIT: Final = frozenset({1})  # the corpus has invalid records
LEFT_OUT_EXIT: Final = frozenset({0, 1})  # export and stats leave invalid records out


def command_cases(
    tool: list[str], form: str, source: list[str], out: Path, jobs: int
) -> list[Case]:
    """The cases of the commands on one form of the corpus at ``jobs`` jobs (annotate and
    export parquet at one job only: annotate has no ``--jobs``)."""
    j = ["--jobs", str(jobs)]
    tail = "" if jobs == 1 else "-j2"

    def limit(value: float) -> float | None:
        return value if jobs == 1 else None

    def export(kind: str) -> Case:
        games, tricks = out / f"games-{form}.{kind}", out / f"tricks-{form}.{kind}"
        command = [*tool, "export", *j, "--games", str(games), "--tricks", str(tricks)]
        return Case(
            f"export-{kind}{tail}",
            f"export {kind} --jobs {jobs}",
            form,
            [*command, "--force", *source],
            LEFT_OUT_EXIT,
            (games, tricks),
            jobs,
            limit(TABLES_LIMIT),
        )

    cases = [
        Case(
            f"verify{tail}",
            f"verify --format json --jobs {jobs}",
            form,
            [*tool, "verify", *j, "--format", "json", *source],
            INVALID_EXIT,
            jobs=jobs,
            floor_limit=limit(VERIFY_LIMIT),
        )
    ]
    if jobs == 1:
        annotate = [*tool, "annotate", "--format", "csv", *source]
        cases.append(
            Case("annotate-csv", "annotate --format csv", form, annotate, INVALID_EXIT,
                 floor_limit=TABLES_LIMIT)
        )  # fmt: skip
    cases.append(export("csv"))
    if jobs == 1:
        cases.append(export("parquet"))
    stats = [*tool, "stats", *j, *source]
    cases.append(
        Case(f"stats{tail}", f"stats --jobs {jobs}", form, stats, LEFT_OUT_EXIT, jobs=jobs,
             floor_limit=limit(TABLES_LIMIT))
    )  # fmt: skip
    tournament = [*tool, "tournament", "check", *j, "--format", "json", *source]
    cases.append(
        Case(f"tournament{tail}", f"tournament check --format json --jobs {jobs}", form,
             tournament, INVALID_EXIT, jobs=jobs, floor_limit=limit(TOURNAMENT_LIMIT))
    )  # fmt: skip
    return cases


def make_cases(corpus: Corpus, forms: Sequence[str], out: Path) -> list[Case]:
    """Every case: the floors first, then each command on each form in turn, the commands
    at one job before those at two."""
    tool = phantom_log_command()
    inputs = {"jsonl": [str(corpus.jsonl)], "array": [str(corpus.array_dir)]}
    cases: list[Case] = []
    for key, prefix, note in (("floor", "", ""), ("floor-nogc", NO_GC, ", gc off")):
        # The JSON Lines floor is every form's floor: always measured.
        for form in ["jsonl", *(form for form in forms if form != "jsonl")]:
            if form == "jsonl":
                floor = [sys.executable, "-c", prefix + FLOOR_JSONL, str(corpus.jsonl)]
                label = f"parse floor (orjson, lines{note})"
            else:
                files = map(str, corpus.array_files)
                floor = [sys.executable, "-c", prefix + FLOOR_ARRAY, *files]
                label = f"parse floor (orjson, files{note})"
            cases.append(Case(key, label, form, floor, frozenset({0}), is_floor=True))
    for jobs in (1, 2):
        per_form = [command_cases(tool, form, inputs[form], out, jobs) for form in forms]
        cases.extend(case for same_command in zip(*per_form, strict=True) for case in same_command)
    return cases


def selected(case: Case, only: Sequence[str] | None) -> bool:
    """Whether ``--only`` keeps a case: the floor always; else its key or a key prefix
    (``export`` keeps every export, ``verify`` both verify rows)."""
    if case.is_floor or only is None:
        return True
    return any(case.key == item or case.key.startswith(item + "-") for item in only)


def mark(met: bool | None) -> str:
    """A target's verdict in words."""
    return "n/a" if met is None else "meets" if met else "MISSES"


def record_floor(rows: Sequence[Row]) -> Row | None:
    """The parse floor of every form: the JSON Lines floor's row (see the module's
    docstring)."""
    return next((row for row in rows if row.case.key == "floor" and row.case.form == "jsonl"), None)


def floor_check(row: Row, floor: Row | None) -> Check | None:
    """Time per record against the parse floor (so the array form's few left-out records
    do not count), for a case that has a limit."""
    limit = row.case.floor_limit
    if limit is None or floor is None or floor.measure.failure is not None:
        return None
    ratio = floor.rate / row.rate
    median = floor.median_rate / row.median_rate
    met = ratio <= limit
    return Check(
        f"{row.case.label} [{row.case.form}]: {ratio:.2f}x the parse floor, best run "
        f"(median {median:.2f}x; target <= {limit:g}x): {mark(met)}",
        met,
    )


def memory_check(row: Row, sample: tuple[int, float] | None) -> Check | None:
    """Tournament check's peak memory: judged at 1M records or more; below, only reported,
    with (for JSON Lines) a linear projection from the run on a tenth of the records."""
    if row.case.key != "tournament":
        return None
    peak = row.measure.peak_mib
    where = f"{row.case.label} [{row.case.form}]: peak {peak:.0f} MiB at {row.records:,} records"
    if row.records >= MEMORY_AT:
        met = peak <= TOURNAMENT_MIB_AT_1M
        return Check(f"{where} (target <= 400 MiB at 1M): {mark(met)}", met)
    projected = ""
    if sample is not None and row.case.form == "jsonl":
        count, sample_mib = sample
        slope = (peak - sample_mib) / (row.records - count)
        estimate = peak + slope * (MEMORY_AT - row.records)
        projected = f" ({sample_mib:.0f} MiB at {count:,}: {estimate:.0f} MiB projected to 1M)"
    return Check(
        f"{where}{projected}; target <= 400 MiB at 1M records (run --records 1000000 "
        "--only tournament to judge it): n/a",
        None,
    )


def array_check(row: Row, jsonl: Row | None) -> Check | None:
    """The array form's time per record against the JSON Lines form's."""
    if row.case.form != "array" or jsonl is None or jsonl.measure.failure is not None:
        return None
    ratio = jsonl.rate / row.rate
    met = ratio <= ARRAY_TOLERANCE
    return Check(
        f"{row.case.label}: the array form takes {ratio:.2f}x the JSON Lines time per "
        f"record (target: as fast, <= {ARRAY_TOLERANCE:g}x): {mark(met)}",
        met,
    )


def scaling_check(row: Row, single: Row | None, records: int) -> Check | None:
    """The speed-up of ``--jobs 2`` over ``--jobs 1``, judged from 100,000 records."""
    if row.case.jobs != 2 or single is None or single.measure.failure is not None:
        return None
    speedup = single.measure.seconds / row.measure.seconds
    applies = records >= SCALING_FROM
    met = speedup >= SCALING_TARGET if applies else None
    note = "" if applies else f" (the target applies from {SCALING_FROM:,} records)"
    return Check(
        f"{row.case.label} [{row.case.form}]: {speedup:.2f}x faster than --jobs 1 "
        f"(target >= {SCALING_TARGET:g}x){note}: {mark(met)}",
        met,
    )


def judge(rows: list[Row], records: int, sample: tuple[int, float] | None) -> None:
    """Checks every measured row against its targets, filling ``row.checks``."""
    floor = record_floor(rows)
    by_key = {(row.case.key, row.case.form): row for row in rows}
    for row in rows:
        if row.case.is_floor or row.measure.failure is not None:
            continue
        checks = (
            floor_check(row, floor),
            memory_check(row, sample),
            array_check(row, by_key.get((row.case.key, "jsonl"))),
            scaling_check(
                row, by_key.get((row.case.key.removesuffix("-j2"), row.case.form)), records
            ),
        )
        row.checks.extend(check for check in checks if check is not None)


def status(row: Row) -> str:
    """A row's verdict: FAILED, MISSES (any target missed), meets, or ``-``."""
    if row.measure.failure is not None:
        return "FAILED"
    verdicts = [check.met for check in row.checks if check.met is not None]
    if not verdicts:
        return "-"
    return "meets" if all(verdicts) else "MISSES"


def table(rows: list[Row]) -> str:
    """The figures as a table for people."""
    floor = record_floor(rows)
    header = (
        f"{'command':<40} {'form':<5} {'seconds':>8} {'median':>8} {'records/s':>10} "
        f"{'x floor':>7} {'x med':>6} {'cpu s':>7} {'peak MiB':>8} {'tree MiB':>8}  "
        f"{'target':<34} status"
    )
    lines = [header, "-" * len(header)]
    targets = {
        "verify": "<= 3x floor",
        "annotate-csv": "<= 5x floor",
        "export-csv": "<= 5x floor",
        "export-parquet": "<= 5x floor",
        "stats": "<= 5x floor",
        "tournament": "<= 4x floor, 400 MiB @1M",
    }
    for row in rows:
        case, figures = row.case, row.measure
        target = targets.get(case.key, "")
        if case.jobs == 2:
            target = f">= {SCALING_TARGET:g}x jobs 1"
        if case.form == "array" and not case.is_floor:
            target += "; = JSONL"
        if figures.failure is not None:
            lines.append(f"{case.label:<40} {case.form:<5} {'FAILED: ' + figures.failure}")
            continue
        against = floor is not None and floor.measure.failure is None and not case.is_floor
        ratio = f"{floor.rate / row.rate:7.2f}" if against and floor else f"{'-':>7}"
        median = f"{floor.median_rate / row.median_rate:6.2f}" if against and floor else f"{'-':>6}"
        lines.append(
            f"{case.label:<40} {case.form:<5} {figures.seconds:8.2f} {figures.median:8.2f} "
            f"{row.rate:10,.0f} {ratio} {median} {figures.cpu:7.2f} {figures.peak_mib:8.0f} "
            f"{figures.tree_mib:8.0f}  {target:<34} {status(row)}"
        )
    return "\n".join(lines)


def sample_peak(
    corpus: Corpus, workdir: Path, env: dict[str, str], logs: Path, timeout: float
) -> tuple[int, float] | None:
    """The records and peak memory (MiB) of ``tournament check --jobs 1`` on the first
    tenth of the JSON Lines file, for projecting the peak to 1M records; ``None`` below
    1,000 records or when the run fails."""
    count = corpus.records // 10
    if count < SAMPLE_MIN:
        return None
    path = workdir / "sample.jsonl"
    with open(corpus.jsonl, "rb") as source, open(path, "wb") as sample:
        for _ in range(count):
            sample.write(source.readline())
    case = Case(
        "tournament-sample",
        f"tournament check --jobs 1 on the first {count:,} records",
        "jsonl",
        [*phantom_log_command(), "tournament", "check", "--jobs", "1", "--format", "json",
         str(path)],
        frozenset({0, 1}),
    )  # fmt: skip
    figures = Measure()
    measure_once(case, figures, 0, 1, env, logs, timeout, count)
    path.unlink()
    return None if figures.failure is not None else (count, figures.peak_mib)


def prepare_corpus(options: argparse.Namespace) -> Corpus:
    """The corpus of the options, from the work folder's cache or built there now."""
    name = f"corpus-v{CORPUS_VERSION}-n{options.records}-s{options.seed}-a{options.array_records}"
    directory: Path = options.workdir / name
    corpus = load_corpus(directory)
    if corpus is not None and corpus.composition.get("version") == CORPUS_VERSION:
        print(f"using the corpus cached in {directory}", file=sys.stderr)
        return corpus
    print(f"building the corpus in {directory} ...", file=sys.stderr)
    return build_corpus(
        directory, options.records, options.seed, options.array_records, options.build_jobs
    )


def warm(corpus: Corpus) -> None:
    """Reads every input file once, so that the first command timed finds them in the page
    cache like the others; and compiles phantom-log's modules to bytecode, as ``pip
    install`` does for a user (an editable install under ``PYTHONDONTWRITEBYTECODE``
    would otherwise compile them again at each command's start)."""
    import compileall

    import phantom_log

    compileall.compile_dir(Path(phantom_log.__file__).parent, quiet=1)
    for path in [corpus.jsonl, *corpus.array_files]:
        with open(path, "rb") as handle:
            while handle.read(8 * MIB):
                pass


def add_corpus_options(parser: argparse.ArgumentParser) -> None:
    """The options that name the corpus (and how to build it): its size, seed, work folder
    (where it is cached) and array size, shared by the benchmarks that read it."""
    parser.add_argument("--records", type=int, default=100_000, help="Corpus size.")
    parser.add_argument("--seed", type=int, default=1, help="Corpus seed (default 1).")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "phantom-log-bench-corpus",
        help="Where the corpus is cached and the outputs written.",
    )
    parser.add_argument(
        "--array-records",
        type=int,
        default=DEFAULT_ARRAY_RECORDS,
        help="Records per array file (0: one file). Default 10,000.",
    )
    parser.add_argument(
        "--build-jobs", type=int, default=1, help="Processes building the corpus (default 1)."
    )


def parse_options(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command-line options (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_options(parser)
    parser.add_argument("--runs", type=int, default=1, help="Runs per command (best kept).")
    parser.add_argument(
        "--only",
        type=lambda text: [item.strip() for item in text.split(",") if item.strip()],
        default=None,
        help="Comma-separated command keys or prefixes (the floor is always measured).",
    )
    parser.add_argument(
        "--forms",
        type=lambda text: [item.strip() for item in text.split(",") if item.strip()],
        default=list(FORMS),
        help="jsonl, array or both (default both).",
    )
    parser.add_argument(
        "--pure",
        action="store_true",
        help="Set PHANTOM_LOG_PURE_PYTHON=1 for the commands (the pure-Python engine).",
    )
    parser.add_argument(
        "--timeout", type=float, default=3600.0, help="Seconds before a command is killed."
    )
    parser.add_argument(
        "--stages",
        type=int,
        default=20_000,
        help="Records bench_stages.py times in one process, for where each missed target's "
        "time goes (default 20,000; 0: not run).",
    )
    options = parser.parse_args(argv)
    unknown = set(options.forms) - set(FORMS)
    if unknown or not options.forms:
        parser.error(f"--forms takes jsonl and/or array, not {', '.join(sorted(unknown))}")
    for item in options.only or []:
        if not any(key == item or key.startswith(item + "-") for key in COMMAND_KEYS):
            parser.error(f"--only: no command {item!r} (known: {', '.join(COMMAND_KEYS)})")
    return options


def row_misses_floor(row: Row, floor: Row | None) -> bool:
    """True for a command at one job whose target against the floor is missed (as
    :func:`floor_check` judges it)."""
    if row.case.jobs != 1 or row.measure.failure is not None:
        return False
    check = floor_check(row, floor)
    return check is not None and check.met is False


def stage_figures(options: argparse.Namespace, env: dict[str, str]) -> dict[str, float] | None:
    """bench_stages.py's figures (us a record, by stage) on the first ``options.stages``
    records of the same corpus, in a process of their own with the commands' build
    (``None`` if it fails)."""
    script = Path(__file__).with_name("bench_stages.py")
    command = [
        sys.executable, str(script), "--records", str(options.records), "--seed",
        str(options.seed), "--workdir", str(options.workdir), "--array-records",
        str(options.array_records), "--limit", str(options.stages), "--runs", "3", "--json",
    ]  # fmt: skip
    print(f"  bench_stages.py on {options.stages:,} records ...", file=sys.stderr)
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **env}, check=False
    )
    if done.returncode != 0:
        print(f"bench_stages.py failed:\n{done.stderr}", file=sys.stderr)
        return None
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])["figures"]
    return figures


def where_time_goes(
    missed: Sequence[Row], floor: Row | None, figures: dict[str, float] | None
) -> str:
    """For each command whose target is missed, the stage that holds it: the parts of its
    work on a chunk in one process (bench_stages.py), and what the command adds to them
    (start-up, reading the input, the queries and writing the output), each as times the
    floor."""
    from bench_stages import TARGETS, breakdown, describe_breakdown

    title = "Where the missed targets' time goes (times the floor):"
    if figures is None or floor is None:
        return title + " not measured (bench_stages.py or the floor failed)"
    lines = [title]
    for row in missed:
        if row.case.key not in TARGETS:
            continue
        _, limit = TARGETS[row.case.key]
        ratio = floor.rate / row.rate
        parts = breakdown(figures, row.case.key)
        in_process = sum(share for _, share in parts)
        largest = max(parts[1:], key=lambda part: part[1])
        lines.append(
            f"  {row.case.label} [{row.case.form}]: {ratio:.2f}x, over the {limit:g}x target "
            f"by {ratio - limit:.2f}x; in one process {in_process:.2f}x = "
            f"{describe_breakdown(parts)}; the command's own start-up, reading and "
            f"output {ratio - in_process:+.2f}x. The largest part past the floor: "
            f"{largest[0]} ({largest[1]:.2f}x)."
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Builds or finds the corpus, measures the cases, prints the table and the targets;
    returns 1 when a command failed."""
    options = parse_options(argv)
    options.workdir.mkdir(parents=True, exist_ok=True)
    corpus = prepare_corpus(options)
    print(describe(corpus))
    # Each run writes its outputs and logs in folders of its own: two runs sharing the
    # corpus's work folder must not remove each other's files.
    out = Path(tempfile.mkdtemp(prefix="out-", dir=options.workdir))
    logs = Path(tempfile.mkdtemp(prefix="logs-", dir=options.workdir))
    env = {"PHANTOM_LOG_PURE_PYTHON": "1"} if options.pure else {}
    cases = [
        case for case in make_cases(corpus, options.forms, out) if selected(case, options.only)
    ]
    counts = {"jsonl": corpus.records, "array": corpus.array_records}
    warm(corpus)
    load_before = os.getloadavg()[0]
    rows = [Row(case, counts[case.form], Measure()) for case in cases]
    # The cases take turns, a run of each in each round, so that a slow spell of the
    # machine falls on every case alike and the ratios to the floor hold.
    for number in range(options.runs):
        for row in rows:
            measure_once(
                row.case,
                row.measure,
                number,
                options.runs,
                {} if row.case.is_floor else env,
                logs,
                options.timeout,
                counts[row.case.form],
            )
    sample = None
    if any(row.case.key == "tournament" and row.case.form == "jsonl" for row in rows):
        sample = sample_peak(corpus, options.workdir, env, logs, options.timeout)
    judge(rows, corpus.records, sample)
    load_after = os.getloadavg()[0]
    print()
    print(
        f"{corpus.records:,} records ({corpus.array_records:,} in the array form), "
        f"{corpus.composition['jsonl_bytes'] / MIB:,.0f} MiB of JSON Lines; best of "
        f"{options.runs} interleaved run(s), median in the targets; {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}"
        + ("; PHANTOM_LOG_PURE_PYTHON=1" if options.pure else "")
    )
    print(
        f"load average (1 min) {load_before:.2f} before, {load_after:.2f} after: other work "
        "on the machine slows the figures"
    )
    print("peak MiB: the largest single process (ru_maxrss); tree MiB: the whole process")
    print("tree, sampled every 0.1 s; x floor: time per record over the JSON Lines floor's")
    print()
    print(table(rows))
    print()
    print("Targets:")
    for row in rows:
        for check in row.checks:
            print(f"  {check.text}")
    floor = record_floor(rows)
    missed = [row for row in rows if row_misses_floor(row, floor)]
    if missed and options.stages > 0:
        print()
        print(where_time_goes(missed, floor, stage_figures(options, env)))
    failed = [row for row in rows if row.measure.failure is not None]
    shutil.rmtree(out, ignore_errors=True)
    if not any(logs.iterdir()):
        logs.rmdir()
    if failed:
        print()
        print(f"!!! {len(failed)} command(s) FAILED (standard error kept in {logs}):")
        for row in failed:
            print(f"!!!   {row.case.label} [{row.case.form}]: {row.measure.failure}")
            print(f"!!!     {' '.join(row.case.command)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
