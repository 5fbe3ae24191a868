"""The English of the engine's problems: one sentence (and a hint) per code and its facts.

The engine and the sheet checks report :class:`~phantom_log.rules.problems.Illegal` values, a
code with the facts it is about; :func:`word` turns one into the
:class:`~phantom_log.rules.problems.Problem` that reports print. This is the only place that
words them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..rules.cards import CARD_CODES, Role, Suit, hand_codes
from ..rules.engine import CARDS_PER_HAND, DIE_FACES, ROUNDS_PER_GAME, SWAP_SIZE, TRICKS_PER_ROUND
from ..rules.events import Reason
from ..rules.problems import Code, Illegal, Problem
from ..rules.sheets import BARS_PER_SHEET, NOTES_PER_SHEET

Words = tuple[str, str | None]
_PART_TITLES: Final = {
    "phantom": "the Phantom",
    "christine": "Christine",
    "aside": "the cards aside",
}


_ROLE_OF_PART: Final = {"phantom": Role.PHANTOM, "christine": Role.CHRISTINE}
_SIDE_LETTERS: Final = {Role.PHANTOM: "P", Role.CHRISTINE: "C"}


def _list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _pronoun(role: Role) -> str:
    return "he" if role is Role.PHANTOM else "she"


def _possessive(role: Role) -> str:
    return "his" if role is Role.PHANTOM else "her"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _hand(hand: int) -> str:
    return ", ".join(hand_codes(hand))


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def _unknown_sheet(facts: Mapping[str, Any]) -> Words:
    names = ", ".join(facts["known"])
    return (
        f"sheet {facts['name']!r} is not a known sheet (known: {names})",
        "Name a built-in sheet, give the sheet's bars in the record, "
        "or add a file of named sheets with --sheets FILE.",
    )


def _bad_sheet(facts: Mapping[str, Any]) -> Words:
    name = facts["name"]
    if "bars" in facts:
        return (
            f"sheet {name!r} has {facts['bars']} bars; a sheet has {BARS_PER_SHEET}",
            "Give four bars, one per suit: Mi, Ch, Ri and Ma.",
        )
    if "suit" in facts:
        return (
            f"sheet {name!r}: bar {facts['bar']} repeats the suit {facts['suit']} "
            f"of bar {facts['first']}; each suit has exactly one bar",
            None,
        )
    if "empty" in facts:
        return f"sheet {name!r}: bar {facts['bar']} has no note; each bar holds at least one", None
    return (
        f"sheet {name!r} has {facts['notes']} notes; a sheet has {NOTES_PER_SHEET}",
        f"Count the letters P and C of all four bars together: they must be {NOTES_PER_SHEET}.",
    )


def _bad_deal(facts: Mapping[str, Any]) -> Words:
    round_no = facts.get("round")
    if facts.get("inferred"):
        return _inferred_deal(facts)
    if "first" in facts:
        card = CARD_CODES[facts["card"]]
        first, part = _PART_TITLES[facts["first"]], _PART_TITLES[facts["part"]]
        return (
            f"the deal of round {round_no} holds {card} twice ({first} and {part}); "
            "the deck has one of each card",
            None,
        )
    if "count" in facts:
        return (
            f"the deal of round {round_no} gives {_PART_TITLES[facts['part']]} "
            f"{facts['count']} cards, not {facts['expected']}",
            None,
        )
    if "overlap" in facts:
        return f"the deal gives {_list(hand_codes(facts['overlap']))} to both players", None
    return f"no deal is due now: each player is dealt {CARDS_PER_HAND} cards per round", None


def _inferred_deal(facts: Mapping[str, Any]) -> Words:
    """A deal a game text left out that the cards seen cannot have come from."""
    round_no = facts.get("round")
    if facts.get("unfound"):
        return (
            f"the deal of round {round_no} cannot be found: the rules cannot follow the round "
            "to its end",
            "Write the round's deal ('deal P ...' and 'deal C ...'), or mend what the other "
            "problems name.",
        )
    if "not_held" in facts:
        role = _ROLE_OF_PART[facts["part"]]
        cards = hand_codes(facts["not_held"])
        return (
            f"round {round_no} ends with {_list(cards)} said to be held by {role.in_text}, "
            f"who cannot hold {'them' if len(cards) > 1 else 'it'}",
            "A card played, or given away and not received back, is held no more.",
        )
    if "left" in facts:
        role = _ROLE_OF_PART[facts["part"]]
        held, named = facts["expected"], facts["left"]
        which = f"the 'left' line names {named}" if named else "no 'left' line says which"
        return (
            f"{role.in_text} still holds {held} {_plural(held, 'card')} at the end of round "
            f"{round_no}, and {which}",
            "After the round's last trick, write the cards each player still holds: "
            f"'left {_SIDE_LETTERS[role]} CARDS'.",
        )
    if "overlap" in facts:
        return (
            f"the cards seen in round {round_no} give "
            f"{_list(hand_codes(facts['overlap']))} to both players' deals",
            "A card is dealt to one player: check who played or gave it.",
        )
    if "count" in facts:
        role = _ROLE_OF_PART[facts["part"]]
        return (
            f"the cards seen in round {round_no} make a deal of {facts['count']} cards for "
            f"{role.in_text}, not {facts['expected']}",
            "Each card a player played or gave without having received it was dealt to them: "
            "check the round's cards.",
        )
    return f"the deal of round {round_no} was written: it is not found from the play", None


def _bad_exchange(facts: Mapping[str, Any]) -> Words:
    round_no = facts["round"]
    if facts.get("beginner"):
        return (
            f"round {round_no} records an exchange, but under the beginner rule there is none",
            "Remove the exchange, or set rules.beginner to false.",
        )
    if facts.get("missing"):
        return (
            f"round {round_no} has no exchange; without the beginner rule each player gives "
            "one card at the start of a round",
            'Add "exchange": {"phantom": CARD, "christine": CARD}, or set rules.beginner to true.',
        )
    role: Role = facts["player"]
    return (
        f"{role.in_text} gives {CARD_CODES[facts['card']]} in the exchange of round "
        f"{round_no}, but {_pronoun(role)} was not dealt it",
        f"{_capital(_possessive(role))} hand: {_hand(facts['hand'])}.",
    )


def _bad_special_number(facts: Mapping[str, Any]) -> Words:
    number, round_no = facts["number"], facts["round"]
    exchange: tuple[int, int] | None = facts.get("exchange")
    if exchange is None:
        return (
            f"special number {number} of round {round_no} is not a die roll (1-{DIE_FACES})",
            None,
        )
    shown = " or ".join(str(value) for value in facts["choices"])
    leader: Role = facts["leader"]
    return (
        f"special number {number} of round {round_no} is not allowed: the exchanged cards "
        f"{CARD_CODES[exchange[0]]} and {CARD_CODES[exchange[1]]} allow only "
        f"{shown}",
        f"{_capital(leader.in_text)}, who leads round {round_no}, picks the number of one of "
        "the two exchanged cards.",
    )


def _wrong_player(facts: Mapping[str, Any]) -> Words:
    player: Role = facts["player"]
    expected: Role = facts["expected"]
    leading = facts["leading"]
    return (
        f"{player.in_text} played {CARD_CODES[facts['card']]}, but it is "
        f"{expected.in_text}'s turn to {'lead' if leading else 'follow'}",
        "The winner of a trick leads the next one; the Phantom leads round 1 and Christine round 2."
        if leading
        else None,
    )


def _card_not_held(facts: Mapping[str, Any]) -> Words:
    role: Role = facts["player"]
    card = CARD_CODES[facts["card"]]
    if facts.get("swap"):
        twice = facts["twice"]
        return (
            f"{role.in_text} gives {card} "
            + ("twice in the swap" if twice else "in the swap")
            + f" after {CARD_CODES[facts['after']]}, but {_pronoun(role)} "
            + ("holds only one" if twice else "does not hold it"),
            f"{_capital(_possessive(role))} hand before the swap: {_hand(facts['hand'])}.",
        )
    if facts.get("unseen"):
        return (
            f"{role.in_text} played {card}, which {_pronoun(role)} cannot hold: it was played "
            f"or given away before, or {_pronoun(role)} showed {_pronoun(role)} holds none "
            "of its suit",
            f"The cards {_pronoun(role)} may still hold: {_hand(facts['hand']) or 'none'}.",
        )
    return (
        f"{role.in_text} played {card}, but {_pronoun(role)} does not hold it",
        f"{_capital(_possessive(role))} hand: {_hand(facts['hand']) or 'empty'}.",
    )


def _revoke(facts: Mapping[str, Any]) -> Words:
    role: Role = facts["player"]
    lead_suit: Suit = facts["lead_suit"]
    return (
        f"{role.in_text} played {CARD_CODES[facts['card']]} but holds "
        f"{_list(hand_codes(facts['held']))}; {_pronoun(role)} must follow {lead_suit.title}",
        "A player who holds a card of the lead suit (after any swap) must play one.",
    )


def _swap_size(facts: Mapping[str, Any]) -> str:
    """A player who gives other than the swap's size."""
    size, role = facts["size"], facts["player"]
    return (
        f"the swap after {CARD_CODES[facts['card']]} is {size} {_plural(size, 'card')} each, "
        f"but {role.in_text} gives {facts['count']}"
    )


