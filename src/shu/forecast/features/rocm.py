"""Features of a (repository, origin) pair for the ROCm adoption questions, from commits and
releases on or before the origin.

Everything here reads `commits` (flag `touches_rocm`, from the one topic matcher in
`sources.topic_match`) and `releases`, so it works on any store with commit history: the GitHub
API, git clones, or history exports (`shu ingest history`). No star data is needed.

Counted commits, a repository's coverage and the 90-day ROCm share are defined once, with the
questions that ask about them (`questions.rocm`).

Features (`FEATURES`) are backward-looking windows ending on the origin over commits committed
on or before it and releases published on or before it; a test moves future rows and checks
that no feature changes. Beside them, the trailing year's 90-day shares (`YEAR_SHARE_COLUMNS`:
their highest and mean value, and every day's value, sorted) are kept for the threshold
features of `rocm_share_reach` (how the level asked compares with the year's shares).
"""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import pandas as pd

from shu.forecast.questions.rocm import COUNTED_SQL, PATTERN_SQL

FEATURES = (
    "share_28d",
    "share_90d",
    "share_365d",
    "share_90d_change",
    "log_rocm_commits_90d",
    "log_rocm_commits_365d",
    "log_commits_90d",
    "ever_rocm",
    "years_since_rocm",
    "log_releases_365d",
    "rocm_releases_365d_share",
    "months_since_release",
    "history_years",
)

# The 90-day shares of the days origin-364 .. origin (days with a share): highest, mean, and
# all of them sorted (a list per row, read by the threshold features, not a model input).
YEAR_SHARE_COLUMNS = ("share_90d_max_365d", "share_90d_mean_365d", "share_90d_days_365d")

_FEATURES_SQL = (
    "WITH "
    + COUNTED_SQL.format(repos="SELECT DISTINCT repo FROM {origins}")
    + """,
roll AS (
  SELECT repo, day, commits_day AS n, rocm_commits_day AS k,
    sum(n) OVER (PARTITION BY repo ORDER BY day ROWS BETWEEN 27 PRECEDING AND CURRENT ROW) AS n28,
    sum(k) OVER (PARTITION BY repo ORDER BY day ROWS BETWEEN 27 PRECEDING AND CURRENT ROW) AS k28,
    sum(n) OVER (PARTITION BY repo ORDER BY day ROWS BETWEEN 89 PRECEDING AND CURRENT ROW) AS n90,
    sum(k) OVER (PARTITION BY repo ORDER BY day ROWS BETWEEN 89 PRECEDING AND CURRENT ROW) AS k90,
    sum(n) OVER (PARTITION BY repo ORDER BY day ROWS BETWEEN 364 PRECEDING AND CURRENT ROW)
      AS n365,
    sum(k) OVER (PARTITION BY repo ORDER BY day ROWS BETWEEN 364 PRECEDING AND CURRENT ROW)
      AS k365,
    max(CASE WHEN k > 0 THEN day END) OVER (PARTITION BY repo ORDER BY day
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_rocm,
    min(day) OVER (PARTITION BY repo) AS first_day
  FROM daily),
o AS (SELECT DISTINCT repo, origin FROM {origins}),
rel AS (
  SELECT o.repo, o.origin, count(r.tag) FILTER (WHERE r.published_at >= o.origin - 364)
           AS releases_365d,
         count(r.tag) FILTER (WHERE r.published_at >= o.origin - 364 AND regexp_matches(
           coalesce(r.name, '') || chr(10) || coalesce(r.body, ''), """
    + PATTERN_SQL
    + """))
           AS rocm_releases_365d,
         max(r.published_at)::DATE AS last_release
  FROM o LEFT JOIN releases r ON r.repo = o.repo AND r.published_at < o.origin + 1
  GROUP BY o.repo, o.origin),
year_shares AS (
  SELECT o.repo, o.origin, max(s.share_90d) AS share_90d_max_365d,
         avg(s.share_90d) AS share_90d_mean_365d,
         list_sort(list(s.share_90d)) AS share_90d_days_365d
  FROM o JOIN share s ON s.repo = o.repo AND s.day > o.origin - 365 AND s.day <= o.origin
    AND s.share_90d IS NOT NULL
  GROUP BY o.repo, o.origin)
SELECT o.repo, o.origin, c.n90 AS commits_90d, c.k90 AS rocm_commits_90d,
  c.k28 / nullif(c.n28, 0) AS share_28d,
  c.k90 / nullif(c.n90, 0) AS share_90d,
  c.k365 / nullif(c.n365, 0) AS share_365d,
  c.k90 / nullif(c.n90, 0) - l.k90 / nullif(l.n90, 0) AS share_90d_change,
  ln(1 + c.k90) AS log_rocm_commits_90d, ln(1 + c.k365) AS log_rocm_commits_365d,
  ln(1 + c.n90) AS log_commits_90d,
  (c.last_rocm IS NOT NULL)::INT AS ever_rocm,
  least(coalesce(o.origin - c.last_rocm, 1825), 1825) / 365.0 AS years_since_rocm,
  ln(1 + rel.releases_365d) AS log_releases_365d,
  rel.rocm_releases_365d / nullif(rel.releases_365d, 0) AS rocm_releases_365d_share,
  least(o.origin - rel.last_release, 365) / 30.0 AS months_since_release,
  least(o.origin - c.first_day, 1825) / 365.0 AS history_years,
  rel.last_release IS NOT NULL AS has_release
  , yr.share_90d_max_365d, yr.share_90d_mean_365d, yr.share_90d_days_365d
FROM o
JOIN roll c ON c.repo = o.repo AND c.day = o.origin
LEFT JOIN roll l ON l.repo = o.repo AND l.day = o.origin - 90
LEFT JOIN rel ON rel.repo = o.repo AND rel.origin = o.origin
LEFT JOIN year_shares yr ON yr.repo = o.repo AND yr.origin = o.origin
ORDER BY o.repo, o.origin
"""
)


