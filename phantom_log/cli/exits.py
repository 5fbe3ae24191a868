"""How a command ends: the exit codes, and the failures that end a command with one line
on standard error (a usage error, a run that could not do all its work, an output that
could not be written): the library's errors turned into messages."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final, NoReturn

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


def no_records() -> click.exceptions.Exit:
    """The usage error of paths that give no record (or none that is selected)."""
    from ..records.selection import current_selection

    selection = current_selection()
    if selection:
        return usage_error(f"no record of the paths given is selected by {selection.describe()}")
    return usage_error("the paths given hold no records")


def run_failed(message: str) -> click.exceptions.Exit:
    """The run could not do all its work (exit code 3): what was lost is said."""
    click.echo(
        f"phantom-log: error: {message}; the records after them were not checked "
        "(a process killed, or out of memory?)",
        err=True,
    )
    return click.exceptions.Exit(EXIT_FAILED)


def run_error(message: str) -> click.exceptions.Exit:
    """The run failed (exit code 3), said in one line."""
    click.echo(printable(f"phantom-log: error: {message}"), err=True)
    return click.exceptions.Exit(EXIT_FAILED)


def finish(failed: bool, invalid: bool) -> NoReturn:
    """End a command that read records as each ends: exit 3 when the run could not do all
    its work (``failed``), 1 when a record was ``invalid``, else 0."""
    sys.exit(EXIT_FAILED if failed else EXIT_INVALID if invalid else EXIT_OK)


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
        raise run_error(str(error)) from None


@contextmanager
def library_errors() -> Iterator[None]:
    """The errors of a run over records as the exit codes give them, each said in one line:
    a path that does not exist, paths that hold no record, what a run cannot do (on a
    cluster), Dask missing: a usage error, exit 2 (its hint: what to install); a worker
    lost, a cluster that failed: exit 3; and the output's, as :func:`writing_output` says."""
    from ..records.found_sources import SourceError
    from ..running.dask_extra import ClusterUnavailable
    from ..running.failures import ClusterFailed, NoRecords, RunRefused, WorkerLost

    try:
        with writing_output():
            yield
    except (SourceError, RunRefused) as error:
        raise usage_error(str(error)) from None
    except NoRecords:
        raise no_records() from None
    except WorkerLost as lost:
        raise run_failed(f"a worker process died {lost.during}") from None
    except ClusterFailed as error:
        raise run_error(str(error)) from None
    except ClusterUnavailable:
        from .extras import install_command

        # The pip command for where phantom-log was installed from (a checkout, the index).
        raise usage_error(
            f"--scheduler runs on Dask, which is not installed: {install_command('dask')}"
        ) from None
