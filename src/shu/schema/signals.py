"""Signal tables computed in DuckDB SQL from stars_daily and commits (see shu.signals)."""

from shu.schema.base import Table, col

_WINDOW_NOTE = ("velocity_w(t) = (x(t) - x(t-w)) / w with x ASOF (latest observation at or "
                "before the day); NULL when either endpoint's observation is more than 7 days old.")

STAR_SIGNALS = Table(
    name="star_signals",
    description="Star velocity and acceleration per repository and day. " + _WINDOW_NOTE,
    primary_key=("repo", "day"),
    group="signals",
    columns=(
        col("repo", "VARCHAR", "Current 'owner/name'."),
        col("day", "DATE", "Day the values are as of."),
        col("stars", "BIGINT", "Stars ASOF the day.", "stars"),
        col("velocity_7d", "DOUBLE", "(stars(t) - stars(t-7)) / 7.", "stars/day"),
        col("velocity_28d", "DOUBLE", "(stars(t) - stars(t-28)) / 28.", "stars/day"),
        col("acceleration_7d", "DOUBLE", "velocity_7d(t) - velocity_7d(t-7).", "stars/day"),
        col("acceleration_28d", "DOUBLE", "velocity_28d(t) - velocity_28d(t-28).", "stars/day"),
        col("velocity_7d_z", "DOUBLE", "z-score of velocity_7d against the trailing 365 days.",
            "sd"),
        col("velocity_28d_z", "DOUBLE", "z-score of velocity_28d against the trailing 365 days.",
            "sd"),
        col("gap", "BOOLEAN", "True when the day's own observation is missing or stale (> 7 "
            "days old)."),
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

TABLES = (STAR_SIGNALS, COMMIT_SIGNALS)
