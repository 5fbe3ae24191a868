"""Tournament checking: the checks across records, the manifest, and the standings.

Each record is first verified on its own (:mod:`phantom_log.check`); what the checks
across records need of it is kept in a small :class:`RecordFacts`, so that records can
be verified in worker processes and only their facts come back.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, cast

import orjson

from .check import RecordReport
from .identity import game_key, person_key
from .problems import Severity
from .sources import JsonError, parse_json
from .wording import quoted, shortened

MANIFEST_SCHEMA: Final = "manifest-1.schema.json"
STANDINGS_COLUMNS: Final = (
    "player",
    "games",
    "wins",
    "losses",
    "wins_as_phantom",
    "wins_as_christine",
    "notes_as_phantom",
)


class TournamentCode:
    """The codes of the checks across records and against the manifest (FORMAT.md's two,
    and the ones this command adds)."""

    DUPLICATE_GAME_ID: Final = "duplicate-game-id"
    DUPLICATE_DEAL: Final = "duplicate-deal"
    DUPLICATE_RECORD: Final = "duplicate-record"
    SAME_PLAYER: Final = "same-player"
    MISSING_GAME: Final = "missing-game"
    UNSCHEDULED_GAME: Final = "unscheduled-game"
    WRONG_PLAYERS: Final = "wrong-players"
    WRONG_STAGE: Final = "wrong-stage"
    UNKNOWN_PLAYER: Final = "unknown-player"


@dataclass(frozen=True, slots=True)
class TournamentProblem:
    """A problem found across records or against the manifest. ``index`` is ``None`` for
    a problem of the manifest itself (a game it expects that no record holds)."""

    source: str
    index: int | None
    game_id: str | None
    code: str
    severity: Severity
    message: str

    def to_json(self) -> dict[str, Any]:
        """As the JSON report writes it."""
        return {
            "source": self.source,
            "index": self.index,
            "game_id": self.game_id,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class RecordFacts:
    """What the checks across records need of one verified record."""

    source: str
    index: int
    game_id: str | None
    valid: bool
    phantom: str | None
    christine: str | None
    stage: str | None
    content: bytes | None
    deals: tuple[bytes, ...]
    winner: str | None
    notes: int | None
    finished: bool

    @property
    def where(self) -> str:
        """The record's place: ``source#index``."""
        return f"{self.source}#{self.index}"


def record_facts(report: RecordReport) -> RecordFacts:
    """The facts of one verified record."""
    result = report.result
    facts = facts_of(
        report.source,
        report.index,
        report.game_id,
        report.valid,
        report.record,
        report.replay is not None,
        None if result is None or result.winner is None else result.winner.key,
        None if result is None else result.notes,
    )
    model = report.model
    if model is None:
        return facts
    # A record of the schema's shape: its names and stage as the record model reads them.
    return replace(
        facts,
        phantom=sys.intern(model.players.phantom),
        christine=sys.intern(model.players.christine),
        stage=None if model.stage is None else sys.intern(model.stage),
    )


def facts_of(
    source: str,
    index: int,
    game_id: str | None,
    valid: bool,
    record: Any,
    replayed: bool,
    winner: str | None,
    notes: int | None,
) -> RecordFacts:
    """The facts of one record: where it is, its verdict, the parsed record, whether the
    replay got past the schema (so its deals can be read), its winner and notes."""
    phantom = christine = stage = content = None
    deals: tuple[bytes, ...] = ()
    if isinstance(record, dict):
        players = record.get("players")
        if isinstance(players, dict):
            phantom = players.get("phantom") if isinstance(players.get("phantom"), str) else None
            christine = (
                players.get("christine") if isinstance(players.get("christine"), str) else None
            )
        stage = record.get("stage") if isinstance(record.get("stage"), str) else None
        body = {key: value for key, value in record.items() if key != "game_id"}
        content = _content_digest(body)
        if replayed:
            deals = tuple(_deal_key(data["deal"]) for data in record["rounds"])
    # Names and stages repeat across the records of an event: keep one copy of each.
    return RecordFacts(
        source,
        index,
        game_id,
        valid,
        None if phantom is None else sys.intern(phantom),
        None if christine is None else sys.intern(christine),
        None if stage is None else sys.intern(stage),
        content,
        deals,
        winner,
        notes,
        winner is not None,
    )


def _content_digest(body: Any) -> bytes:
    """A digest of a record's content, the same for the same content whatever the order
    of its keys."""
    try:
        text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        # Nested deeper than orjson writes (in an x- value, say), or a number it cannot
        # write: the same text, written without recursion. The same content always takes
        # the same way, so the digests still compare.
        text = _canonical_json(body)
    return hashlib.blake2b(text, digest_size=16).digest()


_END: Final = object()


