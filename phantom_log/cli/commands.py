"""The ``phantom-log`` command line: a thin layer over sources, verify and the engine."""

from __future__ import annotations

import functools
import io
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, Final, TypeVar, cast

import click
import orjson

from ..checking.verdict import RecordReport, read_sheets
from ..records.schema import MANIFEST_SCHEMA, RECORD_SCHEMA, SHEETS_SCHEMA, schema_text
from ..records.sources import DEFAULT_MAX_RECORD_SIZE, SourceError, read_limited, record_size_limit
from ..rules.problems import Severity
from ..rules.sheets import Sheet
from ..running.outcomes import Tally
from ..views.reports import game_heading, printable, record_name, report_lines, verdict_line

if TYPE_CHECKING:
    import polars as pl

    from ..analysis.decisions import AnalysisOptions, Decision
    from ..analysis.solver import Solver
    from ..records.sources import SourceRecord
    from ..rules.cards import Role
    from ..tabular.tables import TableFiles, TrickCsv
    from ..tournament.checks import Manifest, TournamentReport
    from ..views.replay_page import Reviews
    from ..views.terminal import ColourChoice, Style
    from .destination import Destination

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_FAILED: Final = 3
EXIT_USAGE: Final = 2

_EXIT_TAIL: Final = """\
  130  interrupted (Ctrl-C); 143 and 129 on SIGTERM and SIGHUP
  (A closed output pipe, as with | head, ends the run silently: 141.)
"""


VERIFY_EPILOG: Final = (
    """\b
Exit codes:
  0  every record is valid (warnings allowed, unless --strict)
  1  at least one record is invalid
  2  a usage error: a bad option, a path that does not exist,
     a bad --sheets file, or paths that hold no records
  3  the run could not do all its work: a source unreadable (no
     permission, a broken link, over --max-record-size), the checker
     failed on a record (internal-error; the other records are still
     checked) or a worker process died
"""
    + _EXIT_TAIL
)


def _exit_codes(valid: str, invalid: str, usage: str, failed: str) -> str:
    """The exit codes of a command that reads records, for its ``--help``."""
    return (
        "\b\nExit codes:\n"
        f"  0  {valid}\n"
        f"  1  {invalid}\n"
        f"  2  a usage error: {usage}\n"
        f"  3  the run could not do all its work: {failed}\n" + _EXIT_TAIL
    )


def _examples(*examples: tuple[str, str]) -> str:
    """The examples of a command's ``--help``: each command line and what it does."""
    lines = [f"  {what}:\n    $ {command}" for command, what in examples]
    return "\b\nExamples:\n" + "\n".join(lines) + "\n\n"


VERIFY_EXAMPLES: Final = _examples(
    ("phantom-log verify games/", "check every record below a folder"),
    ("phantom-log verify event.jsonl --format json -o report.jsonl", "a JSON Lines report"),
    (
        "phantom-log verify event.jsonl --valid-out ok.jsonl --invalid-out bad.jsonl",
        "split the valid records from the invalid ones",
    ),
    ("phantom-log verify games/ --player 'Kim*' --event 'Seoul*'", "only some records"),
    ("cat game.json | phantom-log verify -", "a record on standard input"),
)
ANNOTATE_EXAMPLES: Final = _examples(
    ("phantom-log annotate game.json", "every trick: who won it, why, and the notes"),
    ("phantom-log annotate games/ -o tricks.csv", "one CSV row per trick"),
    ("phantom-log annotate game.json --analyse", "with each trick's mistakes"),
)
SHOW_EXAMPLES: Final = _examples(
    ("phantom-log show game.json", "the sheet and the hands at the end"),
    ("phantom-log show game.json --at 2.4", "after trick 4 of round 2"),
    ("phantom-log show game.json -o game.svg", "a picture of the game"),
    ("phantom-log show game.json -o game.html --at 1.7", "the replay page, opening at 1.7"),
    ("phantom-log show event.jsonl --html pages/", "a replay page per record, and an index"),
)
SIMULATE_EXAMPLES: Final = _examples(
    ("phantom-log simulate -n 1000 -o games.jsonl", "a thousand random games"),
    (
        "phantom-log simulate -n 50 --phantom greedy --balance --seed 7 -o greedy.json",
        "a greedy Phantom under the balance rule, as one JSON array",
    ),
)
EXPORT_EXAMPLES: Final = _examples(
    ("phantom-log export games/ --games games.parquet --tricks tricks.parquet", "both tables"),
    ("phantom-log export games/ --tricks - --format jsonl | jq .", "tricks on standard output"),
    ("phantom-log export games/ --games all.csv --include-invalid", "invalid records too"),
)
STATS_EXAMPLES: Final = _examples(
    ("phantom-log stats games/", "the figures over every valid record"),
    ("phantom-log stats games/ --by sheet --by rules", "one row per sheet and rules"),
    ("phantom-log stats games/ --curve -o curve.csv", "the progress curve as CSV"),
    ("phantom-log stats games/ --plot curve.svg", "draw it (the plot extra)"),
)
ANALYSE_EXAMPLES: Final = _examples(
    ("phantom-log analyse game.json", "what each decision cost, as a coach says it"),
    ("phantom-log analyse game.json --from 2.0 --deep", "round 2 only, with the whole matrices"),
    ("phantom-log analyse game.json --hidden --worlds 30", "by what each player could see"),
    ("phantom-log analyse games/ -j 2 -o analysis.jsonl", "a whole event, as JSON Lines"),
)
TOURNAMENT_EXAMPLES: Final = _examples(
    ("phantom-log tournament check event/", "the records, across records, and the standings"),
    ("phantom-log tournament check event/ --manifest event.json", "against the schedule"),
    ("phantom-log tournament check event/ -o standings.csv", "the standings as CSV"),
)
SCHEMA_EXAMPLES: Final = _examples(
    ("phantom-log schema", "the JSON Schema of a game record"),
    ("phantom-log schema manifest -o manifest.schema.json", "a tournament manifest's"),
)


_FAILED: Final = "a source unreadable, the\n     checker failed on a record (internal-error)"
ANNOTATE_EPILOG: Final = _exit_codes(
    "every record is valid",
    "at least one record is invalid (annotated up to its first problem)",
    "a bad option, a path that does not exist,\n     or paths that hold no records",
    _FAILED,
)
SHOW_EPILOG: Final = _exit_codes(
    "the record is valid (with --html DIR: every record)",
    "the record is invalid (shown as far as the replay got)",
    "a bad option or --at, a path that does not\n     exist, no record at --index, "
    "or an --svg or --html file that exists",
    _FAILED + "\n     or the --svg or --html file could not be written",
)
_TABLES_USAGE: Final = (
    "a bad option, a path that does not exist,\n     paths that hold no records, "
    "or an output that exists without\n     --force"
)
EXPORT_EPILOG: Final = _exit_codes(
    "every record is valid",
    "at least one record is invalid (left out unless\n"
    "     --include-invalid; the tables are written)",
    _TABLES_USAGE,
    _FAILED + ", a worker\n     process died or an output could not be written",
)
STATS_EPILOG: Final = _exit_codes(
    "every record is valid",
    "at least one record is invalid (left out of the\n     figures, which are still written)",
    _TABLES_USAGE,
    _FAILED + ", a worker\n     process died or an output could not be written",
)
ANALYSE_EPILOG: Final = _exit_codes(
    "every record is valid (decisions not solved in time included)",
    "at least one record is invalid (analysed up to its first problem)",
    "a bad option or --from, a path that does not\n     exist, paths that hold no "
    "records, or an -o file that\n     exists without --force",
    _FAILED + ", a worker\n     process died or the -o file could not be written",
)
SIMULATE_EPILOG: Final = (
    """\b
Exit codes:
  0  the games were written
  2  a usage error: a bad option, an unknown sheet, or an OUT file
     that exists without --force
  3  the OUT file could not be written
"""
    + _EXIT_TAIL
)

# Paths to read or write: a shell completes them as files (and - is standard input or
# output); whether they exist is said by the command, as a problem or a usage error.
PATHS: Final = click.Path(allow_dash=True, readable=False)

SCHEMA_EPILOG: Final = (
    """\b
Exit codes:
  0  the schema was written
  2  a usage error: an unknown schema, or an -o file that exists
     without --force
  3  the -o file could not be written
"""
    + _EXIT_TAIL
)

# Options shared by several commands, so that every command speaks them the same way.
sheets_option = click.option(
    "--sheets",
    "sheets_path",
    metavar="FILE",
    type=PATHS,
    help="A JSON file of named sheets to add to the built-in ones (its JSON Schema: "
    "phantom-log schema sheet).",
)


def colour_option(command: F) -> F:
    """``--color auto|always|never`` (``--no-color`` is ``--color never``): the command
    receives ``colour``."""

    @functools.wraps(command)
    def run(*args: Any, colour: str, no_colour: bool, **kwargs: Any) -> Any:
        return command(*args, colour="never" if no_colour else colour, **kwargs)

    decorated = click.option(
        "--no-color", "--no-colour", "no_colour", is_flag=True, hidden=True, help="--color never."
    )(run)
    decorated = click.option(
        "--color",
        "--colour",
        "colour",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        show_default=True,
        help="Colours: auto paints on a terminal (not with NO_COLOR set or TERM=dumb; "
        "FORCE_COLOR paints anywhere).",
    )(decorated)
    return cast(F, decorated)


jobs_option = click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: all cores). The output stays in input order.",
)


scheduler_option = click.option(
    "--scheduler",
    metavar="ADDRESS|local",
    default=None,
    help="Run on a Dask cluster: its scheduler's address (tcp://host:8786), or local for "
    "one of this machine's cores. PATHS may then be fsspec URLs (s3://..., globs). Needs "
    "pip install 'phantom-log[dask]' (docs/cluster.md).",
)


@contextmanager
def _on_cluster() -> Iterator[ModuleType]:
    """The Dask front (:mod:`phantom_log.running.cluster`), its failures as the exit codes give
    them: Dask missing or a bad input is a usage error (2); a cluster that cannot be
    reached or that lost a worker, exit 3."""
    import importlib

    cluster = importlib.import_module("..running.cluster", __package__)
    if not cluster.cluster_installed():
        raise _usage_error(f"--scheduler runs on Dask, which is not installed: {cluster.INSTALL}")
    try:
        with _writing_output():
            yield cluster
    except cluster.ClusterFailed as error:
        click.echo(printable(f"phantom-log: error: {error}"), err=True)
        raise click.exceptions.Exit(EXIT_FAILED) from None
    except (SourceError, ValueError) as error:
        raise _usage_error(str(error)) from None


