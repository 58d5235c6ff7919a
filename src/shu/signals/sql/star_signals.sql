-- star_signals, incremental refresh: velocity, acceleration, gap and lifecycle phase of the
-- ASOF star count for the new days (z-scores: star_zscores_incremental.sql). A full refresh
-- computes every column with numpy instead (shu/signals/star_arrays.py, same definitions).
--
-- Reads  _star_slice (repo, day, stars: the stars_daily rows from {from_day} on, non-NULL) of
--        the repositories in temp table _star_signal_repos (repo, rid: dense integer id in repo
--        order, first_dn: day number of its first observation).
-- Writes temp table _star_signals_new: the star_signals columns for days numbered >=
--        {emit_from_dn}, z-scores NULL.
--
-- Method. Day numbers dn count days since 1970-01-01; k = rid * 2^20 + dn orders everything.
--   1. Observations sorted by k; each one knows the start of its "run" (the first observation
--      after the last gap of more than 7 days without one).
--   2. A grid of the fresh days of each repository: each observation holds for up to 8 days
--      (ages 0..7), until the next one and never past the newest day in stars_daily, {max_dn}.
--   3. Inside a run the grid's days are consecutive, so stars(t - w) is the row w positions
--      back. A window [t-w, t] is defined only when every day in it is fresh, i.e. when t - w is
--      not before the run start: a gap of more than 7 days makes every window that overlaps it
--      NULL.
-- All windows are streaming (one ordered pass, no re-sorting); a row out of order raises.
-- The pandas twin of these definitions is shu/signals/reference.py.

CREATE OR REPLACE TEMP TABLE _star_obs AS
WITH obs AS (
    SELECT r.rid, r.rid::BIGINT * 1048576 + r.first_dn AS first_k,
           (s.day - DATE '1970-01-01')::INTEGER AS dn, s.stars::BIGINT AS stars
    FROM _star_slice s JOIN _star_signal_repos r ON r.repo = s.repo
    ORDER BY r.rid, dn
), neighbours AS (
    SELECT rid, first_k, dn, stars, rid::BIGINT * 1048576 + dn AS k,
           CASE WHEN lead(rid) OVER () = rid THEN least(lead(dn) OVER () - dn, 8)
                ELSE least(8, {max_dn} - dn + 1) END AS span,
           coalesce(lag(rid) OVER () <> rid OR dn - lag(dn) OVER () > 8, true) AS opens_run
    FROM obs
)
SELECT rid, first_k, k, stars, span,
       max(CASE WHEN opens_run THEN k END) OVER (ROWS UNBOUNDED PRECEDING) AS run_start_k
FROM neighbours;

CREATE OR REPLACE TEMP TABLE _star_signals_new AS
WITH grid AS (
    SELECT rid, first_k, run_start_k, k + step AS k, step AS age, stars
    FROM (SELECT *, unnest(range(0, span)) AS step FROM _star_obs)
), lagged AS (
    SELECT *, lag(k) OVER () AS k_prev,
           lag(stars, 7) OVER () AS stars_7, lag(stars, 14) OVER () AS stars_14,
           lag(stars, 28) OVER () AS stars_28, lag(stars, 56) OVER () AS stars_56,
           lag(stars, 90) OVER () AS stars_90
    FROM grid
), deltas AS (
    SELECT rid, k, age, stars,
           CASE WHEN k_prev >= k THEN error('star_signals: grid rows out of order') END
               AS order_check,
           CASE WHEN k - 7 >= run_start_k THEN stars - stars_7 END AS d7,
           CASE WHEN k - 28 >= run_start_k THEN stars - stars_28 END AS d28,
           CASE WHEN k - 90 >= run_start_k THEN stars - stars_90 END AS d90,
           CASE WHEN k - 14 >= run_start_k THEN stars - 2 * stars_7 + stars_14 END AS dd7,
           CASE WHEN k - 56 >= run_start_k THEN stars - 2 * stars_28 + stars_56 END AS dd28,
           -- NULL because a window reaches a stale day after the first observation (a gap),
           -- not because the history is too short (the 7- and 28-day windows and their
           -- accelerations; velocity_90d is not flagged)
           k - 7 >= first_k AND k - 7 < run_start_k OR k - 14 >= first_k AND k - 14 < run_start_k
           OR k - 28 >= first_k AND k - 28 < run_start_k
           OR k - 56 >= first_k AND k - 56 < run_start_k AS gap
    FROM lagged
)
SELECT r.repo::VARCHAR AS repo,
       (DATE '1970-01-01' + (s.k & 1048575)::INTEGER)::DATE AS day,
       s.stars::BIGINT AS stars,
       s.age::INTEGER AS stars_age_days,
       d7 / 7.0 AS velocity_7d,
       d28 / 28.0 AS velocity_28d,
       d90 / 90.0 AS velocity_90d,
       dd7 / 7.0 AS acceleration_7d,
       dd28 / 28.0 AS acceleration_28d,
       NULL::DOUBLE AS velocity_7d_z,
       NULL::DOUBLE AS velocity_28d_z,
       s.gap,
       -- rule and thresholds: shu/signals/lifecycle.py
       {lifecycle_phase} AS lifecycle_phase
FROM deltas s JOIN _star_signal_repos r USING (rid)
WHERE (s.k & 1048575) >= {emit_from_dn} OR order_check IS NOT NULL
