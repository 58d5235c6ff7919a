"""Signal tables computed in DuckDB SQL from stars_daily, commits and releases (see shu.signals).

Definitions (one meaning everywhere; the SQL in `shu/signals/sql/` and the pandas twin in
`shu/signals/reference.py` implement exactly these):

- stars(t): the latest count observed at or before day t (ASOF); a day is *fresh* when that
  observation is at most 7 days old, *stale* otherwise (stale days get no row).
- A window [t-w, t] is defined only when every day in it is fresh. So a gap of more than 7
  days without an observation makes every window that overlaps it NULL; nothing is
  interpolated. velocity_w(t) = (stars(t) - stars(t-w)) / w; acceleration_w(t) =
  velocity_w(t) - velocity_w(t-w), defined when [t-2w, t] is.
- z-scores compare a velocity with the repository's own velocities over the trailing 365 days
  (t-364 .. t, the day itself included): (v - mean) / sample sd, NULL with fewer than 28 values
  or zero spread.
"""

from shu.schema.base import Table, col

_WINDOW_NOTE = ("A window [t-w, t] is defined only when every day in it has an observation at "
                "most 7 days old; otherwise the value is NULL (never interpolated).")

STAR_SIGNALS = Table(
    name="star_signals",
    description="Star velocity, acceleration and trailing-year z-scores per repository and day, "
    "for every day whose ASOF star count is fresh (observed at most 7 days before). "
    + _WINDOW_NOTE,
    primary_key=("repo", "day"),
    group="signals",
    notes="Rebuilt wholesale by `shu signals --full` (keys unique by construction; no index "
    "constraint, which would make the 9M-row rebuild several times slower).",
    columns=(
        col("repo", "VARCHAR", "Current 'owner/name'."),
        col("day", "DATE", "Day the values are as of."),
        col("stars", "BIGINT", "Stars ASOF the day (latest observation at or before it).",
            "stars"),
        col("stars_age_days", "INTEGER", "Days between the day and the observation `stars` "
            "comes from (0 = observed that day; at most 7).", "days"),
        col("velocity_7d", "DOUBLE", "(stars(t) - stars(t-7)) / 7.", "stars/day"),
        col("velocity_28d", "DOUBLE", "(stars(t) - stars(t-28)) / 28.", "stars/day"),
        col("acceleration_7d", "DOUBLE", "velocity_7d(t) - velocity_7d(t-7).", "stars/day"),
        col("acceleration_28d", "DOUBLE", "velocity_28d(t) - velocity_28d(t-28).", "stars/day"),
        col("velocity_7d_z", "DOUBLE", "z-score of velocity_7d against its values over the "
            "trailing 365 days (day included; >= 28 values).", "sd"),
        col("velocity_28d_z", "DOUBLE", "z-score of velocity_28d against its values over the "
            "trailing 365 days (day included; >= 28 values).", "sd"),
        col("gap", "BOOLEAN", "True when a velocity or acceleration of the day is NULL because "
            "its window overlaps a data gap (a stale day after the repository's first "
            "observation), not because the history is too short."),
    ),
)

SIGNAL_RUNS = Table(
    name="signal_runs",
    description="One row per signals refresh and table: what was recomputed, how, how fast, "
    "and a fingerprint of the input it covered (an incremental refresh falls back to a full one "
    "when older input changed).",
    primary_key=("run_id", "target"),
    group="signals",
    columns=(
        col("run_id", "VARCHAR", "Id of the refresh (uuid4), shared by its tables."),
        col("target", "VARCHAR", "Table refreshed, e.g. star_signals."),
        col("mode", "VARCHAR", "'full' or 'incremental'."),
        col("reason", "VARCHAR", "Why this mode (e.g. 'requested', 'first run', 'input before "
            "2026-02-27 changed')."),
        col("from_day", "DATE", "First day written (NULL = all)."),
        col("to_day", "DATE", "Last day covered."),
        col("rows_written", "BIGINT", "Rows written.", "rows"),
        col("source_rows", "BIGINT", "Input rows on or before to_day (fingerprint).", "rows"),
        col("source_sum", "HUGEINT", "Sum of the input counts on or before to_day "
            "(fingerprint)."),
        col("seconds", "DOUBLE", "Wall time of this table's refresh.", "s"),
        col("finished_at", "TIMESTAMP", "When it finished (UTC)."),
    ),
)

COMMIT_SIGNALS = Table(
    name="commit_signals",
    description="Commit velocity and acceleration per repository and day (commits/day). "
    + _WINDOW_NOTE,
    primary_key=("repo", "day"),
    group="signals",
    columns=(
        col("repo", "VARCHAR", "Current 'owner/name'."),
        col("day", "DATE", "Day the values are as of."),
        col("commits", "BIGINT", "Cumulative commits up to the day.", "commits"),
        col("velocity_7d", "DOUBLE", "Commits per day over the last 7 days.", "commits/day"),
        col("velocity_28d", "DOUBLE", "Commits per day over the last 28 days.", "commits/day"),
        col("acceleration_7d", "DOUBLE", "velocity_7d(t) - velocity_7d(t-7).", "commits/day"),
        col("acceleration_28d", "DOUBLE", "velocity_28d(t) - velocity_28d(t-28).",
            "commits/day"),
        col("velocity_28d_z", "DOUBLE", "z-score of velocity_28d against the trailing year.",
            "sd"),
        col("rocm_share_28d", "DOUBLE", "Share of the last 28 days' commits flagged touches_rocm.",
            "fraction"),
        col("gap", "BOOLEAN", "True when commit data does not cover the day."),
    ),
)

TABLES = (STAR_SIGNALS, COMMIT_SIGNALS, SIGNAL_RUNS)
