"""Signal tables computed in DuckDB SQL from stars_daily, commits and releases (see shu.signals).

Definitions (one meaning everywhere; the SQL in `shu/signals/sql/` and the pandas twin in
`shu/signals/reference.py` implement exactly these):

- stars(t): the latest count observed at or before day t (ASOF); a day is *fresh* when that
  observation is at most 7 days old, *stale* otherwise (stale days get no row).
- A window [t-w, t] is defined only when every day in it is fresh. So a gap of more than 7
  days without an observation makes every window that overlaps it NULL; nothing is
  interpolated. velocity_w(t) = (stars(t) - stars(t-w)) / w (w = 7, 28, 90); acceleration_w(t) =
  velocity_w(t) - velocity_w(t-w) (w = 7, 28), defined when [t-2w, t] is.
- z-scores compare a velocity with the repository's own velocities over the trailing 365 days
  (t-364 .. t, the day itself included): (v - mean) / sample sd, NULL with fewer than 28 values
  or zero spread.
"""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

_WINDOW_NOTE = (
    "A window [t-w, t] is defined only when every day in it has an observation at "
    "most 7 days old; otherwise the value is NULL (never interpolated)."
)

FIELDS = SHARED_FIELDS.extend(
    Field(
        "stars_age_days",
        "INTEGER",
        "Days between the day and the observation `stars` "
        "comes from (0 = observed that day; at most 7).",
        "days",
    ),
    Field("velocity_7d", "DOUBLE", "(stars(t) - stars(t-7)) / 7.", "stars/day"),
    Field(
        "velocity_90d",
        "DOUBLE",
        "(stars(t) - stars(t-90)) / 90 (NULL when the 90-day "
        "window overlaps a gap, like the others, but not counted in `gap`).",
        "stars/day",
    ),
    Field("acceleration_7d", "DOUBLE", "velocity_7d(t) - velocity_7d(t-7).", "stars/day"),
    Field(
        "velocity_7d_z",
        "DOUBLE",
        "z-score of velocity_7d against its values over the "
        "trailing 365 days (day included; >= 28 values).",
        "sd",
    ),
    Field(
        "velocity_28d_z",
        "DOUBLE",
        "z-score of velocity_28d against its values over the "
        "trailing 365 days (day included; >= 28 values).",
        "sd",
    ),
    Field(
        "gap",
        "BOOLEAN",
        "True when a 7- or 28-day velocity or acceleration of the day is "
        "NULL because its window overlaps a data gap (a stale day after the repository's "
        "first observation), not because the history is too short.",
    ),
    Field(
        "lifecycle_phase",
        "VARCHAR",
        "Shape of the curve that day (thresholds in "
        "shu.signals.lifecycle): 'decline' when velocity_28d < 0.01% of stars per day; "
        "'emerging' when >= 0.5% per day and acceleration_28d >= 0; 'expansion' when "
        "acceleration_28d >= 10% of velocity_28d; else 'maturation'. NULL when velocity_28d "
        "or acceleration_28d is NULL.",
    ),
    Field("mode", "VARCHAR", "'full' or 'incremental'."),
    Field(
        "reason",
        "VARCHAR",
        "Why this mode (e.g. 'requested', 'first run', 'input before 2026-02-27 changed').",
    ),
    Field("from_day", "DATE", "First day written (NULL = all)."),
    Field("to_day", "DATE", "Last day covered."),
    Field("rows_written", "BIGINT", "Rows written.", "rows"),
    Field("source_rows", "BIGINT", "Input rows on or before to_day (fingerprint).", "rows"),
    Field("source_sum", "HUGEINT", "Sum of the input counts on or before to_day (fingerprint)."),
    Field("seconds", "DOUBLE", "Wall time of this table's refresh.", "s"),
    Field(
        "commits",
        "BIGINT",
        "Counted commits from the first counted day through this day.",
        "commits",
    ),
    Field("commits_day", "BIGINT", "Counted commits on this day.", "commits"),
    Field("commit_velocity_7d", "DOUBLE", "(commits(t) - commits(t-7)) / 7.", "commits/day"),
    Field("commit_velocity_28d", "DOUBLE", "(commits(t) - commits(t-28)) / 28.", "commits/day"),
    Field(
        "commit_acceleration_7d",
        "DOUBLE",
        "commit_velocity_7d(t) - commit_velocity_7d(t-7).",
        "commits/day",
    ),
    Field(
        "commit_acceleration_28d",
        "DOUBLE",
        "commit_velocity_28d(t) - commit_velocity_28d(t-28).",
        "commits/day",
    ),
    Field(
        "commit_velocity_7d_z",
        "DOUBLE",
        "z-score of commit_velocity_7d against its values over the "
        "trailing 365 days (day included; >= 28 values).",
        "sd",
    ),
    Field(
        "commit_velocity_28d_z",
        "DOUBLE",
        "z-score of commit_velocity_28d against its values over the "
        "trailing 365 days (day included; >= 28 values).",
        "sd",
    ),
    Field(
        "rocm_commits_28d",
        "BIGINT",
        "Counted commits flagged touches_rocm in the 28 days t-27 .. t.",
        "commits",
    ),
    Field(
        "rocm_share_28d",
        "DOUBLE",
        "rocm_commits_28d / counted commits in the same 28 days (NULL when there were none).",
        "fraction",
    ),
    Field("velocity_28d_mean", "DOUBLE", "Mean velocity_28d of the members.", "stars/day"),
    Field("acceleration_28d_mean", "DOUBLE", "Mean acceleration_28d of the members.", "stars/day"),
    Field(
        "acceleration_28d_median",
        "DOUBLE",
        "Median acceleration_28d of the members.",
        "stars/day",
    ),
    Field(
        "acceleration_28d_sd",
        "DOUBLE",
        "Sample standard deviation of the members' acceleration_28d (NULL with one member).",
        "stars/day",
    ),
    Field(
        "accelerating_share",
        "DOUBLE",
        "Share of members with acceleration_28d > 0.",
        "fraction",
    ),
    Field(
        "acceleration_28d_total",
        "DOUBLE",
        "Sum of the members' acceleration_28d (the "
        "acceleration of their combined star count when all have a value).",
        "stars/day",
    ),
    Field(
        "peers",
        "INTEGER",
        "Other members of the category with an acceleration_28d that day.",
        "repos",
    ),
    Field("peer_velocity_28d", "DOUBLE", "Mean velocity_28d of the other members.", "stars/day"),
    Field(
        "peer_acceleration_28d",
        "DOUBLE",
        "Mean acceleration_28d of the other members (NULL without peers).",
        "stars/day",
    ),
    Field(
        "relative_acceleration_28d",
        "DOUBLE",
        "acceleration_28d - peer_acceleration_28d.",
        "stars/day",
    ),
    Field(
        "category_rank",
        "INTEGER",
        "1 = highest acceleration_28d in the category that day (ties share a rank).",
    ),
    Field(
        "days_since_previous_release",
        "INTEGER",
        "Days since the previous stable release day of the repository.",
        "days",
    ),
    Field("star_velocity_before_28d", "DOUBLE", "(stars(d) - stars(d-28)) / 28.", "stars/day"),
    Field("star_velocity_after_14d", "DOUBLE", "(stars(d+14) - stars(d)) / 14.", "stars/day"),
    Field(
        "star_lift",
        "DOUBLE",
        "star_velocity_after_14d - star_velocity_before_28d.",
        "stars/day",
    ),
    Field(
        "star_lift_ratio",
        "DOUBLE",
        "star_velocity_after_14d / star_velocity_before_28d (when before > 0).",
        "ratio",
    ),
    Field(
        "commit_velocity_before_28d",
        "DOUBLE",
        "(commits(d) - commits(d-28)) / 28 (commit_signals).",
        "commits/day",
    ),
    Field(
        "commit_velocity_after_14d",
        "DOUBLE",
        "(commits(d+14) - commits(d)) / 14.",
        "commits/day",
    ),
    Field(
        "commit_lift",
        "DOUBLE",
        "commit_velocity_after_14d - commit_velocity_before_28d.",
        "commits/day",
    ),
    Field(
        "last_release_tag",
        "VARCHAR",
        "Tag of the latest stable release on or before the "
        "day (the greatest tag when several share that day).",
    ),
    Field("last_release_day", "DATE", "Its release day."),
    Field("days_since_release", "INTEGER", "day - last_release_day.", "days"),
    Field("releases_365d", "INTEGER", "Stable release days in t-364 .. t.", "releases"),
    Field(
        "median_interval_days",
        "DOUBLE",
        "Median interval between the last up to 6 stable "
        "release days (5 intervals) as of the last release; NULL after the first.",
        "days",
    ),
    Field("first_day", "DATE", "Its first day with a star count in stars_daily."),
)

