"""Suits, cards and roles, and their compact forms.

A card is an ``int`` from 0 to 23: ``suit * 6 + (number - 1)``. A hand is a bit mask of
cards (bit ``card`` set when the card is held). Card codes such as ``"Ma5"`` are parsed
here and nowhere else (:func:`parse_card`); the engine only ever sees the compact forms.

This module is the one place that knows that layout: the number, the suit and the masks
of a card or a suit are read with the functions here, which the compiled engine calls
as C functions (``cards.pxd`` gives their C types; the same source runs as Python).
"""

from __future__ import annotations

from enum import IntEnum
from types import FunctionType
from typing import Final, Literal

#: A role as records write it.
RoleKey = Literal["phantom", "christine"]
#: A suit's two-letter code as records write it.
SuitCode = Literal["Mi", "Ch", "Ri", "Ma"]
#: A card's code as records write it: its suit's code and its number, e.g. ``"Ma5"``.
CardCode = Literal[
    "Mi1", "Mi2", "Mi3", "Mi4", "Mi5", "Mi6",
    "Ch1", "Ch2", "Ch3", "Ch4", "Ch5", "Ch6",
    "Ri1", "Ri2", "Ri3", "Ri4", "Ri5", "Ri6",
    "Ma1", "Ma2", "Ma3", "Ma4", "Ma5", "Ma6",
]  # fmt: skip

NUMBERS_PER_SUIT: Final = 6
DECK_SIZE: Final = 24
FULL_DECK: Final = (1 << DECK_SIZE) - 1


class Suit(IntEnum):
    """The four suits, in the order of their codes' table."""

    MIRROR = 0
    CHANDELIER = 1
    RING = 2
    MASK = 3

    def __str__(self) -> str:
        """The suit as records write it: ``Mi``, ``Ch``, ``Ri`` or ``Ma``."""
        return SUIT_CODES[self]

    @property
    def code(self) -> str:
        """The two-letter code used in records: ``Mi``, ``Ch``, ``Ri`` or ``Ma``."""
        return SUIT_CODES[self]

    @property
    def title(self) -> str:
        """The suit's name for people: ``Mirror``, ``Chandelier``, ``Ring`` or ``Mask``."""
        return self.name.capitalize()

    @property
    def mask(self) -> int:
        """The bit mask of the six cards of this suit."""
        return suit_mask(self)


SUIT_CODES: Final = ("Mi", "Ch", "Ri", "Ma")
SUIT_BY_CODE: Final = {code: Suit(index) for index, code in enumerate(SUIT_CODES)}


class Role(IntEnum):
    """The two sides of the game."""

    PHANTOM = 0
    CHRISTINE = 1

    def __str__(self) -> str:
        """The role as records write it: ``phantom`` or ``christine``."""
        return ROLE_KEYS[self]

    @property
    def key(self) -> str:
        """The role as written in records: ``phantom`` or ``christine``."""
        return ROLE_KEYS[self]

    @property
    def title(self) -> str:
        """The role's name for people: ``Phantom`` or ``Christine``."""
        return ROLE_TITLES[self]

    @property
    def in_text(self) -> str:
        """The role inside a sentence: ``the Phantom`` or ``Christine``."""
        return ROLES_IN_TEXT[self]

    @property
    def other(self) -> Role:
        """The opponent."""
        return OPPONENTS[self]


ROLE_KEYS: Final = ("phantom", "christine")
ROLE_TITLES: Final = ("Phantom", "Christine")
ROLES_IN_TEXT: Final = ("the Phantom", "Christine")
ROLE_BY_KEY: Final = {key: Role(index) for index, key in enumerate(ROLE_KEYS)}
NOTE_OWNER_LETTERS: Final = {"P": Role.PHANTOM, "C": Role.CHRISTINE}
OPPONENTS: Final = (Role.CHRISTINE, Role.PHANTOM)


def card_suit(card: int) -> Suit:
    """The suit of a compact card."""
    return CARD_SUITS[card]


def card_suit_index(card: int) -> int:
    """The suit of a compact card as an int (0-3, :class:`Suit`'s values)."""
    return card // _NUMBERS


def card_number(card: int) -> int:
    """The number (1-6) of a compact card."""
    return card % _NUMBERS + 1


def make_card(suit: Suit, number: int) -> int:
    """The compact card of a suit and a number (1-6)."""
    return suit * NUMBERS_PER_SUIT + number - 1


def suit_mask(suit: int) -> int:
    """The bit mask of the six cards of a suit (0-3)."""
    return _SUIT_BITS << (_NUMBERS * suit)


def number_mask(number: int) -> int:
    """The bit mask of the four cards showing ``number`` (1-6); 0 for any other number."""
    if not 1 <= number <= _NUMBERS:
        return 0
    return _ONES << (number - 1)


