"""One predictive distribution per (repository, origin, horizon): bent through the yes/no answers,
monotone, coherent with every answer read from it, stored, and what a card shows."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
from scipy.stats import norm
from support.forecast_data import N_DAYS, signals_from_stars

from shu.forecast.calibration import distribution as dist
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.models import interval
from shu.forecast.models.artifact import model_path, save_forecasters
from shu.forecast.models.split import TrainingConfig
from shu.forecast.models.train import train_forecasters
from shu.settings import TrackedRepo, load_settings
from shu.signals.star_days import refresh_star_days

LEVELS = interval.DIST_LEVELS


def _normal_quantiles(mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    return mu[:, None] + sd[:, None] * norm.ppf(LEVELS)[None, :]


def test_pool_adjacent_violators_by_hand():
    np.testing.assert_allclose(
        dist.pool_adjacent_violators([0.1, 0.5, 0.3, 0.7]), [0.1, 0.4, 0.4, 0.7]
    )
    np.testing.assert_allclose(
        dist.pool_adjacent_violators([0.6, 0.2, 0.1], [1, 1, 2]), [0.25, 0.25, 0.25]
    )
    x, c = dist.monotone_anchors(np.array([3.0, 1.0, 1.0, np.nan]), np.array([0.9, 0.2, 0.4, 0.5]))
    # P(V > 1) answered 0.2 and 0.4 -> pooled 0.3 (c = 0.7, two answers); P(V > 3) = 0.9
    # (c = 0.1) violates it: every answer weighs the same, (2 x 0.7 + 0.1) / 3 = 0.5
    np.testing.assert_allclose(x, [1.0, 3.0])
    np.testing.assert_allclose(c, [0.5, 0.5])


def test_anchored_distribution_is_monotone_and_passes_through_every_answer():
    rng = np.random.default_rng(0)
    n = 400
    mu, sd = rng.normal(10, 3, n), rng.uniform(0.5, 4, n)
    g = _normal_quantiles(mu, sd)
    x = np.stack([mu + rng.normal(0, 1, n), mu + 1.0, mu + 4 * sd], axis=1)
    p = np.stack([rng.uniform(0, 1, n), rng.uniform(0, 1, n), rng.uniform(0, 0.01, n)], axis=1)
    x[::7, 1] = np.nan  # some forecasts have fewer answers
    f = dist.anchor(LEVELS, g, x, p)
    assert np.all(np.diff(f.quantiles, axis=1) >= -1e-12)
    for i in range(n):
        ax, ac = dist.monotone_anchors(x[i], p[i])
        assert np.all(np.diff(ac) >= 0)
        for xk, ck in zip(ax, ac, strict=True):
            read = 1 - dist.cdf(LEVELS, f.quantiles[i], f.anchor_x[i], f.anchor_cdf[i], xk)
            assert abs(read - (1 - ck)) <= 1e-6  # the answer, read back from the distribution
        xs, cs = dist.knots(LEVELS, f.quantiles[i], f.anchor_x[i], f.anchor_cdf[i])
        assert np.all(np.diff(xs) >= 0) and np.all(np.diff(cs) >= 0)
        # the quantile function inverts the CDF
        a = np.array([0.05, 0.3, 0.5, 0.9])
        q = dist.quantile(LEVELS, f.quantiles[i], f.anchor_x[i], f.anchor_cdf[i], a)
        back = [dist.cdf(LEVELS, f.quantiles[i], f.anchor_x[i], f.anchor_cdf[i], v) for v in q]
        np.testing.assert_allclose(back, a, atol=1e-6)


def test_answers_that_agree_with_the_distribution_leave_it_as_it_was():
    mu, sd = np.array([5.0, 20.0]), np.array([1.0, 3.0])
    g = _normal_quantiles(mu, sd)
    x = np.stack([mu - 0.5, mu + 2 * sd], axis=1)
    p = 1 - norm.cdf((x - mu[:, None]) / sd[:, None])  # exactly G's own answers
    f = dist.anchor(LEVELS, g, x, p)
    np.testing.assert_allclose(f.quantiles, g, atol=0.02 * sd.max())
    none = dist.anchor(LEVELS, g, np.full((2, 1), np.nan), np.full((2, 1), np.nan))
    np.testing.assert_array_equal(none.quantiles, g)  # no answers: G itself


def test_other_thresholds_are_read_within_the_level_spacing():
    """Between the stored points the CDF is linear: any threshold reads F within the spacing
    of the stored levels (<= 0.01) of the exact h o G."""
    mu, sd = np.array([10.0]), np.array([2.0])
    g = _normal_quantiles(mu, sd)
    x, p = np.array([[9.0, 13.0]]), np.array([[0.8, 0.02]])
    f = dist.anchor(LEVELS, g, x, p)
    u = norm.cdf((x[0] - 10.0) / 2.0)
    hu, hc = np.r_[0, u, 1], np.r_[0, 1 - p[0], 1]
    for v in np.linspace(5, 16, 45):
        exact = np.interp(norm.cdf((v - 10.0) / 2.0), hu, hc)
        read = dist.cdf(LEVELS, f.quantiles[0], f.anchor_x[0], f.anchor_cdf[0], v)
        assert abs(read - exact) <= 0.01


def _bent(mu: float, sd: float, x: np.ndarray, p: np.ndarray) -> np.ndarray:
    """h o G's quantiles, unpublished: G = N(mu, sd) bent through answers P(V > x) = p."""
    u = norm.cdf((x - mu) / sd)
    hc, hu = np.r_[0, 1 - p, 1], np.r_[0, u, 1]
    return mu + sd * norm.ppf(np.interp(LEVELS, hc, hu))


