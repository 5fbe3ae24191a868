"""docs/cli.md is the commands' own --help (scripts/cli_reference.py writes it)."""

from __future__ import annotations

from scripts.cli_reference import REFERENCE, reference


def test_cli_reference_is_up_to_date() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md is out of date: run python scripts/cli_reference.py"
    )


def test_every_command_is_in_the_reference() -> None:
    text = reference()
    for command in ["verify", "annotate", "show", "analyse", "simulate", "export", "stats"]:
        assert f"## `phantom-log {command}`" in text
    assert "## `phantom-log schema`" in text
    assert "## `phantom-log tournament check`" in text
