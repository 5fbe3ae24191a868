"""Options that take numbers (the second reliability issue, items 10 and 13): every one of
every command is of a shared kind (:mod:`phantom_log.records.number_kinds`), refuses what
cannot be (``nan``, infinities, negatives, numbers past its range, digits of other
scripts) with exit 2 and a line naming the option, and takes the edges of its range; a
size limit of terabytes or exabytes reads a small file in the memory of that file."""

from __future__ import annotations

import json
import math
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from phantom_log.cli import main
from phantom_log.cli.options import ByteSize, NumberOption
from phantom_log.records import number_kinds
from phantom_log.records.number_kinds import COUNT, INDEX, SECONDS, SEED, SIZE, WORKERS
from tests.helpers.paths import EXAMPLES, REPO, WALKTHROUGH

TOURNAMENT = EXAMPLES / "tournament"


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))
        else:
            yield (*prefix, name)


def _command(path: tuple[str, ...]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


def _number_options() -> list[tuple[tuple[str, ...], click.Option]]:
    """Every option of every command whose value is a number, by the type click gives it."""
    numeric = (
        NumberOption,
        ByteSize,
        click.types.IntParamType,
        click.types.FloatParamType,
        click.types.IntRange,
        click.types.FloatRange,
    )
    return [
        (path, param)
        for path in _commands(main)
        for param in _command(path).params
        if isinstance(param, click.Option) and isinstance(param.type, numeric)
    ]


def _flag(option: click.Option) -> str:
    """The option's long name (``--count`` for ``-n, --count``)."""
    return next(name for name in option.opts if name.startswith("--"))


NUMBER_OPTIONS = _number_options()
#: The options that take numbers, and the kind each is (a new one is added here, on purpose).
KINDS = {
    ("analyse", "--jobs"): WORKERS,
    ("analyse", "--seed"): SEED,
    ("analyse", "--time-limit"): SECONDS,
    ("analyse", "--worlds"): COUNT,
    ("annotate", "--time-limit"): SECONDS,
    ("export", "--jobs"): WORKERS,
    ("show", "--index"): INDEX,
    ("show", "--time-limit"): SECONDS,
    ("simulate", "--count"): COUNT,
    ("simulate", "--seed"): SEED,
    ("stats", "--jobs"): WORKERS,
    ("tournament", "check", "--jobs"): WORKERS,
    ("verify", "--jobs"): WORKERS,
}
MAX_RECORD_SIZE = [path for path, option in NUMBER_OPTIONS if _flag(option) == "--max-record-size"]


def test_every_option_that_takes_a_number_is_of_a_shared_kind() -> None:
    """No command checks a number its own way: each option is a NumberOption of its kind,
    or the size limit (ByteSize) shared by every command that reads records."""
    kinds = {
        (*path, _flag(option)): option.type.kind
        for path, option in NUMBER_OPTIONS
        if isinstance(option.type, NumberOption)
    }
    assert kinds == KINDS
    sizes = {path for path, option in NUMBER_OPTIONS if isinstance(option.type, ByteSize)}
    assert sizes == set(MAX_RECORD_SIZE)
    assert (
        len(sizes) == 8
    )  # verify, annotate, show, analyse, export, stats, tournament check, convert
    assert len(NUMBER_OPTIONS) == len(KINDS) + len(sizes)


def _arguments(path: tuple[str, ...], option: str, value: str, tmp_path: Path) -> list[str]:
    """A command line of ``path`` with ``option value`` and the other arguments it needs."""
    if path == ("simulate",):
        rest = [] if option in ("--count", "-n") else ["--count", "1"]
    elif path == ("export",):
        rest = [str(WALKTHROUGH), "--games", str(tmp_path / "games.csv")]
    elif path == ("tournament", "check"):
        rest = [str(TOURNAMENT)]
    else:
        rest = [str(WALKTHROUGH)]
    return [*path, option, value, *rest]


#: What no option takes: not numbers, numbers of no kind, numbers past every range.
NONSENSE = [
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-1e400",
    "99999999999999999999999999",
    "9" * 5_000,
    "-" + "9" * 5_000,
    "",
    " ",
    "0x10",
    "1e3x",
    "\u0661",  # ARABIC-INDIC DIGIT ONE, which int() reads
    "\u00b2",  # SUPERSCRIPT TWO
    "1,000",
]


@pytest.mark.parametrize(
    ("path", "option"),
    [(path, _flag(option)) for path, option in NUMBER_OPTIONS],
    ids=[" ".join((*path, _flag(option))) for path, option in NUMBER_OPTIONS],
)
@pytest.mark.parametrize("value", NONSENSE, ids=lambda value: repr(value[:12]))
def test_a_number_no_option_can_take_is_a_usage_error(
    path: tuple[str, ...], option: str, value: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(main, _arguments(path, option, value, tmp_path))
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert line.startswith("Error: Invalid value for ") and f"'{option}'" in line.split(":")[1]
    assert len(line) < 300
    assert not (tmp_path / "games.csv").exists()


def _below_range(kind: number_kinds.NumberKind[int] | number_kinds.NumberKind[float]) -> str:
    return str(kind.minimum if kind.above_minimum else kind.minimum - 1)


@pytest.mark.parametrize(
    ("path", "option"),
    [(path[:-1], path[-1]) for path in KINDS],
    ids=[" ".join(path) for path in KINDS],
)
@pytest.mark.parametrize("edge", ["below", "above"])
def test_a_number_just_past_its_options_range_is_a_usage_error(
    path: tuple[str, ...], option: str, edge: str, tmp_path: Path
) -> None:
    """0 workers, a count of 0, an index of -1, a time limit of 0, a seed or a count
    past 64 bits, 1025 workers: each names the option and what it takes."""
    kind = KINDS[(*path, option)]
    value = _below_range(kind) if edge == "below" else str(kind.maximum + 1)
    result = CliRunner().invoke(main, _arguments(path, option, value, tmp_path))
    assert result.exit_code == 2, result.output
    assert "Error: Invalid value for " in result.output and f"'{option}'" in result.output
    assert f"{value!r} is not {kind.what}: give {kind.allowed}" in result.output


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["simulate", "--count", "1", "--seed", str(number_kinds.INT64_MIN)], 0),
        (["simulate", "--count", "1", "--seed", str(number_kinds.INT64_MAX)], 0),
        (["verify", str(WALKTHROUGH), "--jobs", str(number_kinds.MAX_WORKERS)], 0),
        (["verify", str(WALKTHROUGH), "--jobs", "1_0"], 0),
        (["show", str(WALKTHROUGH), "--index", "0"], 0),
        (["verify", str(WALKTHROUGH), "--max-record-size", str(number_kinds.INT64_MAX)], 0),
        (["verify", str(WALKTHROUGH), "--max-record-size", "8388607T"], 0),
    ],
    ids=[
        "lowest seed",
        "highest seed",
        "most workers",
        "underscores",
        "index 0",
        "largest size in bytes",
        "largest size in T",
    ],
)
def test_the_edges_of_each_range_are_taken(command: list[str], expected: int) -> None:
    result = CliRunner().invoke(main, command)
    assert result.exit_code == expected, result.output