def _cluster_options(paths: tuple[str, ...], sheets_path: str | None) -> dict[str, Any]:
    """What every run on a cluster takes from the command line: the sheets, the records
    selected and the record size limit; standard input is refused (a cluster reads
    storage)."""
    from ..records.selection import current_selection
    from ..records.sources import max_record_size

    if "-" in paths:
        raise _usage_error("--scheduler reads storage (paths, URLs): not standard input (-)")
    return {
        "sheets": _load_sheets(sheets_path),
        "selection": current_selection(),
        "max_record_size": max_record_size(),
    }


def _cluster_exit(run: Any) -> None:
    """The exit code of a run on a cluster, as the command's own: 3 when a record could
    not be read or checked, 1 when one is invalid."""
    if run.records == 0:
        raise _no_records()
    if run.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_INVALID if run.invalid else EXIT_OK)


# The parameters that name files a command reads, beside its records.
_INPUT_FILE_PARAMETERS: Final = ("sheets_path", "manifest_path", "analysis_path")


def _inputs(parameters: Mapping[str, Any]) -> list[str]:
    """The files and folders a command reads, from its parameters: its records' paths
    (``paths``, or ``path`` for one), and the side files (sheets, manifest, analysis)."""
    found = list(parameters.get("paths") or ())
    for name in ("path", *_INPUT_FILE_PARAMETERS):
        value = parameters.get(name)
        if isinstance(value, str):
            found.append(value)
    return found


def _refuse_inputs_as_outputs(
    inputs: Iterable[str], outputs: Iterable[tuple[str, str | None]]
) -> None:
    """Refuse (exit 2, before any work) an output file that is one of the files the
    command reads: with --force it would be written over, and the input lost."""
    import os

    from ..files.outputs import is_standard_output

    read = {os.path.realpath(path) for path in inputs if not is_standard_output(path)}
    for option, path in outputs:
        if path is not None and not is_standard_output(path) and os.path.realpath(path) in read:
            raise _usage_error(f"{option} {path}: it is an input; write it elsewhere")


def output_options(
    formats: list[str],
    help: str,
    force_help: str = "Overwrite the output file if it exists.",
    checked: bool = True,
) -> Callable[[F], F]:
    """``--format``, ``-o/--output`` and ``--force``, the same for every command
    (:mod:`phantom_log.cli.destination`): the command receives ``output``, a
    :class:`~phantom_log.cli.destination.Destination` already checked to be writable (unless
    not ``checked``: the command checks it), and ``force``. Options that clash are
    refused (exit 2) before any work."""
    from .destination import format_names

    names = format_names(formats)
    synonyms = [f"{name} is {meant}" for name, meant in names.items() if name != meant]

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def run(
            *args: Any,
            format_name: str | None,
            output_path: str | None,
            no_pager: bool = True,
            **kwargs: Any,
        ) -> Any:
            from .destination import DestinationError, resolve_destination

            try:
                output = resolve_destination(formats, format_name, output_path, kwargs["force"])
            except DestinationError as error:
                raise _usage_error(str(error)) from None
            output = replace(output, pager=not no_pager)
            _refuse_inputs_as_outputs(_inputs(kwargs), [("-o", output_path)])
            if checked:
                with _writing_output():
                    output.check()
            return command(*args, output=output, **kwargs)

        decorated: Callable[..., Any] = click.option("--force", is_flag=True, help=force_help)(run)
        if {"text", "table"} & set(formats):
            decorated = click.option(
                "--no-pager",
                is_flag=True,
                help="Print straight to the terminal; otherwise a long text goes through a "
                "pager there (PHANTOM_LOG_PAGER or PAGER, else less; cat for none).",
            )(decorated)
        decorated = click.option(
            "-o",
            "--output",
            "output_path",
            metavar="FILE",
            type=PATHS,
            help="Write to FILE (- for standard output, the default); its extension sets "
            "the format unless --format is given.",
        )(decorated)
        decorated = click.option(
            "--format",
            "format_name",
            type=click.Choice(list(names)),
            default=None,
            help=f"{help} ({'; '.join(synonyms)}.) [default: {formats[0]}, or as the -o "
            "file's extension says]"
            if synonyms
            else f"{help} [default: {formats[0]}, or as the -o file's extension says]",
        )(decorated)
        return cast(F, decorated)

    return decorate


def policy_option(flag: str, role: str) -> Callable[[F], F]:
    """The policy of one side for ``simulate``."""
    return click.option(
        flag,
        f"{role}_policy",
        type=click.Choice(["random", "greedy"]),
        default="random",
        show_default=True,
        help=f"The {role.capitalize()} side's policy.",
    )


if TYPE_CHECKING:  # click 8.2 made the parameter types generic; 8.1 cannot subscript them
    _IntParamType = click.ParamType[int]
else:
    _IntParamType = click.ParamType


class ByteSize(_IntParamType):
    """A size in bytes: a whole number of bytes, or a number with K, M, G or T (binary
    units: ``64M`` is 64 MiB; ``KiB``, ``MB`` and the like are read the same)."""

    name = "size"
    _UNITS: Final = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
    _PATTERN: Final = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        from decimal import Decimal

        match = self._PATTERN.fullmatch(str(value))
        size = 0 if match is None else int(Decimal(match[1]) * self._UNITS[match[2].lower()])
        if size < 1:
            self.fail(
                f"{value!r} is not a size: give bytes, or a number with K, M or G", param, ctx
            )
        return size


def analysis_options(from_file: str, analyse: str, unsolved: str) -> Callable[[F], F]:
    """``--analysis FILE``, ``--analyse`` and ``--time-limit``, the same for every command
    that shows a game's decisions: ``from_file`` and ``analyse`` say what the command does
    with them, ``unsolved`` what becomes of a decision not solved in time. Given both,
    ``--analysis`` and ``--analyse`` are refused (exit 2) before any work."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def run(*args: Any, analysis_path: str | None, analyse_games: bool, **kwargs: Any) -> Any:
            if analysis_path is not None and analyse_games:
                raise _usage_error("--analysis FILE and --analyse: give one of them")
            _analysis_rows.cache_clear()  # read anew by each run (tests run many)
            if analysis_path is not None:
                _analysis_rows(analysis_path)  # read (and refused, if so) before any output
            return command(
                *args, analysis_path=analysis_path, analyse_games=analyse_games, **kwargs
            )

        options = [
            click.option("--analysis", "analysis_path", metavar="FILE", type=PATHS, help=from_file),
            click.option("--analyse", "analyse_games", is_flag=True, help=analyse),
            click.option(
                "--time-limit",
                type=click.FloatRange(min=0, min_open=True),
                default=60.0,
                show_default=True,
                metavar="SECONDS",
                help=f"With --analyse: seconds per game; a decision not solved by then {unsolved}.",
            ),
        ]
        decorated: Any = run
        for option in reversed(options):
            decorated = option(decorated)
        return cast(F, decorated)

    return decorate


def max_record_size_option(command: F) -> F:
    """``--max-record-size`` for a command that reads records: the command runs with that
    size limit in force (:func:`phantom_log.records.sources.record_size_limit`)."""

    @functools.wraps(command)
    def run(*args: Any, max_record_size: int, **kwargs: Any) -> Any:
        with record_size_limit(max_record_size):
            return command(*args, **kwargs)

    option = click.option(
        "--max-record-size",
        type=ByteSize(),
        default=f"{DEFAULT_MAX_RECORD_SIZE // 1024**2}M",
        show_default=True,
        metavar="SIZE",
        help="The largest record (a line of JSON Lines) or .json document read; a larger one "
        "is an unreadable problem (exit 3). Bytes, or with K, M, G: 16M, 1G.",
    )
    return cast(F, option(run))


_SELECTION_HELP: Final = (
    ("--game-id", "game_ids", "game id"),
    ("--player", "players", "player (either side)"),
    ("--event", "events", "event"),
)


def selection_options(command: F) -> F:
    """``--game-id``, ``--player`` and ``--event`` for a command that reads records: the
    command reads only the records they select (:mod:`phantom_log.records.selection`), and a
    tournament manifest among its paths is skipped with a note on standard error."""

    @functools.wraps(command)
    def run(
        *args: Any,
        game_ids: tuple[str, ...],
        players: tuple[str, ...],
        events: tuple[str, ...],
        **kwargs: Any,
    ) -> Any:
        from ..records.selection import Selection, record_selection
        from ..records.sources import on_manifest

        with (
            record_selection(Selection(game_ids, players, events)),
            on_manifest(_manifest_skipped),
        ):
            return command(*args, **kwargs)

    decorated: Callable[..., Any] = run
    for flag, name, what in reversed(_SELECTION_HELP):
        decorated = click.option(
            flag,
            name,
            multiple=True,
            metavar="PATTERN",
            help=f"Only the records of this {what}: exact or a glob (*, ?, [...]); "
            "repeatable (any of them).",
        )(decorated)
    return cast(F, decorated)


def _manifest_skipped(source: str) -> None:
    from ..views.terminal import clear_progress

    clear_progress()
    click.echo(
        printable(
            f"phantom-log: note: {source} is a tournament manifest, not a game record: skipped"
        ),
        err=True,
    )


def _no_records() -> click.exceptions.Exit:
    """The usage error of paths that give no record (or none that is selected)."""
    from ..records.selection import current_selection

    selection = current_selection()
    if selection:
        return _usage_error(f"no record of the paths given is selected by {selection.describe()}")
    return _usage_error("the paths given hold no records")


def _stdin() -> IO[bytes] | None:
    """Standard input as bytes; ``None`` when it is closed (``phantom-log verify - <&-``),
    which reading ``-`` then reports as an unreadable source."""
    return None if sys.stdin is None else sys.stdin.buffer


def _run_failed(message: str) -> click.exceptions.Exit:
    """The run could not do all its work (exit code 3): what was lost is said."""
    click.echo(
        f"phantom-log: error: {message}; the records after them were not checked "
        "(a process killed, or out of memory?)",
        err=True,
    )
    return click.exceptions.Exit(EXIT_FAILED)


def _usage_error(message: str) -> click.exceptions.Exit:
    click.echo(printable(f"phantom-log: error: {message}"), err=True)
    return click.exceptions.Exit(EXIT_USAGE)


@contextmanager
def _writing_output() -> Iterator[None]:
    """The errors of an output file as the exit codes give them: an output refused (it
    exists without --force, it is a FIFO or a device, its folder does not exist) is a
    usage error, exit 2; a write that failed (a full disk, no permission) exits 3. Either
    is said in one line naming the output."""
    from ..files.outputs import OutputExists, OutputFailed, OutputRefused
    from ..views.reports import printable

    try:
        yield
    except (OutputExists, OutputRefused) as error:
        raise _usage_error(str(error)) from None
    except OutputFailed as error:
        click.echo(printable(f"phantom-log: error: {error}"), err=True)
        raise click.exceptions.Exit(EXIT_FAILED) from None


def _say_written(output: Destination, quiet: bool) -> None:
    """``wrote FILE`` on standard error, once a command's output file is in place."""
    if not quiet and not output.to_standard_output:
        click.echo(printable(f"wrote {output.path}"), err=True)


