"""A trick's swaps packed in one int by the engine (``TrickEnded.packed_swaps()``, laid out
by ``rules.events.SWAP_LAYOUT``) and decoded by the tables a whole column at a time.

Every shape a trick's swaps can have (none, one after the lead or the follow, two, each
side giving none, one or two cards, any card) unpacks to the very swaps packed, and the
tables decode the column to annotate's own JSON of the swaps and to the text of its CSV.
"""

from __future__ import annotations

import itertools

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from phantom_log.rules.cards import DECK_SIZE
from phantom_log.rules.engine import PLAYS_PER_TRICK, SWAP_SIZE
from phantom_log.rules.events import (
    PACKED_SWAP_CARDS,
    PACKED_SWAPS,
    SWAP_BITS,
    SWAP_LAYOUT,
    CardsSwapped,
    pack_swaps,
)
from phantom_log.tabular.tables import GAME_KEY, decode_tricks
from phantom_log.views.annotate import swap_json, swaps_text

cards = st.lists(st.integers(0, DECK_SIZE - 1), max_size=SWAP_SIZE, unique=True)


@st.composite
def trick_swaps(draw: st.DrawFn) -> tuple[CardsSwapped, ...]:
    """The swaps of one trick: none, or one after the lead and/or one after the follow."""
    afters = draw(st.sampled_from([(), (False,), (True,), (False, True)]))
    return tuple(
        CardsSwapped(1, 1, after, 0, tuple(draw(cards)), tuple(draw(cards)), 0, 0, -1)
        for after in afters
    )


def unpack(packed: int) -> list[tuple[bool, tuple[int, ...], tuple[int, ...]]]:
    """The swaps of a packed int, read by the layout alone."""
    fields = {name: (shift, bits) for name, shift, bits in SWAP_LAYOUT}
    swaps = []
    for swap in range(PACKED_SWAPS):

        def field(name: str, swap: int = swap) -> int:
            shift, bits = fields[name]
            return packed >> (swap * SWAP_BITS + shift) & ((1 << bits) - 1)

        if not field("present"):
            continue
        sides = [
            tuple(field(f"{side}_{place}") for place in range(1, field(f"{side}_count") + 1))
            for side in ("phantom", "christine")
        ]
        swaps.append((bool(field("after_follow")), sides[0], sides[1]))
    return swaps


def test_the_layout_holds_every_swap_the_rules_allow() -> None:
    assert PACKED_SWAPS >= PLAYS_PER_TRICK  # a swap at most after each card
    assert PACKED_SWAP_CARDS >= SWAP_SIZE
    ends = [shift + bits for _, shift, bits in SWAP_LAYOUT]
    assert max(ends) <= SWAP_BITS and PACKED_SWAPS * SWAP_BITS <= 63  # a signed 64-bit int
    card_bits = dict((name, bits) for name, _, bits in SWAP_LAYOUT)["phantom_1"]
    assert 1 << card_bits >= DECK_SIZE
    spans = sorted((shift, shift + bits) for _, shift, bits in SWAP_LAYOUT)
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))


@given(trick_swaps())
def test_packed_swaps_unpack_to_the_swaps_packed(swaps: tuple[CardsSwapped, ...]) -> None:
    packed = pack_swaps(swaps)
    assert (packed == 0) == (not swaps)
    assert unpack(packed) == [
        (swap.after_follow, swap.phantom_gave, swap.christine_gave) for swap in swaps
    ]


def test_more_than_the_layout_holds_is_refused() -> None:
    three = tuple(CardsSwapped(1, 1, False, 0, (1,), (2,), 0, 0, -1) for _ in range(3))
    with pytest.raises(ValueError, match="swaps in one trick"):
        pack_swaps(three)
    with pytest.raises(ValueError, match="more than two cards"):
        pack_swaps((CardsSwapped(1, 1, False, 0, (1, 2, 3), (4,), 0, 0, -1),))


@given(st.lists(trick_swaps(), min_size=1, max_size=40))
def test_the_tables_decode_packed_swaps_as_annotate_writes_them(
    tricks: list[tuple[CardsSwapped, ...]],
) -> None:
    frame = pl.DataFrame(
        {
            GAME_KEY: [0] * len(tricks),
            "source": ["s"] * len(tricks),
            "index": [0] * len(tricks),
            "game_id": ["g"] * len(tricks),
            "packed": [1 | 1 << 2] * len(tricks),  # round 1, trick 1: any valid trick
            "swaps": [pack_swaps(swaps) for swaps in tricks],
        },
        schema_overrides={"packed": pl.Int64, "swaps": pl.Int64},
    )
    as_lists = decode_tricks(frame)["swaps"].to_list()
    assert as_lists == [[swap_json(swap) for swap in swaps] for swaps in tricks]
    as_text = decode_tricks(frame, swaps_as_written=True)["swaps"].to_list()
    assert as_text == [swaps_text(swaps) or None for swaps in tricks]
    lazy = decode_tricks(frame.lazy(), swaps_as_written=True).collect()["swaps"].to_list()
    assert lazy == as_text
