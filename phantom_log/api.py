"""The Python API: load records, replay one, verify a path.

>>> import phantom_log
>>> for record in phantom_log.load("examples/rulebook-walkthrough.json"):
...     game = phantom_log.replay(record)
...     print(game.result.winner, game.result.notes)
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from .annotate import Annotation, annotate
from .check import RecordReport, check_record, verify_record
from .engine import Replay, Result, RoundStart
from .problems import Problem, Severity
from .record import GameRecord
from .sheets import Sheet
from .sources import find_sources, read_source


class InvalidRecord(ValueError):
    """A record that :func:`load` cannot turn into a model: not JSON, or not of the schema.

    ``source`` and ``index`` say where it is; ``problems`` what is wrong.
    """

    def __init__(self, source: str, index: int, problems: list[Problem]) -> None:
        self.source = source
        self.index = index
        self.problems = problems
        first = problems[0]
        where = f" at {first.pointer}" if first.pointer else ""
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{source}#{index}: {first.code}{where}: {first.message}{more}")


@dataclass(frozen=True, slots=True)
class GameReplay:
    """A record replayed by the rules.

    ``tricks`` holds an :class:`~phantom_log.annotate.Annotation` per completed trick (the
    fields of ``annotate --format json``); ``result`` is the replayed result when the
    replay got to the end of the record, else ``None``; ``problems`` lists what is wrong
    (warnings included); ``rounds`` the state at each round's start; ``engine`` the
    engine's own replay (``None`` when the record failed the schema or the sheet checks).
    """

    tricks: list[Annotation]
    result: Result | None
    problems: list[Problem]
    rounds: list[RoundStart] = field(default_factory=list)
    engine: Replay | None = None

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return all(problem.severity is not Severity.ERROR for problem in self.problems)


def load(
    path: str | os.PathLike[str],
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
) -> Iterator[GameRecord]:
    """The records of a path (a ``.json`` file, a ``.jsonl``/``.ndjson`` file, a directory,
    or ``"-"`` with ``stdin``), as frozen models, in order.

    Raises :class:`InvalidRecord` at the first record that is not JSON or breaks the
    schema, or cannot be read (an ``unreadable`` problem: no permission, a broken link,
    larger than ``max_record_size`` bytes, by default
    :data:`~phantom_log.sources.DEFAULT_MAX_RECORD_SIZE`), ``FileNotFoundError`` for a
    path that does not exist. The rules are not checked here: see :func:`replay` and
    :func:`verify`.
    """
    from .sources import SourceError

    try:
        sources = find_sources([os.fspath(path)])
    except SourceError as error:
        raise FileNotFoundError(str(error)) from None
    from .check import schema_problems

    for source in sources:
        for item in read_source(source, stdin, max_record_size):
            if item.problem is not None:
                raise InvalidRecord(item.source, item.index, [item.problem])
            problems = (
                schema_problems(item.data)
                if isinstance(item.data, dict)
                else verify_record(item).problems
            )
            if problems:
                raise InvalidRecord(item.source, item.index, list(problems))
            yield GameRecord.from_validated(item.data)


def replay(
    record: GameRecord | Mapping[str, Any], sheets: Mapping[str, Sheet] | None = None
) -> GameReplay:
    """Replay one record (a model, or a parsed JSON object, which is schema-checked
    first) by the rules. Never raises for a bad record: its problems are on the result."""
    data = record.to_json() if isinstance(record, GameRecord) else dict(record)
    game_id = data.get("game_id") if isinstance(data.get("game_id"), str) else None
    problems, replayed = check_record(data, sheets)
    if replayed is None:
        return GameReplay([], None, problems)
    return GameReplay(
        list(annotate(replayed, game_id)),
        replayed.result,
        problems,
        list(replayed.rounds),
        replayed,
    )


def verify(
    path: str | os.PathLike[str],
    sheets: Mapping[str, Sheet] | None = None,
    strict: bool = False,
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
) -> Iterator[RecordReport]:
    """The report on every record of a path, as ``phantom-log verify`` gives them: a
    source that cannot be read (no permission, a broken link, larger than
    ``max_record_size`` bytes) is a report with its ``unreadable`` problem, and the other
    sources are still read.

    Raises ``FileNotFoundError`` for a path that does not exist.
    """
    from .sources import SourceError

    try:
        sources = find_sources([os.fspath(path)])
    except SourceError as error:
        raise FileNotFoundError(str(error)) from None
    for source in sources:
        for record in read_source(source, stdin, max_record_size):
            yield verify_record(record, sheets, strict)