def _missing_swap(facts: Mapping[str, Any]) -> Words:
    if "player" in facts:
        return _swap_size(facts), None
    size = facts["size"]
    return (
        f"{CARD_CODES[facts['card']]} shows the special number {facts['special_number']}: "
        f"a swap of {size} {_plural(size, 'card')} each must follow, and none is recorded",
        'Add "swap": {"phantom": [...], "christine": [...]} to this play.',
    )


def _unexpected_swap(facts: Mapping[str, Any]) -> Words:
    if "player" in facts:
        hint = f"Each player gives {SWAP_SIZE} cards, or 1 when either player holds only one card."
        return _swap_size(facts), hint
    code = CARD_CODES[facts["card"]]
    if facts.get("no_swap_possible"):
        empty: Role = facts["empty"]
        return (
            f"{code} shows the special number, but no swap is possible: {empty.in_text} has "
            "no card left",
            'Record no swap here, or "swap": {}.',
        )
    return (
        f"a swap is recorded after {code}, but only a card of the special number "
        f"{facts['special_number']} calls for one",
        None,
    )


def _after_game_end(facts: Mapping[str, Any]) -> Words:
    what = facts.get("what")
    if what == "round":
        thing = f"round {facts['round']}"
    elif what == "trick":
        thing = f"trick {facts['trick']} of round {facts['round']}"
    else:
        thing = "a move"
    return (
        f"{thing} is recorded after the Phantom completed the sheet in round "
        f"{facts['end_round']}, trick {facts['end_trick']}; the game was over",
        "Remove everything after the trick that completed the 12th note.",
    )