def _print_version(context: click.Context, _option: click.Parameter, value: bool) -> None:
    if not value or context.resilient_parsing:
        return
    import phantom_log

    click.echo(
        f"phantom-log {phantom_log.__version__} (rules engine: {phantom_log.engine_build()})"
    )
    context.exit()


MAIN_EXAMPLES: Final = _examples(
    ("phantom-log verify games/", "check every record below a folder"),
    ("phantom-log annotate game.json", "every trick of a game: who won it, and why"),
    ("phantom-log show game.json --at 2.4", "the sheet and the hands after a trick"),
    ("phantom-log export games/ --tricks tricks.parquet", "a table to analyse"),
    ("phantom-log tournament check event/", "a whole event, and its standings"),
    ("phantom-log verify --help", "a command's options, examples and exit codes"),
)
MAIN_EPILOG: Final = (
    """\b
Exit codes:
  0  done, and every record is valid
  1  at least one record is invalid (the outputs are still written)
  2  a usage error: a bad option, a path that does not exist, paths
     that hold no records, or an output that exists without --force
  3  the run could not do all its work: a source unreadable, the
     checker failed on a record (internal-error), a worker process
     died or an output could not be written
"""
    + _EXIT_TAIL
    + """
\b
Shell completion (commands, options and file names):
  bash, in ~/.bashrc: eval "$(_PHANTOM_LOG_COMPLETE=bash_source phantom-log)"
  zsh, in ~/.zshrc:   eval "$(_PHANTOM_LOG_COMPLETE=zsh_source phantom-log)"
  fish, in ~/.config/fish/completions/phantom-log.fish:
                      _PHANTOM_LOG_COMPLETE=fish_source phantom-log | source
"""
)


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]}, epilog=MAIN_EXAMPLES + MAIN_EPILOG
)
@click.option(
    "--version",
    "-V",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and which build of the rules engine is in use, and exit.",
)
def main() -> None:
    """Verify, annotate and analyse records of The Phantom of the Opera card game."""


def _load_sheets(path: str | None) -> Mapping[str, Sheet] | None:
    if path is None:
        return None
    try:
        data = read_limited(path)
    except OSError as error:
        raise _usage_error(f"--sheets {path}: {error.strerror}") from None
    sheets = read_sheets(data)
    if isinstance(sheets, list):
        details = "; ".join(
            f"{problem.pointer or '/'}: {problem.code}: {problem.message}" for problem in sheets
        )
        raise _usage_error(f"--sheets {path}: {details}")
    return sheets


