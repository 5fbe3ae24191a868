"""Batch checking as organisers need it: problems counted per code, the valid and the
invalid records written apart as they were read, records selected by game id, player or
event in every command, manifests never read as records, and plotting as an extra."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.helpers.cli import run
from tests.helpers.installs import installed_from
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples"
TOURNAMENT = EXAMPLES / "tournament"
MANIFEST = TOURNAMENT / "example-open.manifest.json"
STAGES = [str(TOURNAMENT / f"stage-{stage}.json") for stage in (1, 2, 3)]


def records(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else [data]


def tournament_records() -> list[dict[str, Any]]:
    return [record for stage in STAGES for record in records(Path(stage))]


def compact(record: Any) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


REVOKE = compact(records(EXAMPLES / "invalid" / "revoke.json")[0])
BROKEN = b'{"format": "phantom-log/1", "game_id": "cut-short", "players": {'


@pytest.fixture
def batch(tmp_path: Path) -> tuple[Path, list[bytes], list[bytes]]:
    """A JSON Lines batch: five valid records (one with a CRLF line break, the last one
    without a line break), a revoking record and a line that is not JSON; and the lines
    of each kind, as written."""
    valid = [compact(record) + b"\n" for record in tournament_records()]
    valid[1] = valid[1][:-1] + b"\r\n"
    invalid = [REVOKE + b"\n", BROKEN + b"\n"]
    lines = [valid[0], invalid[0], valid[1], valid[2], invalid[1], valid[3], valid[4][:-1]]
    path = tmp_path / "batch.jsonl"
    path.write_bytes(b"".join(lines))
    return path, valid, invalid


# -- the problems counted per code -------------------------------------------------------


def test_verify_ends_with_the_problems_counted_per_code() -> None:
    result = run("verify", EXAMPLES / "invalid")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[-2] == "30 records: 1 valid, 29 invalid, 1 warning"
    assert lines[-1].startswith("by code: bad-deal 3, bad-exchange 3, ")
    counts = dict(item.rsplit(" ", 1) for item in lines[-1].removeprefix("by code: ").split(", "))
    assert counts["revoke"] == "1"
    assert counts["unfinished"] == "1"
    assert sum(int(count) for count in counts.values()) == 30


def test_counts_are_of_problems_most_frequent_first_then_by_code(tmp_path: Path) -> None:
    two_revokes = tmp_path / "two.jsonl"
    two_revokes.write_bytes(REVOKE + b"\n" + REVOKE + b"\n" + BROKEN + b"\n")
    result = run("verify", two_revokes)
    assert result.stdout.splitlines()[-1] == "by code: revoke 2, json 1"


def test_no_count_line_without_problems_nor_with_quiet() -> None:
    result = run("verify", *STAGES)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "5 records: 5 valid, 0 invalid, 0 warnings"
    result = run("verify", "--quiet", EXAMPLES / "invalid" / "revoke.json")
    assert "by code" not in result.stdout


def test_json_output_stays_one_object_per_record() -> None:
    result = run("verify", "--format", "json", EXAMPLES / "invalid")
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(objects) == 30
    assert all(set(item) >= {"source", "index", "valid", "problems"} for item in objects)


# -- the valid and the invalid records, as they were read --------------------------------


def test_valid_and_invalid_out_are_the_lines_as_read(
    batch: tuple[Path, list[bytes], list[bytes]], tmp_path: Path
) -> None:
    path, valid, invalid = batch
    good, bad = tmp_path / "valid.jsonl", tmp_path / "invalid.jsonl"
    result = run("verify", path, "--valid-out", good, "--invalid-out", bad, "-q")
    assert result.exit_code == 1
    # Byte for byte, in input order; the last line gets the line break it lacked.
    assert good.read_bytes() == b"".join(valid)
    assert bad.read_bytes() == b"".join(invalid)
    # Read again, the files give the same verdicts.
    assert run("verify", good).exit_code == 0
    again = run("verify", bad)
    assert again.stdout.splitlines()[-1] == "by code: json 1, revoke 1"


def test_only_one_of_the_outputs(
    batch: tuple[Path, list[bytes], list[bytes]], tmp_path: Path
) -> None:
    path, _, invalid = batch
    bad = tmp_path / "invalid.jsonl"
    assert run("verify", path, "--invalid-out", bad, "--format", "json").exit_code == 1
    assert bad.read_bytes() == b"".join(invalid)


def test_array_elements_are_written_as_they_were_read(tmp_path: Path) -> None:
    elements = [compact(record) for record in tournament_records()[:2]]
    one_line = tmp_path / "one-line.json"
    one_line.write_bytes(b"[" + elements[0] + b",\n " + REVOKE + b", " + elements[1] + b"]\n")
    good, bad = tmp_path / "valid.jsonl", tmp_path / "invalid.jsonl"
    assert run("verify", one_line, "--valid-out", good, "--invalid-out", bad).exit_code == 1
    assert good.read_bytes() == elements[0] + b"\n" + elements[1] + b"\n"
    assert bad.read_bytes() == REVOKE + b"\n"


def test_a_record_over_several_lines_is_put_on_one(tmp_path: Path) -> None:
    good = tmp_path / "valid.jsonl"
    result = run("verify", STAGES[0], "--valid-out", good)
    assert result.exit_code == 0
    lines = good.read_bytes().splitlines(keepends=True)
    assert len(lines) == 2
    assert [json.loads(line) for line in lines] == records(Path(STAGES[0]))
    # Only the line breaks and the indentation after them are gone.
    text = Path(STAGES[0]).read_bytes()
    assert lines[0].rstrip(b"\n") in b"".join(part.strip() for part in text.splitlines())


def test_a_broken_document_goes_to_invalid_out_on_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "invalid.jsonl"
    result = run("verify", EXAMPLES / "invalid" / "json.json", "--invalid-out", bad)
    assert result.exit_code == 1
    assert bad.read_bytes().count(b"\n") == 1
    assert "json: " in run("verify", bad).stdout


def test_an_unreadable_record_is_in_neither_file(tmp_path: Path) -> None:
    source = tmp_path / "games.jsonl"
    long_line = compact(tournament_records()[0])
    source.write_bytes(b'{"x": "' + b"a" * 2 * len(long_line) + b'"}\n' + long_line + b"\n")
    good, bad = tmp_path / "valid.jsonl", tmp_path / "invalid.jsonl"
    limit = str(len(long_line) + 100)
    result = run(
        "verify", source, "--max-record-size", limit, "--valid-out", good, "--invalid-out", bad
    )
    assert result.exit_code == 3
    assert good.read_bytes() == long_line + b"\n"
    assert bad.read_bytes() == b""


def test_outputs_are_never_overwritten_without_force(
    batch: tuple[Path, list[bytes], list[bytes]], tmp_path: Path
) -> None:
    path, valid, _ = batch
    good = tmp_path / "valid.jsonl"
    good.write_bytes(b"keep me\n")
    result = run("verify", path, "--valid-out", good)
    assert result.exit_code == 2
    assert result.stderr == f"phantom-log: error: {good} exists; use --force to overwrite it\n"
    assert result.stdout == ""  # refused before any work
    assert good.read_bytes() == b"keep me\n"
    assert run("verify", path, "--valid-out", good, "--force").exit_code == 1
    assert good.read_bytes() == b"".join(valid)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--valid-out", "{tmp}/same.jsonl", "--invalid-out", "{tmp}/same.jsonl"], "same file"),
        (["--valid-out", "{input}"], "it is an input"),
        (["--invalid-out", "{tmp}/inside/x.jsonl", "{tmp}/inside"], "inside the input folder"),
        (["--valid-out", "{tmp}/valid.json"], "give a .jsonl or .ndjson file"),
        (["--valid-out", "-"], "give a .jsonl or .ndjson file"),
        (["--valid-out", "{tmp}/no/such/folder/v.jsonl"], "does not exist"),
    ],
)
def test_clashing_outputs_are_refused_before_any_work(
    batch: tuple[Path, list[bytes], list[bytes]],
    tmp_path: Path,
    arguments: list[str],
    message: str,
) -> None:
    path, _, _ = batch
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "a.jsonl").write_bytes(REVOKE + b"\n")
    before = path.read_bytes()
    args = [arg.format(tmp=tmp_path, input=path) for arg in arguments]
    result = run("verify", path, *args, "--force")
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""
    assert path.read_bytes() == before
    assert not (tmp_path / "same.jsonl").exists()


def test_no_output_file_when_the_run_holds_no_records(tmp_path: Path) -> None:
    good = tmp_path / "valid.jsonl"
    result = run("verify", MANIFEST, "--valid-out", good)
    assert result.exit_code == 2
    assert not good.exists()


# -- selecting records -----------------------------------------------------------------


def verified_ids(result: Result) -> list[str]:
    return [json.loads(line)["game_id"] for line in result.stdout.splitlines()]


@pytest.mark.parametrize(
    ("selectors", "expected"),
    [
        (["--game-id", "example-open/s2/t1"], ["example-open/s2/t1"]),
        (["--game-id", "example-open/s1/*"], ["example-open/s1/t1", "example-open/s1/t2"]),
        (
            ["--game-id", "*/s1/t1", "--game-id", "*/s3/*"],
            ["example-open/s1/t1", "example-open/s3/t1"],
        ),
        # Names as identity.person_key compares them: case and spaces do not count.
        (["--player", "  choi "], ["example-open/s1/t2", "example-open/s2/t2"]),
        (["--player", "P?RK"], ["example-open/s1/t2", "example-open/s2/t1", "example-open/s3/t1"]),
        (["--player", "kim", "--game-id", "*/s2/*"], ["example-open/s2/t2"]),
        (
            ["--event", "example open 2026", "--game-id", "*t2"],
            ["example-open/s1/t2", "example-open/s2/t2"],
        ),
        (["--event", "*rulebook*"], ["rulebook-walkthrough"]),
        # The game id compared by game_key: an invisible character does not count.
        (["--game-id", "example-open/s3\u200b/t1"], ["example-open/s3/t1"]),
    ],
)
def test_verify_selects_records(selectors: list[str], expected: list[str]) -> None:
    result = run(
        "verify", "--format", "json", *STAGES, EXAMPLES / "rulebook-walkthrough.json", *selectors
    )
    assert result.exit_code == 0, result.output
    assert verified_ids(result) == expected


def test_the_index_stays_the_records_place_in_its_file() -> None:
    result = run("verify", "--format", "json", STAGES[1], "--game-id", "*/t2")
    assert [json.loads(line)["index"] for line in result.stdout.splitlines()] == [1]


def test_a_record_without_a_readable_id_is_not_selected(
    batch: tuple[Path, list[bytes], list[bytes]],
) -> None:
    path, _, _ = batch
    result = run("verify", "--format", "json", path, "--game-id", "*")
    assert verified_ids(result) == [
        "example-open/s1/t1",
        "invalid/revoke",
        "example-open/s1/t2",
        "example-open/s2/t1",
        "example-open/s2/t2",
        "example-open/s3/t1",
    ]  # not the line that is not JSON


def test_an_unreadable_source_is_reported_whatever_the_selection(tmp_path: Path) -> None:
    source = tmp_path / "big.json"
    source.write_bytes(b"[" + b" " * 20_000 + b"]")
    result = run("verify", source, STAGES[0], "--game-id", "*/t1", "--max-record-size", "16K")
    assert result.exit_code == 3
    assert "unreadable" in result.stdout
    assert "example-open/s1/t1" in result.stdout


def test_a_selection_that_matches_nothing_is_a_usage_error() -> None:
    result = run("verify", *STAGES, "--player", "nobody", "--game-id", "x*")
    assert result.exit_code == 2
    assert result.stderr == (
        "phantom-log: error: no record of the paths given is selected by --game-id x* "
        "--player nobody\n"
    )


def test_selection_with_valid_out(tmp_path: Path) -> None:
    good = tmp_path / "valid.jsonl"
    assert run("verify", *STAGES, "--player", "lee", "--valid-out", good).exit_code == 0
    assert [json.loads(line)["game_id"] for line in good.read_bytes().splitlines()] == [
        "example-open/s1/t1",
        "example-open/s2/t1",
    ]


def test_selection_on_several_processes_is_the_same(
    batch: tuple[Path, list[bytes], list[bytes]],
) -> None:
    path, _, _ = batch
    one = run("verify", path, "--player", "kim", "--jobs", "1")
    two = run("verify", path, "--player", "kim", "--jobs", "2")
    assert one.stdout == two.stdout
    assert one.stdout.count(": valid: ") == 3


def test_annotate_selects_records() -> None:
    result = run("annotate", "--format", "json", *STAGES, "--game-id", "*/s3/t1")
    assert result.exit_code == 0
    ids = {json.loads(line)["game_id"] for line in result.stdout.splitlines()}
    assert ids == {"example-open/s3/t1"}


def test_show_selects_records_and_counts_index_among_them() -> None:
    result = run("show", STAGES[1], "--player", "choi")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{STAGES[1]}#1 (example-open/s2/t2)")
    result = run("show", STAGES[1], "--player", "choi", "--index", "1")
    assert result.exit_code == 2
    assert "holds 1 record(s)" in result.stderr


def test_export_selects_records(tmp_path: Path) -> None:
    games = tmp_path / "games.jsonl"
    result = run("export", *STAGES, "--games", games, "--event", "Example*", "--player", "park")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in games.read_text().splitlines()]
    assert sorted(row["game_id"] for row in rows) == [
        "example-open/s1/t2",
        "example-open/s2/t1",
        "example-open/s3/t1",
    ]


def test_stats_selects_records() -> None:
    result = run("stats", *STAGES, "--format", "json", "--player", "kim", "-q")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["games"] == 3


def test_tournament_check_selects_records() -> None:
    result = run("tournament", "check", *STAGES, "--game-id", "*/s1/*", "--format", "json", "-q")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["records"] == 2


def test_analyse_selects_records() -> None:
    result = run("analyse", *STAGES, "--game-id", "*/s3/t1", "--from", "2.10", "-j", "1")
    assert result.exit_code != 2, result.output
    # The table's title line of each record analysed names it.
    titles = [line for line in result.stdout.splitlines() if "#" in line and "(example-" in line]
    assert titles
    assert all("(example-open/s3/t1)" in line for line in titles)


def test_every_command_that_reads_records_has_the_selectors() -> None:
    for command in [
        ["verify"],
        ["annotate"],
        ["show"],
        ["export"],
        ["stats"],
        ["analyse"],
        ["tournament", "check"],
    ]:
        text = run(*command, "--help").stdout
        for option in ("--game-id PATTERN", "--player PATTERN", "--event PATTERN"):
            assert option in text, (command, option)


# -- manifests are not records ---------------------------------------------------------


def test_tournament_check_of_the_folder_uses_the_manifest_in_it() -> None:
    given = run("tournament", "check", "--manifest", MANIFEST, *STAGES)
    found = run("tournament", "check", TOURNAMENT)
    assert found.exit_code == given.exit_code == 1
    assert found.stdout == given.stdout
    assert "schema" not in found.stdout
    assert found.stderr == (
        f"phantom-log: note: using the manifest {MANIFEST} (found among the paths)\n"
    )


def test_the_manifest_given_is_not_read_as_a_record_either() -> None:
    result = run("tournament", "check", "--manifest", MANIFEST, TOURNAMENT, "-q")
    assert result.exit_code == 1
    assert result.stderr == ""
    assert "5 records: 4 valid, 1 invalid" in result.stdout


def test_another_manifest_is_skipped_with_a_note(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(MANIFEST.read_bytes())
    result = run("tournament", "check", "--manifest", MANIFEST, *STAGES, other, "-q")
    assert "5 records" in result.stdout
    assert result.stderr == (
        f"phantom-log: note: {other} is a tournament manifest, not a game record: skipped\n"
    )


def test_two_manifests_found_without_manifest_is_a_usage_error(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(MANIFEST.read_bytes())
    result = run("tournament", "check", TOURNAMENT, other, "-q")
    assert result.exit_code == 2
    assert "give the one to use with --manifest FILE" in result.stderr


def test_verify_and_export_skip_a_manifest(tmp_path: Path) -> None:
    result = run("verify", TOURNAMENT)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "5 records: 5 valid, 0 invalid, 0 warnings"
    assert result.stderr == (
        f"phantom-log: note: {MANIFEST} is a tournament manifest, not a game record: skipped\n"
    )
    result = run("export", EXAMPLES, "--games", tmp_path / "games.csv")
    assert "left out 29 invalid records of 40" in result.stderr


def test_a_manifest_alone_holds_no_records() -> None:
    result = run("verify", MANIFEST)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "phantom-log: error: the paths given hold no records"


def test_a_manifest_on_standard_input_is_recognised() -> None:
    result = run("verify", "-", stdin=MANIFEST.read_bytes())
    assert result.exit_code == 2
    assert "- is a tournament manifest" in result.stderr


# -- plotting is an extra ----------------------------------------------------------------


CHECKOUT = "/home/me/my games/phantom-log"
CHECKOUT_URL = "file:///home/me/my%20games/phantom-log"


@pytest.mark.parametrize(
    ("direct_url", "command"),
    [
        (None, "pip install 'phantom-log[plot]'"),
        (
            {"url": CHECKOUT_URL, "dir_info": {"editable": True}},
            f"pip install -e '{CHECKOUT}[plot]'",
        ),
        ({"url": CHECKOUT_URL, "dir_info": {}}, f"pip install '{CHECKOUT}[plot]'"),
        (
            {
                "url": "https://github.com/example/phantom-log.git",
                "vcs_info": {"vcs": "git", "commit_id": "0" * 40},
            },
            "pip install 'matplotlib>=3.8'",
        ),
    ],
    ids=["package-index", "editable-checkout", "checkout", "git"],
)
def test_plot_without_matplotlib_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    direct_url: dict[str, Any] | None,
    command: str,
) -> None:
    """The hint is a command that works where phantom-log came from: a checkout's folder
    (``pip install 'phantom-log[plot]'`` would fetch another copy, or fail), the package
    index's name, or for a repository the extra's requirement itself."""
    monkeypatch.syspath_prepend(str(installed_from(tmp_path / "site", direct_url)))
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run("stats", *STAGES, "--plot", tmp_path / "curve.svg")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"phantom-log: error: --plot draws with matplotlib, which is not installed: {command}\n"
    )
    assert not (tmp_path / "curve.svg").exists()


def test_run_from_a_source_tree_the_hint_installs_that_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not installed at all (the package found on PYTHONPATH): the checkout it runs from,
    which holds the pyproject.toml that pip reads."""
    import shlex
    from importlib import metadata

    from phantom_log.cli.extras import install_command

    def not_installed(name: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", not_installed)
    command = install_command("plot")
    assert command == "pip install -e " + shlex.quote(f"{REPO.resolve()}[plot]")
    folder = shlex.split(command)[-1].removesuffix("[plot]")
    assert (Path(folder) / "pyproject.toml").is_file()


def test_stats_without_plot_needs_no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert run("stats", *STAGES, "-q").exit_code == 0


def test_nothing_imports_matplotlib_or_numpy_at_import_time() -> None:
    code = (
        "import sys, phantom_log, phantom_log.cli, phantom_log.api, "
        "phantom_log.tabular.stats, phantom_log.tabular.plot; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'numpy'}))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output == "[]\n"


def test_verify_starts_without_polars_or_jsonschema() -> None:
    """``verify`` of valid records needs neither the tables library nor the wording
    schema checker: importing the CLI loads neither (each costs a few tenths of a second
    at start)."""
    code = (
        "import sys, phantom_log, phantom_log.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'polars', 'jsonschema'}))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output == "[]\n"
