"""The field by category (`shu.signals.field`): shares of the watchlist's gain by hand, over
the repositories counted on both ends of each window; repositories missing from the store or
without counts at an end named, never counted as 0; movers ranked by the pace underneath
(a spike does not lift one); every number's SELECT reproduces it; and the watchlist's setting."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest
from support.signal_data import insert_observations

from shu.errors import ConfigError
from shu.receipts import Citation
from shu.settings import get_settings, load_settings
from shu.signals import refresh_signals
from shu.signals.field import MIN_COUNTED, field_view, field_windows
from shu.store import Store

DAY = date(2026, 2, 28)
DAYS = 420  # a year and two windows of counts


def _series(repo: str, per_day: float, spikes: dict[int, float] | None = None, skip=()) -> list:
    """`repo` gaining `per_day` stars every day up to DAY (`spikes`: days before DAY -> stars
    that day instead), unobserved on the days before DAY in `skip`."""
    rows, total = [], 1000.0
    for back in range(DAYS, -1, -1):
        total += (spikes or {}).get(back, per_day)
        if back not in skip:
            rows.append((repo, DAY - timedelta(days=back), int(total)))
    return rows


WATCHLIST = {
    "apps": ["a/steady", "a/spiky", "a/absent"],
    "frameworks": ["f/fast", "f/gap"],
}


@pytest.fixture
def field_store(store: Store) -> Store:
    rows = _series("a/steady", 30)
    # 2,000 stars on one day of the last 28: its gain, not its pace underneath
    rows += _series("a/spiky", 10, spikes={5: 2000})
    rows += _series("f/fast", 20)
    # no count in the 3 days to the day before the year-ago window: not counted in that window
    year_first = field_windows(DAY)["year"][0]
    gap = {(DAY - year_first).days + k for k in range(1, 9)}
    rows += _series("f/gap", 40, skip=gap)
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    refresh_signals(store, full=True, settings=get_settings())
    return store


def _reproduces(store: Store, cite: Citation | None) -> float:
    assert cite is not None and cite.kind == "query" and cite.table == "star_days"
    value = store.con.execute(cite.sql, cite.params).fetchall()[0][0]
    assert value == pytest.approx(cite.value)
    return float(value)


def test_shares_by_hand_over_the_repositories_counted(field_store: Store) -> None:
    view = field_view(field_store, DAY, WATCHLIST)
    apps, frameworks = view.categories
    # the last 28 days: apps 30*28 + (10*27 + 2000), frameworks (20 + 40)*28
    now_apps = 30 * 28 + 10 * 27 + 2000
    now_total = now_apps + 60 * 28
    assert view.windows["now"].gained == now_total
    assert apps.shares["now"] == pytest.approx(now_apps / now_total)
    assert frameworks.shares["now"] == pytest.approx(60 * 28 / now_total)
    assert apps.shares["before"] == pytest.approx(40 * 28 / (100 * 28))
    # a year before, f/gap has no count at the window's start: over a/steady, a/spiky, f/fast
    assert view.windows["year"].missing == ["f/gap"]
    assert frameworks.counted == {"now": 2, "before": 2, "year": 1}
    assert frameworks.shares["year"] == pytest.approx(20 / 60)
    # a repository the store never saw is named, and counted nowhere
    assert view.absent == ["a/absent"]
    assert apps.counted["now"] == 2
    for w in view.windows.values():
        assert _reproduces(field_store, w.gained_cite) == w.gained
    for c in view.categories:
        for name, share in c.shares.items():
            assert _reproduces(field_store, c.share_cites[name]) == pytest.approx(share)
    moved = view.gainer("before")
    assert moved is not None
    up, down = moved
    assert (up.name, down.name) == ("apps", "frameworks")
    # apps' share rose on a/spiky's 2,000 stars: it led the move, each gain with its SELECT
    assert apps.driver is not None and apps.driver.repo == "a/spiky"
    assert apps.driver.gained == 10 * 27 + 2000 and apps.driver.gained_before == 10 * 28
    assert _reproduces(field_store, apps.driver.gained_cite) == apps.driver.gained
    assert _reproduces(field_store, apps.driver.gained_before_cite) == 10 * 28
    # frameworks' share fell while each of its repositories gained as before: none led it
    assert frameworks.driver is None


def test_movers_rank_by_the_pace_underneath_bursts_out(field_store: Store) -> None:
    view = field_view(field_store, DAY, WATCHLIST)
    apps = view.categories[0]
    # a/spiky gained the most in the window, but its pace underneath is 10 a day
    assert [m.repo for m in apps.movers] == ["a/steady", "a/spiky"]
    spiky = apps.movers[1]
    assert spiky.pace == pytest.approx(10.0)
    assert _reproduces(field_store, spiky.pace_cite) == pytest.approx(10.0)
    assert _reproduces(field_store, spiky.pace_before_cite) == pytest.approx(10.0)


def test_the_json_carries_every_share_with_its_receipt(field_store: Store) -> None:
    out = field_view(field_store, DAY, WATCHLIST).as_json()
    assert [c["category"] for c in out["categories"]] == ["apps", "frameworks"]
    share = out["categories"][1]["shares"]["year"]
    assert share["repos_counted"] == 1 and share["receipt"]["sql"].startswith("WITH")
    assert out["windows"]["year"]["not_counted"] == ["f/gap"] and out["absent"] == ["a/absent"]


def test_the_default_field_and_its_setting() -> None:
    default = load_settings().field
    assert len(default) >= 4 and sum(len(v) for v in default.values()) >= 25
    mine = load_settings(field={"serving": ["vllm-project/vllm"]}).field
    assert mine == {"serving": ["vllm-project/vllm"]}
    with pytest.raises(ConfigError, match=r"unknown setting 'feild' \(did you mean 'field'\?\)"):
        load_settings(feild={"serving": ["vllm-project/vllm"]})
    with pytest.raises(ConfigError, match=r"invalid setting field\.serving\[0\] = 'vllm'"):
        load_settings(field={"serving": ["vllm"]})


def test_each_default_category_has_enough_repositories_the_ranking_data_counts(parquet) -> None:
    # every category of the default field has at least MIN_COUNTED repositories that the
    # shared ranking data counts at both ends of its last 28 days, so no share is one
    # repository's (the compilers' was NVIDIA's kernel modules alone)
    import duckdb

    pairs = [(r, c) for c, repos in load_settings().field.items() for r in repos]
    last = duckdb.execute(f"SELECT max(day) FROM '{parquet}'").fetchall()[0][0]
    ends = [last - timedelta(days=28 + 3), last - timedelta(days=28), last - timedelta(days=3)]
    counted = {
        r
        for (r,) in duckdb.execute(
            f"SELECT repo FROM '{parquet}' WHERE repo IN (SELECT unnest(?::VARCHAR[])) "
            "GROUP BY repo HAVING count(*) FILTER (WHERE day BETWEEN ? AND ?) > 0 "
            "AND count(*) FILTER (WHERE day BETWEEN ? AND ?) > 0",
            [[r for r, _ in pairs], ends[0], ends[1], ends[2], last],
        ).fetchall()
    }
    by_category = {c: sum(r in counted for r, k in pairs if k == c) for _, c in pairs}
    assert min(by_category.values()) >= MIN_COUNTED, by_category


def test_a_category_of_fewer_than_min_counted_repositories_is_thin(field_store: Store) -> None:
    view = field_view(field_store, DAY, WATCHLIST)
    # apps counts a/steady and a/spiky now, frameworks f/fast and f/gap: both under 3
    assert MIN_COUNTED == 3
    assert [c.name for c in view.thin()] == ["apps", "frameworks"]
    wide = field_view(field_store, DAY, {"all": ["a/steady", "a/spiky", "f/fast"]})
    assert wide.thin() == []
    assert view.as_json()["categories"][0]["few_counted"] is True


def test_the_field_is_edited_in_shu_toml(tmp_path, monkeypatch) -> None:
    config = tmp_path / "shu.toml"
    config.write_text('[field]\nserving = ["vllm-project/vllm", "ggml-org/llama.cpp"]\n')
    monkeypatch.setenv("SHU_CONFIG", str(config))
    assert load_settings().field == {"serving": ["vllm-project/vllm", "ggml-org/llama.cpp"]}
    config.write_text('[fields]\nserving = ["vllm-project/vllm"]\n')
    with pytest.raises(ConfigError, match=r"unknown setting 'fields' \(did you mean 'field'\?\)"):
        load_settings()


def test_shares_of_different_sets_are_not_compared(field_store: Store) -> None:
    # a year before counts 3 of the 4 repositories counted now: below COMPARABLE_SHARE
    view = field_view(field_store, DAY, WATCHLIST)
    assert view.comparable("before") and not view.comparable("year")
    assert view.gainer("year") is None and view.gainer("before") is not None


def test_a_repository_in_two_categories_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"a/b is in both 'x' and 'y'"):
        load_settings(field={"x": ["a/b"], "y": ["c/d", "a/b"]})
