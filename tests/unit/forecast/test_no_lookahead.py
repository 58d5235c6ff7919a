"""No feature reads data after its origin: changing the future leaves the features unchanged."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from shu.forecast.features.examples import base_frame, with_thresholds
from shu.forecast.features.star import ALL_SET_FEATURES, BASE_FEATURES
from shu.forecast.questions.registry import template
from shu.signals.star_days import refresh_star_days

ORIGIN = date(2024, 2, 5)


def _context_rows(store, repos, days):
    """category_signals, release_context, commit_signals, releases and the daily forks and open
    issues (`stars_daily`) around the origin."""
    store.upsert(
        "category_signals",
        pd.DataFrame(
            {
                "category": "untracked",
                "day": days,
                "repos": 10,
                "velocity_28d_mean": np.linspace(5, 9, len(days)),
                "acceleration_28d_median": np.linspace(-1, 1, len(days)),
                "accelerating_share": np.linspace(0.2, 0.8, len(days)),
            }
        ),
    )
    rows = [
        {
            "repo": r,
            "day": d,
            "days_since_release": (d - date(2023, 1, 1)).days % 40,
            "releases_365d": 3,
            "median_interval_days": 40.0,
        }
        for r in repos
        for d in days
    ]
    store.upsert("release_context", pd.DataFrame(rows))
    commits = [
        {
            "repo": r,
            "day": d,
            "commit_velocity_28d": 2.0 + i % 5,
            "commit_acceleration_28d": 0.5,
            "rocm_share_28d": 0.1,
            "gap": False,
        }
        for r in repos
        for i, d in enumerate(days)
    ]
    store.upsert("commit_signals", pd.DataFrame(commits))
    daily = [
        {
            "repo": r,
            "day": d,
            "stars": 1000 + i,
            "forks": 100 + 2 * i + k,
            "open_issues": 20 + (i * (k + 1)) % 7,
            "source": "ranking",
        }
        for k, r in enumerate(repos)
        for i, d in enumerate(days)
    ]
    store.upsert("stars_daily", pd.DataFrame(daily))


def _features(store, repos):
    base = base_frame(store.con, [ORIGIN], repos)
    accel = with_thresholds(store.con, base, "star_accel_reach", 30)
    breakout = with_thresholds(store.con, base, "star_breakout", 30)
    thresholds = accel[["repo", "threshold", "gap_rel_sd"]].merge(
        breakout[["repo", "threshold", *template("star_breakout").threshold_features]],
        on="repo",
        suffixes=("", "_breakout"),
    )
    return base.sort_values("repo").reset_index(drop=True), thresholds


def test_changing_the_future_does_not_change_features(synthetic_store, synthetic):
    store = synthetic_store
    repos = sorted(synthetic["repo"].unique())[:5]
    days = [ORIGIN + timedelta(days=k) for k in range(-120, 20)]
    _context_rows(store, repos, days)
    before, thresholds_before = _features(store, repos)
    assert len(before) == 5
    missing = [f for f in BASE_FEATURES + ALL_SET_FEATURES if before[f].isna().all()]
    assert missing == []  # every feature is exercised
    assert thresholds_before.notna().all().all() and len(thresholds_before) == 5

    # rewrite the future of every input table: scale, delete, and add rows after the origin
    after_origin = "day > DATE '2024-02-05'"
    store.con.execute(
        f"UPDATE star_signals SET stars = stars * 3, velocity_7d = -velocity_7d, "
        f"velocity_28d = velocity_28d * 5, velocity_90d = 70, acceleration_28d = 99, "
        f"acceleration_7d = 7, velocity_28d_z = 4 WHERE {after_origin}"
    )
    store.con.execute(f"DELETE FROM star_signals WHERE {after_origin} AND day < DATE '2024-02-10'")
    store.con.execute(f"UPDATE category_signals SET accelerating_share = 1 WHERE {after_origin}")
    store.con.execute(
        f"UPDATE release_context SET days_since_release = 0, releases_365d = 50 "
        f"WHERE {after_origin}"
    )
    store.con.execute(f"UPDATE commit_signals SET commit_velocity_28d = 100 WHERE {after_origin}")
    store.con.execute(
        f"UPDATE stars_daily SET forks = forks * 9, open_issues = 0 WHERE {after_origin}"
    )
    store.con.execute(
        "INSERT INTO releases (repo, tag, published_at) VALUES (?, 'v9', ?)",
        [repos[0], ORIGIN + timedelta(days=1)],
    )
    after, thresholds_after = _features(store, repos)
    assert_frame_equal(before, after)
    assert_frame_equal(thresholds_before, thresholds_after)

    # and the test can fail: changing the origin day itself does change them
    store.con.execute(
        "UPDATE star_signals SET velocity_28d = velocity_28d * 2 WHERE day = DATE '2024-02-05'"
    )
    store.con.execute("UPDATE stars_daily SET forks = forks * 2 WHERE day = DATE '2024-02-05'")
    changed, _ = _features(store, repos)
    assert not changed["slog_velocity_28d"].equals(before["slog_velocity_28d"])
    assert not changed["log_forks_per_star"].equals(before["log_forks_per_star"])


def test_the_backtests_bounds_read_nothing_after_the_origin(store):
    """What the backtest reads from the store to hold answers to their bounds and to anchor
    star_gain at 7 days (D(21), V(t-21), D(26), the removal allowance) is dated on or before
    each origin: rewriting every star_signals row after the origin (a burst, then a removal
    episode) leaves every held answer and F unchanged; rewriting the day t-21 changes them
    (so the comparison can see a change)."""
    from support.forecast_data import backtest_bound_case

    from shu.forecast.evaluation.one_distribution import hold_to_bounds, read_from_distribution

    case = backtest_bound_case(store)
    origin, rows = case["origin"].date(), case["rows"]

    def scored() -> dict[str, np.ndarray]:
        out = {}
        for horizon in (7, 30):
            walked = case["walked"](horizon)
            read_from_distribution(walked, store.con)
            hold_to_bounds(store.con, walked)
            out[f"F/{horizon}"] = walked[0].pred.filter(regex=r"^d\d").to_numpy()
            if horizon == 7:  # star_gain's anchor (beyond 28 days F has none here)
                out["anchors/7"] = np.asarray(walked[0].pred["anchor_x"].iloc[0])
            for w in walked[1:]:
                out[f"{w.template}/{horizon}"] = w.pred["probability"].to_numpy()
        return out

    before = scored()
    assert before["star_accel_fall/7"][0] > 0.5  # a bound held it (the model said 0.01)
    future = rows[rows["day"] > origin].copy()
    burst = np.arange(len(future)) % 220
    future["stars"] = future["stars"] + np.where(burst > 20, 5000 - 40 * burst, 90 * burst)
    future["velocity_28d"] = future["velocity_28d"] * 7 - 50
    store.upsert("star_signals", future)
    refresh_star_days(store)
    after = scored()
    for key, value in before.items():
        np.testing.assert_allclose(after[key], value, rtol=0, atol=1e-12, err_msg=key)
    then = rows[rows["day"] == origin - timedelta(days=21)].copy()
    then["stars"] = then["stars"] - 28
    then["velocity_28d"] = then["velocity_28d"] - 1.0
    store.upsert("star_signals", then)
    refresh_star_days(store)
    moved = scored()
    assert not np.allclose(moved["anchors/7"], before["anchors/7"])
    assert not np.allclose(moved["star_accel_fall/7"], before["star_accel_fall/7"])
