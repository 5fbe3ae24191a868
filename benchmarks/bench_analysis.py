"""Benchmark of post-game analysis (``phantom_log.analysis.decisions``, ``phantom-log analyse``).

Run from the repository's root, with the project's virtual environment::

    .venv/bin/python benchmarks/bench_analysis.py              # the default sample
    .venv/bin/python benchmarks/bench_analysis.py --quick      # a smaller one

The games are simulated as the benchmark corpus configures them (``benchmarks/corpus.py``,
through ``bench_solver.games``): the built-in sheet and the corpus's custom sheets, the
four combinations of the optional rules, random and greedy players. Every figure is in
CPU seconds of this one process, one solver (its table emptied before each game, as the
command does):

- **whole game, default analysis**: every special-number pick, lead, follow and swap give
  of both rounds, under ``--time-limit``; median, 90th percentile, and the decisions left
  unsolved by the limit;
- **--hidden --worlds 30 and --deep**: against the default analysis of the same decisions,
  from ``--from`` on (round 2, trick 3 by default: a whole game under --hidden takes far
  longer than any limit worth setting), as a ratio per game.

``--split`` also prints, on the compared games, the nodes of the default analysis and of
``--hidden`` by kind of decision and trick, with the layouts solved and how many of them
are distinct positions once each suit's cards in play are renumbered (the solver's table
key): where the ratio comes from. It counts by wrapping the analysis's per-decision solves
(``analysis._perfect`` and ``analysis._hidden``), so it only reads, and changes no result.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_solver import games, percentile

from phantom_log import engine_build
from phantom_log.analysis import decisions as analysis
from phantom_log.analysis.decisions import (
    AnalysisOptions,
    Decision,
    analyse_replay,
    record_decisions,
)
from phantom_log.analysis.solver import Solver
from phantom_log.rules.engine import GameState
from phantom_log.views.picture import parse_moment


def timed(
    solver: Solver, record: dict[str, object], options: AnalysisOptions
) -> tuple[float, list[Decision], int]:
    """CPU seconds of one game's analysis, its rows, and the nodes the solver searched."""
    replayed = record_decisions(record, None)
    nodes = solver.total_nodes
    start = time.process_time()
    rows = analyse_replay(replayed, None, options, solver)
    return time.process_time() - start, rows, solver.total_nodes - nodes


def renumbered(world: GameState) -> tuple[int, ...]:
    """A layout as the solver's table sees it: the hands, the special cards in play and the
    card led, each suit's cards in play renumbered from its lowest."""
    live = world.phantom_hand | world.christine_hand
    lead = 0 if world.lead_card < 0 else 1 << world.lead_card
    live |= lead
    masks = (world.phantom_hand, world.christine_hand, world.special_cards() & live, lead)
    packed = []
    for mask in masks:
        bits = 0
        for suit in range(4):
            rank = 0
            for card in range(6 * suit, 6 * suit + 6):
                if live >> card & 1:
                    bits |= (mask >> card & 1) << (6 * suit + rank)
                    rank += 1
        packed.append(bits)
    return tuple(packed)