@main.command(epilog=VERIFY_EXAMPLES + VERIFY_EPILOG)
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
    from contextlib import ExitStack

    from ..files.outputs import atomic_output
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
    options = Options(_load_sheets(sheets_path), strict, output.format, quiet, bool(outputs))
    tally = Tally()
    progress = Progress("verifying", not quiet and output.pager_command is None)
    # The files are renamed into place once every record is read: a run that fails (or
    # holds no record) leaves them as they were.
    with _writing_output(), ExitStack() as files:
        stdout = files.enter_context(output.text())
        streams = {
            valid: files.enter_context(atomic_output(path, force)) for _, path, valid in outputs
        }
        try:
            batches = verify_sources_in_batches(
                paths, options, jobs or default_jobs(), _stdin(), progress
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
            raise _usage_error(str(error)) from None
        except WorkerLost:
            raise _run_failed(f"a worker process died after {tally.records} records") from None
        finally:
            progress.close()
        if tally.records == 0:
            raise _no_records()
        if output.format == "text" and not quiet:
            stdout.write(tally.summary() + "\n")
            by_code = tally.by_code()
            if by_code is not None:
                stdout.write(by_code + "\n")
    _say_written(output, quiet)
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
        raise _usage_error("--valid-out and --invalid-out are not written with --scheduler")
    if output.format != "text":
        raise _usage_error("--scheduler prints the problems and the summary: --format text")
    options = _cluster_options(paths, sheets_path)
    with _on_cluster() as cluster:
        run = cluster.verify_on_cluster(
            list(paths), scheduler, strict=strict, quiet=quiet, **options
        )
    if run.records == 0:
        raise _no_records()
    tally = Tally(run.records, run.valid, run.warnings, run.failed, dict(run.codes))
    with _writing_output(), output.text() as stream:
        for line in run.problem_lines():
            stream.write(line + "\n")
        if not quiet:
            stream.write(tally.summary() + "\n")
            by_code = tally.by_code()
            if by_code is not None:
                stream.write(by_code + "\n")
    _say_written(output, quiet)
    _cluster_exit(run)


def _check_record_outputs(
    paths: tuple[str, ...], outputs: list[tuple[str, str]], force: bool, report: str | None
) -> None:
    """Refuse, before any work, ``--valid-out``/``--invalid-out`` files that are not
    JSON Lines, that are one file (or the ``-o`` report's), that are an input or lie in
    an input folder (where the next run over it would read them as records), or that
    cannot be written; and an ``-o`` report that is an input."""
    import os
    from pathlib import Path

    from ..files.outputs import check_writable, is_standard_output

    if report is not None and not is_standard_output(report):
        for option, path in outputs:
            if os.path.realpath(path) == os.path.realpath(report):
                raise _usage_error(f"{option} and -o are the same file: {path}")
        for given in paths:
            if given != "-" and os.path.realpath(given) == os.path.realpath(report):
                raise _usage_error(f"-o {report}: it is an input; write it elsewhere")

    for option, path in outputs:
        if Path(path).suffix.lower() not in (".jsonl", ".ndjson"):
            raise _usage_error(
                f"{option} {path}: the records are written as JSON Lines; "
                "give a .jsonl or .ndjson file"
            )
    if len(outputs) == 2 and os.path.realpath(outputs[0][1]) == os.path.realpath(outputs[1][1]):
        raise _usage_error(f"--valid-out and --invalid-out are the same file: {outputs[0][1]}")
    for option, path in outputs:
        target = os.path.realpath(path)
        for given in paths:
            if given == "-":
                continue
            source = os.path.realpath(given)
            if target == source:
                raise _usage_error(f"{option} {path}: it is an input; write it elsewhere")
            if os.path.isdir(source) and target.startswith(source.rstrip(os.sep) + os.sep):
                raise _usage_error(
                    f"{option} {path}: it is inside the input folder {given}, where it "
                    "would be read as records; write it elsewhere"
                )
    with _writing_output():
        for _, path in outputs:
            check_writable(path, force)


def _reports(
    paths: tuple[str, ...], sheets: Mapping[str, Sheet] | None, strict: bool = False
) -> Iterator[RecordReport]:
    """The report on every record of the paths; a usage error (exit 2) for a path that
    does not exist or paths that hold no records."""
    from ..checking.verdict import verify_paths

    records = 0
    try:
        for report in verify_paths(paths, sheets, strict, _stdin()):
            records += 1
            yield report
    except SourceError as error:
        raise _usage_error(str(error)) from None
    if records == 0:
        raise _no_records()


_SCHEMAS: Final = {
    "record": RECORD_SCHEMA,
    "sheet": SHEETS_SCHEMA,
    "sheets": SHEETS_SCHEMA,
    "manifest": MANIFEST_SCHEMA,
}


@main.command(epilog=SCHEMA_EXAMPLES + SCHEMA_EPILOG)
@click.argument("which", type=click.Choice(list(_SCHEMAS)), default="record")
@output_options(["json"], "json: the JSON Schema document.")
def schema(which: str, output: Destination, force: bool) -> None:
    """Print the JSON Schema of a game record, of a sheets file (--sheets) or of a
    tournament manifest (--manifest). WHICH is record (the default), sheet or manifest."""
    with _writing_output(), output.text() as stream:
        stream.write(schema_text(_SCHEMAS[which]))
    _say_written(output, False)


@main.command(epilog=ANNOTATE_EXAMPLES + ANNOTATE_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@output_options(
    ["table", "json", "csv"],
    "table: for people; json: JSON Lines, one object per trick; csv: one row per trick.",
)
@click.option(
    "--explain/--no-explain",
    default=None,
    help="Add a sentence per trick on who won and why (default: on for table, off otherwise).",
)
@analysis_options(
    from_file="Add each trick's analysed decisions (cost and label) from FILE, as analyse "
    "--format json writes it (matched by game id).",
    analyse="Add each trick's analysed decisions, analysing each game as analyse does.",
    unsolved="has no cost",
)
@colour_option
@sheets_option
@selection_options
@max_record_size_option
def annotate(
    paths: tuple[str, ...],
    output: Destination,
    force: bool,
    explain: bool | None,
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    colour: ColourChoice,
    sheets_path: str | None,
) -> None:
    """Annotate every completed trick of the records, in play order.

    Each trick: the two cards, the winner and why (higher number, super trump, trump or
    lead suit), whether it followed the sheet, the swaps, the super trump, the notes before
    and after. An illegal record is annotated up to its first problem, which is then
    printed (on standard error for json and csv); the exit code is then 1. With
    --analysis FILE or --analyse, each trick also lists its analysed decisions (the
    json key and csv column "analysis", the table's "mistakes").
    """
    from ..views.terminal import detect_style

    analysed = analysis_path is not None or analyse_games
    sheets = _load_sheets(sheets_path)
    reviews = _page_reviews(analysis_path, analyse_games, time_limit, sheets)
    output_format = output.format
    explain = output_format == "table" if explain is None else explain
    style = detect_style(colour, output.to_standard_output)
    with _writing_output(), output.text() as stdout:
        all_valid, failed = _annotate_to(
            stdout, paths, sheets, output_format, explain, analysed, reviews, style
        )
    _say_written(output, False)
    if failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if all_valid else EXIT_INVALID)


def _annotate_to(
    stdout: IO[str],
    paths: tuple[str, ...],
    sheets: Mapping[str, Sheet] | None,
    output_format: str,
    explain: bool,
    analysed: bool,
    reviews: Callable[[RecordReport], Reviews | None],
    style: Style,
) -> tuple[bool, bool]:
    """Write the annotations of the records to ``stdout``: whether all were valid, and
    whether the checker failed on one."""
    import csv

    from ..analysis.coach import trick_mistakes, trick_reviews
    from ..views.annotate import ANNOTATION_FIELDS, TABLE_SYMBOLS, annotate, table_lines

    writer: csv.DictWriter[str] | None = None
    fast_csv: TrickCsv | None = None
    if output_format == "csv" and not explain and not analysed:
        from ..tabular.tables import TrickCsv

        # The same columns as the tricks table, decoded by polars a batch at a time.
        fast_csv = TrickCsv(stdout)
    elif output_format == "csv":
        fields = [*ANNOTATION_FIELDS, *(["explanation"] if explain else [])]
        fields += ["analysis"] if analysed else []
        writer = csv.DictWriter(stdout, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
    all_valid = True
    failed = False
    first = True
    for report in _reports(paths, sheets):
        all_valid &= report.valid
        failed |= report.failed
        if fast_csv is not None:
            fast_csv.add(report)
            for line in report_lines(report):
                sys.stderr.write(line + "\n")
            continue
        annotations = (
            [] if report.log is None else list(annotate(report.log, report.game_id, explain))
        )
        marks = trick_reviews(reviews(report) or {}) if analysed else None
        if output_format == "table":
            if not first:
                stdout.write("\n")
            first = False
            for line in style.fit(_record_title(report)):
                stdout.write(style.paint(line, bold=True) + "\n")
            if report.log is not None:
                mistakes = None
                if marks is not None:
                    mistakes = {
                        trick: printable(trick_mistakes(found)) for trick, found in marks.items()
                    }
                for line in table_lines(annotations, report.log, style, explain, mistakes):
                    stdout.write(line + "\n")
        for annotation in annotations:
            trick = (annotation.round, annotation.trick)
            if writer is not None:
                row = annotation.to_csv_row(explain)
                if marks is not None:
                    row["analysis"] = trick_mistakes(marks.get(trick, []))
                writer.writerow(row)
            elif output_format == "json":
                data = annotation.to_json(explain)
                if marks is not None:
                    data["analysis"] = marks.get(trick, [])
                stdout.write(orjson.dumps(data).decode() + "\n")
        problem_stream = stdout if output_format == "table" else sys.stderr
        for line in report_lines(report):
            problem_stream.write(line + "\n")
        if output_format == "table" and report.valid:
            stdout.write(style.fitted(verdict_line(report)))
    if fast_csv is not None:
        fast_csv.flush()
    if output_format == "table" and not first:
        legend = style.legend([*TABLE_SYMBOLS, *(ANALYSIS_SYMBOLS if analysed else ())])
        stdout.write("\n" + style.fitted(legend))
    return all_valid, failed


def _record_title(report: RecordReport) -> str:
    """The record's name, players, sheet and rules, as a terminal may print it."""
    title = record_name(report)
    record = report.record
    if isinstance(record, dict) and report.log is not None:
        title = game_heading(title, record["players"], report.log.sheet.name)
        rules = [name for name in ("beginner", "balance") if getattr(report.log.rules, name)]
        if rules:
            title += f", {' and '.join(rules)} rule{'s' if len(rules) > 1 else ''}"
    return printable(title)


@main.command(epilog=SHOW_EXAMPLES + SHOW_EPILOG)
@click.argument("path", type=PATHS)
@click.option(
    "--at",
    "at_text",
    metavar="ROUND.TRICK",
    help="The moment to show: after that trick (ROUND.0: the round's start). Default: the end.",
)
@click.option("--index", default=0, show_default=True, help="Which record of the file (from 0).")
@output_options(
    ["text", "svg", "html"],
    "text: the sheet at the moment for a terminal; svg: a picture of the game; html: the "
    "replay page.",
    force_help="Overwrite the output file (-o, --svg or --html) if it exists.",
    checked=False,
)
@click.option(
    "--svg",
    "svg_path",
    metavar="OUT.svg",
    type=PATHS,
    help="Write an SVG picture: -o OUT.svg --format svg.",
)
@click.option(
    "--html",
    "html_path",
    metavar="OUT.html|DIR",
    type=PATHS,
    help="Write the replay page, to step through the game in a browser: -o OUT.html "
    "--format html. A DIR (a folder, or a name not ending in .html): a page per record of "
    "PATH and an index.html.",
)
@analysis_options(
    from_file="Mark the mistakes read from FILE (as analyse --format json writes it): in the "
    "terminal, each trick's costly decisions with label and cost; with --html, each "
    "decision's cost, label and best choice.",
    analyse="Analyse each decision, as the analyse command does, and mark the mistakes as "
    "--analysis does.",
    unsolved="is not shown",
)
@colour_option
@sheets_option
@selection_options
@max_record_size_option
def show(
    path: str,
    at_text: str | None,
    index: int,
    output: Destination,
    svg_path: str | None,
    html_path: str | None,
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    force: bool,
    colour: ColourChoice,
    sheets_path: str | None,
) -> None:
    """Show a game's sheet at a moment, or draw the game as SVG.

    The picture: the four bars, Christine's notes above the centre line and the
    Phantom's on or below it, discs on the completed notes, the super trump, the special
    number and both hands, then the trick just played and (at the end) the result. With
    --svg (or -o FILE.svg), draw the game as an SVG picture: the result, the sheet at the
    end (or at --at, marked), the notes completed after every trick and each trick's
    winner; an illegal record's picture marks where it stops.

    An illegal record is shown as far as its replay got (the empty sheet when it stops
    before round 1), and drawn so with --svg; its problems are printed (exit 1).

    With --html, write the replay page: one self-contained HTML file (no network, no
    server) that steps through every position, from each round's start, card by card,
    swap by swap, trick by trick, with the sheet, both hands (or one side's view), the
    trick, the explanation and the notes curve; an illegal record up to its problem.
    --at ROUND.TRICK is the position it opens at; the address #ROUND.TRICK (as #2.4) opens
    another. With --html DIR, every record of PATH gets a page, and DIR/index.html lists
    them with their verdict, winner and notes. With --analysis FILE or --analyse, each
    decision's cost in notes, its label (?!, ?, ??) and the best choice are shown too.

    With --analysis FILE or --analyse in the terminal, the mistakes up to the moment
    shown follow the sheet: each trick's costly decisions with their label and cost, as
    annotate --analysis marks them.
    """
    from ..files.outputs import check_writable
    from ..views.picture import parse_moment
    from ..views.terminal import detect_style
    from .destination import Destination, DestinationError, extension_format

    at = None
    if at_text is not None:
        try:
            at = parse_moment(at_text)
        except ValueError as error:
            raise _usage_error(f"--at {error}") from None
    if svg_path is not None and html_path is not None:
        raise _usage_error("--svg and --html: give one of them")
    for flag, given, kind in (("--svg", svg_path, "svg"), ("--html", html_path, "html")):
        if given is None:
            continue
        if output.path is not None or output.format != "text":
            raise _usage_error(
                f"{flag} FILE is short for -o FILE --format {kind}: give one or the other"
            )
        try:
            extension_format(given, [kind])
        except DestinationError as error:
            raise _usage_error(f"{flag} {error}") from None
        output = Destination(kind, given, force)
    svg_path = (output.path or "-") if output.format == "svg" else None
    html_path = (output.path or "-") if output.format == "html" else None
    if svg_path is not None and (analysis_path is not None or analyse_games):
        raise _usage_error(
            "--analysis and --analyse mark the terminal picture or --html, not --svg"
        )
    if html_path is not None:
        sheets = _load_sheets(sheets_path)
        reviews = _page_reviews(analysis_path, analyse_games, time_limit, sheets)
        _show_html(path, html_path, at, index, force, sheets, reviews)
    with _writing_output():
        check_writable(output.path or "-", force, standard_output=True)
    sheets = _load_sheets(sheets_path)
    reports = list(_reports((path,), sheets))
    if not 0 <= index < len(reports):
        raise _usage_error(f"--index {index}: {path} holds {len(reports)} record(s)")
    report = reports[index]
    style = detect_style(colour, output.to_standard_output)
    if svg_path is not None and report.log is None:
        click.echo(
            printable(
                f"phantom-log: {output.name} not written: the record cannot be replayed "
                "(its problems follow)"
            ),
            err=True,
        )
        output = Destination("text")
    with _writing_output(), output.text() as stdout:
        _show_to(
            stdout,
            report,
            output,
            at,
            at_text,
            style,
            analysis_path,
            analyse_games,
            time_limit,
            sheets,
        )
    _say_written(output, False)
    if report.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if report.valid else EXIT_INVALID)


def _show_to(
    stdout: IO[str],
    report: RecordReport,
    output: Destination,
    at: tuple[int, int] | None,
    at_text: str | None,
    style: Style,
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    sheets: Mapping[str, Sheet] | None,
) -> None:
    """Write what ``show`` shows of one record (the picture at a moment, or the SVG) to
    ``stdout``, and the record's problems after it."""
    from ..views.picture import (
        SHEET_SYMBOLS,
        Moment,
        MomentError,
        before_play_lines,
        game_svg,
        moment,
        moment_lines,
        story_lines,
    )

    svg = output.format == "svg"
    if report.log is None:
        pass
    elif svg:
        try:
            picture = game_svg(report.log, _record_title(report), report.problems, at)
        except MomentError as error:
            # The SVG draws a moment the replay reached, or refuses.
            raise _usage_error(f"--at {at_text}: {error}") from None
        stdout.write(picture)
    else:
        shown: Moment | None = None
        missed = ""
        try:
            shown = moment(report.log, at)
        except MomentError as error:
            if report.valid:  # a moment the record does not reach
                raise _usage_error(f"--at {at_text}: {error}") from None
            # An illegal record: shown where its replay stopped, its problems below.
            if at is not None:
                missed = f"--at {at_text}: {error}; shown where the replay stops"
            if report.log.rounds:
                shown = moment(report.log)
        for line in style.fit(_record_title(report)):
            stdout.write(style.paint(line, bold=True) + "\n")
        if missed:
            stdout.write(style.fitted(missed))
        lines = (
            before_play_lines(report.log, style)
            if shown is None
            else moment_lines(report.log, shown, style)
        )
        story = [] if shown is None else story_lines(report.log, shown, style.text_width(88))
        if story:
            lines += ["", *(printable(line) for line in story)]
        analysed = analysis_path is not None or analyse_games
        if analysed:
            from ..analysis.coach import mistake_lines, trick_reviews

            reviews = _page_reviews(analysis_path, analyse_games, time_limit, sheets)
            marks = trick_reviews(reviews(report) or {})
            until = None if shown is None else (shown.round, shown.trick)
            lines += ["", *(printable(line) for line in mistake_lines(marks, until))]
        if shown is not None:
            symbols = [*SHEET_SYMBOLS, *(ANALYSIS_SYMBOLS if analysed else ())]
            lines += ["", *style.fit(style.legend(symbols))]
        for line in lines:
            stdout.write(style.fitted(line))
    # The problems follow the picture; an SVG's go beside it (on standard error when the
    # SVG itself is written there).
    problems = stdout
    if svg:
        problems = sys.stderr if output.to_standard_output else sys.stdout
    for line in report_lines(report):
        problems.write(line + "\n")


def _html_folder(html_path: str) -> bool:
    """Whether ``--html`` names a folder of pages (a folder, or a name not ending in
    ``.html``/``.htm``) rather than one page (or standard output)."""
    import os

    from ..files.outputs import is_standard_output

    if is_standard_output(html_path):
        return False
    return os.path.isdir(html_path) or not html_path.lower().endswith((".html", ".htm"))


def _page_reviews(
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    sheets: Mapping[str, Sheet] | None,
) -> Callable[[RecordReport], Reviews | None]:
    """How a record's decisions are reviewed on its page: read from an analysis file, by
    the analysis, or not at all."""
    from ..analysis.coach import reviews_of
    from ..views.replay_page import AnalysisRowError, reviews_from_rows

    if analysis_path is not None:
        rows = _analysis_rows(analysis_path)

        def read(report: RecordReport) -> Reviews | None:
            try:
                return reviews_from_rows(rows, report.game_id)
            except AnalysisRowError as error:
                raise _usage_error(f"--analysis {analysis_path}: {error}") from None

        return read
    if analyse_games:

        def analysed(report: RecordReport) -> Reviews | None:
            from ..analysis.decisions import analyse

            if report.log is None or not isinstance(report.record, dict):
                return None
            return reviews_of(analyse(report.record, sheets, time_limit=time_limit))

        return analysed
    return lambda report: None


@functools.cache
def _analysis_rows(analysis_path: str) -> list[dict[str, Any]]:
    """The rows of an analysis file (JSON Lines, as analyse --format json writes it), read
    once in a run (it may be standard input)."""
    try:
        data = read_limited(analysis_path)
    except OSError as error:
        raise _usage_error(f"--analysis {analysis_path}: {error.strerror or error}") from None
    rows = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            row = None
        if not isinstance(row, dict):
            raise _usage_error(
                f"--analysis {analysis_path}: line {number} is not a JSON object "
                "(give the JSON Lines of analyse --format json)"
            )
        rows.append(row)
    return rows


def _show_html(
    path: str,
    html_path: str,
    at: tuple[int, int] | None,
    index: int,
    force: bool,
    sheets: Mapping[str, Sheet] | None,
    reviews: Callable[[RecordReport], Reviews | None],
) -> None:
    """``show --html``: write the replay page of one record, or a folder of them; exits."""
    from ..files.outputs import check_writable, is_standard_output, write_atomically
    from ..views.replay_page import UnknownPosition, checked_replay_page

    if _html_folder(html_path):
        context = click.get_current_context()
        for name, option in (("index", "--index"), ("at_text", "--at")):
            if context.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
                raise _usage_error(
                    f"{option} applies to one page; --html {html_path} writes a page for "
                    "every record (give a name ending in .html for one page)"
                )
        _show_html_folder(path, html_path, force, sheets, reviews)
    to_stdout = is_standard_output(html_path)
    with _writing_output():
        check_writable(html_path, force, standard_output=True)
    reports = list(_reports((path,), sheets))
    if not 0 <= index < len(reports):
        raise _usage_error(f"--index {index}: {path} holds {len(reports)} record(s)")
    report = reports[index]
    start = None if at is None else f"{at[0]}.{at[1]}"
    reviewed = reviews(report)
    try:
        page, report = checked_replay_page(report, start, reviewed)
    except UnknownPosition:
        if report.valid:
            raise _usage_error(f"--at {start}: the record does not reach that moment") from None
        # An illegal record opens where its replay stopped, as show does without --html.
        page, report = checked_replay_page(report, "problem", reviewed)
    with _writing_output():
        write_atomically(html_path, page, force, standard_output=True)
    messages = sys.stderr if to_stdout else sys.stdout
    if not to_stdout:
        click.echo(printable(f"wrote {html_path}"), err=True)
    for line in report_lines(report):
        messages.write(line + "\n")
    if report.failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if report.valid else EXIT_INVALID)