def _canonical_json(value: Any) -> bytes:
    """The JSON text of a value with sorted keys, written with a stack of its own, so
    that no depth is too deep."""
    out: list[str] = []
    # Each frame: the items still to write, the closing bracket, whether none is written
    # yet, whether the items are an object's (key, value) pairs.
    stack: list[tuple[Iterator[Any], str, list[bool], bool]] = [(iter((value,)), "", [True], False)]
    while stack:
        items, closing, first, pairs = stack[-1]
        item = next(items, _END)
        if item is _END:
            out.append(closing)
            stack.pop()
            continue
        if not first[0]:
            out.append(",")
        first[0] = False
        if pairs:
            key, item = cast(tuple[str, Any], item)
            out.append(json.dumps(key) + ":")
        if isinstance(item, dict):
            out.append("{")
            stack.append((iter(sorted(item.items())), "}", [True], True))
        elif isinstance(item, list):
            out.append("[")
            stack.append((iter(item), "]", [True], False))
        else:
            out.append(json.dumps(item))
    return "".join(out).encode("utf-8", "surrogatepass")


def _deal_key(deal: Mapping[str, Any]) -> bytes:
    hands = "|".join(" ".join(sorted(deal[role])) for role in ("phantom", "christine"))
    return hashlib.blake2b(hands.encode(), digest_size=12).digest()


# -- the manifest -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """A game the manifest expects: by id, or by its pairing (with roles) in a stage."""

    stage: str
    game_id: str | None
    phantom: str | None
    christine: str | None

    @property
    def name(self) -> str:
        """The game in words, without its stage."""
        if self.game_id is not None:
            return f"game {quoted(self.game_id)}"
        return (
            f"the game of {shortened(self.phantom or '')} (the Phantom) against "
            f"{shortened(self.christine or '')} (Christine)"
        )

    @property
    def label(self) -> str:
        """The game in words, with its stage."""
        return f"{self.name} of stage {self.stage}"


@dataclass(frozen=True, slots=True)
class Manifest:
    """An event's players and schedule (``schemas/manifest-1.schema.json``)."""

    source: str
    event: str | None
    players: tuple[str, ...]
    games: tuple[ScheduledGame, ...]


def read_manifest(data: bytes, source: str) -> Manifest | list[str]:
    """The manifest of a file's bytes, or the messages of its problems."""
    from .check import schema_problems

    try:
        document = parse_json(data)
    except JsonError as error:
        return [f"json: {error.problem().message}"]
    problems = schema_problems(document, MANIFEST_SCHEMA)
    if problems:
        return [f"{p.pointer or '/'}: {p.code}: {p.message}" for p in problems]
    games = tuple(
        ScheduledGame(
            stage["stage"],
            game.get("game_id"),
            game.get("phantom"),
            game.get("christine"),
        )
        for stage in document["stages"]
        for game in stage["games"]
    )
    messages = []
    spellings: dict[str, list[str]] = defaultdict(list)
    for game in games:
        if game.game_id is not None:
            spellings[game_key(game.game_id)].append(game.game_id)
    repeated = sorted(ids[0] for ids in spellings.values() if len(ids) > 1)
    if repeated:
        messages.append(
            "the schedule lists game ids more than once: "
            + ", ".join(shortened(game_id) for game_id in repeated)
        )
    for game in games:
        if game.game_id is None and (game.phantom is None or game.christine is None):
            messages.append(f"a game of stage {game.stage} has neither a game_id nor both players")
    if messages:
        return messages
    return Manifest(source, document.get("event"), tuple(document.get("players", ())), games)


# -- the checks across records ------------------------------------------------------------


@dataclass
class TournamentReport:
    """What tournament checking found: counts, every problem, the standings."""

    records: int = 0
    valid: int = 0
    problems: list[TournamentProblem] = field(default_factory=list)
    standings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def invalid(self) -> int:
        """Records with an error of their own or across records."""
        return self.records - self.valid

    @property
    def errors(self) -> int:
        """Problems of severity error."""
        return sum(problem.severity is Severity.ERROR for problem in self.problems)

    def to_json(self) -> dict[str, Any]:
        """The JSON report."""
        return {
            "records": self.records,
            "valid": self.valid,
            "invalid": self.invalid,
            "problems": [problem.to_json() for problem in self.problems],
            "standings": self.standings,
        }


def _problem(facts: RecordFacts, code: str, severity: Severity, message: str) -> TournamentProblem:
    return TournamentProblem(facts.source, facts.index, facts.game_id, code, severity, message)


#: How many other records a ``duplicate-game-id`` names; the rest are counted.
OTHERS_NAMED: Final = 5


