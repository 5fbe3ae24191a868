"""A realistic, seeded corpus of phantom-log records, for benchmarks.

    python benchmarks/corpus.py --records N [--seed S] --out DIR [--array-records K]
                                [--jobs J] [--check]

The same N, seed and K give byte-identical files, whatever --jobs. DIR receives:

- ``corpus.jsonl``: the N records, one per line (JSON Lines);
- ``array/array-0000.json``, ``array/array-0001.json``, ...: the same records as JSON
  arrays of at most K records each (default 10,000; ``--array-records 0`` writes a single
  ``array/corpus.json``), every other file with one record a line and the others on one
  line, as ``json.dump`` writes a list. The records of code ``json`` are left out of the
  arrays (broken text cannot sit inside an array); ``array/broken.json`` holds one such
  record instead, so the array form has the ``json`` code too, with
  ``N - (json records) + 1`` records;
- ``labels.txt``: the intended verdict of each line of ``corpus.jsonl``: ``valid``,
  ``unfinished`` (valid, with the warning) or the code of the intended first error;
- ``composition.json``: the counts per category, written last: a directory that has it
  holds a complete corpus.

Every record is built from the simulator (``phantom_log.analysis.simulator``) and the sheets
(``phantom_log.rules.sheets``), then dressed as a real record: metadata on every record (event,
site, date, stage; players from a pool of about N / 5 names, never one player on both
sides), colons, quotes, commas and non-ASCII text in strings, comments on some tricks and
``x-`` extension keys with nested values on some objects. The mix, record by record from
the seed:

- 25% carry their own sheet object (one of several valid layouts, bars of 1 to 6 notes),
  the rest name the built-in sheet ``rulebook``;
- rules none / beginner / balance / both, and each side's policy random or greedy, evenly;
- in every run of 20 records, one is unfinished (cut after some play, its result
  ``{"winner": null, ...}`` or absent) and one is invalid: a legal record mutated so that
  its first error has a given code, the codes taken in turn (a seeded order), so every
  code of FORMAT.md that one record can have appears once per 340 records.

``--check`` then runs ``phantom-log verify --format json`` on both forms and compares
every record's verdict with its label.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import orjson

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.rules.cards import CARD_CODES, NUMBERS_PER_SUIT, ROLE_KEYS, hand_cards
from phantom_log.rules.engine import Rules
from phantom_log.rules.events import CardPlayed, TrickEnded
from phantom_log.rules.replay import replay_record
from phantom_log.rules.sheets import BUILTIN_SHEETS, sheet_from_json

JsonDict = dict[str, Any]

#: Bump when the records built change, so that cached corpora are rebuilt.
CORPUS_VERSION: Final = 2
#: Records per run: one of them invalid, one unfinished (5% each).
BLOCK: Final = 20
CUSTOM_SHEET_SHARE: Final = 0.25
DEFAULT_ARRAY_RECORDS: Final = 10_000
JSONL_NAME: Final = "corpus.jsonl"
ARRAY_DIR: Final = "array"
BROKEN_NAME: Final = "broken.json"
LABELS_NAME: Final = "labels.txt"
COMPOSITION_NAME: Final = "composition.json"
VALID: Final = "valid"
UNFINISHED: Final = "unfinished"

#: The codes a single record can have as its first error (FORMAT.md), in the order of its
#: table; ``unfinished`` is a warning (its own category), and ``duplicate-game-id``,
#: ``duplicate-deal``, ``unreadable`` and ``internal-error`` are not a record's own.
INVALID_CODES: Final = (
    "json",
    "schema",
    "unknown-sheet",
    "bad-sheet",
    "bad-deal",
    "bad-exchange",
    "bad-special-number",
    "wrong-player",
    "card-not-held",
    "revoke",
    "missing-swap",
    "unexpected-swap",
    "after-game-end",
    "incomplete-trick",
    "incomplete-round",
    "winner-mismatch",
    "notes-mismatch",
)

POLICY_NAMES: Final = ("random", "greedy")
RULE_MIXES: Final = ("none", "beginner", "balance", "both")

#: Valid custom layouts: four bars, each suit once, 12 notes, bars of 1 to 6 notes.
CUSTOM_SHEET_LAYOUTS: Final[tuple[JsonDict, ...]] = (
    {"name": "Valse lente: é", "bars": [
        {"suit": "Ri", "notes": "P"}, {"suit": "Mi", "notes": "CPPCPC"},
        {"suit": "Ma", "notes": "PPC"}, {"suit": "Ch", "notes": "CP"}]},
    {"name": 'La "Masquerade", acte 2', "bars": [
        {"suit": "Ma", "notes": "PCPCP"}, {"suit": "Ch", "notes": "C"},
        {"suit": "Mi", "notes": "PPCPC"}, {"suit": "Ri", "notes": "P"}]},
    {"name": "서곡 (overture)", "bars": [
        {"suit": "Mi", "notes": "CPC"}, {"suit": "Ri", "notes": "PCPC"},
        {"suit": "Ch", "notes": "PP"}, {"suit": "Ma", "notes": "CPC"}]},
    {"name": "Angel of Music", "bars": [
        {"suit": "Ch", "notes": "PCPCPC"}, {"suit": "Ma", "notes": "PC"},
        {"suit": "Ri", "notes": "CP"}, {"suit": "Mi", "notes": "PP"}]},
    {"name": "Il Muto: finale", "bars": [
        {"suit": "Ri", "notes": "CPCP"}, {"suit": "Ma", "notes": "PCPC"},
        {"suit": "Mi", "notes": "PPC"}, {"suit": "Ch", "notes": "P"}]},
    {"name": "Point of no return", "bars": [
        {"suit": "Ma", "notes": "P"}, {"suit": "Mi", "notes": "C"},
        {"suit": "Ch", "notes": "PCPCP"}, {"suit": "Ri", "notes": "CPPCP"}]},
    {"name": "waltz", "bars": [
        {"suit": "Ri", "notes": "PC"}, {"suit": "Mi", "notes": "CPPC"},
        {"suit": "Ma", "notes": "PPC"}, {"suit": "Ch", "notes": "CPP"}]},
)  # fmt: skip

EVENTS: Final = (
    ("seoul-open-2026", "Seoul Open 2026: final"),
    ("seoul-open-2026", "Seoul Open 2026"),
    ("le-fantome", 'Club "Le Fantôme" night'),
    ("coupe-ete", "Coupe d'été, Paris"),
    ("gimhae-cup", "김해 Phantom Cup"),
    ("league-s3", "Phantom League: season 3, week 7"),
    ("garnier", "Opéra Garnier Invitational"),
    ("ladder", "Online ladder"),
    ("zurich", "Zürich Masters"),
    ("busan-open", "Busan Open: qualifiers"),
)
SITES: Final = (
    "Seoul", "Montréal, QC", "Zürich", "부산", "New York: Brooklyn", "Paris 9e", "online",
    'The "Cellar", Lyon', "São Paulo", "Kraków",
)  # fmt: skip
STAGES: Final = (
    "1", "2", "3", "4", "5", "quarter-final", "semi-final", "final", "final: table 2", "R16",
    "pool A, game 3",
)  # fmt: skip
GIVEN_NAMES: Final = (
    "Min-jun", "Seo-yeon", "Zoë", "José", "Chloé", "Ji-woo", "Renée", "Łukasz", "Ana",
    "Erik", "Christine", "Raoul", "민준", "서연", "Aoife", "Björn", "Élodie", "Noah",
    "Mariana", "Yusuf", "Hana", "Olivier", "Sinéad", "Tomás",
)  # fmt: skip
FAMILY_NAMES: Final = (
    "Kim", "Lee", "Park", "Choi", "김", "이", "Dupont", "Müller", "D'Amico", "O'Brien",
    "Nakamura", "García", "Nowak", "Rossi", "Dubois", "Jung", "Kang", "Smith", "Ødegaard",
    "Yoon", "Silva", "Novák", "Han", "Costa",
)  # fmt: skip
COMMENTS: Final = (
    'Christine plays the "Chandelier" 3: risky',
    "swap after the lead, é",
    "note 5 was the Phantom's: out of order",
    "long think (2 min)\nthen the Mask",
    "tempo:\tslow",
    "김: 좋은 수",
    "back\\slash, commas, colons: all fine",
    "super trump moves to Ring; the table goes quiet",
)
APPS: Final = ("PhantomScore 2.1: beta", "paper sheet, typed later", "scorer's tablet, é")


# -- the cards of a record as it is played ----------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaySpot:
    """One play of a record, with the hand its player held as they made it (after any
    exchange and earlier swaps, the card still in it) and the suit led (for a follow)."""

    round_index: int
    trick_index: int
    play_index: int
    role: str
    hand: frozenset[str]
    lead_suit: str | None


@dataclass(slots=True)
class Walk:
    """A legal record played through by the rules: every play, each trick's winner, the
    notes after each trick, and the notes at the end."""

    plays: list[PlaySpot] = field(default_factory=list)
    winners: dict[tuple[int, int], str] = field(default_factory=dict)
    notes_after: dict[tuple[int, int], int] = field(default_factory=dict)
    notes: int = 0


def walk(record: JsonDict) -> Walk:
    """A legal record (as the simulator writes it) played through by the engine's replay,
    read from its events: the hands at each play, the trick winners and the notes."""
    log = replay_record(record)
    if not log.valid or log.result is None:
        raise AssertionError(f"not a legal record: {[problem.code for problem in log.problems]}")
    found = Walk(notes=log.result.notes)
    lead_suit = None
    for event in log.events:
        if isinstance(event, CardPlayed):
            # The hands are those after the card: the player held it as they played it.
            hand = event.hands[event.player_code] | 1 << event.card
            found.plays.append(
                PlaySpot(
                    event.round - 1,
                    event.trick - 1,
                    0 if event.leading else 1,
                    event.player.key,
                    frozenset(CARD_CODES[card] for card in hand_cards(hand)),
                    None if event.leading else lead_suit,
                )
            )
            if event.leading:
                lead_suit = CARD_CODES[event.card][:2]
        elif isinstance(event, TrickEnded):
            place = (event.round - 1, event.trick - 1)
            found.winners[place] = event.winner.key
            found.notes_after[place] = event.notes_after
    return found


# -- what each record is ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Config:
    """How a record's game is simulated: a custom sheet layout (index) or the built-in
    sheet (``None``), the optional rules, each side's policy."""

    layout: int | None
    rules: str
    phantom: str
    christine: str


