"""The replay page (``show --html``): what it embeds and how it escapes it, without a
browser; then in headless Chromium (Playwright for Python, Debian's ``chromium`` launched
by its path), stepping through every position of several games and comparing ``#position``
with the engine driven step by step here, deep links, keys, clicks, the view toggle, no
request leaving the page, no script error, and a hostile record that cannot inject."""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.checking.verdict import RecordReport, verify_record
from phantom_log.cli import main
from phantom_log.records.source_records import SourceRecord
from phantom_log.rules.cards import CARD_BY_CODE, ROLE_BY_KEY, hand_codes, hand_mask
from phantom_log.rules.engine import GameState, Phase, Rules
from phantom_log.rules.replay import replay_record
from phantom_log.rules.sheets import BUILTIN_SHEETS, RULEBOOK_SHEET, Sheet, sheet_from_json
from phantom_log.views.replay_page import (
    AnalysisRowError,
    DecisionReview,
    embed_json,
    index_entry,
    index_page,
    page_data,
    page_file_name,
    replay_page,
    reviews_from_rows,
)
from tests.helpers.cli import run
from tests.helpers.paths import REPO

EXAMPLES = REPO / "examples"
HOSTILE_ID = "</script><script>alert(1)</script><!--"
JSON_BLOCK = re.compile(r'<script type="application/json" id="game-data">(.*?)</script>', re.S)


def report_of(record: Any, source: str = "game.json") -> RecordReport:
    return verify_record(SourceRecord(source, 0, record))


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


def embedded(page: str) -> dict[str, Any]:
    found = JSON_BLOCK.search(page)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def waltz() -> Sheet:
    sheet = sheet_from_json(
        {
            "name": "waltz",
            "bars": [
                {"suit": "Ma", "notes": "C"},
                {"suit": "Ri", "notes": "PCPPC"},
                {"suit": "Mi", "notes": "CP"},
                {"suit": "Ch", "notes": "PPCC"},
            ],
        }
    )
    assert isinstance(sheet, Sheet)
    return sheet


def simulated() -> list[dict[str, Any]]:
    """A game of every variant: both rules off and on, the rulebook and a custom sheet."""
    games = []
    for number, (beginner, balance, sheet) in enumerate(
        [
            (False, False, RULEBOOK_SHEET),
            (True, False, RULEBOOK_SHEET),
            (False, True, waltz()),
            (True, True, waltz()),
        ],
        1,
    ):
        simulation = Simulation(
            sheet,
            Rules(beginner, balance),
            "greedy" if balance else "random",
            "random",
            seed=12,
            sheet_is_builtin=sheet.name in BUILTIN_SHEETS,
        )
        games.append(simulate_game(simulation, number))
    return games


def hostile_record() -> dict[str, Any]:
    """A legal game whose texts try to break out of the page."""
    record = example("rulebook-walkthrough.json")
    record["game_id"] = HOSTILE_ID
    record["players"] = {"phantom": "<img src=x onerror=alert(2)>", "christine": "&amp; \u2028"}
    record["event"] = '"><svg onload=alert(3)>'
    record["rounds"][0]["tricks"][0]["comment"] = (
        "</p><script>alert(4)</script>\n<iframe src='https://example.com'></iframe>\u202e"
    )
    return record


# -- the engine, driven step by step: what each position must show ---------------------------


