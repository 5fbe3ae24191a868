"""The verdict on a record: the schema (authoritative), then the replay by the rules engine.

:func:`check_record` gives a parsed record's problems, worded, and its game log;
:func:`verify_record` the :class:`RecordReport` of a record read from a source, a failure
of the checker itself on it being that record's ``internal-error``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Final

from ..records.found_sources import find_sources
from ..records.quoting import shortened
from ..records.schema import SHEETS_SCHEMA, json_type, schema_problems
from ..records.source_records import SourceRecord, read_source
from ..records.strictjson import JsonError, parse_json
from ..records.text_records import TextRecord
from ..rules.engine import Result
from ..rules.problems import FAILURE_CODES, Code, Problem, Severity
from ..rules.replay import GameLog, GameLogBuilder, SheetProblems, record_sheet, replay_record
from ..rules.sheets import BUILTIN_SHEETS, Sheet, sheet_from_json
from .wording import word, word_all

if TYPE_CHECKING:
    from ..records.model import GameRecord

# Problems that come before a record is known to have the schema's shape.
_BEFORE_MODEL: Final = frozenset({Code.JSON, Code.SCHEMA})


@dataclass(frozen=True, slots=True)
class RecordReport:
    """The verdict on one record: its problems, and the replayed result if the replay got
    to the end of the record (``None`` otherwise). ``log`` is the engine's
    :class:`~phantom_log.rules.replay.GameLog` of the game (if the record got that far)
    and ``record`` the parsed JSON value."""

    source: str
    index: int
    game_id: str | None
    problems: tuple[Problem, ...]
    result: Result | None = None
    log: GameLog | None = field(default=None, compare=False, repr=False)
    record: Any = field(default=None, compare=False, repr=False)

    @property
    def replay(self) -> GameLog | None:
        """Deprecated: :attr:`log`."""
        warnings.warn(
            "RecordReport.replay is deprecated: use RecordReport.log", DeprecationWarning, 2
        )
        return self.log

    @property
    def valid(self) -> bool:
        """True when no problem has severity ``error``."""
        if not self.problems:  # most records: no generator made
            return True
        return all(problem.severity is not Severity.ERROR for problem in self.problems)

    @property
    def schema_shaped(self) -> bool:
        """True when the record is an object that passed the schema: ``record`` then has
        the schema's shape (its required keys, each value of its type)."""
        if not isinstance(self.record, dict):
            return False
        problems = self.problems
        return not problems or not any(problem.code in _BEFORE_MODEL for problem in problems)

    @property
    def model(self) -> GameRecord | None:
        """The record as the record model (built from the validated JSON, without a second
        validation), or ``None`` when the record did not pass the schema."""
        if not self.schema_shaped:
            return None
        from ..records.model import GameRecord

        return GameRecord.from_validated(self.record)

    @property
    def failed(self) -> bool:
        """True when the run could not check this record (``internal-error``,
        ``unreadable``): exit code 3 rather than 1."""
        if not self.problems:
            return False
        return any(problem.code in FAILURE_CODES for problem in self.problems)

    @property
    def warnings(self) -> int:
        """How many problems are warnings."""
        if not self.problems:
            return 0
        return sum(problem.severity is Severity.WARNING for problem in self.problems)

    def to_json(self) -> dict[str, Any]:
        """The report as docs/format.md's ``verify --format json`` writes it."""
        return {
            "source": self.source,
            "index": self.index,
            "game_id": self.game_id,
            "valid": self.valid,
            "problems": [problem.to_json() for problem in self.problems],
            "result": None if self.result is None else self.result.to_json(),
        }


def _game_id(data: Any) -> str | None:
    if isinstance(data, dict):
        game_id = data.get("game_id")
        if isinstance(game_id, str) and game_id:
            # An id longer than the schema allows (200) is named by an excerpt: every line
            # of the report names the record.
            return game_id if len(game_id) <= 200 else shortened(game_id)
    return None


#: What builds a record's game log: :class:`~phantom_log.rules.replay.GameLogBuilder`
#: (every event) or :class:`~phantom_log.rules.replay.VerdictBuilder` (the problems and
#: the result only).
LogBuilder = Callable[[], GameLogBuilder]


def check_record(
    data: Any,
    sheets: Mapping[str, Sheet] | None = None,
    builder: LogBuilder = GameLogBuilder,
    game_text: bool = False,
    schema_passed: bool = False,
) -> tuple[list[Problem], GameLog | None]:
    """The problems of one parsed record and its game log, as ``builder`` builds it
    (``None`` when the record did not get past the schema or the sheet checks);
    ``game_text``: the record was written as game text, and the hints say so;
    ``schema_passed``: the record passed the schema's gate as it was read."""
    if not isinstance(data, dict):
        return [
            Problem.of(
                Code.SCHEMA,
                f"type: a record is a JSON object, not {json_type(data)}",
                hint="A .json file holds one record (an object) or an array of records; "
                "a JSON Lines file holds one record per line.",
            )
        ], None
    problems = [] if schema_passed else schema_problems(data)
    if problems:
        return problems, None
    try:
        outcome = replay_record(data, builder(), sheets)
    except SheetProblems as error:
        return word_all(error.problems, game_text), None
    return word_all(outcome.problems, game_text), outcome


