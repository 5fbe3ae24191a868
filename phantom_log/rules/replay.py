"""The replay of a written game: its actions folded over the state machine, told to a
visitor. It is the one code that drives a game from what was written.

:func:`replay_record` reads a record that passed the schema check and feeds its actions to
a :class:`~phantom_log.rules.engine.GameState` in order: the deal, the exchange, the
special number, each play and each swap. The record's structure is checked on the way (a
trick of one play that is not the last one, a round that stops short of 10 tricks and is
followed by another, anything after the end of the game, the claimed trick winners and
result). The replay stops at the first illegal step, since the state after it is
undefined; wrong claims are problems and the replay goes on.

What happens is told to a :class:`GameVisitor`, as python-chess's PGN reader tells its
visitors: the events of :mod:`phantom_log.rules.events` as the state emits them, each
problem, and the end. :class:`GameLogBuilder` (the default) builds a :class:`GameLog` of
every event; :class:`VerdictBuilder` wants the problems and the result only, and the
state then builds no event at all. A visitor that wants the decisions is also given the
state before each decision a player made (the analysis).

The same fold completes a game as people write it (:func:`complete_record`, for the game
text and the recorder): a card written without its player is the turn's player's, and a
round written without its deal is dealt unseen and its deal found at its end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Generic, TypeVar, overload

from .cards import CARD_CODES, DECK_SIZE, ROLE_BY_KEY, ROLE_KEYS, Role, hand_cards, parse_card
from .engine import (
    CARDS_ASIDE,
    CARDS_PER_HAND,
    ROUNDS_PER_GAME,
    TRICKS_PER_ROUND,
    Action,
    ExchangeCards,
    GameState,
    PickSpecialNumber,
    PlayCard,
    Result,
    Rules,
    SwapCards,
    round_leader,
)
from .events import (
    ROLES,
    CardPlayed,
    CardsSwapped,
    Dealt,
    Exchanged,
    GameEnded,
    RoundEnded,
    RoundStarted,
    TrickEnded,
    verdict_reason,
)
from .problems import Code, Illegal
from .sheets import BUILTIN_SHEETS, NOTES_PER_SHEET, Sheet, sheet_from_json

# C copies of the engine's numbers for the compiled build (replay.pxd types them).
_ROUNDS = ROUNDS_PER_GAME
_NOTES = NOTES_PER_SHEET
_TRICKS = TRICKS_PER_ROUND
#: The phases the fold reads, as the engine's ints.
_DEAL: Final = 0
_EXCHANGE: Final = 1
_SPECIAL_NUMBER: Final = 2
_PLAY: Final = 3
_SWAP: Final = 4
_OVER: Final = 5

Built = TypeVar("Built")


class GameVisitor(Generic[Built]):
    """What a replay tells, in play order. Every method does nothing by default: a
    visitor overrides those it needs, and :meth:`result` gives what it built (what
    :func:`replay_record` returns).

    ``wants_events``: ``False`` for a visitor that needs only the problems and the end; the
    state then builds no event (the cheapest replay). ``wants_decisions``: ``True`` to be
    given, before each decision a player makes (the exchange, the leader's special number,
    each card, each swap), a copy of the state and the action (:meth:`visit_decision`).
    """

    wants_events: bool = True
    wants_decisions: bool = False

    def begin_game(self, sheet: Sheet, rules: Rules) -> None:
        """The replay starts, on ``sheet`` under ``rules``."""

    def visit_deal(self, event: Dealt) -> None:
        """A round was dealt."""

    def visit_exchange(self, event: Exchanged) -> None:
        """The exchange of a round was made."""

    def visit_round_start(self, event: RoundStarted) -> None:
        """A round's play begins: its special number is set."""

    def visit_play(self, event: CardPlayed) -> None:
        """A card was played."""

    def visit_swap(self, event: CardsSwapped) -> None:
        """A swap was made."""

    def visit_trick(self, event: TrickEnded) -> None:
        """A trick was judged and the notes moved."""

    def visit_round_end(self, event: RoundEnded) -> None:
        """A round ended."""

    def visit_game_end(self, event: GameEnded) -> None:
        """The game was decided."""

    def visit_decision(self, state: GameState, action: Action) -> None:
        """A player is about to take ``action`` from ``state`` (a copy, the visitor's to
        keep); only for a visitor that ``wants_decisions``."""

    def visit_problem(self, problem: Illegal) -> None:
        """A problem of the record (an illegal step ends the replay; a wrong claim does
        not)."""

    def end_game(self, result: Result | None, final: GameState) -> None:
        """The replay is over: ``result`` when it got to the end of the record (an
        unfinished game has a result whose winner is ``None``), ``None`` when an illegal
        step stopped it; ``final`` is the state where it stopped."""

    def visit(self, event: Any) -> None:
        """Tell this visitor one event, by its kind (for code that drives a state itself)."""
        _dispatch(self, event)

    def visit_events(self, events: list[Any]) -> None:
        """Events, in order, since the last told: each told by its kind (a visitor that
        keeps them all may take them at once)."""
        for event in events:
            _dispatch(self, event)

    def result(self) -> Built:
        """What the visitor built."""
        raise NotImplementedError


