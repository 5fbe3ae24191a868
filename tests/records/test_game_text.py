"""The game text (``.ptn``): its grammar, the reader held to it, the places of its words,
the problems of its notation, the record a text stands for (turns and deals found by the
rules), and the round trip between records and text."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phantom_log.analysis.simulator import Simulation, simulate, simulate_game
from phantom_log.checking.verdict import verify_paths, verify_record
from phantom_log.records import game_text as game_text_module
from phantom_log.records.game_text import GRAMMAR, TextPlace, read_games
from phantom_log.records.record_texts import canonical_record, record_text, text_losses
from phantom_log.records.source_records import read_source
from phantom_log.records.text_records import text_record
from phantom_log.rules.cards import CARD_CODES
from phantom_log.rules.engine import Rules
from phantom_log.rules.problems import Code, Severity
from phantom_log.rules.sheets import RULEBOOK_SHEET, sheet_from_json
from tests.helpers.paths import EXAMPLES, REPO, WALKTHROUGH

VALID_EXAMPLES = sorted(EXAMPLES.glob("*.json"))
# The invalid examples that are records of the schema's shape (the others are no JSON, or
# break the schema: nothing to write as game text).
INVALID_EXAMPLES = sorted(
    path
    for path in (EXAMPLES / "invalid").glob("*.json")
    if not path.name.startswith(("json", "schema"))
)


def _record(text: str) -> dict[str, Any]:
    (game,) = read_games(text)
    made = text_record(game)
    assert made.problems == [], made.problems
    return made.data


def _walkthrough() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    return data


# -- the grammar ---------------------------------------------------------------------------


def test_the_grammar_is_published_in_the_format_document() -> None:
    document = (REPO / "docs" / "format.md").read_text(encoding="utf-8")
    assert GRAMMAR.strip() in document


_CARDS = st.sampled_from(CARD_CODES)
_SIDES = st.sampled_from(["P", "C", "p", "c"])


def _case(text: str, draw: st.DrawFn) -> str:
    return draw(st.sampled_from([text, text.upper(), text.lower()]))


@st.composite
def _trick_lines(draw: st.DrawFn, number: int) -> tuple[str, int]:
    """A trick's line as the grammar writes it, and how many cards it holds."""
    words = []
    if draw(st.booleans()):
        words.append(f"{number}.")
    cards = draw(st.integers(1, 2))
    for _ in range(cards):
        words.append(_case(draw(_CARDS), draw))
        if draw(st.integers(0, 4)) == 0:
            size = draw(st.integers(0, 2))
            sides = [f"P {' '.join(draw(_CARDS) for _ in range(size))}".strip()] if size else []
            sides += [f"C {' '.join(draw(_CARDS) for _ in range(size))}".strip()] if size else []
            words.append("(" + " ".join(sides) + ")")
    if draw(st.booleans()):
        words.append("{" + draw(st.text("ab #:()=\n", max_size=12)) + "}")
    if draw(st.booleans()):
        words.append("=" + draw(_SIDES))
    return draw(st.sampled_from([" ", "  ", "\t"])).join(words), cards


@st.composite
def _texts(draw: st.DrawFn) -> tuple[str, list[int]]:
    """A text of one game as the grammar allows it (whatever the rules say of it), and
    the number of cards of each trick."""
    lines = [f"# {draw(st.text('abc ', max_size=8))}"] if draw(st.booleans()) else []
    lines += ["game_id: g", "phantom: Kim", "christine: Lee   # a comment", "sheet: rulebook"]
    if draw(st.booleans()):
        lines.append('event: "Open #3"')
    counts: list[int] = []
    for round_number in range(1, draw(st.integers(0, 2)) + 1):
        lines += ["", _case(f"round {round_number}", draw)]
        if draw(st.booleans()):
            lines.append(f"deal {draw(_SIDES)} " + " ".join(draw(_CARDS) for _ in range(10)))
        if draw(st.booleans()):
            lines.append(f"exchange P {draw(_CARDS)} C {draw(_CARDS)}")
        lines.append(f"special {draw(st.integers(1, 6))}")
        for number in range(1, draw(st.integers(0, 4)) + 1):
            line, cards = draw(_trick_lines(number))
            lines.append(line)
            counts.append(cards)
    return "\n".join(lines) + "\n", counts


