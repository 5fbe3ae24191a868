"""The games and tricks tables, built once from the verify reports, in batches.

Each batch of records becomes two Arrow IPC files in a work folder: the games rows, and
the tricks as the engine packs them (an integer per trick, and one for its swaps). Export
and statistics then scan those files lazily and decode the tricks a whole column at a
time, only the columns a query reads, so memory stays bounded however many records there
are. Every value comes from the engine's events in the record's game log: the packed
fields are plain numbers to decode, and nothing here applies a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Final, Protocol, TypeVar

import polars as pl

from ..checking.verdict import RecordReport
from ..files.outputs import writing_work_files
from ..rules.cards import CARD_CODES, SUIT_CODES, Role
from ..rules.engine import SWAP_SIZE
from ..rules.events import Reason
from ..views.annotate import ANNOTATION_FIELDS
from ..views.csv_output import frame_csv
from .rows import SWAP_LAYOUT, TRICK_LAYOUT, TrickRows, game_row, trick_rows

GAME_SCHEMA: Final = {
    "source": pl.String,
    "index": pl.Int64,
    "game_id": pl.String,
    "event": pl.String,
    "site": pl.String,
    "date": pl.Date,
    "stage": pl.String,
    "phantom": pl.String,
    "christine": pl.String,
    "sheet": pl.String,
    "beginner": pl.Boolean,
    "balance": pl.Boolean,
    "valid": pl.Boolean,
    "first_problem": pl.String,
    "winner": pl.String,
    "notes": pl.Int64,
    "rounds_played": pl.Int64,
    "tricks_played": pl.Int64,
    "notes_after_round_1": pl.Int64,
    "special_number_1": pl.Int64,
    "special_number_2": pl.Int64,
    "special_tricks": pl.Int64,
    "notes_added_by_special": pl.Int64,
    "notes_removed_by_special": pl.Int64,
}
# A trick's swaps, as annotate's JSON writes them: a list (empty without a swap) of
# {after, phantom, christine}, the cards each side gave.
SWAPS_TYPE: Final = pl.List(
    pl.Struct({"after": pl.String, "phantom": pl.List(pl.String), "christine": pl.List(pl.String)})
)
# The columns of a trick as annotate writes it; the tricks table leads them with the
# record's place, as the games table has it, so the two join on (source, index).
ANNOTATION_SCHEMA: Final[dict[str, pl.DataType | type[pl.DataType]]] = {
    "game_id": pl.String,
    "round": pl.Int64,
    "trick": pl.Int64,
    "leader": pl.String,
    "lead": pl.String,
    "follower": pl.String,
    "follow": pl.String,
    "lead_suit": pl.String,
    "super_trump": pl.String,
    "winner": pl.String,
    "reason": pl.String,
    "note_owner": pl.String,
    "in_order": pl.Boolean,
    "special": pl.Boolean,
    "swaps": SWAPS_TYPE,
    "notes_before": pl.Int64,
    "notes_after": pl.Int64,
}
assert list(ANNOTATION_SCHEMA) == list(ANNOTATION_FIELDS)
TRICK_SCHEMA: Final[dict[str, pl.DataType | type[pl.DataType]]] = {
    "source": pl.String,
    "index": pl.Int64,
    **ANNOTATION_SCHEMA,
}
#: The tricks table's columns of anyone's text (a source's name, a game id): its other
#: text columns hold phantom-log's own codes (cards, suits, roles, reasons, and the swaps
#: written as "lead P:Ma2 C:-"), of which none begins a spreadsheet formula, so CSV marks
#: the cells of these two only (:func:`~phantom_log.views.csv_output.text_cells`).
TRICK_TEXT_COLUMNS: Final = ("source", "game_id")
# The key joining the two tables inside phantom-log (game_id need not be unique).
GAME_KEY: Final = "game_key"
REASONS: Final = tuple(reason.value for reason in Reason)


# The games rows as the workers send them: the date still as text.
_GAME_ROW_SCHEMA: Final = {**GAME_SCHEMA, "date": pl.String}
_GAME_ID: Final = list(GAME_SCHEMA).index("game_id")
_SOURCE: Final = list(GAME_SCHEMA).index("source")
_INDEX: Final = list(GAME_SCHEMA).index("index")


def _field(name: str) -> pl.Expr:
    shift, bits = TRICK_LAYOUT.field(name)
    return (pl.col("packed") // (1 << shift)) % (1 << bits)


_ROLE_KEYS: Final = [role.key for role in Role]


def _role(expr: pl.Expr) -> pl.Expr:
    return _codes(expr, _ROLE_KEYS)


def _codes(expr: pl.Expr, codes: Sequence[str | None]) -> pl.Expr:
    """Each int of a column as the code it indexes (an index out of range is an error).

    Taken from the list of codes by index: ``replace_strict`` would do the same, but
    polars cannot stream it, and export then held the whole tricks table in memory."""
    return pl.lit(pl.Series(list(codes), dtype=pl.String)).gather(expr)


Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


_AFTER: Final = ["lead", "follow"]


def _swap_field(packed: pl.Expr, swap: int, name: str) -> pl.Expr:
    """A field of the ``swap``-th swap of a column of packed swaps (:data:`SWAP_LAYOUT`)."""
    shift, bits = SWAP_LAYOUT.field(name, swap)
    return (packed // (1 << shift)) % (1 << bits)


# What one side gave in a swap, as one index: how many cards, then the code of each card
# given (0 where the side gave fewer), each field as wide as SWAP_LAYOUT has it. The cards
# of every index are listed once (below); a column is decoded by gathering from the
# list, one lookup a row, where choosing between the counts would build every choice for
# every row. An index the engine never packs (too many cards, a code past the deck) has
# no cards (null).
_COUNT_BITS: Final = SWAP_LAYOUT.field("phantom_count")[1]
_CARD_BITS: Final = SWAP_LAYOUT.field("phantom_1")[1]


def _side_cards(index: int) -> list[str] | None:
    count = index % (1 << _COUNT_BITS)
    codes = [
        (index >> (_COUNT_BITS + _CARD_BITS * place)) % (1 << _CARD_BITS)
        for place in range(SWAP_SIZE)
    ]
    if count > SWAP_SIZE or any(codes[count:]):
        return None
    if any(code >= len(CARD_CODES) for code in codes[:count]):
        return None
    return [CARD_CODES[code] for code in codes[:count]]


_SIDE_CARDS: Final = [
    _side_cards(index) for index in range(1 << (_COUNT_BITS + _CARD_BITS * SWAP_SIZE))
]
_SIDE_LISTS: Final = pl.Series(_SIDE_CARDS, dtype=pl.List(pl.String))
# A side's cards as annotate's CSV writes them: "-" for none.
_SIDE_TEXTS: Final = pl.Series(
    [None if cards is None else "+".join(cards) or "-" for cards in _SIDE_CARDS],
    dtype=pl.String,
)


def _side(packed: pl.Expr, swap: int, side: str) -> pl.Expr:
    """The index (into the lists above) of what a side gave in a swap."""
    index = _swap_field(packed, swap, f"{side}_count")
    for place in range(SWAP_SIZE):
        card = _swap_field(packed, swap, f"{side}_{place + 1}")
        index = index + card * (1 << (_COUNT_BITS + _CARD_BITS * place))
    return index


def _swap_lists(packed: pl.Expr) -> pl.Expr:
    """The swaps of a trick as :data:`SWAPS_TYPE`, from the engine's packed swaps
    (:func:`~phantom_log.tabular.rows.pack_swaps`): every swap's struct, of which the list
    keeps as many as the trick had (an array made into a list and cut: a list built by
    choosing between the counts took a sixteenth of the time of ``export``'s work on each
    trick)."""

    def one(swap: int) -> pl.Expr:
        return pl.struct(
            after=_codes(_swap_field(packed, swap, "after_follow"), _AFTER),
            phantom=pl.lit(_SIDE_LISTS).gather(_side(packed, swap, "phantom")),
            christine=pl.lit(_SIDE_LISTS).gather(_side(packed, swap, "christine")),
        )

    copies = range(SWAP_LAYOUT.copies)
    swaps = pl.sum_horizontal(_swap_field(packed, swap, "present") for swap in copies)
    return pl.concat_arr([one(swap) for swap in copies]).arr.to_list().list.slice(0, swaps)


def _swaps_text(packed: pl.Expr) -> pl.Expr:
    """The swaps of a trick as the text annotate's CSV writes
    (:func:`~phantom_log.views.annotate.swaps_text`; ``None`` without a swap), from the
    engine's packed swaps."""

    def one(swap: int) -> pl.Expr:
        return pl.concat_str(
            [
                _codes(_swap_field(packed, swap, "after_follow"), _AFTER),
                pl.lit(" P:"),
                pl.lit(_SIDE_TEXTS).gather(_side(packed, swap, "phantom")),
                pl.lit(" C:"),
                pl.lit(_SIDE_TEXTS).gather(_side(packed, swap, "christine")),
            ]
        )

    # Each swap's text, then the next swap's (when it has one) after "; ".
    text = None
    for swap in reversed(range(SWAP_LAYOUT.copies)):
        parts = [pl.lit("; ")] if swap else []
        parts += [one(swap)] if text is None else [one(swap), text]
        text = pl.when(_swap_field(packed, swap, "present") == 1).then(
            pl.concat_str(parts, ignore_nulls=True)
        )
    assert text is not None
    return text


