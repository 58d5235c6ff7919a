"""The base rate a forecast is read against: climatology, as the walk-forward backtest computes it.

For a template x horizon and a day D, the climatology of a threshold bucket is the share of yes
among the resolved examples of that bucket whose outcome became known in the trailing year
(known_on in (D - 365, D]), smoothed as (yes + 1) / (n + 2) (0.5 for a bucket with no example
known in that year); a bucket no example ever fell in takes the counts of all buckets
(`backtest.climatology` does the same per origin).

Training records these counts as of its last day with each model (`Forecaster.climatology`), and
issuing stores each forecast's base rate beside its probability (`forecasts.base_rate`, with the
count `base_rate_n`), so the briefing and the track record show what a forecast knew at its
origin: outcomes known by the day its model was trained, never later ones.
"""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd

from shu.forecast.evaluation.backtest import CLIMATOLOGY_DAYS

ALL_BUCKETS = "all"


def climatology_counts(examples: pd.DataFrame, as_of: date) -> dict[str, list[int]]:
    """Per bucket (its number as text, and ALL_BUCKETS): [yes, n] of the examples whose outcome
    became known in the trailing year up to `as_of` (`examples`: bucket, known_on, label)."""
    known = pd.to_datetime(examples["known_on"])
    recent = examples[
        (known <= pd.Timestamp(as_of))
        & (known > pd.Timestamp(as_of - timedelta(days=CLIMATOLOGY_DAYS)))
    ]
    counts = {str(int(bucket)): [0, 0] for bucket in examples["bucket"].unique()}
    counts |= {
        str(int(bucket)): [int(group["label"].sum()), len(group)]
        for bucket, group in recent.groupby("bucket")
    }
    counts[ALL_BUCKETS] = [int(recent["label"].sum()), len(recent)]
    return counts


def base_rate(counts: dict[str, list[int]] | None, bucket: int) -> tuple[float, int] | None:
    """(smoothed rate, n) of `bucket` from `climatology_counts` (None without counts)."""
    if not counts:
        return None
    yes, n = counts.get(str(int(bucket))) or counts[ALL_BUCKETS]
    return (yes + 1.0) / (n + 2.0), int(n)
