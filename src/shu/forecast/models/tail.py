"""The radar's tail shrink: the top of a rare-event forecaster's calibrated probabilities pulled
down to what its calibration block's top came to.

A breakout model is calibrated by a sigmoid on a later block; the sigmoid is fitted by every
forecast of that block, nearly all of them far below 1%, so it cannot see that the few highest
forecasts (those a radar reads) come true less often than they say: of ~3,400 noisy forecasts an
origin, the highest are the ones whose noise ran upwards (the winner's curse). The calibration
block holds forecasts the estimator never saw, so their top shows the same overstatement; the
shrink is fitted there, on that block's top `TAIL_SHARE` of forecasts only (earlier origins
than any forecast it is applied to):

    p' = p                          for p <= knee (the block's 1 - TAIL_SHARE quantile of p)
    p' = knee + factor x (p - knee) above it,

factor in [0, 1] such that the block's top says on average what came true there (its mean
shrunk probability equals its observed rate). The map is monotone and continuous and leaves
every forecast below the knee as it was. It is a property of each forecast (its own probability
through its model's map), not a correction of a rank: the radar ranks by the shrunk
probabilities in the same order as before.
"""

from __future__ import annotations

import numpy as np

TAIL_SHARE = 0.05  # the calibration block's top share the shrink is fitted on
MIN_TAIL_ROWS = 50  # fewer rows above the knee: no shrink


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
    knee, factor = tail
    return np.where(p > knee, knee + factor * (p - knee), p)
