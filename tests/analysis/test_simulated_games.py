"""Laws checked on games drawn from the simulator (``phantom_log.analysis.simulator``).

Every simulated game is complete and legal, so the checker must accept it as it is; a
single, targeted mutation of one must be reported with exactly its code, at the place it
was made; random damage to its JSON text must never make the checker raise; and the
schema and the pydantic models must give the same verdict on every damaged document.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from phantom_log.analysis.simulator import POLICIES, Simulation, simulate_game
from phantom_log.checking.verdict import check_record, verify_record
from phantom_log.cli import main
from phantom_log.records.model import GameRecord
from phantom_log.records.schema import schema_problems
from phantom_log.records.source_records import read_source
from phantom_log.rules.cards import CARD_CODES, Role, Suit, card_suit, hand_mask
from phantom_log.rules.engine import Rules
from phantom_log.rules.events import TrickEnded
from phantom_log.rules.problems import Code, Problem, Severity
from phantom_log.rules.replay import GameLog, replay_record
from phantom_log.rules.sheets import RULEBOOK_SHEET, Sheet, sheet_from_json
from tests.helpers.cli import run as run_cli
from tests.helpers.fuzz_harness import json_lines_count

JsonDict = dict[str, Any]
JsonPath = tuple[str | int, ...]

FEW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOME = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
MANY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- drawing simulated games ---------------------------------------------------------------


@dataclass(frozen=True)
class SimulatedGame:
    """A simulation, the number of one of its games, and that game's record."""

    simulation: Simulation
    number: int
    record: JsonDict


def make_sheet(name: str, suits: list[Suit], cuts: list[int], owners: str) -> Sheet:
    """A valid sheet: the suits in the order given, the 12 owners cut into four bars."""
    bounds = [0, *sorted(cuts), 12]
    bars = [
        {"suit": suit.code, "notes": owners[start:end]}
        for suit, start, end in zip(suits, bounds, bounds[1:], strict=False)
    ]
    sheet = sheet_from_json({"name": name, "bars": bars})
    assert isinstance(sheet, Sheet), sheet
    return sheet


def simulated_game(
    seed: int, number: int, phantom: str, christine: str, rules: Rules, sheet: Sheet | None
) -> SimulatedGame:
    """Game ``number`` of a simulation; ``sheet`` ``None`` names the built-in sheet."""
    simulation = Simulation(
        RULEBOOK_SHEET if sheet is None else sheet,
        rules,
        phantom,
        christine,
        seed,
        sheet_is_builtin=sheet is None,
    )
    return SimulatedGame(simulation, number, simulate_game(simulation, number))


SEEDS = st.integers(min_value=-(2**40), max_value=2**40)
NUMBERS = st.integers(min_value=1, max_value=999_999)
POLICY = st.sampled_from(POLICIES)
FLAG = st.booleans()
CUSTOM_SHEETS = st.builds(
    make_sheet,
    name=st.text(st.characters(exclude_categories=("Cc", "Cs")), min_size=1, max_size=30),
    suits=st.permutations(list(Suit)),
    cuts=st.sets(st.integers(min_value=1, max_value=11), min_size=3, max_size=3).map(sorted),
    owners=st.text(alphabet="PC", min_size=12, max_size=12),
)
SHEETS = st.none() | CUSTOM_SHEETS


def games(
    phantom: st.SearchStrategy[str] = POLICY,
    christine: st.SearchStrategy[str] = POLICY,
    beginner: st.SearchStrategy[bool] = FLAG,
    balance: st.SearchStrategy[bool] = FLAG,
    sheet: st.SearchStrategy[Sheet | None] = SHEETS,
) -> st.SearchStrategy[SimulatedGame]:
    """Simulated games; each argument narrows one choice."""
    return st.builds(
        simulated_game,
        seed=SEEDS,
        number=NUMBERS,
        phantom=phantom,
        christine=christine,
        rules=st.builds(Rules, beginner=beginner, balance=balance),
        sheet=sheet,
    )


GAMES = games()


# -- the replay of a legal game, and the hands at each moment -------------------------------


def legal_replay(record: JsonDict) -> GameLog:
    """The replay of a record that must be legal and complete."""
    outcome = replay_record(record)
    assert outcome.problems == [], outcome.problems
    return outcome


def trick_outcome(outcome: GameLog, round_index: int, trick_index: int) -> TrickEnded:
    """The completed trick at indexes (from 0) of the record."""
    for trick in outcome.tricks:
        if (trick.round, trick.trick) == (round_index + 1, trick_index + 1):
            return trick
    raise AssertionError(f"no trick {trick_index + 1} in round {round_index + 1}")


def hands_before(outcome: GameLog, round_index: int, trick_index: int) -> tuple[int, int]:
    """Both hands (bit masks, Phantom first) just before a trick's lead."""
    if trick_index == 0:
        return outcome.rounds[round_index].hands
    return trick_outcome(outcome, round_index, trick_index - 1).hands


def hand_at_play(outcome: GameLog, round_index: int, trick_index: int, play: int) -> int:
    """The hand of the player of a trick's play (0 lead, 1 follow) as they play it: for
    the follow, after the lead left the leader's hand and any swap after the lead."""
    trick = trick_outcome(outcome, round_index, trick_index)
    if play == 0:
        return hands_before(outcome, round_index, trick_index)[trick.leader]
    follower = trick.follower
    hand = hands_before(outcome, round_index, trick_index)[follower]
    for swap in trick.swaps:
        if swap.after == "lead":
            gave = swap.phantom_gave if follower is Role.PHANTOM else swap.christine_gave
            got = swap.christine_gave if follower is Role.PHANTOM else swap.phantom_gave
            hand = hand & ~hand_mask(gave) | hand_mask(got)
    card = trick.lead if play == 0 else trick.follow
    assert hand >> card & 1, "the hand computed must hold the card played"
    return hand


