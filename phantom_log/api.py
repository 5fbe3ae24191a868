"""The Python API: load records, replay one, verify a path.

>>> import phantom_log
>>> for record in phantom_log.load("examples/rulebook-walkthrough.json"):
...     game = phantom_log.replay(record)
...     print(game.result.winner, game.result.notes)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Literal, overload

from .checking.verdict import RecordReport, check_record, verify_record
from .positions import Hands
from .records.chunks import read_chunks
from .records.found_sources import find_sources
from .records.model import GameRecord
from .records.number_kinds import SIZE, WORKERS
from .records.schema import json_data_problem, schema_problems, schema_valid
from .records.source_records import SourceRecord, chunk_records
from .rules.cards import Card, Role, mask_cards
from .rules.engine import Result
from .rules.events import RoundStarted
from .rules.problems import Code, Problem, Severity
from .rules.replay import GameLog
from .rules.sheets import Sheet
from .running.collector import collector_for_records
from .views.annotate import Annotation, annotate

if TYPE_CHECKING:
    import polars as pl


class InvalidRecord(ValueError):
    """A record that :func:`load` cannot turn into a model: not JSON, or not of the schema.

    ``source`` and ``index`` say where it is; ``problems`` what is wrong.
    """

    def __init__(self, source: str, index: int, problems: list[Problem]) -> None:
        self.source = source
        self.index = index
        self.problems = problems
        first = problems[0]
        if first.line is not None and first.code is not Code.JSON:
            where = f" at line {first.line}, column {first.column}"  # a game text's place
        else:
            where = f" at {first.pointer}" if first.pointer else ""
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{source}#{index}: {first.code}{where}: {first.message}{more}")


@dataclass(frozen=True, slots=True)
class RoundOpening:
    """A round once the exchange is done: the leader, the special number, the notes
    carried in, both hands as cards, and the cards exchanged (``None`` under the beginner
    rule, which has no exchange)."""

    round: int
    leader: Role
    special_number: int
    notes: int
    hands: Hands
    exchange: Hands | None

    @classmethod
    def of(cls, start: RoundStarted) -> RoundOpening:
        """The opening of the engine's :class:`~phantom_log.rules.events.RoundStarted`
        event (whose hands are bit masks)."""
        exchange = start.exchange
        return cls(
            start.round,
            start.leader,
            start.special_number,
            start.notes,
            Hands(mask_cards(start.phantom_hand), mask_cards(start.christine_hand)),
            None
            if exchange is None
            else Hands((Card(exchange.phantom_gave),), (Card(exchange.christine_gave),)),
        )


class GameReplay:
    """A record replayed by the rules.

    ``tricks`` holds an :class:`~phantom_log.views.annotate.Annotation` per completed trick (the
    fields of ``annotate --format json``, and the explanation), made when first read;
    ``result`` is the replayed result when the replay got to the end of the record, else
    ``None``; ``problems`` lists what is wrong (warnings included); ``rounds`` each
    round's :class:`RoundOpening` (hands as cards); ``engine`` the engine's
    :class:`~phantom_log.rules.replay.GameLog` of the game, its events in compact form
    (``None`` when the record failed the schema or the sheet checks).
    :meth:`svg` draws the game as ``phantom-log show --svg`` does, and a notebook shows
    that picture.
    """

    __slots__ = ("_players", "_rounds", "_tricks", "engine", "game_id", "problems", "result")

    def __init__(
        self,
        result: Result | None,
        problems: list[Problem],
        engine: GameLog | None = None,
        game_id: str | None = None,
        players: Mapping[str, str] | None = None,
    ) -> None:
        self.result = result
        self.problems = problems
        self.engine = engine
        self.game_id = game_id
        self._players = players
        self._tricks: list[Annotation] | None = None
        self._rounds: list[RoundOpening] | None = None

    def svg(self, at: tuple[int, int] | None = None) -> str:
        """The game as an SVG picture, as ``phantom-log show --svg`` draws it: the title,
        the result (or where an illegal record's replay stops, and why), the sheet, and
        the notes after every trick with each trick's winner; ``at`` ``(round, trick)``
        draws the sheet at that moment (``(round, 0)``: the round's start). Raises
        ``ValueError`` for a record that could not be replayed at all, or a moment its
        replay did not reach."""
        from .views.picture import MomentError, check_moment, game_svg
        from .views.reports import game_heading, printable

        if self.engine is None:
            raise ValueError("the record could not be replayed: it has no picture")
        if at is not None:
            check_moment(*at, f"at={at!r}")
        name, sheet = self.game_id or "a game", self.engine.sheet.name
        title = (
            f"{name}, sheet {sheet}"
            if self._players is None
            else game_heading(name, self._players, sheet)
        )
        try:
            return game_svg(self.engine, printable(title), self.problems, at)
        except MomentError as error:
            raise ValueError(str(error)) from None

    def _repr_svg_(self) -> str | None:
        """The picture in a notebook (none for a record that could not be replayed)."""
        return None if self.engine is None else self.svg()

    @property
    def tricks(self) -> list[Annotation]:
        """The completed tricks, annotated (made once, when first read)."""
        if self._tricks is None:
            engine = self.engine
            with collector_for_records():
                self._tricks = [] if engine is None else list(annotate(engine, self.game_id))
        return self._tricks

    @property
    def rounds(self) -> list[RoundOpening]:
        """Each round's opening (made once, when first read)."""
        if self._rounds is None:
            engine = self.engine
            self._rounds = [] if engine is None else [RoundOpening.of(s) for s in engine.rounds]
        return self._rounds

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return all(problem.severity is not Severity.ERROR for problem in self.problems)

    def __repr__(self) -> str:
        return (
            f"GameReplay(game_id={self.game_id!r}, result={self.result!r}, "
            f"problems={len(self.problems)}, tricks={len(self.tricks)})"
        )


PathArgument = str | os.PathLike[str]
#: What :func:`load` does with a record it cannot turn into a model.
ErrorMode = Literal["raise", "collect", "skip"]


def _path_list(paths: Iterable[PathArgument | Iterable[PathArgument]]) -> list[str]:
    """The paths given, as strings: each a path, or an iterable of paths."""
    found: list[str] = []
    for item in paths:
        if isinstance(item, (str, os.PathLike)):
            found.append(os.fspath(item))
        else:
            found.extend(os.fspath(path) for path in item)
    return found


def _sources(paths: list[str]) -> list[str]:
    from .records.found_sources import SourceError

    try:
        return find_sources(paths)
    except SourceError as error:
        raise FileNotFoundError(str(error)) from None


def _checked_size(max_record_size: int | None) -> None:
    if max_record_size is not None:
        SIZE.checked(max_record_size, "max_record_size")


def _checked_jobs(jobs: int | None) -> int:
    """The worker processes asked for (``None``: one per core), checked."""
    from .running.pipeline import default_jobs

    return default_jobs() if jobs is None else WORKERS.checked(jobs, "jobs")


@overload
def load(
    paths: PathArgument | Iterable[PathArgument],
    errors: Literal["raise", "skip"] = "raise",
    *,
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
) -> Iterator[GameRecord]: ...


@overload
def load(
    paths: PathArgument | Iterable[PathArgument],
    errors: Literal["collect"],
    *,
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
) -> Iterator[GameRecord | InvalidRecord]: ...


def load(
    paths: PathArgument | Iterable[PathArgument],
    errors: ErrorMode = "raise",
    *,
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
) -> Iterator[GameRecord | InvalidRecord]:
    """The records of one path or several (``.json`` and ``.jsonl``/``.ndjson`` files,
    directories, ``"-"`` with ``stdin``), as frozen models, in order, one at a time.

    A record that is not JSON, breaks the schema, or cannot be read (an ``unreadable``
    problem: no permission, a broken link, larger than ``max_record_size`` bytes, by
    default :data:`~phantom_log.records.size_limit.DEFAULT_MAX_RECORD_SIZE`) is an
    :class:`InvalidRecord`: with ``errors="raise"`` (the default) it is raised and the
    stream ends; with ``"collect"`` it is yielded in its place and the stream goes on;
    with ``"skip"`` it is left out. ``FileNotFoundError`` for a path that does not exist,
    before any record; ``ValueError`` for a ``max_record_size`` that is no size (0 or
    less, past the largest file). The rules are not checked here: see :func:`replay` and
    :func:`verify`.
    """
    if errors not in ("raise", "collect", "skip"):
        raise ValueError(f"errors={errors!r}: give 'raise', 'collect' or 'skip'")
    _checked_size(max_record_size)
    sources = _sources(_path_list([paths]))
    for source in sources:
        for chunk in read_chunks(source, stdin, max_record_size=max_record_size):
            # A chunk's records are read and made into models at once (the collector set
            # for it), then given one at a time.
            with collector_for_records():
                loaded = [_loaded(item) for item in chunk_records(chunk)]
            for found in loaded:
                if isinstance(found, GameRecord):
                    yield found
                elif errors == "raise":
                    raise found
                elif errors == "collect":
                    yield found


def _loaded(item: SourceRecord) -> GameRecord | InvalidRecord:
    """The model of a record read, or why it cannot be one."""
    if item.problem is not None:
        problems = [item.problem]
    elif item.text_record is not None and (item.text_record.problems or item.text_record.illegal):
        # Game text that stands for no record: its notation, or a deal no play allows.
        problems = list(verify_record(item).problems)
    elif isinstance(item.data, dict):
        # The schema's fast gates first (the one it passed as it was read, if it did);
        # its wording only for a record they reject.
        passed = item.schema_passed or schema_valid(item.data)
        problems = [] if passed else schema_problems(item.data)
    else:
        problems = list(verify_record(item).problems)
    if problems:
        return InvalidRecord(item.source, item.index, problems)
    return GameRecord.from_validated(item.data)


def replay(
    record: GameRecord | Mapping[str, Any], sheets: Mapping[str, Sheet] | None = None
) -> GameReplay:
    """Replay one record (a model, or a parsed JSON object, which is schema-checked
    first) by the rules. Never raises for a bad record: its problems are on the result
    (an object that is no JSON data, such as one with a tuple or a key that is not a
    string, is a ``json`` problem)."""
    if isinstance(record, GameRecord):
        data = dict(record.document())
    else:
        data = dict(record)
        not_json = json_data_problem(data)
        if not_json is not None:
            return GameReplay(None, [not_json])
    game_id = data.get("game_id") if isinstance(data.get("game_id"), str) else None
    with collector_for_records():
        problems, replayed = check_record(data, sheets)
    if replayed is None:
        return GameReplay(None, problems)
    # The schema holds: a replayed record names both players.
    return GameReplay(replayed.result, problems, replayed, game_id, data["players"])


def verify(
    *paths: PathArgument | Iterable[PathArgument],
    sheets: Mapping[str, Sheet] | None = None,
    strict: bool = False,
    stdin: IO[bytes] | None = None,
    max_record_size: int | None = None,
    jobs: int | None = 1,
) -> Iterator[RecordReport]:
    """The report on every record of the paths (each a path or an iterable of paths), in
    order, as ``phantom-log verify`` gives them: a source that cannot be read (no
    permission, a broken link, larger than ``max_record_size`` bytes) is a report with
    its ``unreadable`` problem, and the other sources are still read. ``jobs`` worker
    processes check the records (``None``: one per core), as ``verify --jobs`` does: this
    is the command's own pipeline (:func:`~phantom_log.running.pipeline.verify_batches`),
    giving the reports.

    Raises ``FileNotFoundError`` for a path that does not exist, before any record, and
    ``ValueError`` for ``jobs`` or ``max_record_size`` that cannot be (0 or less, past
    the largest file, more than
    :data:`~phantom_log.records.number_kinds.MAX_WORKERS` workers).
    """
    from .records.found_sources import SourceError
    from .running.outcomes import Options
    from .running.pipeline import verify_batches

    workers = _checked_jobs(jobs)
    _checked_size(max_record_size)
    options = Options(sheets, strict, "reports")
    try:
        batches = verify_batches(_path_list(paths), options, workers, stdin, None, max_record_size)
    except SourceError as error:
        raise FileNotFoundError(str(error)) from None
    for batch in batches:
        yield from batch.reports


def tables(
    *paths: PathArgument | Iterable[PathArgument],
    jobs: int | None = 1,
    include_invalid: bool = False,
    sheets: Mapping[str, Sheet] | None = None,
    stdin: IO[bytes] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The games and the tricks tables of the records of the paths, as two polars
    DataFrames: the columns of ``phantom-log export --games`` and ``--tricks``, made the
    same way (``jobs`` worker processes, ``None`` for one per core). Invalid records are
    left out unless ``include_invalid``.

    Raises ``FileNotFoundError`` for a path that does not exist, and ``ValueError`` for
    ``jobs`` that cannot be, before any record.
    """
    from .files.outputs import work_folder
    from .records.found_sources import SourceError
    from .running.pipeline import source_tables
    from .tabular.tables import GAME_KEY, build_tables

    found = _path_list(paths)
    workers = _checked_jobs(jobs)
    with work_folder() as folder, collector_for_records():
        try:
            chunks = source_tables(found, sheets, include_invalid, workers, stdin, folder=folder)
            files = build_tables(chunks, folder, include_invalid)
        except SourceError as error:
            raise FileNotFoundError(str(error)) from None
        # Collected before the work folder goes: the frames then own their data.
        games = files.scan_games().drop(GAME_KEY).collect().rechunk()
        tricks = files.scan_tricks().drop(GAME_KEY).collect().rechunk()
    return games, tricks
