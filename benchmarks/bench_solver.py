"""Benchmark of the perfect-information solver (``phantom_log.analysis.solver``).

Run from the repository's root, with the project's virtual environment::

    .venv/bin/python benchmarks/bench_solver.py              # the default sample
    .venv/bin/python benchmarks/bench_solver.py --quick      # a smaller one
    .venv/bin/python benchmarks/bench_solver.py --games 60 --rounds 20 --time-limit 300

The positions come from simulated games, configured as the benchmark corpus configures
them (``benchmarks/corpus.py``): the built-in sheet and the corpus's custom sheets, the
four combinations of the optional rules, random and greedy players. Each game is walked
action by action through a :class:`~phantom_log.rules.engine.GameState`, and the positions are
taken where a player decides.

Two figures, each a cold solve (the table emptied first) of the decision's value and
every best choice (:meth:`~phantom_log.analysis.solver.Solver.solve`), in CPU seconds of this one
process (so that other work on the machine counts less):

- **from trick 3 on**: the first lead of trick 3 of each round (the hardest of those
  positions), then one decision drawn from each later trick; by trick, with the share
  solved in under 0.1 s;
- **whole round**: the first lead of trick 1 of some rounds (the special number picked),
  each under ``--time-limit``; median and 90th percentile, unsolved ones counted as
  slower than the limit.

Then the analysis of one round's decisions in order with one shared table (as the
``analyse`` command will run), to show what the sharing saves.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import CUSTOM_SHEET_LAYOUTS, POLICY_NAMES, RULE_MIXES, Config, simulation_of

from phantom_log import engine_build
from phantom_log.analysis.simulator import simulate_game
from phantom_log.analysis.solver import DEFAULT_ENTRIES, Solver, Unsolved
from phantom_log.rules.cards import CARD_BY_CODE, Role, hand_mask
from phantom_log.rules.engine import GameState, Rules
from phantom_log.rules.replay import record_sheet

TARGET = 0.1


@dataclass(frozen=True)
class Decision:
    """A position where a player decides, and where it comes from."""

    state: GameState
    trick: int
    label: str


def games(count: int, seed: int) -> Iterator[tuple[dict[str, Any], str]]:
    """Simulated games of the corpus's mix, with a label saying which mix."""
    rng = random.Random(f"bench-solver:{seed}")
    for number in range(1, count + 1):
        layout = rng.randrange(len(CUSTOM_SHEET_LAYOUTS)) if rng.random() < 0.5 else None
        config = Config(
            layout,
            rng.choice(RULE_MIXES),
            rng.choice(POLICY_NAMES),
            rng.choice(POLICY_NAMES),
        )
        sheet = "rulebook" if layout is None else "custom"
        yield simulate_game(simulation_of(config, seed), number), f"{sheet}/{config.rules}"


def decisions(record: dict[str, Any]) -> Iterator[Decision]:
    """Every position of a recorded game where a card is played (the state before it)."""
    sheet = record_sheet(record["sheet"])
    assert not isinstance(sheet, list), sheet
    rules = Rules(record["rules"]["beginner"], record["rules"]["balance"])
    state = GameState.start(sheet, rules, tracking=False)

    def cards(codes: list[str]) -> list[int]:
        return [CARD_BY_CODE[code] for code in codes]

    for data in record["rounds"]:
        deal = data["deal"]
        assert (
            state.step_deal(hand_mask(cards(deal["phantom"])), hand_mask(cards(deal["christine"])))
            is None
        )
        if "exchange" in data:
            exchange = data["exchange"]
            assert (
                state.step_exchange(
                    CARD_BY_CODE[exchange["phantom"]], CARD_BY_CODE[exchange["christine"]]
                )
                is None
            )
        assert state.step_special_number(data["special_number"]) is None
        for trick in data["tricks"]:
            for play in trick["plays"]:
                yield Decision(state.copy(), state.trick, "")
                role = Role.PHANTOM if play["player"] == "phantom" else Role.CHRISTINE
                assert state.step_play(role, CARD_BY_CODE[play["card"]]) is None
                if "swap" in play:
                    swap = play["swap"]
                    given = tuple(cards(swap["phantom"])), tuple(cards(swap["christine"]))
                    assert state.step_swap(*given) is None


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def shown_seconds(seconds: float) -> str:
    return "unsolved" if seconds == float("inf") else f"{seconds:.2f} s"


