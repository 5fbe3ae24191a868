"""A game of the game text made a record: the header and the rounds in the record's
fields as the text writes them, completed by the replay (who played each card, since the
text never says: the turn's player; each deal the text left out, found from the play:
:func:`~phantom_log.rules.replay.complete_record`), and where in the text each part is
written, found by JSON pointer when a problem of the record is reported, so that it
points at its line and column."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..rules.cards import ROLE_KEYS, SUIT_CODES
from ..rules.engine import GameState
from ..rules.problems import Illegal
from ..rules.replay import complete_record
from ..rules.sheets import Sheet
from .game_text import NotationProblem, PlacedCards, TextGame, TextPlace, TextRound, TextSwap

RECORD_FORMAT: Final = "phantom-log/1"
_PHANTOM: Final = ROLE_KEYS[0]
_CHRISTINE: Final = ROLE_KEYS[1]
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
    notation (``problems``: then ``data`` is what could be read, its cards played by
    nobody, and is not checked further). ``refusals`` holds the first step the rules
    refused while completing the record, ``illegal`` the deals left out that cannot be
    found, ``inferred`` the rounds (from 0) whose deal was found, ``final`` the state
    where the game stands (:class:`~phantom_log.rules.replay.Completion`)."""

    __slots__ = ("_places", "data", "final", "game", "illegal", "inferred", "problems", "refusals")

    def __init__(
        self, data: dict[str, Any], game: TextGame, problems: list[NotationProblem]
    ) -> None:
        self.data = data
        self.game = game
        self.problems = problems
        self.illegal: list[Illegal] = []
        self.inferred: list[int] = []
        self.refusals: list[Illegal] = []
        self.final: GameState | None = None
        self._places: dict[str, int] | None = None

    def place_of(self, at: str) -> TextPlace:
        """Where the part at JSON pointer ``at`` is written: that part's place (a card of
        a list of cards: that card's), or the nearest enclosing part's, or the game's
        first line."""
        if self._places is None:
            self._places = _places(self.game)
        places = self._places
        while at:
            found = places.get(at)
            if found is not None:
                return self.game.place(found)
            at = at.rpartition("/")[0]
        return self.game.place(self.game.at)


def text_record(
    game: TextGame, sheets: Mapping[str, Sheet] | None = None, *, in_play: bool = False
) -> TextRecord:
    """The record ``game`` stands for (``sheets``: the custom sheets known by name, as
    ``--sheets`` gives them, with the built-in ones), completed when its notation is read
    without a problem. ``in_play``: the game is still being written (the recorder)."""
    data, problems = header_fields(game.header, game.place, game.at)
    problems[:0] = game.problems
    data["rounds"] = [written_round(round_) for round_ in game.rounds]
    if "result" in data:  # after the rounds, as a record lists it
        data["result"] = data.pop("result")
    record = TextRecord(data, game, problems)
    if not problems:
        for round_, written in zip(data["rounds"], game.rounds, strict=True):
            if written.left:
                round_["left"] = {role: list(cards.cards) for role, cards in written.left.items()}
        completion = complete_record(data, sheets, in_play=in_play)
        if completion.refused is not None:
            record.refusals.append(completion.refused)
        record.illegal = completion.deal_problems
        record.inferred = completion.found
        record.final = completion.final
    return record


def header_fields(
    header: Mapping[str, tuple[str, int]], place: Callable[[int], TextPlace], at: int
) -> tuple[dict[str, Any], list[NotationProblem]]:
    """The record's fields that a game's header gives (``header``: each key's value as
    written and where it is written; ``place``: such a place as a line and column; ``at``:
    where the game begins), and what of it is no part of the notation."""
    data: dict[str, Any] = {"format": RECORD_FORMAT}
    problems = [
        NotationProblem(
            f"the header has no {key}",
            place(at),
            f"write '{key}: ...' in the game's header, before its first round",
        )
        for key in REQUIRED_HEADER
        if key not in header
    ]
    for key, (value, written) in header.items():
        if key == "format":
            data["format"] = value
        elif key in ROLE_KEYS:
            data.setdefault("players", {})[key] = value
        elif key == "sheet":
            data["sheet"] = _sheet(value, written, place, problems)
        elif key == "rules":
            data["rules"] = _rules(value, written, place, problems)
        elif key != "result":
            data[key] = value
    players = data.get("players")
    if players is not None and len(players) == 2 and next(iter(players)) != _PHANTOM:
        data["players"] = {role: players[role] for role in ROLE_KEYS}
    if "result" in header:
        value, written = header["result"]
        result = _result(value, written, place, problems)
        if result is not None:
            data["result"] = result
    return data, problems


def _sheet(
    value: str, written: int, place: Callable[[int], TextPlace], problems: list[NotationProblem]
) -> str | dict[str, Any]:
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
    if name_written and words:
        problems.append(
            NotationProblem(
                f"{' '.join(words)!r} after the sheet's quoted name is no bar",
                place(written),
                "write the bars as a suit and its note owners: Mi:CPC",
            )
        )
    if not name:
        problems.append(
            NotationProblem(
                "the custom sheet has no name",
                place(written),
                "write its name before its bars: 'sheet: Duet Mi:CPC Ch:PCP Ri:PPC Ma:PCP'",
            )
        )
    layout = [
        {"suit": _SUIT_BY_FOLDED[found[1].casefold()], "notes": found[2].upper()}
        for found in reversed(bars)
    ]
    return {"name": name, "bars": layout}


