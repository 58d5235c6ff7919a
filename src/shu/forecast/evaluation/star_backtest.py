"""The star templates' walk forward: on each refit (`walk_forward.refit_blocks`) the yes/no
forecaster, or the interval forecaster, fitted on its blocks and issued on its test origins with
the regime guard and the online conformal levels as in production; then the baselines each
prediction is scored against (climatology, persistence: outcomes known before its origin)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

import duckdb
import numpy as np
import pandas as pd

from shu.errors import StoreError
from shu.forecast.base_rates import climatology
from shu.forecast.calibration import conformal, guard
from shu.forecast.evaluation import interval_scores
from shu.forecast.evaluation.one_distribution import (
    DIST_COLUMNS,
    DIST_QUANTILES,
    hold_to_bounds,
    read_from_distribution,
)
from shu.forecast.evaluation.walk_forward import BacktestConfig, Walked, persistence, refit_blocks
from shu.forecast.features.examples import Examples, base_frame, build_examples, weekly_grid
from shu.forecast.features.regime import regime_frame
from shu.forecast.features.star import data_through
from shu.forecast.models import interval, tail
from shu.forecast.models.forecaster import fit_forecaster
from shu.forecast.questions import registry

BASELINE_COLUMNS = [f"b{q}" for q in interval.QUANTILES]  # the persistence baseline's
# Columns of each prediction kept for scoring (the features are dropped to save memory).
_KEPT = [
    "repo",
    "origin",
    "threshold",
    "acceleration_28d",
    "velocity_28d",
    "velocity_7d",
    "bucket",
    "label",
    "outcome",
    "observed_value",
]
_TOP_COLUMNS = ["repo", "origin", "known_on", "label"]  # what the online tail factor reads


def walk_star_templates(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig,
    templates: tuple[str, ...],
    log: Callable[[str], None] = print,
) -> list[Walked]:
    """Walk forward every star template of `templates` x horizon of `config` on the store's
    star_signals, each horizon's answers then read from one distribution where `config` says so
    (`one_distribution`)."""
    last = data_through(con)
    first = con.execute("SELECT min(day) FROM star_signals").fetchall()[0][0]
    end = min(config.end, last)
    grid = weekly_grid(config.start, first + timedelta(days=56), end)
    t0 = time.perf_counter()
    base = base_frame(con, grid)
    regime = regime_frame(con, grid).set_index("origin")[["distance", "loss_share_ratio_7d"]]
    log(
        f"features: {len(base):,} repo-origins on {len(grid)} weekly origins "
        f"({time.perf_counter() - t0:.0f}s)"
    )
    walked: list[Walked] = []
    for template in templates:
        for horizon in config.horizons:
            t1 = time.perf_counter()
            examples = build_examples(con, base, template, horizon, last)
            interval_kind = registry.template(template).kind == "interval"
            walk = walk_forward_interval if interval_kind else walk_forward_binary
            walked.append(walk(con, examples, config, regime, log))
            log(
                f"{template}/{horizon}d: {len(walked[-1].pred):,} scored, "
                f"{examples.n_void:,} void ({time.perf_counter() - t1:.0f}s)"
            )
            del examples
    if config.one_distribution:
        for horizon in config.horizons:
            same = [w for w in walked if w.horizon_days == horizon]
            read_from_distribution(same, con)
            hold_to_bounds(con, same)
    return walked


def _guards(origins: pd.Series, regime: pd.DataFrame, config: BacktestConfig) -> pd.DataFrame:
    """The regime guard (`guard.guard`) of each row's origin, from its regime distance and
    loss-share ratio (off without recalibrate)."""
    days = pd.to_datetime(origins)
    found = regime.reindex(days.unique())
    table = {
        day: guard.guard(*(v if config.recalibrate and pd.notna(v) else None for v in row))
        for day, row in zip(
            found.index,
            found[["distance", "loss_share_ratio_7d"]].itertuples(index=False),
            strict=True,
        )
    }
    return pd.DataFrame(
        {"shrink": [table[d].shrink for d in days], "widen": [table[d].widen for d in days]},
        index=origins.index,
    )


def walk_forward_binary(
    con: duckdb.DuckDBPyConnection,
    examples: Examples,
    config: BacktestConfig,
    regime: pd.DataFrame,
    log: Callable[[str], None],
) -> Walked:
    """The yes/no walk forward of one template x horizon: each refit's forecaster fitted on its
    blocks (too little history raises), its answers on the test origins with the regime guard's
    shrink, then climatology and persistence for each prediction. A model with a tail map (the
    radar) issues each origin, with `config.recalibrate`, through the online tail factor read
    from the tops of the origins issued before it whose outcome is known by then
    (`tail.online_factor`), else through its fitted factor; each row keeps the knee, the fitted
    factor and the factor used (`tail_knee`, `tail_fitted`, `tail_factor`)."""
    ex = examples.frame
    h = examples.horizon_days
    chunks: list[pd.DataFrame] = []
    refits: list[dict] = []
    tops: list[
        pd.DataFrame
    ] = []  # each issued origin's top (`tail.origin_tops`), for the online factor
    t_fit = time.perf_counter()
    for block in refit_blocks(examples, config):
        refit_day, test, fit, cal = block.refit_day, block.test, block.fit, block.cal
        refits.append(block.counts())
        if len(fit) < 200 or len(cal) < 100:
            raise StoreError(
                f"{examples.template}/{h}d: too little history before "
                f"{refit_day.date()} ({len(fit)} fitting, {len(cal)} "
                "calibration rows); start the backtest later"
            )
        forecaster = fit_forecaster(
            examples.template,
            h,
            examples.features,
            fit,
            cal,
            config.estimator,
            config.calibration_method,
            config.seed,
        )
        kept = test[_KEPT].copy()
        untailed = forecaster.predict(test, tail=False)
        kept["probability_model"] = untailed
        if forecaster.tail is not None:  # the radar's tail map: the answer without it too
            tops.append(tail.origin_tops(test[_TOP_COLUMNS].assign(probability_untailed=untailed)))
            kept["probability_untailed"] = untailed
            kept["tail_knee"], kept["tail_fitted"] = forecaster.tail
            kept["tail_factor"] = (
                _online_factors(kept["origin"], pd.concat(tops, ignore_index=True), forecaster.tail)
                if config.recalibrate
                else forecaster.tail[1]
            )
            kept["probability_model"] = tail.shrink_tail_rows(
                untailed, forecaster.tail[0], kept["tail_factor"].to_numpy()
            )
            log(
                f"  {refit_day.date()}: tail knee {forecaster.tail[0]:.4f}, "
                f"factor {forecaster.tail[1]:.3f}, online "
                f"{kept['tail_factor'].min():.3f}-{kept['tail_factor'].max():.3f}"
            )
        kept["shrink"] = _guards(test["origin"], regime, config)["shrink"]
        kept["probability"] = guard.shrink_probabilities(
            kept["probability_model"].to_numpy(),
            forecaster.calibration_block_rate(test["bucket"]),
            test["velocity_28d"].to_numpy(),
            kept["shrink"].to_numpy(),
        )
        kept["refit_day"] = refit_day
        chunks.append(kept)
    log(f"  {len(refits)} refits: {time.perf_counter() - t_fit:.0f}s")
    walked = Walked(examples.template, h, pd.DataFrame(), refits, examples.n_void, len(ex))
    if not chunks:
        return walked
    pred = pd.concat(chunks, ignore_index=True)
    t0 = time.perf_counter()
    pred["climatology"] = climatology(ex, pred)
    t1 = time.perf_counter()
    pred["persistence"] = persistence(con, ex, pred, examples.template)
    # the climatology of the question within each band of today's velocity, for the skill per
    # band (`band_skill`)
    pred["climatology_band"] = climatology(
        ex[["known_on", "label"]].assign(bucket=interval.velocity_band(ex["velocity_28d"])),
        pred[["origin"]].assign(bucket=interval.velocity_band(pred["velocity_28d"])),
    )
    log(f"  baselines: climatology {t1 - t0:.0f}s, persistence {time.perf_counter() - t1:.0f}s")
    walked.pred = pred
    return walked


def _online_factors(
    origins: pd.Series, tops: pd.DataFrame, fitted: tuple[float, float]
) -> np.ndarray:
    """The online tail factor of each row's origin (`tail.online_factor`)."""
    factor = {
        day: tail.online_factor(tops, day, fitted)[0] for day in pd.to_datetime(origins).unique()
    }
    return np.array([factor[d] for d in pd.to_datetime(origins)])


