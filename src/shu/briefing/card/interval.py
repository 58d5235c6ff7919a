"""The line a forecast card leads with: the repository's predictive interval for its 28-day
star velocity, e.g. "28-day pace on 30 Mar 2026: 24.1 stars/day, 80% likely between 18.9 and
30.2", with receipts to the `forecast_intervals` row it quotes (the interval forecast issued
with the card's forecast: read from the same predictive distribution where the card's forecast
names one, else the same origin and model version, horizon nearest to the card's).

A yes/no question about that same velocity at its horizon (`asks_velocity`) and the interval
must tell one story: the chance the interval gives the question's side should be the answer.
`velocity_reading` reads both for a card, the one place a card reads them. Where both name one
predictive distribution (`forecast_distributions`), that chance is read from the stored
distribution itself and is the answer by construction; for forecasts issued before there was one
distribution (`p_above`, linear between the interval's seven stored quantiles) they may differ
by more than `AGREE_WITHIN`, and the card then says which number is the forecast: the answer,
with the interval shown as a separate model's view, never as the same forecast.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from shu.briefing.card.calibration_state import calibration_line
from shu.briefing.text import day_text, num, pct, ref
from shu.forecast.calibration.distribution import cdf
from shu.forecast.questions.registry import INTERVAL_TEMPLATE as TEMPLATE
from shu.forecast.questions.registry import TEMPLATES
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.store import Store


def interval_for(store: Store, f: dict[str, Any]) -> dict[str, Any] | None:
    """The interval forecast (with its quantiles) issued alongside forecast `f`, or None."""
    cur = store.con.execute(
        "SELECT f.forecast_id, f.repo, f.origin, f.resolves_on, f.horizon_days, f.threshold, "
        "f.calibration, f.distribution_id, "
        "i.* EXCLUDE (forecast_id) FROM forecasts f JOIN forecast_intervals i USING "
        "(forecast_id) WHERE f.template = ? AND f.repo = ? AND f.origin = ? AND "
        "f.model_version = ? ORDER BY f.distribution_id IS NOT DISTINCT FROM ? DESC, "
        "abs(f.horizon_days - ?), f.horizon_days LIMIT 1",
        [
            TEMPLATE,
            f["repo"],
            f["origin"],
            f["model_version"],
            f.get("distribution_id"),
            f["horizon_days"],
        ],
    )
    row = cur.fetchone()
    return None if row is None else dict(zip([d[0] for d in cur.description], row, strict=True))


# The interval's stored quantiles, by level.
QUANTILE_COLUMNS = (
    (0.025, "lower_95"),
    (0.10, "lower_80"),
    (0.25, "lower_50"),
    (0.50, "median"),
    (0.75, "upper_50"),
    (0.90, "upper_80"),
    (0.975, "upper_95"),
)
AGREE_WITHIN = 0.05  # an answer and its interval's chance of the same side agree within this


def asks_velocity(template: str) -> bool:
    """Whether a yes/no template asks about the 28-day star velocity at its horizon (so its
    answer and the velocity interval speak of the same number)."""
    t = TEMPLATES.get(template)
    return (
        t is not None
        and t.kind == "yes_no"
        and t.asks == "at_horizon"
        and t.family == "star"
        and t.unit == "stars/day"
    )


def p_above(iv: dict[str, Any], threshold: float) -> float | None:
    """P(velocity > threshold) read linearly between the interval's stored quantiles (beyond
    the 2.5% and 97.5% quantiles held at 97.5% and 2.5%); None when a quantile is missing."""
    points = [(iv.get(column), level) for level, column in QUANTILE_COLUMNS]
    if any(v is None for v, _ in points):
        return None
    values = [float(v) for v, _ in points if v is not None]
    levels = [level for _, level in points]
    if threshold <= values[0]:
        return 1 - levels[0]
    for (v0, q0), (v1, q1) in pairwise(zip(values, levels, strict=True)):
        if threshold <= v1:
            return 1 - (q0 if v1 == v0 else q0 + (q1 - q0) * (threshold - v0) / (v1 - v0))
    return 1 - levels[-1]


def p_above_distribution(store: Store, distribution_id: str, threshold: float) -> float | None:
    """P(velocity > threshold) read from the stored predictive distribution (the one the
    answers were read from); None when it is not stored."""
    row = store.con.execute(
        "SELECT levels, quantiles, anchor_thresholds, anchor_cdf FROM forecast_distributions "
        "WHERE distribution_id = ?",
        [distribution_id],
    ).fetchone()
    if row is None:
        return None
    levels, quantiles, anchor_x, anchor_c = (np.asarray(v or [], dtype=float) for v in row)
    return 1.0 - cdf(levels, quantiles, anchor_x, anchor_c, threshold)


@dataclass(frozen=True)
class VelocityReading:
    """What a card reads about the velocity at its horizon: its yes/no forecast (None when the
    card leads with the interval alone), the interval forecast, and for a question about that
    velocity the chance its interval gives the question's side and whether it is the answer."""

    forecast: dict[str, Any] | None
    interval: dict[str, Any] | None
    p_interval: float | None = None

    @property
    def agrees(self) -> bool | None:
        """Whether the answer and its interval tell one story (None: nothing to compare)."""
        if self.forecast is None or self.p_interval is None:
            return None
        return abs(self.forecast["probability"] - self.p_interval) <= AGREE_WITHIN


