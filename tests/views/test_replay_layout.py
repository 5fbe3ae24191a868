"""The replay page as a player sees it, in headless Chromium at a laptop's 1280x800 and a
phone's 390x844: the boxes of its regions measured (nothing overlaps, nothing is clipped,
what must be on one screen is), its labels' sizes and its tap targets on the phone, the
controls held in reach there; then the list of tricks, the greyed played cards, autoplay,
the analysis's labels, an illegal record opened at its problem, and the sortable index."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from phantom_log.rules.cards import CARD_CODES
from phantom_log.rules.replay import replay_record
from phantom_log.views.replay_page import (
    DecisionReview,
    ReviewKey,
    index_entry,
    index_page,
    page_file_name,
    replay_page,
)
from tests.views.test_replay_page import EXAMPLES, example, report_of, simulated

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: What a player needs on one screen: the sheet, both hands, the trick, the moves and
#: the controls (and the position's words).
REGIONS = (
    "#sheet-figure",
    "#hand-christine",
    "#trick",
    "#hand-phantom",
    "#trick-list",
    "#controls",
    "#position",
)

# Each region's box, whether its content is wider than it, and the boxes of its texts
# that are cut (an ellipsis, or a text wider than its box).
MEASURE = """
(selectors) => selectors.map((selector) => {
  const node = document.querySelector(selector);
  if (!node || node.offsetParent === null && getComputedStyle(node).position !== 'fixed'
      && getComputedStyle(node).position !== 'sticky') {
    return {selector, shown: false};
  }
  const box = node.getBoundingClientRect();
  const cut = [];
  node.querySelectorAll('*').forEach((inner) => {
    if (inner instanceof HTMLElement && inner.offsetParent !== null
        && inner.scrollWidth > inner.clientWidth + 1
        && getComputedStyle(inner).overflowX !== 'visible') {
      cut.push(inner.className + ': ' + inner.textContent);
    }
  });
  return {
    selector, shown: true, top: box.top, left: box.left, bottom: box.bottom,
    right: box.right, wider: node.scrollWidth > node.clientWidth + 1, cut,
  };
})
"""

# Every text the page draws or writes, with its size on screen in CSS pixels: an SVG
# text's font size times the scale its picture is drawn at.
FONT_SIZES = """
(selectors) => {
  const found = [];
  selectors.forEach((selector) => {
    document.querySelectorAll(selector + ' *').forEach((node) => {
      const hasText = Array.from(node.childNodes).some(
        (child) => child.nodeType === 3 && child.textContent.trim());
      if (!hasText || node.getClientRects().length === 0) return;
      if (node.closest('title')) return;
      let size = parseFloat(getComputedStyle(node).fontSize);
      if (node instanceof SVGElement) size *= node.ownerSVGElement.getScreenCTM().a;
      found.push({text: node.textContent.trim().slice(0, 30), size});
    });
  });
  return found;
}
"""

TAP_TARGETS = """
() => Array.from(document.querySelectorAll(
  'button, select, .trick-row, .curve-point')).filter(
  (node) => node.getClientRects().length > 0).map((node) => {
    const box = node.getBoundingClientRect();
    return {what: node.id || node.getAttribute('data-id') || node.textContent.trim(),
            width: box.width, height: box.height};
  })
"""

# The sheet's bar labels: each label's box and its bar's, and the label's text.
BAR_LABELS = """
() => Array.from(document.querySelectorAll('#sheet .bar-label')).map((label) => {
  const suit = Array.from(label.classList).find((name) => name.startsWith('suit-'));
  const bar = document.querySelector('#sheet rect.bar.' + suit).getBoundingClientRect();
  const box = label.getBoundingClientRect();
  const svg = document.getElementById('sheet').getBoundingClientRect();
  return {text: label.firstChild.textContent, left: box.left, right: box.right, top: box.top,
          barLeft: bar.left, barRight: bar.right, svgLeft: svg.left, svgRight: svg.right,
          svgTop: svg.top};
})
"""


def overlapping(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The pairs of boxes that overlap by more than a pixel either way."""
    pairs = []
    for number, first in enumerate(boxes):
        for second in boxes[number + 1 :]:
            across = min(first["right"], second["right"]) - max(first["left"], second["left"])
            down = min(first["bottom"], second["bottom"]) - max(first["top"], second["top"])
            if across > 1 and down > 1:
                pairs.append((first["selector"], second["selector"]))
    return pairs