def popcount(mask: int) -> int:
    """How many cards a hand (bit mask of up to 24 cards) holds."""
    # Bit arithmetic rather than int.bit_count(), so that the compiled build stays in C.
    mask = mask - ((mask >> 1) & 0x555555)
    mask = (mask & 0x333333) + ((mask >> 2) & 0x333333)
    mask = (mask + (mask >> 4)) & 0x0F0F0F
    return (mask & 0xFF) + ((mask >> 8) & 0xFF) + ((mask >> 16) & 0xFF)


CARD_SUITS: Final = tuple(Suit(card // NUMBERS_PER_SUIT) for card in range(DECK_SIZE))
CARD_CODES: Final = tuple(
    f"{SUIT_CODES[card // NUMBERS_PER_SUIT]}{card % NUMBERS_PER_SUIT + 1}"
    for card in range(DECK_SIZE)
)
CARD_BY_CODE: Final = {code: card for card, code in enumerate(CARD_CODES)}


def parse_card(code: object) -> int:
    """The compact card of a code such as ``"Ma5"``; ``KeyError`` for anything else.

    Read from the code's three characters: every card of every record passes here, and a
    dict lookup would hash each fresh string the JSON reader made."""
    if type(code) is str:
        text: str = code
        if len(text) == 3:
            first = ord(text[0])
            second = ord(text[1])
            number = ord(text[2]) - 49  # "1" is 49
            if first < 128 and second < 128 and 0 <= number < _NUMBERS:
                suit = _SUIT_OF_LETTERS[first * 128 + second] - 1
                if suit >= 0:
                    return suit * _NUMBERS + number
    return CARD_BY_CODE[code]  # type: ignore[index]


# parse_card is CARD_BY_CODE[code] for every code, read faster: the compiled build reads
# the three characters as C ints, but as Python that reading costs seven times the lookup
# (a fifth of the Python build's replay), so the Python build looks the code up.
if isinstance(parse_card, FunctionType):  # not compiled
    globals()["parse_card"] = CARD_BY_CODE.__getitem__


def _suit_table() -> bytes:
    table = bytearray(128 * 128)
    for suit, letters in enumerate(SUIT_CODES):
        table[ord(letters[0]) * 128 + ord(letters[1])] = suit + 1
    return bytes(table)


# C copies for the compiled build (cards.pxd types them); the values are the ones above.
_NUMBERS = NUMBERS_PER_SUIT
_SUIT_BITS = (1 << NUMBERS_PER_SUIT) - 1
# The four cards showing a 1, one a suit (shifted to show another number).
_ONES = sum(1 << (suit * NUMBERS_PER_SUIT) for suit in range(len(SUIT_CODES)))
# The suit of a card code's two letters (both ASCII, first * 128 + second), plus one; 0
# for two letters that are no suit's code.
_SUIT_OF_LETTERS = _suit_table()


def card_code(card: int) -> str:
    """The code of a compact card, such as ``"Ma5"``."""
    return CARD_CODES[card]


def hand_mask(cards: list[int] | tuple[int, ...]) -> int:
    """The bit mask of a collection of compact cards (duplicates collapse)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def hand_cards(mask: int) -> list[int]:
    """The compact cards of a hand, in deck order."""
    return [card for card in range(DECK_SIZE) if mask >> card & 1]


def hand_codes(mask: int) -> list[str]:
    """The codes of a hand's cards, in deck order."""
    return [CARD_CODES[card] for card in hand_cards(mask)]


class Card(IntEnum):
    """The 24 cards, named by their codes; each is its compact int (``suit * 6 + number -
    1``), so a card goes wherever the engine takes an int. ``str()`` gives the code."""

    Mi1 = 0
    Mi2 = 1
    Mi3 = 2
    Mi4 = 3
    Mi5 = 4
    Mi6 = 5
    Ch1 = 6
    Ch2 = 7
    Ch3 = 8
    Ch4 = 9
    Ch5 = 10
    Ch6 = 11
    Ri1 = 12
    Ri2 = 13
    Ri3 = 14
    Ri4 = 15
    Ri5 = 16
    Ri6 = 17
    Ma1 = 18
    Ma2 = 19
    Ma3 = 20
    Ma4 = 21
    Ma5 = 22
    Ma6 = 23

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Card.{self.name}"

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card of a code such as ``"Ma5"``; ``ValueError`` for anything else."""
        try:
            return CARDS[CARD_BY_CODE[code]]
        except (KeyError, TypeError):
            raise ValueError(f"{code!r} is not a card code (Mi, Ch, Ri or Ma, then 1-6)") from None

    @property
    def code(self) -> str:
        """The code used in records, such as ``"Ma5"``."""
        return self.name

    @property
    def suit(self) -> Suit:
        """The card's suit."""
        return CARD_SUITS[self]

    @property
    def number(self) -> int:
        """The card's number, 1 to 6."""
        return self % NUMBERS_PER_SUIT + 1


CARDS: Final = tuple(Card)


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a hand given as a bit mask, in deck order."""
    return tuple(card for card in CARDS if mask >> card & 1)
