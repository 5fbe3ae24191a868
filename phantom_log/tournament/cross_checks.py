"""The checks of a tournament's records together: across records (the same game id, the
same content, the same deal, one player on both sides) and against the manifest's players
and schedule; the problems they find, and their codes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..records.identity import game_key, person_key
from ..records.quoting import quoted, shortened
from ..rules.problems import Severity
from .columns import repeated
from .facts import DEAL_SLOTS, FactsTable, RecordFacts, facts_table, player_key
from .manifest import Manifest, ScheduledGame


class TournamentCode:
    """The codes of the checks across records and against the manifest."""

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


# A record's deal slots (DEAL_SLOTS of them) as present (1) or not (0), by its deals held.
_SLOTS_PRESENT: Final = [
    bytes([1] * held + [0] * (DEAL_SLOTS - held)) for held in range(DEAL_SLOTS + 1)
]


def _error(facts: RecordFacts, code: str, message: str) -> TournamentProblem:
    return TournamentProblem(
        facts.source, facts.index, facts.game_id, code, Severity.ERROR, message
    )


#: How many other records a ``duplicate-game-id`` names; the rest are counted.
OTHERS_NAMED: Final = 5


def _named(others: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; past :data:`OTHERS_NAMED`, ``... and 7 more``."""
    if len(others) > OTHERS_NAMED:
        return ", ".join(others[:OTHERS_NAMED]) + f" and {len(others) - OTHERS_NAMED} more"
    return ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + others[-1]


def _titled(table: FactsTable, position: int) -> str:
    """A record's place and its game id: ``a.jsonl#0 (open/1)``."""
    game_id = table.game_ids[position]
    return table.where(position) + (f" ({game_id})" if game_id else "")


def cross_record_problems(all_facts: Sequence[RecordFacts]) -> list[TournamentProblem]:
    """The problems between records: the same game id twice (error, on every copy), the
    same content twice (warning, on the later copies), the same deal in two games
    (warning, on the later game), one player on both sides (error). Game ids and names
    are compared by :mod:`~phantom_log.records.identity`'s keys.

    The candidates are found by 64-bit words (:func:`~.columns.repeated`); only the
    records that share one are looked at one by one."""
    table = facts_table(all_facts)
    held_by: dict[str, list[int]] = defaultdict(list)
    shared_id = repeated(table.game_key_hashes)
    for position in sorted(shared_id):
        game_id = table.game_ids[position]
        if game_id is not None:
            held_by[game_key(game_id)].append(position)
    # Equal hashes of different keys are no repeats.
    holders = {key: found for key, found in held_by.items() if len(found) > 1}
    # A digest's first word: equal digests have equal first words.
    shared_content = repeated(table.content, table.has_content, every=2)
    # Every deal slot of every record (DEAL_SLOTS a record), present when the record has it.
    present = b"".join([_SLOTS_PRESENT[deals_held] for deals_held in table.deal_counts])
    shared_deals = repeated(table.deals, present)
    del present
    contents = table.content
    deals = table.deals
    phantoms, christines = table.phantoms, table.christines
    phantom_keys, christine_keys = table.phantom_keys, table.christine_keys
    first_content: dict[bytes, int] = {}
    first_deal: dict[int, tuple[int, int]] = {}
    problems: list[TournamentProblem] = []

    def problem(position: int, code: str, severity: Severity, message: str) -> None:
        source, index = table.place(position)
        problems.append(
            TournamentProblem(source, index, table.game_ids[position], code, severity, message)
        )

    for position in range(len(table)):
        game_id = table.game_ids[position] if position in shared_id else None
        if game_id is not None and (same_id := holders.get(game_key(game_id))):
            others = _named([table.where(other) for other in same_id if other != position])
            message = (
                f"game id {quoted(game_id)} is held by {len(same_id)} records: "
                f"this one and {others}"
            )
            problem(position, TournamentCode.DUPLICATE_GAME_ID, Severity.ERROR, message)
        copy = False
        if position in shared_content:
            digest = contents[2 * position : 2 * position + 2].tobytes()
            first = first_content.setdefault(digest, position)
            if first != position:
                copy = True  # a copy also repeats the deals: say it once
                message = f"the same record as {_titled(table, first)}, apart from the game id"
                problem(position, TournamentCode.DUPLICATE_RECORD, Severity.WARNING, message)
        for round_index in range(0 if copy else table.deal_counts[position]):
            slot = DEAL_SLOTS * position + round_index
            if slot not in shared_deals:
                continue
            seen, seen_round = first_deal.setdefault(deals[slot], (position, round_index))
            if seen != position:
                message = (
                    f"the deal of round {round_index + 1} is the deal of round {seen_round + 1} "
                    f"of {_titled(table, seen)}: a reused shuffle or a copied record"
                )
                problem(position, TournamentCode.DUPLICATE_DEAL, Severity.WARNING, message)
        if (
            phantoms.present(position)
            and christines.present(position)
            and player_key(phantom_keys, position) == player_key(christine_keys, position)
        ):
            phantom = phantoms[position]
            assert phantom is not None  # present
            message = f"{quoted(phantom)} plays both the Phantom and Christine"
            problem(position, TournamentCode.SAME_PLAYER, Severity.ERROR, message)
    return problems


