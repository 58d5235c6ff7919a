"""Stories from causes: each case on a series built to show it (LocalAI's January first), the
title they give, the sentences with receipts that resolve, and the real LocalAI, TensorFlow,
Keras and Ollama of 2026-02-28 when the shared data is there."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest

from shu.briefing.story_title import importance, relative_move, story_title
from shu.briefing.story_words import shared_short, story_sentence, story_short
from shu.briefing.text import days_text
from shu.receipts import ReceiptBook, resolve
from shu.signals.stories import Story, burst_groups, detect, shared_underneath
from shu.signals.story_reads import story_of

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
    from shu.briefing.text import days_text
    from shu.signals.stories import burst_groups, shared_bursts

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
    # what coincides with each is said in its own line, never a cause here
    assert line.endswith(
        f"gained unusually many stars on the same days ({days_text(first, last)})."
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
    s = Story(
        repo,
        DAY,
        kind,
        20.0,
        20.0 + effect,
        20.0,
        20.0,
        20.0,
        20.0,
        20.0,
        pace_change=pace,
        effect=effect,
    )
    return s


def test_the_title_says_who_changed_pace_and_what_moved_the_rest() -> None:
    localai = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    tensorflow = _story("tensorflow/tensorflow", "pace_down", "down", -4.0)
    keras = detect("keras-team/keras", _counts(_gains(2)), DAY)
    keras.pace_change = "down"
    steady = _story("ollama/ollama", "steady")
    title = story_title([localai, tensorflow, keras, steady])
    # keras's slowing is not its story (steady), so the title leaves it out; LocalAI's drop
    # moved its pace by more stars/day than tensorflow's slowing (counted twice, a real change
    # of pace) did, so it comes first (`importance`)
    assert importance(localai) > importance(tensorflow)
    assert title == (
        "LocalAI's drop is a January burst leaving its 28-day window; tensorflow slows down"
    )
    both = _story("keras-team/keras", "pace_down", "down", -3.0)
    assert story_title([tensorflow, both]) == "tensorflow and keras slow down"
    assert story_title([steady, _story("a/b", "steady")]) == "ollama and b hold their pace"
    assert story_title([]) == "No tracked repository has star data yet"


def test_a_large_repositorys_moderate_move_outranks_a_tiny_ones_large_relative_one() -> None:
    # a repository of 2 stars a day halving its pace, and one of 100 a day slowing by a fifth:
    # both real changes of pace, the tiny one's the larger against its own level ...
    tiny = detect("t/tiny", _counts([2.0] * 42 + [1.0] * 28), DAY)
    large = detect("l/large", _counts([100.0] * 42 + [80.0] * 28), DAY)
    assert tiny.kind == large.kind == "pace_down"
    assert relative_move(tiny) > relative_move(large)
    # ... but the stories are told by the stars/day they moved: 20 a day before 1 a day
    assert importance(large) == pytest.approx(2 * 20) and importance(tiny) == pytest.approx(2)
    assert sorted([tiny, large], key=lambda s: -importance(s)) == [large, tiny]
    # a burst leaving a mid-size repository's window (31 stars/day off its 28-day pace) comes
    # before the tiny one's halving too, though it is only a few days of counts
    localai = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    assert importance(localai) > importance(tiny)
    assert story_title([tiny, localai]).startswith("LocalAI's drop")


def _localai_slower_then_back() -> list[float]:
    """LocalAI's real shape: the January burst leaves the window, the ordinary days of the last
    28 ran at 22 a day against 31 before, and the last 7 days ran at 29 again."""
    gains = _gains(31)[:42] + _gains(22)[42:63] + _gains(29)[63:]
    for days_before, value in zip((45, 44, 43, 42), (71, 239, 333, 137), strict=True):
        _set(gains, days_before, value)
    return gains


def test_a_burst_leaving_the_window_over_slower_days_names_both_causes() -> None:
    story = detect("mudler/LocalAI", _counts(_localai_slower_then_back()), DAY)
    assert story.kind == "burst_left" and story.pace_change is None
    # both causes hold: the burst is the larger, the ordinary days slowed too
    assert story.underneath == "down" and story.mostly
    assert story.primary is not None and story.acceleration_28d is not None
    ordinary = (story.ordinary_now or 0) - (story.ordinary_before or 0)
    assert abs(story.primary.effect) > abs(ordinary) > 0
    assert abs(story.primary.effect + ordinary - story.acceleration_28d) < 1e-9
    # the last 7 days turned back up
    assert story.turn == "up"
    assert story_title([story]) == (
        "LocalAI's drop is mostly a January burst leaving its 28-day window, with slower "
        "ordinary days too, though its last 7 days picked up"
    )
    # the burst alone (ordinary days unchanged): one cause, said alone
    alone = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    assert not alone.mostly and alone.underneath is None and alone.turn is None
    assert story_title([alone]) == "LocalAI's drop is a January burst leaving its 28-day window"


def test_a_slowdown_beneath_a_burst_names_both() -> None:
    gains = _gains(15)[:42] + _gains(10)[42:]
    for days_before in (9, 8):
        _set(gains, days_before, 60)
    story = detect("tensorflow/tensorflow", _counts(gains), DAY)
    assert story.kind == "pace_down" and [e.kind for e in story.beside] == ["burst"]
    when = days_text(DAY - timedelta(9), DAY - timedelta(8))
    assert story_title([story]) == f"tensorflow slows down, masked by a burst on {when}"


def test_a_spike_a_reader_sees_is_named_whatever_its_size() -> None:
    """pytorch/pytorch's 19-20 Feb: 63 and 70 stars against about 25 a day, too few stars to
    move its pace (a burst needs 5 ordinary days above the median) but a spike in the chart."""
    from shu.signals.stories import SPIKE_TIMES, burst_groups, spike_day

    assert spike_day(2 * 25, 25) and not spike_day(2 * 25 - 1, 25)
    assert spike_day(12, 2) and not spike_day(11, 2)  # small repositories: 10 stars more
    assert SPIKE_TIMES == 2.0
    gains = _gains(25)
    _set(gains, 9, 63)
    _set(gains, 8, 70)
    pytorch = detect("pytorch/pytorch", _counts(gains), DAY)
    assert pytorch.kind == "steady" and not pytorch.episodes
    assert [(e.first, e.last, e.stars) for e in pytorch.small] == [
        (DAY - timedelta(9), DAY - timedelta(8), 133)
    ]
    keras = _gains(2)
    _set(keras, 9, 40)
    _set(keras, 8, 50)
    keras_story = detect("keras-team/keras", _counts(keras), DAY)
    assert keras_story.kind == "burst"
    groups = burst_groups([keras_story, pytorch])
    assert [g for g, _, _ in groups] == [["keras-team/keras", "pytorch/pytorch"]]
    # before the window, such a spike no longer bears on the pace: not named
    early = _gains(25)
    _set(early, 40, 63)
    old = detect("pytorch/pytorch", _counts(early), DAY)
    assert [e.window for e in old.small] == ["before"] and not old.named_small


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
    small = _gains(25)
    _set(small, 9, 63)
    _set(small, 8, 70)
    _store_with(
        store,
        {
            "mudler/LocalAI": _counts(_localai_january()),
            "a/spike": _counts(gains),
            "a/slower": _counts(_gains(20)[:42] + _gains(12)[42:]),
            "b/LocalAI": _counts(_localai_slower_then_back()),
            "a/small": _counts(small),
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
    both = story_of(store, "b/LocalAI", DAY)
    said = story_sentence(store, book, both)
    assert "stars/day [R" in said and "mostly because the 780 stars it gained on" in said
    assert "; its other days slowed too, to 23.7 a day [R" in said
    assert said.endswith(", faster than its other days.")
    short = story_short(store, book, both)
    assert short is not None and "mostly because a burst of 780 stars" in short
    assert "its other days slowed too, from 31.1 to 23.7 a day [R" in short
    small_said = story_sentence(store, book, story_of(store, "a/small", DAY))
    # two days of unusual gains are a burst, never a spike
    assert "holds its pace" in small_said and "spike" not in small_said
    assert "; it also had a burst on 19–20 Feb 2026 (133 stars in 2 days [R" in small_said
    spike = story_sentence(store, book, story_of(store, "a/spike", DAY))
    assert "one day, 18 Feb 2026, brought 400 stars [R" in spike
    assert "until it leaves the window on 18 Mar 2026" in spike
    slower = story_sentence(store, book, story_of(store, "a/slower", DAY))
    assert "is slowing: its ordinary days over the last 28 ran at 12.0 stars/day [R" in slower
    assert book.receipts and [resolve(store, r) for r in book.receipts] == [None] * len(
        book.receipts
    )


def test_a_card_on_the_pace_names_the_unusual_days_that_leave_before_its_day(store, settings):
    """A velocity card's pace carries unusual days that leave the 28-day window before the day it
    asks about: one sentence names them, when they leave, the pace of the other days (What
    moved's figure, with its receipt) and what that means against the threshold; nothing when
    they are still in the window on that day."""
    from shu.briefing.story_words import burst_leaving_sentence

    small = _gains(25)
    _set(small, 9, 63)
    _set(small, 8, 70)
    spike = _gains(20)
    _set(spike, 10, 400)
    _store_with(store, {"a/small": _counts(small), "a/spike": _counts(spike)}, settings)
    book = ReceiptBook()
    story = story_of(store, "a/small", DAY)
    on = date(2026, 3, 30)
    said = str(burst_leaving_sentence(store, book, story, on, 27.0))
    assert re.fullmatch(
        r"The 133 stars of 19–20 Feb 2026 \[R\d+\] leave the 28-day window on 20 Mar 2026; its "
        r"other days ran 25\.0 a day \[R\d+\], so to be above 27\.00 on 30 Mar 2026 it must run "
        r"8% faster than they did; its last 7 days ran [\d.]+ \[R\d+\]\.",
        said,
    ), said
    # the other days above the threshold: by how much
    said = str(burst_leaving_sentence(store, book, story_of(store, "a/spike", DAY), on, 15.0))
    assert "The 400 stars of 18 Feb 2026 [R" in said and "leave the 28-day window on 18 Mar" in said
    assert (
        "its other days ran 19.9 a day [R" in said
        and "33% above the 15.00 asked for 30 Mar" in said
    )
    # still inside the window on the day asked: nothing to say
    assert burst_leaving_sentence(store, book, story, date(2026, 3, 15), 27.0) is None
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)


needs_shared = pytest.mark.skipif(
    not STARS.exists(), reason=f"needs the shared star data ({STARS}); absent here"
)


@needs_shared
def test_the_real_repositories_of_2026_02_28(store, settings) -> None:
    import duckdb

    repos = [
        "pytorch/pytorch",
        "mudler/LocalAI",
        "tensorflow/tensorflow",
        "keras-team/keras",
        "ollama/ollama",
    ]
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
    # the three platform repositories all gained unusually on 19-20 Feb (pytorch too, though
    # too few stars to move its pace) and, with those days (and every run of spike days, in
    # either window) left out of each one's ordinary days alike, all three ran slower beneath:
    # pytorch 23.4 against 27.8, tensorflow 10.7 against 12.6, keras 1.4 against 2.5
    pytorch = stories["pytorch/pytorch"]
    assert [(e.first, e.last) for e in pytorch.named_small] == [
        (date(2026, 2, 19), date(2026, 2, 20))
    ]
    assert pytorch.ordinary_now is not None and abs(pytorch.ordinary_now - 23.42) < 0.01
    keras = stories["keras-team/keras"]
    assert keras.pace_change == "down" and keras.kind == "burst"
    assert keras.primary is not None and keras.primary.first == date(2026, 2, 19)
    assert stories["ollama/ollama"].kind == "steady"
    platform = ["pytorch/pytorch", "tensorflow/tensorflow", "keras-team/keras"]
    assert [(g, a, b) for g, a, b in burst_groups(list(stories.values()))] == [
        (platform, date(2026, 2, 19), date(2026, 2, 20))
    ]
    assert shared_underneath(list(stories.values()), platform) == "down"
    # LocalAI's ordinary days slowed too and its last 7 days picked up
    assert localai.mostly and localai.turn == "up"
    assert story_title(list(stories.values())) == (
        "pytorch, tensorflow and keras slower underneath a shared burst on 19–20 Feb 2026; "
        "LocalAI's drop is mostly a January burst leaving its 28-day window"
    )  # the shared event first, told once; then each story by its dominant cause
    book = ReceiptBook()
    for story in stories.values():
        story_sentence(store, book, story)
    # every place that names a member tells it the same way (table, charts, "What moved")
    from shu.briefing.story_words import kind_words
    from shu.signals.stories import mark_shared

    mark_shared(list(stories.values()))
    assert {kind_words(stories[r]) for r in platform} == {
        "a burst shared with others; slower underneath"
    }
    # pytorch's 28-day pace slipped (27.8 to 26.5): the burst did not hold it, so the line says
    # it slipped despite the burst, never that it "holds its pace"
    said = str(story_sentence(store, book, stories["pytorch/pytorch"]))
    assert re.search(
        r"^\[pytorch/pytorch\]\(https://github.com/pytorch/pytorch\)'s 28-day pace slipped from "
        r"27\.8 \[R\d+\] to 26\.5 stars/day \[R\d+\] despite a burst on 19–20 Feb 2026 \(133 "
        r"stars in 2 days \[R\d+\]\); on its other days it gained 23\.4 a day",
        said,
    ), said
    assert "holds" not in said
    # its card (26.50 on 30 Mar) names the burst that leaves before that day and what it implies
    from shu.briefing.story_words import burst_leaving_sentence

    card = str(
        burst_leaving_sentence(store, book, stories["pytorch/pytorch"], date(2026, 3, 30), 26.5)
    )
    assert card.startswith("The 133 stars of 19–20 Feb 2026 [R") and "on 20 Mar 2026" in card
    assert "its other days ran 23.4 a day [R" in card and "it must run 13% faster than" in card
    # At a glance tells the shared event first, in one sentence with every figure's receipt
    members = [stories[r] for r in platform]
    glance = str(shared_short(store, book, members, date(2026, 2, 19), date(2026, 2, 20), "down"))
    assert "gained unusually many stars on 19–20 Feb 2026" in glance
    assert "all three ran slower on their other days" in glance
    assert "27.8 to 23.4" in glance  # pytorch's ordinary days, before and now
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)


def test_a_dip_is_weighed_against_the_store_wide_loss_of_stars(store, settings) -> None:
    """On a week 8.8% of repository-days lost stars across the store: a repository that slowed
    without losing stars is told apart from one whose losses match the store's and one that lost
    stars beyond it."""
    from shu.briefing.story_words import StoreLoss
    from shu.signals.story_reads import loss_verdict

    assert loss_verdict(0, 7, 0.088) == "none"
    assert loss_verdict(1, 7, 0.088) == "in line" and loss_verdict(2, 7, 0.088) == "in line"
    assert loss_verdict(3, 7, 0.088) == "beyond"  # 2% likely at 8.8% a day
    assert loss_verdict(3, 7, 0.4) == "in line"
    slower = _gains(20)[:42] + _gains(12)[42:]
    one = list(slower)
    _set(one, 3, -2)
    three = list(slower)
    for days_before in (1, 3, 5):
        _set(three, days_before, -2)
    _store_with(
        store,
        {"a/slower": _counts(slower), "a/one": _counts(one), "a/three": _counts(three)},
        settings,
    )
    book = ReceiptBook()
    loss = StoreLoss(DAY, 0.088, 999)
    said = {
        r: str(story_sentence(store, book, story_of(store, r, DAY), loss))
        for r in ("a/slower", "a/one", "a/three")
    }
    assert re.search(
        r"; it lost stars on none of its last 7 days \[R\d+, R\d+\], while 8\.8% of "
        r"repositories did on an average day this week \[R999\]: its slowing is its own, not "
        r"the store-wide loss\.$",
        said["a/slower"],
    )
    assert "; it lost stars on 1 of its last 7 days [R" in said["a/one"]
    assert (
        "in line with the 8.8% of repositories that did on an average day this week"
        in said["a/one"]
    )
    assert "; it lost stars on 3 of its last 7 days [R" in said["a/three"]
    assert "beyond the 8.8% of repositories" in said["a/three"]
    # without a store-wide loss (the guard off) nothing is weighed
    assert "lost stars on" not in str(story_sentence(store, book, story_of(store, "a/one", DAY)))
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)


def _platform(before: float, now: float, spikes: tuple[float, float]) -> list[float]:
    """A repository whose ordinary days ran at `before` then `now` a day, with `spikes` on
    19-20 Feb 2026 (9 and 8 days before 28 Feb)."""
    gains = _gains(before)[:42] + _gains(now)[42:]
    _set(gains, 9, spikes[0])
    _set(gains, 8, spikes[1])
    return gains


def test_small_runs_of_spike_days_are_not_ordinary_days() -> None:
    """One rule for every repository: the days of a run of spike days too small to move the pace
    are left out of its ordinary days, as a burst's are, so a slowdown beneath them shows."""
    from shu.signals.stories import windows
    from shu.signals.story_reads import ordinary_sql

    gains = _gains(25)
    _set(gains, 9, 63)
    _set(gains, 8, 70)
    story = detect("pytorch/pytorch", _counts(gains), DAY)
    assert story.kind == "steady" and not story.episodes and len(story.named_small) == 1
    # counted as ordinary they would lift the ordinary pace to about 27.9
    assert story.ordinary_now is not None and abs(story.ordinary_now - 25) < 0.1
    # the SELECT behind the figure leaves the same days out
    first, last = windows(DAY)["now"]
    sql, params = ordinary_sql(story.repo, first, last, story.unusual)
    assert "/ 26.0" in sql and len(params) == 8


def test_a_shared_burst_over_slower_days_is_told_once_first() -> None:
    """pytorch, tensorflow and keras gain on the same two days and each runs slower beneath: the
    title tells that once, before the other stories, as a burst (two days), never a spike."""
    from shu.briefing.sections.moved import same_days_line

    pytorch = detect("pytorch/pytorch", _counts(_platform(28, 24, (63, 70))), DAY)
    tensorflow = detect("tensorflow/tensorflow", _counts(_platform(13, 11, (50, 48))), DAY)
    keras = detect("keras-team/keras", _counts(_platform(2.5, 1.4, (40, 50))), DAY)
    localai = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    # pytorch's -14% alone is no change of pace; beside the other two it is the same story
    assert pytorch.kind == "steady" and pytorch.underneath is None
    stories = [localai, pytorch, tensorflow, keras]
    group = ["pytorch/pytorch", "tensorflow/tensorflow", "keras-team/keras"]
    assert [g for g, _, _ in burst_groups(stories)] == [group]
    assert shared_underneath(stories, group) == "down"
    assert story_title(stories) == (
        "pytorch, tensorflow and keras slower underneath a shared burst on 19–20 Feb 2026; "
        "LocalAI's drop is a January burst leaving its 28-day window"
    )
    line = str(same_days_line(group, date(2026, 2, 19), date(2026, 2, 20), "down"))
    assert "on the same days (19–20 Feb 2026). All 3 also ran slower " in line
    assert "on their other days than in the 28 days before" in line
    # one of them faster beneath: no shared change to tell, each story told by itself
    faster = detect("keras-team/keras", _counts(_platform(1.4, 2.5, (40, 50))), DAY)
    mixed = [localai, pytorch, tensorflow, faster]
    assert shared_underneath(mixed, group) is None
    assert "underneath a shared" not in story_title(mixed)


def test_a_release_lift_a_burst_explains_names_the_burst() -> None:
    """LocalAI's -29.43 after v3.11.0 (24 Jan 2026) is its 14-17 Jan burst inside the 28 days
    the lift compares against: the release line names that, not the release, as the cause."""
    from shu.briefing.card.why import lift_cause

    story = detect("mudler/LocalAI", _counts(_localai_january()), DAY)
    cause = lift_cause(story, "v3.11.0", date(2026, 1, 24))
    assert cause is not None and (cause.first, cause.last) == (date(2026, 1, 14), date(2026, 1, 17))
    # a release whose windows miss the burst keeps its own lift
    assert lift_cause(story, "v3.12.0", date(2026, 2, 14)) is None
    # a burst that followed this very release is the release's doing
    gains = _gains(20)
    for days_before in (12, 11, 10):
        _set(gains, days_before, 150)
    release = ("v2.0.0", DAY - timedelta(days=13))
    followed = detect("a/release", _counts(gains), DAY, [release])
    assert lift_cause(followed, *release) is None


def test_a_fall_and_a_gap_are_said_with_the_figures_shown(store, settings) -> None:
    """Derived figures agree with the figures the note shows: At a glance says how the 28-day
    pace moved as the two paces (What moved's figures), not as a difference of the unrounded
    values (LocalAI's 54.2 and 22.7 are 31.5 apart; the stored difference, 31.55, said 31.6);
    a card's "must run X% faster" is computed from the other days' pace as shown (1.4, not
    1.44: 1.60 is 14% above it, 11% above 1.44)."""
    from shu.briefing.story_words import burst_leaving_sentence

    slow = [1.0] * N
    for days_before in range(17, 28):
        _set(slow, days_before, 2.0)  # 25 other days: 11 of 2 stars, 14 of 1: 1.44 a day
    for days_before, value in zip((9, 8, 7), (60, 70, 60), strict=True):
        _set(slow, days_before, value)
    _store_with(
        store, {"mudler/LocalAI": _counts(_localai_january()), "a/slow": _counts(slow)}, settings
    )
    book = ReceiptBook()
    localai = story_of(store, "mudler/LocalAI", DAY)
    short = str(story_short(store, book, localai))
    was, now = localai.velocity_28d_before, localai.velocity_28d
    assert was is not None and now is not None
    assert f"'s 28-day pace fell from {was:.1f} to {now:.1f} stars/day [R" in short, short
    assert "fell by" not in short
    story = story_of(store, "a/slow", DAY)
    assert story.ordinary_now == pytest.approx(1.44)
    said = str(burst_leaving_sentence(store, book, story, date(2026, 3, 30), 1.6))
    assert "its other days ran 1.4 a day [R" in said, said
    assert "so to be above 1.60 on 30 Mar 2026 it must run 14% faster than they did" in said
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)


