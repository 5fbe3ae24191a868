"""A game of the game text made a record: the header and the rounds in the record's
fields, who played each card found by the rules (the text never says: it is the turn's
player), and where in the text each part is written, found by JSON pointer when a
problem of the record is reported, so that it points at its line and column.

The record made is the one the text stands for, and is checked as any record is: the
rules are asked here only whose turn each card is. Past the first step the rules refuse
(a card not held, a revoke), no turn can be known; the record's checks stop at that step
too, and the cards after it are given, within each trick, to the trick's leader and then
the other player, each trick led by the leader of the one before, so that the record
keeps every card the text holds."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

from ..rules.cards import (
    CARD_BY_CODE,
    CARD_CODES,
    NUMBERS_PER_SUIT,
    ROLE_KEYS,
    SUIT_CODES,
    hand_cards,
)
from ..rules.engine import (
    GameState,
    Rules,
    SwapCards,
    round_leader,
)
from ..rules.problems import Code, Illegal, pointer
from ..rules.sheets import BUILTIN_SHEETS, Sheet, sheet_from_json
from .game_text import (
    NotationProblem,
    PlacedCards,
    TextGame,
    TextPlace,
    TextRound,
    TextSwap,
    TextTrick,
)

RECORD_FORMAT: Final = "phantom-log/1"
_ROLES: Final = ROLE_KEYS
_PHANTOM: Final = ROLE_KEYS[0]
_CHRISTINE: Final = ROLE_KEYS[1]
_T = TypeVar("_T")
#: The header's keys the record requires, and what the text calls each.
REQUIRED_HEADER: Final = ("game_id", "phantom", "christine", "sheet")
_BAR: Final = re.compile(r"(?i)(" + "|".join(SUIT_CODES) + r"):([PC]+)")
_RULE_WORDS: Final = ("beginner", "balance")
_SUIT_BY_FOLDED: Final = {code.casefold(): code for code in SUIT_CODES}
_RESULT: Final = re.compile(r"(?i)(phantom|christine|unfinished)[ \t]+(\d{1,9})")


class TextRecord:
    """The record a game of the text stands for (``data``, as its JSON would be), the
    game it was read from (``game``: where each of its parts is written, which
    :meth:`place_of` finds by JSON pointer), and what of the text is no part of the
    notation (``problems``: then ``data`` is what could be read, and is not checked
    further)."""

    __slots__ = ("data", "game", "illegal", "inferred", "problems", "refusals")

    def __init__(
        self, data: dict[str, Any], game: TextGame, problems: list[NotationProblem]
    ) -> None:
        self.data = data
        self.game = game
        self.problems = problems
        #: The problems the rules found while finding a deal (``bad-deal``), placed in the
        #: record; the record's own checks find the others.
        self.illegal: list[Illegal] = []
        #: The rounds (from 0) whose deal the text left out, and the rules found.
        self.inferred: list[int] = []
        #: The first step the rules refused while following the game with its hands
        #: unseen (a card played twice, a card given away, a revoke of a card known held),
        #: placed in the record: in a round without its deal, the first thing wrong that
        #: can be known before the round's end.
        self.refusals: list[Illegal] = []

    def place_of(self, at: str) -> TextPlace:
        """Where the part at JSON pointer ``at`` is written: that part's place (a card of
        a list of cards: that card's), or the nearest enclosing part's, or the game's
        first line."""
        game = self.game
        parts = at.split("/")[1:] if at else []
        while parts:
            found = _written_at(game, parts)
            if found is not None:
                return game.place(found)
            parts.pop()
        return game.place(game.at)


def text_record(
    game: TextGame, sheets: Mapping[str, Sheet] | None = None, *, in_play: bool = False
) -> TextRecord:
    """The record ``game`` stands for (``sheets``: the custom sheets known by name, as
    ``--sheets`` gives them, with the built-in ones). ``in_play``: the game is still being
    written (the recorder): the deal of its last round, when left out and the round not
    over, is not looked for yet."""
    record = TextRecord({"format": RECORD_FORMAT}, game, list(game.problems))
    _header(game, record)
    result = _result(game, record) if "result" in game.header else None
    turns = not record.problems
    record.data["rounds"] = [_round(round_, turns) for round_ in game.rounds]
    if result is not None:
        record.data["result"] = result
    if turns:
        _give_turns(record, game, sheets, in_play)
    return record


def _written_at(game: TextGame, parts: list[str]) -> int | None:
    """Where the part at the pointer ``parts`` is written (an offset of the text), or
    ``None`` when that part is not written as itself (then its enclosing part's place is
    its place)."""
    head = parts[0]
    count = len(parts)
    header = game.header
    if head == "players":
        if count == 1:
            return next((written for key, (_, written) in header.items() if key in ROLE_KEYS), None)
        role = parts[1]
        return header[role][1] if count == 2 and role in ROLE_KEYS and role in header else None
    if head == "result":
        if "result" not in header or count > 2 or (count == 2 and parts[1] != "notes"):
            return None
        value, written = header["result"]
        found = _RESULT.fullmatch(value.strip())
        if found is None:
            return None
        return written + found.start(2) if count == 2 else written
    if head != "rounds":
        if count == 1 and head in header and head not in ROLE_KEYS:
            return header[head][1]
        return None
    rounds = game.rounds
    if count == 1:
        return rounds[0].at if rounds else game.at
    round_ = _item(rounds, parts[1])
    if round_ is None:
        return None
    if count == 2:
        return round_.at
    part = parts[2]
    if part == "deal":
        if count == 3:
            if round_.deal:
                return min(cards.at for cards in round_.deal.values())
            return round_.aside.at if round_.aside is not None else round_.at
        cards = round_.aside if parts[3] == "aside" else round_.deal.get(parts[3])
        return None if cards is None else _card_list_at(cards, parts[4:])
    if part == "exchange":
        exchange = round_.exchange
        if exchange is None or count > 4:
            return None
        if count == 3:
            return round_.exchange_at
        given = exchange.get(parts[3])
        return None if given is None else given[1]
    if part == "special_number":
        return round_.special_at if round_.special_number is not None and count == 3 else None
    if part != "tricks":
        return None
    if count == 3:
        return round_.tricks[0].at if round_.tricks else round_.at
    trick = _item(round_.tricks, parts[3])
    if trick is None:
        return None
    if count == 4:
        return trick.at
    part = parts[4]
    if part == "winner":
        return trick.claim_at if trick.claim is not None and count == 5 else None
    if part == "comment":
        return trick.comment_at if trick.comment is not None and count == 5 else None
    if part != "plays":
        return None
    if count == 5:
        return trick.at0
    order = _item(range(trick.count), parts[5])
    if order is None:
        return None
    if count == 6 or (count == 7 and parts[6] == "card"):
        return trick.at0 if order == 0 else trick.at1
    swap = trick.swap0 if order == 0 else trick.swap1
    if swap is None or parts[6] != "swap":
        return None
    if count == 7:
        return swap.at
    cards = swap.phantom if parts[7] == "phantom" else swap.christine
    if parts[7] not in ROLE_KEYS or not cards.cards:
        return None
    return _card_list_at(cards, parts[8:])


def _card_list_at(cards: PlacedCards, rest: list[str]) -> int | None:
    if not rest:
        return cards.at
    card = _item(cards.card_at, rest[0]) if len(rest) == 1 else None
    return card


def _item(items: Sequence[_T], index: str) -> _T | None:
    """The item at the pointer's ``index`` (a number from 0), or ``None``."""
    if not (index.isascii() and index.isdigit()) or len(index) > 9:
        return None
    number = int(index)
    return items[number] if number < len(items) else None