def _show_html_folder(
    path: str,
    folder_path: str,
    force: bool,
    sheets: Mapping[str, Sheet] | None,
    reviews: Callable[[RecordReport], Reviews | None],
) -> None:
    """``show --html DIR``: a replay page per record of ``path`` and an ``index.html``
    listing them; every file is checked before the first is written; exits."""
    import os

    from ..files.outputs import check_writable, write_atomically
    from ..views.replay_page import checked_replay_page, index_entry, index_page, page_file_name

    folder = os.path.normpath(folder_path)
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise _usage_error(f"--html {folder_path}: not a folder (give a name ending in .html)")
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise _usage_error(f"--html {folder_path}: the folder {parent} does not exist")
    reports = list(_reports((path,), sheets))
    names = [page_file_name(number, report.game_id) for number, report in enumerate(reports, 1)]
    targets = [os.path.join(folder, name) for name in [*names, "index.html"]]
    with _writing_output():
        if os.path.isdir(folder):
            for target in targets:
                check_writable(target, force)
        else:
            try:
                os.mkdir(folder)
            except OSError as error:
                raise _run_failed_write(folder_path, error) from None
        entries = []
        for number, name in enumerate(names):
            page, reports[number] = checked_replay_page(
                reports[number], reviews=reviews(reports[number])
            )
            write_atomically(os.path.join(folder, name), page, force)
            entries.append(index_entry(reports[number], name))
        index = index_page(f"Replay pages of {path}", entries)
        write_atomically(os.path.join(folder, "index.html"), index, force)
    stdout = sys.stdout
    for report in reports:
        for line in report_lines(report):
            stdout.write(line + "\n")
    pages = f"{len(reports)} page{'s' if len(reports) != 1 else ''}"
    click.echo(printable(f"wrote {pages} and {os.path.join(folder, 'index.html')}"), err=True)
    if any(report.failed for report in reports):
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if all(report.valid for report in reports) else EXIT_INVALID)


def _run_failed_write(name: str, error: OSError) -> click.exceptions.Exit:
    """A folder that could not be made: said in one line, exit 3."""
    click.echo(
        printable(f"phantom-log: error: cannot make the folder {name}: {error.strerror}"), err=True
    )
    return click.exceptions.Exit(EXIT_FAILED)


@main.command(epilog=SIMULATE_EXAMPLES + SIMULATE_EPILOG)
@click.option("-n", "--count", type=click.IntRange(min=1), required=True, help="How many games.")
@click.option("--seed", type=int, default=0, show_default=True, help="The random seed.")
@click.option("--sheet", "sheet_name", default="rulebook", show_default=True, help="Sheet name.")
@sheets_option
@click.option("--beginner", is_flag=True, help="Play under the beginner rule.")
@click.option("--balance", is_flag=True, help="Play under the balance rule.")
@policy_option("--phantom", "phantom")
@policy_option("--christine", "christine")
@output_options(
    ["jsonl", "json"],
    "jsonl: JSON Lines, a game per line; json: one JSON array of the games (what a .json "
    "file of records holds).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def simulate(
    count: int,
    seed: int,
    sheet_name: str,
    sheets_path: str | None,
    beginner: bool,
    balance: bool,
    phantom_policy: str,
    christine_policy: str,
    output: Destination,
    force: bool,
    quiet: bool,
) -> None:
    """Simulate complete, legal games, written as JSON Lines.

    The same seed and options give byte-identical output. Policies: random (uniform among
    the legal cards) and greedy (plays each trick to win or lose it as the next note
    requires, gives away its weakest cards). The games are for testing and study, not
    real play records.
    """
    from ..analysis.simulator import Simulation, simulate_game
    from ..rules.engine import Rules
    from ..rules.sheets import BUILTIN_SHEETS

    sheets = _load_sheets(sheets_path) or BUILTIN_SHEETS
    sheet = sheets.get(sheet_name)
    if sheet is None:
        raise _usage_error(
            f"--sheet {sheet_name}: not a known sheet (known: {', '.join(sorted(sheets))})"
        )
    simulation = Simulation(
        sheet,
        Rules(beginner, balance),
        phantom_policy,
        christine_policy,
        seed,
        sheet_is_builtin=sheet_name in BUILTIN_SHEETS,
    )

    def write_games(stream: IO[bytes]) -> None:
        numbers = range(1, count + 1)
        show = not quiet and sys.stderr.isatty()
        with click.progressbar(
            numbers, label="simulating", file=sys.stderr if show else io.StringIO()
        ) as progress:
            array = output.format == "json"
            for number in progress:
                game = orjson.dumps(simulate_game(simulation, number))
                if array:
                    game = (b"[\n" if number == 1 else b",\n") + game
                stream.write(game if array else game + b"\n")
            if array:
                stream.write(b"\n]\n")

    with _writing_output(), output.binary() as stream:
        write_games(stream)
    if not quiet and not output.to_standard_output:
        click.echo(
            printable(f"wrote {count} game{'s' if count != 1 else ''} to {output.path}"),
            err=True,
        )


# The formats of export's tables, and the names --format takes for them.
TABLE_FORMATS: Final = ["csv", "jsonl", "parquet"]
_TABLE_FORMAT_NAMES: Final = {"csv": "csv", "jsonl": "jsonl", "json": "jsonl", "parquet": "parquet"}


def _build_tables(
    paths: tuple[str, ...],
    sheets: Mapping[str, Sheet] | None,
    folder: str,
    include_invalid: bool,
    quiet: bool,
    jobs: int | None,
) -> TableFiles:
    from pathlib import Path

    from ..running.pipeline import default_jobs, source_tables
    from ..tabular.tables import build_tables
    from ..views.terminal import Progress

    progress = Progress("reading", not quiet)
    chunks = source_tables(
        paths, sheets, include_invalid, jobs or default_jobs(), _stdin(), progress, Path(folder)
    )
    try:
        files = build_tables(chunks, Path(folder), include_invalid, on_record=progress.update)
    except SourceError as error:
        raise _usage_error(str(error)) from None
    finally:
        progress.close()
    if files.records == 0:
        raise _no_records()
    _tables_notes(files, quiet)
    # Once the outputs are written: the run could not do all its work (3), or a record
    # was invalid (1), as for every command that reads records.
    if files.failed:
        click.get_current_context().call_on_close(_exit_failed)
    elif files.invalid:
        click.get_current_context().call_on_close(_exit_invalid)
    return files


