"""Labels true of the path (issue 39, Build 6): "steady" / "holds its pace" only when the 28-day
pace stayed within the steady band over the last 90 days, and a lifecycle phase only where it
agrees with the pace's 91-day high and low; on constructed series in a real store."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pandas as pd
import pytest

from shu.briefing.card.topic import lifecycle_conflict_words
from shu.briefing.held_words import held, held_sentence
from shu.briefing.story_title import story_title
from shu.briefing.story_words import kind_words, story_sentence
from shu.receipts import ReceiptBook, resolve
from shu.signals.lifecycle import path_conflict
from shu.signals.pace_path import STEADY_BAND, pace_path
from shu.signals.reads import latest_phase
from shu.signals.story_reads import story_of

DAY = date(2026, 2, 28)


def _store_with(store, settings, gains: dict[str, list[float]], start: float = 40_000) -> None:
    """Daily counts ending on DAY from each repository's daily gains (oldest first)."""
    from shu.signals import refresh_signals

    rows = []
    for repo, series in gains.items():
        total = start
        first = DAY - timedelta(days=len(series))
        rows.append({"repo": repo, "day": first, "stars": int(total), "source": "test"})
        for i, g in enumerate(series):
            total += g
            rows.append(
                {
                    "repo": repo,
                    "day": first + timedelta(days=i + 1),
                    "stars": int(total),
                    "source": "test",
                }
            )
    store.upsert("stars_daily", pd.DataFrame(rows))
    refresh_signals(store, full=True, settings=settings)


def _noisy(level: float, n: int) -> list[float]:
    return [level + (i % 3 - 1) for i in range(n)]


# ollama's shape: about 57 a day, then 106 a day for five weeks, then 87 a day for the last 56
# days: the 28-day pace today is where it was 28 days ago, but it went 57 -> 106 -> 87.
SWUNG = _noisy(57, 120) + _noisy(106, 34) + _noisy(87, 56)
FLAT = _noisy(87, 210)


def test_steady_only_when_the_pace_held_within_the_band_over_90_days(store, settings) -> None:
    _store_with(store, settings, {"o/ollama": SWUNG, "o/flat": FLAT})
    swung, flat = story_of(store, "o/ollama", DAY), story_of(store, "o/flat", DAY)
    # both are "steady" by the last 56 days' causes ...
    assert swung.kind == "steady" and flat.kind == "steady"
    # ... but only the flat one held its pace over the 90 days
    assert swung.path is not None and flat.path is not None
    low, high = swung.path.low, swung.path.high
    assert low == pytest.approx(57, abs=1.5) and high == pytest.approx(106, abs=1.5)
    assert swung.path.now == pytest.approx(87, abs=1)
    assert not swung.path.held_steady and flat.path.held_steady
    assert flat.path.high - flat.path.low < STEADY_BAND * flat.path.now
    assert kind_words(flat) == "steady"
    assert swung.path.shape == "swung" and flat.path.shape == "held"
    assert kind_words(swung) == (
        f"near its pace of 28 days ago, after {low:.1f}–{high:.1f} stars/day in 90 days"
    )
    book = ReceiptBook()
    said = str(story_sentence(store, book, swung))
    assert "holds its pace" not in said
    assert re.search(
        r"o/ollama\)'s 28-day pace is 8\d\.\d stars/day \[R\d+\], near the 8\d\.\d of 28 days "
        r"before \[R\d+\], but it did not hold steady: over the last 90 days it ran from "
        r"5\d\.\d \[R\d+\] to 10\d\.\d \[R\d+\] \(steady means within 20% of today's\)",
        said,
    ), said
    assert "holds its pace: " in str(story_sentence(store, book, flat))
    # every number resolves against the store, the path's lowest and highest included
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)
    assert story_title([flat, swung]) == "flat holds its pace; ollama swung over 90 days"