def _header(game: TextGame, record: TextRecord) -> None:
    data = record.data
    header = game.header
    for key in REQUIRED_HEADER:
        if key not in header:
            record.problems.append(
                NotationProblem(
                    f"the header has no {key}",
                    game.place(game.at),
                    f"write '{key}: ...' in the game's header, before its first round",
                )
            )
    for key, (value, at) in header.items():
        if key == "format":
            data["format"] = value
        elif key in ROLE_KEYS:
            data.setdefault("players", {})[key] = value
        elif key == "sheet":
            data["sheet"] = _sheet(value, at, record)
        elif key == "rules":
            data["rules"] = _rules(value, at, record)
        elif key != "result":
            data[key] = value
    players = data.get("players")
    if players is not None and len(players) == 2 and next(iter(players)) != _PHANTOM:
        data["players"] = {role: players[role] for role in ROLE_KEYS}


def _sheet(value: str, at: int, record: TextRecord) -> str | dict[str, Any]:
    """A built-in sheet's name, or a custom sheet: ``NAME Mi:CPC Ch:PCP Ri:PPC Ma:PCP``."""
    if ":" not in value and not value.startswith('"'):
        return value
    name_written = ""
    if value.startswith('"'):
        try:
            quoted, end = json.JSONDecoder().raw_decode(value)
        except json.JSONDecodeError:
            quoted, end = None, 0
        if isinstance(quoted, str):
            name_written, value = quoted, value[end:]
    words = value.split()
    bars: list[re.Match[str]] = []
    while words:
        found = _BAR.fullmatch(words[len(words) - 1])
        if found is None:
            break
        bars.append(found)
        words.pop()
    if not bars:
        return name_written or value
    name = name_written or " ".join(words)
    place = record.game.place(at)
    if name_written and words:
        record.problems.append(
            NotationProblem(
                f"{' '.join(words)!r} after the sheet's quoted name is no bar",
                place,
                "write the bars as a suit and its note owners: Mi:CPC",
            )
        )
    if not name:
        record.problems.append(
            NotationProblem(
                "the custom sheet has no name",
                place,
                "write its name before its bars: 'sheet: Duet Mi:CPC Ch:PCP Ri:PPC Ma:PCP'",
            )
        )
    layout = [
        {"suit": _SUIT_BY_FOLDED[found[1].casefold()], "notes": found[2].upper()}
        for found in reversed(bars)
    ]
    return {"name": name, "bars": layout}