def test_seven_published_quantiles_read_every_answer():
    """Where the bend at an answer makes the seven quantiles, read linearly, miss it by more
    than an outside reader's 0.05, they are moved until they read it; F still passes through
    every answer exactly and stays monotone."""
    cases = [
        (10.0, 2.0, np.array([10.0]), np.array([0.15])),  # a strong bend at one answer
        (10.0, 2.0, np.array([9.0, 10.0, 18.0]), np.array([0.5, 0.12, 0.001])),
        # a slow repository: above 2/28 and above 0.1 are one question on the 1/28 lattice
        (0.1, 0.1, np.array([2 / 28, 0.1]), np.array([0.4, 0.4])),
    ]
    for mu, sd, x, p in cases:
        ax, ac = dist.monotone_anchors(x, p)
        assert dist.seven_miss(LEVELS, _bent(mu, sd, x, p), ax, ac) > 0.05  # it needs moving
        g = _normal_quantiles(np.array([mu]), np.array([sd]))
        f = dist.anchor(LEVELS, g, x[None, :], p[None, :])
        q = f.quantiles[0]
        assert np.all(np.diff(q) >= 0)
        assert dist.seven_miss(LEVELS, q, ax, ac) <= dist.SEVEN_ROOM
        for xk, ck in zip(ax, ac, strict=True):
            assert abs(dist.cdf(LEVELS, q, f.anchor_x[0], f.anchor_cdf[0], xk) - ck) <= 1e-6