class GameLog:
    """What happened in a replayed game: every event in play order (``events``), the
    problems found, the result (``None`` when an illegal step stopped the replay),
    where the game was decided (``ended_at``) and the state where the replay stopped
    (``final``). ``deals``, ``rounds`` (each round's :class:`RoundStarted`), ``tricks``
    and ``round_ends`` are its events of one kind, in order. ``decisions`` holds, for a
    log built with them, each decision a player made: the state just before it and the
    action taken. Events are added with :meth:`add_events`, which keeps the kinds."""

    def __init__(self, sheet: Sheet, rules: Rules) -> None:
        self.sheet = sheet
        self.rules = rules
        self.events: list[Any] = []
        self.deals: list[Dealt] = []
        self.rounds: list[RoundStarted] = []
        self.tricks: list[TrickEnded] = []
        self.round_ends: list[RoundEnded] = []
        self.problems: list[Illegal] = []
        self.result: Result | None = None
        self.ended_at: tuple[int, int] | None = None
        self.final: GameState | None = None
        self.decisions: list[tuple[GameState, Action]] | None = None

    def add_events(self, events: list[Any]) -> None:
        """Add events, in order, to the log and to the lists of their kind."""
        self.events.extend(events)
        self._add_kinds(events)

    def _add_kinds(self, events: list[Any]) -> None:
        """Add events, in order, to the lists of their kind."""
        for event in events:
            kind = type(event)
            if kind is TrickEnded:
                self.tricks.append(event)
            elif kind is RoundStarted:
                self.rounds.append(event)
            elif kind is Dealt:
                self.deals.append(event)
            elif kind is RoundEnded:
                self.round_ends.append(event)

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return all(problem.is_warning for problem in self.problems)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameLog) and (
            self.sheet,
            self.rules,
            self.events,
            self.problems,
            self.result,
            self.ended_at,
        ) == (other.sheet, other.rules, other.events, other.problems, other.result, other.ended_at)

    def __hash__(self) -> int:
        raise TypeError(type(self).__name__)

    def __repr__(self) -> str:
        return f"GameLog({len(self.events)} events, result={self.result!r})"


class GameLogBuilder(GameVisitor[GameLog]):
    """Builds the :class:`GameLog` of a replay: every event (without ``events``, none:
    the log then holds the problems, the result and the final state only) and, with
    ``decisions``, the state before each decision."""

    def __init__(self, *, events: bool = True, decisions: bool = False) -> None:
        self.wants_events = events
        self.wants_decisions = decisions
        self.log: GameLog | None = None

    def begin_game(self, sheet: Sheet, rules: Rules) -> None:
        self.log = GameLog(sheet, rules)
        if self.wants_decisions:
            self.log.decisions = []

    def visit_events(self, events: list[Any]) -> None:
        assert self.log is not None
        self.log.add_events(events)

    def _add(self, event: Any) -> None:
        self.visit_events([event])

    visit_deal = _add
    visit_exchange = _add
    visit_round_start = _add
    visit_play = _add
    visit_swap = _add
    visit_trick = _add
    visit_round_end = _add
    visit_game_end = _add

    def visit_decision(self, state: GameState, action: Action) -> None:
        assert self.log is not None and self.log.decisions is not None
        self.log.decisions.append((state, action))

    def visit_problem(self, problem: Illegal) -> None:
        assert self.log is not None
        self.log.problems.append(problem)

    def end_game(self, result: Result | None, final: GameState) -> None:
        assert self.log is not None
        self.log.result = result
        self.log.final = final
        if result is not None and final.phase_code == _OVER:
            self.log.ended_at = (final.ended_round, final.ended_trick)

    def result(self) -> GameLog:
        assert self.log is not None
        return self.log


