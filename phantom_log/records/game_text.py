# cython: boundscheck=False, wraparound=False
"""The game text (``.ptn``): a game written as people write it at the table, read into
the parts of a record, each placed where it is written.

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

Each part read keeps where it is written as an offset in the text (``at``: the index of
its first character); :meth:`TextGame.place` turns one into a line and a column, which
only a report of a problem needs. The games are read one at a time (:func:`iter_games`),
so that a long text is never held read all at once.

Lines are read character by character (compiled by Cython with ``game_text.pxd``, as the
rules engine is). A line of the usual shape (a trick, a deal, the special number) is read
in one pass that takes the line only when every word of it is as the grammar has it; any
other line, and any line with something wrong, is read word by word with the problem's
words (:func:`_read_words`): the same grammar, the one pass only a shortcut that a test
holds to it.

The grammar, in the notation of docs/format.md ("Game text"), is :data:`GRAMMAR`; the
tests hold this reader to it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
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
_TRICK_NUMBER: Final = re.compile(r"(\d+)\.")
_CARD_HINT: Final = (
    f"a card is a suit ({', '.join(SUIT_CODES)}) and a number from 1 to {NUMBERS_PER_SUIT}, as Ma5"
)
#: The suits' codes, folded, a letter of each at a time: what the one pass reads a card's
#: suit by.
_SUIT_FIRST: Final = "".join(code[0].lower() for code in SUIT_CODES)
_SUIT_SECOND: Final = "".join(code[1].lower() for code in SUIT_CODES)
_NUMBERS: Final = NUMBERS_PER_SUIT
_CODES: Final = CARD_CODES
_HEADER_KEY_SET: Final = frozenset(HEADER_KEYS)
_SWAP_SIZE: Final = SWAP_SIZE
_PHANTOM: Final = "phantom"
#: The most digits of a number in the text (a round's, a trick's, the special number).
_NUMBER_DIGITS: Final = 9
_CHRISTINE: Final = "christine"


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


class PlacedCards:
    """Cards as written (codes in their proper case), where their line (or swap) begins
    and where each card is."""

    def __init__(self, cards: tuple[str, ...], at: int, card_at: tuple[int, ...]) -> None:
        self.cards = cards
        self.at = at
        self.card_at = card_at


class TextSwap:
    """The cards each side gave in a swap, in parentheses after the card that caused
    it; ``()`` is a swap of no card. ``at``: its ``(``."""

    def __init__(self, phantom: PlacedCards, christine: PlacedCards, at: int) -> None:
        self.phantom = phantom
        self.christine = christine
        self.at = at


class TextPlay:
    """A card played (its code, and the card it is for the rules: 0-23), where it is
    written, and the swap written after it."""

    def __init__(self, card: str, at: int, swap: TextSwap | None = None) -> None:
        self.card = card
        self.compact = CARD_BY_CODE[card]
        self.at = at
        self.swap = swap


class TextTrick:
    """A trick's line: its one or two cards (one when it is the record's last,
    incomplete: :attr:`plays`), its comment and the winner claimed (``"phantom"`` or
    ``"christine"``).

    A trick holds its cards itself, the leader's and the follower's (``card0``,
    ``compact0``, ``at0``, ``swap0``, and the same with 1; ``count`` of them written): the
    one pass reads twenty tricks a game, and makes no object for a card."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.count = 0
        self.card0 = ""
        self.compact0 = -1
        self.at0 = -1
        self.swap0: TextSwap | None = None
        self.card1 = ""
        self.compact1 = -1
        self.at1 = -1
        self.swap1: TextSwap | None = None
        self.comment: str | None = None
        self.comment_at = -1
        self.claim: str | None = None
        self.claim_at = -1

    @property
    def plays(self) -> tuple[TextPlay, ...]:
        """The cards of the trick, in the order they were played."""
        plays = [TextPlay(self.card0, self.at0, self.swap0)] if self.count else []
        if self.count == 2:
            plays.append(TextPlay(self.card1, self.at1, self.swap1))
        return tuple(plays)

    def add(self, compact: int, at: int) -> None:
        """Write the card ``compact`` (the trick's next, of at most two) at ``at``."""
        if self.count == 0:
            self.card0 = _CODES[compact]
            self.compact0 = compact
            self.at0 = at
        else:
            self.card1 = _CODES[compact]
            self.compact1 = compact
            self.at1 = at
        self.count += 1

    def last_swap(self) -> TextSwap | None:
        """The swap written after the trick's last card (none before any card)."""
        return self.swap1 if self.count == 2 else self.swap0

    def swap_last(self, swap: TextSwap) -> None:
        """Write ``swap`` after the trick's last card."""
        if self.count == 2:
            self.swap1 = swap
        else:
            self.swap0 = swap


