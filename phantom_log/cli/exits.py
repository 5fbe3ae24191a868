"""How a command ends: the exit codes, and the failures that end a command with one line
on standard error (a usage error, a run that could not do all its work, an output that
could not be written)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import click

from ..views.reports import printable

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2
EXIT_FAILED: Final = 3


def usage_error(message: str) -> click.exceptions.Exit:
    """A usage error (exit code 2), said in one line: raise what it returns."""
    click.echo(printable(f"phantom-log: error: {message}"), err=True)
    return click.exceptions.Exit(EXIT_USAGE)


def run_failed(message: str) -> click.exceptions.Exit:
    """The run could not do all its work (exit code 3): what was lost is said."""
    click.echo(
        f"phantom-log: error: {message}; the records after them were not checked "
        "(a process killed, or out of memory?)",
        err=True,
    )
    return click.exceptions.Exit(EXIT_FAILED)


@contextmanager
def writing_output() -> Iterator[None]:
    """The errors of an output file as the exit codes give them: an output refused (it
    exists without --force, it is a FIFO or a device, its folder does not exist) is a
    usage error, exit 2; a write that failed (a full disk, no permission) exits 3. Either
    is said in one line naming the output."""
    from ..files.outputs import OutputExists, OutputFailed, OutputRefused

    try:
        yield
    except (OutputExists, OutputRefused) as error:
        raise usage_error(str(error)) from None
    except OutputFailed as error:
        click.echo(printable(f"phantom-log: error: {error}"), err=True)
        raise click.exceptions.Exit(EXIT_FAILED) from None


def exit_once_written(failed: bool, invalid: bool) -> None:
    """End the command, once its outputs are written (when its context closes), as every
    command that reads records ends: exit 3 when the run could not do all its work
    (``failed``), 1 when a record was ``invalid``; otherwise as the command ends."""
    context = click.get_current_context()
    if failed:
        context.call_on_close(functools.partial(sys.exit, EXIT_FAILED))
    elif invalid:
        context.call_on_close(functools.partial(sys.exit, EXIT_INVALID))
