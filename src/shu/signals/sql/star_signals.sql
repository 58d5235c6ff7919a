-- star_signals: velocity, acceleration and trailing-year z-scores of the ASOF star count.
--
-- Reads  stars_daily rows with day >= {from_day} of the repositories in temp table _signal_repos
--        (repo, rid: dense integer id in repo order).
-- Writes temp table _star_calc: rows with day number >= {emit_from_dn}, plus any row found out of
--        order (flag `misordered`; the runner refuses to write when there is one).
--
-- Method (all windows are streaming, i.e. one ordered pass, no per-repo sort):
--   1. Observations ordered by (repo id, day).
--   2. A dense calendar grid per repository, from its first observation to its last one plus 7
--      days (never past the newest day in stars_daily): stars(t) = the latest observation at or
--      before t, and NULL ("stale") when that observation is more than 7 days old.
--   3. Because the grid is dense, stars(t - w) is the row w positions back (same repository).
--      A window [t-w, t] is defined only when every day in it has a fresh (<= 7 days old)
--      observation; equivalently no stale day lies in it: so a gap longer than 7 days between
--      two observations makes every window that overlaps it NULL.
--   4. Trailing-year z-scores from exact integer running sums of the star deltas (z is scale
--      free, so z(velocity) = z(delta)) over the 365 days (t-364 .. t).
-- Definitions, thresholds and their pandas twin: shu/signals/reference.py and DESIGN.md.

CREATE OR REPLACE TEMP TABLE _star_obs AS
SELECT r.rid, (s.day - DATE '1970-01-01')::INTEGER AS dn, s.stars::BIGINT AS stars
FROM stars_daily s
JOIN _signal_repos r ON r.repo = s.repo
WHERE s.day >= DATE '{from_day}' AND s.stars IS NOT NULL
ORDER BY r.rid, dn;

CREATE OR REPLACE TEMP TABLE _star_grid AS
SELECT rid, (dn + step)::INTEGER AS dn, CASE WHEN step <= 7 THEN stars END AS stars,
       step::INTEGER AS stars_age_days
FROM (
    SELECT rid, dn, stars,
           unnest(range(0, CASE WHEN lead(rid) OVER () = rid THEN lead(dn) OVER () - dn
                                ELSE least(8, {max_dn} - dn + 1)
                           END)) AS step
    FROM _star_obs
);

