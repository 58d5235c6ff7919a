-- star_signals, full refresh: every row, from the arrays shu/signals/star_arrays.py computes
-- (same definitions as star_signals.sql).
--
-- Reads  {arrays} (a registered stream of record batches, in (repo, day) order: repo, dn (day
--        number since 1970-01-01), stars, age, the star changes d7 d28 d90 dd7 dd28 with their
--        flags ok7 ok28 ok90 ok14 ok56 (False = NULL), z7 z28 (NaN = NULL), gap).
-- Writes the star_signals columns into {target} (in no particular order: see stars.py).

INSERT INTO {target}
SELECT a.repo, DATE '1970-01-01' + a.dn, a.stars, a.age,
       a.d7 / 7.0, a.d28 / 28.0, a.d90 / 90.0, a.dd7 / 7.0, a.dd28 / 28.0,
       a.z7, a.z28, a.gap,
       -- rule and thresholds: shu/signals/lifecycle.py
       {lifecycle_phase}
FROM (SELECT repo, dn, stars, age,
             CASE WHEN ok7 THEN d7 END AS d7, CASE WHEN ok28 THEN d28 END AS d28,
             CASE WHEN ok90 THEN d90 END AS d90, CASE WHEN ok14 THEN dd7 END AS dd7,
             CASE WHEN ok56 THEN dd28 END AS dd28,
             CASE WHEN NOT isnan(z7) THEN z7 END AS z7,
             CASE WHEN NOT isnan(z28) THEN z28 END AS z28, gap
      FROM {arrays}) a