@given(_texts())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_every_text_of_the_grammar_is_read_without_a_notation_problem(
    case: tuple[str, list[int]],
) -> None:
    text, counts = case
    (game,) = read_games(text)
    assert game.problems == []
    assert [len(trick.plays) for round_ in game.rounds for trick in round_.tricks] == counts


def _read(text: str, one_pass: bool) -> list[Any]:
    """Everything the reader found in ``text``, as plain values, each part with its place."""
    found: list[Any] = []
    for game in read_games(text, one_pass):
        place = game.place

        def cards(placed: Any, place: Any = place) -> Any:
            if placed is None:
                return None
            return (placed.cards, place(placed.at), [place(at) for at in placed.card_at])

        rounds = []
        for round_ in game.rounds:
            tricks = [
                (
                    place(trick.at),
                    [
                        (
                            play.card,
                            play.compact,
                            place(play.at),
                            None
                            if play.swap is None
                            else (
                                place(play.swap.at),
                                cards(play.swap.phantom),
                                cards(play.swap.christine),
                            ),
                        )
                        for play in trick.plays
                    ],
                    trick.comment,
                    trick.comment is not None and place(trick.comment_at),
                    trick.claim,
                    trick.claim is not None and place(trick.claim_at),
                )
                for trick in round_.tricks
            ]
            rounds.append(
                (
                    round_.number,
                    place(round_.at),
                    {role: cards(placed) for role, placed in round_.deal.items()},
                    cards(round_.aside),
                    None
                    if round_.exchange is None
                    else (
                        place(round_.exchange_at),
                        {role: (card, place(at)) for role, (card, at) in round_.exchange.items()},
                    ),
                    round_.special_number,
                    round_.special_number is not None and place(round_.special_at),
                    tricks,
                    {role: cards(placed) for role, placed in round_.left.items()},
                )
            )
        found.append(
            (
                place(game.at),
                {key: (value, place(at)) for key, (value, at) in game.header.items()},
                rounds,
                game.problems,
                game.first_line,
                game.last_line,
                game.text(),
            )
        )
    return found


_NOISE = st.sampled_from(
    [
        "(",
        ")",
        "{",
        "}",
        "\\}",
        "#",
        "=P",
        "=x",
        "Ma5",
        "mA7",
        "P",
        "C",
        "deal",
        "left",
        "round",
        "special",
        "exchange",
        "aside",
        "1.",
        "3.",
        "1.Ma5",
        "\t",
        " ",
        "\ufeff",
        "\r",
        "\n",
        ":",
        "x:",
        "Ri1:",
        "game_id: h",
        "\u0661.",
        "99999999999",
        "Ri4 Ma6",
        "(P Ri4 C Ma1)",
        "{a\nb}",
    ]
)


@st.composite
def _texts_and_noise(draw: st.DrawFn) -> str:
    """A text of the grammar, with words and marks put in, left out and moved about."""
    text, _ = draw(_texts())
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        line = lines[index]
        cut = draw(st.integers(0, len(line)))
        choice = draw(st.integers(0, 3))
        if choice == 0:
            lines[index] = line[:cut] + draw(_NOISE) + line[cut:]
        elif choice == 1:
            lines[index] = line[:cut] + line[cut + draw(st.integers(1, 3)) :]
        elif choice == 2:
            lines.insert(index, draw(_NOISE))
        else:
            lines[index] = line.replace(" ", draw(st.sampled_from(["  ", "\t", " \ufeff"])))
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines)


@given(_texts_and_noise())
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_the_one_pass_reads_every_line_as_reading_it_word_by_word_does(text: str) -> None:
    assert _read(text, one_pass=True) == _read(text, one_pass=False)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("**/*.ptn")), ids=lambda path: path.name)