def trick_places(record: JsonDict) -> list[tuple[int, int]]:
    """The (round, trick) indexes of every trick of a record, in play order."""
    return [
        (round_index, trick_index)
        for round_index, data in enumerate(record["rounds"])
        for trick_index in range(len(data["tricks"]))
    ]


def play_at(record: JsonDict, round_index: int, trick_index: int, play: int) -> JsonDict:
    """A play of a record (a live reference into it)."""
    play_data: JsonDict = record["rounds"][round_index]["tricks"][trick_index]["plays"][play]
    return play_data


def trick_pointer(round_index: int, trick_index: int, *rest: str | int) -> str:
    """The JSON pointer of a trick, or of a value below it."""
    tail = "".join(f"/{part}" for part in rest)
    return f"/rounds/{round_index}/tricks/{trick_index}{tail}"


def errors(problems: list[Problem]) -> list[Problem]:
    """The problems of severity ``error``."""
    return [problem for problem in problems if problem.severity is Severity.ERROR]


def assert_first_error(
    record: JsonDict,
    code: Code,
    pointer: str | None,
    round_no: int | None,
    trick_no: int | None,
) -> None:
    """The checker's first error on a record is ``code`` at that place."""
    problems, _ = check_record(record)
    found = errors(problems)
    assert found, f"no error found; expected {code}"
    first = found[0]
    described = f"{first.code} at {first.pointer} (round {first.round}, trick {first.trick})"
    assert first.code is code, f"expected {code}, got {described}: {first.message}"
    assert (first.round, first.trick) == (round_no, trick_no), described
    if pointer is not None:
        assert first.pointer == pointer, described


# -- 1. every simulated game is valid, and its claims agree with the replay ---------------


@MANY
@given(game=GAMES)
def test_every_simulated_game_verifies_with_its_claimed_result(game: SimulatedGame) -> None:
    record = game.record
    problems, outcome = check_record(record)
    assert problems == []
    assert outcome is not None and outcome.result is not None
    assert outcome.result.to_json() == record["result"]
    assert outcome.result.winner is not None
    assert GameRecord.from_json(record).to_json() == record


@MANY
@given(game=GAMES)
def test_every_claimed_trick_winner_is_the_replayed_winner(game: SimulatedGame) -> None:
    outcome = legal_replay(game.record)
    claimed = 0
    for round_index, trick_index in trick_places(game.record):
        trick = game.record["rounds"][round_index]["tricks"][trick_index]
        replayed = trick_outcome(outcome, round_index, trick_index)
        assert [play["card"] for play in trick["plays"]] == [
            CARD_CODES[replayed.lead],
            CARD_CODES[replayed.follow],
        ]
        if "winner" in trick:
            claimed += 1
            assert trick["winner"] == replayed.winner.key
    assert len(outcome.tricks) == len(trick_places(game.record)) > 0
    # A game whose record claims no winner checks no claim: not an example of this law
    # (were the simulator to claim none at all, hypothesis would fail on the filter).
    assume(claimed > 0)


@MANY
@given(game=GAMES)
def test_a_simulated_game_ends_exactly_when_the_rules_end_it(game: SimulatedGame) -> None:
    outcome = legal_replay(game.record)
    assert outcome.ended_at is not None
    end_round, end_trick = outcome.ended_at
    assert (end_round, end_trick) == (outcome.tricks[-1].round, outcome.tricks[-1].trick)
    if game.record["result"]["winner"] == "phantom":
        assert game.record["result"]["notes"] == 12
    else:
        assert (end_round, end_trick) == (2, 10)
        assert game.record["result"]["notes"] < 12


# An independent count of RULES.md on card codes, to check the simulator and the engine
# against something that shares no code with them.
RULEBOOK_OWNERS = (("Mi", "CPC"), ("Ch", "PCP"), ("Ri", "PPC"), ("Ma", "PCP"))


def sheet_notes(sheet: str | JsonDict) -> list[tuple[str, str]]:
    """(suit, owner letter) of notes 1-12 of a record's sheet."""
    bars = (
        [(bar["suit"], bar["notes"]) for bar in sheet["bars"]]
        if isinstance(sheet, dict)
        else RULEBOOK_OWNERS
    )
    return [(suit, owner) for suit, owners in bars for owner in owners]


def leader_card_wins(lead: str, follow: str, super_trump: str | None) -> bool:
    if lead[:2] == follow[:2]:
        return int(lead[2]) > int(follow[2])

    def strength(suit: str) -> int:
        if suit == super_trump:
            return 3
        if suit == "Ma":
            return 2
        return 1 if suit == lead[:2] else 0

    return strength(lead[:2]) > strength(follow[:2])


