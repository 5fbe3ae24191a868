"""The solver against a plain exhaustive minimax, on thousands of late positions.

The reference below has no pruning, no table and no equivalence: it asks the state for
every legal action (``legal_actions``) and applies each (``apply``), down to the end of the
round. At a swap (or the exchange) it resolves the matrix game the documented way
(docs/analysis.md): the side whose value is computed commits first and the other answers
knowing its choice. Agreement on every position proves the solver's pruning exact: the
alpha-beta windows, the table (and its renumbered keys), the bounds on the notes, the
cards played as one, the deadline.

The positions come from seeded random play: the rulebook sheet and random custom sheets,
all four combinations of the optional rules, a bias towards special cards (so swaps, two
swaps in one trick and special tricks are common), stops at the start of a trick, after
the lead, inside a swap and in the last trick, and some with many notes completed (so the
sheet is completed and the game ends). Every test runs against whichever build is
imported (CI runs both); the pure-Python build checks fewer positions.
"""

from __future__ import annotations

import doctest
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from phantom_log import engine_build
from phantom_log.analysis import solver as solver_module
from phantom_log.analysis.solver import (
    ENTRY_BYTES,
    Choice,
    Solver,
    Unsolved,
    option_values,
    solve,
    value,
)
from phantom_log.rules.cards import CARD_BY_CODE, Role, hand_cards, hand_mask, popcount
from phantom_log.rules.engine import (
    TRICKS_PER_ROUND,
    DealCards,
    ExchangeCards,
    GameState,
    Phase,
    PickSpecialNumber,
    PlayCard,
    Rules,
    SwapCards,
    judge,
)
from phantom_log.rules.sheets import RULEBOOK_SHEET, Sheet, sheet_from_json
from tests.helpers.paths import REPO

PURE = engine_build() == "pure Python"
SIDES = (Role.PHANTOM, Role.CHRISTINE)
#: Positions per test, by build: the pure-Python build is some ten times slower.
SHORT_POSITIONS = 400 if PURE else 2400
LONG_POSITIONS = 12 if PURE else 60


# -- the reference ---------------------------------------------------------------------


def minimax(state: GameState, side: Role) -> int:
    """The value of ``state`` for ``side``, by plain exhaustive search."""
    phase = state.phase
    if phase in (Phase.DEAL, Phase.OVER):
        return state.notes
    if phase in (Phase.PLAY, Phase.SPECIAL_NUMBER):
        mover = state.turn if phase == Phase.PLAY else state.leader
        values = [minimax(after(state, action), side) for action in state.legal_actions()]
        return max(values) if mover == Role.PHANTOM else min(values)
    rows = matrix(state, side)
    if side == Role.PHANTOM:
        return max(min(row.values()) for row in rows.values())
    return min(max(row.values()) for row in rows.values())


def matrix(state: GameState, side: Role) -> dict[Choice, dict[Choice, int]]:
    """A simultaneous choice as its matrix: ``side``'s choice, the other's, the value."""
    rows: dict[Choice, dict[Choice, int]] = {}
    for action in state.legal_actions():
        assert isinstance(action, SwapCards | ExchangeCards)
        mine, theirs = (
            (action.phantom, action.christine)
            if side == Role.PHANTOM
            else (action.christine, action.phantom)
        )
        rows.setdefault(mine, {})[theirs] = minimax(after(state, action), side)
    return rows


def reference_options(state: GameState, side: Role) -> dict[Choice, int]:
    """The value of every option of the decision at ``state``, by plain search."""
    phase = state.phase
    if phase == Phase.PLAY:
        return {
            action.card: minimax(after(state, action), side)
            for action in state.legal_actions()
            if isinstance(action, PlayCard)
        }
    if phase == Phase.SPECIAL_NUMBER:
        return {
            action.number: minimax(after(state, action), side)
            for action in state.legal_actions()
            if isinstance(action, PickSpecialNumber)
        }
    worst = min if side == Role.PHANTOM else max
    return {mine: worst(row.values()) for mine, row in matrix(state, side).items()}


def after(state: GameState, action: object) -> GameState:
    following = state.apply(action)  # type: ignore[arg-type]
    assert isinstance(following, GameState), following
    return following


# -- the positions -----------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    state: GameState
    tags: frozenset[str]


