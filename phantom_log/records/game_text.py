"""The game text (``.ptn``): a game written as people write it at the table, read into
the parts of a record, each placed at its line and column.

A text holds one game or several, each a header of ``key: value`` lines and then its
rounds::

    game_id: seoul-open-2026/s3/t2
    phantom: Kim
    christine: Lee
    sheet: rulebook

    round 1
    deal P Mi1 Mi3 Mi6 Ch2 Ch4 Ri3 Ri5 Ma2 Ma3 Ma5
    deal C Mi2 Mi5 Ch1 Ch3 Ch5 Ri1 Ri2 Ri6 Ma1 Ma6
    exchange P Ri3 C Mi5
    special 3
    1. Ma5 Ma6
    2. Ch5 Ch4 {out of order: note 2 is the Phantom's}
    3. Ch3 (P Mi1 Ma2 C Ri1 Ri2) Ch2 =P

This module reads the words: what it finds that is no part of the notation (an unknown
word, a card code that is none, a swap whose sides differ in size, a header key twice) is
a :class:`NotationProblem` placed where it stands, with a hint. Who plays each card is
never written (it is the turn's player): the record is made from a :class:`TextGame` by
the rules, in :mod:`phantom_log.records.text_records`.

The grammar, in the notation of docs/format.md ("Game text"), is :data:`GRAMMAR`; the
tests hold this reader to it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from ..rules.cards import CARD_BY_CODE, CARD_CODES, NUMBERS_PER_SUIT, SUIT_CODES
from ..rules.engine import ROUNDS_PER_GAME, SWAP_SIZE

#: The grammar of the game text, as docs/format.md publishes it (EBNF: ``[]`` optional,
#: ``{}`` repeated, ``|`` either; words in quotes are read whatever their case).
GRAMMAR: Final = """\
text      = { blank } { game } ;
game      = header { blank } { round } ;
header    = header-line { header-line | blank } ;
header-line = key ":" value end ;
key       = "game_id" | "event" | "site" | "date" | "stage" | "phantom" | "christine"
          | "sheet" | "rules" | "result" | "format" ;
round     = "round" number end { part end | blank } ;
part      = "deal" side cards | "aside" cards | "exchange" side card side card
          | "special" number | trick | "left" side { card } ;
trick     = [ number "." ] play [ play ] { "{" comment "}" | "=" side } ;
play      = card [ "(" [ side { card } ] [ side { card } ] ")" ] ;
side      = "P" | "C" ;
card      = suit number ;                      (* Mi Ch Ri Ma, and 1 to 6: Ma5 *)
end       = [ "#" { any character } ] line-break ;
"""

ROLE_OF_SIDE: Final = {"P": "phantom", "C": "christine"}
SIDE_OF_ROLE: Final = {role: side for side, role in ROLE_OF_SIDE.items()}
#: The header's keys, in the order the text of a record lists them.
HEADER_KEYS: Final = (
    "format",
    "game_id",
    "event",
    "site",
    "date",
    "stage",
    "phantom",
    "christine",
    "sheet",
    "rules",
    "result",
)
ROUND_WORDS: Final = ("round", "deal", "aside", "exchange", "special", "left")
_CARD_WORD: Final = re.compile(r"[A-Za-z]{2}\d+")
_CARDS_BY_FOLDED: Final = {code.casefold(): code for code in CARD_CODES}
#: A word of a line: a mark (``(``, ``)``, the ``{`` of a comment, the ``#`` of a line's
#: comment), or a run of anything else up to a space or a mark.
_WORD: Final = re.compile(r"[(){}#]|[^ \t\ufeff#(){}]+")
_HEADER_LINE: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(.*)")
_TRICK_NUMBER: Final = re.compile(r"(\d+)\.")
_CARD_HINT: Final = (
    f"a card is a suit ({', '.join(SUIT_CODES)}) and a number from 1 to {NUMBERS_PER_SUIT}, as Ma5"
)


class TextPlace(NamedTuple):
    """Where a word of the text begins: its line and column, both from 1."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class NotationProblem:
    """A part of the text that is no part of the notation, at ``place``."""

    message: str
    place: TextPlace
    hint: str | None = None


class Word(NamedTuple):
    """A word of a line (a card, a keyword, a number), or a mark (``(``, ``)``, ``=P``)."""

    text: str
    place: TextPlace
    #: For a comment (``text`` begins with ``{``): whether its ``}`` was found.
    closed: bool = True


class PlacedCards(NamedTuple):
    """Cards as written (codes in their proper case), where the line began and where
    each card is."""

    cards: tuple[str, ...]
    place: TextPlace
    places: tuple[TextPlace, ...]


