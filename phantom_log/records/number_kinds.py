"""The kinds of number a run is given (a size limit, worker processes, a count, a record's
index, a seed, a time limit) and what each may be: one check per kind, the same for the
command line's options and the Python API's keyword arguments, so that no command takes a
number another refuses.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import Final, Generic, TypeVar, cast

#: The largest 64-bit signed integer: the largest size a file can have (``off_t``), and
#: the largest number a record may hold (docs/format.md).
INT64_MAX: Final = 2**63 - 1
INT64_MIN: Final = -(2**63)
#: The most worker processes a run starts (``--jobs``): far past any machine's cores.
MAX_WORKERS: Final = 1024
#: The longest time limit, in seconds (about 31 years).
MAX_SECONDS: Final = 10**9

#: A number of a kind: an ``int`` or a ``float``.
Number = TypeVar("Number", int, float)

# A whole number as an option writes it: ASCII digits (int() and float() would also take
# other scripts' digits), an optional sign, underscores between digits as Python writes
# them. A real number is what float() reads of ASCII text.
_WHOLE: Final = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")
# Digits past this many make a number outside every kind's range: never converted (int()
# refuses more than 4,300 digits, and takes time in the square of the digits).
_MOST_DIGITS: Final = 40


@dataclass(frozen=True, slots=True)
class NumberKind(Generic[Number]):
    """A kind of number: ``what`` names it for people ("a number of worker processes"),
    ``type`` is ``int`` for a whole number or ``float`` for any real one, and it lies from
    ``minimum`` to ``maximum`` (``minimum`` itself excluded when ``above_minimum``)."""

    what: str
    type: type[Number]
    minimum: int
    maximum: int
    above_minimum: bool = False

    @property
    def allowed(self) -> str:
        """What a number of this kind may be, for people: ``a whole number from 1 to
        1024``."""
        low, high = self.minimum, self.maximum
        if self.type is int:
            return f"a whole number from {low} to {high}"
        if self.above_minimum:
            return f"a number above {low} and at most {high}"
        return f"a number from {low} to {high}"

    def refusal(self, given: str) -> str:
        """Why the text ``given`` is no number of this kind: ``'nan' is not a number of
        worker processes: give a whole number from 1 to 1024``."""
        return f"{shown_text(given)} is not {self.what}: give {self.allowed}"

    def holds(self, number: float) -> bool:
        """True when ``number`` is in the kind's range (``nan``, which no comparison holds
        for, is in none)."""
        above = number > self.minimum if self.above_minimum else number >= self.minimum
        return above and number <= self.maximum

    def checked(self, value: object, name: str) -> Number:
        """``value`` as a number of this kind, for the argument ``name`` of a function:
        ``ValueError`` for a number out of the kind's range (``nan`` and the infinities
        are in none), ``TypeError`` for a value that is no number of the kind at all (a
        string, ``True``, ``2.0`` for a whole number)."""
        refused = f"{name}={value!r} is not {self.what}: give {self.allowed}"
        if isinstance(value, bool | str | bytes) or value is None:
            raise TypeError(refused)
        try:
            number = operator.index(value) if self.type is int else float(value)  # type: ignore[arg-type]
        except OverflowError:  # an integer past every float: out of range
            raise ValueError(refused) from None
        except (TypeError, ValueError):
            raise TypeError(refused) from None
        if not self.holds(number):
            raise ValueError(refused)
        return cast(Number, number)

    def parsed(self, text: str) -> Number:
        """The number an option's text writes, checked: ``ValueError`` saying why not (as
        :meth:`refusal` words it)."""
        given = text.strip()
        number: float
        if self.type is int:
            digits = given.replace("_", "").lstrip("+-").lstrip("0")
            if not _WHOLE.fullmatch(given) or len(digits) > _MOST_DIGITS:
                raise ValueError(self.refusal(text))
            number = int(given)
        else:
            try:
                number = float(given) if given.isascii() else math.nan
            except ValueError:
                raise ValueError(self.refusal(text)) from None
        if not self.holds(number):
            raise ValueError(self.refusal(text))
        return cast(Number, number)


def shown_text(text: str) -> str:
    """An option's text as a message quotes it: short, and quoted (``'nan'``)."""
    return repr(text) if len(text) <= _MOST_DIGITS else f"{text[:_MOST_DIGITS]!r}..."


#: A size in bytes (``--max-record-size``, ``max_record_size=``): at least a byte, at most
#: the largest file.
SIZE: Final = NumberKind("a size in bytes", int, minimum=1, maximum=INT64_MAX)
#: Worker processes (``--jobs``, ``jobs=``).
WORKERS: Final = NumberKind("a number of worker processes", int, minimum=1, maximum=MAX_WORKERS)
#: A count of things made or drawn (``simulate --count``, ``analyse --worlds``): at least
#: one; the numbers of a record are 64-bit, and so is a count.
COUNT: Final = NumberKind("a count", int, minimum=1, maximum=INT64_MAX)
#: The index of a record in its source, from 0 (``show --index``).
INDEX: Final = NumberKind("a record's index", int, minimum=0, maximum=INT64_MAX)
#: A random seed (``--seed``, ``seed=``): any 64-bit integer, since a simulated record
#: carries its seed and a record's numbers are 64-bit.
SEED: Final = NumberKind("a seed", int, minimum=INT64_MIN, maximum=INT64_MAX)
#: A time limit in seconds (``--time-limit``, ``time_limit=``): some time, and not forever.
SECONDS: Final = NumberKind(
    "a time limit in seconds", float, minimum=0, maximum=MAX_SECONDS, above_minimum=True
)
