"""ROCm adoption questions: templates, exact SQL resolution rules, and features as of the origin.

Everything here reads `commits` (flag `touches_rocm`, from the one topic matcher in
`sources.topics`) and `releases`, so it works on any store with commit history: the GitHub API,
git clones, or history exports (`shu ingest history`). No star data is needed.

Counted commits (as in `commit_signals`): the first-parent chain of the default branch
(`is_mainline`); for a repository whose rows never say (API listings), every non-merge commit.
A commit counts on its `committed_at` day (UTC). A repository's data ends on its newest commit
day ("covered until"); days after it are unknown, not quiet.

Templates (t = origin, H = horizon in days; "in (t, t+H]" = on a day after t up to t+H):
- rocm_share_reach: share_90d = counted commits touching ROCm/HIP in the 90 days ending on a day
  / counted commits in those 90 days. Yes when share_90d >= X on any day in (t, t+H]. Void when
  the repository's data ends before t+H, or when some day of (t, t+H] has no counted commit in
  its 90 days (share undefined) -- both decided by coverage, whichever way the answer would
  go. X is the lowest level of SHARE_LADDER at or above 1.5 x share_90d(t) + 0.01 (a real
  rise, never the next step above today); no question when no level is that high.
- rocm_release_mention: a release or version tag published in (t, t+H] whose name or notes
  match the ROCm pattern (case-insensitive `settings.ROCM_PATTERN`). Void when the repository has
  no release published on or before t (release history not loaded) or its data (newest commit
  or release) ends before t+H.
- rocm_first_commit: asked only while the repository has counted commits on or before t and
  none of them touches ROCm. Yes when its first counted ROCm commit lands in (t, t+H]. Void when
  the data ends before t+H, or a ROCm commit exists on or before t (then it is not a "first").

Features (`FEATURES`) are backward-looking windows ending on the origin over commits committed
on or before it and releases published on or before it; a test moves future rows and checks
that no feature changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import duckdb
import numpy as np
import pandas as pd

from shu.settings import ROCM_PATTERN
from shu.signals.commits import COUNTED_COMMITS_SQL

NAMES = ("rocm_share_reach", "rocm_release_mention", "rocm_first_commit")
# The estimator these templates are trained with: 22 repositories give a few thousand weekly
# questions, too few for the gradient boosting's 200-row leaves (it answers the base rate).
ESTIMATOR = "logistic"
SHARE_LADDER = (
    0.01,
    0.02,
    0.03,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    0.95,
)
_LADDER_SQL = "[" + ", ".join(f"{x}::DOUBLE" for x in SHARE_LADDER) + "]"
_PATTERN_SQL = "'(?i)(" + ROCM_PATTERN.replace("'", "''") + ")'"

# (name, wording, unit, table it reads): registered in `questions.TEMPLATES`.
TEMPLATE_SPECS = (
    (
        "rocm_share_reach",
        "Will the 90-day share of {repo}'s mainline commits that touch ROCm/HIP reach >= {x:.1%} "
        "on any day in ({origin}, {end}]?",
        "share of commits",
        "commits",
    ),
    (
        "rocm_release_mention",
        "Will {repo} publish a release or version tag whose notes mention ROCm in "
        "({origin}, {end}]?",
        "releases",
        "releases",
    ),
    (
        "rocm_first_commit",
        "Will {repo} land its first mainline commit touching ROCm/HIP in ({origin}, {end}]?",
        "commits",
        "commits",
    ),
)

# Counted commits per repository and day (the rule of `commit_signals`), each repository's
# coverage end, and the 90-day ROCm share. {repos} is a subquery of repository names.
_COUNTED = (
    COUNTED_COMMITS_SQL
    + """,
share AS (
  SELECT repo, day,
    sum(rocm_commits_day) OVER w90 / nullif(sum(commits_day) OVER w90, 0) AS share_90d
  FROM daily
  WINDOW w90 AS (PARTITION BY repo ORDER BY day ROWS BETWEEN 89 PRECEDING AND CURRENT ROW))
"""
)

RESOLUTION_SQL = {
    "rocm_share_reach": "WITH "
    + _COUNTED.format(repos="SELECT repo FROM {q}")
    + """
