"""The standings of a tournament: per player, games, wins, losses, wins as the Phantom and
as Christine, and notes completed as the Phantom (the tie-break), counted over the facts of
the records."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from .columns import Column, TextColumn
from .facts import WINNERS, RecordFacts, facts_table, player_key

STANDINGS_COLUMNS: Final = (
    "player",
    "games",
    "wins",
    "losses",
    "wins_as_phantom",
    "wins_as_christine",
    "notes_as_phantom",
)


class StandingsRow(Mapping[str, Any]):
    """One player's row of the standings: a read-only mapping of
    :data:`STANDINGS_COLUMNS` to values (``row["wins"]``, ``dict(row)``)."""

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


class Standings(Column[StandingsRow]):
    """The standings in their order, each row made when it is read: the names in one
    buffer and each count in a column."""

    def __init__(
        self, names: TextColumn, counts: Mapping[str, array[int]], order: array[int]
    ) -> None:
        self._names = names
        self._counts = [counts[column] for column in STANDINGS_COLUMNS[1:]]
        self._order = order

    def __len__(self) -> int:
        return len(self._order)

    def dicts(self) -> Iterator[dict[str, Any]]:
        """The rows as dicts, in order, made without a row object each."""
        for player in self._order:
            values = (self._names[player] or "", *(column[player] for column in self._counts))
            yield dict(zip(STANDINGS_COLUMNS, values, strict=True))

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
    table = facts_table(all_facts)
    # A player's number by the digest of their key (the table's, as one number).
    numbers: dict[int, int] = {}
    names = TextColumn()
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
        winner = WINNERS[table.winners[position]]
        for role, written, keys in (
            ("phantom", table.phantoms, table.phantom_keys),
            ("christine", table.christines, table.christine_keys),
        ):
            key = player_key(keys, position)
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


def standings_dicts(standings: Sequence[StandingsRow]) -> Iterator[dict[str, Any]]:
    """The rows of standings as dicts (of :data:`STANDINGS_COLUMNS`), in their order."""
    if isinstance(standings, Standings):
        return standings.dicts()
    return (dict(row) for row in standings)
