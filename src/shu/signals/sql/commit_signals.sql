-- commit_signals: commits per day from the default branch, their velocity, acceleration,
-- trailing-year z-score and the 28-day share of commits flagged touches_rocm.
--
-- Which commits count, and the daily grid they are counted on (from a repository's first
-- counted commit day to its newest commit day, no holes): `COUNTED_COMMITS_SQL` in
-- shu/signals/commits.py, filled in as {counted_commits} (shared with the ROCm questions).
-- z-scores: a spread under 1e-4 counts as none (floating-point residue of identical values;
-- velocities are multiples of 1/w, so a real spread is at least ~0.0019). Writes {target}.

CREATE OR REPLACE {target} AS
WITH {counted_commits}, cumulative AS (
    SELECT *, sum(commits_day) OVER w AS commits,
           sum(rocm_commits_day) OVER w AS rocm_commits,
           row_number() OVER w - 1 AS age_days
    FROM daily
    WINDOW w AS (PARTITION BY repo ORDER BY day ROWS UNBOUNDED PRECEDING)
), velocities AS (
    SELECT *,
           CASE WHEN age_days >= 7 THEN (commits - lag(commits, 7) OVER w) / 7.0 END
               AS commit_velocity_7d,
           CASE WHEN age_days >= 28 THEN (commits - lag(commits, 28) OVER w) / 28.0 END
               AS commit_velocity_28d,
           CASE WHEN age_days >= 28 THEN rocm_commits - lag(rocm_commits, 28) OVER w END
               AS rocm_commits_28d
    FROM cumulative
    WINDOW w AS (PARTITION BY repo ORDER BY day)
), accelerations AS (
    SELECT *,
           commit_velocity_7d - lag(commit_velocity_7d, 7) OVER w AS commit_acceleration_7d,
           commit_velocity_28d - lag(commit_velocity_28d, 28) OVER w AS commit_acceleration_28d,
           count(commit_velocity_7d) OVER y AS n7, avg(commit_velocity_7d) OVER y AS mean7,
           stddev_samp(commit_velocity_7d) OVER y AS sd7,
           count(commit_velocity_28d) OVER y AS n28, avg(commit_velocity_28d) OVER y AS mean28,
           stddev_samp(commit_velocity_28d) OVER y AS sd28
    FROM velocities
    WINDOW w AS (PARTITION BY repo ORDER BY day),
           y AS (PARTITION BY repo ORDER BY day ROWS BETWEEN 364 PRECEDING AND CURRENT ROW)
)
SELECT repo::VARCHAR AS repo, day::DATE AS day,
       commits::BIGINT AS commits, commits_day::BIGINT AS commits_day,
       commit_velocity_7d::DOUBLE AS commit_velocity_7d,
       commit_velocity_28d::DOUBLE AS commit_velocity_28d,
       commit_acceleration_7d::DOUBLE AS commit_acceleration_7d,
       commit_acceleration_28d::DOUBLE AS commit_acceleration_28d,
       CASE WHEN n7 >= {z_min_values} AND sd7 > 1e-4 THEN (commit_velocity_7d - mean7) / sd7 END
           AS commit_velocity_7d_z,
       CASE WHEN n28 >= {z_min_values} AND sd28 > 1e-4
            THEN (commit_velocity_28d - mean28) / sd28 END AS commit_velocity_28d_z,
       rocm_commits_28d::BIGINT AS rocm_commits_28d,
       CASE WHEN commit_velocity_28d > 0 THEN rocm_commits_28d / (commit_velocity_28d * 28) END
           AS rocm_share_28d,
       false AS gap
FROM accelerations
