"""The bounds between the one predictive distribution of the 28-day velocity on t+H and the
questions not read from it (star_gain, star_accel_reach / _fall): derived by hand, true on every
path of a star series by the signals' definitions, read from hand-built distributions, and held
by every forecast issued on a real store."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from shu.forecast.calibration import bounds
from shu.forecast.calibration import distribution as dist
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.models import interval
from shu.forecast.models.artifact import model_path, save_forecasters
from shu.forecast.models.split import TrainingConfig
from shu.forecast.models.train import train_forecasters
from shu.settings import TrackedRepo, load_settings
from shu.signals.star_days import refresh_star_days

LEVELS = interval.DIST_LEVELS


def test_each_rule_by_hand():
    # star_gain at 7 days: gain = 28 V(t+7) - D(21), so P(gain >= 100) = P(V >= (100 + 50) / 28)
    # = P(V > 149 / 28) on V's lattice (whole stars)
    assert bounds.lag_days("star_gain", 7) == 21
    assert bounds.rule("star_gain", 7, 100, 50, None, 999) == bounds.Bound("=", "above", 149 / 28)
    # a threshold between whole stars asks for the next whole star
    assert bounds.gain_velocity(99.5, 50.0) == 149 / 28 and bounds.lag_days("star_gain", 28) == 0
    # at 30 days only a lower bound, the threshold raised by the removal allowance
    assert bounds.lag_days("star_gain", 30) is None
    assert bounds.rule("star_gain", 30, 100, None, None, 12) == bounds.Bound(
        ">=", "above", 112 / 28, 12
    )
    assert bounds.rule("star_gain", 90, 100, None, None, -3) == bounds.Bound(
        ">=", "above", 100 / 28, 0.0
    )
    # reach at 7 days: A(t+7) = V(t+7) - V(t-21), V(t-21) = 2 known
    assert bounds.rule("star_accel_reach", 7, 1.0, None, 2.0, 0) == bounds.Bound(">=", "above", 3.0)
    # reach beyond 28 days: V(t+H-28) is not bounded above, so no bound
    assert bounds.lag_days("star_accel_reach", 30) is None
    assert bounds.rule("star_accel_reach", 30, 1.0, 52, 2.0, 0) is None
    # fall at 7 days: P(fall) >= P(V <= X + V(t-21))
    assert bounds.rule("star_accel_fall", 7, -1.0, None, 2.0, 0) == bounds.Bound(">=", "below", 1.0)
    # fall at 30: 28 V(t+2) >= D(26) - r = 52 - 10
    assert bounds.lag_days("star_accel_fall", 30) == 26
    assert bounds.rule("star_accel_fall", 30, -1.0, 52, None, 10) == bounds.Bound(
        ">=", "below", -1.0 + 42 / 28, 10
    )
    # fall at 90: V(t+62) >= -r / 28
    assert bounds.lag_days("star_accel_fall", 90) is None
    assert bounds.rule("star_accel_fall", 90, -1.0, None, None, 28) == bounds.Bound(
        ">=", "below", -2.0, 28
    )
    # a value the bound needs is missing, or a template without one
    assert bounds.rule("star_gain", 7, 100, None, None, 0) is None
    assert bounds.rule("star_accel_fall", 30, -1.0, float("nan"), None, 0) is None
    assert bounds.rule("star_velocity_up", 7, 1.0, 1, 1, 1) is None


def _series(seed: int, removals: bool) -> np.ndarray:
    """A daily star count: Poisson gains, with removal episodes (drops of up to 8% in a day)."""
    rng = np.random.default_rng(seed)
    gains = rng.poisson(rng.uniform(0.2, 30) * rng.gamma(2.0, 0.5, size=700))
    stars = 500 + np.cumsum(gains).astype(float)
    if removals:
        for day in rng.choice(np.arange(60, 700), size=6, replace=False):
            stars[day:] -= np.floor(stars[day] * rng.uniform(0.005, 0.08))
    return stars


@pytest.mark.parametrize("removals", [False, True])
@pytest.mark.parametrize("horizon", [7, 30, 90])
def test_bounds_hold_on_every_path(signals_for, removals, horizon):
    """Pathwise, from the signals' definitions: wherever V(t+H) satisfies a bound's event, the
    question's own event happens (gain at <= 28 days: exactly when), given the net loss after
    the origin is within the allowance (here: the path's own largest fall below its peak)."""
    checked = 0
    for seed in range(4):
        s = signals_for("o/r", _series(seed, removals))
        stars = s["stars"].to_numpy(float)
        v = s["velocity_28d"].to_numpy()
        a = s["acceleration_28d"].to_numpy()
        for t in range(120, len(s) - horizon, 3):
            h = horizon
            path = stars[t : t + h + 1]
            r = float(np.max(np.maximum.accumulate(path) - path))  # loss the path allows
            lag = bounds.lag_days("star_accel_fall", h)
            d_gain = stars[t] - stars[t - (28 - h)] if h <= 28 else None
            d_fall = stars[t] - stars[t - lag] if lag is not None else None
            v_then = v[t - (28 - h)] if h <= 28 else None
            gain = stars[t + h] - stars[t]
            for n in (10.0, 50.0, 100.0, 500.0, 1000.0):
                b = bounds.rule("star_gain", h, n, d_gain, None, r)
                assert b is not None
                if b.relation == "=":  # the event on V's lattice: V > velocity
                    assert (v[t + h] > b.velocity + 1e-9) == (gain >= n)
                elif v[t + h] >= b.velocity:
                    assert gain >= n
                checked += 1
            accel = a[t + 1 : t + h + 1]
            for x in (-5.0, -1.0, 0.0, 0.5, 2.0):
                b = bounds.rule("star_accel_fall", h, x, d_fall, v_then, r)
                assert b is not None
                if v[t + h] <= b.velocity - 1e-9:
                    assert np.min(accel) <= x
                b = bounds.rule("star_accel_reach", h, x, None, v_then, r)
                assert (b is None) == (h > 28)
                if b is not None and v[t + h] >= b.velocity + 1e-9:
                    assert np.max(accel) >= x
                checked += 1
    assert checked > 500


def _normal(mu: float, sd: float) -> np.ndarray:
    return mu + sd * norm.ppf(LEVELS)


def test_probability_and_enforcement_on_a_hand_built_distribution():
    q = _normal(10.0, 2.0)
    empty = np.array([])
    above = bounds.Bound(">=", "above", 12.0)
    below = bounds.Bound(">=", "below", 12.0)
    p_above = bounds.probability(above, LEVELS, q, empty, empty)
    p_below = bounds.probability(below, LEVELS, q, empty, empty)
    assert abs(p_above - norm.sf(1.0)) <= 0.005 and abs(p_above + p_below - 1) < 1e-12
    # an anchored distribution: the bound reads the anchor exactly
    f = dist.anchor(LEVELS, q[None, :], np.array([[12.0]]), np.array([[0.4]]))
    p = bounds.probability(above, LEVELS, f.quantiles[0], f.anchor_x[0], f.anchor_cdf[0])
    assert abs(p - 0.4) < 1e-9
    # below the lower bound: raised to it; above it: kept; "=": F's own answer
    assert bounds.enforce(above, 0.1, p) == p
    assert bounds.enforce(above, 0.7, p) == 0.7
    assert bounds.enforce(bounds.Bound("=", "above", 12.0), 0.7, p) == p
    assert bounds.enforce(bounds.Bound("=", "above", 99.0), 0.7, 0.0) == dist.C_EDGE
    assert bounds.enforce(above, float("nan"), p) == p


def test_origin_values_read_the_store(store, signals_for):
    stars = np.arange(200, dtype=float) * 3 + 100
    stars[150:] -= 40  # 40 stars removed on day 150
    s = signals_for("o/r", stars)
    store.upsert("star_signals", s)
    refresh_star_days(store)
    origin = s["day"].iloc[180]
    got = bounds.origin_values(store.con, ["o/r", "x/none"], origin, 21).set_index("repo")
    assert got.loc["o/r", "stars_gained"] == stars[180] - stars[159]
    assert got.loc["o/r", "velocity_then"] == pytest.approx((stars[159] - stars[131]) / 28)
    assert got.loc["o/r", "removal_allowance"] == pytest.approx(stars[149] - stars[150])
    assert got.loc["x/none"].isna().all()
    no_lag = bounds.origin_values(store.con, ["o/r"], origin, None).iloc[0]
    assert np.isnan(no_lag["stars_gained"]) and no_lag["removal_allowance"] == pytest.approx(
        stars[149] - stars[150]
    )


BOUNDED = ("star_gain", "star_accel_reach", "star_accel_fall")


@pytest.fixture
def issued_on_store(synthetic_store, synthetic, tmp_path):
    """Forecasts issued with models trained on the synthetic store: the interval, one velocity
    question and the three bounded templates, at 7 and 30 days."""
    store = synthetic_store
    repos = sorted(synthetic["repo"].unique())[:6]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "m"
    )
    result = train_forecasters(
        store,
        templates=(interval.TEMPLATE, "star_velocity_up", *BOUNDED),
        horizons=(7, 30),
        config=TrainingConfig(cal_days=56, train_days=300),
        log=lambda _m: None,
    )
    save_forecasters(model_path(settings), result.forecasters, result.version)
    origin = synthetic["day"].max() - timedelta(days=30)
    return store, issue_forecasts(store, origin=origin, settings=settings)


