"""When two records name the same game or the same player: identity as people mean it.

A game id or a name can be typed in several ways that look the same: ``café`` with one
code point for ``é`` (NFC) or with ``e`` and a combining accent (NFD), ``Kim`` with a
zero-width space pasted inside. The checks across records compare the keys made here; a
record's own text is always reported as written.
"""

from __future__ import annotations

import unicodedata
from typing import Final

# Characters that show nothing and mean nothing in a name or an id: the soft hyphen, the
# Mongolian vowel separator, the zero-width space, non-joiner and joiner, the
# left-to-right and right-to-left marks, the bidirectional embeddings, overrides and
# isolates, the word joiner and the invisible operators, the Arabic letter mark, the
# byte order mark (zero-width no-break space).
INVISIBLE: Final = frozenset(
    [
        0x00AD,
        0x061C,
        0x180E,
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x206A),
        0xFEFF,
    ]
)
_REMOVED: Final = dict.fromkeys(INVISIBLE)


def game_key(game_id: str) -> str:
    """The key a game id is compared by: invisible characters removed, then NFC."""
    return unicodedata.normalize("NFC", game_id.translate(_REMOVED))


def person_key(name: str) -> str:
    """The key a player's name is compared by: invisible characters removed, outer and
    repeated spaces ignored, case ignored (Unicode's canonical caseless match, so
    ``É`` typed either way is one letter)."""
    visible = unicodedata.normalize("NFD", name.translate(_REMOVED))
    return unicodedata.normalize("NFC", " ".join(visible.split()).casefold())
