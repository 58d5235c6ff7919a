"""The ROCm adoption question templates: threshold rules and exact SQL resolution rules.

They read `commits` (flag `touches_rocm`, from the one topic matcher in `sources`) and
`releases` only, so they work on any store with commit history: the GitHub API, git clones, or
history exports (`shu ingest history`). No star data is needed. The templates' records (wording,
kind, features) are in `registry`; their features in `features.rocm`.

Counted commits (as in `commit_signals`): the first-parent chain of the default branch
(`is_mainline`); for a repository whose rows never say (API listings), every non-merge commit.
A commit counts on its `committed_at` day (UTC). A repository's data ends on its newest commit
day ("covered until"); days after it are unknown, not quiet. `share_90d` = counted commits
touching ROCm/HIP in the 90 days ending on a day / counted commits in those 90 days.

Templates (t = origin, H = horizon in days; "in (t, t+H]" = on a day after t up to t+H):
- rocm_share_reach: yes when share_90d >= X on any day in (t, t+H]. Void when the
  repository's data ends before t+H, or when some day of (t, t+H] has no counted commit in its
  90 days (share undefined) -- both decided by coverage, whichever way the answer would go.
  X: `SHARE_RULE`.
- rocm_release_mention: a release or version tag published in (t, t+H] whose name or notes
  match the ROCm pattern (case-insensitive `settings.ROCM_PATTERN`). Void when the repository has
  no release published on or before t (release history not loaded) or its data (newest commit
  or release) ends before t+H.
- rocm_first_commit: asked only while the repository has counted commits on or before t and
  none of them touches ROCm. Yes when its first counted ROCm commit lands in (t, t+H]. Void when
  the data ends before t+H, or a ROCm commit exists on or before t (then it is not a "first").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shu.settings_tables import ROCM_PATTERN
from shu.signals.commits import COUNTED_COMMITS_SQL

# Releases whose name or notes mention ROCm (case-insensitive `settings.ROCM_PATTERN`), in SQL.
PATTERN_SQL = "'(?i)(" + ROCM_PATTERN.replace("'", "''") + ")'"

# Counted commits per repository and day (the rule of `commit_signals`), each repository's
# coverage end, and the 90-day ROCm share. {repos} is a subquery of repository names.
COUNTED_SQL = (
    COUNTED_COMMITS_SQL
    + """,
share AS (
  SELECT repo, day,
    sum(rocm_commits_day) OVER w90 / nullif(sum(commits_day) OVER w90, 0) AS share_90d
  FROM daily
  WINDOW w90 AS (PARTITION BY repo ORDER BY day ROWS BETWEEN 89 PRECEDING AND CURRENT ROW))
"""
)


# The estimator these templates are trained with: 38 repositories give about ten thousand weekly
# questions, too few for the gradient boosting's 200-row leaves (measured on them, it scores
# below the logistic regression: docs/forecast/backtest.md, "ROCm adoption").
ESTIMATOR = "logistic"
# rocm_share_reach: the model inputs among `features.rocm.FEATURES` (the others, measured on the
# 38 histories, made its walk-forward skill worse), and the inverse strength of its L2 penalty
# (stronger than the default 1.0: the same measurement).
SHARE_BASE_FEATURES = (
    "share_90d",
    "share_365d",
    "log_rocm_commits_90d",
    "log_commits_90d",
    "years_since_rocm",
)
SHARE_LOGISTIC_C = 0.05
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
SHARE_RULE = (
    "the lowest level of SHARE_LADDER at or above 1.5 x share_90d(t) + 0.01 (a real rise, never "
    "the next step above today); no question when no level is that high"
)


def share_reach_rows(base: pd.DataFrame) -> pd.DataFrame:
    """Rows of `base` (ROCm features on origins) eligible for rocm_share_reach, with X
    (`SHARE_RULE`)."""
    share = base["share_90d"].to_numpy(dtype=float)
    target = 1.5 * share + 0.01
    ladder = np.asarray(SHARE_LADDER)
    idx = np.searchsorted(ladder, target - 1e-12, side="left")
    ok = ~np.isnan(share) & (idx < len(ladder))
    rows = base[ok].copy()
    rows["threshold"] = ladder[idx[ok]]
    return rows


def release_mention_rows(base: pd.DataFrame) -> pd.DataFrame:
    """Rows of `base` eligible for rocm_release_mention: repositories with a release on or
    before the origin (X = 1)."""
    rows = base[base["has_release"].astype(bool)].copy()
    rows["threshold"] = 1.0
    return rows


def first_commit_rows(base: pd.DataFrame) -> pd.DataFrame:
    """Rows of `base` eligible for rocm_first_commit: no ROCm commit yet (X = 1)."""
    rows = base[base["ever_rocm"] == 0].copy()
    rows["threshold"] = 1.0
    return rows


SHARE_FEATURES = (
    "threshold_gap",
    "log_threshold_ratio",
    "reached_365d",
    "log_max_365d_vs_threshold",
    "log_mean_365d_vs_threshold",
)


def share_features(df: pd.DataFrame, x: np.ndarray, horizon_days: int) -> pd.DataFrame:
    """rocm_share_reach (`SHARE_FEATURES`): X against today's 90-day share, as a difference and
    as a log ratio; and against the trailing year's 90-day shares (`features.rocm`): on what
    share of the year's days the share was at X or above, and the year's highest and mean share
    as log ratios to X (shares and X offset by half a point, so a zero share has a ratio)."""
    out = pd.DataFrame(index=df.index)
    share = df["share_90d"].to_numpy(dtype="float64")
    out["threshold_gap"] = x - share
    out["log_threshold_ratio"] = np.log((x + 0.005) / (share + 0.005))
    days = df["share_90d_days_365d"] if "share_90d_days_365d" in df else [None] * len(df)
    out["reached_365d"] = [
        np.nan if d is None or len(d) == 0 else float(np.mean(np.asarray(d) >= level))
        for d, level in zip(days, x, strict=True)
    ]
    for column, name in (
        ("share_90d_max_365d", "log_max_365d_vs_threshold"),
        ("share_90d_mean_365d", "log_mean_365d_vs_threshold"),
    ):
        year = df[column].to_numpy(dtype="float64") if column in df else np.full(len(df), np.nan)
        out[name] = np.log((year + 0.005) / (x + 0.005))
    return out


# ---------------------------------------------------------------- resolution
SHARE_REACH_SQL = (
    "WITH "
    + COUNTED_SQL.format(repos="SELECT repo FROM {q}")
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
"""
)

RELEASE_MENTION_SQL = (
    """
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
    + PATTERN_SQL
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
"""
)

FIRST_COMMIT_SQL = (
    "WITH "
    + COUNTED_SQL.format(repos="SELECT repo FROM {q}")
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
"""
)