def _trick(at: int) -> TextTrick:
    """:class:`TextTrick`, made without its ``__init__`` (the one pass makes twenty a
    game)."""
    trick = TextTrick.__new__(TextTrick)
    trick.at = at
    trick.count = 0
    trick.card0 = trick.card1 = ""
    trick.compact0 = trick.compact1 = trick.at0 = trick.at1 = -1
    trick.swap0 = trick.swap1 = None
    trick.comment = trick.claim = None
    trick.comment_at = trick.claim_at = -1
    return trick


def _placed(cards: tuple[str, ...], at: int, card_at: tuple[int, ...]) -> PlacedCards:
    """:class:`PlacedCards`, made without its ``__init__`` (the one pass makes several a
    game)."""
    placed = PlacedCards.__new__(PlacedCards)
    placed.cards = cards
    placed.at = at
    placed.card_at = card_at
    return placed


class TextRound:
    """A round as written: its number, and what its lines said."""

    def __init__(self, number: int, at: int) -> None:
        self.number = number
        self.at = at
        self.deal: dict[str, PlacedCards] = {}
        self.aside: PlacedCards | None = None
        #: Each side's card, and where it is written.
        self.exchange: dict[str, tuple[str, int]] | None = None
        self.exchange_at = -1
        self.special_number: int | None = None
        self.special_at = -1
        self.tricks: list[TextTrick] = []
        self.left: dict[str, PlacedCards] = {}


class TextGame:
    """A game of the text: its header (key -> value, and where the value begins), its
    rounds, and what was found that is no part of the notation; ``first_line`` and
    ``last_line``: the lines of the text the game spans (from 1)."""

    def __init__(self, source: str, at: int, first_line: int, first_start: int) -> None:
        self.source = source
        self.at = at
        self.header: dict[str, tuple[str, int]] = {}
        self.rounds: list[TextRound] = []
        self.problems: list[NotationProblem] = []
        self.first_line = first_line
        self.last_line = first_line
        #: Where the game's first line begins, and where its text ends (past the
        #: characters of its last line), in the text it was read from (``source``).
        self.first_start = first_start
        self.end = at

    def text(self) -> str:
        """The game's lines of the text, each with its line break."""
        return self.source[self.first_start : self.end] + "\n"

    def place(self, at: int) -> TextPlace:
        """The line and column of the character at offset ``at`` of the text."""
        start = self.first_start
        if at < start:
            return TextPlace(self.first_line, 1)
        source = self.source
        line_start = source.rfind("\n", start, at) + 1
        if line_start == 0:
            line_start = start
        return TextPlace(self.first_line + source.count("\n", start, at), at - line_start + 1)

    def header_place(self, key: str) -> TextPlace:
        """Where the value of the header's ``key`` begins."""
        return self.place(self.header[key][1])


def read_games(text: str, one_pass: bool = True) -> list[TextGame]:
    """The games of ``text``, in order (:func:`iter_games`)."""
    return list(iter_games(text, one_pass))


def iter_games(text: str, one_pass: bool = True) -> Iterator[TextGame]:
    """The games of ``text``, in order, each once it is read. Never raises: what is no
    part of the notation is a problem of the game it stands in (before any header: of a
    game of its own). ``one_pass=False`` reads every line word by word (the module says
    why: the tests compare the two)."""
    reader = _Reader(text, one_pass)
    while True:
        game = reader.next_game()
        if game is None:
            return
        yield game