def _check_text_record(
    text: TextRecord, sheets: Mapping[str, Sheet] | None, builder: LogBuilder
) -> tuple[list[Problem], GameLog | None]:
    """The problems of a record written as game text, each placed where its part is
    written: what is no part of the notation (then nothing else is checked); a round
    whose deal was left out and cannot be found (the first card the rules refused with
    the hands unseen, or the deal that cannot have been dealt); otherwise the checks of
    the record the text stands for."""
    if text.problems:
        return [
            Problem.of(Code.NOTATION, found.message, hint=_sentence(found.hint)).placed(
                found.place.line, found.place.column
            )
            for found in text.problems
        ], None
    if text.illegal:
        # A deal left out that cannot be found: the first thing wrong is the first step
        # the rules refused, or the sheet the round is played on, or the deal itself.
        if text.refusals:
            first = text.refusals[0]
        else:
            sheet = record_sheet(text.data["sheet"], sheets) if "sheet" in text.data else None
            first = (sheet if isinstance(sheet, list) and sheet else text.illegal)[0]
        return [_placed(word(first, game_text=True), text)], None
    problems, outcome = check_record(text.data, sheets, builder, game_text=True)
    return [_placed(problem, text) for problem in problems], outcome


def _sentence(hint: str | None) -> str | None:
    """A hint of the notation's as the other hints read: a sentence."""
    if not hint:
        return hint
    return hint[0].upper() + hint[1:] + ("" if hint.endswith(".") else ".")


def _placed(problem: Problem, text: TextRecord) -> Problem:
    place = text.place_of(problem.pointer)
    return problem.placed(place.line, place.column)


def internal_error(error: BaseException) -> Problem:
    """The ``internal-error`` problem of a failure of the checker itself."""
    return Problem.of(
        Code.INTERNAL_ERROR,
        f"the checker failed on this record ({type(error).__name__}); the other records "
        "are still checked",
        hint="This is a bug in phantom-log: please report it with the record.",
    )


def verify_record(
    record: SourceRecord,
    sheets: Mapping[str, Sheet] | None = None,
    strict: bool = False,
    builder: LogBuilder = GameLogBuilder,
) -> RecordReport:
    """The report on one record read from a source, its game log as ``builder`` builds it.
    A record written as game text has each problem placed at its line and column."""
    if record.problem is not None:
        return RecordReport(record.source, record.index, None, (record.problem,))
    try:
        if record.text_record is not None:
            problems, outcome = _check_text_record(record.text_record, sheets, builder)
        else:
            problems, outcome = check_record(
                record.data, sheets, builder, schema_passed=record.schema_passed
            )
    except Exception as error:  # a bug of the checker: this record's problem, not the run's
        return RecordReport(
            record.source,
            record.index,
            _game_id(record.data),
            (internal_error(error),),
            record=record.data,
        )
    if strict:
        problems = [problem.as_error() for problem in problems]
    return RecordReport(
        record.source,
        record.index,
        _game_id(record.data),
        tuple(problems),
        None if outcome is None else outcome.result,
        outcome,
        record.data,
    )


def verify_paths(
    paths: Iterable[str],
    sheets: Mapping[str, Sheet] | None = None,
    strict: bool = False,
    stdin: IO[bytes] | None = None,
) -> Iterator[RecordReport]:
    """Reports on every record of every path, in input order. Raises
    :class:`~phantom_log.records.found_sources.SourceError` for a path that does not exist,
    before any record is read."""
    for source in find_sources(paths):
        for record in read_source(source, stdin, sheets=sheets):
            yield verify_record(record, sheets, strict)


def read_sheets(data: bytes) -> dict[str, Sheet] | list[Problem]:
    """The named sheets of a sheets file (``schemas/sheet-1.schema.json``), added to the
    built-in ones, or the file's problems."""
    try:
        document = parse_json(data)
    except JsonError as error:
        return [error.problem()]
    problems = schema_problems(document, SHEETS_SCHEMA)
    if problems:
        return problems
    known: dict[str, Sheet] = dict(BUILTIN_SHEETS)
    for index, entry in enumerate(document["sheets"]):
        at = f"/sheets/{index}"
        sheet = sheet_from_json(entry, at)
        if isinstance(sheet, list):
            problems.extend(word_all(sheet))
        elif sheet.name in known:
            problems.append(
                Problem.of(
                    Code.BAD_SHEET,
                    f"the sheet name {sheet.name!r} is taken"
                    + (" by a built-in sheet" if sheet.name in BUILTIN_SHEETS else " twice"),
                    at + "/name",
                )
            )
        else:
            known[sheet.name] = sheet
    return problems or known
