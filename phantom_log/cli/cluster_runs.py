"""A command run on a Dask cluster (``--scheduler``): what it takes from the command line,
and its failures and its end as the exit codes give them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import click

from ..records.found_sources import SourceError
from ..views.reports import printable
from .exits import EXIT_FAILED, EXIT_INVALID, EXIT_OK, usage_error, writing_output
from .inputs import load_sheets, no_records


@contextmanager
def on_cluster() -> Iterator[ModuleType]:
    """The Dask front (:mod:`phantom_log.running.cluster`), its failures as the exit codes give
    them: Dask missing or a bad input is a usage error (2); a cluster that cannot be
    reached or that lost a worker, exit 3."""
    import importlib

    from ..running.dask_extra import cluster_installed
    from .extras import install_command

    cluster = importlib.import_module("..running.cluster", __package__)
    if not cluster_installed():
        # The pip command for where phantom-log was installed from (a checkout, the index).
        raise usage_error(
            f"--scheduler runs on Dask, which is not installed: {install_command('dask')}"
        )
    try:
        with writing_output():
            yield cluster
    except cluster.ClusterFailed as error:
        click.echo(printable(f"phantom-log: error: {error}"), err=True)
        raise click.exceptions.Exit(EXIT_FAILED) from None
    except (SourceError, ValueError) as error:
        raise usage_error(str(error)) from None


def cluster_options(paths: tuple[str, ...], sheets_path: str | None) -> dict[str, Any]:
    """What every run on a cluster takes from the command line: the sheets, the records
    selected and the record size limit; standard input is refused (a cluster reads
    storage)."""
    from ..records.selection import current_selection
    from ..records.size_limit import max_record_size

    if "-" in paths:
        raise usage_error("--scheduler reads storage (paths, URLs): not standard input (-)")
    return {
        "sheets": load_sheets(sheets_path),
        "selection": current_selection(),
        "max_record_size": max_record_size(),
    }


def exit_for_cluster_run(run: Any) -> None:
    """The exit code of a run on a cluster, as the command's own: 3 when a record could
    not be read or checked, 1 when one is invalid."""
    if run.records == 0:
        raise no_records()
    if run.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_INVALID if run.invalid else EXIT_OK)