class TextSwap(NamedTuple):
    """The cards each side gave in a swap, in parentheses after the card that caused
    it; ``()`` is a swap of no card."""

    phantom: PlacedCards
    christine: PlacedCards
    place: TextPlace


class TextPlay(NamedTuple):
    """A card played, and the swap written after it."""

    card: str
    place: TextPlace
    swap: TextSwap | None = None


@dataclass(slots=True)
class TextTrick:
    """A trick's line: its plays (one when it is the record's last, incomplete), its
    comment and the winner claimed."""

    place: TextPlace
    plays: list[TextPlay] = field(default_factory=list)
    comment: str | None = None
    comment_place: TextPlace | None = None
    claim: str | None = None  # "phantom" or "christine"
    claim_place: TextPlace | None = None


@dataclass(slots=True)
class TextRound:
    """A round as written: its number, and what its lines said."""

    number: int
    place: TextPlace
    deal: dict[str, PlacedCards] = field(default_factory=dict)
    aside: PlacedCards | None = None
    exchange: dict[str, tuple[str, TextPlace]] | None = None
    exchange_place: TextPlace | None = None
    special_number: int | None = None
    special_place: TextPlace | None = None
    tricks: list[TextTrick] = field(default_factory=list)
    left: dict[str, PlacedCards] = field(default_factory=dict)


@dataclass(slots=True)
class TextGame:
    """A game of the text: its header (key -> value, and where the value begins), its
    rounds, and what was found that is no part of the notation."""

    place: TextPlace
    header: dict[str, tuple[str, TextPlace]] = field(default_factory=dict)
    rounds: list[TextRound] = field(default_factory=list)
    problems: list[NotationProblem] = field(default_factory=list)
    #: The lines of the text the game spans, from its first to its last (from 1).
    first_line: int = 1
    last_line: int = 1


def read_games(text: str) -> list[TextGame]:
    """The games of ``text``, in order. Never raises: what is no part of the notation is
    a problem of the game it stands in (before any header: of a game of its own)."""
    games: list[TextGame] = []
    game: TextGame | None = None
    current: TextRound | None = None
    for line_number, words, header in _lines(text):
        place = words[0].place if words else TextPlace(line_number, 1)
        if header is not None:
            key, value, value_place = header
            if game is None or game.rounds:
                game = TextGame(place, first_line=line_number)
                games.append(game)
                current = None
            _read_header_line(game, key, value, value_place, place)
            game.last_line = line_number
            continue
        if game is None:
            game = TextGame(place, first_line=line_number)
            games.append(game)
            game.problems.append(
                NotationProblem(
                    "the game has no header before its first round",
                    place,
                    "begin a game with its header: game_id, phantom, christine, sheet "
                    "(one 'key: value' a line)",
                )
            )
        game.last_line = line_number
        keyword = words[0].text.casefold()
        if keyword == "round":
            current = _read_round_line(game, words)
            continue
        if current is None:
            game.problems.append(
                NotationProblem(
                    f"{words[0].text!r} before the first round",
                    place,
                    "a round begins with 'round 1' or 'round 2' on a line of its own",
                )
            )
            continue
        _read_round_part(game, current, words)
    return games