@cache
def _custom_sheets() -> tuple[Any, ...]:
    sheets = []
    for layout in CUSTOM_SHEET_LAYOUTS:
        sheet = sheet_from_json(layout)
        if isinstance(sheet, list):
            raise AssertionError(f"custom layout {layout['name']!r} is not valid: {sheet}")
        sheets.append(sheet)
    return tuple(sheets)


def simulation_of(config: Config, seed: int) -> Simulation:
    """The simulator's settings for a record's configuration."""
    rules = Rules(
        beginner=config.rules in ("beginner", "both"),
        balance=config.rules in ("balance", "both"),
    )
    if config.layout is None:
        return Simulation(BUILTIN_SHEETS["rulebook"], rules, config.phantom, config.christine, seed)
    sheet = _custom_sheets()[config.layout]
    return Simulation(sheet, rules, config.phantom, config.christine, seed, sheet_is_builtin=False)


@cache
def _code_order(seed: int) -> tuple[str, ...]:
    order = list(INVALID_CODES)
    random.Random(f"phantom-log-corpus:{seed}:codes").shuffle(order)
    return tuple(order)


def category_of(seed: int, index: int) -> str:
    """The intended verdict of record ``index`` (from 0): ``valid``, ``unfinished`` or the
    code of its first error. In every block of 20 records exactly one is unfinished and one
    invalid; the blocks take the invalid codes in turn."""
    block, position = divmod(index, BLOCK)
    rng = random.Random(f"phantom-log-corpus:{seed}:block:{block}")
    invalid_at, unfinished_at = rng.sample(range(BLOCK), 2)
    if position == invalid_at:
        order = _code_order(seed)
        return order[block % len(order)]
    if position == unfinished_at:
        return UNFINISHED
    return VALID