def build_features(con: duckdb.DuckDBPyConnection, origins: pd.DataFrame) -> pd.DataFrame:
    """`FEATURES` (and `YEAR_SHARE_COLUMNS`) for each (repo, origin) of `origins` that has
    counted commits on the origin.

    Only commits committed on or before the origin and releases published on or before it are
    read (the series row of the origin and backward windows ending on it).
    """
    frame = origins[["repo", "origin"]].copy()
    frame["origin"] = pd.to_datetime(frame["origin"]).dt.date
    con.register("_rocm_origins_df", frame)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _rocm_origins AS "
            "SELECT repo, origin::DATE AS origin FROM _rocm_origins_df"
        )
        df = con.execute(_FEATURES_SQL.format(origins="_rocm_origins")).df()
    finally:
        con.unregister("_rocm_origins_df")
        con.execute("DROP TABLE IF EXISTS _rocm_origins")
    for name in (*FEATURES, *YEAR_SHARE_COLUMNS[:2]):
        df[name] = df[name].astype("float64")
    return df


def data_through(con: duckdb.DuckDBPyConnection) -> date | None:
    """The day of the newest loaded commit (None when no commit is loaded)."""
    return con.execute("SELECT max(committed_at)::DATE FROM commits").fetchall()[0][0]


def repos_with_commits(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Repositories with any commit loaded."""
    return [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT repo FROM commits WHERE committed_at IS NOT NULL ORDER BY repo"
        ).fetchall()
    ]


def weekly_origins(
    con: duckdb.DuckDBPyConnection, first: date, last: date, repos: list[str] | None = None
) -> pd.DataFrame:
    """(repo, origin) for every Monday in [first, last] within each repository's commit span."""
    repos = repos if repos is not None else repos_with_commits(con)
    spans = con.execute("""SELECT repo, min(committed_at)::DATE, max(committed_at)::DATE
        FROM commits WHERE committed_at IS NOT NULL GROUP BY repo""").fetchall()
    span = {r: (a, b) for r, a, b in spans}
    start = first + timedelta(days=(7 - first.weekday()) % 7)
    rows = []
    for repo in repos:
        if repo not in span:
            continue
        lo, hi = max(start, span[repo][0] + timedelta(days=90)), min(last, span[repo][1])
        day = start + timedelta(days=7 * max(0, -(-(lo - start).days // 7)))
        while day <= hi:
            rows.append((repo, day))
            day += timedelta(days=7)
    return pd.DataFrame(rows, columns=["repo", "origin"])


def share_series(
    con: duckdb.DuckDBPyConnection, repo: str, first: date, last: date
) -> pd.DataFrame:
    """The repository's daily share_90d (the rocm_share_reach quantity) from `first` to `last`."""
    sql = (
        "WITH " + COUNTED_SQL.format(repos="SELECT $repo") + " SELECT day, share_90d FROM share "
        "WHERE repo = $repo AND day BETWEEN $first AND $last ORDER BY day"
    )
    return con.execute(sql, {"repo": repo, "first": first, "last": last}).df()
