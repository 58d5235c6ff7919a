"""The daily-gain features by hand: a steady repository with one burst day inside its window."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest

from shu.forecast.features.examples import base_frame

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
    origin = FIRST_DAY + timedelta(days=199)
    row = base_frame(store.con, [origin], ["steady/burst"]).iloc[0]
    window = gains[172:200]  # the 28 daily gains up to the origin
    velocity = window.sum() / 28
    assert row["velocity_28d"] == pytest.approx(velocity)
    assert row["max_day_share_28d"] == pytest.approx(290.0 / window.sum())
    assert row["rel_median_gain_28d"] == pytest.approx(10.0 / velocity)
    assert row["rel_velocity_3d"] == pytest.approx(4.0 / velocity)