STAR_SIGNALS = Table(
    name="star_signals",
    description="Star velocity, acceleration and trailing-year z-scores per repository and day, "
    "for every day whose ASOF star count is fresh (observed at most 7 days before). "
    + _WINDOW_NOTE,
    primary_key=("repo", "day"),
    group="signals",
    notes="`shu signals --full` recomputes every row and rewrites the repositories whose stored "
    "rows differ (all of them when most differ). Keys unique by construction; no index "
    "constraint, which would make the 9M-row rebuild several times slower.",
    columns=FIELDS.hold(
        "repo",
        "day",
        "stars",
        "stars_age_days",
        "velocity_7d",
        "velocity_28d",
        "velocity_90d",
        "acceleration_7d",
        "acceleration_28d",
        "velocity_7d_z",
        "velocity_28d_z",
        "gap",
        "lifecycle_phase",
        described={
            "stars": "Stars ASOF the day (latest observation at or before it).",
            "velocity_28d": "(stars(t) - stars(t-28)) / 28.",
            "acceleration_28d": "velocity_28d(t) - velocity_28d(t-28).",
        },
    ),
)

SIGNAL_RUNS = Table(
    name="signal_runs",
    description="One row per signals refresh and table: what was recomputed, how, how fast, "
    "and a fingerprint of the input it covered (an incremental refresh falls back to a full one "
    "when older input changed).",
    primary_key=("run_id", "target"),
    group="signals",
    columns=FIELDS.hold(
        "run_id",
        "target",
        "mode",
        "reason",
        "from_day",
        "to_day",
        "rows_written",
        "source_rows",
        "source_sum",
        "seconds",
        "finished_at",
        described={
            "run_id": "Id of the refresh (uuid4), shared by its tables.",
            "target": "Table refreshed, e.g. star_signals.",
        },
    ),
)

