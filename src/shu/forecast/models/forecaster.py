"""A yes/no forecaster: one calibrated model per template x horizon, and what it needs to explain
itself.

`fit_forecaster` fits an estimator (`estimator`) on an earlier block of examples and calibrates
it on a later block (`platt`), so the probabilities are honest on data the estimator
never saw. Drivers of a forecast are computed from the model itself by occlusion: the change in
the calibrated log-odds when one feature is replaced by its training median. Saving and loading
(skops) is `artifact`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from shu.errors import StoreError
from shu.forecast.base_rates import calibration_block_rates
from shu.forecast.models.estimator import (
    _votes,
    make_estimator,
    model_matrix,
    single_openmp_thread,
)
from shu.forecast.models.platt import calibrate
from shu.forecast.models.tail import fit_tail, shrink_tail
from shu.forecast.questions import registry


@dataclass
class Forecaster:
    """A calibrated model for one template x horizon, with what it needs to explain itself."""

    template: str
    horizon_days: int
    features: list[str]
    model: Any  # CalibratedClassifierCV around a frozen estimator
    reference: np.ndarray  # training medians, the occlusion baseline for drivers
    estimator: str
    fit_rows: int = 0
    calibration_rows: int = 0
    # the calibration block's rate of 'yes' per climatology bucket (`base_rates`): what the regime
    # guard pulls forecasts towards (empty in models saved before it existed)
    calibration_block_rates: dict[int, float] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    # climatology as of the last training day: bucket -> [yes, n] of the trailing year's
    # resolved examples (`base_rates.climatology_counts`, stored with each forecast); None in
    # models saved before it was recorded
    climatology: dict[str, list[int]] | None = None
    # the radar's tail shrink (knee, factor), fitted on the calibration block's top
    # (`models.tail`); None for other templates and models saved before it
    tail: tuple[float, float] | None = None

    def predict(self, frame: pd.DataFrame, tail: bool = True) -> np.ndarray:
        """Calibrated probability of 'yes' for each row (through the tail shrink, if the model
        has one and `tail`)."""
        with single_openmp_thread():
            p = self.model.predict_proba(model_matrix(frame, self.features))[:, 1]
        return shrink_tail(p, self.tail if tail else None)

    def calibration_block_rate(self, buckets: np.ndarray) -> np.ndarray:
        """The calibration block's rate of 'yes' for each row's bucket (its pooled rate for a
        bucket it did not see); NaN throughout for a model saved without them."""
        rates = self.calibration_block_rates
        if not rates:
            return np.full(len(buckets), np.nan)
        pooled = rates.get(-1, float(np.mean(list(rates.values()))))
        return np.array([rates.get(int(b), pooled) for b in buckets], dtype=float)

    def bundle(self) -> dict:
        """What `save_forecasters` writes for this forecaster (its boosting members kept as
        their trees' arrays from here on: `LogitVote.compact`)."""
        for vote in _votes(self.model):
            vote.compact()
        rates = self.calibration_block_rates
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
            # the calibration block's rates (the keys files have been written with)
            "base_rate_buckets": np.array(sorted(rates), dtype=np.int64),
            "base_rate_values": np.array([rates[b] for b in sorted(rates)]),
            "climatology": self.climatology,
        } | ({} if self.tail is None else {"tail": np.asarray(self.tail, dtype=float)})

    def drivers(self, frame: pd.DataFrame, top: int = 4) -> list[list[dict]]:
        """Per row: the `top` features that move the log-odds most, by occlusion.

        contribution = logit(p(x)) - logit(p(x with the feature set to its training median)),
        in log-odds units; sign is '+' when the feature pushes towards 'yes'.
        """
        x = model_matrix(frame, self.features)
        n, k = x.shape
        with single_openmp_thread():
            base = _logit(self.model.predict_proba(x)[:, 1])
            p = _occluded_probabilities(self.model, x, self.reference)
            if p is None:  # every (feature, row) pair through the model
                stacked = np.repeat(x[None, :, :], k, axis=0)  # (feature, row, column)
                for j in range(k):
                    stacked[j, :, j] = self.reference[j]
                p = self.model.predict_proba(stacked.reshape(k * n, -1))[:, 1]
        contribution = base[None, :] - _logit(p).reshape(k, n)
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
    spec = registry.template(template)
    est = make_estimator(estimator, seed, spec.rare_event, spec.logistic_c)
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
    tail = None
    if registry.template(template).ranked:  # a radar: read from the top
        with single_openmp_thread():
            p_cal = model.predict_proba(model_matrix(calibration, features))[:, 1]
        tail = fit_tail(p_cal, calibration["label"].to_numpy())
    return Forecaster(
        template,
        horizon_days,
        features,
        model,
        reference,
        estimator,
        fit_rows=len(fit),
        calibration_rows=len(calibration),
        calibration_block_rates=calibration_block_rates(calibration),
        tail=tail,
    )


def _occluded_probabilities(model: Any, x: np.ndarray, reference: np.ndarray) -> np.ndarray | None:
    """P(yes) of each row of `x` with feature j set to `reference[j]`, for each j (feature-major),
    equal to the model's `predict_proba` on those rows stacked, for a model of one sigmoid map
    over a bagged vote (`platt.calibrate` of a `LogitVote`: the star templates'): the vote's
    occluded log-odds (`LogitVote.occluded_decision`) through that map as sklearn applies it
    (one map, so its mean is itself; values a hair above 1 read as 1). None for another model
    (the caller predicts the stacked rows)."""
    calibrated = getattr(model, "calibrated_classifiers_", None)
    votes = _votes(model)
    if (
        not calibrated
        or len(calibrated) != 1
        or calibrated[0].method != "sigmoid"
        or len(calibrated[0].classes) != 2
        or len(votes) != 1
        or getattr(calibrated[0].estimator, "estimator", None) is not votes[0]
    ):
        return None
    p = calibrated[0].calibrators[0].predict(votes[0].occluded_decision(x, reference))
    p[(p > 1.0) & (p <= 1.0 + 1e-5)] = 1.0
    return p


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))
