"""Drawing the progress curve with matplotlib (imported only here, and only when asked)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import polars as pl

from ..rules.engine import ROUNDS_PER_GAME, TRICKS_PER_GAME, TRICKS_PER_ROUND
from ..rules.sheets import NOTES_PER_SHEET

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The curves' area, in inches: the same however many groups; the legend is beside it.
AXES_WIDTH: Final = 8.0
AXES_HEIGHT: Final = 4.5
# Tableau's ten colours, then again with another line style and marker: ten groups are
# told apart by colour alone, and each further ten by their line and marks as well.
_TABLEAU: Final = "blue orange green red purple brown pink gray olive cyan"
COLOURS: Final = tuple(f"tab:{name}" for name in _TABLEAU.split())
LINE_STYLES: Final = ("-", "--", ":", "-.")
MARKERS: Final = ("o", "s", "^", "D", "v")
# A legend's column holds this many groups at most; more groups take more columns.
LEGEND_ROWS: Final = 20


class LineStyle(NamedTuple):
    """How one group's curve is drawn."""

    colour: str
    line_style: str
    marker: str


def line_style(group: int) -> LineStyle:
    """The style of the ``group``-th curve (from 0): distinct for the first 200 groups
    (10 colours, and for each ten a line style and marker pair that repeats only after
    20 tens)."""
    ten = group // len(COLOURS)
    return LineStyle(
        COLOURS[group % len(COLOURS)],
        LINE_STYLES[ten % len(LINE_STYLES)],
        MARKERS[ten % len(MARKERS)],
    )


def plot_curve(curve: pl.DataFrame, keys: list[str], path: Path, png: bool) -> None:
    """Draw the mean notes completed per trick of the game, one line per group, the
    round boundary marked; write an SVG (or a PNG when ``png``) to ``path``.

    Labels are taken literally: a ``$`` in a player's name is a dollar sign, not
    matplotlib's mathematics, and characters that could forge text are escaped."""
    from matplotlib import pyplot

    with literal_text():
        figure = curve_figure(curve, keys)
        try:
            figure.savefig(path, format="png" if png else "svg")
        finally:
            pyplot.close(figure)


def literal_text() -> Any:
    """A context in which matplotlib draws text as written (no mathematics, no TeX), on
    the Agg back end (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    return matplotlib.rc_context({"text.parse_math": False, "text.usetex": False})


def curve_figure(curve: pl.DataFrame, keys: list[str]) -> Figure:
    """The figure of the progress curve: the curves on axes of the same size whatever the
    number of groups, the legend beside them, the figure grown to hold it. The caller
    closes it (``pyplot.close``)."""
    from matplotlib import pyplot

    from ..views.reports import printable

    figure = pyplot.figure(figsize=(AXES_WIDTH, AXES_HEIGHT), layout="constrained")
    axes = figure.add_subplot()
    groups = curve.partition_by(keys, maintain_order=True) if keys else [curve]
    for number, group in enumerate(groups):
        label = " / ".join(str(group[key][0]) for key in keys) if keys else "all games"
        style = line_style(number)
        axes.plot(
            group["trick"],
            group["mean_notes"],
            color=style.colour,
            linestyle=style.line_style,
            marker=style.marker,
            label=printable(f"{label} ({group['games'][0]})"),
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
    if groups:
        _legend_beside(figure, len(groups))
    return figure


def _legend_beside(figure: Figure, groups: int) -> None:
    """The legend to the right of the axes, never over a curve: the figure is widened
    (and heightened, for a tall legend) by the legend's size, so the axes keep theirs."""
    columns = math.ceil(groups / LEGEND_ROWS)
    legend = figure.legend(
        loc="outside right upper", ncols=columns, fontsize="small", borderaxespad=0.5
    )
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    box = legend.get_window_extent(renderer)
    padding = 0.5  # inches: the layout's margins and the gap between axes and legend
    width = AXES_WIDTH + box.width / figure.dpi + padding
    height = max(AXES_HEIGHT, box.height / figure.dpi + padding)
    figure.set_size_inches(width, height)
