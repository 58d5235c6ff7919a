"""The interval forecaster: the 28-day star velocity on t+H as a predictive distribution (the
`star_velocity_interval` template).

Model (one per horizon H), on the scale-free change y = (v(t+H) - v(t)) / max(|v(t)|, 0.5):
- `center`: gradient-boosted median regression of y on the base features (fitting block);
- `spread`: gradient-boosted median regression of |y - center| on the same features (fitting
  block), floored at `MIN_SPREAD`, so wide intervals go to volatile repositories;
- conformal offsets: on the later calibration block (as the binary templates' calibration),
  the empirical quantiles of the normalised score r = (y - center) / spread at each level of
  `QUANTILES`, taken separately in each band of today's velocity (`VELOCITY_EDGES`; a band with
  fewer than `MIN_BAND_ROWS` calibration rows uses the whole block's). The predictive quantile
  at level a is v(t) + scale x (center + spread x r_a), so the central intervals (0.25-0.75,
  0.1-0.9, 0.025-0.975) cover 50/80/95% of each band's calibration rows by construction, and the
  median is conformalised too. Bands, because one pooled set of offsets under-covered the
  fastest repositories (the ones analysts track; benchmarks/README.md, Forecast).
The target the models are fitted and calibrated on is the observed velocity spread over its
lattice cell (`continuous_change`: velocity_28d is whole stars / 28), so the distribution reads
P(V <= k/28) at each lattice value as the yes/no answers do, and its PIT (`pit`, which the
online levels read) is the randomised PIT of a lattice variable.
Nothing here reads past an origin: features are as of the origin, the fitting and calibration
blocks hold only outcomes known before the refit day (`split.fit_calibration_split`). Scores and
the persistence baseline are `evaluation.interval_scores`'.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

from shu.errors import StoreError
from shu.forecast.models.estimator import model_matrix, single_openmp_thread
from shu.forecast.models.trees import BoostedTrees
from shu.forecast.questions.registry import INTERVAL_TEMPLATE

TEMPLATE = INTERVAL_TEMPLATE
QUANTILES = (0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975)
# Central interval level -> (lower, upper) index into QUANTILES.
LEVELS = {0.5: (2, 4), 0.8: (1, 5), 0.95: (0, 6)}
MEDIAN = 3
MIN_SPREAD = 0.01
LATTICE = 1.0 / 28.0  # stars/day: velocity_28d takes the values (whole stars) / 28
TARGET_CLIP = 25.0  # relative changes beyond +-25x the scale are data glitches
FIT_ROWS = 100_000  # rows the center and spread models are fitted on, at most
VELOCITY_EDGES = (1.0, 5.0, 20.0)  # stars/day: bands of velocity_28d(t) conformalised apart
VELOCITY_BANDS = ("<1", "1-5", "5-20", ">=20")  # their names (stars/day), in band order
MIN_BAND_ROWS = 300
# Levels at which each band's calibration scores are kept (`score_grid`), so the online
# conformal levels (`calibration.conformal`) can read the conformal quantile at any adjusted
# level; the grid holds QUANTILES exactly (0.025 = 10 x 0.0025, ...).
GRID_LEVELS = np.round(np.linspace(0.0025, 0.9975, 399), 4)
# Levels at which the predictive distribution is issued and stored (`forecast_distributions`):
# every 1% from 3% to 97%, every 0.5% in the tails, and QUANTILES among them.
DIST_LEVELS = np.round(
    np.concatenate(
        [
            np.arange(0.005, 0.0251, 0.005),
            np.arange(0.03, 0.9701, 0.01),
            np.arange(0.975, 0.99951, 0.005),
        ]
    ),
    4,
)


_GRID_QUANTILES = np.searchsorted(GRID_LEVELS, QUANTILES)  # QUANTILES' columns of the grid
_GRID_MEDIAN = int(np.searchsorted(GRID_LEVELS, 0.5))


def adjusted_levels(nominal: np.ndarray, state_levels: np.ndarray) -> np.ndarray:
    """The level read for each `nominal` level, given the levels the online state reads for
    QUANTILES (one band's row): linear between (0, 0), (QUANTILES, state_levels) and (1, 1),
    so QUANTILES read exactly their state's levels; clipped to the grid's range."""
    x = np.concatenate([[0.0], QUANTILES, [1.0]])
    y = np.concatenate([[0.0], np.asarray(state_levels, dtype=float), [1.0]])
    return np.clip(np.interp(nominal, x, y), GRID_LEVELS[0], GRID_LEVELS[-1])


def velocity_band(velocity: np.ndarray) -> np.ndarray:
    """Index of each velocity's band: 0 below 1 star/day, .., 3 from 20 stars/day up."""
    return np.searchsorted(VELOCITY_EDGES, np.asarray(velocity, dtype=float), side="right")


def scale_of(velocity: np.ndarray) -> np.ndarray:
    """The scale relative changes are measured in: max(|velocity_28d|, 0.5) stars/day."""
    return np.maximum(np.abs(np.asarray(velocity, dtype=float)), 0.5)


def relative_change(frame: pd.DataFrame) -> np.ndarray:
    """y = (observed velocity on t+H - velocity on t) / scale, clipped to +-TARGET_CLIP."""
    v0 = frame["velocity_28d"].to_numpy(dtype=float)
    y = (frame["observed_value"].to_numpy(dtype=float) - v0) / scale_of(v0)
    return np.clip(y, -TARGET_CLIP, TARGET_CLIP)


def lattice_fraction(frame: pd.DataFrame) -> np.ndarray:
    """Per row a fraction u in [0, 1), uniform over rows, drawn from a hash of (repository,
    origin): the same row draws the same u in every run and every process."""
    days = pd.to_datetime(frame["origin"]).dt.strftime("%Y-%m-%d")
    keys = frame["repo"].astype(str) + "|" + days
    return np.array([zlib.crc32(k.encode()) for k in keys], dtype=float) / 2.0**32


def continuous_change(frame: pd.DataFrame) -> np.ndarray:
    """`relative_change` of the observed velocity spread over its lattice cell: observed -
    u / 28 (`lattice_fraction`). velocity_28d takes only the values (whole stars) / 28, and the
    yes/no answers the distribution passes through read P(V <= k/28) at those values, the
    atom at k/28 included; a distribution fitted and calibrated on the spread value V* (V* <=
    k/28 exactly when V <= k/28) reads the same thing there, and its PIT is the randomised PIT
    of V (uniform when calibrated, where the plain PIT of a lattice variable is not)."""
    v0 = frame["velocity_28d"].to_numpy(dtype=float)
    observed = frame["observed_value"].to_numpy(dtype=float) - LATTICE * lattice_fraction(frame)
    return np.clip((observed - v0) / scale_of(v0), -TARGET_CLIP, TARGET_CLIP)


def _regressor(seed: int) -> HistGradientBoostingRegressor:
    return HistGradientBoostingRegressor(
        loss="quantile",
        quantile=0.5,
        max_iter=100,
        learning_rate=0.08,
        max_leaf_nodes=15,
        min_samples_leaf=200,
        l2_regularization=1.0,
        early_stopping=False,
        random_state=seed,
    )


@dataclass
class IntervalForecaster:
    """Median and spread models plus conformal offsets for one horizon."""

    horizon_days: int
    features: list[str]
    center: HistGradientBoostingRegressor | BoostedTrees  # the latter once bundled (saved)
    spread: HistGradientBoostingRegressor | BoostedTrees
    offsets: np.ndarray  # conformal quantiles of the normalised score: (velocity band, QUANTILES)
    score_grid: np.ndarray | None = None  # the same at every GRID_LEVELS: (band, GRID_LEVELS)
    fit_rows: int = 0
    calibration_rows: int = 0
    estimator: str = "hgb-quantile"
    template: str = TEMPLATE
    meta: dict = field(default_factory=dict)

    def _parts(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        x = model_matrix(frame, self.features)
        with single_openmp_thread():
            return self.center.predict(x), np.maximum(self.spread.predict(x), MIN_SPREAD)

    def quantiles(
        self,
        frame: pd.DataFrame,
        levels: np.ndarray | None = None,
        widen: np.ndarray | float = 1.0,
        nominal: np.ndarray | None = None,
    ) -> np.ndarray:
        """(rows, len(nominal)) predictive quantiles of velocity_28d on t+H, stars/day, at the
        `nominal` levels (default QUANTILES; `DIST_LEVELS` for the stored distribution).

        `levels` (bands x QUANTILES), when given, are the levels whose conformal score
        quantiles are read instead of QUANTILES (the online recalibration's adjusted levels;
        other nominal levels read `adjusted_levels`); `widen` (per row or one factor) stretches
        the scores away from the band's median score (the regime guard's widening).
        """
        center, spread = self._parts(frame)
        v0 = frame["velocity_28d"].to_numpy(dtype=float)
        band = self._band(v0)
        grid = self.grid()
        if levels is None and nominal is None:
            scores = np.atleast_2d(self.offsets)[band]
        else:
            want = np.asarray(QUANTILES if nominal is None else nominal, dtype=float)
            table = np.vstack(
                [
                    np.interp(
                        want if levels is None else adjusted_levels(want, levels[k]),
                        GRID_LEVELS,
                        grid[k],
                    )
                    for k in range(len(grid))
                ]
            )
            scores = table[band]
        middle = self.grid()[band, _GRID_MEDIAN][:, None]
        scores = middle + np.asarray(widen, dtype=float).reshape(-1, 1) * (scores - middle)
        rel = center[:, None] + spread[:, None] * scores
        return v0[:, None] + scale_of(v0)[:, None] * rel

    def pit(self, frame: pd.DataFrame, widen: np.ndarray | float = 1.0) -> np.ndarray:
        """Per resolved row (with `observed_value`): the level at which this model's predictive
        distribution (widened by `widen`, nominal levels) puts the observed value spread over
        its lattice cell (`continuous_change`), in [0, 1]: the randomised PIT."""
        center, spread = self._parts(frame)
        v0 = frame["velocity_28d"].to_numpy(dtype=float)
        band = self._band(v0)
        score = (continuous_change(frame) - center) / spread
        grid = self.grid()[band]
        middle = grid[:, _GRID_MEDIAN]
        score = middle + (score - middle) / np.asarray(widen, dtype=float).reshape(-1)
        return np.array(
            [
                np.interp(x, g, GRID_LEVELS, left=0.0, right=1.0)
                for x, g in zip(score, grid, strict=True)
            ]
        )

    def grid(self) -> np.ndarray:
        """The calibration scores' quantiles at GRID_LEVELS per band (models saved before the
        grid existed: their seven offsets, interpolated and held flat beyond 2.5% / 97.5%)."""
        if self.score_grid is None:
            offsets = np.atleast_2d(self.offsets)
            self.score_grid = np.vstack([np.interp(GRID_LEVELS, QUANTILES, row) for row in offsets])
        return self.score_grid

    def _band(self, velocity: np.ndarray) -> np.ndarray:
        return np.minimum(velocity_band(velocity), len(np.atleast_2d(self.offsets)) - 1)

    def bundle(self) -> dict:
        """What `artifact.save_forecasters` writes for this forecaster (its two models kept as
        their trees' arrays from here on, `trees.BoostedTrees`: they predict the same)."""
        if not isinstance(self.center, BoostedTrees):
            self.center = BoostedTrees.from_hgb(self.center)
        if not isinstance(self.spread, BoostedTrees):
            self.spread = BoostedTrees.from_hgb(self.spread)
        return {
            "kind": "interval",
            "template": self.template,
            "horizon_days": self.horizon_days,
            "features": list(self.features),
            "center": self.center,
            "spread": self.spread,
            "offsets": np.asarray(self.offsets),
            "score_grid": self.grid(),
            "estimator": self.estimator,
            "fit_rows": self.fit_rows,
            "calibration_rows": self.calibration_rows,
        }

    @classmethod
    def from_bundle(cls, d: dict) -> IntervalForecaster:
        """Inverse of `bundle`."""
        grid = d.get("score_grid")
        return cls(
            int(d["horizon_days"]),
            list(d["features"]),
            d["center"],
            d["spread"],
            np.asarray(d["offsets"], dtype=float),
            None if grid is None else np.asarray(grid, dtype=float),
            int(d["fit_rows"]),
            int(d["calibration_rows"]),
            d["estimator"],
            d["template"],
        )


def fit_interval(
    horizon_days: int,
    features: list[str],
    fit: pd.DataFrame,
    calibration: pd.DataFrame,
    seed: int = 0,
) -> IntervalForecaster:
    """Fit center and spread on `fit` (earlier block); conformalise on `calibration` (later)."""
    if len(fit) < 50 or len(calibration) < 20:
        raise StoreError(
            f"{TEMPLATE}/{horizon_days}d: too few resolved examples "
            f"({len(fit)} fitting, {len(calibration)} calibration); load more "
            "history"
        )
    if len(fit) > FIT_ROWS:  # the fitting block is sized for the bagged binary models
        rows = np.random.default_rng(seed).choice(len(fit), FIT_ROWS, replace=False)
        fit = fit.iloc[np.sort(rows)]
    features = [f for f in features if fit[f].notna().any()]
    x_fit = model_matrix(fit, features)
    y_fit = continuous_change(fit)
    center, spread = _regressor(seed), _regressor(seed)
    with single_openmp_thread():
        center.fit(x_fit, y_fit)
        spread.fit(x_fit, np.abs(y_fit - center.predict(x_fit)))
    forecaster = IntervalForecaster(
        horizon_days,
        features,
        center,
        spread,
        np.zeros(len(QUANTILES)),
        None,
        len(fit),
        len(calibration),
    )
    c, s = forecaster._parts(calibration)
    score = (continuous_change(calibration) - c) / s
    band = velocity_band(calibration["velocity_28d"].to_numpy(dtype=float))
    forecaster.score_grid = np.vstack(
        [
            np.quantile(
                score[band == k] if (band == k).sum() >= MIN_BAND_ROWS else score, GRID_LEVELS
            )
            for k in range(len(VELOCITY_EDGES) + 1)
        ]
    )
    forecaster.offsets = forecaster.score_grid[:, _GRID_QUANTILES]
    return forecaster
