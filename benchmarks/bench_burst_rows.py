"""Evaluation: are the velocity answers calibrated where today's 28-day pace rests on a burst?

A reader of a card whose pace carries a burst (a few days of unusual gains that leave the
28-day window before the forecast day) doubts the answer: the repository's other days ran
slower than the threshold. This reads star_velocity_up/30 from a `bench_distribution.py` cache
(the answers as issued, read from the one distribution) and the star store's daily gains, and
prints, over repositories gaining at least --min-pace stars/day:

1. by the share of the 28 days' gains made on the two busiest days: the mean answer against
   the rate that came true, and Brier skill against that group's own rate;
2. among rows whose two busiest days made at least 15% of the gains, by the other days' pace
   (the 26 other days' gains per day) over the threshold: the mean answer against the rate;
3. the rows like a card where the other days ran 80-95% of the threshold and the last 7 days
   90-105% of it.

Usage:
  .venv/bin/python benchmarks/bench_burst_rows.py --cache /tmp/shu-bench/distribution-all \\
      --store /tmp/stars.duckdb [--min-pace 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb
import pandas as pd

from shu.forecast.evaluation.scoring import brier, brier_of_rate, skill_score

# Per (repository, origin): the 28 days' gains to the origin, the two busiest days' part of
# them and how many daily gains there were (params: none; reads the registered frame `asked`).
GAINS_SQL = """
WITH d AS (
  SELECT repo, day, stars - lag(stars) OVER (PARTITION BY repo ORDER BY day) AS gain
  FROM star_signals WHERE repo IN (SELECT DISTINCT repo FROM asked)
), w AS (
  SELECT a.repo, a.origin, d.gain,
         row_number() OVER (PARTITION BY a.repo, a.origin ORDER BY d.gain DESC) AS k
  FROM asked a JOIN d ON d.repo = a.repo AND d.day > a.origin - 28 AND d.day <= a.origin
)
SELECT repo, origin, sum(gain) AS total, sum(gain) FILTER (WHERE k <= 2) AS top2,
       count(gain) AS days
FROM w GROUP BY repo, origin
"""


def rows(cache: Path, store: Path, min_pace: float) -> pd.DataFrame:
    """The cache's up/30 answers with their two busiest days' share and other days' pace."""
    p = pd.read_parquet(
        cache / "star_velocity_up.parquet",
        columns=[
            "repo",
            "origin",
            "threshold",
            "velocity_28d",
            "velocity_7d",
            "label",
            "probability",
        ],
    )
    p["origin"] = pd.to_datetime(p["origin"]).dt.date
    p = p[p["velocity_28d"] >= min_pace]
    with duckdb.connect(str(store), read_only=True) as con:
        con.register("asked", p[["repo", "origin"]].drop_duplicates())
        gains = con.execute(GAINS_SQL).df()
    gains["origin"] = pd.to_datetime(gains["origin"]).dt.date
    m = p.merge(gains, on=["repo", "origin"])
    m = m[(m["days"] >= 26) & (m["total"] > 0)].copy()
    m["share2"] = m["top2"] / m["total"]
    m["other_vs_threshold"] = (m["total"] - m["top2"]) / 26.0 / m["threshold"]
    m["week_vs_threshold"] = m["velocity_7d"] / m["threshold"]
    return m


def said_and_seen(s: pd.DataFrame) -> str:
    """The mean answer of rows `s` against the share that came true."""
    y, q = s["label"].to_numpy(dtype=float), s["probability"].to_numpy(dtype=float)
    gap = q.mean() - y.mean()
    return f"n {len(s):7,}  said {q.mean():.3f}  came true {y.mean():.3f}  ({gap:+.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True, help="bench_distribution.py's cache")
    parser.add_argument("--store", type=Path, required=True, help="the full star store")
    parser.add_argument("--min-pace", type=float, default=5.0)
    args = parser.parse_args()
    if not args.store.exists():
        print(f"no store at {args.store}", file=sys.stderr)
        return 2
    m = rows(args.cache, args.store, args.min_pace)
    print(f"star_velocity_up/30, 28-day pace >= {args.min_pace} stars/day: {len(m):,} answers")
    print("\n1. by the two busiest days' share of the 28 days' gains")
    for lo, hi in ((0, 0.15), (0.15, 0.25), (0.25, 0.4), (0.4, 1.01)):
        s = m[(m["share2"] >= lo) & (m["share2"] < hi)]
        y, q = s["label"].to_numpy(dtype=float), s["probability"].to_numpy(dtype=float)
        skill = skill_score(brier(y, q), brier_of_rate(y.sum(), len(y)))
        print(f"  [{lo:.2f}, {hi:.2f}): {said_and_seen(s)}  Brier skill {skill:.3f}")
    burst = m[m["share2"] >= 0.15]
    print("\n2. two busiest days >= 15%: by the other days' pace over the threshold")
    for lo, hi in ((0, 0.7), (0.7, 0.85), (0.85, 0.95), (0.95, 9)):
        s = burst[(burst["other_vs_threshold"] >= lo) & (burst["other_vs_threshold"] < hi)]
        if len(s):
            print(f"  [{lo:.2f}, {hi:.2f}): {said_and_seen(s)}")
    like = burst[
        burst["other_vs_threshold"].between(0.8, 0.95)
        & burst["week_vs_threshold"].between(0.9, 1.05)
    ]
    print(
        f"\n3. other days 80-95% of the threshold, last 7 days 90-105% of it: {said_and_seen(like)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