def walk_forward_interval(
    con: duckdb.DuckDBPyConnection,
    examples: Examples,
    config: BacktestConfig,
    regime: pd.DataFrame,
    log: Callable[[str], None],
) -> Walked:
    """The same refits and splits as `walk_forward_binary`, scoring predictive quantiles instead.

    Origins are issued in order: before each, the online conformal levels read the questions
    issued earlier whose outcome is known by then (`conformal.update`), and the regime
    guard's widening applies."""
    ex = examples.frame
    h = examples.horizon_days
    chunks: list[pd.DataFrame] = []
    refits: list[dict] = []
    state = conformal.initial_state(examples.template, h)
    pending: list[tuple[pd.DataFrame, interval.IntervalForecaster]] = []  # issued, unresolved
    for block in refit_blocks(examples, config):
        refit_day, test, fit, cal = block.refit_day, block.test, block.fit, block.cal
        refits.append(block.counts())
        forecaster = interval.fit_interval(h, examples.features, fit, cal, config.seed)
        for origin, rows in test.groupby("origin", sort=True):
            if config.recalibrate:
                state, pending = _read_resolved(state, pending, origin)
            widen = _guards(rows["origin"], regime, config)["widen"].to_numpy()
            kept = rows[["repo", "origin", "known_on", "velocity_28d", "observed_value"]].copy()
            fine = forecaster.quantiles(
                rows, state.levels if config.recalibrate else None, widen, interval.DIST_LEVELS
            )
            kept = pd.concat(
                [
                    kept,
                    pd.DataFrame(fine, columns=DIST_COLUMNS, index=kept.index),
                    pd.DataFrame(
                        fine[:, DIST_QUANTILES],
                        columns=[f"q{q}" for q in interval.QUANTILES],
                        index=kept.index,
                    ),
                ],
                axis=1,
            )
            kept["widen"] = widen
            kept["refit_day"] = refit_day
            chunks.append(kept)
            pending.append((rows.assign(widen=widen), forecaster))
    walked = Walked(
        examples.template, h, pd.DataFrame(), refits, examples.n_void, len(ex), True, state
    )
    if not chunks:
        return walked
    pred = pd.concat(chunks, ignore_index=True)
    pred[BASELINE_COLUMNS] = interval_scores.persistence_quantiles(con, ex, pred)
    walked.pred = pred
    return walked


def _read_resolved(
    state: conformal.State,
    pending: list[tuple[pd.DataFrame, interval.IntervalForecaster]],
    origin: pd.Timestamp,
) -> tuple[conformal.State, list]:
    """Update `state` on `origin` from the issued questions resolved by then (each read as the
    forecast that was issued: its model and its widening); return it and the still pending."""
    due = [(rows, fc) for rows, fc in pending if rows["known_on"].max() <= origin]
    left = [(rows, fc) for rows, fc in pending if rows["known_on"].max() > origin]
    if not due:
        return state, left
    batch = pd.concat(
        [
            pd.DataFrame(
                {
                    "known_on": rows["known_on"].to_numpy(),
                    "band": interval.velocity_band(rows["velocity_28d"].to_numpy()),
                    "pit": fc.pit(rows, rows["widen"].to_numpy()),
                }
            )
            for rows, fc in due
        ],
        ignore_index=True,
    )
    return conformal.update(state, batch, origin), left