def _tables_notes(files: Any, quiet: bool) -> None:
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


def _exit_failed() -> None:
    sys.exit(EXIT_FAILED)


def _exit_invalid() -> None:
    sys.exit(EXIT_INVALID)


@main.command(epilog=EXPORT_EXAMPLES + EXPORT_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--games",
    "games_path",
    metavar="FILE",
    type=PATHS,
    help="Write the games table (one row per record) to FILE; - for standard output.",
)
@click.option(
    "--tricks",
    "tricks_path",
    metavar="FILE",
    type=PATHS,
    help="Write the tricks table (one row per trick) to FILE; - for standard output.",
)
@click.option(
    "--format",
    "format_name",
    type=click.Choice(list(_TABLE_FORMAT_NAMES)),
    default=None,
    help="The format of the tables: csv, jsonl (JSON Lines; json is the same) or parquet. "
    "[default: as each file's extension says; csv on standard output]",
)
@click.option("--include-invalid", is_flag=True, help="Keep invalid records (valid = false).")
@jobs_option
@scheduler_option
@click.option("--force", is_flag=True, help="Overwrite output files that exist.")
@click.option("--quiet", "-q", is_flag=True, help="No progress, no count of left-out records.")
@sheets_option
@selection_options
@max_record_size_option
def export(
    paths: tuple[str, ...],
    games_path: str | None,
    tricks_path: str | None,
    format_name: str | None,
    include_invalid: bool,
    jobs: int | None,
    scheduler: str | None,
    force: bool,
    quiet: bool,
    sheets_path: str | None,
) -> None:
    """Export the games and tricks tables of the records as CSV, Parquet or JSON Lines.

    The format of each file follows its extension (.csv, .parquet, .jsonl or .ndjson),
    or --format; one of the tables may go to standard output (-). Invalid records are
    left out, and counted on standard error, unless --include-invalid. An existing file
    is never overwritten without --force; each file is written to a temporary file first
    and then renamed.
    """
    import os
    from contextlib import ExitStack

    from ..files.outputs import atomic_path, work_folder
    from .destination import Destination, DestinationError, resolve_destination

    if games_path is None and tricks_path is None:
        raise _usage_error("export: give --games FILE, --tricks FILE, or both")
    if scheduler is not None:
        if format_name not in (None, "parquet"):
            raise _usage_error("--scheduler writes Parquet datasets (folders of .parquet files)")
        for path, option in ((games_path, "--games"), (tricks_path, "--tricks")):
            suffix = os.path.splitext(path or "")[1].lower()
            if path == "-" or suffix in (".csv", ".jsonl", ".ndjson", ".json"):
                raise _usage_error(
                    f"{option} {path}: --scheduler writes Parquet datasets (folders of "
                    ".parquet files), not standard output, CSV or JSON Lines"
                )
        options = _cluster_options(paths, sheets_path)
        with _on_cluster() as cluster:
            run = cluster.export_on_cluster(
                list(paths),
                games_path,
                tricks_path,
                scheduler,
                include_invalid=include_invalid,
                force=force,
                quiet=quiet,
                **options,
            )
        _tables_notes(run, quiet)
        if run.failed:
            for line in run.problem_lines():
                click.echo(line, err=True)
        for path in (games_path, tricks_path):
            if path is not None and not quiet:
                click.echo(printable(f"wrote {path}"), err=True)
        _cluster_exit(run)
    if games_path == tricks_path == "-":
        raise _usage_error("--games - and --tricks -: standard output takes one table")
    outputs: list[tuple[Destination, str]] = []
    for path, option in ((games_path, "--games"), (tricks_path, "--tricks")):
        if path is None:
            continue
        try:
            table = resolve_destination(TABLE_FORMATS, format_name, path, force, "", option)
        except DestinationError as error:
            raise _usage_error(str(error)) from None
        if not table.format:
            if not table.to_standard_output:
                raise _usage_error(
                    f"{option} {path}: name the format with --format, or by the extension: "
                    ".csv, .parquet, .jsonl or .ndjson"
                )
            table = Destination("csv", path, force)
        outputs.append((table, option))
    if games_path and tricks_path and os.path.realpath(games_path) == os.path.realpath(tricks_path):
        raise _usage_error(f"--games and --tricks are the same file: {games_path}")
    _refuse_inputs_as_outputs(
        _inputs({"paths": paths, "sheets_path": sheets_path}),
        [("--games", games_path), ("--tricks", tricks_path)],
    )
    with _writing_output():
        for table, _ in outputs:
            table.check()
    sheets = _load_sheets(sheets_path)
    with _writing_output(), work_folder() as folder:
        files = _build_tables(paths, sheets, str(folder), include_invalid, quiet, jobs)
        # Both files are renamed into place only once both are written: a failure leaves
        # neither.
        with ExitStack() as renames:
            for table, option in outputs:
                frame = files.scan_games() if option == "--games" else files.scan_tricks()
                frame = frame.drop("game_key")
                temporary = renames.enter_context(
                    atomic_path(table.path or "-", force, standard_output=True)
                )
                if table.format == "csv":
                    from ..tabular.tables import swaps_as_text

                    if option == "--tricks":
                        frame = swaps_as_text(frame)
                    frame.sink_csv(temporary)
                elif table.format == "parquet":
                    frame.sink_parquet(temporary)
                else:
                    frame.sink_ndjson(temporary)
    for table, _ in outputs:
        _say_written(table, quiet)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return printable(str(value))


def _frame_lines(frame: pl.DataFrame, keys: list[str], width: int | None = None) -> list[str]:
    """A table of statistics for people, fitted to the terminal's ``width``."""
    from ..views.terminal import table

    rows = frame.rows()
    # Few groups and many figures read best as one column per group; a curve (a row per
    # trick) or many groups as rows.
    grouped = len(rows) <= 6 if keys else len(rows) == 1
    if not grouped or not rows:
        lines = table(frame.columns, [[_cell(value) for value in row] for row in rows], width)
    else:
        # Few groups and many figures: one column per group reads best.
        headers = [
            "",
            *(" / ".join(_cell(row[i]) for i in range(len(keys))) or "all" for row in rows),
        ]
        body = [
            [name, *(_cell(row[index]) for row in rows)]
            for index, name in enumerate(frame.columns)
            if name not in keys
        ]
        lines = table(headers, body, width)
    return lines


@main.command(epilog=STATS_EXAMPLES + STATS_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--by",
    "groupings",
    multiple=True,
    type=click.Choice(["sheet", "rules", "event", "stage", "special_number", "player"]),
    help="Group by a field (repeatable). special_number: each round's number; player: "
    "each player of each game.",
)
@output_options(
    ["table", "csv", "json"],
    "table: for people; csv; json: JSON Lines, one object per row.",
    force_help="Overwrite the -o file (and the --plot file) if it exists.",
)
@click.option("--curve", is_flag=True, help="The progress curve: per trick 1-20 of the game.")
@click.option(
    "--plot",
    "plot_path",
    metavar="FILE.svg|FILE.png",
    type=PATHS,
    help="Draw the progress curve (with matplotlib: pip install 'phantom-log[plot]').",
)
@jobs_option
@scheduler_option
@click.option(
    "--work-url",
    metavar="URL",
    default=None,
    help="With --scheduler on a remote cluster: a folder (URL) that the workers and this "
    "machine can reach, for the tables the figures are computed from.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress, no count of left-out records.")
@sheets_option
@selection_options
@max_record_size_option
def stats(
    paths: tuple[str, ...],
    groupings: tuple[str, ...],
    output: Destination,
    force: bool,
    curve: bool,
    plot_path: str | None,
    jobs: int | None,
    scheduler: str | None,
    work_url: str | None,
    quiet: bool,
    sheets_path: str | None,
) -> None:
    """Statistics over the valid records: one row per group (one in all without --by).

    Each row: games, phantom_wins, christine_wins, unfinished, the Phantom's win rate
    over finished games with its 95% Wilson interval, the mean notes, notes after round
    1 and tricks, the share of tricks won by each reason, special tricks per game and
    their mean net effect on the notes. --curve gives, per trick of the game, the mean
    notes completed and the share of games still running; --plot draws it.
    """
    import os
    from contextlib import ExitStack

    from ..files.outputs import atomic_path, check_writable, work_folder
    from ..tabular.stats import progress_curve, summary
    from ..views.terminal import terminal_width

    keys = list(dict.fromkeys(groupings))
    if plot_path is not None and not plot_path.lower().endswith((".svg", ".png")):
        raise _usage_error(f"--plot {plot_path}: give a .svg or .png file")
    if plot_path is not None and not _plotting_installed():
        raise _usage_error(
            "--plot draws with matplotlib, which is not installed: pip install 'phantom-log[plot]'"
        )
    if plot_path is not None and output.path is not None:
        from ..files.outputs import is_standard_output

        if not is_standard_output(output.path) and os.path.realpath(plot_path) == os.path.realpath(
            output.path
        ):
            raise _usage_error(f"--plot and -o are the same file: {plot_path}")
    _refuse_inputs_as_outputs(
        _inputs({"paths": paths, "sheets_path": sheets_path}), [("--plot", plot_path)]
    )
    with _writing_output():
        if plot_path is not None:
            check_writable(plot_path, force)
    if scheduler is not None:
        options = _cluster_options(paths, sheets_path)
        with _on_cluster() as cluster:
            frame, run = cluster.stats_on_cluster(
                list(paths),
                scheduler,
                by=keys,
                curve=curve or plot_path is not None,
                quiet=quiet,
                work_url=work_url,
                **options,
            )
        if run.records == 0:
            raise _no_records()
        _tables_notes(run, quiet)
        if run.failed:
            click.get_current_context().call_on_close(_exit_failed)
        elif run.invalid:
            click.get_current_context().call_on_close(_exit_invalid)
    else:
        if work_url is not None:
            raise _usage_error("--work-url takes --scheduler")
        sheets = _load_sheets(sheets_path)
        with _writing_output(), work_folder() as folder:
            files = _build_tables(paths, sheets, str(folder), False, quiet, jobs)
            frame = progress_curve(files, keys) if curve or plot_path else summary(files, keys)
    shown = plot_path is None or curve  # --plot alone draws the curve, and no more
    written = []
    # The files are renamed into place only once all are written: a failure leaves none.
    with _writing_output(), ExitStack() as renames:
        if plot_path is not None:
            from ..tabular.plot import plot_curve

            temporary = renames.enter_context(atomic_path(plot_path, force))
            plot_curve(frame, keys, temporary, plot_path.lower().endswith(".png"))
            written.append(plot_path)
        if shown:
            stream = renames.enter_context(output.text())
            if output.format == "table":
                width = terminal_width() if output.to_terminal else None
                for line in _frame_lines(frame, keys, width):
                    stream.write(line + "\n")
            elif output.format == "csv":
                stream.write(frame.write_csv())
            else:
                stream.write(frame.write_ndjson())
            if not output.to_standard_output:
                written.append(str(output.path))
    if not quiet:
        for path in written:
            click.echo(printable(f"wrote {path}"), err=True)