def swaps_as_text(frame: Frame) -> Frame:
    """The frame with its ``swaps`` as CSV writes them, the text annotate's CSV writes
    (:func:`~phantom_log.views.annotate.swaps_text`; empty without a swap)."""
    swap = pl.element().struct

    def cards(side: str) -> pl.Expr:
        given = swap.field(side)
        return pl.when(given.list.len() == 0).then(pl.lit("-")).otherwise(given.list.join("+"))

    text = pl.concat_str(
        [swap.field("after"), pl.lit(" P:"), cards("phantom"), pl.lit(" C:"), cards("christine")]
    )
    joined = pl.col("swaps").list.eval(text).list.join("; ")
    return frame.with_columns(swaps=pl.when(joined == "").then(None).otherwise(joined))


def decode_tricks(frame: Frame, swaps_as_written: bool = False) -> Frame:
    """The tricks table of a frame of packed tricks (``game_key``, ``source``, ``index``,
    ``game_id``, ``packed``, ``swaps``): every column of :data:`TRICK_SCHEMA`, decoded a
    whole column at a time (lazily for a lazy frame: only the columns a query reads). Each
    is a field of the engine's packing read as the code it is: nothing is worked out here.

    With ``swaps_as_written``, the ``swaps`` column is decoded straight to the text CSV
    writes (:func:`swaps_as_text` of the decoded lists gives the same): no list of structs
    is made only to be written as that text."""
    packed_swaps = pl.col("swaps")
    swaps = _swaps_text(packed_swaps) if swaps_as_written else _swap_lists(packed_swaps)
    schema = _CSV_TRICK_SCHEMA if swaps_as_written else TRICK_SCHEMA
    return frame.select(
        pl.col(GAME_KEY),
        pl.col("source"),
        pl.col("index"),
        pl.col("game_id"),
        round=_field("round"),
        trick=_field("trick"),
        leader=_role(_field("leader")),
        lead=_codes(_field("lead"), CARD_CODES),
        follower=_role(_field("follower")),
        follow=_codes(_field("follow"), CARD_CODES),
        lead_suit=_codes(_field("lead_suit"), SUIT_CODES),
        super_trump=_codes(_field("super_trump"), [None, *SUIT_CODES]),
        winner=_role(_field("winner")),
        reason=_codes(_field("reason"), REASONS),
        note_owner=_role(_field("note_owner")),
        in_order=_field("in_order") == 1,
        special=_field("special") == 1,
        swaps=swaps,
        notes_before=_field("notes_before"),
        notes_after=_field("notes_after"),
    ).cast(dict(schema.items()))


