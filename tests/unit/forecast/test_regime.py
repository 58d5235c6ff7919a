"""The store's regime on an origin: shares by hand, against its own history, no look-ahead."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from shu.forecast.features.regime import MIN_REPOS, regime_frame
from shu.signals.star_days import refresh_star_days

FIRST = date(2024, 1, 1)
DAYS = 300
ORIGIN = FIRST + timedelta(days=280)


def _stars(n_repos: int, falls) -> pd.DataFrame:
    """Daily counts: every repository gains a star a day, except on the days `falls(i, d)`
    says it loses one."""
    rows = []
    for i in range(n_repos):
        steps = np.array([-1 if falls(i, d) else 1 for d in range(DAYS)])
        stars = 1000 + np.cumsum(steps)
        v28 = pd.Series(stars, dtype=float).diff(28) / 28
        rows.append(
            pd.DataFrame(
                {
                    "repo": f"o/r{i:03d}",
                    "stars": stars,
                    "velocity_28d": v28,
                    "day": [FIRST + timedelta(days=d) for d in range(DAYS)],
                    "stars_age_days": 0,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _usual(i: int, d: int) -> bool:
    return (i + d) % 20 == 0  # 5% of repositories lose a star on any day


def _episode(i: int, d: int) -> bool:
    # in the 7 days to the origin a quarter of them lose one every day
    return i % 4 == 0 if 274 <= d <= 280 else _usual(i, d)


def test_shares_by_hand_and_distance_from_their_own_history(store):
    store.upsert("star_signals", _stars(120, _episode))
    refresh_star_days(store)
    row = regime_frame(store.con, [ORIGIN]).iloc[0]
    assert row["share_falling_7d"] == pytest.approx(0.25)
    falling_28 = (21 * 6 + 7 * 30) / (28 * 120)  # 21 usual days, 7 episode days
    assert row["share_falling_28d"] == pytest.approx(falling_28)
    assert row["usual_share_falling_7d"] == pytest.approx(0.05)
    assert row["n_repos"] == 120
    assert row["distance"] > 3 and row["share_falling_7d_z"] == row["distance"]
    calm = regime_frame(store.con, [ORIGIN - timedelta(days=30)]).iloc[0]
    assert calm["share_falling_7d"] == pytest.approx(0.05) and abs(calm["distance"]) < 1
    assert row["mass_loss_days_28d"] == 7  # 25% > 2 x the usual 5%
    # against the year's median daily share (5%: the episode's 7 days do not move a median of
    # the 280 days observed): 5 times the usual share in the week, 1.82 times over 28 days
    assert row["year_share_losing"] == pytest.approx(0.05)
    assert row["loss_share_ratio_7d"] == pytest.approx(5.0)
    assert row["loss_share_ratio_28d"] == pytest.approx(falling_28 / 0.05)
    assert calm["loss_share_ratio_7d"] == pytest.approx(1.0)


def test_no_value_reads_past_the_origin(store):
    store.upsert("star_signals", _stars(120, _usual))
    refresh_star_days(store)
    before = regime_frame(store.con, [ORIGIN])
    store.con.execute(
        "UPDATE star_signals SET stars = stars - 500, velocity_28d = -9 WHERE day > ?", [ORIGIN]
    )
    pd.testing.assert_frame_equal(before, regime_frame(store.con, [ORIGIN]))


def test_a_handful_of_repositories_is_no_cross_section(store):
    store.upsert("star_signals", _stars(MIN_REPOS - 1, _episode))
    refresh_star_days(store)
    row = regime_frame(store.con, [ORIGIN]).iloc[0]
    assert np.isnan(row["share_falling_7d"]) and np.isnan(row["distance"])
    assert row["n_repos"] == MIN_REPOS - 1
