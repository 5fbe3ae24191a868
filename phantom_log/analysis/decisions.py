"""Post-game analysis: for each decision of a record, the value of the choice made against
the value of the best one, by the perfect-information solver (:mod:`phantom_log.analysis.solver`).

No rule is applied here and no sentence is written. The decisions and the state before
each come from the engine's replay, the values from the solver, who has won from
:func:`~phantom_log.rules.engine.game_winner`, and the layouts a player could not tell
apart from the engine accepting or refusing the record's actions on them;
:mod:`phantom_log.analysis.coach` words the rows.

A value is the solver's: the notes completed at the end of the round (12 when the sheet is
completed), which the Phantom wants high and Christine low. A **cost** is counted from the
mover's side, in notes: how much better the best choice was for them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING, Any, Final

from ..records.number_kinds import COUNT, SECONDS, SEED
from ..records.trick_spans import WHOLE_GAME, TrickSpan
from ..rules.cards import CARD_CODES, FULL_DECK, Role, hand_cards, hand_mask, popcount
from ..rules.engine import (
    CARDS_PER_HAND,
    Action,
    ExchangeCards,
    GameState,
    PickSpecialNumber,
    PlayCard,
    SwapCards,
    game_winner,
)
from ..rules.replay import GameLog, GameLogBuilder, VerdictBuilder, replay_record
from .solver import Choice, Solver, Unsolved

if TYPE_CHECKING:
    from ..records.model import GameRecord
    from ..rules.sheets import Sheet
    from ..views.annotate import SwapAfter

#: Layouts of the unseen cards solved per decision with ``hidden`` unless told otherwise.
DEFAULT_WORLDS: Final = 20
#: Costs (in notes) from which a choice is labelled ``?!``, ``?`` and ``??``.
INACCURACY_COST: Final = 1
MISTAKE_COST: Final = 2
BLUNDER_COST: Final = 3


class DecisionKind(StrEnum):
    """What a player decided."""

    EXCHANGE = "exchange"
    SPECIAL_NUMBER = "special-number"
    LEAD = "lead"
    FOLLOW = "follow"
    SWAP = "swap"


class Label(StrEnum):
    """How bad a choice was, as chess annotators mark moves."""

    INACCURACY = "?!"
    MISTAKE = "?"
    BLUNDER = "??"


@dataclass(frozen=True, slots=True)
class AnalysisOptions:
    """What to analyse and how.

    ``start``: the first decision analysed, as (round, trick); trick 0 is the round's
    start (the exchange and the special number). ``tricks``: only the decisions of the
    tricks of that span (:class:`~phantom_log.records.trick_spans.TrickSpan`), a round's
    exchange and special number going with its first trick. ``deep``: at a swap or the
    exchange, also the value of the whole matrix when either side commits first
    (``bounds``), and the exchange at all (each of its options is a solve of the whole
    round). ``hidden``: average over ``worlds`` layouts of the cards the mover could not
    see (all of them when there are no more), drawn with ``seed``. ``time_limit``:
    CPU seconds for the whole game; a decision not solved by then is left unsolved (``None``:
    no limit).

    ``ValueError`` for a number that cannot be: ``worlds`` under 1, a ``seed`` past 64
    bits, a ``time_limit`` of ``nan``, infinite, 0 or less (the kinds of
    :mod:`~phantom_log.records.number_kinds`), a ``start`` that no game has."""

    start: tuple[int, int] = (1, 0)
    deep: bool = False
    hidden: bool = False
    worlds: int = DEFAULT_WORLDS
    seed: int = 0
    time_limit: float | None = None
    tricks: TrickSpan = WHOLE_GAME

    def __post_init__(self) -> None:
        from ..views.picture import check_moment

        COUNT.checked(self.worlds, "worlds")
        SEED.checked(self.seed, "seed")
        if self.time_limit is not None:
            SECONDS.checked(self.time_limit, "time_limit")
        round_no, trick_no = self.start
        if not all(type(number) is int for number in self.start):
            raise TypeError(f"start={self.start!r}: give (round, trick), two whole numbers")
        check_moment(round_no, trick_no, f"start={self.start!r}")


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a game, analysed.

    ``played`` and ``best`` are choices (:data:`~phantom_log.analysis.solver.Choice`): a card (to
    play, or to give in the exchange), a special number, or the sorted cards given in a
    swap. ``value_played`` and ``value_best`` are ``None`` when the decision was not solved
    in time. At a swap or the exchange, ``answer`` is what the opponent gave at the same
    time: the values are the row of the matrix against it (by default), and ``bounds`` the
    values when the Phantom, then Christine, commits first (with ``deep``). With
    ``hidden``, the values are means over ``worlds`` layouts."""

    game_id: str | None
    round: int
    trick: int | None
    player: Role
    kind: DecisionKind
    played: Choice
    value_played: float | None = None
    value_best: float | None = None
    best: tuple[Choice, ...] = ()
    cost: float | None = None
    label: Label | None = None
    bounds: tuple[int, int] | None = None
    answer: Choice | None = None
    worlds: int | None = None
    #: The best choice won the game for the mover, the one made did not.
    won_game_lost: bool = False
    #: At a swap: the card whose special number called it, ``"lead"`` or ``"follow"`` (the
    #: engine's ``swap_after_follow``); ``None`` for any other decision.
    swap_after: SwapAfter | None = None

    @property
    def solved(self) -> bool:
        """True when the decision was solved in time."""
        return self.value_played is not None

    def to_json(self) -> dict[str, Any]:
        """The row as ``analyse --format json`` writes it: card codes, role keys."""
        return {
            "game_id": self.game_id,
            "round": self.round,
            "trick": self.trick,
            "player": self.player.key,
            "kind": self.kind.value,
            "played": choice_json(self.kind, self.played),
            "value_played": _number(self.value_played),
            "value_best": _number(self.value_best),
            "best": [choice_json(self.kind, choice) for choice in self.best],
            "cost": _number(self.cost),
            "label": None if self.label is None else self.label.value,
            "bounds": None if self.bounds is None else list(self.bounds),
            "answer": None if self.answer is None else choice_json(self.kind, self.answer),
            "worlds": self.worlds,
            "won_game_lost": self.won_game_lost,
            "swap_after": self.swap_after,
        }

    def to_csv_row(self) -> dict[str, Any]:
        """The row for CSV: choices as codes joined by ``+``, several best choices by
        spaces, bounds as ``low-high``, booleans as ``true``/``false``, ``None`` empty."""
        row = self.to_json()
        row["played"] = choice_text(self.kind, self.played)
        row["best"] = " ".join(choice_text(self.kind, choice) for choice in self.best)
        row["answer"] = None if self.answer is None else choice_text(self.kind, self.answer)
        row["bounds"] = None if self.bounds is None else f"{self.bounds[0]}-{self.bounds[1]}"
        row["won_game_lost"] = "true" if self.won_game_lost else "false"
        return {key: "" if value is None else value for key, value in row.items()}