def split(
    solver: Solver,
    records: list[tuple[dict[str, object], str]],
    base: AnalysisOptions,
    hidden: AnalysisOptions,
) -> None:
    """Nodes by kind of decision and trick, default against --hidden (see the docstring)."""
    nodes: Counter[tuple[str, str, int]] = Counter()
    layouts: Counter[tuple[str, int]] = Counter()
    distinct: Counter[tuple[str, int]] = Counter()
    perfect, hidden_solve = analysis._perfect, analysis._hidden

    def counted(name: str, solve: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(solver: Solver, item: Any, *rest: Any) -> Any:
            before = solver.total_nodes
            try:
                return solve(solver, item, *rest)
            finally:
                key = (item.kind.value, min(item.trick or 0, 6))
                nodes[(name, *key)] += solver.total_nodes - before
                if name == "hidden":
                    layouts[key] += len(rest[0])
                    distinct[key] += len({renumbered(world) for world in rest[0]})

        return wrapped

    analysis._perfect = counted("default", perfect)
    analysis._hidden = counted("hidden", hidden_solve)
    try:
        for record, _mix in records:
            for options in (base, hidden):
                timed(solver, record, options)
    finally:
        analysis._perfect, analysis._hidden = perfect, hidden_solve
    print("\nnodes by kind and trick (6 = trick 6 and later), default against --hidden:")
    for kind, trick in sorted(layouts, key=lambda key: (key[1], key[0])):
        plain, spent = nodes[("default", kind, trick)], nodes[("hidden", kind, trick)]
        print(
            f"  trick {trick} {kind:<7} default {plain:11,}  hidden {spent:12,} "
            f"(x{spent / max(plain, 1):.0f})  layouts {layouts[(kind, trick)]:5} of which "
            f"distinct {distinct[(kind, trick)]:5}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="Games analysed whole (20).")
    parser.add_argument("--compared", type=int, default=8, help="Games for the ratios (8).")
    parser.add_argument("--seed", type=int, default=1, help="The seed of the games (1).")
    parser.add_argument(
        "--time-limit", type=float, default=60.0, help="Seconds per game (60, as the command)."
    )
    parser.add_argument(
        "--from", dest="start", default="2.3", help="Where the ratios start (ROUND.TRICK, 2.3)."
    )
    parser.add_argument("--worlds", type=int, default=30, help="Layouts for --hidden (30).")
    parser.add_argument("--quick", action="store_true", help="6 games, 3 compared.")
    parser.add_argument(
        "--split", action="store_true", help="Also nodes by kind of decision and trick."
    )
    options = parser.parse_args()
    if options.quick:
        options.games, options.compared = 6, 3
    solver = Solver()
    print(
        f"phantom-log analysis benchmark: engine {engine_build()}, {options.games} simulated "
        f"games (seed {options.seed}), time limit {options.time_limit:g} s a game; CPU seconds"
    )
    records = list(games(max(options.games, options.compared), options.seed))
    whole: list[float] = []
    searched: list[int] = []
    unsolved = decisions = 0
    default = AnalysisOptions(time_limit=options.time_limit)
    for record, mix in records[: options.games]:
        seconds, rows, nodes = timed(solver, record, default)
        whole.append(seconds)
        searched.append(nodes)
        decisions += len(rows)
        missed = sum(not row.solved for row in rows)
        unsolved += missed
        print(
            f"  {mix:<16} {len(rows):3} decisions {seconds:7.2f} s {nodes:13,} nodes  "
            f"unsolved {missed}"
        )
    if whole:
        print(
            f"\nwhole game, default analysis: median {statistics.median(whole):.2f} s, p90 "
            f"{percentile(whole, 0.9):.2f} s, max {max(whole):.2f} s; {unsolved} of {decisions} "
            f"decisions unsolved by the limit; nodes: median {statistics.median(searched):,.0f}, "
            f"total {sum(searched):,}"
        )
    start = parse_moment(options.start)
    base = AnalysisOptions(start=start, time_limit=None)
    hidden = AnalysisOptions(start=start, hidden=True, worlds=options.worlds, time_limit=None)
    deep = AnalysisOptions(start=start, deep=True, time_limit=None)
    ratios: dict[str, list[float]] = {"hidden": [], "deep": []}
    seconds_of: dict[str, list[float]] = {"default": [], "hidden": [], "deep": []}
    nodes_of: dict[str, list[int]] = {"default": [], "hidden": [], "deep": []}
    print(f"\nfrom round {start[0]}, trick {start[1]} on (no time limit):")
    for record, mix in records[: options.compared]:
        plain, _, nodes = timed(solver, record, base)
        seconds_of["default"].append(plain)
        nodes_of["default"].append(nodes)
        line = f"  {mix:<16} default {plain:6.3f} s {nodes:10,} nodes"
        for name, chosen in (("hidden", hidden), ("deep", deep)):
            spent, _, nodes = timed(solver, record, chosen)
            seconds_of[name].append(spent)
            nodes_of[name].append(nodes)
            ratios[name].append(spent / max(plain, 1e-3))
            line += f"  {name} {spent:7.3f} s (x{spent / max(plain, 1e-3):.1f}) {nodes:11,} nodes"
        print(line)
    print(
        f"default: median {statistics.median(seconds_of['default']):.3f} s a game, "
        f"{statistics.median(nodes_of['default']):,.0f} nodes"
    )
    for name in ("hidden", "deep"):
        together = sum(seconds_of[name]) / max(sum(seconds_of["default"]), 1e-3)
        print(
            f"{name}: median {statistics.median(seconds_of[name]):.3f} s a game, "
            f"{statistics.median(nodes_of[name]):,.0f} nodes, ratio to the default median "
            f"x{statistics.median(ratios[name]):.1f}, p90 x{percentile(ratios[name], 0.9):.1f}; "
            f"all games together x{together:.1f}"
        )
    if options.split:
        split(solver, records[: options.compared], base, hidden)
    return 0


if __name__ == "__main__":
    sys.exit(main())