def test_issued_questions_and_interval_read_one_stored_distribution(
    synthetic_store, synthetic, tmp_path
):
    """Coherence (|p - P_F(> x)| <= 0.02 for every stored answer, monotone quantiles), and a
    card's answer and its interval come from the same forecast."""
    from shu.briefing.card.interval import interval_for, interval_lead
    from shu.receipts import ReceiptBook

    store = synthetic_store
    last = synthetic["day"].max()
    repos = sorted(synthetic["repo"].unique())[:5]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "models"
    )
    result = train_forecasters(
        store,
        templates=(interval.TEMPLATE, "star_velocity_up", "star_velocity_level"),
        horizons=(7,),
        config=TrainingConfig(cal_days=56, train_days=400),
        log=lambda _m: None,
    )
    save_forecasters(model_path(settings), result.forecasters, result.version)
    origin = last - timedelta(days=7)
    issued = issue_forecasts(store, origin=origin, settings=settings)
    assert issued and all(f.distribution_id for f in issued)
    dists = (
        store.con.execute("SELECT * FROM forecast_distributions").df().set_index("distribution_id")
    )
    assert len(dists) == len(repos)
    for f in issued:
        d = dists.loc[f.distribution_id]
        assert d["repo"] == f.repo and d["horizon_days"] == f.horizon_days
        q = np.asarray(d["quantiles"])
        assert np.all(np.diff(q) >= 0)
        read = 1 - dist.cdf(
            np.asarray(d["levels"]),
            q,
            np.asarray(d["anchor_thresholds"]),
            np.asarray(d["anchor_cdf"]),
            f.threshold,
        )
        if f.template == interval.TEMPLATE:
            bounds = store.con.execute(
                "SELECT lower_95, lower_80, lower_50, median, upper_50, upper_80, upper_95 "
                "FROM forecast_intervals WHERE forecast_id = ?",
                [f.forecast_id],
            ).fetchone()
            at = np.searchsorted(np.asarray(d["levels"]), interval.QUANTILES)
            np.testing.assert_allclose(bounds, q[at])
        else:
            assert abs(f.probability - read) <= 0.02
            assert f.template in list(d["anchor_templates"])
    # the card: its answer and the interval it leads with are one forecast's
    for f in (f for f in issued if f.template == "star_velocity_up"):
        row = store.con.execute(
            "SELECT * FROM forecasts WHERE forecast_id = ?", [f.forecast_id]
        ).df()
        card = row.iloc[0].to_dict()
        iv = interval_for(store, card)
        assert iv is not None
        iv_dist = store.con.execute(
            "SELECT distribution_id FROM forecasts WHERE forecast_id = ?", [iv["forecast_id"]]
        ).fetchone()[0]
        assert iv_dist == card["distribution_id"]
        lead = interval_lead(store, ReceiptBook(), card)
        assert f"{iv['median']:.1f}" in str(lead[0])
    again = issue_forecasts(store, origin=origin, settings=settings)
    assert again == []
    assert store.con.execute("SELECT count(*) FROM forecast_distributions").fetchone()[0] == len(
        repos
    )
    calibration = json.loads(issued[0].calibration or "{}")
    assert calibration  # the guard's and the online levels' state went with them


def test_the_radar_reads_distributions_without_a_tracked_repository(
    synthetic_store, synthetic, tmp_path
):
    """The radar asks every repository; with the interval model beside it its answers are read
    from one stored distribution per repository, even where no repository is tracked (so no
    interval forecast is issued)."""
    store = synthetic_store
    rng = np.random.default_rng(3)
    for r in range(8):  # repositories whose pace jumps sixfold for 35 days every 150: breakouts
        rate = np.full(N_DAYS, rng.uniform(6, 15))
        for start in range(20 * r, N_DAYS, 150):
            rate[start : start + 35] *= 6
        stars = np.floor(1000 + np.cumsum(rng.poisson(rate)))
        store.upsert("star_signals", signals_from_stars(f"burst{r}/repo", stars))
        refresh_star_days(store)
    settings = load_settings(repos=[], models_dir=tmp_path / "models")
    result = train_forecasters(
        store,
        templates=(interval.TEMPLATE, "star_breakout"),
        horizons=(30,),
        config=TrainingConfig(cal_days=56, train_days=400),
        log=lambda _m: None,
    )
    origin = synthetic["day"].max() - timedelta(days=30)
    issued = issue_forecasts(
        store,
        origin=origin,
        settings=settings,
        forecasters=result.forecasters,
        model_version=result.version,
    )
    assert issued and {f.template for f in issued} == {"star_breakout"}
    dists = (
        store.con.execute("SELECT * FROM forecast_distributions").df().set_index("distribution_id")
    )
    assert len(dists) == len(issued)
    for f in issued:
        d = dists.loc[f.distribution_id]
        assert d["repo"] == f.repo
        read = 1 - dist.cdf(
            np.asarray(d["levels"]),
            np.asarray(d["quantiles"]),
            np.asarray(d["anchor_thresholds"]),
            np.asarray(d["anchor_cdf"]),
            f.threshold,
        )
        assert abs(f.probability - read) <= 0.02
