"""``phantom-log simulate``: complete, legal games from the seeded simulator."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

import click
import orjson

from ..records.number_kinds import COUNT, SEED
from ..views.reports import counted
from ..views.terminal import stderr_is_terminal
from .destination import say_written
from .exits import usage_error, writing_output
from .help import SIMULATE_EPILOG, SIMULATE_EXAMPLES
from .inputs import load_sheets
from .options import F, NumberOption, output_options, sheets_option

if TYPE_CHECKING:
    from ..analysis.simulator import Simulation
    from .destination import Destination


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


@click.command(epilog=SIMULATE_EXAMPLES + SIMULATE_EPILOG)
@click.option(
    "-n",
    "--count",
    type=NumberOption(COUNT),
    required=True,
    metavar="N",
    help="How many games (1 or more).",
)
@click.option(
    "--seed",
    type=NumberOption(SEED),
    default=0,
    show_default=True,
    metavar="N",
    help="The random seed, a 64-bit integer.",
)
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
    from ..analysis.simulator import Simulation
    from ..rules.engine import Rules
    from ..rules.sheets import BUILTIN_SHEETS

    sheets = load_sheets(sheets_path) or BUILTIN_SHEETS
    sheet = sheets.get(sheet_name)
    if sheet is None:
        raise usage_error(
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

    with writing_output(), output.binary() as stream:
        _write_games(stream, simulation, count, output.format == "json", quiet)
    say_written(output.path, quiet, counted(count, "game"))


def _write_games(
    stream: IO[bytes], simulation: Simulation, count: int, array: bool, quiet: bool
) -> None:
    """Games 1 to ``count`` of the simulation, as JSON Lines or (``array``) one JSON array,
    with a progress bar on a terminal (unless ``quiet``)."""
    from ..analysis.simulator import simulate_game

    show = not quiet and stderr_is_terminal()
    with click.progressbar(
        range(1, count + 1), label="simulating", file=sys.stderr if show else io.StringIO()
    ) as progress:
        for number in progress:
            game = orjson.dumps(simulate_game(simulation, number))
            if array:
                game = (b"[\n" if number == 1 else b",\n") + game
            stream.write(game if array else game + b"\n")
        if array:
            stream.write(b"\n]\n")