def _expected_bound(store, f) -> tuple[bounds.Bound | None, float | None]:
    """The bound of issued forecast `f` recomputed from the store with the test's own SQL,
    and P_F of its event from the stored distribution of the same (repo, origin, horizon)."""
    t, h = f.origin, f.horizon_days
    at = store.con.execute(
        "SELECT day, stars, velocity_28d FROM star_signals WHERE repo = ? AND day <= ? "
        "ORDER BY day",
        [f.repo, t],
    ).df()
    stars = dict(zip(at["day"].dt.date, at["stars"], strict=True))
    vel = dict(zip(at["day"].dt.date, at["velocity_28d"], strict=True))
    recent = at[at["day"].dt.date > t - timedelta(days=365)]["stars"].to_numpy(float)
    r = float(np.max(np.maximum.accumulate(recent) - recent))
    b: bounds.Bound | None
    if f.template == "star_gain":
        b = (
            bounds.Bound("=", "above", (f.threshold + stars[t] - stars[t - timedelta(21)] - 1) / 28)
            if h == 7
            else bounds.Bound(">=", "above", (f.threshold + r) / 28, r)
        )
    elif f.template == "star_accel_reach":
        b = bounds.Bound(">=", "above", f.threshold + vel[t - timedelta(21)]) if h == 7 else None
    else:
        b = (
            bounds.Bound(">=", "below", f.threshold + vel[t - timedelta(21)])
            if h == 7
            else bounds.Bound(
                ">=", "below", f.threshold + (stars[t] - stars[t - timedelta(26)] - r) / 28, r
            )
        )
    if b is None:
        return None, None
    d = store.con.execute(
        "SELECT levels, quantiles, anchor_thresholds, anchor_cdf FROM forecast_distributions "
        "WHERE repo = ? AND origin = ? AND horizon_days = ? AND model_version = ?",
        [f.repo, t, h, f.model_version],
    ).fetchone()
    assert d is not None, f"no distribution for {f.repo} {t} {h}"
    return b, bounds.probability(b, *(np.asarray(x or [], dtype=float) for x in d))