def inside(box: dict[str, Any], viewport: dict[str, int]) -> bool:
    return (
        box["top"] >= -0.5
        and box["left"] >= -0.5
        and box["bottom"] <= viewport["height"] + 0.5
        and box["right"] <= viewport["width"] + 0.5
    )


def reviews_of_every_decision(record: dict[str, Any]) -> dict[ReviewKey, DecisionReview]:
    """An analysis of every card played, made up here: each trick's lead a best choice,
    each follow a loss that grows along the round (0, then ?!, ?, ?? in turn)."""
    labels = [(0.0, ""), (1.0, "?!"), (2.0, "?"), (3.5, "??")]
    reviews = {}
    for trick in replay_record(record).tricks:
        lead, follow = CARD_CODES[trick.lead], CARD_CODES[trick.follow]
        key: ReviewKey = (trick.round, trick.trick, "lead", trick.leader.key, lead)
        reviews[key] = DecisionReview(0.0, "", (lead,))
        cost, label = labels[trick.trick % 4]
        key = (trick.round, trick.trick, "follow", trick.follower.key, follow)
        reviews[key] = DecisionReview(cost, label, (follow,) if not cost else ("Xx1",))
    return reviews


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The pages measured: a game, the same game analysed, an illegal record, a custom
    sheet with a bar of two notes, and one with a bar of one note."""
    folder = tmp_path_factory.mktemp("pages")
    walkthrough = example("rulebook-walkthrough.json")
    waltz = copy.deepcopy(simulated()[2])
    made = {
        "walkthrough": replay_page(report_of(walkthrough)),
        "analysed": replay_page(
            report_of(walkthrough), reviews=reviews_of_every_decision(walkthrough)
        ),
        "revoke": replay_page(report_of(example("invalid/revoke.json"))),
        "custom": replay_page(report_of(example("custom-sheet.json"))),
        "waltz": replay_page(report_of(waltz)),
    }
    paths = {}
    for name, page in made.items():
        paths[name] = folder / f"{name}.html"
        paths[name].write_text(page, encoding="utf-8")
    return paths


@pytest.fixture
def opened(browser: Any) -> Iterator[Any]:
    """A function that opens a page at a viewport; every page it opened is closed after
    the test, which fails on any script error or refusal of the page's policy."""
    opened_pages: list[Any] = []
    errors: list[str] = []

    def open_page(path: Path, viewport: dict[str, int], address: str = "") -> Any:
        page = browser.new_page(viewport=viewport)
        page.on("pageerror", lambda error: errors.append(str(error)))
        # A script or style the page's policy refused is said on the console as an error.
        page.on(
            "console",
            lambda message: errors.append(message.text) if message.type == "error" else None,
        )
        page.goto(path.resolve().as_uri() + address)
        opened_pages.append(page)
        return page

    yield open_page
    for page in opened_pages:
        page.close()
    assert errors == []


