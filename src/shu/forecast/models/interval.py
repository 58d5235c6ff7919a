"""The `star_velocity_interval` template: the 28-day star velocity on t+H as a distribution.

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
  median is conformalised too. One pooled set of offsets covered 80% overall but only 74% of
  the repositories gaining over 20 stars/day (the ones analysts track), and 82% of the smallest.
Nothing here reads past an origin: features are as of the origin, the fitting and calibration
blocks hold only outcomes known before the refit day (`backtest.fit_calibration_split`).

Scores (`interval_metrics`): coverage per central interval (nominal -> observed), CRPS
approximated by twice the mean pinball loss over `QUANTILES` (stars/day), and the same for the
persistence-with-empirical-spread baseline: today's velocity plus the quantiles of the
repository's own changes over H days known in the trailing year (>= `MIN_OWN_CHANGES` of them;
otherwise the relative changes of all repositories known in the trailing year, times the
repository's scale).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

from shu.errors import StoreError
from shu.forecast.models.estimator import model_matrix, single_openmp_thread
from shu.forecast.models.trees import BoostedTrees

TEMPLATE = "star_velocity_interval"
QUANTILES = (0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975)
# Central interval level -> (lower, upper) index into QUANTILES.
LEVELS = {0.5: (2, 4), 0.8: (1, 5), 0.95: (0, 6)}
MEDIAN = 3
MIN_SPREAD = 0.01
TARGET_CLIP = 25.0  # relative changes beyond +-25x the scale are data glitches
BASELINE_DAYS = 365
MIN_OWN_CHANGES = 8
FIT_ROWS = 100_000  # rows the center and spread models are fitted on, at most
VELOCITY_EDGES = (1.0, 5.0, 20.0)  # stars/day: bands of velocity_28d(t) conformalised apart
VELOCITY_BANDS = ("<1", "1-5", "5-20", ">=20")  # their names (stars/day), in band order
MIN_BAND_ROWS = 300
# Levels at which each band's calibration scores are kept (`score_grid`), so the online
# recalibration (`recalibration`) can read the conformal quantile at any adjusted level; the
# grid holds QUANTILES exactly (0.025 = 10 x 0.0025, ...).
GRID_LEVELS = np.round(np.linspace(0.0025, 0.9975, 399), 4)


_GRID_QUANTILES = np.searchsorted(GRID_LEVELS, QUANTILES)  # QUANTILES' columns of the grid
_GRID_MEDIAN = int(np.searchsorted(GRID_LEVELS, 0.5))


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
        self, frame: pd.DataFrame, levels: np.ndarray | None = None, widen: np.ndarray | float = 1.0
    ) -> np.ndarray:
        """(rows, len(QUANTILES)) predictive quantiles of velocity_28d on t+H, stars/day.

        `levels` (bands x QUANTILES), when given, are the levels whose conformal score
        quantiles are read instead of QUANTILES (the online recalibration's adjusted levels);
        `widen` (per row or one factor) stretches the scores away from the band's median score
        (the regime guard's widening).
        """
        center, spread = self._parts(frame)
        v0 = frame["velocity_28d"].to_numpy(dtype=float)
        band = self._band(v0)
        if levels is None:
            scores = np.atleast_2d(self.offsets)[band]
        else:
            table = np.vstack(
                [np.interp(levels[k], GRID_LEVELS, self.grid()[k]) for k in range(len(levels))]
            )
            scores = table[band]
        middle = self.grid()[band, _GRID_MEDIAN][:, None]
        scores = middle + np.asarray(widen, dtype=float).reshape(-1, 1) * (scores - middle)
        rel = center[:, None] + spread[:, None] * scores
        return v0[:, None] + scale_of(v0)[:, None] * rel

    def pit(self, frame: pd.DataFrame, widen: np.ndarray | float = 1.0) -> np.ndarray:
        """Per resolved row (with `observed_value`): the level at which this model's predictive
        distribution (widened by `widen`, nominal levels) puts the observed value, in [0, 1];
        the value is below the quantile of level a exactly when pit <= a."""
        center, spread = self._parts(frame)
        v0 = frame["velocity_28d"].to_numpy(dtype=float)
        band = self._band(v0)
        score = (relative_change(frame) - center) / spread
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
    y_fit = relative_change(fit)
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
    score = (relative_change(calibration) - c) / s
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


# ---------------------------------------------------------------- scores
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
    blocks (e.g. 'repo|YYYY-MM') are resampled whole, as for the binary scores."""
    model = crps_from_quantiles(observed, model_q)
    base = crps_from_quantiles(observed, baseline_q)
    _, block = np.unique(np.asarray(blocks), return_inverse=True)
    n_blocks = int(block.max()) + 1 if len(block) else 0
    sum_model = np.bincount(block, model, minlength=n_blocks)
    sum_base = np.bincount(block, base, minlength=n_blocks)
    rng = np.random.default_rng(seed)
    reps = []
    for _ in range(n_boot):
        weights = np.bincount(rng.integers(0, n_blocks, n_blocks), minlength=n_blocks)
        denominator = weights @ sum_base
        reps.append(1.0 - (weights @ sum_model) / denominator if denominator > 0 else np.nan)
    value = 1.0 - sum_model.sum() / sum_base.sum() if sum_base.sum() > 0 else float("nan")
    return {
        "value": float(value),
        "low": float(np.nanpercentile(reps, 2.5)),
        "high": float(np.nanpercentile(reps, 97.5)),
    }


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


# ---------------------------------------------------------------- resolution
_RECORD_SQL = """
INSERT INTO interval_resolutions
  (forecast_id, observed_value, held_50, held_80, held_95, crps, resolved_at)
SELECT i.forecast_id, r.observed_value,
  r.observed_value BETWEEN i.lower_50 AND i.upper_50,
  r.observed_value BETWEEN i.lower_80 AND i.upper_80,
  r.observed_value BETWEEN i.lower_95 AND i.upper_95,
  2.0 / 7.0 * ({pinball}), r.resolved_at
FROM forecast_intervals i JOIN forecast_resolutions r USING (forecast_id)
WHERE r.outcome <> 'void' AND i.forecast_id NOT IN (SELECT forecast_id FROM interval_resolutions)
"""


def _pinball_sql() -> str:
    terms = []
    for tau, name in zip(
        QUANTILES,
        ("lower_95", "lower_80", "lower_50", "median", "upper_50", "upper_80", "upper_95"),
        strict=True,
    ):
        d = f"(r.observed_value - i.{name})"
        terms.append(f"greatest({tau} * {d}, {tau - 1.0:.3f} * {d})")
    return " + ".join(terms)


def record_interval_resolutions(con: duckdb.DuckDBPyConnection) -> int:
    """Write `interval_resolutions` for every resolved, non-void interval forecast that has no
    row yet (whether each interval held, and the CRPS); return how many rows were written."""
    before = con.execute("SELECT count(*) FROM interval_resolutions").fetchall()[0][0]
    con.execute(_RECORD_SQL.format(pinball=_pinball_sql()))
    return con.execute("SELECT count(*) FROM interval_resolutions").fetchall()[0][0] - before
