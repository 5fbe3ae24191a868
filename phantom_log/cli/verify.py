"""``phantom-log verify``: check records against the schema and the rules, on the
library's one verify pipeline (:func:`phantom_log.running.pipeline.verify_sources_in_batches`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ..records.found_sources import SourceError
from ..running.outcomes import Tally
from .cluster_runs import cluster_options, exit_for_cluster_run, on_cluster
from .destination import say_written
from .exits import EXIT_FAILED, EXIT_INVALID, EXIT_OK, run_failed, usage_error, writing_output
from .help import VERIFY_EPILOG, VERIFY_EXAMPLES
from .inputs import load_sheets, no_records, refuse_inputs_as_outputs, standard_input
from .options import (
    PATHS,
    jobs_option,
    max_record_size_option,
    output_options,
    scheduler_option,
    selection_options,
    sheets_option,
)

if TYPE_CHECKING:
    from .destination import Destination


@click.command(epilog=VERIFY_EXAMPLES + VERIFY_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@output_options(
    ["text", "json"],
    "text: one line per problem and a summary; json: JSON Lines, one object per record.",
    force_help="Overwrite the -o, --valid-out and --invalid-out files if they exist.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems; no progress bar.")
@click.option("--strict", is_flag=True, help="Treat warnings (an unfinished record) as errors.")
@click.option(
    "--valid-out",
    "valid_out",
    metavar="FILE.jsonl",
    type=PATHS,
    help="Write the valid records, as they were read, to FILE (JSON Lines).",
)
@click.option(
    "--invalid-out",
    "invalid_out",
    metavar="FILE.jsonl",
    type=PATHS,
    help="Write the invalid records, as they were read, to FILE (JSON Lines).",
)
@sheets_option
@jobs_option
@scheduler_option
@selection_options
@max_record_size_option
def verify(
    paths: tuple[str, ...],
    scheduler: str | None,
    output: Destination,
    quiet: bool,
    strict: bool,
    valid_out: str | None,
    invalid_out: str | None,
    force: bool,
    sheets_path: str | None,
    jobs: int | None,
) -> None:
    """Check game records against the schema and the rules.

    PATHS are .json files (a record or an array of records), .jsonl/.ndjson files (a
    record per line), directories (searched recursively, in sorted order) and - for
    standard input. Each record is reported as valid (with its winner and notes) or with
    its problems: a stable code, a message, the JSON pointer, the round and the trick.
    The text report ends with a summary and the problems counted per code.

    --valid-out and --invalid-out split the records into two JSON Lines files, each
    record as it was read (a record written over several lines is put on one).
    """
    from ..files.outputs import outputs_together
    from ..running.outcomes import Options
    from ..running.pipeline import WorkerLost, default_jobs, verify_sources_in_batches
    from ..views.terminal import Progress, clear_progress

    outputs = [
        (option, path, valid)
        for option, path, valid in (
            ("--valid-out", valid_out, True),
            ("--invalid-out", invalid_out, False),
        )
        if path is not None
    ]
    _check_record_outputs(
        paths, [(option, path) for option, path, _ in outputs], force, output.path
    )
    if scheduler is not None:
        _verify_on_cluster(paths, scheduler, output, quiet, strict, bool(outputs), sheets_path)
    options = Options(load_sheets(sheets_path), strict, output.format, quiet, bool(outputs))
    tally = Tally()
    progress = Progress("verifying", not quiet and output.pager_command is None)
    # The files are put in place together once every record is read: a run that fails
    # (or holds no record) leaves them as they were, and another run writing them
    # meanwhile waits (OutputSet).
    with writing_output(), outputs_together(force) as files, output.text(files) as stdout:
        streams = {valid: files.stream(path) for _, path, valid in outputs}
        try:
            batches = verify_sources_in_batches(
                paths, options, jobs or default_jobs(), standard_input(), progress
            )
            for batch in batches:
                tally.merge(batch.tally)
                if batch.text:
                    clear_progress(for_standard_output=True)
                stdout.write(batch.text)
                for valid, stream in streams.items():
                    stream.write(batch.valid_records if valid else batch.invalid_records)
                progress.update(tally.records)
        except SourceError as error:
            raise usage_error(str(error)) from None
        except WorkerLost:
            raise run_failed(f"a worker process died after {tally.records} records") from None
        finally:
            progress.close()
        if tally.records == 0:
            raise no_records()
        if output.format == "text" and not quiet:
            stdout.write(tally.summary() + "\n")
            by_code = tally.by_code()
            if by_code is not None:
                stdout.write(by_code + "\n")
    say_written(output, quiet)
    if tally.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if tally.valid == tally.records else EXIT_INVALID)


def _verify_on_cluster(
    paths: tuple[str, ...],
    scheduler: str,
    output: Destination,
    quiet: bool,
    strict: bool,
    record_outputs: bool,
    sheets_path: str | None,
) -> None:
    """``verify --scheduler``: the problems (as ``--quiet`` prints them), the summary and
    the count per code, from a Dask cluster; exits."""
    if record_outputs:
        raise usage_error("--valid-out and --invalid-out are not written with --scheduler")
    if output.format != "text":
        raise usage_error("--scheduler prints the problems and the summary: --format text")
    options = cluster_options(paths, sheets_path)
    with on_cluster() as cluster:
        run = cluster.verify_on_cluster(
            list(paths), scheduler, strict=strict, quiet=quiet, **options
        )
    if run.records == 0:
        raise no_records()
    tally = Tally(run.records, run.valid, run.warnings, run.failed, dict(run.codes))
    with writing_output(), output.text() as stream:
        for line in run.problem_lines():
            stream.write(line + "\n")
        if not quiet:
            stream.write(tally.summary() + "\n")
            by_code = tally.by_code()
            if by_code is not None:
                stream.write(by_code + "\n")
    say_written(output, quiet)
    exit_for_cluster_run(run)


def _check_record_outputs(
    paths: tuple[str, ...], outputs: list[tuple[str, str]], force: bool, report: str | None
) -> None:
    """Refuse, before any work, ``--valid-out``/``--invalid-out`` files that are not
    JSON Lines, that are one file (or the ``-o`` report's), that are an input or lie in
    an input folder (where the next run over it would read them as records), or that
    cannot be written; and an ``-o`` report that is an input. Files and folders are
    compared by identity (device and inode), never by name."""
    import os
    from pathlib import Path

    from ..files.outputs import check_writable, is_standard_output
    from ..files.same_files import file_identity, folders_above, same_output

    if report is not None and not is_standard_output(report):
        for option, path in outputs:
            if same_output(path, report):
                raise usage_error(f"{option} and -o are the same file: {path}")
    for option, path in outputs:
        if Path(path).suffix.lower() not in (".jsonl", ".ndjson"):
            raise usage_error(
                f"{option} {path}: the records are written as JSON Lines; "
                "give a .jsonl or .ndjson file"
            )
    if len(outputs) == 2 and same_output(outputs[0][1], outputs[1][1]):
        raise usage_error(f"--valid-out and --invalid-out are the same file: {outputs[0][1]}")
    refuse_inputs_as_outputs(paths, outputs)
    for option, path in outputs:
        folders = {identity for identity, _ in folders_above(path)}
        for given in paths:
            if given != "-" and os.path.isdir(given) and file_identity(given) in folders:
                raise usage_error(
                    f"{option} {path}: it is inside the input folder {given}, where it "
                    "would be read as records; write it elsewhere"
                )
    with writing_output():
        for _, path in outputs:
            check_writable(path, force)