CREATE OR REPLACE TEMP TABLE _star_calc AS
WITH lagged AS (
    SELECT rid, dn, stars, stars_age_days,
           rid::BIGINT * 1048576 + dn AS k,
           lag(rid::BIGINT * 1048576 + dn) OVER () AS k_prev,
           max(CASE WHEN stars IS NULL THEN rid::BIGINT * 1048576 + dn END)
               OVER (ROWS UNBOUNDED PRECEDING) AS k_last_stale,
           lag(rid, 7) OVER () = rid AS has_7, lag(stars, 7) OVER () AS stars_7,
           lag(rid, 14) OVER () = rid AS has_14, lag(stars, 14) OVER () AS stars_14,
           lag(rid, 28) OVER () = rid AS has_28, lag(stars, 28) OVER () AS stars_28,
           lag(rid, 56) OVER () = rid AS has_56, lag(stars, 56) OVER () AS stars_56,
           lag(rid, 365) OVER () = rid AS has_365
    FROM _star_grid
), windowed AS (
    -- a window of w days is defined when the grid reaches t-w and no stale day lies in it
    SELECT *,
           coalesce(has_7, false) AND coalesce(k_last_stale < k - 7, true) AS ok_7,
           coalesce(has_14, false) AND coalesce(k_last_stale < k - 14, true) AS ok_14,
           coalesce(has_28, false) AND coalesce(k_last_stale < k - 28, true) AS ok_28,
           coalesce(has_56, false) AND coalesce(k_last_stale < k - 56, true) AS ok_56
    FROM lagged
), deltas AS (
    SELECT rid, dn, stars, stars_age_days, k, k_prev, has_365,
           coalesce(k_prev >> 20 <> rid, true) AS is_first,
           CASE WHEN ok_7 THEN stars - stars_7 END AS delta_7,
           CASE WHEN ok_28 THEN stars - stars_28 END AS delta_28,
           CASE WHEN ok_14 THEN stars - 2 * stars_7 + stars_14 END AS delta2_7,
           CASE WHEN ok_56 THEN stars - 2 * stars_28 + stars_56 END AS delta2_28,
           -- NULL because of a gap, not because the history is too short
           (coalesce(has_7, false) AND NOT ok_7) OR (coalesce(has_14, false) AND NOT ok_14)
           OR (coalesce(has_28, false) AND NOT ok_28) OR (coalesce(has_56, false) AND NOT ok_56)
               AS gap
    FROM windowed
), running AS (
    -- running sums over the whole ordered grid; integers held exactly in DOUBLE (< 2^53)
    SELECT *,
           count(delta_7) OVER w AS n_7, sum(coalesce(delta_7, 0)::DOUBLE) OVER w AS s_7,
           sum(coalesce(delta_7 * delta_7, 0)::DOUBLE) OVER w AS q_7,
           count(delta_28) OVER w AS n_28, sum(coalesce(delta_28, 0)::DOUBLE) OVER w AS s_28,
           sum(coalesce(delta_28 * delta_28, 0)::DOUBLE) OVER w AS q_28
    FROM deltas
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
), trailing_year AS (
    -- sums over the trailing 365 days = running(t) - running(t-365), or - running(just before
    -- the repository's first day) when its grid starts later than t-364
    SELECT rid, dn, stars, stars_age_days, k, k_prev, gap,
           delta_7, delta_28, delta2_7, delta2_28,
           n_7 - CASE WHEN has_365 THEN lag(n_7, 365) OVER () ELSE arg_max(
               n_7 - (delta_7 IS NOT NULL)::INT, CASE WHEN is_first THEN k END) OVER w END AS tn_7,
           s_7 - CASE WHEN has_365 THEN lag(s_7, 365) OVER () ELSE arg_max(
               coalesce(s_7 - coalesce(delta_7, 0), 0), CASE WHEN is_first THEN k END) OVER w END
               AS ts_7,
           q_7 - CASE WHEN has_365 THEN lag(q_7, 365) OVER () ELSE arg_max(
               coalesce(q_7 - coalesce(delta_7 * delta_7, 0), 0), CASE WHEN is_first THEN k END)
               OVER w END AS tq_7,
           n_28 - CASE WHEN has_365 THEN lag(n_28, 365) OVER () ELSE arg_max(
               n_28 - (delta_28 IS NOT NULL)::INT, CASE WHEN is_first THEN k END) OVER w END
               AS tn_28,
           s_28 - CASE WHEN has_365 THEN lag(s_28, 365) OVER () ELSE arg_max(
               coalesce(s_28 - coalesce(delta_28, 0), 0), CASE WHEN is_first THEN k END) OVER w END
               AS ts_28,
           q_28 - CASE WHEN has_365 THEN lag(q_28, 365) OVER () ELSE arg_max(
               coalesce(q_28 - coalesce(delta_28 * delta_28, 0), 0), CASE WHEN is_first THEN k END)
               OVER w END AS tq_28
    FROM running
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
)
SELECT rid, dn, stars, stars_age_days, gap, coalesce(k_prev >= k, false) AS misordered,
       delta_7 / 7.0 AS velocity_7d,
       delta_28 / 28.0 AS velocity_28d,
       delta2_7 / 7.0 AS acceleration_7d,
       delta2_28 / 28.0 AS acceleration_28d,
       CASE WHEN tn_7 >= {z_min_values} AND tn_7 * tq_7 > ts_7 * ts_7
            THEN (tn_7 * delta_7 - ts_7)::DOUBLE
                 / sqrt((tn_7 * tq_7 - ts_7 * ts_7)::DOUBLE * tn_7 / (tn_7 - 1)) END
           AS velocity_7d_z,
       CASE WHEN tn_28 >= {z_min_values} AND tn_28 * tq_28 > ts_28 * ts_28
            THEN (tn_28 * delta_28 - ts_28)::DOUBLE
                 / sqrt((tn_28 * tq_28 - ts_28 * ts_28)::DOUBLE * tn_28 / (tn_28 - 1)) END
           AS velocity_28d_z
FROM trailing_year
WHERE (stars IS NOT NULL AND dn >= {emit_from_dn}) OR k_prev >= k;