class VerdictBuilder(GameLogBuilder):
    """The skipping visitor: a :class:`GameLog` of the problems, the result, where the
    game was decided and the final state, without a single event (``verify``'s replay)."""

    # Made once a record: its two wants are the class's, not set on each one.
    wants_events = False
    wants_decisions = False

    def __init__(self) -> None:
        self.log = None


# The four combinations of the optional rules, made once (records name them by flags).
_RULES: Final = {
    (beginner, balance): Rules(beginner, balance)
    for beginner in (False, True)
    for balance in (False, True)
}


#: Every :class:`Result` a replay can end with, made once (it is frozen): the one of
#: winner code ``w`` (-1 nobody) and ``n`` notes is ``_RESULTS[(w + 1) * (_NOTES + 1) + n]``.
_RESULTS: Final = tuple(
    Result(winner, notes) for winner in (None, *ROLES) for notes in range(NOTES_PER_SHEET + 1)
)


class SheetProblems(ValueError):
    """A record whose sheet is unknown or breaks the sheet rules: nothing to replay."""

    def __init__(self, problems: list[Illegal]) -> None:
        super().__init__(", ".join(problem.code for problem in problems))
        self.problems = problems


class _Stop(Exception):
    """Ends a replay at its first illegal step."""

    def __init__(self, problem: Illegal) -> None:
        super().__init__(problem.code)
        self.problem = problem


class _Lost(Exception):
    """The completion of a written game cannot follow it on with the rules past this
    point: round ``index``, its trick ``trick_index``, the play at ``position``, in a trick
    led by ``leader`` (a role's code)."""

    def __init__(self, index: int, trick_index: int, position: int, leader: int) -> None:
        super().__init__(index, trick_index, position)
        self.index = index
        self.trick_index = trick_index
        self.position = position
        self.leader = leader


class Completion:
    """What :func:`complete_record` found of a game written as people write it.

    ``refused`` is the first step the rules refused, placed in the record (``None`` when
    none was); ``deal_problems`` the ``bad-deal`` problems of the rounds whose deal was
    left out and cannot have been dealt as the play shows; ``found`` the rounds (from 0)
    whose deal was left out and is found; ``final`` the state where the game stands, or
    ``None`` when the rules could not follow it to its end. ``in_play``: the game is
    still being written."""

    def __init__(self, in_play: bool) -> None:
        self.in_play = in_play
        self.refused: Illegal | None = None
        self.deal_problems: list[Illegal] = []
        self.found: list[int] = []
        self.final: GameState | None = None


def record_sheet(value: Any, sheets: Mapping[str, Sheet] | None = None) -> Sheet | list[Illegal]:
    """The sheet a record's ``sheet`` value names or carries, or its problems."""
    if isinstance(value, str):
        known = BUILTIN_SHEETS if sheets is None else sheets
        sheet = known.get(value)
        if sheet is None:
            return [
                Illegal(
                    Code.UNKNOWN_SHEET, {"name": value, "known": tuple(sorted(known))}, "/sheet"
                )
            ]
        return sheet
    return sheet_from_json(value)


def record_rules(record: Mapping[str, Any]) -> Rules:
    """The optional rules a record (that passed the schema) was played under."""
    rules_value = record.get("rules")
    if not rules_value:
        return _RULES[(False, False)]
    return _RULES[
        (bool(rules_value.get("beginner", False)), bool(rules_value.get("balance", False)))
    ]


@overload
def replay_record(
    record: Mapping[str, Any], visitor: None = None, sheets: Mapping[str, Sheet] | None = None
) -> GameLog: ...


@overload
def replay_record(
    record: Mapping[str, Any],
    visitor: GameVisitor[Built],
    sheets: Mapping[str, Sheet] | None = None,
) -> Built: ...


