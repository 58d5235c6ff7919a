"""The "Forecasts" section: one card per tracked repository (the question `shu.briefing.choice`
picks, or its velocity interval alone), one per declared question, one per ROCm adoption card,
and the table of every other forecast issued at the same origin.

A card fits a screen: at most `MAX_BLOCKS` rendered paragraphs and bullets and `MAX_PROSE`
characters of visible prose (receipt references not counted). It leads with the velocity
interval, asks its question with the probability and the base rate, charts the repository (its
velocity fan, or for a ROCm card its ROCm share and the forecast), and gives the largest
drivers in words, why this confidence, the topic and what the corpus answers. Everything else
(the other drivers, signal, peer and release context, the live record, the 50/95% intervals,
unanswered questions, landscape and lifecycle) goes to the card's details, which only the HTML
page shows (expandable), and every number to the receipts. While the regime guard is on, the
section opens with its one line (`calibration_watch.guard_notice`).
"""

from __future__ import annotations

from typing import Any

from shu.briefing import charts
from shu.briefing.card.confidence import interval_confidence, why_confidence
from shu.briefing.card.interval import interval_lead
from shu.briefing.card.topic import card_topic, context_answers, topic_lines
from shu.briefing.card.why import why_prediction
from shu.briefing.charts import HISTORY_DAYS, slug
from shu.briefing.choice import CardChoice
from shu.briefing.compare import fan_chart
from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.calibration_watch import guard_notice
from shu.briefing.text import interval_text, num, pct, ref, template_words, visible_text
from shu.safe_markdown import Md, safe_code, safe_inline

MAX_BLOCKS = 12
MAX_PROSE = 1200


def build(ctx: BriefingContext) -> Part:
    """The cards, their charts (written beside the markdown) and the other forecasts."""
    cards = [_card(ctx, choice) for choice in ctx.cards]
    shown = {c.headline["forecast_id"] for c in ctx.cards}
    view = {
        "guard": guard_notice(ctx),
        "other_forecasts": [
            _forecast_row(f) for f in ctx.forecasts if f["forecast_id"] not in shown
        ],
    }
    return Part(
        ctx.render("sections/cards.md.j2", cards=cards, page=False, **view),
        ctx.render("sections/cards.md.j2", cards=cards, page=True, **view),
        {"cards": [card_data(choice) for choice in ctx.cards]},
    )


def card_data(choice: CardChoice) -> dict[str, Any]:
    """A card as plain data (`reports/DATE.json`)."""
    f, iv = choice.forecast, choice.interval
    head = choice.headline
    return {
        "repo": choice.repo,
        "kind": choice.kind,
        "template": head["template"],
        "horizon": head["horizon_days"],
        "origin": head["origin"],
        "resolves_on": head["resolves_on"],
        "question": f["question"] if f else None,
        "probability": f["probability"] if f else None,
        "base_rate": f.get("base_rate") if f else None,
        "declared": choice.declared,
        "skill": {"demonstrated": choice.skilled, "reason": choice.skill_reason},
        "interval": None
        if iv is None
        else {
            "quantity": "velocity_28d",
            "unit": "stars/day",
            "resolves_on": iv["resolves_on"],
            **{
                k: iv.get(k)
                for k in (
                    "median",
                    "lower_50",
                    "upper_50",
                    "lower_80",
                    "upper_80",
                    "lower_95",
                    "upper_95",
                )
            },
        },
        "forecast_id": head["forecast_id"],
    }


def question_sentence(f: dict[str, Any]) -> str:
    """The forecast's question in words: repository, quantity, threshold and horizon."""
    x, repo, on = f["threshold"], safe_inline(f["repo"]), f["resolves_on"]
    within = f"within {f['horizon_days']} days (by {on})"
    template = f["template"]
    if template in ("star_accel_reach", "star_accel_fall"):
        verb = "positive" if template == "star_accel_reach" else "negative"
        if x == 0:
            return f"Will {repo}'s 28-day star acceleration turn {verb} {within}?"
        reach = "reach ≥" if template == "star_accel_reach" else "fall to ≤"
        return (
            f"Will {repo}'s 28-day star acceleration {reach} {num(x, signed=True)} "
            f"stars/day on some day {within}?"
        )
    sentences = {
        "star_velocity_level": f"Will {repo}'s 28-day star velocity on {on} be above {num(x)} "
        "stars/day?",
        "star_velocity_up": f"Will {repo}'s 28-day star velocity on {on} be above its "
        f"{f['origin']} value, {num(x)} stars/day?",
        "star_gain": f"Will {repo} gain at least {num(x, 0)} stars {within}?",
        "release_within": f"Will {repo} publish a release {within}?",
        "commit_velocity_up": f"Will {repo}'s 28-day commit velocity on {on} be above its "
        f"{f['origin']} value, {num(x)} commits/day?",
        "rocm_share_reach": f"Will the share of {repo}'s mainline commits touching ROCm over "
        f"90 days reach {pct(x, 1)} {within}?",
        "rocm_release_mention": f"Will {repo} publish a release whose notes mention ROCm {within}?",
        "rocm_first_commit": f"Will {repo} land its first commit touching ROCm {within}?",
    }
    return sentences.get(template) or safe_inline(f.get("question") or template_words(template))


