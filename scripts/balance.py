"""The Phantom's win rate in simulated games: each policy pairing under each optional rule.

    python scripts/balance.py [--games 10000] [--seed 2026]

Prints a Markdown table (the one in README.md), with the 95% Wilson interval of each rate.
Every game is simulated by ``phantom_log.analysis.simulator`` with the given seed, so the figures
are reproducible; they describe the simulator's policies, not real players.
"""

from __future__ import annotations

import argparse
import math
import time

from phantom_log.analysis.simulator import Simulation, simulate_game
from phantom_log.rules.engine import Rules
from phantom_log.rules.sheets import RULEBOOK_SHEET

PAIRINGS = (("random", "random"), ("greedy", "greedy"), ("greedy", "random"), ("random", "greedy"))
RULES = (
    ("none", Rules()),
    ("beginner", Rules(beginner=True)),
    ("balance", Rules(balance=True)),
    ("beginner + balance", Rules(beginner=True, balance=True)),
)


def wilson(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if games == 0:
        return (math.nan, math.nan)
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    margin = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    return centre - margin, centre + margin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args()
    print(f"{options.games} games per row, seed {options.seed}, sheet rulebook\n")
    print("| Phantom | Christine | rules | Phantom wins | 95% interval | mean notes |")
    print("|---|---|---|---|---|---|")
    started = time.perf_counter()
    for phantom, christine in PAIRINGS:
        for rules_name, rules in RULES:
            simulation = Simulation(RULEBOOK_SHEET, rules, phantom, christine, options.seed)
            wins = notes = 0
            for number in range(1, options.games + 1):
                result = simulate_game(simulation, number)["result"]
                wins += result["winner"] == "phantom"
                notes += result["notes"]
            low, high = wilson(wins, options.games)
            print(
                f"| {phantom} | {christine} | {rules_name} | {wins / options.games:.1%} "
                f"| {low:.1%} - {high:.1%} | {notes / options.games:.2f} |"
            )
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