def replay_record(
    record: Mapping[str, Any],
    visitor: GameVisitor[Any] | None = None,
    sheets: Mapping[str, Sheet] | None = None,
) -> Any:
    """Replay a record that passed the schema check, by the rules, telling ``visitor``
    (by default a :class:`GameLogBuilder`) what happens; returns what it built.

    Raises :class:`SheetProblems` when the record's sheet is unknown or broken (there is
    nothing to replay); never raises for anything else such a record can hold.
    ``sheets`` are the named sheets known (by default the built-in ones).
    """
    if visitor is None:
        visitor = GameLogBuilder()
    rules = record_rules(record)
    sheet = record_sheet(record["sheet"], sheets)
    if isinstance(sheet, list):
        raise SheetProblems(sheet)
    document = record if type(record) is dict else dict(record)
    visitor.begin_game(sheet, rules)
    state = GameState.start(sheet, rules, bool(visitor.wants_events))
    result = None
    try:
        _fold(document, state, visitor, bool(visitor.wants_decisions), None)
        _tell(visitor, state)
        result = _finish(document, state, visitor)
    except _Stop as stop:
        _tell(visitor, state)  # what the steps before the illegal one did
        visitor.visit_problem(stop.problem)
    visitor.end_game(result, state)
    return visitor.result()


def complete_record(
    record: dict[str, Any], sheets: Mapping[str, Sheet] | None = None, *, in_play: bool = False
) -> Completion:
    """Complete, in place, a game written as people write it (the game text, the
    recorder): each card written without its player (``"player"`` empty) is given to the
    turn's player, and each round written without its deal is dealt unseen and its deal
    found at its end (from what the play shows and the round's ``left``, the cards each
    player still held when the Phantom ended it early) and written in.

    Turns do not depend on what the hands hold, so the game is followed past a step the
    rules refuse, with nothing known of the hands from there; past a step they cannot go
    on from, each card is given to the trick's leader and then the other player, every
    trick led by the one who led the trick before. ``in_play``: the game is still being
    written, so its end is where it stands (the swap, the special number or the deal of a
    round still played are not missing yet). ``sheets``: the named sheets known."""
    completion = Completion(in_play)
    rounds = record["rounds"]
    sheet = record_sheet(record["sheet"], sheets) if "sheet" in record else []
    if isinstance(sheet, list):  # no sheet the rules know: no turn can be found
        _unfollowed(rounds, completion, 0, 0, 0, round_leader(0))
        return completion
    state = GameState.start(sheet, record_rules(record), tracking=False)
    try:
        _fold(record, state, None, False, completion)
    except _Lost as lost:
        _unfollowed(rounds, completion, lost.index, lost.trick_index, lost.position, lost.leader)
    else:
        completion.final = state
    return completion


def _unfollowed(
    rounds: list[Any],
    completion: Completion,
    index: int,
    trick_index: int,
    position: int,
    leader: int,
) -> None:
    """The cards from round ``index``, trick ``trick_index``, play ``position`` on, given
    to each trick's leader (``leader``, then each round's first) and then the other
    player; and no deal left out from that round on can be found."""
    for round_index in range(index, len(rounds)):
        data = rounds[round_index]
        if round_index > index:
            leader = round_leader(round_index)
            trick_index = 0
            position = 0
        tricks = data["tricks"]
        for at in range(trick_index, len(tricks)):
            plays = tricks[at]["plays"]
            for order in range(position if at == trick_index else 0, len(plays)):
                if not plays[order]["player"]:
                    plays[order]["player"] = ROLE_KEYS[leader if order == 0 else 1 - leader]
        data.pop("left", None)
        deal = data.get("deal") or {}
        if "phantom" not in deal or "christine" not in deal:
            completion.deal_problems.append(
                Illegal(
                    Code.BAD_DEAL, {"inferred": True, "unfound": True, "round": round_index + 1}
                ).located(f"/rounds/{round_index}/deal", round_index + 1, None)
            )


def _dispatch(visitor: Any, event: Any) -> None:
    """Tell a visitor one event, by its kind."""
    kind = type(event)
    if kind is CardPlayed:
        visitor.visit_play(event)
    elif kind is TrickEnded:
        visitor.visit_trick(event)
    elif kind is CardsSwapped:
        visitor.visit_swap(event)
    elif kind is RoundStarted:
        visitor.visit_round_start(event)
    elif kind is Dealt:
        visitor.visit_deal(event)
    elif kind is Exchanged:
        visitor.visit_exchange(event)
    elif kind is RoundEnded:
        visitor.visit_round_end(event)
    elif kind is GameEnded:
        visitor.visit_game_end(event)
    else:
        raise TypeError(f"not an event of a game: {event!r}")