SELECT q.qid,
  CASE WHEN p.newest_day IS NULL OR q.origin + q.horizon_days > p.newest_day THEN 'void'
       WHEN count(s.share_90d) < q.horizon_days THEN 'void'
       WHEN max(s.share_90d) >= q.threshold THEN 'yes' ELSE 'no' END AS outcome,
  max(s.share_90d) AS observed_value,
  CASE WHEN p.newest_day IS NULL THEN 'no counted commits loaded'
       WHEN q.origin + q.horizon_days > p.newest_day THEN 'commit data ends on ' || p.newest_day
       WHEN count(s.share_90d) < q.horizon_days THEN 'share_90d undefined on '
            || (q.horizon_days - count(s.share_90d)) || ' of ' || q.horizon_days || ' days'
       WHEN max(s.share_90d) >= q.threshold THEN 'first reached on '
            || min(s.day) FILTER (WHERE s.share_90d >= q.threshold)
       ELSE 'highest share_90d ' || round(max(s.share_90d), 4) END AS detail
FROM {q} q
LEFT JOIN policy p ON p.repo = q.repo
LEFT JOIN share s ON s.repo = q.repo AND s.day > q.origin AND s.day <= q.origin + q.horizon_days
GROUP BY q.qid, q.origin, q.horizon_days, q.threshold, p.newest_day
""",
    "rocm_release_mention": """
WITH ends AS (
  SELECT q.qid, greatest(
      (SELECT max(committed_at)::DATE FROM commits c WHERE c.repo = q.repo),
      (SELECT max(published_at)::DATE FROM releases r WHERE r.repo = q.repo)) AS newest_day,
    EXISTS (SELECT 1 FROM releases r WHERE r.repo = q.repo
            AND r.published_at < q.origin + 1) AS has_history
  FROM {q} q),
hits AS (
  SELECT q.qid, count(r.tag) AS mentions, arg_min(r.tag, r.published_at) AS first_tag
  FROM {q} q JOIN releases r ON r.repo = q.repo AND r.published_at >= q.origin + 1
    AND r.published_at < q.origin + q.horizon_days + 1
    AND regexp_matches(coalesce(r.name, '') || chr(10) || coalesce(r.body, ''), """
    + _PATTERN_SQL
    + """)
  GROUP BY q.qid)
SELECT q.qid,
  CASE WHEN NOT e.has_history OR e.newest_day < q.origin + q.horizon_days THEN 'void'
       WHEN coalesce(h.mentions, 0) > 0 THEN 'yes' ELSE 'no' END AS outcome,
  coalesce(h.mentions, 0)::DOUBLE AS observed_value,
  CASE WHEN NOT e.has_history THEN 'no release history loaded'
       WHEN e.newest_day < q.origin + q.horizon_days THEN 'data ends on ' || e.newest_day
       WHEN coalesce(h.mentions, 0) > 0 THEN 'first: ' || h.first_tag
       ELSE 'no release mentioning ROCm in the window' END AS detail
FROM {q} q JOIN ends e USING (qid) LEFT JOIN hits h USING (qid)
""",
    "rocm_first_commit": "WITH "
    + _COUNTED.format(repos="SELECT repo FROM {q}")
    + """,
firsts AS (SELECT repo, min(day) FILTER (WHERE rocm_commits_day > 0) AS first_rocm FROM counted
           GROUP BY repo)
SELECT q.qid,
  CASE WHEN p.newest_day IS NULL OR q.origin + q.horizon_days > p.newest_day THEN 'void'
       WHEN f.first_rocm <= q.origin THEN 'void'
       WHEN f.first_rocm <= q.origin + q.horizon_days THEN 'yes' ELSE 'no' END AS outcome,
  (f.first_rocm - q.origin)::DOUBLE AS observed_value,
  CASE WHEN p.newest_day IS NULL THEN 'no counted commits loaded'
       WHEN q.origin + q.horizon_days > p.newest_day THEN 'commit data ends on ' || p.newest_day
       WHEN f.first_rocm <= q.origin THEN 'already had a ROCm commit on ' || f.first_rocm
       WHEN f.first_rocm <= q.origin + q.horizon_days THEN 'first ROCm commit on '
            || f.first_rocm
       ELSE 'no ROCm commit in the window' END AS detail