def test_the_examples_are_read_the_same_in_one_pass_and_word_by_word(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _read(text, one_pass=True) == _read(text, one_pass=False)


def test_the_one_pass_takes_the_usual_lines() -> None:
    """The shortcut is taken: every line of a usual game is read in one pass (reading a
    line word by word would give the same game, but slowly); a comment over two lines is
    read word by word."""
    text, _ = record_text(_walkthrough())
    reader = game_text_module._Reader(text)
    assert reader.next_game() is not None
    assert reader.lines_word_by_word == 0
    folded = text.replace("=P", "{over\ntwo lines} =P", 1)
    reader = game_text_module._Reader(folded)
    assert reader.next_game() is not None
    assert reader.lines_word_by_word == 1


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("1. Mx5 Ma6", "'Mx5' is no card"),
        ("1. Ma7 Ma6", "'Ma7' is no card"),
        ("1. Ma5 Ma6 Ma1", "a trick has two cards"),
        ("2. Ma5 Ma6", "trick 2 where trick 1 of round 1 comes"),
        ("1. Ma5 (P Ri4 Ma6 Mi1 C Ri6 Ma1 Mi2) Ma6", "a swap of 3 cards from one side"),
        ("1. Ma5 (Ri4 C Ri6) Ma6", "'Ri4': whose card?"),
        ("1. Ma5 (P Ri4 C Ri6 Ma6", "the swap is never closed"),
        ("1. (P Ri4 C Ri6) Ma5 Ma6", "a swap comes after the card that caused it"),
        ("1. Ma5 Ma6 {one} {two}", "a second comment on the trick"),
        ("1. Ma5 Ma6 =X", "'=X' claims no winner"),
        ("1. Ma5 Ma6 =P Ch1", "after the trick's comment or claim"),
        ("pass Ma5", "'pass' is no word of a round"),
        ("special x", "the special number's line is 'special' and the number"),
        ("1.", "the trick '1.' holds no card"),
        ("deal X Ma5", "'X' is no side"),
        ("exchange P Ma5", "the exchange names one side's card only"),
        ("1. Ma5 Ma6 {never closed", "the comment is never closed"),
    ],
)
def test_what_is_no_part_of_the_notation_is_a_problem_at_its_place(line: str, said: str) -> None:
    text = f"game_id: g\nphantom: A\nchristine: B\nsheet: rulebook\nround 1\nspecial 3\n{line}\n"
    (game,) = read_games(text)
    assert game.problems, line
    problem = game.problems[0]
    assert said in problem.message
    assert problem.hint
    assert problem.place.line == 7


def test_a_header_key_unknown_or_twice_and_a_missing_one_are_problems() -> None:
    (game,) = read_games("game_id: g\ngame_id: h\nplayer: A\nround 1\n")
    messages = [problem.message for problem in game.problems]
    assert messages == ["the header says game_id twice", "'player' is no key of a game's header"]
    missing = text_record(game).problems[len(messages) :]
    assert [problem.message for problem in missing] == [
        "the header has no phantom",
        "the header has no christine",
        "the header has no sheet",
    ]


def test_every_word_is_placed_at_its_line_and_column() -> None:
    text = "game_id: g\n  phantom:   Kim\nchristine: Lee\nsheet: rulebook\n\nround 1\n"
    text += "deal P Ma5 Ch1\nspecial 3\n  1.\tMa5  (P Ri4 C Ri6) Ma6 {a\ncomment} =C\n"
    (game,) = read_games(text)
    place = game.place
    assert game.header_place("phantom") == TextPlace(2, 14)
    (round_,) = game.rounds
    assert place(round_.at) == TextPlace(6, 1)
    assert [place(at) for at in round_.deal["phantom"].card_at] == [
        TextPlace(7, 8),
        TextPlace(7, 12),
    ]
    (trick,) = round_.tricks
    assert [place(play.at) for play in trick.plays] == [TextPlace(9, 6), TextPlace(9, 25)]
    swap = trick.plays[0].swap
    assert swap is not None and place(swap.at) == TextPlace(9, 11)
    assert [place(at) for at in swap.phantom.card_at] == [TextPlace(9, 14)]
    assert [place(at) for at in swap.christine.card_at] == [TextPlace(9, 20)]
    assert (trick.comment, place(trick.comment_at)) == ("a\ncomment", TextPlace(9, 29))
    assert (trick.claim, place(trick.claim_at)) == ("christine", TextPlace(10, 10))