def _tell(visitor: Any, state: GameState) -> None:
    """Hand the events the state has emitted since the last call to the visitor."""
    events = state.events
    if events:
        visitor.visit_events(events)
        events.clear()


def _problem(visitor: Any, state: GameState, problem: Illegal) -> None:
    """Hand a problem to the visitor, after what happened before it."""
    _tell(visitor, state)
    visitor.visit_problem(problem)


def _at(problem: Illegal, pointer: str, round_no: int | None, trick_no: int | None) -> _Stop:
    return _Stop(problem.located(pointer, round_no, trick_no))


def _refused(problem: Illegal, completion: Completion | None) -> None:
    """An illegal step, placed: the replay of a record stops there; the completion of a
    written game keeps the first and goes on (the caller then follows the game on)."""
    if completion is None:
        raise _Stop(problem)
    if completion.refused is None:
        completion.refused = problem


def _fold(
    record: dict[str, Any],
    state: GameState,
    visitor: Any,
    decisions: bool,
    completion: Completion | None,
) -> None:
    # Pointers are written only for a problem: the replay of a valid record makes none.
    rounds = record["rounds"]
    last_round = len(rounds) - 1
    for index, data in enumerate(rounds):
        round_no = index + 1
        if state.phase_code == _OVER:
            problem = state.out_of_phase().with_facts(what="round", round=round_no)
            _refused(problem.located(f"/rounds/{index}", round_no, None), completion)
            raise _Lost(index, 0, 0, round_leader(index))
        if index >= _ROUNDS:  # the schema allows no third round
            problem = Illegal(Code.SCHEMA, {"rounds": len(rounds)})
            _refused(problem.located(f"/rounds/{index}", round_no, None), completion)
            raise _Lost(index, 0, 0, round_leader(index))
        dealt = _deal(state, data, index, completion)
        if decisions:
            _tell(visitor, state)
        _round_start(state, data, visitor, index, decisions, completion)
        tricks = data["tricks"]
        last_trick = len(tricks) - 1
        for trick_index, trick in enumerate(tricks):
            trick_no = trick_index + 1
            if state.phase_code == _OVER:
                problem = state.out_of_phase().with_facts(
                    what="trick", round=round_no, trick=trick_no
                )
                at = _trick_pointer(index, trick_index)
                _refused(problem.located(at, round_no, trick_no), completion)
                raise _Lost(index, trick_index, 0, state.leader_code)
            if trick_index >= _TRICKS:  # the schema allows no eleventh trick
                problem = Illegal(Code.SCHEMA, {"tricks": len(tricks)})
                at = _trick_pointer(index, trick_index)
                _refused(problem.located(at, round_no, trick_no), completion)
                raise _Lost(index, trick_index, 0, state.leader_code)
            is_last = index == last_round and trick_index == last_trick
            _trick(state, trick, visitor, index, trick_index, is_last, decisions, completion)
        if not dealt:
            _find_deal(rounds, state, index, completion)


def _trick_pointer(index: int, trick_index: int) -> str:
    return f"/rounds/{index}/tricks/{trick_index}"


_HAND = CARDS_PER_HAND
_ASIDE = CARDS_ASIDE
_DECK = DECK_SIZE


def _deal(
    state: GameState, data: dict[str, Any], index: int, completion: Completion | None
) -> bool:
    """Deal the round: as written, or unseen when its deal (both hands) is not written;
    whether it was dealt as written."""
    round_no = index + 1
    if state.phase_code != _DEAL:
        # A round before this one stopped short of its tenth trick.
        problem = Illegal(
            Code.INCOMPLETE_ROUND,
            {"round": index, "played": state.tricks_played, "next": round_no},
        )
        _refused(problem.located(f"/rounds/{index - 1}/tricks", index, None), completion)
        raise _Lost(index, 0, 0, round_leader(index))
    deal = data.get("deal")
    if deal is not None and "phantom" in deal and "christine" in deal:
        try:
            phantom = _deal_part(deal, "phantom", _HAND, 0, 0, index)
            christine = _deal_part(deal, "christine", _HAND, phantom, 0, index)
            if "aside" in deal:
                _deal_part(deal, "aside", _ASIDE, phantom, christine, index)
        except _Stop as stop:
            if completion is None:
                raise
            _refused(stop.problem, completion)
            state.step_deal_unseen()  # the deal cannot be followed: the play still can
            return True
        refused = state.step_deal(phantom, christine)
        if refused is not None:  # only reachable through a state built by hand
            raise _at(refused, f"/rounds/{index}/deal", round_no, None)
        return True
    state.step_deal_unseen()
    return False


