-- commit_signals: commits per day from the default branch, their velocity, acceleration,
-- trailing-year z-score and the 28-day share of commits flagged touches_rocm.
--
-- Which commits count: the first-parent chain of the default branch (is_mainline), i.e. one
-- row per change that landed (a squash-merged PR, a direct push, or a merge commit carrying its
-- branch); commits that arrived only through a merge's second parent are not counted again.
-- For a repository whose commits do not say whether they are mainline (is_mainline NULL on every
-- row, e.g. from an API listing), every non-merge commit counts (parents <= 1).
-- Each counts on its committed_at day (UTC), when it landed on the branch.
-- Coverage: from the repository's first counted commit day to its newest commit day; commit
-- history has no holes in between (a day without commits is 0), later days get no row.
-- z-scores: a spread under 1e-4 counts as none (floating-point residue of identical values;
-- velocities are multiples of 1/w, so a real spread is at least ~0.0019). Writes {target}.

CREATE OR REPLACE {target} AS
WITH policy AS (
    SELECT repo, bool_or(is_mainline IS NOT NULL) AS knows_mainline,
           max(committed_at)::DATE AS newest_day
    FROM commits WHERE committed_at IS NOT NULL GROUP BY repo
), counted AS (
    SELECT c.repo, c.committed_at::DATE AS day, count(*) AS commits_day,
           count(*) FILTER (WHERE c.touches_rocm) AS rocm_commits_day
    FROM commits c JOIN policy p USING (repo)
    WHERE c.committed_at IS NOT NULL
      AND CASE WHEN p.knows_mainline THEN coalesce(c.is_mainline, false)
               ELSE coalesce(c.parents, 1) <= 1 END
    GROUP BY ALL
), grid AS (
    SELECT p.repo, unnest(generate_series(min(c.day), p.newest_day, INTERVAL 1 DAY))::DATE AS day
    FROM counted c JOIN policy p USING (repo)
    GROUP BY p.repo, p.newest_day
), daily AS (
    SELECT g.repo, g.day, coalesce(c.commits_day, 0) AS commits_day,
           coalesce(c.rocm_commits_day, 0) AS rocm_commits_day
    FROM grid g LEFT JOIN counted c USING (repo, day)
), cumulative AS (
    SELECT *, sum(commits_day) OVER w AS commits,
           sum(rocm_commits_day) OVER w AS rocm_commits,
           row_number() OVER w - 1 AS age_days
    FROM daily
    WINDOW w AS (PARTITION BY repo ORDER BY day ROWS UNBOUNDED PRECEDING)
), velocities AS (
    SELECT *,
           CASE WHEN age_days >= 7 THEN (commits - lag(commits, 7) OVER w) / 7.0 END
               AS velocity_7d,
           CASE WHEN age_days >= 28 THEN (commits - lag(commits, 28) OVER w) / 28.0 END
               AS velocity_28d,
           CASE WHEN age_days >= 28 THEN rocm_commits - lag(rocm_commits, 28) OVER w END
               AS rocm_commits_28d
    FROM cumulative
    WINDOW w AS (PARTITION BY repo ORDER BY day)
), accelerations AS (
    SELECT *,
           velocity_7d - lag(velocity_7d, 7) OVER w AS acceleration_7d,
           velocity_28d - lag(velocity_28d, 28) OVER w AS acceleration_28d,
           count(velocity_7d) OVER y AS n7, avg(velocity_7d) OVER y AS mean7,
           stddev_samp(velocity_7d) OVER y AS sd7,
           count(velocity_28d) OVER y AS n28, avg(velocity_28d) OVER y AS mean28,
           stddev_samp(velocity_28d) OVER y AS sd28
    FROM velocities
    WINDOW w AS (PARTITION BY repo ORDER BY day),
           y AS (PARTITION BY repo ORDER BY day ROWS BETWEEN 364 PRECEDING AND CURRENT ROW)
)
SELECT repo::VARCHAR AS repo, day::DATE AS day,
       commits::BIGINT AS commits, commits_day::BIGINT AS commits_day,
       velocity_7d::DOUBLE AS velocity_7d, velocity_28d::DOUBLE AS velocity_28d,
       acceleration_7d::DOUBLE AS acceleration_7d, acceleration_28d::DOUBLE AS acceleration_28d,
       CASE WHEN n7 >= {z_min_values} AND sd7 > 1e-4 THEN (velocity_7d - mean7) / sd7 END
           AS velocity_7d_z,
       CASE WHEN n28 >= {z_min_values} AND sd28 > 1e-4 THEN (velocity_28d - mean28) / sd28 END
           AS velocity_28d_z,
       rocm_commits_28d::BIGINT AS rocm_commits_28d,
       CASE WHEN velocity_28d > 0 THEN rocm_commits_28d / (velocity_28d * 28) END
           AS rocm_share_28d,
       false AS gap
FROM accelerations
