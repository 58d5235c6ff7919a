"""Calibrating a frozen estimator scores the calibration block once, whatever its class counts:
a block where one outcome has only 4 rows calibrates without sklearn's "least populated class"
warning (the 5-fold split it came from is gone), to the same map as before."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from shu.forecast.models.platt import calibrate


def test_a_class_of_four_rows_calibrates_without_a_warning() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 3))
    fitted = LogisticRegression().fit(x, (x[:, 0] > 0).astype(int))
    block = rng.normal(size=(60, 3))
    outcomes = np.zeros(60, dtype=int)
    outcomes[:4] = 1  # 4 rows of "yes": fewer than a 5-fold stratified split needs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        calibrated = calibrate(fitted, block, outcomes)
    p = calibrated.predict_proba(x)[:, 1]
    assert np.all((p > 0) & (p < 1))
    # the map is fitted on every row's score of the frozen estimator, each scored once
    assert p.mean() < 0.2  # 4 in 60 said yes: the calibrated rate sits near it, not near 0.5
