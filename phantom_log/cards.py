"""Suits, cards and roles, and their compact forms.

A card is an ``int`` from 0 to 23: ``suit * 6 + (number - 1)``. A hand is a bit mask of
cards (bit ``card`` set when the card is held). Card codes such as ``"Ma5"`` are parsed
once at the edge; the engine only ever sees the compact forms.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

NUMBERS_PER_SUIT: Final = 6
DECK_SIZE: Final = 24
FULL_DECK: Final = (1 << DECK_SIZE) - 1


class Suit(IntEnum):
    """The four suits, in the order of their codes' table."""

    MIRROR = 0
    CHANDELIER = 1
    RING = 2
    MASK = 3

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
        return SUIT_MASKS[self]


SUIT_CODES: Final = ("Mi", "Ch", "Ri", "Ma")
SUIT_BY_CODE: Final = {code: Suit(index) for index, code in enumerate(SUIT_CODES)}
SUIT_MASKS: Final = tuple(((1 << NUMBERS_PER_SUIT) - 1) << (6 * suit) for suit in range(4))


class Role(IntEnum):
    """The two sides of the game."""

    PHANTOM = 0
    CHRISTINE = 1

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


def card_number(card: int) -> int:
    """The number (1-6) of a compact card."""
    return card % NUMBERS_PER_SUIT + 1


def make_card(suit: Suit, number: int) -> int:
    """The compact card of a suit and a number (1-6)."""
    return suit * NUMBERS_PER_SUIT + number - 1


CARD_SUITS: Final = tuple(Suit(card // NUMBERS_PER_SUIT) for card in range(DECK_SIZE))
CARD_CODES: Final = tuple(
    f"{SUIT_CODES[card // NUMBERS_PER_SUIT]}{card % NUMBERS_PER_SUIT + 1}"
    for card in range(DECK_SIZE)
)
CARD_BY_CODE: Final = {code: card for card, code in enumerate(CARD_CODES)}


def parse_card(code: str) -> int:
    """The compact card of a code such as ``"Ma5"``; ``KeyError`` for anything else."""
    return CARD_BY_CODE[code]


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


def hand_size(mask: int) -> int:
    """How many cards a hand holds."""
    return mask.bit_count()


def hand_codes(mask: int) -> list[str]:
    """The codes of a hand's cards, in deck order."""
    return [CARD_CODES[card] for card in hand_cards(mask)]
