"""Problem codes and the problem type: what is wrong, where, and how bad."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class Code(StrEnum):
    """The stable problem codes of docs/format.md, in the order the checks run."""

    JSON = "json"
    NOTATION = "notation"
    SCHEMA = "schema"
    UNKNOWN_SHEET = "unknown-sheet"
    BAD_SHEET = "bad-sheet"
    BAD_DEAL = "bad-deal"
    BAD_EXCHANGE = "bad-exchange"
    BAD_SPECIAL_NUMBER = "bad-special-number"
    WRONG_PLAYER = "wrong-player"
    CARD_NOT_HELD = "card-not-held"
    REVOKE = "revoke"
    MISSING_SWAP = "missing-swap"
    UNEXPECTED_SWAP = "unexpected-swap"
    AFTER_GAME_END = "after-game-end"
    INCOMPLETE_TRICK = "incomplete-trick"
    INCOMPLETE_ROUND = "incomplete-round"
    UNFINISHED = "unfinished"
    WINNER_MISMATCH = "winner-mismatch"
    NOTES_MISMATCH = "notes-mismatch"
    DUPLICATE_GAME_ID = "duplicate-game-id"
    DUPLICATE_DEAL = "duplicate-deal"
    UNREADABLE = "unreadable"
    INTERNAL_ERROR = "internal-error"


class Severity(StrEnum):
    """An error makes a record invalid; a warning does not (unless ``--strict``)."""

    ERROR = "error"
    WARNING = "warning"


WARNING_CODES = frozenset({Code.UNFINISHED, Code.DUPLICATE_DEAL})
#: The codes that say the run could not do all its work (exit code 3), not that a record
#: is invalid.
FAILURE_CODES = frozenset({Code.UNREADABLE, Code.INTERNAL_ERROR})


@dataclass(frozen=True, slots=True)
class Illegal:
    """A problem as data: its code and the facts it is about, no words.

    The engine and the sheet checks return these; :mod:`phantom_log.checking.wording` turns one
    into a :class:`Problem` with a sentence a person can act on. ``facts`` hold compact
    values (cards as ints 0-23, hands as bit masks, roles and suits as enums, counts);
    ``pointer``, ``round`` and ``trick`` say where in the record, once known.
    """

    code: Code
    facts: Mapping[str, Any] = field(default_factory=dict)
    pointer: str = ""
    round: int | None = None
    trick: int | None = None

    @property
    def is_warning(self) -> bool:
        """True for a code that is a warning by default (``unfinished``)."""
        return self.code in WARNING_CODES

    def located(self, pointer: str, round: int | None, trick: int | None) -> Illegal:
        """The same problem, placed in the record."""
        return replace(self, pointer=pointer, round=round, trick=trick)

    def with_facts(self, **facts: Any) -> Illegal:
        """The same problem with more facts."""
        return replace(self, facts={**self.facts, **facts})


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of one record.

    ``pointer`` is the JSON pointer (RFC 6901) of the offending value in the record;
    ``round`` and ``trick`` count from 1 and are ``None`` where they do not apply.
    ``hint`` is an optional second sentence telling the reader what to try.
    ``line`` and ``column`` locate a ``json`` problem in its source text, and any problem
    of a record written as game text (``.ptn``) where its part is written.
    """

    code: Code
    message: str
    pointer: str = ""
    round: int | None = None
    trick: int | None = None
    severity: Severity = Severity.ERROR
    hint: str | None = None
    line: int | None = None
    column: int | None = None

    @classmethod
    def of(
        cls,
        code: Code,
        message: str,
        pointer: str = "",
        round: int | None = None,
        trick: int | None = None,
        hint: str | None = None,
    ) -> Problem:
        """A problem with the default severity of its code."""
        severity = Severity.WARNING if code in WARNING_CODES else Severity.ERROR
        return cls(code, message, pointer, round, trick, severity, hint)

    def as_error(self) -> Problem:
        """The same problem with severity ``error`` (for ``--strict``)."""
        return replace(self, severity=Severity.ERROR)

    def to_json(self) -> dict[str, Any]:
        """The problem as docs/format.md's ``verify --format json`` writes it: ``line`` and
        ``column`` only where they are known."""
        found: dict[str, Any] = {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message,
            "pointer": self.pointer,
            "round": self.round,
            "trick": self.trick,
        }
        if self.line is not None:
            found["line"] = self.line
            found["column"] = self.column
        return found

    def placed(self, line: int, column: int) -> Problem:
        """The same problem, at ``line`` and ``column`` of its source text."""
        return replace(self, line=line, column=column)


def pointer(*parts: str | int) -> str:
    """The JSON pointer of a path, escaping ``~`` and ``/`` in keys as RFC 6901 says."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)
