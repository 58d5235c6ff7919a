"""Store-wide spike counts, in the facts layer: per day, how many of the store's repositories
had a spike day or a removal day, against an ordinary day, and whether the day is a
store-wide event (`market_spikes`, declared in `shu.schema.market_spikes`).

A move many unrelated repositories make on the same days is an event of the platform or of the
counts (GitHub purging accounts, a ranking file's collection), not of any one of them. The rule
(docs/design.md, "Stories"):

- among the repositories whose median day-to-day change over the 56 days to a day is at least
  `ELIGIBLE_MIN` stars (the story's ordinary day, `stories.WINDOW` x 2 days), a spike day is a
  change of at least max(`SPIKE_TIMES` x the median, the median + `CORE_MIN`) and a removal day
  a loss of at least max(half the median, `REMOVAL_MIN`): the stories' thresholds
  (`stories.spike_day`), here in SQL from the same constants;
- the ordinary day's count is the median count of the `ORDINARY_DAYS` days before;
- a day is a store-wide spike (removal) when its count is at least `STORE_WIDE_TIMES` times
  the ordinary day's and at least `STORE_WIDE_MIN` repositories.

`refresh_market_spikes` runs after `star_days` in `shu signals`; `store_wide_days` is what the
stories read (`story_reads.story_of`).
"""

from __future__ import annotations

import time
from datetime import date, timedelta

import duckdb

from shu.signals.runs import TableRefresh, record_run
from shu.signals.stories import CORE_MIN, REMOVAL_MIN, SPIKE_TIMES, WINDOW
from shu.store import Store

ELIGIBLE_MIN = 10.0  # stars on a median day: the repositories whose spikes are counted
ORDINARY_DAYS = 90  # the ordinary day's count: the median of this many days before
# a store-wide event: this many times the ordinary day's count ... (on the shared data's
# 480-odd such repositories, 62 and 85 spiked on 19 and 20 Feb 2026 against an ordinary 24; no
# other day of the 90 before reached 1.6 times it)
STORE_WIDE_TIMES = 2.5
STORE_WIDE_MIN = 20  # ... and at least this many repositories
EPOCH_DAY = date(1970, 1, 1)

# params: the first day whose counts are computed (steps are read from 56 days before it),
# twice. Only repositories with some change of at least ELIGIBLE_MIN are read: the median of
# the others is below it on every day (exact, and most of the store's rows left unread).
_COUNTS_SQL = f"""
WITH steps AS (
  SELECT repo, day, change::DOUBLE AS change,
         median(change) OVER (PARTITION BY repo ORDER BY day
           RANGE BETWEEN INTERVAL {2 * WINDOW - 1} DAYS PRECEDING AND CURRENT ROW) AS ordinary
  FROM star_days
  WHERE observed AND days_since_previous = 1 AND day >= ?::DATE - {2 * WINDOW}
    AND repo IN (
      SELECT repo FROM star_days
      WHERE days_since_previous = 1 AND change >= {ELIGIBLE_MIN}
        AND day >= ?::DATE - {2 * WINDOW}))
SELECT day,
       count(*) AS repos_eligible,
       count(*) FILTER (
         WHERE change >= greatest({SPIKE_TIMES} * ordinary, ordinary + {CORE_MIN})
       ) AS repos_spiking,
       count(*) FILTER (
         WHERE change < 0 AND -change >= greatest(0.5 * ordinary, {REMOVAL_MIN})
       ) AS repos_removing
FROM steps WHERE ordinary >= {ELIGIBLE_MIN} AND day >= ?::DATE
GROUP BY day"""

# params: the day counts are computed from (ORDINARY_DAYS before the first day written), the
# first day written
_INSERT_SQL = f"""
INSERT INTO market_spikes
WITH counts AS ({_COUNTS_SQL}),
o AS (
  SELECT *,
    median(repos_spiking) OVER w AS ordinary_spiking,
    median(repos_removing) OVER w AS ordinary_removing
  FROM counts
  WINDOW w AS (ORDER BY day
    RANGE BETWEEN INTERVAL {ORDINARY_DAYS} DAYS PRECEDING AND INTERVAL 1 DAY PRECEDING))
SELECT day, repos_eligible, repos_spiking, repos_removing, ordinary_spiking, ordinary_removing,
       repos_spiking >= {STORE_WIDE_MIN}
         AND repos_spiking >= {STORE_WIDE_TIMES} * coalesce(ordinary_spiking, 0),
       repos_removing >= {STORE_WIDE_MIN}
         AND repos_removing >= {STORE_WIDE_TIMES} * coalesce(ordinary_removing, 0)
FROM o WHERE day >= ?::DATE"""


def refresh_market_spikes(
    store: Store, run_id: str = "", days: TableRefresh | None = None
) -> TableRefresh:
    """Bring `market_spikes` up to `star_days`: from the first day `days` (the star_days
    refresh) rewrote, nothing when it wrote nothing, all of it after a full one or without it."""
    t0 = time.perf_counter()
    con = store.con
    to_day = con.execute("SELECT max(day) FROM star_days").fetchall()[0][0]
    if days is not None and days.mode == "incremental" and not days.rows_written:
        from_day: date | None = None
        mode, reason = "incremental", "up to date"
    elif days is not None and days.mode == "incremental" and days.from_day is not None:
        from_day, mode, reason = days.from_day, "incremental", "new days"
    else:
        from_day, mode, reason = EPOCH_DAY, "full", "star_days refreshed in full"
    written = 0
    if from_day is not None:
        counted_from = from_day - timedelta(days=ORDINARY_DAYS)
        with store.transaction():
            con.execute("DELETE FROM market_spikes WHERE day >= ?", [from_day])
            con.execute(_INSERT_SQL, [counted_from, counted_from, counted_from, from_day])
            written = con.execute(
                "SELECT count(*) FROM market_spikes WHERE day >= ?", [from_day]
            ).fetchall()[0][0]
    result = TableRefresh(
        "market_spikes",
        mode,
        reason,
        None if from_day in (None, EPOCH_DAY) else from_day,
        to_day,
        int(written),
        time.perf_counter() - t0,
    )
    if run_id:
        record_run(store, result, run_id)
    return result


# The store-wide event days from `first` to `last` (params: first, last).
STORE_WIDE_SQL = (
    "SELECT day, repos_spiking, ordinary_spiking, repos_removing, ordinary_removing, "
    "store_wide_spike, repos_eligible FROM market_spikes WHERE day BETWEEN ? AND ? "
    "AND (store_wide_spike OR store_wide_removal) ORDER BY day"
)


def store_wide_days(
    con: duckdb.DuckDBPyConnection, first: date, last: date
) -> dict[date, tuple[str, int, float, int]]:
    """The store-wide event days from `first` to `last`: day -> ('spike' or 'removal', how many
    repositories, how many on an ordinary day, how many were counted: those gaining at least
    ELIGIBLE_MIN stars on a median day)."""
    out: dict[date, tuple[str, int, float, int]] = {}
    (held,) = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'market_spikes'"
    ).fetchall()[0]
    if not held:  # a store opened read-only that was last migrated before the table existed
        return out
    for day, spiking, o_spiking, removing, o_removing, spike, eligible in con.execute(
        STORE_WIDE_SQL, [first, last]
    ).fetchall():
        out[day] = (
            ("spike", int(spiking), float(o_spiking or 0.0), int(eligible))
            if spike
            else ("removal", int(removing), float(o_removing or 0.0), int(eligible))
        )
    return out
