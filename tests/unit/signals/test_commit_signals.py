"""commit_signals: counting rule, windows, ROCm share; SQL == pandas reference."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from support.signal_data import START, insert_commits, load_history_commits, synthetic_commits

from shu.settings import get_settings
from shu.signals import refresh_signals
from shu.signals.reference import commit_signals_reference

COLUMNS = [
    "commits",
    "commits_day",
    "commit_velocity_7d",
    "commit_velocity_28d",
    "commit_acceleration_7d",
    "commit_acceleration_28d",
    "commit_velocity_7d_z",
    "commit_velocity_28d_z",
    "rocm_commits_28d",
    "rocm_share_28d",
]


def commit_frame(store) -> pd.DataFrame:
    df = store.con.execute("SELECT * FROM commit_signals ORDER BY repo, day").df()
    df["day"] = pd.to_datetime(df["day"])
    return df


def assert_same(actual: pd.DataFrame, expected: pd.DataFrame) -> None:
    expected = expected.sort_values(["repo", "day"]).reset_index(drop=True)
    assert list(actual["repo"]) == list(expected["repo"])
    assert (actual["day"].to_numpy() == pd.to_datetime(expected["day"]).to_numpy()).all()
    for c in COLUMNS:
        a, e = actual[c].astype(float).to_numpy(), expected[c].astype(float).to_numpy()
        np.testing.assert_array_equal(np.isnan(a), np.isnan(e), err_msg=f"NULLs differ in {c}")
        np.testing.assert_allclose(a, e, rtol=1e-7, atol=1e-9, equal_nan=True, err_msg=c)
    assert not actual["gap"].any()


def test_synthetic_commit_signals(store):
    insert_commits(store, synthetic_commits())
    result = refresh_signals(store, settings=get_settings())
    assert result["commit_signals"]["rows"] == 100 + 58
    df = commit_frame(store).set_index(["repo", "day"])
    main = df.loc["main/line"]
    day = pd.Timestamp(START + timedelta(days=60))
    # 2 mainline commits a day; the merged-in branch commit is not counted again
    assert main.loc[day, "commits_day"] == 2 and main.loc[day, "commits"] == 122
    assert (
        main.loc[day, "commit_velocity_7d"] == 2 and main.loc[day, "commit_acceleration_28d"] == 0
    )
    assert main.loc[day, "rocm_commits_28d"] == 14 and main.loc[day, "rocm_share_28d"] == 0.25
    assert np.isnan(main.loc[pd.Timestamp(START + timedelta(days=27)), "commit_velocity_28d"])
    other = df.loc["no/mainline"]  # one non-merge commit every third day
    assert other.loc[pd.Timestamp(START + timedelta(days=57)), "commits"] == 20
    assert other.loc[
        pd.Timestamp(START + timedelta(days=57)), "commit_velocity_28d"
    ] == pytest.approx(10 / 28)
    assert_same(
        commit_frame(store),
        commit_signals_reference(store.con.execute("SELECT * FROM commits").df()),
    )


def test_real_commit_history_matches_reference(store, shared_dir):
    load_history_commits(store, shared_dir / "data" / "history")
    refresh_signals(store, settings=get_settings())
    actual = commit_frame(store)
    assert set(actual["repo"]) == {"ollama/ollama", "ROCm/HIP", "pytorch/ao"}
    assert_same(actual, commit_signals_reference(store.con.execute("SELECT * FROM commits").df()))
    hip = actual[actual["repo"] == "ROCm/HIP"]
    assert hip["rocm_share_28d"].max() > 0.5  # HIP is ROCm work
