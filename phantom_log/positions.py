"""A position of a game, for people and notebooks: python-chess's ``Board`` for phantom-log.

:class:`Position` wraps the engine's :class:`~phantom_log.rules.engine.GameState` (the one
state machine) and shows it with cards, roles and suits as enums: the hands, the notes,
the super trump, whose turn it is, :meth:`Position.legal_cards` and :meth:`Position.play`.
Every answer is the engine's; nothing here applies a rule.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from .rules.cards import Card, Role, Suit, mask_cards
from .rules.engine import GameState, Phase, PlayCard, SwapCards
from .rules.events import TrickEnded
from .rules.problems import Illegal
from .rules.replay import GameLogBuilder, replay_record
from .rules.sheets import NOTES_PER_SHEET, Sheet

if TYPE_CHECKING:
    from .records.model import GameRecord

#: What a position waits for, as a word.
PhaseName = Literal["deal", "exchange", "special-number", "play", "swap", "over"]
_PHASE_NAMES: dict[Phase, PhaseName] = {
    Phase.DEAL: "deal",
    Phase.EXCHANGE: "exchange",
    Phase.SPECIAL_NUMBER: "special-number",
    Phase.PLAY: "play",
    Phase.SWAP: "swap",
    Phase.OVER: "over",
}


class Hands(NamedTuple):
    """Both hands, as cards in deck order."""

    phantom: tuple[Card, ...]
    christine: tuple[Card, ...]


class IllegalMove(ValueError):
    """A card or a swap the rules do not allow here. ``illegal`` is the engine's finding
    (its ``code`` and facts); the message is the one ``verify`` would print."""

    def __init__(self, illegal: Illegal) -> None:
        from .checking.wording import word

        self.illegal = illegal
        self.code = illegal.code
        super().__init__(f"{illegal.code}: {word(illegal).message}")


class PositionNotReached(ValueError):
    """The record does not get to the asked round and trick (it ends before, or its replay
    stops at an illegal step before)."""


class Position:
    """One moment of a game: the engine's state on its sheet. Immutable: :meth:`play`
    and :meth:`swap` return the next position."""

    __slots__ = ("_state", "sheet")

    def __init__(self, state: GameState, sheet: Sheet) -> None:
        self._state = state.copy()
        self.sheet = sheet

    # -- reading ---------------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """A copy of the engine's state (hands as bit masks), to drive the engine directly."""
        return self._state.copy()

    @property
    def phase(self) -> PhaseName:
        """What the game waits for: ``"play"``, ``"swap"``, ``"over"``, ..."""
        return _PHASE_NAMES[self._state.phase]

    @property
    def round(self) -> int:
        """The round (1 or 2)."""
        return self._state.round

    @property
    def trick(self) -> int:
        """The trick being played, counted in the round (1-10)."""
        return self._state.trick

    @property
    def hands(self) -> Hands:
        """Both hands, as cards."""
        phantom, christine = self._state.hands
        return Hands(mask_cards(phantom), mask_cards(christine))

    def hand(self, role: Role | Literal["phantom", "christine"]) -> tuple[Card, ...]:
        """One player's hand, as cards."""
        return mask_cards(self._state.hand(_role(role)))

    @property
    def notes(self) -> int:
        """The notes completed (0-12)."""
        return int(self._state.notes)

    @property
    def super_trump(self) -> Suit | None:
        """The super trump in force (``None`` with no note completed)."""
        return self._state.super_trump

    @property
    def special_number(self) -> int | None:
        """The round's special number, once picked."""
        return int(self._state.special_number) if self._state.phase >= Phase.PLAY else None

    @property
    def leader(self) -> Role:
        """Who leads (or led) the trick."""
        return self._state.leader

    @property
    def turn(self) -> Role | None:
        """Who is to play a card (``None`` when no card is due: a swap, the end)."""
        return self._state.turn

    @property
    def lead(self) -> Card | None:
        """The card led in the trick, once led."""
        lead = self._state.lead
        return None if lead is None else Card(lead)

    @property
    def swap_due(self) -> int:
        """How many cards each player gives in the swap the game waits for (0 if none)."""
        return int(self._state.swap_due())

    @property
    def last_trick(self) -> TrickEnded | None:
        """The last completed trick (its ``winner``, ``reason``, notes before and after)."""
        return self._state.last_trick

    @property
    def is_over(self) -> bool:
        """True once the game is decided."""
        return bool(self._state.is_over)

    @property
    def winner(self) -> Role | None:
        """Who won, once the game is over."""
        return self._state.winner

    def legal_cards(self) -> tuple[Card, ...]:
        """The cards the player to move may play (none when no card is due)."""
        return mask_cards(self._state.legal_cards())

    # -- moving ----------------------------------------------------------------------------

    def play(self, card: Card | str) -> Position:
        """The position after the player to move plays ``card`` (a :class:`Card` or a code
        such as ``"Ma5"``); :class:`IllegalMove` if the rules forbid it."""
        player = self._state.turn
        played = Card.parse(card) if isinstance(card, str) else Card(card)
        outcome = self._state.apply(PlayCard(player if player is not None else self.leader, played))
        return self._next(outcome)

    def swap(self, phantom: Iterable[Card | str], christine: Iterable[Card | str]) -> Position:
        """The position after the swap the game waits for: the cards each player gives."""
        outcome = self._state.apply(SwapCards(_cards(phantom), _cards(christine)))
        return self._next(outcome)

    def _next(self, outcome: GameState | Illegal) -> Position:
        if isinstance(outcome, Illegal):
            raise IllegalMove(outcome)
        return Position(outcome, self.sheet)

    # -- showing ---------------------------------------------------------------------------

    def describe(self) -> list[str]:
        """The position in a few lines of text."""
        super_trump = self.super_trump
        lines = [
            f"round {self.round}, trick {self.trick}: {self.notes} of {NOTES_PER_SHEET} notes, "
            f"super trump {'none' if super_trump is None else super_trump.title}, "
            f"special number {self.special_number or '-'}"
        ]
        for role in Role:
            cards = " ".join(map(str, self.hand(role))) or "empty"
            lines.append(f"{role.title}: {cards}")
        if self.is_over:
            winner = self.winner
            lines.append(f"game over: {'nobody' if winner is None else winner.title} won")
        elif self.turn is not None:
            lead = self.lead
            led = "" if lead is None else f" ({lead} led)"
            legal = " ".join(map(str, self.legal_cards()))
            lines.append(f"{self.turn.title} to play{led}: {legal}")
        elif self.swap_due:
            lines.append(f"a swap is due: {self.swap_due} cards from each hand")
        return lines

    def __str__(self) -> str:
        return "\n".join(self.describe())

    def __repr__(self) -> str:
        turn = "" if self.turn is None else f", {self.turn} to play"
        return (
            f"<Position round {self.round}, trick {self.trick}, {self.notes} notes, "
            f"{self.phase}{turn}>"
        )

    def _repr_svg_(self) -> str:
        from .views.picture import svg_position

        first, *rest = self.describe()
        return svg_position(self.sheet, self.notes, self._state.hands, first, rest[2:])

    def _repr_html_(self) -> str:
        lines = "".join(f"<div>{html.escape(line)}</div>" for line in self.describe())
        return f'<div class="phantom-log-position">{self._repr_svg_()}{lines}</div>'