def velocity_reading(store: Store, head: dict[str, Any]) -> VelocityReading:
    """The card's answer and interval, from its headline forecast `head` (its question, else
    its interval)."""
    iv = interval_for(store, head)
    f = None if head["template"] == TEMPLATE else head
    p = None
    if f is not None and iv is not None and asks_velocity(f["template"]):
        one = f.get("distribution_id")
        if one is not None and iv.get("distribution_id") == one:
            p = p_above_distribution(store, one, float(f["threshold"]))
        if p is None:
            p = p_above(iv, float(f["threshold"]))
    return VelocityReading(f, iv, p)


def interval_lead(
    store: Store, book: ReceiptBook, head: dict[str, Any], said: set[str] | None = None
) -> list[Md]:
    """The lead line and a line with the 50%/95% intervals (how they were calibrated is said once,
    above every card's details); empty when no interval exists.
    The lead says the interval is a separate model's view where it disagrees with the answer."""
    reading = velocity_reading(store, head)
    iv = reading.interval
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
    pace = (
        f"{num(iv['median'], 1)} stars/day, 80% likely between {num(iv['lower_80'], 1)} and "
        f"{num(iv['upper_80'], 1)} {ref(r_med, r_lo, r_hi)}"
    )
    on = day_text(iv["resolves_on"])
    if reading.agrees is False and reading.forecast is not None and reading.p_interval is not None:
        lead = Md(
            f"A separate range model puts the 28-day pace on {on} at {pace}; by it, the chance "
            f"of yes would be {pct(reading.p_interval)}. This forecast predates shu's one forecast "
            f"of the pace; the answer is the {pct(reading.forecast['probability'])} above"
        )
    elif reading.forecast is not None:  # its question has just named the day
        lead = Md(f"28-day pace expected then: {pace}")
    else:
        lead = Md(f"28-day pace on {on}: {pace}")
    r50 = (cite("lower_50"), cite("upper_50"))
    r95 = (cite("lower_95"), cite("upper_95"))
    detail = Md(
        f"From {num(iv['threshold'], 1)} stars/day on {iv['origin']}: 50% likely "
        f"{num(iv['lower_50'], 1)}–{num(iv['upper_50'], 1)} {ref(*r50)}, 95% likely "
        f"{num(iv['lower_95'], 1)}–{num(iv['upper_95'], 1)} {ref(*r95)}."
    )
    calibration = calibration_line(store, book, iv, said)
    return [lead, detail] if calibration is None else [lead, detail, calibration]