class _Reader:
    """Reads a text line by line; a line begins at ``start`` and its characters end at
    ``end`` (its ``\\r`` at the end left out), the next begins at ``next_start``."""

    def __init__(self, text: str, one_pass: bool = True) -> None:
        self.text = text
        self.one_pass = one_pass
        #: How many lines were read word by word (the others took the one pass).
        self.lines_word_by_word = 0
        self.length = len(text)
        self.start = 0
        self.end = 0
        self.next_start = 0
        self.line = 0
        self.game: TextGame | None = None
        self.current: TextRound | None = None
        self.pending: TextGame | None = None

    def advance(self) -> bool:
        """Move on to the next line; ``False`` past the last."""
        if self.next_start > self.length:
            return False
        text = self.text
        start = self.next_start
        found = text.find("\n", start)
        end = self.length if found < 0 else found
        self.next_start = end + 1
        while end > start and text[end - 1] == "\r":
            end -= 1
        self.start = start
        self.end = end
        self.line += 1
        return True

    def new_game(self, at: int) -> TextGame:
        game = TextGame(self.text, at, self.line, self.start)
        finished = self.game
        self.game = game
        self.current = None
        self.pending = finished
        return game

    def next_game(self) -> TextGame | None:
        """The next game, once the line after its last one begins another (or the text
        ends); ``None`` when no game is left."""
        while self.pending is None:
            if not self.advance():
                last = self.game
                self.game = None
                return last
            self.read_line()
        finished = self.pending
        self.pending = None
        return finished

    def read_line(self) -> None:
        text = self.text
        end = self.end
        at = self.start
        while at < end and _is_space(text[at]):
            at += 1
        if at == end or text[at] == "#":
            return
        if self.read_header_line(at):
            return
        game = self.game
        if game is None:
            game = self.new_game(at)
            _problem(
                game,
                "the game has no header before its first round",
                at,
                "begin a game with its header: game_id, phantom, christine, sheet "
                "(one 'key: value' a line)",
            )
        if not (self.one_pass and self.read_usual_line(game, at)):
            self.lines_word_by_word += 1
            self.read_words(game, at)
        game.last_line = self.line
        game.end = self.next_start - 1 if self.next_start <= self.length else self.length

    # -- the header --------------------------------------------------------------------

    def read_header_line(self, at: int) -> bool:
        """Read the line as a header line, ``key: value``, when it is one."""
        text = self.text
        end = self.end
        index = at
        char = text[index]
        if not (char == "_" or _is_ascii_letter(char)):
            return False
        index += 1
        while index < end:
            char = text[index]
            if not (char == "_" or char == "-" or _is_ascii_letter(char) or "0" <= char <= "9"):
                break
            index += 1
        key_end = index
        while index < end and text[index] in " \t":
            index += 1
        if index == end or text[index] != ":":
            return False
        if _is_card_word(text, at, key_end):
            return False  # a card with a colon after it, as in a trick's line
        key = text[at:key_end]
        value_at = index + 1
        while value_at < end and text[value_at] in " \t":
            value_at += 1
        if value_at < end and text[value_at] == '"':
            value, offset = _header_value(text[index + 1 : end])
            value_at = index + 1 + offset
        else:
            value = text[value_at : self.value_end(value_at)].strip(" \t\r")
        game = self.game
        if game is None or game.rounds:
            game = self.new_game(at)
        _read_header_line(game, key, value, value_at, at)
        game.last_line = self.line
        game.end = self.next_start - 1 if self.next_start <= self.length else self.length
        return True

    def value_end(self, index: int) -> int:
        """Where a header's value that begins at ``index`` ends: at the line's end, or
        before a ``#`` that follows a space or a tab (a comment); at once when the value
        begins with ``#``."""
        text = self.text
        end = self.end
        if index < end and text[index] == "#":
            return index
        found = text.find("#", index + 1, end)
        while found >= 0:
            if text[found - 1] in " \t":
                return found - 1
            found = text.find("#", found + 1, end)
        return end

    # -- the usual lines, in one pass ----------------------------------------------------

    def read_usual_line(self, game: TextGame, at: int) -> bool:
        """Read a line of the usual shape (a trick, a deal, an aside, the cards left, a
        round's number, the special number, the exchange), all of it as the grammar has
        it; ``False``, having read nothing, for any other line."""
        text = self.text
        char = text[at]
        current = self.current
        if "0" <= char <= "9" or _card_at(text, at, _word_end(text, at, self.end)) >= 0:
            return current is not None and self.read_usual_trick(current, at)
        stop = _word_end(text, at, self.end)
        keyword = text[at:stop].casefold()
        if keyword == "round":
            return self.read_usual_round(game, at, stop)
        if current is None:
            return False
        if keyword == "deal" or keyword == "left":
            role, after = self.side_word(stop)
            if role is None:
                return False
            cards = self.usual_cards(after, at)
            if cards is None:
                return False
            target = current.deal if keyword == "deal" else current.left
            if role in target:
                return False
            target[role] = cards
            return True
        if keyword == "aside":
            cards = self.usual_cards(stop, at)
            if cards is None or current.aside is not None:
                return False
            current.aside = cards
            return True
        if keyword == "special":
            number, number_at = self.number_alone(stop)
            if number < 0 or current.special_number is not None:
                return False
            current.special_number = number
            current.special_at = number_at
            return True
        if keyword == "exchange":
            return self.read_usual_exchange(current, at, stop)
        return False

    def read_usual_round(self, game: TextGame, at: int, stop: int) -> bool:
        number, _ = self.number_alone(stop)
        if number != len(game.rounds) + 1:
            return False
        round_ = TextRound(number, at)
        game.rounds.append(round_)
        self.current = round_
        return True

    def number_alone(self, index: int) -> tuple[int, int]:
        """The number that is the one word left on the line from ``index``, and where it
        is; ``-1`` when the rest is not that."""
        text = self.text
        end = self.end
        index = self.skip_spaces(index)
        begin = index
        number = 0
        while index < end and "0" <= text[index] <= "9" and index - begin < _NUMBER_DIGITS:
            number = number * 10 + (ord(text[index]) - 48)
            index += 1
        if index == begin or self.skip_spaces(index) < end:
            return -1, begin
        return number, begin

    def skip_spaces(self, index: int) -> int:
        """The index of the next word from ``index``: the line's end at a ``#``."""
        text = self.text
        end = self.end
        while index < end and _is_space(text[index]):
            index += 1
        if index < end and text[index] == "#":
            return end
        return index

    def side_word(self, index: int) -> tuple[str | None, int]:
        """The role the word at ``index`` names (``P`` or ``C`` alone), and the index
        after it."""
        text = self.text
        end = self.end
        index = self.skip_spaces(index)
        if index >= end or _word_end(text, index, end) != index + 1:
            return None, index
        return _role_of_letter(text[index]), index + 1

    def usual_cards(self, index: int, at: int) -> PlacedCards | None:
        """The cards that are every word left on the line from ``index``."""
        text = self.text
        end = self.end
        cards: list[str] = []
        places: list[int] = []
        index = self.skip_spaces(index)
        while index < end:
            stop = _word_end(text, index, end)
            card = _card_at(text, index, stop)
            if card < 0:
                return None
            cards.append(_CODES[card])
            places.append(index)
            index = self.skip_spaces(stop)
        return _placed(tuple(cards), at, tuple(places))

    def read_usual_exchange(self, current: TextRound, at: int, index: int) -> bool:
        if current.exchange is not None:
            return False
        text = self.text
        end = self.end
        exchange: dict[str, tuple[str, int]] = {}
        index = self.skip_spaces(index)
        while index < end:
            role, after = self.side_word(index)
            if role is None or role in exchange:
                return False
            index = self.skip_spaces(after)
            stop = _word_end(text, index, end)
            card = _card_at(text, index, stop)
            if card < 0:
                return False
            exchange[role] = (_CODES[card], index)
            index = self.skip_spaces(stop)
        if len(exchange) != 2:
            return False
        current.exchange = exchange
        current.exchange_at = at
        return True

    def read_usual_trick(self, current: TextRound, at: int) -> bool:
        """A trick's line: its number and a dot, or none; one card or two, each with its
        swap or none; a comment closed on the line, or none; a winner claimed, or none."""
        text = self.text
        end = self.end
        index = at
        if "0" <= text[at] <= "9":
            number = 0
            while index < end and "0" <= text[index] <= "9" and index - at < _NUMBER_DIGITS:
                number = number * 10 + (ord(text[index]) - 48)
                index += 1
            if index >= end or text[index] != "." or number != len(current.tricks) + 1:
                return False
            index += 1
            if index < end and not _is_space(text[index]):
                return False
            index = self.skip_spaces(index)
        trick = _trick(at)
        while index < end:
            char = text[index]
            if char == "(":
                if trick.count == 0 or trick.last_swap() is not None or trick.comment is not None:
                    return False
                swap, index = self.usual_swap(index)
                if swap is None or trick.claim is not None:
                    return False
                trick.swap_last(swap)
            elif char == "{":
                if trick.comment is not None:
                    return False
                stop = text.find("}", index + 1, end)
                if stop < 0 or text.find("\\", index + 1, stop) >= 0:
                    return False
                trick.comment = text[index + 1 : stop]
                trick.comment_at = index
                index = stop + 1
            elif char == "=":
                stop = _word_end(text, index, end)
                if stop != index + 2 or trick.claim is not None:
                    return False
                role = _role_of_letter(text[index + 1])
                if role is None:
                    return False
                trick.claim = role
                trick.claim_at = index
                index = stop
            else:
                stop = _word_end(text, index, end)
                card = _card_at(text, index, stop)
                if (
                    card < 0
                    or trick.count == 2
                    or trick.comment is not None
                    or trick.claim is not None
                ):
                    return False
                trick.add(card, index)
                index = stop
            index = self.skip_spaces(index)
        if trick.count == 0:
            return False
        current.tricks.append(trick)
        return True

    def usual_swap(self, opening: int) -> tuple[TextSwap | None, int]:
        """The swap whose ``(`` is at ``opening``, when each side in it is named once
        before its cards and gives at most the swap's size; and the index after its
        ``)``."""
        text = self.text
        end = self.end
        given: list[list[str]] = [[], []]
        places: list[list[int]] = [[], []]
        named = [False, False]
        side = -1
        index = self.skip_spaces(opening + 1)
        while True:
            if index >= end:
                return None, index
            char = text[index]
            if char == ")":
                break
            stop = _word_end(text, index, end)
            if stop == index:
                return None, index  # a mark in the swap
            if stop == index + 1:
                role = _role_of_letter(char)
                if role is None:
                    return None, index
                side = 0 if role == _PHANTOM else 1
                if named[side]:
                    return None, index
                named[side] = True
            else:
                card = _card_at(text, index, stop)
                if card < 0 or side < 0 or len(given[side]) == _SWAP_SIZE:
                    return None, index
                given[side].append(_CODES[card])
                places[side].append(index)
            index = self.skip_spaces(stop)
        swap = TextSwap.__new__(TextSwap)
        swap.phantom = _placed(tuple(given[0]), opening, tuple(places[0]))
        swap.christine = _placed(tuple(given[1]), opening, tuple(places[1]))
        swap.at = opening
        return swap, index + 1

    # -- any line, word by word -----------------------------------------------------------

    def read_words(self, game: TextGame, at: int) -> None:
        """Read the line from ``at`` word by word, with the problems of what is no part of
        the notation."""
        words = self.line_words(at)
        if not words:
            return
        first = words[0]
        keyword = first[0].casefold()
        if keyword == "round":
            round_ = _read_round_line(game, words)
            self.current = round_
            return
        current = self.current
        if current is None:
            _problem(
                game,
                f"{first[0]!r} before the first round",
                first[1],
                "a round begins with 'round 1' or 'round 2' on a line of its own",
            )
            return
        _read_round_part(game, current, words)

    def line_words(self, at: int) -> list[_Word]:
        """The words of the line from ``at``. A comment in braces may run over several
        lines: it is one word (``{`` and its text, and whether its ``}`` was found) of the
        line it began on, and the words after it on the line it ends on belong to that
        line too."""
        words: list[_Word] = []
        text = self.text
        index = at
        while True:
            end = self.end
            found = _WORD.search(text, index, end)
            if found is None:
                return words
            word = found.group()
            if word == "#":
                return words
            start = found.start()
            if word == "{":
                comment, closed, index = self.comment(start)
                words.append(("{" + comment, start, closed))
                continue
            words.append((word, start, True))
            index = found.end()

    def comment(self, opening: int) -> tuple[str, bool, int]:
        """The comment that opens at ``opening`` (``{``): its text (``\\}`` and ``\\\\``
        read as ``}`` and ``\\``, line breaks kept), whether it is closed, and the index
        just after it, on the line it ends on. A comment never closed runs to the end of
        the text."""
        text = self.text
        parts: list[str] = []
        index = opening + 1
        while True:
            end = self.end
            while index < end:
                char = text[index]
                if char == "\\" and index + 1 < end and text[index + 1] in "}\\":
                    parts.append(text[index + 1])
                    index += 2
                elif char == "}":
                    return "".join(parts), True, index + 1
                else:
                    parts.append(char)
                    index += 1
            if not self.advance():
                return "".join(parts), False, end
            parts.append("\n")
            index = self.start


