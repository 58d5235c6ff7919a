"""The radar's tail map: the top of a rare-event forecaster's calibrated probabilities moved to
what its top came to, with a factor fitted once per model on its calibration block and, online,
re-fitted before each origin from the radar's earlier tops whose outcome is known by then.

A breakout model is calibrated by a sigmoid on a later block; the sigmoid is fitted by every
forecast of that block, nearly all of them far below 1%, so it cannot see that the few highest
forecasts (those a radar reads) come true less often than they say: of ~3,400 noisy forecasts an
origin, the highest are the ones whose noise ran upwards (the winner's curse). The calibration
block holds forecasts the estimator never saw, so their top shows the same overstatement; the
fitted factor (`fit_tail`) comes from that block's top `TAIL_SHARE` of forecasts only (earlier
origins than any forecast it is applied to):

    p' = p                                          for p <= knee (the block's 1 - TAIL_SHARE
                                                     quantile of p)
    p' = min(knee + factor x (p - knee), (1 + p) / 2) above it,

fitted factor in [0, 1] such that the block's top says on average what came true there. The
cap (1 + p) / 2 only binds for a factor above 1 (the online one may be), keeping p' below 1.
The map is strictly increasing for a factor > 0 and leaves every forecast below the knee as it
was: the radar ranks by p' in the same order as by p.

The online factor (`online_factor`). The top of the radar overstates in some periods and
understates in others (the sign moves with the market), so one factor per model cannot hold
both. Before each origin is issued, the factor is re-fitted from the radar's questions issued
on earlier origins whose outcome is known by then (`known_on <= origin`): the top `TOP_K` of
each (by the untailed probability, `origin_tops`) of the last `WINDOW_ORIGINS` such origins,
read with the model's knee, gets the factor at which their mean stated probability equals
their observed rate; it is pulled towards the fitted factor by a prior worth `PRIOR_ORIGINS`
origins, clipped to `FACTOR_RANGE` (above 1: the top understated), and is the fitted factor
itself while fewer than `MIN_ORIGINS` resolved origins exist.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TAIL_SHARE = 0.05  # the calibration block's top share the fitted factor is fitted on
MIN_TAIL_ROWS = 50  # fewer rows above the knee: no tail map
TOP_K = 20  # each resolved origin's top the online factor is fitted on
WINDOW_ORIGINS = 8  # the resolved origins it reads, newest first (about two months)
MIN_ORIGINS = 8  # fewer resolved origins: the fitted factor
PRIOR_ORIGINS = 0.0  # the fitted factor's weight, in resolved origins
FACTOR_RANGE = (0.2, 2.5)  # the online factor's clip


def fit_tail(probabilities: np.ndarray, labels: np.ndarray) -> tuple[float, float] | None:
    """(knee, factor) from a calibration block's calibrated probabilities and outcomes, or None
    when its top holds too few forecasts."""
    p = np.asarray(probabilities, dtype=float)
    y = np.asarray(labels, dtype=float)
    knee = float(np.quantile(p, 1.0 - TAIL_SHARE))
    top = p > knee
    if top.sum() < MIN_TAIL_ROWS:
        return None
    said = float(p[top].mean()) - knee
    seen = float(y[top].mean()) - knee
    return knee, float(np.clip(seen / said, 0.0, 1.0))


def shrink_tail(probabilities: np.ndarray, tail: tuple[float, float] | None) -> np.ndarray:
    """The probabilities through the tail map (unchanged without one)."""
    p = np.asarray(probabilities, dtype=float)
    if tail is None:
        return p
    return shrink_tail_rows(p, tail[0], np.full(p.shape, tail[1]))


def shrink_tail_rows(
    probabilities: np.ndarray, knee: float | np.ndarray, factors: np.ndarray
) -> np.ndarray:
    """The probabilities through the tail map, each with its own factor (and knee, if an
    array)."""
    p = np.asarray(probabilities, dtype=float)
    f = np.asarray(factors, dtype=float)
    return np.where(p > knee, np.minimum(knee + f * (p - knee), (1.0 + p) / 2.0), p)


def origin_tops(frame: pd.DataFrame, k: int = TOP_K) -> pd.DataFrame:
    """Each origin's `k` questions of highest untailed probability (ties by repository), from
    a frame of (repo, origin, known_on, probability_untailed, label)."""
    cols = ["origin", "known_on", "probability_untailed", "label"]
    ranked = frame.sort_values(
        ["origin", "probability_untailed", "repo"], ascending=[True, False, True]
    )
    return ranked.groupby("origin", sort=True).head(k)[cols].reset_index(drop=True)


def online_factor(
    tops: pd.DataFrame,
    origin: pd.Timestamp,
    tail: tuple[float, float],
    window: int = WINDOW_ORIGINS,
    prior: float = PRIOR_ORIGINS,
) -> tuple[float, int]:
    """(factor, resolved origins read) on `origin` from `tops` (`origin_tops` of the questions
    issued before), reading only those whose outcome is known on `origin`; `tail` is the model's
    (knee, fitted factor)."""
    knee, fitted = tail
    known = tops[pd.to_datetime(tops["known_on"]) <= pd.Timestamp(origin)]
    days = np.sort(known["origin"].unique())[-window:]
    if len(days) < MIN_ORIGINS:
        return fitted, len(days)
    read = known[known["origin"].isin(days)]
    p = read["probability_untailed"].to_numpy(dtype=float)
    # mean stated probability at factor f: below + f x above (the cap set aside)
    below = float(np.minimum(p, knee).mean())
    above = float(np.maximum(p - knee, 0.0).mean())
    seen = float(read["label"].to_numpy(dtype=float).mean())
    raw = (seen - below) / above if above > 0 else fitted
    n = len(days)
    factor = (n * raw + prior * fitted) / (n + prior)
    return float(np.clip(factor, *FACTOR_RANGE)), n
