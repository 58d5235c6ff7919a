"""How sure a card's answer is, in one line: the word it has earned (`card.earned`: never surer
than how often such answers came true in the backtest, on repositories of the card's velocity
band where the model card measured it, or in this store's own resolved record), "No skill shown"
where that record is no better than a coin's, with both records quoted, the one that sets the
word first; for a card that leads with its interval alone, how often such intervals held. One
sentence where the two records disagree beyond their 95% intervals and the calibration state the
forecast was issued with go to the details."""

from __future__ import annotations

from typing import Any

from shu.briefing.card.calibration_state import calibration_line
from shu.briefing.card.earned import NO_SKILL, RECORD_ENOUGH, earned_word
from shu.briefing.context import BriefingContext
from shu.briefing.text import lower_first, pct, pct_span, ref
from shu.forecast.confidence import confidence_band
from shu.forecast.evaluation.scoring import wilson_interval
from shu.forecast.records import (
    BandRate,
    LiveRecord,
    backtest_band_rate,
    backtest_interval_coverage,
    live_band_record,
    live_interval_record,
)
from shu.safe_markdown import Md

# The bands of today's velocity (`interval.VELOCITY_BANDS`) as the backtest clause says them
# ("in the backtest (at 1–5 stars a day: 31,690 answers)").
VELOCITY_WORDS = {
    "<1": "under 1 star a day",
    "1-5": "at 1–5 stars a day",
    "5-20": "at 5–20 stars a day",
    ">=20": "at 20 or more stars a day",
}


def record_receipts(ctx: BriefingContext, live: LiveRecord) -> tuple[int, int]:
    """The receipts (count, hits) of this store's record for one band of answers
    (`records.live_band_record`), as every place that quotes it cites them."""
    r_n = ctx.book.query(
        "forecast_resolutions",
        live.n_sql,
        live.params,
        live.n,
        ctx.as_of,
        "resolved forecasts in this band",
    )
    r_hits = ctx.book.query(
        "forecast_resolutions", live.hits_sql, live.params, live.hits, ctx.as_of, "of them right"
    )
    return r_n, r_hits


def record_against_claim(ctx: BriefingContext, f: dict[str, Any]) -> tuple[LiveRecord, str | None]:
    """This store's record of a yes/no answer's kind (its template and horizon at its confidence:
    `records.live_band_record`) and where the confidence the answer states falls against it:
    "below" when the record's 95% interval lies wholly below that confidence (the record undercuts
    the answer), "above" when wholly above, None when it holds it or nothing has resolved."""
    sure = max(f["probability"], 1 - f["probability"])
    band = f["confidence"] or confidence_band(f["probability"])
    live = live_band_record(ctx.store, f["template"], f["horizon_days"], band, ctx.as_of)
    if not live.n:
        return live, None
    lo, hi = wilson_interval(live.hits, live.n)
    return live, ("below" if hi < sure else "above" if lo > sure else None)


def disagreement(
    backtest: tuple[int, int], live: tuple[int, int], scope: str = "in this store's record"
) -> str | None:
    """One sentence when the backtest's hit rate and this store's record ((right, n) each)
    disagree beyond their 95% intervals (None when they agree, or either is empty); `scope` says
    whose record it is (every such answer resolved in the store so far: its replay, its live
    forecasts, or both), never "lately": the record is not a recent window."""
    if not backtest[1] or not live[1]:
        return None
    b_lo, b_hi = wilson_interval(*backtest)
    l_lo, l_hi = wilson_interval(*live)
    if l_lo <= b_hi and l_hi >= b_lo:
        return None
    side = "below" if l_hi < b_lo else "above"
    so = (
        f"{scope}, such answers held less often than the confidence says"
        if side == "below"
        else f"{scope}, such answers held more often"
    )
    return (
        f"This store's record ({pct_span(l_lo, l_hi)} with 95% confidence) is {side} the "
        f"backtest's ({pct_span(b_lo, b_hi)}): {so}."
    )


