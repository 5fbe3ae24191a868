"""Write docs/cli.md, the command-line reference, from the commands' own --help.

    python scripts/cli_reference.py          # rewrite docs/cli.md
    python scripts/cli_reference.py --check  # exit 1 if docs/cli.md is out of date

tests/docs/test_cli_reference.py runs the check, so the reference never drifts from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

from phantom_log.cli import main

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    """Every command below a group, as argument lists, in order."""
    found = []
    for name in sorted(group.commands):
        command = group.commands[name]
        found.append([*prefix, name])
        if isinstance(command, click.Group):
            found.extend(commands(command, [*prefix, name]))
    return found


def reference() -> str:
    """The reference: the help of the program and of each command."""
    runner = CliRunner()
    parts = [
        "# Command-line reference\n\n"
        "Generated from `--help` by `scripts/cli_reference.py`; do not edit by hand.\n"
    ]
    for args in [[], *commands(main, [])]:
        title = " ".join(["phantom-log", *args])
        text = runner.invoke(main, [*args, "--help"], prog_name="phantom-log", terminal_width=88)
        parts.append(f"\n## `{title}`\n\n```\n{text.output.rstrip()}\n```\n")
    return "".join(parts)


def run() -> None:
    text = reference()
    if "--check" in sys.argv[1:]:
        if REFERENCE.read_text(encoding="utf-8") != text:
            print(f"{REFERENCE} is out of date: run python scripts/cli_reference.py")
            sys.exit(1)
        return
    REFERENCE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    run()
