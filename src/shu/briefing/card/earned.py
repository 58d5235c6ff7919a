"""The confidence word a card's yes/no answer has earned: never surer than its record shows (the
backtest's hit rate of such answers and, from `RECORD_ENOUGH` resolved answers, this store's
own), and "no skill" where that record is no better than a coin's. Read by the card's How sure
line (`card.confidence`) and by the card choice (`BriefingContext.beats_coin`)."""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.forecast.confidence import BANDS, confidence_band
from shu.forecast.evaluation.scoring import wilson_interval
from shu.forecast.records import backtest_band_rate, live_band_record
from shu.settings import Settings
from shu.store import Store

# This store's record lowers a card's confidence word only once it holds this many such answers.
RECORD_ENOUGH = 30
# The word a card says when its record is no better than a coin's (`earned_word`).
NO_SKILL = "none"


def earned_word(probability: float, backtest: float | None, live: tuple[int, int]) -> str:
    """The confidence word a yes/no answer may claim: the band of its own chance
    (`forecast.confidence.confidence_band`), lowered to the band of the lower of the backtest's
    hit rate of such answers and, once this store has resolved `RECORD_ENOUGH` of them
    (`live` = (came true, n)), the upper end of that record's 95% interval; `NO_SKILL` when
    that rate is 50% or less (no better than a coin)."""
    rates = [] if backtest is None else [backtest]
    hits, n = live
    if n >= RECORD_ENOUGH:
        rates.append(wilson_interval(hits, n)[1])
    own = confidence_band(probability)
    if not rates:
        return own
    shown = min(rates)
    if shown <= 0.5:
        return NO_SKILL
    return min(own, confidence_band(shown), key=BANDS.index)


def beats_coin(store: Store, settings: Settings, f: dict[str, Any], day: date) -> bool:
    """Whether such answers as yes/no forecast `f`'s came true more often than a coin's: its
    `earned_word` is not `NO_SKILL`."""
    band = f["confidence"] or confidence_band(f["probability"])
    backtest = backtest_band_rate(store, settings, f, band)
    live = live_band_record(store, f["template"], f["horizon_days"], band, day)
    word = earned_word(
        f["probability"], backtest.hit_rate if backtest else None, (live.hits, live.n)
    )
    return word != NO_SKILL