# The tricks table as CSV writes it: the swaps as their text.
_CSV_TRICK_SCHEMA: Final = {**TRICK_SCHEMA, "swaps": pl.String}


class TableScans(Protocol):
    """Where statistics read the two tables: each scan has the columns of its table and
    ``game_key``, which joins a trick to its game."""

    def scan_games(self) -> pl.LazyFrame:
        """The games table, with its ``game_key``."""
        ...

    def scan_tricks(self) -> pl.LazyFrame:
        """The tricks table, with the ``game_key`` of each trick's game."""
        ...


@dataclass
class TableFiles:
    """The batch files of both tables, and how many records went in or were left out."""

    folder: Path
    games: list[Path] = field(default_factory=list)
    tricks: list[Path] = field(default_factory=list)
    records: int = 0
    included: int = 0
    left_out: int = 0
    #: Records the run could not check (``internal-error``): the run ends with exit 3.
    failed: int = 0
    #: Invalid records, left out or included: the run ends with exit 1.
    invalid: int = 0

    def scan_games(self) -> pl.LazyFrame:
        """The games table, with its ``game_key``."""
        if not self.games:
            return pl.LazyFrame(schema={GAME_KEY: pl.Int64, **GAME_SCHEMA})
        return pl.scan_ipc(self.games)

    def scan_tricks(self, swaps_as_written: bool = False) -> pl.LazyFrame:
        """The tricks table, with its ``game_key``; with ``swaps_as_written``, its
        ``swaps`` as CSV writes them (see :func:`decode_tricks`)."""
        if not self.tricks:
            schema = _CSV_TRICK_SCHEMA if swaps_as_written else TRICK_SCHEMA
            return pl.LazyFrame(schema={GAME_KEY: pl.Int64, **schema})
        return decode_tricks(pl.scan_ipc(self.tricks), swaps_as_written)


