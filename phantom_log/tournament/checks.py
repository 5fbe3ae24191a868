"""Tournament checking: the checks across records, the manifest, and the standings.

Each record is first verified on its own (:mod:`phantom_log.checking.verdict`); what the checks
across records need of it is kept in a small :class:`RecordFacts`, so that records can
be verified in worker processes and only their facts come back.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any, Final, TypeVar, cast, overload

import orjson

from ..checking.verdict import RecordReport
from ..records.identity import game_key, person_key
from ..records.quoting import quoted, shortened
from ..records.schema import MANIFEST_SCHEMA
from ..records.sources import JsonError, parse_json
from ..rules.engine import ROUNDS_PER_GAME
from ..rules.problems import Severity

STANDINGS_COLUMNS: Final = (
    "player",
    "games",
    "wins",
    "losses",
    "wins_as_phantom",
    "wins_as_christine",
    "notes_as_phantom",
)


class TournamentCode:
    """The codes of the checks across records and against the manifest (docs/format.md's two,
    and the ones this command adds)."""

    DUPLICATE_GAME_ID: Final = "duplicate-game-id"
    DUPLICATE_DEAL: Final = "duplicate-deal"
    DUPLICATE_RECORD: Final = "duplicate-record"
    SAME_PLAYER: Final = "same-player"
    MISSING_GAME: Final = "missing-game"
    UNSCHEDULED_GAME: Final = "unscheduled-game"
    WRONG_PLAYERS: Final = "wrong-players"
    WRONG_STAGE: Final = "wrong-stage"
    UNKNOWN_PLAYER: Final = "unknown-player"


@dataclass(frozen=True, slots=True)
class TournamentProblem:
    """A problem found across records or against the manifest. ``index`` is ``None`` for
    a problem of the manifest itself (a game it expects that no record holds)."""

    source: str
    index: int | None
    game_id: str | None
    code: str
    severity: Severity
    message: str

    def to_json(self) -> dict[str, Any]:
        """As the JSON report writes it."""
        return {
            "source": self.source,
            "index": self.index,
            "game_id": self.game_id,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class RecordFacts:
    """What the checks across records need of one verified record."""

    source: str
    index: int
    game_id: str | None
    valid: bool
    phantom: str | None
    christine: str | None
    stage: str | None
    content: bytes | None
    deals: tuple[bytes, ...]
    winner: str | None
    notes: int | None
    finished: bool

    @property
    def where(self) -> str:
        """The record's place: ``source#index``."""
        return f"{self.source}#{self.index}"


def record_facts(report: RecordReport) -> RecordFacts:
    """The facts of one verified record."""
    result = report.result
    winner = None if result is None or result.winner is None else result.winner.key
    notes = None if result is None else result.notes
    model = report.model
    record = report.record
    if model is None or not isinstance(record, dict):
        return facts_of(
            report.source,
            report.index,
            report.game_id,
            report.valid,
            record,
            report.log is not None,
            winner,
            notes,
        )
    # A record of the schema's shape: its names and stage as the record model reads them.
    stage = model.stage
    return RecordFacts(
        report.source,
        report.index,
        report.game_id,
        report.valid,
        model.players.phantom,
        model.players.christine,
        stage,
        _content_digest({key: value for key, value in record.items() if key != "game_id"}),
        () if report.log is None else tuple(_deal_key(data["deal"]) for data in record["rounds"]),
        winner,
        notes,
        winner is not None,
    )


def facts_of(
    source: str,
    index: int,
    game_id: str | None,
    valid: bool,
    record: Any,
    replayed: bool,
    winner: str | None,
    notes: int | None,
) -> RecordFacts:
    """The facts of one record: where it is, its verdict, the parsed record, whether the
    replay got past the schema (so its deals can be read), its winner and notes."""
    phantom = christine = stage = content = None
    deals: tuple[bytes, ...] = ()
    if isinstance(record, dict):
        players = record.get("players")
        if isinstance(players, dict):
            phantom = players.get("phantom") if isinstance(players.get("phantom"), str) else None
            christine = (
                players.get("christine") if isinstance(players.get("christine"), str) else None
            )
        stage = record.get("stage") if isinstance(record.get("stage"), str) else None
        body = {key: value for key, value in record.items() if key != "game_id"}
        content = _content_digest(body)
        if replayed:
            deals = tuple(_deal_key(data["deal"]) for data in record["rounds"])
    return RecordFacts(
        source,
        index,
        game_id,
        valid,
        phantom,
        christine,
        stage,
        content,
        deals,
        winner,
        notes,
        winner is not None,
    )


