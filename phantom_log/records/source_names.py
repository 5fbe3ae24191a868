"""What sources are called: which file names hold records (and in which form), the name of
standard input, and a path as reports write it."""

from __future__ import annotations

import os
from typing import Final

#: The suffixes of record files, and what each holds: one document, JSON Lines, or game
#: text (:mod:`phantom_log.records.game_text`).
RECORD_SUFFIXES: Final = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".ptn": "ptn"}
#: Standard input, among the paths.
STDIN: Final = "-"


def display_name(path: str) -> str:
    """A path as reports show and write it: valid UTF-8 whatever the bytes of the file
    name. A name that is not UTF-8 (which Python holds with lone surrogates) has each
    undecodable byte written as ``\\xNN``, as Python writes bytes; every other name is
    unchanged."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = os.fsencode(path)
        except UnicodeEncodeError:  # lone surrogates that were never bytes of a name
            return path.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")
    return path
