"""The ROCm ecosystem index (rocm_index_repos and the view rocm_index): small made-up histories
with known answers, SQL == pandas reference, idempotent refresh, a copy that ends is not a
repository that stopped, and the index on the shared exports against a direct count of their
files."""

from __future__ import annotations

import gzip
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from shu.settings import Settings, get_settings
from shu.signals import refresh_signals
from shu.signals.reference import rocm_index_from_rows, rocm_index_reference
from shu.sources.history import ingest_history
from shu.store import Store

START = date(2024, 1, 1)
ROW_COLUMNS = [
    "commits_90d",
    "rocm_commits_90d",
    "nonbot_commits_90d",
    "nonbot_rocm_commits_90d",
    "rocm_releases_365d",
]
INDEX_COLUMNS = [
    "repos",
    "repos_rocm_90d",
    "repos_ever_rocm",
    "commits_90d",
    "rocm_commits_90d",
    "rocm_share_90d",
    "nonbot_commits_90d",
    "nonbot_rocm_commits_90d",
    "nonbot_rocm_share_90d",
    "repos_rocm_release_365d",
    "adopters_90d",
    "adopters_365d",
    "amd_repos",
    "third_party_repos_rocm_90d",
    "third_party_commits_90d",
    "third_party_rocm_commits_90d",
    "third_party_rocm_share_90d",
]


def _day(i: int) -> pd.Timestamp:
    return pd.Timestamp(START + timedelta(days=i))