#: The columns of ``analyse``'s rows, in order.
ANALYSIS_FIELDS: Final = tuple(column.name for column in fields(Decision))


def choice_json(kind: DecisionKind, choice: Choice) -> str | int | list[str]:
    """A choice of a decision of ``kind`` as JSON: a card code, a special number, or a
    swap's card codes."""
    if isinstance(choice, tuple):
        return [CARD_CODES[card] for card in choice]
    return choice if kind is DecisionKind.SPECIAL_NUMBER else CARD_CODES[choice]


def choice_text(kind: DecisionKind, choice: Choice) -> str:
    """A choice as one word: ``Ma5``, ``Mi2+Ri4``, or a special number ``5``."""
    shown = choice_json(kind, choice)
    return "+".join(shown) if isinstance(shown, list) else str(shown)


def _number(value: float | None) -> float | int | None:
    """A value for JSON: whole numbers as ints, means to three decimals."""
    if value is None or isinstance(value, int):
        return value
    return int(value) if value == int(value) else round(value, 3)


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's decisions in one game: how many were analysed and not solved in time,
    the notes lost (the sum of the costs), the count of each label, how many of the
    solved decisions were a best choice (``best_played``), and the costliest decisions
    (``worst``: those that cost notes, the costliest first, at most
    :data:`MISTAKES_LISTED`)."""

    player: Role
    decisions: int
    unsolved: int
    notes_lost: float
    labels: dict[Label, int] = field(default_factory=dict)
    best_played: int = 0
    worst: tuple[Decision, ...] = ()


#: A player's costliest decisions kept by :func:`summarise`.
MISTAKES_LISTED: Final = 3
#: Turning points kept by :func:`turning_points`.
TURNING_POINTS: Final = 3


def _costliest(rows: Iterable[tuple[int, Decision]]) -> list[tuple[int, Decision]]:
    """The decisions that cost notes, a game thrown away first, then the costliest, then
    in play order (each with its place in play)."""
    costly = [(place, row) for place, row in rows if row.cost is not None and row.cost > 0]
    return sorted(
        costly, key=lambda found: (not found[1].won_game_lost, -(found[1].cost or 0), found[0])
    )


def turning_points(decisions: Iterable[Decision]) -> list[Decision]:
    """The few decisions of a game that changed its outcome or cost most, in play order:
    every one that threw away a won game, then the costliest others; at most
    :data:`TURNING_POINTS`, and only decisions that cost notes."""
    chosen = _costliest(enumerate(decisions))[:TURNING_POINTS]
    return [row for _place, row in sorted(chosen, key=lambda found: found[0])]


def summarise(decisions: Iterable[Decision]) -> list[PlayerSummary]:
    """Per player (the Phantom first), the summary of the analysed decisions of a game
    (given in play order)."""
    rows = list(decisions)
    summaries = []
    for player in (Role.PHANTOM, Role.CHRISTINE):
        mine = [row for row in rows if row.player is player]
        labels = {label: sum(row.label is label for row in mine) for label in reversed(Label)}
        worst = _costliest(enumerate(mine))[:MISTAKES_LISTED]
        summaries.append(
            PlayerSummary(
                player,
                len(mine),
                sum(not row.solved for row in mine),
                sum(row.cost for row in mine if row.cost is not None),
                labels,
                sum(row.cost is not None and row.cost <= 0 for row in mine),
                tuple(row for _place, row in worst),
            )
        )
    return summaries


def label_of(cost: float, won_game_lost: bool = False) -> Label | None:
    """The label of a cost in notes (``??`` as well for a won game thrown away)."""
    if won_game_lost or cost >= BLUNDER_COST:
        return Label.BLUNDER
    if cost >= MISTAKE_COST:
        return Label.MISTAKE
    if cost >= INACCURACY_COST:
        return Label.INACCURACY
    return None


# -- the decisions of a replay ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Item:
    """One decision to analyse: where it is in the replay's decisions, the state before
    it, and one side's choice."""

    index: int
    state: GameState
    player: Role
    kind: DecisionKind
    played: Choice
    answer: Choice | None
    forced: bool
    swap_after: SwapAfter | None = None

    @property
    def trick(self) -> int | None:
        return None if self.kind in _ROUND_START else self.state.trick

    @property
    def moment(self) -> tuple[int, int]:
        return (self.state.round, self.trick or 0)


