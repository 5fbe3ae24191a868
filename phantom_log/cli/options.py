"""The options several commands share, each one decorator, so that every command speaks
them the same way: the output (``--format``, ``-o``, ``--force``), ``--color``,
``--jobs``, ``--scheduler``, ``--sheets``, the selection of records, ``--max-record-size``
and the analysis options of the commands that show decisions."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

import click

from ..records.number_kinds import SECONDS, SIZE, WORKERS, NumberKind, shown_text
from ..records.size_limit import DEFAULT_MAX_RECORD_SIZE, record_size_limit
from .exits import usage_error, writing_output
from .inputs import input_paths, manifest_skipped
from .reviews import analysis_rows

if TYPE_CHECKING:
    from ..views.terminal import ColourChoice
    from .destination import Destination

#: A command, as a decorator receives and returns it.
F = TypeVar("F", bound=Callable[..., Any])


# Paths to read or write: a shell completes them as files (and - is standard input or
# output); whether they exist is said by the command, as a problem or a usage error.
PATHS: Final = click.Path(allow_dash=True, readable=False)


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
    receives ``style``, how its ``output`` (:func:`output_options`, given first) is
    painted."""

    @functools.wraps(command)
    def run(*args: Any, colour: ColourChoice, no_colour: bool, **kwargs: Any) -> Any:
        from ..views.terminal import detect_style

        chosen: ColourChoice = "never" if no_colour else colour
        style = detect_style(chosen, kwargs["output"].to_standard_output)
        return command(*args, style=style, **kwargs)

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


scheduler_option = click.option(
    "--scheduler",
    metavar="ADDRESS|local",
    default=None,
    help="Run on a Dask cluster: its scheduler's address (tcp://host:8786), or local for "
    "one of this machine's cores. PATHS may then be fsspec URLs (s3://..., globs). Needs "
    "the dask extra (docs/cluster.md).",
)


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
    shown = f"{help} ({'; '.join(synonyms)}.)" if synonyms else help

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def run(
            *args: Any,
            format_name: str | None,
            output_path: str | None,
            no_pager: bool = True,
            **kwargs: Any,
        ) -> Any:
            output = _output(formats, format_name, output_path, kwargs, checked)
            return command(*args, output=replace(output, pager=not no_pager), **kwargs)

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
            help=f"{shown} [default: {formats[0]}, or as the -o file's extension says]",
        )(decorated)
        return cast(F, decorated)

    return decorate


def _output(
    formats: list[str],
    format_name: str | None,
    output_path: str | None,
    parameters: dict[str, Any],
    checked: bool,
) -> Destination:
    """The destination of ``--format`` and ``-o`` (:func:`.destination.resolve_destination`),
    refused (exit 2) when they clash or the file is one the command reads; checked to be
    writable, when ``checked``."""
    from ..files.output_checks import refuse_inputs_as_outputs
    from ..records.source_names import RECORD_SUFFIXES
    from .destination import DestinationError, resolve_destination

    try:
        output = resolve_destination(formats, format_name, output_path, parameters["force"])
    except DestinationError as error:
        raise usage_error(str(error)) from None
    with writing_output():
        inputs = input_paths(parameters)
        refuse_inputs_as_outputs(inputs, [("-o", output_path)], RECORD_SUFFIXES)
        if checked:
            output.check()
    return output


if TYPE_CHECKING:  # click 8.2 made the parameter types generic; 8.1 cannot subscript them
    _IntParamType = click.ParamType[int]
    _NumberParamType = click.ParamType[float]
else:
    _IntParamType = click.ParamType
    _NumberParamType = click.ParamType


class NumberOption(_NumberParamType):
    """An option that takes a number of one kind (:mod:`phantom_log.records.number_kinds`):
    what the kind refuses (``nan``, an infinity, a negative count, a number past its
    range) is a usage error (exit 2) saying what the option takes."""

    name = "number"

    def __init__(self, kind: NumberKind[int] | NumberKind[float]) -> None:
        self.kind = kind

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            if isinstance(value, str):
                return self.kind.parsed(value)
            return self.kind.checked(value, param.name if param and param.name else "value")
        except (TypeError, ValueError) as error:
            self.fail(str(error), param, ctx)