def cold_solve(solver: Solver, state: GameState, limit: float | None) -> tuple[float, int]:
    """CPU seconds and nodes of one solve with an empty table; ``inf`` when unsolved."""
    solver.clear()
    start = time.process_time()
    deadline = None if limit is None else time.monotonic() + limit
    try:
        solver.solve(state, deadline=deadline)
    except Unsolved:
        return float("inf"), solver.nodes
    return time.process_time() - start, solver.nodes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="Simulated games (default 40).")
    parser.add_argument(
        "--rounds", type=int, default=12, help="Rounds solved from trick 1 (default 12)."
    )
    parser.add_argument("--seed", type=int, default=1, help="The seed (default 1).")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=120.0,
        help="Seconds for each whole-round solve (default 120).",
    )
    parser.add_argument(
        "--entries",
        type=int,
        default=DEFAULT_ENTRIES,
        help=f"Entries of the transposition table (default {DEFAULT_ENTRIES:,}).",
    )
    parser.add_argument("--quick", action="store_true", help="10 games, 4 rounds, 30 s each.")
    options = parser.parse_args()
    if options.quick:
        options.games, options.rounds, options.time_limit = 10, 4, 30.0
    solver = Solver(options.entries)
    print(
        f"phantom-log solver benchmark: engine {engine_build()}, table {solver.size:,} "
        f"entries ({solver.memory / 2**20:.0f} MiB), {options.games} simulated games, "
        f"seed {options.seed}; CPU seconds of one process"
    )
    rng = random.Random(options.seed)
    late: dict[int, list[tuple[float, int]]] = {}
    openings: list[tuple[GameState, str]] = []
    by_mix: dict[str, list[float]] = {}
    rounds_seen: list[list[Decision]] = []
    for record, mix in games(options.games, options.seed):
        current: list[Decision] = []
        for decision in decisions(record):
            if current and decision.trick < current[-1].trick:
                rounds_seen.append(current)
                current = []
            current.append(decision)
        rounds_seen.append(current)
        for round_decisions in rounds_seen[-len(record["rounds"]) :]:
            first = round_decisions[0]
            if first.trick == 1:
                openings.append((first.state, mix))
            tricks: dict[int, list[Decision]] = {}
            for decision in round_decisions:
                tricks.setdefault(decision.trick, []).append(decision)
            for trick, found in sorted(tricks.items()):
                if trick < 3:
                    continue
                chosen = found[0] if trick == 3 else rng.choice(found)
                result = cold_solve(solver, chosen.state, None)
                late.setdefault(trick, []).append(result)
                if trick == 3:
                    by_mix.setdefault(mix, []).append(result[0])
    print("\nfrom trick 3 on (cold solves: value and every best choice)")
    print(f"  {'trick':>5} {'positions':>9} {'median':>8} {'p90':>8} {'max':>8} {'< 0.1 s':>8}")
    every: list[float] = []
    for trick, results in sorted(late.items()):
        spent = [result[0] for result in results]
        every.extend(spent)
        under = sum(1 for value in spent if value < TARGET) / len(spent)
        print(
            f"  {trick:>5} {len(spent):>9} {statistics.median(spent):>8.4f} "
            f"{percentile(spent, 0.9):>8.4f} {max(spent):>8.4f} {100 * under:>7.1f}%"
        )
    under = sum(1 for value in every if value < TARGET) / len(every)
    nodes = sum(result[1] for results in late.values() for result in results)
    print(
        f"  {'all':>5} {len(every):>9} {statistics.median(every):>8.4f} "
        f"{percentile(every, 0.9):>8.4f} {max(every):>8.4f} {100 * under:>7.1f}%"
        f"   ({nodes / sum(every):,.0f} nodes a second)"
    )
    print("  trick 3 by sheet/rules:")
    for mix, times in sorted(by_mix.items()):
        print(
            f"    {mix:<20} {len(times):>4} positions, median {statistics.median(times):.4f}"
            f" s, max {max(times):.4f} s"
        )
    print(f"\nwhole round from trick 1 (time limit {options.time_limit:g} s each)")
    whole: list[float] = []
    for state, mix in openings[: options.rounds]:
        seconds, searched = cold_solve(solver, state, options.time_limit)
        whole.append(seconds)
        shown = "unsolved" if seconds == float("inf") else f"{seconds:8.2f} s"
        print(f"  round {state.round} of a {mix:<20} {shown:>10}  {searched:>12,} nodes")
    solved = [value for value in whole if value != float("inf")]
    print(
        f"  {len(whole)} rounds, {len(solved)} solved: median "
        f"{shown_seconds(statistics.median(whole))}, p90 {shown_seconds(percentile(whole, 0.9))}"
    )
    if rounds_seen:
        sample = max(rounds_seen[: options.rounds], key=len)
        later = [decision for decision in sample if decision.trick >= 3]
        shared = Solver(options.entries)
        start = time.process_time()
        for decision in later:
            shared.solve(decision.state)
        together = time.process_time() - start
        apart = sum(cold_solve(solver, decision.state, None)[0] for decision in later)
        print(
            f"\none round's {len(later)} decisions from trick 3, in order: one shared table "
            f"{together:.3f} s, a table each {apart:.3f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