COMMIT_SIGNALS = Table(
    name="commit_signals",
    description="Commits per day landing on the default branch, with velocity, acceleration, "
    "trailing-year z-scores and the 28-day share of ROCm-flagged commits, for every day from a "
    "repository's first counted commit to its newest commit (commit history has no holes: a day "
    "without commits is 0; later days get no row). Counted: the first-parent (mainline) chain "
    "of the default branch, one row per landed change; for repositories whose commits do not "
    "say whether they are mainline, every non-merge commit. A commit counts on its committed_at "
    "day (UTC). Windows reaching before the first counted day are NULL. Always recomputed in "
    "full (small).",
    primary_key=("repo", "day"),
    group="signals",
    columns=FIELDS.hold(
        "repo",
        "day",
        "commits",
        "commits_day",
        "commit_velocity_7d",
        "commit_velocity_28d",
        "commit_acceleration_7d",
        "commit_acceleration_28d",
        "commit_velocity_7d_z",
        "commit_velocity_28d_z",
        "rocm_commits_28d",
        "rocm_share_28d",
        "gap",
        described={
            "gap": "True when a window overlaps a day the commit data does not "
            "cover; always false within the covered span (kept for symmetry with "
            "star_signals).",
        },
    ),
)

CATEGORY_SIGNALS = Table(
    name="category_signals",
    description="Per configured category (settings.repos) and day: how its members' 28-day star "
    "acceleration is distributed; category 'untracked' aggregates every other repository in "
    "star_signals (the market baseline). Members without a value that day are left out; days "
    "where none has one get no row.",
    primary_key=("category", "day"),
    group="signals",
    columns=FIELDS.hold(
        "category",
        "day",
        "repos",
        "velocity_28d_mean",
        "acceleration_28d_mean",
        "acceleration_28d_median",
        "acceleration_28d_sd",
        "accelerating_share",
        "acceleration_28d_total",
        described={
            "category": (
                "Configured category (its `field` one unless set: training frameworks, …) "
                "or 'untracked'."
            ),
            "repos": "Members with an acceleration_28d that day.",
        },
    ),
)