def _content_digest(body: Any) -> bytes:
    """A digest of a record's content, the same for the same content whatever the order
    of its keys."""
    try:
        text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        # Nested deeper than orjson writes (in an x- value, say), or a number it cannot
        # write: the same text, written without recursion. The same content always takes
        # the same way, so the digests still compare.
        text = _canonical_json(body)
    # SHA-256 cut to 16 bytes: as safe a digest as 16 bytes of BLAKE2b, and on a record's
    # few kilobytes about twice as fast where the processor has SHA instructions.
    return hashlib.sha256(text).digest()[:_DIGEST]


_END: Final = object()


def _canonical_json(value: Any) -> bytes:
    """The JSON text of a value with sorted keys, written with a stack of its own, so
    that no depth is too deep."""
    out: list[str] = []
    # Each frame: the items still to write, the closing bracket, whether none is written
    # yet, whether the items are an object's (key, value) pairs.
    stack: list[tuple[Iterator[Any], str, list[bool], bool]] = [(iter((value,)), "", [True], False)]
    while stack:
        items, closing, first, pairs = stack[-1]
        item = next(items, _END)
        if item is _END:
            out.append(closing)
            stack.pop()
            continue
        if not first[0]:
            out.append(",")
        first[0] = False
        if pairs:
            key, item = cast(tuple[str, Any], item)
            out.append(json.dumps(key) + ":")
        if isinstance(item, dict):
            out.append("{")
            stack.append((iter(sorted(item.items())), "}", [True], True))
        elif isinstance(item, list):
            out.append("[")
            stack.append((iter(item), "]", [True], False))
        else:
            out.append(json.dumps(item))
    return "".join(out).encode("utf-8", "surrogatepass")


def _deal_key(deal: Mapping[str, Any]) -> bytes:
    hands = "|".join(" ".join(sorted(deal[role])) for role in ("phantom", "christine"))
    return hashlib.blake2b(hands.encode(), digest_size=_DIGEST).digest()


# Digests (of a record's content, of a deal) are 16 bytes: two 64-bit words in a table.
_DIGEST: Final = 16
# The most rounds a record holds: the deals a table keeps per record.
_ROUNDS: Final = ROUNDS_PER_GAME
_WINNERS: Final = (None, "phantom", "christine")


Element = TypeVar("Element")


class _Column(Sequence[Element]):
    """A read-only column: ``column[i]`` is :meth:`_item` ``(i)``, a slice a list of them."""

    def _item(self, position: int) -> Element:
        raise NotImplementedError

    @overload
    def __getitem__(self, position: int) -> Element: ...

    @overload
    def __getitem__(self, position: slice) -> list[Element]: ...

    def __getitem__(self, position: int | slice) -> Element | list[Element]:
        if isinstance(position, slice):
            return [self._item(number) for number in range(*position.indices(len(self)))]
        return self._item(position + len(self) if position < 0 else position)


