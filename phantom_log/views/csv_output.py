"""Every CSV phantom-log writes, with text cells that a spreadsheet shows and never runs.

Organisers open the CSV files of ``export``, ``annotate``, ``stats``, ``tournament check``
and ``analyse`` in spreadsheets, and a spreadsheet runs a cell that begins with ``=``,
``+``, ``-`` or ``@`` as a formula (``=HYPERLINK(...)``, ``+1+cmd|' /C calc'!A0``,
``@SUM(1,2)``), and some do so after a tab or a carriage return too. The names and ids in
a record are anyone's text, so, as OWASP's advice on CSV injection says, a text cell that
begins with one of those six characters is written with a single quote before it
(``'=HYPERLINK(...)``): the spreadsheet shows the text as it was typed, quote hidden. A
cell of that one character alone (``-``, the source name of standard input) has nothing
after it to run and is left as it is. Only text is changed: a number (``-3`` in a column of
numbers) is written as the number it is, and cells holding a separator, a quote or a line
break are quoted as RFC 4180 says, so no text can begin a cell of its own. Parquet and JSON
Lines keep every value exactly.

Every writer of CSV goes through this module: :class:`CsvRows` for rows of Python values,
:func:`frame_csv` and :func:`sink_csv` for polars frames.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    import polars as pl

AnyFrame = TypeVar("AnyFrame", "pl.DataFrame", "pl.LazyFrame")

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
#: The quote put before a text cell that begins with one of them.
TEXT_MARK: Final = "'"
# The same rule as a pattern of polars (Rust's regex syntax: \x{3D} is "="; (?s) lets the
# character after the first be any, a line break too).
_FORMULA_START_PATTERN: Final = (
    "(?s)^[" + "".join(f"\\x{{{ord(start):X}}}" for start in FORMULA_STARTS) + "]."
)


def text_cell(text: str) -> str:
    """``text`` as a CSV cell: with :data:`TEXT_MARK` before it when it begins with one of
    :data:`FORMULA_STARTS` and goes on after it, else as it is."""
    return TEXT_MARK + text if len(text) > 1 and text.startswith(FORMULA_STARTS) else text


def csv_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with each text value made a :func:`text_cell`; other values as they are."""
    return {
        key: text_cell(value) if isinstance(value, str) else value for key, value in row.items()
    }


class CsvRows:
    """Rows (mappings of column to value) written as CSV to a text stream: the header of
    ``fields``, then a line a row, ``\\n`` line ends, each text cell a :func:`text_cell`,
    and a cell that holds a line break of either kind quoted (as polars quotes it)."""

    def __init__(self, stream: IO[str], fields: Sequence[str]) -> None:
        self._stream = stream
        self._line = io.StringIO()
        # The csv module quotes a cell holding a character of its line end, and no other
        # line break: a lone "\r" would be left bare, and a reader that ends a row there
        # would begin a cell with what follows it. "\r\n" makes it quote both; each row's
        # end is then written as "\n".
        self._writer = csv.DictWriter(self._line, fieldnames=list(fields), lineterminator="\r\n")

    def _write_line(self) -> None:
        line = self._line.getvalue()
        self._line.seek(0)
        self._line.truncate()
        self._stream.write(line[:-2] + "\n")

    def write_header(self) -> None:
        self._writer.writeheader()
        self._write_line()

    def write(self, row: Mapping[str, Any]) -> None:
        self._writer.writerow(csv_row(row))
        self._write_line()

    def write_all(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            self.write(row)


def text_cells(frame: AnyFrame, columns: Sequence[str] | None = None) -> AnyFrame:
    """``frame`` with every text column's cells made :func:`text_cell` (numbers, booleans
    and dates as they are); with ``columns``, those columns' only: the columns of a table
    that can hold anyone's text, its other text columns holding codes of phantom-log's own
    (cards, roles, reasons), none of which begins a formula."""
    import polars as pl

    # Matched, then marked: a replace with the pattern's group would make the regex's
    # captures for every cell, three to four times the time of the match alone (which
    # export and annotate's CSV pay on every text cell of every trick).
    text = pl.col(pl.String) if columns is None else pl.col(*columns)
    return frame.with_columns(
        pl.when(text.str.contains(_FORMULA_START_PATTERN))
        .then(pl.lit(TEXT_MARK) + text)
        .otherwise(text)
        .name.keep()
    )


def frame_csv(
    frame: pl.DataFrame, include_header: bool = True, text_columns: Sequence[str] | None = None
) -> str:
    """A polars frame as CSV text, its text cells :func:`text_cell` (those of
    ``text_columns`` only, when given: see :func:`text_cells`)."""
    return text_cells(frame, text_columns).write_csv(include_header=include_header)


def sink_csv(
    frame: pl.LazyFrame, path: str | Path, text_columns: Sequence[str] | None = None
) -> None:
    """Write a lazy frame to the CSV file ``path``, streamed, its text cells
    :func:`text_cell` (those of ``text_columns`` only, when given)."""
    text_cells(frame, text_columns).sink_csv(path)