@dataclass(frozen=True)
class ExportedTables:
    """The games and tricks tables as ``export`` writes them to Parquet (files, or the
    files of a dataset: parts in input order), read as statistics read them.

    An exported table has no ``game_key``: it is the row number of the game, and each
    game's tricks are the next ``tricks_played`` rows of the tricks table (both tables
    list the records in the same order, as export and the Dask front write them), so the
    key is rebuilt from the games' ``tricks_played``.

    The files are read by polars itself (local paths, and the URLs polars reads, with
    ``storage_options`` as polars takes them), or, with ``filesystem`` (an fsspec
    filesystem, the files being its paths), through that filesystem (any store fsspec
    reads, with its own options), as a pyarrow dataset read lazily."""

    games: Sequence[str]
    tricks: Sequence[str]
    storage_options: dict[str, Any] | None = None
    filesystem: Any = None

    def _scan(self, files: Sequence[str]) -> pl.LazyFrame:
        if self.filesystem is None:
            return pl.scan_parquet(list(files), storage_options=self.storage_options)
        import pyarrow.dataset as ds
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        dataset = ds.dataset(
            list(files), format="parquet", filesystem=PyFileSystem(FSSpecHandler(self.filesystem))
        )
        return pl.scan_pyarrow_dataset(dataset)

    def scan_games(self) -> pl.LazyFrame:
        """The games table, with its ``game_key``."""
        if not self.games:
            return pl.LazyFrame(schema={GAME_KEY: pl.Int64, **GAME_SCHEMA})
        return (
            self._scan(self.games)
            .with_row_index(GAME_KEY)
            .with_columns(pl.col(GAME_KEY).cast(pl.Int64))
        )

    def scan_tricks(self) -> pl.LazyFrame:
        """The tricks table, with the ``game_key`` of each trick's game."""
        if not self.tricks:
            return pl.LazyFrame(schema={GAME_KEY: pl.Int64, **TRICK_SCHEMA})
        keys = (
            self.scan_games()
            .select(GAME_KEY, "tricks_played")
            .filter(pl.col("tricks_played") > 0)
            .select(pl.col(GAME_KEY).repeat_by("tricks_played"))
            .explode(GAME_KEY)
        )
        return pl.concat([keys, self._scan(self.tricks)], how="horizontal")

    def check_aligned(self) -> None:
        """Raise ``ValueError`` unless the tricks table holds exactly the tricks the
        games table counts (the tables were written together, and are whole)."""
        counted = self.scan_games().select(pl.col("tricks_played").sum()).collect().item()
        rows = self._scan(self.tricks).select(pl.len()).collect().item() if self.tricks else 0
        if (counted or 0) != rows:
            raise ValueError(
                f"the tricks table has {rows} rows where the games table counts "
                f"{counted or 0} tricks: the two tables were not exported together"
            )


