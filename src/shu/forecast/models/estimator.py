"""The estimators a yes/no forecaster is fitted with, and the feature matrix they read.

Two estimator kinds are supported and compared in the backtest: `logistic` (median imputation
with missing-value indicators, standardisation, L2 logistic regression) and `hgb`
(scikit-learn's HistGradientBoostingClassifier, native missing values, wrapped in `LogitVote`:
on more than `MEMBER_ROWS` fitting rows, up to `MAX_MEMBERS` members, each fitted on its own
`MEMBER_ROWS` rows drawn without replacement, their log-odds averaged; the benchmark behind
these settings is in benchmarks/README.md, Forecast). For rare events (the registry's `rare_event`
templates, e.g. breakouts at about 1% yes) each member keeps every 'yes' row of the fitting
block. Once saved, each member is kept as its trees' arrays (`trees.BoostedTrees`).
"""

from __future__ import annotations

from typing import Any

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

from shu.forecast.models.trees import BoostedTrees

ESTIMATORS = ("hgb", "logistic")
MEMBER_ROWS = 100_000  # fitting rows per gradient-boosting model
MAX_MEMBERS = 3


def single_openmp_thread() -> threadpool_limits:
    """Run gradient boosting on one OpenMP thread: on a machine whose cores other processes
    compete for, OpenMP threads spin waiting for each other and a fit takes many times longer
    (benchmarks/README.md, Forecast); DuckDB's own threads are not affected."""
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
    does from a single model (averaging probabilities instead calibrated worse, benchmarks/
    README.md). Members are fitted scikit-learn estimators until `compact` keeps only their
    trees' arrays (`trees.BoostedTrees`, which predict the same: what is saved); either votes the
    same way."""

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

    def occluded_decision(self, x: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """`decision_function` of every row of `x` with feature j set to `reference[j]`, for
        each j (feature-major: j * rows + row), bit for bit; the members' trees re-traversed
        only where they split on j (`BoostedTrees.occluded`) once kept as arrays."""
        if all(isinstance(m, BoostedTrees) for m in self.members_):
            return np.mean([m.occluded(x, reference) for m in self.members_], axis=0)
        n, k = x.shape
        stacked = np.repeat(np.asarray(x, dtype=np.float64)[None, :, :], k, axis=0)
        for j in range(k):
            stacked[j, :, j] = reference[j]
        return self.decision_function(stacked.reshape(k * n, -1))

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


def make_estimator(
    kind: str, seed: int = 0, rare_event: bool = False, logistic_c: float = 1.0
) -> Any:
    """A fresh, unfitted estimator of `kind` ('hgb' or 'logistic'); `rare_event`: gradient
    boosting members keep every 'yes' (the registry's `rare_event` templates) plus 'no' rows
    drawn to `MEMBER_ROWS`, instead of rows drawn regardless of the answer (the calibration on
    the later block maps the members' shifted log-odds back to probabilities); `logistic_c`:
    the logistic regression's inverse L2 strength (the registry's `logistic_c`)."""
    if kind == "hgb":
        return LogitVote(MAX_MEMBERS, MEMBER_ROWS, seed, keep_positives=rare_event)
    if kind == "logistic":
        return make_pipeline(
            SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True),
            StandardScaler(),
            LogisticRegression(C=logistic_c, max_iter=1000),
        )
    raise ValueError(f"unknown estimator {kind!r}; choose from {', '.join(ESTIMATORS)}")


def model_matrix(frame: pd.DataFrame, names: list[str]) -> np.ndarray:
    """The feature matrix in model order (float64, NaN = missing, clipped to +-25)."""
    return np.clip(frame[names].to_numpy(dtype=np.float64), -FEATURE_CLIP, FEATURE_CLIP)
