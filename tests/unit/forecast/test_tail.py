"""The radar's tail shrink: fitted on a calibration block's top only, monotone, a no-op below
its knee, and saved with the model."""

from __future__ import annotations

import numpy as np

from shu.forecast.models.tail import MIN_TAIL_ROWS, TAIL_SHARE, fit_tail, shrink_tail


def _block(overstate: float, n: int = 40_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities of a rare event whose top says `overstate` times what comes true."""
    rng = np.random.default_rng(seed)
    p = np.clip(rng.beta(0.3, 30.0, n), 0, 0.9)
    knee = np.quantile(p, 1 - TAIL_SHARE)
    true = np.where(p > knee, knee + (p - knee) / overstate, p)
    return p, (rng.uniform(size=n) < true).astype(int)


def test_an_overstated_top_is_shrunk_and_a_calibrated_one_is_nearly_kept():
    p, y = _block(overstate=2.0)
    tail = fit_tail(p, y)
    assert tail is not None
    _knee, factor = tail
    assert 0.3 < factor < 0.75  # the truth is 0.5
    p, y = _block(overstate=1.0, seed=1)
    calibrated = fit_tail(p, y)
    assert calibrated is not None and calibrated[1] > 0.75


def test_the_map_is_monotone_and_leaves_everything_below_the_knee():
    tail = (0.05, 0.6)
    p = np.linspace(0, 1, 1001)
    out = shrink_tail(p, tail)
    assert np.all(np.diff(out) >= 0)
    np.testing.assert_array_equal(out[p <= 0.05], p[p <= 0.05])
    assert np.all(out[p > 0.05] < p[p > 0.05])
    np.testing.assert_array_equal(shrink_tail(p, None), p)


def test_too_few_forecasts_at_the_top_fit_no_shrink():
    p = np.linspace(0, 0.2, int(0.8 * MIN_TAIL_ROWS / TAIL_SHARE))  # too few in the top share
    assert fit_tail(p, (p > 0.19).astype(int)) is None
