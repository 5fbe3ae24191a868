"""The recorder of a game at the table (``phantom-log record``): what each entry does.

A :class:`Recording` holds the game entered so far as *steps* (a header value, a deal, the
exchange, the special number, a card, a swap, a comment, a claimed winner, the cards left
in a hand). An entry is read as game text into steps and offered (:meth:`Recording.offer`):
the steps make the record as written, which the replay completes
(:func:`~phantom_log.rules.replay.complete_record`: whose turn each card is, a deal left
out found at its round's end) and whose end says what comes next. The entry is taken only
when nothing it adds is wrong, said in the words ``verify`` prints: the record's own
check (:func:`~phantom_log.checking.verdict.check_record`) whenever the hands are known,
else the first step the replay refused. The game's text is the record's
(:func:`~phantom_log.records.record_texts.record_text`). Nothing here applies a rule.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any, Final

from ..checking.verdict import check_record
from ..checking.wording import word, word_all
from ..records.game_text import (
    ROLE_OF_SIDE,
    SIDE_OF_ROLE,
    NotationProblem,
    TextGame,
    TextPlace,
    read_games,
)
from ..records.record_texts import play_words, record_text
from ..records.text_records import header_fields
from ..rules.cards import (
    CARD_CODES,
    ROLE_KEYS,
    ROLES_IN_TEXT,
    card_number,
    hand_codes,
    parse_card,
)
from ..rules.engine import TRICKS_PER_ROUND, GameState, Phase
from ..rules.problems import Code, Problem
from ..rules.replay import VerdictBuilder, complete_record, record_sheet
from ..rules.sheets import Sheet
from .picture import moment, moment_lines, sheet_lines, story_lines
from .terminal import Style

__all__ = [
    "HEADER_QUESTIONS",
    "Awaiting",
    "NextStep",
    "Recording",
    "Refusal",
    "Step",
    "StepKind",
    "steps_of_game",
    "warm_up",
]

#: The header's questions on a terminal, in order: the key and what it asks for.
HEADER_QUESTIONS: Final = (
    ("game_id", "the game's id"),
    ("event", "the event"),
    ("date", "the date, YYYY-MM-DD"),
    ("stage", "the stage"),
    ("phantom", "the Phantom's player"),
    ("christine", "Christine's player"),
    ("sheet", "the sheet: a built-in name, or NAME Mi:CPC Ch:PCP Ri:PPC Ma:PCP"),
    ("rules", "the optional rules: beginner, balance, both, or none"),
)
#: The header's keys a record needs: Enter keeps no empty value for them.
REQUIRED_KEYS: Final = frozenset({"game_id", "phantom", "christine", "sheet"})
_TRICK_NUMBER: Final = re.compile(r"\d+\.")
_STUB: Final = "game_id: recording\n"


class Awaiting(Enum):
    """What the game waits for next."""

    HEADER = "header"
    DEAL = "deal"
    EXCHANGE = "exchange"
    SPECIAL = "special"
    PLAY = "play"
    SWAP = "swap"
    LEFT = "left"
    OVER = "over"


class StepKind(StrEnum):
    """What a step of a game written is."""

    HEADER = "header"
    DEAL = "deal"
    ASIDE = "aside"
    EXCHANGE = "exchange"
    SPECIAL = "special"
    PLAY = "play"
    SWAP = "swap"
    COMMENT = "comment"
    CLAIM = "claim"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class Step:
    """One thing written of a game. ``kind`` is ``header`` (``key`` and ``value``),
    ``deal``/``aside``/``left`` (``role`` and ``cards``), ``exchange`` (``cards``: the
    Phantom's, then Christine's), ``special`` (``number``), ``play`` (``cards``: the one
    card), ``swap`` (``cards`` the Phantom gave, ``given`` Christine's), ``comment``
    (``value``) or ``claim`` (``role``); ``round`` and ``trick`` count from 1; ``place``
    is where a text read had it."""

    kind: StepKind
    round: int = 0
    trick: int = 0
    key: str = ""
    value: str = ""
    role: str = ""
    cards: tuple[str, ...] = ()
    given: tuple[str, ...] = ()
    number: int = 0
    place: TextPlace | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an entry is not taken: a problem worded as ``verify`` words it (``problem``), or
    a problem of the notation (``notation``), and where the entry (or the text) has it."""

    problem: Problem | None = None
    notation: NotationProblem | None = None
    place: TextPlace | None = None

    @property
    def message(self) -> str:
        """The one line that says what is wrong: ``code: message``, with its round and
        trick when it has them."""
        if self.problem is not None:
            problem = self.problem
            where = ""
            if problem.round is not None:
                where = f"round {problem.round}"
                where += f", trick {problem.trick}: " if problem.trick is not None else ": "
            return f"{where}{problem.code}: {problem.message}"
        assert self.notation is not None
        return f"notation: {self.notation.message}"

    @property
    def hint(self) -> str | None:
        """What to try (the rule, for a problem of the rules)."""
        if self.problem is not None:
            return self.problem.hint
        assert self.notation is not None
        return self.notation.hint


@dataclass(slots=True)
class NextStep:
    """Where a game entered so far stands: the state of the rules (``None`` before the
    header names a sheet the rules know), what comes next, in which round and trick,
    whose deal or cards left are asked (``side``), and whether the round in play was
    dealt unseen (``hidden``)."""

    state: GameState | None
    awaiting: Awaiting
    round: int = 1
    trick: int = 1
    side: str = "phantom"
    hidden: bool = False


@dataclass(slots=True)
class _Evaluation:
    steps: list[Step]
    text: str
    data: dict[str, Any]
    next_step: NextStep
    refusal: Refusal | None


# -- the steps of a game text --------------------------------------------------------------


def steps_of_game(game: TextGame) -> list[Step]:
    """The steps a game of the text holds, each placed where the text has it: the header
    as written, then each round's parts in the order the rules take them."""
    steps = [
        Step(StepKind.HEADER, key=key, value=value, place=game.place(at))
        for key, (value, at) in game.header.items()
    ]

    def add(kind: StepKind, at: int, round_: int, trick: int = 0, **fields: Any) -> None:
        steps.append(Step(kind, round_, trick, place=game.place(at), **fields))

    for number, written in enumerate(game.rounds, 1):
        for role, cards in sorted(written.deal.items(), key=lambda item: item[1].at):
            add(StepKind.DEAL, cards.at, number, role=role, cards=cards.cards)
        if written.aside is not None:
            add(StepKind.ASIDE, written.aside.at, number, cards=written.aside.cards)
        if written.exchange is not None:
            given = tuple(written.exchange[role][0] for role in ROLE_KEYS)
            add(StepKind.EXCHANGE, written.exchange_at, number, cards=given)
        if written.special_number is not None:
            add(StepKind.SPECIAL, written.special_at, number, number=written.special_number)
        for trick_number, trick in enumerate(written.tricks, 1):
            for play in trick.plays:
                add(StepKind.PLAY, play.at, number, trick_number, cards=(play.card,))
                if play.swap is not None:
                    swap = play.swap
                    add(
                        StepKind.SWAP,
                        swap.at,
                        number,
                        trick_number,
                        cards=swap.phantom.cards,
                        given=swap.christine.cards,
                    )
            if trick.comment is not None:
                add(StepKind.COMMENT, trick.comment_at, number, trick_number, value=trick.comment)
            if trick.claim is not None:
                add(StepKind.CLAIM, trick.claim_at, number, trick_number, role=trick.claim)
        for role, cards in sorted(written.left.items(), key=lambda item: item[1].at):
            add(StepKind.LEFT, cards.at, number, role=role, cards=cards.cards)
    return steps


# -- the record the steps write ------------------------------------------------------------


def _written(steps: Sequence[Step]) -> tuple[dict[str, Any], list[NotationProblem]]:
    """The record of the steps as written (:func:`~phantom_log.records.text_records.header_fields`
    reads the header's values as the game text does; a round has its deal only when it was
    entered, its cards are played by nobody yet, and its cards left are its ``left``), and
    what of the header is no part of the notation."""
    header = {step.key: (step.value, 0) for step in steps if step.kind == "header"}
    data, problems = header_fields(header, lambda _at: TextPlace(1, 1), 0)
    result = data.pop("result", None)
    rounds: dict[int, list[Step]] = {}
    for step in steps:
        if step.kind != "header":
            rounds.setdefault(step.round, []).append(step)
    data["rounds"] = [_written_round(rounds[number]) for number in sorted(rounds)]
    if result is not None:
        data["result"] = result
    return data, problems


def _written_round(steps: list[Step]) -> dict[str, Any]:
    """A round's part of the record, from its steps (in the order the record lists its
    keys, as the game text's reader writes them)."""
    deal = {step.role: list(step.cards) for step in steps if step.kind == "deal"}
    aside = [list(step.cards) for step in steps if step.kind == "aside"]
    left = {step.role: list(step.cards) for step in steps if step.kind == "left"}
    round_: dict[str, Any] = {}
    if deal or aside:
        round_["deal"] = {role: deal[role] for role in ROLE_KEYS if role in deal}
        if aside:
            round_["deal"]["aside"] = aside[-1]
    tricks: dict[int, dict[str, Any]] = {}
    for step in steps:
        if step.kind == "exchange":
            round_["exchange"] = {"phantom": step.cards[0], "christine": step.cards[1]}
        elif step.kind == "special":
            round_["special_number"] = step.number
        elif step.kind in ("play", "swap", "comment", "claim"):
            trick = tricks.setdefault(step.trick, {"plays": []})
            if step.kind == "play":
                trick["plays"].append({"player": "", "card": step.cards[0]})
            elif step.kind == "swap":
                sides = (("phantom", step.cards), ("christine", step.given))
                trick["plays"][-1]["swap"] = {role: list(cards) for role, cards in sides if cards}
            else:
                trick["winner" if step.kind == "claim" else "comment"] = (
                    step.role if step.kind == "claim" else step.value
                )
    round_["tricks"] = [
        {key: trick[key] for key in ("plays", "winner", "comment") if key in trick}
        for _, trick in sorted(tricks.items())
    ]
    if left:
        round_["left"] = {role: left[role] for role in ROLE_KEYS if role in left}
    return round_


def _one_deal(round_: dict[str, Any]) -> bool:
    """True for a round that holds one deal and nothing else yet: the other is asked."""
    deal = round_.get("deal", {})
    one = ("phantom" in deal) != ("christine" in deal)
    return one and len(round_) == 2 and not round_["tricks"]


def _step_place(steps: Sequence[Step], at: str) -> TextPlace | None:
    """Where the step that wrote the part at JSON pointer ``at`` was written (the step
    whose part holds it most closely), if a step wrote it."""
    found: TextPlace | None = None
    closest = -1
    plays = 0
    trick_of_plays = (0, 0)
    for step in steps:
        if step.kind == "header":
            continue
        part = f"/rounds/{step.round - 1}"
        if step.kind in ("deal", "left"):
            part += f"/deal/{step.role}"
        elif step.kind == "aside":
            part += "/deal/aside"
        elif step.kind == "exchange":
            part += "/exchange"
        elif step.kind == "special":
            part += "/special_number"
        else:
            part += f"/tricks/{step.trick - 1}"
            if step.kind == "play":
                same = trick_of_plays == (step.round, step.trick)
                plays = plays + 1 if same else 1
                trick_of_plays = (step.round, step.trick)
            part += {
                "play": f"/plays/{plays - 1}",
                "swap": f"/plays/{plays - 1}/swap",
                "comment": "/comment",
                "claim": "/winner",
            }[step.kind]
        if (at == part or at.startswith(part + "/")) and len(part) >= closest:
            found, closest = step.place, len(part)
    return found


# -- where the game stands -----------------------------------------------------------------


def _step_problem(
    steps: Sequence[Step], final: GameState | None
) -> tuple[NotationProblem, int] | None:
    """A step written where the game text has no place for it, and its index: a round
    that gives one deal and goes on, or cards left written where no round ended early with
    its hands hidden (``final``: where the game stands; ``None`` when a step before was
    refused, which is then what is said)."""
    rounds: dict[int, list[tuple[int, Step]]] = {}
    for index, step in enumerate(steps):
        if step.kind != "header":
            rounds.setdefault(step.round, []).append((index, step))
    for number, items in sorted(rounds.items()):
        deals = [step.role for _, step in items if step.kind == "deal"]
        rest = [(index, step) for index, step in items if step.kind not in ("deal", "aside")]
        if len(deals) == 1 and rest:
            missing = next(role for role in ROLE_KEYS if role not in deals)
            return (
                NotationProblem(
                    f"round {number} gives one deal: {ROLES_IN_TEXT[ROLE_KEYS.index(missing)]}'s "
                    "is missing",
                    rest[0][1].place or TextPlace(1, 1),
                    "enter both deals, or neither (the hands hidden)",
                ),
                rest[0][0],
            )
        if final is None:  # a step before was refused: that is what is said
            continue
        ended_early = (
            final.is_over and final.round == number and final.tricks_played < TRICKS_PER_ROUND
        )
        sides: set[str] = set()
        for index, step in items:
            if step.kind != "left":
                continue
            if deals or not ended_early or step.role in sides:
                return (
                    NotationProblem(
                        "the cards left in a hand are written only after the last trick "
                        "of a round the Phantom ended early, its deals not entered",
                        step.place or TextPlace(1, 1),
                        "leave this line out",
                    ),
                    index,
                )
            sides.add(step.role)
    return None


def _standing(
    final: GameState | None, steps: Sequence[Step], header_done: bool, hidden: bool
) -> NextStep:
    """What the game waits for, from ``final`` (where the rules leave it: ``None`` before the
    header names a sheet they know)."""
    if not header_done or final is None:
        return NextStep(final, Awaiting.HEADER)
    state = final
    phase = state.phase
    round_number = state.round
    if phase is Phase.DEAL:
        entered = [s.role for s in steps if s.kind == "deal" and s.round == round_number]
        missing = next(role for role in ROLE_KEYS if role not in entered)
        return NextStep(state, Awaiting.DEAL, round_number, 1, missing)
    awaiting = {
        Phase.EXCHANGE: Awaiting.EXCHANGE,
        Phase.SPECIAL_NUMBER: Awaiting.SPECIAL,
        Phase.PLAY: Awaiting.PLAY,
        Phase.SWAP: Awaiting.SWAP,
    }.get(phase)
    if awaiting is not None:
        return NextStep(state, awaiting, round_number, state.trick, hidden=hidden)
    if hidden and state.tricks_played < TRICKS_PER_ROUND:
        left = {s.role for s in steps if s.kind == "left" and s.round == round_number}
        for role in ROLE_KEYS:
            if role not in left:
                return NextStep(
                    state, Awaiting.LEFT, round_number, state.tricks_played, role, hidden=True
                )
    return NextStep(state, Awaiting.OVER, round_number, state.tricks_played, hidden=hidden)


# -- the record's checks -------------------------------------------------------------------

_PREFIX_ONLY: Final = frozenset({Code.UNFINISHED})


def _checked(
    data: dict[str, Any], sheets: Mapping[str, Sheet] | None, awaiting: Awaiting
) -> list[Problem]:
    """The problems of the record so far that no later entry can mend, as ``verify``
    words them; none while a round in it has hands not yet known (the rules follow that
    round unseen meanwhile). A round whose special number is not entered yet is checked
    as far as its deal and exchange."""
    rounds = data.get("rounds")
    if not isinstance(rounds, list) or not rounds:
        return []
    filled: int | None = None
    for index, round_ in enumerate(rounds):
        deal = round_.get("deal", {})
        if not all(role in deal for role in ROLE_KEYS):
            return []
        if "special_number" not in round_:
            if index != len(rounds) - 1:
                return []
            exchange = round_.get("exchange")
            number = 1
            if isinstance(exchange, dict) and "phantom" in exchange:
                number = card_number(parse_card(exchange["phantom"]))
            rounds = [*rounds[:-1], {**round_, "special_number": number, "tricks": []}]
            data = {**data, "rounds": rounds}
            filled = index
    problems, _ = check_record(data, sheets, VerdictBuilder)
    kept: list[Problem] = []
    for problem in problems:
        if problem.code in _PREFIX_ONLY:
            continue
        if problem.pointer.startswith("/result") and awaiting is not Awaiting.OVER:
            continue
        if problem.code is Code.MISSING_SWAP and awaiting is Awaiting.SWAP:
            continue  # the swap is the next entry
        if filled is not None and (
            problem.pointer == f"/rounds/{filled}/special_number"
            or (problem.pointer == f"/rounds/{filled}" and problem.code is Code.BAD_EXCHANGE)
        ):
            continue
        kept.append(problem)
    return kept


def _header_problems(
    data: dict[str, Any], key: str, sheets: Mapping[str, Sheet] | None
) -> list[Problem]:
    """The problems of one header value, as the record's check words them."""
    at = "/" + ("players/" + key if key in ("phantom", "christine") else key)
    problems, _ = check_record({**data, "rounds": []}, sheets, VerdictBuilder)
    found = [p for p in problems if p.pointer == at or p.pointer.startswith(at + "/")]
    if key == "sheet" and not found and "sheet" in data:
        sheet = record_sheet(data["sheet"], sheets)
        if isinstance(sheet, list):
            found = word_all(sheet)
    return found


def warm_up() -> None:
    """Make ready what the first check builds once (the schema's validators), so that the
    first entry is answered as fast as the others: the recorder calls it before its first
    question."""
    check_record({"format": "phantom-log/1"}, None, VerdictBuilder)


# -- the session ---------------------------------------------------------------------------


@dataclass(slots=True)
class Recording:
    """A game being recorded: its steps, the sizes of the entries of its rounds (undo
    takes back an entry), and what the game waits for. ``sheets``: the custom sheets known
    by name."""

    sheets: Mapping[str, Sheet] | None = None
    steps: list[Step] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)
    header_done: bool = False
    #: The round whose deals were passed over (Enter at the deal's question), 0 for none.
    unseen_round: int = 0
    _current: _Evaluation | None = None

    @classmethod
    def of_text(cls, text: str, sheets: Mapping[str, Sheet] | None = None) -> Recording:
        """The recording of a game text already written (the file resumed), each step an
        entry; ``ValueError`` saying why when the text is not one game the recorder can
        go on with."""
        games = read_games(text)
        if len(games) != 1:
            raise ValueError(
                "it holds no game" if not games else f"it holds {len(games)} games, not one"
            )
        game = games[0]
        if game.problems:
            first = min(game.problems, key=lambda problem: problem.place)
            raise ValueError(f"{first.place}: {first.message}")
        steps = steps_of_game(game)
        recording = cls(sheets, header_done=bool(game.rounds))
        refusal = recording.offer(steps)
        if refusal is not None:
            where = f"{refusal.place}: " if refusal.place is not None else ""
            raise ValueError(f"{where}{refusal.message}")
        recording.entries = [1] * sum(step.kind != "header" for step in steps)
        return recording

    @classmethod
    def of_record(cls, data: Any, sheets: Mapping[str, Sheet] | None = None) -> Recording:
        """The recording of a record already written (a ``.json`` resumed); ``ValueError``
        when it is no record the game text holds exactly (so that nothing of it would be
        lost by writing it again)."""
        if not isinstance(data, dict) or data.get("format") != "phantom-log/1":
            raise ValueError('it has no "format": "phantom-log/1"')
        try:
            text, left_out = record_text(data)
        except (KeyError, TypeError, AttributeError, IndexError) as error:
            raise ValueError(f"it is no game record the recorder can read ({error})") from None
        if left_out:
            raise ValueError(
                f"it holds x- keys the game text does not carry ({', '.join(left_out[:3])})"
            )
        recording = cls.of_text(text, sheets)
        found = recording.data()
        if "result" not in data:  # the result the recorder writes at a game's end
            found = {key: value for key, value in found.items() if key != "result"}
        if found != data:
            raise ValueError("the game text cannot hold all of it exactly")
        return recording

    # -- what the game holds -----------------------------------------------------------

    def _evaluation(self) -> _Evaluation:
        if self._current is None:
            self._current = self._evaluate(self.steps, self.header_done, self.unseen_round)
        return self._current

    @property
    def next_step(self) -> NextStep:
        """Where the game stands."""
        return self._evaluation().next_step

    @property
    def text(self) -> str:
        """The game text of what is entered."""
        return self._evaluation().text

    def data(self) -> dict[str, Any]:
        """The record so far, as its JSON is (a round's deals once known: entered, or found
        at the round's end)."""
        return self._evaluation().data

    @property
    def finished(self) -> bool:
        """True once the game is over (and, a round's deals hidden, its cards left given)."""
        return self.header_done and self.next_step.awaiting is Awaiting.OVER

    def header(self) -> dict[str, str]:
        """The header's values entered, by key."""
        return {step.key: step.value for step in self.steps if step.kind == "header"}

    def header_default(self, key: str, path_stem: str) -> str:
        """The value Enter keeps for ``key``: the one entered, else the recorder's default
        (the game id from the file's name, today's date, the rulebook's sheet)."""
        entered = self.header().get(key)
        if entered is not None:
            return entered
        defaults = {
            "game_id": path_stem,
            "date": datetime.date.today().isoformat(),
            "sheet": "rulebook",
            "rules": "none",
        }
        return defaults.get(key, "")

    # -- offering an entry -----------------------------------------------------------------

    def _evaluate(self, steps: list[Step], header_done: bool, unseen_round: int) -> _Evaluation:
        """The game of ``steps`` as written and completed by the replay, what it waits for,
        and why the last of them is not taken (``None``: it is)."""
        written, notation = _written(steps)
        text = record_text(written)[0] if steps else ""
        data, _ = _written(steps)  # a copy, which the replay completes
        rounds = data["rounds"]
        # A round whose other deal is still asked, or whose deals were passed over before
        # any of it was entered, is completed as about to be dealt, or dealt unseen.
        waiting = rounds.pop() if rounds and _one_deal(rounds[-1]) else None
        passed_over = waiting is None and unseen_round == len(rounds) + 1
        if passed_over:
            rounds.append({"tricks": []})
        completion = complete_record(data, self.sheets, in_play=True) if not notation else None
        if passed_over:
            data["rounds"].pop()
        if waiting is not None:
            data["rounds"].append(waiting)
        final = None if completion is None else completion.final
        in_play = final.round if final is not None else 0
        hidden = passed_over or not any(
            step.kind == "deal" and step.round == in_play for step in steps
        )
        found = _standing(final, steps, header_done, hidden)
        last = steps[-1] if steps else None
        place = last.place if last is not None else None
        refused = None if completion is None else completion.refused
        misplaced = _step_problem(steps, final if refused is None else None)
        notation = [
            problem
            for problem in notation
            if header_done or not problem.message.startswith("the header has no")
        ]
        refusal: Refusal | None = None
        if notation:
            refusal = Refusal(notation=notation[0], place=place)
        elif last is not None and last.kind == "header":
            problems = _header_problems(data, last.key, self.sheets)
            if problems:
                refusal = Refusal(problems[0], place=place)
        elif misplaced is not None:
            refusal = Refusal(notation=misplaced[0], place=steps[misplaced[1]].place)
        if refusal is None and header_done and any(step.kind == "header" for step in steps):
            checked = _checked(data, self.sheets, found.awaiting)
            if checked:
                refusal = Refusal(checked[0], place=place)
            elif refused is not None:
                refusal = Refusal(word(refused), place=_step_place(steps, refused.pointer) or place)
            elif (
                completion is not None
                and completion.deal_problems
                and found.awaiting is not Awaiting.LEFT
            ):
                refusal = Refusal(word(completion.deal_problems[0]), place=place)
        return _Evaluation(steps, text, data, found, refusal)

    def offer(self, steps: Sequence[Step]) -> Refusal | None:
        """Take the steps of one entry, or say why not (nothing of it is taken then)."""
        header_done = self.header_done or any(step.kind != "header" for step in steps)
        candidate = [*self.steps, *steps]
        evaluation = self._evaluate(candidate, header_done, self.unseen_round)
        if evaluation.refusal is not None:
            return evaluation.refusal
        has_result = any(step.kind == "header" and step.key == "result" for step in candidate)
        if evaluation.next_step.awaiting is Awaiting.OVER and not has_result:
            # The game's end: the record says its result (the replay's, so checked).
            state = evaluation.next_step.state
            assert state is not None and state.winner is not None
            result = Step(StepKind.HEADER, key="result", value=f"{state.winner.key} {state.notes}")
            steps = [*steps, result]
            candidate.append(result)
            evaluation = self._evaluate(candidate, header_done, self.unseen_round)
            if evaluation.refusal is not None:
                return evaluation.refusal
        self.steps = candidate
        if any(step.kind != "header" for step in steps):
            self.entries.append(len(steps))
        self.header_done = header_done
        self._current = evaluation
        return None

    def set_header(self, key: str, value: str) -> Refusal | None:
        """Enter (or change) one header value, or say why not."""
        old = self.header().get(key)
        if old == value:
            return None
        kept = [step for step in self.steps if not (step.kind == "header" and step.key == key)]
        evaluation = self._evaluate(
            [*kept, Step(StepKind.HEADER, key=key, value=value)],
            self.header_done,
            self.unseen_round,
        )
        if evaluation.refusal is not None:
            return evaluation.refusal
        self._taken_header(evaluation)
        return None

    def drop_header(self, key: str) -> None:
        """Leave an optional header value out."""
        kept = [step for step in self.steps if not (step.kind == "header" and step.key == key)]
        if len(kept) != len(self.steps):
            self._taken_header(self._evaluate(kept, self.header_done, self.unseen_round))

    def _taken_header(self, evaluation: _Evaluation) -> None:
        # The header's values come before the rounds' steps: the entries stay as they were.
        header = [step for step in evaluation.steps if step.kind == "header"]
        self.steps = [*header, *(step for step in evaluation.steps if step.kind != "header")]
        self._current = None

    def trick_line(self) -> str:
        """The trick just completed, in words: who won it, why, and the notes."""
        state = self.next_step.state
        assert state is not None
        from ..rules.events import verdict_reason
        from ..rules.sheets import NOTES_PER_SHEET

        winner = ROLES_IN_TEXT[state.leader_code]
        winner = winner[:1].upper() + winner[1:]
        reason = verdict_reason(state.last_verdict).value.replace("-", " ")
        return (
            f"{winner} wins the trick ({CARD_CODES[state.last_lead]} against "
            f"{CARD_CODES[state.last_follow]}, {reason}): {state.notes} of "
            f"{NOTES_PER_SHEET} notes"
        )

    def tricks_completed(self) -> int:
        """How many tricks of the game the rules have seen end (a trick whose swap is due
        is not over yet)."""
        state = self.next_step.state
        if state is None or not self.header_done:
            return 0
        if state.is_over:
            return (state.ended_round - 1) * TRICKS_PER_ROUND + state.ended_trick
        if state.phase is Phase.DEAL:  # between rounds: the round before is over
            return state.round_index * TRICKS_PER_ROUND
        return state.round_index * TRICKS_PER_ROUND + state.tricks_played

    def round_end_lines(self, round_number: int) -> list[str]:
        """What is said when round ``round_number`` has just ended (none while it goes on):
        its notes, and the deals found when its hands were hidden."""
        found = self.next_step
        state = found.state
        if state is None or (found.round == round_number and found.awaiting is not Awaiting.OVER):
            return []
        if found.awaiting is Awaiting.LEFT:
            return [f"round {round_number} is over: the cards left in each hand are asked"]
        from ..rules.sheets import NOTES_PER_SHEET

        lines = [f"round {round_number} is over: {state.notes} of {NOTES_PER_SHEET} notes"]
        rounds = self.data().get("rounds", [])
        written = {
            step.role for step in self.steps if step.kind == "deal" and step.round == round_number
        }
        if not written and len(rounds) >= round_number and "deal" in rounds[round_number - 1]:
            deal = rounds[round_number - 1]["deal"]
            for role in ROLE_KEYS:
                who = ROLES_IN_TEXT[ROLE_KEYS.index(role)]
                lines.append(f"{who} was dealt, found from the play: {' '.join(deal[role])}")
        return lines

    def finish_header(self) -> None:
        """The header is entered: the rounds come next."""
        self.header_done = True
        self._current = None

    def pass_over_deals(self) -> None:
        """The deals of the round to come are not entered: it is dealt unseen."""
        self.unseen_round = self.next_step.round
        self._current = None

    def undo(self, count: int = 1) -> int:
        """Take back the last ``count`` entries of the rounds (what the recorder added with
        the last, the result, goes with it; the header is changed by :meth:`set_header`);
        how many were taken back."""
        taken = 0
        if self.unseen_round and not any(
            step.round == self.unseen_round for step in self.steps if step.kind != "header"
        ):
            # The deals passed over are asked again.
            self.unseen_round = 0
            taken = 1
        while taken < count and self.entries:
            size = self.entries.pop()
            del self.steps[len(self.steps) - size :]
            taken += 1
        if (
            taken
            and self.unseen_round
            and not any(
                step.round == self.unseen_round for step in self.steps if step.kind != "header"
            )
        ):
            self.unseen_round = 0
        self._current = None
        return taken

    # -- what to write -------------------------------------------------------------------

    def saved(self, as_json: bool) -> str:
        """The file's content: the record as JSON, or the game text."""
        if as_json:
            return _json_text(self.data()) + "\n"
        return self.text

    # -- reading an entry --------------------------------------------------------------

    def read_entry(self, line: str) -> list[Step] | Refusal:
        """The steps an entry typed at the question of :attr:`position` stands for, in the
        game text's notation (a whole trick line at a card's question, ``P Mi1 C Ri2``
        for a swap or the exchange), or the problem of its notation, placed in the
        entry (column from 1)."""
        found = self.next_step
        awaiting = found.awaiting
        words = line.split()
        number = found.round
        if awaiting is Awaiting.DEAL or awaiting is Awaiting.LEFT:
            keyword = awaiting.value
            side = SIDE_OF_ROLE[found.side]
            if words and words[0].casefold() == keyword:
                return self._parsed(line, 0, found, keyword)
            return self._parsed(f"{keyword} {side} {line}", len(keyword) + 3, found, keyword)
        if awaiting is Awaiting.EXCHANGE:
            if words and words[0].casefold() == "exchange":
                return self._parsed(line, 0, found, "exchange")
            if len(words) == 2 and not any(w.upper() in ROLE_OF_SIDE for w in words):
                second = line.index(words[1], len(words[0]))
                typed = f"exchange P {words[0]} C {line[second:]}"
                return self._parsed(typed, len("exchange P "), found, "exchange")
            return self._parsed(f"exchange {line}", len("exchange "), found, "exchange")
        if awaiting is Awaiting.SPECIAL:
            if words and words[0].casefold() == "special":
                return self._parsed(line, 0, found, "special")
            return self._parsed(f"special {line}", len("special "), found, "special")
        if awaiting in (Awaiting.PLAY, Awaiting.SWAP):
            return self._trick_entry(line, found, number)
        return Refusal(
            notation=NotationProblem(
                "the game is over: nothing more is recorded", TextPlace(1, 1), "quit, or undo"
            )
        )

    def _parsed(
        self, typed: str, shift: int, found: NextStep, keyword: str
    ) -> list[Step] | Refusal:
        """Read ``typed`` (a round's line) in a round of its own: its steps, with the round
        of the game, or the first problem of its notation (its column less ``shift``)."""
        game = read_games(f"{_STUB}round 1\n{typed}\n")[0]
        problem = _first_problem(game, 3, shift)
        if problem is not None:
            return problem
        steps = [step for step in steps_of_game(game) if step.kind != "header"]
        steps = [replace(step, round=found.round, place=None) for step in steps]
        if not steps or any(step.kind != keyword for step in steps):
            return Refusal(
                notation=NotationProblem(
                    f"{typed.split()[0]!r}: {_asked(found)} is asked",
                    TextPlace(1, 1),
                    "type help for what each question takes",
                )
            )
        return steps

    def _trick_entry(self, line: str, found: NextStep, number: int) -> list[Step] | Refusal:
        """A trick's line, or the rest of the trick in play: the cards (a swap in
        parentheses after its card), then ``{comment}`` and ``=P`` or ``=C``."""
        state = found.state
        assert state is not None
        trick = found.trick
        # The cards of the trick in play stand in for themselves, so the reader takes the
        # entry where the trick is (a number, a second card, a swap after one of them).
        before = [step for step in self.steps if step.round == number and step.trick == trick]
        written = [step for step in before if step.kind in ("play", "swap")]
        stripped = line.lstrip()
        numbered = stripped.split(maxsplit=1)[0] if stripped else ""
        if _TRICK_NUMBER.fullmatch(numbered) and not written:
            prefix = ""
        elif written:
            plays = _written_round(before)["tricks"][0]["plays"]
            prefix = " ".join(play_words(plays)) + " "
            if found.awaiting is Awaiting.SWAP and not stripped.startswith("("):
                line = f"({line})"
        else:
            prefix = f"{trick}. "
        filler = "".join(f"{index}. Mi1 Mi2\n" for index in range(1, trick))
        game = read_games(f"{_STUB}round 1\n{filler}{prefix}{line}\n")[0]
        problem = _first_problem(game, 3 + trick - 1, len(prefix))
        if problem is not None:
            return problem
        steps = [
            replace(step, round=number, place=None)
            for step in steps_of_game(game)
            if step.kind != "header" and step.trick == trick
        ]
        # The cards already played, and the swaps already given, are not entered again.
        kept = steps[len(written) :]
        if found.awaiting is Awaiting.SWAP and (not kept or kept[0].kind != "swap"):
            return Refusal(
                notation=NotationProblem(
                    "no swap entered",
                    TextPlace(1, 1),
                    "type the cards each side gives: P Mi1 C Ri1",
                )
            )
        if not kept:
            return Refusal(
                notation=NotationProblem(
                    "no card entered", TextPlace(1, 1), f"type the card of {_asked(found)}: Ma5"
                )
            )
        return kept

    # -- completion --------------------------------------------------------------------

    def card_choices(self, typed: str) -> list[str]:
        """The card codes that may come next in the entry ``typed`` so far (before the
        word being written): at a card's question, the cards legal once the complete
        words typed are taken (with the hands hidden, the cards the player may hold); in
        a swap, the cards the side being written may give; for a deal, the cards not
        dealt; for the exchange, the cards each may give."""
        found = self.next_step
        state = found.state
        if state is None or found.awaiting in (Awaiting.HEADER, Awaiting.OVER):
            return []
        if found.awaiting in (Awaiting.PLAY, Awaiting.SWAP):
            return self._trick_choices(typed, found)
        if found.awaiting is Awaiting.DEAL:
            dealt = {
                card
                for step in self.steps
                if step.kind == "deal" and step.round == found.round
                for card in step.cards
            }
            written = {word.capitalize() for word in typed.split()}
            return [code for code in CARD_CODES if code not in dealt | written]
        if found.awaiting is Awaiting.EXCHANGE:
            side = _last_side(typed)
            role = 1 if side == "C" or (side is None and len(typed.split()) >= 1) else 0
            return hand_codes(state.hands[role])
        if found.awaiting is Awaiting.LEFT:
            return hand_codes(state.hands[ROLE_KEYS.index(found.side)])
        return []

    def _trick_choices(self, typed: str, found: NextStep) -> list[str]:
        words = typed.split()
        steps: list[Step] = []
        if words:
            entry = self.read_entry(typed)
            steps = entry if isinstance(entry, list) else []
        moved = found.state
        assert moved is not None
        if steps:
            after = self._evaluate([*self.steps, *steps], True, self.unseen_round)
            if after.refusal is None and after.next_step.state is not None:
                moved = after.next_step.state
        if moved.swap_due():
            side = _last_side(typed.rpartition("(")[2]) if "(" in typed else _last_side(typed)
            role = 1 if side == "C" else 0
            return hand_codes(moved.hands[role])
        return hand_codes(moved.legal_cards())

    # -- what the terminal shows -------------------------------------------------------

    def question(self) -> str:
        """The question for what comes next, as the prompt words it."""
        found = self.next_step
        state = found.state
        round_ = f"round {found.round}"
        if found.awaiting is Awaiting.DEAL:
            if found.side == "phantom":
                return f"{round_}: the Phantom's deal (10 cards; Enter: not entered, hands hidden)"
            return f"{round_}: Christine's deal (10 cards)"
        if found.awaiting is Awaiting.EXCHANGE:
            return f"{round_}: the exchange (P CARD C CARD)"
        if found.awaiting is Awaiting.SPECIAL:
            assert state is not None
            options = " or ".join(str(number) for number in state.number_options())
            if state.beginner:
                return f"{round_}: the special number (the die: {options.replace(' or ', ', ')})"
            return f"{round_}: the special number ({options})"
        if found.awaiting is Awaiting.PLAY:
            assert state is not None and state.turn is not None
            who = ROLES_IN_TEXT[int(state.turn)]
            does = "leads" if state.lead is None else "follows"
            return f"{round_}, trick {found.trick}: {who} {does}"
        if found.awaiting is Awaiting.SWAP:
            assert state is not None
            size = state.swap_due()
            after = "the follow" if state.swap_after_follow else "the lead"
            return (
                f"{round_}, trick {found.trick}: swap after {after}: P gives {size}, C gives {size}"
            )
        if found.awaiting is Awaiting.LEFT:
            assert state is not None
            who = ROLES_IN_TEXT[ROLE_KEYS.index(found.side)]
            count = state.phantom_count if found.side == "phantom" else state.christine_count
            return (
                f"{round_}, after trick {found.trick}: {who}'s cards left ({count}), "
                f"as left {SIDE_OF_ROLE[found.side]} ..."
            )
        return "the game is over"

    def result_line(self) -> str:
        """The game's end in words (once it is over)."""
        state = self.next_step.state
        assert state is not None and state.winner is not None
        return (
            f"{ROLES_IN_TEXT[int(state.winner)]} won, {state.notes} notes completed "
            f"(round {state.ended_round}, trick {state.ended_trick})"
        )

    def picture(self, style: Style) -> list[str]:
        """The game so far as ``show`` draws it on a terminal: the sheet at the last trick
        completed, the super trump, the special number, both hands, the trick just
        played; with the hands hidden, the sheet and how many cards each holds."""
        found = self.next_step
        state = found.state
        if state is None or found.awaiting is Awaiting.HEADER:
            return ["Nothing to show yet: the header is being entered."]
        data = self.data()
        lines: list[str] = []
        if _checked_is_possible(data):
            from ..rules.replay import GameLogBuilder

            _, log = check_record(data, self.sheets, GameLogBuilder)
            if log is not None and log.rounds:
                at = moment(log)
                lines = moment_lines(log, at, style)
                story = story_lines(log, at, style.text_width(88))
                if story:
                    lines += ["", *story]
        if not lines:
            from ..rules.sheets import NOTES_PER_SHEET

            sheet = record_sheet(data["sheet"], self.sheets)
            assert isinstance(sheet, Sheet)
            lines = [
                f"Round {found.round}, {state.tricks_played} tricks played: "
                f"{state.notes} of {NOTES_PER_SHEET} notes completed",
                "",
                *sheet_lines(sheet, state.notes, style),
                "",
            ]
            if state.phase >= Phase.PLAY:
                lines.append(f"Special number of round {found.round}: {state.special_number}")
            if found.hidden:
                lines.append(
                    f"The hands were not entered: the Phantom holds {state.phantom_count} "
                    f"cards, Christine {state.christine_count}"
                )
        if state.lead is not None and found.awaiting in (Awaiting.PLAY, Awaiting.SWAP):
            lines.append(
                f"Trick {found.trick} in play: {ROLES_IN_TEXT[int(state.leader)]} led "
                f"{CARD_CODES[state.lead]}"
            )
        return lines


