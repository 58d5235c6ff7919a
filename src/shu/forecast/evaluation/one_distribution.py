"""Reading one horizon's backtest answers from one predictive distribution, as `shu daily` issues
them: the interval forecast of each (repository, origin) bent through the yes/no answers that ask
about the same velocity (`read_from_distribution`), and star_gain and the path questions held to
their bounds against it (`hold_to_bounds`)."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.calibration import bounds, distribution
from shu.forecast.evaluation.walk_forward import Walked
from shu.forecast.models import interval
from shu.forecast.questions import registry

# The interval walk-forward keeps each forecast's quantiles at every `interval.DIST_LEVELS`
# (the distribution the yes/no answers are read from), in these columns.
DIST_COLUMNS = [f"d{a}" for a in interval.DIST_LEVELS]
DIST_QUANTILES = np.searchsorted(interval.DIST_LEVELS, interval.QUANTILES)
MODEL_COLUMNS = [f"g{a}" for a in interval.DIST_LEVELS]  # the interval model's, when anchored


def read_from_distribution(
    walked: list[Walked], con: duckdb.DuckDBPyConnection | None = None
) -> None:
    """Where one horizon's run has the interval template and yes/no templates that ask about the
    same velocity (`registry.READS_DISTRIBUTION`), bend each interval forecast through the
    yes/no answers of its (repository, origin) and read both from the result
    (`calibration.distribution`): the interval rows get its quantiles, the yes/no rows its
    P(V > threshold) (`probability`; the answer before, `probability_classifier`). Yes/no rows
    with no interval forecast on their (repository, origin) keep their own answer
    (`distribution` False). With the store `con`, star_gain at H <= 28 is an anchor too, at the
    velocity its question is on V's lattice (`bounds.gain_thresholds`, D(28-H) as of the
    origin), as `shu daily` issues it; its answer is read back by `hold_to_bounds`."""
    dist = next((w for w in walked if w.interval and len(w.pred)), None)
    asks = [w for w in walked if w.template in registry.READS_DISTRIBUTION and len(w.pred)]
    for w in asks:
        w.pred["probability_classifier"] = w.pred["probability"]
        w.pred["distribution"] = False
    sources = [(w, w.pred["threshold"].to_numpy(dtype=float)) for w in asks]
    if con is not None and dist is not None:
        sources += [
            (w, bounds.gain_thresholds(con, w.horizon_days, w.pred))
            for w in walked
            if w.template == "star_gain"
            and len(w.pred)
            and bounds.lag_days(w.template, w.horizon_days) is not None
        ]
    if dist is None or not sources:
        return
    g = dist.pred[DIST_COLUMNS].to_numpy(dtype=float)
    dist.pred = iv = pd.concat(  # the interval model's own quantiles, kept for comparison
        [dist.pred, pd.DataFrame(g, columns=MODEL_COLUMNS, index=dist.pred.index)], axis=1
    )
    key = pd.MultiIndex.from_arrays([iv["repo"], iv["origin"]])
    ax = np.full((len(iv), len(sources)), np.nan)
    ap = np.full((len(iv), len(sources)), np.nan)
    rows = []
    for k, (w, vx) in enumerate(sources):
        at = key.get_indexer(pd.MultiIndex.from_arrays([w.pred["repo"], w.pred["origin"]]))
        at[~np.isfinite(vx)] = -1
        hit = at >= 0
        ax[at[hit], k] = vx[hit]
        ap[at[hit], k] = w.pred["probability"].to_numpy(dtype=float)[hit]
        rows.append(at)
    f = distribution.anchor(interval.DIST_LEVELS, g, ax, ap)
    iv[DIST_COLUMNS] = f.quantiles
    iv[[f"q{q}" for q in interval.QUANTILES]] = f.quantiles[:, DIST_QUANTILES]
    dist.pred = iv.copy().assign(anchor_x=list(f.anchor_x), anchor_cdf=list(f.anchor_cdf))
    for k, w in enumerate(asks):
        at = rows[k]
        hit = at >= 0
        read = f.prob_above_rows(at[hit], w.pred["threshold"].to_numpy(dtype=float)[hit])
        probability = w.pred["probability"].to_numpy(dtype=float).copy()
        probability[hit] = read
        w.pred["probability"] = probability
        w.pred["distribution"] = hit


def hold_to_bounds(con: duckdb.DuckDBPyConnection, walked: list[Walked]) -> None:
    """Where one horizon's run has the interval template, hold the answers of star_gain and the
    path questions (`bounds.BOUNDED`) to their bounds against the distribution F of the same
    (repository, origin) (`bounds.bound_answers`: the rules `shu daily` issues by, from values
    of the store as of each origin), so the backtest scores what shu issues: `probability` the
    held answer (star_gain at H <= 28: F's, which `read_from_distribution` anchored on it),
    `probability_classifier` the model's own, `bounded` whether a bound was checked (False: no
    F on its origin, no bound at this horizon, or a value it needs missing)."""
    dist = next((w for w in walked if w.interval and len(w.pred)), None)
    held = [w for w in walked if w.template in bounds.BOUNDED and len(w.pred)]
    if dist is None or not held:
        return
    iv = dist.pred
    q = iv[DIST_COLUMNS].to_numpy(dtype=float)
    none = np.array([])
    anchor_x = iv["anchor_x"] if "anchor_x" in iv else [none] * len(iv)
    anchor_cdf = iv["anchor_cdf"] if "anchor_cdf" in iv else [none] * len(iv)
    by_key = {
        (repo, pd.Timestamp(o).date()): {
            "levels": interval.DIST_LEVELS,
            "quantiles": q[i],
            "anchor_thresholds": ax,
            "anchor_cdf": ac,
        }
        for i, (repo, o, ax, ac) in enumerate(
            zip(iv["repo"], iv["origin"], anchor_x, anchor_cdf, strict=True)
        )
    }
    known = _known_values(con, [w for w in held if bounds.has_bound(w.template, w.horizon_days)])
    for w in held:
        own = w.pred["probability"].to_numpy(dtype=float)
        p, notes = bounds.bound_answers(
            con, w.template, w.horizon_days, w.pred, own, by_key, known.get(w.template)
        )
        w.pred["probability_classifier"] = own
        w.pred["probability"] = p
        w.pred["bounded"] = [n is not None for n in notes]


def _known_values(con: duckdb.DuckDBPyConnection, walked: list[Walked]) -> dict[str, pd.DataFrame]:
    """What each template's bound reads from the store as of each origin (`bounds.known_at`),
    aligned with its predictions; read once per lag for the templates that share it."""
    out: dict[str, pd.DataFrame] = {}
    lags = {w.template: bounds.lag_days(w.template, w.horizon_days) for w in walked}
    for lag in set(lags.values()):
        same = [w for w in walked if lags[w.template] == lag]
        pairs = pd.concat([w.pred[["repo", "origin"]] for w in same], ignore_index=True)
        pairs = pairs.drop_duplicates().reset_index(drop=True)
        table = pd.concat([pairs, bounds.known_at(con, pairs, lag)], axis=1)
        for w in same:
            merged = w.pred[["repo", "origin"]].merge(table, how="left", on=["repo", "origin"])
            out[w.template] = merged.set_axis(w.pred.index)[list(bounds.KNOWN)]
    return out
