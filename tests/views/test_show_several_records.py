"""``show`` shows one record: a path of several is refused with their count and how to
pick one (--index, --game-id), in the terminal, for --svg and for an --html page alike;
never its first record silently. ``--html DIR`` writes a page for each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import run
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples"
STAGE_1 = EXAMPLES / "tournament" / "stage-1.json"


def record_count(path: Path) -> int:
    """How many records verify reads from ``path``."""
    return len(run("verify", "--format", "json", path).stdout.splitlines())


@pytest.mark.parametrize("output", [[], ["--svg", "game.svg"], ["--html", "game.html"]])
def test_a_folder_of_records_is_refused_with_their_count(
    output: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    count = record_count(EXAMPLES)
    assert count > 30
    result = run("show", EXAMPLES, *output)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert (
        f"phantom-log: error: {EXAMPLES} holds {count} records, and show shows one: pick it "
        f"with --index N (0 to {count - 1}) or --game-id PATTERN"
    ) in result.stderr.splitlines()
    assert (
        f"    hint: phantom-log verify {EXAMPLES} lists them in that order; --html DIR writes "
        "a page for each"
    ) in result.stderr.splitlines()
    assert list(tmp_path.iterdir()) == []  # no picture, no page


def test_index_picks_a_record_in_verifys_order() -> None:
    names = [
        json.loads(line)["game_id"]
        for line in run("verify", "--format", "json", STAGE_1).stdout.splitlines()
    ]
    for index, game_id in enumerate(names):
        result = run("show", "--no-color", STAGE_1, "--index", index)
        assert result.exit_code == 0
        assert result.stdout.startswith(f"{STAGE_1}#{index} ({game_id}): ")


def test_a_selection_of_one_record_is_shown_and_of_several_refused() -> None:
    one = run("show", "--no-color", STAGE_1, "--game-id", "*/s1/t2")
    assert one.exit_code == 0
    assert one.stdout.startswith(f"{STAGE_1}#1 (example-open/s1/t2): ")
    both = run("show", STAGE_1, "--game-id", "example-open/*")
    assert both.exit_code == 2
    assert both.stdout == ""
    assert (
        f"{STAGE_1} holds 2 records selected by --game-id example-open/*, and show shows one"
        in both.stderr
    )


def test_standard_input_of_several_records_is_refused_and_index_picks_one() -> None:
    text = STAGE_1.read_text(encoding="utf-8")
    refused = run("show", "-", stdin=text)
    assert refused.exit_code == 2
    assert refused.stdout == ""
    assert (
        "phantom-log: error: standard input holds more than one record, and show shows one: "
        "pick it with --index N (from 0) or --game-id PATTERN"
    ) in refused.stderr.splitlines()
    assert "hint: --html DIR writes a page for each" in refused.stderr
    picked = run("show", "--no-color", "-", "--index", "1", stdin=text)
    assert picked.exit_code == 0
    assert picked.stdout.startswith("-#1 (example-open/s1/t2): ")


def test_a_file_of_one_record_is_shown_as_ever() -> None:
    result = run("show", "--no-color", EXAMPLES / "rulebook-walkthrough.json")
    assert result.exit_code == 0
    assert "After round 2, trick 10: 9 of 12 notes completed" in result.stdout


def test_html_dir_writes_a_page_for_each_record(tmp_path: Path) -> None:
    result = run("show", STAGE_1, "--html", tmp_path / "pages")
    assert result.exit_code == 0, result.output
    pages = sorted(path.name for path in (tmp_path / "pages").iterdir())
    assert len(pages) == record_count(STAGE_1) + 1 and "index.html" in pages
