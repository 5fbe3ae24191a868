"""Locales that are not UTF-8 (the reliability issue, second pass, point 6), through the
real commands in processes of their own: in the C locale without Python's UTF-8 mode,
with ``PYTHONIOENCODING=ascii`` or ``latin-1``, and in a real ISO-8859-1 locale built
with ``localedef``, records with Korean and accented names give every record's verdict,
the text for people in the stream's encoding with escapes for what it cannot hold, never
an error; JSON and CSV on standard output are UTF-8, and so is every file written; on a
terminal, and through a pager, too."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from tests.helpers.paths import WALKTHROUGH

KOREAN: Final = "김민수"
ACCENTED: Final = "Amélie"
ENVIRONMENTS: Final = {
    "C-without-utf8-mode": {"PYTHONUTF8": "0", "LC_ALL": "C"},
    "pythonioencoding-ascii": {"PYTHONIOENCODING": "ascii"},
    "pythonioencoding-latin-1": {"PYTHONIOENCODING": "latin-1"},
}
#: What each environment's streams are in.
ENCODINGS: Final = {
    "C-without-utf8-mode": "ascii",
    "pythonioencoding-ascii": "ascii",
    "pythonioencoding-latin-1": "latin-1",
    "iso-8859-1-locale": "latin-1",
}


@pytest.fixture(scope="module")
def latin_locale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A real en_US.ISO-8859-1 locale, built with localedef into a folder of its own."""
    if shutil.which("localedef") is None:
        pytest.skip("localedef is not installed: no ISO-8859-1 locale can be built")
    folder = tmp_path_factory.mktemp("locales")
    built = subprocess.run(
        ["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(folder / "en_US.ISO-8859-1")],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode not in (0, 1) or not (folder / "en_US.ISO-8859-1").exists():
        pytest.skip(f"localedef could not build en_US.ISO-8859-1: {built.stderr.strip()}")
    return {"LOCPATH": str(folder), "LC_ALL": "en_US.ISO-8859-1"}


@pytest.fixture(params=[*ENVIRONMENTS, "iso-8859-1-locale"])
def locale_environment(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, str]]:
    name: str = request.param
    if name == "iso-8859-1-locale":
        environment = request.getfixturevalue("latin_locale")
    else:
        environment = ENVIRONMENTS[name]
    return name, environment


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten games; the sixth with an accented id and player, the last with Korean ones."""
    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    lines = []
    for number in range(10):
        game = {**record, "game_id": f"g{number}"}
        if number == 5:
            game |= {"game_id": "café-5", "players": {"phantom": ACCENTED, "christine": "Lee"}}
        if number == 9:
            game |= {"game_id": "김-9", "players": {"phantom": KOREAN, "christine": "Lee"}}
        lines.append(json.dumps(game, ensure_ascii=False))
    path = tmp_path_factory.mktemp("names") / "games.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def clean(environment: dict[str, str]) -> dict[str, str]:
    """The test's environment with only the locale's variables set as given."""
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("LC_")
        and name not in ("LANG", "LANGUAGE", "PYTHONUTF8", "PYTHONIOENCODING", "LOCPATH")
        and name not in ("PAGER", "PHANTOM_LOG_PAGER")
    }
    return {**base, **environment}


def phantom_log(
    environment: dict[str, str], *args: str, cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        capture_output=True,
        env=clean(environment),
        cwd=cwd,
        timeout=300,
        check=False,
    )


def no_failure(completed: subprocess.CompletedProcess[bytes]) -> None:
    errors = completed.stderr.decode("utf-8", "replace")
    assert "internal error" not in errors and "Traceback" not in errors, errors
    assert completed.returncode == 0, errors


def escaped(text: str, encoding: str) -> str:
    return text.encode(encoding, "backslashreplace").decode(encoding)


def test_verify_prints_every_verdict_in_the_streams_encoding(
    locale_environment: tuple[str, dict[str, str]], records: Path, tmp_path: Path
) -> None:
    name, environment = locale_environment
    completed = phantom_log(environment, "verify", str(records), cwd=tmp_path)
    no_failure(completed)
    text = completed.stdout.decode(ENCODINGS[name])  # nothing the encoding cannot hold
    verdicts = [line for line in text.splitlines() if line.startswith(f"{records}#")]
    assert [line.split(" ")[0] for line in verdicts] == [f"{records}#{n}" for n in range(10)]
    assert all(": valid: " in line for line in verdicts)
    assert f"({escaped('café-5', ENCODINGS[name])})" in verdicts[5]
    assert f"({escaped('김-9', ENCODINGS[name])})" in verdicts[9]
    assert "10 records: 10 valid, 0 invalid" in text


@pytest.mark.parametrize(
    "command",
    [
        ["annotate"],
        ["show", "--index", "9"],
        ["stats", "--by", "player"],
        ["tournament", "check"],
        ["verify", "--quiet"],
    ],
    ids=lambda command: "-".join(command),
)
def test_text_for_people_escapes_what_the_encoding_cannot_hold(
    locale_environment: tuple[str, dict[str, str]],
    records: Path,
    tmp_path: Path,
    command: list[str],
) -> None:
    name, environment = locale_environment
    completed = phantom_log(environment, *command, str(records), cwd=tmp_path)
    no_failure(completed)
    text = completed.stdout.decode(ENCODINGS[name])
    if command[0] in ("annotate", "show", "stats", "tournament"):
        assert escaped(KOREAN, ENCODINGS[name]) in text
    if command[0] in ("annotate", "stats", "tournament"):
        assert escaped(ACCENTED, ENCODINGS[name]) in text


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "--format", "json"],
        ["annotate", "--format", "json"],
        ["stats", "--by", "player", "--format", "json"],
        ["tournament", "check", "--format", "json"],
    ],
    ids=lambda command: "-".join(command),
)
def test_json_on_standard_output_is_utf8_whatever_the_locale(
    locale_environment: tuple[str, dict[str, str]],
    records: Path,
    tmp_path: Path,
    command: list[str],
) -> None:
    _, environment = locale_environment
    completed = phantom_log(environment, *command, str(records), cwd=tmp_path)
    no_failure(completed)
    text = completed.stdout.decode("utf-8")
    if command[0] == "tournament":
        players = {row["player"] for row in json.loads(text)["standings"]}
        assert {KOREAN, ACCENTED} <= players
        return
    values = [json.loads(line) for line in text.splitlines()]
    if command[0] == "verify":
        assert [value["game_id"] for value in values][5::4] == ["café-5", "김-9"]
        assert len(values) == 10
    elif command[0] == "annotate":
        assert {value["game_id"] for value in values} >= {"café-5", "김-9"}
    else:
        assert {value["player"] for value in values} >= {KOREAN, ACCENTED}


@pytest.mark.parametrize(
    "command",
    [
        ["annotate", "--format", "csv"],
        ["stats", "--by", "player", "--format", "csv"],
        ["tournament", "check", "--format", "csv"],
        ["export", "--games", "-", "--format", "csv"],
    ],
    ids=lambda command: "-".join(command),
)
def test_csv_on_standard_output_is_utf8_whatever_the_locale(
    locale_environment: tuple[str, dict[str, str]],
    records: Path,
    tmp_path: Path,
    command: list[str],
) -> None:
    _, environment = locale_environment
    completed = phantom_log(environment, *command, str(records), cwd=tmp_path)
    no_failure(completed)
    cells = {
        cell for row in csv.reader(io.StringIO(completed.stdout.decode("utf-8"))) for cell in row
    }
    assert {"café-5", "김-9"} <= cells or {KOREAN, ACCENTED} <= cells


def test_every_file_written_is_utf8_whatever_the_locale(
    locale_environment: tuple[str, dict[str, str]], records: Path, tmp_path: Path
) -> None:
    _, environment = locale_environment
    runs = [
        ["verify", str(records), "-o", "report.txt"],
        ["annotate", str(records), "-o", "tricks.txt"],
        ["annotate", str(records), "-o", "tricks.csv"],
        ["stats", str(records), "--by", "player", "-o", "stats.csv"],
        ["tournament", "check", str(records), "-o", "standings.csv"],
        ["export", str(records), "--games", "games.csv", "--tricks", "tricks-table.csv"],
        ["show", str(records), "--index", "9", "--svg", "game.svg"],
        ["show", str(records), "--index", "9", "--html", "game.html"],
    ]
    for run in runs:
        no_failure(phantom_log(environment, *run, cwd=tmp_path))
    for name in ("report.txt", "tricks.txt", "tricks.csv", "tricks-table.csv"):
        text = (tmp_path / name).read_bytes().decode("utf-8")
        assert "café-5" in text and "김-9" in text, name
    for name in ("stats.csv", "standings.csv", "games.csv"):
        text = (tmp_path / name).read_bytes().decode("utf-8")
        assert KOREAN in text and ACCENTED in text, name
    for name in ("game.svg", "game.html"):
        assert KOREAN in (tmp_path / name).read_bytes().decode("utf-8"), name


def on_a_terminal(environment: dict[str, str], args: list[str], cwd: Path) -> tuple[int, bytes]:
    """Run phantom-log with its standard output and error on a pseudo-terminal; its exit
    code and the bytes that reached the terminal."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "phantom_log", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=clean({**environment, "COLUMNS": "120"}),
        cwd=cwd,
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        assert ready, "nothing reached the terminal for 60 s"
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return process.wait(timeout=60), shown


def test_a_terminal_and_its_pager_get_the_text_in_their_encoding(
    locale_environment: tuple[str, dict[str, str]], records: Path, tmp_path: Path
) -> None:
    name, environment = locale_environment
    encoding = ENCODINGS[name]
    code, shown = on_a_terminal(environment, ["verify", "--no-pager", str(records)], tmp_path)
    text = shown.decode(encoding)
    assert code == 0, text
    assert "internal error" not in text
    assert text.count(": valid: ") == 10
    assert escaped("김-9", encoding) in text
    paged = tmp_path / "paged.txt"
    pager = {**environment, "PHANTOM_LOG_PAGER": f"cat > {paged}"}
    code, shown = on_a_terminal(pager, ["annotate", str(records)], tmp_path)
    assert code == 0, shown.decode(encoding, "replace")
    text = paged.read_bytes().decode(encoding)
    assert escaped(KOREAN, encoding) in text and escaped(ACCENTED, encoding) in text