def _plotting_installed() -> bool:
    """Whether matplotlib (the ``plot`` extra) can be imported; it is not imported here."""
    import importlib.util

    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        return False


@main.command(epilog=ANALYSE_EXAMPLES + ANALYSE_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--from",
    "from_text",
    metavar="ROUND.TRICK",
    help="Analyse from that trick on (ROUND.0: from the round's start, its exchange). "
    "Default: the whole game.",
)
@click.option(
    "--deep",
    is_flag=True,
    help="At each swap and exchange, also the value when either side commits first (the "
    "whole matrix: slow).",
)
@click.option(
    "--hidden",
    is_flag=True,
    help="Judge each decision by what its player could see: the mean over layouts of the "
    "cards they could not see.",
)
@click.option(
    "--worlds",
    type=click.IntRange(min=1),
    default=None,
    help="With --hidden: layouts per decision (all of them when fewer). [default: 20]",
)
@click.option(
    "--seed", type=int, default=None, help="With --hidden: the seed of the layouts. [default: 0]"
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Seconds per game; a decision not solved by then is marked unsolved.",
)
@jobs_option
@output_options(
    ["table", "json", "csv"],
    "table: a coach's line per decision and a summary per player; json: JSON Lines, one "
    "object per decision; csv: one row per decision.",
)
@colour_option
@sheets_option
@selection_options
@max_record_size_option
def analyse(
    paths: tuple[str, ...],
    from_text: str | None,
    deep: bool,
    hidden: bool,
    worlds: int | None,
    seed: int | None,
    time_limit: float,
    jobs: int | None,
    output: Destination,
    force: bool,
    colour: ColourChoice,
    sheets_path: str | None,
) -> None:
    """Analyse every decision of the records with the solver: what each choice cost.

    Each decision (the special number, each lead and follow, each side's give at a swap;
    with --deep the exchange too) is valued with both hands known: the notes at the end
    of the round after the choice made and after the best one, the cost in notes for the
    player who chose, and a label: ?! for 1 note, ? for 2, ?? for 3 or more or a won game
    thrown away. A swap or an exchange is judged against what the opponent gave. A choice
    with no alternative is left out. An illegal record is analysed up to its first
    problem.
    """
    from ..analysis.decisions import DEFAULT_WORLDS, AnalysisOptions
    from ..running.pipeline import WorkerLost, default_jobs, ordered_map
    from ..views.picture import parse_moment
    from ..views.terminal import Progress, clear_progress, detect_style

    start = (1, 0)
    if from_text is not None:
        try:
            start = parse_moment(from_text)
        except ValueError as error:
            raise _usage_error(f"--from {error}") from None
    if not hidden and (worlds is not None or seed is not None):
        raise _usage_error("--worlds and --seed take --hidden")
    options = AnalysisOptions(
        start,
        deep,
        hidden,
        DEFAULT_WORLDS if worlds is None else worlds,
        0 if seed is None else seed,
        time_limit,
    )
    sheets = _load_sheets(sheets_path)
    style = detect_style(colour, output.to_standard_output)
    output_format = output.format
    work = functools.partial(_analyse_record, sheets=sheets, options=options)
    progress = Progress("analysing", output.pager_command is None)
    done = 0
    all_valid = True
    failed = False
    with _writing_output(), output.text() as stream:
        emit = stream.write
        problem_text = emit if output_format == "table" else sys.stderr.write
        if output_format == "csv":
            emit(_csv_text([], header=True))
        try:
            for analysed in ordered_map(work, _source_records(paths), jobs or default_jobs()):
                all_valid &= analysed.valid
                failed |= analysed.failed
                clear_progress(for_standard_output=not analysed.problems)
                if output_format == "table":
                    emit(("\n" if done else "") + _analysis_table(analysed, style))
                elif output_format == "json":
                    emit(
                        "".join(
                            orjson.dumps(row.to_json()).decode() + "\n" for row in analysed.rows
                        )
                    )
                else:
                    emit(_csv_text(analysed.rows))
                problem_text("".join(line + "\n" for line in analysed.problems))
                done += 1
                progress.update(done)
            if output_format == "table" and done:
                legend = style.legend(ANALYSIS_SYMBOLS)
                emit("\n" + style.fitted(legend))
        except WorkerLost:
            raise _run_failed(f"a worker process died after {done} records") from None
        finally:
            progress.close()
    _say_written(output, False)
    if failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_OK if all_valid else EXIT_INVALID)


def _source_records(paths: tuple[str, ...]) -> Iterator[SourceRecord]:
    """The records of the paths as read (not yet checked); a usage error (exit 2) for a
    path that does not exist or paths that hold no records."""
    from ..records.sources import find_sources, read_source

    try:
        sources = find_sources(paths)
    except SourceError as error:
        raise _usage_error(str(error)) from None
    records = 0
    for source in sources:
        for record in read_source(source, _stdin()):
            records += 1
            yield record
    if records == 0:
        raise _no_records()


@dataclass(frozen=True)
class _Analysed:
    """One record analysed (in a worker): what the output needs of it."""

    title: str
    rows: list[Decision]
    problems: list[str]
    verdict: str | None
    valid: bool
    failed: bool
    stopped: bool
    players: dict[Role, str]


@functools.cache
def _process_solver() -> Solver:
    """One solver a process, its table reused game after game (emptied before each)."""
    from ..analysis.solver import Solver

    return Solver()


def _analyse_record(
    record: SourceRecord, sheets: Mapping[str, Sheet] | None, options: AnalysisOptions
) -> _Analysed:
    """Check and analyse one record; a failure of the analysis is the record's
    internal-error problem, not the run's."""
    from ..analysis.decisions import analyse_replay, record_decisions
    from ..checking.verdict import internal_error, verify_record
    from ..rules.cards import Role

    report = verify_record(record, sheets)
    rows: list[Decision] = []
    if report.log is not None and not report.failed:
        try:
            replayed = record_decisions(report.record, sheets)
            rows = analyse_replay(replayed, report.game_id, options, _process_solver())
        except Exception as error:  # a bug of the analysis: this record's problem
            report = replace(report, problems=(*report.problems, internal_error(error)))
    players: dict[Role, str] = {}
    if isinstance(report.record, dict) and isinstance(report.record.get("players"), dict):
        names = report.record["players"]
        players = {role: printable(str(names.get(role.key, ""))) for role in Role}
    return _Analysed(
        _record_title(report),
        rows,
        report_lines(report),
        verdict_line(report) if report.valid and report.result is not None else None,
        report.valid,
        report.failed,
        report.log is not None and not report.valid,
        players,
    )


# The symbols of analyse's table, for its legend.
ANALYSIS_SYMBOLS: Final = ("inaccuracy", "mistake", "blunder")


def _analysis_table(analysed: _Analysed, style: Style) -> str:
    from ..analysis.coach import decision_line, stopped_line, summary_lines
    from ..analysis.decisions import summarise

    # The title is made printable by _record_title; a decision's line holds only what
    # the engine and the solver say (cards, numbers, roles), painted: escaping it would
    # print its colour codes as text.
    lines = [style.paint(line, bold=True) for line in style.fit(analysed.title)]
    for row in analysed.rows:
        lines += style.fit(decision_line(row, style))
    if analysed.rows:
        for line in summary_lines(summarise(analysed.rows), analysed.players):
            lines += style.fit(line)
    if analysed.stopped:
        lines += style.fit(stopped_line())
    elif analysed.verdict is not None:
        lines += style.fit(analysed.verdict)
    return "".join(line + "\n" for line in lines)


def _csv_text(rows: list[Decision], header: bool = False) -> str:
    import csv

    from ..analysis.decisions import ANALYSIS_FIELDS

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ANALYSIS_FIELDS, lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows(row.to_csv_row() for row in rows)
    return buffer.getvalue()


def entry() -> None:
    """The console script: :data:`main`, ending quietly when the reader of standard
    output goes away (``phantom-log ... | head``, exit 141), on Ctrl-C (exit 130), on
    SIGTERM or SIGHUP (exit 143 or 129) once the temporary files are removed, with one
    line and exit 3 when standard output cannot be written (a full disk) or on a failure
    of phantom-log itself."""
    from ..files.outputs import Terminated, ending_cleanly_on_signals
    from ..running.collector import tune_collector_for_a_run

    tune_collector_for_a_run()
    try:
        with ending_cleanly_on_signals():
            code = _run_main()
    except Terminated as stop:  # the signal came as the run ended
        code = _terminated(stop)
    sys.exit(_flushed(code))


def _run_main() -> int:
    """Run :data:`main`; its exit code, whatever ends it."""
    import errno

    from ..files.outputs import Terminated

    try:
        returned = main.main(prog_name="phantom-log", standalone_mode=False)
    except SystemExit as done:
        # click ends with 1 when standard output's reader went away, after wrapping stdout
        # to keep it quiet: that is no invalid record, but the end of a Unix tool's pipe.
        if type(sys.stdout).__name__.lstrip("_") == "PacifyFlushWrapper":
            return 141
        # An exit asked for while unwinding (a command's clean-up) after a signal or
        # Ctrl-C: the interruption is what ended the run.
        if isinstance(done.__context__, Terminated):
            return _terminated(done.__context__)
        if isinstance(done.__context__, KeyboardInterrupt):
            _say("phantom-log: interrupted")
            return 130
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        _say(str(done.code))
        return 1
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except Terminated as stop:
        return _terminated(stop)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _say("phantom-log: interrupted")
        return 130
    except BrokenPipeError:
        # End as a Unix tool whose reader went away (128 + SIGPIPE).
        _silence_standard_output()
        return 141
    except OSError as error:
        # What is written to a file goes through phantom_log.files.outputs, which names the file;
        # a failed write without a file name is one to standard output.
        if error.filename is None and error.errno in (
            errno.ENOSPC,
            errno.EDQUOT,
            errno.EFBIG,
            errno.EIO,
        ):
            _silence_standard_output()
            _say(f"phantom-log: error: cannot write standard output: {error.strerror}")
            return EXIT_FAILED
        return _internal_error(error)
    except Exception as error:
        return _internal_error(error)
    # with standalone_mode=False, click returns the code of an exit (a usage error).
    return returned if isinstance(returned, int) else EXIT_OK