def _rules(value: str, at: int, record: TextRecord) -> dict[str, bool]:
    """The optional rules a ``rules:`` line names (``beginner``, ``balance``, both, or
    ``none``), by spaces or commas."""
    words = [word.casefold() for word in value.replace(",", " ").split()]
    rules = {rule: False for rule in _RULE_WORDS}
    for word in words:
        if word in rules:
            rules[word] = True
        elif word != "none":
            record.problems.append(
                NotationProblem(
                    f"{word!r} is no optional rule",
                    record.game.place(at),
                    "the rules are beginner and balance ('rules: beginner balance'), "
                    "or 'rules: none'",
                )
            )
    return rules


def _result(game: TextGame, record: TextRecord) -> dict[str, Any] | None:
    """The result the header says, or ``None`` with the problem of one that is none."""
    value, at = game.header["result"]
    found = _RESULT.fullmatch(value.strip())
    if found is None:
        record.problems.append(
            NotationProblem(
                f"{value!r} is no result",
                game.place(at),
                "write the winner and the notes completed, 'result: phantom 12', or "
                "'result: unfinished 4' for a game that did not end",
            )
        )
        return None
    who = found[1].casefold()
    return {"winner": None if who == "unfinished" else who, "notes": int(found[2])}


def _round(round_: TextRound, turns: bool) -> dict[str, Any]:
    """The round as the record holds it; its tricks too unless ``turns``, its cards then
    played by nobody (with ``turns``, :func:`_give_turns` writes the tricks, with who
    played each card)."""
    data: dict[str, Any] = {}
    deal = round_.deal
    aside = round_.aside
    if deal or aside is not None:
        written: dict[str, Any] = {}
        for role in ROLE_KEYS:
            if role in deal:
                written[role] = list(deal[role].cards)
        if aside is not None:
            written["aside"] = list(aside.cards)
        data["deal"] = written
    exchange = round_.exchange
    if exchange is not None:
        data["exchange"] = {_PHANTOM: exchange[_PHANTOM][0], _CHRISTINE: exchange[_CHRISTINE][0]}
    if round_.special_number is not None:
        data["special_number"] = round_.special_number
    data["tricks"] = [] if turns else [_trick(trick, "", "") for trick in round_.tricks]
    return data


def _trick(trick: TextTrick, first: str, second: str) -> dict[str, Any]:
    """The trick as the record holds it, its cards played by ``first`` and ``second``."""
    plays = [_play(first, trick.card0, trick.swap0)]
    if trick.count == 2:
        plays.append(_play(second, trick.card1, trick.swap1))
    written: dict[str, Any] = {"plays": plays}
    if trick.claim is not None:
        written["winner"] = trick.claim
    if trick.comment is not None:
        written["comment"] = trick.comment
    return written


def _play(player: str, card: str, swap: TextSwap | None) -> dict[str, Any]:
    if swap is None:
        return {"player": player, "card": card}
    given: dict[str, Any] = {}
    if swap.phantom.cards:
        given[_PHANTOM] = list(swap.phantom.cards)
    if swap.christine.cards:
        given[_CHRISTINE] = list(swap.christine.cards)
    return {"player": player, "card": card, "swap": given}


