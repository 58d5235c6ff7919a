"""Calibration that keeps up after the model is fitted: the regime guard and adaptive conformal
levels updated from the newest resolved outcomes. One implementation serves `shu backtest`,
`shu replay` and `shu daily` (the last two through `issue_forecasts`).

Guard (at the origin, before any outcome is known). `guard(distance)` turns the store's regime
distance (`regime.regime_frame`: how far the share of repositories losing stars is outside its
own two-year history, in robust standard deviations) into
- `shrink` tau: for repositories losing stars (velocity_28d <= 0), the forecast's log-odds are
  pulled towards the template's base rate, logit p' = logit b + tau (logit p - logit b);
- `widen` w: every interval's conformal scores are stretched by w about the band's median score.
Both are 1 up to `GUARD_FROM` and move linearly to `SHRINK_AT_FULL` / `WIDEN_AT_FULL` at
`GUARD_FULL`. How they were set from the history we have (and what they cost there) is in
docs/forecast/method.md.

Adaptive conformal levels (interval templates, Gibbs & Candes 2021; in the quantile-tracking
form of Angelopoulos, Candes & Tibshirani 2023). The state holds, per band of today's velocity,
the level whose calibration-score quantile is issued for each nominal level a of
`interval.QUANTILES`. `update(state, batch, origin)` reads the questions resolved since the last
update (`known_on` <= origin, never later: it refuses a batch that holds one) as their PIT values
(the level at which the model put the observed value) and moves each level by
`ACI_STEP` x (nominal a - share of PIT values at or below the current level), so a band whose
intervals stopped covering widens them until they cover again. The state outlives refits and
model versions: it tracks the stream of forecasts, not one model.

Yes/no templates are not recalibrated from outcomes: measured on the walk-forward, an online
Platt or intercept map fitted on the newest resolved questions (30 days old at best) lowered
`star_velocity_up`/30's Brier skill by 0.001-0.006 and did not shrink its per-block ECE; only
the guard applies to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from shu.forecast.interval import GRID_LEVELS, QUANTILES, VELOCITY_BANDS

GUARD_FROM = 3.0
GUARD_FULL = 6.0
SHRINK_AT_FULL = 0.7
WIDEN_AT_FULL = 1.05
ACI_STEP = 0.05
MIN_BAND_BATCH = 20  # resolved questions a band needs in a batch to move its levels
UPDATE_EVERY_DAYS = 7  # production updates on this cadence, as the weekly backtest does
LEVEL_LIMITS = (float(GRID_LEVELS[0]), float(GRID_LEVELS[-1]))
ALL_BANDS = "all"  # the band name of a yes/no template's state


@dataclass(frozen=True)
class Guard:
    """What the regime guard does at one origin."""

    distance: float | None  # None: the store cannot say (too few repositories or history)
    shrink: float  # tau, 1 = off
    widen: float  # w, 1 = off

    @property
    def on(self) -> bool:
        return self.shrink < 1.0 or self.widen > 1.0


def guard(distance: float | None) -> Guard:
    """The guard at a regime distance (see the module docstring)."""
    if distance is None or not np.isfinite(distance):
        return Guard(None, 1.0, 1.0)
    ramp = float(np.clip((distance - GUARD_FROM) / (GUARD_FULL - GUARD_FROM), 0.0, 1.0))
    return Guard(
        float(distance), 1.0 - ramp * (1.0 - SHRINK_AT_FULL), 1.0 + ramp * (WIDEN_AT_FULL - 1.0)
    )


def shrink_probabilities(
    probability: np.ndarray,
    base_rate: np.ndarray,
    velocity_28d: np.ndarray,
    shrink: np.ndarray | float,
) -> np.ndarray:
    """The guard applied to yes/no forecasts: repositories losing stars (velocity_28d <= 0)
    have their log-odds pulled towards `base_rate` by `shrink` (one factor or one per row); the
    others, and rows without a base rate (NaN: a model saved before base rates), are
    unchanged."""
    p = np.asarray(probability, dtype=float)
    tau = np.broadcast_to(np.asarray(shrink, dtype=float), p.shape)
    b = np.asarray(base_rate, dtype=float)
    acts = (tau < 1.0) & (np.asarray(velocity_28d, dtype=float) <= 0) & np.isfinite(b)
    if not acts.any():
        return p.copy()
    b = np.clip(np.where(np.isfinite(b), b, 0.5), 1e-4, 1 - 1e-4)
    moved = expit(logit(b) + tau * (logit(np.clip(p, 1e-6, 1 - 1e-6)) - logit(b)))
    return np.where(acts, moved, p)


@dataclass
class State:
    """The online part of one template x horizon's calibration at an origin."""

    template: str
    horizon_days: int
    levels: np.ndarray  # (velocity bands, QUANTILES): the levels issued for each nominal one
    resolved_through: pd.Timestamp | None = None  # the newest resolution day read so far
    n_resolved: int = 0  # resolved questions read so far
    updated_on: pd.Timestamp | None = None  # the origin of the last update

    def due(self, origin: date) -> bool:
        """Whether an update is due on `origin` (every `UPDATE_EVERY_DAYS`)."""
        return (
            self.updated_on is None
            or (pd.Timestamp(origin) - self.updated_on).days >= UPDATE_EVERY_DAYS
        )


def initial_state(template: str, horizon_days: int) -> State:
    """A state that issues the nominal levels (nothing read yet)."""
    return State(
        template,
        horizon_days,
        np.tile(np.asarray(QUANTILES, dtype=float), (len(VELOCITY_BANDS), 1)),
    )


def update(state: State, batch: pd.DataFrame, origin: date) -> State:
    """The state after reading `batch` (columns known_on, band, pit) on `origin`.

    Rows already read (known_on <= state.resolved_through) are skipped; a row resolved after
    `origin` is refused (ValueError): no update may read an outcome the origin could not know.
    """
    day = pd.Timestamp(origin)
    known = pd.to_datetime(batch["known_on"])
    if (known > day).any():
        raise ValueError(
            f"update on {day.date()} was given outcomes resolved as late as {known.max().date()}"
        )
    fresh = batch[known > state.resolved_through] if state.resolved_through is not None else batch
    levels = state.levels.copy()
    nominal = np.asarray(QUANTILES, dtype=float)
    band = fresh["band"].to_numpy()
    pit = fresh["pit"].to_numpy(dtype=float)
    for k in range(len(levels)):
        mine = pit[band == k]
        if len(mine) < MIN_BAND_BATCH:
            continue
        below = (mine[:, None] <= levels[k][None, :]).mean(axis=0)
        levels[k] = np.clip(levels[k] - ACI_STEP * (below - nominal), *LEVEL_LIMITS)
    through = state.resolved_through
    if len(fresh):
        newest = pd.to_datetime(fresh["known_on"]).max()
        through = newest if through is None else max(through, newest)
    return State(
        state.template, state.horizon_days, levels, through, state.n_resolved + len(fresh), day
    )