def test_repositories_that_held_near_their_pace_are_told_in_one_sentence(store, settings):
    _store_with(store, settings, {"o/ollama": SWUNG, "o/flat": FLAT})
    swung, flat = story_of(store, "o/ollama", DAY), story_of(store, "o/flat", DAY)
    assert held(swung) and held(flat)  # neither departs from its pace of 28 days ago
    book = ReceiptBook()
    said = str(held_sentence(store, book, [swung, flat], set()))
    # one sentence, each repository once with its pace and a short clause of its 90-day range
    assert said.startswith("Near their pace of 28 days ago: [o/ollama]") and said.count(". ") == 0
    assert said.count("[o/ollama]") == 1 and said.count("[o/flat]") == 1
    assert re.search(
        r"\[o/ollama\]\([^)]*\), 8\d\.\d stars/day \[R\d+\] \(5\d\.\d–10\d\.\d over 90 days", said
    )
    assert re.search(
        r"\[o/flat\]\([^)]*\), 8\d\.\d stars/day \[R\d+\] \(8\d\.\d–8\d\.\d over 90 days", said
    )
    # "near its pace", never "steady" of one that swung
    assert "steady" not in said and "holds its pace" not in said
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)


def test_a_pace_that_rose_over_90_days_is_not_steady_either(store, settings) -> None:
    # 60 a day, rising to 87 a day over the last 56 days: the 28-day pace now is near its level
    # of 28 days ago and at its 91-day high
    _store_with(store, settings, {"o/riser": _noisy(60, 140) + _noisy(87, 70)})
    story = story_of(store, "o/riser", DAY)
    assert story.kind == "steady" and story.path is not None and story.path.shape == "rose"
    assert kind_words(story) == (
        f"near its pace of 28 days ago, up from {story.path.low:.1f} stars/day in 90 days"
    )
    said = str(story_sentence(store, ReceiptBook(), story))
    assert f"over the last 90 days it rose from {story.path.low:.1f} [R" in said, said
    assert story_title([story]) == "riser up over 90 days"


def test_no_path_no_verdict(store, settings) -> None:
    _store_with(store, settings, {"o/flat": FLAT})
    assert pace_path(store.con, "o/flat", DAY + timedelta(days=30)) is None  # no signal that day
    assert pace_path(store.con, "o/none", DAY) is None


def test_a_phase_the_path_contradicts_is_not_named(store, settings) -> None:
    # keras's shape: 60,000 stars gaining 3 a day, then 4.5 a day over the last 28 days: under
    # 0.01% of its stars a day (the rule's "decline") while its 28-day pace is at its 91-day high
    _store_with(store, settings, {"k/keras": [3.0] * 182 + [4.5] * 28}, start=60_000)
    phase = latest_phase(store.con, "k/keras", DAY)
    assert phase is not None and phase.phase == "decline"
    assert phase.path is not None and phase.path.at_high and phase.conflict == "high"
    words = lifecycle_conflict_words(phase)
    assert "decline" not in words and "at its 91-day high" in words
    assert "4.5 stars/day" in words
    # the rule itself: a decline at the high, a rise at the low contradict the path; else not
    assert path_conflict("decline", True, False) == "high"
    assert path_conflict("expansion", False, True) == "low"
    assert path_conflict("emerging", False, True) == "low"
    assert path_conflict("decline", False, True) is None
    assert path_conflict("maturation", True, False) is None
    assert path_conflict(None, True, True) is None


def test_a_phase_that_agrees_with_the_path_is_named(store, settings) -> None:
    # the same repository slowing: 4.5 a day, then 3 a day: decline, and at its 91-day low
    _store_with(store, settings, {"k/keras": [4.5] * 182 + [3.0] * 28}, start=60_000)
    phase = latest_phase(store.con, "k/keras", DAY)
    assert phase is not None and phase.phase == "decline"
    assert phase.path is not None and phase.path.at_low and phase.conflict is None
