"""The gradient-boosting estimator bags its members on large fitting blocks, and a bagged,
calibrated forecaster survives the skops round trip with its predictions unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, VotingClassifier

from shu.forecast import model
from shu.forecast.model import fit_estimator, fit_forecaster, load_forecasters, save_forecasters


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    x[::9, 1] = np.nan
    y = (x[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "label": y})


def test_members_each_fit_their_own_rows_and_their_probabilities_are_averaged(monkeypatch):
    monkeypatch.setattr(model, "MEMBER_ROWS", 400)
    df = _frame(1000, 0)
    x, y = df[["a", "b", "c"]].to_numpy(), df["label"].to_numpy()
    bag = fit_estimator("hgb", x, y, seed=0)
    assert isinstance(bag, VotingClassifier) and len(bag.estimators_) == 3
    members = [m.estimator for m in bag.estimators_]
    assert all(m.n_iter_ == 120 for m in members)
    # different rows: the members disagree somewhere, and the vote is their mean
    p = np.stack([m.predict_proba(x)[:, 1] for m in members])
    assert np.ptp(p, axis=0).max() > 0.01
    np.testing.assert_allclose(bag.predict_proba(x)[:, 1], p.mean(axis=0))
    single = fit_estimator("hgb", x[:400], y[:400], seed=0)
    assert isinstance(single, HistGradientBoostingClassifier)
    assert fit_estimator("logistic", x, y).__class__.__name__ == "Pipeline"


def test_a_bagged_forecaster_round_trips_through_skops(monkeypatch, tmp_path):
    monkeypatch.setattr(model, "MEMBER_ROWS", 400)
    fit, cal = _frame(1000, 1), _frame(400, 2)
    fc = fit_forecaster("star_velocity_up", 30, ["a", "b", "c"], fit, cal)
    path = save_forecasters(tmp_path / "f.skops", [fc], "v1")
    version, (loaded,) = load_forecasters(path)
    assert version == "v1" and loaded.features == ["a", "b", "c"]
    np.testing.assert_allclose(loaded.predict(cal), fc.predict(cal))
    assert loaded.drivers(cal.head(2))[0]  # occlusion drivers work through the vote