def test_every_issued_answer_holds_its_bound(issued_on_store):
    store, issued = issued_on_store
    mine = [f for f in issued if f.template in BOUNDED]
    assert {(f.template, f.horizon_days) for f in mine} == {
        (t, h) for t in BOUNDED for h in (7, 30)
    }
    for f in mine:
        b, p_f = _expected_bound(store, f)
        note = json.loads(f.calibration or "{}").get("bound")
        if b is None:  # reach at 30 days: no bound, nothing recorded or moved
            assert note is None
            continue
        assert p_f is not None and note is not None
        assert note["relation"] == b.relation and note["side"] == b.side
        assert note["velocity"] == pytest.approx(b.velocity, abs=1e-9)
        assert note["p_distribution"] == pytest.approx(p_f, abs=1e-12)
        if b.relation == "=":  # F's answer, inside (C_EDGE, 1 - C_EDGE) as its anchors
            assert f.probability == pytest.approx(np.clip(p_f, 1e-4, 1 - 1e-4), abs=1e-12)
        else:
            assert f.probability >= p_f - 1e-12
            assert f.probability == max(note["model"], p_f)
        assert note["moved"] == (abs(f.probability - note["model"]) > bounds.MOVED)
        stored = store.con.execute(
            "SELECT probability, calibration FROM forecasts WHERE forecast_id = ?",
            [f.forecast_id],
        ).fetchone()
        assert stored[0] == f.probability and json.loads(stored[1])["bound"] == note
        assert "shrink" in json.loads(stored[1])  # the guard's record is kept beside it
        # star_gain at 7 days is read from the distribution it anchors; the rest name none
        assert (f.distribution_id is not None) == (b.relation == "=")
        if b.relation == "=":
            assert f.distribution_id == note["distribution_id"]


