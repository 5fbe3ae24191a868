"""A game of the game text made a record: the header and the rounds in the record's
fields, who played each card found by the rules (the text never says: it is the turn's
player), and where in the text each part is written, by JSON pointer, so that a problem
of the record points at its line and column.

The record made is the one the text stands for, and is checked as any record is: the
rules are asked here only whose turn each card is. Past the first step the rules refuse
(a card not held, a revoke), no turn can be known; the record's checks stop at that step
too, and the cards after it are given, within each trick, to the trick's leader and then
the other player, each trick led by the leader of the one before, so that the record
keeps every card the text holds."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..rules.cards import (
    CARD_CODES,
    NUMBERS_PER_SUIT,
    ROLE_BY_KEY,
    ROLE_KEYS,
    SUIT_CODES,
    hand_cards,
    parse_card,
)
from ..rules.engine import (
    DealUnseen,
    ExchangeCards,
    GameState,
    PickSpecialNumber,
    PlayCard,
    Rules,
    SwapCards,
    round_leader,
)
from ..rules.problems import Code, Illegal, pointer
from ..rules.sheets import BUILTIN_SHEETS, Sheet, sheet_from_json
from .game_text import NotationProblem, PlacedCards, TextGame, TextPlace, TextRound

RECORD_FORMAT: Final = "phantom-log/1"
#: The header's keys the record requires, and what the text calls each.
REQUIRED_HEADER: Final = ("game_id", "phantom", "christine", "sheet")
_BAR: Final = re.compile(r"(?i)(" + "|".join(SUIT_CODES) + r"):([PC]+)")
_RULE_WORDS: Final = ("beginner", "balance")
_RESULT: Final = re.compile(r"(?i)(phantom|christine|unfinished)[ \t]+(\d+)")


@dataclass(slots=True)
class TextRecord:
    """The record a game of the text stands for (``data``, as its JSON would be), where
    each of its parts is written (``places``, by JSON pointer), and what of the text is
    no part of the notation (``problems``: then ``data`` is what could be read, and is
    not checked further)."""

    data: dict[str, Any]
    places: dict[str, TextPlace]
    problems: list[NotationProblem] = field(default_factory=list)
    #: The problems the rules found while finding a deal (``bad-deal``), placed in the
    #: record; the record's own checks find the others.
    illegal: list[Illegal] = field(default_factory=list)
    #: The cards of each list of cards (a deal, a side of a swap), by JSON pointer, where
    #: each is written.
    card_lists: dict[str, PlacedCards] = field(default_factory=dict)
    #: The rounds (from 0) whose deal the text left out, and the rules found.
    inferred: list[int] = field(default_factory=list)
    #: The first step the rules refused while following the game with its hands unseen
    #: (a card played twice, a card given away, a revoke of a card known held), placed in
    #: the record: in a round without its deal, the first thing wrong that can be known
    #: before the round's end.
    refusals: list[Illegal] = field(default_factory=list)
    place: TextPlace = field(default_factory=lambda: TextPlace(1, 1))

    def place_of(self, at: str) -> TextPlace:
        """Where the part at JSON pointer ``at`` is written: that part's place (a card of
        a list of cards: that card's), or the nearest enclosing part's, or the game's
        first line."""
        while True:
            found = self.places.get(at)
            if found is not None:
                return found
            if not at:
                return self.place
            parent, _, last = at.rpartition("/")
            cards = self.card_lists.get(parent)
            if cards is not None and last.isdigit() and int(last) < len(cards.places):
                return cards.places[int(last)]
            at = parent


def text_record(
    game: TextGame, sheets: Mapping[str, Sheet] | None = None, *, in_play: bool = False
) -> TextRecord:
    """The record ``game`` stands for (``sheets``: the custom sheets known by name, as
    ``--sheets`` gives them, with the built-in ones). ``in_play``: the game is still being
    written (the recorder): the deal of its last round, when left out and the round not
    over, is not looked for yet."""
    record = TextRecord({"format": RECORD_FORMAT}, {}, list(game.problems), place=game.place)
    _header(game, record)
    rounds: list[dict[str, Any]] = []
    record.data["rounds"] = rounds
    record.places["/rounds"] = game.rounds[0].place if game.rounds else game.place
    for index, round_ in enumerate(game.rounds):
        rounds.append(_round(round_, index, record))
    if "result" in game.header:
        _result(game, record)
    if not record.problems:
        _give_turns(record, game, sheets, in_play)
    return record


def _header(game: TextGame, record: TextRecord) -> None:
    data, places = record.data, record.places
    for key in REQUIRED_HEADER:
        if key not in game.header:
            record.problems.append(
                NotationProblem(
                    f"the header has no {key}",
                    game.place,
                    f"write '{key}: ...' in the game's header, before its first round",
                )
            )
    for key, (value, place) in game.header.items():
        if key == "format":
            data["format"] = value
            places["/format"] = place
        elif key in ("phantom", "christine"):
            players = data.setdefault("players", {})
            players[key] = value
            places.setdefault("/players", place)
            places[pointer("players", key)] = place
        elif key == "sheet":
            data["sheet"] = _sheet(value, place, record)
            places["/sheet"] = place
        elif key == "rules":
            data["rules"] = _rules(value, place, record)
            places["/rules"] = place
        elif key != "result":
            data[key] = value
            places[pointer(key)] = place
    if "players" in data:
        data["players"] = {
            role: data["players"][role] for role in ROLE_KEYS if role in data["players"]
        }


def _sheet(value: str, place: TextPlace, record: TextRecord) -> str | dict[str, Any]:
    """A built-in sheet's name, or a custom sheet: ``NAME Mi:CPC Ch:PCP Ri:PPC Ma:PCP``."""
    name_written = ""
    if value.startswith('"'):
        try:
            quoted, end = json.JSONDecoder().raw_decode(value)
        except json.JSONDecodeError:
            quoted, end = None, 0
        if isinstance(quoted, str):
            name_written, value = quoted, value[end:]
    words = value.split()
    bars: list[str] = []
    while words and _BAR.fullmatch(words[-1]):
        bars.insert(0, words.pop())
    if not bars:
        return name_written or value
    name = name_written or " ".join(words)
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
    layout = []
    for bar in bars:
        found = _BAR.fullmatch(bar)
        assert found is not None
        suit = next(code for code in SUIT_CODES if code.casefold() == found[1].casefold())
        layout.append({"suit": suit, "notes": found[2].upper()})
    return {"name": name, "bars": layout}


