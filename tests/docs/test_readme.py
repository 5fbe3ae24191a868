"""The README is the user's manual, and docs/ its reference: their commands, outputs and
examples must be the real ones.

Every ``console`` block line starting with ``$ phantom-log``, in the README and in each page
of docs/ (but docs/cli.md, which is the commands' own --help), is run through CliRunner
(from the repository's root, globs expanded, pipes between phantom-log commands and into
``head -n``/``tail -n`` followed) and its output compared with the lines below it; the
Python examples of the README and of docs/api.md run as doctests; the JSON record in the
README's format section must verify.
"""

from __future__ import annotations

import doctest
import glob
import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from phantom_log.checking.verdict import check_record
from phantom_log.cli import main
from phantom_log.rules.problems import Code
from tests.helpers.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
#: The documents whose console examples are run: the README, then docs/ but for the
#: generated command-line reference.
DOCUMENTS = [
    REPO / "README.md",
    *(page for page in sorted((REPO / "docs").glob("*.md")) if page.name != "cli.md"),
]
#: The checkout's folder for the files the README's examples write; git ignores what it holds.
SCRATCH = "scratch"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def console_examples(text: str) -> list[tuple[str, str]]:
    """The ``$ phantom-log`` commands of a Markdown text's console blocks, each with the
    output shown below it."""
    examples = []
    for kind, body in BLOCK.findall(text):
        if kind != "console":
            continue
        command: str | None = None
        output: list[str] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(output)))
                command, output = line[2:], []
            elif command is not None:
                output.append(line)
        if command is not None:
            examples.append((command, "\n".join(output)))
    return [(command, output) for command, output in examples if command.startswith("phantom-log")]


def run_pipeline(command: str) -> str:
    text: str | None = None
    for stage in command.split(" | "):
        words = shlex.split(stage)
        if words[0] == "phantom-log":
            args = [match for word in words[1:] for match in sorted(glob.glob(word)) or [word]]
            result = CliRunner().invoke(main, args, input=text, catch_exceptions=False)
            text = result.output
        elif words[0] in ("head", "tail") and words[1] == "-n":
            assert text is not None
            lines = text.splitlines()
            count = int(words[2])
            lines = lines[:count] if words[0] == "head" else lines[-count:]
            text = "\n".join(lines) + "\n"
        else:
            raise AssertionError(f"the README test cannot run {stage!r}")
    assert text is not None
    return text


def document_examples() -> list[tuple[str, str, str]]:
    """Every document's examples: its name, the command, the output shown."""
    return [
        (str(document.relative_to(REPO)), command, output)
        for document in DOCUMENTS
        for command, output in console_examples(document.read_text(encoding="utf-8"))
    ]


DOCUMENT_EXAMPLES = document_examples()
EXAMPLES = [(command, output) for _, command, output in DOCUMENT_EXAMPLES]
EXAMPLE_IDS = [f"{document}: {command}" for document, command, _ in DOCUMENT_EXAMPLES]

#: Every command the README shows at work (``record`` is a session on a terminal, which
#: tests/docs/test_readme_recorder.py types).
COMMANDS = (
    "verify",
    "annotate",
    "show",
    "analyse",
    "simulate",
    "export",
    "stats",
    "tournament check",
    "convert",
    "schema",
)


def test_the_readme_shows_every_command_with_its_output() -> None:
    shown = [command for command, _ in console_examples(README)]
    for name in COMMANDS:
        assert any(command.startswith(f"phantom-log {name}") for command in shown), name
    assert all(output.strip() for _, output in console_examples(README))


def test_the_readme_is_a_manual() -> None:
    """The user's manual stays short: the reference is in docs/, the benchmark figures in
    benchmarks/RESULTS.md."""
    assert len(README.splitlines()) <= 900


def test_the_docs_examples_are_collected() -> None:
    pages = {document for document, _, _ in DOCUMENT_EXAMPLES}
    assert {"README.md", "docs/commands.md"} <= pages


