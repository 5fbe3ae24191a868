"""What a verify run carries from its workers to the main process: the outcome of each
record (:class:`Outcome`: its verdict, the text to print, tournament facts), a chunk of
them in one piece (:class:`Batch`), and the counts of a run (:class:`Tally`); and what a
worker makes them of, a chunk's records with their reports (:class:`CheckedRecord`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from ..checking.verdict import RecordReport
from ..records.source_records import SourceRecord, record_line
from ..rules.problems import FAILURE_CODES, Problem, Severity
from ..rules.sheets import Sheet
from ..tournament.cross_checks import TournamentProblem
from ..tournament.facts import FactsRow, FactsTable, report_facts
from ..views.reports import report_json_line, report_lines, verdict_line


@dataclass(slots=True)
class Outcome:
    """What the main process needs of one verified record: its verdict, the text to
    print, and (for tournament checking) its facts and problems."""

    valid: bool
    warnings: int
    text: str
    #: For tournament checking: the record's facts, as a table takes them.
    facts: FactsRow | None = None
    problems: tuple[TournamentProblem, ...] = ()
    #: True when the run could not check this record (``internal-error``, ``unreadable``).
    failed: bool = False
    #: The code of each of the record's problems (a code as often as it is found).
    codes: tuple[str, ...] = ()
    #: The record's text as one line of JSON Lines (with ``Options.keep_text``), ``None``
    #: when there is none (a source that could not be read).
    record_text: bytes | None = None


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


def report_outcome(
    report: RecordReport, options: Options, read: SourceRecord | None = None
) -> Outcome:
    """The outcome of one report (of the record as it was ``read``, when it is given: a
    record's tournament facts then say where its text is, for its content's digest to be
    made only if it may be a copy)."""
    valid, warnings, failed, codes = _verdict(report.problems)
    if options.output == "json":
        return Outcome(valid, warnings, report_json_line(report, valid), failed=failed, codes=codes)
    lines = report_lines(report) if report.problems else []
    if valid and not options.quiet:
        lines.append(verdict_line(report))
    text = "".join(line + "\n" for line in lines)
    if options.output == "facts":
        problems = tuple(
            TournamentProblem(
                report.source,
                report.index,
                report.game_id,
                problem.code.value,
                problem.severity,
                problem.message,
            )
            for problem in report.problems
        )
        return Outcome(valid, warnings, text, report_facts(report, read), problems, failed, codes)
    return Outcome(valid, warnings, text, failed=failed, codes=codes)


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


def chunk_outcomes(checked: Iterable[CheckedRecord], options: Options) -> list[Outcome]:
    """The outcome of each record of a chunk, in order, with its text as a line of JSON
    Lines when ``options.keep_text`` asks for it."""
    outcomes = []
    for record, report in checked:
        outcome = report_outcome(report, options, record)
        if options.keep_text:
            outcome.record_text = record_line(record)
        outcomes.append(outcome)
    return outcomes


def chunk_batch(checked: Iterable[CheckedRecord], options: Options) -> Batch:
    """The outcomes of a chunk's records as one :class:`Batch` (their reports alone, for
    ``output="reports"``)."""
    if options.output == "reports":
        return Batch("", Tally(), reports=[report for _, report in checked])
    return batch_outcomes(chunk_outcomes(checked, options))


@dataclass
class Tally:
    """The counts of a run: records, valid ones, warnings, records that could not be
    checked (``failed``) and the problems per code."""

    records: int = 0
    valid: int = 0
    warnings: int = 0
    failed: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        """Count one record."""
        self.records += 1
        self.valid += outcome.valid
        self.warnings += outcome.warnings
        self.failed += outcome.failed
        for code in outcome.codes:
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

        def count(number: int, word: str) -> str:
            return f"{number} {word}{'' if number == 1 else 's'}"

        return (
            f"{count(self.records, 'record')}: {self.valid} valid, "
            f"{self.records - self.valid} invalid, {count(self.warnings, 'warning')}"
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


def batch_outcomes(outcomes: list[Outcome]) -> Batch:
    """The outcomes of a chunk's records as one batch, in their order."""
    tally = Tally()
    valid: list[bytes] = []
    invalid: list[bytes] = []
    for outcome in outcomes:
        tally.add(outcome)
        if outcome.record_text is not None:
            (valid if outcome.valid else invalid).append(outcome.record_text)
    text = "".join(outcome.text for outcome in outcomes)
    batch = Batch(text, tally, b"".join(valid), b"".join(invalid))
    if outcomes and outcomes[0].facts is not None:
        table = batch.facts = FactsTable()
        for outcome in outcomes:
            if outcome.facts is not None:
                table.add(outcome.facts)
        batch.problems = [problem for outcome in outcomes for problem in outcome.problems]
    return batch
