"""The command line through click's CliRunner: exit codes, text and JSON output."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from phantom_log import __version__, engine_build
from phantom_log.cli import main
from tests.helpers.cli import run
from tests.helpers.paths import REPO
from tests.helpers.records import RECORD


def write(path: Path, record: Any) -> str:
    path.write_text(json.dumps(record))
    return str(path)


def revoking_record() -> dict[str, Any]:
    """Christine leads Ch5; the Phantom holds Ch4 but plays Mi1."""
    record = copy.deepcopy(RECORD)
    record["game_id"] = "seoul/s3/t2"
    record["rounds"][0]["tricks"] = [
        {"plays": [{"player": "phantom", "card": "Ma5"}, {"player": "christine", "card": "Ma6"}]},
        {"plays": [{"player": "christine", "card": "Ch5"}, {"player": "phantom", "card": "Mi1"}]},
    ]
    return record


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    build = engine_build()
    assert result.output == f"phantom-log {__version__} (rules engine: {build})\n"
    # CI names the build it runs the suite against, so that neither is tested twice.
    expected = os.environ.get("PHANTOM_LOG_EXPECT_BUILD")
    if expected is not None:
        assert build == expected


def test_every_module_that_may_be_compiled_is_built_as_the_engine_is() -> None:
    """A module whose compiling failed installs as Python (the build is optional, so the
    install goes on without a word): the build is whole, each of ``COMPILED_MODULES`` (the
    list setup.py compiles) compiled exactly when the engine is."""
    import importlib

    from phantom_log import COMPILED_MODULES

    compiled = engine_build() == "compiled (Cython)"
    for name in COMPILED_MODULES:
        path = importlib.import_module(name).__file__
        assert path is not None
        assert path.endswith(".py") is not compiled, name
    setup = (REPO / "setup.py").read_text(encoding="utf-8")
    listed = [f'"{name.replace(".", "/")}.py"' for name in COMPILED_MODULES]
    assert all(entry in setup for entry in listed)


def test_help_lists_exit_codes() -> None:
    result = run("verify", "--help")
    assert result.exit_code == 0
    for line in ["0  every record is valid", "1  at least one record is invalid", "2  a usage"]:
        assert line in result.output


def test_valid_record_text(tmp_path: Path) -> None:
    path = write(tmp_path / "g.json", RECORD)
    result = run("verify", path)
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"{path}#0 (g1): round 1: warning: unfinished: the record stops at the start of "
        "round 1 with 0 notes completed; the game is not over, so it has no winner",
        "    hint: A finished game ends when the Phantom completes the 12th note or when "
        "round 2's 10th trick is played.",
        f"{path}#0 (g1): valid: unfinished, 0 notes completed so far",
        "1 record: 1 valid, 0 invalid, 1 warning",
        "by code: unfinished 1",
    ]


def test_invalid_record_text_names_the_play_and_the_rule(tmp_path: Path) -> None:
    path = write(tmp_path / "r3.json", revoking_record())
    result = run("verify", path)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{path}#0 (seoul/s3/t2): round 1, trick 2: revoke: the Phantom played Mi1 but holds "
        "Ch4; he must follow Chandelier",
        "    hint: A player who holds a card of the lead suit (after any swap) must play one.",
        "1 record: 0 valid, 1 invalid, 0 warnings",
        "by code: revoke 1",
    ]


def test_quiet_prints_only_problems(tmp_path: Path) -> None:
    good = write(tmp_path / "a.json", RECORD)
    bad = write(tmp_path / "b.json", revoking_record())
    result = run("verify", "--quiet", good, bad)
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if not line.startswith(" ")] == [
        f"{good}#0 (g1): round 1: warning: unfinished: the record stops at the start of "
        "round 1 with 0 notes completed; the game is not over, so it has no winner",
        f"{bad}#0 (seoul/s3/t2): round 1, trick 2: revoke: the Phantom played Mi1 but holds "
        "Ch4; he must follow Chandelier",
    ]


def test_json_format_is_one_object_per_record(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(RECORD) + "\n\n" + json.dumps(revoking_record()) + "\n{oops\n")
    result = run("verify", "--format", "json", str(path))
    assert result.exit_code == 1
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert [list(report) for report in reports] == [
        ["source", "index", "game_id", "valid", "problems", "result"]
    ] * 3
    first, second, third = reports
    assert first["valid"] is True
    assert first["result"] == {"winner": None, "notes": 0}
    assert [problem["code"] for problem in first["problems"]] == ["unfinished"]
    assert first["problems"][0]["severity"] == "warning"
    assert second == {
        "source": str(path),
        "index": 1,
        "game_id": "seoul/s3/t2",
        "valid": False,
        "problems": [
            {
                "code": "revoke",
                "severity": "error",
                "message": "the Phantom played Mi1 but holds Ch4; he must follow Chandelier",
                "pointer": "/rounds/0/tricks/1/plays/1/card",
                "round": 1,
                "trick": 2,
            }
        ],
        "result": None,
    }
    assert third["index"] == 2 and third["game_id"] is None and third["result"] is None
    assert third["problems"][0]["code"] == "json"
    assert third["problems"][0]["message"].startswith("line 4, column 2: ")


def test_strict_turns_warnings_into_errors(tmp_path: Path) -> None:
    path = write(tmp_path / "g.json", RECORD)
    result = run("verify", "--strict", "--format", "json", path)
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["valid"] is False
    assert report["problems"][0]["severity"] == "error"


def test_stdin(tmp_path: Path) -> None:
    result = run("verify", "--format", "json", "-", stdin=json.dumps(revoking_record()))
    assert result.exit_code == 1
    assert json.loads(result.output)["source"] == "-"


def test_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "b.json", RECORD)
    write(tmp_path / "a.json", RECORD)
    result = run("verify", "--format", "json", str(tmp_path))
    assert result.exit_code == 0
    sources = [json.loads(line)["source"] for line in result.output.splitlines()]
    assert sources == [str(tmp_path / "a.json"), str(tmp_path / "sub" / "b.json")]


def test_missing_path_exits_2(tmp_path: Path) -> None:
    result = run("verify", str(tmp_path / "missing.json"))
    assert result.exit_code == 2
    assert "no such file or directory" in result.output


def test_paths_without_records_exit_2(tmp_path: Path) -> None:
    result = run("verify", str(tmp_path))
    assert result.exit_code == 2
    assert "hold no records" in result.output


def test_no_path_is_a_usage_error() -> None:
    assert run("verify").exit_code == 2


def test_bad_option_is_a_usage_error(tmp_path: Path) -> None:
    assert run("verify", "--format", "xml", write(tmp_path / "g.json", RECORD)).exit_code == 2


def test_unparsable_file_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"game_id": "\xff"}')
    result = run("verify", str(path))
    assert result.exit_code == 1
    assert f"{path}#0: json: line 1, column 14: the bytes are not UTF-8" in result.output


def custom_sheets() -> dict[str, Any]:
    return {
        "format": "phantom-log-sheets/1",
        "sheets": [
            {
                "name": "waltz",
                "bars": [
                    {"suit": "Ri", "notes": "PC"},
                    {"suit": "Mi", "notes": "CPPC"},
                    {"suit": "Ma", "notes": "PPC"},
                    {"suit": "Ch", "notes": "CPP"},
                ],
            }
        ],
    }


def test_sheets_file_adds_named_sheets(tmp_path: Path) -> None:
    record = copy.deepcopy(RECORD)
    record["sheet"] = "waltz"
    path = write(tmp_path / "g.json", record)
    unknown = run("verify", "--format", "json", path)
    assert unknown.exit_code == 1
    assert json.loads(unknown.output)["problems"][0]["code"] == "unknown-sheet"
    sheets = write(tmp_path / "sheets.json", custom_sheets())
    known = run("verify", "--format", "json", "--sheets", sheets, path)
    assert known.exit_code == 0


def test_bad_sheets_file_exits_2(tmp_path: Path) -> None:
    sheets = custom_sheets()
    sheets["sheets"][0]["bars"][0]["suit"] = "Mi"
    path = write(tmp_path / "sheets.json", sheets)
    result = run("verify", "--sheets", path, write(tmp_path / "g.json", RECORD))
    assert result.exit_code == 2
    assert "bad-sheet" in result.output and "repeats the suit Mi" in result.output


def test_sheets_file_cannot_redefine_a_built_in_sheet(tmp_path: Path) -> None:
    sheets = custom_sheets()
    sheets["sheets"][0]["name"] = "rulebook"
    path = write(tmp_path / "sheets.json", sheets)
    result = run("verify", "--sheets", path, write(tmp_path / "g.json", RECORD))
    assert result.exit_code == 2
    assert "taken by a built-in sheet" in result.output


@pytest.mark.parametrize(
    ("which", "title"),
    [
        ((), "phantom-log game record, format version 1"),
        (("sheets",), "phantom-log named sheets, format version 1"),
    ],
)
def test_schema_prints_the_schema(which: tuple[str, ...], title: str) -> None:
    result = run("schema", *which)
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"] == title
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_schema_command_matches_the_file_in_schemas() -> None:
    assert run("schema").output == (REPO / "schemas" / "game-record-1.schema.json").read_text()


def test_python_dash_m(tmp_path: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "phantom_log",
            "verify",
            "--quiet",
            write(tmp_path / "g.json", RECORD),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0
    assert "warning: unfinished" in completed.stdout


def test_each_missing_key_is_named_once() -> None:
    """An empty object lacks five keys: each problem names its own (not the first five
    times)."""
    result = CliRunner().invoke(main, ["verify", "-"], input="{}\n")
    assert result.exit_code == 1
    missing = [line for line in result.output.splitlines() if "is missing" in line]
    assert missing == [
        f"-#0: schema: required: the key {key!r} is missing"
        for key in ("format", "game_id", "players", "sheet", "rounds")
    ]


def test_a_json_lines_text_cut_short_is_placed_on_its_own_line(tmp_path: Path) -> None:
    """The line's end is not part of the record: a text cut short is reported on its own
    line, at its end, not on the line after it."""
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a":\n')
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 1
    expected = (
        f"{path}#1: json: the line ends early, inside an object that begins at line 2, column 1"
    )
    assert expected in result.output


# --- schema, help, completion ------------------------------------------------------------


@pytest.mark.parametrize(
    ("which", "title"),
    [
        ("record", "game record"),
        ("sheet", "sheet"),
        ("sheets", "sheet"),
        ("manifest", "tournament manifest"),
    ],
)
def test_schema_prints_each_schema(which: str, title: str, tmp_path: Path) -> None:
    result = run("schema", which)
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert title in document["title"]
    assert run("schema", which, "-o", str(tmp_path / "s.json")).exit_code == 0
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == document


def every_command(group: Any = main, prefix: tuple[str, ...] = ()) -> list[list[str]]:
    """The program and every group and command below it, as argument lists."""
    import click

    found = [list(prefix)]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += every_command(command, (*prefix, name))
        else:
            found.append([*prefix, name])
    return found


COMMAND_HELP = every_command()


def test_every_command_is_in_the_help_test() -> None:
    assert [] in COMMAND_HELP and ["tournament"] in COMMAND_HELP
    assert ["tournament", "check"] in COMMAND_HELP and ["schema"] in COMMAND_HELP
    assert ["record"] in COMMAND_HELP
    assert len(COMMAND_HELP) == 13


@pytest.mark.parametrize(
    "command", COMMAND_HELP, ids=lambda words: " ".join(words) or "phantom-log"
)
def test_every_help_has_examples_and_exit_codes(command: list[str]) -> None:
    text = run(*command, "--help").stdout
    assert "Examples:" in text
    examples = text.split("Examples:", 1)[1].split("Exit codes:", 1)[0]
    shown = [line.strip()[2:] for line in examples.splitlines() if line.strip().startswith("$ ")]
    assert shown and all(f"phantom-log {' '.join(command)}".rstrip() in line for line in shown)
    assert "Exit codes:" in text
    assert "  0  " in text and "  2  a usage error" in text


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_the_help_and_the_readme_give_is_a_script_for_the_shell(
    shell: str,
) -> None:
    """phantom-log --help and the README give the same line per shell, and the
    environment variable it names makes phantom-log print that shell's script."""
    source = f"_PHANTOM_LOG_COMPLETE={shell}_source phantom-log"
    assert source in run("--help").stdout
    assert source in (REPO / "README.md").read_text(encoding="utf-8")
    script = CliRunner().invoke(
        main, [], env={"_PHANTOM_LOG_COMPLETE": f"{shell}_source"}, prog_name="phantom-log"
    )
    assert script.exit_code == 0
    assert f"_PHANTOM_LOG_COMPLETE={shell}_complete" in script.stdout
    typed = CliRunner().invoke(
        main,
        [],
        env={
            "_PHANTOM_LOG_COMPLETE": "bash_complete",
            "COMP_WORDS": "phantom-log verify exa",
            "COMP_CWORD": "2",
        },
        prog_name="phantom-log",
    )
    assert typed.stdout.splitlines() == ["file,exa"]


