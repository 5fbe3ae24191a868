"""The ``phantom-log`` command line: a thin layer over the library, a module a command.

:data:`main` is the group of the commands; :func:`entry` is the console script. Each
command parses its options (:mod:`.options`) and calls the library; what a command reads
is in :mod:`.inputs`, where it writes in :mod:`.destination`, how it ends in
:mod:`.exits`, and its help's examples and exit codes in :mod:`.help`.
"""

from __future__ import annotations

from typing import NoReturn

import click

from . import (
    analyse,
    annotate,
    convert,
    export,
    record,
    schema,
    show,
    simulate,
    stats,
    tournament,
    verify,
)
from .help import MAIN_EPILOG, MAIN_EXAMPLES
from .supervisor import supervised

__all__ = ["entry", "main"]


def _print_version(context: click.Context, _option: click.Parameter, value: bool) -> None:
    """``--version``: the version and the build of the rules engine, then exit."""
    if not value or context.resilient_parsing:
        return
    import phantom_log

    click.echo(
        f"phantom-log {phantom_log.__version__} (rules engine: {phantom_log.engine_build()})"
    )
    context.exit()


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


for _command in (
    verify.verify,
    schema.schema,
    annotate.annotate,
    show.show,
    simulate.simulate,
    export.export,
    stats.stats,
    analyse.analyse,
    tournament.tournament,
    convert.convert,
    record.record,
):
    main.add_command(_command)


def entry() -> NoReturn:
    """The console script, ``phantom-log``: :data:`main`, run in a process watched over
    by this one (:func:`.supervisor.supervised`), and ended as
    :func:`.process.run_command_line` says."""
    supervised(main)
