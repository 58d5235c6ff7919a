-- star_signals: velocity, acceleration and trailing-year z-scores of the ASOF star count.
--
-- Reads  {source} (stars_daily, or a slice of it) rows with day >= {from_day} of the
--        repositories of shard {shard} in table
--        _star_signal_repos (repo, rid: dense integer id in repo order, first_dn: day number of
--        its first observation, slice_first_dn: of its first observation on or after
--        {from_day}, shard).
-- Writes the star_signals columns for days numbered >= {emit_from_dn} with `{write}`, from
--        {rows}: _star_trailing_year() (every column) or _star_without_z() (z-scores NULL).
--
-- Method. Day numbers dn count days since 1970-01-01; k = rid * 2^20 + dn orders everything.
--   1. Observations sorted by k; each one knows the start of its "run" (the first observation
--      after the last gap of more than 7 days without one).
--   2. A dense calendar grid per repository, from its first observation to its last one plus 7
--      days (never past the newest day in stars_daily, {max_dn}): stars(t) = the latest
--      observation at or before t, NULL ("stale") when that observation is more than 7 days old.
--   3. The grid is dense, so stars(t - w) is the row w positions back. A window [t-w, t] is
--      defined only when every day in it is fresh, i.e. when t - w is not before the run start:
--      a gap of more than 7 days makes every window that overlaps it NULL.
--   4. z-scores from exact integer running sums of the star deltas d (z is scale free, so
--      z(velocity) = z(delta)) over the trailing 365 days t-364 .. t: sum(t) - sum(t-365), or,
--      while a repository's history in this read is shorter, sum(t) - (the running sum at its
--      first row, where no delta is defined yet; carried over its rows by a running max, as
--      the running sums never decrease). Running sums are the costly windows, so count, sum of
--      d and sum of d^2 travel packed in one HUGEINT, (d + 2^24) * 2^66 + d^2 * 2^9 + 1 per
--      defined delta (|d| < 2^24 is checked): over a year (<= 365 deltas) the count stays
--      below 2^9 and the sum of d^2 below 2^57, so it unpacks as count = packed & 511,
--      sum of d^2 = (packed >> 9) & (2^57 - 1), sum = (packed >> 66) - count * 2^24; the
--      running sum over a whole read stays far below 2^127. Stretches of stale days
--      are shortened to 365 rows: the running sums are constant across them, so a lag of 365
--      rows from after one still lands on the right value.
-- All windows are streaming (one ordered pass, no re-sorting); a row out of order raises.
-- The pandas twin of these definitions is shu/signals/reference.py.

CREATE OR REPLACE TEMP TABLE _star_obs AS
WITH obs AS (
    SELECT r.rid, r.rid::BIGINT * 1048576 + r.first_dn AS first_k,
           r.rid::BIGINT * 1048576 + r.slice_first_dn AS slice_first_k,
           (s.day - DATE '1970-01-01')::INTEGER AS dn, s.stars::BIGINT AS stars
    FROM {source} s JOIN _star_signal_repos r ON r.repo = s.repo
    WHERE s.day >= DATE '{from_day}' AND s.stars IS NOT NULL AND r.shard = {shard}
    ORDER BY r.rid, dn
), neighbours AS (
    SELECT rid, first_k, slice_first_k, dn, stars, rid::BIGINT * 1048576 + dn AS k,
           CASE WHEN lead(rid) OVER () = rid THEN least(lead(dn) OVER () - dn, 8 + 365)
                ELSE least(8, {max_dn} - dn + 1) END AS span,
           coalesce(lag(rid) OVER () <> rid OR dn - lag(dn) OVER () > 8, true) AS opens_run
    FROM obs
)
SELECT rid, first_k, slice_first_k, k, stars, span,
       max(CASE WHEN opens_run THEN k END) OVER (ROWS UNBOUNDED PRECEDING) AS run_start_k
FROM neighbours;

