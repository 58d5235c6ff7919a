"""The state of the whole store on an origin, against its own history: how many repositories are
losing stars at once.

Per origin t, over every repository in the facts layer's `market_days` (its store-wide counts
per day, `shu.signals.star_days`; computed in DuckDB, reading only days on or before t):
- `share_falling_7d` / `share_falling_28d`: of the repository-days in the 7 / 28 days to t on
  which a star count was observed on that day and the day before, the share whose count fell;
- `share_v28_nonpos`: the share of repositories whose 28-day velocity on t is <= 0;
- `mass_loss_days_28d`: on how many of the 28 days to t the day's falling share was more than
  twice its median over the preceding year (a large share lost stars together);
- for each, `usual_*` = its median over the reference window (the `REFERENCE_DAYS` days ending
  `REFERENCE_LAG_DAYS` before t, so an ongoing episode does not become its own reference) and
  `*_z` = (value - usual) / (interquartile range / 1.349), a z-score robust to past spikes;
- `year_share_losing`: the median over the 365 days to t of the day's share of repositories whose
  count fell, and `loss_share_ratio_7d` / `loss_share_ratio_28d` = share_falling_7d /
  share_falling_28d over it: how many times the year's usual share is losing stars now (a purge
  reads 1.5 or more; the removal features and the regime guard's rebound rule read these);
- `n_repos`: the most repositories with an observed day-to-day change on one of those 28 days;
- `distance`: how far outside its history the store is, max(share_falling_7d_z,
  share_falling_28d_z) (NULL when the reference holds fewer than `MIN_REFERENCE_DAYS` days or
  `n_repos` is below `MIN_REPOS`: a handful of repositories is no cross-section).
What these statistics looked like over the ranking history is in benchmarks/README.md
(Forecast).

The regime guard (`guard`) reads `distance` and the loss-share ratios; the removal features
(`features.star`, set "removals") read share_falling_28d and `loss_share_ratio_28d`.
"""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import numpy as np
import pandas as pd

from shu.signals.star_days import ensure_current

REFERENCE_DAYS = 730
REFERENCE_LAG_DAYS = 28
MIN_REFERENCE_DAYS = 180
MIN_REPOS = 100
MASS_LOSS_FACTOR = 2.0
STATS = ("share_falling_7d", "share_falling_28d", "share_v28_nonpos", "mass_loss_days_28d")
COLUMNS = (
    "origin",
    *STATS,
    *(f"usual_{s}" for s in STATS),
    *(f"{s}_z" for s in STATS),
    "distance",
    "year_share_losing",
    "loss_share_ratio_7d",
    "loss_share_ratio_28d",
    "n_repos",
)

_SQL = """
WITH daily AS (
  SELECT day, repos_compared AS n_steps, repos_losing AS n_falling,
         repos_with_velocity AS n_v28, repos_not_gaining AS n_v28_nonpos
  FROM market_days WHERE day BETWEEN ?::DATE AND ?::DATE),
shares AS (
  SELECT day, n_falling / nullif(n_steps, 0) AS share_falling_day,
         n_v28_nonpos / nullif(n_v28, 0) AS share_v28_nonpos,
         sum(n_falling) OVER w7 / nullif(sum(n_steps) OVER w7, 0) AS share_falling_7d,
         count(*) FILTER (WHERE n_steps > 0) OVER w7 AS days_7d,
         sum(n_falling) OVER w28 / nullif(sum(n_steps) OVER w28, 0) AS share_falling_28d,
         count(*) FILTER (WHERE n_steps > 0) OVER w28 AS days_28d,
         max(n_steps) OVER w28 AS n_repos
  FROM daily
  WINDOW w7 AS (ORDER BY day RANGE BETWEEN INTERVAL 6 DAYS PRECEDING AND CURRENT ROW),
         w28 AS (ORDER BY day RANGE BETWEEN INTERVAL 27 DAYS PRECEDING AND CURRENT ROW)),
mass AS (
  SELECT *, (share_falling_day > {factor} * median(share_falling_day) OVER wy)::INT AS mass_day,
         median(share_falling_day) OVER wyt AS year_share_losing
  FROM shares
  WINDOW wy AS (ORDER BY day RANGE BETWEEN INTERVAL 365 DAYS PRECEDING AND INTERVAL 1 DAYS
                PRECEDING),
         wyt AS (ORDER BY day RANGE BETWEEN INTERVAL 364 DAYS PRECEDING AND CURRENT ROW)),
stats AS (
  SELECT day,
         CASE WHEN days_7d >= 4 THEN share_falling_7d END AS share_falling_7d,
         CASE WHEN days_28d >= 14 THEN share_falling_28d END AS share_falling_28d,
         share_v28_nonpos,
         CASE WHEN days_28d >= 14 THEN sum(mass_day) OVER w28 END AS mass_loss_days_28d,
         year_share_losing, n_repos
  FROM mass
  WINDOW w28 AS (ORDER BY day RANGE BETWEEN INTERVAL 27 DAYS PRECEDING AND CURRENT ROW)),
ref AS (
  SELECT day, n_repos, year_share_losing, {reference}
  FROM stats
  WINDOW wr AS (ORDER BY day RANGE BETWEEN INTERVAL {ref_end} DAYS PRECEDING
                AND INTERVAL {lag} DAYS PRECEDING))
SELECT o.origin, {selected}, ref.year_share_losing,
  ref.share_falling_7d / nullif(ref.year_share_losing, 0) AS loss_share_ratio_7d,
  ref.share_falling_28d / nullif(ref.year_share_losing, 0) AS loss_share_ratio_28d,
  coalesce(ref.n_repos, 0) AS n_repos
FROM _rg_origins o LEFT JOIN ref ON ref.day = o.origin
ORDER BY o.origin
"""