def _rules(value: str, place: TextPlace, record: TextRecord) -> dict[str, bool]:
    """The optional rules a ``rules:`` line names (``beginner``, ``balance``, both, or
    ``none``), by spaces or commas."""
    words = [word.casefold() for word in re.split(r"[\s,]+", value) if word]
    rules = {rule: False for rule in _RULE_WORDS}
    for word in words:
        if word in rules:
            rules[word] = True
        elif word != "none":
            record.problems.append(
                NotationProblem(
                    f"{word!r} is no optional rule",
                    place,
                    "the rules are beginner and balance ('rules: beginner balance'), "
                    "or 'rules: none'",
                )
            )
    return rules


def _result(game: TextGame, record: TextRecord) -> None:
    value, place = game.header["result"]
    found = _RESULT.fullmatch(value.strip())
    if found is None:
        record.problems.append(
            NotationProblem(
                f"{value!r} is no result",
                place,
                "write the winner and the notes completed, 'result: phantom 12', or "
                "'result: unfinished 4' for a game that did not end",
            )
        )
        return
    who = found[1].casefold()
    record.data["result"] = {
        "winner": None if who == "unfinished" else who,
        "notes": int(found[2]),
    }
    record.places["/result"] = place
    record.places["/result/notes"] = TextPlace(place.line, place.column + found.start(2))


def _cards(cards: PlacedCards, at: str, record: TextRecord) -> list[str]:
    record.places[at] = cards.place
    record.card_lists[at] = cards
    return list(cards.cards)