def _give_turns(
    record: TextRecord, game: TextGame, sheets: Mapping[str, Sheet] | None, in_play: bool
) -> None:
    """Write who played each card, and the deal of each round written without one.

    The rules follow the text as a game dealt unseen (turns do not depend on what the
    hands hold): each card goes to the turn's player, and at the end of a round without
    its deal, the deal is found from what was played, given and still held (``left``).
    Past a step the rules refuse even unseen, as the module says."""
    state = _started(record.data, sheets)
    rounds = record.data["rounds"]
    last = len(game.rounds) - 1
    for index, written in enumerate(game.rounds):
        round_ = rounds[index]
        tricks = round_["tricks"]
        state = _opened(state, round_, record, index)
        leader = round_leader(index)
        for trick_index, trick in enumerate(written.tricks):
            if state is not None:
                state = _swapped(state, None, record, index, trick_index - 1, 0)
            if state is not None and state.lead_card >= 0:
                # The trick before has one card and another follows it: the rules say so
                # (incomplete-trick), and cannot follow the game past it.
                _refused(record, state.out_of_phase(), index, trick_index - 1, -1, "", state)
                state = None
            if state is not None and state.player_due() >= 0:
                leader = state.player_due()
            first = leader
            second = 1 - leader
            for order in range(trick.count):
                if state is not None:
                    state = _swapped(state, None, record, index, trick_index, order)
                player = state.player_due() if state is not None else -1
                if player < 0:
                    state = None
                    player = leader if order == 0 else 1 - leader
                if order == 0:
                    first = player
                else:
                    second = player
                if state is not None:
                    state = _played(state, player, trick, order, record, index, trick_index)
            tricks.append(_trick(trick, _ROLES[first], _ROLES[second]))
        deal = round_.get("deal")
        if deal is not None and _PHANTOM in deal and _CHRISTINE in deal:
            continue
        still_played = (
            in_play
            and index == last
            and not written.left
            and state is not None
            and not state.is_over
            and state.round_index == index
        )
        if not still_played:
            _infer_deal(record, state, round_, written, index)


def _infer_deal(
    record: TextRecord,
    state: GameState | None,
    round_: dict[str, Any],
    written: TextRound,
    index: int,
) -> None:
    """Write the deal of ``round_`` as the rules find it from ``state`` at the round's
    end and the cards its ``left`` lines say were still held; the problem, placed at the
    round's line, when no deal can have been dealt so."""
    at = pointer("rounds", index, "deal")
    if state is None:
        # The rules could not follow the round (its sheet is not one, or a step they
        # refused left them nowhere): the deal is not found, the record's checks say why.
        record.illegal.append(
            Illegal(Code.BAD_DEAL, {"inferred": True, "unfound": True, "round": index + 1}).located(
                at, index + 1, None
            )
        )
        return
    left = [_mask(written.left[role].cards) if role in written.left else 0 for role in ROLE_KEYS]
    found = state.inferred_deal(left[0], left[1])
    if isinstance(found, Illegal):
        record.illegal.append(found.with_facts(round=index + 1).located(at, index + 1, None))
        return
    deal = round_.setdefault("deal", {})
    for role, hand in zip(ROLE_KEYS, found, strict=True):
        deal[role] = [CARD_CODES[card] for card in hand_cards(hand)]
    record.data["rounds"][index] = {
        "deal": deal,
        **{k: v for k, v in round_.items() if k != "deal"},
    }
    record.inferred.append(index)


def _started(data: dict[str, Any], sheets: Mapping[str, Sheet] | None) -> GameState | None:
    """The game about to be dealt, or ``None`` when its sheet or rules cannot be known
    (the record's own checks say why)."""
    sheet_value = data.get("sheet")
    sheet: Sheet | None
    if isinstance(sheet_value, str):
        sheet = sheets.get(sheet_value) if sheets else None
        if sheet is None:
            sheet = BUILTIN_SHEETS.get(sheet_value)
    elif isinstance(sheet_value, dict) and sheet_value.get("name"):
        made = sheet_from_json(sheet_value)
        sheet = made if isinstance(made, Sheet) else None
    else:
        sheet = None
    if sheet is None:
        return None
    rules = data.get("rules", {})
    return GameState.start(
        sheet, Rules(bool(rules.get("beginner")), bool(rules.get("balance"))), tracking=False
    )


