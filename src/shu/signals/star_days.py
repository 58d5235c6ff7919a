"""The facts layer: star facts computed once per repository and day (`star_days`) and per day
store-wide (`market_days`), from star_signals, so no reader recomputes them.

`star_days` holds the one definition of the daily star gain (`DAILY_GAIN_SQL`): the ASOF `gain`
over consecutive star_signals rows, and on an observed day the `change` since the previous
observed count with its `days_since_previous`. `market_days` holds the store-wide share of
repositories losing stars per day (a count below the day before's). Both are written by
`refresh_star_days`, which `shu signals` runs after star_signals: the days from star_signals'
first new day on (each repository's new rows measured from its last star_signals row before
them, so an incremental refresh and a full one agree), or all of them when star_signals was
refreshed in full or the facts are out of step with it. Readers check `ensure_current` first:
a store whose facts lag its star_signals (one written before this layer existed) says so
instead of reading nothing.

The window facts of a repository's story (spike days, bursts, its ordinary pace) are relative
to the 56 days of the story's window, so they are computed per story from these rows
(`shu.signals.stories`), not stored per day.
"""

from __future__ import annotations

import time
from datetime import date

import duckdb

from shu.errors import StoreError
from shu.signals.runs import TableRefresh, record_run
from shu.store import Store

# The daily gain, defined once, over the star_signals rows of a relation `{rows}` (repo, day,
# stars, age = stars_age_days, observed), one window: the stars of a row minus those of the
# repository's previous row, per day between them; on an observed day, the same difference is
# the change since the previous observed count (a row's ASOF stars are its latest observation's)
# and that observation was `age` days before the previous row. Rows from `$1` on.
DAILY_GAIN_SQL = """
SELECT repo, day, stars, observed, gain, change, days_since_previous FROM (
  SELECT repo, day, stars, observed,
         (stars - lag(stars) OVER w) / nullif(day - lag(day) OVER w, 0) AS gain,
         CASE WHEN observed THEN stars - lag(stars) OVER w END AS change,
         CASE WHEN observed THEN (day - lag(day) OVER w + lag(age) OVER w)::INTEGER END
           AS days_since_previous
  FROM ({rows}) WINDOW w AS (PARTITION BY repo ORDER BY day))
WHERE day >= $1::DATE"""

_COLUMNS = (
    "s.repo, s.day, s.stars, coalesce(s.stars_age_days, 0) AS age, "
    "s.stars IS NOT NULL AND coalesce(s.stars_age_days, 0) = 0 AS observed"
)
# all of star_signals (a full refresh: `$1` is the epoch)
_ALL_ROWS = f"SELECT {_COLUMNS} FROM star_signals s"
# an incremental refresh: the rows from the day before the first new day `$1` on, and for a
# repository with new rows but none that day (back after a gap, or new), its last row before
_NEW_ROWS = f"""
SELECT {_COLUMNS} FROM star_signals s WHERE s.day >= $1::DATE - 1
UNION ALL
SELECT {_COLUMNS} FROM star_signals s JOIN (
  SELECT repo, max(day) AS day FROM star_signals
  WHERE day < $1::DATE - 1 AND repo IN (
    SELECT repo FROM star_signals WHERE day >= $1::DATE
    EXCEPT SELECT repo FROM star_signals WHERE day = $1::DATE - 1)
  GROUP BY repo) k ON k.repo = s.repo AND k.day = s.day"""

_MARKET_SQL = """
WITH loss AS (
  SELECT day, count(*) FILTER (WHERE days_since_previous = 1) AS repos_compared,
         count(*) FILTER (WHERE days_since_previous = 1 AND change < 0) AS repos_losing
  FROM star_days WHERE observed AND day >= $1::DATE GROUP BY day),
velocity AS (
  SELECT day, count(velocity_28d) AS repos_with_velocity,
         count(*) FILTER (WHERE velocity_28d <= 0) AS repos_not_gaining
  FROM star_signals
  WHERE day >= $1::DATE AND stars IS NOT NULL AND coalesce(stars_age_days, 0) = 0
  GROUP BY day)
SELECT day, repos_compared, repos_losing, repos_losing / nullif(repos_compared, 0),
       repos_with_velocity, repos_not_gaining
FROM loss JOIN velocity USING (day)"""