def as_from_the_root(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as from the repository's root, but write any output file in a fresh folder:
    the inputs linked, an empty scratch folder as a fresh checkout has."""
    for name in ("examples", "schemas"):
        (folder / name).symlink_to(REPO / name)
    (folder / SCRATCH).mkdir()
    monkeypatch.chdir(folder)


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=EXAMPLE_IDS)
def test_readme_command_output_is_real(
    command: str, expected: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    as_from_the_root(tmp_path, monkeypatch)
    assert run_pipeline(command).rstrip("\n") == expected.rstrip("\n")
    # Whatever it writes is in the scratch folder, none of it beside the checkout's files.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["examples", "schemas", SCRATCH]


WRITING_EXAMPLES = [example for example in DOCUMENT_EXAMPLES if f" {SCRATCH}/" in example[1]]
WRITING = [(command, output) for _, command, output in WRITING_EXAMPLES]
WRITING_IDS = [f"{document}: {command}" for document, command, _ in WRITING_EXAMPLES]


def test_the_readme_has_examples_that_write_files() -> None:
    written = " ".join(command for command, _ in WRITING)
    for name in ("games.csv", "tricks.parquet", "valid.jsonl", "walkthrough.html", "stage-1"):
        assert f"{SCRATCH}/{name}" in written


@pytest.mark.parametrize(("command", "expected"), WRITING, ids=WRITING_IDS)
def test_the_readme_examples_that_write_files_can_be_run_twice(
    command: str, expected: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Run again over the files the first run wrote, the command says the same (no
    "exists" refusal, exit 2); the files are written again."""
    as_from_the_root(tmp_path, monkeypatch)
    assert run_pipeline(command).rstrip("\n") == expected.rstrip("\n")
    first = {path: path.stat().st_ino for path in (tmp_path / SCRATCH).rglob("*")}
    assert first
    assert run_pipeline(command).rstrip("\n") == expected.rstrip("\n")
    again = {path: path.stat().st_ino for path in (tmp_path / SCRATCH).rglob("*")}
    assert set(again) == set(first)
    files = [path for path in first if path.is_file()]
    assert all(again[path] != first[path] for path in files)  # each replaced, atomically


def test_the_scratch_folder_is_in_the_checkout_and_git_ignores_what_it_holds() -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: nothing to ask git about")

    def ignored(path: str) -> bool:
        done = subprocess.run(
            ["git", "-C", str(REPO), "check-ignore", "--no-index", "-q", path], check=False
        )
        assert done.returncode in (0, 1)
        return done.returncode == 0

    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", f"{SCRATCH}/"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert listed.stdout == f"{SCRATCH}/.gitignore\n"  # the folder is in every checkout
    for command, _ in WRITING:
        for word in shlex.split(command):
            if word.startswith(f"{SCRATCH}/"):
                assert ignored(word), word
                assert ignored(f"{word}/index.html"), word
    assert not ignored(f"{SCRATCH}/.gitignore")


@pytest.mark.parametrize("page", ["README.md", "docs/api.md"])
def test_readme_python_examples(page: str) -> None:
    parser = doctest.DocTestParser()
    path = REPO / page
    test = parser.get_doctest(path.read_text(encoding="utf-8"), {}, page, str(path), 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_readme_record_example_verifies() -> None:
    records = [json.loads(body) for kind, body in BLOCK.findall(README) if kind == "json"]
    record = next(r for r in records if r.get("format") == "phantom-log/1")
    problems, replayed = check_record(record)
    assert [problem.code for problem in problems] == [Code.UNFINISHED]
    assert replayed is not None and replayed.result is not None
    assert replayed.result.notes == record["result"]["notes"]


def test_readme_sheets_example_is_a_valid_sheets_file() -> None:
    from phantom_log.checking.verdict import read_sheets

    (body,) = [b for kind, b in BLOCK.findall(README) if kind == "json" and "sheets/1" in b]
    sheets = read_sheets(body.encode())
    assert isinstance(sheets, dict) and "waltz" in sheets


def test_readme_install_and_test_commands_match_ci() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    for command in [
        "pip install . && phantom-log verify examples/*.json",
        "pip install -e '.[dev]' && pytest",
    ]:
        assert command in README
        assert command.replace("pip install", "pip install -q") in ci


def test_the_architecture_page_runs() -> None:
    """docs/architecture.md's visitors give the output it shows."""
    failures, tried = doctest.testfile(
        str(REPO / "docs" / "architecture.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert tried > 10
    assert failures == 0


def test_the_engine_page_runs() -> None:
    """docs/engine.md's session with the state machine gives the output it shows."""
    failures, _ = doctest.testfile(
        str(REPO / "docs" / "engine.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert failures == 0