class _Texts(_Column[str | None]):
    """A column of texts (or ``None``) held as the bytes of all of them in one buffer.

    A million small strings kept alive among the garbage of parsing a million records pin
    memory far beyond their size (each keeps its allocator pool alive); one buffer does
    not."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._ends = array("Q")
        self._absent = bytearray()

    def append(self, text: str | None) -> None:
        if text is not None:
            self._data += text.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._data))
        self._absent.append(text is None)

    def present(self, position: int) -> bool:
        """True when the text at ``position`` is not ``None`` (read without decoding it)."""
        return not self._absent[position]

    def extend(self, other: _Texts) -> None:
        offset = len(self._data)
        self._data += other._data
        self._ends.extend(array("Q", (end + offset for end in other._ends)))
        self._absent += other._absent

    def __len__(self) -> int:
        return len(self._ends)

    def _item(self, position: int) -> str | None:
        if self._absent[position]:
            return None
        start = self._ends[position - 1] if position > 0 else 0
        return self._data[start : self._ends[position]].decode("utf-8", "surrogatepass")


class _Names(_Column[str | None]):
    """A column of names that repeat (players, stages): each name once, and an index per
    record."""

    def __init__(self) -> None:
        self._names: list[str | None] = [None]
        self._ids: dict[str | None, int] = {None: 0}
        self._column = array("I")

    def append(self, name: str | None) -> None:
        self._column.append(self._number(name))

    def _number(self, name: str | None) -> int:
        number = self._ids.get(name)
        if number is None:
            assert name is not None  # None is always known
            # A copy of the name, not the record's own string (see _Texts), kept once: as
            # the key and in the list.
            copy = name.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")
            number = self._ids[copy] = len(self._names)
            self._names.append(copy)
        return number

    def extend(self, other: _Names) -> None:
        numbers = [self._number(name) for name in other._names]
        self._column.extend(array("I", (numbers[number] for number in other._column)))

    def __len__(self) -> int:
        return len(self._column)

    def _item(self, position: int) -> str | None:
        return self._names[self._column[position]]


class FactsTable(_Column[RecordFacts]):
    """The facts of many records, a compact column each (about a tenth of the memory of
    as many :class:`RecordFacts`): names and ids are kept as the records give them (one
    copy of each name), digests as 64-bit words. ``table[i]`` is the i-th record's
    :class:`RecordFacts`; the checks across records read the columns."""

    def __init__(self, facts: Iterable[RecordFacts] = ()) -> None:
        self.sources: list[str] = []
        self._source_ids: dict[str, int] = {}
        self.source_ids = array("I")
        self.indexes = array("Q")
        self.game_ids = _Texts()
        # A 64-bit hash of each game id's key (0 without an id), the same in every process
        # (tables made by workers are joined); equal hashes are then compared exactly.
        self.game_key_hashes = array("q")
        self.valid = bytearray()
        self.finished = bytearray()
        self.winners = bytearray()  # an index into _WINNERS
        self.notes = array("h")  # -1 for none
        # Players' names in one buffer each, not as a string per name: an event of
        # distinct players would otherwise hold a million small strings (see _Texts).
        self.phantoms = _Texts()
        self.christines = _Texts()
        # The digest of each name's key (identity.person_key), two words a record (zero
        # without a name), made where the table is filled (in the workers): two names are
        # one player when their digests are equal, as two records are the same content
        # when theirs are (16 bytes of BLAKE2b: a collision would take some 2**64 tries).
        self.phantom_keys = array("Q")
        self.christine_keys = array("Q")
        self.stages = _Names()
        self.has_content = bytearray()
        self.content = array("Q")  # two words per record (zero when there is none)
        self.deal_counts = bytearray()
        self.deals = array("Q")  # two words per deal, _ROUNDS deals per record
        for item in facts:
            self.append(item)

    def append(self, facts: RecordFacts) -> None:
        """Add one record's facts."""
        self.source_ids.append(self._source_id(facts.source))
        self.indexes.append(facts.index)
        self.game_ids.append(facts.game_id)
        self.game_key_hashes.append(0 if facts.game_id is None else _key_hash(facts.game_id))
        self.valid.append(facts.valid)
        self.finished.append(facts.finished)
        self.winners.append(_WINNERS.index(facts.winner))
        self.notes.append(-1 if facts.notes is None else facts.notes)
        self.phantoms.append(facts.phantom)
        self.christines.append(facts.christine)
        self.phantom_keys.frombytes(_person_digest(facts.phantom))
        self.christine_keys.frombytes(_person_digest(facts.christine))
        self.stages.append(facts.stage)
        self.has_content.append(facts.content is not None)
        self.content.frombytes(facts.content or bytes(_DIGEST))
        self.deal_counts.append(len(facts.deals))
        self.deals.frombytes(b"".join(facts.deals).ljust(_ROUNDS * _DIGEST, b"\0"))

    def extend(self, other: FactsTable) -> None:
        """Add the records of another table (a chunk's, made by a worker process)."""
        sources = [self._source_id(source) for source in other.sources]
        if len(sources) == 1:
            self.source_ids.extend(array("I", sources) * len(other.source_ids))
        else:
            self.source_ids.extend(array("I", (sources[i] for i in other.source_ids)))
        self.indexes.extend(other.indexes)
        self.game_ids.extend(other.game_ids)
        self.game_key_hashes.extend(other.game_key_hashes)
        self.valid += other.valid
        self.finished += other.finished
        self.winners += other.winners
        self.notes.extend(other.notes)
        self.phantoms.extend(other.phantoms)
        self.christines.extend(other.christines)
        self.phantom_keys.extend(other.phantom_keys)
        self.christine_keys.extend(other.christine_keys)
        self.stages.extend(other.stages)
        self.has_content += other.has_content
        self.content.extend(other.content)
        self.deal_counts += other.deal_counts
        self.deals.extend(other.deals)

    def _source_id(self, source: str) -> int:
        source_id = self._source_ids.get(source)
        if source_id is None:
            source_id = self._source_ids[source] = len(self.sources)
            self.sources.append(source)
        return source_id

    def __len__(self) -> int:
        return len(self.indexes)

    def _item(self, position: int) -> RecordFacts:
        content = self.content[2 * position : 2 * position + 2].tobytes()
        first_deal = _ROUNDS * 2 * position
        deals = self.deals[first_deal : first_deal + 2 * self.deal_counts[position]].tobytes()
        notes = self.notes[position]
        return RecordFacts(
            self.sources[self.source_ids[position]],
            self.indexes[position],
            self.game_ids[position],
            bool(self.valid[position]),
            self.phantoms[position],
            self.christines[position],
            self.stages[position],
            content if self.has_content[position] else None,
            tuple(deals[start : start + _DIGEST] for start in range(0, len(deals), _DIGEST)),
            _WINNERS[self.winners[position]],
            None if notes < 0 else notes,
            bool(self.finished[position]),
        )

    def where(self, position: int) -> str:
        """The place of a record: ``source#index``."""
        return f"{self.sources[self.source_ids[position]]}#{self.indexes[position]}"

    def place(self, position: int) -> tuple[str, int]:
        """The source and index of a record."""
        return self.sources[self.source_ids[position]], self.indexes[position]