def _role(role: Role | str) -> Role:
    if isinstance(role, Role):
        return role
    return Role.CHRISTINE if role == "christine" else Role.PHANTOM


def _cards(cards: Iterable[Card | str]) -> tuple[int, ...]:
    return tuple(Card.parse(card) if isinstance(card, str) else Card(card) for card in cards)


def position(
    record: GameRecord | Mapping[str, Any],
    round: int,
    trick: int,
    sheets: Mapping[str, Sheet] | None = None,
) -> Position:
    """The position of a record just before the first card of ``trick`` of ``round`` is
    played (after any swap due before it): the leader to play.

    ``record`` is a model from :func:`~phantom_log.load` or a parsed record that passed
    the schema. Raises :class:`PositionNotReached` when the record, or its replay (which
    stops at the first illegal step), does not get there.
    """
    from .records.model import GameRecord

    data: Mapping[str, Any]
    if isinstance(record, GameRecord):
        data = record.to_json()
    elif isinstance(record, Mapping):
        data = record
        _refuse_what_is_no_record(data, round, trick)
    else:
        raise TypeError(
            f"a record is a GameRecord or a parsed JSON object, not {type(record).__name__}"
        )
    log = replay_record(data, GameLogBuilder(decisions=True), sheets)
    # The state before the decision that plays the trick's first card, or the state where
    # the replay stopped when it stopped there.
    states = [state for state, _action in log.decisions or ()]
    for state in [*states, log.final]:
        if state is not None and _leads_trick(state, (round, trick)):
            return Position(state, log.sheet)
    valid = all(problem.is_warning for problem in log.problems)
    raise PositionNotReached(
        f"the record does not get to round {round}, trick {trick}"
        + ("" if valid else " (its replay stops at an illegal step before)")
    )


def _refuse_what_is_no_record(data: Mapping[str, Any], round: int, trick: int) -> None:
    """:class:`PositionNotReached` for a parsed object that is no JSON data or breaks the
    schema: no replay can start from it. Its first problem says why."""
    from .records.schema import json_data_problem, schema_problems, schema_valid

    not_json = json_data_problem(dict(data))
    problems = [not_json] if not_json is not None else []
    if not problems and not schema_valid(data):
        problems = schema_problems(data)
    if problems:
        first = problems[0]
        where = f" at {first.pointer}" if first.pointer else ""
        raise PositionNotReached(
            f"the record does not get to round {round}, trick {trick}: it is no valid "
            f"record ({first.code}{where}: {first.message})"
        )


def _leads_trick(state: GameState, moment: tuple[int, int]) -> bool:
    """True when ``state`` waits for the first card of the trick at ``moment``."""
    return state.phase is Phase.PLAY and state.lead is None and (state.round, state.trick) == moment
