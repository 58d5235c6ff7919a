"""The rates of 'yes' a forecast is read against, each named for what it is and defined once.

- `climatology`: for a template x horizon, a threshold bucket and a day D, the share of yes among
  the resolved examples of that bucket whose outcome became known in the trailing year
  (known_on in (D - `CLIMATOLOGY_DAYS`, D]), smoothed as (yes + 1) / (n + 2) (0.5 for a bucket
  with no example known in that year); a bucket no example ever fell in takes the counts of all
  buckets. It is known at the origin, so it is what skill is measured against (the walk-forward
  backtest computes it per origin, `climatology`) and what cards show beside a probability:
  training records the counts as of its last day with each model (`climatology_counts`,
  `Forecaster.climatology`) and issuing stores each forecast's `climatology_rate` in
  `forecasts.base_rate` (with its count, `base_rate_n`): outcomes known by the day the model was
  trained, never later ones.
- `calibration_block_rates`: the same smoothed share over a model's calibration block, per
  bucket (and pooled). The regime guard pulls forecasts of repositories losing stars towards it
  (`calibration.guard`), as the model was calibrated on that block.
- `fit_block_rate`: the plain share of yes in a model's fitting block, which the model card lists
  beside each model's training window.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

CLIMATOLOGY_DAYS = 365
ALL_BUCKETS = "all"


def smoothed_rate(yes: float, n: float) -> float:
    """(yes + 1) / (n + 2): a share of yes that is 0.5 with no example and never 0 or 1."""
    return (yes + 1.0) / (n + 2.0)


class _KnownCounts:
    """Yes and total counts of examples by the day their outcome became known, per bucket and
    over all buckets, cumulated so a trailing window is two lookups."""

    def __init__(self, examples: pd.DataFrame) -> None:
        known = pd.to_datetime(examples["known_on"]).to_numpy()
        labels = examples["label"].to_numpy(dtype=np.int64)
        buckets = examples["bucket"].to_numpy()
        self.tables = {
            int(b): self._table(known[buckets == b], labels[buckets == b])
            for b in np.unique(buckets)
        }
        self.overall = self._table(known, labels)

    @staticmethod
    def _table(known: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        order = np.argsort(known, kind="stable")
        return known[order], np.cumsum(labels[order]), np.arange(1, len(order) + 1)

    @staticmethod
    def window(
        table: tuple[np.ndarray, np.ndarray, np.ndarray], day: np.datetime64
    ) -> tuple[int, int]:
        """[yes, n] of the examples known in (day - CLIMATOLOGY_DAYS, day]."""
        days, yes, n = table
        hi = np.searchsorted(days, day, side="right")
        lo = np.searchsorted(days, day - np.timedelta64(CLIMATOLOGY_DAYS, "D"), side="right")
        if hi <= lo:
            return 0, 0
        below_yes, below_n = (yes[lo - 1], n[lo - 1]) if lo else (0, 0)
        return int(yes[hi - 1] - below_yes), int(n[hi - 1] - below_n)

    def counts(self, day: np.datetime64) -> dict[str, list[int]]:
        out = {str(b): list(self.window(t, day)) for b, t in self.tables.items()}
        out[ALL_BUCKETS] = list(self.window(self.overall, day))
        return out


def climatology_counts(examples: pd.DataFrame, as_of: date) -> dict[str, list[int]]:
    """Per bucket (its number as text, and ALL_BUCKETS): [yes, n] of the examples whose outcome
    became known in the trailing year up to `as_of` (`examples`: bucket, known_on, label)."""
    return _KnownCounts(examples).counts(np.datetime64(pd.Timestamp(as_of)))


def climatology_rate(counts: dict[str, list[int]] | None, bucket: int) -> tuple[float, int] | None:
    """(climatology, n) of `bucket` from `climatology_counts` (None without counts)."""
    if not counts:
        return None
    yes, n = counts.get(str(int(bucket))) or counts[ALL_BUCKETS]
    return smoothed_rate(yes, n), int(n)


def climatology(examples: pd.DataFrame, predictions: pd.DataFrame) -> np.ndarray:
    """Per prediction (origin, bucket): the climatology known on its origin, from `examples`
    (bucket, known_on, label)."""
    out = np.full(len(predictions), np.nan)
    known = _KnownCounts(examples)
    for origin, group in predictions.groupby("origin"):
        counts = known.counts(np.datetime64(pd.Timestamp(origin)))
        for bucket, idx in group.groupby("bucket").groups.items():
            rate = climatology_rate(counts, int(bucket))
            out[predictions.index.get_indexer(idx)] = rate[0] if rate else np.nan
    return out


def calibration_block_rates(calibration: pd.DataFrame) -> dict[int, float]:
    """The smoothed share of yes of a calibration block per climatology bucket, and over the
    whole block under key -1."""
    counts = calibration.groupby(calibration.get("bucket", pd.Series(0, calibration.index)))[
        "label"
    ].agg(["sum", "count"])
    rates = {
        int(b): smoothed_rate(float(r["sum"]), float(r["count"])) for b, r in counts.iterrows()
    }
    rates[-1] = smoothed_rate(float(calibration["label"].sum()), len(calibration))
    return rates


def fit_block_rate(fit: pd.DataFrame) -> float:
    """The plain share of yes in a fitting block."""
    return float(fit["label"].mean())
