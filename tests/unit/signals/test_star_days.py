"""The facts layer (star_days, market_days): values by hand, the same from stars_daily as the
readers computed them before, incremental == full, and a store whose facts lag says so."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest
from support.signal_data import START, insert_observations, synthetic_observations

from shu.errors import StoreError
from shu.settings import get_settings
from shu.signals import refresh_signals
from shu.signals.star_days import ensure_current, refresh_star_days
from shu.store import open_store

D0 = date(2026, 1, 1)


def _facts(s, table: str) -> pd.DataFrame:
    key = "repo, day" if table == "star_days" else "day"
    return s.con.execute(f"SELECT * FROM {table} ORDER BY {key}").df()


def test_facts_by_hand(store):
    # a/one: observed on days 0, 1, 2 and 5 (3 and 4 carried ASOF); b/two every day, falling on 2
    rows = [("a/one", D0 + timedelta(days=i), n) for i, n in ((0, 10), (1, 12), (2, 11), (5, 20))]
    rows += [("b/two", D0 + timedelta(days=i), n) for i, n in enumerate((5, 6, 4, 4, 9, 9))]
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    out = refresh_signals(store, settings=get_settings())
    assert out["star_days"]["mode"] == "full" and out["star_days"]["rows"] == 12
    a = _facts(store, "star_days").query("repo == 'a/one'").set_index("day")
    assert a["observed"].tolist() == [True, True, True, False, False, True]
    assert a["gain"].tolist()[1:] == [2.0, -1.0, 0.0, 0.0, 9.0]
    assert pd.isna(a["gain"].iloc[0])
    assert a["change"].tolist()[1:3] == [2, -1] and a["change"].iloc[5] == 9
    assert a["days_since_previous"].iloc[5] == 3 and pd.isna(a["change"].iloc[3])
    m = _facts(store, "market_days").set_index("day")
    day2 = m.loc[pd.Timestamp(D0 + timedelta(days=2))]
    assert (day2["repos_compared"], day2["repos_losing"], day2["share_losing"]) == (2, 2, 1.0)
    day5 = m.loc[pd.Timestamp(D0 + timedelta(days=5))]
    assert (day5["repos_compared"], day5["repos_losing"]) == (1, 0)  # a/one's count is 3 days on


def test_same_as_the_readers_computed_from_stars_daily(synthetic_store):
    """change / days_since_previous and the daily loss share equal what the stories and the
    calibration watch computed over stars_daily before the facts layer held them."""
    refresh_signals(synthetic_store, settings=get_settings())
    con = synthetic_store.con
    before = con.execute(
        "SELECT repo, day, stars - lag(stars) OVER w AS change, day - lag(day) OVER w AS elapsed "
        "FROM stars_daily WHERE stars IS NOT NULL WINDOW w AS (PARTITION BY repo ORDER BY day) "
        "ORDER BY repo, day"
    ).df()
    facts = con.execute(
        "SELECT repo, day, change, days_since_previous AS elapsed FROM star_days WHERE observed "
        "ORDER BY repo, day"
    ).df()
    pd.testing.assert_frame_equal(before, facts, check_dtype=False)
    shares = con.execute(
        "WITH step AS (SELECT day, stars - lag(stars) OVER w AS change, "
        "day - lag(day) OVER w AS elapsed FROM stars_daily WHERE stars IS NOT NULL "
        "WINDOW w AS (PARTITION BY repo ORDER BY day)) "
        "SELECT day, avg((change < 0)::INT) AS share FROM step WHERE elapsed = 1 "
        "GROUP BY day ORDER BY day"
    ).df()
    stored = con.execute(
        "SELECT day, share_losing AS share FROM market_days WHERE share_losing IS NOT NULL "
        "ORDER BY day"
    ).df()
    pd.testing.assert_frame_equal(shares, stored, check_dtype=False)


def test_incremental_equals_full(store_path):
    """A repository back after a long absence, one new, and the synthetic shapes, refreshed a
    day at a time, give the facts a full rebuild gives."""
    frame = synthetic_observations()
    rows = [("back/again", START + timedelta(days=i), 100 + 3 * i) for i in range(0, 60)]
    rows += [("back/again", START + timedelta(days=i), 900 - i) for i in range(390, 400)]
    rows += [("brand/new", START + timedelta(days=i), 5 * i) for i in range(396, 400)]
    frame = pd.concat([frame, pd.DataFrame(rows, columns=["repo", "day", "stars"])])
    cut = START + timedelta(days=395)
    with open_store(store_path) as s:
        insert_observations(s, frame[frame["day"] < cut])
        refresh_signals(s, settings=get_settings())
        for i in range(395, 400):
            insert_observations(s, frame[frame["day"] == START + timedelta(days=i)])
            out = refresh_signals(s, settings=get_settings())
            assert out["star_days"]["mode"] == "incremental", out["star_days"]
            assert out["market_days"]["rows"] == 1
        assert refresh_signals(s, settings=get_settings())["star_days"]["reason"] == "up to date"
        incremental = {t: _facts(s, t) for t in ("star_days", "market_days")}
        # --full finds every star_signals row current: the facts, a function of them, are too
        assert (
            refresh_signals(s, full=True, settings=get_settings())["star_days"]["reason"]
            == "up to date"
        )
        assert refresh_star_days(s)[0].mode == "full"
        for table, rows_then in incremental.items():
            pd.testing.assert_frame_equal(rows_then, _facts(s, table), obj=table)
        back = incremental["star_days"].query("repo == 'back/again' and observed")
        assert back["days_since_previous"].max() == 390 - 59  # measured across the absence


def test_facts_behind_star_signals_say_so(synthetic_store):
    refresh_signals(synthetic_store, settings=get_settings())
    ensure_current(synthetic_store.con)
    synthetic_store.con.execute("DELETE FROM star_days WHERE day > ?", [START + timedelta(days=9)])
    with pytest.raises(StoreError, match="star_days reaches .* run `shu signals`"):
        ensure_current(synthetic_store.con)