def synthetic_history() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Four made-up repositories (commits, releases):

    - early/adopter: a mainline commit a day on days 0..399; its first ROCm commit on day 200
      (then one every 10th day), by a bot every 7th day; a merged-in branch commit touching
      ROCm on day 100 that is not on the mainline (not counted); a ROCm release on day 250.
    - born/rocm: one commit a day on days 0..399, the first ones touching ROCm: not an adopter.
    - short/copy: commits on days 0..149 only (its copy ends), a ROCm commit on day 120.
    - no/mainline: no row says mainline; a non-merge and a merge commit every second day on
      days 0..299, merges touching ROCm (merges do not count there).
    """
    rows: list[tuple[Any, ...]] = []
    for i in range(400):
        rocm = i >= 200 and i % 10 == 0
        rows.append(
            ("early/adopter", f"e{i}", _day(i) + pd.Timedelta(hours=9), 1, True, rocm, i % 7 == 0)
        )
        rows.append(("born/rocm", f"b{i}", _day(i) + pd.Timedelta(hours=9), 1, True, i < 30, False))
    rows.append(("early/adopter", "side", _day(100), 1, False, True, False))
    for i in range(150):
        rows.append(
            ("short/copy", f"s{i}", _day(i) + pd.Timedelta(hours=1), 1, True, i == 120, False)
        )
    for i in range(0, 300, 2):
        rows.append(("no/mainline", f"n{i}", _day(i), 1, None, False, False))
        rows.append(("no/mainline", f"m{i}", _day(i), 2, None, True, False))
    commits = pd.DataFrame(
        rows,
        columns=[
            "repo",
            "sha",
            "committed_at",
            "parents",
            "is_mainline",
            "touches_rocm",
            "author_is_bot",
        ],
    )
    releases = pd.DataFrame(
        [
            ("early/adopter", "v1.0", "v1.0", _day(250), "Adds ROCm 6 wheels"),
            ("early/adopter", "v0.9", "v0.9", _day(150), "CUDA only"),
        ],
        columns=["repo", "tag", "name", "published_at", "body"],
    )
    return commits, releases


def insert(store: Store, commits: pd.DataFrame, releases: pd.DataFrame) -> None:
    store.con.register("_c", commits)
    store.con.execute(
        "INSERT INTO commits (repo, sha, committed_at, parents, is_mainline, touches_rocm, "
        "author_is_bot, source) SELECT repo, sha, committed_at, parents, is_mainline, "
        "touches_rocm, author_is_bot, 'synthetic' FROM _c"
    )
    store.con.unregister("_c")
    store.con.register("_r", releases)
    store.con.execute(
        "INSERT INTO releases (repo, tag, name, published_at, body, source) "
        "SELECT repo, tag, name, published_at, body, 'synthetic' FROM _r"
    )
    store.con.unregister("_r")


def rows_frame(store: Store) -> pd.DataFrame:
    df = store.con.execute("SELECT * FROM rocm_index_repos ORDER BY repo, day").df()
    df["day"] = pd.to_datetime(df["day"])
    df["first_rocm_day"] = pd.to_datetime(df["first_rocm_day"])
    return df


def index_frame(store: Store) -> pd.DataFrame:
    df = store.con.execute("SELECT * FROM rocm_index ORDER BY day").df()
    df["day"] = pd.to_datetime(df["day"])
    return df


def assert_same_rows(actual: pd.DataFrame, expected: pd.DataFrame) -> None:
    expected = expected.sort_values(["repo", "day"]).reset_index(drop=True)
    actual = actual.reset_index(drop=True)
    assert list(actual["repo"]) == list(expected["repo"])
    assert (actual["day"].to_numpy() == pd.to_datetime(expected["day"]).to_numpy()).all()
    for c in ROW_COLUMNS:
        np.testing.assert_array_equal(actual[c].to_numpy(), expected[c].to_numpy(), err_msg=c)
    a_first = pd.to_datetime(actual["first_rocm_day"])
    e_first = pd.to_datetime(expected["first_rocm_day"])
    assert (a_first.isna() == e_first.isna()).all()
    assert (a_first[a_first.notna()] == e_first[e_first.notna()]).all()
    assert (actual["first_rocm_sha"].fillna("-") == expected["first_rocm_sha"].fillna("-")).all()
    assert (actual["first_time_adopter"] == expected["first_time_adopter"].astype(bool)).all()
    assert (actual["amd_own"] == expected["amd_own"].astype(bool)).all()


def assert_same_index(actual: pd.DataFrame, expected: pd.DataFrame) -> None:
    expected = expected.sort_values("day").reset_index(drop=True)
    assert (actual["day"].to_numpy() == pd.to_datetime(expected["day"]).to_numpy()).all()
    for c in INDEX_COLUMNS:
        a, e = actual[c].astype(float).to_numpy(), expected[c].astype(float).to_numpy()
        np.testing.assert_allclose(a, e, rtol=1e-12, equal_nan=True, err_msg=c)


def test_synthetic_index_known_answers(store):
    commits, releases = synthetic_history()
    insert(store, commits, releases)
    refresh_signals(store, settings=get_settings())
    rows = rows_frame(store).set_index(["repo", "day"])
    # a row only while the 90-day window is covered: days 89 .. newest commit day
    for repo, last in (("early/adopter", 399), ("born/rocm", 399), ("short/copy", 149)):
        days = rows.loc[repo].index
        assert days.min() == _day(89) and days.max() == _day(last), repo
    # no/mainline: merges do not count, so it never touches ROCm
    nm = rows.loc["no/mainline"]
    assert nm.loc[_day(200), "commits_90d"] == 45 and nm["rocm_commits_90d"].max() == 0
    early = rows.loc["early/adopter"]
    # the side-branch ROCm commit of day 100 is not counted: nothing before day 200
    assert early.loc[_day(199), "rocm_commits_90d"] == 0
    assert pd.isna(early.loc[_day(199), "first_rocm_day"])
    assert not early.loc[_day(199), "first_time_adopter"]
    day = early.loc[_day(200)]
    assert day["first_rocm_day"] == _day(200) and day["first_rocm_sha"] == "e200"
    assert day["first_time_adopter"] and day["rocm_commits_90d"] == 1
    # the window of day 299 is days 210..299: ROCm on 210, 220, ..., 290; bots every 7th day
    late = early.loc[_day(299)]
    bots = [i for i in range(210, 300) if i % 7 == 0]
    assert late["commits_90d"] == 90 and late["rocm_commits_90d"] == 9
    assert late["nonbot_commits_90d"] == 90 - len(bots)
    assert late["nonbot_rocm_commits_90d"] == 9 - len({210, 280})  # 210 and 280 are bots'
    assert late["rocm_releases_365d"] == 1  # v1.0 mentions ROCm; v0.9 does not
    born = rows.loc["born/rocm"]
    assert born.loc[_day(89), "first_rocm_day"] == _day(0)
    assert not born["first_time_adopter"].any()  # ROCm from its first day: not an adoption
    assert (
        born.loc[_day(118), "rocm_commits_90d"] == 1
        and born.loc[_day(119), "rocm_commits_90d"] == 0
    )
    short = rows.loc["short/copy"]
    assert short.loc[_day(120), "first_time_adopter"]

    index = index_frame(store).set_index("day")
    d = index.loc[_day(100)]  # born/rocm's early ROCm commits are still in the window
    assert d["repos"] == 4 and d["repos_rocm_90d"] == 1 and d["adopters_90d"] == 0
    d = index.loc[_day(149)]  # short/copy on its last day, its day-120 adoption counted
    assert d["repos"] == 4 and d["repos_rocm_90d"] == 1 and d["adopters_90d"] == 1
    d = index.loc[_day(150)]  # short/copy's copy has ended: it leaves, it did not stop
    assert d["repos"] == 3 and d["repos_rocm_90d"] == 0 and d["adopters_90d"] == 0
    d = index.loc[_day(260)]  # ROCm on early/adopter's days 200..260
    assert d["adopters_90d"] == 1 and d["adopters_365d"] == 1 and d["repos_ever_rocm"] == 2
    assert d["rocm_commits_90d"] == 7
    assert d["rocm_share_90d"] == pytest.approx(7 / d["commits_90d"])
    assert index.loc[_day(299), "adopters_90d"] == 0 and index.loc[_day(299), "adopters_365d"] == 1
    assert index.index.min() == _day(89) and index.index.max() == _day(399)
    # none of them is AMD's own: the third-party columns are the whole index's
    assert (index["amd_repos"] == 0).all()
    assert (index["third_party_rocm_commits_90d"] == index["rocm_commits_90d"]).all()
    assert (index["third_party_rocm_share_90d"] == index["rocm_share_90d"]).all()


def test_synthetic_index_matches_reference_and_is_idempotent(store):
    commits, releases = synthetic_history()
    rng = np.random.default_rng(7)
    extra = pd.DataFrame(
        {
            "repo": rng.choice(["r/a", "r/b", "ROCm/c"], 3000),  # ROCm/c: AMD's own
            "sha": [f"x{i}" for i in range(3000)],
            "committed_at": [
                _day(int(d)) + pd.Timedelta(hours=int(h))
                for d, h in zip(rng.integers(0, 700, 3000), rng.integers(0, 24, 3000), strict=True)
            ],
            "parents": rng.choice([1, 1, 1, 2], 3000),
            "is_mainline": rng.choice([True, True, False], 3000),
            "touches_rocm": rng.random(3000) < 0.05,
            "author_is_bot": rng.choice([True, False, None], 3000),
        }
    )
    commits = pd.concat([commits, extra], ignore_index=True)
    insert(store, commits, releases)
    refresh_signals(store, settings=get_settings())
    first = rows_frame(store)
    stored = store.con.execute("SELECT * FROM commits").df()
    expected = rocm_index_reference(stored, store.con.execute("SELECT * FROM releases").df())
    assert_same_rows(first, expected)
    index = index_frame(store)
    assert_same_index(index, rocm_index_from_rows(expected))
    amd = first[first["repo"] == "ROCm/c"]
    assert amd["amd_own"].all() and not first[first["repo"] != "ROCm/c"]["amd_own"].any()
    both = index.set_index("day").loc[amd["day"]]
    assert (both["amd_repos"] == 1).all()
    assert (
        both["third_party_rocm_commits_90d"]
        == both["rocm_commits_90d"] - amd.set_index("day")["rocm_commits_90d"]
    ).all()
    refresh_signals(store, settings=get_settings())  # a re-run converges to the same rows
    pd.testing.assert_frame_equal(rows_frame(store), first)


def test_a_commit_in_two_repositories_counts_once(store):
    """ggml's ROCm commits vendored into whisper.cpp: five with the same sha, five re-committed
    two days later (same author, author time and subject, another sha) count once, in ggml (where
    they landed first); the index and the pandas reference agree."""
    rows = []
    for repo in ("ggml/ggml", "ggml/whisper"):
        for i in range(120):
            at = _day(i) + pd.Timedelta(hours=8)
            rows.append((repo, f"{repo}-p{i}", at, at, f"a-{repo}", f"work {i}", False))
    for i in range(100, 110):
        at = _day(i) + pd.Timedelta(hours=10)
        rows.append(("ggml/ggml", f"g{i}", at, at, "amd-dev", f"hip: kernel {i}", True))
        copy_sha, landed = (f"g{i}", at) if i < 105 else (f"w{i}", at + pd.Timedelta(days=2))
        rows.append(("ggml/whisper", copy_sha, at, landed, "amd-dev", f"hip: kernel {i}", True))
    commits = pd.DataFrame(
        rows,
        columns=[
            "repo",
            "sha",
            "authored_at",
            "committed_at",
            "author_id",
            "subject",
            "touches_rocm",
        ],
    )
    store.con.register("_c", commits)
    store.con.execute(
        "INSERT INTO commits (repo, sha, authored_at, committed_at, author_id, subject, parents, "
        "is_mainline, touches_rocm, author_is_bot, source) SELECT repo, sha, authored_at, "
        "committed_at, author_id, subject, 1, true, touches_rocm, false, 'synthetic' FROM _c"
    )
    store.con.unregister("_c")
    refresh_signals(store, settings=get_settings())
    day = START + timedelta(days=119)
    index = store.con.execute(
        "SELECT rocm_commits_90d, commits_90d FROM rocm_index WHERE day = ?", [day]
    ).fetchall()
    assert index == [(10, 190)]  # not 20 and 200: each copy counted once
    per_repo = dict(
        store.con.execute(
            "SELECT repo, rocm_commits_90d FROM rocm_index_repos WHERE day = ?", [day]
        ).fetchall()
    )
    assert per_repo == {"ggml/ggml": 10, "ggml/whisper": 0}
    stored = store.con.execute("SELECT * FROM commits").df()
    assert_same_rows(rows_frame(store), rocm_index_reference(stored))
    # the repository's own commit pace still counts what landed in it
    whisper = store.con.execute(
        "SELECT rocm_commits_28d FROM commit_signals WHERE repo = 'ggml/whisper' AND day = ?",
        [day],
    ).fetchall()
    assert whisper == [(10,)]


def test_a_copy_that_ends_changes_no_earlier_day(store, tmp_path):
    """Cutting a history short removes its later rows and changes nothing before the cut."""
    commits, releases = synthetic_history()
    insert(store, commits, releases)
    refresh_signals(store, settings=get_settings())
    full = rows_frame(store)
    cut = _day(250)
    store.con.execute(
        "DELETE FROM commits WHERE repo = 'early/adopter' AND committed_at >= ?", [cut]
    )
    refresh_signals(store, settings=get_settings())
    short = rows_frame(store)
    assert short[short["repo"] == "early/adopter"]["day"].max() == cut - pd.Timedelta(days=1)
    before = full[(full["repo"] != "early/adopter") | (full["day"] < cut)].reset_index(drop=True)
    pd.testing.assert_frame_equal(short, before)


# ------------------------------------------------------------------ the shared exports
DAYS = [date(2024, 2, 28), date(2025, 2, 28), date(2026, 2, 28)]


def _read_exports(history: Path) -> pd.DataFrame:
    frames = []
    for path in sorted(history.glob("*.commits.csv.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            df = pd.read_csv(
                fh,
                usecols=[
                    "sha",
                    "commit_time",
                    "author_time",
                    "author_id",
                    "subject",
                    "first_parent",
                    "touches_rocm",
                    "author_is_bot",
                ],
                dtype={"sha": str, "author_id": str},
            )
        df["repo"] = path.name.split(".commits.")[0].replace("__", "/", 1)
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out["day"] = pd.to_datetime(out["commit_time"], utc=True).dt.tz_localize(None).dt.normalize()
    return out


def _once(main: pd.DataFrame) -> pd.DataFrame:
    """Mainline commits with each copied across repositories kept where it landed first: the
    same sha, or the same author, author time and subject."""
    df = main.assign(at=pd.to_datetime(main["commit_time"], utc=True)).sort_values(
        ["at", "repo"], kind="stable"
    )
    keep = df.groupby("sha")["repo"].transform("first") == df["repo"]
    keys = ["author_id", "author_time", "subject"]
    known = df[keys].notna().all(axis=1)
    first = df[known].groupby(keys)["repo"].transform("first").reindex(df.index)
    return df[keep & (~known | (first == df["repo"]))]


def direct_count(exports: pd.DataFrame, day: date) -> dict:
    """The index on `day` counted straight from the export files (each commit copied across
    repositories once, where it landed first): mainline = first_parent,
    a repository counts when its export covers day-89 .. day (first mainline commit on or
    before day-89, newest commit on or after day)."""
    d = pd.Timestamp(day)
    main = _once(exports[exports["first_parent"] == 1])
    first = main.groupby("repo")["day"].min()
    newest = exports.groupby("repo")["day"].max()
    covered = [r for r in first.index if first[r] <= d - pd.Timedelta(days=89) and newest[r] >= d]
    window = main[
        main["repo"].isin(covered) & (main["day"] > d - pd.Timedelta(days=90)) & (main["day"] <= d)
    ]
    human = window[window["author_is_bot"] != 1]
    third = window[~window["repo"].str.startswith("ROCm/")]
    rocm_first = main[main["touches_rocm"] == 1].groupby("repo")["day"].min()
    adopters = [
        r
        for r in covered
        if r in rocm_first and first[r] + pd.Timedelta(days=89) <= rocm_first[r] <= d
    ]
    return {
        "repos": len(covered),
        "repos_rocm_90d": window[window["touches_rocm"] == 1]["repo"].nunique(),
        "commits_90d": len(window),
        "rocm_commits_90d": int((window["touches_rocm"] == 1).sum()),
        "nonbot_commits_90d": len(human),
        "nonbot_rocm_commits_90d": int((human["touches_rocm"] == 1).sum()),
        "adopters_365d": sum(rocm_first[r] > d - pd.Timedelta(days=365) for r in adopters),
        "amd_repos": sum(r.startswith("ROCm/") for r in covered),
        "third_party_repos_rocm_90d": third[third["touches_rocm"] == 1]["repo"].nunique(),
        "third_party_commits_90d": len(third),
        "third_party_rocm_commits_90d": int((third["touches_rocm"] == 1).sum()),
        "newest_adopters": sorted(adopters, key=lambda r: rocm_first[r], reverse=True),
        "first_rocm": rocm_first,
    }


@pytest.fixture(scope="module")
def history_store(tmp_path_factory, shared_dir):
    from shu.store import open_store

    store = open_store(tmp_path_factory.mktemp("history") / "shu.duckdb")
    ingest_history(store, [shared_dir / "data" / "history"], Settings())
    refresh_signals(store, settings=get_settings())
    yield store
    store.close()


@pytest.mark.slow
def test_index_agrees_with_a_direct_count_of_the_exports(history_store, shared_dir):
    exports = _read_exports(shared_dir / "data" / "history")
    assert exports["repo"].nunique() >= 38
    rng = np.random.default_rng(31)
    days = DAYS + [date(2017, 1, 1) + timedelta(days=int(i)) for i in rng.integers(0, 3400, 20)]
    for day in days:
        got = history_store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [day]).df()
        want = direct_count(exports, day)
        assert len(got) == 1, day
        for key in (
            "repos",
            "repos_rocm_90d",
            "commits_90d",
            "rocm_commits_90d",
            "nonbot_commits_90d",
            "nonbot_rocm_commits_90d",
            "adopters_365d",
            "amd_repos",
            "third_party_repos_rocm_90d",
            "third_party_commits_90d",
            "third_party_rocm_commits_90d",
        ):
            assert int(got[key].iloc[0]) == want[key], (day, key)
        share = got["rocm_share_90d"].iloc[0]
        assert share == pytest.approx(want["rocm_commits_90d"] / want["commits_90d"])
    # the outside count over all 38 files (90 days before each day) was 4.2%, 3.0%,
    # 4.6% counting ggml's commits again where whisper.cpp vendors them; each counted once, the
    # 2025 share is 2.8%
    shares = history_store.con.execute(
        "SELECT rocm_share_90d FROM rocm_index WHERE list_contains(?, day) ORDER BY day", [DAYS]
    ).fetchall()
    assert [round(s * 100, 1) for (s,) in shares] == pytest.approx([4.2, 2.8, 4.6], abs=0.06)
    # and its newest first-time adopters as of 2026-02-28, newest first
    want = direct_count(exports, DAYS[-1])
    newest = history_store.con.execute(
        "SELECT repo, first_rocm_day FROM rocm_index_repos WHERE day = ? AND first_time_adopter "
        "ORDER BY first_rocm_day DESC LIMIT 5",
        [DAYS[-1]],
    ).fetchall()
    assert [r for r, _ in newest] == want["newest_adopters"][:5]
    assert [(r, str(d)) for r, d in newest] == [
        ("OpenNMT/CTranslate2", "2026-02-02"),
        ("unslothai/unsloth", "2025-06-30"),
        ("huggingface/accelerate", "2025-03-25"),
        ("pytorch/torchtitan", "2025-03-04"),
        ("huggingface/diffusers", "2025-01-31"),
    ]
