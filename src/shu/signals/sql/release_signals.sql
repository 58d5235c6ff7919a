-- Release context from releases, star_signals and commit_signals.
--
-- Writes temp tables _release_signals_new (one row per release) and _release_context_new (one
-- row per repository and day from its first stable release to {end_day}).
--
-- A release's day d is its published_at date (UTC). Lift compares velocities around it, with the
-- star/commit window rules of star_signals / commit_signals (NULL when a window is undefined):
--   before = velocity over the 28 days up to the release day: (x(d) - x(d-28)) / 28
--   after  = velocity over the 14 days after it:              (x(d+14) - x(d)) / 14
--   lift   = after - before;  lift ratio = after / before (when before > 0).
-- The after-window of stars is defined when all 15 days d .. d+14 have a star_signals row (every
-- day fresh), exactly like a 14-day window in star_signals.
-- Cadence counts stable releases only (is_prerelease false or unknown), one per day.

CREATE OR REPLACE TEMP TABLE _release_signals_new AS
WITH rel AS (
    SELECT repo, tag, published_at, published_at::DATE AS day,
           coalesce(is_prerelease, false) AS is_prerelease
    FROM releases WHERE published_at IS NOT NULL
), stable_days AS (
    SELECT DISTINCT repo, day FROM rel WHERE NOT is_prerelease
), stable_prev AS (
    SELECT repo, day, lag(day) OVER (PARTITION BY repo ORDER BY day) AS previous_day
    FROM stable_days
), star_after AS (
    SELECT r.repo, r.day, count(*) AS fresh_days,
           max(s.stars) FILTER (WHERE s.day = r.day + 14) AS stars_end,
           max(s.stars) FILTER (WHERE s.day = r.day) AS stars_start,
           max(s.velocity_28d) FILTER (WHERE s.day = r.day) AS before
    FROM (SELECT DISTINCT repo, day FROM rel) r
    JOIN star_signals s ON s.repo = r.repo AND s.day BETWEEN r.day AND r.day + 14
    GROUP BY ALL
), commit_after AS (
    SELECT r.repo, r.day,
           max(c.commits) FILTER (WHERE c.day = r.day + 14) AS commits_end,
           max(c.commits) FILTER (WHERE c.day = r.day) AS commits_start,
           max(c.commit_velocity_28d) FILTER (WHERE c.day = r.day) AS before
    FROM (SELECT DISTINCT repo, day FROM rel) r
    JOIN commit_signals c ON c.repo = r.repo AND c.day IN (r.day, r.day + 14)
    GROUP BY ALL
), joined AS (
    SELECT rel.repo, rel.tag, rel.published_at, rel.day, rel.is_prerelease,
           (SELECT max(p.day) FROM stable_days p WHERE p.repo = rel.repo AND p.day < rel.day)
               AS previous_stable_day,
           sa.before AS star_velocity_before_28d,
           CASE WHEN sa.fresh_days = 15 THEN (sa.stars_end - sa.stars_start) / 14.0 END
               AS star_velocity_after_14d,
           ca.before AS commit_velocity_before_28d,
           (ca.commits_end - ca.commits_start) / 14.0 AS commit_velocity_after_14d
    FROM rel
    LEFT JOIN star_after sa ON sa.repo = rel.repo AND sa.day = rel.day
    LEFT JOIN commit_after ca ON ca.repo = rel.repo AND ca.day = rel.day
)
SELECT repo, tag, published_at, day, is_prerelease,
       (day - previous_stable_day)::INTEGER AS days_since_previous_release,
       star_velocity_before_28d, star_velocity_after_14d,
       star_velocity_after_14d - star_velocity_before_28d AS star_lift,
       CASE WHEN star_velocity_before_28d > 0
            THEN star_velocity_after_14d / star_velocity_before_28d END AS star_lift_ratio,
       commit_velocity_before_28d, commit_velocity_after_14d,
       commit_velocity_after_14d - commit_velocity_before_28d AS commit_lift
FROM joined;

CREATE OR REPLACE TEMP TABLE _release_context_new AS
WITH stable AS (
    -- of one day's releases, the highest version (signals.reads.VERSION_KEY)
    SELECT repo, published_at::DATE AS day,
           max_by(tag, list_transform(regexp_extract_all(tag, '\d+'), lambda x: x::BIGINT)) AS tag
    FROM releases
    WHERE published_at IS NOT NULL AND NOT coalesce(is_prerelease, false)
    GROUP BY ALL
), intervals AS (
    SELECT *, day - lag(day) OVER (PARTITION BY repo ORDER BY day) AS interval_days
    FROM stable
), cadence AS (
    SELECT *, median(interval_days) OVER (PARTITION BY repo ORDER BY day
                                          ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)
                  AS median_interval_days
    FROM intervals
), grid AS (
    SELECT repo, unnest(generate_series(min(day), DATE '{end_day}', INTERVAL 1 DAY))::DATE AS day
    FROM stable GROUP BY repo HAVING min(day) <= DATE '{end_day}'
), daily AS (
    SELECT g.repo, g.day, (c.day IS NOT NULL)::INTEGER AS released,
           max(c.day) OVER w AS last_release_day,
           sum((c.day IS NOT NULL)::INTEGER) OVER (PARTITION BY g.repo ORDER BY g.day
                                                   ROWS BETWEEN 364 PRECEDING AND CURRENT ROW)
               AS releases_365d
    FROM grid g LEFT JOIN cadence c USING (repo, day)
    WINDOW w AS (PARTITION BY g.repo ORDER BY g.day ROWS UNBOUNDED PRECEDING)
)
SELECT d.repo, d.day, c.tag AS last_release_tag, d.last_release_day,
       (d.day - d.last_release_day)::INTEGER AS days_since_release,
       d.releases_365d::INTEGER AS releases_365d,
       c.median_interval_days::DOUBLE AS median_interval_days
FROM daily d LEFT JOIN cadence c ON c.repo = d.repo AND c.day = d.last_release_day