def _round(round_: TextRound, index: int, record: TextRecord) -> dict[str, Any]:
    places = record.places
    at = f"/rounds/{index}"
    places[at] = round_.place
    data: dict[str, Any] = {}
    if round_.deal or round_.aside is not None:
        deal: dict[str, Any] = {}
        for role in ROLE_KEYS:
            if role in round_.deal:
                deal[role] = _cards(round_.deal[role], f"{at}/deal/{role}", record)
        if round_.aside is not None:
            deal["aside"] = _cards(round_.aside, f"{at}/deal/aside", record)
        first = min((cards.place for cards in round_.deal.values()), default=None)
        places[f"{at}/deal"] = first or (round_.aside.place if round_.aside else round_.place)
        data["deal"] = deal
    if round_.exchange is not None:
        data["exchange"] = {role: round_.exchange[role][0] for role in ROLE_KEYS}
        places[f"{at}/exchange"] = round_.exchange_place or round_.place
        for role in ROLE_KEYS:
            places[f"{at}/exchange/{role}"] = round_.exchange[role][1]
    if round_.special_number is not None:
        data["special_number"] = round_.special_number
        places[f"{at}/special_number"] = round_.special_place or round_.place
    tricks: list[dict[str, Any]] = []
    places[f"{at}/tricks"] = round_.tricks[0].place if round_.tricks else round_.place
    for number, trick in enumerate(round_.tricks):
        trick_at = f"{at}/tricks/{number}"
        places[trick_at] = trick.place
        places[f"{trick_at}/plays"] = trick.plays[0].place
        plays: list[dict[str, Any]] = []
        for play_index, play in enumerate(trick.plays):
            play_at = f"{trick_at}/plays/{play_index}"
            places[play_at] = play.place
            places[f"{play_at}/card"] = play.place
            written: dict[str, Any] = {"player": "", "card": play.card}
            if play.swap is not None:
                swap: dict[str, Any] = {}
                places[f"{play_at}/swap"] = play.swap.place
                for role, cards in zip(
                    ROLE_KEYS, (play.swap.phantom, play.swap.christine), strict=True
                ):
                    if cards.cards:
                        swap[role] = _cards(cards, f"{play_at}/swap/{role}", record)
                written["swap"] = swap
            plays.append(written)
        written_trick: dict[str, Any] = {"plays": plays}
        if trick.claim is not None:
            written_trick["winner"] = trick.claim
            places[f"{trick_at}/winner"] = trick.claim_place or trick.place
        if trick.comment is not None:
            written_trick["comment"] = trick.comment
            places[f"{trick_at}/comment"] = trick.comment_place or trick.place
        tricks.append(written_trick)
    data["tricks"] = tricks
    return data


def _give_turns(
    record: TextRecord, game: TextGame, sheets: Mapping[str, Sheet] | None, in_play: bool
) -> None:
    """Write who played each card, and the deal of each round written without one.

    The rules follow the text as a game dealt unseen (turns do not depend on what the
    hands hold): each card goes to the turn's player, and at the end of a round without
    its deal, the deal is found from what was played, given and still held (``left``).
    Past a step the rules refuse even unseen, as the module says."""
    data = record.data
    state = _started(data, sheets)
    for index, (round_, written) in enumerate(zip(data["rounds"], game.rounds, strict=True)):
        state = _opened(state, round_, record, index)
        leader = ROLE_KEYS[round_leader(index)]
        for trick_index, trick in enumerate(round_["tricks"]):
            state = _swapped(state, None)
            if state is not None and state.lead is not None:
                # The trick before has one card and another follows it: the rules say so
                # (incomplete-trick), and cannot follow the game past it.
                _refused(record, state.out_of_phase(), index, trick_index - 1, state)
                state = None
            if state is not None and state.turn is not None:
                leader = ROLE_KEYS[state.turn]
            for order, play in enumerate(trick["plays"]):
                at = f"/rounds/{index}/tricks/{trick_index}/plays/{order}"
                state = _swapped(state, None, record, at, index)
                if state is not None and state.turn is not None:
                    play["player"] = ROLE_KEYS[state.turn]
                else:
                    state = None
                    play["player"] = leader if order == 0 else _other(leader)
                state = _played(state, play, record, at, index)
        dealt = "deal" in round_ and all(role in round_["deal"] for role in ROLE_KEYS)
        still_played = (
            in_play
            and index == len(game.rounds) - 1
            and not written.left
            and state is not None
            and not state.is_over
            and state.round_index == index
        )
        if not dealt and not still_played:
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
    place = written.place
    if state is None:
        # The rules could not follow the round (its sheet is not one, or a step they
        # refused left them nowhere): the deal is not found, the record's checks say why.
        record.illegal.append(
            Illegal(Code.BAD_DEAL, {"inferred": True, "unfound": True, "round": index + 1}).located(
                at, index + 1, None
            )
        )
        record.places.setdefault(at, place)
        return
    left = [
        _mask(list(written.left[role].cards)) if role in written.left else 0 for role in ROLE_KEYS
    ]
    found = state.inferred_deal(*left)
    if isinstance(found, Illegal):
        record.illegal.append(found.with_facts(round=index + 1).located(at, index + 1, None))
        record.places.setdefault(at, place)
        return
    deal = round_.setdefault("deal", {})
    for role, hand in zip(ROLE_KEYS, found, strict=True):
        deal[role] = [CARD_CODES[card] for card in hand_cards(hand)]
    record.data["rounds"][index] = {
        "deal": deal,
        **{k: v for k, v in round_.items() if k != "deal"},
    }
    record.places.setdefault(at, place)
    record.inferred.append(index)


