"""Context tables: lifecycle thresholds, category/peer acceleration, release lift and cadence."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest
from support.signal_data import (
    START,
    insert_commits,
    insert_observations,
    load_history_commits,
    load_real_sample,
    synthetic_commits,
)

from shu.settings import TrackedRepo, get_settings, load_settings
from shu.signals import latest_signals, refresh_signals
from shu.signals.lifecycle import lifecycle_phase
from shu.signals.reads import last_release_lift, latest_release


@pytest.mark.parametrize(
    ("stars", "gained_28d", "speedup_28d", "phase"),
    [
        (100_000, 279, 0, "decline"),  # 279 / 28 < 100000 / 10000 = 10 stars/day
        (100_000, 280, 0, "maturation"),  # exactly 10 stars/day: not decline
        (100_000, -50, 0, "decline"),  # losing stars
        (10_000, 1_400, 0, "emerging"),  # 50 stars/day = 0.5 % of 10000, not slowing
        (10_000, 1_400, -1, "maturation"),  # just as fast but slowing: not emerging
        (10_000, 1_399, 140, "expansion"),  # under 0.5 %/day; speed-up = 10 % of velocity
        (10_000, 1_399, 139, "maturation"),  # speed-up just under 10 % of velocity
        (0, 10, 10, None),
    ],
)
def test_lifecycle_thresholds(stars, gained_28d, speedup_28d, phase):
    assert lifecycle_phase(stars, gained_28d / 28, speedup_28d / 28) == phase


def test_lifecycle_undefined_without_windows():
    assert lifecycle_phase(100.0, None, 1.0) is None
    assert lifecycle_phase(100.0, 1.0, float("nan")) is None


def test_lifecycle_in_star_signals(store):
    days = [START + timedelta(days=i) for i in range(120)]
    # accelerating from 0 on a small base: emerging; then flat growth on a large base: decline
    rows = [("hot/repo", d, 100 + i * i) for i, d in enumerate(days)]
    rows += [("old/repo", d, 1_000_000 + i) for i, d in enumerate(days)]
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    refresh_signals(store, settings=get_settings())
    phases = dict(
        store.con.execute(
            "SELECT repo, lifecycle_phase FROM star_signals WHERE day = ?", [days[-1]]
        ).fetchall()
    )
    assert phases == {"hot/repo": "emerging", "old/repo": "decline"}
    assert (
        store.con.execute(
            "SELECT count(*) FROM star_signals WHERE lifecycle_phase IS NOT NULL "
            "AND acceleration_28d IS NULL"
        ).fetchone()[0]
        == 0
    )


def test_peer_context(store):
    settings = load_settings(
        repos=[
            TrackedRepo(repo="a/one", category="platform"),
            TrackedRepo(repo="b/two", category="platform"),
            TrackedRepo(repo="c/three", category="platform"),
            TrackedRepo(repo="d/four", category="runtime"),
        ]
    )
    days = [START + timedelta(days=i) for i in range(90)]
    growth = {"a/one": 1, "b/two": 2, "c/three": 3, "d/four": 1, "e/untracked": 5}
    rows = [(repo, d, 1000 + g * i * i) for repo, g in growth.items() for i, d in enumerate(days)]
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    result = refresh_signals(store, settings=settings)
    assert result["peer_signals"]["rows"] > 0
    # stars = 1000 + g i^2: acceleration_28d = 2 g 28^2 / 28 = 56 g
    peers = store.con.execute(
        "SELECT repo, acceleration_28d, peers, peer_acceleration_28d, relative_acceleration_28d, "
        "category_rank FROM peer_signals WHERE day = ? ORDER BY repo",
        [days[-1]],
    ).fetchall()
    assert peers == [
        ("a/one", 56.0, 2, 140.0, -84.0, 3),
        ("b/two", 112.0, 2, 112.0, 0.0, 2),
        ("c/three", 168.0, 2, 84.0, 84.0, 1),
        ("d/four", 56.0, 0, None, None, 1),
    ]
    cats = dict(
        store.con.execute(
            "SELECT category, acceleration_28d_mean FROM category_signals WHERE day = ?", [days[-1]]
        ).fetchall()
    )
    assert cats == {"platform": 112.0, "runtime": 56.0, "untracked": 280.0}


def test_peer_context_incremental_equals_full(store):
    settings = load_settings(
        repos=[TrackedRepo(repo="a/one", category="x"), TrackedRepo(repo="b/two", category="x")]
    )
    days = [START + timedelta(days=i) for i in range(80)]
    rows = pd.DataFrame(
        [
            (r, d, 10 * (k + 1) * i + i * i)
            for k, r in enumerate(("a/one", "b/two"))
            for i, d in enumerate(days)
        ],
        columns=["repo", "day", "stars"],
    )
    insert_observations(store, rows[rows["day"] < days[-1]])
    refresh_signals(store, settings=settings)
    insert_observations(store, rows[rows["day"] == days[-1]])
    assert refresh_signals(store, settings=settings)["peer_signals"]["mode"] == "incremental"
    query = (
        "SELECT * FROM peer_signals ORDER BY repo, day",
        "SELECT * FROM category_signals ORDER BY category, day",
    )
    incremental = [store.con.execute(q).fetchall() for q in query]
    refresh_signals(store, full=True, settings=settings)
    assert incremental == [store.con.execute(q).fetchall() for q in query]
    # the category renamed in the settings: every day is recomputed under the new name, not
    # only the new days (older days would keep a name nothing joins on any more)
    renamed = load_settings(
        repos=[TrackedRepo(repo="a/one", category="y"), TrackedRepo(repo="b/two", category="y")]
    )
    refresh = refresh_signals(store, settings=renamed)["category_signals"]
    assert refresh["mode"] == "full" and refresh["reason"] == "the configured categories changed"
    names = store.con.execute("SELECT DISTINCT category FROM category_signals").fetchall()
    assert names == [("y",)]  # (every repository is tracked: no 'untracked' row)


def insert_releases(store, rows):
    frame = pd.DataFrame(rows, columns=["repo", "tag", "published_at", "is_prerelease"])
    store.con.register("_rel", frame)
    store.con.execute(
        "INSERT INTO releases (repo, tag, published_at, is_prerelease, source) "
        "SELECT repo, tag, published_at, is_prerelease, 'github' FROM _rel"
    )
    store.con.unregister("_rel")


def test_release_lift_and_cadence(store):
    # stars: +10/day until day 60, +40/day from then on; a release on day 60
    days = [START + timedelta(days=i) for i in range(100)]
    stars = [1000 + 10 * min(i, 60) + 40 * max(i - 60, 0) for i in range(100)]
    insert_observations(store, pd.DataFrame({"repo": "r/el", "day": days, "stars": stars}))
    insert_commits(store, synthetic_commits().assign(repo="r/el"))
    at = lambda i: pd.Timestamp(START + timedelta(days=i, hours=15))  # noqa: E731
    insert_releases(
        store,
        [
            ("r/el", "v1", at(10), False),
            ("r/el", "v2", at(40), False),
            ("r/el", "v3-rc1", at(55), True),
            ("r/el", "v3", at(60), False),
            ("r/el", "v4", at(95), False),
        ],
    )
    refresh_signals(store, settings=get_settings())
    rel = {
        r[0]: r[1:]
        for r in store.con.execute(
            "SELECT tag, days_since_previous_release, star_velocity_before_28d, "
            "star_velocity_after_14d, star_lift, star_lift_ratio, commit_velocity_before_28d, "
            "commit_velocity_after_14d FROM release_signals"
        ).fetchall()
    }
    assert rel["v3"] == (20, 10.0, 40.0, 30.0, 4.0, 2.0, 2.0)
    assert rel["v1"][0] is None and rel["v1"][1] is None  # no earlier release; history < 28 d
    assert rel["v4"][2] is None  # the 14 days after are not in the data yet
    assert rel["v3-rc1"][0] == 15
    ctx = {
        r[0]: r[1:]
        for r in store.con.execute(
            "SELECT day, last_release_tag, days_since_release, releases_365d, median_interval_days "
            "FROM release_context WHERE repo = 'r/el'"
        ).fetchall()
    }
    assert min(ctx) == START + timedelta(days=10)
    assert ctx[START + timedelta(days=70)] == ("v3", 10, 3, 25.0)  # intervals 30, 20
    assert ctx[START + timedelta(days=39)] == ("v1", 29, 1, None)
    assert max(ctx) == START + timedelta(days=99)


def test_of_one_days_releases_the_highest_version_is_the_latest(store):
    # a new version line at 00:36, a backport of the old one at 18:28 the same day (keras,
    # 30 Jan 2026): the latest release is the new line, in the card's read and the context
    days = [START + timedelta(days=i) for i in range(60)]
    stars = [1000 + 10 * i for i in range(60)]
    insert_observations(store, pd.DataFrame({"repo": "r/el", "day": days, "stars": stars}))
    on = START + timedelta(days=40)  # 28 days of pace before it, 14 after
    insert_releases(
        store,
        [
            ("r/el", "v3.9.0", pd.Timestamp(on) - pd.Timedelta(days=10), False),
            ("r/el", "v3.13.2", pd.Timestamp(on) + pd.Timedelta(minutes=36), False),
            ("r/el", "v3.12.1", pd.Timestamp(on) + pd.Timedelta(hours=18), False),
        ],
    )
    refresh_signals(store, settings=get_settings())
    assert latest_release(store.con, "r/el", START + timedelta(days=59))["tag"] == "v3.13.2"
    assert last_release_lift(store.con, "r/el", START + timedelta(days=59))["tag"] == "v3.13.2"
    tags = store.con.execute(
        "SELECT DISTINCT last_release_tag FROM release_context WHERE repo = 'r/el' AND day >= ?",
        [on],
    ).fetchall()
    assert tags == [("v3.13.2",)]


def test_real_context(shared_dir, store):
    load_real_sample(store, shared_dir / "data" / "stars" / "stars_daily.parquet")
    load_history_commits(store, shared_dir / "data" / "history", repos=("ollama/ollama",))
    tags = shared_dir / "data" / "history" / "ollama__ollama.tags.csv.gz"
    store.con.execute(f"""
        INSERT INTO releases (repo, tag, published_at, is_prerelease, source)
        SELECT 'ollama/ollama', tag, tag_time::TIMESTAMPTZ::TIMESTAMP, tag ILIKE '%rc%', 'git'
        FROM read_csv('{tags}', header = true)""")
    refresh_signals(store, settings=get_settings())
    t = date(2025, 12, 31)
    peers = dict(
        (r[0], r[1:])
        for r in store.con.execute(
            "SELECT repo, category, acceleration_28d, peer_acceleration_28d, "
            "relative_acceleration_28d"
            " FROM peer_signals WHERE day = ?",
            [t],
        ).fetchall()
    )
    stars = dict(
        store.con.execute(
            "SELECT repo, acceleration_28d FROM star_signals WHERE day = ?", [t]
        ).fetchall()
    )
    pt, tf = stars["pytorch/pytorch"], stars["tensorflow/tensorflow"]
    assert peers["pytorch/pytorch"] == ("training frameworks", pt, tf, pytest.approx(pt - tf))
    assert peers["ollama/ollama"][2] is None  # alone in its category
    lift = store.con.execute(
        "SELECT count(*), count(star_lift) FROM release_signals WHERE repo = 'ollama/ollama' "
        "AND day BETWEEN '2024-02-01' AND '2026-02-01'"
    ).fetchone()
    assert lift[0] > 50 and 0 < lift[1] < lift[0]  # windows over dataset gaps stay NULL
    latest = latest_signals(store, "ollama/ollama")
    assert latest["day"] == date(2026, 2, 28) and latest["commits"]["repo"] == "ollama/ollama"
    assert latest["peers"]["category"] == "local-model apps"
    assert latest["releases"]["last_release_tag"].startswith("v")
