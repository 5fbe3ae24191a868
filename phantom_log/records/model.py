"""Pydantic models of a game record (docs/format.md), accepting exactly what the schema accepts.

The JSON Schema (``schemas/game-record-1.schema.json``) stays the authoritative check; these
frozen models give the same verdict on every document and a typed view of a valid one.
Where pydantic's defaults differ from JSON Schema, the models follow the schema:

- validation is strict: no ``"3"`` for a number, no ``0``/``1``/``"true"`` for a boolean,
  and ``true`` is not an integer; but a float with an integral value (``1.0``) *is* an
  integer, as in JSON Schema;
- an optional key may be absent but never ``null`` (only ``result.winner`` takes ``null``);
- every object takes extension keys starting with ``x-`` (any value, kept as given, never
  validated) and rejects any other unknown key;
- string lengths count code points, lone surrogates included.

:meth:`GameRecord.to_json` gives back the document (integers given as ``1.0`` come back as
``1``).
"""

from __future__ import annotations

import datetime as _dt
import re
import warnings
from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    Strict,
    StrictBool,
    Tag,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError, PydanticKnownError

from ..rules.cards import DECK_SIZE, CardCode, RoleKey, SuitCode
from ..rules.engine import (
    CARDS_PER_HAND,
    DIE_FACES,
    PLAYS_PER_TRICK,
    ROUNDS_PER_GAME,
    TRICKS_PER_ROUND,
)
from ..rules.sheets import NOTES_PER_SHEET

if TYPE_CHECKING:
    from ..rules.replay import GameLog
    from ..rules.sheets import Sheet

__all__ = [
    "EXTENSION_PREFIX",
    "FORMAT_VERSION",
    "BarObject",
    "Deal",
    "Exchange",
    "GameRecord",
    "Play",
    "Players",
    "RecordModel",
    "ResultObject",
    "Round",
    "RulesObject",
    "SheetObject",
    "Swap",
    "Trick",
]

FORMAT_VERSION: Final = "phantom-log/1"
EXTENSION_PREFIX: Final = "x-"
TEXT_MAX: Final = 200
COMMENT_MAX: Final = 2000

# --- Scalars -----------------------------------------------------------------------------

_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_NOTE_OWNERS: Final = re.compile(r"[PC]*")


def _has_lone_surrogate(value: str) -> bool:
    if value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _code_point_length(min_length: int, max_length: int) -> WrapValidator:
    """Length bounds that also hold for strings with lone surrogates, which pydantic-core
    cannot read (it needs UTF-8) and JSON Schema counts as code points like any other."""

    def validate(value: object, handler: ValidatorFunctionWrapHandler) -> object:
        if isinstance(value, str) and _has_lone_surrogate(value):
            if len(value) < min_length:
                raise PydanticKnownError("string_too_short", {"min_length": min_length})
            if len(value) > max_length:
                raise PydanticKnownError("string_too_long", {"max_length": max_length})
            return value
        return handler(value)

    return WrapValidator(validate)


