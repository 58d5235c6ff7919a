-- Incremental refresh only: recompute the z-scores of the new rows in _star_signals_new (days
-- {emit_from} .. {max_day}) from the stored star_signals history plus the new rows themselves,
-- with the same exact integer sums and formula as the full refresh (shu/signals/star_arrays.py).
-- The new rows were computed from a short read (velocity windows only); this is what lets an
-- incremental refresh read 100 days of input instead of 400.
-- Stored days {common_from} .. the day before {emit_from} lie in the trailing year of every new
-- day, so they are summed once per repository, apart ({common}: star_year_common.sql); only
-- older stored days ({history_from} ..) and the new days are matched day by day.

CREATE OR REPLACE TEMP TABLE _star_signals_new AS
WITH edges AS (
    SELECT repo, day, round(velocity_7d * 7) AS d7, round(velocity_28d * 28) AS d28
    FROM star_signals WHERE day >= DATE '{history_from}' AND day < DATE '{common_from}'
    UNION ALL
    SELECT repo, day, round(velocity_7d * 7), round(velocity_28d * 28) FROM _star_signals_new
), edge_sums AS (
    SELECT n.repo, n.day,
           count(e.d7) AS n7, sum(e.d7) AS s7, sum(e.d7 * e.d7) AS q7,
           count(e.d28) AS n28, sum(e.d28) AS s28, sum(e.d28 * e.d28) AS q28
    FROM _star_signals_new n
    JOIN edges e ON e.repo = n.repo AND e.day > n.day - 365 AND e.day <= n.day
    GROUP BY n.repo, n.day
), sums AS (
    SELECT e.repo, e.day,
           e.n7 + coalesce(c.n7, 0) AS tn7, e.s7 + coalesce(c.s7, 0) AS ts7,
           e.q7 + coalesce(c.q7, 0) AS tq7,
           e.n28 + coalesce(c.n28, 0) AS tn28, e.s28 + coalesce(c.s28, 0) AS ts28,
           e.q28 + coalesce(c.q28, 0) AS tq28
    FROM edge_sums e LEFT JOIN {common} c USING (repo)
), z AS (
    SELECT s.repo, s.day,
           CASE WHEN tn7 >= {z_min_values} AND tn7 * tq7 > ts7 * ts7
                THEN (tn7 * round(n.velocity_7d * 7) - ts7)
                     / sqrt((tn7 * tq7 - ts7 * ts7) * tn7 / (tn7 - 1)) END AS velocity_7d_z,
           CASE WHEN tn28 >= {z_min_values} AND tn28 * tq28 > ts28 * ts28
                THEN (tn28 * round(n.velocity_28d * 28) - ts28)
                     / sqrt((tn28 * tq28 - ts28 * ts28) * tn28 / (tn28 - 1)) END AS velocity_28d_z
    FROM sums s JOIN _star_signals_new n USING (repo, day)
)
SELECT n.* REPLACE (z.velocity_7d_z AS velocity_7d_z, z.velocity_28d_z AS velocity_28d_z)
FROM _star_signals_new n LEFT JOIN z USING (repo, day)
