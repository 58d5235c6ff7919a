"""`shu backtest --predictions`: every scored prediction as Parquet, enough to recompute the
backtest's figures from the file alone."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from support.cli import shu

from shu.errors import InputError
from shu.forecast.calibration.distribution import cdf
from shu.forecast.evaluation.predictions import (
    BINARY_COLUMNS,
    INTERVAL_COLUMNS,
    predictions_paths,
    write_predictions,
)
from shu.forecast.models import interval


def test_backtest_writes_one_file_per_template_that_recomputes_its_figures(
    synthetic_store, tmp_path
):
    db = synthetic_store.path
    synthetic_store.close()
    target = tmp_path / "out" / "preds.parquet"
    out = shu(
        "backtest",
        "--from",
        "2024-01-01",
        "--to",
        "2024-02-10",
        "--horizon",
        "7",
        "--template",
        "star_velocity_up,star_velocity_interval",
        "--json",
        "--predictions",
        str(target),
        db=db,
    )
    assert out.returncode == 0, out.stderr
    metrics = json.loads(out.stdout)["slices"]
    assert not target.exists()  # two templates: one file each, beside the path given
    binary = pd.read_parquet(tmp_path / "out" / "preds.star_velocity_up.parquet")
    # the documented columns, then what reading from the one distribution adds
    assert tuple(binary.columns) == (*BINARY_COLUMNS, "probability_classifier", "distribution")
    m = metrics["star_velocity_up/7"]
    assert len(binary) == m["n"] and binary["repo"].nunique() == m["n_repos"]
    assert set(binary["outcome"]) <= {0, 1} and (binary["horizon"] == 7).all()
    brier = float(np.mean((binary["probability"] - binary["outcome"]) ** 2))
    assert brier == pytest.approx(m["brier"], rel=1e-9)
    assert binary["outcome"].mean() == pytest.approx(m["base_rate"])

    iv = pd.read_parquet(tmp_path / "out" / "preds.star_velocity_interval.parquet")
    assert tuple(iv.columns) == (
        *INTERVAL_COLUMNS,
        "distribution_quantiles",
        "anchor_thresholds",
        "anchor_cdf",
    )
    m = metrics["star_velocity_interval/7"]
    assert len(iv) == m["n"]
    inside = (iv["observed"] >= iv["lower_80"]) & (iv["observed"] <= iv["upper_80"])
    assert inside.mean() == pytest.approx(m["coverage"]["0.8"])
    assert (iv["lower_95"] <= iv["lower_80"]).all() and (iv["upper_80"] <= iv["upper_95"]).all()

    # coherence from the files alone: each answer is P(V > threshold) of its (repo, origin)'s
    # stored distribution, within 0.02, and the distribution is monotone
    both = binary[binary["distribution"]].merge(iv, on=["repo", "origin"], suffixes=("", "_iv"))
    assert len(both) == binary["distribution"].sum() > 50
    for row in both.itertuples():
        q = np.asarray(row.distribution_quantiles)
        assert np.all(np.diff(q) >= 0)
        read = 1 - cdf(
            interval.DIST_LEVELS,
            q,
            np.asarray(row.anchor_thresholds),
            np.asarray(row.anchor_cdf),
            row.threshold,
        )
        assert abs(row.probability - read) <= 0.02
    assert m["distribution"]["anchored"] > 0


def test_one_template_writes_the_path_itself_and_a_bad_path_is_refused(tmp_path):
    frame = pd.DataFrame(
        {
            "repo": ["a/b"],
            "origin": [pd.Timestamp("2024-01-01").date()],
            "template": ["star_velocity_up"],
            "horizon": [30],
            "threshold": [1.0],
            "velocity_28d": [1.0],
            "probability": [0.7],
            "outcome": [1],
        }
    )
    target = tmp_path / "p.parquet"
    assert write_predictions(target, [frame]) == [target]
    assert pd.read_parquet(target).shape == (1, len(BINARY_COLUMNS))
    assert not list(tmp_path.glob("*.partial"))
    with pytest.raises(InputError, match="ending in .parquet"):
        predictions_paths(tmp_path / "p.csv", ["star_velocity_up"])
