"""The documentation lives in the repository and agrees with the code.

Every relative link of the README, of ``docs/*.md`` and of ``benchmarks/RESULTS.md`` leads
to a file of the repository (and to a heading that exists, when it names one); no document
sends the reader outside the repository (``../shared``, ``RULES.md``, ``FORMAT.md``);
``docs/format.md`` lists every problem code with its severity and every exit code;
``docs/rules.md`` states every decision and names the worked example's record.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import pytest

from phantom_log.checking.verdict import check_record, read_sheets
from phantom_log.rules.problems import WARNING_CODES, Code
from phantom_log.tournament.cross_checks import TournamentCode
from tests.helpers.paths import REPO

DOCS = sorted((REPO / "docs").glob("*.md"))
RESULTS = REPO / "benchmarks" / "RESULTS.md"
DOCUMENTS = [REPO / "README.md", *DOCS, RESULTS]
FORMAT = REPO / "docs" / "format.md"
RULES = REPO / "docs" / "rules.md"

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target), the text possibly over several lines; a target
# holds no spaces (none of ours is written <with spaces>).
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+(\S+)", re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...

#: The exit codes of every command that reads records, and the two signals' codes.
EXIT_CODES = (0, 1, 2, 3, 130, 143, 129)
TOURNAMENT_WARNINGS = frozenset({TournamentCode.DUPLICATE_DEAL, TournamentCode.DUPLICATE_RECORD})


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def without_code(text: str) -> str:
    """The text without fenced code blocks (whose lines are no headings and no links)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as
    hyphens (``### `verify --format json` `` is ``verify---format-json``)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor of a Markdown file's headings, repeated ones numbered as GitHub does."""
    seen: Counter[str] = Counter()
    found = set()
    for _hashes, title in HEADING.findall(without_code(read(path))):
        base = slug(title)
        found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
        seen[base] += 1
    return found


def links(path: Path) -> list[str]:
    text = INLINE_CODE.sub("", without_code(read(path)))
    return INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)


def relative_links() -> list[tuple[Path, str]]:
    return [
        (document, target)
        for document in DOCUMENTS
        for target in links(document)
        if not EXTERNAL.match(target)
    ]


RELATIVE_LINKS = relative_links()


def link_id(case: tuple[Path, str]) -> str:
    document, target = case
    return f"{document.relative_to(REPO)}->{target}"


def section(text: str, title: str) -> str:
    """A section of a Markdown text: from its heading to the next heading of its level or
    above."""
    match = re.search(rf"^(#+) {re.escape(title)}\s*$", text, re.MULTILINE)
    assert match, f"no section {title!r}"
    level = len(match.group(1))
    rest = text[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest if end is None else rest[: end.start()]


def table_rows(text: str) -> dict[str, list[str]]:
    """The rows of the Markdown tables of a text, by their first cell (code spans kept)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    return rows


def test_the_docs_are_there() -> None:
    assert FORMAT.is_file()
    assert RULES.is_file()
    assert RESULTS.is_file()
    assert len(RELATIVE_LINKS) > 20  # the link pattern finds the links


@pytest.mark.parametrize("case", RELATIVE_LINKS, ids=[link_id(c) for c in RELATIVE_LINKS])
def test_relative_link_resolves_inside_the_repository(case: tuple[Path, str]) -> None:
    document, target = case
    address, _, anchor = target.partition("#")
    destination = (document.parent / unquote(address)).resolve() if address else document
    assert destination.is_relative_to(REPO), f"{target} leads outside the repository"
    assert ".venv" not in destination.relative_to(REPO).parts
    assert destination.exists(), f"{target} does not exist"
    if anchor:
        assert destination.suffix == ".md", f"{target}: an anchor in a file that is no Markdown"
        assert anchor in anchors(destination), f"{target}: no such heading"


def test_slugs_are_githubs() -> None:
    assert slug("The rulebook's worked example") == "the-rulebooks-worked-example"
    assert slug("`verify --format json`") == "verify---format-json"
    assert slug("Filling the sheet: notes in order and out of order") == (
        "filling-the-sheet-notes-in-order-and-out-of-order"
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_no_document_points_outside_the_repository(document: Path) -> None:
    text = read(document)
    assert "../shared" not in text
    # The internal specification's files are not in a clone: docs/rules.md and
    # docs/format.md are what a reader has.
    assert not re.search(r"\b(RULES|FORMAT|ENGINEERING)\.md\b", text)


@pytest.mark.parametrize("code", list(Code), ids=[code.value for code in Code])
def test_every_problem_code_is_in_the_format_with_its_severity(code: Code) -> None:
    rows = table_rows(section(read(FORMAT), "Problem codes"))
    cell = f"`{code.value}`"
    assert cell in rows, f"{code.value} is not in docs/format.md's codes"
    severity = "warning" if code in WARNING_CODES else "error"
    assert rows[cell][0] == severity


TOURNAMENT_CODES = [value for name, value in vars(TournamentCode).items() if name.isupper()]


@pytest.mark.parametrize("code", TOURNAMENT_CODES)
def test_every_tournament_code_is_in_the_format_with_its_severity(code: str) -> None:
    rows = table_rows(section(read(FORMAT), "The codes across records (`tournament check`)"))
    cell = f"`{code}`"
    assert cell in rows, f"{code} is not in docs/format.md's tournament codes"
    assert rows[cell][0] == ("warning" if code in TOURNAMENT_WARNINGS else "error")


@pytest.mark.parametrize("exit_code", EXIT_CODES)
def test_every_exit_code_is_in_the_format(exit_code: int) -> None:
    rows = table_rows(section(read(FORMAT), "Exit codes"))
    listed = {number.strip() for first in rows for number in first.split(",")}
    assert str(exit_code) in listed


def test_the_format_names_every_key_of_the_schema() -> None:
    schema = json.loads(read(REPO / "schemas" / "game-record-1.schema.json"))
    keys = set(schema["properties"])
    for definition in schema["$defs"].values():
        keys |= set(definition.get("properties", {}))
    assert {"format", "game_id", "rounds", "plays", "swap", "bars"} <= keys
    text = read(FORMAT)
    for key in sorted(keys):
        assert re.search(rf"`(?:[\w\[\]]+\.)?{key}`", text), f"{key} is not in docs/format.md"


def test_the_rules_state_every_decision_and_the_worked_example() -> None:
    text = read(RULES)
    decisions = table_rows(section(text, "Decisions"))
    numbers = sorted(int(first[1:]) for first in decisions if re.fullmatch(r"D\d+", first))
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 9
    for number in numbers:
        # Each decision is stated where its rule is, and listed with its reason.
        assert f"**Decision** (D{number})" in text
        assert decisions[f"D{number}"][1], f"D{number} has no reason"
    assert "examples/rulebook-walkthrough.json" in text


JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.DOTALL)


def test_the_formats_examples_are_valid() -> None:
    blocks = JSON_BLOCK.findall(read(FORMAT))
    (record,) = [json.loads(b) for b in blocks if '"format": "phantom-log/1"' in b]
    problems, replayed = check_record(record)
    assert [problem.code for problem in problems] == [Code.UNFINISHED]
    assert replayed is not None and replayed.result is not None
    assert replayed.result.notes == record["result"]["notes"]
    (sheets,) = [b for b in blocks if "phantom-log-sheets/1" in b]
    assert "waltz" in read_sheets(sheets.encode())
