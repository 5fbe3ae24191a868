"""What a verify run carries from its workers to the main process: a chunk of records in
one piece (:class:`Batch`: the text to print, the counts, the records' texts, tournament
facts) and the counts of a run (:class:`Tally`); and what a worker makes them of, a
chunk's records with their reports (:class:`CheckedRecord`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from ..checking.verdict import RecordReport
from ..records.source_records import SourceRecord, record_line
from ..rules.problems import FAILURE_CODES, Problem, Severity
from ..rules.sheets import Sheet
from ..tournament.cross_checks import TournamentProblem
from ..tournament.facts import FactsTable, report_facts
from ..views.reports import counted, report_json_line, report_lines, verdict_line


class CheckedRecord(NamedTuple):
    """A record as it was read, and the report on it: what the verify pipeline's workers
    make their results of (:func:`phantom_log.running.pipeline.verify_chunk`)."""

    record: SourceRecord
    report: RecordReport


@dataclass(frozen=True, slots=True)
class Options:
    """How to verify and what to return: ``output`` is ``text``, ``json``, ``facts``
    (tournament checking: the text lines and the facts) or ``reports`` (the reports
    themselves, as :func:`phantom_log.verify` gives them)."""

    sheets: Mapping[str, Sheet] | None = None
    strict: bool = False
    output: str = "text"
    quiet: bool = False
    #: Return each record's text (``verify --valid-out``/``--invalid-out``).
    keep_text: bool = False


def report_text(report: RecordReport, options: Options, valid: bool) -> str:
    """What verify prints of one report (``valid``: ``report.valid``, as the caller found
    it): its line of JSON Lines, or its problems and (unless quiet) its verdict line."""
    if options.output == "json":
        return report_json_line(report, valid)
    lines = report_lines(report) if report.problems else []
    if valid and not options.quiet:
        lines.append(verdict_line(report))
    return "".join(line + "\n" for line in lines)


_NO_PROBLEM: Final = (True, 0, False, ())


def _verdict(problems: tuple[Problem, ...]) -> tuple[bool, int, bool, tuple[str, ...]]:
    """What a record's problems make of it, read in one walk: whether it is valid, its
    warnings, whether the run could not check it, and each problem's code (as
    :attr:`~phantom_log.checking.verdict.RecordReport.valid`, ``warnings`` and
    ``failed`` say)."""
    if not problems:
        return _NO_PROBLEM
    warnings = 0
    failed = False
    codes = []
    for problem in problems:
        code = problem.code
        codes.append(code.value)
        warnings += problem.severity is Severity.WARNING
        failed = failed or code in FAILURE_CODES
    # A problem is a warning or an error: the record is valid when all are warnings.
    return warnings == len(problems), warnings, failed, tuple(codes)


def chunk_batch(checked: Iterable[CheckedRecord], options: Options) -> Batch:
    """A chunk's checked records as one :class:`Batch`, in their order: what ``options``
    asks for of them (their reports alone, for ``output="reports"``). A record's
    tournament facts say where its text is, for its content's digest to be made only if
    it may be a copy."""
    if options.output == "reports":
        return Batch("", Tally(), reports=[report for _, report in checked])
    tally = Tally()
    texts: list[str] = []
    kept: dict[bool, list[bytes]] = {True: [], False: []}
    facts = FactsTable() if options.output == "facts" else None
    problems: list[TournamentProblem] = []
    for record, report in checked:
        valid, warnings, failed, codes = _verdict(report.problems)
        tally.add(valid, warnings, failed, codes)
        texts.append(report_text(report, options, valid))
        if facts is not None:
            facts.add(report_facts(report, record))
            problems += [
                TournamentProblem(
                    report.source,
                    report.index,
                    report.game_id,
                    problem.code.value,
                    problem.severity,
                    problem.message,
                )
                for problem in report.problems
            ]
        line = record_line(record) if options.keep_text else None
        if line is not None:
            kept[valid].append(line)
    return Batch(
        "".join(texts), tally, b"".join(kept[True]), b"".join(kept[False]), facts, problems
    )


@dataclass
class Tally:
    """The counts of a run: records, valid ones, warnings, records that could not be
    checked (``failed``) and the problems per code."""

    records: int = 0
    valid: int = 0
    warnings: int = 0
    failed: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def add(self, valid: bool, warnings: int, failed: bool, codes: Iterable[str]) -> None:
        """Count one record: whether it is valid, its warnings, whether the run could not
        check it, and its problems' codes."""
        self.records += 1
        self.valid += valid
        self.warnings += warnings
        self.failed += failed
        for code in codes:
            self.codes[code] = self.codes.get(code, 0) + 1

    def merge(self, other: Tally) -> None:
        """Count the records another tally counted."""
        self.records += other.records
        self.valid += other.valid
        self.warnings += other.warnings
        self.failed += other.failed
        for code, count in other.codes.items():
            self.codes[code] = self.codes.get(code, 0) + count

    def by_code(self) -> str | None:
        """The problems counted per code, the most frequent first (then by code), or
        ``None`` when there is no problem: ``by code: schema 12, revoke 3``."""
        if not self.codes:
            return None
        ranked = sorted(self.codes.items(), key=lambda item: (-item[1], item[0]))
        return "by code: " + ", ".join(f"{code} {count}" for code, count in ranked)

    def summary(self) -> str:
        """``3 records: 2 valid, 1 invalid, 0 warnings``."""
        return (
            f"{counted(self.records, 'record')}: {self.valid} valid, "
            f"{self.records - self.valid} invalid, {counted(self.warnings, 'warning')}"
        )


@dataclass(slots=True)
class Batch:
    """What the main process needs of a chunk of verified records, in one piece (a worker
    sends one object a chunk, not one a record): the text to print, the counts, and with
    ``Options.keep_text`` the valid and the invalid records' texts, a line each."""

    text: str
    tally: Tally
    valid_records: bytes = b""
    invalid_records: bytes = b""
    #: For tournament checking (``Options.output`` is ``facts``): the records' facts, as
    #: one table, and their own problems.
    facts: FactsTable | None = None
    problems: list[TournamentProblem] = field(default_factory=list)
    #: The reports themselves (``Options.output`` is ``reports``).
    reports: list[RecordReport] = field(default_factory=list)
