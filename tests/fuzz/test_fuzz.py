"""The fuzz suite (the reliability issue, point 7): whatever the input, every command that
reads records and the Python API raise no traceback, report every record in order, exit
with a code of the documented class, and keep each record's report small and safe.

The checks are :mod:`tests.helpers.fuzz_harness`'s; the inputs are
:mod:`tests.helpers.fuzz_strategies`'s: structural
mutations of legal records (the examples and simulated games), byte-level damage, large
hostile values, the hostile cases the issue lists, and the JSON test suite.

The hypothesis tests run on a time budget, not a count of examples:
``PHANTOM_LOG_FUZZ_SECONDS`` (default 45) seconds in all, shared between them by the
weights below, so that the suite takes about a minute in CI; set it higher for a longer
search (``PHANTOM_LOG_FUZZ_SECONDS=1800 pytest tests/fuzz/test_fuzz.py``). Hypothesis keeps
every failure it finds in ``.hypothesis/`` and tries it first on the next run.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import UnsatisfiedAssumption

from tests.helpers.fuzz_harness import (
    Case,
    check_case,
    check_parallel,
    json_lines_count,
    single_source,
)
from tests.helpers.fuzz_strategies import (
    EXAMPLE_TEXTS,
    LEGAL_RECORDS,
    Nested,
    Raw,
    Repeated,
    cases,
    emit,
    heavy_records,
    json_test_suite_files,
    mutated_records,
)
from tests.helpers.paths import REPO

WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"

#: The seconds all the hypothesis tests of this file may take together.
FUZZ_SECONDS = float(os.environ.get("PHANTOM_LOG_FUZZ_SECONDS", "45"))


class _BudgetSpent(KeyboardInterrupt):
    """Raised in a test's example once its share of the budget is spent. Hypothesis lets a
    KeyboardInterrupt through at once (no shrinking, nothing saved), which ends its search
    cleanly; the test then passes."""


def fuzz(share: float) -> Callable[[Callable[[Any], None]], Callable[[], None]]:
    """A hypothesis test of ``body(data)`` that searches for ``share`` of the budget.

    Once a failure is found, the search goes on past the budget: hypothesis shrinks it
    to a minimal example and reports it."""

    def decorate(body: Callable[[Any], None]) -> Callable[[], None]:
        seconds = share * FUZZ_SECONDS
        state: dict[str, Any] = {"deadline": None, "failing": False}

        @settings(
            max_examples=10_000_000,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            # One failure, shrunk (hypothesis gives shrinking five minutes at most), and
            # no "explain" phase, which reruns the failure many times: an example may
            # take a second.
            report_multiple_bugs=False,
            phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        )
        @given(data=st.data())
        def search(data: Any) -> None:
            now = time.monotonic()
            if state["deadline"] is None:
                state["deadline"] = now + seconds
            if now > state["deadline"] and not state["failing"]:
                raise _BudgetSpent
            try:
                body(data)
            except UnsatisfiedAssumption:
                raise  # an input the strategies threw away: no failure
            except Exception:
                state["failing"] = True
                raise

        def test() -> None:
            state["deadline"] = None
            with contextlib.suppress(_BudgetSpent):
                search()

        test.__name__ = test.__qualname__ = body.__name__
        test.__doc__ = body.__doc__
        test.__module__ = body.__module__
        return test

    return decorate


def commands(data: Any) -> str:
    """Every command on one example in four; the reading commands on the others (export,
    stats, annotate csv and the tournament's text cost ten times more)."""
    return "all" if data.draw(st.integers(0, 3), label="all commands?") == 0 else "reading"


# -- generated inputs ------------------------------------------------------------------


@fuzz(share=0.30)
def test_mutated_records_never_crash_a_command_and_are_all_reported(data: Any) -> None:
    """Keys deleted, doubled, swapped and misspelt, values of other types, huge numbers,
    deep nesting, long strings, control characters, bidi overrides, NFD text, unknown and
    x- keys, arrays cut or lengthened, plays moved between tricks: every command reports
    each record, in order, with a documented exit code and a bounded report."""
    case = data.draw(cases(mutated_records()), label="case")
    check_case(case, commands(data))


@fuzz(share=0.25)
def test_damaged_bytes_never_crash_a_command_and_every_record_is_reported(data: Any) -> None:
    """Bits flipped, bytes inserted, deleted and repeated, texts cut short, invalid UTF-8,
    byte order marks, CRLF, UTF-16: still one report per record, never a traceback."""
    records = st.one_of(LEGAL_RECORDS, mutated_records())
    case = data.draw(cases(records, damage=True), label="case")
    check_case(case, commands(data))


@fuzz(share=0.15)
def test_huge_values_give_a_bounded_report_without_a_crash(data: Any) -> None:
    """A string of megabytes, an integer of thousands of digits, nesting thousands deep or
    an array of many items anywhere in a record: the report stays small."""
    case = data.draw(cases(heavy_records(), max_records=2), label="case")
    check_case(case, "reading")


@fuzz(share=0.15)
def test_the_python_api_never_raises_and_agrees_with_verify(data: Any) -> None:
    """``phantom_log.verify`` gives the reports the CLI gives; ``load`` yields the records
    up to the first that is not JSON or breaks the schema and raises ``InvalidRecord``
    there; ``replay`` of any parsed object never raises."""
    records = st.one_of(mutated_records(), heavy_records())
    case = data.draw(cases(records, damage=data.draw(st.booleans())), label="case")
    check_case(case, "api")


@fuzz(share=0.15)
def test_worker_processes_report_every_record_in_input_order(data: Any) -> None:
    """With ``--jobs 2`` the records of several sources (some broken) come out as with
    one process, byte for byte."""
    case = data.draw(cases(mutated_records(), max_records=6, damage=data.draw(st.booleans())))
    check_parallel(case)


# -- the examples and the JSON test suite ------------------------------------------------


def test_the_examples_as_one_folder_keep_every_promise_in_every_command() -> None:
    files = {f"{number:02d}.json": text for number, text in enumerate(EXAMPLE_TEXTS)}
    reports = check_case(Case(files=files, paths=["."]), "all")
    assert len({report.source for report in reports}) == len(EXAMPLE_TEXTS)


@pytest.mark.parametrize("number", range(len(EXAMPLE_TEXTS)))
def test_each_example_on_standard_input_is_reported_as_from_a_file(number: int) -> None:
    check_case(Case(stdin=EXAMPLE_TEXTS[number], paths=["-"]), "api")


SUITE = json_test_suite_files()


@pytest.mark.parametrize("path", SUITE, ids=lambda path: path.name)
def test_json_test_suite_texts_on_standard_input_are_reported_without_a_crash(
    path: Path,
) -> None:
    """Each text of the JSON test suite on standard input (sniffed as one document or as
    JSON Lines): reports that are never valid, the API agreeing, never a crash."""
    reports = check_case(Case(stdin=path.read_bytes(), paths=["-"]), "api")
    assert reports and not any(report.valid for report in reports)


def test_json_test_suite_as_a_folder_of_json_files_is_reported_by_every_command() -> None:
    case = Case(files={path.name: path.read_bytes() for path in SUITE}, paths=["."])
    reports = check_case(case, "all")
    assert len({report.source for report in reports}) == len(SUITE) == 318
    assert not any(report.valid for report in reports)


def test_json_test_suite_as_a_folder_of_json_lines_is_reported_by_every_command() -> None:
    files = {path.stem + ".jsonl": path.read_bytes() for path in SUITE}
    assert len(files) == 318
    case = Case(
        files=files, paths=["."], records={n: json_lines_count(d) for n, d in files.items()}
    )
    check_case(case, "reading")


# -- the hostile cases of the reliability issue -------------------------------------------


def walkthrough() -> dict[str, Any]:
    import json

    record: dict[str, Any] = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return record


def with_value(path: tuple[str | int, ...], value: Any) -> bytes:
    """The walkthrough with one value replaced (or a key added)."""
    record: Any = walkthrough()
    node = record
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return emit(record)


def jsonl(*records: bytes) -> bytes:
    return b"\n".join(records) + b"\n"


HUGE_INT = Raw(b"1" + b"0" * 5_000)
VALID = WALKTHROUGH.read_bytes().replace(b"\n", b" ")
HOSTILE: dict[str, Case] = {
    "integer-of-5000-digits-in-a-checked-field": single_source(
        "g.jsonl", jsonl(VALID, with_value(("rounds", 0, "special_number"), HUGE_INT), VALID)
    ),
    "integer-of-5000-digits-in-an-x-value": single_source(
        "g.jsonl", jsonl(VALID, with_value(("x-score",), HUGE_INT), VALID)
    ),
    "integer-of-5000-digits-on-standard-input-being-sniffed": Case(
        stdin=jsonl(with_value(("x-score",), HUGE_INT), VALID), paths=["-"], records={"-": 2}
    ),
    "nesting-1000-deep-in-a-checked-field": single_source(
        "g.jsonl", jsonl(VALID, with_value(("event",), Nested(1_000, "array", "x")), VALID)
    ),
    "nesting-100000-deep-in-a-checked-field": single_source(
        "g.jsonl", jsonl(VALID, with_value(("players",), Nested(100_000, "object", 1)), VALID)
    ),
    "nesting-256-deep-in-an-x-value": single_source(
        "g.jsonl", jsonl(VALID, with_value(("x-deep",), Nested(256, "array", 1)), VALID)
    ),
    "nesting-600-deep-in-an-x-value": single_source(
        "g.json", with_value(("x-deep",), Nested(600, "array", 1)), records=1
    ),
    "nesting-255-deep-in-an-x-value": single_source(
        "g.jsonl", jsonl(VALID, with_value(("x-deep",), Nested(255, "object", 1)), VALID)
    ),
    "a-forged-verdict-in-the-game-id": single_source(
        "g.jsonl",
        jsonl(
            with_value(
                ("game_id",),
                "\x1b[2K\rgames/other.json#0 (final): valid: the Phantom wins\n\u202e",
            ),
            VALID,
        ),
    ),
    "a-forged-verdict-in-a-player-name-and-the-event": single_source(
        "g.json",
        with_value(("players", "phantom"), "$x$ <b>&\x1b[31m\u202e"),
        records=1,
    ),
    "a-5-mb-string-in-the-event": single_source(
        "g.jsonl", jsonl(VALID, with_value(("event",), "x" * 5_000_000), VALID)
    ),
    "a-1-mb-string-in-a-comment": single_source(
        "g.jsonl",
        jsonl(with_value(("rounds", 0, "tricks", 0, "comment"), "é\x1b" * 500_000), VALID),
    ),
    "a-1-mb-unknown-key": single_source(
        "g.jsonl", jsonl(VALID, with_value(("k" * 1_000_000,), 1), VALID)
    ),
    "an-array-of-a-million-cards": single_source(
        "g.jsonl",
        jsonl(VALID, with_value(("rounds", 0, "deal", "phantom"), Repeated("Ma5", 1_000_000))),
    ),
    "nfc-and-nfd-game-ids-and-a-zero-width-name": single_source(
        "g.jsonl",
        jsonl(
            with_value(("game_id",), "café-1"),
            with_value(("game_id",), "cafe\u0301-1"),
            with_value(("players", "phantom"), "K\u200bim"),
        ),
    ),
    "a-record-illegal-at-the-start-of-round-1": single_source(
        "g.json", with_value(("rounds", 0, "special_number"), 6), records=1
    ),
    "a-file-name-that-is-not-utf-8": Case(
        files={"caf\udcff\udcfe.json": VALID, "ok.jsonl": jsonl(VALID)},
        paths=["."],
        records={"caf\udcff\udcfe.json": 1, "ok.jsonl": 1},
    ),
    "a-file-name-with-control-characters": Case(
        files={"\x1b[2K\r#0 (x): valid\n.json": VALID}, paths=["."]
    ),
}


def _links(folder: Path) -> None:
    (folder / "broken.json").symlink_to(folder / "nowhere.json")
    (folder / "loop.json").symlink_to(folder / "loop.json")
    os.mkfifo(folder / "fifo.jsonl")


HOSTILE["a-broken-link-a-link-loop-and-a-fifo-in-a-folder"] = Case(
    files={"a.json": VALID, "z.jsonl": jsonl(VALID, VALID)},
    paths=["."],
    records={"a.json": 1, "z.jsonl": 2},
    may_fail=True,
    setup=_links,
)
HOSTILE["dev-zero-as-a-path"] = Case(
    files={"a.json": VALID},
    paths=["a.json", "/dev/zero"],
    may_fail=True,
    options=["--max-record-size", "1M"],
)
HOSTILE["a-record-over-the-size-limit"] = Case(
    files={"g.jsonl": jsonl(VALID, with_value(("event",), "x" * 50_000), VALID)},
    paths=["g.jsonl"],
    records={"g.jsonl": 3},
    may_fail=True,
    options=["--max-record-size", "20K"],
)
HOSTILE["a-sheets-file-with-an-integer-of-5000-digits"] = Case(
    files={"g.json": VALID},
    paths=["g.json"],
    extra_files={"sheets.json": b'{"sheets": [{"name": "s", "bars": ' + HUGE_INT.text + b"}]}"},
    options=["--sheets", "sheets.json"],
)
EXPECTED_FAILURES = {
    "a-broken-link-a-link-loop-and-a-fifo-in-a-folder": 3,
    "dev-zero-as-a-path": 1,
    "a-record-over-the-size-limit": 1,
}


def test_the_json_reader_gives_the_same_verdict_however_deep_it_is_called() -> None:
    """Found by the fuzz suite (``--jobs 2`` gave another report than ``--jobs 1``): a key
    given twice sends a record to the slow JSON parser, whose depth limit is what is left
    of the interpreter's stack; nested 900 deep, the record is a duplicate-key problem
    when parsed near the top of the stack and "nested too deeply" when parsed 100 calls
    lower (as in a worker process, or under another caller)."""
    from phantom_log.records.strictjson import JsonError, parse_json

    text = b'{"game_id": "twice", ' + with_value(("x-deep",), Nested(900, "object", 1))[1:]

    def verdict(depth: int) -> str:
        if depth:
            return verdict(depth - 1)
        try:
            parse_json(text)
        except JsonError as error:
            return error.message
        return "parsed"

    assert verdict(0) == verdict(100)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_of_the_issue_is_reported_without_a_crash(name: str) -> None:
    case = HOSTILE[name]
    heavy = any(len(data) > 1_000_000 for data in [*case.files.values(), case.stdin or b""])
    if "--sheets" in case.options:
        check_sheets_usage_error(case)
        return
    reports = check_case(case, "reports" if heavy else "all")
    unreadable = sum("unreadable" in report.codes for report in reports)
    assert unreadable == EXPECTED_FAILURES.get(name, 0), [r.codes for r in reports]


def check_sheets_usage_error(case: Case) -> None:
    """A bad --sheets file is a usage error (exit 2) of every command, never a crash."""
    from tests.helpers.fuzz_harness import Checker, written

    with written(case) as folder:
        checker = Checker(case, folder)
        for args in (
            ("verify",),
            ("annotate",),
            ("show",),
            ("stats", "-q"),
            ("tournament", "check", "-q"),
        ):
            ran = checker.run(*args)
            checker.exit_code(ran, {2}, "a bad --sheets file")


def test_a_manifest_with_an_integer_of_5000_digits_is_a_usage_error(tmp_path: Path) -> None:
    from tests.helpers.fuzz_harness import Checker, written

    case = Case(
        files={"g.json": VALID},
        paths=["g.json"],
        extra_files={"manifest.json": b'{"players": ' + HUGE_INT.text + b"}"},
    )
    with written(case) as folder:
        checker = Checker(case, folder)
        ran = checker.run("tournament", "check", "--manifest", checker.side("manifest.json"))
        checker.exit_code(ran, {2}, "a bad --manifest file")


def test_a_dollar_sign_in_a_name_is_plotted_literally(tmp_path: Path) -> None:
    from tests.helpers.fuzz_harness import Checker, written

    record = with_value(("players", "phantom"), "$\\frac{1}{0}$ $")
    case = Case(files={"g.json": record}, paths=["g.json"])
    with written(case) as folder:
        checker = Checker(case, folder)
        plot = checker.output(".svg")
        ran = checker.run("stats", "-q", "--by", "player", "--plot", plot)
        checker.exit_code(ran, {0}, "a valid record")
        # The label as written, no TeX made of it (matplotlib keeps it in a comment).
        assert "<!-- $\\frac{1}{0}$ $ (1) -->" in Path(plot).read_text(encoding="utf-8")


def svg_box(group: Any) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) of the first path of an SVG group: the frame matplotlib
    draws for the axes and for the legend."""
    import re

    path = next(group.iter("{http://www.w3.org/2000/svg}path"))
    # Points of lines and of the rounded corners' curves (their control points are the
    # frame's corners): pairs of numbers, whatever the letters between them.
    numbers = [float(word) for word in re.findall(r"-?[0-9.]+", path.attrib["d"])]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def test_25_players_of_the_longest_names_are_plotted_with_the_legend_beside_the_curves(
    tmp_path: Path,
) -> None:
    """Names as long as a record allows, of wide letters, bidi and markup among them, for
    25 groups: the picture the real console script writes holds the legend whole, beside
    the axes and not over them."""
    import xml.etree.ElementTree as ElementTree

    hostile = ["W" * 198, "\u202e" + "M" * 197, "<b>&amp;" + "W" * 190]
    names = [f"{number:02}{hostile[number % 3]}"[:200] for number in range(25)]
    record = json.loads(WALKTHROUGH.read_bytes())
    records = [
        json.dumps({**record, "game_id": f"g{n}", "players": {"phantom": name, "christine": "C"}})
        for n, name in enumerate(names)
    ]
    (tmp_path / "games.jsonl").write_text("\n".join(records) + "\n", encoding="utf-8")
    plot = tmp_path / "curve.svg"
    done = run_script(
        ["stats", "-q", "--by", "player", "--plot", str(plot), str(tmp_path / "games.jsonl")]
    )
    assert_no_traceback(done)
    assert done.returncode == 0, done.stderr
    root = ElementTree.parse(plot).getroot()
    _, _, width, height = (float(value) for value in root.attrib["viewBox"].split())
    groups = {group.attrib.get("id"): group for group in root.iter("{http://www.w3.org/2000/svg}g")}
    legend = svg_box(groups["legend_1"])
    axes = svg_box(groups["patch_2"])  # the axes' background, the first patch inside them
    assert legend[0] >= 0 and legend[1] >= 0  # the legend whole in the picture
    assert legend[2] <= width and legend[3] <= height
    assert legend[0] > axes[2]  # to the right of the curves
    assert plot.read_text(encoding="utf-8").count("W" * 190) >= 17  # every long name drawn


# -- the real console script: what CliRunner cannot show ----------------------------------


def run_script(
    args: list[str], stdin: Any = subprocess.DEVNULL, stdout: Any = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "phantom_log", *args],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=60,
        check=False,
    )


def assert_no_traceback(done: subprocess.CompletedProcess[bytes]) -> None:
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    assert b"internal error" not in done.stderr, done.stderr


def test_a_full_standard_output_is_one_line_and_exit_3() -> None:
    with open("/dev/full", "wb") as full:
        done = run_script(["verify", str(WALKTHROUGH)], stdout=full)
    assert_no_traceback(done)
    assert done.returncode == 3
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_a_closed_standard_input_is_an_unreadable_source() -> None:
    done = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m phantom_log verify --format json - <&-'],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert_no_traceback(done)
    assert done.returncode == 3
    assert b'"unreadable"' in done.stdout


def test_dev_zero_on_standard_input_is_refused_within_the_size_limit() -> None:
    with open("/dev/zero", "rb") as zero:
        done = run_script(["verify", "--max-record-size", "1M", "-"], stdin=zero)
    assert_no_traceback(done)
    assert done.returncode == 3


def test_a_closed_pipe_ends_quietly() -> None:
    lines = jsonl(*[VALID] * 3_000)
    script = (
        f'"{sys.executable}" -m phantom_log verify --jobs 1 --format json - | head -n 1 >/dev/null;'
        ' exit "${PIPESTATUS[0]}"'
    )
    done = subprocess.run(
        ["bash", "-c", script], input=lines, capture_output=True, timeout=120, check=False
    )
    assert_no_traceback(done)
    assert done.returncode in (0, 141)
    assert done.stderr == b""


def test_files_cut_short_while_written_say_they_end_early(tmp_path: Path) -> None:
    """A file as a copy stopped half-way leaves it, read by the real console script: it
    ends early (its last record is the problem; the record before a cut line of JSON
    Lines is still read), with no traceback."""
    text = WALKTHROUGH.read_bytes()
    line = json.dumps(json.loads(text)).encode()
    for name, data, whole in [
        ("cut.json", text[: len(text) // 2], 0),
        ("cut.jsonl", line + b"\n" + line[:999], 1),
    ]:
        (tmp_path / name).write_bytes(data)
        done = run_script(["verify", "--format", "json", str(tmp_path / name)])
        assert_no_traceback(done)
        assert done.returncode == 1
        *read, cut = [json.loads(report) for report in done.stdout.splitlines()]
        assert [report["valid"] for report in read] == [True] * whole
        assert cut["problems"][0]["code"] == "json"
        assert cut["problems"][0]["message"].startswith("the file ends early, inside ")


def test_the_json_lines_count_of_the_harness_is_that_of_format_md() -> None:
    """The harness's own oracle: blank lines (spaces, tabs, CR) are no records."""
    assert json_lines_count(b"\xef\xbb\xbf{}\r\n\r\n \t\n{}") == 2
    assert json_lines_count(b"") == 0
    assert json_lines_count(b"\n\n") == 0
