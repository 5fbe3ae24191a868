"""``stats --plot`` with many groups: the legend beside the curves, inside the picture, and
every group's curve drawn in a style of its own.

The geometry is measured with matplotlib's own renderer on the figure ``stats --plot``
saves (the curve computed by ``stats --curve`` from real records), not guessed from the
code: the legend's box, the axes' box and the figure's box, in display pixels."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from phantom_log.records.model import TEXT_MAX
from phantom_log.tabular.plot import curve_figure, line_style, literal_text
from tests.helpers.cli import run
from tests.helpers.paths import REPO

WALKTHROUGH = REPO / "examples" / "rulebook-walkthrough.json"


def games_of_events(folder: Path, events: list[str]) -> Path:
    """A JSON Lines file of finished games, one per event named."""
    record = json.loads(WALKTHROUGH.read_text(encoding="utf-8"))
    path = folder / "games.jsonl"
    lines = [
        json.dumps({**record, "game_id": f"game-{number}", "event": event})
        for number, event in enumerate(events)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def curve_of(path: Path, keys: list[str]) -> pl.DataFrame:
    """The progress curve as ``stats --curve --format json`` gives it."""
    by = [arg for key in keys for arg in ("--by", key)]
    result = run("stats", path, "--curve", *by, "--format", "json", "-q")
    assert result.exit_code == 0, result.output
    return pl.read_ndjson(io.StringIO(result.stdout))


class Drawn:
    """A figure drawn, with the boxes the tests compare (display pixels)."""

    def __init__(self, figure: Any) -> None:
        figure.draw_without_rendering()  # the layout engine places axes and legend
        renderer = figure.canvas.get_renderer()
        (self.axes,) = figure.axes
        (self.legend,) = figure.legends
        self.figure = figure
        self.picture = figure.bbox
        self.legend_box = self.legend.get_window_extent(renderer)
        self.axes_box = self.axes.get_window_extent(renderer)
        self.curves = [line for line in self.axes.get_lines() if line.get_label()[0] != "_"]


@pytest.fixture
def drawn() -> Iterator[Any]:
    """Draws a curve's figure in the context ``stats --plot`` draws in; closes it after."""
    from matplotlib import pyplot

    figures: list[Any] = []

    def draw(curve: pl.DataFrame, keys: list[str]) -> Drawn:
        figure = curve_figure(curve, keys)
        figures.append(figure)
        return Drawn(figure)

    with literal_text():
        yield draw
    for figure in figures:
        pyplot.close(figure)


def assert_legend_beside_the_curves(drawn: Drawn) -> None:
    legend, picture, axes = drawn.legend_box, drawn.picture, drawn.axes_box
    assert picture.x0 <= legend.x0 and legend.x1 <= picture.x1, (legend, picture)
    assert picture.y0 <= legend.y0 and legend.y1 <= picture.y1, (legend, picture)
    assert not legend.overlaps(axes), (legend, axes)
    assert legend.x0 >= axes.x1  # to the right of the curves


@pytest.mark.parametrize("groups", [1, 5, 25])
def test_the_legend_is_in_the_picture_and_off_the_curves(
    tmp_path: Path, drawn: Any, groups: int
) -> None:
    events = [f"Open of the city number {number}, main hall" for number in range(groups)]
    curve = curve_of(games_of_events(tmp_path, events), ["event"])
    figure = drawn(curve, ["event"])
    assert_legend_beside_the_curves(figure)
    labels = [text.get_text() for text in figure.legend.get_texts()]
    assert sorted(labels) == sorted(f"{event} (1)" for event in events)
    assert len(figure.curves) == groups


def test_the_whole_corpus_as_one_curve_has_its_legend_beside_it(tmp_path: Path, drawn: Any) -> None:
    curve = curve_of(games_of_events(tmp_path, ["one", "two"]), [])
    figure = drawn(curve, [])
    assert_legend_beside_the_curves(figure)
    assert [text.get_text() for text in figure.legend.get_texts()] == ["all games (2)"]


def test_25_groups_are_drawn_in_25_distinct_styles(tmp_path: Path, drawn: Any) -> None:
    from matplotlib.colors import to_rgba

    events = [f"event {number:02}" for number in range(25)]
    figure = drawn(curve_of(games_of_events(tmp_path, events), ["event"]), ["event"])
    styles = {
        (to_rgba(line.get_color()), line.get_linestyle(), line.get_marker())
        for line in figure.curves
    }
    assert len(styles) == 25
    # The legend shows each curve's own style (its handles are drawn from the lines).
    handles = figure.legend.legend_handles
    assert {(to_rgba(h.get_color()), h.get_linestyle(), h.get_marker()) for h in handles} == styles


def test_the_styles_repeat_only_after_200_groups() -> None:
    assert len({line_style(group) for group in range(200)}) == 200
    assert line_style(200) == line_style(0)


def test_the_curves_keep_their_size_however_many_groups(tmp_path: Path, drawn: Any) -> None:
    """The figure grows to hold the legend; the curves are not squeezed to make room."""
    sizes = []
    for groups in (1, 25):
        folder = tmp_path / str(groups)
        folder.mkdir()
        events = [f"{'a long name of an event ' * 3}{number}" for number in range(groups)]
        figure = drawn(curve_of(games_of_events(folder, events), ["event"]), ["event"])
        sizes.append((figure.axes_box.width, figure.axes_box.height))
    (width_1, height_1), (width_25, height_25) = sizes
    assert width_25 == pytest.approx(width_1, rel=0.05)
    assert height_25 == pytest.approx(height_1, rel=0.05)


def test_names_of_the_longest_length_keep_the_legend_in_the_picture(
    tmp_path: Path, drawn: Any
) -> None:
    """Hostile labels: 25 groups whose names are as long as a record allows, wide glyphs."""
    events = [f"{number:02}" + "W" * (TEXT_MAX - 2) for number in range(25)]
    figure = drawn(curve_of(games_of_events(tmp_path, events), ["event"]), ["event"])
    assert_legend_beside_the_curves(figure)


def test_stats_plot_writes_the_picture_it_measures(tmp_path: Path) -> None:
    """The saved SVG is the figure measured above: its size holds the legend, and every
    group is in it."""
    events = [f"event {number:02}" for number in range(25)]
    path = tmp_path / "curve.svg"
    result = run("stats", games_of_events(tmp_path, events), "--by", "event", "--plot", path)
    assert result.exit_code == 0, result.output
    root = ElementTree.parse(path).getroot()
    width = float(root.attrib["width"].removesuffix("pt"))
    assert width > 8 * 72  # wider than the curves' 8 inches: the legend is beside them
    text = path.read_text(encoding="utf-8")
    assert all(f"<!-- {event} (1) -->" in text for event in events)