_ROUND_START: Final = (DecisionKind.EXCHANGE, DecisionKind.SPECIAL_NUMBER)


def _items(decisions: list[tuple[GameState, Action]]) -> Iterator[_Item]:
    for index, (state, action) in enumerate(decisions):
        if isinstance(action, PlayCard):
            kind = DecisionKind.LEAD if state.lead is None else DecisionKind.FOLLOW
            forced = popcount(state.legal_cards()) <= 1
            yield _Item(index, state, action.player, kind, action.card, None, forced)
        elif isinstance(action, PickSpecialNumber):
            forced = len(state.number_options()) <= 1
            kind = DecisionKind.SPECIAL_NUMBER
            yield _Item(index, state, state.leader, kind, action.number, None, forced)
        elif isinstance(action, SwapCards | ExchangeCards):
            # Both sides give at once: a decision each, judged against the other's give.
            gives: tuple[Choice, Choice]
            if isinstance(action, SwapCards):
                kind, size = DecisionKind.SWAP, state.swap_due()
                gives = (tuple(sorted(action.phantom)), tuple(sorted(action.christine)))
                after: SwapAfter | None = "follow" if state.swap_after_follow else "lead"
            else:
                kind, size, after = DecisionKind.EXCHANGE, 1, None
                gives = (action.phantom, action.christine)
            for player in (Role.PHANTOM, Role.CHRISTINE):
                forced = comb(popcount(state.hand(player)), size) <= 1
                mine, theirs = gives[player], gives[player.other]
                yield _Item(index, state, player, kind, mine, theirs, forced, after)


