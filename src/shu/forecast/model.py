"""The forecaster: estimator choice, fitting on a time-ordered split, drivers.

`fit_forecaster` fits an estimator on an earlier block of examples and calibrates it on a later
block (see `calibration`). Two estimator kinds are supported and compared in the backtest:
`logistic` (median imputation with missing-value indicators, standardisation, L2 logistic
regression) and `hgb` (scikit-learn's HistGradientBoostingClassifier, native missing values;
wrapped in `LogitVote`: on more than `MEMBER_ROWS` fitting rows, up to `MAX_MEMBERS` of them,
each fitted on its own `MEMBER_ROWS` rows drawn without replacement, their log-odds averaged:
measured on the star history's walk-forward, three members on 300,000 rows beat one on 100,000
by +0.0015 Brier skill; for the rare breakouts each member keeps every 'yes' row,
`RARE_EVENT_TEMPLATES`).
Drivers of a forecast are computed from the model itself by occlusion: the change in the
calibrated log-odds when one feature is replaced by its training median.
Saving and loading them (skops) is `shu.forecast.artifact`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from shu.errors import StoreError
from shu.forecast.calibration import calibrate
from shu.forecast.trees import BoostedTrees

ESTIMATORS = ("hgb", "logistic")
MEMBER_ROWS = 100_000  # fitting rows per gradient-boosting model
MAX_MEMBERS = 3
# Rare events (about 1% yes): each member is fitted on every 'yes' of the fitting block plus
# 'no' rows drawn to MEMBER_ROWS, instead of rows drawn regardless of the answer (the sigmoid
# calibration on the later block maps the members' shifted log-odds back to probabilities).
# Measured on star_breakout/30 (fit on origins 2021-2024, test 2025-03..2026-01, three seeds):
# precision@20 0.100 against 0.091, precision@50 0.078 against 0.073.
RARE_EVENT_TEMPLATES = ("star_breakout",)


def single_openmp_thread() -> threadpool_limits:
    """Run gradient boosting on one OpenMP thread.

    Measured on the shared 2-core machine: fitting 100,000 x 30 rows took 3.5 s on one thread
    and 71 s on two while other processes competed for the cores (OpenMP threads spin waiting
    for each other); DuckDB's own threads are not affected.
    """
    return threadpool_limits(limits=1, user_api="openmp")


FEATURE_CLIP = 25.0  # features are scale-free; clip outliers from data glitches


def _tree(seed: int) -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(
        max_iter=120,
        learning_rate=0.08,
        max_leaf_nodes=15,
        min_samples_leaf=200,
        l2_regularization=1.0,
        early_stopping=False,
        random_state=seed,
    )


class LogitVote(ClassifierMixin, BaseEstimator):
    """Gradient-boosting members, each fitted on its own `member_rows` rows drawn without
    replacement (one member on all rows when there are no more than `member_rows`); the vote is
    the mean of their log-odds, so the sigmoid calibration that follows reads log-odds, as it
    does from a single model (averaging probabilities instead measured ECE 0.016 vs 0.008).
    Members are fitted scikit-learn estimators until `compact` keeps only their trees' arrays
    (`trees.BoostedTrees`, which predict the same: what is saved); either votes the same way."""

    def __init__(
        self,
        max_members: int = MAX_MEMBERS,
        member_rows: int = MEMBER_ROWS,
        seed: int = 0,
        keep_positives: bool = False,
    ):
        self.max_members = max_members
        self.member_rows = member_rows
        self.seed = seed
        self.keep_positives = keep_positives

    def fit(self, x: np.ndarray, y: np.ndarray) -> LogitVote:
        """Fit the members (each on its own random rows; with `keep_positives`, on every
        'yes' row plus 'no' rows drawn to `member_rows`)."""
        n = len(y)
        count = max(1, min(self.max_members, -(-n // self.member_rows)))
        rng = np.random.default_rng(self.seed)
        yes = np.flatnonzero(y == 1)
        no = np.flatnonzero(y != 1)
        self.members_ = []
        self.member_yes_ = []  # how many 'yes' rows each member was fitted on
        for _ in range(count):
            if count == 1:
                rows = np.arange(n)
            elif self.keep_positives and len(yes) < self.member_rows:
                rows = np.sort(
                    np.concatenate(
                        [
                            yes,
                            rng.choice(
                                no, min(len(no), self.member_rows - len(yes)), replace=False
                            ),
                        ]
                    )
                )
            else:
                rows = np.sort(rng.choice(n, self.member_rows, replace=False))
            fitted = _tree(self.seed).fit(x[rows], y[rows])
            self.classes_ = fitted.classes_
            self.members_.append(fitted)
            self.member_yes_.append(int((y[rows] == 1).sum()))
        return self

    def compact(self) -> LogitVote:
        """Keep each member as its trees' arrays only (idempotent); returns self."""
        self.members_ = [
            m if isinstance(m, BoostedTrees) else BoostedTrees.from_hgb(m) for m in self.members_
        ]
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        """Mean log-odds of 'yes' over the members."""
        return np.mean([m.decision_function(x) for m in self.members_], axis=0)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """(rows, 2): P(no), P(yes) of the mean log-odds (uncalibrated)."""
        p = expit(self.decision_function(x))
        return np.column_stack([1.0 - p, p])

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The more likely class."""
        return self.classes_[(self.decision_function(x) > 0).astype(int)]


def _votes(model: object) -> list[LogitVote]:
    """The LogitVote estimators inside a calibrated model (none for other estimators)."""
    frozen = [getattr(c, "estimator", None) for c in getattr(model, "calibrated_classifiers_", [])]
    found = [getattr(f, "estimator", f) for f in (getattr(model, "estimator", None), *frozen)]
    return list({id(v): v for v in found if isinstance(v, LogitVote)}.values())


def make_estimator(kind: str, seed: int = 0, rare_event: bool = False) -> object:
    """A fresh, unfitted estimator of `kind` ('hgb' or 'logistic'); `rare_event`: gradient
    boosting members keep every 'yes' (`RARE_EVENT_TEMPLATES`)."""
    if kind == "hgb":
        return LogitVote(MAX_MEMBERS, MEMBER_ROWS, seed, keep_positives=rare_event)
    if kind == "logistic":
        return make_pipeline(
            SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True),
            StandardScaler(),
            LogisticRegression(C=1.0, max_iter=1000),
        )
    raise ValueError(f"unknown estimator {kind!r}; choose from {', '.join(ESTIMATORS)}")


def model_matrix(frame: pd.DataFrame, names: list[str]) -> np.ndarray:
    """The feature matrix in model order (float64, NaN = missing, clipped to +-25)."""
    return np.clip(frame[names].to_numpy(dtype=np.float64), -FEATURE_CLIP, FEATURE_CLIP)


@dataclass
class Forecaster:
    """A calibrated model for one template x horizon, with what it needs to explain itself."""

    template: str
    horizon_days: int
    features: list[str]
    model: object  # CalibratedClassifierCV around a frozen estimator
    reference: np.ndarray  # training medians, the occlusion baseline for drivers
    estimator: str
    fit_rows: int = 0
    calibration_rows: int = 0
    # base rate of the calibration block per climatology bucket (smoothed: (yes + 1) / (n + 2));
    # what the regime guard pulls forecasts towards (empty in models saved before it existed)
    base_rates: dict[int, float] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    # climatology as of the last training day: bucket -> [yes, n] of the trailing year's
    # resolved examples (`forecast.base_rate`, stored with each forecast); None in models saved
    # before it was recorded
    climatology: dict[str, list[int]] | None = None

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Calibrated probability of 'yes' for each row."""
        with single_openmp_thread():
            return self.model.predict_proba(model_matrix(frame, self.features))[:, 1]

    def base_rate(self, buckets: np.ndarray) -> np.ndarray:
        """The calibration block's base rate for each row's bucket (its pooled rate for a bucket
        it did not see); NaN throughout for a model saved without base rates."""
        if not self.base_rates:
            return np.full(len(buckets), np.nan)
        pooled = self.base_rates.get(-1, float(np.mean(list(self.base_rates.values()))))
        return np.array([self.base_rates.get(int(b), pooled) for b in buckets], dtype=float)

    def bundle(self) -> dict:
        """What `save_forecasters` writes for this forecaster (its boosting members kept as
        their trees' arrays from here on: `LogitVote.compact`)."""
        for vote in _votes(self.model):
            vote.compact()
        return {
            "kind": "binary",
            "template": self.template,
            "horizon_days": self.horizon_days,
            "features": list(self.features),
            "model": self.model,
            "reference": self.reference,
            "estimator": self.estimator,
            "fit_rows": self.fit_rows,
            "calibration_rows": self.calibration_rows,
            "base_rate_buckets": np.array(sorted(self.base_rates), dtype=np.int64),
            "base_rate_values": np.array([self.base_rates[b] for b in sorted(self.base_rates)]),
            "climatology": self.climatology,
        }

    def drivers(self, frame: pd.DataFrame, top: int = 4) -> list[list[dict]]:
        """Per row: the `top` features that move the log-odds most, by occlusion.

        contribution = logit(p(x)) - logit(p(x with the feature set to its training median)),
        in log-odds units; sign is '+' when the feature pushes towards 'yes'.
        """
        x = model_matrix(frame, self.features)
        n, k = x.shape
        stacked = np.repeat(x[None, :, :], k, axis=0)  # (feature, row, column)
        for j in range(k):
            stacked[j, :, j] = self.reference[j]
        with single_openmp_thread():
            base = _logit(self.model.predict_proba(x)[:, 1])
            occluded = _logit(self.model.predict_proba(stacked.reshape(k * n, -1))[:, 1])
        contribution = base[None, :] - occluded.reshape(k, n)
        out = []
        for i in range(n):
            order = np.argsort(-np.abs(contribution[:, i]), kind="stable")[:top]
            out.append(
                [
                    {
                        "feature": self.features[j],
                        "value": None if math.isnan(x[i, j]) else round(float(x[i, j]), 4),
                        "sign": "+" if contribution[j, i] >= 0 else "-",
                        "contribution": round(float(contribution[j, i]), 4),
                    }
                    for j in order
                    if abs(contribution[j, i]) > 0
                ]
            )
        return out