def _incomplete_trick(facts: Mapping[str, Any]) -> Words:
    if "round" not in facts:
        return "the trick in play has one card; the follower must play before anything else", None
    return (
        f"trick {facts['trick']} of round {facts['round']} has one play, but the record goes "
        "on; only the last trick of a record may be incomplete",
        None,
    )


def _incomplete_round(facts: Mapping[str, Any]) -> Words:
    next_round = facts.get("next", facts["round"] + 1)
    return (
        f"round {facts['round']} has {facts['played']} tricks, but round {next_round} follows; "
        f"a round lasts {TRICKS_PER_ROUND} tricks",
        None,
    )


def _unfinished(facts: Mapping[str, Any]) -> Words:
    rounds, tricks = facts["rounds"], facts["tricks"]
    where = f"round {rounds}, trick {tricks}" if tricks else f"the start of round {rounds}"
    return (
        f"the record stops at {where} with {facts['notes']} notes completed; the game is not "
        "over, so it has no winner",
        f"A finished game ends when the Phantom completes the {_ordinal(NOTES_PER_SHEET)} note "
        f"or when round {ROUNDS_PER_GAME}'s {_ordinal(TRICKS_PER_ROUND)} trick is played.",
    )


def _winner_mismatch(facts: Mapping[str, Any]) -> Words:
    claimed: Role | None = facts["claimed"]
    if facts.get("result"):
        winner: Role | None = facts["winner"]
        said = "no winner yet" if claimed is None else f"{claimed.in_text} won"
        actual = "the game is unfinished" if winner is None else f"{winner.in_text} won"
        return f"the result claims {said}, but {actual} in the replay", None
    assert claimed is not None
    round_no, trick_no = facts["round"], facts["trick"]
    if facts.get("one_card"):
        return (
            f"the record claims {claimed.in_text} won round {round_no}, trick {trick_no}, but "
            "only one card of it was played",
            None,
        )
    reason: Reason = facts["reason"]
    return (
        f"the record claims {claimed.in_text} won round {round_no}, trick {trick_no}, but "
        f"{facts['winner'].in_text} did: {CARD_CODES[facts['lead']]} against "
        f"{CARD_CODES[facts['follow']]}, {reason.value.replace('-', ' ')}",
        None,
    )


