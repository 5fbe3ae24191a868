"""The solver's encoding: the key of its table tells apart every two positions the rest of
the round can tell apart, its fields are packed as :data:`KEY_FIELDS` declares them, and a
number of the engine that no longer fits the packing stops the import, naming it.

The solver is compiled without bounds checks: a field missing from the key would merge
positions of different values, and a field too wide for its word would spill into the next
one, both silently. These tests make either loud.
"""

from __future__ import annotations

import ast
import random
from collections import defaultdict
from pathlib import Path

import pytest

from phantom_log import engine_build
from phantom_log.analysis.solver import KEY_FIELDS, Solver, check_encoding
from phantom_log.rules import engine
from phantom_log.rules.cards import DECK_SIZE, NUMBERS_PER_SUIT, Role, hand_mask
from phantom_log.rules.engine import CARDS_PER_HAND, GameState, Phase, Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET
from tests.analysis.test_solver import random_sheet

PURE = engine_build() == "pure Python"
DECLARED = {name for word in KEY_FIELDS for name, _ in word}
#: The fields of the search, not of the state: the side searched for, the special cards.
OF_THE_SEARCH = {"side", "marked"}

#: GameState's attributes the key leaves out: none of them can tell apart two positions of
#: one solve by anything the rest of the round reads.
LEFT_OUT = {
    # The sheet and the rules: one table serves one game (another game clears it).
    "owners",
    "suits",
    "beginner",
    "balance",
    # They change only in a round dealt unseen, which the solver refuses.
    "unseen",
    "phantom_count",
    "christine_count",
    "phantom_known",
    "christine_known",
    "phantom_dealt",
    "christine_dealt",
    # The deals so far: the next one comes with the next round, where a search stops.
    "deals",
    # Set when the game ends, where a search stops.
    "winner_code",
    "ended_round",
    "ended_trick",
    # What was played before, kept for the events: no rule reads it again.
    "last_lead",
    "last_follow",
    "last_verdict",
    "last_trick",
    "exchange",
    "swaps",
    "events",
}


