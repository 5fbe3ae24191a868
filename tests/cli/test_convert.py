"""``phantom-log convert``: records to game text and back, through the shared output
options; what is no record, and what a form cannot keep, said on standard error."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from phantom_log.cli import main
from tests.helpers.paths import EXAMPLES, WALKTHROUGH


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["convert", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_record_goes_to_game_text_and_back_the_same(tmp_path: Path) -> None:
    text = tmp_path / "w.ptn"
    code, _, stderr = run(str(WALKTHROUGH), "-o", str(text))
    assert code == 0, stderr
    assert text.read_text(encoding="utf-8").startswith("game_id: rulebook-walkthrough\n")
    back = tmp_path / "w.json"
    code, _, stderr = run(str(text), "-o", str(back))
    assert code == 0, stderr
    assert json.loads(back.read_text("utf-8")) == json.loads(WALKTHROUGH.read_text("utf-8"))


def test_several_records_are_an_array_json_lines_or_texts_one_after_another(
    tmp_path: Path,
) -> None:
    paths = [str(WALKTHROUGH), str(EXAMPLES / "custom-sheet.json")]
    code, stdout, _ = run(*paths, "--format", "json")
    assert code == 0 and [r["game_id"] for r in json.loads(stdout)] == [
        "rulebook-walkthrough",
        "custom-sheet",
    ]
    code, stdout, _ = run(*paths, "--format", "jsonl")
    assert code == 0 and len(stdout.splitlines()) == 2
    code, stdout, _ = run(*paths)
    assert code == 0 and stdout.count("game_id: ") == 2
    night = tmp_path / "night.ptn"
    night.write_text(stdout, encoding="utf-8")
    code, stdout, _ = run(str(night), "--format", "jsonl")
    assert [json.loads(line)["game_id"] for line in stdout.splitlines()] == [
        "rulebook-walkthrough",
        "custom-sheet",
    ]


def test_what_is_no_record_is_reported_and_left_out_exit_1() -> None:
    code, stdout, stderr = run(
        str(WALKTHROUGH),
        str(EXAMPLES / "invalid" / "json.json"),
        str(EXAMPLES / "invalid" / "schema.json"),
    )
    assert code == 1
    assert stdout.count("game_id: ") == 1
    assert ": json: " in stderr and ": schema: " in stderr


def test_what_the_text_cannot_keep_is_said() -> None:
    code, _, stderr = run(str(EXAMPLES / "invalid" / "wrong-player.json"))
    assert code == 0
    assert "left out the x- keys: /x-broken" in stderr
    assert "it never names who plays" in stderr and "/rounds/1/tricks/4/plays/0/player" in stderr
    code, _, stderr = run(str(EXAMPLES / "invalid" / "wrong-player.json"), "--quiet")
    assert code == 0 and stderr == ""


def test_an_output_is_never_written_over_without_force(tmp_path: Path) -> None:
    out = tmp_path / "w.ptn"
    out.write_text("mine", encoding="utf-8")
    code, _, _ = run(str(WALKTHROUGH), "-o", str(out))
    assert code == 2 and out.read_text(encoding="utf-8") == "mine"
    code, _, _ = run(str(WALKTHROUGH), "-o", str(out), "--force")
    assert code == 0 and out.read_text(encoding="utf-8").startswith("game_id:")
    code, _, stderr = run(str(WALKTHROUGH), "-o", str(tmp_path / "w.ptn"), "--format", "json")
    assert code == 2 and "extension" in stderr