def _lines(text: str) -> Iterator[tuple[int, list[Word], tuple[str, str, TextPlace] | None]]:
    """Each line of ``text`` that holds something: its number, its words, and, for a
    header line, its key, value and the value's place. A comment in braces may run over
    several lines: it is one word (``{`` and its text, and ``}`` when it is closed) of
    the line it began on, and the words after it on the line it ends on belong to that
    line too."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    index = 0
    while index < len(lines):
        line = lines[index]
        line_number = index + 1
        index += 1
        bare = line.lstrip(" \t\ufeff")
        found = _HEADER_LINE.match(bare)
        if found is not None and not _is_card_or_number(found[1]):
            indent = len(line) - len(bare)
            value, offset = _header_value(found[2])
            yield (
                line_number,
                [Word(found[1], TextPlace(line_number, indent + 1))],
                (found[1], value, TextPlace(line_number, indent + found.start(2) + offset + 1)),
            )
            continue
        words: list[Word] = []
        at = index - 1  # the line being read, which a comment may move on
        column = 0
        reading = True
        while reading:
            reading = False
            for found_word in _WORD.finditer(line, column):
                word = found_word.group()
                if word == "#":
                    break
                start = found_word.start()
                if word == "{":
                    place = TextPlace(at + 1, start + 1)
                    comment, closed, at, column = _comment(lines, at, start)
                    words.append(Word("{" + comment, place, closed))
                    line = lines[at]
                    index = at + 1
                    reading = True
                    break
                words.append(Word(word, TextPlace(at + 1, start + 1)))
        if words:
            yield line_number, words, None


def _comment(lines: list[str], index: int, column: int) -> tuple[str, bool, int, int]:
    """The comment that opens at ``lines[index][column]`` (``{``): its text (``\\}`` and
    ``\\\\`` read as ``}`` and ``\\``, line breaks kept), whether it is closed, and the
    line index and column just after it. A comment never closed runs to the end of the
    text."""
    parts: list[str] = []
    line = lines[index]
    position = column + 1
    while True:
        while position < len(line):
            char = line[position]
            if char == "\\" and position + 1 < len(line) and line[position + 1] in "}\\":
                parts.append(line[position + 1])
                position += 2
            elif char == "}":
                return "".join(parts), True, index, position + 1
            else:
                parts.append(char)
                position += 1
        if index + 1 >= len(lines):
            return "".join(parts), False, index, position
        index += 1
        parts.append("\n")
        line = lines[index]
        position = 0


def _header_value(raw: str) -> tuple[str, int]:
    """The value of a header line after its colon, and its offset in ``raw``: a JSON
    string in double quotes as JSON reads it, or the rest of the line up to a ``#`` that
    follows a space (a comment), without the spaces around it."""
    stripped = raw.lstrip(" \t")
    offset = len(raw) - len(stripped)
    if stripped.startswith('"'):
        try:
            value, end = json.JSONDecoder().raw_decode(stripped)
        except json.JSONDecodeError:
            return stripped.rstrip(), offset
        rest = stripped[end:].strip()
        if isinstance(value, str) and (not rest or rest.startswith("#")):
            return value, offset
        return stripped.rstrip(), offset
    cut = re.search(r"[ \t]#", stripped)
    value = stripped[: cut.start()] if cut else stripped
    if value.startswith("#"):
        value = ""
    return value.strip(" \t\r"), offset


def _is_card_or_number(word: str) -> bool:
    return bool(_CARD_WORD.fullmatch(word)) or word.isdigit()


def _read_header_line(
    game: TextGame, key: str, value: str, place: TextPlace, start: TextPlace
) -> None:
    folded = key.casefold()
    if folded not in HEADER_KEYS:
        game.problems.append(
            NotationProblem(
                f"{key!r} is no key of a game's header",
                start,
                f"the keys are {', '.join(HEADER_KEYS)}",
            )
        )
    elif folded in game.header:
        game.problems.append(
            NotationProblem(
                f"the header says {folded} twice",
                start,
                f"the first is on line {game.header[folded][1].line}: keep one",
            )
        )
    else:
        game.header[folded] = (value, place)


def _read_round_line(game: TextGame, words: list[Word]) -> TextRound | None:
    place = words[0].place
    if len(words) != 2 or not words[1].text.isdigit():
        game.problems.append(
            NotationProblem(
                "a round's line is 'round' and its number",
                place,
                f"write 'round 1' to 'round {ROUNDS_PER_GAME}' on a line of its own",
            )
        )
        return None
    number = int(words[1].text)
    expected = len(game.rounds) + 1
    if number != expected:
        game.problems.append(
            NotationProblem(
                f"round {number} where round {expected} comes",
                words[1].place,
                "the rounds are written in the order they were played, from round 1",
            )
        )
    round_ = TextRound(number, place)
    game.rounds.append(round_)
    return round_


def _read_round_part(game: TextGame, round_: TextRound, words: list[Word]) -> None:
    keyword = words[0].text.casefold()
    problems = game.problems
    if keyword in ("deal", "left"):
        side = _side(words[1:2], problems, words[0])
        if side is None:
            return
        cards = _cards(words[2:], problems, words[0].place)
        target = round_.deal if keyword == "deal" else round_.left
        if side in target:
            problems.append(
                NotationProblem(
                    f"{keyword} {SIDE_OF_ROLE[side]} twice in round {round_.number}",
                    words[0].place,
                    f"the first is on line {target[side].place.line}: keep one",
                )
            )
        else:
            target[side] = cards
    elif keyword == "aside":
        if round_.aside is not None:
            problems.append(
                NotationProblem(
                    f"aside twice in round {round_.number}",
                    words[0].place,
                    f"the first is on line {round_.aside.place.line}: keep one",
                )
            )
        else:
            round_.aside = _cards(words[1:], problems, words[0].place)
    elif keyword == "exchange":
        _read_exchange(round_, words, problems)
    elif keyword == "special":
        if len(words) != 2 or not words[1].text.isdigit():
            problems.append(
                NotationProblem(
                    "the special number's line is 'special' and the number",
                    words[0].place,
                    f"write it as 'special 3': a number from 1 to {NUMBERS_PER_SUIT}",
                )
            )
        elif round_.special_number is not None:
            problems.append(
                NotationProblem(
                    f"special twice in round {round_.number}",
                    words[0].place,
                    f"the first is on line {_line_of(round_.special_place)}: keep one",
                )
            )
        else:
            round_.special_number = int(words[1].text)
            round_.special_place = words[1].place
    elif _TRICK_NUMBER.fullmatch(words[0].text) or _CARD_WORD.fullmatch(words[0].text):
        _read_trick(round_, words, problems)
    else:
        problems.append(
            NotationProblem(
                f"{words[0].text!r} is no word of a round",
                words[0].place,
                f"a round's lines begin with {', '.join(ROUND_WORDS)}, or are tricks: "
                "a number with a dot, the leader's card, then the follower's",
            )
        )


def _side(words: list[Word], problems: list[NotationProblem], after: Word) -> str | None:
    """The role a side's letter names (``P``, ``C``), or ``None`` with a problem."""
    if words and words[0].text.upper() in ROLE_OF_SIDE:
        return ROLE_OF_SIDE[words[0].text.upper()]
    where = words[0].place if words else after.place
    problems.append(
        NotationProblem(
            f"{after.text!r} names no side"
            if not words
            else f"{words[0].text!r} is no side: P or C comes after {after.text!r}",
            where,
            "P is the Phantom, C is Christine",
        )
    )
    return None