def independent_count(record: JsonDict) -> tuple[str, int, list[str]]:
    """Replays a legal record by RULES.md alone: the winner, the notes, each trick's
    winner. Fails an assertion at the first move the rules do not allow."""
    notes_of_sheet = sheet_notes(record["sheet"])
    balance = record["rules"]["balance"]
    notes = 0
    winners: list[str] = []
    for round_index, data in enumerate(record["rounds"]):
        assert notes < 12, "a round after the end"
        deal = data["deal"]
        everything = deal["phantom"] + deal["christine"] + deal["aside"]
        assert sorted(everything) == sorted(CARD_CODES) and len(deal["phantom"]) == 10
        hands = {"phantom": set(deal["phantom"]), "christine": set(deal["christine"])}
        special = data["special_number"]
        if record["rules"]["beginner"]:
            assert "exchange" not in data and 1 <= special <= 6
        else:
            gave = data["exchange"]
            assert gave["phantom"] in hands["phantom"] and gave["christine"] in hands["christine"]
            hands["phantom"] ^= {gave["phantom"], gave["christine"]}
            hands["christine"] ^= {gave["phantom"], gave["christine"]}
            assert special in {int(gave["phantom"][2]), int(gave["christine"][2])}
        leader = "phantom" if round_index == 0 else "christine"
        for trick in data["tricks"]:
            assert notes < 12, "a trick after the end"
            lead_play, follow_play = trick["plays"]
            follower = "christine" if leader == "phantom" else "phantom"
            for play, role in ((lead_play, leader), (follow_play, follower)):
                assert play["player"] == role
                card = play["card"]
                assert card in hands[role]
                if play is follow_play and card[:2] != lead_play["card"][:2]:
                    assert not any(held[:2] == lead_play["card"][:2] for held in hands[role])
                hands[role].discard(card)
                size = min(2, len(hands["phantom"]), len(hands["christine"]))
                swap = play.get("swap") or {}
                if int(card[2]) != special or size == 0:
                    assert not swap
                    continue
                given_by = {side: set(swap[side]) for side in ("phantom", "christine")}
                for side in ("phantom", "christine"):
                    assert len(swap[side]) == size and given_by[side] <= hands[side]
                hands["phantom"] = hands["phantom"] - given_by["phantom"] | given_by["christine"]
                hands["christine"] = (
                    hands["christine"] - given_by["christine"] | given_by["phantom"]
                )
            lead, follow = lead_play["card"], follow_play["card"]
            super_trump = notes_of_sheet[notes - 1][0] if notes else None
            winner = leader if leader_card_wins(lead, follow, super_trump) else follower
            in_order = notes_of_sheet[notes][1] == winner[0].upper()
            if int(lead[2]) != special and int(follow[2]) != special:
                notes += in_order
            elif in_order:
                notes = min(12, notes + 2)
            else:
                notes = max(0, notes - (1 if balance else 2))
            winners.append(winner)
            leader = winner
        assert notes == 12 or len(data["tricks"]) == 10
    assert notes == 12 or len(record["rounds"]) == 2
    return ("phantom" if notes == 12 else "christine"), notes, winners


@MANY
@given(game=GAMES)
def test_simulated_games_obey_the_rules_by_an_independent_count(game: SimulatedGame) -> None:
    winner, notes, winners = independent_count(game.record)
    assert game.record["result"] == {"winner": winner, "notes": notes}
    outcome = legal_replay(game.record)
    assert [trick.winner.key for trick in outcome.tricks] == winners


# -- 2. determinism ------------------------------------------------------------------------


@MANY
@given(game=GAMES)
def test_replay_of_the_same_record_is_deterministic(game: SimulatedGame) -> None:
    one, two = replay_record(game.record), replay_record(copy.deepcopy(game.record))
    assert one.tricks == two.tricks
    assert one.rounds == two.rounds
    assert one.problems == two.problems
    assert one.result == two.result
    assert one.ended_at == two.ended_at
    assert check_record(game.record)[0] == check_record(copy.deepcopy(game.record))[0]


@MANY
@given(game=GAMES)
def test_simulate_game_with_the_same_arguments_gives_the_same_record(
    game: SimulatedGame,
) -> None:
    again = simulated_game(
        game.simulation.seed,
        game.number,
        game.simulation.phantom,
        game.simulation.christine,
        game.simulation.rules,
        None if game.simulation.sheet_is_builtin else game.simulation.sheet,
    )
    assert again.record == game.record
    assert orjson.dumps(again.record) == orjson.dumps(game.record)


def simulate_args(seed: int, count: int, options: list[str], output: str = "-") -> list[str]:
    return ["simulate", "-n", str(count), "--seed", str(seed), *options, "-o", output]


CLI_OPTIONS = st.tuples(
    st.sampled_from([[], ["--beginner"]]),
    st.sampled_from([[], ["--balance"]]),
    st.sampled_from([[], *[["--phantom", policy] for policy in POLICIES]]),
    st.sampled_from([[], *[["--christine", policy] for policy in POLICIES]]),
).map(lambda parts: [option for part in parts for option in part])


@FEW
@given(
    seed=st.integers(min_value=-(2**31), max_value=2**31),
    other=st.integers(min_value=-(2**31), max_value=2**31),
    count=st.integers(min_value=1, max_value=3),
    options=CLI_OPTIONS,
)
def test_cli_simulate_is_byte_identical_for_the_same_seed_and_options(
    seed: int, other: int, count: int, options: list[str]
) -> None:
    assume(seed != other)
    first = run_cli(*simulate_args(seed, count, options))
    second = run_cli(*simulate_args(seed, count, options))
    third = run_cli(*simulate_args(other, count, options))
    for result in (first, second, third):
        assert result.exit_code == 0, result.output
    assert first.stdout_bytes == second.stdout_bytes
    assert first.stdout_bytes != third.stdout_bytes
    lines = first.stdout_bytes.splitlines()
    assert len(lines) == count
    rules = Rules("--beginner" in options, "--balance" in options)
    policies = {"phantom": "random", "christine": "random"}
    for flag, role in (("--phantom", "phantom"), ("--christine", "christine")):
        if flag in options:
            policies[role] = options[options.index(flag) + 1]
    simulation = Simulation(RULEBOOK_SHEET, rules, policies["phantom"], policies["christine"], seed)
    for number, line in enumerate(lines, start=1):
        assert orjson.loads(line) == simulate_game(simulation, number)
        assert check_record(orjson.loads(line))[0] == []


def test_cli_simulate_refuses_to_overwrite_a_file_without_force(tmp_path: Path) -> None:
    target = tmp_path / "games.jsonl"
    target.write_bytes(b"keep me\n")
    refused = run_cli(*simulate_args(7, 2, [], str(target)))
    assert refused.exit_code == 2
    assert "--force" in refused.output
    assert target.read_bytes() == b"keep me\n"
    assert sorted(os.listdir(tmp_path)) == ["games.jsonl"]  # no temporary file left behind

    forced = run_cli(*simulate_args(7, 2, ["--force"], str(target)))
    assert forced.exit_code == 0, forced.output
    assert target.read_bytes() == run_cli(*simulate_args(7, 2, [])).stdout_bytes
    assert sorted(os.listdir(tmp_path)) == ["games.jsonl"]


