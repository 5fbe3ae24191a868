"""Reports on verified records, as they are printed: compiler-style problem lines, the
verdict line of a valid record, the JSON Lines object, and what a worker process sends
back of each record (:class:`Outcome`), tournament facts included, or of a chunk of
records (:class:`Batch`), and the counts of a run (:class:`Tally`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import orjson

from .check import RecordReport
from .engine import Result
from .problems import Problem, Severity
from .sheets import Sheet
from .tournament import FactsTable, RecordFacts, TournamentProblem, record_facts


@dataclass(slots=True)
class Outcome:
    """What the main process needs of one verified record: its verdict, the text to
    print, and (for tournament checking) its facts and problems."""

    valid: bool
    warnings: int
    text: str
    facts: RecordFacts | None = None
    problems: tuple[TournamentProblem, ...] = ()
    #: True when the run could not check this record (``internal-error``, ``unreadable``).
    failed: bool = False
    #: The code of each of the record's problems (a code as often as it is found).
    codes: tuple[str, ...] = ()
    #: The record's text as one line of JSON Lines (with ``Options.keep_text``), ``None``
    #: when there is none (a source that could not be read).
    record_text: bytes | None = None


@dataclass(frozen=True, slots=True)
class Options:
    """How to verify and what to return: ``output`` is ``text``, ``json`` or ``facts``
    (tournament checking: the text lines and the facts)."""

    sheets: Mapping[str, Sheet] | None = None
    strict: bool = False
    output: str = "text"
    quiet: bool = False
    #: Return each record's text (``verify --valid-out``/``--invalid-out``).
    keep_text: bool = False


def report_outcome(report: RecordReport, options: Options) -> Outcome:
    """The outcome of one report."""
    codes = tuple(problem.code.value for problem in report.problems)
    if options.output == "json":
        text = orjson.dumps(report.to_json()).decode() + "\n"
        return Outcome(report.valid, report.warnings, text, failed=report.failed, codes=codes)
    lines = report_lines(report)
    if report.valid and not options.quiet:
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
        return Outcome(
            report.valid,
            report.warnings,
            text,
            record_facts(report),
            problems,
            report.failed,
            codes,
        )
    return Outcome(report.valid, report.warnings, text, failed=report.failed, codes=codes)


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
        batch.facts = FactsTable(outcome.facts for outcome in outcomes if outcome.facts)
        batch.problems = [problem for outcome in outcomes for problem in outcome.problems]
    return batch


# -- the text report -----------------------------------------------------------------


# Control characters (C0, DEL, C1), the bidirectional marks, embeddings, overrides and
# isolates, and the line and paragraph separators, which could move the cursor, clear a
# line, break a line or reorder text on a terminal: written as escapes in every line
# printed, so that no record or file name can forge the report. So are lone surrogates
# (a file name that is not UTF-8), which no terminal could be sent, and U+FFFE and U+FFFF,
# which no XML document may hold: the same text is safe in an SVG picture.
_UNSAFE: Final = {
    **{code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]},
    **{
        code: f"\\u{code:04x}"
        for code in [
            0x061C,
            0x200E,
            0x200F,
            0x2028,
            0x2029,
            *range(0x202A, 0x202F),
            *range(0x2066, 0x206A),
            *range(0xD800, 0xE000),
            0xFFFE,
            0xFFFF,
        ]
    },
}


def printable(text: str) -> str:
    """A line of text with every character that could forge a terminal's output escaped."""
    return text.translate(_UNSAFE)


def _where(problem: Problem) -> str:
    if problem.round is not None:
        if problem.trick is not None:
            return f"round {problem.round}, trick {problem.trick}: "
        return f"round {problem.round}: "
    if problem.pointer:
        return f"{problem.pointer}: "
    return ""


def record_name(report: RecordReport) -> str:
    """A record for people: ``source#index (game id)``."""
    name = f"{report.source}#{report.index}"
    return name if report.game_id is None else f"{name} ({report.game_id})"


def game_heading(name: str, players: Mapping[str, str], sheet_name: str) -> str:
    """A replayed game's heading: ``NAME: the Phantom P vs Christine C, sheet S`` (not
    yet made printable)."""
    return (
        f"{name}: the Phantom {players['phantom']} vs Christine {players['christine']}, "
        f"sheet {sheet_name}"
    )


#: The problems of one record that a text report lists; one more line says how many
#: others there are (``--format json`` lists them all).
PROBLEMS_LISTED: Final = 20


def report_lines(report: RecordReport) -> list[str]:
    """The problems of a record in compiler style: the first :data:`PROBLEMS_LISTED`, then
    one line saying how many more, so that a record of any size gives a short report."""
    lines = [
        line
        for problem in report.problems[:PROBLEMS_LISTED]
        for line in problem_lines(report, problem)
    ]
    more = len(report.problems) - PROBLEMS_LISTED
    if more > 0:
        lines.append(
            printable(
                f"{record_name(report)}: and {more} more problem{'s' if more != 1 else ''}, "
                "not listed"
            )
        )
    return lines


def problem_lines(report: RecordReport, problem: Problem) -> list[str]:
    """A problem in compiler style, with its hint on the next line."""
    severity = "warning: " if problem.severity is Severity.WARNING else ""
    lines = [
        printable(
            f"{record_name(report)}: {_where(problem)}{severity}{problem.code}: {problem.message}"
        )
    ]
    if problem.hint:
        lines.append(printable(f"    hint: {problem.hint}"))
    return lines


def verdict_line(report: RecordReport) -> str:
    """One line on a valid record: who won, how many notes."""
    assert report.result is not None
    ended_at = None if report.replay is None else report.replay.ended_at
    return verdict_text(record_name(report), report.result, ended_at)


def verdict_text(name: str, result: Result, ended_at: tuple[int, int] | None) -> str:
    """The verdict line of a valid record named ``name``."""
    return printable(f"{name}: valid: {result_text(result, ended_at)}")


def result_text(result: Result, ended_at: tuple[int, int] | None) -> str:
    """A game's result in words: who won with how many notes, and where the game ended
    (``unfinished, ... so far`` for a game without a winner)."""
    notes = f"{result.notes} note{'s' if result.notes != 1 else ''}"
    if result.winner is None:
        return f"unfinished, {notes} completed so far"
    outcome = f"{result.winner.in_text} wins with {notes} completed"
    if ended_at is not None:
        outcome += f" (round {ended_at[0]}, trick {ended_at[1]})"
    return outcome