def test_a_steady_pace_names_a_fast_oldest_week_that_is_about_to_leave(store, settings) -> None:
    """Ollama's shape: the 28-day pace about where it was 28 days before (steady), but the oldest
    week in the window ran far above it: the story says that week leaves the window within 7
    days (the % from the figures it shows); a steady pace without such a week says nothing."""
    from shu.briefing.story_words import kind_words

    gains = _gains(90)
    for days_before in range(21, 28):  # 1–7 Feb 2026
        _set(gains, days_before, 115.0)
    for days_before in range(21):
        _set(gains, days_before, 78.0 + (days_before % 3 - 1))
    _store_with(store, {"ollama/ollama": _counts(gains), "a/flat": _counts(_gains(90))}, settings)
    story = story_of(store, "ollama/ollama", DAY)
    assert story.kind == "steady" and story.week_leaving == "up"
    assert story.oldest_week == (date(2026, 2, 1), date(2026, 2, 7))
    assert kind_words(story) == (
        "steady; a faster week, 1–7 Feb 2026, leaves the window by 7 Mar 2026"
    )
    book = ReceiptBook()
    said = str(story_sentence(store, book, story))
    assert re.search(
        r"holds its pace: 87\.2 stars/day over the last 28 days \[R\d+\], against [\d.]+ in the "
        r"28 before \[R\d+\]; its oldest week in the window, 1–7 Feb 2026, brought 805 stars "
        r"\[R\d+\] \(115\.0 a day, 32% above the 28-day pace\) and leaves it by 7 Mar 2026\.$",
        said,
    ), said
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)
    flat = story_of(store, "a/flat", DAY)
    assert flat.kind == "steady" and flat.week_leaving is None
    assert kind_words(flat) == "steady" and "oldest week" not in story_sentence(store, book, flat)
