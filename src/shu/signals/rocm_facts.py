"""The ROCm ecosystem index's facts, below the briefing: what the "ROCm across the ecosystem"
section words (`shu.briefing.sections.rocm_ecosystem`), read from `rocm_index` /
`rocm_index_repos` and `commits`.

- `finding(store, as_of)`: how the share of commits touching ROCm moved over `FINDING_DAYS`
  across the repositories counted on both days, against the largest such move of the
  `PAST_DAYS` before (`Finding.notable`), and without the repository making over
  `DOMINANT_SHARE` of the ROCm commits;
- the SELECTs behind every number the section shows (each cited as a query receipt): shares
  over the same repositories (`SAME_REPOS_*`), the leaders and first-time adopters
  (`LEADERS_SQL`, `ADOPTERS_SQL`), the change behind a merge (`CHANGE_SQL`), a repository's
  commits in the store (`HISTORY_SQL`);
- `index_day`, `index_row`, `histories_ended`: the index's newest day on or before a day, its
  row, and the repositories whose history ended before it;
- `rocm_activity(store, repo, day)`: a repository's ROCm-touching commits and ROCm-naming
  releases in the year to a day, with the SELECTs that count them (a card's "why");
- `yearly_shares(store, day)`: the mean 90-day share of every calendar year the histories cover
  (on at least `MIN_YEAR_DAYS` days, `MIN_YEAR_REPOS` repositories; `YEAR_SHARE_SQL`), and
  `against_history`: today's share placed among them (the years at its level, those well above
  and well below it, `LEVEL_BAND` / `FAR_TIMES`);
- `not_counted(store, repos, day)`: the tracked repositories the index does not count on a day
  (no commit history in the store, or none covering the 90 days);
- `own_shares(store, repos, day, then)`: each of those repositories' own 90-day ROCm share on
  both days, where the index counts it on both (`REPO_SHARE_SQL`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from shu.settings_tables import ROCM_PATTERN
from shu.store import Store

# Both days' shares over the repositories counted on both days (the first ? is the day whose
# share it is, the second the other day).
SAME_REPOS_SQL = (
    "SELECT sum(rocm_commits_90d) / nullif(sum(commits_90d), 0) FROM rocm_index_repos "
    "WHERE day = ? AND repo IN (SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
SAME_REPOS_COUNT_SQL = (
    "SELECT count(*) FROM rocm_index_repos WHERE day = ? AND repo IN "
    "(SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
# Repositories counted on both days with ROCm commits in the first day's window.
SAME_REPOS_ACTIVE_SQL = (
    "SELECT count(*) FROM rocm_index_repos WHERE day = ? AND rocm_commits_90d > 0 AND repo IN "
    "(SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
ADOPTERS_SQL = """
SELECT a.repo, a.first_rocm_day, a.first_rocm_sha, c.committed_at, c.subject, c.parents,
       a.rocm_commits_90d
