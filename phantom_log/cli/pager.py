"""Text for people through a pager, as git pages it, and printed straight when the pager
is missing or broken: no text is ever lost to a pager that could not show it.

- A pager named by plain words (``less``, ``less -R``) is run without a shell, so a
  program that is not there is found out before any text is written (and printed
  straight, with a note when the user named that pager); one that needs a shell (``cat >
  FILE``, ``less | tee``) is run by ``/bin/sh``.
- A pager that ends with a failure (a non-zero status: a shell that could not find or run
  it, 127 or 126, or a pager that refuses its options) before it took more text than a
  pipe holds gets the whole text printed straight instead, with a note. The text is kept
  for that only until :data:`KEPT_CHARACTERS` of it were written: a pager that has taken
  more than a pipe can hold is reading, so memory stays bounded whatever the output's
  length.
- A pager the reader quits early (``q`` in ``less``: status 0) ends the run quietly, as a
  closed pipe does.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Final, cast

import click

from ..views.reports import printable
from .streams import ESCAPED

#: The characters of a shell's syntax (git's list, without the spaces between words): a
#: pager command holding one is run by ``/bin/sh``.
SHELL_SYNTAX: Final = frozenset("|&;<>()$`\\\"'*?[#~=%\n")
#: How much text is kept to print straight if the pager fails: more than any pipe holds
#: (64 KiB on Linux; 1 MiB at most, pipe-max-size's default).
KEPT_CHARACTERS: Final = 1 << 20


def pager_words(command: str) -> list[str] | None:
    """The program and arguments of a pager command made of plain words; ``None`` for a
    command that needs a shell."""
    if SHELL_SYNTAX.intersection(command):
        return None
    return command.split()


def _pager_named() -> bool:
    """Whether the user named the pager (rather than phantom-log's default, ``less``)."""
    return "PHANTOM_LOG_PAGER" in os.environ or "PAGER" in os.environ


def _note(message: str) -> None:
    click.echo(printable(f"phantom-log: note: {message}"), err=True)


def _start(command: str) -> subprocess.Popen[bytes] | None:
    """The pager's process, its input a pipe; ``None`` when its program is not there or
    cannot be run (said in a note when the user named the pager)."""
    environment = {**os.environ, "LESS": os.environ.get("LESS", "FRX"), "LV": "-c"}
    words = pager_words(command)
    if words is not None and shutil.which(words[0], path=environment.get("PATH")) is None:
        if _pager_named():
            _note(
                f"the pager {command!r} cannot be run (no such program, or not one that "
                "can be run): printing straight"
            )
        return None
    try:
        return subprocess.Popen(
            command if words is None else words,
            shell=words is None,
            stdin=subprocess.PIPE,
            env=environment,
        )
    except OSError as error:
        _note(f"the pager {command!r} cannot be run ({error.strerror}): printing straight")
        return None


class PagerInput(io.TextIOBase):
    """The text written to a pager, in standard output's encoding (what it cannot hold as
    escapes), kept while the pager may still fail, and printed straight once it has."""

    def __init__(self, command: str, process: subprocess.Popen[bytes]) -> None:
        super().__init__()
        assert process.stdin is not None
        self.command = command
        self.process = process
        self.pipe: IO[bytes] = process.stdin
        self.encoding_name = getattr(sys.stdout, "encoding", None) or "utf-8"
        #: The text written so far, while the pager may still fail (``None`` after).
        self.kept: list[str] | None = []
        self.kept_size = 0
        self.straight = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.straight:
            return sys.stdout.write(text)
        if self.kept is not None:
            self.kept.append(text)
            self.kept_size += len(text)
            if self.kept_size > KEPT_CHARACTERS:
                self.kept = None
        try:
            self.pipe.write(text.encode(self.encoding_name, ESCAPED))
        except BrokenPipeError:
            if not self._printed_straight():
                raise  # the reader quit the pager: the run ends as a closed pipe does
        return len(text)

    def flush(self) -> None:
        if self.straight:
            sys.stdout.flush()
            return
        try:
            self.pipe.flush()
        except BrokenPipeError:
            if not self._printed_straight():
                raise

    def _printed_straight(self) -> bool:
        """After the pager went away: whether it failed while the text was still kept,
        in which case the text is printed straight from the start, and will be from now
        on."""
        with suppress(BrokenPipeError):
            self.pipe.close()
        status = self.process.wait()
        if status == 0 or self.kept is None:
            return False
        how = f"ended by signal {-status}" if status < 0 else f"exit status {status}"
        _note(f"the pager {self.command!r} failed ({how}): printing straight")
        self.straight = True
        sys.stdout.write("".join(self.kept))
        self.kept = None
        return True

    def finish(self) -> None:
        """The text is all written: close the pager's input and wait for the reader to
        quit it; print the text straight if the pager failed."""
        if self.straight:
            sys.stdout.flush()
            return
        self._printed_straight()
        sys.stdout.flush()

    def abandon(self) -> None:
        """The run is ending otherwise (an interruption, an error): close the pager's
        input and wait for it, printing nothing more."""
        self.kept = None
        with suppress(BrokenPipeError):
            self.pipe.close()
        self.process.wait()

    def close(self) -> None:
        """Nothing to close but the pipe, which :meth:`finish` closes."""


@contextmanager
def paged(command: str) -> Iterator[IO[str]]:
    """A pager's input, as git gives it one: ``LESS=FRX`` unless set (quit at once when
    the text fits the screen, keep colours, leave the text on the screen); standard
    output itself when the pager cannot be started, and the text printed straight if it
    fails (see the module)."""
    sys.stdout.flush()
    process = _start(command)
    if process is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    stream = PagerInput(command, process)
    try:
        yield cast(IO[str], stream)  # a text stream: what the commands call of it, it has
    except BaseException:
        stream.abandon()
        raise
    stream.finish()