def test_gain_at_7_days_is_an_anchor_of_the_distribution(issued_on_store):
    """star_gain at 7 days: the model's answer is an anchor of F at V > (N + D(21) - 1) / 28
    (D(21) recomputed with the test's own SQL), stored as such, and the issued answer is
    P_F there, read from the stored distribution: the model's own answer unless pooling with
    another answer (at the same threshold, or out of order with it) moved it."""
    store, issued = issued_on_store
    gains = [f for f in issued if (f.template, f.horizon_days) == ("star_gain", 7)]
    assert gains
    kept = 0
    for f in gains:
        s0, s21 = (
            store.con.execute(
                "SELECT stars FROM star_signals WHERE repo = ? AND day = ?", [f.repo, day]
            ).fetchone()[0]
            for day in (f.origin, f.origin - timedelta(days=21))
        )
        x = (f.threshold + s0 - s21 - 1) / 28
        d = store.con.execute(
            "SELECT distribution_id, levels, quantiles, anchor_templates, anchor_thresholds, "
            "anchor_probability, anchor_cdf FROM forecast_distributions WHERE repo = ? "
            "AND origin = ? AND horizon_days = 7 AND model_version = ?",
            [f.repo, f.origin, f.model_version],
        ).fetchone()
        assert d is not None and f.distribution_id == d[0]
        templates, thresholds, given, at_cdf = d[3], d[4], d[5], d[6]
        k = templates.index("star_gain")
        assert thresholds[k] == pytest.approx(x, abs=1e-12)
        note = json.loads(f.calibration or "{}")["bound"]
        assert given[k] == pytest.approx(note["model"], abs=1e-12)  # the model's own answer
        read = 1 - dist.cdf(*(np.asarray(v, dtype=float) for v in (d[1], d[2], d[4], d[6])), x)
        assert f.probability == pytest.approx(read, abs=1e-9)
        assert f.probability == pytest.approx(1 - at_cdf[k], abs=1e-9)
        others = [
            c
            for t, xt, c in zip(templates, thresholds, at_cdf, strict=True)
            if t != "star_gain" and xt == pytest.approx(x, abs=1e-12)
        ]
        if not others:  # alone at its threshold: moved only by monotone pooling, if at all
            kept += abs(f.probability - np.clip(note["model"], 1e-4, 1 - 1e-4)) <= 1e-9
    assert kept >= 1  # the gain model's own answer is what shu issues where nothing pools it


