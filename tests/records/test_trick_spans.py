"""``--from``, ``--to`` and ``--at``: the points they name, the spans, the refusals."""

from __future__ import annotations

import re

import pytest

from phantom_log.records.trick_spans import (
    WHOLE_GAME,
    TrickPoint,
    TrickSpan,
    parse_trick_point,
    trick_span,
)
from phantom_log.rules.engine import ROUNDS_PER_GAME, TRICKS_PER_ROUND


def test_a_point_is_a_round_and_a_trick_and_a_round_alone_is_its_first_or_last() -> None:
    assert parse_trick_point("2.5") == TrickPoint(2, 5)
    assert parse_trick_point(" 1.10 ") == TrickPoint(1, 10)
    assert parse_trick_point("2") == TrickPoint(2, 1)
    assert parse_trick_point("2", end=True) == TrickPoint(2, TRICKS_PER_ROUND)
    assert str(TrickPoint(2, 5)) == "2.5"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "not ROUND.TRICK"),
        ("2.", "not ROUND.TRICK"),
        ("a.b", "not ROUND.TRICK"),
        ("-1.2", "not ROUND.TRICK"),
        ("0.1", f"rounds 1 to {ROUNDS_PER_GAME}"),
        (f"{ROUNDS_PER_GAME + 1}.1", f"rounds 1 to {ROUNDS_PER_GAME}"),
        ("1.0", f"tricks 1 to {TRICKS_PER_ROUND}"),
        (f"1.{TRICKS_PER_ROUND + 1}", f"tricks 1 to {TRICKS_PER_ROUND}"),
        ("99999999.1", "not ROUND.TRICK"),
    ],
)
def test_a_point_no_game_reaches_is_refused_in_words(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_trick_point(text)


def test_a_span_covers_its_ends_and_what_lies_between() -> None:
    span = trick_span("1.9", "2.2", None)
    covered = [
        (r, t) for r in range(1, 3) for t in range(1, TRICKS_PER_ROUND + 1) if span.covers(r, t)
    ]
    assert covered == [(1, 9), (1, 10), (2, 1), (2, 2)]
    assert trick_span(None, None, None) == WHOLE_GAME
    assert WHOLE_GAME.covers(1, 1) and WHOLE_GAME.covers(2, TRICKS_PER_ROUND)
    assert trick_span(None, "1", None).covers(1, TRICKS_PER_ROUND)
    assert not trick_span(None, "1", None).covers(2, 1)
    assert trick_span("2", None, None) == TrickSpan(TrickPoint(2, 1), None)


def test_at_is_one_trick_or_one_round() -> None:
    assert trick_span(None, None, "2.5") == TrickSpan(TrickPoint(2, 5), TrickPoint(2, 5))
    assert trick_span(None, None, "1") == TrickSpan(
        TrickPoint(1, 1), TrickPoint(1, TRICKS_PER_ROUND)
    )
    assert str(trick_span(None, None, "2.5")) == "trick 2.5"
    assert str(trick_span(None, None, "2")) == "round 2"
    assert str(trick_span("1.3", None, None)) == "trick 1.3 to the last trick"


@pytest.mark.parametrize(
    ("start", "end", "at", "said"),
    [
        ("3.1", None, None, "--from '3.1': a game has rounds 1 to"),
        (None, "1.11", None, "--to '1.11': a round has tricks 1 to"),
        (None, None, "x", "--at 'x': not ROUND.TRICK"),
    ],
)
def test_a_refused_point_names_its_option(
    start: str | None, end: str | None, at: str | None, said: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(said)):
        trick_span(start, end, at)


def test_a_span_that_names_no_trick_is_refused() -> None:
    with pytest.raises(ValueError, match="comes before"):
        trick_span("2.1", "1.5", None)
    with pytest.raises(ValueError, match="--at names the tricks alone"):
        trick_span("1.1", None, "2")
