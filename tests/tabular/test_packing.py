"""A trick as the tables receive it: its facts and its swaps each packed in one int by a
:class:`~phantom_log.tabular.rows.BitLayout` (``TRICK_LAYOUT``, ``SWAP_LAYOUT``), and
decoded by the tables a whole column at a time by the same layouts.

Each field is as wide as the largest value it holds needs and sits after the ones before
it, so a layout that no longer fits an int fails when it is made, and so does the module
that declares it; a value past its field's largest is refused, never spilled into the next
field. Every fact of a trick, and every shape a trick's swaps can have (none, one after
the lead or the follow, two, each side giving none, one or two cards, any card), unpacks
to what was packed, and the tables decode the swaps to annotate's own JSON of them and to
the text of its CSV.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from phantom_log.rules import cards
from phantom_log.rules.cards import DECK_SIZE, card_suit_index
from phantom_log.rules.engine import PLAYS_PER_TRICK, SWAP_SIZE
from phantom_log.rules.events import REASONS, CardsSwapped
from phantom_log.rules.replay import replay_record
from phantom_log.tabular import rows
from phantom_log.tabular.rows import (
    INT_BITS,
    SWAP_LAYOUT,
    TRICK_LAYOUT,
    BitLayout,
    Packing,
    pack_swaps,
    pack_trick,
)
from phantom_log.tabular.tables import GAME_KEY, decode_tricks
from phantom_log.views.annotate import swap_json, swaps_text
from tests.helpers.paths import WALKTHROUGH

cards_given = st.lists(st.integers(0, DECK_SIZE - 1), max_size=SWAP_SIZE, unique=True)


@st.composite
def trick_swaps(draw: st.DrawFn) -> tuple[CardsSwapped, ...]:
    """The swaps of one trick: none, or one after the lead and/or one after the follow."""
    afters = draw(st.sampled_from([(), (False,), (True,), (False, True)]))
    return tuple(
        CardsSwapped(1, 1, after, 0, tuple(draw(cards_given)), tuple(draw(cards_given)), 0, 0, -1)
        for after in afters
    )


def unpack(layout: BitLayout, packed: int, name: str, copy: int = 0) -> int:
    """A field of a packed int, read by the layout alone."""
    shift, width = layout.field(name, copy)
    return packed >> shift & ((1 << width) - 1)


def unpack_swaps(packed: int) -> list[tuple[bool, tuple[int, ...], tuple[int, ...]]]:
    swaps = []
    for swap in range(SWAP_LAYOUT.copies):

        def field(name: str, swap: int = swap) -> int:
            return unpack(SWAP_LAYOUT, packed, name, swap)

        if not field("present"):
            continue
        sides = [
            tuple(field(f"{side}_{place}") for place in range(1, field(f"{side}_count") + 1))
            for side in ("phantom", "christine")
        ]
        swaps.append((bool(field("after_follow")), sides[0], sides[1]))
    return swaps


def test_each_field_is_as_wide_as_its_largest_value_and_follows_the_one_before() -> None:
    layout = BitLayout([("flag", 1), ("card", DECK_SIZE - 1), ("notes", 12)], copies=2)
    assert layout.widths == (1, 5, 4) and layout.shifts == (0, 1, 6) and layout.width == 10
    assert layout.field("notes") == (6, 4) and layout.field("card", 1) == (11, 5)
    # A card index past 5 bits widens its field, and moves those after it.
    wider = BitLayout([("flag", 1), ("card", 40), ("notes", 12)])
    assert wider.widths == (1, 6, 4) and wider.field("notes") == (7, 4)


def test_the_layouts_hold_every_swap_the_rules_allow() -> None:
    assert SWAP_LAYOUT.copies >= PLAYS_PER_TRICK  # a swap at most after each card
    assert [name for name in SWAP_LAYOUT.names if name.startswith("phantom_")] == [
        "phantom_count",
        *(f"phantom_{place}" for place in range(1, SWAP_SIZE + 1)),
    ]
    assert TRICK_LAYOUT.width <= INT_BITS and SWAP_LAYOUT.width * SWAP_LAYOUT.copies <= INT_BITS


@pytest.mark.parametrize(
    ("fields", "copies"),
    [([("a", (1 << 40) - 1), ("b", (1 << 24) - 1)], 1), ([("a", (1 << 32) - 1)], 2)],
    ids=["a packed int wider than 63 bits", "copies wider than 63 bits"],
)
def test_a_layout_wider_than_an_int_fails_when_it_is_made(
    fields: list[tuple[str, int]], copies: int
) -> None:
    with pytest.raises(OverflowError, match="bits: an int holds 63"):
        BitLayout(fields, copies)


def test_a_field_that_holds_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="holds no value but 0"):
        BitLayout([("a", 1), ("nothing", 0)])


def test_the_tables_rows_fail_to_import_when_a_card_no_longer_fits_their_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a deck of 128 cards, each card of a swap takes 7 bits: two swaps of two cards
    a side no longer fit an int, and the module declaring the layouts fails to import."""
    monkeypatch.setattr(cards, "DECK_SIZE", 128)
    name = "phantom_log.tabular.rows_with_a_larger_deck"
    spec = importlib.util.spec_from_file_location(name, Path(rows.__file__).with_name("rows.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    with pytest.raises(OverflowError, match="phantom_1, phantom_2"):
        spec.loader.exec_module(module)


def test_a_packed_trick_unpacks_to_its_facts() -> None:
    log = replay_record(json.loads(WALKTHROUGH.read_text(encoding="utf-8")))
    packing = Packing()
    for trick in log.tricks:
        packed = pack_trick(trick, packing)
        assert {name: unpack(TRICK_LAYOUT, packed, name) for name in TRICK_LAYOUT.names} == {
            "round": trick.round,
            "trick": trick.trick,
            "leader": trick.leader_code,
            "follower": 1 - trick.leader_code,
            "lead": trick.lead,
            "follow": trick.follow,
            "lead_suit": card_suit_index(trick.lead),
            "super_trump": trick.super_trump_code + 1,
            "winner": trick.winner_code,
            "reason": REASONS.index(trick.reason),
            "note_owner": trick.note_owner_code,
            "in_order": trick.in_order,
            "special": trick.special,
            "notes_before": trick.notes_before,
            "notes_after": trick.notes_after,
        }


@given(trick_swaps())
def test_packed_swaps_unpack_to_the_swaps_packed(swaps: tuple[CardsSwapped, ...]) -> None:
    packed = pack_swaps(swaps, Packing())
    assert (packed == 0) == (not swaps)
    assert unpack_swaps(packed) == [
        (swap.after_follow, swap.phantom_gave, swap.christine_gave) for swap in swaps
    ]


def test_more_than_the_layout_holds_is_refused() -> None:
    packing = Packing()
    three = tuple(CardsSwapped(1, 1, False, 0, (1,), (2,), 0, 0, -1) for _ in range(3))
    with pytest.raises(ValueError, match="does not fit the end of the layout"):
        pack_swaps(three, packing)
    with pytest.raises(ValueError, match="3 does not fit phantom_count"):
        pack_swaps((CardsSwapped(1, 1, False, 0, (1, 2, 3), (4,), 0, 0, -1),), packing)
    with pytest.raises(ValueError, match="24 does not fit christine_1"):
        pack_swaps((CardsSwapped(1, 1, False, 0, (1,), (DECK_SIZE,), 0, 0, -1),), packing)


@given(st.lists(trick_swaps(), min_size=1, max_size=40))
def test_the_tables_decode_packed_swaps_as_annotate_writes_them(
    tricks: list[tuple[CardsSwapped, ...]],
) -> None:
    packing = Packing()
    frame = pl.DataFrame(
        {
            GAME_KEY: [0] * len(tricks),
            "source": ["s"] * len(tricks),
            "index": [0] * len(tricks),
            "game_id": ["g"] * len(tricks),
            "packed": [1 | 1 << 2] * len(tricks),  # round 1, trick 1: any valid trick
            "swaps": [pack_swaps(swaps, packing) for swaps in tricks],
        },
        schema_overrides={"packed": pl.Int64, "swaps": pl.Int64},
    )
    as_lists = decode_tricks(frame)["swaps"].to_list()
    assert as_lists == [[swap_json(swap) for swap in swaps] for swaps in tricks]
    as_text = decode_tricks(frame, swaps_as_written=True)["swaps"].to_list()
    assert as_text == [swaps_text(swaps) or None for swaps in tricks]
    lazy = decode_tricks(frame.lazy(), swaps_as_written=True).collect()["swaps"].to_list()
    assert lazy == as_text
