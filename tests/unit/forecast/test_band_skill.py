"""Skill per band of today's velocity (`slice_scores.band_skill`): each band scored against its
own climatology with a block-bootstrap interval, and its confidence bands' hit rates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from shu.forecast.evaluation.scoring import brier, hits_by_band, skill_score
from shu.forecast.evaluation.slice_scores import band_skill
from shu.forecast.models.interval import VELOCITY_BANDS


def _pred(rng: np.random.Generator) -> pd.DataFrame:
    """400 answers in each band but 1-5 stars/day (none there): below 1 star/day the answer is
    the band's climatology (no skill), from 20 stars/day it leans the right way (skill)."""
    rows = []
    for velocity, informed in ((0.3, False), (8.0, True), (45.0, True)):
        for i in range(400):
            truth = rng.random() < 0.3
            p = (0.8 if truth else 0.1) if informed else 0.3
            rows.append(
                {
                    "repo": f"r{i % 40}",
                    "origin": pd.Timestamp("2025-01-01") + pd.Timedelta(weeks=i % 10),
                    "velocity_28d": velocity,
                    "label": int(truth),
                    "probability": p,
                    "climatology_band": 0.3,
                }
            )
    return pd.DataFrame(rows)


def test_each_band_is_scored_against_its_own_climatology_with_an_interval():
    pred = _pred(np.random.default_rng(0))
    bands = band_skill(pred, n_boot=200, seed=0)
    assert set(bands) == {"<1", "5-20", ">=20"}  # no answer at 1-5 stars/day: no row
    assert list(bands) == [b for b in VELOCITY_BANDS if b in bands]
    for name, velocity in (("<1", 0.3), ("5-20", 8.0), (">=20", 45.0)):
        part = pred[pred["velocity_28d"] == velocity]
        row = bands[name]
        o, p = part["label"].to_numpy(), part["probability"].to_numpy()
        assert row["n"] == 400 and row["observed_rate"] == pytest.approx(o.mean())
        ci = row["ci95"]["bss_band_climatology"]
        assert row["bss_band_climatology"] == pytest.approx(
            skill_score(brier(o, p), brier(o, part["climatology_band"]))
        )
        assert ci["value"] == row["bss_band_climatology"]
        assert ci["low"] <= ci["value"] <= ci["high"]
        # the confidence bands within the velocity band, as a card on such a repository reads
        assert row["bands"] == [b.__dict__ for b in hits_by_band(o, p)]
    # answering the climatology itself is no skill in every replicate; the informed answers
    # have skill, above zero with 95% confidence
    assert bands["<1"]["ci95"]["bss_band_climatology"] == {"value": 0.0, "low": 0.0, "high": 0.0}
    for name in ("5-20", ">=20"):
        ci = bands[name]["ci95"]["bss_band_climatology"]
        assert 0.5 < ci["low"] < ci["value"] < ci["high"]
    high = next(b for b in bands[">=20"]["bands"] if b["band"] == "high")
    assert high["n"] == 400 and high["hit_rate"] == 1.0  # 0.8 yes or 0.9 no: all right


def test_the_interval_depends_on_the_seed_and_the_estimate_does_not():
    pred = _pred(np.random.default_rng(1))
    a, b = band_skill(pred, n_boot=100, seed=0), band_skill(pred, n_boot=100, seed=1)
    assert a[">=20"]["bss_band_climatology"] == b[">=20"]["bss_band_climatology"]
    assert a[">=20"]["ci95"] != b[">=20"]["ci95"]
    assert band_skill(pred, n_boot=100, seed=0) == a