def test_words_are_read_whatever_their_case_and_header_values_may_be_quoted() -> None:
    text = 'GAME_ID: g\nevent: "Open #3 \\u00e9"\nsite: Seoul # the city\nphantom: A\n'
    text += "christine: B\nsheet: rulebook\nROUND 1\nDEAL p ma5\nSpecial 3\n1. ma5 CH1 =c\n"
    (game,) = read_games(text)
    assert game.problems == []
    assert game.header["event"][0] == "Open #3 é"
    assert game.header["site"][0] == "Seoul"
    (round_,) = game.rounds
    assert round_.deal["phantom"].cards == ("Ma5",)
    assert [play.card for play in round_.tricks[0].plays] == ["Ma5", "Ch1"]
    assert round_.tricks[0].claim == "christine"


def test_a_text_of_several_games_is_read_game_by_game() -> None:
    one, _ = record_text(_walkthrough())
    custom = json.loads((EXAMPLES / "custom-sheet.json").read_text(encoding="utf-8"))
    two, _ = record_text(custom)
    games = read_games(one + "\n# the second game\n" + two)
    assert [game.header["game_id"][0] for game in games] == ["rulebook-walkthrough", "custom-sheet"]
    assert games[1].first_line > games[0].last_line


# -- the record a text stands for ----------------------------------------------------------


@pytest.mark.parametrize("path", VALID_EXAMPLES, ids=lambda path: path.name)
def test_a_valid_example_goes_to_text_and_back_exactly(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    text, left_out = record_text(record)
    assert canonical_record(_record(text)) == canonical_record(record)
    assert all(pointer.startswith("/x-") or "/x-" in pointer for pointer in left_out)
    assert text_losses(record) == []
    # And back: the text of the record read from the text is the text.
    assert record_text(_record(text))[0] == text


@pytest.mark.parametrize("path", INVALID_EXAMPLES, ids=lambda path: path.name)
def test_an_invalid_example_as_text_gives_the_same_first_problem(path: Path) -> None:
    (report,) = verify_paths([str(path)], strict=True)
    record = report.record
    assert isinstance(record, dict)
    text, _ = record_text(record)
    (game,) = read_games(text)
    (from_text,) = [
        verify_record(found, strict=True)
        for found in read_source_text(text.encode("utf-8"), "game.ptn")
    ]
    first = next(p for p in report.problems if p.severity is Severity.ERROR)
    text_first = next(p for p in from_text.problems if p.severity is Severity.ERROR)
    if first.code is Code.WRONG_PLAYER:
        # The text never names who plays: each card is the turn's player's.
        assert text_losses(record)
        return
    assert (text_first.code, text_first.round, text_first.trick) == (
        first.code,
        first.round,
        first.trick,
    )
    assert text_first.line is not None and text_first.column is not None
    assert record_text(text_record(game).data)[0] == text


def read_source_text(data: bytes, name: str) -> list[Any]:
    """The records of a game text, read as a source is."""
    import io

    return list(read_source("-", io.BytesIO(data))) if name == "-" else _from_file(data, name)


def _from_file(data: bytes, name: str) -> list[Any]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        return list(read_source(str(path)))


VARIANTS = [
    Simulation(sheet, Rules(beginner, balance), phantom, "random", seed, builtin)
    for (sheet, builtin), (beginner, balance), phantom, seed in itertools.product(
        [
            (RULEBOOK_SHEET, True),
            (
                sheet_from_json(
                    json.loads((EXAMPLES / "custom-sheet.json").read_text(encoding="utf-8"))[
                        "sheet"
                    ]
                ),
                False,
            ),
        ],
        [(False, False), (True, False), (False, True), (True, True)],
        ["random", "greedy"],
        [7],
    )
]


@pytest.mark.parametrize("simulation", VARIANTS, ids=str)
def test_simulated_games_of_every_variant_go_to_text_and_back_exactly(
    simulation: Simulation,
) -> None:
    for record in simulate(simulation, 15):
        text, left_out = record_text(record)
        assert left_out == ["/x-simulator"]
        assert canonical_record(_record(text)) == canonical_record(record)


@given(st.integers(0, 2**63 - 1), st.sampled_from(VARIANTS), st.integers(1, 10**6))
@settings(max_examples=60, deadline=None)
def test_any_simulated_game_goes_to_text_and_back_exactly(
    seed: int, variant: Simulation, number: int
) -> None:
    simulation = Simulation(
        variant.sheet,
        variant.rules,
        variant.phantom,
        variant.christine,
        seed,
        variant.sheet_is_builtin,
    )
    record = simulate_game(simulation, number)
    text, _ = record_text(record)
    assert canonical_record(_record(text)) == canonical_record(record)


# -- the deals left out ---------------------------------------------------------------------


def _without_deals(record: dict[str, Any]) -> str:
    text, _ = record_text(record)
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith(("deal", "aside"))
    )