class ByteSize(_IntParamType):
    """A size in bytes: a whole number of bytes, or a number with K, M, G or T (binary
    units: ``64M`` is 64 MiB; ``KiB``, ``MB`` and the like are read the same), at most the
    largest file (:data:`~phantom_log.records.number_kinds.SIZE`)."""

    name = "size"
    _UNITS: Final = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
    _PATTERN: Final = re.compile(r"\s*([0-9]+)(\.[0-9]+)?\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
    # More digits than this are a size past the largest file whatever the unit: refused
    # without being converted.
    _MOST_DIGITS: Final = 30

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from decimal import Decimal

        match = None if isinstance(value, int) else self._PATTERN.fullmatch(str(value))
        if isinstance(value, int) and not isinstance(value, bool):
            size = value
        elif match is None:
            size = 0
        elif len(match[1].lstrip("0")) > self._MOST_DIGITS:
            size = SIZE.maximum + 1
        else:
            number = Decimal(match[1] + (match[2] or "")[: self._MOST_DIGITS])
            size = int(number * self._UNITS[match[3].lower()])
        if size < 1:
            self.fail(
                f"{shown_text(str(value))} is not a size: give bytes, or a number with K, M or G",
                param,
                ctx,
            )
        if not SIZE.holds(size):
            self.fail(
                f"{shown_text(str(value))} is too large: give at most {SIZE.maximum} bytes "
                "(8 EiB, the largest size of a file)",
                param,
                ctx,
            )
        return size


jobs_option = click.option(
    "--jobs",
    "-j",
    type=NumberOption(WORKERS),
    default=None,
    metavar="N",
    help=f"Worker processes, 1 to {WORKERS.maximum} (default: all cores). The output stays "
    "in input order.",
)


def analysis_options(from_file: str, analyse: str, unsolved: str) -> Callable[[F], F]:
    """``--analysis FILE``, ``--analyse`` and ``--time-limit``, the same for every command
    that shows a game's decisions: ``from_file`` and ``analyse`` say what the command does
    with them, ``unsolved`` what becomes of a decision not solved in time. Given both,
    ``--analysis`` and ``--analyse`` are refused (exit 2) before any work."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def run(*args: Any, analysis_path: str | None, analyse_games: bool, **kwargs: Any) -> Any:
            if analysis_path is not None and analyse_games:
                raise usage_error("--analysis FILE and --analyse: give one of them")
            analysis_rows.cache_clear()  # read anew by each run (tests run many)
            if analysis_path is not None:
                analysis_rows(analysis_path)  # read (and refused, if so) before any output
            return command(
                *args, analysis_path=analysis_path, analyse_games=analyse_games, **kwargs
            )

        options = [
            click.option("--analysis", "analysis_path", metavar="FILE", type=PATHS, help=from_file),
            click.option("--analyse", "analyse_games", is_flag=True, help=analyse),
            click.option(
                "--time-limit",
                type=NumberOption(SECONDS),
                default=60.0,
                show_default=True,
                metavar="SECONDS",
                help=f"With --analyse: CPU seconds per game (above 0); a decision not solved by "
                f"then {unsolved}.",
            ),
        ]
        decorated: Any = run
        for option in reversed(options):
            decorated = option(decorated)
        return cast(F, decorated)

    return decorate


def max_record_size_option(command: F) -> F:
    """``--max-record-size`` for a command that reads records: the command runs with that
    size limit in force (:func:`phantom_log.records.size_limit.record_size_limit`)."""

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
        from ..records.chunks import on_manifest
        from ..records.selection import Selection, record_selection

        with (
            record_selection(Selection(game_ids, players, events)),
            on_manifest(manifest_skipped),
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


def trick_span_options(command: F) -> F:
    """``--from``, ``--to`` and ``--at`` for a command that reports tricks: the command is
    given ``tricks``, a :class:`~phantom_log.records.trick_spans.TrickSpan` (the whole game
    when none is given); a span that names no trick is a usage error (exit 2)."""
    from ..records.trick_spans import trick_span

    @functools.wraps(command)
    def run(
        *args: Any, span_from: str | None, span_to: str | None, span_at: str | None, **kwargs: Any
    ) -> Any:
        try:
            tricks = trick_span(span_from, span_to, span_at)
        except ValueError as error:
            raise click.UsageError(str(error)) from None
        return command(*args, tricks=tricks, **kwargs)

    decorated: Callable[..., Any] = run
    for flag, name, what in (
        ("--at", "span_at", "Only trick ROUND.TRICK, or round ROUND (as 2.5, or 2)."),
        ("--to", "span_to", "Up to trick ROUND.TRICK, included (as 2.5; 2 is round 2's last)."),
        ("--from", "span_from", "From trick ROUND.TRICK on (as 1.4; 2 is round 2's first)."),
    ):
        decorated = click.option(flag, name, metavar="ROUND.TRICK", help=what)(decorated)
    return cast(F, decorated)