#: A word of a line read word by word: its text (a comment's with its ``{``), where it
#: begins, and (for a comment) whether its ``}`` was found.
_Word = tuple[str, int, bool]


def _is_ascii_letter(char: str) -> bool:
    return "a" <= char <= "z" or "A" <= char <= "Z"


def _is_card_word(text: str, index: int, stop: int) -> bool:
    """Whether ``text[index:stop]`` (letters, digits, ``_`` and ``-``) is two letters and
    digits, as a card is written."""
    if stop - index < 3 or not (
        _is_ascii_letter(text[index]) and _is_ascii_letter(text[index + 1])
    ):
        return False
    index += 2
    while index < stop:
        if not "0" <= text[index] <= "9":
            return False
        index += 1
    return True


def _is_space(char: str) -> bool:
    """A space between words: a space, a tab, or a byte order mark."""
    return char == " " or char == "\t" or char == "\ufeff"


def _word_end(text: str, index: int, end: int) -> int:
    """Where the run of characters from ``index`` up to a space or a mark ends."""
    while index < end:
        char = text[index]
        if _is_space(char) or char in "#(){}":
            break
        index += 1
    return index


def _card_at(text: str, index: int, stop: int) -> int:
    """The card the word ``text[index:stop]`` is, whatever its case, or -1."""
    if stop - index != 3:
        return -1
    number = ord(text[index + 2]) - 48
    if number < 1 or number > _NUMBERS:
        return -1
    first = ord(text[index])
    second = ord(text[index + 1])
    if 65 <= first <= 90:
        first += 32
    if 65 <= second <= 90:
        second += 32
    for suit in range(len(_SUIT_FIRST)):
        if first == ord(_SUIT_FIRST[suit]) and second == ord(_SUIT_SECOND[suit]):
            return suit * _NUMBERS + number - 1
    return -1


