"""The regime guard: what shu does to a forecast when the store as a whole is far outside its own
history (many repositories losing stars at once), decided at the origin before any outcome is
known. One implementation serves `shu backtest`, `shu replay` and `shu daily` (the last two
through `issue_forecasts`).

`guard(distance, loss_ratio)` turns the store's regime (`features.regime.regime_frame`:
`distance`, how far the share of repositories losing stars is outside its own two-year history,
in robust standard deviations; `loss_ratio`, that share over the 7 days to the origin against
the median daily share of the year to it) into
- `shrink` tau: for repositories losing stars (velocity_28d <= 0), the answers that read as a
  rebound (will the pace be above today's?), the forecast's log-odds are pulled towards the
  calibration block's rate of its bucket (`base_rates.calibration_block_rates`),
  logit p' = logit b + tau (logit p - logit b);
- `widen` w: every interval's conformal scores are stretched by w about the band's median score.
From the distance, both are 1 up to `GUARD_FROM` and move linearly to `SHRINK_AT_FULL` /
`WIDEN_AT_FULL` at `GUARD_FULL`. From the loss ratio (a purge: removals that go on for weeks,
so a repository losing stars today keeps losing them), the shrink is 1 up to `PURGE_FROM` times
the year's share and moves linearly to `SHRINK_AT_PURGE` at `PURGE_FULL` times it; the guard
takes the stronger of the two. How they were set from the history we have (and what they cost
there) is in docs/forecast/method.md.

Yes/no templates are not recalibrated from outcomes (the online conformal levels,
`conformal`, serve the interval template only): an online Platt or intercept map fitted on the
newest resolved questions (30 days old at best) did worse on the walk-forward
(benchmarks/README.md, Forecast); only the guard applies to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logit

GUARD_FROM = 3.0
GUARD_FULL = 6.0
SHRINK_AT_FULL = 0.7
WIDEN_AT_FULL = 1.05
PURGE_FROM = 1.5
PURGE_FULL = 2.5
SHRINK_AT_PURGE = 0.7


@dataclass(frozen=True)
class Guard:
    """What the regime guard does at one origin."""

    distance: float | None  # None: the store cannot say (too few repositories or history)
    shrink: float  # tau, 1 = off
    widen: float  # w, 1 = off
    loss_ratio: float | None = None  # the 7-day loss share over the year's (None: cannot say)

    @property
    def on(self) -> bool:
        return self.shrink < 1.0 or self.widen > 1.0


def _known(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def _ramp(value: float | None, start: float, full: float) -> float:
    return 0.0 if value is None else float(np.clip((value - start) / (full - start), 0.0, 1.0))


def guard(distance: float | None, loss_ratio: float | None = None) -> Guard:
    """The guard at a regime distance and loss-share ratio (see the module docstring)."""
    distance, loss_ratio = _known(distance), _known(loss_ratio)
    ramp = _ramp(distance, GUARD_FROM, GUARD_FULL)
    purge = _ramp(loss_ratio, PURGE_FROM, PURGE_FULL)
    shrink = min(1.0 - ramp * (1.0 - SHRINK_AT_FULL), 1.0 - purge * (1.0 - SHRINK_AT_PURGE))
    return Guard(distance, shrink, 1.0 + ramp * (WIDEN_AT_FULL - 1.0), loss_ratio)


def shrink_probabilities(
    probability: np.ndarray,
    calibration_block_rate: np.ndarray,
    velocity_28d: np.ndarray,
    shrink: np.ndarray | float,
) -> np.ndarray:
    """The guard applied to yes/no forecasts: repositories losing stars (velocity_28d <= 0)
    have their log-odds pulled towards `calibration_block_rate` by `shrink` (one factor or one
    per row); the others, and rows without one (NaN: a model saved before it was recorded), are
    unchanged."""
    p = np.asarray(probability, dtype=float)
    tau = np.broadcast_to(np.asarray(shrink, dtype=float), p.shape)
    b = np.asarray(calibration_block_rate, dtype=float)
    acts = (tau < 1.0) & (np.asarray(velocity_28d, dtype=float) <= 0) & np.isfinite(b)
    if not acts.any():
        return p.copy()
    b = np.clip(np.where(np.isfinite(b), b, 0.5), 1e-4, 1 - 1e-4)
    moved = expit(logit(b) + tau * (logit(np.clip(p, 1e-6, 1 - 1e-6)) - logit(b)))
    return np.where(acts, moved, p)