def state_attributes() -> set[str]:
    """GameState's attributes, as its ``__init__`` sets them in the source (a compiled
    state has no ``__dict__`` to list them)."""
    source = Path(engine.__file__).with_name("engine.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    state = next(
        node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "GameState"
    )
    init = next(
        node for node in state.body if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    return {
        node.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def test_the_key_holds_every_attribute_that_can_tell_positions_apart() -> None:
    attributes = state_attributes()
    state = GameState(0, 0, False, False)
    assert all(hasattr(state, name) for name in attributes)
    if PURE:
        assert attributes == set(vars(state))
    missing = attributes - DECLARED - LEFT_OUT
    assert not missing, f"GameState attributes neither in KEY_FIELDS nor left out: {missing}"
    assert not LEFT_OUT & DECLARED
    assert not LEFT_OUT - attributes, LEFT_OUT - attributes
    assert DECLARED - attributes == OF_THE_SEARCH


# -- the packing --------------------------------------------------------------------------


def renumbered(mask: int, live: int) -> int:
    """``mask``'s cards, each suit's renumbered among the suit's cards in ``live``."""
    found = 0
    for suit in range(DECK_SIZE // NUMBERS_PER_SUIT):
        rank = 0
        for card in range(suit * NUMBERS_PER_SUIT, (suit + 1) * NUMBERS_PER_SUIT):
            if live >> card & 1:
                found |= (mask >> card & 1) << (suit * NUMBERS_PER_SUIT + rank)
                rank += 1
    return found


def expected_fields(state: GameState, side: Role) -> dict[str, int]:
    """What the key should hold of ``state``, by the description of :data:`KEY_FIELDS`."""
    fields = {name: int(getattr(state, name)) for name in DECLARED - OF_THE_SEARCH}
    held = state.phantom_hand | state.christine_hand
    specials = state.special_cards()
    no_swap_left = state.phase == Phase.PLAY and not held & specials
    fields["side"] = 0 if no_swap_left else int(side)
    fields["marked"] = 0
    if state.phase in (Phase.PLAY, Phase.SWAP):
        live = held
        for name in ("lead_card", "follow_card"):
            if fields[name] >= 0:
                live |= 1 << fields[name]
        for name in ("lead_card", "follow_card"):
            if fields[name] >= 0:
                fields[name] = renumbered(1 << fields[name], live).bit_length() - 1
        for name in ("phantom_hand", "christine_hand"):
            fields[name] = renumbered(fields[name], live)
        fields["marked"] = renumbered(specials, live)
        fields["special_number"] = 0
    fields["lead_card"] += 1
    fields["follow_card"] += 1
    return fields


def unpacked(words: tuple[int, int]) -> dict[str, int]:
    """The fields of a key, read by :data:`KEY_FIELDS`."""
    fields: dict[str, int] = {}
    for word, layout in zip(words, KEY_FIELDS, strict=True):
        shift = sum(bits for _, bits in layout)
        assert word >> shift == 0, "bits above the word's first field"
        for name, bits in layout:
            shift -= bits
            fields[name] = word >> shift & ((1 << bits) - 1)
    return fields


def searched_positions(seed: int, games: int) -> list[GameState]:
    """Every decision of whole games of random play (both rounds, every phase a search
    can meet), on random sheets, some with many notes completed."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        sheet = random_sheet(rng) if rng.random() < 0.5 else RULEBOOK_SHEET
        state = GameState.start(sheet, Rules(balance=rng.random() < 0.5), tracking=False)
        while state.phase != Phase.OVER:
            if state.phase == Phase.DEAL:
                deck = list(range(DECK_SIZE))
                rng.shuffle(deck)
                hands = deck[:CARDS_PER_HAND], deck[CARDS_PER_HAND : 2 * CARDS_PER_HAND]
                assert state.step_deal(*map(hand_mask, hands)) is None
                if rng.random() < 0.3:
                    state.notes = rng.randrange(7, 12)
                continue
            found.append(state)
            following = state.apply(rng.choice(state.legal_actions()))
            assert isinstance(following, GameState)
            state = following
    return found


def test_the_key_packs_each_field_where_the_declaration_puts_it() -> None:
    """Every field read back from the key of thousands of positions, from both sides, is
    what the declaration says; and every field takes more than one value among them (so
    that a field left out of the packing, or put elsewhere, is seen)."""
    solver = Solver(16)
    seen: dict[str, set[int]] = defaultdict(set)
    for state in searched_positions(1, 6 if PURE else 30):
        for side in Role:
            fields = unpacked(solver.key(state, side))
            assert fields == expected_fields(state, side), (state.phase, side)
            for name, value in fields.items():
                seen[name].add(value)
    assert {name for name, values in seen.items() if len(values) > 1} == DECLARED


# -- the check ----------------------------------------------------------------------------


def altered(name: str, bits: int) -> tuple[tuple[tuple[str, int], ...], ...]:
    """:data:`KEY_FIELDS` with one field of another width."""
    return tuple(
        tuple((field, bits if field == name else width) for field, width in word)
        for word in KEY_FIELDS
    )


def test_the_engines_numbers_fit() -> None:
    check_encoding()
    assert [sum(bits for _, bits in word) for word in KEY_FIELDS] == [64, 47]


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        # Sheets of 16 notes: the notes take 5 bits, and the first word 65.
        ({"fields": altered("notes", (16).bit_length())}, "'phantom_hand' ends at bit 65"),
        # A deck of 28 cards: each hand takes 28 bits.
        ({"fields": altered("phantom_hand", 28)}, "'phantom_hand' ends at bit 68"),
        ({"fields": altered("marked", 42)}, "'marked' ends at bit 65 of word 1"),
        ({"fields": (KEY_FIELDS[1], KEY_FIELDS[0])}, "'phase_code'"),
        ({"deck": 32}, "DECK_SIZE"),
        ({"suit": 9}, "NUMBERS_PER_SUIT"),
        ({"swap": 3}, "SWAP_SIZE"),
        (
            {"fields": (KEY_FIELDS[0], (("tricks_played", 33), ("phase_code", 3)))},
            "entry's field 'tricks_played'",
        ),
    ],
)
def test_a_number_that_no_longer_fits_fails_naming_it(
    arguments: dict[str, object], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        check_encoding(**arguments)  # type: ignore[arg-type]


# -- what the packing relies on -----------------------------------------------------------


def test_the_solver_refuses_a_state_its_buffers_cannot_hold() -> None:
    """A hand over the engine's hand size, or a round dealt unseen (the hands unknown)."""
    state = GameState.start(RULEBOOK_SHEET, tracking=False)
    assert state.step_deal_unseen() is None
    with pytest.raises(ValueError, match="unseen"):
        Solver(16).solve(state, Role.PHANTOM)
    state = GameState.start(RULEBOOK_SHEET, tracking=False)
    hands = list(range(CARDS_PER_HAND)), list(range(CARDS_PER_HAND, 2 * CARDS_PER_HAND))
    assert state.step_deal(*map(hand_mask, hands)) is None
    state.christine_hand |= 1 << (DECK_SIZE - 1)
    with pytest.raises(ValueError, match=f"more than {CARDS_PER_HAND} cards"):
        Solver(16).solve(state, Role.PHANTOM)
