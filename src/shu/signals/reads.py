"""What the briefing and `shu compare` read from the stored signals, below the briefing.

The briefing words and draws these; it does not query `stars_daily` or `star_signals` itself
(`tests/unit/core/test_design.py` checks). Each function returns plain data:

- `signal_value`: one stored `star_signals` value (what a receipt row cites);
- `repos_with_signals`, `signal_frame`: which repositories have signals, and one column of
  theirs as a long frame (the comparison charts);
- `pace_series`: a repository's 28-day velocity by day (the story and fan charts' line);
- `undefined_pace`: the runs of days a 28-day pace is undefined, and the unobserved days behind
  each (what a chart shades and names);
- `last_signal_day`, `last_count_day`, `stale_repos`: the newest day with signals among some
  repositories, and with a star count of one (the briefing's data-through day and its stale
  repositories);
- `latest_star_signals`, `latest_commit_signals`, `latest_peer_signals`,
  `latest_release_context`: a repository's latest row of each (repo, day) signal table up to a
  day (what the briefing's tables and cards word and cite), and `latest_phase` its lifecycle
  phase;
- `latest_release`, `last_release_lift`: its latest release, and the latest whose 14-day star
  lift was measurable;
- `category_moves`: each category's mean 28-day acceleration and velocity on a day, with the
  SELECTs that cite them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise
from typing import Any

import duckdb
import pandas as pd

from shu.settings import Settings
from shu.signals.lifecycle import LIFECYCLE_RULE, path_conflict
from shu.signals.pace_path import PacePath, pace_path
from shu.store import dicts

# A 28-day window spanning more unobserved days than this leaves the velocity undefined, so a
# run of missing counts explains an undefined pace when it is longer.
_EXPLAINING_GAP_DAYS = 8
# How far before an undefined run to look for the missing counts that explain it.
_LOOKBACK_DAYS = 40


def signal_value(con: duckdb.DuckDBPyConnection, column: str, repo: str, day: date) -> Any:
    """`repo`'s stored `star_signals.<column>` on `day` (None when absent or null)."""
    row = con.execute(
        f'SELECT "{column}" FROM star_signals WHERE repo = ? AND day = ?', [repo, day]
    ).fetchone()
    return None if row is None else row[0]


def repos_with_signals(con: duckdb.DuckDBPyConnection, repos: list[str]) -> set[str]:
    """Those of `repos` with any `star_signals` row."""
    return {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT repo FROM star_signals WHERE list_contains(?, repo)", [repos]
        ).fetchall()
    }


def signal_frame(
    con: duckdb.DuckDBPyConnection,
    repos: list[str],
    column: str,
    since: date | None = None,
    until: date | None = None,
) -> pd.DataFrame:
    """Long frame (repo, day, value) of `star_signals.<column>` for `repos` from `since` to
    `until` (either open when None), in the order of `repos`, then by day."""
    return con.execute(
        f"SELECT repo, day, {column} AS value FROM star_signals WHERE list_contains(?, repo) "
        "AND day >= coalesce(?::DATE, DATE '0001-01-01') "
        "AND day <= coalesce(?::DATE, DATE '9999-12-31') ORDER BY list_position(?, repo), day",
        [repos, since, until, repos],
    ).df()


def pace_series(
    con: duckdb.DuckDBPyConnection, repo: str, after: date, until: date
) -> list[tuple[date, float | None]]:
    """`repo`'s 28-day velocity on each day in (after, until], by day."""
    return [
        (d, v)
        for d, v in con.execute(
            "SELECT day, velocity_28d FROM star_signals WHERE repo = ? AND day > ? AND day <= ? "
            "ORDER BY day",
            [repo, after, until],
        ).fetchall()
    ]