def manifest_problems(
    manifest: Manifest, all_facts: Sequence[RecordFacts]
) -> list[TournamentProblem]:
    """The problems of the records against the manifest's players and schedule."""
    problems: list[TournamentProblem] = []
    known = {person_key(name) for name in manifest.players}
    if known:
        for facts in all_facts:
            for role, name in (("the Phantom", facts.phantom), ("Christine", facts.christine)):
                if name is not None and person_key(name) not in known:
                    message = f"{quoted(name)} ({role}) is not a player of the event"
                    problems.append(_error(facts, TournamentCode.UNKNOWN_PLAYER, message))
    by_id: dict[str, list[int]] = defaultdict(list)
    by_pair: dict[frozenset[str], list[int]] = defaultdict(list)
    for position, facts in enumerate(all_facts):
        if facts.game_id is not None:
            by_id[game_key(facts.game_id)].append(position)
        if facts.phantom is not None and facts.christine is not None:
            by_pair[_pair(facts.phantom, facts.christine)].append(position)
    matched: set[int] = set()
    missing: list[ScheduledGame] = []
    # The games scheduled by id first: a game scheduled by its pairing takes a record that
    # no id took.
    for game in sorted(manifest.games, key=lambda game: game.game_id is None):
        if game.game_id is not None:
            found = by_id.get(game_key(game.game_id), [])
        else:
            assert game.phantom is not None and game.christine is not None
            pairing = by_pair[_pair(game.phantom, game.christine)]
            candidates = [position for position in pairing if position not in matched]
            found = [_closest(game, candidates, all_facts)] if candidates else []
        if not found:
            missing.append(game)
        matched.update(found)
        for position in found:
            problems.extend(_compare(game, all_facts[position]))
    for game in missing:
        problems.append(
            TournamentProblem(
                manifest.source,
                None,
                game.game_id,
                TournamentCode.MISSING_GAME,
                Severity.ERROR,
                f"the schedule expects {game.name} of stage {game.stage}, and no record holds it",
            )
        )
    for position, facts in enumerate(all_facts):
        if position not in matched:
            players = (
                f" (the Phantom {shortened(facts.phantom)}, Christine {shortened(facts.christine)})"
                if facts.phantom and facts.christine
                else ""
            )
            message = f"the schedule has no such game{players}"
            problems.append(_error(facts, TournamentCode.UNSCHEDULED_GAME, message))
    return problems


def _pair(phantom: str, christine: str) -> frozenset[str]:
    return frozenset((person_key(phantom), person_key(christine)))


def _closest(game: ScheduledGame, candidates: list[int], all_facts: Sequence[RecordFacts]) -> int:
    """Of the records of a scheduled pairing, the first with its roles, then its stage."""

    def misfit(position: int) -> tuple[bool, bool]:
        facts = all_facts[position]
        phantom_differs = person_key(facts.phantom or "") != person_key(game.phantom or "")
        return phantom_differs, facts.stage != game.stage

    return min(candidates, key=misfit)


def _compare(game: ScheduledGame, facts: RecordFacts) -> list[TournamentProblem]:
    problems = []
    players_known = facts.phantom is not None and facts.christine is not None
    if game.phantom is not None and game.christine is not None and players_known:
        expected = (person_key(game.phantom), person_key(game.christine))
        actual = (person_key(facts.phantom or ""), person_key(facts.christine or ""))
        if expected != actual:
            swapped = " (the roles are swapped)" if expected == actual[::-1] else ""
            message = (
                f"the schedule has {shortened(game.phantom)} as the Phantom against "
                f"{shortened(game.christine)} as Christine in {game.name}; the record has "
                f"{shortened(facts.phantom or '')} against {shortened(facts.christine or '')}"
                f"{swapped}"
            )
            problems.append(_error(facts, TournamentCode.WRONG_PLAYERS, message))
    if facts.stage != game.stage:
        stage = "no stage" if facts.stage is None else f"stage {shortened(facts.stage)}"
        message = (
            f"the schedule puts {game.name} in stage {shortened(game.stage)}, but the "
            f"record says {stage}"
        )
        problems.append(_error(facts, TournamentCode.WRONG_STAGE, message))
    return problems
