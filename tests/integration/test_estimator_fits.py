"""The boosting estimator fitted at its real settings: bagged members on their own rows, rare
events keeping every 'yes', and the members' trees kept as arrays that predict as the fitted
estimator does. Each test fits several boosting models (10-15 CPU-seconds), so they run with the
integration tests rather than the unit tests (tests/unit/forecast/test_model.py keeps the quick
ones)."""

from __future__ import annotations

import numpy as np
from support.forecast_data import labelled_frame

from shu.forecast.models import estimator
from shu.forecast.models.estimator import LogitVote
from shu.forecast.questions.registry import template


def test_members_each_fit_their_own_rows_and_their_log_odds_are_averaged():
    df = labelled_frame(1000, 0)
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


def test_members_predict_as_the_fitted_boosting_does_and_ship_small(tmp_path):
    """The trees kept as arrays give the estimator's own raw predictions (missing values
    included) and save at a fraction of its size."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from shu.forecast.models.trees import BoostedTrees

    df = labelled_frame(3000, 3)
    x, y = df[["a", "b", "c"]].to_numpy().copy(), df["label"].to_numpy()
    x[::7, 0] = np.nan
    hgb = estimator._tree(0).fit(x, y)
    trees = BoostedTrees.from_hgb(hgb)
    test = labelled_frame(2000, 4)[["a", "b", "c"]].to_numpy().copy()
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