FROM rocm_index_repos a JOIN commits c ON c.repo = a.repo AND c.sha = a.first_rocm_sha
WHERE a.day = ? AND a.first_time_adopter AND a.first_rocm_day > ?
ORDER BY a.first_rocm_day DESC, a.repo
"""
LEADERS_SQL = """
SELECT repo, rocm_commits_90d FROM rocm_index_repos
WHERE day = ? AND rocm_commits_90d > 0 ORDER BY rocm_commits_90d DESC, repo LIMIT ?
"""

# The share without the repository making the most ROCm commits (params: day, that repository),
# said when it makes over DOMINANT_SHARE of them.
WITHOUT_SQL = (
    "SELECT sum(rocm_commits_90d) / nullif(sum(commits_90d), 0) FROM rocm_index_repos "
    "WHERE day = ? AND repo <> ?"
)
DOMINANT_SHARE = 0.4
HISTORY_SQL = "SELECT count(*) FROM commits WHERE repo = ?"
# The share over the repositories counted on both days, one repository left out (params: the
# day whose share it is, the repository, the other day).
SAME_REPOS_WITHOUT_SQL = (
    "SELECT sum(rocm_commits_90d) / nullif(sum(commits_90d), 0) FROM rocm_index_repos "
    "WHERE day = ? AND repo <> ? AND repo IN (SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
# The finding's move is over FINDING_DAYS; it is notable when it is larger (either way) than
# every move over as many days, over the repositories counted at both ends, that ended in the
# PAST_DAYS before the move began (params: the first and last end day of those moves; in the
# _WITHOUT one, then the repository left out).
FINDING_DAYS = 90
PAST_DAYS = 365
_PAST_MOVES = f"""
WITH pairs AS (
    SELECT a.day, a.rocm_commits_90d AS rocm_end, a.commits_90d AS commits_end,
           b.rocm_commits_90d AS rocm_start, b.commits_90d AS commits_start
    FROM rocm_index_repos a
    JOIN rocm_index_repos b ON b.repo = a.repo AND b.day = a.day - {FINDING_DAYS}
    WHERE a.day BETWEEN ? AND ?{{without}}
), moves AS (
    SELECT sum(rocm_end) / nullif(sum(commits_end), 0)
           - sum(rocm_start) / nullif(sum(commits_start), 0) AS move
    FROM pairs GROUP BY day
)
SELECT max(abs(move)) FROM moves
"""
PAST_MOVES_SQL = _PAST_MOVES.format(without="")
PAST_MOVES_WITHOUT_SQL = _PAST_MOVES.format(without=" AND a.repo <> ?")
# For a first ROCm commit on the main line that is a merge: the first commit touching ROCm that
# is not a merge, committed at or before it (params: repository, the merge's time). The store
# keeps how many parents a commit has, not which, so this is the first such commit, not one
# traced through the merge.
CHANGE_SQL = """
SELECT sha, committed_at, subject FROM commits
WHERE repo = ? AND touches_rocm AND coalesce(parents, 1) <= 1 AND committed_at <= ?
ORDER BY committed_at, sha LIMIT 1
"""


@dataclass(frozen=True)
class Finding:
    """How the share of commits touching ROCm moved over FINDING_DAYS, over the repositories
    counted at both ends, and whether that is news: the section's first sentence, and At a
    glance's when `notable`."""

    day: date
    then: date
    repos: int  # counted on both days
    share_then: float
    share_now: float
    largest_before: float | None  # the largest move either way in the PAST_DAYS before `then`
    rocm_commits: int  # today's ROCm commits over every repository counted today
    top: str | None = None  # the repository making over DOMINANT_SHARE of them
    top_commits: int = 0
    without_then: float | None = None  # the share without `top`, same repositories
    without_now: float | None = None
    largest_without: float | None = None  # `largest_before` without `top`

    @property
    def move(self) -> float:
        return self.share_now - self.share_then

    @property
    def notable(self) -> bool:
        """The move is larger, either way, than every move over as many days in the year
        before it began."""
        return self.largest_before is not None and abs(self.move) > self.largest_before