def _json_integer(value: object) -> object:
    """JSON Schema's integers include floats with an integral value, such as ``1.0``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _not_empty(value: tuple[Any, ...]) -> tuple[Any, ...]:
    # Checked after the items rather than with ``min_length``, with which pydantic also
    # reports "too short" for every list whose items all failed.
    if not value:
        raise PydanticKnownError(
            "too_short", {"field_type": "Array", "min_length": 1, "actual_length": 0}
        )
    return value


def _calendar_date(value: str) -> str:
    if _DATE.fullmatch(value) is None:
        raise ValueError("a date is written YYYY-MM-DD, e.g. 2026-11-29")
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date of the calendar") from None
    return value


_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _no_control(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("the string holds a control character")
    return value


def _no_control_but_lines(value: str) -> str:
    if _CONTROL_BUT_LINES.search(value):
        raise ValueError("the comment holds a control character other than tab and line breaks")
    return value


def _note_owners(value: str) -> str:
    if _NOTE_OWNERS.fullmatch(value) is None:
        raise ValueError("the owners of a bar's notes are letters P (Phantom) and C (Christine)")
    return value


# Literals need no ``Strict()``: from JSON data only the very strings match them.
Text = Annotated[
    str,
    Strict(),
    Field(max_length=TEXT_MAX),
    _code_point_length(0, TEXT_MAX),
    AfterValidator(_no_control),
]
Name = Annotated[
    str,
    Strict(),
    Field(min_length=1, max_length=TEXT_MAX),
    _code_point_length(1, TEXT_MAX),
    AfterValidator(_no_control),
]
Comment = Annotated[
    str,
    Strict(),
    Field(max_length=COMMENT_MAX),
    _code_point_length(0, COMMENT_MAX),
    AfterValidator(_no_control_but_lines),
]
CalendarDate = Annotated[str, Strict(), AfterValidator(_calendar_date)]
# The schema's limits (schemas/game-record-1.schema.json; a test holds them to it): the
# numbers of the game, so that a record over one breaks the schema, not the replay.
NoteOwners = Annotated[
    str, Strict(), Field(max_length=NOTES_PER_SHEET), AfterValidator(_note_owners)
]
SpecialNumberValue = Annotated[
    int, Strict(), Field(ge=1, le=DIE_FACES), BeforeValidator(_json_integer)
]
NoteCount = Annotated[
    int, Strict(), Field(ge=0, le=NOTES_PER_SHEET), BeforeValidator(_json_integer)
]
HandCards = Annotated[tuple[CardCode, ...], Field(max_length=DECK_SIZE)]
GivenCards = Annotated[tuple[CardCode, ...], Field(max_length=CARDS_PER_HAND)]


# --- The shared behaviour of every object of the format ---------------------------------


def _json_value(value: object) -> Any:
    if isinstance(value, RecordModel):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    return value


def _json_copy(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of JSON data sharing no list or dict with it, made without recursion (an
    ``x-`` value may be nested as deep as the JSON reader allows, deeper than the
    interpreter's stack)."""
    root: dict[str, Any] = {}
    pending: list[tuple[Any, Any]] = [(value, root)]
    while pending:
        source, target = pending.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, (dict, list)):
                child: Any = {} if isinstance(item, dict) else [None] * len(item)
                pending.append((item, child))
                item = child
            target[key] = item
    return root


def _shown_key(key: object) -> str:
    """A key as an error location; lone surrogates escaped, as pydantic-core needs UTF-8."""
    if isinstance(key, str):
        return key.encode("utf-8", "backslashreplace").decode("utf-8")
    return repr(key)


def _init_details(error: Any) -> InitErrorDetails:
    """An error of a caught ``ValidationError`` in the form that builds a new one."""
    kind = error["type"]
    details: InitErrorDetails = {"type": kind, "loc": error["loc"], "input": error["input"]}
    if "ctx" in error:
        details["ctx"] = error["ctx"]
    try:
        PydanticKnownError(kind, error.get("ctx"))
    except (KeyError, TypeError, ValueError):
        details["type"] = PydanticCustomError(kind, "{message}", {"message": error["msg"]})
        details.pop("ctx", None)
    return details


