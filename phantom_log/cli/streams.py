"""The standard streams as the command line writes them, whatever the locale: text for
people in the encoding of the terminal, file or pipe (the locale's, or
``PYTHONIOENCODING``), each character that encoding cannot hold written as an escape
(``\\xe9``, ``\\uae40``), never an error; the formats for programs (JSON, CSV, SVG, HTML)
in UTF-8 always, as the files phantom-log writes are.
"""

from __future__ import annotations

import codecs
import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Final, cast

#: What a character the encoding cannot hold becomes: its escape (``\xe9``, ``\uae40``).
ESCAPED: Final = "backslashreplace"


class EncodedText(io.TextIOBase):
    """Text written to a binary stream in ``encoding``, each character the encoding cannot
    hold as its escape. It offers no binary buffer of its own, so that nothing writes past
    it in another encoding, and it never closes the stream under it (a standard stream).
    With ``line_buffering``, each line is flushed as it ends, as standard error's are."""

    def __init__(self, binary: IO[bytes], encoding: str, line_buffering: bool = False) -> None:
        super().__init__()
        self._binary = binary
        self._encoding = encoding
        self._line_buffering = line_buffering

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._binary.write(text.encode(self._encoding, ESCAPED))
        if self._line_buffering and "\n" in text:
            self._binary.flush()
        return len(text)

    def flush(self) -> None:
        self._binary.flush()

    def fileno(self) -> int:
        return self._binary.fileno()

    def isatty(self) -> bool:
        return self._binary.isatty()

    def close(self) -> None:
        """Leave the stream under it open: it is a standard stream, written after this."""


def _codec(stream: object) -> str:
    """The name of the codec of a text stream's encoding (``""`` when it has none)."""
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "").name
    except LookupError:
        return ""


def escape_what_the_encoding_cannot_hold() -> None:
    """Make the process's standard output and standard error write every text: what their
    encoding cannot hold as escapes. Standard error in ASCII (the C locale, or
    ``PYTHONIOENCODING=ascii``) is replaced by an :class:`EncodedText` of it, since click
    writes UTF-8 past an ASCII stream's text to its bytes, and its messages would then be
    in another encoding than the rest."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors=ESCAPED)
    binary = getattr(sys.stderr, "buffer", None)
    if _codec(sys.stderr) == "ascii" and binary is not None:
        sys.stderr.flush()
        sys.stderr = EncodedText(binary, "ascii", line_buffering=True)


@contextmanager
def utf8_standard_output() -> Iterator[IO[str]]:
    """Standard output as UTF-8 text, whatever its encoding (standard output itself when
    it is UTF-8, or has no bytes under it to write)."""
    binary = getattr(sys.stdout, "buffer", None)
    if binary is None or _codec(sys.stdout) == "utf-8":
        yield sys.stdout
        sys.stdout.flush()
        return
    sys.stdout.flush()
    stream = EncodedText(binary, "utf-8")
    yield cast(IO[str], stream)  # a text stream: what the commands call of it, it has
    stream.flush()