def engine_positions(record: dict[str, Any]) -> list[tuple[str, ...]]:
    """``(round, trick, notes, super trump, Phantom's hand, Christine's hand)`` after each
    round's start, card, swap and trick, by stepping a GameState through the record (up
    to its first step the engine refuses)."""
    sheet = record["sheet"]
    found = BUILTIN_SHEETS[sheet] if isinstance(sheet, str) else sheet_from_json(sheet)
    assert isinstance(found, Sheet)
    rules = record.get("rules", {})
    state = GameState.start(found, Rules(rules.get("beginner", False), rules.get("balance", False)))
    seen: list[tuple[str, ...]] = []

    def note(round_no: int, trick_no: int) -> None:
        seen.append(
            (
                str(round_no),
                str(trick_no),
                str(state.notes),
                "" if state.super_trump is None else state.super_trump.code,
                " ".join(hand_codes(state.phantom_hand)),
                " ".join(hand_codes(state.christine_hand)),
            )
        )

    for round_no, data in enumerate(record["rounds"], 1):
        deal = data["deal"]
        hands = [hand_mask([CARD_BY_CODE[code] for code in deal[key]]) for key in ROLE_BY_KEY]
        if state.step_deal(*hands) is not None:
            return seen
        if "exchange" in data:
            exchange = data["exchange"]
            given = (CARD_BY_CODE[exchange["phantom"]], CARD_BY_CODE[exchange["christine"]])
            if state.step_exchange(*given) is not None:
                return seen
        if state.step_special_number(data["special_number"]) is not None:
            return seen
        note(round_no, 0)
        for trick_no, trick in enumerate(data["tricks"], 1):
            for play in trick["plays"]:
                card = CARD_BY_CODE[play["card"]]
                if state.step_play(ROLE_BY_KEY[play["player"]], card) is not None:
                    return seen
                note(round_no, trick_no)
                if state.phase == Phase.SWAP:
                    swap = play.get("swap", {})
                    phantom = [CARD_BY_CODE[code] for code in swap.get("phantom", [])]
                    christine = [CARD_BY_CODE[code] for code in swap.get("christine", [])]
                    if state.step_swap(phantom, christine) is not None:
                        return seen
                    note(round_no, trick_no)
    return seen


def page_positions(data: dict[str, Any]) -> list[tuple[str, ...]]:
    return [
        (
            str(position["round"]),
            str(position["trick"]),
            str(position["notes"]),
            position["super_trump"] or "",
            " ".join(position["hands"]["phantom"]),
            " ".join(position["hands"]["christine"]),
        )
        for position in data["positions"]
        if position["step"] != "problem"
    ]


