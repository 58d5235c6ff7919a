"""What the briefing and `shu compare` read from the stored signals, below the briefing.

The briefing words and draws these; it does not query `stars_daily` or `star_signals` itself
(`tests/unit/core/test_design.py` checks). Each function returns plain data:

- `signal_value`: one stored `star_signals` value (what a receipt row cites);
- `repos_with_signals`, `signal_frame`: which repositories have signals, and one column of
  theirs as a long frame (the comparison charts);
- `pace_series`: a repository's 28-day velocity by day (the story and fan charts' line);
- `undefined_pace`: the runs of days a 28-day pace is undefined, and the unobserved days behind
  each (what a chart shades and names);
- `last_signal_day`, `last_count_day`: the newest day with signals among some repositories, and
  with a star count of one (the briefing's data-through day and its stale repositories).
"""

from __future__ import annotations

from datetime import date, timedelta
from itertools import pairwise
from typing import Any

import duckdb
import pandas as pd

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