def random_sheet(rng: random.Random) -> Sheet:
    """A valid custom sheet: the four suits in a random order, bars of 1 to 9 notes."""
    suits = ["Mi", "Ch", "Ri", "Ma"]
    rng.shuffle(suits)
    cuts = sorted(rng.sample(range(1, 12), 3))
    lengths = [b - a for a, b in zip([0, *cuts], [*cuts, 12], strict=True)]
    bars = [
        {"suit": suit, "notes": "".join(rng.choice("PC") for _ in range(length))}
        for suit, length in zip(suits, lengths, strict=True)
    ]
    sheet = sheet_from_json({"name": "random", "bars": bars})
    assert isinstance(sheet, Sheet), sheet
    return sheet


def random_position(rng: random.Random, tricks_left: int) -> Position | None:
    """A position with at most ``tricks_left`` tricks to play, by random play that favours
    special cards; ``None`` when the game ended first."""
    custom = rng.random() < 0.5
    sheet = random_sheet(rng) if custom else RULEBOOK_SHEET
    rules = Rules(beginner=rng.random() < 0.5, balance=rng.random() < 0.5)
    state = GameState.start(sheet, rules, tracking=False)
    deck = list(range(24))
    rng.shuffle(deck)
    state = after(state, DealCards(hand_mask(deck[:10]), hand_mask(deck[10:20])))
    if rng.random() < 0.3:
        # Many notes already completed (as in a second round): the sheet can be completed.
        state.round_index = 1
        state.notes = rng.randrange(7, 12)
    target = TRICKS_PER_ROUND - tricks_left
    stop = rng.choice(("trick", "follow", "swap", "second swap of a trick", "last trick", "any"))
    while True:
        phase = state.phase
        if phase in (Phase.DEAL, Phase.OVER):
            return None
        tags = tags_of(state, custom)
        if state.tricks_played >= target and (
            (stop == "trick" and phase == Phase.PLAY and state.lead is None)
            or (stop == "follow" and phase == Phase.PLAY and state.lead is not None)
            or (stop == "swap" and phase == Phase.SWAP)
            or stop in tags
            or (stop == "any" and phase in (Phase.PLAY, Phase.SWAP) and rng.random() < 0.3)
        ):
            return Position(state, frozenset(tags))
        late = state.tricks_played >= target
        state = after(state, choose(rng, state, late, eager=stop == "second swap of a trick"))


