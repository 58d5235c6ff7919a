"""Data for the signal tests: synthetic star and commit histories with known shapes, a sample of
the real star counts and git histories in ../shared, and a comparison of two star_signals frames.

Kept here rather than in tests/unit/signals/conftest.py so that test modules import it by a name
of its own (`support.signal_data`): every conftest.py is the module `conftest`, and importing from
it breaks as soon as pytest loads another folder's conftest.py in the same run."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from shu.settings import DEFAULT_ALIASES
from shu.store import Store

# Real repositories: the big three (ollama renamed from jmorganca/ollama on 2024-01-24), some that
# enter and leave the rankings many times (gaps), and short-lived ones.
SAMPLE_REPOS = (
    "pytorch/pytorch",
    "tensorflow/tensorflow",
    "ollama/ollama",
    "jmorganca/ollama",
    "Meituan-Dianping/mpvue",
    "Netflix/zuul",
    "reduxjs/reselect",
    "bin456789/reinstall",
    "bootstrap-vue/bootstrap-vue",
)
START = date(2024, 1, 1)


def load_real_sample(
    store: Store,
    parquet: Path,
    repos=SAMPLE_REPOS,
    until: date | None = None,
    only_day: date | None = None,
) -> None:
    """Insert the sample's rows from the shared parquet into stars_daily, aliases folded
    (all days, those up to `until`, or those of `only_day`)."""
    fold = " ".join(f"WHEN '{old}' THEN '{new}'" for old, new in DEFAULT_ALIASES.items())
    names = ", ".join(f"'{r}'" for r in repos)
    limit = f"AND day <= DATE '{until}'" if until else ""
    if only_day:
        limit = f"AND day = DATE '{only_day}'"
    store.con.execute(f"""
        INSERT INTO stars_daily (repo, day, stars, forks, open_issues, source)
        SELECT CASE repo {fold} ELSE repo END, day, stars, forks, open_issues, 'ranking'
        FROM read_parquet('{parquet}') WHERE repo IN ({names}) {limit}""")


def synthetic_observations() -> pd.DataFrame:
    """Three made-up repositories with known shapes and gaps (see the tests)."""
    rows = []
    for i in range(120):  # linear: +10 stars/day; no observation on days 40..49 (10-day gap)
        if not 40 <= i <= 49 and i not in (70, 71, 72):  # and a 3-day gap (held by ASOF)
            rows.append(("lin/ear", START + timedelta(days=i), 1000 + 10 * i))
    for i in range(400):  # quadratic: velocity grows, acceleration constant
        rows.append(("quad/ratic", START + timedelta(days=i), 50 + i * i))
    for i in range(20):  # too short for 28-day windows
        rows.append(("sho/rt", START + timedelta(days=100 + i), 7 * i))
    return pd.DataFrame(rows, columns=["repo", "day", "stars"])


def insert_observations(store: Store, frame: pd.DataFrame) -> None:
    store.con.register("_obs", frame)
    store.con.execute(
        "INSERT INTO stars_daily (repo, day, stars, source) "
        "SELECT repo, day, stars, 'synthetic' FROM _obs"
    )
    store.con.unregister("_obs")


def signals_frame(store: Store) -> pd.DataFrame:
    """star_signals ordered by (repo, day), day as Timestamp."""
    df = store.con.execute("SELECT * FROM star_signals ORDER BY repo, day").df()
    df["day"] = pd.to_datetime(df["day"])
    return df


VALUE_COLUMNS = [
    "stars",
    "stars_age_days",
    "velocity_7d",
    "velocity_28d",
    "velocity_90d",
    "acceleration_7d",
    "acceleration_28d",
    "velocity_7d_z",
    "velocity_28d_z",
]


def assert_same_signals(actual: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Same (repo, day) rows; values equal within float tolerance, NULL exactly where NULL."""
    actual = actual.sort_values(["repo", "day"]).reset_index(drop=True)
    expected = expected.sort_values(["repo", "day"]).reset_index(drop=True)
    assert len(actual) == len(expected)
    assert (actual["repo"] == expected["repo"]).all()
    assert (pd.to_datetime(actual["day"]) == pd.to_datetime(expected["day"])).all()
    for c in VALUE_COLUMNS:
        a = actual[c].astype(float).to_numpy()
        e = expected[c].astype(float).to_numpy()
        np.testing.assert_array_equal(np.isnan(a), np.isnan(e), err_msg=f"NULLs differ in {c}")
        np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-9, equal_nan=True, err_msg=c)
    assert (actual["gap"].astype(bool) == expected["gap"].astype(bool)).all()
    assert (actual["lifecycle_phase"].fillna("-") == expected["lifecycle_phase"].fillna("-")).all()


def stars_frame(store: Store) -> pd.DataFrame:
    return store.con.execute("SELECT repo, day, stars FROM stars_daily").df()


HISTORY_SAMPLE = ("ollama/ollama", "ROCm/HIP", "pytorch/ao")


def load_history_commits(store: Store, history_dir: Path, repos=HISTORY_SAMPLE) -> None:
    """Insert the shared git-history commit tables of `repos` into `commits`."""
    for repo in repos:
        path = history_dir / (repo.replace("/", "__") + ".commits.csv.gz")
        store.con.execute(f"""
            INSERT INTO commits (repo, sha, authored_at, committed_at, author_id, subject,
                                 parents, is_mainline, author_is_bot, files_changed,
                                 insertions, deletions, touches_rocm, source)
            SELECT '{repo}', sha, author_time::TIMESTAMPTZ::TIMESTAMP,
                   commit_time::TIMESTAMPTZ::TIMESTAMP, author_id, subject, parents,
                   first_parent = 1, author_is_bot = 1, files_changed, insertions, deletions,
                   touches_rocm = 1, 'git'
            FROM read_csv('{path}', header = true, all_varchar = false)""")


def synthetic_commits() -> pd.DataFrame:
    """Commits of two made-up repositories (see test_commit_signals)."""
    rows: list[tuple[Any, ...]] = []
    t0 = pd.Timestamp(START)
    for i in range(100):  # 'main/line': 2 mainline commits a day, one of them ROCm on even days
        day = t0 + pd.Timedelta(days=i, hours=10)
        rows.append(("main/line", f"a{i}", day, 1, True, i % 2 == 0))
        rows.append(("main/line", f"b{i}", day + pd.Timedelta(hours=1), 2, True, False))
        # a branch commit merged in by b{i}: not on the first-parent chain, not counted again
        rows.append(("main/line", f"c{i}", day - pd.Timedelta(hours=5), 1, False, True))
    for i in range(0, 60, 3):  # 'no/mainline': unknown mainline; merges excluded
        day = t0 + pd.Timedelta(days=i, hours=3)
        rows.append(("no/mainline", f"d{i}", day, 1, None, False))
        rows.append(("no/mainline", f"e{i}", day, 2, None, False))
    return pd.DataFrame(
        rows, columns=["repo", "sha", "committed_at", "parents", "is_mainline", "touches_rocm"]
    )


def insert_commits(store: Store, frame: pd.DataFrame) -> None:
    store.con.register("_commits", frame)
    store.con.execute(
        "INSERT INTO commits (repo, sha, committed_at, parents, is_mainline, "
        "touches_rocm, source) SELECT repo, sha, committed_at, parents, "
        "is_mainline, touches_rocm, 'synthetic' FROM _commits"
    )
    store.con.unregister("_commits")
