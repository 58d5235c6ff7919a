"""The "Forecasts" section: one card per tracked repository (the forecast `shu.briefing.choice`
headlines, led by its velocity interval), one more per ROCm adoption forecast, and the table of
every other forecast issued at the same origin.

A card states its question as one sentence, charts the repository's velocity with its forecast
fan, and says why this prediction (`card.why`), why this confidence level (`card.confidence`),
which topic the evidence supports and what the corpus answers about it (`card.topic`); every
number cites a receipt, and the card lists the receipts it cited. While the regime guard is on,
the section opens with its one line (`calibration_watch.guard_notice`).
"""

from __future__ import annotations

from typing import Any

from shu.briefing.card.confidence import why_confidence
from shu.briefing.card.interval import interval_lead
from shu.briefing.card.topic import context_answers, topic_lines
from shu.briefing.card.why import why_prediction
from shu.briefing.charts import HISTORY_DAYS, slug
from shu.briefing.compare import fan_chart
from shu.briefing.context import BriefingContext, Part
from shu.briefing.safe import Md, safe_inline
from shu.briefing.sections.calibration_watch import guard_notice
from shu.briefing.text import band_of, interval_text, num, pct
from shu.evidence import topics


def build(ctx: BriefingContext) -> Part:
    """The cards, their fan charts (written beside the markdown) and the other forecasts."""
    shown = ctx.headline + ctx.rocm_cards
    cards = [_card(ctx, f) for f in shown]
    for card in cards:
        path = ctx.out_dir / f"{ctx.day}-fan-{slug(card['repo'])}.png"
        _, card["has_fan"] = fan_chart(ctx.store.con, card["repo"], ctx.as_of, path,
                                       HISTORY_DAYS)
        card["fan_png"] = path.name
    return Part(ctx.render("sections/cards.md.j2", cards=cards, guard=guard_notice(ctx),
                           other_forecasts=[_forecast_row(f) for f in ctx.forecasts
                                            if f not in shown]))


def claim_sentence(f: dict[str, Any]) -> Md:
    """The forecast as one sentence: repository, quantity, threshold, horizon and direction."""
    yes = f["probability"] >= 0.5
    will = "will" if yes else "will not"
    repo = safe_inline(f["repo"])
    horizon = f"within {f['horizon_days']} days (by {f['resolves_on']})"
    x = f["threshold"]
    template = f["template"]
    if template == "star_accel_reach" and x == 0:
        text = (f"{repo}'s 28-day star acceleration {will} turn positive (reach ≥ 0 stars/day) "
                f"on some day {horizon}.")
    elif template == "star_accel_reach":
        text = (f"{repo}'s 28-day star acceleration {will} reach ≥ {num(x, signed=True)} "
                f"stars/day on some day {horizon}.")
    elif template == "star_accel_fall" and x == 0:
        text = (f"{repo}'s 28-day star acceleration {will} turn negative (fall to ≤ 0 "
                f"stars/day) on some day {horizon}.")
    elif template == "star_accel_fall":
        text = (f"{repo}'s 28-day star acceleration {will} fall to ≤ {num(x, signed=True)} "
                f"stars/day on some day {horizon}.")
    elif template == "star_velocity_level":
        text = (f"{repo}'s 28-day star velocity on {f['resolves_on']} {will} be above "
                f"{num(x)} stars/day, {f['horizon_days']} days out.")
    elif template == "star_velocity_up":
        text = (f"{repo}'s 28-day star velocity on {f['resolves_on']} {will} be above its "
                f"{f['origin']} value ({num(x)} stars/day), {f['horizon_days']} days out.")
    elif template == "star_gain":
        text = f"{repo} {will} gain at least {num(x, 0)} stars {horizon}."
    elif template == "release_within":
        text = f"{repo} {will} publish a release {horizon}."
    elif template == "commit_velocity_up":
        text = (f"{repo}'s 28-day commit velocity on {f['resolves_on']} {will} be above its "
                f"{f['origin']} value ({num(x)} commits/day), {f['horizon_days']} days out.")
    else:
        text = safe_inline(f.get("question") or template)
    return Md(text)


def _card(ctx: BriefingContext, f: dict[str, Any]) -> dict[str, Any]:
    topic = topics.attribute_topic(ctx.store, ctx.settings, ctx.index, f["repo"], ctx.as_of)
    first_receipt = len(ctx.book.receipts) + 1
    card = {
        "lead": ([] if f["template"].startswith("rocm_")  # star interval leads star cards
                 else interval_lead(ctx.store, ctx.book, f)),
        "claim": claim_sentence(f),
        "repo": f["repo"],
        "template": f["template"],
        "forecast_id": f["forecast_id"],
        "why_prediction": why_prediction(ctx, f, ctx.categories),
        "why_confidence": why_confidence(ctx, f),
        "topic_evidence": topic_lines(ctx, topic),
        "context": context_answers(ctx, f, topic),
        "horizon": f["horizon_days"],
        "confidence": f["confidence"] or band_of(f["probability"]),
        "topic": topic.name if topic and topic.asserted else None,
    }
    card["receipts"] = list(range(first_receipt, len(ctx.book.receipts) + 1))
    return card


def _forecast_row(f: dict[str, Any]) -> dict[str, Any]:
    interval = interval_text(f)
    return {"repo": f["repo"], "template": f["template"], "horizon": f["horizon_days"],
            "threshold": Md(num(f["threshold"], signed=f["template"] == "star_accel_reach")),
            "probability": Md(interval or pct(f["probability"])),
            "confidence": "interval" if interval else f["confidence"], "id": f["forecast_id"]}
