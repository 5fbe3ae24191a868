"""The facts of one record that the checks across records need, and of many records in
a compact table.

Each record is first verified on its own (:mod:`phantom_log.checking.verdict`); what the
checks across records need of it is kept in a small :class:`RecordFacts` (its names, its
stage, the digest of its content, its deals), so that records can be verified in
worker processes and only their facts come back, as a :class:`FactsTable` of a chunk.

A record read from a regular file whose replay dealt gives the place of its text instead
of the digest of its content; the digest is made afterwards, and only if another record
shares its first deal, as every copy does (:mod:`phantom_log.tournament.copies`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

import orjson

from ..checking.verdict import RecordReport
from ..records.chunks import TextFile
from ..records.identity import game_key, person_key
from ..records.source_records import SourceRecord
from ..records.strictjson import MAX_DEPTH
from ..rules.cards import DECK_SIZE
from ..rules.engine import ROUNDS_PER_GAME
from ..rules.replay import GameLog
from .columns import Column, NameColumn, TextColumn


class RecordFacts(NamedTuple):
    """What the checks across records need of one verified record. ``content`` is the
    digest of its content, ``None`` for a record that is no object, or whose digest is
    still to be made from its text: ``text_length`` bytes ``text_offset`` bytes into
    ``text_file``."""

    source: str
    index: int  # type: ignore[assignment]  # the record's place, not tuple.index
    game_id: str | None
    valid: bool
    phantom: str | None
    christine: str | None
    stage: str | None
    content: bytes | None
    deals: tuple[int, ...]
    winner: str | None
    notes: int | None
    finished: bool
    text_file: TextFile | None = None
    text_offset: int = 0
    text_length: int = 0


#: The facts of one record as a plain tuple, in :class:`RecordFacts`' order: what a worker
#: fills its table with (a RecordFacts made for each record would cost more than the
#: tuple and the table together).
FactsRow = tuple[
    str,
    int,
    str | None,
    bool,
    str | None,
    str | None,
    str | None,
    bytes | None,
    tuple[int, ...],
    str | None,
    int | None,
    bool,
    TextFile | None,
    int,
    int,
]


def record_facts(report: RecordReport) -> RecordFacts:
    """The facts of one verified record, its content digested."""
    return RecordFacts(*report_facts(report))


def report_facts(report: RecordReport, read: SourceRecord | None = None) -> FactsRow:
    """The facts of one verified record, as a tuple (:data:`FactsRow`). Given the record as
    it was ``read``, the digest of a record whose text can be read again from its file and
    whose replay dealt is left to be made."""
    result = report.result
    winner = None if result is None or result.winner is None else result.winner.key
    record = report.record
    phantom = christine = stage = content = text_file = None
    text_offset = text_length = 0
    deals: tuple[int, ...] = ()
    if isinstance(record, dict):
        if report.schema_shaped:
            # Read as the record model would read them; the model itself costs more than
            # all the other facts.
            players = record["players"]
            phantom, christine = players["phantom"], players["christine"]
            stage = record.get("stage")
        else:
            players = record.get("players")
            if isinstance(players, dict):
                phantom = players.get("phantom")
                phantom = phantom if isinstance(phantom, str) else None
                christine = players.get("christine")
                christine = christine if isinstance(christine, str) else None
            stage = record.get("stage") if isinstance(record.get("stage"), str) else None
        if report.log is not None:
            deals = _deal_keys(report.log)
        if deals and read is not None and read.file is not None and read.text is not None:
            text_file, text_offset, text_length = read.file, read.offset, len(read.text)
        else:
            content = content_digest(record)
    return (
        report.source,
        report.index,
        report.game_id,
        report.valid,
        phantom,
        christine,
        stage,
        content,
        deals,
        winner,
        None if result is None else result.notes,
        winner is not None,
        text_file,
        text_offset,
        text_length,
    )


def content_digest(record: dict[str, Any]) -> bytes:
    """A digest of a record's content apart from its game id: the same for records equal
    as JSON values (as the strict parse reads them), however they are written (the order
    of their keys, spaces, escapes, ``1.0`` or ``1.00``), and different for any other.

    The record's own text cannot stand for it (another order of the same keys is the same
    content): the value is written in one canonical form, sorted keys and no spaces, and
    that text digested."""
    body = dict(record)
    body.pop("game_id", None)
    try:
        text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        # Nested deeper than orjson writes, or a number it cannot write: the same text, by
        # the standard library. The same content always takes the same way.
        text = _canonical_json(body)
    return hashlib.sha256(text).digest()[:_DIGEST]


def _canonical_json(value: Any) -> bytes:
    """The JSON text of a value with sorted keys and no spaces, at any depth the strict
    parse reads (:data:`~phantom_log.records.strictjson.MAX_DEPTH`)."""
    # The standard library's writer recurses once a level, within the interpreter's
    # recursion limit: room for every level is made above the caller's frames.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + MAX_DEPTH + 100)
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode("ascii")
    finally:
        sys.setrecursionlimit(limit)


def _deal_keys(log: GameLog) -> tuple[int, ...]:
    """The key of each round the replay dealt: the Phantom's hand mask, and Christine's
    above it. Two deals are the same deal exactly when their keys are equal."""
    final = log.final
    if final is None:
        return ()
    return tuple([phantom | christine << DECK_SIZE for phantom, christine in final.deals])


# Digests (of a record's content, of a name) are 16 bytes: two 64-bit words in a table.
_DIGEST: Final = 16
_NO_DIGEST: Final = bytes(_DIGEST)
#: The deals a table keeps per record: the most rounds a record holds.
DEAL_SLOTS: Final = ROUNDS_PER_GAME
_NO_DEALS: Final = (0,) * DEAL_SLOTS
#: The winners as a table holds them: ``table.winners[i]`` is an index into these.
WINNERS: Final = (None, "phantom", "christine")
_WINNER_INDEX: Final = {winner: index for index, winner in enumerate(WINNERS)}


class FactsTable(Column[RecordFacts]):
    """The facts of many records, a compact column each: names and ids as the records
    give them, digests as 64-bit words. ``table[i]`` is the i-th record's
    :class:`RecordFacts`; the checks across records read the columns."""

    def __init__(self, facts: Iterable[RecordFacts] = ()) -> None:
        self.sources: list[str] = []
        self._source_ids: dict[str, int] = {}
        self.source_ids = array("I")
        self.indexes = array("Q")
        self.game_ids = TextColumn()
        # A hash of each game id's key (0 without an id), the same in every process (the
        # workers' tables are joined); equal hashes are then compared exactly.
        self.game_key_hashes = array("q")
        self.valid = bytearray()
        self.finished = bytearray()
        self.winners = bytearray()  # an index into WINNERS
        self.notes = array("h")  # -1 for none
        self.phantoms = TextColumn()
        self.christines = TextColumn()
        # The digest of each name's key (identity.person_key), two words a record (zero
        # without a name): two names are one player when their digests are equal.
        self.phantom_keys = array("Q")
        self.christine_keys = array("Q")
        self.stages = NameColumn()
        # Whether a record's content digest is held (not for a record that is no object,
        # nor for one whose digest is still to be made from its text).
        self.has_content = bytearray()
        self.content = array("Q")  # two words per record (zero when there is none)
        self.deal_counts = bytearray()
        self.deals = array("Q")  # a word per deal, DEAL_SLOTS deals per record (0: none)
        # Where a record's text can be read again: the number of its file in text_files,
        # plus one (0: nowhere), its offset and its length.
        self.text_files: list[TextFile] = []
        self._text_file_ids: dict[TextFile, int] = {}
        self.text_file_ids = array("I")
        self.text_offsets = array("Q")
        self.text_lengths = array("Q")
        self._last_text_file: TextFile | None = None
        self._last_text_file_id = 0
        for item in facts:
            self.add(item)

    def add(self, facts: FactsRow) -> None:
        """Add one record's facts (a :class:`RecordFacts` or a :data:`FactsRow`)."""
        (
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
            finished,
            text_file,
            text_offset,
            text_length,
        ) = facts
        self.source_ids.append(self._source_id(source))
        self.indexes.append(index)
        self.game_ids.append(game_id)
        self.game_key_hashes.append(0 if game_id is None else _key_hash(game_id))
        self.valid.append(valid)
        self.finished.append(finished)
        self.winners.append(_WINNER_INDEX[winner])
        self.notes.append(-1 if notes is None else notes)
        self.phantoms.append(phantom)
        self.christines.append(christine)
        self.phantom_keys.frombytes(_person_digest(phantom))
        self.christine_keys.frombytes(_person_digest(christine))
        self.stages.append(stage)
        self.has_content.append(content is not None)
        self.content.frombytes(content or _NO_DIGEST)
        self.deal_counts.append(len(deals))
        self.deals.extend(deals)
        if len(deals) < DEAL_SLOTS:
            self.deals.extend(_NO_DEALS[len(deals) :])
        self.text_file_ids.append(0 if text_file is None else self._text_file_id(text_file))
        self.text_offsets.append(text_offset)
        self.text_lengths.append(text_length)

    def extend(self, other: FactsTable) -> None:
        """Add the records of another table (a chunk's, made by a worker process)."""
        sources = [self._source_id(source) for source in other.sources]
        if len(sources) == 1:
            self.source_ids.extend(array("I", sources) * len(other.source_ids))
        else:
            self.source_ids.extend(array("I", (sources[i] for i in other.source_ids)))
        for name in _COPIED_COLUMNS:
            getattr(self, name).extend(getattr(other, name))
        files = [0, *(self._text_file_id(file) for file in other.text_files)]
        if files == list(range(len(files))):
            self.text_file_ids.extend(other.text_file_ids)
        else:
            self.text_file_ids.extend(array("I", (files[i] for i in other.text_file_ids)))

    def _source_id(self, source: str) -> int:
        source_id = self._source_ids.get(source)
        if source_id is None:
            source_id = self._source_ids[source] = len(self.sources)
            self.sources.append(source)
        return source_id

    def _text_file_id(self, file: TextFile) -> int:
        if file is self._last_text_file:  # a chunk's records share one, and its hash costs
            return self._last_text_file_id
        file_id = self._text_file_ids.get(file)
        if file_id is None:
            self.text_files.append(file)
            file_id = self._text_file_ids[file] = len(self.text_files)
        self._last_text_file, self._last_text_file_id = file, file_id
        return file_id

    def text_at(self, position: int) -> tuple[TextFile | None, int, int]:
        """Where a record's text can be read again: its file (``None`` for nowhere), the
        offset and the length of its text there."""
        file_id = self.text_file_ids[position]
        file = self.text_files[file_id - 1] if file_id else None
        return file, self.text_offsets[position], self.text_lengths[position]

    def set_content(self, position: int, digest: bytes) -> None:
        """Hold the digest of a record's content, made from its text (:meth:`text_at`)."""
        words = array("Q")
        words.frombytes(digest)
        self.content[2 * position : 2 * position + 2] = words
        self.has_content[position] = True

    def __len__(self) -> int:
        return len(self.indexes)

    def _item(self, position: int) -> RecordFacts:
        content = self.content[2 * position : 2 * position + 2].tobytes()
        first_deal = DEAL_SLOTS * position
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
            tuple(self.deals[first_deal : first_deal + self.deal_counts[position]]),
            WINNERS[self.winners[position]],
            None if notes < 0 else notes,
            bool(self.finished[position]),
            *self.text_at(position),
        )

    def where(self, position: int) -> str:
        """The place of a record: ``source#index``."""
        return f"{self.sources[self.source_ids[position]]}#{self.indexes[position]}"

    def place(self, position: int) -> tuple[str, int]:
        """The source and index of a record."""
        return self.sources[self.source_ids[position]], self.indexes[position]