# -- what the mover could not see ------------------------------------------------------------


def layouts(decisions: list[tuple[GameState, Action]], index: int, mover: Role) -> list[GameState]:
    """Every state the game could be in at decision ``index`` as far as ``mover`` can
    tell: the opponent's hand is any set of the cards ``mover`` was not dealt such that
    every action of the round so far (the mover's own and the opponent's, as the record
    has them) is legal. So the layouts agree with the mover's hand, the card received in
    the exchange, the cards received and given in swaps, the cards played, and every suit
    the opponent showed void in: the engine refuses any layout that breaks one."""
    return [world for _deal, world in _layouts(decisions, mover, {index})[index]]


#: A layout: the number of its deal among the round's possible deals (see :func:`_deals`),
#: and the state it has reached.
_Layout = tuple[int, GameState]


def _layouts(
    decisions: list[tuple[GameState, Action]], mover: Role, wanted: set[int]
) -> dict[int, list[_Layout]]:
    """The layouts at each decision of ``wanted`` (rounds with none are skipped)."""
    found: dict[int, list[_Layout]] = {}
    worlds: list[_Layout] = []
    rounds = {decisions[index][0].round_index for index in wanted}
    round_index = -1
    last = max(wanted, default=-1)
    for index, (state, action) in enumerate(decisions[: last + 1]):
        if state.round_index != round_index:
            round_index = state.round_index
            worlds = list(enumerate(_deals(state, mover))) if round_index in rounds else []
        if index in wanted:
            found[index] = worlds
        worlds = [
            (deal, after)
            for deal, world in worlds
            if isinstance(after := world.apply(action), GameState)
        ]
    return found


def _deals(first: GameState, mover: Role) -> list[GameState]:
    """The states at a round's first decision with the opponent dealt each possible hand
    of the cards ``mover`` did not get."""
    mine = first.hand(mover)
    unseen = hand_cards(FULL_DECK & ~mine)
    deals = []
    for cards in combinations(unseen, popcount(first.hand(mover.other))):
        theirs = hand_mask(cards)
        hands = (mine, theirs) if mover is Role.PHANTOM else (theirs, mine)
        world = first.with_hands(*hands)
        assert isinstance(world, GameState)  # the unseen cards, as many as the opponent's
        deals.append(world)
    return deals


#: Deals of a round as one player sees it: the opponent's 10 cards among the 14 unseen.
_DEALS: Final = comb(popcount(FULL_DECK) - CARDS_PER_HAND, CARDS_PER_HAND)


def _sample(worlds: list[_Layout], count: int, seed: str) -> list[_Layout]:
    """``count`` of the layouts (all when there are no more): the first in an order of the
    round's deals drawn from ``seed``. The order is drawn once per round and mover, so the
    layouts kept at one decision are also kept at the mover's later decisions of the
    round (while they stay possible): each decision's sample is uniform all the same, and
    the solver's table, shared by the game, serves a layout's later decisions."""
    if len(worlds) <= count:
        return worlds
    rank = random.Random(seed).sample(range(_DEALS), _DEALS)
    return sorted(worlds, key=lambda layout: rank[layout[0]])[:count]


# -- solving -------------------------------------------------------------------------------


def _gain(player: Role, value: float) -> float:
    """A value as ``player`` wants it high (the solver's objective: the Phantom maximises
    the notes, Christine minimises them)."""
    return value if player is Role.PHANTOM else -value


@dataclass(frozen=True, slots=True)
class _Values:
    played: float
    best_value: float
    best: tuple[Choice, ...]
    worlds: int | None = None


def _sorted(choices: Iterable[Choice]) -> tuple[Choice, ...]:
    return tuple(
        sorted(choices, key=lambda choice: choice if isinstance(choice, tuple) else (choice,))
    )