def test_an_answer_contradicting_the_distribution_is_moved_to_its_bound(issued_on_store):
    """The model says 'surely not' where F says the acceleration on t+7 alone is likely low
    enough: the held answer is F's bound, and the record says it moved."""
    store, issued = issued_on_store
    falls = [f for f in issued if (f.template, f.horizon_days) == ("star_accel_fall", 7)]
    rows = store.con.execute("SELECT * FROM forecast_distributions WHERE horizon_days = 7").df()
    by_key = {(r["repo"], r["origin"].date()): r.to_dict() for _, r in rows.iterrows()}
    questions = pd.DataFrame(
        {
            "repo": [f.repo for f in falls],
            "origin": [f.origin for f in falls],
            # a level V(t+7) reaches below its median: F gives the fall at least ~1/2
            "threshold": [
                float(np.median(by_key[(f.repo, f.origin)]["quantiles"]))
                - float(
                    store.con.execute(
                        "SELECT velocity_28d FROM star_signals WHERE repo = ? AND day = ?",
                        [f.repo, f.origin - timedelta(days=21)],
                    ).fetchone()[0]
                )
                for f in falls
            ],
        }
    )
    raw = np.full(len(falls), 0.01)
    held, notes = bounds.bound_answers(store.con, "star_accel_fall", 7, questions, raw, by_key)
    assert len(falls) > 0
    for p, note in zip(held, notes, strict=True):
        assert note is not None and note["moved"] and note["model"] == 0.01
        assert p == note["p_distribution"] and 0.45 <= p <= 0.55


def test_the_backtest_scores_answers_held_to_their_bounds(store):
    """`shu backtest` scores what `shu daily` issues: star_gain at 7 days an anchor of F read
    back from it, a fall answer far below its bound raised to it, a lower bound above the
    answer (gain at 30 days, r = 0), an answer above its bound kept; no bound (reach at 30
    days) or no F on the origin: the model's answer, not counted as checked."""
    from support.forecast_data import backtest_bound_case

    from shu.forecast.evaluation.one_distribution import (
        DIST_COLUMNS,
        hold_to_bounds,
        read_from_distribution,
    )
    from shu.forecast.evaluation.slice_scores import bounds_effect

    case = backtest_bound_case(store)
    week = case["walked"](7)
    read_from_distribution(week, store.con)
    hold_to_bounds(store.con, week)
    iv, pred = week[0].pred, {w.template: w.pred for w in week[1:]}
    gain = pred["star_gain"].set_index("repo")
    x = (20 + 63 - 1) / 28  # D(21) = 63 stars: gain >= 20 is V > 82/28
    ax, ac = iv["anchor_x"].iloc[0], iv["anchor_cdf"].iloc[0]
    assert x in list(ax)
    levels, f = interval.DIST_LEVELS, iv[DIST_COLUMNS].to_numpy()[0]
    q = case["walked"](7)[0].pred[DIST_COLUMNS].to_numpy()[0]  # G, the interval model's own
    read = 1 - dist.cdf(levels, f, ax, ac, x)
    assert gain.loc["a/one", "probability"] == pytest.approx(read, abs=1e-9)
    assert gain.loc["a/one", "probability"] == pytest.approx(0.3, abs=1e-9)  # its own answer
    assert gain.loc["a/one", "bounded"] and gain.loc["a/one", "probability_classifier"] == 0.3
    # no F on b/two's origin: its own answer, unchecked
    assert not gain.loc["b/two", "bounded"] and gain.loc["b/two", "probability"] == 0.3
    fall = pred["star_accel_fall"].iloc[0]
    assert fall["bounded"] and fall["probability_classifier"] == 0.01
    # raised to P_F(V <= 3): F passes through the gain answer P(V > 82/28) = 0.3 below it
    assert fall["probability"] == pytest.approx(dist.cdf(levels, f, ax, ac, 3.0), abs=1e-12)
    assert fall["probability"] > 0.7
    reach = pred["star_accel_reach"].iloc[0]
    assert reach["bounded"] and reach["probability"] == reach["probability_classifier"] == 0.9
    assert bounds_effect(pred["star_accel_fall"])["moved"] == 1
    assert bounds_effect(pred["star_gain"]) | {"bss_climatology_classifier": None} == {
        "checked": 1,
        "own_model": 1,
        "moved": 0,
        "bss_climatology_classifier": None,
    }
    # without the gain anchor (no store given) F is the interval model's alone, and the gain
    # answer read from it is its P(V > 82/28), not the model's
    plain = case["walked"](7)
    read_from_distribution(plain, None)
    hold_to_bounds(store.con, plain)
    g = plain[1].pred.set_index("repo").loc["a/one", "probability"]
    assert g == pytest.approx(1 - dist.cdf(levels, q, np.array([]), np.array([]), x), abs=1e-9)
    assert abs(g - 0.3) > 0.1

    month = case["walked"](30)
    read_from_distribution(month, store.con)
    hold_to_bounds(store.con, month)
    pred = {w.template: w.pred for w in month[1:]}
    gain30 = pred["star_gain"].iloc[0]
    p_f = 1 - dist.cdf(levels, q, np.array([]), np.array([]), 100 / 28)
    assert gain30["bounded"] and gain30["probability"] == pytest.approx(p_f, abs=1e-12)
    assert 0.1 < p_f < 0.16 and gain30["probability_classifier"] == 0.05
    reach30 = pred["star_accel_reach"].iloc[0]
    assert not reach30["bounded"] and reach30["probability"] == 0.01