class RecordModel(BaseModel):
    """The base of every object of a record: frozen, strict where JSON Schema is, with
    ``x-`` extension keys kept (in ``model_extra``, unvalidated) and other unknown keys
    rejected."""

    model_config = ConfigDict(extra="allow", frozen=True)

    @model_validator(mode="wrap")
    @classmethod
    def _split_keys(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        """Hand the declared keys to pydantic, keep ``x-`` keys aside, reject the rest."""
        if not isinstance(data, dict):
            return handler(data)
        declared: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        unknown: list[InitErrorDetails] = []
        for key, value in data.items():
            if key in cls.model_fields:
                declared[key] = value
            elif isinstance(key, str) and key.startswith(EXTENSION_PREFIX):
                extensions[key] = value
            else:
                unknown.append(
                    {"type": "extra_forbidden", "loc": (_shown_key(key),), "input": value}
                )
        try:
            model = handler(declared)
        except ValidationError as error:
            if not unknown:
                raise
            errors = [_init_details(item) for item in error.errors()]
            raise ValidationError.from_exception_data(cls.__name__, errors + unknown) from None
        if unknown:
            raise ValidationError.from_exception_data(cls.__name__, unknown)
        if extensions:
            # Kept apart from pydantic, which could not hold keys with lone surrogates, and
            # copied so that the frozen model shares nothing mutable with its input.
            assert model.__pydantic_extra__ is not None
            model.__pydantic_extra__.update(_json_copy(extensions))
            model.__pydantic_fields_set__.update(extensions)
        return model

    @field_validator("*", mode="before")
    @classmethod
    def _absent_not_null(cls, value: Any, info: ValidationInfo) -> Any:
        """An optional key may be left out, but not given as ``null``."""
        if value is None and info.field_name is not None:
            field = cls.model_fields[info.field_name]
            if not field.is_required():
                raise ValueError("this key may be left out, but may not be null")
        return value

    @property
    def extensions(self) -> dict[str, Any]:
        """The ``x-`` keys of this object and their values (a copy)."""
        return _json_copy(self.model_extra or {})

    def to_json(self) -> dict[str, Any]:
        """The object as JSON data: the keys the input gave, ``x-`` keys included."""
        document = {
            name: _json_value(getattr(self, name))
            for name in type(self).model_fields
            if name in self.model_fields_set
        }
        document.update(self.extensions)
        return document


# --- The objects of a record -------------------------------------------------------------


M = TypeVar("M", bound=RecordModel)


@cache
def _layout(model: type[RecordModel]) -> tuple[frozenset[str], dict[str, Any]]:
    """A model class's field names and the defaults of its optional fields."""
    fields = model.model_fields
    defaults = {name: info.default for name, info in fields.items() if not info.is_required()}
    return frozenset(fields), defaults


def _construct(model: type[M], data: Mapping[str, Any], private: dict[str, Any] | None = None) -> M:
    """A model of data already known valid, as ``model_construct`` makes it (declared keys
    as fields, the others as extensions, defaults for the absent ones), but without its
    per-call overhead: commands make one per record."""
    fields, defaults = _layout(model)
    extra: dict[str, Any] = {}
    if data.keys() <= fields:  # no extension key: the common case, done in C
        values = {**defaults, **data}
        fields_set = set(data)
    else:
        values = dict(defaults)
        for key, value in data.items():
            if key in fields:
                values[key] = value
            else:
                extra[key] = value
        fields_set = {*data} - extra.keys()
    instance = model.__new__(model)
    _set = object.__setattr__
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", fields_set)
    _set(instance, "__pydantic_extra__", extra)
    _set(instance, "__pydantic_private__", private)
    return instance


class Players(RecordModel):
    """The players' names, one per role."""

    phantom: Name
    christine: Name


class RulesObject(RecordModel):
    """The optional rules the game was played under (both off when absent)."""

    beginner: StrictBool = False
    balance: StrictBool = False


class BarObject(RecordModel):
    """One bar of a sheet: its suit and its note owners left to right, e.g. ``"PCP"``."""

    suit: SuitCode
    notes: NoteOwners


class SheetObject(RecordModel):
    """A sheet given in the record itself (the sheet rules are checked by the replay)."""

    name: Name
    # At most one bar a note: a sheet of other than four bars is the replay's bad-sheet.
    bars: Annotated[tuple[BarObject, ...], Field(max_length=NOTES_PER_SHEET)]


class Swap(RecordModel):
    """The cards each player gave in a swap; ``{}`` when no swap was possible."""

    phantom: GivenCards | None = None
    christine: GivenCards | None = None


class Play(RecordModel):
    """One card played, and the swap that followed it if any."""

    player: RoleKey
    card: CardCode
    swap: Swap | None = None


class Trick(RecordModel):
    """The plays of one trick in order (2, or 1 in the last trick of an unfinished record),
    the recorder's claimed winner and a comment."""

    plays: Annotated[
        tuple[Play, ...], Field(max_length=PLAYS_PER_TRICK), AfterValidator(_not_empty)
    ]
    winner: RoleKey | None = None
    comment: Comment | None = None


class Deal(RecordModel):
    """The cards dealt in a round: each player's hand and, optionally, the four aside."""

    phantom: HandCards
    christine: HandCards
    aside: HandCards | None = None


class Exchange(RecordModel):
    """The card each player gave at the start of a round."""

    phantom: CardCode
    christine: CardCode


class Round(RecordModel):
    """One round: the deal, the exchange (absent under the beginner rule), the special
    number and the tricks in play order."""

    deal: Deal
    exchange: Exchange | None = None
    special_number: SpecialNumberValue
    tricks: Annotated[tuple[Trick, ...], Field(max_length=TRICKS_PER_ROUND)]


class ResultObject(RecordModel):
    """The recorder's claimed result: the winner (``None`` for an unfinished game) and the
    notes completed."""

    winner: RoleKey | None
    notes: NoteCount


def _sheet_kind(value: Any) -> str:
    # The schema's if/then/else: a string is a sheet's name, anything else a sheet object.
    return "name" if isinstance(value, str) else "object"


SheetValue = Annotated[
    Annotated[Name, Tag("name")] | Annotated[SheetObject, Tag("object")],
    Discriminator(_sheet_kind),
]


class GameRecord(RecordModel):
    """One game record, format ``phantom-log/1``."""

    format: Literal["phantom-log/1"]
    game_id: Name
    event: Text | None = None
    site: Text | None = None
    date: CalendarDate | None = None
    stage: Text | None = None
    players: Players
    sheet: SheetValue
    rules: RulesObject | None = None
    rounds: Annotated[
        tuple[Round, ...], Field(max_length=ROUNDS_PER_GAME), AfterValidator(_not_empty)
    ]
    result: ResultObject | None = None

    # The objects of a record made by from_validated not yet made into models, by field:
    # each is made on first reading (see __getattr__), or by _materialize.
    _lazy: dict[str, Any] | None = PrivateAttr(default=None)
    # The document a record made by from_validated was built from (read only; a copy made
    # by model_copy(update=...) forgets it).
    _source: Mapping[str, Any] | None = PrivateAttr(default=None)

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """The record of parsed JSON data; raises :class:`pydantic.ValidationError` for a
        document the schema rejects."""
        return cls.model_validate(data)

    @classmethod
    def from_validated(cls, data: Mapping[str, Any]) -> GameRecord:
        """The record of a document that already passed the schema check, built without
        validating it again. Its texts, players and rules are models at once; a sheet
        object, the rounds and the result become models when first read, or when the
        record is read as a whole (``model_dump``, ``==``, ``repr``, a copy, pickling).
        """
        values: dict[str, Any] = {}
        lazy: dict[str, Any] = {}
        for key, value in data.items():
            if key == "players":
                values[key] = _construct(Players, value)
            elif key == "rules":
                values[key] = _construct(RulesObject, value)
            elif key in _LAZY_FIELDS and (key != "sheet" or isinstance(value, dict)):
                lazy[key] = value
            else:
                values[key] = value
        record = _construct(cls, values, {"_lazy": lazy, "_source": data})
        for key in lazy:  # not the default: made on first reading
            record.__dict__.pop(key, None)
        record.__pydantic_fields_set__.update(lazy)
        return record

    def _private(self, name: str) -> Any:
        return (self.__pydantic_private__ or {}).get(name)

    def __getattr__(self, name: str) -> Any:
        # An object of a record made by from_validated, as a model on first reading.
        lazy = self._private("_lazy")
        if lazy and name in lazy:
            value = _LAZY_FIELDS[name](lazy.pop(name))
            self.__dict__[name] = value
            return value
        return super().__getattr__(name)  # type: ignore[misc]

    def _materialize(self) -> Self:
        """Make every object not yet made into a model (see :meth:`from_validated`)."""
        for name in list(self._private("_lazy") or ()):
            getattr(self, name)
        fields = self.__dict__
        if list(fields) != list(type(self).model_fields):
            # In the order of the fields, as a validated record holds them.
            ordered = {name: fields[name] for name in type(self).model_fields if name in fields}
            object.__setattr__(self, "__dict__", ordered)
        return self

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """See pydantic (the objects of a record from :meth:`from_validated` included)."""
        return super(GameRecord, self._materialize()).model_dump(**kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        """See pydantic (the objects of a record from :meth:`from_validated` included)."""
        return super(GameRecord, self._materialize()).model_dump_json(**kwargs)

    def __eq__(self, other: object) -> bool:
        # The same fields and extensions, however each record was made (validated, or
        # from_validated with its objects made or not).
        if not isinstance(other, GameRecord):
            return NotImplemented
        self._materialize()
        other._materialize()
        return (
            type(self) is type(other)
            and self.__dict__ == other.__dict__
            and self.__pydantic_extra__ == other.__pydantic_extra__
        )

    def __hash__(self) -> int:
        # Frozen, so hashable (as pydantic's frozen models are): by the fields' values.
        return hash((type(self), *self._materialize().__dict__.values()))

    def __repr_args__(self) -> Any:
        return super(GameRecord, self._materialize()).__repr_args__()

    def __iter__(self) -> Any:
        return super(GameRecord, self._materialize()).__iter__()

    def __copy__(self) -> Self:
        return super(GameRecord, self._materialize()).__copy__()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        return super(GameRecord, self._materialize()).__deepcopy__(memo)

    def __getstate__(self) -> dict[Any, Any]:
        return super(GameRecord, self._materialize()).__getstate__()

    def document(self) -> Mapping[str, Any]:
        """The record as JSON data, to read and not to change: the document it was built
        from when there is one (no copy is made), else :meth:`to_json`."""
        source = self._private("_source")
        return self.to_json() if source is None else source

    def to_json(self) -> dict[str, Any]:
        """The object as JSON data: the keys the input gave, ``x-`` keys included (a copy
        that the caller may change)."""
        source = self._private("_source")
        return super().to_json() if source is None else _json_copy(source)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy (see pydantic); one with changes made no longer has the document it was
        built from."""
        copied = super(GameRecord, self._materialize()).model_copy(update=update, deep=deep)
        if update and copied.__pydantic_private__ is not None:
            copied.__pydantic_private__["_source"] = None
        return copied

    def state_at(self, round: int, trick: int, sheets: Mapping[str, Sheet] | None = None) -> Any:
        """Deprecated: use ``phantom_log.position(record, round, trick)``, which this
        calls (the record model knows no position: it sits below them)."""
        warnings.warn(
            "GameRecord.state_at() is deprecated: use phantom_log.position(record, round, trick)",
            DeprecationWarning,
            stacklevel=2,
        )
        import phantom_log

        return phantom_log.position(self, round, trick, sheets)

    def replay(self, sheets: Mapping[str, Sheet] | None = None) -> GameLog:
        """Deprecated: use ``phantom_log.replay(record)`` (its ``engine`` is what this
        returns: the engine's log of the game)."""
        warnings.warn(
            "GameRecord.replay() is deprecated: use phantom_log.replay(record)",
            DeprecationWarning,
            stacklevel=2,
        )
        from ..rules.replay import replay_record

        return replay_record(dict(self.document()), sheets=sheets)


def _sheet_model(value: Any) -> SheetObject:
    """A record's sheet object as its model (a sheet's name is kept as it is, at once)."""
    bars = tuple(_construct(BarObject, bar) for bar in value["bars"])
    return _construct(SheetObject, {**value, "bars": bars})


def _rounds_model(value: Any) -> tuple[Round, ...]:
    return tuple(Round.model_validate(item) for item in value)


# How each object of a record made by GameRecord.from_validated becomes its model.
_LAZY_FIELDS: Final[dict[str, Callable[[Any], Any]]] = {
    "result": partial(_construct, ResultObject),
    "sheet": _sheet_model,
    "rounds": _rounds_model,
}