def _perfect(solver: Solver, item: _Item, deadline: float | None) -> _Values:
    # At a swap or the exchange, the row of the matrix against the opponent's answer.
    verdict = solver.assess(item.state, item.played, item.player, item.answer, deadline)
    return _Values(verdict.played, verdict.value, _sorted(verdict.best))


def _hidden(
    solver: Solver, item: _Item, worlds: list[GameState], deadline: float | None
) -> _Values:
    """The mean over ``worlds`` of the choice made and of the choices best on average.

    Each layout is judged (:meth:`~phantom_log.analysis.solver.Solver.assess`): the choice made and
    that layout's best choices exactly, the others as bounds. Summed over the layouts,
    those bound each choice's total; a choice whose total could still reach the best one
    proven so far gets exact values, the most promising first, until none is left."""
    bounds: list[dict[Choice, tuple[int, int]]] = [
        solver.assess(world, item.played, item.player, None, deadline).bounds for world in worlds
    ]
    choices = {choice: None for world in bounds for choice in world}
    sign = 1 if item.player is Role.PHANTOM else -1

    def total(choice: Choice, side: int) -> int:
        """The sum over the layouts of the choice's lowest (0) or highest (1) value."""
        return sum(world[choice][side] for world in bounds if choice in world)

    def gain(choice: Choice) -> tuple[int, int]:
        """The least and the most the choice's total can be, as the mover wants it."""
        low, high = total(choice, 0), total(choice, 1)
        return (low, high) if sign > 0 else (-high, -low)

    def exact(choice: Choice) -> bool:
        return all(world[choice][0] == world[choice][1] for world in bounds if choice in world)

    while True:
        gains = {choice: gain(choice) for choice in choices}
        floor = max(low for low, _high in gains.values())
        open_choices = [c for c in choices if not exact(c) and gains[c][1] >= floor]
        if not open_choices:
            break
        chosen = max(open_choices, key=lambda choice: gains[choice][1])
        for world, found in zip(worlds, bounds, strict=True):
            if chosen in found and found[chosen][0] != found[chosen][1]:
                value = solver.choice_value(
                    world, chosen, item.player, None, deadline, found[chosen]
                )
                found[chosen] = (value, value)
    means = {
        choice: total(choice, 0) / len(worlds)
        for choice, (low, high) in gains.items()
        if exact(choice) and high >= floor
    }
    best_value = max(means.values(), key=lambda value: sign * value)
    best = [choice for choice, value in means.items() if abs(value - best_value) < 1e-9]
    played = total(item.played, 0) / len(worlds)
    return _Values(played, best_value, _sorted(best), len(worlds))


def analyse_replay(
    replayed: GameLog,
    game_id: str | None = None,
    options: AnalysisOptions = AnalysisOptions(),
    solver: Solver | None = None,
    on_solved: Callable[[], None] | None = None,
) -> list[Decision]:
    """The analysed decisions of a game log built with its decisions
    (:func:`record_decisions`), in play order.

    A decision with one option only (a forced card, a single special number) is left out,
    and so is the exchange unless ``deep``: its row is a solve of the whole round per card.
    The decisions are solved from the last to the first, cheapest first, with one shared
    table: a decision not solved before the game's time limit has no values (never a wrong
    one). ``on_solved`` is called after each decision solved (for a progress line)."""
    if replayed.decisions is None:
        raise ValueError("the game log holds no decisions: build it with record_decisions()")
    decisions = replayed.decisions
    # A round's exchange and special number (no trick) go with its first trick.
    items = [
        item
        for item in _items(decisions)
        if not item.forced
        and item.moment >= options.start
        and options.tricks.covers(item.state.round, item.trick or 1)
        and (options.deep or item.kind is not DecisionKind.EXCHANGE)
    ]
    if solver is None:
        solver = Solver()
    else:
        solver.clear()  # each game from an empty table: the same work whatever came before
    # The limit is CPU seconds of this process: the same decisions are solved whether
    # the machine is idle or busy, and whatever --jobs is.
    deadline = None if options.time_limit is None else time.process_time() + options.time_limit
    worlds: dict[tuple[int, Role], list[GameState]] = {}
    if options.hidden:
        for mover in (Role.PHANTOM, Role.CHRISTINE):
            wanted = {item.index for item in items if item.player is mover}
            for index, found in _layouts(decisions, mover, wanted).items():
                seed = f"{options.seed}/{decisions[index][0].round_index}/{mover.key}"
                chosen = _sample(found, options.worlds, seed)
                worlds[(index, mover)] = [world for _deal, world in chosen]
    results: dict[tuple[int, Role], _Values | None] = {}
    bounds: dict[int, tuple[int, int] | None] = {}
    # Last decisions first: they are the cheapest, and fill the table for the ones before.
    for item in sorted(items, key=lambda item: (-(item.trick or 0), -item.index)):
        key = (item.index, item.player)
        try:
            if options.hidden:
                results[key] = _hidden(solver, item, worlds[key], deadline)
            else:
                results[key] = _perfect(solver, item, deadline)
        except Unsolved:
            results[key] = None
        if options.deep and item.answer is not None and item.index not in bounds:
            try:
                bounds[item.index] = (
                    solver.value(item.state, Role.PHANTOM, deadline),
                    solver.value(item.state, Role.CHRISTINE, deadline),
                )
            except Unsolved:
                bounds[item.index] = None
        if on_solved is not None and results[key] is not None:
            on_solved()
    return [
        _decision(
            item, results[(item.index, item.player)], bounds.get(item.index), game_id, options
        )
        for item in items
    ]