def _role_of_letter(char: str) -> str | None:
    """The role a side's letter names, whatever its case."""
    if char == "P" or char == "p":
        return _PHANTOM
    if char == "C" or char == "c":
        return _CHRISTINE
    return None


def _problem(game: TextGame, message: str, at: int, hint: str | None) -> None:
    game.problems.append(NotationProblem(message, game.place(at), hint))


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
    if "#" not in stripped:
        return stripped.strip(" \t\r"), offset
    cut = re.search(r"[ \t]#", stripped)
    value = stripped[: cut.start()] if cut else stripped
    if value.startswith("#"):
        value = ""
    return value.strip(" \t\r"), offset


def _read_header_line(game: TextGame, key: str, value: str, value_at: int, at: int) -> None:
    folded = key.casefold()
    if folded not in _HEADER_KEY_SET:
        _problem(
            game,
            f"{key!r} is no key of a game's header",
            at,
            f"the keys are {', '.join(HEADER_KEYS)}",
        )
    elif folded in game.header:
        _problem(
            game,
            f"the header says {folded} twice",
            at,
            f"the first is on line {game.header_place(folded).line}: keep one",
        )
    else:
        game.header[folded] = (value, value_at)


def _read_round_line(game: TextGame, words: list[_Word]) -> TextRound | None:
    at = words[0][1]
    number = _number(words[1][0]) if len(words) == 2 else None
    if number is None:
        _problem(
            game,
            "a round's line is 'round' and its number",
            at,
            f"write 'round 1' to 'round {ROUNDS_PER_GAME}' on a line of its own",
        )
        return None
    expected = len(game.rounds) + 1
    if number != expected:
        _problem(
            game,
            f"round {number} where round {expected} comes",
            words[1][1],
            "the rounds are written in the order they were played, from round 1",
        )
    round_ = TextRound(number, at)
    game.rounds.append(round_)
    return round_


