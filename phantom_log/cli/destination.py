"""Where a command writes its rows or report, and in which format: the one output
vocabulary of every command (``--format``, ``-o/--output``, ``--force``).

- ``--format`` takes the same names everywhere: ``text`` and ``table`` (for people; the
  two names are the same format), ``json`` and ``jsonl`` (JSON Lines: one object per
  line; the same format, except for the files of records that ``simulate`` writes,
  where ``json`` is one JSON array so that a ``.json`` file reads back as records),
  ``csv`` where the rows fit a table, and ``svg``/``html`` for pictures.
- ``-o FILE`` writes to FILE (atomically, never over a file without ``--force``);
  ``-o -`` and no ``-o`` write to standard output.
- Without ``--format`` the format follows the extension of ``-o FILE`` (``.txt``,
  ``.json``, ``.jsonl``/``.ndjson``, ``.csv``, ``.parquet``, ``.svg``, ``.html``); a
  ``--format`` that the extension contradicts, or an extension the command cannot write
  (a picture named ``.png``), is refused before any work.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Final

import click

from ..files.outputs import atomic_output, check_writable, is_standard_output
from ..views.reports import counted, printable

if TYPE_CHECKING:
    from ..files.outputs import OutputSet

# The format each extension names.
EXTENSION_FORMATS: Final = {
    ".txt": "text",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".svg": "svg",
    ".html": "html",
    ".htm": "html",
    ".ptn": "ptn",
}
# Extensions of formats phantom-log never writes: a file so named is refused rather than
# filled with something else.
FOREIGN_EXTENSIONS: Final = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".xlsx", ".xls", ".tsv", ".md"}
)
# Two names of one format, both accepted wherever either is.
_SYNONYMS: Final = {"text": "table", "table": "text", "json": "jsonl", "jsonl": "json"}
FORMAT_TITLES: Final = {
    "text": "text",
    "table": "a table",
    # A command's "json" is JSON Lines (a record or row per line) except where it is one
    # document (the schema, simulate's array): "JSON" is true of both.
    "json": "JSON",
    "jsonl": "JSON Lines",
    "csv": "CSV",
    "parquet": "Parquet",
    "svg": "SVG",
    "html": "HTML",
    "ptn": "game text",
}


class DestinationError(ValueError):
    """Options that ask for an output the command cannot write (a usage error)."""


def format_names(formats: Sequence[str]) -> dict[str, str]:
    """Every name ``--format`` accepts for a command writing ``formats``, with the format
    it means: the command's own names, and their synonyms (``text`` for ``table``,
    ``jsonl`` for ``json``) where the command has no format of that name."""
    names = {name: name for name in formats}
    for name in formats:
        synonym = _SYNONYMS.get(name)
        if synonym is not None and synonym not in names:
            names[synonym] = name
    return names


def extension_format(path: str, formats: Sequence[str]) -> str | None:
    """The format the extension of ``path`` names, as one of ``formats``; ``None`` when
    the extension names no format. Raises :class:`DestinationError` for an extension of a
    format the command does not write."""
    extension = os.path.splitext(path)[1].lower()
    named = EXTENSION_FORMATS.get(extension)
    if named is None:
        if extension in FOREIGN_EXTENSIONS:
            raise DestinationError(
                f"{path}: phantom-log does not write {extension} files; this output is "
                f"{_choices(formats)}: give a file ending in {_extensions(formats)}"
            )
        return None
    meant = format_names(formats).get(named)
    if meant is None:
        raise DestinationError(
            f"{path}: a {extension} file is {FORMAT_TITLES[named]}, but this output is "
            f"{_choices(formats)}: give a file ending in {_extensions(formats)}"
        )
    return meant


def _choices(formats: Sequence[str]) -> str:
    titles = list(dict.fromkeys(FORMAT_TITLES[name] for name in formats))
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " or " + titles[-1]


def _extensions(formats: Sequence[str]) -> str:
    names = format_names(formats)
    found = [extension for extension, name in EXTENSION_FORMATS.items() if name in names]
    return ", ".join(found) if found else "no extension"


@dataclass(frozen=True)
class Destination:
    """A command's output: its format, and where it goes (``path`` ``None`` for standard
    output)."""

    format: str
    path: str | None = None
    force: bool = False
    #: Whether text for people goes through a pager when it is shown on a terminal.
    pager: bool = False

    @property
    def to_standard_output(self) -> bool:
        return self.path is None or is_standard_output(self.path)

    @property
    def to_terminal(self) -> bool:
        """Whether the output goes to a terminal (colours and a pager may then be used)."""
        if not self.to_standard_output:
            return False
        isatty = getattr(sys.stdout, "isatty", None)
        return bool(isatty and isatty())

    @property
    def pager_command(self) -> str | None:
        """The pager the output goes through: ``PHANTOM_LOG_PAGER``, else ``PAGER``, else
        ``less``; ``None`` when there is none (not asked, not a terminal, not text for
        people, or a pager of ``cat`` or nothing)."""
        if not (self.pager and self.format in ("text", "table") and self.to_terminal):
            return None
        command = os.environ.get("PHANTOM_LOG_PAGER", os.environ.get("PAGER", "less"))
        return None if command.strip() in ("", "cat") else command

    @property
    def name(self) -> str:
        """The output as messages name it."""
        return "standard output" if self.to_standard_output else str(self.path)

    def check(self) -> None:
        """Refuse, before any work, a file that cannot be written (see
        :func:`phantom_log.files.outputs.check_writable`)."""
        if not self.to_standard_output:
            check_writable(str(self.path), self.force, standard_output=True)

    @contextmanager
    def binary(self, outputs: OutputSet | None = None) -> Iterator[IO[bytes]]:
        """The output as bytes: the file, written atomically, or standard output; put in
        place with the other ``outputs`` of the run when they are given (see
        :class:`~phantom_log.files.outputs.OutputSet`)."""
        if outputs is not None:
            yield outputs.stream(self.path or "-", standard_output=True)
            return
        with atomic_output(self.path or "-", self.force, standard_output=True) as stream:
            yield stream

    @contextmanager
    def text(self, outputs: OutputSet | None = None) -> Iterator[IO[str]]:
        """The output as text (UTF-8, ``\\n`` line ends): standard output itself, or the
        file, written atomically (it appears only when the block ends without error, or,
        with ``outputs``, when they are all put in place)."""
        pager = self.pager_command
        if pager is not None:
            from .pager import paged

            with paged(pager) as stream:
                yield stream
            return
        if self.to_standard_output:
            # Text for people in standard output's encoding, the other formats in UTF-8
            # whatever the locale (see .streams).
            from .streams import utf8_standard_output

            if self.format in ("text", "table"):
                yield sys.stdout
                sys.stdout.flush()
            else:
                with utf8_standard_output() as stream:
                    yield stream
            return
        with self.binary(outputs) as stream:
            wrapper = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
            try:
                yield wrapper
                wrapper.flush()
            finally:
                wrapper.detach()


def resolve_destination(
    formats: Sequence[str],
    format_name: str | None,
    path: str | None,
    force: bool,
    default: str | None = None,
    option: str = "-o",
) -> Destination:
    """The destination of the options: ``--format`` (one of :func:`format_names`) or,
    without it, the format the extension of ``-o FILE`` names, else ``default`` (the
    first of ``formats``; an empty ``default`` leaves the format empty for the caller to
    decide). ``option`` names the output option in messages. Raises
    :class:`DestinationError` for a ``--format`` that the extension contradicts or an
    extension the command cannot write."""
    names = format_names(formats)
    chosen = None if format_name is None else names[format_name]
    if path is not None and not is_standard_output(path):
        try:
            named = extension_format(path, formats)
        except DestinationError as error:
            raise DestinationError(f"{option} {error}") from None
        if chosen is not None and named is not None and named != chosen:
            raise DestinationError(
                f"{option} {path} is {FORMAT_TITLES[named]} by its extension, but --format "
                f"{format_name} asks for {FORMAT_TITLES[chosen]}: drop one, or make them agree"
            )
        chosen = chosen or named
    if chosen is None:
        chosen = formats[0] if default is None else default
    return Destination(chosen, path, force)


def say_written(path: str | None, quiet: bool = False, what: str = "") -> None:
    """``wrote FILE`` (or ``wrote WHAT to FILE``) on standard error, once a command's
    output file is in place; nothing for standard output (``None``), or when ``quiet``."""
    if not quiet and path is not None and not is_standard_output(path):
        click.echo(printable(f"wrote {what} to {path}" if what else f"wrote {path}"), err=True)


def say_tables_notes(run: Any, quiet: bool) -> None:
    """The notes of a run that made the tables (here or on a cluster), on standard error:
    the invalid records left out (unless ``quiet``), the records that could not be read
    or checked."""
    if run.left_out and not quiet:
        click.echo(
            f"left out {counted(run.left_out, 'invalid record')} of {run.records} (use "
            "--include-invalid to keep them; verify says why)",
            err=True,
        )
    if run.failed:
        click.echo(
            f"phantom-log: error: could not read or check {counted(run.failed, 'record')} "
            "(unreadable or internal-error; verify names them); the tables hold the others",
            err=True,
        )