def undefined_pace(
    con: duckdb.DuckDBPyConnection, repos: list[str], since: date, until: date
) -> list[tuple[date, date, tuple[date, date] | None]]:
    """The runs of days in [since, until] on which the 28-day velocity of any of `repos` is
    undefined (inside its history, including a run that opens the window when the repository
    has counts before it), each as (first, last, missing): `missing` the longest run of days
    without a star count that explains it (a window spanning more than 7 unobserved days is
    undefined), or None."""
    missing: set[date] = set()
    for repo in repos:
        older = con.execute(
            "SELECT count(*) FROM stars_daily WHERE repo = ? AND day < ?", [repo, since]
        ).fetchall()[0][0]
        days = sorted(
            d
            for (d,) in con.execute(
                "SELECT day FROM star_signals WHERE repo = ? AND day >= ? AND day <= ? AND "
                "velocity_28d IS NOT NULL",
                [repo, since, until],
            ).fetchall()
        )
        if older and days and days[0] > since:
            days = [since - timedelta(days=1), *days]
        for a, b in pairwise(days):
            missing.update(a + timedelta(days=k) for k in range(1, (b - a).days))
    runs: list[list[date]] = []
    for d in sorted(missing):
        if runs and runs[-1][-1] == d - timedelta(days=1):
            runs[-1].append(d)
        else:
            runs.append([d])
    out = []
    for run in runs:
        unseen: tuple[date, date] | None = None
        for repo in repos:
            seen = [
                d
                for (d,) in con.execute(
                    "SELECT day FROM stars_daily WHERE repo = ? AND day >= ? AND day <= ? "
                    "ORDER BY day",
                    [repo, run[0] - timedelta(days=_LOOKBACK_DAYS), run[-1]],
                ).fetchall()
            ]
            for a, b in pairwise(seen):
                if (b - a).days > _EXPLAINING_GAP_DAYS and (
                    unseen is None or (b - a).days - 1 > _length(unseen)
                ):
                    unseen = (a + timedelta(days=1), b - timedelta(days=1))
        out.append((run[0], run[-1], unseen))
    return out


def _length(days: tuple[date, date]) -> int:
    return (days[1] - days[0]).days + 1


def last_signal_day(
    con: duckdb.DuckDBPyConnection, repos: list[str], day: date | None
) -> date | None:
    """The latest day with star signals for any of `repos`, not after `day` (when given)."""
    marks = ", ".join("?" for _ in repos) or "NULL"
    bound = "AND day <= ?" if day else ""
    params = [*repos, day] if day else list(repos)
    result: date | None = con.execute(
        f"SELECT max(day) FROM star_signals WHERE repo IN ({marks}) {bound}", params
    ).fetchall()[0][0]
    return result


def last_count_day(con: duckdb.DuckDBPyConnection, repo: str, day: date) -> date | None:
    """The latest day on or before `day` with a stored star count of `repo`."""
    result: date | None = con.execute(
        "SELECT max(day) FROM stars_daily WHERE repo = ? AND day <= ?", [repo, day]
    ).fetchall()[0][0]
    return result


def stale_repos(
    con: duckdb.DuckDBPyConnection, repos: list[str], day: date
) -> list[dict[str, Any]]:
    """Those of `repos` whose latest star count is older than the day before `day`, each with
    the day of that count ("never" when there is none)."""
    out = []
    for repo in repos:
        last = last_count_day(con, repo, day)
        if last is None or last < day - timedelta(days=1):
            out.append({"repo": repo, "last_day": last or "never"})
    return out


def _latest(
    con: duckdb.DuckDBPyConnection, table: str, repo: str, day: date
) -> dict[str, Any] | None:
    """The latest row of the (repo, day)-keyed `table` for `repo` not after `day`."""
    rows = dicts(
        con.execute(
            f'SELECT * FROM "{table}" WHERE repo = ? AND day <= ? ORDER BY day DESC LIMIT 1',
            [repo, day],
        )
    )
    return rows[0] if rows else None


def latest_star_signals(
    con: duckdb.DuckDBPyConnection, repo: str, day: date
) -> dict[str, Any] | None:
    """`repo`'s latest `star_signals` row not after `day` (None: none stored)."""
    return _latest(con, "star_signals", repo, day)


def latest_commit_signals(
    con: duckdb.DuckDBPyConnection, repo: str, day: date
) -> dict[str, Any] | None:
    """`repo`'s latest `commit_signals` row not after `day` (None: none stored)."""
    return _latest(con, "commit_signals", repo, day)


def latest_peer_signals(
    con: duckdb.DuckDBPyConnection, repo: str, day: date
) -> dict[str, Any] | None:
    """`repo`'s latest `peer_signals` row not after `day` (None: none stored)."""
    return _latest(con, "peer_signals", repo, day)