def _read_round_part(game: TextGame, round_: TextRound, words: list[_Word]) -> None:
    first = words[0]
    keyword = first[0].casefold()
    if keyword in ("deal", "left"):
        side = _side(game, words[1:2], first)
        if side is None:
            return
        cards = _cards(game, words[2:], first[1])
        target = round_.deal if keyword == "deal" else round_.left
        if side in target:
            _problem(
                game,
                f"{keyword} {SIDE_OF_ROLE[side]} twice in round {round_.number}",
                first[1],
                f"the first is on line {game.place(target[side].at).line}: keep one",
            )
        else:
            target[side] = cards
    elif keyword == "aside":
        if round_.aside is not None:
            _problem(
                game,
                f"aside twice in round {round_.number}",
                first[1],
                f"the first is on line {game.place(round_.aside.at).line}: keep one",
            )
        else:
            round_.aside = _cards(game, words[1:], first[1])
    elif keyword == "exchange":
        _read_exchange(game, round_, words)
    elif keyword == "special":
        number = _number(words[1][0]) if len(words) == 2 else None
        if number is None:
            _problem(
                game,
                "the special number's line is 'special' and the number",
                first[1],
                f"write it as 'special 3': a number from 1 to {NUMBERS_PER_SUIT}",
            )
        elif round_.special_number is not None:
            _problem(
                game,
                f"special twice in round {round_.number}",
                first[1],
                f"the first is on line {game.place(round_.special_at).line}: keep one",
            )
        else:
            round_.special_number = number
            round_.special_at = words[1][1]
    elif _TRICK_NUMBER.fullmatch(first[0]) or _CARD_WORD.fullmatch(first[0]):
        _read_trick(game, round_, words)
    else:
        _problem(
            game,
            f"{first[0]!r} is no word of a round",
            first[1],
            f"a round's lines begin with {', '.join(ROUND_WORDS)}, or are tricks: "
            "a number with a dot, the leader's card, then the follower's",
        )