def completions(words: str, incomplete: str) -> list[tuple[str, str]]:
    """What bash completion offers (value, type) for a command line being typed."""
    from click.shell_completion import BashComplete

    complete = BashComplete(main, {}, "phantom-log", "_PHANTOM_LOG_COMPLETE")
    return [(item.value, item.type) for item in complete.get_completions(words.split(), incomplete)]


def test_completion_offers_commands_options_and_paths() -> None:
    assert ("verify", "plain") in completions("", "ver")
    assert ("--format", "plain") in completions("verify", "--for")
    # File arguments and file options complete as paths (the shell lists the files).
    assert completions("verify", "exa") == [("exa", "file")]
    assert completions("stats x.jsonl -o", "out") == [("out", "file")]
    assert completions("show", "g") == [("g", "file")]
    assert ("json", "plain") in completions("annotate x.json --format", "j")


# --- show says what happened; stats' curve reads as rows -----------------------------------


WALKTHROUGH_PATH = str(REPO / "examples" / "rulebook-walkthrough.json")


def test_show_states_the_result_at_the_end() -> None:
    lines = run("show", WALKTHROUGH_PATH).stdout.splitlines()
    assert "Result: Christine wins with 9 notes completed (round 2, trick 10)" in lines
    assert any(line.startswith("Round 2, trick 10: ") for line in lines)
    assert lines[-1].startswith("Legend: ")


