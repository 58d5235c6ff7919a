"""star_velocity_interval: resolution rule, scores by hand, no look-ahead, issue -> resolve."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from shu.forecast.base_rates import climatology_rate
from shu.forecast.evaluation import interval_scores
from shu.forecast.features import feature_names
from shu.forecast.features.examples import base_frame, build_examples, weekly_grid
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.live.resolve import resolve_forecasts
from shu.forecast.models import interval
from shu.forecast.models.artifact import load_forecasters, model_path, save_forecasters
from shu.forecast.models.split import TrainingConfig, fit_calibration_split
from shu.forecast.models.train import train_forecasters
from shu.forecast.questions.resolution import resolve_questions
from shu.settings import TrackedRepo, load_settings
from shu.signals.star_days import refresh_star_days

T0 = date(2024, 3, 1)


def test_resolution_rule_observed_value_inside_outside_void(store):
    rows = [
        {"repo": r, "day": T0 + timedelta(days=i), "stars": 100 + i, "velocity_28d": v}
        for r, vs in {
            "i/in": [2.0, 9.0, 3.0],
            "i/out": [2.0, 9.0, 7.5],
            "i/edge": [2.0, 9.0, 6.0],
            "i/gone": [2.0, 9.0, None],
        }.items()
        for i, v in enumerate(vs)
    ]
    store.upsert("star_signals", pd.DataFrame(rows))
    refresh_star_days(store)
    q = pd.DataFrame(
        [
            (1, "i/in", T0, 2, 2.0, 1.0, 6.0),
            (2, "i/out", T0, 2, 2.0, 1.0, 6.0),
            (3, "i/edge", T0, 2, 2.0, 1.0, 6.0),
            (4, "i/gone", T0, 2, 2.0, 1.0, 6.0),
            (5, "i/none", T0, 2, 2.0, 1.0, 6.0),
        ],
        columns=["qid", "repo", "origin", "horizon_days", "threshold", "lower_80", "upper_80"],
    )
    store.con.register("_q_df", q)
    store.con.execute(
        "CREATE TEMP TABLE q AS SELECT qid, repo, origin::DATE AS origin, "
        "horizon_days::INTEGER AS horizon_days, threshold, lower_80, upper_80 "
        "FROM _q_df"
    )
    got = resolve_questions(store.con, interval.TEMPLATE, "q").set_index("qid")
    assert (got.loc[1, "outcome"], got.loc[1, "observed_value"]) == ("yes", 3.0)
    assert (got.loc[2, "outcome"], got.loc[2, "observed_value"]) == ("no", 7.5)
    assert got.loc[3, "outcome"] == "yes"  # the interval is closed
    assert got.loc[4, "outcome"] == "void"
    assert got.loc[5, "outcome"] == "void"
    assert "outside the 80% interval [1.0, 6.0]" in got.loc[2, "detail"]


def test_crps_and_coverage_by_hand():
    q = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    # y = 3 (the median): pinball = sum over tau<0.5 of tau*(3-q) + over tau>0.5 of (1-tau)*(q-3)
    expected = 2.0 / 7.0 * (0.025 * 3 + 0.1 * 2 + 0.25 * 1 + 0 + 0.25 * 1 + 0.1 * 2 + 0.025 * 3)
    assert interval_scores.crps_from_quantiles(np.array([3.0]), q)[0] == pytest.approx(expected)
    qs = np.repeat(q, 4, axis=0)
    cov = interval_scores.coverage(np.array([3.0, 1.5, 0.5, 7.0]), qs)
    assert cov == {"0.5": 0.25, "0.8": 0.5, "0.95": 0.75}
    m = interval_scores.interval_metrics(np.array([3.0, 1.5, 0.5, 7.0]), qs, qs + 1.0)
    assert set(m) >= {"n", "coverage", "crps", "crps_persistence", "crps_skill_persistence"}
    assert m["crps_skill_persistence"] == pytest.approx(1 - m["crps"] / m["crps_persistence"])


def test_persistence_quantiles_read_only_changes_known_before_the_origin(store):
    origin = pd.Timestamp("2024-06-01")
    hist = pd.DataFrame(
        {
            "repo": "p/one",
            "known_on": [origin - pd.Timedelta(days=7 * k) for k in range(10)]
            + [origin + pd.Timedelta(days=7)],
            "velocity_28d": 10.0,
            "observed_value": [10.0 + k for k in range(10)] + [1000.0],
        }
    )
    hist["origin"] = hist["known_on"] - pd.Timedelta(days=30)
    pred = pd.DataFrame({"repo": ["p/one"], "origin": [origin], "velocity_28d": [20.0]})
    got = interval_scores.persistence_quantiles(store.con, hist, pred)[0]
    expected = 20.0 + np.quantile(np.arange(10.0), interval.QUANTILES)
    assert got == pytest.approx(expected)  # the change known after the origin (990) is unseen


def _trained(synthetic_store, synthetic):
    last = synthetic["day"].max()
    config = TrainingConfig(cal_days=56, train_days=400)
    grid = weekly_grid(last, synthetic["day"].min() + timedelta(days=56), last)
    base = base_frame(synthetic_store.con, grid)
    ex = build_examples(synthetic_store.con, base, interval.TEMPLATE, 7, last).frame
    return ex, config, pd.Timestamp(last)


def test_conformal_step_never_reads_past_the_refit_day(synthetic_store, synthetic):
    ex, config, last = _trained(synthetic_store, synthetic)
    day = last - pd.Timedelta(days=60)
    fit, cal = fit_calibration_split(ex, day, 7, config, np.random.default_rng(0))
    assert fit["known_on"].max() <= cal["origin"].min()
    assert cal["known_on"].max() <= day
    fc = interval.fit_interval(7, feature_names(interval.TEMPLATE), fit, cal)
    # rewrite every outcome not yet known on `day`: the fitted model must not change
    changed = ex.copy()
    future = changed["known_on"] > day
    changed.loc[future, "observed_value"] = changed.loc[future, "observed_value"] * 10 + 50
    fit2, cal2 = fit_calibration_split(changed, day, 7, config, np.random.default_rng(0))
    fc2 = interval.fit_interval(7, feature_names(interval.TEMPLATE), fit2, cal2)
    test = ex[ex["origin"] > day]
    np.testing.assert_array_equal(fc.offsets, fc2.offsets)
    np.testing.assert_array_equal(fc.quantiles(test), fc2.quantiles(test))
    q = fc.quantiles(cal)
    assert np.all(np.diff(q, axis=1) >= 0)  # quantiles are ordered
    covered = interval_scores.coverage(cal["observed_value"].to_numpy(), q)
    assert covered["0.8"] == pytest.approx(0.8, abs=0.03)  # conformal on its own block


def test_issue_store_resolve_interval_forecasts(synthetic_store, synthetic, tmp_path):
    store = synthetic_store
    last = synthetic["day"].max()
    repos = sorted(synthetic["repo"].unique())[:4]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "models"
    )
    config = TrainingConfig(cal_days=56, train_days=400)
    result = train_forecasters(
        store, templates=(interval.TEMPLATE,), horizons=(7,), config=config, log=lambda _m: None
    )
    save_forecasters(model_path(settings), result.forecasters, result.version)
    version, loaded = load_forecasters(model_path(settings))
    assert version == result.version
    assert isinstance(loaded[0], interval.IntervalForecaster)
    np.testing.assert_array_equal(loaded[0].offsets, result.forecasters[0].offsets)

    origin = last - timedelta(days=7)
    issued = issue_forecasts(store, origin=origin, settings=settings)
    assert len(issued) == len(repos)
    assert all(f.probability == 0.8 and f.template == interval.TEMPLATE for f in issued)
    bounds = store.con.execute(
        "SELECT forecast_id, lower_95, lower_80, lower_50, median, upper_50, upper_80, upper_95 "
        "FROM forecast_intervals ORDER BY forecast_id"
    ).fetchall()
    assert len(bounds) == len(repos)
    assert all(list(b[1:]) == sorted(b[1:]) for b in bounds)
    assert issue_forecasts(store, origin=origin, settings=settings) == []

    counts = resolve_forecasts(store, as_of=last)
    assert counts["yes"] + counts["no"] == len(repos)
    got = store.con.execute("""
        SELECT i.*, r.observed_value AS obs, r.held_50, r.held_80, r.held_95, o.outcome
        FROM forecast_intervals i JOIN interval_resolutions r USING (forecast_id)
        JOIN forecast_resolutions o USING (forecast_id)""").df()
    assert len(got) == len(repos)
    s = synthetic.set_index(["repo", "day"])["velocity_28d"]
    for _, row in got.iterrows():
        repo = store.con.execute(
            "SELECT repo FROM forecasts WHERE forecast_id = ?", [row["forecast_id"]]
        ).fetchall()[0][0]
        observed = s[(repo, last)]
        assert row["obs"] == pytest.approx(observed)
        for level in ("50", "80", "95"):
            inside = row[f"lower_{level}"] <= observed <= row[f"upper_{level}"]
            assert bool(row[f"held_{level}"]) == inside
        assert row["outcome"] == ("yes" if row["held_80"] else "no")
    resolve_forecasts(store, as_of=last)  # a re-run writes nothing twice
    assert store.con.execute("SELECT count(*) FROM interval_resolutions").fetchall()[0][0] == len(
        repos
    )


def test_cli_backtest_interval_json_keys(synthetic_store, tmp_path):
    db = synthetic_store.path
    synthetic_store.close()
    env = {**os.environ, "COLUMNS": "200", "SHU_DB": str(db)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "shu",
            "backtest",
            "--from",
            "2024-01-01",
            "--to",
            "2024-02-10",
            "--horizon",
            "7",
            "--template",
            interval.TEMPLATE,
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)["slices"][f"{interval.TEMPLATE}/7"]
    assert s["n"] > 100 and set(s["coverage"]) == {"0.5", "0.8", "0.95"}
    bands = s["coverage_by_velocity"]
    assert set(bands) <= set(interval.VELOCITY_BANDS)
    assert sum(b["n"] for b in bands.values()) == s["n"]
    assert sum(b["n"] * b["coverage"]["0.8"] for b in bands.values()) == pytest.approx(
        s["n"] * s["coverage"]["0.8"]
    )
    assert 0 <= s["coverage"]["0.5"] <= s["coverage"]["0.8"] <= s["coverage"]["0.95"] <= 1
    assert s["crps"] > 0 and s["crps_persistence"] > 0
    assert s["crps_skill_persistence"] == pytest.approx(1 - s["crps"] / s["crps_persistence"])
    # CRPS skill per velocity band, with its block-bootstrap interval
    assert set(s["by_velocity"]) == set(bands)
    for name, row in s["by_velocity"].items():
        skill = row["crps_skill_persistence"]
        assert row["n"] == bands[name]["n"] and skill["low"] <= skill["value"] <= skill["high"]
    table = subprocess.run(
        [
            sys.executable,
            "-m",
            "shu",
            "backtest",
            "--from",
            "2024-01-01",
            "--to",
            "2024-02-10",
            "--horizon",
            "7",
            "--template",
            interval.TEMPLATE,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert table.returncode == 0, table.stderr
    assert "CRPS skill" in table.stdout
    first = next(iter(s["by_velocity"]))  # the skill-by-band table, its first band's column
    assert f"{first} stars/day [95%] (n)" in table.stdout


def test_declared_questions_are_issued_with_their_threshold(synthetic_store, synthetic, tmp_path):
    from shu.errors import ConfigError
    from shu.settings import DeclaredQuestion

    store = synthetic_store
    last = synthetic["day"].max()
    repos = sorted(synthetic["repo"].unique())[:2]
    declared = [
        DeclaredQuestion(repo=repos[0], template="star_accel_reach", threshold=1.5, horizon=7),
    ]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos],
        models_dir=tmp_path / "models",
        questions=declared,
    )
    config = TrainingConfig(cal_days=56, train_days=400)
    result = train_forecasters(
        store, templates=("star_accel_reach",), horizons=(7,), config=config, log=lambda _m: None
    )
    save_forecasters(model_path(settings), result.forecasters, result.version)
    issued = issue_forecasts(store, origin=last - timedelta(days=7), settings=settings)
    mine = [f for f in issued if f.threshold == 1.5 and f.repo == repos[0]]
    assert len(mine) == 1 and ">= +1.50 stars/day" in mine[0].question
    assert len(issued) == len(repos) + 1
    # each is stored with the climatology of its threshold bucket that its model recorded,
    # which survives saving and loading the model
    _, loaded = load_forecasters(model_path(settings))
    counts = loaded[0].climatology
    assert counts == result.forecasters[0].climatology and counts["all"][1] > 0
    rates = {climatology_rate(counts, int(b)) for b in counts if b != "all"}
    stored = store.con.execute("SELECT base_rate, base_rate_n FROM forecasts").fetchall()
    assert len(stored) == len(issued) and all((r, n) in rates for r, n in stored)
    # a declared question the settings allow but no trained model asks (only 7 days trained
    # here) is refused in one line, never dropped in silence
    untrained = DeclaredQuestion(
        repo=repos[1], template="star_accel_reach", threshold=-0.25, horizon=30
    )
    bad = settings.model_copy(update={"questions": [*declared, untrained]})
    with pytest.raises(
        ConfigError,
        match=rf"^questions\[1\]: {repos[1]}: no trained model asks star_accel_reach at 30 days",
    ):
        issue_forecasts(store, origin=last, settings=bad)
    # one the settings refuse (settings built in code skip validation: the issue checks again)
    interval = DeclaredQuestion.model_construct(
        repo=repos[0], template="star_velocity_interval", threshold=1.0, horizon=7
    )
    bad = settings.model_copy(update={"questions": [interval]})
    with pytest.raises(ConfigError, match=r"questions\[0\].*'star_velocity_interval' is not a"):
        issue_forecasts(store, origin=last, settings=bad)


def test_questions_read_from_shu_toml(tmp_path, monkeypatch):
    path = tmp_path / "shu.toml"
    path.write_text(
        '[[questions]]\nrepo = "pytorch/pytorch"\ntemplate = "star_accel_reach"\n'
        "threshold = 1.5\nhorizon = 30\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("SHU_CONFIG", str(path))
    q = load_settings().questions
    assert [(x.repo, x.template, x.threshold, x.horizon) for x in q] == [
        ("pytorch/pytorch", "star_accel_reach", 1.5, 30)
    ]


def _banded(n: int, seed: int) -> pd.DataFrame:
    """Changes whose spread (relative to the scale) no feature reveals but today's velocity
    band does: three times wider from 20 stars/day up."""
    rng = np.random.default_rng(seed)
    velocity = rng.choice([0.5, 3.0, 10.0, 40.0], size=n)
    wide = np.where(velocity >= 20, 3.0, 1.0)
    observed = velocity + interval.scale_of(velocity) * 0.2 * wide * rng.normal(size=n)
    return pd.DataFrame(
        {
            "repo": [f"o/r{seed}-{i}" for i in range(n)],
            "origin": pd.Timestamp("2025-01-01"),
            "noise": rng.normal(size=n),
            "velocity_28d": velocity,
            "observed_value": observed,
        }
    )


def _slow(n: int, seed: int) -> pd.DataFrame:
    """Slow repositories: Poisson star counts over 28 days, so both velocities sit on the 1/28
    lattice and often repeat; the feature `rate` reveals each one's true pace."""
    rng = np.random.default_rng(seed)
    rate = rng.uniform(0.02, 0.25, n)  # stars/day
    return pd.DataFrame(
        {
            "repo": [f"o/slow{seed}-{i}" for i in range(n)],
            "origin": pd.Timestamp("2025-01-01") + pd.Timedelta(days=seed),
            "rate": rate,
            "velocity_28d": rng.poisson(28 * rate) / 28,
            "observed_value": rng.poisson(28 * rate) / 28,
        }
    )


