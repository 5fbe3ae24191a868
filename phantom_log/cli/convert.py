"""``phantom-log convert``: records as game text (``.ptn``), and game text as records
(JSON), in either direction; what the other form cannot carry is said, never lost
silently."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import click
import orjson

from ..checking.verdict import verify_record
from ..records.record_texts import record_text, text_losses
from ..rules.problems import Code
from ..rules.sheets import Sheet
from ..views.reports import counted, printable, problem_lines
from .destination import say_written
from .exits import EXIT_FAILED, EXIT_INVALID, writing_output
from .help import CONVERT_EPILOG, CONVERT_EXAMPLES
from .inputs import load_sheets, source_records
from .options import PATHS, max_record_size_option, output_options, selection_options, sheets_option

if TYPE_CHECKING:
    from ..records.source_records import SourceRecord
    from .destination import Destination

#: How many of a record's left-out parts a note names.
_NAMED: Final = 3
#: The problems of what is no record: nothing to convert.
_NO_RECORD: Final = frozenset({Code.JSON, Code.NOTATION, Code.SCHEMA, Code.UNREADABLE})


@click.command(epilog=CONVERT_EXAMPLES + CONVERT_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@output_options(
    ["ptn", "json", "jsonl"],
    "ptn: game text, the games one after another; json: one record, or a JSON array of "
    "them; jsonl: JSON Lines, a record per line.",
)
@sheets_option
@selection_options
@max_record_size_option
@click.option("--quiet", "-q", is_flag=True, help="Say nothing of what a form does not keep.")
def convert(
    paths: tuple[str, ...],
    output: Destination,
    force: bool,
    sheets_path: str | None,
    quiet: bool,
) -> None:
    """Write the records of PATHS as game text, or game text as records.

    Each record is written in the chosen form; one that is not a record (not JSON, not
    of the schema, not the notation of game text) is reported on standard error with its
    problems and left out (exit 1), as is said of what a form cannot keep (the x- keys,
    in game text; players who were not the turn's)."""
    sheets = load_sheets(sheets_path)
    written: list[bytes] = []
    code = 0
    for record in source_records(paths, sheets):
        text, failed = _converted(record, output.format, sheets, quiet)
        if text is None:
            code = max(code, EXIT_FAILED if failed else EXIT_INVALID)
        else:
            written.append(text)
    with writing_output(), output.binary() as stream:
        stream.write(_joined(written, output.format))
    say_written(output.path, quiet, counted(len(written), "record"))
    if code:
        raise click.exceptions.Exit(code)


def _converted(
    record: SourceRecord, form: str, sheets: Mapping[str, Sheet] | None, quiet: bool
) -> tuple[bytes | None, bool]:
    """The record in ``form`` (``ptn``, ``json``, ``jsonl``: one record's part of the
    output), or ``None`` when it is no record, said on standard error, and whether that
    is a failure of the run (a source that could not be read)."""
    report = verify_record(record, sheets)
    refused = [
        problem
        for problem in report.problems
        if problem.code in _NO_RECORD
        or (record.text_record is not None and bool(record.text_record.illegal))
    ]
    if refused:
        for problem in refused:
            for line in problem_lines(report, problem):
                click.echo(line, err=True)
        return None, any(problem.code is Code.UNREADABLE for problem in refused)
    data: dict[str, Any] = record.data
    if form == "ptn":
        text, extensions = record_text(data)
        losses = [found for found in text_losses(data, sheets) if found not in extensions]
        if not quiet:
            _say_left_out(report.source, report.index, extensions, "the x- keys", "")
            _say_left_out(
                report.source,
                report.index,
                losses,
                "what game text cannot say",
                " (it never names who plays: each card is the turn's player's)",
            )
        return text.encode("utf-8"), False
    if form == "jsonl":
        return orjson.dumps(data) + b"\n", False
    return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8"), False


def _say_left_out(source: str, index: int, pointers: list[str], what: str, why: str) -> None:
    if not pointers:
        return
    named = ", ".join(pointer or "/" for pointer in pointers[:_NAMED])
    more = f" and {len(pointers) - _NAMED} more" if len(pointers) > _NAMED else ""
    click.echo(printable(f"{source}#{index}: note: left out {what}{why}: {named}{more}"), err=True)


def _joined(parts: list[bytes], form: str) -> bytes:
    if form == "ptn":
        return b"\n".join(parts)
    if form == "jsonl":
        return b"".join(parts)
    if len(parts) == 1:
        return parts[0] + b"\n"
    return b"[\n" + b",\n".join(parts) + b"\n]\n"