def latest_release_context(
    con: duckdb.DuckDBPyConnection, repo: str, day: date
) -> dict[str, Any] | None:
    """`repo`'s latest `release_context` row not after `day` (None: none stored)."""
    return _latest(con, "release_context", repo, day)


@dataclass
class Phase:
    """A lifecycle phase row: where it is stored and what it says."""

    table: str
    key: dict[str, Any]
    column: str
    phase: str
    day: date
    why: str | None = None
    # the 28-day pace's 91-day path, and where the phase contradicts it ("high": a decline at
    # its 91-day high; "low": emerging or expansion at its 91-day low; `lifecycle.path_conflict`)
    path: PacePath | None = None
    conflict: str | None = None


def latest_phase(con: duckdb.DuckDBPyConnection, repo: str, day: date) -> Phase | None:
    """`repo`'s lifecycle phase on (or before) `day` (star_signals.lifecycle_phase), with the
    rule that gives it in words."""
    row = latest_star_signals(con, repo, day)
    if row is None or row.get("lifecycle_phase") is None:
        return None
    path = pace_path(con, repo, date.fromisoformat(str(row["day"])[:10]))
    conflict = (
        None if path is None else path_conflict(row["lifecycle_phase"], path.at_high, path.at_low)
    )
    return Phase(
        "star_signals",
        {"repo": repo, "day": row["day"]},
        "lifecycle_phase",
        row["lifecycle_phase"],
        row["day"],
        LIFECYCLE_RULE,
        path,
        conflict,
    )


# A tag's version as a list of its numbers ('v3.13.2' -> [3, 13, 2]), to order releases of one
# day: a backport published hours after the new version line is not "the latest release"
# (`sql/release_signals.sql` orders the same way)
VERSION_KEY = "list_transform(regexp_extract_all(tag, '\\d+'), lambda x: x::BIGINT)"


def latest_release(con: duckdb.DuckDBPyConnection, repo: str, day: date) -> dict[str, Any] | None:
    """The latest release (or tag) of `repo` published on or before `day`: of the newest day's,
    the highest version (`VERSION_KEY`), then the latest published."""
    rows = dicts(
        con.execute(
            "SELECT tag, name, published_at, is_prerelease FROM releases WHERE repo = ? AND "
            f"published_at < ? ORDER BY published_at::DATE DESC, {VERSION_KEY} DESC, "
            "published_at DESC, tag LIMIT 1",
            [repo, day + timedelta(days=1)],
        )
    )
    return rows[0] if rows else None


def last_release_lift(
    con: duckdb.DuckDBPyConnection, repo: str, day: date
) -> dict[str, Any] | None:
    """The latest release whose 14-day star lift was measurable by `day` (d + 14 <= day), of
    one day's the highest version."""
    rows = dicts(
        con.execute(
            "SELECT tag, day, star_lift FROM release_signals WHERE repo = ? AND star_lift IS NOT "
            f"NULL AND day + INTERVAL 14 DAY <= ? ORDER BY day DESC, {VERSION_KEY} DESC, tag "
            "LIMIT 1",
            [repo, day],
        )
    )
    return rows[0] if rows else None


@dataclass
class CategoryMove:
    """A category's mean 28-day acceleration and velocity (category_signals) on a day."""

    category: str
    members: list[str]
    acceleration: float | None
    velocity: float | None
    sql: str
    velocity_sql: str
    params: list[Any]


def category_moves(
    con: duckdb.DuckDBPyConnection, settings: Settings, day: date
) -> list[CategoryMove]:
    """One CategoryMove per configured category, from its category_signals row on `day`."""
    categories: dict[str, list[str]] = {}
    for repo, category in settings.tracked_categories().items():
        categories.setdefault(category, []).append(repo)
    sql = "SELECT acceleration_28d_mean FROM category_signals WHERE category = ? AND day = ?"
    velocity_sql = "SELECT velocity_28d_mean FROM category_signals WHERE category = ? AND day = ?"
    out = []
    for category, members in categories.items():
        params = [category, day]
        row = con.execute(
            "SELECT acceleration_28d_mean, velocity_28d_mean FROM category_signals "
            "WHERE category = ? AND day = ?",
            params,
        ).fetchone()
        acceleration, velocity = row if row else (None, None)
        out.append(
            CategoryMove(category, members, acceleration, velocity, sql, velocity_sql, params)
        )
    return out
