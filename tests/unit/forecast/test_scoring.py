"""Scores against values computed by hand."""

import math

import numpy as np
import pytest

from shu.forecast import confidence
from shu.forecast.evaluation import scoring

OUTCOMES = np.array([1, 0, 1, 0])
PROBS = np.array([0.9, 0.2, 0.6, 0.4])


def test_brier_and_log_loss_by_hand():
    assert scoring.brier(OUTCOMES, PROBS) == pytest.approx(0.37 / 4)
    expected = -(math.log(0.9) + math.log(0.8) + 2 * math.log(0.6)) / 4
    assert scoring.log_loss(OUTCOMES, PROBS) == pytest.approx(expected)
    assert scoring.skill_score(0.0925, 0.25) == pytest.approx(0.63)
    assert math.isnan(scoring.skill_score(0.1, 0.0))


def test_ece_equal_count_bins_by_hand():
    # bins {0.2, 0.4} (no yes) and {0.6, 0.9} (both yes): 0.5*0.3 + 0.5*0.25
    assert scoring.ece(OUTCOMES, PROBS, n_bins=2) == pytest.approx(0.275)
    assert scoring.n_bins_for(999) == 5
    assert scoring.n_bins_for(1000) == 10


def test_murphy_by_hand_and_identity_with_within_bin_variance():
    m = scoring.murphy(OUTCOMES, PROBS, n_bins=2)
    assert m.reliability == pytest.approx((2 * 0.09 + 2 * 0.0625) / 4)
    assert m.resolution == pytest.approx(0.25)
    assert m.uncertainty == pytest.approx(0.25)
    within = (0.01 + 0.0225) / 2  # mean within-bin variance of the forecasts
    assert m.reliability - m.resolution + m.uncertainty + within == pytest.approx(
        scoring.brier(OUTCOMES, PROBS)
    )


def test_murphy_is_exact_for_constant_forecasts_per_bin():
    rng = np.random.default_rng(1)
    p = np.repeat([0.1, 0.3, 0.7, 0.9], 250)
    o = (rng.random(1000) < p).astype(int)
    m = scoring.murphy(o, p, n_bins=4)
    assert m.reliability - m.resolution + m.uncertainty == pytest.approx(scoring.brier(o, p))


@pytest.mark.parametrize(
    ("p", "band"),
    [
        (0.5, "low"),
        (0.64, "low"),
        (0.65, "medium"),
        (0.35, "medium"),
        (0.79, "medium"),
        (0.8, "high"),
        (0.2, "high"),
        (0.0, "high"),
    ],
)
def test_confidence_bands_edges(p, band):
    assert confidence.confidence_band(p) == band
    assert confidence.confidence_bands(np.array([p]))[0] == band


def test_hits_by_band_counts_right_answers():
    hits = {
        b.band: b
        for b in scoring.hits_by_band(
            np.array([1, 0, 1, 0, 1]), np.array([0.9, 0.2, 0.6, 0.4, 0.3])
        )
    }
    assert (hits["high"].n, hits["high"].right) == (2, 2)
    assert (hits["low"].n, hits["low"].right) == (2, 2)
    assert (hits["medium"].n, hits["medium"].right) == (1, 0)  # p=0.3 said no, it was yes


def test_wilson_interval_known_value():
    lo, hi = scoring.wilson_interval(8, 10)
    assert (lo, hi) == (pytest.approx(0.4902, abs=1e-4), pytest.approx(0.9433, abs=1e-4))


def test_block_bootstrap_one_block_has_no_spread_and_many_blocks_bracket_the_value():
    rng = np.random.default_rng(0)
    n = 400
    p = rng.random(n)
    o = (rng.random(n) < p).astype(int)
    clim = np.full(n, 0.5)
    one = scoring.block_bootstrap(o, p, clim, clim, ["a"] * n, n_boot=50)
    assert one["brier"].low == pytest.approx(one["brier"].high)
    assert one["brier"].value == pytest.approx(scoring.brier(o, p))
    many = scoring.block_bootstrap(o, p, clim, clim, [str(i % 40) for i in range(n)], n_boot=200)
    for interval in many.values():
        assert interval.low <= interval.value <= interval.high
    assert many["bss_climatology"].value == pytest.approx(
        1 - scoring.brier(o, p) / scoring.brier(o, clim)
    )
    assert many["ece"].value == pytest.approx(scoring.ece(o, p))
    assert many["brier"].high > many["brier"].low


def test_skill_ci_is_one_minus_the_ratio_of_sums_resampled_by_block():
    # by hand: 1 - (1 + 3) / (2 + 6) = 0.5; one block has no spread
    one = scoring.skill_ci(np.array([1.0, 3.0]), np.array([2.0, 6.0]), ["a", "a"], n_boot=20)
    assert one == {"value": 0.5, "low": 0.5, "high": 0.5}
    # two blocks of skill 0.5 and 0 (1/2 and 3/3): replicates draw (a, a), (a, b), (b, b)
    two = scoring.skill_ci(np.array([1.0, 3.0]), np.array([2.0, 3.0]), ["a", "b"], n_boot=400)
    assert two["value"] == pytest.approx(1 - 4 / 5)
    assert two["low"] == pytest.approx(0.0) and two["high"] == pytest.approx(0.5)
    # the Brier skill of block_bootstrap is this ratio of squared errors
    rng = np.random.default_rng(1)
    p = rng.random(300)
    o = (rng.random(300) < p).astype(int)
    clim = np.full(300, 0.5)
    blocks = [str(i % 30) for i in range(300)]
    skill = scoring.skill_ci(
        scoring.squared_errors(o, p), scoring.squared_errors(o, clim), blocks, n_boot=200
    )
    assert skill["value"] == pytest.approx(scoring.skill_score(scoring.brier(o, p), 0.25))
    assert skill["low"] < skill["value"] < skill["high"]
    nothing = scoring.skill_ci(np.zeros(3), np.zeros(3), ["a", "b", "c"], n_boot=10)
    assert all(math.isnan(v) for v in nothing.values())  # no reference error: no skill


def test_summarize_keys_and_shape_errors():
    out = scoring.summarize(
        OUTCOMES, PROBS, np.full(4, 0.5), np.full(4, 0.5), ["a", "b", "c", "d"], n_boot=20
    )
    for key in (
        "n",
        "base_rate",
        "brier",
        "bss_climatology",
        "bss_persistence",
        "log_loss",
        "ece",
        "murphy",
        "bands",
        "reliability",
        "ci95",
    ):
        assert key in out
    assert out["bss_climatology"] == pytest.approx(1 - 0.0925 / 0.25)
    with pytest.raises(ValueError, match="shape"):
        scoring.brier(OUTCOMES, PROBS[:3])