def record_scope(live: LiveRecord) -> str:
    """Whose record a disagreement speaks of: the store's replay, its live forecasts, or both."""
    if live.replayed == live.n:
        return "in this store's replay"
    return "in this store's record" if live.replayed else "in this store's live forecasts"


def whose_record(live: LiveRecord) -> str:
    """Whose record it is, in words: "live" only when none of it was replayed."""
    if not live.replayed:
        return "this store's live record"
    return (
        "this store's record (replayed)"
        if live.replayed == live.n
        else "this store's record (partly replayed)"
    )


def why_confidence(
    ctx: BriefingContext, f: dict[str, Any], skilled: bool = True
) -> tuple[list[Md], list[Md], str]:
    """How sure a yes/no answer is (short, details): the word it has earned (`earned_word`), with
    how often such answers came true in this store's record and in the backtest, the one that
    sets the word first; "No skill shown" where such answers came true no more often than a
    coin's or shu has not shown skill at such questions (`skilled` False). The details keep one
    sentence when the two records disagree beyond their intervals, and the calibration state;
    then the word itself (`NO_SKILL` for "No skill shown")."""
    p = f["probability"]
    band = f["confidence"] or confidence_band(p)
    side = "yes" if p >= 0.5 else "no"
    r_p = ctx.book.row(
        "forecasts",
        {"forecast_id": f["forecast_id"]},
        "probability",
        p,
        f["origin"],
        f"{f['repo']} probability",
    )
    backtest = backtest_band_rate(ctx.store, ctx.settings, f, band)
    live = live_band_record(ctx.store, f["template"], f["horizon_days"], band, ctx.as_of)
    word = earned_word(p, backtest.hit_rate if backtest else None, (live.hits, live.n))
    coin = word == NO_SKILL
    if not skilled:
        word = NO_SKILL
    clauses: list[tuple[float, str]] = []  # (the rate it shows, the clause)
    if backtest is not None:
        # the count last: the band's words and "this store: none yet" never join into a phrase
        # repeated on every card
        among = f"{VELOCITY_WORDS[backtest.velocity_band]}: " if backtest.velocity_band else ""
        clauses.append(
            (
                backtest.hit_rate,
                f"{pct(backtest.hit_rate)} in the backtest ({among}{backtest.n:,} answers) "
                f"{ref(_backtest_receipt(ctx, backtest))}",
            )
        )
    if live.n:
        r_n, r_hits = record_receipts(ctx, live)
        upper = wilson_interval(live.hits, live.n)[1] if live.n >= RECORD_ENOUGH else 1.0
        clauses.append(
            (
                upper,
                f"{pct(live.hits / live.n)} in "
                + ("this store's record" if live.replayed else "this store's live record")
                + f" ({live.hits} of {live.n}"
                + (
                    ""
                    if not live.replayed
                    else ", replayed"
                    if live.replayed == live.n
                    else ", partly replayed"
                )
                + (
                    f"; {pct_span(*wilson_interval(live.hits, live.n))} with 95% confidence"
                    if live.n >= RECORD_ENOUGH
                    else ": too few"
                )
                + f") {ref(r_hits, r_n)}",
            )
        )
    clauses.sort(key=lambda c: c[0])
    said = " and ".join(c for _, c in clauses)
    answer = f"{pct(max(p, 1 - p))} {side}"
    if coin:
        text = (
            f"No skill shown: such answers came true {said}, no better than a coin; the answer "
            f"is {answer} {ref(r_p)}"
        )
    elif word == NO_SKILL:  # shu has not shown skill at such questions
        text = (
            "No skill shown: shu has not yet answered such questions better than how often they "
            "usually come true; "
            f"the answer is {answer} {ref(r_p)}"
            + (f", and such answers came true {said}" if said else "")
        )
    elif said:
        own = confidence_band(p)
        lowered = f", lowered from {own} by its record" if word != own else ""
        text = (
            f"{word.capitalize()} confidence ({answer}{lowered}) {ref(r_p)}; such answers came "
            f"true {said}"
        )
    else:
        text = (
            f"{word.capitalize()} confidence ({answer}) {ref(r_p)}; no backtest record of such "
            "answers is stored"
        )
    if not live.n:
        text += _group_record(ctx, f)
    text += "."
    details: list[Md] = []
    if backtest is not None and live.n:
        sentence = disagreement(
            (round(backtest.hit_rate * backtest.n), backtest.n),
            (live.hits, live.n),
            record_scope(live),
        )
        if sentence:
            details.append(Md(sentence))
    calibration = calibration_line(ctx.store, ctx.book, f, ctx.said)
    if calibration is not None:
        details.append(calibration)
    return [Md(text)], details, word


