-- rocm_index_repos: per repository and day, the counted commits of the 90 days ending on the
-- day (all / touching ROCm, all authors / non-bot), releases mentioning ROCm in the trailing
-- year, and the repository's first ROCm commit once it has landed. The view `rocm_index`
-- (shu/schema/rocm_index.py) adds the rows of a day up.
--
-- Which commits count, the ROCm flag, and the daily grid (from a repository's first counted
-- commit day to its newest commit day, no holes): `COUNTED_COMMITS_SQL` in
-- shu/signals/commits.py, filled in as {counted_commits} in its COUNTED_ONCE_SQL form: a commit
-- copied into several repositories (same sha, or same author, author time and subject) counts
-- once, in the repository where it landed first. A row exists only while the history
-- covers its whole 90-day window: day >= first counted day + 89 and day <= newest day.
-- First-time adopter: the first ROCm commit landed on a day the repository already had a row
-- (89 ROCm-free days of history before it). AMD's own: the owner is one of {amd_owners} (a quoted,
-- lower-case list). {rocm_pattern} is the ROCm pattern as a quoted RE2 literal. Writes {target}.

CREATE OR REPLACE {target} AS
WITH {counted_commits}, span AS (
    SELECT repo, min(day) AS first_day FROM daily GROUP BY repo
), firsts AS (
    SELECT repo, min(day) AS first_rocm_day,
           first(sha ORDER BY committed_at, sha) AS first_rocm_sha
    FROM counted_rows WHERE rocm GROUP BY repo
), rocm_release_days AS (
    SELECT r.repo, r.published_at::DATE AS day, count(*) AS releases_day
    FROM releases r
    WHERE r.published_at IS NOT NULL AND r.repo IN (SELECT repo FROM span)
      AND regexp_matches(coalesce(r.name, '') || chr(10) || coalesce(r.body, ''), {rocm_pattern})
    GROUP BY ALL
), windows AS (
    SELECT d.repo, d.day,
           sum(d.commits_day) OVER w90 AS commits_90d,
           sum(d.rocm_commits_day) OVER w90 AS rocm_commits_90d,
           sum(d.nonbot_commits_day) OVER w90 AS nonbot_commits_90d,
           sum(d.nonbot_rocm_commits_day) OVER w90 AS nonbot_rocm_commits_90d,
           sum(coalesce(r.releases_day, 0)) OVER w365 AS rocm_releases_365d
    FROM daily d LEFT JOIN rocm_release_days r USING (repo, day)
    WINDOW w90 AS (PARTITION BY d.repo ORDER BY d.day ROWS BETWEEN 89 PRECEDING AND CURRENT ROW),
           w365 AS (PARTITION BY d.repo ORDER BY d.day
                    ROWS BETWEEN 364 PRECEDING AND CURRENT ROW)
)
SELECT w.repo::VARCHAR AS repo, w.day::DATE AS day,
       w.commits_90d::BIGINT AS commits_90d, w.rocm_commits_90d::BIGINT AS rocm_commits_90d,
       w.nonbot_commits_90d::BIGINT AS nonbot_commits_90d,
       w.nonbot_rocm_commits_90d::BIGINT AS nonbot_rocm_commits_90d,
       w.rocm_releases_365d::BIGINT AS rocm_releases_365d,
       CASE WHEN f.first_rocm_day <= w.day THEN f.first_rocm_day END AS first_rocm_day,
       CASE WHEN f.first_rocm_day <= w.day THEN f.first_rocm_sha END AS first_rocm_sha,
       coalesce(f.first_rocm_day <= w.day AND f.first_rocm_day >= s.first_day + 89, false)
           AS first_time_adopter,
       list_contains({amd_owners}, lower(split_part(w.repo, '/', 1))) AS amd_own
FROM windows w JOIN span s USING (repo) LEFT JOIN firsts f USING (repo)
WHERE w.day >= s.first_day + 89
ORDER BY w.repo, w.day
