"""Statistics over many games, as polars expressions over whole columns.

Everything here reads the games and tricks tables of :mod:`phantom_log.tabular.tables` lazily
and aggregates with ``group_by``; no Python loop runs over rows.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from ..rules.engine import TRICKS_PER_GAME, TRICKS_PER_ROUND
from .tables import GAME_KEY, REASONS, TableScans

GROUPINGS: Final = ("sheet", "rules", "event", "stage", "special_number", "player")
Z_95: Final = 1.959963984540054

_RULES: Final = (
    pl.when(pl.col("beginner") & pl.col("balance"))
    .then(pl.lit("beginner+balance"))
    .when(pl.col("beginner"))
    .then(pl.lit("beginner"))
    .when(pl.col("balance"))
    .then(pl.lit("balance"))
    .otherwise(pl.lit("none"))
)


def wilson_bounds(wins: pl.Expr, games: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The 95% Wilson score interval of ``wins / games`` (null where ``games`` is 0)."""
    n = games.cast(pl.Float64)
    p = wins.cast(pl.Float64) / n
    z2 = Z_95 * Z_95
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    margin = Z_95 * ((p * (1 - p) / n + z2 / (4 * n * n)).sqrt()) / denominator
    valid = games > 0
    return (
        pl.when(valid).then(centre - margin).otherwise(None),
        pl.when(valid).then(centre + margin).otherwise(None),
    )


def _keyed_games(files: TableScans, by: list[str]) -> pl.LazyFrame:
    """Valid games with the grouping columns; a game appears once per ``special_number``
    of its rounds and once per ``player`` (with ``as_phantom`` and ``as_christine``)."""
    keys = list(by)
    games = files.scan_games().filter(pl.col("valid")).with_columns(rules=_RULES)
    if "special_number" in by:
        games = games.with_columns(
            special_number=pl.concat_list("special_number_1", "special_number_2")
            .list.drop_nulls()
            .list.unique()
        ).explode("special_number")
    if "player" in by:
        # A player named on both sides of one game counts that game once, in both roles.
        games = (
            pl.concat(
                [
                    games.with_columns(
                        player=pl.col("phantom"), as_phantom=True, as_christine=False
                    ),
                    games.with_columns(
                        player=pl.col("christine"), as_phantom=False, as_christine=True
                    ),
                ]
            )
            .group_by([GAME_KEY, *keys], maintain_order=True)
            .agg(
                pl.all().exclude("as_phantom", "as_christine").first(),
                pl.col("as_phantom").any(),
                pl.col("as_christine").any(),
            )
        )
    return games


def _finished(expr: pl.Expr) -> pl.Expr:
    return expr.filter(pl.col("winner").is_not_null())


def summary(files: TableScans, by: list[str]) -> pl.DataFrame:
    """One row per group (one row in all when ``by`` is empty): the counts, the Phantom's
    win rate over finished games with its 95% Wilson interval, the means, the share of
    tricks won by each reason, and the special tricks' rate and mean net effect."""
    games = _keyed_games(files, by)
    keys = list(by)
    phantom_wins = (pl.col("winner") == "phantom").sum()
    christine_wins = (pl.col("winner") == "christine").sum()
    aggregations = [
        pl.len().alias("games"),
        phantom_wins.alias("phantom_wins"),
        christine_wins.alias("christine_wins"),
        pl.col("winner").is_null().sum().alias("unfinished"),
        _finished(pl.col("notes")).mean().alias("mean_notes"),
        pl.col("notes_after_round_1").mean().alias("mean_notes_after_round_1"),
        _finished(pl.col("tricks_played")).mean().alias("mean_tricks"),
        pl.col("special_tricks").mean().alias("special_tricks_per_game"),
        pl.col("special_tricks").sum().alias("_special_tricks"),
        (pl.col("notes_added_by_special") - pl.col("notes_removed_by_special"))
        .sum()
        .alias("_special_effect"),
    ]
    if "player" in by:
        as_phantom = pl.col("as_phantom")
        as_christine = pl.col("as_christine")
        aggregations += [
            as_phantom.sum().alias("games_as_phantom"),
            (as_phantom & (pl.col("winner") == "phantom")).sum().alias("wins_as_phantom"),
            as_christine.sum().alias("games_as_christine"),
            (as_christine & (pl.col("winner") == "christine")).sum().alias("wins_as_christine"),
        ]
    table = games.group_by(keys).agg(aggregations) if keys else games.select(aggregations)
    finished = pl.col("phantom_wins") + pl.col("christine_wins")
    low, high = wilson_bounds(pl.col("phantom_wins"), finished)
    table = table.with_columns(
        phantom_win_rate=pl.when(finished > 0)
        .then(pl.col("phantom_wins") / finished)
        .otherwise(None),
        phantom_win_rate_low=low,
        phantom_win_rate_high=high,
        mean_special_effect=pl.when(pl.col("_special_tricks") > 0)
        .then(pl.col("_special_effect") / pl.col("_special_tricks"))
        .otherwise(None),
    )
    if "player" in by:
        table = table.with_columns(
            wins=pl.col("wins_as_phantom") + pl.col("wins_as_christine"),
        )
    shares = _reason_shares(files, games, keys)
    table = (
        table.join(shares, on=keys, how="left", nulls_equal=True)
        if keys
        else (pl.concat([table, shares], how="horizontal"))
    )
    columns = [
        *keys,
        "games",
        "phantom_wins",
        "christine_wins",
        "unfinished",
        "phantom_win_rate",
        "phantom_win_rate_low",
        "phantom_win_rate_high",
        "mean_notes",
        "mean_notes_after_round_1",
        "mean_tricks",
        *(f"share_{reason.replace('-', '_')}" for reason in REASONS),
        "special_tricks_per_game",
        "mean_special_effect",
    ]
    if "player" in by:
        columns += [
            "wins",
            "games_as_phantom",
            "wins_as_phantom",
            "games_as_christine",
            "wins_as_christine",
        ]
    result = table.select(columns).collect(engine="streaming")
    if keys:
        result = result.sort(keys, nulls_last=True)
    return result