EPOCH_DAY = date(1970, 1, 1)


def refresh_star_days(
    store: Store, run_id: str = "", star: TableRefresh | None = None
) -> list[TableRefresh]:
    """Bring `star_days` and `market_days` up to star_signals: from `star.from_day` when the
    star_signals refresh `star` was an incremental one that follows the facts' last day, nothing
    when it wrote nothing and they are level (a `--full` refresh that found every row current:
    the facts are a function of star_signals), else all of them (always all without `star`).
    Returns the two tables' `TableRefresh` (recorded in `signal_runs` under
    `run_id` when given)."""
    t0 = time.perf_counter()
    con = store.con
    facts_to = con.execute("SELECT max(day) FROM star_days").fetchall()[0][0]
    signals_to = con.execute("SELECT max(day) FROM star_signals").fetchall()[0][0]
    if signals_to is None:
        from_day, mode, reason = EPOCH_DAY, "full", "star_signals is empty"
    elif star is None:
        from_day, mode, reason = EPOCH_DAY, "full", "requested"
    elif facts_to == signals_to and not star.rows_written:
        from_day, mode, reason = None, "incremental", "up to date"
    elif (
        star.mode == "incremental"
        and star.from_day is not None
        and facts_to is not None
        and (star.from_day - facts_to).days == 1
    ):
        from_day, mode, reason = star.from_day, "incremental", "new days"
    else:
        from_day, mode, reason = EPOCH_DAY, "full", "star_signals refreshed in full or out of step"
    written = {"star_days": 0, "market_days": 0}
    if from_day is not None:
        with store.transaction():
            rows = _NEW_ROWS if mode == "incremental" else _ALL_ROWS
            con.execute("DELETE FROM star_days WHERE day >= ?", [from_day])
            con.execute(f"INSERT INTO star_days {DAILY_GAIN_SQL.format(rows=rows)}", [from_day])
            con.execute("DELETE FROM market_days WHERE day >= ?", [from_day])
            con.execute(f"INSERT INTO market_days {_MARKET_SQL}", [from_day])
            for table in written:
                written[table] = con.execute(
                    f"SELECT count(*) FROM {table} WHERE day >= ?", [from_day]
                ).fetchall()[0][0]
    out = []
    for table, n in written.items():
        result = TableRefresh(
            table,
            mode,
            reason,
            None if from_day in (None, EPOCH_DAY) else from_day,
            signals_to,
            int(n),
            time.perf_counter() - t0,
        )
        if run_id:
            record_run(store, result, run_id)
        out.append(result)
    return out


# The day of the 28 to a day on which the share of repositories losing stars was largest
# (params: that day twice).
_LARGEST_LOSS_SQL = (
    "SELECT day, share_losing FROM market_days WHERE day > ?::DATE - 28 AND day <= ?::DATE "
    "AND share_losing IS NOT NULL ORDER BY share_losing DESC, day LIMIT 1"
)


def largest_loss_day(con: duckdb.DuckDBPyConnection, day: date) -> tuple[date, float] | None:
    """The day of the 28 to `day` when the largest share of the store's repositories lost stars
    (the earliest on a tie), with that share; None when no day of them compared any."""
    row = con.execute(_LARGEST_LOSS_SQL, [day, day]).fetchone()
    return None if row is None else (row[0], float(row[1]))


def ensure_current(con: duckdb.DuckDBPyConnection) -> None:
    """Raise StoreError when `star_days` does not reach star_signals' last day (the facts were
    never computed on this store, or not since its signals changed): run `shu signals`."""
    facts_to, signals_to = con.execute(
        "SELECT (SELECT max(day) FROM star_days), (SELECT max(day) FROM star_signals)"
    ).fetchall()[0]
    if facts_to != signals_to:
        raise StoreError(
            f"star_days reaches {facts_to or 'no day'} but star_signals {signals_to}: "
            "run `shu signals` to compute the facts layer"
        )