def _card(word: Word, problems: list[NotationProblem]) -> str | None:
    """The card code ``word`` is, in its proper case, or ``None`` with a problem."""
    code = _CARDS_BY_FOLDED.get(word.text.casefold())
    if code is None:
        problems.append(NotationProblem(f"{word.text!r} is no card", word.place, _CARD_HINT))
    return code


def _cards(words: list[Word], problems: list[NotationProblem], place: TextPlace) -> PlacedCards:
    cards: list[str] = []
    places: list[TextPlace] = []
    for word in words:
        code = _card(word, problems)
        if code is not None:
            cards.append(code)
            places.append(word.place)
    return PlacedCards(tuple(cards), place, tuple(places))


def _read_exchange(round_: TextRound, words: list[Word], problems: list[NotationProblem]) -> None:
    place = words[0].place
    if round_.exchange is not None:
        problems.append(
            NotationProblem(
                f"exchange twice in round {round_.number}",
                place,
                f"the first is on line {_line_of(round_.exchange_place)}: keep one",
            )
        )
        return
    exchange: dict[str, tuple[str, TextPlace]] = {}
    rest = words[1:]
    while rest:
        side = _side(rest[:1], problems, words[0])
        if side is None:
            return
        if len(rest) < 2:
            problems.append(
                NotationProblem(
                    f"no card after {rest[0].text}",
                    rest[0].place,
                    "write the exchange as 'exchange P CARD C CARD'",
                )
            )
            return
        card = _card(rest[1], problems)
        if card is None:
            return
        if side in exchange:
            problems.append(
                NotationProblem(
                    f"{SIDE_OF_ROLE[side]} gives twice in the exchange",
                    rest[0].place,
                    "each side gives one card: 'exchange P CARD C CARD'",
                )
            )
            return
        exchange[side] = (card, rest[1].place)
        rest = rest[2:]
    if len(exchange) != 2:
        problems.append(
            NotationProblem(
                "the exchange names one side's card only"
                if exchange
                else "the exchange names no card",
                place,
                "each side gives one card: 'exchange P CARD C CARD'",
            )
        )
        return
    round_.exchange = exchange
    round_.exchange_place = place


