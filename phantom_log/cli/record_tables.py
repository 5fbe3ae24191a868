"""The games and tricks tables of the records, as ``export`` and ``stats`` build them on
this machine, and the notes of a run that built them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from ..records.found_sources import SourceError
from ..rules.sheets import Sheet
from .exits import exit_once_written, run_failed, usage_error
from .inputs import no_records, standard_input

if TYPE_CHECKING:
    from ..tabular.tables import TableFiles


def build_record_tables(
    paths: tuple[str, ...],
    sheets: Mapping[str, Sheet] | None,
    folder: str,
    include_invalid: bool,
    quiet: bool,
    jobs: int | None,
) -> TableFiles:
    """The tables of the records of the paths, built in ``folder`` on ``jobs`` processes
    with a progress bar (unless ``quiet``), and the notes of the run said; a usage error
    (exit 2) for a path that does not exist or paths that hold no records. The command
    exits 3 or 1 once its outputs are written, if a record could not be read or checked,
    or was invalid."""
    from pathlib import Path

    from ..running.pipeline import WorkerLost, default_jobs, source_tables
    from ..tabular.tables import build_tables
    from ..views.terminal import Progress

    progress = Progress("reading", not quiet)
    chunks = source_tables(
        paths,
        sheets,
        include_invalid,
        jobs or default_jobs(),
        standard_input(),
        progress,
        Path(folder),
    )
    try:
        files = build_tables(chunks, Path(folder), include_invalid, on_record=progress.update)
    except SourceError as error:
        raise usage_error(str(error)) from None
    except WorkerLost:
        raise run_failed(f"a worker process died after {progress.count} records") from None
    finally:
        progress.close()
    if files.records == 0:
        raise no_records()
    say_tables_notes(files, quiet)
    exit_once_written(files.failed > 0, files.invalid > 0)
    return files


def say_tables_notes(files: Any, quiet: bool) -> None:
    """The notes of a run that built the tables (here or on a cluster): the invalid
    records left out, the records that could not be read or checked."""
    if files.left_out and not quiet:
        click.echo(
            f"left out {files.left_out} invalid record{'s' if files.left_out != 1 else ''} "
            f"of {files.records} (use --include-invalid to keep them; verify says why)",
            err=True,
        )
    if files.failed:
        click.echo(
            f"phantom-log: error: could not read or check {files.failed} record"
            f"{'s' if files.failed != 1 else ''} (unreadable or internal-error; verify "
            "names them); the tables hold the others",
            err=True,
        )