#: The widest a JSON value is written on one line of a record saved.
_JSON_LINE: Final = 88


def _json_text(value: Any, indent: int = 0) -> str:
    """``value`` as JSON for people: an object or array on one line when it fits, else a
    member a line (a hand of cards, a play, stay on one line)."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or indent + len(flat) <= _JSON_LINE or not value:
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        members = [
            f"{inner}{json.dumps(key, ensure_ascii=False)}: {_json_text(item, indent + 2)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(members) + "\n" + " " * indent + "}"
    if all(not isinstance(item, (dict, list)) for item in value):
        return flat
    items = [f"{inner}{_json_text(item, indent + 2)}" for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _checked_is_possible(data: dict[str, Any]) -> bool:
    rounds = data.get("rounds") or []
    return bool(rounds) and all(
        all(role in round_.get("deal", {}) for role in ROLE_KEYS) and "special_number" in round_
        for round_ in rounds
    )


def _first_problem(game: TextGame, line: int, shift: int) -> Refusal | None:
    """The first problem of the notation of the entry read on ``line`` of a stub text,
    placed in the entry as typed."""
    if not game.problems:
        return None
    first = min(game.problems, key=lambda problem: problem.place)
    column = max(1, first.place.column - shift) if first.place.line == line else 1
    return Refusal(notation=replace(first, place=TextPlace(1, column)), place=TextPlace(1, column))


def _asked(found: NextStep) -> str:
    state = found.state
    if found.awaiting is Awaiting.DEAL:
        return f"{ROLES_IN_TEXT[ROLE_KEYS.index(found.side)]}'s deal"
    if found.awaiting is Awaiting.LEFT:
        return f"{ROLES_IN_TEXT[ROLE_KEYS.index(found.side)]}'s cards left"
    if found.awaiting is Awaiting.PLAY and state is not None and state.turn is not None:
        return ROLES_IN_TEXT[int(state.turn)]
    return {
        Awaiting.EXCHANGE: "the exchange",
        Awaiting.SPECIAL: "the special number",
        Awaiting.SWAP: "the swap",
    }.get(found.awaiting, "nothing")


def _last_side(typed: str) -> str | None:
    for written in reversed(typed.split()):
        letter = written.strip("()").upper()
        if letter in ROLE_OF_SIDE:
            return letter
    return None