def test_a_lattice_velocity_gets_a_uniform_pit():
    """Fitted and calibrated on the velocity spread over its 1/28 lattice cell, the
    distribution's PIT (the randomised PIT the online levels read) is uniform on slow
    repositories whose velocity repeats: fitted on the velocity as it is, whole deciles come
    out nearly empty (0.2%) and others double (19.6%), as the atoms fall on a few levels."""
    fc = interval.fit_interval(30, ["rate"], _slow(6000, 1), _slow(6000, 2))
    test = _slow(8000, 3)
    deciles = np.histogram(fc.pit(test), bins=10, range=(0.0, 1.0))[0] / len(test)
    assert np.all((deciles >= 0.08) & (deciles <= 0.12)), deciles
    # at a lattice value the distribution reads P(V <= k/28), its atom included
    v0 = test["velocity_28d"].to_numpy()
    g = fc.quantiles(test, nominal=interval.DIST_LEVELS)
    read = np.array([np.interp(v, gi, interval.DIST_LEVELS) for v, gi in zip(v0, g, strict=True)])
    share = float((test["observed_value"].to_numpy() <= v0 + 1e-9).mean())
    assert abs(read.mean() - share) <= 0.04, (read.mean(), share)


def test_each_velocity_band_is_conformalised_apart():
    fc = interval.fit_interval(30, ["noise"], _banded(4000, 1), _banded(4000, 2))
    assert fc.offsets.shape == (len(interval.VELOCITY_EDGES) + 1, len(interval.QUANTILES))
    test = _banded(8000, 3)
    q = fc.quantiles(test)
    inside = (test["observed_value"] >= q[:, 1]) & (test["observed_value"] <= q[:, 5])
    by_band = inside.groupby(interval.velocity_band(test["velocity_28d"])).mean()
    assert by_band.between(0.76, 0.84).all(), by_band  # pooled offsets: ~0.95 vs ~0.45
    # a band with too few calibration rows falls back on the pooled offsets
    few = _banded(4000, 4)
    few = few[(few["velocity_28d"] < 20) | (np.arange(len(few)) % 40 == 0)]
    sparse = interval.fit_interval(30, ["noise"], _banded(4000, 1), few)
    pooled = np.quantile(
        (interval.continuous_change(few) - sparse._parts(few)[0]) / sparse._parts(few)[1],
        interval.QUANTILES,
    )
    np.testing.assert_allclose(sparse.offsets[3], pooled)