def draw_config(rng: random.Random, category: str) -> Config:
    """A record's configuration: the mix of the module's docstring, narrowed where the
    intended code needs it (a custom sheet to break, an exchange, a Phantom likely to
    win)."""
    layout = rng.randrange(len(CUSTOM_SHEET_LAYOUTS)) if rng.random() < CUSTOM_SHEET_SHARE else None
    rules = rng.choice(RULE_MIXES)
    phantom, christine = rng.choice(POLICY_NAMES), rng.choice(POLICY_NAMES)
    if category == "bad-sheet" and layout is None:
        layout = rng.randrange(len(CUSTOM_SHEET_LAYOUTS))
    if category == "unknown-sheet":
        layout = None
    if category == "bad-special-number" and rules in ("beginner", "both"):
        rules = "none" if rules == "beginner" else "balance"
    if category == "after-game-end":
        phantom, christine = "greedy", "random"
    return Config(layout, rules, phantom, christine)


def player_name(number: int) -> str:
    """The name of player ``number`` of the pool: distinct numbers give names that differ
    even ignoring case and spaces."""
    given = GIVEN_NAMES[number % len(GIVEN_NAMES)]
    rest = number // len(GIVEN_NAMES)
    family = FAMILY_NAMES[rest % len(FAMILY_NAMES)]
    series = rest // len(FAMILY_NAMES)
    return f"{given} {family}" if series == 0 else f"{given} {family} ({series + 1})"


def dress(
    simulated: JsonDict, rng: random.Random, index: int, pool: int, config: Config
) -> JsonDict:
    """A simulated record dressed as a real one: metadata, players from the pool, the
    rules written out or (for none) sometimes left out, comments and ``x-`` keys on some
    objects. The game itself is unchanged."""
    slug, event = rng.choice(EVENTS)
    stage = rng.choice(STAGES)
    date = datetime.date(2019, 1, 1) + datetime.timedelta(days=rng.randrange(2900))
    phantom, christine = rng.sample(range(pool), 2)
    record: JsonDict = {
        "format": simulated["format"],
        "game_id": f"{slug}/{stage.replace(' ', '-')}/g{index:07d}",
        "event": event,
        "site": rng.choice(SITES),
        "date": date.isoformat(),
        "stage": stage,
        "players": {"phantom": player_name(phantom), "christine": player_name(christine)},
        "sheet": simulated["sheet"],
    }
    if config.rules != "none" or rng.random() < 0.5:
        record["rules"] = simulated["rules"]
    record["rounds"] = simulated["rounds"]
    record["result"] = simulated["result"]
    if rng.random() < 0.05:
        record["players"]["x-rating"] = {
            "phantom": 1200 + rng.randrange(1000),
            "christine": 1200 + rng.randrange(1000),
            "system": "Elo: club list",
        }
    if rng.random() < 0.2:
        record["x-source"] = {
            "app": rng.choice(APPS),
            "scorer": player_name(rng.randrange(pool)),
            "tags": ["stream", "table: 3", "é"][: rng.randrange(1, 4)],
            "device": {"id": rng.randrange(10_000), "clock": [12, 7.5, None], "ok": True},
        }
    for round_data in record["rounds"]:
        if rng.random() < 0.05:
            round_data["x-table"] = {"number": rng.randrange(1, 40), "name": "Loge 5, côté cour"}
        for trick in round_data["tricks"]:
            if rng.random() < 0.02:
                trick["comment"] = rng.choice(COMMENTS)
            if rng.random() < 0.02:
                trick["x-clock"] = {"seconds": [rng.randrange(1, 90), rng.randrange(1, 90)]}
    return record


