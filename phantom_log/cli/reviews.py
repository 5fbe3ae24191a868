"""The analysed decisions that ``annotate`` and ``show`` mark: read from an ``--analysis``
file (as ``analyse --format json`` writes it) or analysed in the run (``--analyse``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from ..checking.verdict import RecordReport
from ..records.size_limit import read_limited
from ..rules.sheets import Sheet
from .exits import usage_error

if TYPE_CHECKING:
    from ..views.annotate import Marks
    from ..views.replay_page import Reviews


def decision_reviews(
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    sheets: Mapping[str, Sheet] | None,
) -> Callable[[RecordReport], Reviews | None]:
    """How a record's decisions are reviewed on its page: read from an analysis file, by
    the analysis, or not at all."""
    from ..analysis.coach import reviews_of
    from ..views.replay_page import AnalysisRowError, reviews_from_rows

    if analysis_path is not None:
        rows = analysis_rows(analysis_path)

        def read(report: RecordReport) -> Reviews | None:
            try:
                return reviews_from_rows(rows, report.game_id)
            except AnalysisRowError as error:
                raise usage_error(f"--analysis {analysis_path}: {error}") from None

        return read
    if analyse_games:

        def analysed(report: RecordReport) -> Reviews | None:
            from ..analysis.decisions import analyse

            if report.log is None or not isinstance(report.record, dict):
                return None
            return reviews_of(analyse(report.record, sheets, time_limit=time_limit))

        return analysed
    return lambda report: None


def decision_marks(
    analysis_path: str | None,
    analyse_games: bool,
    time_limit: float,
    sheets: Mapping[str, Sheet] | None,
) -> Callable[[RecordReport], Marks] | None:
    """A record's analysed decisions by trick, as annotate and show mark them (read from
    an analysis file, or by the analysis); ``None`` when neither is asked for."""
    from ..analysis.coach import trick_reviews

    if analysis_path is None and not analyse_games:
        return None
    reviews = decision_reviews(analysis_path, analyse_games, time_limit, sheets)
    return lambda report: trick_reviews(reviews(report) or {})


@functools.cache
def analysis_rows(analysis_path: str) -> list[dict[str, Any]]:
    """The rows of an analysis file (JSON Lines, as analyse --format json writes it), read
    once in a run (it may be standard input)."""
    try:
        data = read_limited(analysis_path)
    except OSError as error:
        raise usage_error(f"--analysis {analysis_path}: {error.strerror or error}") from None
    rows = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            row = None
        if not isinstance(row, dict):
            raise usage_error(
                f"--analysis {analysis_path}: line {number} is not a JSON object "
                "(give the JSON Lines of analyse --format json)"
            )
        rows.append(row)
    return rows
