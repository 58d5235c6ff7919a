"""A card's "Why this confidence level": the band the probability falls in, the calibration
state the forecast was issued with, how often the model's backtest forecasts in that band came
true, and the live record of this store."""

from __future__ import annotations

from typing import Any

from shu.briefing import facts as ev
from shu.briefing.card.calibration import calibration_line
from shu.briefing.context import BriefingContext
from shu.briefing.safe import Md, safe_code, safe_inline
from shu.briefing.text import BANDS, band_of, pct, ref


def why_confidence(ctx: BriefingContext, f: dict[str, Any]) -> list[Md]:
    """The card's "Why this confidence level" lines: band, backtest and live record."""
    p = f["probability"]
    band = f["confidence"] or band_of(p)
    side = "yes" if p >= 0.5 else "no"
    r_conf = ctx.book.row("forecasts", {"forecast_id": f["forecast_id"]}, "confidence",
                          f["confidence"], f["origin"], f"{f['repo']} confidence band")
    lo, hi = next((lo, hi) for name, lo, hi in BANDS if name == band)
    lines = [Md(f"The model says **{side}** with {pct(max(p, 1 - p))}: the **{band}** band "
                f"({lo:.2f} ≤ max(p, 1 − p) < {min(hi, 1.0):.2f}) {ref(r_conf)}.")]
    calibration = calibration_line(ctx.book, f)
    if calibration is not None:
        lines.append(calibration)
    backtest = ev.backtest_band_rate(ctx.settings, f, band)
    if backtest is not None:
        lines.append(Md(
            f"In the walk-forward backtest in the model card of "
            f"{safe_inline(backtest.model_version)}, "
            f"{safe_code(f['template'])} forecasts at {f['horizon_days']} days in the {band} "
            f"band came true as predicted {pct(backtest.hit_rate)} of the time (n = "
            f"{backtest.n:,}) {ref(_backtest_receipt(ctx, backtest))}."))
    else:
        lines.append(Md("No backtest hit rate is stored for this template, horizon and band, "
                        "so this confidence has no backtest behind it yet."))
    live = ev.live_band_record(ctx.store, f["template"], f["horizon_days"], band, ctx.day)
    if live.n:
        r_n = ctx.book.query("forecast_resolutions", live.n_sql, live.params, live.n, ctx.day,
                             "resolved forecasts in this band")
        r_hits = ctx.book.query("forecast_resolutions", live.hits_sql, live.params, live.hits,
                                ctx.day, "of them right")
        lines.append(Md(f"Live record of this store: {live.hits} {ref(r_hits)} of {live.n} "
                        f"{ref(r_n)} resolved {band}-band forecasts of this template and "
                        "horizon came true as predicted."))
    else:
        lines.append(Md("No forecast of this template, horizon and band has resolved in this "
                        "store yet."))
    return lines


def _backtest_receipt(ctx: BriefingContext, backtest: ev.BandRate) -> int:
    return ctx.book.file(backtest.card_path, backtest.pointer, backtest.hit_rate, None,
                         "backtest hit rate (model card)")
