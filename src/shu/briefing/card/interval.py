"""The line a forecast card leads with: the repository's predictive interval for its 28-day
star velocity, e.g. "28-day velocity on 2026-03-30: 24.1 stars/day (80%: 18.9–30.2)", with
receipts to the `forecast_intervals` row it quotes (the interval forecast issued with the card's
forecast: same origin and model version, horizon nearest to the card's)."""

from __future__ import annotations

from typing import Any

from shu.briefing.card.calibration_state import calibration_line
from shu.briefing.text import num, ref
from shu.forecast.questions.registry import INTERVAL_TEMPLATE as TEMPLATE
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.store import Store


def interval_for(store: Store, f: dict[str, Any]) -> dict[str, Any] | None:
    """The interval forecast (with its quantiles) issued alongside forecast `f`, or None."""
    cur = store.con.execute(
        "SELECT f.forecast_id, f.repo, f.origin, f.resolves_on, f.horizon_days, f.threshold, "
        "f.calibration, "
        "i.* EXCLUDE (forecast_id) FROM forecasts f JOIN forecast_intervals i USING "
        "(forecast_id) WHERE f.template = ? AND f.repo = ? AND f.origin = ? AND "
        "f.model_version = ? ORDER BY abs(f.horizon_days - ?), f.horizon_days LIMIT 1",
        [TEMPLATE, f["repo"], f["origin"], f["model_version"], f["horizon_days"]],
    )
    row = cur.fetchone()
    return None if row is None else dict(zip([d[0] for d in cur.description], row, strict=True))


def interval_lead(store: Store, book: ReceiptBook, f: dict[str, Any]) -> list[Md]:
    """The lead line and a line with the 50%/95% intervals; empty when no interval exists."""
    iv = interval_for(store, f)
    if iv is None:
        return []
    key = {"forecast_id": iv["forecast_id"]}

    def cite(column: str) -> int:
        return book.row(
            "forecast_intervals",
            key,
            column,
            iv[column],
            iv["origin"],
            f"{iv['repo']} {column} of velocity_28d on {iv['resolves_on']}",
        )

    r_med, r_lo, r_hi = cite("median"), cite("lower_80"), cite("upper_80")
    lead = Md(
        f"28-day velocity on {iv['resolves_on']}: {num(iv['median'], 1)} stars/day "
        f"(80%: {num(iv['lower_80'], 1)}–{num(iv['upper_80'], 1)}) "
        f"{ref(r_med, r_lo, r_hi)}"
    )
    r50 = (cite("lower_50"), cite("upper_50"))
    r95 = (cite("lower_95"), cite("upper_95"))
    detail = Md(
        f"Predictive distribution {iv['horizon_days']} days out, from "
        f"{num(iv['threshold'], 1)} stars/day on {iv['origin']}: 50% interval "
        f"{num(iv['lower_50'], 1)}–{num(iv['upper_50'], 1)} {ref(*r50)}, 95% interval "
        f"{num(iv['lower_95'], 1)}–{num(iv['upper_95'], 1)} {ref(*r95)} (conformalised "
        "on a later block than the model; coverage in the model card)."
    )
    calibration = calibration_line(store, book, iv)
    return [lead, detail] if calibration is None else [lead, detail, calibration]