def _deal_part(
    deal: dict[str, Any], key: str, expected: int, phantom: int, christine: int, index: int
) -> int:
    """The cards of one part of a deal (``key``), as a bit mask; ``phantom`` and
    ``christine`` are the parts read before it (0 when not read yet)."""
    round_no = index + 1
    codes = deal[key]
    if len(codes) != expected:
        raise _at(
            Illegal(
                Code.BAD_DEAL,
                {"part": key, "count": len(codes), "expected": expected, "round": round_no},
            ),
            f"/rounds/{index}/deal/{key}",
            round_no,
            None,
        )
    seen = phantom | christine
    hand = 0
    for position, code in enumerate(codes):
        card = parse_card(code)
        if (seen | hand) >> card & 1:
            # The part that holds it already: this one, or one read before.
            before = "phantom" if phantom >> card & 1 else "christine"
            first = key if hand >> card & 1 else before
            raise _at(
                Illegal(
                    Code.BAD_DEAL,
                    {"card": card, "first": first, "part": key, "round": round_no},
                ),
                f"/rounds/{index}/deal/{key}/{position}",
                round_no,
                None,
            )
        hand |= 1 << card
    return hand


def _find_deal(
    rounds: list[Any], state: GameState, index: int, completion: Completion | None
) -> None:
    """The deal of a round dealt unseen, found at its end from what the play showed and
    the cards each player still held (the round's ``left``, which only a game being
    written holds): written into the round, or its ``bad-deal`` problem. A round still
    being played (the last one of a game being recorded) is not over: nothing is found."""
    data = rounds[index]
    left = data.pop("left", None)
    if (
        completion is not None
        and completion.in_play
        and index == len(rounds) - 1
        and left is None
        and state.phase_code != _OVER
        and state.round_index == index
    ):
        return
    held = left or {}
    found = state.inferred_deal(_mask(held.get("phantom", ())), _mask(held.get("christine", ())))
    if isinstance(found, Illegal):
        problem = found.with_facts(round=index + 1).located(
            f"/rounds/{index}/deal", index + 1, None
        )
        if completion is None:
            raise _Stop(problem)
        completion.deal_problems.append(problem)
        return
    deal = data.get("deal") or {}
    deal["phantom"] = [CARD_CODES[card] for card in hand_cards(found[0])]
    deal["christine"] = [CARD_CODES[card] for card in hand_cards(found[1])]
    rounds[index] = {"deal": deal, **{key: value for key, value in data.items() if key != "deal"}}
    if completion is not None:
        completion.found.append(index)


def _round_start(
    state: GameState,
    data: dict[str, Any],
    visitor: Any,
    index: int,
    decisions: bool,
    completion: Completion | None,
) -> None:
    round_no = index + 1
    exchange = data.get("exchange")
    if exchange is not None:
        phantom_card = parse_card(exchange["phantom"])
        christine_card = parse_card(exchange["christine"])
        before = state.copy() if decisions else None
        problem = state.step_exchange(phantom_card, christine_card)
        if problem is not None:
            player = problem.facts.get("player")
            pointer = (
                f"/rounds/{index}/exchange"
                if player is None
                else f"/rounds/{index}/exchange/{player.key}"
            )
            _refused(problem.located(pointer, round_no, None), completion)
        elif before is not None:
            visitor.visit_decision(before, ExchangeCards(phantom_card, christine_card))
            _tell(visitor, state)
    number = data["special_number"] if completion is None else data.get("special_number")
    if number is None:
        if data["tricks"]:
            raise _Lost(index, 0, 0, round_leader(index))
        return  # a game being written waits for its special number
    before = state.copy() if decisions and not state.beginner else None
    problem = state.step_special_number(int(number))
    if problem is not None:
        if problem.code is Code.BAD_SPECIAL_NUMBER and exchange is not None:
            problem = problem.with_facts(exchange=(phantom_card, christine_card))
        pointer = (
            f"/rounds/{index}"
            if problem.code is Code.BAD_EXCHANGE
            else f"/rounds/{index}/special_number"
        )
        _refused(problem.located(pointer, round_no, None), completion)
        raise _Lost(index, 0, 0, round_leader(index))
    if before is not None:  # not the die's (beginner rule)
        visitor.visit_decision(before, PickSpecialNumber(state.special_number))
    if decisions:
        _tell(visitor, state)