def test_show_at_a_trick_explains_the_trick_just_played() -> None:
    text = run("show", WALKTHROUGH_PATH, "--at", "2.4").stdout
    assert "Round 2, trick 4: Ch3 shows the special number 3" in text
    assert "Result:" not in text  # the game goes on after 2.4
    assert "Round 1, trick" not in run("show", WALKTHROUGH_PATH, "--at", "2.0").stdout


def test_stats_curve_without_by_is_a_row_per_trick() -> None:
    lines = run("stats", WALKTHROUGH_PATH, "--curve").stdout.splitlines()
    assert lines[0].split() == ["trick", "mean_notes", "share_running", "games"]
    assert [line.split()[0] for line in lines[1:]] == [str(trick) for trick in range(1, 21)]
    # One group of figures still reads as a column.
    figures = run("stats", WALKTHROUGH_PATH).stdout.splitlines()
    assert figures[0].split() == ["all"]


@pytest.mark.parametrize("command", ["annotate", "show"])
def test_an_analysis_file_that_cannot_be_read_is_refused_before_any_output(
    command: str, tmp_path: Path
) -> None:
    """annotate and show take --analysis, --analyse and --time-limit alike: a missing
    file is a usage error (exit 2) before the first line is written, and the two ways
    of getting an analysis are refused together."""
    record = WALKTHROUGH_PATH
    missing = str(tmp_path / "missing.jsonl")
    result = CliRunner().invoke(main, [command, record, "--analysis", missing])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"--analysis {missing}: No such file or directory" in result.stderr
    both = CliRunner().invoke(main, [command, record, "--analysis", missing, "--analyse"])
    assert both.exit_code == 2
    assert "--analysis FILE and --analyse: give one of them" in both.stderr