def test_cli_simulate_writes_a_new_file_without_force(tmp_path: Path) -> None:
    target = tmp_path / "new.jsonl"
    result = run_cli(*simulate_args(3, 4, ["--quiet"], str(target)))
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == run_cli(*simulate_args(3, 4, [])).stdout_bytes


# -- 3. a mutation of a legal game is reported with its code, where it was made ------------


@SOME
@given(game=GAMES, data=st.data())
def test_revoke_mutation_is_reported_at_its_trick(game: SimulatedGame, data: st.DataObject) -> None:
    outcome = legal_replay(game.record)
    candidates = []
    for round_index, trick_index in trick_places(game.record):
        trick = trick_outcome(outcome, round_index, trick_index)
        lead_suit = card_suit(trick.lead)
        if card_suit(trick.follow) != lead_suit:
            continue
        hand = hand_at_play(outcome, round_index, trick_index, 1)
        off_suit = [card for card in range(24) if hand >> card & 1 and card_suit(card) != lead_suit]
        if off_suit:
            candidates.append((round_index, trick_index, off_suit))
    assume(candidates)
    round_index, trick_index, off_suit = data.draw(st.sampled_from(candidates))
    card = data.draw(st.sampled_from(off_suit))
    record = copy.deepcopy(game.record)
    play_at(record, round_index, trick_index, 1)["card"] = CARD_CODES[card]
    assert_first_error(
        record,
        Code.REVOKE,
        trick_pointer(round_index, trick_index, "plays", 1, "card"),
        round_index + 1,
        trick_index + 1,
    )


@SOME
@given(game=GAMES, data=st.data())
def test_card_not_held_mutation_is_reported_at_its_play(
    game: SimulatedGame, data: st.DataObject
) -> None:
    outcome = legal_replay(game.record)
    round_index, trick_index = data.draw(st.sampled_from(trick_places(game.record)))
    play = data.draw(st.sampled_from([0, 1]))
    hand = hand_at_play(outcome, round_index, trick_index, play)
    card = data.draw(st.sampled_from([card for card in range(24) if not hand >> card & 1]))
    record = copy.deepcopy(game.record)
    play_at(record, round_index, trick_index, play)["card"] = CARD_CODES[card]
    assert_first_error(
        record,
        Code.CARD_NOT_HELD,
        trick_pointer(round_index, trick_index, "plays", play, "card"),
        round_index + 1,
        trick_index + 1,
    )


def swap_places(record: JsonDict) -> list[tuple[int, int, int]]:
    """(round, trick, play) indexes of every play that records a swap of some cards."""
    return [
        (round_index, trick_index, play)
        for round_index, trick_index in trick_places(record)
        for play in (0, 1)
        if play_at(record, round_index, trick_index, play).get("swap")
    ]


@SOME
@given(game=GAMES, data=st.data())
def test_card_not_held_in_a_swap_is_reported_at_the_card_given(
    game: SimulatedGame, data: st.DataObject
) -> None:
    outcome = legal_replay(game.record)
    places = swap_places(game.record)
    assume(places)
    round_index, trick_index, play = data.draw(st.sampled_from(places))
    role = data.draw(st.sampled_from(list(Role)))
    trick = trick_outcome(outcome, round_index, trick_index)
    # The hands just before this swap: after the play, and after a swap after the lead.
    hands = list(hands_before(outcome, round_index, trick_index))
    hands[trick.leader] &= ~(1 << trick.lead)
    if play == 1:
        for swap in trick.swaps:
            if swap.after == "lead":
                phantom, christine = hand_mask(swap.phantom_gave), hand_mask(swap.christine_gave)
                hands = [hands[0] & ~phantom | christine, hands[1] & ~christine | phantom]
        hands[trick.follower] &= ~(1 << trick.follow)
    not_held = [card for card in range(24) if not hands[role] >> card & 1]
    card = data.draw(st.sampled_from(not_held))
    record = copy.deepcopy(game.record)
    given_cards = play_at(record, round_index, trick_index, play)["swap"][role.key]
    position = data.draw(st.integers(min_value=0, max_value=len(given_cards) - 1))
    given_cards[position] = CARD_CODES[card]
    # The lists checked before it are intact, and so are the cards before it in its list.
    assert_first_error(
        record,
        Code.CARD_NOT_HELD,
        trick_pointer(round_index, trick_index, "plays", play, "swap", role.key, position),
        round_index + 1,
        trick_index + 1,
    )