@pytest.mark.parametrize(
    "text", ["9223372036854775808", "8388608T", "99999999999999999999G", "9" * 5_000 + "K"]
)
def test_a_size_limit_past_the_largest_file_is_a_usage_error(text: str) -> None:
    result = CliRunner().invoke(main, ["verify", str(WALKTHROUGH), "--max-record-size", text])
    assert result.exit_code == 2
    assert "is too large: give at most 9223372036854775807 bytes" in result.output


# -- the parameter types, on any text ------------------------------------------------------

OPTION_TYPES = [NumberOption(kind) for kind in (SIZE, WORKERS, COUNT, INDEX, SEED, SECONDS)]
NUMBER_LIKE = st.one_of(
    st.text(max_size=30),
    st.from_regex(r"\A\s*[+-]?[0-9_]{0,45}(\.[0-9]*)?([eE][+-]?[0-9]{1,4})?\s*\Z"),
    st.sampled_from(["nan", "inf", "-inf", "+inf", "infinity", "-0", "0.0", "1e-400"]),
    st.integers().map(str),
    st.floats().map(repr),
)


@settings(max_examples=400, deadline=None)
@given(text=NUMBER_LIKE, type_index=st.integers(0, len(OPTION_TYPES)))
def test_an_options_text_is_a_number_of_its_kind_or_refused_in_words(
    text: str, type_index: int
) -> None:
    """Whatever the text: the number it writes, within its kind's range, or click's
    BadParameter with one line (a usage error), never another exception."""
    option_type: click.ParamType = (
        ByteSize() if type_index == len(OPTION_TYPES) else OPTION_TYPES[type_index]
    )
    try:
        number = option_type.convert(text, None, None)
    except click.BadParameter as error:
        assert "\n" not in error.message and len(error.message) < 300
        return
    kind = option_type.kind if isinstance(option_type, NumberOption) else SIZE
    assert isinstance(number, int if kind.type is int else float)
    assert not isinstance(number, bool)
    assert math.isfinite(number) and kind.holds(number)