def screenshot(page: Any, name: str) -> None:
    """Kept in $PHANTOM_LOG_SCREENSHOTS when set, to look at."""
    folder = os.environ.get("PHANTOM_LOG_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


# -- at 1280x800 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "address"),
    [
        ("walkthrough", "#1.0"),
        ("walkthrough", "#1.7"),
        ("walkthrough", "#2.5.1"),
        ("walkthrough", "#2.10"),
        ("analysed", "#1.3"),
        ("revoke", ""),
        ("custom", "#2.3"),
        ("waltz", "#1.4"),
    ],
)
def test_on_a_laptop_the_table_the_moves_and_the_controls_fit_one_screen(
    opened: Any, pages: dict[str, Path], name: str, address: str
) -> None:
    page = opened(pages[name], LAPTOP, address)
    listed = [*REGIONS, "#problem-box"] if name == "revoke" else list(REGIONS)
    boxes = page.evaluate(MEASURE, listed)
    screenshot(page, f"laptop-{name}-{address[1:] or 'open'}")
    assert all(box["shown"] for box in boxes), boxes
    assert [box["selector"] for box in boxes if not inside(box, LAPTOP)] == []
    assert overlapping(boxes) == []
    assert [box["selector"] for box in boxes if box["wider"]] == []
    assert [cut for box in boxes for cut in box["cut"]] == []
    assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
    assert page.evaluate("window.scrollY") == 0


@pytest.mark.parametrize("name", ["walkthrough", "custom", "waltz"])
@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_no_bar_label_is_cut(
    opened: Any, pages: dict[str, Path], name: str, viewport: dict[str, int]
) -> None:
    page = opened(pages[name], viewport, "#1.1.1")
    labels = page.evaluate(BAR_LABELS)
    assert len(labels) == 4
    for label in labels:
        assert label["left"] >= label["barLeft"] - 0.5, label
        assert label["right"] <= label["barRight"] + 0.5, label
        assert label["right"] <= label["svgRight"] and label["top"] >= label["svgTop"], label
    titles = {"Mi": "Mirror", "Ch": "Chandelier", "Ri": "Ring", "Ma": "Mask"}
    forms = set()
    for label in labels:
        suit = next(
            code for code, title in titles.items() if label["text"].startswith((code, title))
        )
        forms.add(
            {suit: "code", titles[suit]: "title", f"{suit} {titles[suit]}": "both"}[label["text"]]
        )
    assert len(forms) == 1, labels  # one form for every bar: they read alike
    if forms != {"both"}:  # shortened: the caption names every suit in full
        caption = page.inner_text("#sheet-caption")
        assert all(f"{code} {title}" in caption for code, title in titles.items())


# -- on a phone ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "address"),
    [("walkthrough", "#1.7"), ("analysed", "#2.4"), ("revoke", ""), ("waltz", "#2.3")],
)
def test_on_a_phone_labels_are_legible_and_targets_big_enough(
    opened: Any, pages: dict[str, Path], name: str, address: str
) -> None:
    page = opened(pages[name], PHONE, address)
    screenshot(page, f"phone-{name}-{address[1:] or 'open'}")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    sizes = page.evaluate(
        FONT_SIZES,
        ["#sheet-figure", "#curve-section", "#board", "#moves", "#controls", "#position"],
    )
    assert len(sizes) > 50
    assert [size for size in sizes if size["size"] < 11 - 0.01] == []
    targets = page.evaluate(TAP_TARGETS)
    assert len(targets) > 25
    assert [t for t in targets if t["width"] < 32 or t["height"] < 32] == []
    boxes = page.evaluate(MEASURE, [region for region in REGIONS if region != "#controls"])
    assert overlapping(boxes) == []
    assert [box["selector"] for box in boxes if box["wider"]] == []
    assert [cut for box in boxes for cut in box["cut"]] == []