FROM {q} q LEFT JOIN policy p ON p.repo = q.repo LEFT JOIN firsts f ON f.repo = q.repo
""",
}

# ------------------------------------------------------------------------------- features
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
THRESHOLD_FEATURES = {"rocm_share_reach": ("threshold_gap", "log_threshold_ratio")}

_FEATURES_SQL = (
    "WITH "
    + _COUNTED.format(repos="SELECT DISTINCT repo FROM {origins}")
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
    + _PATTERN_SQL
    + """))
           AS rocm_releases_365d,
         max(r.published_at)::DATE AS last_release
  FROM o LEFT JOIN releases r ON r.repo = o.repo AND r.published_at < o.origin + 1
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
FROM o
JOIN roll c ON c.repo = o.repo AND c.day = o.origin
LEFT JOIN roll l ON l.repo = o.repo AND l.day = o.origin - 90
LEFT JOIN rel ON rel.repo = o.repo AND rel.origin = o.origin
ORDER BY o.repo, o.origin
"""
)


def feature_names(template: str) -> list[str]:
    """Model input columns of a ROCm template, in order."""
    return list(FEATURES) + list(THRESHOLD_FEATURES.get(template, ()))


def build_features(con: duckdb.DuckDBPyConnection, origins: pd.DataFrame) -> pd.DataFrame:
    """`FEATURES` for each (repo, origin) of `origins` that has counted commits on the origin.

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
    for name in FEATURES:
        df[name] = df[name].astype("float64")
    return df


def with_questions(base: pd.DataFrame, template: str, horizon_days: int) -> pd.DataFrame:
    """Rows of `base` eligible for `template`, with its threshold and threshold features."""
    if template == "rocm_share_reach":
        share = base["share_90d"].to_numpy(dtype=float)
        target = 1.5 * share + 0.01
        ladder = np.asarray(SHARE_LADDER)
        idx = np.searchsorted(ladder, target - 1e-12, side="left")
        ok = ~np.isnan(share) & (idx < len(ladder))
        rows = base[ok].copy()
        rows["threshold"] = ladder[idx[ok]]
        rows["threshold_gap"] = rows["threshold"] - rows["share_90d"]
        rows["log_threshold_ratio"] = np.log(
            (rows["threshold"] + 0.005) / (rows["share_90d"] + 0.005)
        )
    elif template == "rocm_release_mention":
        rows = base[base["has_release"].astype(bool)].copy()
        rows["threshold"] = 1.0
    elif template == "rocm_first_commit":
        rows = base[base["ever_rocm"] == 0].copy()
        rows["threshold"] = 1.0
    else:
        raise ValueError(f"not a ROCm template: {template!r}")
    rows["horizon_days"] = horizon_days
    rows["bucket"] = 0
    return rows.reset_index(drop=True)


def resolve(con: duckdb.DuckDBPyConnection, template: str, frame: pd.DataFrame) -> pd.DataFrame:
    """outcome / observed_value / detail of each question row (repo, origin, horizon, threshold)."""
    questions = frame[["repo", "origin", "horizon_days", "threshold"]].copy()
    questions.insert(0, "qid", np.arange(len(questions)))
    questions["origin"] = pd.to_datetime(questions["origin"]).dt.date
    con.register("_rocm_q_df", questions)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _rocm_q AS SELECT qid, repo, origin::DATE AS "
            "origin, horizon_days::INTEGER AS horizon_days, threshold FROM _rocm_q_df"
        )
        out = con.execute(RESOLUTION_SQL[template].format(q="_rocm_q")).df()
    finally:
        con.unregister("_rocm_q_df")
        con.execute("DROP TABLE IF EXISTS _rocm_q")
    out = out.sort_values("qid").reset_index(drop=True)
    return out


@dataclass
class RocmExamples:
    """Resolved historical ROCm questions of one template x horizon (the model's training rows).

    `frame` has the columns the walk-forward backtest reads (`examples.Examples`): repo, origin,
    threshold, bucket, label, outcome, observed_value, known_on, the features, and NaN
    acceleration_28d / velocity_28d (star state the star templates keep; ROCm has none).
    """

    template: str
    horizon_days: int
    frame: pd.DataFrame
    n_void: int

    @property
    def features(self) -> list[str]:
        return feature_names(self.template)


