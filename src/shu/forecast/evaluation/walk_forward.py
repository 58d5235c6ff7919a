"""The one walk-forward loop of the backtest, and the settings and results it walks with.

Every backtest, star or ROCm, yes/no or interval, walks the same way (`refit_blocks`): from
`config.start` every `refit_weeks` weeks to `config.end`, a refit day T whose test origins are
[T, T + refit_weeks weeks) and whose fitting and calibration blocks are those `models.split`
chooses on T (the rules `shu train` uses: outcomes known by T, the calibration block's last
origin H days or more before the first test origin). What is fitted on a block, and scored,
is each family's (`star_backtest`, `rocm_backtest`); the baselines every slice is scored
against read only outcomes known before each origin (`persistence` here, and
`base_rates.climatology`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.calibration import conformal
from shu.forecast.features.examples import Examples
from shu.forecast.models.split import (
    CAL_DAYS,
    MAX_FIT_ROWS,
    TRAIN_DAYS,
    TrainingConfig,
    fit_calibration_split,
)
from shu.forecast.questions import registry
from shu.progress import track

PERSISTENCE_DAYS = 365
PERSISTENCE_PRIOR = 2.0


@dataclass
class BacktestConfig:
    """Walk-forward settings (defaults are the documented ones)."""

    start: date
    end: date
    templates: tuple[str, ...] = ("star_accel_reach", "star_velocity_up")
    horizons: tuple[int, ...] = (30,)
    estimator: str = "hgb"
    calibration_method: str = "sigmoid"
    refit_weeks: int = 8
    cal_days: int = CAL_DAYS
    train_days: int = TRAIN_DAYS
    max_fit_rows: int = MAX_FIT_ROWS
    n_boot: int = 300
    seed: int = 0
    # the regime guard and the online conformal levels (`calibration.guard`,
    # `calibration.conformal`); False scores the fitted models alone (for comparison)
    recalibrate: bool = True
    # read the velocity questions and the interval from one distribution per (repository,
    # origin) when the run has both (`read_from_distribution`); False scores each model alone
    one_distribution: bool = True

    def training(self) -> TrainingConfig:
        """How each refit fits its model (the split rules `shu train` uses too)."""
        return TrainingConfig(
            self.estimator,
            self.calibration_method,
            self.cal_days,
            self.train_days,
            self.max_fit_rows,
            self.seed,
        )


@dataclass
class SliceResult:
    """Predictions and metrics of one template x horizon."""

    template: str
    horizon_days: int
    predictions: pd.DataFrame
    metrics: dict
    refits: list[dict] = field(default_factory=list)


@dataclass
class Walked:
    """One template x horizon's predictions before scoring (with their baselines): what a walk
    forward returns and the slice scores (`slice_scores`) read."""

    template: str
    horizon_days: int
    pred: pd.DataFrame
    refits: list[dict]
    n_void: int
    n_examples: int
    interval: bool = False
    state: conformal.State | None = None


@dataclass(frozen=True)
class RefitBlock:
    """One refit of the walk forward: its day, the rows it tests (origins until the next refit)
    and the fitting and calibration rows known on its day."""

    refit_day: pd.Timestamp
    test: pd.DataFrame
    fit: pd.DataFrame
    cal: pd.DataFrame

    def counts(self) -> dict:
        """The refit's row counts, as each slice lists them (`refits`)."""
        return {
            "refit_day": str(self.refit_day.date()),
            "fit_rows": len(self.fit),
            "calibration_rows": len(self.cal),
            "test_rows": len(self.test),
        }


def refit_blocks(examples: Examples, config: BacktestConfig) -> Iterator[RefitBlock]:
    """Walk forward every `refit_weeks` from config.start to config.end, yielding each refit
    that has test rows (the one walk-forward loop: see the module docstring)."""
    ex, h = examples.frame, examples.horizon_days
    start, end = pd.Timestamp(config.start), pd.Timestamp(config.end)
    rng = np.random.default_rng(config.seed)
    step = pd.Timedelta(days=7 * config.refit_weeks)
    refit_days = list(pd.date_range(start, end, freq=step)) if start <= end and len(ex) else []
    for refit_day in track(refit_days, f"backtest {examples.template}/{h}d", unit="refits"):
        test = ex[
            (ex["origin"] >= refit_day) & (ex["origin"] < refit_day + step) & (ex["origin"] <= end)
        ]
        if not len(test):
            continue
        fit, cal = fit_calibration_split(ex, refit_day, h, config.training(), rng)
        yield RefitBlock(refit_day, test, fit, cal)


def persistence(
    con: duckdb.DuckDBPyConnection, ex: pd.DataFrame, pred: pd.DataFrame, template: str
) -> np.ndarray:
    """Per prediction: the repository's own trailing-year event rate, shrunk to climatology."""
    event = registry.template(template).persistence_event
    cols = [
        "repo",
        "origin",
        "known_on",
        "label",
        "observed_value",
        "acceleration_28d",
        "velocity_28d",
        "threshold",
    ]
    history = ex[cols]
    target = pred[
        ["repo", "origin", "threshold", "acceleration_28d", "velocity_28d", "climatology"]
    ].copy()
    target["row"] = np.arange(len(target))
    con.register("_fc_hist", history)
    con.register("_fc_target", target)
    try:
        counts = con.execute(f"""
            SELECT t.row, count(p.repo) AS n,
                   coalesce(sum(CASE WHEN {event} THEN 1 ELSE 0 END), 0) AS k
            FROM _fc_target t LEFT JOIN _fc_hist p ON p.repo = t.repo
              AND p.known_on <= t.origin
              AND p.known_on > t.origin - INTERVAL {PERSISTENCE_DAYS} DAY
            GROUP BY t.row ORDER BY t.row""").df()
    finally:
        con.unregister("_fc_hist")
        con.unregister("_fc_target")
    k = counts["k"].to_numpy(dtype=float)
    n = counts["n"].to_numpy(dtype=float)
    return (k + PERSISTENCE_PRIOR * target["climatology"].to_numpy()) / (n + PERSISTENCE_PRIOR)