def _trick(
    state: GameState,
    trick: dict[str, Any],
    visitor: Any,
    index: int,
    trick_index: int,
    is_last: bool,
    decisions: bool,
    completion: Completion | None,
) -> None:
    plays = trick["plays"]
    round_no = index + 1
    trick_no = trick_index + 1
    _play(state, plays[0], visitor, index, trick_index, 0, decisions, completion, is_last)
    claimed = trick.get("winner")
    if len(plays) < 2:
        if not is_last:
            problem = Illegal(Code.INCOMPLETE_TRICK, {"round": round_no, "trick": trick_no})
            at = _trick_pointer(index, trick_index) + "/plays"
            _refused(problem.located(at, round_no, trick_no), completion)
            raise _Lost(index, trick_index + 1, 0, state.leader_code)
        if claimed is not None and completion is None:
            _problem(
                visitor,
                state,
                Illegal(
                    Code.WINNER_MISMATCH,
                    {
                        "claimed": ROLE_BY_KEY[claimed],
                        "one_card": True,
                        "round": round_no,
                        "trick": trick_no,
                    },
                    _trick_pointer(index, trick_index) + "/winner",
                    round_no,
                    trick_no,
                ),
            )
        return
    _play(state, plays[1], visitor, index, trick_index, 1, decisions, completion, is_last)
    if claimed is not None and completion is None:
        winner = state.leader_code  # the winner leads the next trick
        if ROLE_BY_KEY[claimed] is not ROLES[winner]:
            _problem(
                visitor,
                state,
                Illegal(
                    Code.WINNER_MISMATCH,
                    {
                        "claimed": ROLE_BY_KEY[claimed],
                        "winner": ROLES[winner],
                        "lead": state.last_lead,
                        "follow": state.last_follow,
                        "reason": verdict_reason(state.last_verdict),
                        "round": round_no,
                        "trick": trick_no,
                    },
                    _trick_pointer(index, trick_index) + "/winner",
                    round_no,
                    trick_no,
                ),
            )


#: Every tuple of one card, and of two (``_PAIRS[first * DECK_SIZE + second]``), made
#: once: a swap's cards are one of them, shared (a tuple is never changed).
_SINGLES: Final = tuple((card,) for card in range(DECK_SIZE))
_PAIRS: Final = tuple((first, second) for first in range(DECK_SIZE) for second in range(DECK_SIZE))


def _cards(codes: Sequence[Any]) -> tuple[int, ...]:
    """The cards of a list of codes, in its order."""
    count = len(codes)
    if count == 1:
        return _SINGLES[parse_card(codes[0])]
    if count == 2:
        first = parse_card(codes[0])
        return _PAIRS[first * _DECK + parse_card(codes[1])]
    return tuple([parse_card(code) for code in codes])


def _mask(codes: Sequence[Any]) -> int:
    """The cards of a list of codes as a bit mask."""
    mask = 0
    for code in codes:
        mask |= 1 << parse_card(code)
    return mask