def data_end(con: duckdb.DuckDBPyConnection) -> date | None:
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


def build_examples(
    con: duckdb.DuckDBPyConnection, base: pd.DataFrame, template: str, horizon_days: int
) -> RocmExamples:
    """Resolve every eligible question of `base` (from `build_features`); voids are counted."""
    rows = with_questions(base, template, horizon_days)
    if rows.empty:
        resolved = pd.DataFrame(
            {
                "outcome": pd.Series(dtype=str),
                "observed_value": pd.Series(dtype=float),
                "detail": pd.Series(dtype=str),
            }
        )
    else:
        resolved = resolve(con, template, rows)
    rows = pd.concat([rows, resolved[["outcome", "observed_value", "detail"]]], axis=1)
    void = ~rows["outcome"].isin(["yes", "no"])
    n_void = int(void.sum())
    rows = rows[~void].reset_index(drop=True)
    rows["label"] = (rows["outcome"] == "yes").astype(np.int8)
    rows["origin"] = pd.to_datetime(rows["origin"])
    rows["known_on"] = rows["origin"] + pd.Timedelta(days=horizon_days)
    rows["acceleration_28d"] = np.nan
    rows["velocity_28d"] = np.nan
    return RocmExamples(template, horizon_days, rows, n_void)


# ------------------------------------------------------------------------------- issuing
RECEIPT_COLUMNS = (
    "commits_90d",
    "rocm_commits_90d",
    "share_90d",
    "share_365d",
    "months_since_release",
)


def question_rows(
    con: duckdb.DuckDBPyConnection, origin: date, repos: list[str], template: str, horizon_days: int
) -> pd.DataFrame:
    """Today's questions of `template` for `repos` as of `origin`, with their features."""
    base = build_features(con, pd.DataFrame({"repo": repos, "origin": [origin] * len(repos)}))
    return with_questions(base, template, horizon_days)


def share_series(
    con: duckdb.DuckDBPyConnection, repo: str, first: date, last: date
) -> pd.DataFrame:
    """The repository's daily share_90d (the rocm_share_reach quantity) from `first` to `last`."""
    sql = (
        "WITH " + _COUNTED.format(repos="SELECT $repo") + " SELECT day, share_90d FROM share "
        "WHERE repo = $repo AND day BETWEEN $first AND $last ORDER BY day"
    )
    return con.execute(sql, {"repo": repo, "first": first, "last": last}).df()


def declared_rows(
    con: duckdb.DuckDBPyConnection, origin: date, template: str, horizon_days: int, questions: list
) -> pd.DataFrame:
    """Rows for the ROCm questions users declared (`[[questions]]`) for `template` x
    `horizon_days`, with the declared threshold (a share for rocm_share_reach; the other ROCm
    templates have no threshold to choose). Repositories without counted commits on the origin
    are skipped."""
    mine = [q for q in questions if q.template == template and q.horizon == horizon_days]
    if not mine:
        return pd.DataFrame()
    base = build_features(
        con, pd.DataFrame({"repo": [q.repo for q in mine], "origin": [origin] * len(mine)})
    )
    parts = []
    for q in mine:
        rows = base[base["repo"] == q.repo].copy()
        if rows.empty:
            continue
        rows["threshold"] = float(q.threshold) if template == "rocm_share_reach" else 1.0
        if template == "rocm_share_reach":
            rows["threshold_gap"] = rows["threshold"] - rows["share_90d"]
            rows["log_threshold_ratio"] = np.log(
                (rows["threshold"] + 0.005) / (rows["share_90d"] + 0.005)
            )
        parts.append(rows)
    if not parts:
        return pd.DataFrame()
    rows = pd.concat(parts, ignore_index=True)
    rows["horizon_days"] = horizon_days
    rows["bucket"] = 0
    return rows


def receipts(row: pd.Series, origin: date) -> list[dict]:
    """The commit/release aggregates behind a ROCm forecast's features (trailing windows)."""
    return [
        {
            "table": "commits" if c != "months_since_release" else "releases",
            "key": {"repo": row["repo"], "window_end": str(origin)},
            "column": c,
            "value": None if pd.isna(row[c]) else float(row[c]),
            "as_of": str(origin),
        }
        for c in RECEIPT_COLUMNS
    ]
