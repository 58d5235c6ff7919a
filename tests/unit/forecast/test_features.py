"""The daily-gain features by hand (a steady repository with one burst day inside its window),
and the forks and open-issue features from `stars_daily`, with a repository whose history holds
no such counts and one whose history starts today."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from shu.forecast.features import feature_names
from shu.forecast.features.examples import base_frame
from shu.forecast.features.star import FEATURE_SETS, USUAL_LOSS_SHARE
from shu.forecast.questions.registry import TEMPLATES
from shu.signals.star_days import refresh_star_days

FIRST_DAY = date(2023, 1, 1)


def test_burst_day_share_median_gain_and_three_day_velocity(store, signals_for):
    gains = np.full(200, 10.0)
    burst = 190  # day index of a 290-star day, 9 days before the origin (day 199)
    gains[burst] = 290.0
    gains[-3:] = [4.0, 4.0, 4.0]  # a slow last three days
    stars = 1000 + np.cumsum(gains)
    frame = signals_for("steady/burst", stars, FIRST_DAY)
    gap_day = FIRST_DAY + timedelta(days=185)  # a missing day: its gain is spread, not lost
    frame = frame[frame["day"] != gap_day]
    store.upsert("star_signals", frame)
    refresh_star_days(store)
    origin = FIRST_DAY + timedelta(days=199)
    row = base_frame(store.con, [origin], ["steady/burst"]).iloc[0]
    window = gains[172:200]  # the 28 daily gains up to the origin
    velocity = window.sum() / 28
    assert row["velocity_28d"] == pytest.approx(velocity)
    assert row["max_day_share_28d"] == pytest.approx(290.0 / window.sum())
    assert row["rel_median_gain_28d"] == pytest.approx(10.0 / velocity)
    assert row["rel_velocity_3d"] == pytest.approx(4.0 / velocity)
    # the pace without the busiest days: one row per observed day (27: the gap day's row is
    # missing, its gain spread over the next row), the 290-star day and two 10-star days left out
    rows = np.delete(window, 185 - 172)  # day 186's row carries the mean of days 185-186: 10
    assert len(rows) == 27
    assert row["rel_trim3_velocity_28d"] == pytest.approx((rows.sum() - 310) / 24 / velocity)
    assert row["rel_trim1_velocity_28d"] == pytest.approx((rows.sum() - 290) / 26 / velocity)
    assert row["rel_q75_gain_28d"] == pytest.approx(10.0 / velocity)


def _daily(repo: str, days: list[date], forks: list[int], issues: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "repo": repo,
            "day": days,
            "stars": 0,
            "forks": forks,
            "open_issues": issues,
            "source": "ranking",
        }
    )


def test_forks_and_open_issues_by_hand(store, signals_for):
    origin = FIRST_DAY + timedelta(days=99)
    stars = 1000 + 20.0 * np.arange(100)  # 20 stars a day
    for repo in ("has/history", "no/counts", "new/today"):
        store.upsert("star_signals", signals_for(repo, stars, FIRST_DAY))
        refresh_star_days(store)
    days = [origin - timedelta(days=k) for k in (28, 7, 0)]
    store.upsert("stars_daily", _daily("has/history", days, [300, 356, 370], [40, 52, 45]))
    store.upsert("stars_daily", _daily("new/today", [origin], [50], [9]))
    rows = base_frame(store.con, [origin]).set_index("repo")
    full, velocity, n = rows.loc["has/history"], 20.0, stars[-1]
    assert full["velocity_28d"] == pytest.approx(velocity)
    assert full["log_forks_per_star"] == pytest.approx(np.log(371 / (1 + n)))
    assert full["rel_fork_velocity_28d"] == pytest.approx((370 - 300) / 28 / velocity)
    assert full["rel_fork_acceleration_7d"] == pytest.approx(
        ((370 - 356) / 7 - (370 - 300) / 28) / velocity
    )
    assert full["log_open_issues_per_star"] == pytest.approx(np.log(46 / (1 + n)))
    assert full["open_issues_change_28d"] == pytest.approx(np.log(46 / 41))
    assert full["open_issues_change_7d"] == pytest.approx(np.log(46 / 53))
    assert full["rel_open_issue_velocity_28d"] == pytest.approx((45 - 40) / 28 / velocity)
    # no counts at all: every such feature is missing (the model's own missing-value branch)
    activity = list(FEATURE_SETS["engagement"])
    assert rows.loc["no/counts", activity].isna().all()
    # counts from today only (the GitHub API's snapshot): the levels, not the changes
    today = rows.loc["new/today"]
    assert today["log_forks_per_star"] == pytest.approx(np.log(51 / (1 + n)))
    assert today["log_open_issues_per_star"] == pytest.approx(np.log(10 / (1 + n)))
    changes = [f for f in activity if f not in ("log_forks_per_star", "log_open_issues_per_star")]
    assert today[changes].isna().all()


def test_which_templates_read_the_feature_sets():
    activity = set(FEATURE_SETS["engagement"])
    for name in ("star_velocity_up", "star_velocity_level", "star_velocity_interval"):
        assert activity <= set(feature_names(name)), name
    for name in ("star_breakout", "star_gain", "star_accel_reach"):
        assert not activity & set(feature_names(name)), name
    pace = set(FEATURE_SETS["pace"])  # measured, added nothing: computed, read by no template
    assert not any(pace & set(feature_names(t.name)) for t in TEMPLATES.values())


def test_a_repositorys_own_removals_by_hand(store, signals_for):
    gains = np.full(200, 5.0)
    gains[[139, 189, 196]] = [-2.0, -40.0, -20.0]  # three days that lost stars, the last two
    stars = 1000 + np.cumsum(gains)  # inside the 28 days to the origin (day 199)
    store.upsert("star_signals", signals_for("purged/one", stars, FIRST_DAY))
    store.upsert("star_signals", signals_for("steady/two", 1000 + 5.0 * np.arange(200), FIRST_DAY))
    refresh_star_days(store)
    origin = FIRST_DAY + timedelta(days=199)
    rows = base_frame(store.con, [origin]).set_index("repo")
    row, velocity = rows.loc["purged/one"], gains[172:200].sum() / 28
    assert row["loss_day_share_28d"] == pytest.approx(2 / 28)
    assert row["loss_day_share_91d"] == pytest.approx(3 / 91)
    assert row["rel_largest_loss_91d"] == pytest.approx(-40.0 / velocity)
    assert row["log_peak_drop_91d"] == pytest.approx(np.log1p(stars[188]) - np.log1p(stars[199]))
    steady = rows.loc["steady/two"]
    assert steady["loss_day_share_91d"] == 0 and steady["rel_largest_loss_91d"] == 0
    assert steady["log_peak_drop_91d"] == 0
    # two repositories are no cross-section: the store reads as a usual market
    market = rows.loc["steady/two", list(FEATURE_SETS["market_losses"])].tolist()
    assert market == [USUAL_LOSS_SHARE, 0.0, 1.0]
