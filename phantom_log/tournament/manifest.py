"""A tournament's manifest (``schemas/manifest-1.schema.json``): the event's players and
schedule, read from a file's bytes and checked."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..records.identity import game_key
from ..records.quoting import quoted, shortened
from ..records.schema import MANIFEST_SCHEMA
from ..records.strictjson import JsonError, parse_json


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


@dataclass(frozen=True, slots=True)
class Manifest:
    """An event's players and schedule (``schemas/manifest-1.schema.json``)."""

    source: str
    event: str | None
    players: tuple[str, ...]
    games: tuple[ScheduledGame, ...]


def read_manifest(data: bytes, source: str) -> Manifest | list[str]:
    """The manifest of a file's bytes, or the messages of its problems."""
    from ..records.schema import schema_problems

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