def _other(role: str) -> str:
    return ROLE_KEYS[1 - ROLE_KEYS.index(role)]


def _started(data: dict[str, Any], sheets: Mapping[str, Sheet] | None) -> GameState | None:
    """The game about to be dealt, or ``None`` when its sheet or rules cannot be known
    (the record's own checks say why)."""
    sheet_value = data.get("sheet")
    sheet: Sheet | None
    if isinstance(sheet_value, str):
        sheet = {**BUILTIN_SHEETS, **(sheets or {})}.get(sheet_value)
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
    record: TextRecord, problem: Illegal, round_index: int, trick_index: int, state: GameState
) -> None:
    """Keep the first step the rules refused, placed at its trick."""
    if not record.refusals:
        at = pointer("rounds", round_index, "tricks", trick_index)
        record.refusals.append(problem.located(at, round_index + 1, state.tricks_played + 1))


def _step(
    state: GameState,
    action: Any,
    record: TextRecord | None = None,
    at: str = "",
    round_index: int = 0,
) -> bool:
    """Take ``action`` in ``state``, in place; whether it was taken. A card or swap the
    rules refuse is taken with nothing known of the hands (the module), the first such
    refusal kept in ``record``, placed at ``at``."""
    try:
        problem = state.step(action)
        if problem is not None and isinstance(action, (PlayCard, SwapCards)):
            if record is not None and not record.refusals:
                trick = state.tricks_played + 1
                record.refusals.append(problem.located(at, round_index + 1, trick))
            # Nothing past a refused card is checked: the game goes on with nothing known
            # of the hands, to find the turns of the cards after it.
            state.forget_hands()
            problem = state.step(action)
    except (KeyError, ValueError, TypeError):
        return False
    return problem is None


def _opened(
    state: GameState | None, round_: dict[str, Any], record: TextRecord, index: int
) -> GameState | None:
    """``state`` once ``round_`` is dealt unseen, its cards exchanged and its number
    picked; ``None`` when the rules cannot follow it. An exchange or a number the rules
    refuse (the record's checks say so) is passed over as the module says: the exchange
    left out, the number picked as if the exchange had shown it."""
    if state is None:
        return None
    refused = state.step(DealUnseen())
    if refused is not None:  # the round before stops short
        if not record.refusals:
            record.refusals.append(refused.located(pointer("rounds", index), index + 1, None))
        return None
    exchange = round_.get("exchange")
    number = round_.get("special_number")
    dealt = state.copy() if number is not None else state
    if exchange is not None and not state.beginner:
        _step(state, ExchangeCards(*(_card(exchange[role]) for role in ROLE_KEYS)))
    if number is None or _step(state, PickSpecialNumber(number)):
        return state
    if state.beginner or not 1 <= number <= NUMBERS_PER_SUIT:
        return None
    # Any two cards showing the number, given in an exchange of a round nobody saw.
    taken = _step(dealt, ExchangeCards(number - 1, NUMBERS_PER_SUIT + number - 1))
    return dealt if taken and _step(dealt, PickSpecialNumber(number)) else None


def _played(
    state: GameState | None, play: dict[str, Any], record: TextRecord, at: str, round_index: int
) -> GameState | None:
    if state is None:
        return None
    action = PlayCard(ROLE_BY_KEY[play["player"]], _card(play["card"]))
    if not _step(state, action, record, f"{at}/card", round_index):
        return None
    swap = play.get("swap")
    if swap is not None and state.swap_due():
        given = [tuple(_card(card) for card in swap.get(role, ())) for role in ROLE_KEYS]
        return _swapped(state, SwapCards(*given), record, f"{at}/swap", round_index)
    return state


def _swapped(
    state: GameState | None,
    swap: SwapCards | None,
    record: TextRecord | None = None,
    at: str = "",
    round_index: int = 0,
) -> GameState | None:
    """``state`` after the swap due in it (``swap``, when written and the rules take it);
    a swap the rules refuse, or one not written, is made of any cards, with nothing known
    of the hands, so that the turns go on (the record's checks say what was wrong)."""
    if state is None or not state.swap_due():
        return state
    if swap is not None and _step(state, swap, record, at, round_index):
        return state
    state.forget_hands()
    size = state.swap_due()
    made = SwapCards(tuple(range(size)), tuple(range(size, 2 * size)))
    return state if _step(state, made) else None


def _card(code: str) -> int:
    return parse_card(code)


def _mask(cards: list[str]) -> int:
    mask = 0
    for code in cards:
        mask |= 1 << parse_card(code)
    return mask
