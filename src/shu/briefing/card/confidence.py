"""A card's "Why this confidence level": the band the probability falls in, how often the
model's backtest forecasts of the same template, horizon and band came true, the calibration
state the forecast was issued with, and the record of this store's own resolved forecasts; for a
card that leads with its interval alone, how often the intervals held instead (the interval's
calibration state is told beside the interval, `card.interval`)."""

from __future__ import annotations

from typing import Any

from shu.briefing import facts as ev
from shu.briefing.card.calibration_state import calibration_line
from shu.briefing.context import BriefingContext
from shu.briefing.text import pct, ref, template_words
from shu.forecast.confidence import BAND_EDGES, confidence_band
from shu.safe_markdown import Md, safe_inline


def why_confidence(ctx: BriefingContext, f: dict[str, Any]) -> tuple[list[Md], list[Md]]:
    """The "Why this confidence level" lines of a yes/no question (short, details)."""
    p = f["probability"]
    band = f["confidence"] or confidence_band(p)
    side = "yes" if p >= 0.5 else "no"
    r_conf = ctx.book.row(
        "forecasts",
        {"forecast_id": f["forecast_id"]},
        "confidence",
        f["confidence"],
        f["origin"],
        f"{f['repo']} confidence band",
    )
    lo, hi = BAND_EDGES[band]
    kind = f"{template_words(f['template'])} questions at {f['horizon_days']} days"
    text = f"The model says {side} with {pct(max(p, 1 - p))}, the {band} band {ref(r_conf)}"
    backtest = ev.backtest_band_rate(ctx.settings, f, band)
    if backtest is not None:
        text += (
            f"; in the walk-forward backtest, {kind} in that band came true as predicted "
            f"{pct(backtest.hit_rate)} of the time (n = {backtest.n:,}) "
            f"{ref(_backtest_receipt(ctx, backtest))}."
        )
    else:
        text += "; no backtest hit rate is stored for this band, so it has none behind it yet."
    details = [
        Md(
            f"The {band} band: {lo:.2f} ≤ max(p, 1 − p) < {min(hi, 1.0):.2f}."
            + (
                f" Backtest in the model card of {safe_inline(backtest.model_version)}."
                if backtest
                else ""
            )
        )
    ]
    calibration = calibration_line(ctx.store, ctx.book, f)
    if calibration is not None:
        details.append(calibration)
    live = ev.live_band_record(ctx.store, f["template"], f["horizon_days"], band, ctx.day)
    if live.n:
        r_n = ctx.book.query(
            "forecast_resolutions",
            live.n_sql,
            live.params,
            live.n,
            ctx.day,
            "resolved forecasts in this band",
        )
        r_hits = ctx.book.query(
            "forecast_resolutions", live.hits_sql, live.params, live.hits, ctx.day, "of them right"
        )
        details.append(
            Md(
                f"Live record of this store: {live.hits} {ref(r_hits)} of {live.n} "
                f"{ref(r_n)} resolved {band}-band {kind} came true as predicted."
            )
        )
    else:
        details.append(Md(f"No {band}-band forecast of {kind} has resolved in this store yet."))
    return [Md(text)], details


def interval_confidence(ctx: BriefingContext, iv: dict[str, Any]) -> tuple[list[Md], list[Md]]:
    """The confidence lines of a card that leads with its interval: how often the backtest's and
    this store's 80% intervals of that horizon held (short, details)."""
    cover = ev.backtest_interval_coverage(ctx.settings, iv)
    if cover is not None:
        r = ctx.book.file(
            cover.card_path,
            cover.pointer,
            cover.hit_rate,
            None,
            "backtest coverage of the 80% interval (model card)",
        )
        short = [
            Md(
                f"In the walk-forward backtest, 80% intervals of the 28-day velocity "
                f"{iv['horizon_days']} days out held {pct(cover.hit_rate, 1)} of the time "
                f"(n = {cover.n:,}) {ref(r)}."
            )
        ]
    else:
        short = [
            Md("No backtest coverage is stored for this interval, so it has none behind it yet.")
        ]
    live = ev.live_interval_record(ctx.store, iv["horizon_days"], ctx.day)
    if live.n:
        r_n = ctx.book.query(
            "interval_resolutions",
            live.n_sql,
            live.params,
            live.n,
            ctx.day,
            "resolved interval forecasts at this horizon",
        )
        r_h = ctx.book.query(
            "interval_resolutions",
            live.hits_sql,
            live.params,
            live.hits,
            ctx.day,
            "of them inside their 80% interval",
        )
        details = [
            Md(
                f"Live record of this store: {live.hits} {ref(r_h)} of {live.n} {ref(r_n)} "
                f"resolved {iv['horizon_days']}-day intervals held."
            )
        ]
    else:
        details = [Md("No interval forecast of this horizon has resolved in this store yet.")]
    return short, details


def _backtest_receipt(ctx: BriefingContext, backtest: ev.BandRate) -> int:
    return ctx.book.file(
        backtest.card_path,
        backtest.pointer,
        backtest.hit_rate,
        None,
        "backtest hit rate (model card)",
    )