# -- unfinished records -----------------------------------------------------------------


def cut(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A finished record cut after some play before its last: the later plays, tricks
    and rounds dropped (the last trick may keep only its lead), the result then
    ``{"winner": null, "notes": <notes so far>}`` or left out."""
    keep = rng.randrange(len(found.plays) - 1)  # keep plays 0..keep
    spot = found.plays[keep]
    rounds = record["rounds"]
    del rounds[spot.round_index + 1 :]
    tricks = rounds[spot.round_index]["tricks"]
    del tricks[spot.trick_index + 1 :]
    if spot.play_index == 0:
        last = tricks[spot.trick_index]
        del last["plays"][1:]
        last.pop("winner", None)
        here = (spot.round_index, spot.trick_index)
        earlier = [value for place, value in found.notes_after.items() if place < here]
        notes = earlier[-1] if earlier else 0
    else:
        notes = found.notes_after[spot.round_index, spot.trick_index]
    if rng.random() < 0.5:
        record["result"] = {"winner": None, "notes": notes}
    else:
        del record["result"]
    return record


# -- invalid records: one mutation per code -----------------------------------------------


Mutation = Callable[[JsonDict, Walk, random.Random], JsonDict | bytes | None]


def _other(role: str) -> str:
    return ROLE_KEYS[1 - ROLE_KEYS.index(role)]


def break_json(record: JsonDict, found: Walk, rng: random.Random) -> bytes:
    """The record's text, made not JSON: cut short, a trailing comma, a duplicate key,
    NaN, or bytes that are not UTF-8 (always on one line)."""
    text = orjson.dumps(record)
    how = rng.choice(("truncate", "trailing-comma", "duplicate-key", "nan", "not-utf8"))
    if how == "truncate":
        return text[: rng.randrange(1, len(text) - 1)]
    if how == "trailing-comma":
        return text[:-1] + b",}"
    if how == "duplicate-key":
        return b'{"format":"phantom-log/1",' + text[1:]
    if how == "nan":
        return b'{"x-score":NaN,' + text[1:]
    return text.replace(b'"event":"', b'"event":"\xff', 1)


def break_schema(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A record that breaks the schema: a typo key, a value of the wrong type, an
    impossible date, an empty name, an unknown top-level key."""
    how = rng.choice(("typo-key", "wrong-type", "bad-date", "empty-name", "unknown-key"))
    if how == "typo-key":
        spot = rng.choice(found.plays)
        trick = record["rounds"][spot.round_index]["tricks"][spot.trick_index]
        trick["winer"] = trick.pop("winner", found.winners[spot.round_index, spot.trick_index])
    elif how == "wrong-type":
        round_data = rng.choice(record["rounds"])
        round_data["special_number"] = str(round_data["special_number"])
    elif how == "bad-date":
        record["date"] = rng.choice(("2026-02-30", "2026-13-01", "26-11-29", "2026/11/29"))
    elif how == "empty-name":
        record["players"][rng.choice(ROLE_KEYS)] = ""
    else:
        record["evnet"] = record.pop("event")
    return record


def name_unknown_sheet(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A record naming a sheet that does not exist."""
    record["sheet"] = rng.choice(("rulebok", "rule book", "rulebook-2", "masquerade"))
    return record


def break_sheet(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A custom sheet that breaks the sheet rules: 11 or 13 notes, or a suit twice."""
    bars = record["sheet"]["bars"]
    how = rng.choice(("eleven", "thirteen", "suit-twice"))
    if how == "eleven":
        bar = rng.choice([bar for bar in bars if len(bar["notes"]) > 1])
        bar["notes"] = bar["notes"][:-1]
    elif how == "thirteen":
        bar = rng.choice([bar for bar in bars if len(bar["notes"]) < 6])
        bar["notes"] += rng.choice("PC")
    else:
        first, second = rng.sample(range(4), 2)
        bars[second]["suit"] = bars[first]["suit"]
    return record


def break_deal(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A round's deal with a card twice, or a hand one card short."""
    deal = rng.choice(record["rounds"])["deal"]
    if rng.random() < 0.5:
        target = rng.choice(("christine", "aside"))
        position = rng.randrange(len(deal[target]))
        deal[target][position] = rng.choice(deal["phantom"])
    else:
        hand = deal[rng.choice(ROLE_KEYS)]
        hand.pop(rng.randrange(len(hand)))
    return record


def break_exchange(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """An exchange under the beginner rule; otherwise an exchange card the giver was not
    dealt, or a missing exchange."""
    round_data = rng.choice(record["rounds"])
    deal = round_data["deal"]
    if "exchange" not in round_data:
        round_data["exchange"] = {role: rng.choice(deal[role]) for role in ROLE_KEYS}
    elif rng.random() < 0.6:
        role = rng.choice(ROLE_KEYS)
        round_data["exchange"][role] = rng.choice(
            [card for card in CARD_CODES if card not in deal[role]]
        )
    else:
        del round_data["exchange"]
    return record


def break_special_number(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A special number that neither exchanged card shows."""
    round_data = rng.choice(record["rounds"])
    if "exchange" not in round_data:
        return None
    allowed = {int(card[2]) for card in round_data["exchange"].values()}
    round_data["special_number"] = rng.choice(sorted(set(range(1, NUMBERS_PER_SUIT + 1)) - allowed))
    return record


def _play(record: JsonDict, spot: PlaySpot) -> JsonDict:
    play: JsonDict = record["rounds"][spot.round_index]["tricks"][spot.trick_index]["plays"][
        spot.play_index
    ]
    return play


def swap_players(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A trick whose two plays name each other's player."""
    spot = rng.choice(found.plays)
    plays = record["rounds"][spot.round_index]["tricks"][spot.trick_index]["plays"]
    plays[0]["player"], plays[1]["player"] = plays[1]["player"], plays[0]["player"]
    return record


def play_card_not_held(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A play of a card its player does not hold."""
    spot = rng.choice(found.plays)
    _play(record, spot)["card"] = rng.choice([card for card in CARD_CODES if card not in spot.hand])
    return record


def revoke(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A follow of another suit by a player who holds the lead suit."""
    candidates = [
        (spot, off_suit)
        for spot in found.plays
        if spot.lead_suit is not None
        and _play(record, spot)["card"][:2] == spot.lead_suit
        and (off_suit := sorted(card for card in spot.hand if card[:2] != spot.lead_suit))
    ]
    if not candidates:
        return None
    spot, off_suit = rng.choice(candidates)
    play = _play(record, spot)
    play["card"] = rng.choice(off_suit)
    play.pop("swap", None)
    return record


def drop_swap(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A swap that was due, left out, emptied or one card short."""
    spots = [spot for spot in found.plays if _play(record, spot).get("swap")]
    if not spots:
        return None
    play = _play(record, rng.choice(spots))
    how = rng.choice(("delete", "empty", "short"))
    if how == "delete":
        del play["swap"]
    elif how == "empty":
        play["swap"] = {}
    else:
        play["swap"][rng.choice(ROLE_KEYS)].pop()
    return record


def add_swap(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A swap on a play without the special number, or a swap one card too long."""
    if rng.random() < 0.3:
        spots = [spot for spot in found.plays if _play(record, spot).get("swap")]
        if spots:
            play = _play(record, rng.choice(spots))
            play["swap"][rng.choice(ROLE_KEYS)].append(rng.choice(CARD_CODES))
            return record
    spots = [
        spot
        for spot in found.plays
        if int(_play(record, spot)["card"][2])
        != record["rounds"][spot.round_index]["special_number"]
    ]
    if not spots:
        return None
    _play(record, rng.choice(spots))["swap"] = {
        role: [rng.choice(CARD_CODES)] for role in ROLE_KEYS
    }
    return record


def play_after_end(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A game the Phantom won, with a trick or a round recorded after its end."""
    rounds = record["rounds"]
    if record["result"]["winner"] != "phantom":
        return None
    if len(rounds[-1]["tricks"]) < 10 and (len(rounds) == 2 or rng.random() < 0.5):
        rounds[-1]["tricks"].append(copy.deepcopy(rng.choice(rounds[-1]["tricks"])))
    elif len(rounds) == 1:
        extra = copy.deepcopy(rounds[0])
        extra["tricks"] = extra["tricks"][: rng.randrange(0, 11)]
        rounds.append(extra)
    else:
        return None
    return record


def drop_follow(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A trick before the last with its follow left out."""
    spots = [spot for spot in found.plays[:-2] if spot.play_index == 1]
    if not spots:
        return None
    spot = rng.choice(spots)
    record["rounds"][spot.round_index]["tricks"][spot.trick_index]["plays"].pop()
    return record


def shorten_round(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict | None:
    """A first round with its last tricks left out, followed by the second round."""
    if len(record["rounds"]) < 2:
        return None
    tricks = record["rounds"][0]["tricks"]
    del tricks[len(tricks) - rng.randrange(1, len(tricks) + 1) :]
    return record


def claim_wrong_winner(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A claimed trick winner, or a claimed game winner, that the replay contradicts."""
    if rng.random() < 0.6:
        place = rng.choice(list(found.winners))
        trick = record["rounds"][place[0]]["tricks"][place[1]]
        trick["winner"] = _other(found.winners[place])
    else:
        winner = record["result"]["winner"]
        record["result"]["winner"] = rng.choice(
            [value for value in ("phantom", "christine", None) if value != winner]
        )
    return record


def claim_wrong_notes(record: JsonDict, found: Walk, rng: random.Random) -> JsonDict:
    """A claimed number of notes that the replay contradicts."""
    notes = record["result"]["notes"]
    record["result"]["notes"] = rng.choice([value for value in range(13) if value != notes])
    return record


MUTATIONS: Final[dict[str, Mutation]] = {
    "json": break_json,
    "schema": break_schema,
    "unknown-sheet": name_unknown_sheet,
    "bad-sheet": break_sheet,
    "bad-deal": break_deal,
    "bad-exchange": break_exchange,
    "bad-special-number": break_special_number,
    "wrong-player": swap_players,
    "card-not-held": play_card_not_held,
    "revoke": revoke,
    "missing-swap": drop_swap,
    "unexpected-swap": add_swap,
    "after-game-end": play_after_end,
    "incomplete-trick": drop_follow,
    "incomplete-round": shorten_round,
    "winner-mismatch": claim_wrong_winner,
    "notes-mismatch": claim_wrong_notes,
}
assert set(MUTATIONS) == set(INVALID_CODES)

MAX_ATTEMPTS: Final = 200


# -- building ---------------------------------------------------------------------------


@dataclass(slots=True)
class Built:
    """One record as written: its JSON Lines text (no newline), its text inside an array
    (``None`` for a ``json`` record), its label and the features counted."""

    line: bytes
    item: bytes | None
    label: str
    features: list[str]


def build_record(seed: int, index: int, records: int) -> Built:
    """Record ``index`` (from 0) of the corpus of ``records`` records of ``seed``: the
    same arguments give the same record."""
    category = category_of(seed, index)
    rng = random.Random(f"phantom-log-corpus:{seed}:record:{index}")
    config = draw_config(rng, category)
    pool = max(50, records // 5)
    for attempt in range(MAX_ATTEMPTS):
        # Every game of the corpus is a distinct game of the simulator (no duplicate deal).
        number = index + 1 + (attempt << 32)
        simulated = simulate_game(simulation_of(config, seed), number)
        record = dress(simulated, rng, index, pool, config)
        found = walk(record)
        if found.notes != record["result"]["notes"]:
            raise AssertionError(f"record {index}: the replay disagrees with the simulator")
        result: JsonDict | bytes | None = record
        if category == UNFINISHED:
            result = cut(record, found, rng)
        elif category != VALID:
            result = MUTATIONS[category](record, found, rng)
        if result is not None:
            break
    else:
        raise RuntimeError(f"record {index}: no {category} mutation in {MAX_ATTEMPTS} games")
    features = [
        "sheet: " + ("rulebook" if config.layout is None else "custom"),
        f"rules: {config.rules}",
        f"policies: {config.phantom} / {config.christine}",
    ]
    if isinstance(result, bytes):
        return Built(result, None, category, features)
    if "x-source" in result:
        features.append("with x-source (nested x- value)")
    if any("comment" in trick for data in result["rounds"] for trick in data["tricks"]):
        features.append("with a trick comment")
    if category == UNFINISHED:
        last = result["rounds"][-1]["tricks"]
        features.append(
            "unfinished: "
            + ("result absent" if "result" not in result else "result winner null")
            + (", last trick one play" if last and len(last[-1]["plays"]) == 1 else "")
        )
    text = orjson.dumps(result)
    return Built(text, text, category, features)


@dataclass(slots=True)
class Part:
    """Consecutive records built together: their JSON Lines text, their array items, their
    labels and the counts of their features."""

    lines: bytes
    items: list[bytes]
    labels: list[str]
    counts: Counter[str]


def build_part(task: tuple[int, int, int, int]) -> Part:
    """Records ``start`` to ``stop - 1`` of the corpus of ``records`` records of ``seed``
    (the task is ``(seed, records, start, stop)``)."""
    seed, records, start, stop = task
    lines: list[bytes] = []
    items: list[bytes] = []
    labels: list[str] = []
    counts: Counter[str] = Counter()
    for index in range(start, stop):
        built = build_record(seed, index, records)
        lines.append(built.line)
        if built.item is not None:
            items.append(built.item)
        labels.append(built.label)
        counts.update(built.features)
    return Part(b"\n".join(lines) + b"\n", items, labels, counts)


@dataclass(frozen=True, slots=True)
class Corpus:
    """A corpus on disk: its JSON Lines file, its array files (the broken one last), and
    its composition as ``composition.json`` holds it."""

    directory: Path
    composition: JsonDict

    @property
    def jsonl(self) -> Path:
        """The JSON Lines file."""
        return self.directory / JSONL_NAME

    @property
    def array_files(self) -> list[Path]:
        """The array files, in the order phantom-log reads the array directory."""
        return [self.directory / ARRAY_DIR / name for name in self.composition["array_files"]]

    @property
    def array_dir(self) -> Path:
        """The directory holding the array files (and nothing else)."""
        return self.directory / ARRAY_DIR

    @property
    def records(self) -> int:
        """Records in the JSON Lines form."""
        count: int = self.composition["records"]
        return count

    @property
    def array_records(self) -> int:
        """Records in the array form (the ``json`` records left out, one broken file)."""
        count: int = self.composition["array_form_records"]
        return count

    def labels(self) -> list[str]:
        """The label of each line of the JSON Lines file."""
        return (self.directory / LABELS_NAME).read_text(encoding="utf-8").split()


def load_corpus(directory: Path) -> Corpus | None:
    """The corpus in ``directory``, or ``None`` when it holds no complete one."""
    path = directory / COMPOSITION_NAME
    if not path.exists():
        return None
    return Corpus(directory, json.loads(path.read_text(encoding="utf-8")))


def _tasks(seed: int, records: int, per_part: int) -> Iterator[tuple[int, int, int, int]]:
    for start in range(0, records, per_part):
        yield seed, records, start, min(records, start + per_part)


def build_corpus(
    directory: Path,
    records: int,
    seed: int,
    array_records: int = DEFAULT_ARRAY_RECORDS,
    jobs: int = 1,
    progress: bool = True,
) -> Corpus:
    """Builds the corpus of the module's docstring into ``directory`` (emptied first), on
    ``jobs`` processes, and returns it. ``array_records`` 0 writes one array file."""
    if records < 1:
        raise ValueError("a corpus has at least one record")
    if array_records and array_records % BLOCK:
        raise ValueError(f"--array-records must be 0 or a multiple of {BLOCK}")
    if directory.exists():
        shutil.rmtree(directory)
    (directory / ARRAY_DIR).mkdir(parents=True)
    per_part = array_records or DEFAULT_ARRAY_RECORDS
    labels: list[str] = []
    counts: Counter[str] = Counter()
    array_files: list[str] = []
    array_form = 0
    single = directory / ARRAY_DIR / "corpus.json"
    with ExitStack() as stack:
        jsonl = stack.enter_context(open(directory / JSONL_NAME, "wb"))
        label_file = stack.enter_context(open(directory / LABELS_NAME, "w", encoding="utf-8"))
        one_file = None if array_records else stack.enter_context(open(single, "wb"))
        pool = stack.enter_context(multiprocessing.Pool(jobs)) if jobs > 1 else None
        tasks = _tasks(seed, records, per_part)
        parts = pool.imap(build_part, tasks) if pool else map(build_part, tasks)
        for number, part in enumerate(parts):
            jsonl.write(part.lines)
            label_file.write("".join(label + "\n" for label in part.labels))
            labels.extend(part.labels)
            counts.update(part.counts)
            array_form += len(part.items)
            body = b",\n".join(part.items)
            if one_file is not None:
                one_file.write((b"[\n" if number == 0 else b",\n") + body)
            elif part.items:
                name = f"array-{number:04d}.json"
                text = (
                    b"[" + b",".join(part.items) + b"]\n"
                    if number % 2
                    else b"[\n" + body + b"\n]\n"
                )
                (directory / ARRAY_DIR / name).write_bytes(text)
                array_files.append(name)
            if progress and sys.stderr.isatty():
                done = min(records, (number + 1) * per_part)
                print(f"\rbuilt {done:,} of {records:,} records", end="", file=sys.stderr)
        if one_file is not None:
            one_file.write(b"\n]\n")
            array_files.append(single.name)
    if progress and sys.stderr.isatty():
        print(file=sys.stderr)
    category_counts = Counter(labels)
    if category_counts["json"]:
        broken = next(
            built.line
            for index, label in enumerate(labels)
            if label == "json"
            for built in [build_record(seed, index, records)]
        )
        (directory / ARRAY_DIR / BROKEN_NAME).write_bytes(broken + b"\n")
        array_files.append(BROKEN_NAME)
        array_form += 1
    composition: JsonDict = {
        "version": CORPUS_VERSION,
        "records": records,
        "seed": seed,
        "array_records": array_records,
        "array_form_records": array_form,
        "array_files": array_files,
        "jsonl_bytes": (directory / JSONL_NAME).stat().st_size,
        "categories": {
            VALID: category_counts[VALID],
            UNFINISHED: category_counts[UNFINISHED],
            **{code: category_counts[code] for code in INVALID_CODES},
        },
        "invalid": sum(category_counts[code] for code in INVALID_CODES),
        "features": dict(sorted(counts.items())),
    }
    (directory / COMPOSITION_NAME).write_text(
        json.dumps(composition, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return Corpus(directory, composition)


def describe(corpus: Corpus) -> str:
    """The corpus's composition for people: sizes, counts per category and feature."""
    data = corpus.composition
    records = data["records"]

    def share(count: int) -> str:
        return f"{count:>9,}  {100 * count / records:5.1f}%"

    lines = [
        f"corpus {corpus.directory}: {records:,} records, seed {data['seed']}, "
        f"{data['jsonl_bytes'] / 2**20:,.1f} MiB of JSON Lines",
        f"  array form: {data['array_form_records']:,} records in "
        f"{len(data['array_files'])} files under {ARRAY_DIR}/ (json records left out, "
        f"one in {BROKEN_NAME})",
        "  by verdict:",
    ]
    categories = data["categories"]
    lines.append(f"    {'valid (finished)':<52}{share(categories[VALID])}")
    lines.append(f"    {'unfinished (valid, warning)':<52}{share(categories[UNFINISHED])}")
    lines.append(f"    {'invalid':<52}{share(data['invalid'])}")
    for code in INVALID_CODES:
        lines.append(f"      {code:<50}{share(categories[code])}")
    lines.append("  by feature (x-source and comments not counted on json records):")
    for name, count in data["features"].items():
        lines.append(f"    {name:<52}{share(count)}")
    return "\n".join(lines)


# -- checking a corpus against phantom-log verify ----------------------------------------


def phantom_log_command() -> list[str]:
    """The ``phantom-log`` console script beside this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("phantom-log")
    if script.exists():
        return [str(script)]
    found = shutil.which("phantom-log")
    return [found] if found else [sys.executable, "-m", "phantom_log"]


def verdict(report: JsonDict) -> str:
    """A ``verify --format json`` report as a label: ``valid``, ``unfinished`` (valid with
    only that warning), the code of the first error, or ``valid+<codes>`` otherwise."""
    codes = [problem["code"] for problem in report["problems"]]
    if not report["valid"]:
        errors = [p["code"] for p in report["problems"] if p["severity"] == "error"]
        return errors[0] if errors else "invalid-without-error"
    if not codes:
        return VALID
    if codes == [UNFINISHED]:
        return UNFINISHED
    return "valid+" + ",".join(codes)


def check_form(paths: Sequence[Path], labels: Sequence[str], jobs: int) -> tuple[bool, str]:
    """Runs ``phantom-log verify --format json`` on ``paths`` and compares each record's
    verdict with its label; returns whether all agree, and a report for people."""
    command = [*phantom_log_command(), "verify", "--format", "json", "--jobs", str(jobs)]
    with tempfile.TemporaryFile() as output:
        done = subprocess.run(
            [*command, *map(str, paths)], stdout=output, stderr=subprocess.PIPE, check=False
        )
        output.seek(0)
        reports = [orjson.loads(line) for line in output]
    lines = [f"  exit code {done.returncode} (1 expected: the corpus has invalid records)"]
    ok = done.returncode == 1
    if done.stderr.strip():
        ok = False
        lines.append("  standard error: " + done.stderr.decode(errors="replace")[-2000:])
    if len(reports) != len(labels):
        ok = False
        lines.append(f"  {len(reports)} reports for {len(labels)} records")
    agree: Counter[str] = Counter()
    disagree: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], str] = {}
    for report, label in zip(reports, labels, strict=False):
        found = verdict(report)
        if found == label:
            agree[label] += 1
        else:
            disagree[label, found] += 1
            examples.setdefault((label, found), f"{report['source']}#{report['index']}")
    invalid = sum(1 for report in reports if not report["valid"])
    share = 100 * invalid / max(1, len(reports))
    lines.append(f"  {len(reports):,} reports, {invalid:,} invalid ({share:.2f}%)")
    for label in (VALID, UNFINISHED, *INVALID_CODES):
        expected = sum(1 for item in labels if item == label)
        lines.append(f"    {label:<22} {agree[label]:>8,} of {expected:>8,} as intended")
    for (label, found), count in disagree.most_common():
        ok = False
        example = examples[label, found]
        lines.append(f"  MISMATCH: {count} {label} records reported as {found}, e.g. {example}")
    missing = [code for code in INVALID_CODES if not agree[code]]
    if missing:
        ok = False
        lines.append("  codes never seen: " + ", ".join(missing))
    return ok, "\n".join(lines)


def check_corpus(corpus: Corpus, jobs: int) -> bool:
    """Checks both forms of the corpus with ``phantom-log verify``; prints what it found
    and returns whether every record got its intended verdict."""
    labels = corpus.labels()
    array_labels = [label for label in labels if label != "json"]
    if corpus.composition["categories"]["json"]:
        array_labels.append("json")
    ok = True
    for name, paths, form_labels in (
        ("JSON Lines", [corpus.jsonl], labels),
        ("arrays", corpus.array_files, array_labels),
    ):
        form_ok, text = check_form(paths, form_labels, jobs)
        print(f"check of the {name} form: {'OK' if form_ok else 'FAILED'}\n{text}")
        ok = ok and form_ok
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: build a corpus, print its composition, optionally check it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, required=True, help="How many records.")
    parser.add_argument("--seed", type=int, default=1, help="The seed (default 1).")
    parser.add_argument("--out", type=Path, required=True, help="The directory to write.")
    parser.add_argument(
        "--array-records",
        type=int,
        default=DEFAULT_ARRAY_RECORDS,
        help="Records per array file (a multiple of 20; 0: one file). Default 10,000.",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="Processes building the records (default 1)."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="Run phantom-log verify on both forms and compare every verdict with its label.",
    )
    options = parser.parse_args(argv)
    corpus = build_corpus(
        options.out, options.records, options.seed, options.array_records, options.jobs
    )
    print(describe(corpus))
    if options.check:
        return 0 if check_corpus(corpus, max(1, min(2, os.cpu_count() or 1))) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