def _card(ctx: BriefingContext, choice: CardChoice) -> dict[str, Any]:
    first_receipt = len(ctx.book.receipts) + 1
    f, iv = choice.forecast, choice.interval
    head = choice.headline
    lead, iv_details = (
        ([], []) if iv is None else _split(interval_lead(ctx.store, ctx.book, f or iv))
    )
    question = _question(ctx, f) if f is not None else None
    why, why_details = why_prediction(ctx, f, choice.repo, choice.kind)
    confidence, conf_details = (
        why_confidence(ctx, f) if f is not None else interval_confidence(ctx, head)
    )
    used: set[tuple[str, int]] = set()
    topic = card_topic(ctx, choice.repo, choice.kind)
    topic_short = topic_lines(ctx, topic, used, short=True)
    answers, context_details = context_answers(ctx, choice.repo, head["template"], topic, used)
    topic_details = topic_lines(ctx, topic, used, short=False)
    marks = []
    if choice.declared:
        marks.append("Declared in shu.toml.")
    if not choice.skilled:
        marks.append(f"No demonstrated skill: {safe_inline(choice.skill_reason)}.")
    card = {
        "repo": choice.repo,
        "title": Md(f"{template_words(head['template'])} · {head['horizon_days']} days"),
        "lead": lead[0] if lead else None,
        "question": question,
        "marks": Md("*" + " ".join(marks) + "*") if marks else None,
        "chart": _chart(ctx, choice),
        # (priority when the card must shrink: higher leaves first, label, line)
        "bullets": [
            (1 if i else 0, "Why this prediction" if i == 0 else "", line)
            for i, line in enumerate(why)
        ]
        + [(0, "Why this confidence", line) for line in confidence]
        + [(2, "Topic", line) for line in topic_short]
        + [(3 + i, "" if i else "Context", line) for i, line in enumerate(answers)],
        "details": [
            Md(f"Why this question: {safe_inline(choice.why)}."),
            *iv_details,
            *why_details,
            *conf_details,
            *topic_details,
            *context_details,
        ],
        "footer": "",
    }
    topic_term = topic.term if topic and topic.asserted else "none asserted"
    footer = (
        f"*Horizon ~{head['horizon_days']} days · confidence: "
        f"{f['confidence'] if f is not None else 'interval'} · topic: "
        f"{safe_inline(topic_term)} · receipts {{receipts}} · forecast "
        f"{safe_code(head['forecast_id'])}*"
    )
    card["footer"] = Md(footer.format(receipts="R0000–R0000"))  # its length while fitting
    _fit(card)
    card["footer"] = Md(
        footer.format(receipts=_receipt_span(first_receipt, len(ctx.book.receipts)))
    )
    return card


def _split(lines: list[Md]) -> tuple[list[Md], list[Md]]:
    return lines[:1], lines[1:]


def _question(ctx: BriefingContext, f: dict[str, Any]) -> Md:
    key = {"forecast_id": f["forecast_id"]}
    r_p = ctx.book.row(
        "forecasts", key, "probability", f["probability"], f["origin"], f"{f['repo']} probability"
    )
    text = f"**{question_sentence(f)}** {pct(f['probability'])} yes"
    if f.get("base_rate") is not None:
        r_b = ctx.book.row(
            "forecasts", key, "base_rate", f["base_rate"], f["origin"], f"{f['repo']} base rate"
        )
        text += (
            f", against a base rate of {pct(f['base_rate'])} ({f['base_rate_n']:,} "
            f"resolved questions of this kind in the year before) {ref(r_p, r_b)}."
        )
    else:
        text += f" {ref(r_p)}; no base rate is stored with this forecast."
    return Md(text)


def _chart(ctx: BriefingContext, choice: CardChoice) -> dict[str, Any]:
    if choice.kind == "rocm":
        path = ctx.out_dir / f"{ctx.day}-rocm-{slug(choice.repo)}.png"
        charts.rocm_chart(ctx.store, choice.headline, ctx.as_of, path)
        return {
            "png": path.name,
            "alt": f"{choice.repo}: ROCm share of mainline commits and the forecast",
        }
    path = ctx.out_dir / f"{ctx.day}-fan-{slug(choice.repo)}.png"
    _, has_fan = fan_chart(ctx.store.con, choice.repo, ctx.as_of, path, HISTORY_DAYS)
    return {
        "png": path.name,
        "alt": f"{choice.repo}: 28-day star velocity"
        + (" and its forecast fan" if has_fan else ""),
    }


def _fit(card: dict[str, Any]) -> None:
    """Move the card's lowest-priority bullets to its details until it fits a screen."""

    def size() -> tuple[int, int]:
        head = [card["lead"], card["question"], card["marks"], card["footer"]]
        blocks = sum(1 for b in head if b) + 1 + len(card["bullets"])  # + the chart
        prose = sum(len(visible_text(str(b))) for b in head if b)
        prose += sum(len(visible_text(f"{label}: {line}")) for _, label, line in card["bullets"])
        return blocks, prose

    while len(card["bullets"]) > 2:
        blocks, prose = size()
        if blocks <= MAX_BLOCKS and prose <= MAX_PROSE:
            break
        drop = max(range(len(card["bullets"])), key=lambda i: (card["bullets"][i][0], i))
        card["details"].append(card["bullets"].pop(drop)[2])
    card["bullets"] = [
        Md(f"**{label}:** {line}" if label else str(line)) for _, label, line in card["bullets"]
    ]


def _receipt_span(first: int, last: int) -> Md:
    if last < first:
        return Md("none")
    return Md(f"R{first}" if first == last else f"R{first}–R{last}")


def _forecast_row(f: dict[str, Any]) -> dict[str, Any]:
    interval = interval_text(f)
    return {
        "repo": f["repo"],
        "template": f["template"],
        "horizon": f["horizon_days"],
        "threshold": Md(num(f["threshold"], signed=f["template"] == "star_accel_reach")),
        "probability": Md(interval or pct(f["probability"])),
        "base_rate": Md(pct(f.get("base_rate"))),
        "confidence": "interval" if interval else f["confidence"],
        "id": f["forecast_id"],
    }