def finding(store: Store, as_of: date) -> Finding | None:
    """The share's move over the FINDING_DAYS to the index's newest day on or before `as_of`
    (None when the index has no row that long before, or no commit to count)."""
    day = index_day(store, as_of)
    if day is None:
        return None
    then = day - timedelta(days=FINDING_DAYS)
    con = store.con
    share_now = con.execute(SAME_REPOS_SQL, [day, then]).fetchall()[0][0]
    share_then = con.execute(SAME_REPOS_SQL, [then, day]).fetchall()[0][0]
    if share_now is None or share_then is None:
        return None
    repos = con.execute(SAME_REPOS_COUNT_SQL, [day, then]).fetchall()[0][0]
    largest = con.execute(PAST_MOVES_SQL, past_window(then)).fetchall()[0][0]
    total = con.execute("SELECT rocm_commits_90d FROM rocm_index WHERE day = ?", [day]).fetchall()
    rocm_commits = int(total[0][0] or 0)
    out = Finding(
        day,
        then,
        repos,
        float(share_then),
        float(share_now),
        None if largest is None else float(largest),
        rocm_commits,
    )
    leader = con.execute(LEADERS_SQL, [day, 1]).fetchall()
    if not leader or not rocm_commits or leader[0][1] / rocm_commits <= DOMINANT_SHARE:
        return out
    top, n = leader[0]
    without_now = con.execute(SAME_REPOS_WITHOUT_SQL, [day, top, then]).fetchall()[0][0]
    without_then = con.execute(SAME_REPOS_WITHOUT_SQL, [then, top, day]).fetchall()[0][0]
    if without_now is None or without_then is None:
        return out
    largest_without = con.execute(PAST_MOVES_WITHOUT_SQL, [*past_window(then), top]).fetchall()
    return replace(
        out,
        top=top,
        top_commits=n,
        without_then=float(without_then),
        without_now=float(without_now),
        largest_without=None if largest_without[0][0] is None else float(largest_without[0][0]),
    )


def past_window(then: date) -> list[date]:
    """The first and last end day of the moves a finding is measured against."""
    return [then - timedelta(days=PAST_DAYS - 1), then]


def index_day(store: Store, as_of: date) -> date | None:
    """The newest day of the index on or before `as_of`."""
    return store.con.execute("SELECT max(day) FROM rocm_index WHERE day <= ?", [as_of]).fetchall()[
        0
    ][0]


def index_row(store: Store, day: date) -> dict[str, Any] | None:
    cur = store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [day])
    row = cur.fetchone()
    return None if row is None else dict(zip([d[0] for d in cur.description], row, strict=True))


def histories_ended(store: Store, day: date) -> list[dict[str, Any]]:
    """Repositories counted at some time before `day` whose history ends before it."""
    rows = store.con.execute(
        "SELECT repo, max(day) FROM rocm_index_repos GROUP BY repo HAVING max(day) < ? "
        "ORDER BY 2 DESC, 1",
        [day],
    ).fetchall()
    return [{"repo": r, "last_day": d} for r, d in rows]


@dataclass
class RocmActivity:
    """A repository's ROCm activity in the year to a day, with the SELECTs that count it."""

    commits: int
    releases: int
    commits_sql: str
    releases_sql: str
    params: list[Any]

    @property
    def active(self) -> bool:
        return bool(self.commits or self.releases)


def rocm_activity(store: Store, repo: str, day: date) -> RocmActivity:
    """ROCm-touching commits and releases whose name or notes mention ROCm, in (day - 365, day]."""
    params = [repo, day - timedelta(days=364), day + timedelta(days=1)]
    commits_sql = (
        "SELECT count(*) FROM commits WHERE repo = ? AND touches_rocm AND "
        "committed_at >= ? AND committed_at < ?"
    )
    releases_sql = (
        "SELECT count(*) FROM releases WHERE repo = ? AND published_at >= ? AND "
        "published_at < ? AND regexp_matches(coalesce(name, '') || chr(10) || "
        "coalesce(body, ''), '(?i)(" + ROCM_PATTERN.replace("'", "''") + ")')"
    )
    commits = int(store.con.execute(commits_sql, params).fetchall()[0][0])
    releases = int(store.con.execute(releases_sql, params).fetchall()[0][0])
    return RocmActivity(commits, releases, commits_sql, releases_sql, params)


# The mean of a calendar year's daily 90-day ROCm share, its days up to a day (params: the year,
# the day); one value per year, cited as its receipt.
YEAR_SHARE_SQL = (
    "SELECT avg(rocm_share_90d) FROM rocm_index WHERE year(day) = ? AND day <= ? "
    "AND rocm_share_90d IS NOT NULL"
)
# A year is at today's level when its mean share is within LEVEL_BAND (relative) of today's;
# well above or below it when FAR_TIMES as high or as low.
LEVEL_BAND, FAR_TIMES = 0.25, 1.5
# A year the index has fewer days of than this (the histories' first weeks), or fewer
# repositories counted on an average day (one repository's history is not the ecosystem's: the
# shared histories' 2015), has no mean.
MIN_YEAR_DAYS, MIN_YEAR_REPOS = 180, 2