@SOME
@given(game=GAMES, data=st.data())
def test_wrong_player_mutation_is_reported_at_its_trick(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index, trick_index = data.draw(st.sampled_from(trick_places(game.record)))
    record = copy.deepcopy(game.record)
    lead = play_at(record, round_index, trick_index, 0)
    follow = play_at(record, round_index, trick_index, 1)
    lead["player"], follow["player"] = follow["player"], lead["player"]
    assert_first_error(
        record,
        Code.WRONG_PLAYER,
        trick_pointer(round_index, trick_index, "plays", 0, "player"),
        round_index + 1,
        trick_index + 1,
    )


@SOME
@given(game=GAMES, data=st.data())
def test_missing_swap_mutation_is_reported_at_its_play(
    game: SimulatedGame, data: st.DataObject
) -> None:
    places = swap_places(game.record)
    assume(places)
    round_index, trick_index, play = data.draw(st.sampled_from(places))
    record = copy.deepcopy(game.record)
    played = play_at(record, round_index, trick_index, play)
    how = data.draw(st.sampled_from(["delete", "empty", "short"]))
    at = trick_pointer(round_index, trick_index, "plays", play)
    if how == "delete":
        del played["swap"]
    elif how == "empty":
        played["swap"] = {}
    else:
        role = data.draw(st.sampled_from(["phantom", "christine"]))
        played["swap"][role].pop()
        # The short list itself is pointed at.
        at = f"{at}/swap/{role}"
    pointer = at if how != "empty" else f"{at}/swap"
    assert_first_error(record, Code.MISSING_SWAP, pointer, round_index + 1, trick_index + 1)


@SOME
@given(game=GAMES, data=st.data())
def test_unexpected_swap_mutation_is_reported_at_its_play(
    game: SimulatedGame, data: st.DataObject
) -> None:
    candidates = [
        (round_index, trick_index, play)
        for round_index, trick_index in trick_places(game.record)
        for play in (0, 1)
        if int(play_at(game.record, round_index, trick_index, play)["card"][2])
        != game.record["rounds"][round_index]["special_number"]
    ]
    assume(candidates)
    round_index, trick_index, play = data.draw(st.sampled_from(candidates))
    roles = data.draw(st.sampled_from([["phantom"], ["christine"], ["phantom", "christine"]]))
    cards = st.lists(st.sampled_from(CARD_CODES), min_size=1, max_size=2)
    swap = {role: data.draw(cards) for role in roles}
    record = copy.deepcopy(game.record)
    play_at(record, round_index, trick_index, play)["swap"] = swap
    assert_first_error(
        record,
        Code.UNEXPECTED_SWAP,
        trick_pointer(round_index, trick_index, "plays", play, "swap"),
        round_index + 1,
        trick_index + 1,
    )


@SOME
@given(game=GAMES, data=st.data())
def test_oversized_swap_mutation_is_reported_as_unexpected_at_the_long_list(
    game: SimulatedGame, data: st.DataObject
) -> None:
    places = swap_places(game.record)
    assume(places)
    round_index, trick_index, play = data.draw(st.sampled_from(places))
    role = data.draw(st.sampled_from(["phantom", "christine"]))
    record = copy.deepcopy(game.record)
    play_at(record, round_index, trick_index, play)["swap"][role].append(
        data.draw(st.sampled_from(CARD_CODES))
    )
    assert_first_error(
        record,
        Code.UNEXPECTED_SWAP,
        trick_pointer(round_index, trick_index, "plays", play, "swap", role),
        round_index + 1,
        trick_index + 1,
    )


@SOME
@given(game=games(beginner=st.just(False)), data=st.data())
def test_bad_special_number_mutation_is_reported_at_its_round(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index = data.draw(st.integers(min_value=0, max_value=len(game.record["rounds"]) - 1))
    record = copy.deepcopy(game.record)
    data_round = record["rounds"][round_index]
    exchange = data_round["exchange"]
    allowed = {int(exchange["phantom"][2]), int(exchange["christine"][2])}
    data_round["special_number"] = data.draw(st.sampled_from(sorted({1, 2, 3, 4, 5, 6} - allowed)))
    assert_first_error(
        record,
        Code.BAD_SPECIAL_NUMBER,
        f"/rounds/{round_index}/special_number",
        round_index + 1,
        None,
    )


@SOME
@given(game=games(beginner=st.just(False)), data=st.data())
def test_bad_exchange_mutation_is_reported_at_the_card_given(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index = data.draw(st.integers(min_value=0, max_value=len(game.record["rounds"]) - 1))
    role = data.draw(st.sampled_from(["phantom", "christine"]))
    record = copy.deepcopy(game.record)
    data_round = record["rounds"][round_index]
    dealt = data_round["deal"][role]
    data_round["exchange"][role] = data.draw(
        st.sampled_from([code for code in CARD_CODES if code not in dealt])
    )
    assert_first_error(
        record, Code.BAD_EXCHANGE, f"/rounds/{round_index}/exchange/{role}", round_index + 1, None
    )


@SOME
@given(game=games(beginner=st.just(False)), data=st.data())
def test_missing_exchange_is_reported_as_bad_exchange_at_its_round(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index = data.draw(st.integers(min_value=0, max_value=len(game.record["rounds"]) - 1))
    record = copy.deepcopy(game.record)
    del record["rounds"][round_index]["exchange"]
    assert_first_error(record, Code.BAD_EXCHANGE, f"/rounds/{round_index}", round_index + 1, None)


@SOME
@given(game=games(beginner=st.just(True)), data=st.data())
def test_exchange_under_the_beginner_rule_is_reported_as_bad_exchange(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index = data.draw(st.integers(min_value=0, max_value=len(game.record["rounds"]) - 1))
    record = copy.deepcopy(game.record)
    deal = record["rounds"][round_index]["deal"]
    record["rounds"][round_index]["exchange"] = {
        "phantom": data.draw(st.sampled_from(deal["phantom"])),
        "christine": data.draw(st.sampled_from(deal["christine"])),
    }
    assert_first_error(
        record, Code.BAD_EXCHANGE, f"/rounds/{round_index}/exchange", round_index + 1, None
    )


@SOME
@given(game=GAMES, data=st.data())
def test_bad_deal_mutation_is_reported_at_the_second_copy(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index = data.draw(st.integers(min_value=0, max_value=len(game.record["rounds"]) - 1))
    record = copy.deepcopy(game.record)
    deal = record["rounds"][round_index]["deal"]
    source = data.draw(st.sampled_from(["phantom", "christine"]))
    target = data.draw(st.sampled_from([key for key in ("christine", "aside") if key != source]))
    card = data.draw(st.sampled_from(deal[source]))
    position = data.draw(st.integers(min_value=0, max_value=len(deal[target]) - 1))
    deal[target][position] = card
    assert_first_error(
        record,
        Code.BAD_DEAL,
        f"/rounds/{round_index}/deal/{target}/{position}",
        round_index + 1,
        None,
    )


@SOME
@given(game=GAMES, data=st.data())
def test_bad_deal_of_the_wrong_size_is_reported_at_the_hand(
    game: SimulatedGame, data: st.DataObject
) -> None:
    round_index = data.draw(st.integers(min_value=0, max_value=len(game.record["rounds"]) - 1))
    record = copy.deepcopy(game.record)
    deal = record["rounds"][round_index]["deal"]
    key = data.draw(st.sampled_from(["phantom", "christine", "aside"]))
    deal[key].pop(data.draw(st.integers(min_value=0, max_value=len(deal[key]) - 1)))
    assert_first_error(
        record, Code.BAD_DEAL, f"/rounds/{round_index}/deal/{key}", round_index + 1, None
    )


@SOME
@given(game=GAMES, data=st.data())
def test_winner_mismatch_mutation_of_a_trick_is_reported_at_its_claim(
    game: SimulatedGame, data: st.DataObject
) -> None:
    outcome = legal_replay(game.record)
    round_index, trick_index = data.draw(st.sampled_from(trick_places(game.record)))
    replayed = trick_outcome(outcome, round_index, trick_index)
    record = copy.deepcopy(game.record)
    record["rounds"][round_index]["tricks"][trick_index]["winner"] = replayed.winner.other.key
    assert_first_error(
        record,
        Code.WINNER_MISMATCH,
        trick_pointer(round_index, trick_index, "winner"),
        round_index + 1,
        trick_index + 1,
    )
    problems, _ = check_record(record)
    assert [problem.code for problem in problems] == [Code.WINNER_MISMATCH]


@SOME
@given(game=GAMES, data=st.data())
def test_winner_mismatch_mutation_of_the_result_is_reported_at_the_result(
    game: SimulatedGame, data: st.DataObject
) -> None:
    record = copy.deepcopy(game.record)
    winner = record["result"]["winner"]
    record["result"]["winner"] = data.draw(
        st.sampled_from([value for value in ("phantom", "christine", None) if value != winner])
    )
    assert_first_error(record, Code.WINNER_MISMATCH, "/result/winner", None, None)
    problems, _ = check_record(record)
    assert [problem.code for problem in problems] == [Code.WINNER_MISMATCH]


@SOME
@given(game=GAMES, data=st.data())
def test_notes_mismatch_mutation_is_reported_at_the_result(
    game: SimulatedGame, data: st.DataObject
) -> None:
    record = copy.deepcopy(game.record)
    notes = record["result"]["notes"]
    record["result"]["notes"] = data.draw(
        st.integers(min_value=0, max_value=12).filter(lambda value: value != notes)
    )
    assert_first_error(record, Code.NOTES_MISMATCH, "/result/notes", None, None)
    problems, _ = check_record(record)
    assert [problem.code for problem in problems] == [Code.NOTES_MISMATCH]


@SOME
@given(game=games(phantom=st.just("greedy"), christine=st.just("random")), data=st.data())
def test_after_game_end_mutation_is_reported_first(
    game: SimulatedGame, data: st.DataObject
) -> None:
    record = copy.deepcopy(game.record)
    rounds = record["rounds"]
    assume(record["result"]["winner"] == "phantom")
    options = []
    if len(rounds[-1]["tricks"]) < 10:
        options.append("trick")
    if len(rounds) == 1:
        options.append("round")
    assume(options)
    how = data.draw(st.sampled_from(options))
    if how == "trick":
        places = trick_places(record)
        round_index, trick_index = data.draw(st.sampled_from(places))
        extra = copy.deepcopy(rounds[round_index]["tricks"][trick_index])
        rounds[-1]["tricks"].append(extra)
        last = len(rounds) - 1
        trick_no = len(rounds[-1]["tricks"])
        assert_first_error(
            record, Code.AFTER_GAME_END, trick_pointer(last, trick_no - 1), last + 1, trick_no
        )
    else:
        extra_round = copy.deepcopy(rounds[0])
        extra_round["tricks"] = extra_round["tricks"][: data.draw(st.integers(0, 10))]
        rounds.append(extra_round)
        assert_first_error(record, Code.AFTER_GAME_END, "/rounds/1", 2, None)


@SOME
@given(game=GAMES, data=st.data())
def test_incomplete_trick_mutation_is_reported_at_its_trick(
    game: SimulatedGame, data: st.DataObject
) -> None:
    places = trick_places(game.record)[:-1]
    assume(places)
    round_index, trick_index = data.draw(st.sampled_from(places))
    record = copy.deepcopy(game.record)
    plays = record["rounds"][round_index]["tricks"][trick_index]["plays"]
    plays.pop()
    assert_first_error(
        record,
        Code.INCOMPLETE_TRICK,
        trick_pointer(round_index, trick_index, "plays"),
        round_index + 1,
        trick_index + 1,
    )


@SOME
@given(game=GAMES, data=st.data())
def test_incomplete_round_mutation_is_reported_at_the_short_round(
    game: SimulatedGame, data: st.DataObject
) -> None:
    assume(len(game.record["rounds"]) == 2)
    record = copy.deepcopy(game.record)
    tricks = record["rounds"][0]["tricks"]
    dropped = data.draw(st.integers(min_value=1, max_value=len(tricks)))
    del tricks[len(tricks) - dropped :]
    assert_first_error(record, Code.INCOMPLETE_ROUND, "/rounds/0/tricks", 1, None)


@SOME
@given(game=GAMES, data=st.data())
def test_a_record_cut_after_any_trick_is_valid_but_unfinished(
    game: SimulatedGame, data: st.DataObject
) -> None:
    places = trick_places(game.record)
    cut = data.draw(st.integers(min_value=0, max_value=len(places) - 1))
    record = copy.deepcopy(game.record)
    round_index, trick_index = places[cut]
    del record["rounds"][round_index + 1 :]
    tricks = record["rounds"][round_index]["tricks"]
    del tricks[trick_index + 1 :]
    # Cut at the record's last trick, the game would be over: then its follow goes too.
    if cut == len(places) - 1 or data.draw(st.booleans()):
        tricks[-1]["plays"].pop()
        tricks[-1].pop("winner", None)
    del record["result"]
    problems, outcome = check_record(record)
    assert [problem.code for problem in problems] == [Code.UNFINISHED]
    assert outcome is not None and outcome.result is not None
    assert outcome.result.winner is None


# -- 4. damaged JSON never makes the checker raise -----------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)
TELLING_VALUES: st.SearchStrategy[Any] = st.sampled_from(
    [
        None, True, False, 0, 1, 1.0, 1.5, -1, -0.0, 3, 6.0, 7, 12, 12.0, 13, 2**63 - 1,
        "", "x", "x" * 201, "Ma5", "Ma7", "phantom", "christine", "rulebook", "PCP", "PXP",
        "\ud800", "2026-11-29", "2026-02-30", "2026-1-01", "2026-11-29\n", "phantom-log/1",
        [], {}, ["Mi1"], ["Mi1", "Mi1"], ["Ma5"] * 25, {"x-note": 1}, {"phantom": "Kim"},
        {"phantom": [], "christine": []}, {"winner": None, "notes": 0},
    ]
)  # fmt: skip
VALUES = TELLING_VALUES | JSON_VALUES
KEYS = st.sampled_from(
    ["winer", "x-note", "X-note", "x-", "comment", "aside", "exchange", "swap", "winner",
     "result", "rules", "date", "notes", "name", "bars", "", "\ud800", "x-\ud800", "players", "x"]
) | st.text(max_size=6)  # fmt: skip


def value_paths(document: Any, prefix: JsonPath = ()) -> list[JsonPath]:
    """The paths of every value below the root of a JSON document."""
    found: list[JsonPath] = []
    if isinstance(document, dict):
        items: list[tuple[str | int, Any]] = list(document.items())
    elif isinstance(document, list):
        items = list(enumerate(document))
    else:
        return found
    for key, value in items:
        path = (*prefix, key)
        found.append(path)
        found.extend(value_paths(value, path))
    return found


def container_paths(document: Any, kind: type) -> list[JsonPath]:
    """The paths (the root included) of every object or array of a kind."""
    found: list[JsonPath] = [()] if isinstance(document, kind) else []
    return found + [
        path for path in value_paths(document) if isinstance(get_at(document, path), kind)
    ]


def get_at(document: Any, path: JsonPath) -> Any:
    for key in path:
        document = document[key]
    return document


def set_at(document: Any, path: JsonPath, value: Any) -> Any:
    """The document with the value at ``path`` replaced (the root if ``path`` is empty)."""
    if not path:
        return value
    get_at(document, path[:-1])[path[-1]] = value
    return document


def delete_at(document: Any, path: JsonPath) -> None:
    parent = get_at(document, path[:-1])
    del parent[path[-1]]


@st.composite
def perturbed_structure(draw: st.DrawFn, document: Any) -> Any:
    """A copy of a document with one structural change."""
    document = copy.deepcopy(document)
    paths = value_paths(document)
    kind = draw(st.sampled_from(["delete", "replace", "add-key", "list", "swap", "replace"]))
    if kind == "delete" and paths:
        delete_at(document, draw(st.sampled_from(paths)))
    elif kind == "replace":
        path = draw(st.sampled_from([(), *paths]))
        document = set_at(document, path, draw(VALUES))
    elif kind == "add-key":
        objects = container_paths(document, dict)
        if objects:
            target = get_at(document, draw(st.sampled_from(objects)))
            target[draw(KEYS)] = draw(VALUES)
    elif kind == "list":
        arrays = [path for path in container_paths(document, list) if get_at(document, path)]
        if arrays:
            items = get_at(document, draw(st.sampled_from(arrays)))
            index = draw(st.integers(min_value=0, max_value=len(items) - 1))
            how = draw(st.sampled_from(["copy", "drop", "reverse", "empty"]))
            if how == "copy":
                items.insert(index, copy.deepcopy(items[index]))
            elif how == "drop":
                del items[index]
            elif how == "reverse":
                items.reverse()
            else:
                items.clear()
    elif kind == "swap" and len(paths) >= 2:
        first = draw(st.sampled_from(paths))
        unrelated = [
            path for path in paths if path[: len(first)] != first and first[: len(path)] != path
        ]
        if unrelated:
            second = draw(st.sampled_from(unrelated))
            one, two = get_at(document, first), get_at(document, second)
            set_at(document, first, two)
            set_at(document, second, one)
    return document


@st.composite
def perturbed_documents(draw: st.DrawFn) -> Any:
    """A simulated record with one to three structural changes."""
    document: Any = draw(GAMES).record
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        document = draw(perturbed_structure(document))
    return document


GARBAGE = st.sampled_from(
    [b",", b"}", b"]", b"{", b"[", b'"', b":", b"\xff", b"\xc3", b"NaN", b"Infinity", b"\n",
     b"\\u0000", b"\\ud800", b"\x00", b"1e999", b"\xef\xbb\xbf", b"99999999999999999999",
     b'"format": 1, ', b"null", b"//", b"\t", b"-"]
) | st.binary(min_size=1, max_size=8)  # fmt: skip


@st.composite
def perturbed_text(draw: st.DrawFn, text: bytes) -> bytes:
    """A copy of a JSON text with one textual change."""
    kind = draw(st.sampled_from(["truncate", "flip", "insert", "cut-range", "duplicate-key"]))
    if kind == "truncate":
        return text[: draw(st.integers(min_value=0, max_value=len(text)))]
    position = draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))
    if kind == "flip" and text:
        changed = bytearray(text)
        changed[position] ^= draw(st.integers(min_value=1, max_value=255))
        return bytes(changed)
    if kind == "cut-range":
        length = draw(st.integers(min_value=1, max_value=40))
        return text[:position] + text[position + length :]
    if kind == "duplicate-key" and b"{" in text:
        opening = text.index(b"{", position) if b"{" in text[position:] else text.index(b"{")
        return text[: opening + 1] + b'"format": "phantom-log/1", ' + text[opening + 1 :]
    return text[:position] + draw(GARBAGE) + text[position:]


@st.composite
def damaged_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A file suffix and contents: one or more simulated records, with damage to their
    structure, their text, or both."""
    suffix = draw(st.sampled_from([".json", ".jsonl"]))
    texts = []
    for _ in range(
        draw(st.integers(min_value=1, max_value=3) if suffix == ".jsonl" else st.just(1))
    ):
        document: Any = draw(GAMES).record
        structural = draw(st.integers(min_value=0, max_value=2))
        for _ in range(structural):
            document = draw(perturbed_structure(document))
        text = json.dumps(document, ensure_ascii=draw(st.booleans())).encode(errors="surrogatepass")
        for _ in range(draw(st.integers(min_value=0 if structural else 1, max_value=3))):
            text = draw(perturbed_text(text))
        texts.append(text)
    if suffix == ".json" and draw(st.booleans()):
        return suffix, b"[" + texts[0] + b"]"
    return suffix, b"\n".join(texts)


def assert_well_formed(problem: Problem) -> None:
    assert isinstance(problem.code, Code)
    assert problem.code in set(Code)
    assert isinstance(problem.severity, Severity)
    assert isinstance(problem.message, str) and problem.message.strip()
    assert isinstance(problem.pointer, str)
    assert problem.pointer == "" or problem.pointer.startswith("/")
    for number in (problem.round, problem.trick):
        assert number is None or (isinstance(number, int) and number >= 1)


def resolves(document: Any, pointer: str) -> bool:
    """Whether a JSON pointer (RFC 6901) names a value of the document."""
    if pointer == "":
        return True
    for token in pointer[1:].split("/"):
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(document, dict) and key in document:
            document = document[key]
        elif isinstance(document, list) and key.isdigit() and int(key) < len(document):
            document = document[int(key)]
        else:
            return False
    return True


def write_temporary(directory: str, name: str, contents: bytes) -> str:
    path = os.path.join(directory, name)
    with open(path, "wb") as handle:
        handle.write(contents)
    return path


@MANY
@given(damaged=damaged_files())
def test_damaged_json_text_never_raises_and_every_problem_is_well_formed(
    damaged: tuple[str, bytes],
) -> None:
    suffix, contents = damaged
    with tempfile.TemporaryDirectory() as directory:
        path = write_temporary(directory, "record" + suffix, contents)
        reports = [verify_record(record) for record in read_source(path)]
    if suffix == ".json":
        assert len(reports) >= 1
    else:  # one report per line that is not blank
        assert len(reports) == json_lines_count(contents)
    for report in reports:
        for problem in report.problems:
            assert_well_formed(problem)
            if problem.code is not Code.JSON:
                assert resolves(report.record, problem.pointer), problem
        if not report.valid:
            assert errors(list(report.problems))
            assert all(isinstance(problem.code, Code) for problem in report.problems)
        else:
            assert report.result is not None
        orjson.dumps(report.to_json())  # the JSON Lines report can always be written


def cli_report_is_well_formed(line: bytes) -> bool:
    report = json.loads(line)
    assert set(report) == {"source", "index", "game_id", "valid", "problems", "result"}
    assert isinstance(report["valid"], bool)
    if not report["valid"]:
        assert any(problem["severity"] == "error" for problem in report["problems"])
    for problem in report["problems"]:
        assert problem["code"] in {code.value for code in Code}
        assert isinstance(problem["message"], str) and problem["message"]
        assert isinstance(problem["pointer"], str)
    valid: bool = report["valid"]
    return valid


@FEW
@given(files=st.lists(damaged_files(), min_size=1, max_size=3))
def test_cli_verify_json_on_damaged_files_exits_0_or_1_with_well_formed_reports(
    files: list[tuple[str, bytes]],
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        # .json files only: a .jsonl file whose lines were all blanked holds no record,
        # which is a usage error (exit 2) by design.
        paths = [
            write_temporary(directory, f"r{index}.json", contents)
            for index, (_, contents) in enumerate(files)
        ]
        result = CliRunner().invoke(main, ["verify", "--format", "json", *paths])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1), result.output
    lines = result.stdout_bytes.splitlines()
    assert lines
    verdicts = [cli_report_is_well_formed(line) for line in lines]
    assert result.exit_code == (0 if all(verdicts) else 1)


# -- 5. the schema and the models agree on damaged documents ------------------------------


def models_accept(document: Any) -> bool:
    try:
        GameRecord.from_json(document)
    except ValidationError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=perturbed_documents())
def test_schema_and_models_agree_on_structurally_damaged_records(document: Any) -> None:
    schema_accepts = schema_problems(document) == []
    assert schema_accepts == models_accept(document), (
        f"schema {'accepts' if schema_accepts else 'rejects'} the document, the models "
        f"do not: {schema_problems(document)[:3]}"
    )


# -- helpers used by more than one property are checked on their own ----------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hands_computed_from_the_replay_hold_every_card_played(seed: int) -> None:
    simulation = Simulation(RULEBOOK_SHEET, Rules(), "random", "random", seed)
    for number in range(1, 6):
        record = simulate_game(simulation, number)
        outcome = legal_replay(record)
        for round_index, trick_index in trick_places(record):
            for play in (0, 1):
                hand_at_play(outcome, round_index, trick_index, play)  # asserts the card is held