def _named(others: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; past :data:`OTHERS_NAMED`, ``... and 7 more``."""
    if len(others) > OTHERS_NAMED:
        return ", ".join(others[:OTHERS_NAMED]) + f" and {len(others) - OTHERS_NAMED} more"
    return ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + others[-1]


def cross_record_problems(all_facts: list[RecordFacts]) -> list[TournamentProblem]:
    """The problems between records: the same game id twice (error, on every copy), the
    same content twice (warning, on the later copies), the same deal in two games
    (warning, on the later game), one player on both sides (error). Game ids and names
    are compared by :mod:`~phantom_log.identity`'s keys."""
    problems: list[TournamentProblem] = []
    by_id: dict[str, list[RecordFacts]] = defaultdict(list)
    first_content: dict[bytes, RecordFacts] = {}
    first_deal: dict[bytes, tuple[RecordFacts, int]] = {}
    for facts in all_facts:
        if facts.game_id is not None:
            by_id[game_key(facts.game_id)].append(facts)
    for facts in all_facts:
        holders = [] if facts.game_id is None else by_id[game_key(facts.game_id)]
        if len(holders) > 1:
            others = [other.where for other in holders if other is not facts]
            problems.append(
                _problem(
                    facts,
                    TournamentCode.DUPLICATE_GAME_ID,
                    Severity.ERROR,
                    f"game id {quoted(facts.game_id or '')} is held by {len(holders)} "
                    f"records: this one and {_named(others)}",
                )
            )
        copy = False
        if facts.content is not None:
            first = first_content.setdefault(facts.content, facts)
            if first is not facts:
                copy = True  # a copy also repeats the deals: say it once
                problems.append(
                    _problem(
                        facts,
                        TournamentCode.DUPLICATE_RECORD,
                        Severity.WARNING,
                        f"the same record as {first.where}"
                        + (f" ({first.game_id})" if first.game_id else "")
                        + ", apart from the game id",
                    )
                )
        for round_index, deal in enumerate(() if copy else facts.deals):
            seen = first_deal.setdefault(deal, (facts, round_index))
            if seen[0] is not facts:
                problems.append(
                    _problem(
                        facts,
                        TournamentCode.DUPLICATE_DEAL,
                        Severity.WARNING,
                        f"the deal of round {round_index + 1} is the deal of round "
                        f"{seen[1] + 1} of {seen[0].where}"
                        + (f" ({seen[0].game_id})" if seen[0].game_id else "")
                        + ": a reused shuffle or a copied record",
                    )
                )
        if (
            facts.phantom is not None
            and facts.christine is not None
            and person_key(facts.phantom) == person_key(facts.christine)
        ):
            problems.append(
                _problem(
                    facts,
                    TournamentCode.SAME_PLAYER,
                    Severity.ERROR,
                    f"{quoted(facts.phantom)} plays both the Phantom and Christine",
                )
            )
    return problems


def manifest_problems(manifest: Manifest, all_facts: list[RecordFacts]) -> list[TournamentProblem]:
    """The problems of the records against the manifest's players and schedule."""
    problems: list[TournamentProblem] = []
    known = {person_key(name) for name in manifest.players}
    if known:
        for facts in all_facts:
            for role, name in (("the Phantom", facts.phantom), ("Christine", facts.christine)):
                if name is not None and person_key(name) not in known:
                    problems.append(
                        _problem(
                            facts,
                            TournamentCode.UNKNOWN_PLAYER,
                            Severity.ERROR,
                            f"{quoted(name)} ({role}) is not a player of the event",
                        )
                    )
    matched: set[int] = set()
    by_id: dict[str, list[int]] = defaultdict(list)
    for position, facts in enumerate(all_facts):
        if facts.game_id is not None:
            by_id[game_key(facts.game_id)].append(position)
    missing: list[ScheduledGame] = []
    pairings: list[ScheduledGame] = []
    for game in manifest.games:
        if game.game_id is None:
            pairings.append(game)
            continue
        positions = by_id.get(game_key(game.game_id), [])
        if not positions:
            missing.append(game)
            continue
        matched.update(positions)
        for position in positions:
            problems.extend(_compare(game, all_facts[position]))
    by_pair: dict[frozenset[str], list[int]] = defaultdict(list)
    for position, facts in enumerate(all_facts):
        if facts.phantom is not None and facts.christine is not None:
            by_pair[frozenset((person_key(facts.phantom), person_key(facts.christine)))].append(
                position
            )
    for game in pairings:
        assert game.phantom is not None and game.christine is not None
        wanted = frozenset((person_key(game.phantom), person_key(game.christine)))
        candidates = [position for position in by_pair[wanted] if position not in matched]
        if not candidates:
            missing.append(game)
            continue

        def fit(position: int, game: ScheduledGame = game) -> tuple[bool, bool]:
            facts = all_facts[position]
            return (
                person_key(facts.phantom or "") != person_key(game.phantom or ""),
                facts.stage != game.stage,
            )

        best = min(candidates, key=fit)
        matched.add(best)
        problems.extend(_compare(game, all_facts[best]))
    for game in missing:
        problems.append(
            TournamentProblem(
                manifest.source,
                None,
                game.game_id,
                TournamentCode.MISSING_GAME,
                Severity.ERROR,
                f"the schedule expects {game.label}, and no record holds it",
            )
        )
    for position, facts in enumerate(all_facts):
        if position not in matched:
            problems.append(
                _problem(
                    facts,
                    TournamentCode.UNSCHEDULED_GAME,
                    Severity.ERROR,
                    "the schedule has no such game"
                    + (
                        f" (the Phantom {shortened(facts.phantom)}, "
                        f"Christine {shortened(facts.christine)})"
                        if facts.phantom and facts.christine
                        else ""
                    ),
                )
            )
    return problems


def _compare(game: ScheduledGame, facts: RecordFacts) -> list[TournamentProblem]:
    problems = []
    players_known = facts.phantom is not None and facts.christine is not None
    if game.phantom is not None and game.christine is not None and players_known:
        expected = (person_key(game.phantom), person_key(game.christine))
        actual = (person_key(facts.phantom or ""), person_key(facts.christine or ""))
        if expected != actual:
            swapped = expected == actual[::-1]
            problems.append(
                _problem(
                    facts,
                    TournamentCode.WRONG_PLAYERS,
                    Severity.ERROR,
                    f"the schedule has {shortened(game.phantom)} as the Phantom against "
                    f"{shortened(game.christine)} as Christine in {game.name}; the record has "
                    f"{shortened(facts.phantom or '')} against "
                    f"{shortened(facts.christine or '')}"
                    + (" (the roles are swapped)" if swapped else ""),
                )
            )
    if facts.stage != game.stage:
        problems.append(
            _problem(
                facts,
                TournamentCode.WRONG_STAGE,
                Severity.ERROR,
                f"the schedule puts {game.name} in stage {shortened(game.stage)}, but the "
                "record says "
                + ("no stage" if facts.stage is None else f"stage {shortened(facts.stage)}"),
            )
        )
    return problems


def standings(
    all_facts: Iterable[RecordFacts],
    left_out: set[tuple[str, int]] = frozenset(),  # type: ignore[assignment]
) -> list[dict[str, Any]]:
    """Per player, over the finished games of valid records that are not in ``left_out``
    (records with an error across records or against the manifest, and later copies of
    a record): games, wins, losses, wins as the Phantom and as Christine, and notes
    completed as the Phantom (the tie-break); sorted by wins, then that tie-break, then
    name."""
    table: dict[str, dict[str, Any]] = {}
    for facts in all_facts:
        if (
            not facts.valid
            or not facts.finished
            or facts.phantom is None
            or facts.christine is None
            or (facts.source, facts.index) in left_out
        ):
            continue
        for role, name in (("phantom", facts.phantom), ("christine", facts.christine)):
            row = table.setdefault(
                person_key(name), {"player": name, **dict.fromkeys(STANDINGS_COLUMNS[1:], 0)}
            )
            row["games"] += 1
            won = facts.winner == role
            row["wins" if won else "losses"] += 1
            if won:
                row[f"wins_as_{role}"] += 1
            if role == "phantom":
                row["notes_as_phantom"] += facts.notes or 0
    return sorted(
        table.values(),
        key=lambda row: (-row["wins"], -row["notes_as_phantom"], row["player"].casefold()),
    )


def tournament_report(
    all_facts: list[RecordFacts],
    record_problems: list[TournamentProblem],
    manifest: Manifest | None,
    strict: bool = False,
) -> TournamentReport:
    """The whole report: the records' own problems, then those across records and against
    the manifest (all errors when ``strict``); a record is valid when no error, of its own
    or across records, names it. The standings leave out the records with an error and
    the later copies of a record."""
    across = cross_record_problems(all_facts)
    if manifest is not None:
        across += manifest_problems(manifest, all_facts)
    if strict:
        across = [replace(problem, severity=Severity.ERROR) for problem in across]
    problems = [*record_problems, *across]
    failing = {
        (problem.source, problem.index)
        for problem in problems
        if problem.severity is Severity.ERROR and problem.index is not None
    }
    copies = {
        (problem.source, problem.index)
        for problem in across
        if problem.code == TournamentCode.DUPLICATE_RECORD and problem.index is not None
    }
    valid = sum((facts.source, facts.index) not in failing for facts in all_facts)
    return TournamentReport(len(all_facts), valid, problems, standings(all_facts, failing | copies))
