"""Backtest figures block by block: deciles, bands and coverage by hand, and the worst block."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from shu.forecast.evaluation import blocks
from shu.forecast.models import interval

START = pd.Timestamp("2025-03-01")


def _binary(seed: int) -> pd.DataFrame:
    """Two 8-week blocks of forecasts: calibrated in the first, the second's outcomes come true
    0.15 less often than said."""
    rng = np.random.default_rng(seed)
    n = 4000
    origin = START + pd.to_timedelta(rng.integers(0, 112, n), unit="D")
    p = rng.uniform(0.05, 0.95, n)
    truth = np.where(origin >= START + pd.Timedelta(days=56), np.clip(p - 0.15, 0, 1), p)
    return pd.DataFrame(
        {"origin": origin, "probability": p, "label": (rng.uniform(size=n) < truth).astype(int)}
    )


def test_binary_blocks_by_hand_and_the_worst_named():
    pred = _binary(1)
    out = blocks.binary_blocks(pred, START)
    first, second = out["blocks"]
    assert first["origins"][0] >= "2025-03-01" and second["origins"][0] >= "2025-04-26"
    assert first["n"] + second["n"] == len(pred)
    late = pred[pred["origin"] >= START + pd.Timedelta(days=56)]
    top = late.nlargest(len(late) // 10, "probability")
    assert second["top_decile"]["mean_probability"] == pytest.approx(
        top["probability"].mean(), abs=2e-3
    )
    assert second["top_decile"]["gap"] == pytest.approx(
        top["probability"].mean() - top["label"].mean(), abs=0.02
    )
    assert second["max_decile_gap"] > 0.1 and first["max_decile_gap"] < 0.08
    assert out["worst"] is second and second["miss"] > 2
    high = second["bands"]["high"]
    assert high["n"] == int((np.maximum(late["probability"], 1 - late["probability"]) >= 0.8).sum())
    assert "worst 8-week block 2025-04-2" in blocks.describe_worst("x/30", out)


def test_interval_blocks_name_the_band_that_stopped_covering():
    rng = np.random.default_rng(2)
    n = 6000
    velocity = rng.choice([0.5, 3.0, 10.0, 40.0], n)
    origin = START + pd.to_timedelta(rng.integers(0, 112, n), unit="D")
    observed = rng.normal(size=n)
    late_top = (origin >= START + pd.Timedelta(days=56)) & (velocity >= 20)
    observed = np.where(late_top, observed * 2.0, observed)  # the top band got wider late
    q = np.tile(np.array([-1.96, -1.2816, -0.6745, 0.0, 0.6745, 1.2816, 1.96]), (n, 1))
    pred = pd.DataFrame({"origin": origin, "velocity_28d": velocity, "observed_value": observed})
    out = blocks.interval_blocks(pred, q, START)
    worst = out["worst"]
    assert worst is out["blocks"][1]
    assert worst["coverage_by_velocity"][">=20"]["coverage_80"] < 0.6
    assert out["blocks"][0]["coverage"]["0.8"] == pytest.approx(0.8, abs=0.03)
    band = interval.velocity_band(velocity)
    assert worst["coverage_by_velocity"]["<1"]["n"] == int(
        ((band == 0) & (origin >= START + pd.Timedelta(days=56))).sum()
    )


def test_a_block_cut_short_by_a_data_gap_is_listed_but_not_named_worst():
    pred = _binary(1)
    lone = pd.DataFrame(
        {
            "origin": [START + pd.Timedelta(days=120)] * 40,
            "probability": [0.9] * 40,
            "label": [0] * 40,
        }
    )  # one week, all wrong
    out = blocks.binary_blocks(pd.concat([pred, lone], ignore_index=True), START)
    assert len(out["blocks"]) == 3 and out["blocks"][2]["n_origins"] == 1
    assert out["blocks"][2]["miss"] > out["worst"]["miss"] and out["worst"] is out["blocks"][1]
