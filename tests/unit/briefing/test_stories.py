"""Stories from causes: each case on a series built to show it (LocalAI's January first), the
title they give, the sentences with receipts that resolve, and the real LocalAI, TensorFlow,
Keras and Ollama of 2026-02-28 when the shared data is there."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest

from shu.briefing.stories import Story, detect, story_of
from shu.briefing.story_words import story_sentence, story_short, story_title
from shu.receipts import ReceiptBook, resolve

DAY = date(2026, 2, 28)
N = 70  # days of gains up to DAY
STARS = (
    Path(__file__).resolve().parents[3].parent
    / "shared"
    / "data"
    / "stars"
    / ("stars_daily.parquet")
)


def _gains(level: float) -> list[float]:
    """A steady pace with a little day-to-day noise (level - 1, level, level + 1, ...)."""
    return [level + (i % 3 - 1) for i in range(N)]


def _set(gains: list[float], days_before: int, value: float) -> None:
    gains[N - 1 - days_before] = value


def _counts(gains: list[float], start: float = 40_000) -> dict[date, float]:
    first = DAY - timedelta(days=len(gains))
    counts, total = {first: start}, start
    for i, g in enumerate(gains):
        total += g
        counts[first + timedelta(days=i + 1)] = total
    return counts


def _localai_january() -> list[float]:
    """LocalAI's shape: about 28 stars a day, and 780 stars on 14-17 Jan 2026 (71, 239, 333,
    137), inside the 28 days before the window that ends on 28 Feb."""
    gains = _gains(28)
    for days_before, value in zip((45, 44, 43, 42), (71, 239, 333, 137), strict=True):
        _set(gains, days_before, value)
    return gains


def test_a_burst_leaving_the_window_is_told_apart_from_a_slowdown() -> None:
    story = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    assert story.kind == "burst_left"
    e = story.primary
    assert e is not None and (e.first, e.last) == (date(2026, 1, 14), date(2026, 1, 17))
    assert e.stars == 780 and e.window == "before" and e.effect < -20
    # the 28-day acceleration is the burst leaving, not the repository slowing down
    assert story.acceleration_28d is not None and story.acceleration_28d < -20
    assert story.pace_change is None
    assert story.velocity_7d is not None and story.velocity_28d is not None
    assert story.velocity_7d >= story.velocity_28d - 0.5


def test_a_one_day_spike_in_the_window() -> None:
    gains = _gains(20)
    _set(gains, 10, 400)
    story = detect("a/spike", _counts(gains), DAY)
    assert story.kind == "spike"
    assert story.primary is not None and story.primary.days == 1
    assert story.primary.first == DAY - timedelta(days=10) and story.effect > 10


def test_a_burst_in_the_window() -> None:
    gains = _gains(20)
    for days_before in (12, 11, 10):
        _set(gains, days_before, 150)
    story = detect("a/burst", _counts(gains), DAY)
    assert story.kind == "burst" and story.primary is not None and story.primary.days == 3
    assert story.primary.stars == 450


def test_bursts_on_the_same_days_in_several_repositories_are_said_together() -> None:
    from shu.briefing.sections.moved import same_days_line
    from shu.briefing.stories import burst_groups, shared_bursts
    from shu.briefing.text import days_text

    stories = []
    for repo, days in (("a/one", (12, 11)), ("a/two", (11, 10)), ("a/three", (20,))):
        gains = _gains(20)
        for days_before in days:
            _set(gains, days_before, 150)
        stories.append(detect(repo, _counts(gains), DAY))
    stories.append(detect("a/calm", _counts(_gains(20)), DAY))
    assert shared_bursts(stories) == {"a/one": ["a/two"], "a/two": ["a/one"], "a/three": []}
    # said once for the pair, on the days both burst
    groups = burst_groups(stories)
    assert [g for g, _, _ in groups] == [["a/one", "a/two"]]
    first, last = groups[0][1:]
    assert (DAY - first).days == 11 and first <= last
    line = str(same_days_line(*groups[0]))
    assert line.startswith("[a/one](https://github.com/a/one) and [a/two]")
    assert line.endswith(
        f"gained bursts on the same days ({days_text(first, last)}); shu knows no cause."
    )


def test_a_burst_after_a_release_follows_it() -> None:
    gains = _gains(20)
    for days_before in (12, 11, 10):
        _set(gains, days_before, 150)
    release = ("v2.0.0", DAY - timedelta(days=13))  # the day before the burst began
    story = detect("a/release", _counts(gains), DAY, [release, ("v1.9.0", DAY - timedelta(40))])
    assert story.kind == "release" and story.primary is not None
    assert story.primary.release == release
    # a release a week before the burst is not its cause
    late = detect("a/release", _counts(gains), DAY, [("v2.0.0", DAY - timedelta(days=20))])
    assert late.kind == "burst"


def test_a_star_removal_episode() -> None:
    gains = _gains(20)
    _set(gains, 5, -300)
    story = detect("a/removal", _counts(gains), DAY)
    assert story.kind == "star_removal" and story.primary is not None
    assert story.primary.kind == "removal" and story.primary.stars == -300
    assert story.effect < 0


def test_a_real_change_of_pace() -> None:
    down = _gains(20)[:42] + _gains(12)[42:]  # the last 28 days at 12 a day after 20
    story = detect("a/slower", _counts(down), DAY)
    assert story.kind == "pace_down" and story.pace_change == "down"
    assert story.ordinary_now is not None and abs(story.ordinary_now - 12) < 0.5
    assert story.ordinary_before is not None and abs(story.ordinary_before - 20) < 0.5
    up = _gains(10)[:42] + _gains(16)[42:]
    assert detect("a/faster", _counts(up), DAY).kind == "pace_up"
    # a fall of the 28-day pace that the last 7 days do not confirm is not a change of pace
    back = _gains(20)[:42] + _gains(12)[42:63] + _gains(20)[63:]
    assert detect("a/back", _counts(back), DAY).pace_change is None


def test_steady_and_no_data() -> None:
    assert detect("a/steady", _counts(_gains(50)), DAY).kind == "steady"
    counts = _counts(_gains(50))
    hole = [DAY - timedelta(days=k) for k in range(20, 31)]  # 11 days without a count
    story = detect("a/gap", {d: c for d, c in counts.items() if d not in hole}, DAY)
    assert story.kind == "no_data" and story.gap == (hole[-1], hole[0])


def _story(repo: str, kind: str, pace: str | None = None, effect: float = 1.0) -> Story:
    s = Story(repo, DAY, kind, 20.0, 20.0 + effect, 20.0, 20.0, 20.0, 20.0, 20.0, pace, effect)
    return s


def test_the_title_says_who_changed_pace_and_what_moved_the_rest() -> None:
    localai = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    tensorflow = _story("tensorflow/tensorflow", "pace_down", "down", -4.0)
    keras = detect("keras-team/keras", _counts(_gains(2)), DAY)
    keras.pace_change = "down"
    steady = _story("ollama/ollama", "steady")
    title = story_title([localai, tensorflow, keras, steady])
    assert title == (
        "tensorflow and keras slow down; LocalAI's drop is a January burst leaving its 28-day "
        "window"
    )
    assert story_title([steady, _story("a/b", "steady")]) == "ollama and b hold their pace"
    assert story_title([]) == "No tracked repository has star data yet"


def _store_with(store, counts: dict[str, dict[date, float]], settings) -> None:
    from shu.signals import refresh_signals

    rows = [
        {"repo": repo, "day": d, "stars": int(s), "source": "test"}
        for repo, series in counts.items()
        for d, s in series.items()
    ]
    store.upsert("stars_daily", pd.DataFrame(rows))
    refresh_signals(store, full=True, settings=settings)


def test_the_sentences_cite_what_they_say(store, settings) -> None:
    gains = _gains(20)
    _set(gains, 10, 400)
    _store_with(
        store,
        {
            "mudler/LocalAI": _counts(_localai_january()),
            "a/spike": _counts(gains),
            "a/slower": _counts(_gains(20)[:42] + _gains(12)[42:]),
        },
        settings,
    )
    book = ReceiptBook()
    localai = story_of(store, "mudler/LocalAI", DAY)
    said = story_sentence(store, book, localai)
    assert said.startswith("[mudler/LocalAI](https://github.com/mudler/LocalAI): its 28-day pace")
    assert "because the 780 stars it gained on 14–17 Jan 2026 [R" in said
    assert "left the 28-day window; " in said and "not because it slowed" not in said
    assert "its last 7 days ran at " in said
    short = story_short(store, book, localai)
    assert short is not None and "because a burst of 780 stars on 14–17 Jan 2026 [R" in short
    spike = story_sentence(store, book, story_of(store, "a/spike", DAY))
    assert "one day, 18 Feb 2026, brought 400 stars [R" in spike
    assert "until it leaves the window on 18 Mar 2026" in spike
    slower = story_sentence(store, book, story_of(store, "a/slower", DAY))
    assert "is slowing: its ordinary days over the last 28 ran at 12.0 stars/day [R" in slower
    assert book.receipts and [resolve(store, r) for r in book.receipts] == [None] * len(
        book.receipts
    )


needs_shared = pytest.mark.skipif(
    not STARS.exists(), reason=f"needs the shared star data ({STARS}); absent here"
)


@needs_shared
def test_the_real_repositories_of_2026_02_28(store, settings) -> None:
    import duckdb

    repos = ["mudler/LocalAI", "tensorflow/tensorflow", "keras-team/keras", "ollama/ollama"]
    rows = (
        duckdb.connect()
        .execute(
            f"SELECT repo, day, stars FROM '{STARS}' WHERE list_contains(?, repo) AND "
            "day BETWEEN DATE '2025-12-01' AND DATE '2026-02-28'",
            [repos],
        )
        .fetchall()
    )
    counts: dict[str, dict[date, float]] = {r: {} for r in repos}
    for repo, day, stars in rows:
        counts[repo][day] = float(stars)
    _store_with(store, counts, settings)
    stories = {r: story_of(store, r, DAY) for r in repos}
    localai = stories["mudler/LocalAI"]
    # LocalAI's -31.57 is a burst of 780 stars on 14-17 Jan leaving the window; its last 7
    # days (28.3 a day) run above its 28-day pace (22.7)
    assert localai.kind == "burst_left" and localai.primary is not None
    assert (localai.primary.first, localai.primary.last) == (date(2026, 1, 14), date(2026, 1, 17))
    assert localai.primary.stars == 780
    # TensorFlow and Keras are the ones slowing (7-day 8.9 against 28-day 13.5; 2.0 against
    # 4.5, whose 28 days hold 90 stars of 19-20 Feb)
    assert stories["tensorflow/tensorflow"].kind == "pace_down"
    keras = stories["keras-team/keras"]
    assert keras.pace_change == "down" and keras.kind == "burst"
    assert keras.primary is not None and keras.primary.first == date(2026, 2, 19)
    assert stories["ollama/ollama"].kind == "steady"
    assert story_title(list(stories.values())) == (
        "tensorflow and keras slow down; LocalAI's drop is a January burst leaving its 28-day "
        "window"
    )
    book = ReceiptBook()
    for story in stories.values():
        story_sentence(store, book, story)
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)