PEER_SIGNALS = Table(
    name="peer_signals",
    description="Per tracked repository and day: its 28-day star acceleration against the other "
    'members of its configured category (its peers), e.g. "TensorFlow\'s parallel +1.1" is '
    "tensorflow/tensorflow's acceleration_28d on a day when pytorch/pytorch is the subject.",
    primary_key=("repo", "day"),
    group="signals",
    columns=FIELDS.hold(
        "repo",
        "day",
        "category",
        "velocity_28d",
        "acceleration_28d",
        "peers",
        "peer_velocity_28d",
        "peer_acceleration_28d",
        "relative_acceleration_28d",
        "category_rank",
        described={
            "repo": "Tracked 'owner/name'.",
            "category": "Its configured category.",
            "velocity_28d": "Its velocity_28d (star_signals).",
            "acceleration_28d": "Its acceleration_28d (star_signals).",
        },
    ),
)

RELEASE_SIGNALS = Table(
    name="release_signals",
    description="Per release: cadence and lift. Release day d = published_at date (UTC); "
    "before = velocity over the 28 days up to d, (x(d) - x(d-28)) / 28; after = velocity over "
    "the 14 days after it, (x(d+14) - x(d)) / 14; lift = after - before. Star windows follow "
    "the star_signals rule (NULL unless every day in the window is fresh).",
    primary_key=("repo", "tag"),
    group="signals",
    columns=FIELDS.hold(
        "repo",
        "tag",
        "published_at",
        "day",
        "is_prerelease",
        "days_since_previous_release",
        "star_velocity_before_28d",
        "star_velocity_after_14d",
        "star_lift",
        "star_lift_ratio",
        "commit_velocity_before_28d",
        "commit_velocity_after_14d",
        "commit_lift",
        described={
            "day": "Release day d (UTC date of published_at).",
            "is_prerelease": "Pre-release (rc, beta, …); unknown counts as stable.",
        },
    ),
)

RELEASE_CONTEXT = Table(
    name="release_context",
    description="Per repository and day, from its first stable release to the newest day of data "
    "(stars, commits or releases): time since its last stable release and its release cadence. "
    "Pre-releases are left out; several releases on one day count once.",
    primary_key=("repo", "day"),
    group="signals",
    columns=FIELDS.hold(
        "repo",
        "day",
        "last_release_tag",
        "last_release_day",
        "days_since_release",
        "releases_365d",
        "median_interval_days",
    ),
)

STAR_SIGNAL_REPOS = Table(
    name="star_signal_repos",
    description="Bookkeeping of star_signals: each repository's first observed day in "
    "stars_daily as the last refresh saw it (a full refresh brings it up to date, an incremental "
    "one adds new repositories), so an incremental refresh reads it instead of the whole history.",
    primary_key=("repo",),
    group="signals",
    columns=FIELDS.hold("repo", "first_day"),
)

TABLES = (
    STAR_SIGNALS,
    COMMIT_SIGNALS,
    CATEGORY_SIGNALS,
    PEER_SIGNALS,
    RELEASE_SIGNALS,
    RELEASE_CONTEXT,
    SIGNAL_RUNS,
    STAR_SIGNAL_REPOS,
)
