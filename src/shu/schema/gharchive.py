"""GH Archive tables: per-day stars, activity and tags for every repository seen in the archive.

Filled by `shu ingest gharchive` (`shu.sources.gharchive`) from hourly event files; releases go
into `releases` with source 'gharchive'. Unstars are invisible in GH Archive (there is no
"unstarred" event), so these are stars *given*, never net counts.
"""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field(
        "pushes",
        "BIGINT",
        "PushEvents that day (one per `git push`, not per commit).",
        "pushes",
    ),
    Field("tags_created", "BIGINT", "CreateEvents with ref_type 'tag' that day.", "tags"),
    Field(
        "releases_published",
        "BIGINT",
        "ReleaseEvents with action 'published' that day.",
        "releases",
    ),
    Field("stars_28d", "BIGINT", "Stars given in (as_of - 28, as_of].", "stars"),
    Field("stars_prev_28d", "BIGINT", "Stars given in (as_of - 56, as_of - 28].", "stars"),
    Field(
        "size_stars",
        "BIGINT",
        "Latest anchored count from `stars_daily` (ranking/API), "
        "else stars given seen in GH Archive (a lower bound).",
        "stars",
    ),
    Field("size_source", "VARCHAR", "'stars_daily' or 'gharchive-lower-bound'."),
    Field("rank", "BIGINT", "1 = most accelerating."),
)

STARS_ADDED_DAILY = Table(
    name="stars_added_daily",
    description="Stars given per repository and UTC day, counted from GH Archive `WatchEvent`s "
    "(every repository, not only tracked ones). Unstars are invisible in GH Archive, so this is "
    "a gross count, and since 2025 GH Archive misses part of the stars (well under half are "
    "captured): a sample, not a count. Absence on a loaded day means none seen.",
    primary_key=("repo", "day"),
    group="gharchive",
    columns=FIELDS.hold(
        "repo",
        "day",
        "stars_added",
        "source",
        described={
            "day": "UTC day of the events.",
            "stars_added": "WatchEvents (stars given) that day; unstars not subtracted.",
            "source": "'gharchive'.",
        },
    ),
)

ACTIVITY_DAILY = Table(
    name="activity_daily",
    description="Activity per repository and UTC day from GH Archive: pushes, tags created and "
    "releases published (every repository with any of these events that day).",
    primary_key=("repo", "day"),
    group="gharchive",
    columns=FIELDS.hold(
        "repo",
        "day",
        "pushes",
        "tags_created",
        "releases_published",
        "source",
        described={
            "day": "UTC day of the events.",
            "source": "'gharchive'.",
        },
    ),
)

TAGS_CREATED = Table(
    name="tags_created",
    description="Git tags created, from GH Archive `CreateEvent`s with ref_type 'tag' (first "
    "creation kept when a tag is deleted and re-created).",
    primary_key=("repo", "tag"),
    group="gharchive",
    columns=FIELDS.hold(
        "repo",
        "tag",
        "created_at",
        "source",
        described={
            "tag": "Tag name as pushed (untrusted text).",
            "created_at": "Event time (UTC) of the first creation seen.",
            "source": "'gharchive'.",
        },
    ),
)

TRENDING_MIN_STARS = 1000

_TRENDING_SQL = f"""
WITH latest AS (SELECT max(day) AS as_of FROM stars_added_daily),
windows AS (
  SELECT s.repo, l.as_of,
         coalesce(sum(s.stars_added) FILTER (WHERE s.day > l.as_of - 28), 0)::BIGINT
           AS stars_28d,
         coalesce(sum(s.stars_added) FILTER (WHERE s.day <= l.as_of - 28), 0)::BIGINT
           AS stars_prev_28d
  FROM stars_added_daily s, latest l
  WHERE s.day > l.as_of - 56
  GROUP BY s.repo, l.as_of),
seen AS (SELECT repo, sum(stars_added)::BIGINT AS stars_seen FROM stars_added_daily GROUP BY repo),
anchored AS (
  SELECT repo, arg_max(stars, day) AS stars FROM stars_daily
  WHERE source <> 'gharchive' AND stars IS NOT NULL GROUP BY repo),
sized AS (
  SELECT w.*, coalesce(a.stars, s.stars_seen) AS size_stars,
         CASE WHEN a.stars IS NULL THEN 'gharchive-lower-bound' ELSE 'stars_daily' END
           AS size_source
  FROM windows w JOIN seen s USING (repo) LEFT JOIN anchored a USING (repo))
SELECT repo, as_of, stars_28d, stars_prev_28d,
       round(stars_28d / 28.0, 3) AS velocity_28d,
       round((stars_28d - stars_prev_28d) / 28.0, 3) AS acceleration_28d,
       size_stars, size_source,
       row_number() OVER (ORDER BY stars_28d - stars_prev_28d DESC, repo) AS rank
FROM sized
WHERE size_stars >= {TRENDING_MIN_STARS} AND stars_28d > stars_prev_28d
ORDER BY rank
"""

GHARCHIVE_TRENDING = Table(
    name="gharchive_trending",
    description="Top accelerating repositories over the last 28 days of GH Archive data (every "
    f"repository of at least {TRENDING_MIN_STARS:,} stars): stars given in the last 28 days "
    "against the 28 before, ending on the latest loaded day. Gross stars (unstars invisible).",
    group="gharchive",
    view_sql=_TRENDING_SQL,
    columns=FIELDS.hold(
        "repo",
        "as_of",
        "stars_28d",
        "stars_prev_28d",
        "velocity_28d",
        "acceleration_28d",
        "size_stars",
        "size_source",
        "rank",
        described={
            "as_of": "Latest day in `stars_added_daily` (the window's end).",
            "velocity_28d": "stars_28d / 28.",
            "acceleration_28d": "(stars_28d - stars_prev_28d) / 28: change in the 28-day velocity.",
        },
    ),
)

TABLES = (STARS_ADDED_DAILY, ACTIVITY_DAILY, TAGS_CREATED, GHARCHIVE_TRENDING)