def _reason_shares(files: TableScans, games: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """The share of tricks won by each reason, per group."""
    group_keys = games.select(GAME_KEY, *keys)
    tricks = files.scan_tricks().select(GAME_KEY, "reason").join(group_keys, on=GAME_KEY)
    shares = [
        pl.when(pl.len() > 0)
        .then((pl.col("reason") == reason).sum() / pl.len())
        .otherwise(None)
        .alias(f"share_{reason.replace('-', '_')}")
        for reason in REASONS
    ]
    if keys:
        return tricks.group_by(keys).agg(shares)
    return tricks.select(shares)


def progress_curve(files: TableScans, by: list[str]) -> pl.DataFrame:
    """Per trick of the game (1-20) and per group: the mean notes completed after that
    trick over finished games (a game that ended earlier keeps its final notes), and the
    share of those games still running at that trick."""
    keys = list(by)
    games = _keyed_games(files, by).filter(pl.col("winner").is_not_null())
    game_keys = games.select(GAME_KEY, *keys, "notes", "tricks_played")
    tricks = (
        files.scan_tricks()
        .select(
            GAME_KEY, "notes_after", slot=(pl.col("round") - 1) * TRICKS_PER_ROUND + pl.col("trick")
        )
        .join(game_keys.select(GAME_KEY, *keys), on=GAME_KEY)
    )
    slots = pl.LazyFrame({"slot": list(range(1, TRICKS_PER_GAME + 1))})
    totals = (
        game_keys.group_by(keys).agg(pl.len().alias("games"))
        if keys
        else (game_keys.select(pl.len().alias("games")))
    )
    running = tricks.group_by([*keys, "slot"]).agg(
        pl.len().alias("running"), pl.col("notes_after").sum().alias("running_notes")
    )
    # A game whose last trick is slot L adds its final notes to every later slot.
    ended = game_keys.group_by([*keys, "tricks_played"]).agg(
        pl.len().alias("ended"), pl.col("notes").sum().alias("ended_notes")
    )
    grid = totals.join(slots, how="cross")
    grid = grid.join(running, on=[*keys, "slot"], how="left", nulls_equal=True)
    ended_before = (
        grid.select(*keys, "slot").join(ended, on=keys, how="inner", nulls_equal=True)
        if keys
        else (grid.select("slot").join(ended, how="cross"))
    )
    ended_before = (
        ended_before.filter(pl.col("tricks_played") < pl.col("slot"))
        .group_by([*keys, "slot"])
        .agg(pl.col("ended_notes").sum())
    )
    grid = grid.join(ended_before, on=[*keys, "slot"], how="left", nulls_equal=True)
    curve = grid.select(
        *keys,
        pl.col("slot").alias("trick"),
        (
            (pl.col("running_notes").fill_null(0) + pl.col("ended_notes").fill_null(0))
            / pl.col("games")
        ).alias("mean_notes"),
        (pl.col("running").fill_null(0) / pl.col("games")).alias("share_running"),
        pl.col("games"),
    )
    curve = curve.filter(pl.col("games") > 0)
    return curve.collect(engine="streaming").sort([*keys, "trick"], nulls_last=True)
