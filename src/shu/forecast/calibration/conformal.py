"""Adaptive conformal levels of the interval template: calibration that keeps up after the model
is fitted, updated from the newest resolved outcomes. One implementation serves `shu backtest`,
`shu replay` and `shu daily` (the last two through `state_store.prepare`).

The method is adaptive conformal inference (Gibbs & Candes 2021) in the quantile-tracking form of
Angelopoulos, Candes & Tibshirani (2023). The state holds, per band of today's velocity, the
level whose calibration-score quantile is issued for each nominal level a of
`interval.QUANTILES`. `update(state, batch, origin)` reads the questions resolved since the last
update (`known_on` <= origin, never later: it refuses a batch that holds one) as their PIT values
(the level at which the model put the observed value) and moves each level by
`ACI_STEP` x (nominal a - share of PIT values at or below the current level), so a band whose
intervals stopped covering widens them until they cover again. The state outlives refits and
model versions: it tracks the stream of forecasts, not one model.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from shu.forecast.models.interval import GRID_LEVELS, QUANTILES, VELOCITY_BANDS

ACI_STEP = 0.05
MIN_BAND_BATCH = 20  # resolved questions a band needs in a batch to move its levels
UPDATE_EVERY_DAYS = 7  # production updates on this cadence, as the weekly backtest does
LEVEL_LIMITS = (float(GRID_LEVELS[0]), float(GRID_LEVELS[-1]))


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