def test_shu_backtest_scores_the_held_answers(synthetic_store):
    """`run_backtest` (what `shu backtest` runs) with the interval, star_gain and a path
    template at 7 days: the slices are scored on the answers held to their bounds, star_gain's
    read from F at its anchor, and `bounds` counts them."""
    from datetime import date

    from shu.forecast.evaluation.backtest import BacktestConfig, run_backtest

    config = BacktestConfig(
        date(2024, 1, 1),
        date(2024, 2, 10),
        (interval.TEMPLATE, "star_gain", "star_accel_fall"),
        (7,),
        n_boot=20,
    )
    results = {
        r.template: r for r in run_backtest(synthetic_store.con, config, log=lambda _m: None)
    }
    iv = results[interval.TEMPLATE].predictions.set_index(["repo", "origin"])
    for template in ("star_gain", "star_accel_fall"):
        pred, m = results[template].predictions, results[template].metrics
        assert m["bounds"]["checked"] + m["bounds"]["own_model"] == m["n"] == len(pred)
        assert m["bounds"]["checked"] > 50
        labels = pred["label"].to_numpy()
        assert m["brier"] == pytest.approx(np.mean((pred["probability"] - labels) ** 2))
    fall = results["star_accel_fall"].predictions
    assert (fall["probability"] >= fall["probability_classifier"] - 1e-12).all()
    assert results["star_accel_fall"].metrics["bounds"]["moved"] > 0
    gain = results["star_gain"].predictions
    d_cols = [c for c in iv.columns if c.startswith("d0")]
    for row in gain[gain["bounded"]].itertuples():
        f = iv.loc[(row.repo, row.origin)]
        ax, ac = np.asarray(f["anchor_x"]), np.asarray(f["anchor_cdf"])
        d21 = synthetic_store.con.execute(
            "SELECT s0.stars - s1.stars FROM star_signals s0 JOIN star_signals s1 "
            "ON s1.repo = s0.repo AND s1.day = s0.day - 21 WHERE s0.repo = ? AND s0.day = ?",
            [row.repo, row.origin],
        ).fetchone()[0]
        x = (row.threshold + d21 - 1) / 28
        assert np.isclose(ax, x, atol=1e-12).any()
        read = 1 - dist.cdf(LEVELS, f[d_cols].to_numpy(dtype=float), ax, ac, x)
        assert row.probability == pytest.approx(read, abs=1e-9)
