"""What moved against the store: a spike most of the store's repositories share on one day is
told once as a store-wide event with its counts out of how many were counted (receipts that
resolve), no tracked repository's story claims it and the paces quoted leave it out (a small
repository's too, which the store's count does not count); a spike one repository has alone is
still told as its own."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta

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
SMALL = "small/repo"  # 2 stars a day, 40 on SPIKE_DAY: too small for the store's count


def _fill(store: Store, spiking: int) -> None:
    """REPOS repositories gaining about 20 stars a day for 200 days; the first `spiking` gain
    400 on SPIKE_DAY; SMALL gains 2 a day, and 40 on SPIKE_DAY when any of the others spike."""
    rows = []
    total = 1000.0
    for back in range(200, -1, -1):
        day = DAY - timedelta(days=back)
        total += 40 if spiking == REPOS and day == SPIKE_DAY else 2
        rows.append((SMALL, day, int(total)))
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
        update={"repos": [TrackedRepo(repo=r, category="apps") for r in (*TRACKED, SMALL)]}
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text().split("## Appendix")[0]
    section = text[text.index("## What moved") :].split("\n## ")[0]
    return section, json.loads(result.path.with_suffix(".json").read_text()), result


def test_a_store_wide_spike_is_told_once_and_claimed_by_no_story(store, settings):
    _fill(store, REPOS)
    section, doc, result = _moved(store, settings)
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    assert lines[0].startswith(
        "- On 19 Feb 2026 several times the usual number of repositories spiked together: 30 [R"
    ), lines[0]
    # out of how many the store counted that day: the repositories of 10 or more a day
    assert re.search(r"30 \[R\d+\] of the 30 \[R\d+\] repositories that gain 10 or more", lines[0])
    assert "against 0 on an ordinary day" in lines[0]
    assert section.count("repositories spiked together") == 1
    assert "[org0/repo]" in lines[0] and "[org1/repo]" in lines[0] and "[small/repo]" in lines[0]
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
            "counted": 30,
            "tracked": sorted((*TRACKED, SMALL)),
        }
    ]
    receipts = stored_receipts(store, result.briefing_id)
    assert [resolve(store, r) for r in receipts] == [None] * len(receipts)


def test_the_paces_quoted_leave_the_store_wide_day_out(store, settings):
    _fill(store, REPOS)
    section, doc, result = _moved(store, settings)
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    # none of them departs from its pace: all three are told together, in one sentence ...
    assert len(lines) == 2 and lines[1].startswith("- Near their pace of 28 days ago: "), lines
    held = lines[1]
    assert all(f"[{r}]" in held for r in (*TRACKED, SMALL))
    # ... each pace net of the store's day: the small one's 2.0 a day, not the 3.4 its stored
    # 28-day pace reads with the 40 stars of 19 Feb in it; the days named (the line above
    # said why); and no 90-day range whose highest day counts the store's day
    stored = {s["repo"]: s["velocity_28d"] for s in doc["stories"]}
    assert round(stored[SMALL], 1) == 3.4 and round(stored["org0/repo"], 1) >= 33
    assert re.search(r"\[small/repo\]\([^)]*\), 2\.0 stars/day without 19 Feb 2026 \[R\d+\]", held)
    assert re.search(r"\[org0/repo\]\([^)]*\), 20\.0 stars/day without 19 Feb 2026 \[R\d+\]", held)
    assert "3.4" not in held and "33." not in held
    receipts = stored_receipts(store, result.briefing_id)
    assert [resolve(store, r) for r in receipts] == [None] * len(receipts)


def test_a_spike_of_one_repository_is_still_its_story(store, settings):
    _fill(store, 1)
    section, doc, _result = _moved(store, settings)
    assert "repositories spiked together" not in section
    kinds = {s["repo"]: s["kind"] for s in doc["stories"]}
    assert kinds == {"org0/repo": "spike", "org1/repo": "steady", SMALL: "steady"}
    assert doc["store_wide_events"] == []


SLOWING = "slow/repo"  # 8 stars a day, then 4 over the last 28 days, and 40 on SPIKE_DAY


def test_a_forecast_read_from_a_pace_with_the_store_wide_day_in_it_says_so(store, settings):
    rows, total = [], 1000.0
    for back in range(200, -1, -1):
        day = DAY - timedelta(days=back)
        total += 40 if day == SPIKE_DAY else (4 if back < 28 else 8)
        rows.append((SLOWING, day, int(total)))
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    _fill(store, REPOS)  # (refreshes the signals of every repository)
    v28 = store.con.execute(
        "SELECT velocity_28d FROM star_signals WHERE repo = ? AND day = ?", [SLOWING, DAY]
    ).fetchall()[0][0]
    store.upsert(
        "forecasts",
        pd.DataFrame(
            [
                {
                    "forecast_id": "f-slow-up-30",
                    "repo": SLOWING,
                    "template": "star_velocity_up",
                    "origin": DAY,
                    "horizon_days": 30,
                    "resolves_on": DAY + timedelta(days=30),
                    "threshold": v28,
                    "question": "q",
                    "probability": 0.2,
                    "confidence": "medium",
                    "model_version": "test-1",
                    "features": "{}",
                    "drivers": "[]",
                    "receipts": "[]",
                    "issued_at": datetime(2026, 2, 28, 6),
                }
            ]
        ),
    )
    settings = settings.model_copy(
        update={"repos": [TrackedRepo(repo=r, category="apps") for r in (SLOWING, SMALL)]}
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text().split("## Appendix")[0]
    glance = text[text.index("## At a glance") :].split("\n## ")[0]
    moved = text[text.index("## What moved") :].split("\n## ")[0]
    # the slowing is the story (its ordinary days, the store's day left out) and leads the note
    lead = glance.split("\n- ", 1)[1].splitlines()[0]
    assert lead.startswith(f"[{SLOWING}]") and "is slowing" in lead, glance
    # its forecast asks about today's 28-day pace, which counts the store's day: said so, once
    assert re.search(
        rf"28-day pace [a-z ]+ today's {v28:.1f} on .+ "
        r"\(a \d+% chance \[R\d+\]( that it beats it)?\)",
        lead,
    ), lead
    assert lead.endswith("which counts 19 Feb 2026, when the whole store spiked."), lead
    assert "largest 28-day" not in text  # no record read from a pace that counts it
    line = next(x for x in moved.splitlines() if x.startswith(f"- [{SLOWING}]"))
    assert (
        "its forecast is in At a glance" in line
        and "today's" not in line.split("What it means")[-1]
    )
    receipts = stored_receipts(store, result.briefing_id)
    assert [resolve(store, r) for r in receipts] == [None] * len(receipts)


DIP = "dip/repo"  # 20 a day, then about 17 over the last 28 days, and 400 on SPIKE_DAY


def test_a_pace_near_its_old_level_only_with_the_store_wide_day_is_a_departure(store, settings):
    rows, total = [], 1000.0
    for back in range(200, -1, -1):
        day = DAY - timedelta(days=back)
        total += 400 if day == SPIKE_DAY else (20 if back >= 28 else 16 if back >= 7 else 19)
        rows.append((DIP, day, int(total)))
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    _fill(store, REPOS)
    settings = settings.model_copy(
        update={"repos": [TrackedRepo(repo=r, category="apps") for r in (DIP, SMALL)]}
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text().split("## Appendix")[0]
    moved = text[text.index("## What moved") :].split("\n## ")[0]
    doc = json.loads(result.path.with_suffix(".json").read_text())
    # by its causes it is steady (the store's day is no cause, its slower days unconfirmed) ...
    assert {s["repo"]: s["kind"] for s in doc["stories"]}[DIP] == "steady"
    # ... but without the store's day it gained 16.8 a day against 20.0: its own line, not
    # among those that held near their pace
    line = next(x for x in moved.splitlines() if x.startswith(f"- [{DIP}]"))
    assert re.search(
        r"28-day pace is 30\.\d stars/day \[R\d+\] against 20\.0 28 days before \[R\d+\], but "
        r"without 19 Feb 2026 it gained 16\.8 a day \[R\d+\], 16% slower",
        line,
    ), line
    # the rest of its category is told on its first story only
    assert moved.count("the rest of apps") <= 1
    held = next(x for x in moved.splitlines() if x.startswith("- Near its pace of 28 days ago"))
    assert f"[{SMALL}]" in held and f"[{DIP}]" not in held
    receipts = stored_receipts(store, result.briefing_id)
    assert [resolve(store, r) for r in receipts] == [None] * len(receipts)