def _notes_mismatch(facts: Mapping[str, Any]) -> Words:
    return (
        f"the result claims {facts['claimed']} notes completed, but the replay ends with "
        f"{facts['notes']}",
        None,
    )


def _schema(facts: Mapping[str, Any]) -> Words:
    if "rounds" in facts:
        return (
            f"{facts['rounds']} rounds are recorded; a game has at most {ROUNDS_PER_GAME} rounds",
            None,
        )
    return f"{facts['tricks']} tricks are recorded; a round has at most {TRICKS_PER_ROUND}", None


def _ordinal(number: int) -> str:
    """``12th``, ``10th``, ``2nd``."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


_WORDS: Final[dict[Code, Callable[[Mapping[str, Any]], Words]]] = {
    Code.SCHEMA: _schema,
    Code.UNKNOWN_SHEET: _unknown_sheet,
    Code.BAD_SHEET: _bad_sheet,
    Code.BAD_DEAL: _bad_deal,
    Code.BAD_EXCHANGE: _bad_exchange,
    Code.BAD_SPECIAL_NUMBER: _bad_special_number,
    Code.WRONG_PLAYER: _wrong_player,
    Code.CARD_NOT_HELD: _card_not_held,
    Code.REVOKE: _revoke,
    Code.MISSING_SWAP: _missing_swap,
    Code.UNEXPECTED_SWAP: _unexpected_swap,
    Code.AFTER_GAME_END: _after_game_end,
    Code.INCOMPLETE_TRICK: _incomplete_trick,
    Code.INCOMPLETE_ROUND: _incomplete_round,
    Code.UNFINISHED: _unfinished,
    Code.WINNER_MISMATCH: _winner_mismatch,
    Code.NOTES_MISMATCH: _notes_mismatch,
}


def _text_hint(illegal: Illegal, hint: str | None) -> str | None:
    """The hint of a problem of a record written as game text, where the record's hint
    names its JSON."""
    facts = illegal.facts
    if illegal.code is Code.BAD_EXCHANGE and facts.get("beginner"):
        return "Remove the round's exchange line, or leave beginner out of the rules line."
    if illegal.code is Code.BAD_EXCHANGE and facts.get("missing"):
        return "Add the round's exchange, 'exchange P CARD C CARD', or write 'rules: beginner'."
    if illegal.code is Code.MISSING_SWAP and "player" not in facts:
        return "Write the swap in parentheses after the card: (P CARD CARD C CARD CARD)."
    return hint


def word(illegal: Illegal, game_text: bool = False) -> Problem:
    """The problem, worded, as reports print it; ``game_text``: of a record written as
    game text, whose hints name the text's words."""
    message, hint = _WORDS[illegal.code](illegal.facts)
    if game_text:
        hint = _text_hint(illegal, hint)
    return Problem.of(illegal.code, message, illegal.pointer, illegal.round, illegal.trick, hint)


def word_all(problems: Sequence[Illegal], game_text: bool = False) -> list[Problem]:
    """Every problem of a list, worded, in order."""
    return [word(problem, game_text) for problem in problems]
