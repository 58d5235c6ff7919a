"""Refreshes `commit_signals` from `commits` with `sql/commit_signals.sql` (always in full: the
table is small, and late-arriving commits can change any past day)."""

from __future__ import annotations

import time

from shu.signals.runs import TableRefresh, record_full_refresh
from shu.signals.sqlfiles import run_sql
from shu.store import Store

Z_MIN_VALUES = 28

# Which commits count, per repository and day: the first-parent chain of the default branch
# (is_mainline), i.e. one row per change that landed (a squash-merged PR, a direct push, or a
# merge commit carrying its branch); commits that arrived only through a merge's second parent
# are not counted again. For a repository whose commits do not say whether they are mainline
# (is_mainline NULL on every row, e.g. from an API listing), every non-merge commit counts
# (parents <= 1). Each counts on its committed_at day (UTC). Coverage: from the repository's
# first counted commit day to its newest commit day, with no holes (a day without commits is 0).
# A commit touches ROCm when its touches_rocm flag is set (the one topic matcher); an author
# whose author_is_bot is unknown counts as not a bot. CTEs `policy` (repo, knows_mainline,
# newest_day), `counted_rows` (repo, sha, committed_at, day, rocm, bot: one row per counted
# commit), `counted` and `daily` (repo, day, commits_day, rocm_commits_day, nonbot_commits_day,
# nonbot_rocm_commits_day), for the repositories of subquery {repos}. Shared by
# `commit_signals`, the ROCm ecosystem index (`rocm_index`) and the ROCm adoption questions
# (`shu.forecast.questions.rocm`).
COUNTED_COMMITS_SQL = """
policy AS (
    SELECT repo, bool_or(is_mainline IS NOT NULL) AS knows_mainline,
           max(committed_at)::DATE AS newest_day
    FROM commits WHERE committed_at IS NOT NULL AND repo IN ({repos}) GROUP BY repo
), counted_rows AS (
    SELECT c.repo, c.sha, c.committed_at, c.committed_at::DATE AS day,
           coalesce(c.touches_rocm, false) AS rocm, coalesce(c.author_is_bot, false) AS bot
    FROM commits c JOIN policy p USING (repo)
    WHERE c.committed_at IS NOT NULL
      AND CASE WHEN p.knows_mainline THEN coalesce(c.is_mainline, false)
               ELSE coalesce(c.parents, 1) <= 1 END
), counted AS (
    SELECT repo, day, count(*) AS commits_day,
           count(*) FILTER (WHERE rocm) AS rocm_commits_day,
           count(*) FILTER (WHERE NOT bot) AS nonbot_commits_day,
           count(*) FILTER (WHERE rocm AND NOT bot) AS nonbot_rocm_commits_day
    FROM counted_rows
    GROUP BY ALL
), grid AS (
    SELECT p.repo, unnest(generate_series(min(c.day), p.newest_day, INTERVAL 1 DAY))::DATE AS day
    FROM counted c JOIN policy p USING (repo)
    GROUP BY p.repo, p.newest_day
), daily AS (
    SELECT g.repo, g.day, coalesce(c.commits_day, 0) AS commits_day,
           coalesce(c.rocm_commits_day, 0) AS rocm_commits_day,
           coalesce(c.nonbot_commits_day, 0) AS nonbot_commits_day,
           coalesce(c.nonbot_rocm_commits_day, 0) AS nonbot_rocm_commits_day
    FROM grid g LEFT JOIN counted c USING (repo, day)
)"""


# The same counting with every commit copied across repositories counted once (the ROCm
# ecosystem index: ggml's commits vendored into whisper.cpp are one piece of work): a counted
# commit is left out where another repository's counted commit has the same sha, or the same
# author, author time and subject, and landed first (committed_at, then the repository's name).
_ROWS_END = "ELSE coalesce(c.parents, 1) <= 1 END"
ONCE_ACROSS_REPOS = """
    QUALIFY first_value(c.repo) OVER (PARTITION BY c.sha ORDER BY c.committed_at, c.repo) = c.repo
      AND (c.author_id IS NULL OR c.authored_at IS NULL OR c.subject IS NULL
           OR first_value(c.repo) OVER (PARTITION BY c.author_id, c.authored_at, c.subject
                                        ORDER BY c.committed_at, c.repo) = c.repo)"""
assert COUNTED_COMMITS_SQL.count(_ROWS_END) == 1
COUNTED_ONCE_SQL = COUNTED_COMMITS_SQL.replace(_ROWS_END, _ROWS_END + ONCE_ACROSS_REPOS)


def refresh_commit_signals(store: Store, run_id: str) -> TableRefresh:
    """Recompute `commit_signals` for every repository with commits."""
    t0 = time.perf_counter()
    con = store.con
    with store.transaction():
        run_sql(
            con,
            "commit_signals",
            target="TABLE commit_signals",
            z_min_values=Z_MIN_VALUES,
            counted_commits=COUNTED_COMMITS_SQL.format(repos="SELECT repo FROM commits"),
        )
        result = record_full_refresh(store, "commit_signals", run_id, t0, "commits")
    return result