def _key_hash(game_id: str) -> int:
    """A signed 64-bit hash of a game id's key, the same in every process."""
    return int.from_bytes(_digest(game_key(game_id), 8), "little", signed=True)


def _person_digest(name: str | None) -> bytes:
    """The digest of a player's key (:data:`_DIGEST` bytes; zeros without a name)."""
    return bytes(_DIGEST) if name is None else _digest(person_key(name), _DIGEST)


def _digest(key: str, size: int) -> bytes:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=size).digest()


def _table(all_facts: Sequence[RecordFacts]) -> FactsTable:
    return all_facts if isinstance(all_facts, FactsTable) else FactsTable(all_facts)


# The keys are looked at in this many parts (by their low bits: equal keys fall in the
# same part), so that only a part's keys are in a dictionary at a time.
_KEY_PARTS: Final = 16


def _repeated(
    keys: Sequence[int], present: Sequence[int] | None = None, every: int = 1
) -> set[int]:
    """The positions whose key occurs more than once among the present ones (``keys`` read
    at every ``every``-th item, ``present[position]`` true): the candidates, which the
    caller compares exactly.

    A part of the keys at a time (:data:`_KEY_PARTS`): a dictionary of a million keys
    would take about 100 MiB, and is the peak of a tournament check; a sixteenth of it
    is freed, and its memory used again, before the next part is looked at."""
    parts = [array("I") for _ in range(_KEY_PARTS)]
    mask = _KEY_PARTS - 1
    for position in range(len(keys) // every):
        if present is None or present[position]:
            parts[keys[position * every] & mask].append(position)
    found: set[int] = set()
    for part in parts:
        first: dict[int, int] = {}
        for position in part:
            seen = first.setdefault(keys[position * every], position)
            if seen != position:
                found.add(seen)
                found.add(position)
    return found


# A record's deal slots (_ROUNDS of them) as present (1) or not (0), by its deals held.
_SLOTS_PRESENT: Final = [bytes([1] * held + [0] * (_ROUNDS - held)) for held in range(_ROUNDS + 1)]


# -- the manifest -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """A game the manifest expects: by id, or by its pairing (with roles) in a stage."""

    stage: str
    game_id: str | None
    phantom: str | None
    christine: str | None

    @property
    def name(self) -> str:
        """The game in words, without its stage."""
        if self.game_id is not None:
            return f"game {quoted(self.game_id)}"
        return (
            f"the game of {shortened(self.phantom or '')} (the Phantom) against "
            f"{shortened(self.christine or '')} (Christine)"
        )

    @property
    def label(self) -> str:
        """The game in words, with its stage."""
        return f"{self.name} of stage {self.stage}"


@dataclass(frozen=True, slots=True)
class Manifest:
    """An event's players and schedule (``schemas/manifest-1.schema.json``)."""

    source: str
    event: str | None
    players: tuple[str, ...]
    games: tuple[ScheduledGame, ...]


def read_manifest(data: bytes, source: str) -> Manifest | list[str]:
    """The manifest of a file's bytes, or the messages of its problems."""
    from ..records.schema import schema_problems

    try:
        document = parse_json(data)
    except JsonError as error:
        return [f"json: {error.problem().message}"]
    problems = schema_problems(document, MANIFEST_SCHEMA)
    if problems:
        return [f"{p.pointer or '/'}: {p.code}: {p.message}" for p in problems]
    games = tuple(
        ScheduledGame(
            stage["stage"],
            game.get("game_id"),
            game.get("phantom"),
            game.get("christine"),
        )
        for stage in document["stages"]
        for game in stage["games"]
    )
    messages = []
    spellings: dict[str, list[str]] = defaultdict(list)
    for game in games:
        if game.game_id is not None:
            spellings[game_key(game.game_id)].append(game.game_id)
    repeated = sorted(ids[0] for ids in spellings.values() if len(ids) > 1)
    if repeated:
        messages.append(
            "the schedule lists game ids more than once: "
            + ", ".join(shortened(game_id) for game_id in repeated)
        )
    for game in games:
        if game.game_id is None and (game.phantom is None or game.christine is None):
            messages.append(f"a game of stage {game.stage} has neither a game_id nor both players")
    if messages:
        return messages
    return Manifest(source, document.get("event"), tuple(document.get("players", ())), games)


# -- the checks across records ------------------------------------------------------------


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
        problems and players at a time: a million records' report is never held whole as
        text."""
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


def standings_dicts(standings: Sequence[StandingsRow]) -> Iterator[dict[str, Any]]:
    """The rows of standings as dicts (of :data:`STANDINGS_COLUMNS`), in their order; made
    from the columns of :class:`Standings` without a row object each."""
    if isinstance(standings, Standings):
        yield from standings.dicts()
    else:
        for row in standings:
            yield dict(row)


def _problem(facts: RecordFacts, code: str, severity: Severity, message: str) -> TournamentProblem:
    return TournamentProblem(facts.source, facts.index, facts.game_id, code, severity, message)


#: How many other records a ``duplicate-game-id`` names; the rest are counted.
OTHERS_NAMED: Final = 5


def _named(others: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; past :data:`OTHERS_NAMED`, ``... and 7 more``."""
    if len(others) > OTHERS_NAMED:
        return ", ".join(others[:OTHERS_NAMED]) + f" and {len(others) - OTHERS_NAMED} more"
    return ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + others[-1]


def cross_record_problems(all_facts: Sequence[RecordFacts]) -> list[TournamentProblem]:
    """The problems between records: the same game id twice (error, on every copy), the
    same content twice (warning, on the later copies), the same deal in two games
    (warning, on the later game), one player on both sides (error). Game ids and names
    are compared by :mod:`~phantom_log.records.identity`'s keys.

    The repeated ids, contents and deals are found by 64-bit words a part at a time, so
    that a million records need no dictionary of a million keys; only the records that
    share one are looked at one by one."""
    table = _table(all_facts)
    count = len(table)
    holders: dict[str, list[int]] = defaultdict(list)
    shared_id = _repeated(table.game_key_hashes)
    for position in sorted(shared_id):
        game_id = table.game_ids[position]
        if game_id is not None:
            holders[game_key(game_id)].append(position)
    # Equal hashes of different keys (or a key held once among equal hashes) are no
    # repeats.
    holders = defaultdict(list, {key: found for key, found in holders.items() if len(found) > 1})
    # A digest's first word: equal digests have equal first words.
    shared_content = _repeated(table.content, table.has_content, every=2)
    # Every deal slot of every record (_ROUNDS a record), present when the record has it.
    present = b"".join([_SLOTS_PRESENT[deals_held] for deals_held in table.deal_counts])
    shared_deals = _repeated(table.deals, present, every=2)
    del present
    contents = table.content
    deals = table.deals
    phantoms, christines = table.phantoms, table.christines
    phantom_keys, christine_keys = table.phantom_keys, table.christine_keys
    first_content: dict[bytes, int] = {}
    first_deal: dict[bytes, tuple[int, int]] = {}
    problems: list[TournamentProblem] = []

    def problem(position: int, code: str, severity: Severity, message: str) -> None:
        source, index = table.place(position)
        problems.append(
            TournamentProblem(source, index, table.game_ids[position], code, severity, message)
        )

    for position in range(count):
        game_id = table.game_ids[position] if position in shared_id else None
        if game_id is not None:
            same_id = holders.get(game_key(game_id))
            if same_id:
                others = [table.where(other) for other in same_id if other != position]
                problem(
                    position,
                    TournamentCode.DUPLICATE_GAME_ID,
                    Severity.ERROR,
                    f"game id {quoted(game_id)} is held by {len(same_id)} "
                    f"records: this one and {_named(others)}",
                )
        copy = False
        if position in shared_content:
            digest = contents[2 * position : 2 * position + 2].tobytes()
            first = first_content.setdefault(digest, position)
            if first != position:
                copy = True  # a copy also repeats the deals: say it once
                first_id = table.game_ids[first]
                problem(
                    position,
                    TournamentCode.DUPLICATE_RECORD,
                    Severity.WARNING,
                    f"the same record as {table.where(first)}"
                    + (f" ({first_id})" if first_id else "")
                    + ", apart from the game id",
                )
        for round_index in range(0 if copy else table.deal_counts[position]):
            slot = _ROUNDS * position + round_index
            if slot not in shared_deals:
                continue
            deal = deals[2 * slot : 2 * slot + 2].tobytes()
            seen = first_deal.setdefault(deal, (position, round_index))
            if seen[0] != position:
                seen_id = table.game_ids[seen[0]]
                problem(
                    position,
                    TournamentCode.DUPLICATE_DEAL,
                    Severity.WARNING,
                    f"the deal of round {round_index + 1} is the deal of round "
                    f"{seen[1] + 1} of {table.where(seen[0])}"
                    + (f" ({seen_id})" if seen_id else "")
                    + ": a reused shuffle or a copied record",
                )
        if (
            phantoms.present(position)
            and christines.present(position)
            and _player_key(phantom_keys, position) == _player_key(christine_keys, position)
        ):
            phantom = phantoms[position]
            assert phantom is not None  # present
            problem(
                position,
                TournamentCode.SAME_PLAYER,
                Severity.ERROR,
                f"{quoted(phantom)} plays both the Phantom and Christine",
            )
    return problems


def manifest_problems(
    manifest: Manifest, all_facts: Sequence[RecordFacts]
) -> list[TournamentProblem]:
    """The problems of the records against the manifest's players and schedule."""
    problems: list[TournamentProblem] = []
    known = {person_key(name) for name in manifest.players}
    if known:
        for facts in all_facts:
            for role, name in (("the Phantom", facts.phantom), ("Christine", facts.christine)):
                if name is not None and person_key(name) not in known:
                    problems.append(
                        _problem(
                            facts,
                            TournamentCode.UNKNOWN_PLAYER,
                            Severity.ERROR,
                            f"{quoted(name)} ({role}) is not a player of the event",
                        )
                    )
    matched: set[int] = set()
    by_id: dict[str, list[int]] = defaultdict(list)
    for position, facts in enumerate(all_facts):
        if facts.game_id is not None:
            by_id[game_key(facts.game_id)].append(position)
    missing: list[ScheduledGame] = []
    pairings: list[ScheduledGame] = []
    for game in manifest.games:
        if game.game_id is None:
            pairings.append(game)
            continue
        positions = by_id.get(game_key(game.game_id), [])
        if not positions:
            missing.append(game)
            continue
        matched.update(positions)
        for position in positions:
            problems.extend(_compare(game, all_facts[position]))
    by_pair: dict[frozenset[str], list[int]] = defaultdict(list)
    for position, facts in enumerate(all_facts):
        if facts.phantom is not None and facts.christine is not None:
            by_pair[frozenset((person_key(facts.phantom), person_key(facts.christine)))].append(
                position
            )
    for game in pairings:
        assert game.phantom is not None and game.christine is not None
        wanted = frozenset((person_key(game.phantom), person_key(game.christine)))
        candidates = [position for position in by_pair[wanted] if position not in matched]
        if not candidates:
            missing.append(game)
            continue

        def fit(position: int, game: ScheduledGame = game) -> tuple[bool, bool]:
            facts = all_facts[position]
            return (
                person_key(facts.phantom or "") != person_key(game.phantom or ""),
                facts.stage != game.stage,
            )

        best = min(candidates, key=fit)
        matched.add(best)
        problems.extend(_compare(game, all_facts[best]))
    for game in missing:
        problems.append(
            TournamentProblem(
                manifest.source,
                None,
                game.game_id,
                TournamentCode.MISSING_GAME,
                Severity.ERROR,
                f"the schedule expects {game.label}, and no record holds it",
            )
        )
    for position, facts in enumerate(all_facts):
        if position not in matched:
            problems.append(
                _problem(
                    facts,
                    TournamentCode.UNSCHEDULED_GAME,
                    Severity.ERROR,
                    "the schedule has no such game"
                    + (
                        f" (the Phantom {shortened(facts.phantom)}, "
                        f"Christine {shortened(facts.christine)})"
                        if facts.phantom and facts.christine
                        else ""
                    ),
                )
            )
    return problems


def _compare(game: ScheduledGame, facts: RecordFacts) -> list[TournamentProblem]:
    problems = []
    players_known = facts.phantom is not None and facts.christine is not None
    if game.phantom is not None and game.christine is not None and players_known:
        expected = (person_key(game.phantom), person_key(game.christine))
        actual = (person_key(facts.phantom or ""), person_key(facts.christine or ""))
        if expected != actual:
            swapped = expected == actual[::-1]
            problems.append(
                _problem(
                    facts,
                    TournamentCode.WRONG_PLAYERS,
                    Severity.ERROR,
                    f"the schedule has {shortened(game.phantom)} as the Phantom against "
                    f"{shortened(game.christine)} as Christine in {game.name}; the record has "
                    f"{shortened(facts.phantom or '')} against "
                    f"{shortened(facts.christine or '')}"
                    + (" (the roles are swapped)" if swapped else ""),
                )
            )
    if facts.stage != game.stage:
        problems.append(
            _problem(
                facts,
                TournamentCode.WRONG_STAGE,
                Severity.ERROR,
                f"the schedule puts {game.name} in stage {shortened(game.stage)}, but the "
                "record says "
                + ("no stage" if facts.stage is None else f"stage {shortened(facts.stage)}"),
            )
        )
    return problems


class StandingsRow(Mapping[str, Any]):
    """One player's row of the standings: a read-only mapping of
    :data:`STANDINGS_COLUMNS` to values (``row["wins"]``, ``dict(row)``), held in a
    quarter of a dict's memory (an event may have hundreds of thousands of players)."""

    __slots__ = STANDINGS_COLUMNS

    def __init__(self, player: str) -> None:
        self.player = player
        self.games = self.wins = self.losses = 0
        self.wins_as_phantom = self.wins_as_christine = self.notes_as_phantom = 0

    def __getitem__(self, column: str) -> Any:
        if column not in STANDINGS_COLUMNS:
            raise KeyError(column)
        return getattr(self, column)

    def __iter__(self) -> Iterator[str]:
        return iter(STANDINGS_COLUMNS)

    def __len__(self) -> int:
        return len(STANDINGS_COLUMNS)

    def __repr__(self) -> str:
        return f"StandingsRow({dict(self)!r})"


class Standings(_Column[StandingsRow]):
    """The standings in their order, each row made when it is read: per player the name
    in one buffer and each count in a column (about half the memory of a row object and
    a name each; an event may have hundreds of thousands of players)."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, names: _Texts, counts: Mapping[str, array[int]], order: array[int]) -> None:
        self._names = names
        self._counts = [counts[column] for column in STANDINGS_COLUMNS[1:]]
        self._order = order

    def __len__(self) -> int:
        return len(self._order)

    def dicts(self) -> Iterator[dict[str, Any]]:
        """The rows as dicts, in order."""
        names = self._names
        columns = STANDINGS_COLUMNS
        counts = self._counts
        for player in self._order:
            yield dict(
                zip(columns, (names[player] or "", *(c[player] for c in counts)), strict=True)
            )

    def _item(self, position: int) -> StandingsRow:
        player = self._order[position]
        row = StandingsRow(self._names[player] or "")
        for column, values in zip(STANDINGS_COLUMNS[1:], self._counts, strict=True):
            setattr(row, column, values[player])
        return row

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(
            mine == theirs for mine, theirs in zip(self, other, strict=True)
        )

    def __repr__(self) -> str:
        return f"Standings({list(self)!r})"


def standings(
    all_facts: Sequence[RecordFacts],
    left_out: set[tuple[str, int]] = frozenset(),  # type: ignore[assignment]
) -> Standings:
    """Per player, over the finished games of valid records that are not in ``left_out``
    (records with an error across records or against the manifest, and later copies of
    a record): games, wins, losses, wins as the Phantom and as Christine, and notes
    completed as the Phantom (the tie-break); sorted by wins, then that tie-break, then
    name. A player is named as in the first game counted for them."""
    table = _table(all_facts)
    # A player's number by the digest of their key (the table's, as one number).
    numbers: dict[int, int] = {}
    names = _Texts()
    counts = {column: array("I") for column in STANDINGS_COLUMNS[1:]}
    games, wins, losses = counts["games"], counts["wins"], counts["losses"]
    wins_as = {"phantom": counts["wins_as_phantom"], "christine": counts["wins_as_christine"]}
    notes_as_phantom = counts["notes_as_phantom"]
    for position in range(len(table)):
        if (
            not table.valid[position]
            or not table.finished[position]
            or not table.phantoms.present(position)
            or not table.christines.present(position)
            or (left_out and table.place(position) in left_out)
        ):
            continue
        winner = _WINNERS[table.winners[position]]
        for role, written, keys in (
            ("phantom", table.phantoms, table.phantom_keys),
            ("christine", table.christines, table.christine_keys),
        ):
            key = _player_key(keys, position)
            player = numbers.get(key)
            if player is None:
                player = numbers[key] = len(names)
                names.append(written[position])
                for column in counts.values():
                    column.append(0)
            games[player] += 1
            if winner == role:
                wins[player] += 1
                wins_as[role][player] += 1
            else:
                losses[player] += 1
            if role == "phantom":
                notes_as_phantom[player] += max(table.notes[position], 0)
    del numbers
    # By name first, then (a stable sort) by wins and the tie-break, both highest first:
    # one small key per player at a time, not a tuple each.
    order = sorted(range(len(names)), key=lambda player: (names[player] or "").casefold())
    order.sort(key=lambda player: (wins[player] << 32) | notes_as_phantom[player], reverse=True)
    return Standings(names, counts, array("I", order))


def _player_key(keys: array[int], position: int) -> int:
    """The digest of a record's player's key (see :class:`FactsTable`), as one number."""
    return keys[2 * position] | (keys[2 * position + 1] << 64)


def tournament_report(
    all_facts: Sequence[RecordFacts],
    record_problems: list[TournamentProblem],
    manifest: Manifest | None,
    strict: bool = False,
) -> TournamentReport:
    """The whole report: the records' own problems, then those across records and against
    the manifest (all errors when ``strict``); a record is valid when no error, of its own
    or across records, names it. The standings leave out the records with an error and
    the later copies of a record."""
    table = _table(all_facts)
    across = cross_record_problems(table)
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