def _read_trick(round_: TextRound, words: list[Word], problems: list[NotationProblem]) -> None:
    trick = TextTrick(words[0].place)
    rest = words
    numbered = _TRICK_NUMBER.fullmatch(rest[0].text)
    if numbered is not None:
        number = int(numbered[1])
        expected = len(round_.tricks) + 1
        if number != expected:
            problems.append(
                NotationProblem(
                    f"trick {number} where trick {expected} of round {round_.number} comes",
                    rest[0].place,
                    "number the tricks of a round from 1, in the order they were played",
                )
            )
        rest = rest[1:]
    while rest:
        word = rest[0]
        if word.text.startswith("{"):
            if trick.comment is not None:
                problems.append(
                    NotationProblem(
                        "a second comment on the trick", word.place, "join them in one {...}"
                    )
                )
            elif not word.closed:
                problems.append(
                    NotationProblem(
                        "the comment is never closed",
                        word.place,
                        "end it with '}' (write \\} for a brace in it)",
                    )
                )
            trick.comment = word.text[1:]
            trick.comment_place = word.place
            rest = rest[1:]
        elif word.text.startswith("="):
            side = word.text[1:].upper()
            if side not in ROLE_OF_SIDE:
                problems.append(
                    NotationProblem(
                        f"{word.text!r} claims no winner",
                        word.place,
                        "claim the trick's winner with =P or =C",
                    )
                )
            elif trick.claim is not None:
                problems.append(NotationProblem("a second claimed winner", word.place, "keep one"))
            else:
                trick.claim = ROLE_OF_SIDE[side]
                trick.claim_place = word.place
            rest = rest[1:]
        elif word.text == "(":
            rest = _read_swap(trick, rest, problems)
        elif word.text == ")":
            problems.append(
                NotationProblem(
                    "')' with no '(' before it", word.place, "a swap is written (P CARDS C CARDS)"
                )
            )
            rest = rest[1:]
        else:
            if trick.comment is not None or trick.claim is not None:
                problems.append(
                    NotationProblem(
                        f"{word.text!r} after the trick's comment or claim",
                        word.place,
                        "write the cards first, then the comment in braces and the claimed winner",
                    )
                )
            elif len(trick.plays) == 2:
                problems.append(
                    NotationProblem(
                        f"{word.text!r}: a trick has two cards",
                        word.place,
                        "a trick's line is its number, the leader's card, then the follower's",
                    )
                )
            else:
                code = _card(word, problems)
                if code is not None:
                    trick.plays.append(TextPlay(code, word.place))
            rest = rest[1:]
    if not trick.plays:
        problems.append(
            NotationProblem(
                f"the trick {words[0].text!r} holds no card",
                words[0].place,
                "a trick's line is its number, the leader's card, then the follower's",
            )
        )
        return
    round_.tricks.append(trick)


def _read_swap(trick: TextTrick, words: list[Word], problems: list[NotationProblem]) -> list[Word]:
    """Read the swap that opens at ``words[0]`` (``(``) onto the trick's last play; the
    words after its ``)``."""
    opening = words[0]
    try:
        closing = next(index for index, word in enumerate(words) if word.text == ")")
    except StopIteration:
        problems.append(
            NotationProblem(
                "the swap is never closed", opening.place, "end it with ')' on the same line"
            )
        )
        return []
    inside = words[1:closing]
    after = words[closing + 1 :]
    if not trick.plays or trick.plays[-1].swap is not None:
        problems.append(
            NotationProblem(
                "a swap comes after the card that caused it",
                opening.place,
                "write it right after the card of the special number: Ch3 (P Mi1 C Ri1)",
            )
        )
        return after
    sides: dict[str, list[Word]] = {}
    current: str | None = None
    for word in inside:
        letter = word.text.upper()
        if letter in ROLE_OF_SIDE:
            current = ROLE_OF_SIDE[letter]
            if current in sides:
                problems.append(
                    NotationProblem(
                        f"{word.text} twice in the swap",
                        word.place,
                        "write each side once: (P CARDS C CARDS)",
                    )
                )
                return after
            sides[current] = []
        elif current is None:
            problems.append(
                NotationProblem(
                    f"{word.text!r}: whose card?",
                    word.place,
                    "a swap names each side before its cards: (P Ri4 Ma6 C Ri6 Ma1)",
                )
            )
            return after
        else:
            sides[current].append(word)
    phantom = _cards(sides.get("phantom", []), problems, opening.place)
    christine = _cards(sides.get("christine", []), problems, opening.place)
    for cards in (phantom, christine):
        if len(cards.cards) > SWAP_SIZE:
            problems.append(
                NotationProblem(
                    f"a swap of {len(cards.cards)} cards from one side",
                    opening.place,
                    f"each side gives at most {SWAP_SIZE} cards in a swap: (P Ri4 Ma6 C Ri6 Ma1)",
                )
            )
            return after
    last = trick.plays[-1]
    trick.plays[-1] = TextPlay(last.card, last.place, TextSwap(phantom, christine, opening.place))
    return after


def _line_of(place: TextPlace | None) -> str:
    return "?" if place is None else str(place.line)


def card_number(code: str) -> int:
    """The card ``code`` is (0-23), for the rules."""
    return int(CARD_BY_CODE[code])
