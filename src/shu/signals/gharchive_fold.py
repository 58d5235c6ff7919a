"""Folds GH Archive's stars-given counts into `stars_daily` where a repository has an anchor.

GH Archive gives stars *added* per day (`stars_added_daily`), never a total; it never shows an
unstar, and in 2025-2026 it captures only part of the WatchEvents (under half; reported in
igrigorik/gharchive.org#310 and #320). A repository with an anchor, i.e. an observed total in
`stars_daily` from a ranking snapshot or the GitHub API (`stargazers_count`), gets a
`stars_daily` row with `source = 'gharchive'` for every fully loaded GH Archive day that has no
observed row:

- between two anchors A < d < B: stars(A) + (stars(B) - stars(A)) * added(A, d] / added(A, B]
  (the observed change, distributed in proportion to the stars GH Archive saw each day; by
  days when it saw none), so the derived series meets both observations whatever the capture
  rate and the unstars;
- after the last anchor A: stars(A) + added(A, d]; before the first anchor B:
  stars(B) - added(d, B]. These use the raw counts, so they understate growth by the archive's
  missing events (and ignore unstars).

Only unbroken runs of fully loaded days (all 24 hourly files in `ingest_log`) are used, so a
hole in the archive never makes a count up. Observed values always win: rows from rankings or
the API are never touched, and a later ranking/API load overwrites a 'gharchive' row. Each call
recomputes every 'gharchive' row (idempotent).
"""

from __future__ import annotations

from shu.sources.gharchive import SOURCE
from shu.store import Store

FILE_NAME = r"^(\d{4}-\d{2}-\d{2})-(\d{1,2})\.json\.gz$"

_FOLD_SQL = f"""
WITH covered AS (
  SELECT CAST(regexp_extract(target, '{FILE_NAME}', 1) AS DATE) AS day
  FROM ingest_log
  WHERE source = '{SOURCE}' AND status = 'ok' AND regexp_matches(target, '{FILE_NAME}')
  GROUP BY 1 HAVING count(DISTINCT regexp_extract(target, '{FILE_NAME}', 2)) = 24),
runs AS (
  SELECT day, day - CAST(row_number() OVER (ORDER BY day) AS INTEGER) AS run FROM covered),
bounds AS (SELECT run, min(day) AS first_day, max(day) AS last_day FROM runs GROUP BY run),
anchors AS (
  SELECT repo, day, stars FROM stars_daily
  WHERE source IS DISTINCT FROM '{SOURCE}' AND stars IS NOT NULL),
grid AS (
  SELECT r.repo, c.day, c.run, coalesce(s.stars_added, 0) AS added
  FROM (SELECT DISTINCT repo FROM anchors) r CROSS JOIN runs c
  LEFT JOIN stars_added_daily s ON s.repo = r.repo AND s.day = c.day),
cum AS (
  SELECT repo, day, run, sum(added) OVER (PARTITION BY repo, run ORDER BY day) AS total
  FROM grid),
targets AS (
  SELECT c.*, b.first_day, b.last_day FROM cum c JOIN bounds b USING (run)
  WHERE NOT EXISTS (SELECT 1 FROM anchors a WHERE a.repo = c.repo AND a.day = c.day)),
before AS (
  SELECT t.repo, t.day, a.day AS anchor_day, a.stars AS anchor_stars FROM targets t
  ASOF JOIN anchors a ON a.repo = t.repo AND a.day <= t.day
  WHERE a.day >= t.first_day - 1),
after AS (
  SELECT t.repo, t.day, a.day AS anchor_day, a.stars AS anchor_stars FROM targets t
  ASOF JOIN anchors a ON a.repo = t.repo AND a.day > t.day
  WHERE a.day <= t.last_day),
chosen AS (
  SELECT t.repo, t.day, t.run, t.total, b.anchor_day AS b_day, b.anchor_stars AS b_stars,
         f.anchor_day AS f_day, f.anchor_stars AS f_stars
  FROM targets t
  LEFT JOIN before b ON b.repo = t.repo AND b.day = t.day
  LEFT JOIN after f ON f.repo = t.repo AND f.day = t.day
  WHERE b.anchor_day IS NOT NULL OR f.anchor_day IS NOT NULL),
priced AS (
  SELECT ch.*, coalesce(cb.total, 0) AS c_b, coalesce(cf.total, 0) AS c_f
  FROM chosen ch
  LEFT JOIN cum cb ON cb.repo = ch.repo AND cb.day = ch.b_day AND cb.run = ch.run
  LEFT JOIN cum cf ON cf.repo = ch.repo AND cf.day = ch.f_day AND cf.run = ch.run)
SELECT repo, day, greatest(0, round(CASE
         WHEN b_day IS NOT NULL AND f_day IS NOT NULL THEN b_stars + (f_stars - b_stars) *
           CASE WHEN c_f > c_b THEN (total - c_b) / (c_f - c_b)
                ELSE (day - b_day) / (f_day - b_day) END
         WHEN b_day IS NOT NULL THEN b_stars + total - c_b
         ELSE f_stars - (c_f - total) END))::BIGINT AS stars,
       '{SOURCE}' AS source
FROM priced
"""


def fold_into_stars_daily(store: Store) -> dict[str, int]:
    """Recompute every `stars_daily` row with source 'gharchive'; returns counts removed/written.

    One transaction: the previous 'gharchive' rows are deleted and the derived ones inserted
    (observed rows are never changed).
    """
    with store.transaction() as con:
        removed = con.execute(f"DELETE FROM stars_daily WHERE source = '{SOURCE}'").fetchall()[0][0]
        written = con.execute(
            f"INSERT INTO stars_daily (repo, day, stars, source) {_FOLD_SQL}"
        ).fetchall()[0][0]
    return {"removed": int(removed), "written": int(written)}
