"""Store-wide spike counts (`market_spikes`) and the stories read against them: a spike many
repositories share on one day is the store's event and no repository's story claims it; a
spike one repository has alone is still its story; incremental refreshes equal a full one."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest
from support.signal_data import insert_observations

from shu.settings import get_settings
from shu.signals import refresh_signals
from shu.signals.market_spikes import STORE_WIDE_MIN, store_wide_days
from shu.signals.stories import burst_groups
from shu.signals.story_reads import story_of
from shu.store import Store, open_store

DAY = date(2026, 2, 28)
DAYS = 200
SPIKE_BACK = 9  # the spike day: 19 Feb 2026
REPOS = 30


def _rows(spiking: int) -> pd.DataFrame:
    """REPOS repositories gaining about 20 stars a day; the first `spiking` of them gain 400 on
    the spike day."""
    rows = []
    for k in range(REPOS):
        total = 5000.0 + 100 * k
        for back in range(DAYS, -1, -1):
            total += 400 if k < spiking and back == SPIKE_BACK else 20 + (back % 3 - 1)
            rows.append((f"org{k}/repo", DAY - timedelta(days=back), int(total)))
    return pd.DataFrame(rows, columns=["repo", "day", "stars"])


def _store(store: Store, spiking: int) -> Store:
    insert_observations(store, _rows(spiking))
    refresh_signals(store, full=True, settings=get_settings())
    return store


def test_a_spike_shared_store_wide_is_no_repositorys_story(store: Store) -> None:
    _store(store, REPOS)
    spike_day = DAY - timedelta(days=SPIKE_BACK)
    row = store.con.execute(
        "SELECT repos_eligible, repos_spiking, ordinary_spiking, store_wide_spike "
        "FROM market_spikes WHERE day = ?",
        [spike_day],
    ).fetchone()
    assert row == (REPOS, REPOS, 0.0, True)
    assert store_wide_days(store.con, DAY - timedelta(days=60), DAY) == {
        spike_day: ("spike", REPOS, 0.0, REPOS)  # ... of the REPOS counted that day
    }
    stories = [story_of(store, f"org{k}/repo", DAY) for k in range(REPOS)]
    for s in stories:
        assert s.kind == "steady", (s.repo, s.kind)
        assert s.primary is None and s.episodes == [] and s.named_small == []
        assert [(e.first, e.kind) for e in s.store_wide] == [(spike_day, "burst")]
        # the store's day is no ordinary day either: the pace underneath stays about 20
        assert s.ordinary_now == pytest.approx(20, abs=0.5)
    assert burst_groups(stories) == []


def test_a_spike_one_repository_has_alone_is_still_its_story(store: Store) -> None:
    _store(store, 1)
    spike_day = DAY - timedelta(days=SPIKE_BACK)
    spiking, wide = store.con.execute(
        "SELECT repos_spiking, store_wide_spike FROM market_spikes WHERE day = ?", [spike_day]
    ).fetchall()[0]
    assert (spiking, wide) == (1, False) and STORE_WIDE_MIN > 1
    story = story_of(store, "org0/repo", DAY)
    assert story.kind == "spike" and story.store_wide == []
    assert story.primary is not None and story.primary.first == spike_day
    assert story_of(store, "org1/repo", DAY).kind == "steady"


def test_incremental_refresh_equals_full(store_path, tmp_path) -> None:
    frame = _rows(REPOS)
    step = open_store(store_path)
    for last in (DAY - timedelta(days=20), DAY - timedelta(days=SPIKE_BACK), DAY):
        insert_observations(step, frame[(frame.day <= last) & ~frame.day.isin(_days(step))])
        refresh_signals(step, settings=get_settings())
    full = _store(open_store(tmp_path / "full.duckdb"), REPOS)
    query = "SELECT * FROM market_spikes ORDER BY day"
    pd.testing.assert_frame_equal(step.con.execute(query).df(), full.con.execute(query).df())
    step.close()
    full.close()


def _days(store: Store) -> list[date]:
    return [d for (d,) in store.con.execute("SELECT DISTINCT day FROM stars_daily").fetchall()]
