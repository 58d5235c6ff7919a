"""What moved against the store: a spike most of the store's repositories share on one day is
told once as a store-wide event with its counts (receipts that resolve) and no tracked
repository's story claims it; a spike one repository has alone is still told as its own."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pandas as pd
from support.signal_data import insert_observations

from shu.briefing.compose import compose_briefing
from shu.receipts import resolve, stored_receipts
from shu.settings import TrackedRepo, get_settings
from shu.signals import refresh_signals
from shu.store import Store

DAY = date(2026, 2, 28)
SPIKE_DAY = DAY - timedelta(days=9)
REPOS = 30
TRACKED = ("org0/repo", "org1/repo")


def _fill(store: Store, spiking: int) -> None:
    """REPOS repositories gaining about 20 stars a day for 200 days; the first `spiking` gain
    400 on SPIKE_DAY."""
    rows = []
    for k in range(REPOS):
        total = 5000.0 + 100 * k
        for back in range(200, -1, -1):
            day = DAY - timedelta(days=back)
            total += 400 if k < spiking and day == SPIKE_DAY else 20 + (back % 3 - 1)
            rows.append((f"org{k}/repo", day, int(total)))
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    refresh_signals(store, full=True, settings=get_settings())


def _moved(store: Store, settings) -> tuple[str, dict, object]:
    settings = settings.model_copy(
        update={"repos": [TrackedRepo(repo=r, category="apps") for r in TRACKED]}
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text().split("## Appendix")[0]
    section = text[text.index("## What moved") :].split("\n## ")[0]
    return section, json.loads(result.path.with_suffix(".json").read_text()), result


def test_a_store_wide_spike_is_told_once_and_claimed_by_no_story(store, settings):
    _fill(store, REPOS)
    section, doc, result = _moved(store, settings)
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- On 19 Feb 2026 the whole store moved: 30 [R"), lines[0]
    assert "against 0 on an ordinary day" in lines[0]
    assert section.count("the whole store moved") == 1
    assert "[org0/repo]" in lines[0] and "[org1/repo]" in lines[0]
    for s in doc["stories"]:
        assert s["kind"] not in ("spike", "burst"), s
        assert s["episodes"] == [] and s["store_wide"][0]["first"] == str(SPIKE_DAY)
    assert doc["shared_bursts"] == []
    assert doc["store_wide_events"] == [
        {
            "day": str(SPIKE_DAY),
            "kind": "spike",
            "repos": 30,
            "ordinary": 0.0,
            "tracked": list(TRACKED),
        }
    ]
    receipts = stored_receipts(store, result.briefing_id)
    assert [resolve(store, r) for r in receipts] == [None] * len(receipts)


def test_a_spike_of_one_repository_is_still_its_story(store, settings):
    _fill(store, 1)
    section, doc, _result = _moved(store, settings)
    assert "the whole store moved" not in section
    kinds = {s["repo"]: s["kind"] for s in doc["stories"]}
    assert kinds == {"org0/repo": "spike", "org1/repo": "steady"}
    assert doc["store_wide_events"] == []
