"""The gradient-boosting estimator bags its members on large fitting blocks, and a bagged,
calibrated forecaster survives the skops round trip with its predictions unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd

from shu.forecast.models import estimator
from shu.forecast.models.artifact import load_forecasters, save_forecasters
from shu.forecast.models.estimator import LogitVote
from shu.forecast.models.forecaster import fit_forecaster
from shu.forecast.questions.registry import template


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    x[::9, 1] = np.nan
    y = (x[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "label": y})


def test_members_each_fit_their_own_rows_and_their_log_odds_are_averaged():
    df = _frame(1000, 0)
    x, y = df[["a", "b", "c"]].to_numpy(), df["label"].to_numpy()
    vote = LogitVote(max_members=3, member_rows=400, seed=0).fit(x, y)
    assert len(vote.members_) == 3 and list(vote.classes_) == [0, 1]
    z = np.stack([m.decision_function(x) for m in vote.members_])
    assert np.ptp(z, axis=0).max() > 0.1  # different rows: the members disagree somewhere
    np.testing.assert_allclose(vote.decision_function(x), z.mean(axis=0))
    np.testing.assert_allclose(vote.predict_proba(x)[:, 1], 1 / (1 + np.exp(-z.mean(axis=0))))
    assert ((vote.predict(x) == 1) == (z.mean(axis=0) > 0)).all()
    single = LogitVote(max_members=3, member_rows=400).fit(x[:400], y[:400])
    assert len(single.members_) == 1 and single.members_[0].n_iter_ == 120


def test_rare_event_members_each_keep_every_yes():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(3000, 3))
    y = (x[:, 0] > 2.3).astype(int)  # about 1% yes
    assert 10 < y.sum() < 60
    rare = LogitVote(max_members=3, member_rows=1000, seed=0, keep_positives=True).fit(x, y)
    assert rare.member_yes_ == [int(y.sum())] * 3
    plain = LogitVote(max_members=3, member_rows=1000, seed=0).fit(x, y)
    assert max(plain.member_yes_) < y.sum()  # drawn regardless of the answer: about a third
    # a rare-event template gets the rare-event members
    assert estimator.make_estimator("hgb", rare_event=True).keep_positives
    assert template("star_breakout").rare_event


def test_a_template_fits_its_logistic_with_its_own_penalty():
    fit, cal = _frame(1000, 1), _frame(400, 2)
    for name in ("rocm_share_reach", "rocm_release_mention"):
        fc = fit_forecaster(name, 30, ["a", "b", "c"], fit, cal, "logistic")
        frozen = fc.model.calibrated_classifiers_[0].estimator.estimator
        assert template(name).logistic_c == frozen[-1].C
    assert template("rocm_share_reach").logistic_c < template("rocm_release_mention").logistic_c


def test_a_bagged_forecaster_round_trips_through_skops(monkeypatch, tmp_path):
    monkeypatch.setattr(estimator, "MEMBER_ROWS", 400)
    fit, cal = _frame(1000, 1), _frame(400, 2)
    fc = fit_forecaster("star_velocity_up", 30, ["a", "b", "c"], fit, cal)
    path = save_forecasters(tmp_path / "f.skops", [fc], "v1")
    version, (loaded,) = load_forecasters(path)
    assert version == "v1" and loaded.features == ["a", "b", "c"]
    np.testing.assert_allclose(loaded.predict(cal), fc.predict(cal))
    from shu.forecast.models.trees import BoostedTrees

    (vote,) = estimator._votes(loaded.model)  # saved as the members' trees' arrays
    assert len(vote.members_) == 3
    assert all(isinstance(m, BoostedTrees) for m in vote.members_)
    assert loaded.drivers(cal.head(2))[0]  # occlusion drivers work through the vote


def test_members_predict_as_the_fitted_boosting_does_and_ship_small(tmp_path):
    """The trees kept as arrays give the estimator's own raw predictions (missing values
    included) and save at a fraction of its size."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from shu.forecast.models.trees import BoostedTrees

    df = _frame(3000, 3)
    x, y = df[["a", "b", "c"]].to_numpy().copy(), df["label"].to_numpy()
    x[::7, 0] = np.nan
    hgb = estimator._tree(0).fit(x, y)
    trees = BoostedTrees.from_hgb(hgb)
    test = _frame(2000, 4)[["a", "b", "c"]].to_numpy().copy()
    test[::5, 2] = np.nan
    np.testing.assert_allclose(
        trees.decision_function(test), hgb.decision_function(test), atol=1e-6
    )
    reg = HistGradientBoostingRegressor(
        loss="quantile", quantile=0.5, max_iter=50, random_state=0
    ).fit(x, df["a"].fillna(0) * 3 + y)
    np.testing.assert_allclose(
        BoostedTrees.from_hgb(reg).predict(test), reg.predict(test), atol=1e-6
    )
    import skops.io as sio

    sio.dump(hgb, tmp_path / "hgb.skops")
    sio.dump(trees, tmp_path / "trees.skops")
    assert (tmp_path / "trees.skops").stat().st_size < 0.3 * (tmp_path / "hgb.skops").stat().st_size


def test_the_version_changes_with_any_fitted_parameter(monkeypatch):
    from datetime import date

    from shu.forecast.models.train import version_of

    monkeypatch.setattr(estimator, "MEMBER_ROWS", 400)
    fit, cal = _frame(1000, 1), _frame(400, 2)
    windows = {"star_velocity_up/30": {"fit_origins": ["a", "b"]}}
    day = date(2026, 2, 28)

    def version(seed: int) -> str:
        fc = fit_forecaster("star_velocity_up", 30, ["a", "b", "c"], fit, cal, seed=seed)
        return version_of(day, "hgb", windows, [fc])

    assert version(0) == version(0)  # a refit that changes nothing keeps its version
    assert version(1) != version(0)  # same windows, other members: a new version
