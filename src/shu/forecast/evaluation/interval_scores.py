"""Scores of interval forecasts (predictive quantiles of the 28-day star velocity on t+H) and
the persistence baseline they are scored against.

`interval_metrics`: coverage per central interval (nominal -> observed), CRPS approximated by
twice the mean pinball loss over `models.interval.QUANTILES` (stars/day), and the same for the
persistence-with-empirical-spread baseline (`persistence_quantiles`): today's velocity plus the
quantiles of the repository's own changes over H days known in the trailing year (at least
`MIN_OWN_CHANGES` of them; otherwise the relative changes of all repositories known in the
trailing year, times the repository's scale). Only outcomes known by each origin are read.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.evaluation.scoring import skill_ci
from shu.forecast.models.interval import LEVELS, QUANTILES, relative_change, scale_of

BASELINE_DAYS = 365
MIN_OWN_CHANGES = 8


def crps_from_quantiles(observed: np.ndarray, quantiles: np.ndarray) -> np.ndarray:
    """Per row: 2 x the mean pinball loss over QUANTILES (a quantile approximation of CRPS)."""
    y = np.asarray(observed, dtype=float)[:, None]
    tau = np.asarray(QUANTILES)[None, :]
    diff = y - quantiles
    return 2.0 * np.mean(np.maximum(tau * diff, (tau - 1.0) * diff), axis=1)


def coverage(observed: np.ndarray, quantiles: np.ndarray) -> dict[str, float]:
    """Share of rows inside each central interval: {"0.5": .., "0.8": .., "0.95": ..}."""
    y = np.asarray(observed, dtype=float)
    return {
        str(level): float(np.mean((y >= quantiles[:, lo]) & (y <= quantiles[:, hi])))
        for level, (lo, hi) in LEVELS.items()
    }


def interval_metrics(observed: np.ndarray, model_q: np.ndarray, baseline_q: np.ndarray) -> dict:
    """The backtest keys of an interval slice: n, coverage, crps, crps_persistence, skill."""
    crps = float(np.mean(crps_from_quantiles(observed, model_q)))
    base = float(np.mean(crps_from_quantiles(observed, baseline_q)))
    return {
        "n": len(observed),
        "coverage": coverage(observed, model_q),
        "coverage_persistence": coverage(observed, baseline_q),
        "crps": crps,
        "crps_persistence": base,
        "crps_skill_persistence": 1.0 - crps / base if base > 0 else float("nan"),
        "mean_width_80": float(np.mean(model_q[:, 5] - model_q[:, 1])),
    }


def crps_skill_ci(
    observed: np.ndarray,
    model_q: np.ndarray,
    baseline_q: np.ndarray,
    blocks: np.ndarray,
    n_boot: int = 300,
    seed: int = 0,
) -> dict[str, float]:
    """CRPS skill vs the baseline with a block-bootstrap 95% interval ({value, low, high});
    blocks (e.g. 'repo|YYYY-MM') are resampled whole, as for the binary scores
    (`scoring.skill_ci`)."""
    return skill_ci(
        crps_from_quantiles(observed, model_q),
        crps_from_quantiles(observed, baseline_q),
        blocks,
        n_boot,
        seed,
    )


def persistence_quantiles(
    con: duckdb.DuckDBPyConnection, ex: pd.DataFrame, pred: pd.DataFrame
) -> np.ndarray:
    """Baseline quantiles per row of `pred`: today's velocity + pre-origin changes over H.

    Only examples with `known_on` <= the origin (and within BASELINE_DAYS of it) are read.
    """
    history = ex[["repo", "known_on", "velocity_28d", "observed_value"]].copy()
    history["change"] = history["observed_value"] - history["velocity_28d"]
    target = pred[["repo", "origin"]].copy()
    target["row"] = np.arange(len(target))
    levels = ", ".join(str(q) for q in QUANTILES)
    con.register("_iv_hist", history[["repo", "known_on", "change"]])
    con.register("_iv_target", target)
    try:
        own = con.execute(f"""
            SELECT t.row, count(p.change) AS n, quantile_cont(p.change, [{levels}]) AS q
            FROM _iv_target t LEFT JOIN _iv_hist p ON p.repo = t.repo
              AND p.known_on <= t.origin
              AND p.known_on > t.origin - INTERVAL {BASELINE_DAYS} DAY
            GROUP BY t.row ORDER BY t.row""").df()
    finally:
        con.unregister("_iv_hist")
        con.unregister("_iv_target")
    v0 = pred["velocity_28d"].to_numpy(dtype=float)
    out = np.full((len(pred), len(QUANTILES)), np.nan)
    enough = own["n"].to_numpy() >= MIN_OWN_CHANGES
    if enough.any():
        out[enough] = v0[enough, None] + np.vstack(own.loc[enough, "q"].to_numpy())
    if (~enough).any():
        pooled = _pooled_relative_quantiles(ex, pred.loc[~enough, "origin"])
        out[~enough] = v0[~enough, None] + scale_of(v0[~enough])[:, None] * pooled
    return out


def _pooled_relative_quantiles(ex: pd.DataFrame, origins: pd.Series) -> np.ndarray:
    """Per origin: quantiles of all repositories' relative changes known in the trailing year."""
    known = ex[["known_on"]].copy()
    known["y"] = relative_change(ex)
    known = known.sort_values("known_on")
    days = known["known_on"].to_numpy()
    values = known["y"].to_numpy()
    cache: dict[pd.Timestamp, np.ndarray] = {}
    rows = []
    for origin in pd.to_datetime(origins):
        if origin not in cache:
            lo = np.searchsorted(
                days, np.datetime64(origin - pd.Timedelta(days=BASELINE_DAYS)), side="right"
            )
            hi = np.searchsorted(days, np.datetime64(origin), side="right")
            window = values[lo:hi]
            cache[origin] = (
                np.quantile(window, QUANTILES) if len(window) else np.zeros(len(QUANTILES))
            )
        rows.append(cache[origin])
    return np.vstack(rows) if rows else np.empty((0, len(QUANTILES)))
