"""``phantom-log verify``: check records against the schema and the rules, on the
library's one verify pipeline (:func:`phantom_log.running.runs.write_verified`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .destination import say_written
from .exits import finish, library_errors, writing_output
from .help import VERIFY_EPILOG, VERIFY_EXAMPLES
from .inputs import load_sheets
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
    from ..files.output_checks import check_outputs
    from ..files.outputs import outputs_together
    from ..records.source_names import RECORD_SUFFIXES
    from ..running.outcomes import Options
    from ..running.pipeline import default_jobs
    from ..running.runs import write_verified
    from ..views.terminal import Progress

    record_files = [("--valid-out", valid_out), ("--invalid-out", invalid_out)]
    with writing_output():
        # Refused before any work; -o itself is checked as every command's output is.
        check_outputs(paths, record_files, RECORD_SUFFIXES, force, [("-o", output.path)], True)
    kept = {valid: path for valid, path in ((True, valid_out), (False, invalid_out)) if path}
    options = Options(load_sheets(sheets_path), strict, output.format, quiet, bool(kept))
    progress = Progress("verifying", not quiet and output.pager_command is None)
    # The files are put in place together once every record is read: a run that fails
    # (or holds no record) leaves them as they were, and another run writing them
    # meanwhile waits (OutputSet).
    with library_errors(), outputs_together(force) as files, output.text(files) as stdout:
        streams = {valid: files.stream(path) for valid, path in kept.items()}
        jobs = jobs or default_jobs()
        tally = write_verified(stdout, streams, paths, options, jobs, progress, scheduler)
    say_written(output.path, quiet)
    finish(tally.failed > 0, tally.valid < tally.records)