_PACKED_SCHEMA: Final = {
    GAME_KEY: pl.Int64,
    "source": pl.String,
    "index": pl.Int64,
    "game_id": pl.String,
    "packed": pl.Int64,
    "swaps": pl.Int64,
}
# The work files are temporary: LZ4 keeps them small at little cost.
_WORK_COMPRESSION: Final = "lz4"


@dataclass(slots=True)
class RecordRows:
    """One record's rows: its games row and tricks rows (``game`` is ``None`` for an
    invalid record left out). Worker processes make these; the main process batches them."""

    valid: bool
    game: tuple[Any, ...] | None
    tricks: TrickRows
    #: True when the run could not check the record (``internal-error``).
    failed: bool = False


def record_rows(report: RecordReport, include_invalid: bool = False) -> RecordRows:
    """The rows of one verified record."""
    if not report.valid and not include_invalid:
        return RecordRows(False, None, ([], []), report.failed)
    return RecordRows(report.valid, game_row(report), trick_rows(report), report.failed)


def isolated_rows(
    report: RecordReport, include_invalid: bool = False
) -> tuple[RecordReport, RecordRows]:
    """The rows of one verified record, a failure to make them (a bug) being that
    record's ``internal-error`` problem, never the batch's: the report then holds that
    problem alone, and the rows are its games row (or none, if even that fails)."""
    from ..checking.verdict import internal_error

    try:
        return report, record_rows(report, include_invalid)
    except Exception as error:
        report = RecordReport(report.source, report.index, report.game_id, (internal_error(error),))
    try:
        return report, record_rows(report, include_invalid)
    except Exception:
        return report, RecordRows(False, None, ([], []), True)