def test_a_game_written_without_its_deals_is_found_and_checked_in_full() -> None:
    record = _walkthrough()
    (game,) = read_games(_without_deals(record))
    made = text_record(game)
    assert made.inferred == [0, 1]
    for found, dealt in zip(made.data["rounds"], record["rounds"], strict=True):
        for role in ("phantom", "christine"):
            assert sorted(found["deal"][role]) == sorted(dealt["deal"][role])
    (report,) = [
        verify_record(item) for item in _from_file(_without_deals(record).encode(), "g.ptn")
    ]
    assert report.valid and report.result is not None and report.result.notes == 9


def test_a_round_ended_early_needs_the_cards_left_and_then_is_found() -> None:
    record = json.loads((EXAMPLES / "optional-rules.json").read_text(encoding="utf-8"))
    text = _without_deals(record)
    (report,) = [verify_record(item) for item in _from_file(text.encode(), "g.ptn")]
    (problem,) = report.problems
    assert problem.code is Code.BAD_DEAL and "still holds" in problem.message
    assert problem.hint is not None and "left P" in problem.hint
    # The cards each player still held when the Phantom completed the sheet.
    held = _hands_at_end(record)
    text += f"left P {' '.join(held['phantom'])}\nleft C {' '.join(held['christine'])}\n"
    (report,) = [verify_record(item) for item in _from_file(text.encode(), "g.ptn")]
    assert report.valid, report.problems


def _hands_at_end(record: dict[str, Any]) -> dict[str, list[str]]:
    """The cards each player holds when ``record``'s game ends, by the rules."""
    from phantom_log.rules.cards import hand_codes
    from phantom_log.rules.replay import GameLogBuilder, replay_record

    log = replay_record(record, GameLogBuilder())
    ended = [event for event in log.events if type(event).__name__ == "TrickEnded"][-1]
    return {
        "phantom": list(hand_codes(ended.phantom_hand)),
        "christine": list(hand_codes(ended.christine_hand)),
    }


def test_a_card_played_twice_in_a_round_without_its_deal_is_named_at_its_line() -> None:
    text = _without_deals(_walkthrough()).replace("5. Mi6 Mi2", "5. Ma5 Mi2", 1)
    line = next(
        number for number, found in enumerate(text.splitlines(), 1) if found.startswith("5. Ma5")
    )
    (report,) = [verify_record(item) for item in _from_file(text.encode(), "g.ptn")]
    (problem,) = report.problems
    assert problem.code is Code.CARD_NOT_HELD
    assert (problem.line, problem.column) == (line, 4)
    assert "Ma5" in problem.message and "cannot hold" in problem.message


def test_a_problem_of_a_text_record_is_placed_where_its_part_is_written() -> None:
    text, _ = record_text(json.loads((EXAMPLES / "invalid" / "revoke.json").read_text("utf-8")))
    (report,) = [verify_record(item) for item in _from_file(text.encode(), "g.ptn")]
    problem = next(p for p in report.problems if p.code is Code.REVOKE)
    written = text.splitlines()[problem.line - 1]
    assert written.startswith(f"{problem.trick}.")
    card = problem.pointer.rsplit("/", 2)
    assert card[-1] == "card"
    assert written[problem.column - 1 : problem.column + 2] in problem.message


def test_the_readmes_lines_of_the_walkthrough_text_are_the_examples() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = readme.split("These are the first lines of", 1)[1].split("```\n", 2)[1]
    text = (EXAMPLES / "rulebook-walkthrough.ptn").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(shown.splitlines()):
        if "{" in line:  # the README shortens the first comments
            head, _, _ = line.partition("{")
            assert text[number].startswith(head + "{")
            assert line.endswith(text[number].rsplit("}", 1)[1])
        else:
            assert line == text[number]