#: The columns that :meth:`FactsTable.extend` joins as they are (the numbers of sources
#: and of files are a table's own).
_COPIED_COLUMNS: Final = (
    "indexes", "game_ids", "game_key_hashes", "valid", "finished", "winners", "notes",
    "phantoms", "christines", "phantom_keys", "christine_keys", "stages", "has_content",
    "content", "deal_counts", "deals", "text_offsets", "text_lengths",
)  # fmt: skip


def _key_hash(game_id: str) -> int:
    """A signed 64-bit hash of a game id's key, the same in every process."""
    return int.from_bytes(_digest(game_key(game_id), 8), "little", signed=True)


# Players play many games: each process keeps the digests of the names it met last (the
# key's Unicode folding and the digest cost more than the other facts of a record).
@functools.lru_cache(maxsize=1 << 12)
def _person_digest(name: str | None) -> bytes:
    """The digest of a player's key (:data:`_DIGEST` bytes; zeros without a name)."""
    return _NO_DIGEST if name is None else _digest(person_key(name), _DIGEST)


def _digest(key: str, size: int) -> bytes:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=size).digest()


def facts_table(all_facts: Sequence[RecordFacts]) -> FactsTable:
    """The facts as a table: ``all_facts`` itself when it is one."""
    return all_facts if isinstance(all_facts, FactsTable) else FactsTable(all_facts)


def player_key(keys: array[int], position: int) -> int:
    """The digest of a record's player's key (see :class:`FactsTable`), as one number."""
    return keys[2 * position] | (keys[2 * position + 1] << 64)