def choose(rng: random.Random, state: GameState, late: bool, eager: bool) -> object:
    """A random legal action. The special number is the one of most cards held; special
    cards are kept for the ``late`` tricks, then played as often as not (always when
    ``eager``)."""
    phase = state.phase
    if phase == Phase.SWAP:
        size = state.swap_due()
        given = [rng.sample(hand_cards(state.hand(role)), size) for role in SIDES]
        return SwapCards(tuple(sorted(given[0])), tuple(sorted(given[1])))
    if phase == Phase.EXCHANGE:
        return ExchangeCards(*(rng.choice(hand_cards(state.hand(role))) for role in SIDES))
    actions = state.legal_actions()
    if phase == Phase.SPECIAL_NUMBER and not state.beginner:
        held = state.phantom_hand | state.christine_hand
        return max(
            actions,
            key=lambda action: popcount(held & special_mask(action.number)),  # type: ignore[union-attr]
        )
    special = special_mask(state.special_number)
    plays = [action for action in actions if isinstance(action, PlayCard)]
    wanted = [action for action in plays if (special >> action.card & 1) == late]
    if eager and late and state.lead is None:
        # A special lead in a suit the follower lacks: the follower may answer with a
        # special card of another suit, and the trick has two swaps.
        other = state.hand(Role(1 - state.turn_code))
        wanted = [
            action for action in wanted if not other >> (action.card // 6 * 6) & 0b111111
        ] or wanted
    if wanted and (not late or eager or rng.random() < 0.5):
        return rng.choice(wanted)
    return rng.choice(actions)


def special_mask(number: int) -> int:
    """The four cards showing ``number`` (none for 0, before the number is picked)."""
    return hand_mask([suit * 6 + number - 1 for suit in range(4)]) if number else 0


def tags_of(state: GameState, custom: bool) -> set[str]:
    tags = {"custom sheet" if custom else "rulebook sheet"}
    tags |= {name for name, on in (("beginner", state.beginner), ("balance", state.balance)) if on}
    tags.add("last trick" if state.tricks_played == TRICKS_PER_ROUND - 1 else "earlier trick")
    if state.phase == Phase.SWAP:
        tags.add("in a swap")
        lead = state.lead
        if state.swap_after_follow and lead is not None and lead % 6 + 1 == state.special_number:
            tags.add("second swap of a trick")
    elif state.lead is not None:
        tags.add("after the lead")
    if popcount((state.phantom_hand | state.christine_hand) & special_mask(state.special_number)):
        tags.add("special cards in hand")
    if state.notes >= 7:
        tags.add("many notes")
    return tags


def positions(seed: int, count: int, tricks_left: int) -> Iterator[Position]:
    rng = random.Random(f"solver:{seed}")
    made = 0
    while made < count:
        position = random_position(rng, tricks_left)
        if position is not None:
            made += 1
            yield position


@pytest.fixture(scope="module")
def short_positions() -> list[Position]:
    return list(positions(1, SHORT_POSITIONS, 3))


@pytest.fixture(scope="module")
def long_positions() -> list[Position]:
    return list(positions(2, LONG_POSITIONS, 4))


Values = list[dict[Role, int]]


@pytest.fixture(scope="module")
def short_values(short_positions: list[Position]) -> Values:
    """The plain search's value of each short position, from both sides."""
    return [{side: minimax(p.state, side) for side in SIDES} for p in short_positions]


@pytest.fixture(scope="module")
def long_values(long_positions: list[Position]) -> Values:
    return [{side: minimax(p.state, side) for side in SIDES} for p in long_positions]


# -- agreement -----------------------------------------------------------------------------


def game_of(position: Position) -> tuple[int, int, bool, bool]:
    state = position.state
    return (state.owners, state.suits, state.beginner, state.balance)


def test_the_positions_cover_every_variant(
    short_positions: list[Position], short_values: Values
) -> None:
    counts = Counter(tag for position in short_positions for tag in position.tags)
    for tag in (
        "rulebook sheet",
        "custom sheet",
        "beginner",
        "balance",
        "in a swap",
        "second swap of a trick",
        "after the lead",
        "special cards in hand",
        "last trick",
        "many notes",
    ):
        assert counts[tag] >= SHORT_POSITIONS // 100, (tag, counts)
    ends = Counter(
        "sheet completed" if values[Role.PHANTOM] == 12 else "round over" for values in short_values
    )
    assert ends["sheet completed"] > 0 and ends["round over"] > 0


def test_values_agree_with_plain_minimax(
    short_positions: list[Position], short_values: Values
) -> None:
    """From both sides; one solver, its table shared by the positions of one sheet and
    rules (as across the solves of a round) and cleared between."""
    solver = Solver(1 << 12)
    order = sorted(range(len(short_positions)), key=lambda index: game_of(short_positions[index]))
    for index in order:
        for side in SIDES:
            found = solver.value(short_positions[index].state, side)
            assert found == short_values[index][side], (short_positions[index], side)


def test_values_agree_four_tricks_from_the_end(
    long_positions: list[Position], long_values: Values
) -> None:
    solver = Solver(1 << 14)
    order = sorted(range(len(long_positions)), key=lambda index: game_of(long_positions[index]))
    for index in order:
        for side in SIDES:
            found = solver.value(long_positions[index].state, side)
            assert found == long_values[index][side]


def test_option_values_and_best_choices_agree_with_plain_minimax(
    short_positions: list[Position],
) -> None:
    """Every option's value, and every best choice (cards played as one included)."""
    solver = Solver(1 << 12)
    for position in short_positions[: len(short_positions) // 4]:
        state = position.state
        simultaneous = state.phase == Phase.SWAP
        for side in SIDES if simultaneous else (state.turn,):
            assert side is not None
            expected = reference_options(state, side)
            assert solver.option_values(state, side) == expected, position
            solution = solver.solve(state, side)
            best = (max if side == Role.PHANTOM else min)(expected.values())
            assert solution.value == best
            assert set(solution.best) == {
                choice for choice, found in expected.items() if found == best
            }
            assert solution.side == side
            assert solution.mover == (None if simultaneous else side)


def test_a_tiny_table_replaces_its_entries_and_stays_exact(
    long_positions: list[Position], long_values: Values
) -> None:
    solver = Solver(16)
    assert solver.size == 16 and solver.memory == 16 * ENTRY_BYTES
    rng = random.Random(2)
    for position, values in zip(long_positions, long_values, strict=True):
        side = rng.choice(SIDES)
        assert solver.value(position.state, side) == values[side]


def test_the_module_functions_solve_with_a_fresh_table(short_positions: list[Position]) -> None:
    plays = [p.state for p in short_positions if p.state.phase == Phase.PLAY][:40]
    for state in plays:
        mover = state.turn
        assert mover is not None
        expected = minimax(state, mover)
        assert value(state) == expected
        assert solve(state).value == expected
        best = max if mover == Role.PHANTOM else min
        assert best(option_values(state).values()) == expected


def test_cut_offs_from_the_table_agree_with_plain_minimax(
    short_positions: list[Position], short_values: Values
) -> None:
    """A node looks its children up in the table before searching any (an "enhanced
    transposition cut-off", from four tricks left by default): here from two tricks left,
    so that it is used all over these positions, with the table shared from both sides.
    Every value, every option's value and every choice judged stays the plain search's."""
    solver = Solver(1 << 12)
    solver.cut_from = 2
    order = sorted(range(len(short_positions)), key=lambda index: game_of(short_positions[index]))
    for index in order:
        for side in SIDES:
            found = solver.value(short_positions[index].state, side)
            assert found == short_values[index][side], (short_positions[index], side)
    rng = random.Random(11)
    for position in short_positions[: len(short_positions) // 8]:
        state = position.state
        for side in SIDES if state.phase == Phase.SWAP else (state.turn,):
            assert side is not None
            expected = reference_options(state, side)
            assert solver.option_values(state, side) == expected, position
            played = rng.choice(sorted(expected, key=str))
            verdict = solver.assess(state, played, side)
            found = (verdict.played, verdict.value, set(verdict.best))
            assert found == exact_verdict(expected, played, side), position


def test_cut_offs_from_the_table_four_tricks_from_the_end(
    long_positions: list[Position], long_values: Values
) -> None:
    solver = Solver(1 << 14)
    solver.cut_from = 2
    for position, values in zip(long_positions, long_values, strict=True):
        for side in SIDES:
            assert solver.value(position.state, side) == values[side]


def test_both_sides_share_the_entry_of_a_position_with_no_swap_left(
    short_positions: list[Position],
    short_values: Values,
    long_positions: list[Position],
    long_values: Values,
) -> None:
    """With no special card left in either hand no swap can come, and the two sides'
    values are one: the second side's solve is answered by the first one's entry."""
    shared = 0
    for position, values in zip(
        short_positions + long_positions, short_values + long_values, strict=True
    ):
        state = position.state
        if (
            state.phase != Phase.PLAY
            or state.lead is not None
            or state.tricks_played > TRICKS_PER_ROUND - 2
            or (state.phantom_hand | state.christine_hand) & state.special_cards()
        ):
            continue
        solver = Solver(1 << 12)
        assert solver.value(state, Role.PHANTOM) == values[Role.PHANTOM]
        assert solver.value(state, Role.CHRISTINE) == values[Role.CHRISTINE]
        assert solver.nodes <= 2  # one null-window search, or two, each cut at the root
        shared += 1
    assert shared > 0


def test_the_solvers_beat_table_is_the_engines_judge() -> None:
    """The solver orders moves by which cards beat which, read from a table the engine's
    judge filled: it says the same as the judge for every pair and super trump."""
    for super_trump in range(-1, 4):
        for lead in range(24):
            beats = solver_module._BEATS[(super_trump + 1) * 24 + lead]
            for follow in range(24):
                if follow != lead:
                    assert bool(beats >> follow & 1) == (not judge(lead, follow, super_trump) & 1)


# -- the deadline ----------------------------------------------------------------------------


def test_a_deadline_past_leaves_the_position_unsolved_never_wrong(
    long_positions: list[Position], long_values: Values
) -> None:
    """The clock is read every 1,024 nodes: a position solved in fewer is solved, any
    other is unsolved. Either way, what the search left in the table is sound."""
    solver = Solver(1 << 12)
    rng = random.Random(3)
    for position, values in zip(long_positions, long_values, strict=True):
        state = position.state
        side = rng.choice(SIDES)
        expected = values[side]
        try:
            found = solver.value(state, side, deadline=time.process_time() - 1.0)
        except Unsolved as stop:
            assert stop.nodes >= 1024
        else:
            assert found == expected
        assert solver.value(state, side) == expected
        assert solver.value(state, side, deadline=time.process_time() + 600) == expected


def test_a_deadline_in_the_middle_of_longer_solves() -> None:
    """Seven tricks from the end (five in the pure-Python build), on positions that take
    some thousands of nodes, deadlines from already past to a few milliseconds: each
    solve gives the exact value or none, and the table stays sound."""
    unsolved = 0
    chosen = 0
    for position in positions(4, 100, 5 if PURE else 7):
        state = position.state
        side = Role.CHRISTINE if state.phase == Phase.SWAP else None
        reference = Solver(1 << 14)
        exact = reference.value(state, side)
        if reference.nodes < 2048:
            continue
        chosen += 1
        if chosen > (1 if PURE else 6):
            break
        solver = Solver(1 << 10)
        for limit in (-1.0, 0.0005, 0.002, 0.005, 0.02):
            try:
                assert solver.value(state, side, deadline=time.process_time() + limit) == exact
            except Unsolved:
                unsolved += 1
        assert solver.value(state, side) == exact
    assert unsolved > 0


# -- equivalence -------------------------------------------------------------------------


def touching_pairs(state: GameState, cards: int) -> list[tuple[int, int]]:
    """Pairs of ``cards`` (a mask) of one suit, neither special, with no other card in
    play (in a hand or on the table) between them: written here, not taken from the
    solver."""
    live = state.phantom_hand | state.christine_hand
    for card in (state.lead_card, state.follow_card):
        if card >= 0:
            live |= 1 << card
    special = special_mask(state.special_number)
    pairs = []
    for low in range(24):
        for high in range(low + 1, (low // 6 + 1) * 6):
            between = live & ((1 << high) - (1 << (low + 1)))
            if (
                cards >> low & 1
                and cards >> high & 1
                and not between
                and not (special >> low & 1 or special >> high & 1)
            ):
                pairs.append((low, high))
    return pairs


def test_touching_cards_are_one_play_but_not_one_give(short_positions: list[Position]) -> None:
    """Touching cards are worth the same to play, on every position: this is what lets the
    solver play them as one (and list both among the best, or neither). To give in a swap
    they are not: the card kept and the card given then stay in play on opposite sides,
    and can meet; the solver values such gives apart, as the plain search does."""
    plays = gives = differing = 0
    solver = Solver(1 << 12)
    for position in short_positions:
        state = position.state
        if state.phase == Phase.PLAY:
            mover = state.turn
            assert mover is not None
            pairs = touching_pairs(state, state.legal_cards())
            if pairs:
                expected = reference_options(state, mover)
                best = solver.solve(state).best
                for low, high in pairs:
                    assert expected[low] == expected[high], position
                    assert (low in best) == (high in best)
                    plays += 1
            continue
        for side in SIDES:
            hand = state.phantom_hand if side == Role.PHANTOM else state.christine_hand
            pairs = touching_pairs(state, hand)
            if not pairs:
                continue
            expected = reference_options(state, side)
            assert solver.option_values(state, side) == expected
            for low, high in pairs:
                for give, found in expected.items():
                    assert isinstance(give, tuple)
                    if low in give and high not in give:
                        other = tuple(sorted(high if card == low else card for card in give))
                        gives += 1
                        differing += found != expected[other]
    assert plays > 0 and gives > 0
    assert differing > 0, "no swap where touching cards differ to give"


# -- the other decisions ---------------------------------------------------------------------


def short_round_start(rng: random.Random, beginner: bool) -> GameState:
    """A round start with three cards a hand (no real game has one; the engine plays it all
    the same), to check the exchange and the special number against the plain search."""
    state = GameState.start(random_sheet(rng), Rules(beginner=beginner), tracking=False)
    deck = list(range(24))
    rng.shuffle(deck)
    state.phantom_hand = hand_mask(deck[:3])
    state.christine_hand = hand_mask(deck[3:6])
    state.tricks_played = TRICKS_PER_ROUND - 3
    state.notes = rng.randrange(0, 12)
    state.leader_code = state.turn_code = rng.randrange(2)
    if beginner:
        state.number_choices = 0b1111110
        state.phase_code = Phase.SPECIAL_NUMBER
    else:
        state.phase_code = Phase.EXCHANGE
    return state


def test_the_exchange_and_the_special_number_agree_with_plain_minimax() -> None:
    rng = random.Random(5)
    for _ in range(10 if PURE else 40):
        state = short_round_start(rng, beginner=False)
        solver = Solver(1 << 10)
        for side in SIDES:
            assert solver.value(state, side) == minimax(state, side)
            assert solver.option_values(state, side) == reference_options(state, side)
        exchanged = after(state, rng.choice(state.legal_actions()))
        assert exchanged.phase == Phase.SPECIAL_NUMBER
        leader = exchanged.leader
        assert solver.option_values(exchanged) == reference_options(exchanged, leader)
        assert solver.solve(exchanged).mover == leader


def test_a_row_of_the_swap_matrix_agrees_with_plain_minimax(
    short_positions: list[Position],
) -> None:
    solver = Solver(1 << 12)
    swaps = [p for p in short_positions if "in a swap" in p.tags][:30]
    assert len(swaps) == 30
    for position in swaps:
        state = position.state
        for side in SIDES:
            rows = matrix(state, side)
            answer = next(iter(next(iter(rows.values()))))
            expected = {mine: row[answer] for mine, row in rows.items()}
            assert solver.row_values(state, side, answer) == expected


def exact_verdict(
    values: dict[Choice, int], played: Choice, side: Role
) -> tuple[int, int, set[Choice]]:
    """The choice made's value, the best value and every best choice, from every option's
    exact value (the slow path the analysis took before :meth:`Solver.assess`)."""
    best = (max if side == Role.PHANTOM else min)(values.values())
    return values[played], best, {choice for choice, found in values.items() if found == best}


def test_assessing_a_choice_agrees_with_every_option_solved_exactly(
    short_positions: list[Position],
) -> None:
    """Every choice of a decision, as the choice made: its value, the best value and every
    best choice are those of :meth:`Solver.option_values`; the bounds hold the exact values
    (equal to them for the choice made and the best ones)."""
    solver = Solver(1 << 12)
    rng = random.Random(7)
    for position in short_positions[: len(short_positions) // 4]:
        state = position.state
        simultaneous = state.phase == Phase.SWAP
        for side in SIDES if simultaneous else (state.turn,):
            assert side is not None
            values = solver.option_values(state, side)
            for played in rng.sample(sorted(values, key=str), min(3, len(values))):
                verdict = solver.assess(state, played, side)
                found = (verdict.played, verdict.value, set(verdict.best))
                assert found == exact_verdict(values, played, side), position
                assert verdict.bounds.keys() == values.keys()
                for choice, (low, high) in verdict.bounds.items():
                    assert low <= values[choice] <= high, (position, choice)
                    if choice == played or choice in verdict.best:
                        assert low == high
                    assert (
                        solver.choice_value(state, choice, side, bounds=(low, high))
                        == (values[choice])
                    )


def test_assessing_a_swap_against_the_answer_agrees_with_the_row(
    short_positions: list[Position],
) -> None:
    """At a swap, every give against the opponent's actual answer (one row of the matrix):
    as :meth:`Solver.row_values` finds it."""
    solver = Solver(1 << 12)
    rng = random.Random(8)
    swaps = [p for p in short_positions if "in a swap" in p.tags]
    assert len(swaps) >= 30
    for position in swaps[: len(swaps) // 2]:
        state = position.state
        for side in SIDES:
            rows = matrix(state, side)
            answer = rng.choice(sorted({theirs for row in rows.values() for theirs in row}))
            values = solver.row_values(state, side, answer)
            for played in rng.sample(sorted(values), min(4, len(values))):
                verdict = solver.assess(state, played, side, answer)
                found = (verdict.played, verdict.value, set(verdict.best))
                assert found == exact_verdict(values, played, side), (position, side, answer)


def test_the_exchange_assessed_agrees_with_every_option_solved_exactly() -> None:
    rng = random.Random(9)
    for _ in range(10 if PURE else 40):
        state = short_round_start(rng, beginner=False)
        solver = Solver(1 << 10)
        for side in SIDES:
            values = solver.option_values(state, side)
            played = rng.choice(sorted(values, key=str))
            verdict = solver.assess(state, played, side)
            assert (verdict.played, verdict.value, set(verdict.best)) == exact_verdict(
                values, played, side
            )
            answer = rng.choice(hand_cards(state.hand(side.other)))
            row = solver.row_values(state, side, answer)
            verdict = solver.assess(state, played, side, answer)
            assert (verdict.played, verdict.value, set(verdict.best)) == exact_verdict(
                row, played, side
            )


def test_what_the_solver_refuses() -> None:
    rng = random.Random(6)
    with pytest.raises(ValueError, match="die"):
        Solver().solve(short_round_start(rng, beginner=True))
    with pytest.raises(ValueError, match="side"):
        Solver().solve(short_round_start(rng, beginner=False))
    with pytest.raises(ValueError, match="DEAL"):
        Solver().solve(GameState.start(RULEBOOK_SHEET))
    state = short_round_start(rng, beginner=False)
    with pytest.raises(ValueError, match="swap"):
        Solver().row_values(after(state, state.legal_actions()[0]), Role.PHANTOM, 0)
    hers = hand_cards(state.christine_hand)[0]  # the Phantom's answer cannot be her card
    with pytest.raises(ValueError, match="answer"):
        Solver().row_values(state, Role.CHRISTINE, hers)
    with pytest.raises(ValueError, match="answer"):
        Solver().row_values(state, Role.CHRISTINE, ())
    mine = hand_cards(state.phantom_hand)[0]
    with pytest.raises(ValueError, match="option"):
        Solver().assess(state, hers, Role.PHANTOM)
    with pytest.raises(ValueError, match="answer"):
        Solver().assess(state, mine, Role.PHANTOM, mine)


# -- the engine's primitives the solver uses -------------------------------------------------

FIELDS = [
    "owners",
    "suits",
    "beginner",
    "balance",
    "phase_code",
    "round_index",
    "phantom_hand",
    "christine_hand",
    "notes",
    "leader_code",
    "turn_code",
    "lead_card",
    "follow_card",
    "special_number",
    "number_choices",
    "tricks_played",
    "pending_swap",
    "swap_after_follow",
    "special_in_trick",
    "winner_code",
    "ended_round",
    "ended_trick",
    "last_lead",
    "last_follow",
    "last_verdict",
    "tracking",
    "swaps",
    "last_trick",
]


def test_assign_copies_every_field(short_positions: list[Position]) -> None:
    for position in short_positions[:50]:
        copy = GameState(0, 0, False, False)
        copy.assign(position.state)
        for name in FIELDS:
            assert getattr(copy, name) == getattr(position.state, name), name


def test_a_swap_given_as_masks_is_the_swap_given_as_cards(
    short_positions: list[Position],
) -> None:
    swaps = [p for p in short_positions if p.state.phase == Phase.SWAP][:50]
    assert len(swaps) == 50
    for position in swaps:
        for action in position.state.legal_actions():
            assert isinstance(action, SwapCards)
            by_cards = position.state.copy()
            by_masks = position.state.copy()
            assert by_cards.step_swap(action.phantom, action.christine) is None
            masks = hand_mask(action.phantom), hand_mask(action.christine)
            assert by_masks.step_swap_masks(*masks) is None
            for name in FIELDS:
                assert getattr(by_cards, name) == getattr(by_masks, name), name
        wrong = position.state.copy()
        problem = wrong.step_swap_masks(wrong.christine_hand & -wrong.christine_hand, 0)
        assert problem is not None and wrong.hands == position.state.hands


def test_the_notes_floor_and_ceiling_bound_the_value(
    short_positions: list[Position], short_values: Values
) -> None:
    for position, values in zip(short_positions, short_values, strict=True):
        state = position.state
        for side in SIDES:
            assert state.notes_floor() <= values[side] <= state.notes_ceiling()


def test_the_special_cards_are_the_four_of_the_special_number() -> None:
    state = late_state(codes("Mi3"), codes("Ch1"), 3)
    assert state.special_cards() == codes("Mi3", "Ch3", "Ri3", "Ma3")
    assert GameState.start(RULEBOOK_SHEET).special_cards() == 0


def codes(*names: str) -> int:
    return hand_mask([CARD_BY_CODE[name] for name in names])


def late_state(phantom: int, christine: int, special_number: int) -> GameState:
    """A state of the last tricks of round 1, dealt by hand: the Phantom to lead."""
    state = GameState.start(RULEBOOK_SHEET, tracking=False)
    state.phantom_hand = phantom
    state.christine_hand = christine
    state.special_number = special_number
    state.phase_code = Phase.PLAY
    state.tricks_played = TRICKS_PER_ROUND - popcount(phantom)
    return state


def test_the_analysis_page_shows_what_the_solver_gives() -> None:
    """docs/analysis.md's session gives the output it shows."""
    page = REPO / "docs" / "analysis.md"
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried > 0 and failures == 0
