"""Drawing the progress curve with matplotlib (imported only here, and only when asked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..rules.engine import ROUNDS_PER_GAME, TRICKS_PER_GAME, TRICKS_PER_ROUND
from ..rules.sheets import NOTES_PER_SHEET


def plot_curve(curve: pl.DataFrame, keys: list[str], path: Path, png: bool) -> None:
    """Draw the mean notes completed per trick of the game, one line per group, the
    round boundary marked; write an SVG (or a PNG when ``png``) to ``path``.

    Labels are taken literally: a ``$`` in a player's name is a dollar sign, not
    matplotlib's mathematics, and characters that could forge text are escaped."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        _draw(pyplot, curve, keys, path, png)


def _draw(pyplot: Any, curve: pl.DataFrame, keys: list[str], path: Path, png: bool) -> None:
    from ..views.reports import printable

    figure, axes = pyplot.subplots(figsize=(8, 4.5))
    groups = curve.partition_by(keys, maintain_order=True) if keys else [curve]
    for group in groups:
        label = " / ".join(str(group[key][0]) for key in keys) if keys else "all games"
        games = group["games"][0]
        axes.plot(
            group["trick"],
            group["mean_notes"],
            marker="o",
            label=printable(f"{label} ({games})"),
        )
    # The rounds' boundary, and each round's name above the middle of its tricks.
    axes.axvline(TRICKS_PER_ROUND + 0.5, color="grey", linestyle="--", linewidth=1)
    for round_index in range(ROUNDS_PER_GAME):
        middle = round_index * TRICKS_PER_ROUND + (TRICKS_PER_ROUND + 1) / 2
        axes.text(
            middle, NOTES_PER_SHEET + 0.3, f"round {round_index + 1}", ha="center", color="grey"
        )
    axes.set_xlim(0.5, TRICKS_PER_GAME + 0.5)
    axes.set_ylim(0, NOTES_PER_SHEET + 1)
    axes.set_xticks(range(1, TRICKS_PER_GAME + 1))
    axes.set_xlabel("trick of the game")
    axes.set_ylabel("mean notes completed")
    axes.set_title("Progress of the sheet (finished games)")
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, format="png" if png else "svg")
    pyplot.close(figure)
