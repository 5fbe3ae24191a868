"""When two records name the same game or the same player: identity as people mean it.

A game id or a name can be typed in several ways that look the same: ``café`` in NFC or
NFD, ``Kim`` with a zero-width space pasted inside. The checks across records compare the
keys made here; a record's own text is always reported as written. Folded: the code points
of Unicode's Default_Ignorable_Code_Point property (:mod:`.ignorable`), which a text shows
as nothing. Not folded: characters that look alike but are other letters (a Cyrillic
``\u041a`` is not a Latin ``K``): two different people may well be told apart by them.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from .ignorable import DEFAULT_IGNORABLE_RANGES

# The code points removed from a key, as one character class: most names hold none, and
# searching is cheaper than translating the text.
_IGNORABLE: Final = re.compile(
    "[" + "".join(f"\\U{first:08x}-\\U{last:08x}" for first, last in DEFAULT_IGNORABLE_RANGES) + "]"
)


def visible_text(text: str) -> str:
    """``text`` without its default-ignorable code points."""
    if text.isascii() or _IGNORABLE.search(text) is None:
        return text
    return _IGNORABLE.sub("", text)


def game_key(game_id: str) -> str:
    """The key a game id is compared by: default-ignorable code points removed, then NFC."""
    return unicodedata.normalize("NFC", visible_text(game_id))


def person_key(name: str) -> str:
    """The key a player's name is compared by: default-ignorable code points removed, outer
    and repeated spaces ignored, case ignored (Unicode's canonical caseless match, so
    ``É`` typed either way is one letter)."""
    visible = unicodedata.normalize("NFD", visible_text(name))
    return unicodedata.normalize("NFC", " ".join(visible.split()).casefold())