def fit_forecaster(
    template: str,
    horizon_days: int,
    features: list[str],
    fit: pd.DataFrame,
    calibration: pd.DataFrame,
    estimator: str = "hgb",
    calibration_method: str = "sigmoid",
    seed: int = 0,
) -> Forecaster:
    """Fit on `fit` (earlier block) and calibrate on `calibration` (later block)."""
    if fit["label"].nunique() < 2 or calibration["label"].nunique() < 2:
        raise StoreError(
            f"{template}/{horizon_days}d: need both outcomes in the fitting and the "
            "calibration blocks; load more history"
        )
    # Features with no value at all in the fitting block (e.g. commit signals on a store with
    # stars only) carry no information and are left out of this model.
    features = [f for f in features if fit[f].notna().any()]
    x_fit = model_matrix(fit, features)
    est = make_estimator(estimator, seed, rare_event=template in RARE_EVENT_TEMPLATES)
    with single_openmp_thread():
        est.fit(x_fit, fit["label"].to_numpy())
        model = calibrate(
            est,
            model_matrix(calibration, features),
            calibration["label"].to_numpy(),
            prefer=calibration_method,
        )
    reference = np.nanmedian(x_fit, axis=0)
    reference = np.where(np.isnan(reference), 0.0, reference)
    return Forecaster(
        template,
        horizon_days,
        features,
        model,
        reference,
        estimator,
        fit_rows=len(fit),
        calibration_rows=len(calibration),
        base_rates=calibration_base_rates(calibration),
    )


def calibration_base_rates(calibration: pd.DataFrame) -> dict[int, float]:
    """Smoothed base rate, (yes + 1) / (n + 2), per climatology bucket of the calibration block,
    and over the whole block under key -1."""
    counts = calibration.groupby(calibration.get("bucket", pd.Series(0, calibration.index)))[
        "label"
    ].agg(["sum", "count"])
    rates = {
        int(b): (float(r["sum"]) + 1.0) / (float(r["count"]) + 2.0) for b, r in counts.iterrows()
    }
    rates[-1] = (float(calibration["label"].sum()) + 1.0) / (len(calibration) + 2.0)
    return rates


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))