def _number(word: str) -> int | None:
    """The number a word of decimal digits is (any script's, as Python reads them), or
    ``None``: for anything else, and for a number of more than nine digits, which nothing
    in a game counts to."""
    return int(word) if word.isdecimal() and len(word) <= _NUMBER_DIGITS else None


def _shortened(word: str) -> str:
    return word if len(word) <= 2 * _NUMBER_DIGITS else word[: 2 * _NUMBER_DIGITS] + "…"


def _side(game: TextGame, words: list[_Word], after: _Word) -> str | None:
    """The role a side's letter names (``P``, ``C``), or ``None`` with a problem."""
    if words and words[0][0].upper() in ROLE_OF_SIDE:
        return ROLE_OF_SIDE[words[0][0].upper()]
    _problem(
        game,
        f"{after[0]!r} names no side"
        if not words
        else f"{words[0][0]!r} is no side: P or C comes after {after[0]!r}",
        words[0][1] if words else after[1],
        "P is the Phantom, C is Christine",
    )
    return None


def _card(game: TextGame, word: _Word) -> str | None:
    """The card code ``word`` is, in its proper case, or ``None`` with a problem."""
    code = _CARDS_BY_FOLDED.get(word[0].casefold())
    if code is None:
        _problem(game, f"{word[0]!r} is no card", word[1], _CARD_HINT)
    return code


def _cards(game: TextGame, words: list[_Word], at: int) -> PlacedCards:
    cards: list[str] = []
    places: list[int] = []
    for word in words:
        code = _card(game, word)
        if code is not None:
            cards.append(code)
            places.append(word[1])
    return PlacedCards(tuple(cards), at, tuple(places))


def _read_exchange(game: TextGame, round_: TextRound, words: list[_Word]) -> None:
    first = words[0]
    at = first[1]
    if round_.exchange is not None:
        _problem(
            game,
            f"exchange twice in round {round_.number}",
            at,
            f"the first is on line {game.place(round_.exchange_at).line}: keep one",
        )
        return
    exchange: dict[str, tuple[str, int]] = {}
    rest = words[1:]
    while rest:
        side = _side(game, rest[:1], first)
        if side is None:
            return
        if len(rest) < 2:
            _problem(
                game,
                f"no card after {rest[0][0]}",
                rest[0][1],
                "write the exchange as 'exchange P CARD C CARD'",
            )
            return
        card = _card(game, rest[1])
        if card is None:
            return
        if side in exchange:
            _problem(
                game,
                f"{SIDE_OF_ROLE[side]} gives twice in the exchange",
                rest[0][1],
                "each side gives one card: 'exchange P CARD C CARD'",
            )
            return
        exchange[side] = (card, rest[1][1])
        rest = rest[2:]
    if len(exchange) != 2:
        _problem(
            game,
            "the exchange names one side's card only" if exchange else "the exchange names no card",
            at,
            "each side gives one card: 'exchange P CARD C CARD'",
        )
        return
    round_.exchange = exchange
    round_.exchange_at = at


