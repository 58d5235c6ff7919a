-- Incremental refresh only: per repository, the count, sum and sum of squares of the 7- and
-- 28-day star changes d of the stored days {common_from} .. the day before {emit_from}, which lie
-- in the trailing year of every new day (star_zscores_incremental.sql adds the other days). It
-- reads only stored rows, so stars.py runs it on a connection of its own while the velocity
-- windows of the new days run (one core each).
--
-- Reads  star_signals. Returns repo, n7, s7, q7, n28, s28, q28 (sums in DOUBLE: exact integers).

SELECT repo, count(d7) AS n7, sum(d7) AS s7, sum(d7 * d7) AS q7,
       count(d28) AS n28, sum(d28) AS s28, sum(d28 * d28) AS q28
FROM (SELECT repo, round(velocity_7d * 7) AS d7, round(velocity_28d * 28) AS d28
      FROM star_signals WHERE day >= DATE '{common_from}' AND day < DATE '{emit_from}')
GROUP BY repo
