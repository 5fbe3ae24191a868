"""The fuzz harness: run every command that reads records on one input, and check the
promises of the reliability issue on what each one does.

An input is a :class:`Case`: files written to a fresh folder, the paths given on the
command line (files, the folder, ``-`` for standard input) and standard input's bytes.
:func:`check_case` runs ``verify`` (text and json), ``annotate`` (table, json, csv),
``show`` (text and ``--svg``), ``export`` (csv and parquet), ``stats``, ``tournament
check`` (text and json) and the Python API on it, and raises :class:`FuzzFailure`,
naming the promise broken, the command and the input, when any of these fails:

* **no traceback** -- no exception escapes a command (CliRunner's exception is a
  ``SystemExit``), no standard stream holds "Traceback", and no record is an
  ``internal-error`` (a failure of the checker is a bug to report, even when isolated);
* **every record reported** -- ``verify --format json`` gives one object per record, in
  input order, each source's indexes 0, 1, 2, ...; the text report, the annotations, the
  tables, the tournament report and the API name the same records;
* **exit code in its class** -- 0 or 1 as the records are valid or not, 3 only where a
  source is meant to be unreadable, never 2 for an input that holds records;
* **bounded output** -- one record's report stays under :data:`REPORT_LIMIT` whatever the
  record's size, and no command takes longer than :data:`SLOW_SECONDS`;
* **safe output** -- standard output is valid UTF-8, JSON output is valid JSON Lines (no
  lone surrogates), text output holds no control character or bidirectional override,
  and an SVG picture is well-formed XML.

Nothing here uses hypothesis: the hypothesis suite (``test_fuzz.py``) and the
coverage-guided target (``fuzz/atheris_target.py``) both call :func:`check_case`.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
import time
import traceback
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from click.testing import CliRunner, Result

import phantom_log
from phantom_log.cli import main
from phantom_log.records.source_records import read_source
from phantom_log.views.reports import printable

#: The most one record's report may take, in any command (the issue: "tens of KB at most").
REPORT_LIMIT = 64 * 1024
#: What a spreadsheet runs a cell beginning with (OWASP's advice on CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: The most one command may take on one fuzz input (all are small): more is a hang.
SLOW_SECONDS = 30.0
#: Characters that must never reach a terminal raw: C0 controls but the line break, DEL,
#: C1 controls, bidirectional marks, embeddings, overrides and isolates, the line and
#: paragraph separators, and lone surrogates.
UNSAFE_TEXT = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2066-\u2069\ud800-\udfff]"
)
RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson")
ALLOWED_EXITS = frozenset({0, 1, 2, 3})
FAILURE_CODES = frozenset({"internal-error", "unreadable"})
#: How an internal error shows: the code in JSON, in a problem line, or the one line the
#: console script prints for a crash.
INTERNAL_ERROR_SIGNS = (b'"internal-error"', b": internal-error: ", b"internal error (")


_REPORTS = frozenset(
    {"verify-json", "verify-text", "annotate-json", "annotate-table", "show", "tournament-json"}
)
#: The commands of each mode: ``all``; ``reading``, all but the four that cost ten times
#: more (export, stats, annotate csv, the tournament's text); ``reports``, the reading
#: commands without the API; ``api``, ``verify --format json`` and the API.
MODES: dict[str, frozenset[str]] = {
    "all": _REPORTS | {"api", "annotate-csv", "tournament-text", "export", "stats"},
    "reading": _REPORTS | {"api"},
    "reports": _REPORTS,
    "api": frozenset({"verify-json", "api"}),
}


class FuzzFailure(AssertionError):
    """A promise broken: which one, by which command, on which input."""


@dataclass
class Case:
    """One input for every command.

    ``files`` are written into a fresh folder (names may hold any character but ``/`` and
    NUL); ``paths`` are what the command line gives, each a file name of ``files``, ``.``
    for the folder itself, or ``-`` for standard input (``stdin``). ``records`` gives, where
    the input was built so that it is known, how many records each source holds (by the
    source's name in ``paths``/``files``, ``-`` for standard input). ``may_fail`` is set
    when a source is meant to be unreadable (exit 3 allowed); ``options`` are added to
    every command that reads records (``--max-record-size``, ``--sheets``).
    """

    files: dict[str, bytes] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    stdin: bytes | None = None
    records: dict[str, int] = field(default_factory=dict)
    may_fail: bool = False
    options: list[str] = field(default_factory=list)
    extra_files: dict[str, bytes] = field(default_factory=dict)  # side files (--sheets)
    #: Called with the input folder once the files are written (links, FIFOs).
    setup: Callable[[Path], None] | None = None

    def describe(self, limit: int = 600) -> str:
        """The input, shortly: each file's name and the start of its bytes."""
        parts = [f"paths={self.paths!r}", f"options={self.options!r}"]
        for name, data in self.files.items():
            parts.append(f"{name!r} ({len(data)} bytes): {_head(data, limit)}")
        if self.stdin is not None:
            parts.append(f"stdin ({len(self.stdin)} bytes): {_head(self.stdin, limit)}")
        for name, data in self.extra_files.items():
            parts.append(f"side file {name!r} ({len(data)} bytes): {_head(data, limit)}")
        return "\n    ".join(parts)


def _head(data: bytes, limit: int) -> str:
    return repr(data[:limit]) + ("…" if len(data) > limit else "")


@dataclass
class Ran:
    """What one command did."""

    args: list[str]
    exit_code: int
    stdout: bytes
    stderr: bytes
    exception: BaseException | None
    trace: str
    seconds: float


@dataclass
class Report:
    """One record as ``verify --format json`` reported it."""

    source: str
    index: int
    game_id: str | None
    valid: bool
    codes: list[str]

    @property
    def failed(self) -> bool:
        return any(code in FAILURE_CODES for code in self.codes)

    @property
    def name(self) -> str:
        return f"{self.source}#{self.index}"


class Checker:
    """The commands run on one case in one folder, and what each must do."""

    def __init__(self, case: Case, folder: Path, commands: str = "all") -> None:
        self.case = case
        self.folder = folder
        self.commands = commands
        self.paths = [self.path_of(path) for path in case.paths]
        self.options = [self.side(option) for option in case.options]
        self.outputs = 0

    # -- paths -------------------------------------------------------------------------

    def path_of(self, path: str) -> str:
        if path == "-":
            return "-"
        if path == ".":
            return str(self.folder / "in")
        if path.startswith("/"):
            return path
        return str(self.folder / "in" / path)

    def side(self, option: str) -> str:
        if option in self.case.extra_files:
            return str(self.folder / "side" / option)
        return option

    def output(self, suffix: str) -> str:
        self.outputs += 1
        return str(self.folder / "out" / f"out{self.outputs}{suffix}")

    def expected_sources(self) -> list[str]:
        """The sources in the order the records must come: each path as given, a folder
        as the record-named entries found in it (hidden ones and folders left out), in
        sorted order."""
        sources: list[str] = []
        for given, path in zip(self.case.paths, self.paths, strict=True):
            if given == ".":
                names = sorted(
                    entry.name
                    for entry in os.scandir(path)
                    if not entry.name.startswith(".")
                    and entry.name.lower().endswith(RECORD_SUFFIXES)
                    and not _is_folder(entry)
                )
                sources.extend(str(Path(path) / name) for name in names)
            else:
                sources.append(path)
        return [display(source) for source in sources]

    def expected_count(self, source: str) -> int | None:
        """How many records a source holds, where the case knows it."""
        if source == "-":
            return self.case.records.get("-")
        for given, count in self.case.records.items():
            if given != "-" and display(str(self.folder / "in" / given)) == source:
                return count
        return None

    # -- running -----------------------------------------------------------------------

    def run(self, *args: str, paths: list[str] | None = None) -> Ran:
        """One command on the case's paths (or ``paths``), in process, with the case's
        standard input."""
        full = [*args, *self.options, *(self.paths if paths is None else paths)]
        started = time.monotonic()
        result: Result = CliRunner().invoke(
            main, full, input=self.case.stdin, catch_exceptions=True
        )
        seconds = time.monotonic() - started
        trace = ""
        if result.exc_info is not None and not isinstance(result.exception, SystemExit):
            trace = "".join(traceback.format_exception(*result.exc_info))
        ran = Ran(
            full,
            result.exit_code,
            result.stdout_bytes,
            result.stderr_bytes or b"",
            result.exception,
            trace,
            seconds,
        )
        self.no_traceback(ran)
        return ran

    def fail(self, promise: str, ran: Ran | None, detail: str) -> FuzzFailure:
        lines = [f"{promise}: {detail}"]
        if ran is not None:
            lines.append(f"  command: phantom-log {' '.join(map(repr, ran.args))}")
            lines.append(f"  exit code: {ran.exit_code}")
            lines.append(f"  stdout: {_head(ran.stdout, 1500)}")
            lines.append(f"  stderr: {_head(ran.stderr, 1500)}")
            if ran.trace:
                lines.append("  traceback:\n" + ran.trace)
        lines.append(f"  input: {self.case.describe()}")
        return FuzzFailure("\n".join(lines))

    # -- the promises ------------------------------------------------------------------

    def no_traceback(self, ran: Ran) -> None:
        if ran.exception is not None and not isinstance(ran.exception, SystemExit):
            raise self.fail(
                "no traceback", ran, f"the command raised {type(ran.exception).__name__}"
            )
        for stream, data in (("stdout", ran.stdout), ("stderr", ran.stderr)):
            if b"Traceback (most recent call last)" in data:
                raise self.fail("no traceback", ran, f"a traceback on {stream}")
            if any(sign in data for sign in INTERNAL_ERROR_SIGNS):
                raise self.fail("no internal-error", ran, f"an internal error on {stream}")
        if ran.exit_code not in ALLOWED_EXITS:
            raise self.fail("exit code in its class", ran, "not one of 0, 1, 2, 3")
        if ran.seconds > SLOW_SECONDS:
            raise self.fail("no hang", ran, f"took {ran.seconds:.1f} s")

    def exit_code(self, ran: Ran, expected: set[int], why: str) -> None:
        if ran.exit_code not in expected:
            raise self.fail("exit code in its class", ran, f"expected {sorted(expected)} ({why})")

    def utf8(self, ran: Ran) -> str:
        try:
            return ran.stdout.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self.fail("valid UTF-8", ran, str(error)) from None

    def safe_text(self, ran: Ran, text: str) -> None:
        for stream, value in (("stdout", text), ("stderr", ran.stderr.decode("utf-8", "replace"))):
            found = UNSAFE_TEXT.search(value)
            if found:
                raise self.fail(
                    "safe text output",
                    ran,
                    f"U+{ord(found.group()):04X} unescaped on {stream} at {found.start()}",
                )

    def json_lines(self, ran: Ran) -> list[Any]:
        text = self.utf8(ran)
        values = []
        if text and not text.endswith("\n"):
            raise self.fail("valid JSON Lines", ran, "the last line has no line break")
        # Lines end at LF only: U+2028 and the like may stand raw inside a JSON string.
        for number, line in enumerate(text.split("\n")[:-1], start=1):
            try:
                values.append(orjson.loads(line))
            except orjson.JSONDecodeError as error:
                raise self.fail(
                    "valid JSON Lines", ran, f"line {number} is not JSON ({error})"
                ) from None
            if len(line.encode("utf-8")) > REPORT_LIMIT:
                raise self.fail("bounded output", ran, f"line {number} has {len(line)} characters")
        return values

    def bounded(self, ran: Ran, records: int, per_record: int = REPORT_LIMIT) -> None:
        limit = max(records, 1) * per_record + 16 * 1024
        for stream, data in (("stdout", ran.stdout), ("stderr", ran.stderr)):
            if len(data) > limit:
                raise self.fail(
                    "bounded output",
                    ran,
                    f"{len(data)} bytes on {stream} for {records} record(s)",
                )

    def spreadsheet_safe(self, ran: Ran, rows: list[list[str]]) -> None:
        """No CSV cell that a spreadsheet runs: a text cell beginning with ``= + - @``, a
        tab or a carriage return, and going on after it, has a quote before it; only
        numbers may begin with a minus."""
        for number, row in enumerate(rows[1:], start=2):
            for cell in row:
                if len(cell) > 1 and cell.startswith(FORMULA_STARTS) and not _is_number(cell):
                    raise self.fail(
                        "no CSV cell a spreadsheet runs", ran, f"row {number}: {cell[:60]!r}"
                    )

    def in_order(self, ran: Ran, text: str, names: list[str], what: str) -> None:
        """Each name starts a line (``name`` then a space or a colon), in that order."""
        position = 0
        for name in names:
            pattern = re.compile("^" + re.escape(name) + "[ :]", re.MULTILINE)
            found = pattern.search(text, position)
            if found is None:
                raise self.fail("every record reported", ran, f"{what}: {name} is missing")
            position = found.start()

    # -- the commands ------------------------------------------------------------------

    def check(self) -> list[Report]:
        """Run the commands of the mode (see :data:`MODES`); the records verify found."""
        wanted = MODES[self.commands]
        reports = self.verify_json()
        tricks = 0
        if "verify-text" in wanted:
            self.verify_text(reports)
        if "annotate-json" in wanted:
            tricks = self.annotate_json(reports)
        if "annotate-table" in wanted:
            self.annotate_table(reports)
        if "show" in wanted and reports:
            self.show(reports)
        if "tournament-json" in wanted:
            self.tournament_json(reports)
        if "api" in wanted:
            self.api(reports)
        if "annotate-csv" in wanted:
            self.annotate_csv(reports, tricks)
        if "tournament-text" in wanted:
            self.tournament_text(reports)
        if "export" in wanted:
            self.export(reports, tricks)
        if "stats" in wanted:
            self.stats(reports)
        return reports

    def verdict(self, reports: list[Report]) -> tuple[set[int], str]:
        """The exit codes allowed by the records' verdicts."""
        if not reports:
            return {2}, "no records"
        if any(report.failed for report in reports):
            return {3}, "a source unreadable"
        if all(report.valid for report in reports):
            return {0}, "every record valid"
        return {1}, "a record invalid"

    def verify_json(self) -> list[Report]:
        ran = self.run("verify", "--format", "json", "--jobs", "1")
        values = self.json_lines(ran)
        reports = []
        for value in values:
            if not isinstance(value, dict) or not {"source", "index", "problems"} <= set(value):
                raise self.fail("every record reported", ran, f"not a report: {value!r:.300}")
            codes = [problem["code"] for problem in value["problems"]]
            reports.append(
                Report(value["source"], value["index"], value["game_id"], value["valid"], codes)
            )
        for report in reports:
            if "internal-error" in report.codes:
                raise self.fail("no internal-error", ran, f"{report.name}")
            if report.failed and not self.case.may_fail:
                raise self.fail("exit code in its class", ran, f"{report.name} is unreadable")
        self.records_in_order(ran, reports)
        expected, why = self.verdict(reports)
        self.exit_code(ran, expected, why)
        return reports

    def records_in_order(self, ran: Ran, reports: list[Report]) -> None:
        sources = self.expected_sources()
        seen: list[str] = []
        counts: dict[str, int] = {}
        for report in reports:
            if not seen or seen[-1] != report.source:
                seen.append(report.source)
            expected_index = counts.get(report.source, 0)
            if report.index != expected_index:
                raise self.fail(
                    "every record reported",
                    ran,
                    f"{report.name}: expected index {expected_index} of {report.source}",
                )
            counts[report.source] = expected_index + 1
        present = [source for source in sources if source in counts]
        if seen != present:
            raise self.fail(
                "every record reported", ran, f"sources in the order {seen}, not {present}"
            )
        for source in sources:
            expected = self.expected_count(source)
            if source.lower().endswith(".json") or source == "-":
                expected = 1 if expected is None and counts.get(source, 0) < 1 else expected
            if expected is not None and counts.get(source, 0) != expected:
                raise self.fail(
                    "every record reported",
                    ran,
                    f"{source}: {counts.get(source, 0)} records reported, {expected} in it",
                )

    def verify_text(self, reports: list[Report]) -> None:
        ran = self.run("verify", "--jobs", "1")
        text = self.utf8(ran)
        self.safe_text(ran, text)
        self.exit_code(ran, *self.verdict(reports))
        self.bounded(ran, len(reports))
        if not reports:
            return
        self.in_order(ran, text, [printable(report.name) for report in reports], "verify")
        valid = sum(report.valid for report in reports)
        summary = f"{len(reports)} record{'' if len(reports) == 1 else 's'}: {valid} valid, "
        lines = text.rstrip("\n").split("\n")
        # The summary is the last line, or the one before the count per problem code.
        last = lines[-2] if lines[-1].startswith("by code: ") and len(lines) > 1 else lines[-1]
        if summary not in last:
            raise self.fail("every record reported", ran, f"the summary is not {summary!r}")

    def annotate_json(self, reports: list[Report]) -> int:
        ran = self.run("annotate", "--format", "json")
        values = self.json_lines(ran)
        self.exit_code(ran, *self.verdict(reports))
        self.bounded(ran, len(reports))
        problems = ran.stderr.decode("utf-8", "replace")
        names = [printable(report.name) for report in reports if report.codes]
        self.in_order(ran, problems, names, "annotate --format json, on stderr")
        ids = {report.game_id for report in reports}
        for value in values:
            if not isinstance(value, dict) or value.get("game_id") not in ids:
                raise self.fail("every record reported", ran, f"a stray line {value!r:.300}")
        return len(values)

    def annotate_table(self, reports: list[Report]) -> None:
        ran = self.run("annotate", "--no-color")
        text = self.utf8(ran)
        self.safe_text(ran, text)
        self.exit_code(ran, *self.verdict(reports))
        self.bounded(ran, len(reports))
        self.in_order(ran, text, [printable(report.name) for report in reports], "annotate")

    def annotate_csv(self, reports: list[Report], tricks: int) -> None:
        ran = self.run("annotate", "--format", "csv")
        text = self.utf8(ran)
        self.exit_code(ran, *self.verdict(reports))
        self.bounded(ran, len(reports))
        if not reports:
            return
        rows = list(csv.reader(io.StringIO(text)))
        self.spreadsheet_safe(ran, rows)
        if len(rows) - 1 != tricks:
            raise self.fail(
                "every record reported", ran, f"{len(rows) - 1} csv rows, {tricks} json lines"
            )

    def show(self, reports: list[Report]) -> None:
        """``show`` (one path) on the first and the last record of the first path."""
        path = self.paths[0]
        records = [report for report in reports if self.of_path(report, path)]
        if not records:
            return
        picks = sorted({0, len(records) - 1})
        for index in picks:
            report = records[index]
            ran = self.run("show", "--no-color", "--index", str(index), paths=[path])
            text = self.utf8(ran)
            self.safe_text(ran, text)
            self.exit_code(ran, *self.verdict([report]))
            self.bounded(ran, 1, 2 * REPORT_LIMIT)
            if report.codes:
                self.in_order(ran, text, [printable(report.name)], "show")
        report = records[picks[-1]]
        svg = self.output(".svg")
        ran = self.run("show", "--index", str(picks[-1]), "--svg", svg, paths=[path])
        self.exit_code(ran, *self.verdict([report]))
        if os.path.exists(svg):
            size = os.path.getsize(svg)
            if size > 4 * REPORT_LIMIT:
                raise self.fail("bounded output", ran, f"the SVG has {size} bytes")
            try:
                ElementTree.parse(svg)
            except ElementTree.ParseError as error:
                raise self.fail("well-formed SVG", ran, str(error)) from None

    def tournament_json(self, reports: list[Report]) -> None:
        ran = self.run("tournament", "check", "--format", "json", "--jobs", "1", "-q")
        self.bounded(ran, len(reports), 2 * REPORT_LIMIT)
        expected, why = self.verdict(reports)
        if expected == {0}:
            expected, why = {0, 1}, "records valid, errors across records possible"
        self.exit_code(ran, expected, why)
        if not reports:
            return
        text = self.utf8(ran)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as error:
            raise self.fail("valid JSON", ran, str(error)) from None
        if not isinstance(value, dict) or value.get("records") != len(reports):
            raise self.fail("every record reported", ran, "records is not the count verified")

    def tournament_text(self, reports: list[Report]) -> None:
        ran = self.run("tournament", "check", "--jobs", "1", "-q")
        text = self.utf8(ran)
        self.safe_text(ran, text)
        self.bounded(ran, len(reports), 2 * REPORT_LIMIT)
        expected, why = self.verdict(reports)
        if expected == {0}:
            expected, why = {0, 1}, "records valid, errors across records possible"
        self.exit_code(ran, expected, why)
        names = [printable(report.name) for report in reports if report.codes]
        self.in_order(ran, text, names, "tournament check")

    def export(self, reports: list[Report], tricks: int) -> None:
        import polars as pl

        games, tricks_path = self.output(".csv"), self.output(".parquet")
        ran = self.run(
            "export", "-q", "--jobs", "1", "--include-invalid", "--games", games,
            "--tricks", tricks_path,
        )  # fmt: skip
        expected, why = self.verdict(reports)
        self.exit_code(ran, expected, why)
        if not reports:
            return
        with open(games, encoding="utf-8", newline="") as table:
            self.spreadsheet_safe(ran, list(csv.reader(table)))
        frame = pl.read_csv(games, infer_schema=False)
        rows = list(zip(frame["source"].to_list(), frame["index"].to_list(), strict=True))
        wanted = [(report.source, str(report.index)) for report in reports]
        if rows != wanted:
            raise self.fail("every record reported", ran, f"games rows {rows[:5]}…")
        trick_table = pl.read_parquet(tricks_path)
        trick_rows = trick_table.height
        if trick_rows != tricks:
            raise self.fail(
                "every record reported", ran, f"{trick_rows} trick rows, annotate gave {tricks}"
            )
        # The tricks join their games on (source, index): each game's tricks_played of them.
        joined = Counter(trick_table.select("source", pl.col("index").cast(pl.String)).rows())
        played = {
            (source, index): int(count)
            for source, index, count in frame.select("source", "index", "tricks_played").rows()
            if count not in (None, "", "0")
        }
        if joined != played:
            wrong = sorted(set(joined.items()) ^ set(played.items()), key=str)[:3]
            raise self.fail("every trick joins its game", ran, f"(place, tricks) {wrong}")
        games, tricks_path = self.output(".parquet"), self.output(".csv")
        ran = self.run("export", "-q", "--jobs", "1", "--games", games, "--tricks", tricks_path)
        self.exit_code(ran, expected, why)
        height = pl.read_parquet(games).height
        if height != sum(report.valid for report in reports):
            raise self.fail("every record reported", ran, f"{height} valid games exported")

    def stats(self, reports: list[Report]) -> None:
        expected, why = self.verdict(reports)
        ran = self.run("stats", "-q", "--jobs", "1")
        self.exit_code(ran, expected, why)
        self.safe_text(ran, self.utf8(ran))
        self.bounded(ran, 1)
        ran = self.run(
            "stats", "-q", "--jobs", "1", "--format", "json", "--by", "player", "--by", "event"
        )
        self.exit_code(ran, expected, why)
        self.json_lines(ran)
        self.bounded(ran, len(reports))

    # -- the Python API ----------------------------------------------------------------

    def api(self, reports: list[Report]) -> None:
        got: list[Report] = []
        for path in self.paths:
            stdin = io.BytesIO(self.case.stdin or b"")
            try:
                for report in phantom_log.verify(path, stdin=stdin, **self.api_options()):
                    got.append(
                        Report(
                            report.source,
                            report.index,
                            report.game_id,
                            report.valid,
                            [problem.code.value for problem in report.problems],
                        )
                    )
            except Exception as error:
                raise self.api_failure("phantom_log.verify", path, error) from None
        if got != reports:
            first = next(
                (pair for pair in zip(got, reports, strict=False) if pair[0] != pair[1]), None
            )
            raise self.fail(
                "the API agrees with the CLI",
                None,
                f"phantom_log.verify gave {len(got)} reports, the CLI {len(reports)}; "
                f"first difference {first}",
            )
        for path in self.paths:
            self.api_load(path, [report for report in reports if self.of_path(report, path)])
            self.api_replay(path)

    def api_options(self) -> dict[str, Any]:
        if "--max-record-size" in self.options:
            from phantom_log.cli.options import ByteSize

            size = self.options[self.options.index("--max-record-size") + 1]
            return {"max_record_size": ByteSize().convert(size, None, None)}
        return {}

    def of_path(self, report: Report, path: str) -> bool:
        if path == "-":
            return report.source == "-"
        return report.source == display(path) or report.source.startswith(display(path) + "/")

    def api_failure(self, what: str, path: str, error: BaseException) -> FuzzFailure:
        trace = "".join(traceback.format_exception(error))
        return self.fail(
            "no traceback", None, f"{what}({path!r}) raised {type(error).__name__}\n{trace}"
        )

    def api_load(self, path: str, reports: list[Report]) -> None:
        """``load`` yields the records up to the first that is not JSON, breaks the schema
        or is no part of the game text's notation, then raises InvalidRecord for it, and
        nothing else."""
        stops = {"json", "schema", "unreadable", "notation"}
        expected = next(
            (i for i, report in enumerate(reports) if stops & set(report.codes)), len(reports)
        )
        loaded = 0
        stdin = io.BytesIO(self.case.stdin or b"")
        try:
            for model in phantom_log.load(path, stdin=stdin, **self.api_options()):
                loaded += 1
                try:
                    replayed = phantom_log.replay(model)
                except Exception as error:
                    raise self.api_failure(
                        "phantom_log.replay(a model from load)", path, error
                    ) from None
                report = reports[loaded - 1]
                if replayed.valid != report.valid:
                    raise self.fail(
                        "the API agrees with the CLI",
                        None,
                        f"replay_record(load(...)) of {report.name}: valid {replayed.valid}",
                    )
        except phantom_log.InvalidRecord as error:
            if loaded != expected or (error.source, error.index) != (
                reports[expected].source,
                reports[expected].index,
            ):
                raise self.fail(
                    "the API agrees with the CLI",
                    None,
                    f"load({path!r}) stopped at {error.source}#{error.index} after {loaded}",
                ) from None
            if len(str(error)) > REPORT_LIMIT:
                raise self.fail(
                    "bounded output", None, f"InvalidRecord of {len(str(error))}"
                ) from None
            return
        except FuzzFailure:
            raise
        except Exception as error:
            raise self.api_failure("phantom_log.load", path, error) from None
        if loaded != len(reports):
            raise self.fail(
                "the API agrees with the CLI", None, f"load({path!r}) gave {loaded} records"
            )

    def api_replay(self, path: str) -> None:
        """``replay`` of every parsed record that is an object never raises, and finds the
        problems ``verify`` found."""
        from phantom_log.checking.verdict import verify_record
        from phantom_log.records.found_sources import find_sources

        stdin = io.BytesIO(self.case.stdin or b"")
        options = self.api_options()
        for source in find_sources([path]):
            for item in read_source(source, stdin, options.get("max_record_size")):
                if not isinstance(item.data, dict):
                    continue
                try:
                    replayed = phantom_log.replay(item.data)
                except Exception as error:
                    raise self.api_failure("phantom_log.replay", path, error) from None
                codes = [problem.code.value for problem in replayed.problems]
                wanted = [problem.code.value for problem in verify_record(item).problems]
                if codes != wanted:
                    raise self.fail(
                        "the API agrees with the CLI",
                        None,
                        f"replay of {item.source}#{item.index}: {codes}, verify: {wanted}",
                    )


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A folder, or a link to one (a broken link or a link loop is none)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def display(path: str) -> str:
    """A path as the reports name it (see ``phantom_log.records.source_names.display_name``)."""
    from phantom_log.records.source_names import display_name

    return display_name(path)


@contextmanager
def written(case: Case) -> Iterator[Path]:
    """A fresh folder holding the case's files (``in/``), side files (``side/``) and room
    for outputs (``out/``)."""
    with tempfile.TemporaryDirectory(prefix="phantom-fuzz-") as name:
        folder = Path(name)
        for part in ("in", "side", "out"):
            (folder / part).mkdir()
        for file_name, data in case.files.items():
            target = os.path.join(os.fsencode(folder / "in"), os.fsencode(file_name))
            with open(target, "wb") as handle:
                handle.write(data)
        for file_name, data in case.extra_files.items():
            (folder / "side" / file_name).write_bytes(data)
        if case.setup is not None:
            case.setup(folder / "in")
        yield folder


def check_case(case: Case, commands: str = "all") -> list[Report]:
    """Run the commands of a mode (:data:`MODES`) on the case. Raises
    :class:`FuzzFailure`; returns the records as verify reported them."""
    with written(case) as folder:
        return Checker(case, folder, commands).check()


def check_parallel(case: Case, jobs: int = 2) -> list[Report]:
    """The promises with worker processes: ``verify`` (json and text), ``tournament
    check`` and ``export`` on ``jobs`` processes give what they give on one."""
    with written(case) as folder:
        checker = Checker(case, folder, "api")
        reports = checker.check()
        for args in (
            ("verify", "--format", "json"),
            ("verify",),
            ("tournament", "check", "--format", "json", "-q"),
        ):
            one = checker.run(*args, "--jobs", "1")
            many = checker.run(*args, "--jobs", str(jobs))
            if (many.exit_code, many.stdout) != (one.exit_code, one.stdout):
                raise checker.fail(
                    "every record reported, in order",
                    many,
                    f"--jobs {jobs} differs from --jobs 1 (exit {one.exit_code}, "
                    f"stdout {_head(one.stdout, 1500)})",
                )
        games = [checker.output(".csv") for _ in range(2)]
        for jobs_given, path in zip(("1", str(jobs)), games, strict=True):
            ran = checker.run(
                "export", "-q", "--include-invalid", "--jobs", jobs_given, "--games", path
            )
            checker.exit_code(ran, *checker.verdict(reports))
        if reports and Path(games[0]).read_bytes() != Path(games[1]).read_bytes():
            raise checker.fail(
                "every record reported, in order", None, f"export --jobs {jobs} differs"
            )
        return reports


def json_lines_count(data: bytes) -> int:
    """How many records JSON Lines hold: the lines that are not blank (a UTF-8 BOM at the
    start is no content), counted from the bytes, as FORMAT.md defines them."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if lines:
        lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    return sum(1 for line in lines if line.strip(b" \t\r\n\x0b\x0c"))


def single_source(name: str, data: bytes, records: int | None = None) -> Case:
    """A case of one file; for JSON Lines the count of records is known from its bytes."""
    case = Case(files={name: data}, paths=[name])
    if name.lower().endswith((".jsonl", ".ndjson")):
        case.records[name] = json_lines_count(data)
    elif records is not None:
        case.records[name] = records
    return case
