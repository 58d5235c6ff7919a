"""star_signals: SQL == pandas reference == incremental, hand-checked values, gaps are NULL."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from support.signal_data import (
    START,
    assert_same_signals,
    insert_observations,
    load_real_sample,
    signals_frame,
    stars_frame,
    synthetic_observations,
)

from shu.errors import StoreError
from shu.schema.signals import STAR_SIGNALS
from shu.settings import get_settings
from shu.signals import latest_signals, refresh_signals
from shu.signals.reference import star_signals_reference
from shu.store import open_store


# ------------------------------------------------------------------ synthetic (no ../shared)
def test_synthetic_matches_reference(synthetic_store):
    result = refresh_signals(synthetic_store, full=True, settings=get_settings())
    assert result["star_signals"]["mode"] == "full"
    expected = star_signals_reference(stars_frame(synthetic_store))
    assert_same_signals(signals_frame(synthetic_store), expected)


def test_synthetic_values_by_hand(synthetic_store):
    refresh_signals(synthetic_store, full=True, settings=get_settings())
    df = signals_frame(synthetic_store).set_index(["repo", "day"])
    day = lambda i: pd.Timestamp(START + timedelta(days=i))  # noqa: E731
    lin = df.loc["lin/ear"]
    # linear growth: 10 stars/day, no acceleration, once the windows are clear of the gaps
    assert lin.loc[day(30), "velocity_7d"] == 10 and lin.loc[day(30), "velocity_28d"] == 10
    assert lin.loc[day(30), "acceleration_7d"] == 0
    # the 10-day gap (days 40..49, last seen on 39): days 40..46 are fresh (ASOF day 39), 47..49
    # are stale and have no row; every window overlapping 47..49 is NULL and flagged
    assert lin.loc[day(46), "stars"] == 1000 + 10 * 39
    assert lin.loc[day(46), "stars_age_days"] == 7
    assert day(47) not in lin.index and day(49) not in lin.index
    for i in range(50, 57):
        assert np.isnan(lin.loc[day(i), "velocity_7d"]) and lin.loc[day(i), "gap"]
    assert lin.loc[day(57), "velocity_7d"] == 10
    assert np.isnan(lin.loc[day(49 + 28), "velocity_28d"])
    assert lin.loc[day(50 + 28), "velocity_28d"] == 10
    # the 3-day gap (70..72) is held by ASOF, not NULL: stars(72) = stars(69)
    assert lin.loc[day(72), "stars"] == 1000 + 10 * 69
    assert lin.loc[day(76), "velocity_7d"] == pytest.approx((1000 + 760 - (1000 + 690)) / 7)
    # quadratic: stars = 50 + i^2, so velocity_7d(i) = (i^2 - (i-7)^2) / 7 = 2i - 7 and
    # acceleration_7d = velocity_7d(i) - velocity_7d(i-7) = 14
    quad = df.loc["quad/ratic"]
    assert quad.loc[day(100), "velocity_7d"] == 2 * 100 - 7
    assert quad.loc[day(100), "acceleration_7d"] == 14
    assert quad.loc[day(100), "acceleration_28d"] == 56
    assert not quad["gap"].any()
    # velocity_90d(i) = (i^2 - (i-90)^2) / 90 = 2i - 90, from day 90 on (history too short before)
    assert quad.loc[day(90), "velocity_90d"] == 90 and quad.loc[day(100), "velocity_90d"] == 110
    assert np.isnan(quad.loc[day(89), "velocity_90d"])
    # every 90-day window of lin/ear (rows 90..126: observed to 119, held 7 days) spans the
    # 10-day gap: NULL, though by day 110 its 7- and 28-day windows and accelerations are clear
    # of it (`gap` flags those only)
    assert lin.loc[day(90) :, "velocity_90d"].isna().all() and len(lin.loc[day(90) :]) == 37
    assert lin.loc[day(110), "velocity_28d"] == 10 and not lin.loc[day(110), "gap"]
    # windows before the first observation are NULL but not a gap
    short = df.loc["sho/rt"]
    assert short["velocity_28d"].isna().all() and not short["gap"].any()
    assert short.loc[day(110), "velocity_7d"] == 7


def test_zscore_by_hand(synthetic_store):
    refresh_signals(synthetic_store, full=True, settings=get_settings())
    df = signals_frame(synthetic_store).set_index(["repo", "day"]).loc["quad/ratic"]
    t = pd.Timestamp(START + timedelta(days=399))
    window = df.loc[t - pd.Timedelta(days=364) : t, "velocity_7d"].dropna()
    assert len(window) == 365
    expected = (window.iloc[-1] - window.mean()) / window.std(ddof=1)
    assert df.loc[t, "velocity_7d_z"] == pytest.approx(expected, rel=1e-12)
    # fewer than 28 values in the trailing year: no z-score
    assert (
        df.loc[pd.Timestamp(START + timedelta(days=30)), "velocity_7d_z"]
        != df.loc[pd.Timestamp(START + timedelta(days=30)), "velocity_7d_z"]
    )


def test_incremental_equals_full_synthetic(store_path, tmp_path):
    frame = synthetic_observations()
    last = frame["day"].max()
    with open_store(store_path) as s:
        insert_observations(s, frame[frame["day"] < last - timedelta(days=3)])
        assert (
            refresh_signals(s, settings=get_settings())["star_signals"]["mode"] == "full"
        )  # first run
        for k in (3, 2, 1, 0):  # one new day at a time
            insert_observations(s, frame[frame["day"] == last - timedelta(days=k)])
            assert (
                refresh_signals(s, settings=get_settings())["star_signals"]["mode"] == "incremental"
            )
        incremental = signals_frame(s)
        assert (
            refresh_signals(s, settings=get_settings())["star_signals"]["rows"] == 0
        )  # nothing new: nothing written
        refresh_signals(s, full=True, settings=get_settings())
        assert_same_signals(incremental, signals_frame(s))


def test_incremental_inside_a_transaction_equals_full(store_path):
    """Inside the caller's transaction the stored part of the trailing years is summed on its
    connection (another one would not see what that transaction wrote), same result."""
    frame = synthetic_observations()
    last = frame["day"].max()
    with open_store(store_path) as s:
        insert_observations(s, frame[frame["day"] < last])
        refresh_signals(s, settings=get_settings())
        with s.transaction():
            insert_observations(s, frame[frame["day"] == last])
            assert (
                refresh_signals(s, settings=get_settings())["star_signals"]["mode"] == "incremental"
            )
        incremental = signals_frame(s)
        refresh_signals(s, full=True, settings=get_settings())
        assert_same_signals(incremental, signals_frame(s))


def test_incremental_with_returning_and_new_repos(store_path):
    """A repository back after a year away, and one seen for the first time, refreshed a day
    at a time, equal a full refresh and the reference."""
    rows = [
        ("back/again", START + timedelta(days=i), 100 + 3 * i + i * i // 50)
        for i in list(range(0, 120)) + list(range(520, 640))
    ]
    rows += [("brand/new", START + timedelta(days=i), 5 * i) for i in range(636, 640)]
    rows += [("always/there", START + timedelta(days=i), i * i) for i in range(640)]
    frame = pd.DataFrame(rows, columns=["repo", "day", "stars"])
    cut = START + timedelta(days=636)
    with open_store(store_path) as s:
        insert_observations(s, frame[frame["day"] < cut])
        refresh_signals(s, settings=get_settings())
        for i in range(636, 640):
            insert_observations(s, frame[frame["day"] == START + timedelta(days=i)])
            assert (
                refresh_signals(s, settings=get_settings())["star_signals"]["mode"] == "incremental"
            )
        incremental = signals_frame(s)
        assert_same_signals(incremental, star_signals_reference(stars_frame(s)))
        refresh_signals(s, full=True, settings=get_settings())
        assert_same_signals(incremental, signals_frame(s))
        back = incremental[incremental["repo"] == "back/again"].set_index("day")
        assert back.loc[pd.Timestamp(START + timedelta(days=560)), "gap"]  # reaches the absence
        assert not back.loc[pd.Timestamp(START + timedelta(days=639)), "gap"]
        assert not np.isnan(back.loc[pd.Timestamp(START + timedelta(days=639)), "velocity_7d_z"])


def test_first_days_are_recorded_and_an_empty_record_means_full(synthetic_store):
    """star_signal_repos holds each repository's first observed day (the incremental refresh
    reads it instead of the whole history); without it the next refresh is a full one."""
    refresh_signals(synthetic_store, settings=get_settings())
    con = synthetic_store.con
    assert (
        con.execute("SELECT * FROM star_signal_repos ORDER BY repo").fetchall()
        == con.execute(
            "SELECT repo, min(day) FROM stars_daily WHERE stars IS NOT NULL "
            "GROUP BY repo ORDER BY repo"
        ).fetchall()
    )
    con.execute("DELETE FROM star_signal_repos")
    result = refresh_signals(synthetic_store, settings=get_settings())["star_signals"]
    assert result["mode"] == "full" and "first days" in result["reason"]
    assert con.execute("SELECT count(*) FROM star_signal_repos").fetchone()[0] > 0


def test_changed_history_falls_back_to_full(synthetic_store):
    refresh_signals(synthetic_store, settings=get_settings())
    synthetic_store.con.execute(
        "UPDATE stars_daily SET stars = stars + 1 WHERE repo = 'lin/ear' AND day = ?",
        [START + timedelta(days=5)],
    )
    result = refresh_signals(synthetic_store, settings=get_settings())["star_signals"]
    assert result["mode"] == "full" and "changed" in result["reason"]
    assert_same_signals(
        signals_frame(synthetic_store), star_signals_reference(stars_frame(synthetic_store))
    )


def test_latest_signals(synthetic_store):
    assert latest_signals(synthetic_store, "lin/ear") == {}
    refresh_signals(synthetic_store, settings=get_settings())
    latest = latest_signals(synthetic_store, "quad/ratic")
    assert latest["day"] == START + timedelta(days=399)
    assert latest["velocity_7d"] == 2 * 399 - 7


# ------------------------------------------------------------------ real data (../shared)
def test_real_sample_matches_reference(real_store):
    expected = star_signals_reference(stars_frame(real_store))
    assert_same_signals(signals_frame(real_store), expected)
    repos = set(signals_frame(real_store)["repo"])
    assert "ollama/ollama" in repos and "jmorganca/ollama" not in repos


def test_real_incremental_equals_full(parquet, tmp_path):
    last = date(2026, 2, 28)
    with open_store(tmp_path / "inc.duckdb") as s:
        load_real_sample(s, parquet, until=last - timedelta(days=2))
        refresh_signals(s, full=True, settings=get_settings())
        for new_day in (last - timedelta(days=1), last):
            load_real_sample(s, parquet, only_day=new_day)
            assert (
                refresh_signals(s, settings=get_settings())["star_signals"]["mode"] == "incremental"
            )
        incremental = signals_frame(s)
        refresh_signals(s, full=True, settings=get_settings())
        assert_same_signals(incremental, signals_frame(s))
        assert_same_signals(incremental, star_signals_reference(stars_frame(s)))


def test_pytorch_2025_12_31_by_hand(real_store, parquet):
    import duckdb

    # independent: read the raw parquet, take the latest observation at or before each day
    raw = duckdb.sql(
        f"SELECT day, stars FROM read_parquet('{parquet}') "
        "WHERE repo = 'pytorch/pytorch' ORDER BY day"
    ).fetchall()
    observed = dict(raw)

    def stars(d: date) -> int:
        seen = [day for day in observed if day <= d]
        assert d - max(seen) <= timedelta(days=7)
        return observed[max(seen)]

    t = date(2025, 12, 31)
    # every day of [t-56, t] has a fresh observation (no dataset gap in it)
    for i in range(57):
        stars(t - timedelta(days=i))
    v7 = (stars(t) - stars(t - timedelta(days=7))) / 7
    v28 = (stars(t) - stars(t - timedelta(days=28))) / 28
    a7 = v7 - (stars(t - timedelta(days=7)) - stars(t - timedelta(days=14))) / 7
    a28 = v28 - (stars(t - timedelta(days=28)) - stars(t - timedelta(days=56))) / 28
    row = real_store.con.execute(
        "SELECT stars, velocity_7d, velocity_28d, acceleration_7d, acceleration_28d, gap "
        "FROM star_signals WHERE repo = 'pytorch/pytorch' AND day = ?",
        [t],
    ).fetchone()
    assert row[0] == stars(t)
    assert row[1:5] == pytest.approx((v7, v28, a7, a28), rel=1e-12)
    assert row[5] is False


def test_dataset_gap_windows_are_null(real_store):
    # whole-dataset gap 2024-10-24..2025-01-07: pytorch last seen 2024-10-23
    rows = dict(
        real_store.con.execute(
            "SELECT day, velocity_28d FROM star_signals WHERE repo = 'pytorch/pytorch' "
            "AND day BETWEEN '2024-10-20' AND '2025-02-10'"
        ).fetchall()
    )
    assert date(2024, 10, 30) in rows and date(2024, 10, 31) not in rows  # stale: no row
    assert date(2025, 1, 7) not in rows
    after = [d for d in rows if d >= date(2025, 1, 8)]
    assert after and all(rows[d] is None for d in after if d <= date(2025, 2, 4))
    assert rows[date(2025, 2, 5)] is not None  # first 28-day window clear of the gap
    nulls = real_store.con.execute(
        "SELECT count(*) FILTER (WHERE velocity_28d IS NULL AND NOT gap) FROM star_signals "
        "WHERE repo = 'pytorch/pytorch' AND day BETWEEN '2025-01-08' AND '2025-02-04'"
    ).fetchone()[0]
    assert nulls == 0  # every such NULL is flagged as a gap


def test_no_zscore_when_the_trailing_year_is_flat(store):
    """Velocity varies, then stays exactly constant for over a year: the spread of the trailing
    year is exactly 0, so no z-score (pandas' rolling std leaves a ~1e-12 residue there)."""
    stars = [i * i for i in range(60)]
    stars += [stars[-1] + 10 * j for j in range(1, 460)]
    days = [START + timedelta(days=i) for i in range(len(stars))]
    insert_observations(store, pd.DataFrame({"repo": "flat/line", "day": days, "stars": stars}))
    refresh_signals(store, settings=get_settings())
    df = signals_frame(store).set_index("day")
    assert np.isnan(df.loc[pd.Timestamp(days[-1]), "velocity_28d_z"])
    assert not np.isnan(df.loc[pd.Timestamp(days[200]), "velocity_28d_z"])
    assert_same_signals(signals_frame(store), star_signals_reference(stars_frame(store)))


def test_full_refresh_inside_a_transaction_uses_one_connection(synthetic_store):
    """Inside the caller's transaction the slices are written on its connection (no writer
    connection can join it), same result; and a refresh that fails leaves the previous table as
    it was."""
    with synthetic_store.transaction():
        refresh_signals(synthetic_store, full=True, settings=get_settings())
    assert_same_signals(
        signals_frame(synthetic_store), star_signals_reference(stars_frame(synthetic_store))
    )
    before = signals_frame(synthetic_store)
    jump = [
        ("huge/jump", START + timedelta(days=i), 0 if i < 10 else 20_000_000) for i in range(20)
    ]  # 20M stars in a day: more than the packed sums allow
    insert_observations(synthetic_store, pd.DataFrame(jump, columns=["repo", "day", "stars"]))
    with pytest.raises(StoreError, match="cannot be summed exactly"):
        refresh_signals(synthetic_store, full=True, settings=get_settings())
    assert_same_signals(signals_frame(synthetic_store), before)


def test_store_without_velocity_90d_is_rebuilt_in_full(store_path):
    """A store whose star_signals predates velocity_90d: reopening recreates the table in the
    declared column order, and the next refresh is full and equals the reference."""
    with open_store(store_path) as s:
        insert_observations(s, synthetic_observations())
        refresh_signals(s, settings=get_settings())
        s.con.execute("ALTER TABLE star_signals DROP COLUMN velocity_90d")
        s.con.execute("DELETE FROM _shu_migrations WHERE version = 2")
    with open_store(store_path) as s:
        columns = [d[0] for d in s.con.execute("SELECT * FROM star_signals LIMIT 0").description]
        assert columns == list(STAR_SIGNALS.column_names)
        assert s.con.execute("SELECT count(*) FROM star_signals").fetchone()[0] == 0
        assert refresh_signals(s, settings=get_settings())["star_signals"]["mode"] == "full"
        assert_same_signals(signals_frame(s), star_signals_reference(stars_frame(s)))
