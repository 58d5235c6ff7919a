"""What a move means, from numbers, on a small constructed store: a repository whose latest
28-day fall is its largest since Aug 2023 gets that sentence in What moved, a release in the
move's days is named as coinciding (never as its cause), the rest of its field category is
weighed over the same days, and the forecast that the pace lasts is read from `forecasts`; every
figure's receipt resolves."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from typing import Any

import pandas as pd
import pytest
from support.signal_data import insert_observations

from shu.briefing.compose import compose_briefing
from shu.briefing.story_meaning import forecast_words, whose_move
from shu.receipts import Citation, ReceiptBook, resolve, stored_receipts
from shu.settings import TrackedRepo, get_settings
from shu.signals import refresh_signals
from shu.signals.move_meaning import Forecast, coinciding, forecast_to_last, history_rank
from shu.store import Store

DAY = date(2026, 2, 28)
FIRST = date(2022, 6, 1)
REPO = "acme/falling"
PEERS = ("acme/peer-a", "acme/peer-b")
# 2023-05-01 .. 2023-06-29: 120 stars a day, which leaves the 28-day window by 10 Aug 2023 (the
# 28-day pace falls by 100 to 20 on 27 Jul 2023, by 50 or more until 10 Aug 2023)
OLD_FAST = (date(2023, 5, 1), date(2023, 6, 29))
# 70 stars a day over the 28 days before the last 28: today's 28-day fall is 50
RECENT_FAST = (DAY - timedelta(days=55), DAY - timedelta(days=28))
RELEASE_DAY = DAY - timedelta(days=10)


def _gain(repo: str, day: date) -> int:
    if repo != REPO:
        return 30 if day > DAY - timedelta(days=28) else 20  # the peers speed up by half
    if OLD_FAST[0] <= day <= OLD_FAST[1]:
        return 120
    if RECENT_FAST[0] <= day <= RECENT_FAST[1]:
        return 70
    return 20


def _fill(store: Store) -> None:
    rows = []
    for repo in (REPO, *PEERS):
        total, day = 1000, FIRST
        while day <= DAY:
            total += _gain(repo, day)
            rows.append((repo, day, total))
            day += timedelta(days=1)
    insert_observations(store, pd.DataFrame(rows, columns=["repo", "day", "stars"]))
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": REPO,
                    "tag": "v2.0.0",
                    "name": "v2.0.0",
                    "published_at": datetime.combine(RELEASE_DAY, datetime.min.time()),
                    "is_prerelease": False,
                    "body": "",
                    "url": None,
                    "source": "github",
                }
            ]
        ),
    )
    refresh_signals(store, full=True, settings=get_settings())


def _briefed(store, settings) -> tuple[Any, str, str]:
    """The briefing of REPO tracked beside its field peers, its body and its What moved line."""
    settings = settings.model_copy(
        update={
            "repos": [TrackedRepo(repo=REPO, category="apps")],
            "field": {"local apps": [REPO, *PEERS]},
        }
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text().split("## Appendix")[0]
    section = text[text.index("## What moved") :].split("\n## ")[0]
    return result, text, next(x for x in section.splitlines() if x.startswith(f"- [{REPO}]"))


def test_the_largest_fall_since_a_year_and_a_coinciding_release_are_said(store, settings):
    _fill(store)
    result, text, line = _briefed(store, settings)
    # the record is said once: At a glance leads with this story and says it; What moved, after
    # it, does not repeat it
    glance = text[text.index("## At a glance") :].split("\n## ")[0]
    assert glance.count("its largest 28-day fall since Aug 2023 [R") == 1, glance
    assert "largest 28-day fall" not in line, line
    # it fell while its peers sped up: the fall is its own, and the note says so
    assert "What it means: falling's own move, as the rest of local apps" in line, line
    assert (
        f"release [v2.0.0](https://github.com/{REPO}/releases/tag/v2.0.0) of 18 Feb 2026 [R" in line
    ), line
    assert "coincides with it (in time only)" in line
    # the peers sped up from 20 to 30 stars a day each: 40 to 60 over the two of them
    assert (
        "the rest of local apps (2 repositories) ran 50% faster (60.0 against 40.0 stars/day [R"
        in line
    )
    assert "knows no cause" not in text
    doc = json.loads(result.path.with_suffix(".json").read_text())
    meaning = doc["stories"][0]["meaning"]
    assert meaning["move_28d_record"]["since"] == "2023-08-10"
    assert meaning["coinciding"] == [{"kind": "release", "day": str(RELEASE_DAY), "what": "v2.0.0"}]
    receipts = stored_receipts(store, result.briefing_id)
    assert [resolve(store, r) for r in receipts] == [None] * len(receipts)


def test_a_record_since_the_signals_began_and_the_forecast_that_it_lasts(store):
    _fill(store)
    # the fastest 28-day pace: the old burst's 120 a day on its 28th day, never reached before
    rank = history_rank(store, REPO, date(2023, 5, 28), "velocity_28d", "high")
    assert rank is not None and rank.value == 120 and rank.since is None
    assert rank.first == FIRST + timedelta(days=28), rank.first
    store.upsert(
        "forecasts",
        pd.DataFrame(
            [
                {
                    "forecast_id": "f-up-30",
                    "repo": REPO,
                    "template": "star_velocity_up",
                    "origin": DAY,
                    "horizon_days": 30,
                    "resolves_on": DAY + timedelta(days=30),
                    "threshold": 20.0,
                    "question": "q",
                    "probability": 0.7,
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
    f = forecast_to_last(store, REPO, DAY)
    assert f is not None and (f.probability, f.threshold) == (0.7, 20.0)
    assert f.resolves_on == DAY + timedelta(days=30)
    assert forecast_to_last(store, REPO, DAY - timedelta(days=1)) is None


def test_a_commit_burst_and_a_dated_document_coincide(store):
    """A week of ten commits a day after months of one, and a document of that week naming the
    repository, are named as coinciding with a move on those days; their citations resolve."""
    start = DAY - timedelta(days=150)
    rows = []
    for i in range(151):
        day = start + timedelta(days=i)
        for k in range(10 if i >= 140 else 1):
            at = datetime.combine(day, datetime.min.time()) + timedelta(hours=8, minutes=k)
            rows.append((REPO, f"c{i:03d}{k}", at, 1, True, False, False, "git"))
    store.upsert(
        "commits",
        pd.DataFrame(
            rows,
            columns=[
                "repo",
                "sha",
                "committed_at",
                "parents",
                "is_mainline",
                "touches_rocm",
                "author_is_bot",
                "source",
            ],
        ),
    )
    doc_day = DAY - timedelta(days=5)
    store.upsert(
        "documents",
        pd.DataFrame(
            [
                {
                    "doc_id": "d1",
                    "location": "notes/launch.md",
                    "title": "Launch notes",
                    "published_on": doc_day,
                    "content_hash": "h",
                    "format": "markdown",
                    "text": "We moved our stack to falling this week.",
                    "ingested_at": datetime(2026, 2, 28),
                }
            ]
        ),
    )
    store.upsert(
        "passages",
        pd.DataFrame(
            [{"doc_id": "d1", "passage_no": 0, "text": "We moved our stack to falling this week."}]
        ),
    )
    _fill(store)
    found = coinciding(store, REPO, DAY - timedelta(days=9), DAY)
    kinds = {x.kind: x for x in found}
    assert set(kinds) == {"release", "document", "commits"}, found
    assert kinds["document"].day == doc_day and kinds["document"].what == "Launch notes"
    assert kinds["document"].cite.value in "We moved our stack to falling this week."
    burst = kinds["commits"]
    assert DAY - timedelta(days=10) <= burst.day <= DAY and float(burst.what) >= 2.0
    assert coinciding(store, REPO, DAY - timedelta(days=60), DAY - timedelta(days=40)) == []
    book = ReceiptBook()
    numbers = [book.cite(x.cite) for x in found]
    assert [resolve(store, book.get(n)) for n in numbers] == [None] * len(numbers)


def test_a_story_slowing_under_a_burst_claims_no_record_rise() -> None:
    """keras on 2026-02-28: its pace underneath slowed while two store-wide spike days lifted the
    raw 28-day change; the rank follows the story's direction, so no "largest rise" is said."""
    from shu.signals.move_meaning import story_rank
    from shu.signals.stories import Story

    day = date(2026, 2, 28)
    slowing = Story("a/b", day, "pace_down", velocity_28d=4.5, velocity_28d_before=2.0, effect=-1.0)
    assert slowing.acceleration_28d is not None and slowing.acceleration_28d > 0
    assert story_rank(None, slowing) is None  # type: ignore[arg-type]  # never reads the store