class TableRows:
    """The rows of the included records of one batch, gathered a column at a time, and
    made into frames at once: the one step from rows to frames, for export's batches
    (:func:`build_tables`) and for the unit of work of every engine
    (:func:`phantom_log.tabular.batch.batch_tables`).

    A record's games row is kept as the tuple :func:`game_row` made, and the rows are
    turned into columns all at once (``zip``), which polars reads faster than rows; a
    trick's ``source``, ``index`` and ``game_id`` are its game's, gathered by polars from
    the games columns rather than repeated here for every trick."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.games: list[tuple[Any, ...]] = []
        #: How many tricks each record of :attr:`games` has, in order.
        self.trick_counts: list[int] = []
        self.packed: list[int] = []
        self.swaps: list[int] = []

    def __len__(self) -> int:
        """How many records' rows are held."""
        return len(self.games)

    def add(self, key: int, rows: RecordRows) -> None:
        """The rows of one included record (``rows.game`` is not ``None``), under ``key``."""
        assert rows.game is not None
        self.keys.append(key)
        self.games.append(rows.game)
        record_packed, record_swaps = rows.tricks
        self.trick_counts.append(len(record_packed))
        if record_packed:
            self.packed.extend(record_packed)
            self.swaps.extend(record_swaps)

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The games frame (``game_key`` and :data:`GAME_SCHEMA`) and the packed tricks
        frame (read it with :func:`decode_tricks`) of the rows held."""
        columns = zip(*self.games, strict=True) if self.games else ((),) * len(_GAME_ROW_SCHEMA)
        game_frame = pl.DataFrame(
            [
                pl.Series(GAME_KEY, self.keys, dtype=pl.Int64),
                *(
                    pl.Series(name, column, dtype=dtype)
                    for (name, dtype), column in zip(_GAME_ROW_SCHEMA.items(), columns, strict=True)
                ),
            ]
        )
        trick_frame = (
            game_frame.select(GAME_KEY, "source", "index", "game_id")
            .gather(_each_tricks_game(self.trick_counts))
            .with_columns(
                pl.Series("packed", self.packed, dtype=pl.Int64),
                pl.Series("swaps", self.swaps, dtype=pl.Int64),
            )
        )
        game_frame = game_frame.with_columns(pl.col("date").str.to_date("%Y-%m-%d", strict=False))
        return game_frame, trick_frame

    def clear(self) -> None:
        """Drop the rows held."""
        for column in (self.keys, self.games, self.trick_counts, self.packed, self.swaps):
            column.clear()


def _each_tricks_game(counts: list[int]) -> pl.Series:
    """The row of each trick's game, in the order of the tricks, from how many tricks
    each game has: game ``n`` repeated ``counts[n]`` times."""
    counted = pl.DataFrame(
        {"game": pl.int_range(len(counts), eager=True, dtype=pl.Int64), "count": counts},
        schema={"game": pl.Int64, "count": pl.Int64},
    )
    return (
        counted.filter(pl.col("count") > 0)
        .select(pl.col("game").repeat_by("count").explode())
        .to_series()
    )


# A chunk written by a worker keys its games from its number (plus one) shifted by this
# many bits: the keys of the chunks of a run are then distinct without the chunks knowing
# each other's sizes, and above the keys that build_tables gives the records it gathers
# itself (counted from 0; a run holds far fewer than 2**32 records).
_CHUNK_KEY_BITS: Final = 32


@dataclass
class ChunkTables:
    """The tables of the records of one chunk, made where the chunk was verified (a worker
    process sends one pickled frame a table, not a row a record): the games frame and the
    packed tricks frame of its included records, keyed from 0, and its counts; or, once
    :meth:`written`, the work files that hold them."""

    games: pl.DataFrame
    tricks: pl.DataFrame
    records: int = 0
    included: int = 0
    left_out: int = 0
    failed: int = 0
    invalid: int = 0
    #: The work files of the games and the tricks, when the frames were written there.
    files: tuple[Path, Path] | None = None

    def written(self, folder: Path, number: int) -> ChunkTables:
        """This chunk, the ``number``-th of a run, with its frames written into ``folder``
        as work files (so that the process that made them writes them, not the one that
        gathers the chunks) and dropped. Its games are keyed from ``(number + 1) << 32``."""
        if not self.included:
            return self
        key = pl.col(GAME_KEY) + ((number + 1) << _CHUNK_KEY_BITS)
        paths = (folder / f"games-c{number:08d}.arrow", folder / f"tricks-c{number:08d}.arrow")
        with writing_work_files(folder):
            self.games.with_columns(key).write_ipc(paths[0], compression=_WORK_COMPRESSION)
            self.tricks.with_columns(key).write_ipc(paths[1], compression=_WORK_COMPRESSION)
        # The frames' empty copies (their schema): making empty frames anew took 0.7 ms.
        return replace(self, games=self.games.clear(), tricks=self.tricks.clear(), files=paths)


def chunk_tables(rows: Iterable[RecordRows], include_invalid: bool = False) -> ChunkTables:
    """The tables of the rows of a chunk's records, in their order."""
    batch = TableRows()
    records = failed = invalid = 0
    for one in rows:
        records += 1
        failed += one.failed
        invalid += not one.valid
        if _kept(one, include_invalid):
            batch.add(len(batch), one)
    games, tricks = batch.frames()
    return ChunkTables(games, tricks, records, len(batch), records - len(batch), failed, invalid)


def _kept(rows: RecordRows, include_invalid: bool) -> bool:
    """True when a record's rows go into the tables."""
    return rows.game is not None and (rows.valid or include_invalid)