# -- a large limit, a small file -------------------------------------------------------------

#: The address space a run is given: some hundreds of megabytes above what phantom-log
#: itself maps, far below any limit the tests give (a read that set the limit aside first
#: fails at once with MemoryError, an internal error).
ADDRESS_SPACE = 2 * 1024**3


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.mark.parametrize("limit", ["64G", "1T", str(number_kinds.INT64_MAX)])
@pytest.mark.parametrize(
    "command",
    [
        ["verify", "--jobs", "1", "{record}", "{lines}"],
        ["verify", "--jobs", "2", "{record}", "{lines}"],
        ["verify", "-"],
        ["verify", "--sheets", "{sheets}", "{record}"],
        ["tournament", "check", "--jobs", "1", str(TOURNAMENT)],
        ["annotate", "--format", "json", "{record}"],
    ],
    ids=["jobs-1", "jobs-2", "stdin", "sheets", "tournament", "annotate"],
)
def test_a_size_limit_of_terabytes_reads_a_small_file_in_bounded_memory(
    command: list[str], limit: str, tmp_path: Path
) -> None:
    """Under a real limit of the address space (RLIMIT_AS, 2 GiB), a size limit of 64 GiB,
    1 TiB or 8 EiB reads a file of kilobytes (a .json document, JSON Lines, standard input,
    a --sheets file, a manifest) as the default limit does."""
    text = WALKTHROUGH.read_bytes()
    record = tmp_path / "game.json"
    record.write_bytes(text)
    lines = tmp_path / "games.jsonl"
    lines.write_bytes(b"".join(text.replace(b"\n", b"") + b"\n" for _ in range(3)))
    sheets = tmp_path / "sheets.json"
    waltz = {
        "name": "waltz",
        "bars": [{"suit": suit, "notes": "PCP"} for suit in ("Mi", "Ch", "Ri", "Ma")],
    }
    sheets.write_text(json.dumps({"format": "phantom-log-sheets/1", "sheets": [waltz]}))
    args = [part.format(record=record, lines=lines, sheets=sheets) for part in command]
    done = subprocess.run(
        [sys.executable, "-m", "phantom_log", *args, "--max-record-size", limit],
        input=text if "-" in args else None,
        capture_output=True,
        preexec_fn=_limited,
        cwd=REPO,
        timeout=120,
    )
    default = subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        input=text if "-" in args else None,
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )
    assert b"internal error" not in done.stderr and b"Traceback" not in done.stderr
    assert (done.returncode, done.stdout) == (default.returncode, default.stdout)
    assert done.returncode in (0, 1)
