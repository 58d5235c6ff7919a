"""Calibration of a fitted classifier on a later, disjoint block of time.

The estimator is frozen (never refitted) and a sigmoid (Platt) map is learned on the calibration
block, which must come after the block the estimator was fitted on (chronologically later, with
the labels of the fitting block known before the calibration block starts). Isotonic regression
is used only when asked for and the block holds at least 1,000 rows, since it overfits on fewer.
"""

from __future__ import annotations

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator

ISOTONIC_MIN_ROWS = 1000


def calibration_method(n_rows: int, prefer: str = "sigmoid") -> str:
    """'isotonic' only when preferred and n_rows >= 1,000; otherwise 'sigmoid'."""
    return "isotonic" if prefer == "isotonic" and n_rows >= ISOTONIC_MIN_ROWS else "sigmoid"


def calibrate(
    estimator: object, features: np.ndarray, outcomes: np.ndarray, prefer: str = "sigmoid"
) -> CalibratedClassifierCV:
    """Wrap the fitted `estimator` (frozen) and fit the calibration map on a later block."""
    method = calibration_method(len(outcomes), prefer)
    # ensemble=False: one calibration map over the whole block (the frozen estimator gives the
    # same scores in every fold, so an ensemble of per-fold maps would only cost time). And one
    # "split" that scores every row once: the frozen estimator is never refitted, so folds add
    # nothing, and the default 5-fold stratified split cannot split a class of fewer than 5 rows
    # (sklearn warns), while it scores the block five times over.
    whole = np.arange(len(outcomes))
    calibrated = CalibratedClassifierCV(
        FrozenEstimator(estimator), method=method, ensemble=False, cv=[(whole, whole)]
    )
    calibrated.fit(features, outcomes)
    return calibrated
