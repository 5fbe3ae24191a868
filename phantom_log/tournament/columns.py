"""Read-only columns that hold many values in little memory: texts in one buffer, names
that repeat as an index each (an event may have a million records)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final, TypeVar, overload

Element = TypeVar("Element")


class Column(Sequence[Element]):
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


class TextColumn(Column[str | None]):
    """A column of texts (or ``None``) held as the bytes of all of them in one buffer:
    small strings kept alive among the garbage of parsing pin memory far beyond their
    size (each keeps its allocator pool alive)."""

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

    def extend(self, other: TextColumn) -> None:
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


class NameColumn(Column[str | None]):
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
            # A copy of the name, not the record's own string (see TextColumn), kept once:
            # as the key and in the list.
            copy = name.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")
            number = self._ids[copy] = len(self._names)
            self._names.append(copy)
        return number

    def extend(self, other: NameColumn) -> None:
        numbers = [self._number(name) for name in other._names]
        self._column.extend(array("I", (numbers[number] for number in other._column)))

    def __len__(self) -> int:
        return len(self._column)

    def _item(self, position: int) -> str | None:
        return self._names[self._column[position]]


#: The parts the keys are looked at in, by their low bits: equal keys fall in one part.
_KEY_PARTS: Final = 16


def repeated(keys: Sequence[int], present: Sequence[int] | None = None, every: int = 1) -> set[int]:
    """The positions whose key occurs more than once among the present ones (``keys`` read
    at every ``every``-th item, ``present[position]`` true): the candidates, which the
    caller compares exactly. A part of the keys is looked at a time (:data:`_KEY_PARTS`),
    its dictionary freed before the next: a dictionary of every key would be the peak of
    a tournament check's memory."""
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
