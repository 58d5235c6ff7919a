"""The base rate stored with a forecast is the backtest's climatology, known when it was trained."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd

from shu.forecast.base_rates import ALL_BUCKETS, climatology, climatology_counts, climatology_rate


def _examples(seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 4000
    origins = pd.to_datetime(date(2023, 1, 2)) + pd.to_timedelta(
        rng.integers(0, 800, n) // 7 * 7, unit="D"
    )
    bucket = rng.integers(0, 4, n)
    return pd.DataFrame(
        {
            "origin": origins,
            "known_on": origins + pd.Timedelta(days=30),
            "bucket": bucket,
            "label": (rng.random(n) < 0.15 + 0.2 * bucket).astype(np.int8),
        }
    )


def test_counts_give_the_backtest_climatology_of_every_bucket():
    ex = _examples()
    as_of = date(2024, 6, 3)
    counts = climatology_counts(ex, as_of)
    pred = pd.DataFrame({"origin": [pd.Timestamp(as_of)] * 4, "bucket": [0, 1, 2, 3]})
    expected = climatology(ex, pred)
    got = [climatology_rate(counts, b)[0] for b in range(4)]
    assert np.allclose(got, expected)
    # only outcomes known in the trailing year up to the day count
    known = ex["known_on"]
    window = ex[(known <= pd.Timestamp(as_of)) & (known > pd.Timestamp(as_of - timedelta(365)))]
    assert counts[ALL_BUCKETS] == [int(window["label"].sum()), len(window)]
    assert sum(counts[str(b)][1] for b in range(4)) == len(window)
    for b in range(4):  # each bucket's smoothed share of yes in that window
        mine = window[window["bucket"] == b]
        assert got[b] == (mine["label"].sum() + 1) / (len(mine) + 2)


def test_a_bucket_never_seen_takes_all_buckets_and_no_counts_give_none():
    ex = _examples()
    counts = climatology_counts(ex[ex["bucket"] < 3], date(2024, 6, 3))
    yes, n = counts[ALL_BUCKETS]
    assert climatology_rate(counts, 3) == ((yes + 1) / (n + 2), n)
    assert climatology_rate(None, 0) is None and climatology_rate({}, 0) is None
