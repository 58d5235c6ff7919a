-- star_signals, full refresh: every row, from the arrays shu/signals/star_arrays.py computes
-- (same definitions as star_signals.sql).
--
-- Reads  {arrays} (a registered stream of record batches, in (repo, day) order: repo, dn (day
--        number since 1970-01-01), stars, age, the star changes d7 d28 d90 dd7 dd28 with their
--        flags ok7 ok28 ok90 ok14 ok56 (False = NULL), z7 z28 (NaN = NULL), gap).
-- Gives  the star_signals columns, by name (shu/signals/star_full.py casts them to the declared
--        types, then inserts them, or digests them to compare with the stored rows).

SELECT a.repo, DATE '1970-01-01' + a.dn AS day, a.stars, a.age AS stars_age_days,
       a.d7 / 7.0 AS velocity_7d, a.d28 / 28.0 AS velocity_28d, a.d90 / 90.0 AS velocity_90d,
       a.dd7 / 7.0 AS acceleration_7d, a.dd28 / 28.0 AS acceleration_28d,
       a.z7 AS velocity_7d_z, a.z28 AS velocity_28d_z, a.gap,
       -- rule and thresholds: shu/signals/lifecycle.py
       {lifecycle_phase} AS lifecycle_phase
FROM (SELECT repo, dn, stars, age,
             CASE WHEN ok7 THEN d7 END AS d7, CASE WHEN ok28 THEN d28 END AS d28,
             CASE WHEN ok90 THEN d90 END AS d90, CASE WHEN ok14 THEN dd7 END AS dd7,
             CASE WHEN ok56 THEN dd28 END AS dd28,
             CASE WHEN NOT isnan(z7) THEN z7 END AS z7,
             CASE WHEN NOT isnan(z28) THEN z28 END AS z28, gap
      FROM {arrays}) a