def _read_trick(game: TextGame, round_: TextRound, words: list[_Word]) -> None:
    first = words[0]
    trick = TextTrick(first[1])
    rest = words
    numbered = _TRICK_NUMBER.fullmatch(first[0])
    if numbered is not None:
        number = _number(numbered[1])
        expected = len(round_.tricks) + 1
        if number != expected:
            _problem(
                game,
                f"trick {number if number is not None else _shortened(numbered[1])}"
                f" where trick {expected} of round {round_.number} comes",
                first[1],
                "number the tricks of a round from 1, in the order they were played",
            )
        rest = rest[1:]
    while rest:
        word, at, closed = rest[0]
        if word.startswith("{"):
            if trick.comment is not None:
                _problem(game, "a second comment on the trick", at, "join them in one {...}")
            elif not closed:
                _problem(
                    game,
                    "the comment is never closed",
                    at,
                    "end it with '}' (write \\} for a brace in it)",
                )
            trick.comment = word[1:]
            trick.comment_at = at
            rest = rest[1:]
        elif word.startswith("="):
            side = word[1:].upper()
            if side not in ROLE_OF_SIDE:
                _problem(
                    game, f"{word!r} claims no winner", at, "claim the trick's winner with =P or =C"
                )
            elif trick.claim is not None:
                _problem(game, "a second claimed winner", at, "keep one")
            else:
                trick.claim = ROLE_OF_SIDE[side]
                trick.claim_at = at
            rest = rest[1:]
        elif word == "(":
            rest = _read_swap(game, trick, rest)
        elif word == ")":
            _problem(game, "')' with no '(' before it", at, "a swap is written (P CARDS C CARDS)")
            rest = rest[1:]
        else:
            if trick.comment is not None or trick.claim is not None:
                _problem(
                    game,
                    f"{word!r} after the trick's comment or claim",
                    at,
                    "write the cards first, then the comment in braces and the claimed winner",
                )
            elif trick.count == 2:
                _problem(
                    game,
                    f"{word!r}: a trick has two cards",
                    at,
                    "a trick's line is its number, the leader's card, then the follower's",
                )
            else:
                code = _card(game, rest[0])
                if code is not None:
                    trick.add(CARD_BY_CODE[code], at)
            rest = rest[1:]
    if trick.count == 0:
        _problem(
            game,
            f"the trick {first[0]!r} holds no card",
            first[1],
            "a trick's line is its number, the leader's card, then the follower's",
        )
        return
    round_.tricks.append(trick)


def _read_swap(game: TextGame, trick: TextTrick, words: list[_Word]) -> list[_Word]:
    """Read the swap that opens at ``words[0]`` (``(``) onto the trick's last play; the
    words after its ``)``."""
    opening = words[0][1]
    closing = next((index for index, word in enumerate(words) if word[0] == ")"), -1)
    if closing < 0:
        _problem(game, "the swap is never closed", opening, "end it with ')' on the same line")
        return []
    inside = words[1:closing]
    after = words[closing + 1 :]
    if trick.count == 0 or trick.last_swap() is not None:
        _problem(
            game,
            "a swap comes after the card that caused it",
            opening,
            "write it right after the card of the special number: Ch3 (P Mi1 C Ri1)",
        )
        return after
    sides: dict[str, list[_Word]] = {}
    current: str | None = None
    for word in inside:
        letter = word[0].upper()
        if letter in ROLE_OF_SIDE:
            current = ROLE_OF_SIDE[letter]
            if current in sides:
                _problem(
                    game,
                    f"{word[0]} twice in the swap",
                    word[1],
                    "write each side once: (P CARDS C CARDS)",
                )
                return after
            sides[current] = []
        elif current is None:
            _problem(
                game,
                f"{word[0]!r}: whose card?",
                word[1],
                "a swap names each side before its cards: (P Ri4 Ma6 C Ri6 Ma1)",
            )
            return after
        else:
            sides[current].append(word)
    phantom = _cards(game, sides.get(_PHANTOM, []), opening)
    christine = _cards(game, sides.get(_CHRISTINE, []), opening)
    for cards in (phantom, christine):
        if len(cards.cards) > SWAP_SIZE:
            _problem(
                game,
                f"a swap of {len(cards.cards)} cards from one side",
                opening,
                f"each side gives at most {SWAP_SIZE} cards in a swap: (P Ri4 Ma6 C Ri6 Ma1)",
            )
            return after
    trick.swap_last(TextSwap(phantom, christine, opening))
    return after