def test_releases_of_the_same_day_are_named_with_the_day_once(store, settings):
    _fill(store)
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": REPO,
                    "tag": "v2.0.1",
                    "name": "v2.0.1",
                    "published_at": datetime.combine(RELEASE_DAY, datetime.min.time()),
                    "is_prerelease": False,
                    "body": "",
                    "url": None,
                    "source": "github",
                }
            ]
        ),
    )
    *_, line = _briefed(store, settings)
    link = f"https://github.com/{REPO}/releases/tag"
    assert re.search(
        rf"releases \[v2\.0\.0\]\({link}/v2\.0\.0\) and \[v2\.0\.1\]\({link}/v2\.0\.1\) of "
        r"18 Feb 2026 \[R\d+, R\d+\] coincide with it \(in time only\)",
        line,
    ), line
    assert line.count("18 Feb 2026") == 1


@pytest.mark.parametrize(
    ("probability", "lean"),
    [
        (0.12, "is likely to stay below"),
        (0.40, "leans towards staying below"),
        (0.51, "is as likely as not to beat"),
        (0.60, "leans towards beating"),
        (0.78, "is likely to beat"),
    ],
)
def test_the_forecast_that_a_pace_lasts_says_its_lean_before_its_figure(probability, lean):
    cite = Citation("row", "forecasts", {"forecast_id": "f"}, "probability", probability, DAY, "")
    forecast = Forecast("f", probability, 26.5, DAY + timedelta(days=30), cite)
    words = forecast_words(ReceiptBook(), forecast)
    # the chance is the chance of beating today's: said so where the lean is the other way
    beats = " that it beats it" if "below" in lean else ""
    assert words == (
        f"its 28-day pace {lean} today's 26.5 on 30 Mar 2026 "
        f"(a {round(probability * 100)}% chance [R1]{beats})"
    )


@pytest.mark.parametrize(
    ("own", "category", "reading"),
    [
        (-0.40, -0.30, "in step with its category, as "),
        (-0.40, -0.05, "mostly kit's own move, as "),
        (-0.40, +0.20, "kit's own move, as "),
        (+0.30, -0.10, "kit's own move, as "),
        (-0.02, +0.50, ""),  # its own change too small to read the category against
        (None, -0.30, ""),
    ],
)
def test_a_move_is_read_against_its_categorys(own, category, reading):
    assert (
        whose_move("kit", own, category, "the rest of apps ...") == reading + "the rest of apps ..."
    )
