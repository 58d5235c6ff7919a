"""The facts layer's tables: per repository and day, and per day store-wide, the facts about
star counts every reader cites instead of recomputing them (computed by `shu.signals.star_days`,
read by the stories, the calibration watch, the regime guard, the forecast features and the
radar's statements)."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field(
        "observed",
        "BOOLEAN",
        "True when a count was observed that day (stars_age_days 0).",
    ),
    Field(
        "gain",
        "DOUBLE",
        "stars(t) minus the stars of the repository's previous star_signals row, per day between "
        "them (NULL on its first row).",
        "stars/day",
    ),
    Field(
        "change",
        "BIGINT",
        "On an observed day: its count minus the previous observed count (NULL on other days and "
        "on the first observation).",
        "stars",
    ),
    Field(
        "days_since_previous",
        "INTEGER",
        "On an observed day: days since the previous observed count (1: observed the day before "
        "too).",
        "days",
    ),
    Field(
        "repos_compared",
        "BIGINT",
        "Repositories with a count observed that day and the day before.",
        "repositories",
    ),
    Field(
        "repos_losing",
        "BIGINT",
        "Of those, repositories whose count fell (a count below the day before's).",
        "repositories",
    ),
    Field(
        "share_losing",
        "DOUBLE",
        "repos_losing / repos_compared: the share of repositories losing stars that day (NULL "
        "when none compared).",
        "share",
    ),
    Field(
        "repos_with_velocity",
        "BIGINT",
        "Repositories observed that day with a 28-day velocity.",
        "repositories",
    ),
    Field(
        "repos_not_gaining",
        "BIGINT",
        "Of those, repositories whose 28-day velocity was at most 0.",
        "repositories",
    ),
)

STAR_DAYS = Table(
    name="star_days",
    description="Per repository and day of star_signals (every day whose ASOF star count is "
    "fresh), the day's star gain and, on a day with an observed count, the change since the "
    "previous observed count: the one definition of the daily gain.",
    primary_key=("repo", "day"),
    group="signals",
    notes="Computed by `shu signals` after star_signals (the days from its first new day on, or "
    "all of it with `--full`). Two gains, deliberately: `gain` is the ASOF one the forecast "
    "features and the radar read (0 on a day without a count, the whole change on the day it is "
    "seen); the stories spread `change` evenly over its `days_since_previous` days. Keys unique "
    "by construction (no index, like star_signals).",
    key_indexed=False,
    columns=FIELDS.hold(
        "repo", "day", "stars", "observed", "gain", "change", "days_since_previous"
    ),
)

MARKET_DAYS = Table(
    name="market_days",
    description="Store-wide facts per day from star_days: of the repositories whose count was "
    "observed that day and the day before, how many lost stars; and of those observed that day, "
    "how many had a 28-day velocity and how many of those were not gaining.",
    primary_key=("day",),
    group="signals",
    columns=FIELDS.hold(
        "day",
        "repos_compared",
        "repos_losing",
        "share_losing",
        "repos_with_velocity",
        "repos_not_gaining",
    ),
)

TABLES = (STAR_DAYS, MARKET_DAYS)
