"""The radar's online tail factor: fitted so that the resolved tops said what came true (in both
directions), reading no outcome unknown on the origin, the fitted factor while too few origins
have resolved; in the walk-forward, each origin issued through it; in production, stored in
`forecast_calibration` by `prepare`, applied by `issue_forecasts`, reused by a re-run."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from support.radar_market import DAYS, START, TRACKED, market

from shu.forecast.calibration import state_store
from shu.forecast.evaluation.star_backtest import walk_forward_binary
from shu.forecast.evaluation.walk_forward import BacktestConfig
from shu.forecast.features.examples import base_frame, build_examples, with_thresholds
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.models import tail
from shu.forecast.models.train import train_forecasters
from shu.settings import Settings, TrackedRepo, get_settings
from shu.signals import refresh_signals
from shu.store import open_store

KNEE, FITTED = 0.05, 0.7


def _tops(n_origins: int, seen: float, seed: int = 0) -> pd.DataFrame:
    """Weekly origins' tops of 20 answers between 0.1 and 0.3, of which a share `seen` came
    true (exactly, per origin)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_origins):
        origin = pd.Timestamp("2024-01-03") + pd.Timedelta(weeks=i)
        yes = round(seen * tail.TOP_K)
        for j in range(tail.TOP_K):
            rows.append((f"r{j}", origin, rng.uniform(0.1, 0.3), int(j < yes)))
    frame = pd.DataFrame(rows, columns=["repo", "origin", "probability_untailed", "label"])
    frame["known_on"] = frame["origin"] + pd.Timedelta(days=30)
    return tail.origin_tops(frame)


def _stated(tops: pd.DataFrame, factor: float) -> float:
    p = tops["probability_untailed"].to_numpy()
    return float(tail.shrink_tail(p, (KNEE, factor)).mean())


@pytest.mark.parametrize("seen", [0.1, 0.15, 0.3])
def test_the_factor_makes_the_resolved_tops_say_what_came_true(seen):
    """An overstated top (0.1 came true of ~0.2 said) gets a factor below 1, an understated
    one (0.3) above 1; either way the window's tops then say their observed rate."""
    tops = _tops(40, seen)
    day = pd.Timestamp(tops["origin"].max()) + pd.Timedelta(days=30)
    factor, n = tail.online_factor(tops, day, (KNEE, FITTED))
    assert n == tail.WINDOW_ORIGINS
    window = tops[tops["origin"].isin(np.sort(tops["origin"].unique())[-n:])]
    assert _stated(window, factor) == pytest.approx(window["label"].mean(), abs=1e-9)
    assert (factor > 1) == (seen > 0.2) and (factor < 1) == (seen < 0.2)


def test_no_outcome_unknown_on_the_origin_is_read():
    """Rewriting every outcome that resolves after the origin changes nothing; those before
    do."""
    tops = _tops(40, 0.1)
    day = pd.Timestamp("2024-06-05")
    before = tail.online_factor(tops, day, (KNEE, FITTED))
    later = pd.to_datetime(tops["known_on"]) > day
    poisoned = tops.assign(label=np.where(later, 1, tops["label"]))
    assert tail.online_factor(poisoned, day, (KNEE, FITTED)) == before
    earlier = tops.assign(label=np.where(later, tops["label"], 1))
    assert tail.online_factor(earlier, day, (KNEE, FITTED))[0] > before[0]


def test_too_few_resolved_origins_give_the_fitted_factor_and_a_prior_pulls_towards_it():
    tops = _tops(tail.MIN_ORIGINS + 4, 0.3)
    first = pd.Timestamp(tops["origin"].min()) + pd.Timedelta(days=30)
    early = first + pd.Timedelta(weeks=tail.MIN_ORIGINS - 2)  # MIN_ORIGINS - 1 resolved
    assert tail.online_factor(tops, early, (KNEE, FITTED)) == (FITTED, tail.MIN_ORIGINS - 1)
    late = first + pd.Timedelta(weeks=tail.MIN_ORIGINS + 3)
    free, n = tail.online_factor(tops, late, (KNEE, FITTED))
    pulled, _ = tail.online_factor(tops, late, (KNEE, FITTED), prior=n)
    assert free > 1 and pulled == pytest.approx((free + FITTED) / 2)


def test_the_map_above_one_stays_increasing_and_below_one():
    p = np.linspace(0, 1, 2001)[:-1]
    for factor in (0.2, 1.0, 2.5):
        out = tail.shrink_tail(p, (KNEE, factor))
        assert np.all(np.diff(out) > 0) and np.all(out < 1)
        np.testing.assert_array_equal(out[p <= KNEE], p[p <= KNEE])


@pytest.fixture(scope="module")
def market_store(tmp_path_factory):
    s = open_store(tmp_path_factory.mktemp("online-tail") / "shu.duckdb")
    s.upsert("stars_daily", market(n_repos=60, seed=5).assign(source="test"))
    refresh_signals(s, full=True, settings=get_settings())
    yield s
    s.close()


