"""How a model's fitting and calibration blocks are chosen on a day: the split rules that
`shu train` and the walk-forward backtest share, so both fit the same way.

On a day T, for one template x horizon H, only examples whose outcome is known by T count:
- calibration block: the `cal_days` of origins up to L, the latest origin whose outcome is
  known by T (T - H unless a data gap voided the latest questions, so the block is never empty
  just because of a gap);
- fitting block: origins whose outcome was known before the calibration block's first origin
  (purged: no fitting label overlaps a calibration window), at most `train_days` old, subsampled
  to `max_fit_rows` (shared by the members of `estimator.LogitVote`).
`TrainingConfig` holds these settings with the estimator, the calibration map and the seed;
the backtest's `BacktestConfig` adds its dates, templates and scoring settings to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

CAL_DAYS = 182
TRAIN_DAYS = 1095
MAX_FIT_ROWS = 300_000


@dataclass(frozen=True)
class TrainingConfig:
    """How a model is fitted on a day (defaults are the documented ones)."""

    estimator: str = "hgb"
    calibration_method: str = "sigmoid"
    cal_days: int = CAL_DAYS
    train_days: int = TRAIN_DAYS
    max_fit_rows: int = MAX_FIT_ROWS
    seed: int = 0


def fit_calibration_split(
    ex: pd.DataFrame,
    day: pd.Timestamp,
    horizon_days: int,
    config: TrainingConfig,
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fitting and calibration rows of `ex` available on `day` (see the module docstring)."""
    known = ex[ex["known_on"] <= day]
    latest = known["origin"].max() if len(known) else day - pd.Timedelta(days=horizon_days)
    cal_start = latest - pd.Timedelta(days=config.cal_days)
    cal = known[known["origin"] > cal_start]
    fit = known[
        (known["known_on"] <= cal_start)
        & (known["origin"] > day - pd.Timedelta(days=config.train_days))
    ]
    if len(fit) > config.max_fit_rows:
        fit = fit.iloc[np.sort(rng.choice(len(fit), config.max_fit_rows, replace=False))]
    return fit, cal