def _decision(
    item: _Item,
    values: _Values | None,
    bounds: tuple[int, int] | None,
    game_id: str | None,
    options: AnalysisOptions,
) -> Decision:
    unsolved = Decision(
        game_id,
        item.state.round,
        item.trick,
        item.player,
        item.kind,
        item.played,
        bounds=bounds,
        answer=item.answer,
        swap_after=item.swap_after,
    )
    if values is None:
        return unsolved
    cost = _gain(item.player, values.best_value) - _gain(item.player, values.played)
    won_game_lost = False
    if not options.hidden:
        round_index = item.state.round_index
        mover = int(item.player)
        won_game_lost = (
            game_winner(round_index, int(values.best_value), True) == mover
            and game_winner(round_index, int(values.played), True) != mover
        )
    return replace(
        unsolved,
        value_played=values.played,
        value_best=values.best_value,
        best=values.best,
        cost=cost,
        label=label_of(cost, won_game_lost),
        worlds=values.worlds,
        won_game_lost=won_game_lost,
    )


def analyse(
    record: GameRecord | Mapping[str, Any],
    sheets: Mapping[str, Sheet] | None = None,
    *,
    start: tuple[int, int] = (1, 0),
    deep: bool = False,
    hidden: bool = False,
    worlds: int = DEFAULT_WORLDS,
    seed: int = 0,
    time_limit: float | None = None,
    solver: Solver | None = None,
    tricks: TrickSpan = WHOLE_GAME,
) -> list[Decision]:
    """The analysed decisions of one record (a model, or a parsed JSON object, which is
    checked first), in play order; see :class:`AnalysisOptions` for the options (``tricks``
    among them: only the decisions of that span of tricks; and the ``ValueError`` of a
    number that cannot be, raised before any work). An illegal record
    is analysed up to its first problem (:func:`phantom_log.replay` says which); a record
    that cannot be replayed at all (no JSON data, or not of the schema) has no decisions."""
    from ..checking.verdict import check_record
    from ..records.schema import json_data_problem

    options = AnalysisOptions(start, deep, hidden, worlds, seed, time_limit, tricks)
    data = record.to_json() if not isinstance(record, Mapping) else dict(record)
    if json_data_problem(data) is not None:
        return []  # no JSON data: no record to replay (phantom_log.replay says why)
    _problems, checked = check_record(data, sheets, VerdictBuilder)
    if checked is None:
        return []
    game_id = data.get("game_id") if isinstance(data.get("game_id"), str) else None
    return analyse_replay(record_decisions(data, sheets), game_id, options, solver)


def record_decisions(data: Mapping[str, Any], sheets: Mapping[str, Sheet] | None) -> GameLog:
    """The game log of a record that passed the checks, with its decisions (and no event:
    the analysis needs the states only)."""
    return replay_record(data, GameLogBuilder(events=False, decisions=True), sheets)