def _play(
    state: GameState,
    play: dict[str, Any],
    visitor: Any,
    index: int,
    trick_index: int,
    position: int,
    decisions: bool,
    completion: Completion | None,
    is_last: bool,
) -> None:
    round_no = index + 1
    trick_no = trick_index + 1
    who = play["player"]
    if who:
        player = 0 if who == "phantom" else 1
    else:  # written without its player: the card is the turn's player's
        player = state.player_due()
        if player < 0:
            _refused(
                state.out_of_phase().located(
                    _play_at(index, trick_index, position), round_no, trick_no
                ),
                completion,
            )
            raise _Lost(index, trick_index, position, state.leader_code)
        play["player"] = ROLE_KEYS[player]
    card = parse_card(play["card"])
    before = state.copy() if decisions else None
    problem = state.step_play(player, card)
    if problem is not None:
        field = "player" if problem.code is Code.WRONG_PLAYER else "card"
        at = _play_at(index, trick_index, position)
        _refused(problem.located(f"{at}/{field}", round_no, trick_no), completion)
        state.forget_hands()  # nothing past it is checked: the turns are still found
        if state.step_play(player, card) is not None:
            raise _Lost(index, trick_index, position + 1, state.leader_code)
    if before is not None:
        visitor.visit_decision(before, PlayCard(ROLES[player], card))
    if decisions:
        _tell(visitor, state)
    swap = play.get("swap")
    if state.phase_code == _SWAP:
        if swap is None:
            if completion is not None and completion.in_play and is_last:
                return  # a game being written waits for the swap
            at = _play_at(index, trick_index, position)
            _refused(state.out_of_phase().located(at, round_no, trick_no), completion)
            _swap_anyhow(state, index, trick_index, position)
            return
        phantom = swap.get("phantom")
        christine = swap.get("christine")
        phantom_cards = () if phantom is None else _cards(phantom)
        christine_cards = () if christine is None else _cards(christine)
        before = state.copy() if decisions else None
        problem = state.step_swap(phantom_cards, christine_cards)
        if problem is not None:
            at = _play_at(index, trick_index, position)
            key = problem.facts["player"].key
            if problem.code is Code.CARD_NOT_HELD:
                pointer = f"{at}/swap/{key}/{problem.facts['position']}"
            elif swap.get(key) is None:
                pointer = f"{at}/swap"
            else:
                pointer = f"{at}/swap/{key}"
            _refused(problem.located(pointer, round_no, trick_no), completion)
            state.forget_hands()
            if state.step_swap(phantom_cards, christine_cards) is not None:
                _swap_anyhow(state, index, trick_index, position)
            return
        if before is not None:
            visitor.visit_decision(before, SwapCards(phantom_cards, christine_cards))
            _tell(visitor, state)
    elif swap and (swap.get("phantom") or swap.get("christine")):
        problem = Illegal(
            Code.UNEXPECTED_SWAP,
            {
                "card": card,
                "special_number": state.special_number,
                "no_swap_possible": state.is_special(card),
                "empty": ROLES[0] if not state.phantom_hand else ROLES[1],
            },
        )
        at = _play_at(index, trick_index, position)
        _refused(problem.located(f"{at}/swap", round_no, trick_no), completion)


def _play_at(index: int, trick_index: int, position: int) -> str:
    return f"{_trick_pointer(index, trick_index)}/plays/{position}"


def _swap_anyhow(state: GameState, index: int, trick_index: int, position: int) -> None:
    """The swap due, made of any cards with nothing known of the hands: the completion
    of a written game goes on past a swap the rules refuse, or one not written."""
    state.forget_hands()
    size = state.swap_due()
    if state.step_swap(tuple(range(size)), tuple(range(size, 2 * size))) is not None:
        raise _Lost(index, trick_index, position + 1, state.leader_code)


def _finish(record: dict[str, Any], state: GameState, visitor: Any) -> Result:
    winner_code = state.winner_code if state.phase_code == _OVER else -1
    result = _RESULTS[(winner_code + 1) * (_NOTES + 1) + state.notes]
    winner = result.winner
    rounds = record["rounds"]
    if winner is None:
        tricks = len(rounds[-1]["tricks"])
        _problem(
            visitor,
            state,
            Illegal(
                Code.UNFINISHED,
                {"rounds": len(rounds), "tricks": tricks, "notes": state.notes},
                "/rounds",
                len(rounds),
                tricks or None,
            ),
        )
    claim = record.get("result")
    if claim is None:
        return result
    claimed_winner = claim["winner"]
    claimed: Role | None = None if claimed_winner is None else ROLE_BY_KEY[claimed_winner]
    if claimed is not result.winner:
        _problem(
            visitor,
            state,
            Illegal(
                Code.WINNER_MISMATCH,
                {"claimed": claimed, "winner": result.winner, "result": True},
                "/result/winner",
            ),
        )
    if int(claim["notes"]) != result.notes:
        _problem(
            visitor,
            state,
            Illegal(
                Code.NOTES_MISMATCH,
                {"claimed": int(claim["notes"]), "notes": result.notes},
                "/result/notes",
            ),
        )
    return result