def build_tables(
    records: Iterable[RecordReport | RecordRows | ChunkTables],
    folder: Path,
    include_invalid: bool = False,
    batch_size: int = 2_000,
    on_record: Callable[[int], None] | None = None,
) -> TableFiles:
    """Write the games and tricks tables of the records (reports, their rows, or the
    tables of chunks of them, made elsewhere) into ``folder`` as Arrow IPC batches of
    about ``batch_size`` records (read them with :meth:`TableFiles.scan_games` and
    :meth:`TableFiles.scan_tricks`).

    Invalid records are left out (and counted) unless ``include_invalid``; an included
    invalid record has its tricks up to its first problem. ``on_record`` is called with
    the count of records read so far (for a progress display).
    """
    files = TableFiles(folder)
    frames: list[tuple[pl.DataFrame, pl.DataFrame]] = []
    held = 0  # the included records of the frames

    def flush() -> None:
        number = len(files.games)
        if frames:
            game_frame = pl.concat([games for games, _ in frames])
            trick_frame = pl.concat([tricks for _, tricks in frames])
        else:
            game_frame, trick_frame = TableRows().frames()
        files.games.append(folder / f"games-{number:06d}.arrow")
        files.tricks.append(folder / f"tricks-{number:06d}.arrow")
        with writing_work_files(folder):
            game_frame.write_ipc(files.games[-1], compression=_WORK_COMPRESSION)
            trick_frame.write_ipc(files.tricks[-1], compression=_WORK_COMPRESSION)
        frames.clear()

    for chunk in _chunked(records, include_invalid, batch_size):
        files.records += chunk.records
        files.failed += chunk.failed
        files.invalid += chunk.invalid
        files.left_out += chunk.left_out
        if chunk.files is not None:
            # Written by the worker that made it, keyed by its number in the run (keys
            # apart from those given here): the frames before it are written first, so
            # that the files stay in input order.
            if held:
                flush()
                held = 0
            files.games.append(chunk.files[0])
            files.tricks.append(chunk.files[1])
            files.included += chunk.included
        elif chunk.included:
            key = pl.col(GAME_KEY) + files.included
            frames.append((chunk.games.with_columns(key), chunk.tricks.with_columns(key)))
            files.included += chunk.included
            held += chunk.included
        if on_record is not None:
            on_record(files.records)
        if held >= batch_size:
            flush()
            held = 0
    if held or not files.games:
        flush()
    return files


def _chunked(
    records: Iterable[RecordReport | RecordRows | ChunkTables], include_invalid: bool, size: int
) -> Iterator[ChunkTables]:
    """The records as tables of chunks: those given as they are, the reports and rows
    between them gathered ``size`` included records at a time."""
    pending: list[RecordRows] = []
    kept = 0
    for item in records:
        if isinstance(item, ChunkTables):
            if pending:
                yield chunk_tables(pending, include_invalid)
                pending, kept = [], 0
            yield item
            continue
        one = item if isinstance(item, RecordRows) else record_rows(item, include_invalid)
        pending.append(one)
        kept += _kept(one, include_invalid)
        if kept >= size:
            yield chunk_tables(pending, include_invalid)
            pending, kept = [], 0
    if pending:
        yield chunk_tables(pending, include_invalid)


class TrickCsv:
    """The tricks of many records as CSV (the columns of ``annotate --format csv``),
    written in batches: the packed tricks are decoded a column at a time, as the tricks
    table is."""

    def __init__(self, stream: IO[str], batch_size: int = 20_000) -> None:
        self.stream = stream
        self.batch_size = batch_size
        self.game_ids: list[str | None] = []
        self.packed: list[int] = []
        self.swaps: list[int] = []
        self.header = True

    def add(self, report: RecordReport) -> None:
        """The completed tricks of one record."""
        packed, swaps = trick_rows(report)
        self.game_ids.extend([report.game_id] * len(packed))
        self.packed.extend(packed)
        self.swaps.extend(swaps)
        if len(self.packed) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        """Write the tricks held (the header before the first rows)."""
        if not self.packed and not self.header:
            return
        frame = decode_tricks(
            pl.DataFrame(
                {
                    GAME_KEY: [0] * len(self.packed),
                    "source": None,
                    "index": None,
                    "game_id": self.game_ids,
                    "packed": self.packed,
                    "swaps": self.swaps,
                },
                schema=_PACKED_SCHEMA,
            ),
            swaps_as_written=True,  # a trick without a swap: an empty cell, as csv writes ""
        ).select(list(ANNOTATION_FIELDS))  # annotate's columns: the record is named apart
        text_columns = [name for name in TRICK_TEXT_COLUMNS if name in frame.columns]
        self.stream.write(frame_csv(frame, self.header, text_columns))
        self.header = False
        for column in (self.game_ids, self.packed, self.swaps):
            column.clear()
