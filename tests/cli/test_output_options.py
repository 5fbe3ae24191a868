"""One output vocabulary for every command: ``--format`` with the same names, ``-o FILE``
(``-`` for standard output) with the format following its extension, ``--force``;
clashing options refused before any work; a value written the same way in every
format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import click
import pytest

from phantom_log.cli import main
from phantom_log.cli.destination import (
    Destination,
    DestinationError,
    extension_format,
    format_names,
    resolve_destination,
)
from tests.helpers.cli import run
from tests.helpers.paths import REPO

WALKTHROUGH = str(REPO / "examples" / "rulebook-walkthrough.json")
EXAMPLES = [str(path) for path in sorted((REPO / "examples").glob("*.json"))]

# Every command that prints rows or a report, with its arguments and the formats it
# writes (the first is its default).
COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "verify": (["verify", *EXAMPLES], ["text", "json"]),
    "annotate": (["annotate", WALKTHROUGH], ["table", "json", "csv"]),
    "show": (["show", WALKTHROUGH], ["text", "svg", "html"]),
    "stats": (["stats", *EXAMPLES, "-q"], ["table", "csv", "json"]),
    "tournament check": (
        ["tournament", "check", str(REPO / "examples" / "tournament"), "-q"],
        ["text", "json", "csv"],
    ),
    "simulate": (["simulate", "-n", "2", "-q"], ["jsonl", "json"]),
    "analyse": (["analyse", WALKTHROUGH, "--from", "2.8", "--jobs", "1"], ["table", "json", "csv"]),
}


def command_options(name: str) -> dict[str, click.Parameter]:
    command: click.Command = main
    for part in name.split():
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), part)
        assert found is not None
        command = found
    return {param.name or "": param for param in command.params}


# --- the names ----------------------------------------------------------------------------


def test_table_and_text_are_one_format_and_json_and_jsonl_another() -> None:
    assert format_names(["text", "json"]) == {
        "text": "text",
        "json": "json",
        "table": "text",
        "jsonl": "json",
    }
    assert format_names(["table", "csv"])["text"] == "table"
    # simulate writes both: a JSON array of records and JSON Lines are two formats there.
    assert format_names(["jsonl", "json"]) == {"jsonl": "jsonl", "json": "json"}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_format_output_and_force(name: str) -> None:
    params = command_options(name)
    assert {"format_name", "output_path", "force"} <= set(params)
    output = params["output_path"]
    assert isinstance(output, click.Option)
    assert output.opts == ["-o", "--output"]
    format_choice = params["format_name"].type
    assert isinstance(format_choice, click.Choice)
    choices = set(format_choice.choices)
    formats = COMMANDS[name][1]
    assert set(formats) <= choices
    # A command for people accepts both names of that format.
    if {"text", "table"} & set(formats):
        assert {"text", "table"} <= choices
    if "json" in formats:
        assert {"json", "jsonl"} <= choices


@pytest.mark.parametrize("name", ["verify", "annotate", "stats", "tournament check"])
def test_text_and_table_print_the_same(name: str) -> None:
    args = COMMANDS[name][0]
    text = run(*args, "--format", "text").stdout
    assert text.strip() and text == run(*args, "--format", "table").stdout


@pytest.mark.parametrize("name", ["verify", "annotate", "stats"])
def test_json_and_jsonl_print_the_same_json_lines(name: str) -> None:
    args = COMMANDS[name][0]
    printed = run(*args, "--format", "json").stdout
    assert printed == run(*args, "--format", "jsonl").stdout
    lines = printed.splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)


# --- -o FILE and the extension ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "extension", "expected"),
    [
        ("verify", ".txt", "text"),
        ("verify", ".jsonl", "json"),
        ("verify", ".json", "json"),
        ("annotate", ".csv", "csv"),
        ("annotate", ".ndjson", "json"),
        ("annotate", ".txt", "table"),
        ("stats", ".csv", "csv"),
        ("tournament check", ".csv", "csv"),
        ("tournament check", ".json", "json"),
        ("simulate", ".json", "json"),
        ("simulate", ".jsonl", "jsonl"),
        ("show", ".svg", "svg"),
        ("show", ".html", "html"),
        ("analyse", ".csv", "csv"),
    ],
)
def test_the_file_gets_what_the_format_prints(
    name: str, extension: str, expected: str, tmp_path: Path
) -> None:
    """``-o FILE.ext`` writes exactly what ``--format`` (as the extension says) prints,
    and says so on standard error."""
    args = COMMANDS[name][0]
    printed = run(*args, "--format", expected)
    target = tmp_path / f"out{extension}"
    written = run(*args, "-o", target)
    assert written.exit_code == printed.exit_code, written.stderr
    content = target.read_text(encoding="utf-8")
    if expected == "html":  # the page names where it was written
        assert content.startswith("<!DOCTYPE html>")
        assert printed.stdout.startswith("<!DOCTYPE html>")
    else:
        assert content == printed.stdout
    if "-q" not in args:
        assert f"wrote {target}" in written.stderr or f"to {target}" in written.stderr


@pytest.mark.parametrize("name", [name for name in COMMANDS if name != "show"])
def test_dash_is_standard_output(name: str) -> None:
    args = COMMANDS[name][0]
    assert run(*args, "-o", "-").stdout == run(*args).stdout


def test_a_json_file_of_simulated_records_reads_back(tmp_path: Path) -> None:
    """Records go to a .json file as one array, which a .json file of records holds."""
    assert run("simulate", "-n", "3", "-q", "-o", tmp_path / "games.json").exit_code == 0
    games = json.loads((tmp_path / "games.json").read_text(encoding="utf-8"))
    assert len(games) == 3
    lines = run("simulate", "-n", "3", "-q").stdout.splitlines()
    assert games == [json.loads(line) for line in lines]
    assert run("verify", tmp_path / "games.json").exit_code == 0


# --- clashes, refused before any work ------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["verify", WALKTHROUGH, "-o", "OUT/report.csv"], "a .csv file is CSV"),
        (["verify", WALKTHROUGH, "-o", "OUT/report.json", "--format", "text"], "drop one"),
        (["annotate", WALKTHROUGH, "-o", "OUT/tricks.csv", "--format", "json"], "drop one"),
        (["stats", WALKTHROUGH, "-o", "OUT/figures.png"], "does not write .png"),
        (["show", WALKTHROUGH, "--svg", "OUT/game.png"], "does not write .png"),
        (["show", WALKTHROUGH, "--svg", "OUT/game.txt"], "a .txt file is text"),
        (["show", WALKTHROUGH, "--svg", "OUT/a.svg", "-o", "OUT/b.svg"], "short for -o"),
        (["simulate", "-n", "1", "-o", "OUT/games.csv"], "a .csv file is CSV"),
        (["export", WALKTHROUGH, "--games", "OUT/games.csv", "--format", "parquet"], "drop one"),
        (["export", WALKTHROUGH, "--games", "OUT/games.dat"], "name the format"),
        (["export", WALKTHROUGH, "--games", "-", "--tricks", "-"], "standard output takes one"),
        (["tournament", "check", WALKTHROUGH, "-o", "OUT/standings.svg"], "a .svg file is SVG"),
    ],
)
def test_clashing_options_are_refused_before_any_work(
    args: list[str], message: str, tmp_path: Path
) -> None:
    result = run(*(arg.replace("OUT", str(tmp_path)) for arg in args))
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.startswith("phantom-log: error: ")
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["verify", "IN/game.json", "-o", "IN/game.json", "--format", "json"], "-o"),
        (["annotate", "IN/game.json", "-o", "IN/game.json", "--format", "json"], "-o"),
        (["annotate", "IN/games.jsonl", "-o", "IN/games.jsonl"], "-o"),
        (["annotate", "IN/game.json", "--sheets", "IN/sheets.json", "-o", "IN/sheets.json"], "-o"),
        (["show", "IN/game.txt", "-o", "IN/game.txt"], "-o"),
        (["stats", "IN/game.json", "-o", "IN/game.json"], "-o"),
        (["stats", "IN/game.json", "--plot", "IN/picture.svg", "IN/picture.svg"], "--plot"),
        (["analyse", "IN/game.json", "-o", "IN/game.json", "--from", "2.9"], "-o"),
        (["tournament", "check", "IN/game.json", "-o", "IN/game.json"], "-o"),
        (
            ["tournament", "check", "IN/game.json", "--manifest", "IN/m.json", "-o", "IN/m.json"],
            "-o",
        ),
        (["export", "IN/games.jsonl", "--tricks", "IN/games.jsonl"], "--tricks"),
        (["export", "IN/game.json", "--games", "IN/game.json", "--format", "jsonl"], "--games"),
    ],
)
def test_an_output_that_is_an_input_is_refused_even_with_force(
    args: list[str], option: str, tmp_path: Path
) -> None:
    """Written over with --force, the file read would be lost: every command refuses an
    output that is one of its inputs (records, sheets, manifest) before any work."""
    record = Path(WALKTHROUGH).read_text()
    inputs = {
        name: tmp_path / name
        for name in ("game.json", "games.jsonl", "game.txt", "sheets.json", "m.json", "picture.svg")
    }
    for path in inputs.values():
        path.write_text(record)
    result = run(*(arg.replace("IN", str(tmp_path)) for arg in args), "--force")
    assert result.exit_code == 2, result.output
    target = args[args.index(option) + 1].replace("IN", str(tmp_path))
    assert (
        result.stderr
        == f"phantom-log: error: {option} {target}: it is an input; write it elsewhere\n"
    )
    assert result.stdout == ""
    assert all(path.read_text() == record for path in inputs.values())
    assert sorted(tmp_path.iterdir()) == sorted(inputs.values())


@pytest.mark.parametrize("name", ["verify", "annotate", "stats", "tournament check", "simulate"])
def test_an_existing_output_needs_force(name: str, tmp_path: Path) -> None:
    args = COMMANDS[name][0]
    extension = {"simulate": ".jsonl", "tournament check": ".csv"}.get(name, ".json")
    target = tmp_path / f"out{extension}"
    target.write_text("old")
    refused = run(*args, "-o", target)
    assert refused.exit_code == 2
    assert "--force" in refused.stderr
    assert target.read_text() == "old"
    assert run(*args, "-o", target, "--force").exit_code in (0, 1)
    assert target.read_text() != "old"


def test_the_destination_resolves_as_documented() -> None:
    assert resolve_destination(["table", "csv"], None, None, False) == Destination("table")
    assert resolve_destination(["table", "csv"], "text", "a.txt", False).format == "table"
    assert resolve_destination(["table", "csv"], None, "figures", False).format == "table"
    assert resolve_destination(["table", "csv"], "csv", "-", False).format == "csv"
    with pytest.raises(DestinationError, match="drop one"):
        resolve_destination(["table", "csv"], "csv", "a.txt", False)
    assert extension_format("A.CSV", ["table", "csv"]) == "csv"
    assert extension_format("notes.log", ["table", "csv"]) is None


# --- one value, one spelling --------------------------------------------------------------


def test_export_and_annotate_write_the_swaps_alike(tmp_path: Path) -> None:
    """A trick's swaps: the same text in every CSV, the same list in every JSON."""
    annotated_csv = list(
        csv.DictReader(io.StringIO(run("annotate", WALKTHROUGH, "--format", "csv").stdout))
    )
    exported = run("export", WALKTHROUGH, "-q", "--tricks", "-", "--format", "csv").stdout
    exported_csv = list(csv.DictReader(io.StringIO(exported)))
    assert [row["swaps"] for row in annotated_csv] == [row["swaps"] for row in exported_csv]
    annotated = [
        json.loads(line)
        for line in run("annotate", WALKTHROUGH, "--format", "json").stdout.splitlines()
    ]
    exported_json = [
        json.loads(line)
        for line in run(
            "export", WALKTHROUGH, "-q", "--tricks", "-", "--format", "json"
        ).stdout.splitlines()
    ]
    assert [row["swaps"] for row in annotated] == [row["swaps"] for row in exported_json]
    # The tricks table leads with the record's source and index (to join the games
    # table); annotate's rows are one record's, and are the rest of the table's row.
    assert {(row.pop("source"), row.pop("index")) for row in exported_json} == {(WALKTHROUGH, 0)}
    assert annotated == exported_json


def test_refusals_name_the_format_as_the_command_writes_it(tmp_path: Path) -> None:
    """The schema is one JSON document, not JSON Lines; simulate writes both."""
    schema = run("schema", "-o", tmp_path / "schema.csv")
    assert "but this output is JSON: give a file ending in .json" in schema.stderr
    with pytest.raises(DestinationError, match="this output is JSON Lines or JSON:"):
        extension_format("games.csv", ["jsonl", "json"])
