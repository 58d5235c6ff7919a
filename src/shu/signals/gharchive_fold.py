"""Folds GH Archive's stars-given counts into `stars_daily` where a repository has an anchor.

GH Archive gives stars *added* per day (`stars_added_daily`), never a total, and never shows an
unstar. A repository with an anchor, i.e. any observed total in `stars_daily` from a ranking
snapshot or the GitHub API (`stargazers_count`), gets a `stars_daily` row with
`source = 'gharchive'` for every fully loaded GH Archive day that has no observed row:

    stars(d) = stars(A) + added(A, d]        for the nearest anchor day A <= d, else
    stars(d) = stars(A) - added(d, A]        for the nearest anchor day A > d,

counting only over unbroken runs of fully loaded days (all 24 hourly files in `ingest_log`), so
a hole in the archive never makes a count up. Observed values always win: rows from rankings or
the API are never touched, and a later ranking/API load overwrites a 'gharchive' row. Because
unstars are invisible, the derived counts drift above the truth between anchors (by the
unstars in between). Each call recomputes every 'gharchive' row (idempotent).
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
  SELECT t.repo, t.day, t.run, t.total,
         coalesce(b.anchor_day, f.anchor_day) AS anchor_day,
         coalesce(b.anchor_stars, f.anchor_stars) AS anchor_stars
  FROM targets t
  LEFT JOIN before b ON b.repo = t.repo AND b.day = t.day
  LEFT JOIN after f ON f.repo = t.repo AND f.day = t.day
  WHERE coalesce(b.anchor_day, f.anchor_day) IS NOT NULL)
SELECT ch.repo, ch.day,
       greatest(0, ch.anchor_stars + ch.total - coalesce(ca.total, 0))::BIGINT AS stars,
       '{SOURCE}' AS source
FROM chosen ch
LEFT JOIN cum ca ON ca.repo = ch.repo AND ca.day = ch.anchor_day AND ca.run = ch.run
"""


def fold_into_stars_daily(store: Store) -> dict[str, int]:
    """Recompute every `stars_daily` row with source 'gharchive'; returns counts removed/written.

    One transaction: the previous 'gharchive' rows are deleted and the derived ones inserted
    (observed rows are never changed).
    """
    with store.transaction() as con:
        removed = con.execute(
            f"DELETE FROM stars_daily WHERE source = '{SOURCE}'").fetchone()[0]
        written = con.execute(
            f"INSERT INTO stars_daily (repo, day, stars, source) {_FOLD_SQL}").fetchone()[0]
    return {"removed": int(removed), "written": int(written)}