@dataclass(frozen=True)
class YearShare:
    """A calendar year's mean 90-day ROCm share (its days up to the day asked)."""

    year: int
    share: float


def yearly_shares(store: Store, day: date) -> list[YearShare]:
    """The mean 90-day share of each calendar year the index covers on at least MIN_YEAR_DAYS
    days with at least MIN_YEAR_REPOS repositories on an average day, up to `day`, oldest
    first."""
    years = store.con.execute(
        "SELECT year(day) FROM rocm_index WHERE day <= ? AND rocm_share_90d IS NOT NULL "
        "GROUP BY 1 HAVING count(*) >= ? AND avg(repos) >= ? ORDER BY 1",
        [day, MIN_YEAR_DAYS, MIN_YEAR_REPOS],
    ).fetchall()
    out = []
    for (year,) in years:
        share = store.con.execute(YEAR_SHARE_SQL, [year, day]).fetchall()[0][0]
        if share is not None:
            out.append(YearShare(int(year), float(share)))
    return out


@dataclass(frozen=True)
class AgainstHistory:
    """Today's share among the whole years before it: the latest year at its level, and the runs
    of consecutive years well above and well below it (each a list of `YearShare`)."""

    share: float
    first_year: int
    level: YearShare | None
    above: list[list[YearShare]] = field(default_factory=list)  # years well above today
    below: list[list[YearShare]] = field(default_factory=list)


def against_history(share: float, years: list[YearShare], this_year: int) -> AgainstHistory | None:
    """`share` (today's) against every whole year before `this_year` (None without one)."""
    past = [y for y in years if y.year < this_year]
    if not past:
        return None
    level = [y for y in past if abs(y.share - share) <= LEVEL_BAND * share]

    def runs(keep: list[YearShare]) -> list[list[YearShare]]:
        out: list[list[YearShare]] = []
        for y in keep:
            if out and out[-1][-1].year == y.year - 1:
                out[-1].append(y)
            else:
                out.append([y])
        return out

    return AgainstHistory(
        share,
        past[0].year,
        level[-1] if level else None,
        runs([y for y in past if y.share >= FAR_TIMES * share]),
        runs([y for y in past if y.share * FAR_TIMES <= share]),
    )


def not_counted(store: Store, repos: list[str], day: date) -> tuple[list[str], list[str]]:
    """Of `repos`, those the index does not count on `day`: (no commit history in the store at
    all (HISTORY_SQL gives 0), history not covering the 90 days)."""
    counted = {
        r
        for (r,) in store.con.execute(
            "SELECT repo FROM rocm_index_repos WHERE day = ?", [day]
        ).fetchall()
    }
    none: list[str] = []
    short: list[str] = []
    for repo in (r for r in repos if r not in counted):
        n = store.con.execute(HISTORY_SQL, [repo]).fetchall()[0][0]
        (short if n else none).append(repo)
    return none, short


# One repository's own 90-day ROCm share on a day (params: repository, day).
REPO_SHARE_SQL = (
    "SELECT rocm_commits_90d / nullif(commits_90d, 0) FROM rocm_index_repos "
    "WHERE repo = ? AND day = ?"
)


def own_shares(
    store: Store, repos: list[str], day: date, then: date
) -> list[tuple[str, float, float]]:
    """(repository, its share on `then`, its share on `day`) for each of `repos` the index counts
    on both days with commits in both windows, in the order given."""
    out = []
    for repo in repos:
        rows = [store.con.execute(REPO_SHARE_SQL, [repo, d]).fetchone() for d in (then, day)]
        a, b = (None if r is None else r[0] for r in rows)
        if a is not None and b is not None:
            out.append((repo, float(a), float(b)))
    return out