def _refused(
    record: TextRecord,
    problem: Illegal,
    round_index: int,
    trick_index: int,
    order: int,
    part: str,
    state: GameState,
) -> None:
    """Keep the first step the rules refused, placed at its part: the trick's, or (with
    ``order``, a play's from 0) the play's ``part`` (``card`` or ``swap``)."""
    if record.refusals:
        return
    if order < 0:
        at = pointer("rounds", round_index, "tricks", trick_index)
        record.refusals.append(problem.located(at, round_index + 1, state.tricks_played + 1))
    else:
        at = pointer("rounds", round_index, "tricks", trick_index, "plays", order, part)
        record.refusals.append(problem.located(at, round_index + 1, state.tricks_played + 1))


def _opened(
    state: GameState | None, round_: dict[str, Any], record: TextRecord, index: int
) -> GameState | None:
    """``state`` once ``round_`` is dealt unseen, its cards exchanged and its number
    picked; ``None`` when the rules cannot follow it. An exchange or a number the rules
    refuse (the record's checks say so) is passed over as the module says: the exchange
    left out, the number picked as if the exchange had shown it."""
    if state is None:
        return None
    refused = state.step_deal_unseen()
    if refused is not None:  # the round before stops short
        if not record.refusals:
            record.refusals.append(refused.located(pointer("rounds", index), index + 1, None))
        return None
    exchange = round_.get("exchange")
    number = round_.get("special_number")
    exchanging = exchange is not None and not state.beginner
    # The state before the exchange, should the number not be picked after it.
    dealt = state.copy() if number is not None and exchanging else state
    if exchange is not None and exchanging:
        state.step_exchange(CARD_BY_CODE[exchange[_PHANTOM]], CARD_BY_CODE[exchange[_CHRISTINE]])
    if number is None or state.step_special_number(number) is None:
        return state
    if state.beginner or not 1 <= number <= NUMBERS_PER_SUIT:
        return None
    # Any two cards showing the number, given in an exchange of a round nobody saw.
    taken = dealt.step_exchange(number - 1, NUMBERS_PER_SUIT + number - 1) is None
    return dealt if taken and dealt.step_special_number(number) is None else None


def _played(
    state: GameState,
    player: int,
    trick: TextTrick,
    order: int,
    record: TextRecord,
    round_index: int,
    trick_index: int,
) -> GameState | None:
    """``state`` after the trick's card ``order`` (0 or 1) by ``player`` and the swap
    written after it. A card the rules refuse is taken with nothing known of the hands
    (the module), the first such refusal kept."""
    card = trick.compact0 if order == 0 else trick.compact1
    problem = state.step_play(player, card)
    if problem is not None:
        _refused(record, problem, round_index, trick_index, order, "card", state)
        # Nothing past a refused card is checked: the game goes on with nothing known of
        # the hands, to find the turns of the cards after it.
        state.forget_hands()
        if state.step_play(player, card) is not None:
            return None
    swap = trick.swap0 if order == 0 else trick.swap1
    if swap is not None and state.swap_due():
        given = SwapCards(
            tuple([CARD_BY_CODE[code] for code in swap.phantom.cards]),
            tuple([CARD_BY_CODE[code] for code in swap.christine.cards]),
        )
        return _swapped(state, given, record, round_index, trick_index, order)
    return state


def _swapped(
    state: GameState,
    swap: SwapCards | None,
    record: TextRecord,
    round_index: int,
    trick_index: int,
    order: int,
) -> GameState | None:
    """``state`` after the swap due in it (``swap``, when written and the rules take it);
    a swap the rules refuse, or one not written, is made of any cards, with nothing known
    of the hands, so that the turns go on (the record's checks say what was wrong)."""
    if not state.swap_due():
        return state
    if swap is not None:
        problem = state.step_swap(swap.phantom, swap.christine)
        if problem is None:
            return state
        _refused(record, problem, round_index, trick_index, order, "swap", state)
        state.forget_hands()
        if state.step_swap(swap.phantom, swap.christine) is None:
            return state
    state.forget_hands()
    size = state.swap_due()
    problem = state.step_swap(tuple(range(size)), tuple(range(size, 2 * size)))
    return state if problem is None else None


def _mask(cards: tuple[str, ...]) -> int:
    mask = 0
    for code in cards:
        mask |= 1 << CARD_BY_CODE[code]
    return mask
