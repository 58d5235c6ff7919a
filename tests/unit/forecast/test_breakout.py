"""star_breakout on hand-made star series, through the real signal SQL: the bar (twice the 28-
and 90-day pace, at least 10 stars/day), the 90-day term kept out where it is undefined, the
recovery from a dip that is not a breakout, and voids."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest

from shu.forecast.features.examples import base_frame, resolve_frame, with_thresholds
from shu.forecast.questions.registry import template
from shu.settings import get_settings
from shu.signals import refresh_signals

DAY0 = date(2024, 1, 1)
ORIGIN = 150  # day index of the origin
H = 30


def _series(paces: list[tuple[int, float]], skip: range = range(0)) -> list[int]:
    """Cumulative stars for days 0.. from (days, stars per day) runs; days in `skip` unobserved
    (returned as -1)."""
    stars, total = [], 1000.0
    for days, pace in paces:
        for _ in range(days):
            total += pace
            stars.append(round(total))
    return [-1 if i in skip else s for i, s in enumerate(stars)]


SERIES = {
    # 5/day, then 25/day from the origin: bar max(2 x 5, 10) = 10, reached (25)
    "b/yes": _series([(ORIGIN + 1, 5), (H + 10, 25)]),
    # 2/day, then 8/day: more than twice the pace, but under the 10 stars/day floor
    "b/floor": _series([(ORIGIN + 1, 2), (H + 10, 8)]),
    # 5/day, then exactly 10/day: on the bar counts (>=)
    "b/edge": _series([(ORIGIN + 1, 5), (H + 10, 10)]),
    # 20/day; 15 days of nothing just before the origin (a dip: v28 = 260/28 = 9.3 there, v90 =
    # 1500/90 = 16.7); then the usual 20/day: twice the 28-day pace (18.6) but not twice the
    # 90-day one (33.3), so no breakout
    "b/dip": _series([(ORIGIN + 1 - 15, 20), (15, 0), (H + 10, 20)]),
    # 40/day, a 10-day gap 70..61 days before the origin, 5/day after it, then 15/day: the 90-day
    # window spans the gap (velocity_90d NULL), so the bar is max(2 x 5, 10) = 10: yes
    "b/gap": _series(
        [(ORIGIN + 1 - 75, 40), (75, 5), (H + 10, 15)], skip=range(ORIGIN - 70, ORIGIN - 60)
    ),
    # 5/day then 25/day, but no observation after ORIGIN + 20: velocity_28d(t+H) undefined
    "b/gone": _series([(ORIGIN + 1, 5), (20, 25)]),
}


@pytest.fixture
def breakout_store(store):
    rows = [
        {"repo": repo, "day": DAY0 + timedelta(days=i), "stars": s, "source": "test"}
        for repo, series in SERIES.items()
        for i, s in enumerate(series)
        if s >= 0
    ]
    store.upsert("stars_daily", pd.DataFrame(rows))
    refresh_signals(store, full=True, settings=get_settings())
    return store


def _questions(store, horizon=H):
    origin = DAY0 + timedelta(days=ORIGIN)
    base = base_frame(store.con, [origin])
    rows = with_thresholds(store.con, base, "star_breakout", horizon)
    resolved = resolve_frame(store.con, rows, "star_breakout")
    return resolved.set_index("repo")


def test_bar_and_outcomes(breakout_store):
    q = _questions(breakout_store)
    assert q.loc["b/yes", "threshold"] == 10 and q.loc["b/yes", "outcome"] == "yes"
    assert q.loc["b/yes", "observed_value"] == 25
    assert q.loc["b/floor", "threshold"] == 10 and q.loc["b/floor", "outcome"] == "no"
    assert q.loc["b/edge", "observed_value"] == 10 and q.loc["b/edge", "outcome"] == "yes"


def test_the_90_day_term_keeps_a_recovery_from_counting(breakout_store):
    q = _questions(breakout_store)
    dip = q.loc["b/dip"]
    assert dip["velocity_28d"] == pytest.approx(13 * 20 / 28)
    assert dip["velocity_90d"] == pytest.approx(75 * 20 / 90)
    assert dip["threshold"] == pytest.approx(2 * 75 * 20 / 90)
    assert dip["observed_value"] == 20 and dip["outcome"] == "no"
    assert 2 * dip["velocity_28d"] <= 20  # the 28-day term alone would have called it


def test_the_90_day_term_is_left_out_across_a_gap(breakout_store):
    q = _questions(breakout_store)
    gap = q.loc["b/gap"]
    assert pd.isna(gap["velocity_90d"]) and gap["velocity_28d"] == 5
    assert gap["threshold"] == 10 and gap["outcome"] == "yes"


def test_void_without_a_velocity_at_either_end(breakout_store):
    q = _questions(breakout_store)
    assert q.loc["b/gone", "outcome"] == "void"
    assert "resolution day" in q.loc["b/gone", "detail"]
    # eligible = a 28-day velocity on the origin: not before day 28 of a series
    early = base_frame(breakout_store.con, [DAY0 + timedelta(days=20)])
    assert with_thresholds(breakout_store.con, early, "star_breakout", H).empty


def test_other_horizons_and_wording(breakout_store):
    q7 = _questions(breakout_store, horizon=7)
    # 7 days at 25/day after 21 days at 5/day: v28 = (21 x 5 + 7 x 25) / 28 = 10, on the bar
    assert q7.loc["b/yes", "observed_value"] == 10 and q7.loc["b/yes", "outcome"] == "yes"
    text = template("star_breakout").question("b/yes", DAY0, 30, 10.0)
    assert "10.0 stars/day" in text and "twice its 28- and 90-day pace" in text
