"""The facts layer's store-wide spike counts: per day, how many of the store's steadily starred
repositories had a spike day (and how many a removal day) against how many on an ordinary day,
and whether the day is a store-wide event (computed by `shu.signals.market_spikes`, read by the
stories so that no repository's story claims a move the whole store made)."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field(
        "repos_eligible",
        "BIGINT",
        "Repositories with a day-to-day change that day whose median change over the 56 days to "
        "it is at least 10 stars.",
        "repositories",
    ),
    Field(
        "repos_spiking",
        "BIGINT",
        "Of those, repositories whose change that day is a spike day (at least 2x their median "
        "and 10 stars more).",
        "repositories",
    ),
    Field(
        "repos_removing",
        "BIGINT",
        "Of those, repositories whose change that day is a removal day (a loss of at least "
        "max(half their median, 3) stars).",
        "repositories",
    ),
    Field(
        "ordinary_spiking",
        "DOUBLE",
        "Median repos_spiking of the 90 days before the day (NULL without any).",
        "repositories",
    ),
    Field(
        "ordinary_removing",
        "DOUBLE",
        "Median repos_removing of the 90 days before the day (NULL without any).",
        "repositories",
    ),
    Field(
        "store_wide_spike",
        "BOOLEAN",
        "repos_spiking is at least 2.5x ordinary_spiking and at least 20.",
    ),
    Field(
        "store_wide_removal",
        "BOOLEAN",
        "repos_removing is at least 2.5x ordinary_removing and at least 20.",
    ),
)

MARKET_SPIKES = Table(
    name="market_spikes",
    description="Per day of star_days: of the repositories whose median day-to-day gain over "
    "the 56 days to that day is at least 10 stars, how many had a spike day and how many a "
    "removal day (the stories' definitions), the ordinary day's counts (median of the 90 days "
    "before) and whether the day is a store-wide event.",
    primary_key=("day",),
    group="signals",
    notes="Computed by `shu signals` after star_days. A store-wide event: at least 2.5 times the "
    "ordinary day's count and at least 20 repositories (`shu.signals.market_spikes`).",
    columns=FIELDS.hold(
        "day",
        "repos_eligible",
        "repos_spiking",
        "repos_removing",
        "ordinary_spiking",
        "ordinary_removing",
        "store_wide_spike",
        "store_wide_removal",
    ),
)

TABLES = (MARKET_SPIKES,)
