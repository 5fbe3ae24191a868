"""What a command reads: the records of its paths (checked, or as read), the ``--sheets``
file, standard input; and which files are its inputs, so that none is written over."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Final

import click

from ..checking.verdict import RecordReport, read_sheets
from ..records.found_sources import SourceError
from ..records.size_limit import read_limited
from ..rules.sheets import Sheet
from ..views.reports import printable
from .exits import no_records, usage_error

if TYPE_CHECKING:
    from ..records.source_records import SourceRecord


def standard_input() -> IO[bytes] | None:
    """Standard input as bytes; ``None`` when it is closed (``phantom-log verify - <&-``),
    which reading ``-`` then reports as an unreadable source."""
    return None if sys.stdin is None else sys.stdin.buffer


def manifest_skipped(source: str) -> None:
    """Say on standard error (the progress bar cleared first) that a tournament manifest
    among the paths is no game record, and was skipped."""
    from ..views.terminal import clear_progress

    clear_progress()
    click.echo(
        printable(
            f"phantom-log: note: {source} is a tournament manifest, not a game record: skipped"
        ),
        err=True,
    )


def load_sheets(path: str | None) -> Mapping[str, Sheet] | None:
    """The sheets of a ``--sheets`` file (``None`` without one); a usage error (exit 2)
    naming the file and its problems when it cannot be read or is not a sheets file."""
    if path is None:
        return None
    try:
        data = read_limited(path)
    except OSError as error:
        raise usage_error(f"--sheets {path}: {error.strerror}") from None
    sheets = read_sheets(data)
    if isinstance(sheets, list):
        details = "; ".join(
            f"{problem.pointer or '/'}: {problem.code}: {problem.message}" for problem in sheets
        )
        raise usage_error(f"--sheets {path}: {details}")
    return sheets


def record_reports(
    paths: tuple[str, ...], sheets: Mapping[str, Sheet] | None
) -> Iterator[RecordReport]:
    """The report on every record of the paths, as :func:`source_records` reads them."""
    from ..checking.verdict import verify_record

    return (verify_record(record, sheets) for record in source_records(paths, sheets))


def record_report_at(
    path: str, sheets: Mapping[str, Sheet] | None, index: int | None
) -> RecordReport:
    """The report on record ``index`` (from 0) of ``path``, for a command that shows one
    record: only that record is checked and held, and reading stops once it is found, so
    an endless standard input or a file of a million records costs what one record does.
    A usage error (exit 2) when the path holds fewer records (counted as they are read,
    none of them kept) or none.

    Without an ``index`` the path must hold one record (of those selected): given more,
    the command refuses (exit 2) with their count (standard input, which may never end,
    is refused at its second record) and says how to pick one, never showing the first
    silently."""
    from ..checking.verdict import verify_record

    count = 0
    first: SourceRecord | None = None
    for record in source_records((path,), sheets):
        if count == index:
            return verify_record(record, sheets)
        if index is None:
            if first is not None and path == "-":
                raise _several_records(path, None)
            first = first or record
        count += 1
    if index is None and first is not None:
        if count > 1:
            raise _several_records(path, count)
        return verify_record(first, sheets)
    raise usage_error(f"--index {index}: {path} holds {count} record(s)")


def _several_records(path: str, count: int | None) -> click.exceptions.Exit:
    """The usage error of a path of several records (``count``, or ``None``: standard
    input, at least two) given to a command that shows one, and its hint."""
    from ..records.selection import current_selection

    selection = current_selection()
    chosen = f" selected by {selection.describe()}" if selection else ""
    if count is None:
        held = f"standard input holds more than one record{chosen}"
        pick = "--index N (from 0)"
    else:
        held = f"{path} holds {count} records{chosen}"
        pick = f"--index N (0 to {count - 1})"
    error = usage_error(f"{held}, and show shows one: pick it with {pick} or --game-id PATTERN")
    listed = "" if count is None else f"phantom-log verify {path} lists them in that order; "
    click.echo(printable(f"    hint: {listed}--html DIR writes a page for each"), err=True)
    return error


def source_records(
    paths: tuple[str, ...], sheets: Mapping[str, Sheet] | None = None
) -> Iterator[SourceRecord]:
    """The records of the paths as read (not yet checked; ``sheets``: the named sheets a
    game text may be played on); a usage error (exit 2) for a path that does not exist or
    paths that hold no records."""
    from ..records.found_sources import find_sources
    from ..records.source_records import read_source

    try:
        sources = find_sources(paths)
    except SourceError as error:
        raise usage_error(str(error)) from None
    records = 0
    for source in sources:
        for record in read_source(source, standard_input(), sheets=sheets):
            records += 1
            yield record
    if records == 0:
        raise no_records()


# The parameters that name files a command reads, beside its records.
_INPUT_FILE_PARAMETERS: Final = ("sheets_path", "manifest_path", "analysis_path")


def input_paths(parameters: Mapping[str, Any]) -> list[str]:
    """The files and folders a command reads, from its parameters: its records' paths
    (``paths``, or ``path`` for one), and the side files (sheets, manifest, analysis)."""
    found = list(parameters.get("paths") or ())
    for name in ("path", *_INPUT_FILE_PARAMETERS):
        value = parameters.get(name)
        if isinstance(value, str):
            found.append(value)
    return found