def test_on_a_phone_the_controls_stay_in_reach(opened: Any, pages: dict[str, Path]) -> None:
    page = opened(pages["walkthrough"], PHONE, "#1.7")
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height > 2 * PHONE["height"]  # a page to scroll through
    places = [0, height // 3, height // 2, "#trick-list", "#curve-section", height]
    for place in places:
        if isinstance(place, str):
            page.eval_on_selector(place, "node => node.scrollIntoView()")
        else:
            page.evaluate(f"window.scrollTo(0, {place})")
        (box,) = page.evaluate(MEASURE, ["#controls"])
        assert inside(box, PHONE), (place, box)
        assert box["bottom"] >= PHONE["height"] - 40  # held at the bottom, in reach
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#next")  # the controls work where they are held
    assert page.evaluate("location.hash") == "#1.8.1"


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_an_illegal_record_opens_at_its_problem_in_view(
    opened: Any, pages: dict[str, Path], viewport: dict[str, int]
) -> None:
    page = opened(pages["revoke"], viewport)
    assert page.get_attribute("#position", "data-step") == "problem"
    assert page.evaluate("location.hash") == "#problem"
    problem, controls = page.evaluate(MEASURE, ["#problem-box", "#controls"])
    assert problem["shown"] and inside(problem, viewport)
    assert overlapping([problem, controls]) == []
    assert "revoke" in page.inner_text("#problem-box")
    row = page.locator('.trick-row[aria-current="step"]')
    assert row.get_attribute("data-row") == "problem"


# -- the list of tricks, the played cards, autoplay, the analysis -------------------------


def test_the_list_of_tricks_goes_to_a_trick_and_follows_the_game(
    opened: Any, pages: dict[str, Path]
) -> None:
    record = example("rulebook-walkthrough.json")
    tricks = replay_record(record).tricks
    page = opened(pages["walkthrough"], LAPTOP, "#1.0")
    rows = page.locator(".trick-row")
    # A row per round's start and per trick, in play order.
    expected = [f"{r}.{t}" for r in (1, 2) for t in range(0, 11)]
    assert [rows.nth(n).get_attribute("data-row") for n in range(rows.count())] == expected
    trick = tricks[13]  # round 2, trick 4
    row = page.locator('.trick-row[data-row="2.4"]')
    words = row.inner_text()
    assert trick.winner.title in words and f"{trick.notes_before}→{trick.notes_after}" in words
    row.click()
    assert page.evaluate("location.hash") == "#2.4"
    assert page.get_attribute("#position", "data-notes") == str(trick.notes_after)
    assert row.get_attribute("aria-current") == "step"
    # Inside a trick, its row stays the current one.
    page.keyboard.press("ArrowRight")
    assert page.get_attribute('.trick-row[aria-current="step"]', "data-row") == "2.5"
    # The current row is scrolled into the list's view: the last, the first.
    in_list = """row => {
      const list = document.getElementById('trick-list').getBoundingClientRect();
      const box = row.getBoundingClientRect();
      return box.top >= list.top - 0.5 && box.bottom <= list.bottom + 0.5; }"""
    page.keyboard.press("End")
    last = page.locator('.trick-row[aria-current="step"]')
    assert last.get_attribute("data-row") == "2.10" and last.evaluate(in_list)
    page.keyboard.press("Home")
    first = page.locator('.trick-row[aria-current="step"]')
    assert first.get_attribute("data-row") == "1.0" and first.evaluate(in_list)


def test_cards_played_this_round_are_greyed_with_their_trick(
    opened: Any, pages: dict[str, Path]
) -> None:
    record = example("rulebook-walkthrough.json")
    page = opened(pages["walkthrough"], LAPTOP, "#1.7")
    for role in ("phantom", "christine"):
        played = [
            (play["card"], str(number))
            for number, trick in enumerate(record["rounds"][0]["tricks"][:7], 1)
            for play in trick["plays"]
            if play["player"] == role
        ]
        cards = page.locator(f"#cards-{role} .card.played")
        shown = [
            (
                cards.nth(n).locator(".card-code").inner_text(),
                cards.nth(n).locator(".played-mark").inner_text(),
            )
            for n in range(cards.count())
        ]
        assert shown == played
        opacity = float(cards.first.evaluate("node => getComputedStyle(node).opacity"))
        assert opacity < 0.6
    # Seen from one side, the other's played cards are still shown: both saw them.
    page.click("#view-phantom")
    assert page.locator("#cards-christine .card.played").count() == 7
    page.click("#view-both")
    page.evaluate("location.hash = '#2.0'")
    page.wait_for_function("document.getElementById('position').dataset.trick === '0'")
    assert page.locator(".card.played").count() == 0  # a new round


def test_autoplay_steps_through_the_game_and_pauses(opened: Any, pages: dict[str, Path]) -> None:
    page = opened(pages["walkthrough"], LAPTOP, "#1.0")
    page.select_option("#speed", "100")
    page.click("#autoplay")
    assert page.get_attribute("#autoplay", "aria-pressed") == "true"
    seen = {page.evaluate("location.hash")}
    for _ in range(200):  # looks at the page, until it has moved on three times
        page.wait_for_timeout(25)
        seen.add(page.evaluate("location.hash"))
        if len(seen) >= 4:
            break
    assert len(seen) >= 4 and "#1.1.1" in seen
    page.keyboard.press("p")  # the key pauses it
    assert page.get_attribute("#autoplay", "aria-pressed") == "false"
    paused = page.evaluate("location.hash")
    page.wait_for_timeout(300)  # three steps' time: no step is taken
    assert page.evaluate("location.hash") == paused
    # Played to its end, it stops there.
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("p")
    for _ in range(200):
        if page.get_attribute("#autoplay", "aria-pressed") == "false":
            break
        page.wait_for_timeout(25)
    assert page.get_attribute("#autoplay", "aria-pressed") == "false"
    assert page.evaluate("location.hash") == "#2.10"


def test_the_analysis_labels_each_trick_and_each_decision(
    opened: Any, pages: dict[str, Path]
) -> None:
    page = opened(pages["analysed"], LAPTOP, "#1.2")
    assert "Analysed: 40 decisions reviewed" in page.inner_text("#analysis-notice")
    labels = {
        row.get_attribute("data-row"): row.locator(".row-label").inner_text()
        for row in page.locator(".trick-row:not(.round-row)").all()
    }
    # Trick N's follow is labelled by N % 4: best, ?!, ?, ??.
    expected = {0: "best", 1: "?! inaccuracy", 2: "? mistake", 3: "?? blunder"}
    assert labels == {f"{r}.{t}": expected[t % 4] for r in (1, 2) for t in range(1, 11)}
    reviews = page.inner_text("#reviews")
    assert "? mistake" in reviews and "best: Xx1" in reviews
    plain = opened(pages["walkthrough"], LAPTOP, "#1.2")
    notice = plain.locator("#analysis-notice")
    assert notice.is_visible() and "No analysis on this page" in notice.inner_text()
    assert "--analyse" in notice.inner_text()
    assert plain.locator(".row-label").all_inner_texts() == [""] * 22
    (box,) = plain.evaluate(MEASURE, ["#analysis-notice"])
    assert inside(box, LAPTOP)


# -- the index -----------------------------------------------------------------------------


def test_the_index_sorts_by_a_column(opened: Any, tmp_path: Path) -> None:
    records = [
        record
        for stage in ("stage-1.json", "stage-2.json", "stage-3.json")
        for record in json.loads((EXAMPLES / "tournament" / stage).read_text(encoding="utf-8"))
    ]
    reports = [report_of(record) for record in records]
    entries = [index_entry(r, page_file_name(n, r.game_id)) for n, r in enumerate(reports, 1)]
    path = tmp_path / "index.html"
    path.write_text(index_page("Replay pages of tournament", entries), encoding="utf-8")
    page = opened(path, LAPTOP)

    def column(number: int) -> list[str]:
        cells = page.locator(f"#records tbody tr td:nth-child({number + 1})")
        return cells.all_inner_texts()

    players = column(1)
    assert players == [entry.players for entry in entries] and len(set(players)) > 1
    page.click('th button[data-column="1"]')
    assert column(1) == sorted(players, key=str.casefold)
    assert page.get_attribute("th:nth-child(2)", "aria-sort") == "ascending"
    page.click('th button[data-column="1"]')
    assert column(1) == sorted(players, key=str.casefold, reverse=True)
    page.click('th button[data-column="3"]')  # the stage
    assert column(3) == sorted(column(3))
    assert page.get_attribute("th:nth-child(2)", "aria-sort") == "none"
    # Each row moves whole: its link still names its game.
    links = page.locator("#records tbody a").all_inner_texts()
    assert sorted(links) == sorted(entry.name for entry in entries)