def _sql() -> str:
    reference, selected = [], []
    for s in STATS:
        reference += [
            s,
            f"count({s}) OVER wr AS n_ref_{s}",
            f"quantile_cont({s}, 0.5) OVER wr AS usual_{s}",
            f"(quantile_cont({s}, 0.75) OVER wr - quantile_cont({s}, 0.25) OVER wr) / 1.349 "
            f"AS spread_{s}",
        ]
        selected += [
            f"ref.{s}",
            f"ref.usual_{s}",
            f"CASE WHEN ref.n_ref_{s} >= {MIN_REFERENCE_DAYS} THEN (ref.{s} - ref.usual_{s}) / "
            f"greatest(ref.spread_{s}, {_SPREAD_FLOOR[s]}) END AS {s}_z",
        ]
    return _SQL.format(
        factor=MASS_LOSS_FACTOR,
        reference=",\n         ".join(reference),
        ref_end=REFERENCE_DAYS + REFERENCE_LAG_DAYS - 1,
        lag=REFERENCE_LAG_DAYS,
        selected=", ".join(selected),
    )


# Smallest spread a z-score divides by (a flat reference must not make a tiny change look huge).
_SPREAD_FLOOR = {
    "share_falling_7d": 0.002,
    "share_falling_28d": 0.002,
    "share_v28_nonpos": 0.005,
    "mass_loss_days_28d": 0.5,
}


def regime_frame(con: duckdb.DuckDBPyConnection, origins: list[date]) -> pd.DataFrame:
    """One row per origin with `COLUMNS` (NaN where the store cannot say; see the module)."""
    if not origins:
        return pd.DataFrame(columns=list(COLUMNS))
    ensure_current(con)
    days = sorted({pd.Timestamp(d).date() for d in origins})
    first = days[0] - timedelta(days=REFERENCE_DAYS + REFERENCE_LAG_DAYS + 400)
    con.execute("CREATE OR REPLACE TEMP TABLE _rg_origins (origin DATE)")
    con.executemany("INSERT INTO _rg_origins VALUES (?)", [[d] for d in days])
    try:
        frame = con.execute(_sql(), [first, days[-1]]).df()
    finally:
        con.execute("DROP TABLE IF EXISTS _rg_origins")
    thin = frame["n_repos"].to_numpy() < MIN_REPOS
    for s in STATS:
        frame[s] = frame[s].astype(float)
        frame.loc[thin, [s, f"usual_{s}", f"{s}_z"]] = np.nan
    ratios = ["year_share_losing", "loss_share_ratio_7d", "loss_share_ratio_28d"]
    frame[ratios] = frame[ratios].astype(float)
    frame.loc[thin, ratios] = np.nan
    z = frame[["share_falling_7d_z", "share_falling_28d_z"]].astype(float)
    frame["distance"] = z.max(axis=1, skipna=False)
    frame["origin"] = pd.to_datetime(frame["origin"])
    return frame[list(COLUMNS)]