def deduplicated(positions: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The engine stepped here notes the state after the follow card and again after its
    swap; the page shows the trick's end once, after the swap."""
    return [p for i, p in enumerate(positions) if i + 1 == len(positions) or p != positions[i + 1]]


# -- without a browser ---------------------------------------------------------------------


def test_embedded_json_cannot_close_its_script_element() -> None:
    value = {"id": HOSTILE_ID, "more": "a & b > c \u2028 \u2029 <!-- -->"}
    text = embed_json(value)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == value


def test_the_csp_allows_exactly_the_inline_script_and_style_by_their_hashes() -> None:
    page = replay_page(report_of(example("rulebook-walkthrough.json")))
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    policy = dict(part.strip().split(" ", 1) for part in html.unescape(csp.group(1)).split(";"))
    assert policy["default-src"] == "'none'"
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == 1 and len(styles) == 1

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert policy["script-src"] == digest(scripts[0])
    assert policy["style-src"] == digest(styles[0])
    # Nothing to fetch: no src attribute, no link element, only links inside the page.
    assert " src=" not in page.replace(HOSTILE_ID, "")
    assert "<link" not in page
    assert set(re.findall(r'href="(.)', page)) <= {"#"}


def test_the_page_embeds_every_trick_as_the_replay_gives_it() -> None:
    record = example("rulebook-walkthrough.json")
    data = embedded(replay_page(report_of(record)))
    replayed = replay_record(record)
    tricks = [p for p in data["positions"] if p["step"] == "trick"]
    assert [(p["round"], p["trick"], p["notes"]) for p in tricks] == [
        (t.round, t.trick, t.notes_after) for t in replayed.tricks
    ]
    assert [p["winner"] for p in tricks] == [t.winner.key for t in replayed.tricks]
    assert [(c["round"], c["trick"], c["notes"]) for c in data["curve"]] == [
        (t.round, t.trick, t.notes_after) for t in replayed.tricks
    ]
    assert data["positions"][0]["id"] == "1.0"
    assert data["result"] == {
        "winner": "christine",
        "notes": replayed.result.notes if replayed.result else None,
        "valid": True,
        "text": data["result"]["text"],
    }
    assert tricks[0]["explanation"].startswith("Ma6 beats Ma5")
    assert tricks[0]["comment"].startswith("Rulebook, the opening")


@pytest.mark.parametrize(
    "name",
    [
        "rulebook-walkthrough.json",
        "custom-sheet.json",
        "optional-rules.json",
        "unfinished.json",
        "invalid/revoke.json",
        "invalid/card-not-held--swap.json",
        "invalid/missing-swap.json",
        "invalid/wrong-player.json",
    ],
)
def test_every_position_is_the_engines(name: str) -> None:
    record = example(name)
    data = page_data(report_of(record))
    assert page_positions(data) == deduplicated(engine_positions(record))


@pytest.mark.parametrize("number", range(4))
def test_every_position_of_a_simulated_game_is_the_engines(number: int) -> None:
    record = simulated()[number]
    data = page_data(report_of(record))
    assert page_positions(data) == deduplicated(engine_positions(record))
    assert data["result"]["winner"] == record["result"]["winner"]


def test_an_illegal_record_ends_on_its_problem_where_the_replay_stopped() -> None:
    data = page_data(report_of(example("invalid/revoke.json")))
    last = data["positions"][-1]
    assert last["step"] == "problem" and last["id"] == "problem"
    assert (last["round"], last["trick"]) == (2, 4)
    assert data["problems"][last["problem"]]["code"] == "revoke"
    assert data["problems"][last["problem"]]["at"] == "problem"
    assert last["trick_cards"] == [{"player": "phantom", "card": "Mi5", "special": False}]


def test_a_record_that_cannot_be_replayed_has_one_position_and_its_problems() -> None:
    for name in ["invalid/schema.json", "invalid/bad-sheet.json"]:
        data = page_data(report_of(example(name)))
        assert [p["id"] for p in data["positions"]] == ["problem"]
        assert data["problems"] and data["sheet"] is None


def test_swapped_and_special_cards_are_marked() -> None:
    data = page_data(report_of(example("rulebook-walkthrough.json")))
    start = data["positions"][0]
    # The exchange: the Phantom gave Ri3 and Christine gave Mi5.
    assert start["received"] == {"phantom": ["Mi5"], "christine": ["Ri3"]}
    assert start["special"]["phantom"] == [
        code for code in start["hands"]["phantom"] if code.endswith("3")
    ]
    swap = next(p for p in data["positions"] if p["step"] == "swap")
    made = swap["swaps"][-1]
    assert set(made["phantom"]) <= set(swap["received"]["christine"])
    assert set(made["christine"]) <= set(swap["received"]["phantom"])


def test_a_hostile_record_is_text_everywhere_in_the_page() -> None:
    page = replay_page(report_of(hostile_record()))
    assert page.count("<script") == 2
    for needle in ["<script>alert", "<img", "<svg onload", "<iframe", "\u2028", "\u202e"]:
        assert needle not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
    assert embedded(page)["title"] == HOSTILE_ID


def test_control_characters_in_a_record_make_a_page_with_its_problems() -> None:
    record = example("rulebook-walkthrough.json")
    record["game_id"] = "bell\x07\x1b[31m</title>"
    page = replay_page(report_of(record))
    data = embedded(page)
    assert "\x07" not in page and "\x1b" not in page and "</title>" not in page.split("<body")[1]
    assert data["problems"][0]["code"] == "schema"


def test_page_file_names_are_safe_and_numbered() -> None:
    assert page_file_name(3, "seoul-open-2026/s3/t2") == "0003-seoul-open-2026-s3-t2.html"
    assert page_file_name(12, HOSTILE_ID) == "0012-script-script-alert-1-script.html"
    assert page_file_name(1, "../../etc/passwd") == "0001-etc-passwd.html"
    assert page_file_name(2, None) == "0002-record.html"
    assert page_file_name(4, "名人戦") == "0004-record.html"


def test_the_index_lists_each_record_with_its_players_event_stage_and_result() -> None:
    reports = [report_of(example("rulebook-walkthrough.json")), report_of(hostile_record())]
    reports.append(report_of(example("invalid/revoke.json"), "/home/someone/games/revoke.json"))
    reports.append(report_of(example("unfinished.json")))
    without_id = example("unfinished.json")
    del without_id["game_id"]
    reports.append(report_of(without_id, "/home/someone/games/club.json"))
    entries = [index_entry(r, page_file_name(n, r.game_id)) for n, r in enumerate(reports, 1)]
    page = index_page("GameLog pages of <games>", entries)
    verdicts = ["valid", "valid", "invalid: revoke", "valid (unfinished)", "invalid: schema"]
    assert [e.verdict for e in entries] == verdicts
    assert [e.winner for e in entries] == ["Christine", "Christine", "-", "unfinished", "-"]
    assert [entries[0].players, entries[3].players] == [
        "Erik (Phantom) vs Christine",
        "Soo (Phantom) vs Yeon (Christine)",
    ]
    assert [e.stage for e in entries] == ["", "", "4", "", ""]
    assert entries[2].event == "Spring league" and entries[0].result == "Christine wins, 9 notes"
    assert entries[3].result.startswith("unfinished, ") and entries[2].result == "-"
    # A record without a game id is named by its file's name, not by the path it was read at.
    assert entries[4].name == "club.json#0" and "/home/someone" not in page
    assert 'href="0001-rulebook-walkthrough.html"' in page
    assert "<games>" not in page and "<img" not in page
    assert page.count("<tr>") == 6 and page.count("<script>") == 1
    headings = re.findall(r'data-column="\d">([^<]+)<', page)
    assert headings == ["Game", "Players", "Event", "Stage", "Date", "Result", "Verdict"]


def test_titles_name_players_as_people_do() -> None:
    from phantom_log.rules.cards import Role
    from phantom_log.views.reports import player_name, players_text

    assert players_text({"phantom": "Erik", "christine": "Christine"}) == (
        "Erik (Phantom) vs Christine"
    )
    assert (
        players_text({"phantom": "Kim", "christine": "Lee"}) == "Kim (Phantom) vs Lee (Christine)"
    )
    assert player_name(Role.PHANTOM, "The Phantom") == "The Phantom"
    assert player_name(Role.PHANTOM, "phantom ") == "phantom "
    assert player_name(Role.CHRISTINE, "Phantom") == "Phantom (Christine)"
    assert player_name(Role.PHANTOM, "Christine") == "Christine (Phantom)"


def test_a_shared_page_and_picture_carry_no_local_path(tmp_path: Path) -> None:
    source = tmp_path / "secret-folder" / "walk.json"
    source.parent.mkdir()
    record = example("tournament/stage-1.json")[0]
    source.write_text(json.dumps(record), encoding="utf-8")
    page_path, picture_path = tmp_path / "game.html", tmp_path / "game.svg"
    assert run("show", str(source), "--html", str(page_path)).exit_code == 0
    assert run("show", str(source), "--svg", str(picture_path)).exit_code == 0
    title = (
        "example-open/s1/t1 (Example Open 2026, stage 1): Kim (Phantom) vs Lee (Christine), "
        "sheet rulebook"
    )
    page = page_path.read_text(encoding="utf-8")
    picture = picture_path.read_text(encoding="utf-8")
    assert f"<title>{html.escape(title)}</title>" in page
    assert f"<title>{html.escape(title)}</title>" in picture
    assert "secret-folder" not in page and "secret-folder" not in picture
    assert re.search(r'<h1 id="title">example-open/s1/t1</h1>', page)
    subtitle = re.search(r'<p class="subtitle">(.*?)</p>', page)
    assert subtitle is not None and subtitle.group(1) == (
        "Example Open 2026 · stage 1 · 2026-05-02 · Kim (Phantom) vs Lee (Christine) · "
        "sheet rulebook"
    )
    # The terminal still says which file: there, the path tells the user where to look.
    terminal = run("show", str(source), "--no-color")
    assert terminal.output.startswith(f"{source}#0 (example-open/s1/t1): Kim (Phantom) vs Lee")
    # A record without a game id is named by its place in its file.
    del record["game_id"]
    data = page_data(report_of(record, str(source)))
    assert data["title"] == "record #0" and str(source) not in json.dumps(data)


def test_each_position_lists_the_cards_played_this_round_by_trick() -> None:
    record = example("rulebook-walkthrough.json")
    data = page_data(report_of(record))
    by_id = {p["id"]: p for p in data["positions"]}
    tricks = record["rounds"][0]["tricks"][:7]
    for role in ("phantom", "christine"):
        expected = [
            {"card": play["card"], "trick": number}
            for number, trick in enumerate(tricks, 1)
            for play in trick["plays"]
            if play["player"] == role
        ]
        assert by_id["1.7"]["played"][role] == expected
        assert by_id["2.0"]["played"][role] == []  # a new round: nothing played yet
    assert by_id["1.7"]["notes_before"] == 2 and by_id["1.7"]["notes"] == 4


def test_a_page_says_when_it_carries_no_analysis() -> None:
    record = example("rulebook-walkthrough.json")
    plain = replay_page(report_of(record))
    assert embedded(plain)["analysis"] is None
    assert 'class="no-analysis">No analysis on this page.' in plain and "--analyse" in plain
    reviews = {(1, 2, "follow", "phantom", "Ch4"): DecisionReview(2.0, "?", ("Ch6",))}
    analysed = replay_page(report_of(record), reviews=reviews)
    assert embedded(analysed)["analysis"] == {"decisions": 1}
    assert 'class="analysed">Analysed: 1 decision reviewed' in analysed
    empty = replay_page(report_of(record), reviews={})
    assert "holds no decision of this game" in empty


def test_an_illegal_record_opens_at_its_problem() -> None:
    assert embedded(replay_page(report_of(example("invalid/revoke.json"))))["start"] == "problem"
    # The replay went on past the first error: the page opens where that error is.
    mismatch = embedded(replay_page(report_of(example("invalid/winner-mismatch.json"))))
    assert mismatch["start"] == "2.8" and mismatch["problems"][0]["at"] == "2.8"
    assert embedded(replay_page(report_of(example("rulebook-walkthrough.json"))))["start"] == "1.0"


def test_analysis_rows_become_reviews_of_their_decisions() -> None:
    rows = [
        {"game_id": "g", "round": 1, "trick": 2, "player": "phantom", "kind": "follow",
         "played": "Ch4", "cost": 2, "label": "?", "best": ["Ch6"]},
        {"game_id": "g", "round": 1, "trick": 4, "player": "christine", "kind": "swap",
         "played": ["Mi1", "Ma4"], "cost": None, "label": None, "best": []},
        {"game_id": "other", "round": 1, "trick": 2, "player": "phantom", "kind": "follow",
         "played": "Ch4", "cost": 5, "label": "??", "best": ["Ch6"]},
    ]  # fmt: skip
    assert reviews_from_rows(rows, "g") == {
        (1, 2, "follow", "phantom", "Ch4"): DecisionReview(2.0, "?", ("Ch6",))
    }
    with pytest.raises(AnalysisRowError):
        reviews_from_rows([{**rows[0], "label": "<b>"}], "g")
    with pytest.raises(AnalysisRowError):
        reviews_from_rows([{**rows[0], "best": [{"x": 1}]}], "g")


def test_a_review_is_shown_on_the_position_of_its_decision() -> None:
    record = example("rulebook-walkthrough.json")
    reviews = {(1, 2, "follow", "phantom", "Ch4"): DecisionReview(2.0, "?", ("Ch6",))}
    data = page_data(report_of(record), reviews)
    reviewed = [p for p in data["positions"] if p["reviews"]]
    assert [p["id"] for p in reviewed] == ["1.2"]
    assert reviewed[0]["reviews"] == [
        {"decision": "follow", "player": "phantom", "cost": 2.0, "label": "?", "best": ["Ch6"]}
    ]


# -- the command line ----------------------------------------------------------------------


def test_show_html_writes_one_page_and_never_overwrites_without_force(tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    source = str(EXAMPLES / "rulebook-walkthrough.json")
    result = run("show", source, "--html", str(out), "--at", "2.4")
    assert result.exit_code == 0 and result.output == f"wrote {out}\n"
    assert embedded(out.read_text(encoding="utf-8"))["start"] == "2.4"
    again = run("show", source, "--html", str(out))
    assert again.exit_code == 2 and "exists; use --force" in again.output
    assert run("show", source, "--html", str(out), "--force").exit_code == 0
    assert run("show", source, "--html", str(out), "--svg", "x.svg", "--force").exit_code == 2
    assert run("show", source, "--svg", str(tmp_path / "x.svg"), "--analyse").exit_code == 2


def test_show_html_to_standard_output_keeps_the_problems_on_standard_error() -> None:
    result = CliRunner().invoke(
        main, ["show", str(EXAMPLES / "invalid" / "revoke.json"), "--html", "-"]
    )
    assert result.exit_code == 1
    assert result.stdout.startswith("<!DOCTYPE html>") and result.stdout.endswith("</html>\n")
    assert "revoke: Christine played Ch4" in result.stderr


def test_show_html_of_an_illegal_record_writes_it_and_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "revoke.html"
    result = run("show", str(EXAMPLES / "invalid" / "revoke.json"), "--html", str(out))
    assert result.exit_code == 1
    assert "revoke: Christine played Ch4" in result.output
    assert embedded(out.read_text(encoding="utf-8"))["positions"][-1]["id"] == "problem"


def test_show_html_dir_writes_a_page_per_record_and_an_index(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    result = run("show", str(EXAMPLES / "tournament"), "--html", str(folder))
    assert result.exit_code == 0  # the manifest in that folder is recognised and skipped
    pages = sorted(path.name for path in folder.iterdir())
    assert "index.html" in pages and len(pages) == 6
    index = (folder / "index.html").read_text(encoding="utf-8")
    for name in pages:
        if name != "index.html":
            assert f'href="{name}"' in index
    assert result.output.endswith(f"wrote 5 pages and {folder / 'index.html'}\n")
    refused = run("show", str(EXAMPLES / "tournament"), "--html", str(folder))
    assert refused.exit_code == 2 and "exists; use --force" in refused.output
    assert run("show", str(EXAMPLES), "--html", str(folder), "--index", "1").exit_code == 2


def test_show_html_reads_an_analysis_file(tmp_path: Path) -> None:
    rows = tmp_path / "analysis.jsonl"
    rows.write_text(
        json.dumps(
            {"game_id": "rulebook-walkthrough", "round": 1, "trick": 2, "player": "phantom",
             "kind": "follow", "played": "Ch4", "cost": 2, "label": "?", "best": ["Ch6"]}
        ) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "game.html"
    source = str(EXAMPLES / "rulebook-walkthrough.json")
    assert run("show", source, "--html", str(out), "--analysis", str(rows)).exit_code == 0
    reviewed = [p["id"] for p in embedded(out.read_text())["positions"] if p["reviews"]]
    assert reviewed == ["1.2"]
    rows.write_text("not json\n", encoding="utf-8")
    bad = run("show", source, "--html", str(out), "--force", "--analysis", str(rows))
    assert bad.exit_code == 2 and "line 1 is not a JSON object" in bad.output


# -- in a browser ----------------------------------------------------------------------------


class Watched:
    """A page in the browser whose requests, console messages, errors and dialogs are
    written down."""

    def __init__(self, browser: Any, path: Path, width: int = 1100) -> None:
        self.url = path.resolve().as_uri()
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.requests: list[str] = []
        self.messages: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("console", lambda message: self.messages.append(message.text))
        self.page.on("pageerror", lambda error: self.messages.append(f"error: {error}"))
        self.page.on("dialog", lambda dialog: self.messages.append(f"dialog: {dialog.message}"))

    def open(self, address: str = "") -> None:
        self.page.goto(self.url + address)

    def position(self) -> tuple[str, ...]:
        values = self.page.eval_on_selector(
            "#position",
            "node => ['round', 'trick', 'notes', 'superTrump', 'phantomHand', 'christineHand']"
            ".map(name => node.dataset[name])",
        )
        return tuple(values)

    def step(self) -> str:
        return str(self.page.get_attribute("#position", "data-step"))

    def hash(self) -> str:
        return str(self.page.evaluate("location.hash"))

    def assert_clean(self) -> None:
        assert self.messages == []
        assert set(self.requests) <= {self.url}, self.requests
        self.page.close()


def write_page(tmp_path: Path, record: dict[str, Any], name: str) -> Path:
    path = tmp_path / f"{name}.html"
    path.write_text(replay_page(report_of(record)), encoding="utf-8")
    return path


BROWSER_GAMES = [
    "rulebook-walkthrough.json",
    "optional-rules.json",
    "custom-sheet.json",
    "invalid/card-not-held--swap.json",
]


def browser_games() -> list[tuple[str, dict[str, Any]]]:
    games = [(name, example(name)) for name in BROWSER_GAMES]
    return games + [(f"simulated-{n}", game) for n, game in enumerate(simulated())]


def test_stepping_through_every_position_in_the_browser(browser: Any, tmp_path: Path) -> None:
    for name, record in browser_games():
        path = write_page(tmp_path, record, name.replace("/", "-"))
        expected = page_positions(page_data(report_of(record)))
        assert expected == deduplicated(engine_positions(record))
        watched = Watched(browser, path)
        watched.open()
        watched.page.keyboard.press("Home")  # an illegal record's page opens at its problem
        shown = [watched.position()]
        while watched.page.get_attribute("#next", "aria-disabled") == "false":
            watched.page.keyboard.press("ArrowRight")
            shown.append(watched.position())
        if watched.step() == "problem":
            shown.pop()
        assert shown == expected, name
        watched.page.keyboard.press("Home")
        assert watched.position() == expected[0] and watched.hash() == "#1.0"
        watched.page.keyboard.press("End")
        assert watched.page.is_visible("#result")
        watched.assert_clean()


def test_deep_links_and_the_address_following_the_position(browser: Any, tmp_path: Path) -> None:
    record = example("rulebook-walkthrough.json")
    path = write_page(tmp_path, record, "walkthrough")
    trick = replay_record(record).tricks[13]  # round 2, trick 4
    watched = Watched(browser, path)
    watched.open("#2.4")
    round_no, trick_no, notes, _, phantom, christine = watched.position()
    assert (round_no, trick_no, notes) == ("2", "4", str(trick.notes_after))
    assert phantom == " ".join(hand_codes(trick.phantom_hand))
    assert christine == " ".join(hand_codes(trick.christine_hand))
    watched.page.keyboard.press("ArrowRight")
    assert watched.hash() == "#2.5.1" and watched.step() == "lead"
    watched.page.keyboard.press("ArrowLeft")
    assert watched.hash() == "#2.4"
    watched.page.evaluate("location.hash = '#1.0'")
    watched.page.wait_for_function("document.getElementById('position').dataset.trick === '0'")
    assert watched.position()[:2] == ("1", "0")
    watched.page.click("#last")
    assert watched.hash() == "#2.10"
    watched.page.click("#previous")
    watched.page.click("#first")
    assert watched.hash() == "#1.0"
    watched.page.click("#next")
    assert watched.hash() == "#1.1.1"
    watched.page.click('.curve-point[data-id="1.7"]')
    assert watched.hash() == "#1.7" and watched.position()[:2] == ("1", "7")
    watched.page.focus('.curve-point[data-id="2.2"]')
    watched.page.keyboard.press("Enter")
    assert watched.hash() == "#2.2"
    watched.open("#nonsense")  # a new address in the same page: the position stays
    assert watched.hash() == "#nonsense" and watched.position()[:2] == ("2", "2")
    watched.page.reload()  # opened at an address naming no position: the first
    assert watched.position()[:2] == ("1", "0")
    watched.assert_clean()


def test_the_view_toggle_hides_what_a_side_could_not_see(browser: Any, tmp_path: Path) -> None:
    record = example("rulebook-walkthrough.json")
    path = write_page(tmp_path, record, "walkthrough")
    data = page_data(report_of(record))
    position = data["positions"][[p["id"] for p in data["positions"]].index("1.3")]
    watched = Watched(browser, path)
    watched.open("#1.3")
    page = watched.page
    held = position["hands"]["christine"]
    assert page.locator("#cards-christine .card:not(.played)").count() == len(held)
    assert page.locator("#cards-christine .back").count() == 0
    page.click("#view-phantom")
    assert page.get_attribute("#view-phantom", "aria-pressed") == "true"
    known = position["received"]["christine"]
    assert page.locator("#cards-christine .back").count() == len(held) - len(known)
    assert page.locator("#cards-phantom .back").count() == 0
    shown = page.locator(
        "#cards-christine .card:not(.back):not(.played) .card-code"
    ).all_inner_texts()
    assert shown == known
    # The hooks describe the position itself, whatever the view.
    assert watched.position()[5] == " ".join(held)
    page.click("#view-christine")
    assert page.locator("#cards-christine .back").count() == 0
    assert page.locator("#cards-phantom .back").count() > 0
    page.click("#view-both")
    assert page.locator(".card.back").count() == 0
    watched.assert_clean()


def test_a_hostile_record_cannot_inject_in_the_browser(browser: Any, tmp_path: Path) -> None:
    path = write_page(tmp_path, hostile_record(), "hostile")
    watched = Watched(browser, path)
    watched.open("#1.1")
    page = watched.page
    assert page.inner_text("h1") == HOSTILE_ID
    assert page.locator("script").count() == 2
    assert page.locator("img, iframe, body > svg:not(.sprites)").count() == 0
    assert "alert(4)" in page.inner_text("#comment")
    watched.assert_clean()


def test_an_illegal_record_shows_its_problem_in_the_browser(browser: Any, tmp_path: Path) -> None:
    path = write_page(tmp_path, example("invalid/revoke.json"), "revoke")
    watched = Watched(browser, path)
    watched.open()
    watched.page.keyboard.press("End")
    assert watched.hash() == "#problem" and watched.step() == "problem"
    assert "revoke" in watched.page.inner_text("#problem-box")
    watched.page.click("#problem-list a")
    assert watched.hash() == "#problem"
    watched.assert_clean()


def test_screenshots_of_a_few_positions(browser: Any, tmp_path: Path) -> None:
    """Pictures to look at (kept in $PHANTOM_LOG_SCREENSHOTS when set): a trick with a
    swap, a round start, the Phantom's view on a phone, an illegal record's problem."""
    folder = Path(os.environ.get("PHANTOM_LOG_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    walkthrough = write_page(tmp_path, example("rulebook-walkthrough.json"), "walkthrough")
    revoke = write_page(tmp_path, example("invalid/revoke.json"), "revoke")
    beginner = copy.deepcopy(simulated()[3])
    custom = write_page(tmp_path, beginner, "beginner-balance-waltz")
    for path, address, width, view in [
        (walkthrough, "#1.7", 1100, "both"),
        (walkthrough, "#2.0", 1100, "both"),
        (walkthrough, "#1.5.2", 390, "phantom"),
        (revoke, "#problem", 1100, "christine"),
        (custom, "#2.3", 800, "both"),
    ]:
        watched = Watched(browser, path, width)
        watched.open(address)
        watched.page.click(f"#view-{view}")
        picture = folder / f"{path.stem}-{address[1:]}-{width}-{view}.png"
        watched.page.screenshot(path=str(picture), full_page=True)
        assert picture.stat().st_size > 10_000
        watched.assert_clean()


def test_a_page_that_fails_to_build_is_that_records_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phantom_log.views import replay_page as module

    real = module.page_data

    def failing(report: RecordReport, reviews: Any = None) -> dict[str, Any]:
        if report.index == 0 and report.log is not None:
            raise RuntimeError("a bug")
        return real(report, reviews)

    monkeypatch.setattr(module, "page_data", failing)
    folder = tmp_path / "pages"
    result = run("show", str(EXAMPLES / "tournament" / "stage-1.json"), "--html", str(folder))
    assert result.exit_code == 3
    assert "internal-error: the checker failed on this record (RuntimeError)" in result.output
    assert len(list(folder.iterdir())) == 3
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert "not checked: internal-error" in index and index.count(">valid<") == 1


def test_without_script_the_page_shows_the_final_position(browser: Any, tmp_path: Path) -> None:
    record = example("rulebook-walkthrough.json")
    path = write_page(tmp_path, record, "walkthrough")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(path.resolve().as_uri() + "#1.3")
    final = replay_record(record).tricks[-1]
    attributes = page.eval_on_selector(
        "#position", "node => [node.dataset.round, node.dataset.trick]"
    )
    assert attributes == [str(final.round), str(final.trick)]
    assert page.is_visible("#static-final svg") and not page.is_visible("#viewer")
    assert "Christine wins" in page.inner_text("#result-text")
    context.close()