def _walk(store, labels_after: date | None = None, recalibrate: bool = True) -> pd.DataFrame:
    """The radar's walk forward on daily origins (enough rows above the knee for a tail), the
    outcomes resolved after `labels_after` all rewritten to 'yes' when given."""
    con = store.con
    first = START + timedelta(days=120)
    last = START + timedelta(days=DAYS - 11)
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    examples = build_examples(con, base_frame(con, days), "star_breakout", 30, last)
    if labels_after is not None:
        ex = examples.frame
        ex.loc[ex["known_on"] > pd.Timestamp(labels_after), "label"] = 1
    config = BacktestConfig(
        start=START + timedelta(days=330),
        end=last - timedelta(days=30),
        templates=("star_breakout",),
        cal_days=100,
        train_days=200,
        refit_weeks=4,
        n_boot=10,
        recalibrate=recalibrate,
    )
    regime = pd.DataFrame(columns=["distance", "loss_share_ratio_7d"], dtype=float)
    return walk_forward_binary(con, examples, config, regime, lambda _m: None).pred


@pytest.fixture(scope="module")
def walked(market_store):
    return _walk(market_store)


def test_the_walk_forward_issues_each_origin_through_the_online_factor(market_store, walked):
    pred = walked
    assert {"probability_untailed", "tail_knee", "tail_fitted", "tail_factor"} <= set(pred)
    np.testing.assert_allclose(
        pred["probability_model"],
        tail.shrink_tail_rows(pred["probability_untailed"], pred["tail_knee"], pred["tail_factor"]),
    )
    per = pred.groupby("origin")[["tail_factor", "tail_fitted"]].first()
    first = per.index.min()
    young = per.index < first + pd.Timedelta(days=30 + tail.MIN_ORIGINS - 1)
    assert young.any() and (per.loc[young, "tail_factor"] == per.loc[young, "tail_fitted"]).all()
    assert (per.loc[~young, "tail_factor"] != per.loc[~young, "tail_fitted"]).mean() > 0.5
    plain = _walk(market_store, recalibrate=False)
    assert (plain["tail_factor"] == plain["tail_fitted"]).all()


def test_the_walk_forward_reads_no_outcome_resolved_after_the_origin(market_store, walked):
    """Every outcome resolved after a day rewritten: no factor of an origin up to that day
    moves (neither the refit nor the online factor read it); later ones do."""
    plain = walked
    cut = pd.Timestamp(plain["origin"].min()) + pd.Timedelta(days=60)
    poisoned = _walk(market_store, labels_after=cut.date())
    early = (plain["origin"] <= cut).to_numpy()
    cols = ["tail_factor", "probability_model"]
    pd.testing.assert_frame_equal(plain.loc[early, cols], poisoned.loc[early, cols])
    assert not np.allclose(plain.loc[~early, "tail_factor"], poisoned.loc[~early, "tail_factor"])


@pytest.fixture(scope="module")
def radar_model(market_store):
    """The market's breakout model, with a tail map (the fitted one, else a set one: the test
    is about the online factor, whatever the block gave)."""
    trained = train_forecasters(
        market_store, templates=("star_breakout",), horizons=(30,), log=lambda _line: None
    )
    fc = trained.forecasters[0]
    return (fc if fc.tail is not None else replace(fc, tail=(0.05, 0.7))), trained.version


def _stored(store, origin):
    return store.con.execute(
        "SELECT tail_factor, n_resolved, resolved_through, updated_on FROM forecast_calibration "
        "WHERE template = 'star_breakout' AND origin = ?",
        [origin],
    ).fetchall()


def test_issue_stores_the_factor_applies_it_and_a_rerun_reuses_it(market_store, radar_model):
    fc, version = radar_model
    store = market_store
    origin = START + timedelta(days=DAYS - 11)  # the untracked repositories' last day
    settings = Settings(repos=[TrackedRepo(repo=TRACKED, category="platform")], questions=[])
    with store.transaction():
        store.con.execute("DELETE FROM forecast_calibration")
    issued = issue_forecasts(
        store, origin=origin, settings=settings, forecasters=[fc], model_version=version
    )
    expected = state_store.fit_tail_factor(store, fc, origin)
    [(factor, n, through, updated)] = _stored(store, origin)
    assert factor == pytest.approx(expected.factor) and factor != fc.tail[1]
    assert n == expected.n_resolved == tail.WINDOW_ORIGINS * tail.TOP_K
    assert through == origin and updated == origin
    # each answer is the model's untailed one through that factor (the guard is off here)
    assert {f.origin for f in issued} == {origin} and len(issued) == 60
    rows = with_thresholds(store.con, base_frame(store.con, [origin]), fc.template, 30)
    by_repo = {f.repo: f for f in issued}
    want = tail.shrink_tail(fc.predict(rows, tail=False), (fc.tail[0], factor))
    got = np.array([by_repo[r].probability for r in rows["repo"]])
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert all(json.loads(f.calibration)["tail_factor"] == round(factor, 4) for f in issued)
    # a re-run reuses the stored factor (set here to another value), issues nothing new
    with store.transaction():
        store.con.execute("UPDATE forecast_calibration SET tail_factor = 1.234")
    again = state_store.prepare(store, [fc], origin, version)
    assert again[(fc.template, fc.horizon_days)].tail.factor == 1.234
    assert (
        issue_forecasts(
            store, origin=origin, settings=settings, forecasters=[fc], model_version=version
        )
        == []
    )
    # 3 days on it is not due (the same factor); a week on it is fitted again
    later = state_store.prepare(store, [fc], origin + timedelta(days=3), version)
    assert later[(fc.template, fc.horizon_days)].tail.factor == 1.234
    week = state_store.prepare(store, [fc], origin + timedelta(days=7), version)
    refit = week[(fc.template, fc.horizon_days)].tail
    assert refit.factor != 1.234 and refit.updated_on == origin + timedelta(days=7)