def _rules(
    value: str, written: int, place: Callable[[int], TextPlace], problems: list[NotationProblem]
) -> dict[str, bool]:
    """The optional rules a ``rules:`` line names (``beginner``, ``balance``, both, or
    ``none``), by spaces or commas."""
    words = [word.casefold() for word in value.replace(",", " ").split()]
    rules = {rule: False for rule in _RULE_WORDS}
    for word in words:
        if word in rules:
            rules[word] = True
        elif word != "none":
            problems.append(
                NotationProblem(
                    f"{word!r} is no optional rule",
                    place(written),
                    "the rules are beginner and balance ('rules: beginner balance'), "
                    "or 'rules: none'",
                )
            )
    return rules


def _result(
    value: str, written: int, place: Callable[[int], TextPlace], problems: list[NotationProblem]
) -> dict[str, Any] | None:
    """The result the header says, or ``None`` with the problem of one that is none."""
    found = _RESULT.fullmatch(value.strip())
    if found is None:
        problems.append(
            NotationProblem(
                f"{value!r} is no result",
                place(written),
                "write the winner and the notes completed, 'result: phantom 12', or "
                "'result: unfinished 4' for a game that did not end",
            )
        )
        return None
    who = found[1].casefold()
    return {"winner": None if who == "unfinished" else who, "notes": int(found[2])}


def written_round(round_: TextRound) -> dict[str, Any]:
    """The round as the record holds it, as written: its deal when the text gives it, and
    its cards played by nobody yet (``"player"`` empty: the turn's player)."""
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
    tricks = []
    for trick in round_.tricks:
        plays = [_play(trick.card0, trick.swap0)]
        if trick.count == 2:
            plays.append(_play(trick.card1, trick.swap1))
        written_trick: dict[str, Any] = {"plays": plays}
        if trick.claim is not None:
            written_trick["winner"] = trick.claim
        if trick.comment is not None:
            written_trick["comment"] = trick.comment
        tricks.append(written_trick)
    data["tricks"] = tricks
    return data


def _play(card: str, swap: TextSwap | None) -> dict[str, Any]:
    if swap is None:
        return {"player": "", "card": card}
    given: dict[str, Any] = {}
    if swap.phantom.cards:
        given[_PHANTOM] = list(swap.phantom.cards)
    if swap.christine.cards:
        given[_CHRISTINE] = list(swap.christine.cards)
    return {"player": "", "card": card, "swap": given}


def _places(game: TextGame) -> dict[str, int]:
    """Where each part of the game is written, by the JSON pointer of its part of the
    record: the offset of its first character in the text."""
    places: dict[str, int] = {}
    for key, (value, written) in game.header.items():
        if key in ROLE_KEYS:
            places.setdefault("/players", written)
            places[f"/players/{key}"] = written
        elif key == "result":
            found = _RESULT.fullmatch(value.strip())
            if found is not None:
                places["/result"] = written
                places["/result/notes"] = written + found.start(2)
        else:
            places[f"/{key}"] = written
    rounds = game.rounds
    places["/rounds"] = rounds[0].at if rounds else game.at
    for index, round_ in enumerate(rounds):
        at = f"/rounds/{index}"
        places[at] = round_.at
        deal = round_.deal
        if deal:
            places[f"{at}/deal"] = min(cards.at for cards in deal.values())
        else:
            places[f"{at}/deal"] = round_.aside.at if round_.aside is not None else round_.at
        for role, cards in deal.items():
            _card_places(places, f"{at}/deal/{role}", cards)
        if round_.aside is not None:
            _card_places(places, f"{at}/deal/aside", round_.aside)
        if round_.exchange is not None:
            places[f"{at}/exchange"] = round_.exchange_at
            for role, (_, given) in round_.exchange.items():
                places[f"{at}/exchange/{role}"] = given
        if round_.special_number is not None:
            places[f"{at}/special_number"] = round_.special_at
        tricks = round_.tricks
        places[f"{at}/tricks"] = tricks[0].at if tricks else round_.at
        for trick_index, trick in enumerate(tricks):
            here = f"{at}/tricks/{trick_index}"
            places[here] = trick.at
            if trick.claim is not None:
                places[f"{here}/winner"] = trick.claim_at
            if trick.comment is not None:
                places[f"{here}/comment"] = trick.comment_at
            places[f"{here}/plays"] = trick.at0
            for order in range(trick.count):
                play = f"{here}/plays/{order}"
                places[play] = places[f"{play}/card"] = trick.at0 if order == 0 else trick.at1
                swap = trick.swap0 if order == 0 else trick.swap1
                if swap is not None:
                    places[f"{play}/swap"] = swap.at
                    for role, cards in ((_PHANTOM, swap.phantom), (_CHRISTINE, swap.christine)):
                        if cards.cards:
                            _card_places(places, f"{play}/swap/{role}", cards)
    return places


def _card_places(places: dict[str, int], at: str, cards: PlacedCards) -> None:
    places[at] = cards.at
    for index, card_at in enumerate(cards.card_at):
        places[f"{at}/{index}"] = card_at