def _group_record(ctx: BriefingContext, f: dict[str, Any]) -> str:
    """With none of its confidence resolved: this kind of question's record at every
    confidence (its template at its horizon), or that none has resolved."""
    group = live_band_record(ctx.store, f["template"], f["horizon_days"], None, ctx.as_of)
    if not group.n:
        return "; this store: none yet"
    label = "resolved forecasts of this kind of question"
    r_n = ctx.book.query(
        "forecast_resolutions", group.n_sql, group.params, group.n, ctx.as_of, label
    )
    r_hits = ctx.book.query(
        "forecast_resolutions", group.hits_sql, group.params, group.hits, ctx.as_of, "of them right"
    )
    return (
        f"; in this store, none at this confidence, and {group.hits} of {group.n}"
        f"{_replayed(group)} at every confidence ({pct(group.hits / group.n)}) {ref(r_hits, r_n)}"
    )


def _replayed(record: LiveRecord) -> str:
    """What follows a count of forecasts that were all replayed: " (replayed)" ("" otherwise)."""
    return " (replayed)" if record.n and record.replayed == record.n else ""


def interval_confidence(
    ctx: BriefingContext, iv: dict[str, Any], skilled: bool = True
) -> tuple[list[Md], list[Md]]:
    """The confidence lines of a card that leads with its interval: how often the backtest's and
    this store's 80% intervals of that horizon held (short, details), led by "No skill shown"
    where shu has not shown skill at such ranges (`skilled` False)."""
    cover = backtest_interval_coverage(ctx.settings, iv)
    if cover is not None:
        r = ctx.book.file(
            cover.card_path,
            cover.pointer,
            cover.hit_rate,
            None,
            "backtest coverage of the 80% interval (model card)",
        )
        short_text = (
            f"In the backtest, {cover.n:,} such 80% ranges held {pct(cover.hit_rate, 1)} of "
            f"the time {ref(r)}"
        )
    else:
        short_text = "No backtest record of such ranges is stored"
    live = live_interval_record(ctx.store, iv["horizon_days"], ctx.as_of)
    if live.n:
        r_n = ctx.book.query(
            "interval_resolutions",
            live.n_sql,
            live.params,
            live.n,
            ctx.as_of,
            "resolved interval forecasts at this horizon",
        )
        r_h = ctx.book.query(
            "interval_resolutions",
            live.hits_sql,
            live.params,
            live.hits,
            ctx.as_of,
            "of them inside their 80% interval",
        )
        short_text += (
            f"; {whose_record(live)}: {live.hits} of {live.n} held "
            f"({pct(live.hits / live.n)}) {ref(r_h, r_n)}."
        )
        if cover is not None:
            sentence = disagreement(
                (round(cover.hit_rate * cover.n), cover.n), (live.hits, live.n), record_scope(live)
            )
            if sentence:
                short_text += " " + sentence
    else:
        short_text += "; none of this horizon has resolved in this store yet."
    if not skilled:
        short_text = f"No skill shown at such ranges yet: {lower_first(short_text)}"
    return [Md(short_text)], []


def _backtest_receipt(ctx: BriefingContext, backtest: BandRate) -> int:
    return ctx.book.file(
        backtest.card_path,
        backtest.pointer,
        backtest.hit_rate,
        None,
        "backtest hit rate (model card)",
    )
