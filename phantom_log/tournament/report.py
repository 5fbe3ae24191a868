"""The report of a tournament check: its counts, every problem (the records' own, those
across records and against the manifest) and the standings, and its JSON, written as it is
built."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any, Final

import orjson

from ..rules.problems import Severity
from .cross_checks import (
    TournamentCode,
    TournamentProblem,
    cross_record_problems,
    manifest_problems,
)
from .facts import RecordFacts, facts_table
from .manifest import Manifest
from .standings import StandingsRow, standings, standings_dicts


@dataclass
class TournamentReport:
    """What tournament checking found: counts, every problem, the standings."""

    records: int = 0
    valid: int = 0
    problems: list[TournamentProblem] = field(default_factory=list)
    standings: Sequence[StandingsRow] = field(default_factory=list)

    @property
    def invalid(self) -> int:
        """Records with an error of their own or across records."""
        return self.records - self.valid

    @property
    def errors(self) -> int:
        """Problems of severity error."""
        return sum(problem.severity is Severity.ERROR for problem in self.problems)

    def to_json(self) -> dict[str, Any]:
        """The JSON report."""
        return {
            "records": self.records,
            "valid": self.valid,
            "invalid": self.invalid,
            "problems": [problem.to_json() for problem in self.problems],
            "standings": list(standings_dicts(self.standings)),
        }

    def write_json(self, stream: IO[str]) -> None:
        """The JSON report (:meth:`to_json`) and a line break, written a few thousand
        problems and players at a time: the report is never held whole as text."""
        stream.write(
            f'{{"records":{self.records},"valid":{self.valid},"invalid":{self.invalid},"problems":['
        )
        _write_items(stream, (problem.to_json() for problem in self.problems))
        stream.write('],"standings":[')
        _write_items(stream, standings_dicts(self.standings))
        stream.write("]}\n")


# The items of a JSON array that write_json joins into one text to write.
_ITEMS_WRITTEN_AT_ONCE: Final = 4096


def _write_items(stream: IO[str], items: Iterable[Any]) -> None:
    """The items of a JSON array, comma-separated, a few thousand at a time."""
    iterator = iter(items)
    first = True
    while part := list(itertools.islice(iterator, _ITEMS_WRITTEN_AT_ONCE)):
        text = b",".join(map(orjson.dumps, part)).decode()
        stream.write(text if first else "," + text)
        first = False


def tournament_report(
    all_facts: Sequence[RecordFacts],
    record_problems: list[TournamentProblem],
    manifest: Manifest | None,
    strict: bool = False,
    not_read_again: Sequence[TournamentProblem] = (),
) -> TournamentReport:
    """The whole report: the records' own problems, then those across records (after the
    records whose texts could not be read again to be compared: ``not_read_again``, see
    :mod:`~phantom_log.tournament.copies`) and against the manifest (all errors when
    ``strict``); a record is valid when no error, of its own or across records, names it.
    The standings leave out the records with an error and the later copies of a
    record."""
    table = facts_table(all_facts)
    across = [*not_read_again, *cross_record_problems(table)]
    if manifest is not None:
        across += manifest_problems(manifest, table)
    if strict:
        across = [replace(problem, severity=Severity.ERROR) for problem in across]
    problems = [*record_problems, *across]
    failing = {
        (problem.source, problem.index)
        for problem in problems
        if problem.severity is Severity.ERROR and problem.index is not None
    }
    copies = {
        (problem.source, problem.index)
        for problem in across
        if problem.code == TournamentCode.DUPLICATE_RECORD and problem.index is not None
    }
    valid = len(table) - sum(table.place(position) in failing for position in range(len(table)))
    return TournamentReport(len(table), valid, problems, standings(table, failing | copies))