CREATE OR REPLACE TEMP MACRO _star_deltas() AS TABLE
WITH grid AS (
    SELECT rid, first_k, slice_first_k, run_start_k, k + step AS k, step AS age,
           CASE WHEN step <= 7 THEN stars END AS stars
    FROM (SELECT *, unnest(range(0, span)) AS step FROM _star_obs)
), lagged AS (
    SELECT *, lag(k) OVER () AS k_prev,
           lag(stars, 7) OVER () AS stars_7, lag(stars, 14) OVER () AS stars_14,
           lag(stars, 28) OVER () AS stars_28, lag(stars, 56) OVER () AS stars_56,
           lag(stars, 90) OVER () AS stars_90
    FROM grid
), deltas AS (
    SELECT rid, first_k, slice_first_k, k, age, stars,
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
SELECT * FROM deltas;

-- The rows to emit with their packed sums over the trailing year (see 4. above).
CREATE OR REPLACE TEMP MACRO _star_trailing_year() AS TABLE
WITH packed AS (
    SELECT *,
           coalesce(((d7 + 16777216)::HUGEINT << 66) + ((d7 * d7)::HUGEINT << 9) + 1, 0) AS p7,
           coalesce(((d28 + 16777216)::HUGEINT << 66) + ((d28 * d28)::HUGEINT << 9) + 1, 0)
               AS p28,
           CASE WHEN abs(d28) >= 16777216 OR abs(d7) >= 16777216
                THEN error('star_signals: a 28-day star change of 2^24 or more cannot be '
                           || 'packed') END AS range_check
    FROM _star_deltas()
), running AS (
    SELECT *, sum(p7) OVER w AS rp7, sum(p28) OVER w AS rp28
    FROM packed
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
), trailing_year AS (
    SELECT *, k - 365 >= slice_first_k AS has_year,
           lag(rp7, 365) OVER () AS rp7_0, lag(rp28, 365) OVER () AS rp28_0,
           -- running sums at the repository's first row (no delta there yet): they never
           -- decrease, so a running max carries them over its rows
           max(CASE WHEN k = slice_first_k THEN rp7 END) OVER w AS rp7_base,
           max(CASE WHEN k = slice_first_k THEN rp28 END) OVER w AS rp28_base
    FROM running
    WINDOW w AS (ROWS UNBOUNDED PRECEDING)
), windowed AS (
    -- packed sums over t-364 .. t (see 4. above)
    SELECT rid, k, age, stars, gap, order_check, range_check, d7, d28, d90, dd7, dd28,
           rp7 - CASE WHEN has_year THEN rp7_0 ELSE rp7_base END AS tp7,
           rp28 - CASE WHEN has_year THEN rp28_0 ELSE rp28_base END AS tp28
    FROM trailing_year
    WHERE stars IS NOT NULL AND (k & 1048575) >= {emit_from_dn}
       OR order_check IS NOT NULL OR range_check IS NOT NULL
), sums AS (
    SELECT *, (tp7 & 511)::BIGINT AS tn7,
           ((tp7 >> 66)::BIGINT - (tp7 & 511)::BIGINT * 16777216)::DOUBLE AS ts7,
           ((tp7 >> 9) & 144115188075855871)::BIGINT::DOUBLE AS tq7,
           (tp28 & 511)::BIGINT AS tn28,
           ((tp28 >> 66)::BIGINT - (tp28 & 511)::BIGINT * 16777216)::DOUBLE AS ts28,
           ((tp28 >> 9) & 144115188075855871)::BIGINT::DOUBLE AS tq28
    FROM windowed
)
SELECT * FROM sums;

-- The rows to emit without z-scores (the sums NULL): an incremental refresh takes them from
-- the stored trailing year instead (star_zscores_incremental.sql), so it skips the windows.
CREATE OR REPLACE TEMP MACRO _star_without_z() AS TABLE
SELECT rid, k, age, stars, gap, order_check, NULL AS range_check, d7, d28, d90, dd7, dd28,
       NULL::BIGINT AS tn7, NULL::DOUBLE AS ts7, NULL::DOUBLE AS tq7,
       NULL::BIGINT AS tn28, NULL::DOUBLE AS ts28, NULL::DOUBLE AS tq28
FROM _star_deltas()
WHERE stars IS NOT NULL AND (k & 1048575) >= {emit_from_dn} OR order_check IS NOT NULL;

{write}
SELECT r.repo::VARCHAR AS repo,
       (DATE '1970-01-01' + (s.k & 1048575)::INTEGER)::DATE AS day,
       s.stars::BIGINT AS stars,
       s.age::INTEGER AS stars_age_days,
       d7 / 7.0 AS velocity_7d,
       d28 / 28.0 AS velocity_28d,
       d90 / 90.0 AS velocity_90d,
       dd7 / 7.0 AS acceleration_7d,
       dd28 / 28.0 AS acceleration_28d,
       -- z = (d - mean) / sd with mean = s/n, sd^2 = (n q - s^2) / (n (n - 1))
       CASE WHEN tn7 >= {z_min_values} AND tn7 * tq7 > ts7 * ts7
            THEN (tn7 * d7 - ts7) / sqrt((tn7 * tq7 - ts7 * ts7) * tn7 / (tn7 - 1))
       END AS velocity_7d_z,
       CASE WHEN tn28 >= {z_min_values} AND tn28 * tq28 > ts28 * ts28
            THEN (tn28 * d28 - ts28) / sqrt((tn28 * tq28 - ts28 * ts28) * tn28 / (tn28 - 1))
       END AS velocity_28d_z,
       coalesce(s.gap, false) AS gap,
       -- lifecycle phase: rules and thresholds in shu/signals/lifecycle.py
       CASE WHEN d28 IS NULL OR dd28 IS NULL OR s.stars <= 0 THEN NULL
            WHEN d28 * {decline_growth_per} < 28 * s.stars THEN 'decline'
            WHEN d28 * {emerging_growth_per} >= 28 * s.stars AND dd28 >= 0 THEN 'emerging'
            WHEN dd28 * {expansion_acceleration_per} >= d28 THEN 'expansion'
            ELSE 'maturation' END AS lifecycle_phase
FROM {rows} s JOIN _star_signal_repos r USING (rid)