def _internal_error(error: Exception) -> int:
    """A bug: said in one line, never a traceback, exit 3."""
    _say(
        f"phantom-log: internal error ({type(error).__name__}); the run did not finish. "
        "This is a bug: please report it with the command and its input."
    )
    return EXIT_FAILED


def _terminated(stop: BaseException) -> int:
    """The run ended by SIGTERM or SIGHUP, its temporary files removed: 128 + the
    signal's number, as a shell reports a process that a signal ended."""
    from ..files.outputs import Terminated

    assert isinstance(stop, Terminated)
    _say(f"phantom-log: terminated ({stop.signal_name})")
    return stop.exit_code


def _say(message: str) -> None:
    """A line on standard error, if it can still be written (after SIGHUP, the terminal
    may be gone)."""
    with suppress(OSError, ValueError):
        click.echo(message, err=True)


def _silence_standard_output() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what
    could not be written does not fail again."""
    import os

    if sys.stdout is None:
        return
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


SIGNAL_EXIT_CODES: Final = frozenset({129, 130, 143})
"""The exit codes of a run ended by SIGHUP, Ctrl-C or SIGTERM."""

FLUSH_AFTER_SIGNAL_SECONDS: Final = 1.0
"""How long a run ended by a signal waits for standard output's reader."""


class _FlushTimedOut(BaseException):
    """Standard output's reader took nothing within :data:`FLUSH_AFTER_SIGNAL_SECONDS`."""


def _flushed(code: int) -> int:
    """``code`` once standard output is flushed: a reader gone away is 141, standard
    output that cannot be written (a full disk) is said in one line and exit 3.

    A run ended by a signal waits for the reader at most
    :data:`FLUSH_AFTER_SIGNAL_SECONDS`, then drops what is left: a signal can cut a write
    to a full pipe in two, leaving the rest buffered, and a reader that stopped reading
    (the pipe is full) would otherwise hold the ending run for ever."""
    if sys.stdout is None:
        return code
    try:
        if code in SIGNAL_EXIT_CODES:
            _flush_within(FLUSH_AFTER_SIGNAL_SECONDS)
        else:
            sys.stdout.flush()
    except _FlushTimedOut:
        _silence_standard_output()
        return code
    except BrokenPipeError:
        _silence_standard_output()
        return code if code >= 128 else 141
    except OSError as error:
        _silence_standard_output()
        _say(f"phantom-log: error: cannot write standard output: {error.strerror}")
        return max(code, EXIT_FAILED)
    return code


def _flush_within(seconds: float) -> None:
    """Flush standard output, or raise :class:`_FlushTimedOut` after ``seconds`` (where
    the platform has interval timers; elsewhere, flush and wait)."""
    import signal

    if not hasattr(signal, "setitimer"):
        sys.stdout.flush()
        return

    def give_up(_signal_number: int, _frame: object) -> None:
        raise _FlushTimedOut

    before = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        sys.stdout.flush()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


TOURNAMENT_EPILOG: Final = (
    """\b
Exit codes:
  0  no error (warnings allowed, unless --strict)
  1  at least one error, in a record or across records
  2  a usage error: a bad option, a path that does not exist, a bad
     --manifest or --sheets file, or paths that hold no records
  3  the run could not do all its work: a source unreadable, the
     checker failed on a record (internal-error), a worker process died
     or the -o file could not be written
"""
    + _EXIT_TAIL
)


@main.group(epilog=TOURNAMENT_EXAMPLES + TOURNAMENT_EPILOG)
def tournament() -> None:
    """Check the records of a whole tournament: `tournament check`."""


def _read_manifest(path: str, option: str) -> Manifest:
    """The manifest of a file; a usage error (exit 2) naming the file for a bad one."""
    from ..tournament.checks import read_manifest

    try:
        data = read_limited(path)
    except OSError as error:
        raise _usage_error(f"{option}{path}: {error.strerror}") from None
    read = read_manifest(data, path)
    if isinstance(read, list):
        raise _usage_error(f"{option}{path}: " + "; ".join(read))
    return read


def _found_manifest(found: list[str]) -> Manifest | None:
    """The manifest found among the paths of ``tournament check`` without ``--manifest``:
    the one there is, said on standard error; ``None`` without one; a usage error when
    there are several (which one is meant cannot be guessed)."""
    if not found:
        return None
    if len(found) > 1:
        raise _usage_error(
            f"the paths hold {len(found)} tournament manifests ({', '.join(found)}): "
            "give the one to use with --manifest FILE"
        )
    click.echo(
        printable(f"phantom-log: note: using the manifest {found[0]} (found among the paths)"),
        err=True,
    )
    return _read_manifest(found[0], "the manifest ")


@tournament.command("check", epilog=TOURNAMENT_EXAMPLES + TOURNAMENT_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option(
    "--manifest",
    "manifest_path",
    metavar="FILE",
    type=PATHS,
    help="The event's players and schedule.",
)
@output_options(
    ["text", "json", "csv"],
    "text: problems, a summary and the standings; json: the report as one JSON object; "
    "csv: the standings (the problems and the summary then go to standard error).",
)
@jobs_option
@click.option(
    "--strict",
    is_flag=True,
    help="Treat every warning (unfinished, duplicate-record, duplicate-deal) as an error.",
)
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="No progress bar (and with --format csv, no report on standard error).",
)
@sheets_option
@selection_options
@max_record_size_option
def tournament_check(
    paths: tuple[str, ...],
    manifest_path: str | None,
    output: Destination,
    force: bool,
    jobs: int | None,
    strict: bool,
    quiet: bool,
    sheets_path: str | None,
) -> None:
    """Verify every record of a tournament, then check across records and standings.

    Every record is verified as by `verify`. Across records: the same game id twice
    (duplicate-game-id, error, naming every source), the same record content twice
    (duplicate-record, warning, naming where it was first seen), the same deal in two
    games (duplicate-deal, warning), one player on both sides (same-player, error).
    With --manifest: missing-game, unscheduled-game, wrong-players, wrong-stage and
    unknown-player (errors). Then the standings: per player, games, wins, losses, wins
    as the Phantom and as Christine, and notes completed as the Phantom (the tie-break).
    """
    import os

    from ..records.sources import on_manifest
    from ..running.outcomes import Options
    from ..running.pipeline import WorkerLost, default_jobs, verify_sources_in_batches
    from ..tournament.checks import (
        STANDINGS_COLUMNS,
        FactsTable,
        TournamentProblem,
        standings_dicts,
        tournament_report,
    )
    from ..views.terminal import Progress, terminal_width

    manifest: Manifest | None = None
    if manifest_path is not None:
        manifest = _read_manifest(manifest_path, "--manifest ")
    options = Options(_load_sheets(sheets_path), strict, "facts", quiet=True)
    facts = FactsTable()
    record_problems: list[TournamentProblem] = []
    output_format = output.format
    # The text report: the output itself, or standard error when the output is the
    # standings as CSV.
    stdout: IO[str] = sys.stderr if output_format == "csv" else sys.stdout
    if (output_format == "text" and not output.to_standard_output) or (
        output_format == "csv" and quiet
    ):
        stdout = io.StringIO()
    progress = Progress("checking", not quiet and output.pager_command is None)
    failed = False
    manifests_found: list[str] = []
    try:
        batches = verify_sources_in_batches(
            paths, options, jobs or default_jobs(), _stdin(), progress
        )
        with on_manifest(manifests_found.append):
            for batch in batches:
                if batch.facts is not None:
                    facts.extend(batch.facts)
                record_problems.extend(batch.problems)
                failed |= batch.tally.failed > 0
                if output_format != "json":
                    stdout.write(batch.text)
                progress.update(len(facts))
    except SourceError as error:
        raise _usage_error(str(error)) from None
    except WorkerLost:
        raise _run_failed(f"a worker process died after {len(facts)} records") from None
    finally:
        progress.close()
    if not facts:
        raise _no_records()
    if manifest is None:
        manifest = _found_manifest(manifests_found)
    else:
        for found in manifests_found:
            if not os.path.exists(found) or not os.path.samefile(found, manifest.source):
                _manifest_skipped(found)
    report = tournament_report(facts, record_problems, manifest, strict)
    if output_format != "json":
        width = terminal_width() if output.to_terminal else None
        _tournament_text(report, len(record_problems), stdout, output_format == "text", width)
    with _writing_output(), output.text() as stream:
        if output_format == "json":
            report.write_json(stream)
        elif output_format == "csv":
            import csv

            writer = csv.DictWriter(stream, fieldnames=STANDINGS_COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(standings_dicts(report.standings))
        elif output_format == "text" and isinstance(stdout, io.StringIO):
            stream.write(stdout.getvalue())
    _say_written(output, quiet)
    if failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_INVALID if report.errors else EXIT_OK)


def _tournament_text(
    report: TournamentReport,
    record_problems: int,
    stream: IO[str],
    standings: bool,
    width: int | None = None,
) -> None:
    """The text report of ``tournament check`` after the records' problems: the problems
    across records, the summary and (``standings``) the standings table."""
    from ..views.terminal import table

    for problem in report.problems[record_problems:]:
        where = problem.source if problem.index is None else f"{problem.source}#{problem.index}"
        name = f" ({problem.game_id})" if problem.game_id else ""
        severity = "warning: " if problem.severity is Severity.WARNING else ""
        stream.write(
            printable(f"{where}{name}: {severity}{problem.code}: {problem.message}") + "\n"
        )
    all_warnings = sum(p.severity is Severity.WARNING for p in report.problems)
    stream.write(
        f"{report.records} record{'s' if report.records != 1 else ''}: {report.valid} "
        f"valid, {report.invalid} invalid; {report.errors} error"
        f"{'s' if report.errors != 1 else ''}, {all_warnings} warning"
        f"{'s' if all_warnings != 1 else ''}\n"
    )
    if standings and report.standings:
        columns = list(report.standings[0])
        stream.write("\nStandings\n")
        rows = [
            [str(place), *(printable(str(row[column])) for column in columns)]
            for place, row in enumerate(report.standings, start=1)
        ]
        for line in table(["#", *columns], rows, width):
            stream.write(line + "\n")
