"""The "Forecasts" section: one card per tracked repository (the question `shu.briefing.choice`
picks, or its velocity interval alone), one per declared question, one per ROCm adoption card;
and, for the appendix, the table of every forecast issued at the same origin and what each card
keeps out of its screen.

In the body a card is three lines (at most `MAX_WORDS` words besides its receipts,
`text.word_count`): its question answered against how often such questions usually come true,
the 28-day pace it expects on the horizon day with its 80% range, and how sure it is, in the word
its record allows (`card.confidence`); its receipts line links to its details. Everything else (its
chart, the reasons that push the answer the way it departs from the usual rate, `card.why`, the
drivers pulling the other way, signal, peer and release context, the 50/95% ranges, the
calibration state, topic evidence and what the corpus answers) is the card's details: the HTML
page's expandable part and the markdown appendix's "More on each card", whose shared
explanations are said once at its head (`more_head`). Where the regime guard changed a forecast
a card shows, one line naming which opens the appendix's table of every forecast.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.briefing import charts
from shu.briefing.card.confidence import interval_confidence, why_confidence
from shu.briefing.card.interval import interval_lead, velocity_reading
from shu.briefing.card.topic import card_topic, context_answers, topic_lines
from shu.briefing.card.why import COUNTED_TOO, direction, why_prediction
from shu.briefing.charts import HISTORY_DAYS, slug
from shu.briefing.choice import CHOICE_RULE, CardChoice
from shu.briefing.context import BriefingContext, Part
from shu.briefing.fan_chart import cards_chart, fan_chart
from shu.briefing.sections.calibration_watch import regime_action
from shu.briefing.story_words import burst_leaving_sentence
from shu.briefing.text import (
    USUAL_RATE,
    and_list,
    day_text,
    interval_text,
    num,
    pct,
    possessive,
    receipt_span,
    ref,
    repo_link,
    template_words,
)
from shu.safe_markdown import Md, safe_code, safe_inline

MAX_WORDS = 100  # a body card's words besides its receipts: three short lines
# What each template's threshold is compared with, and how (the JSON card's `quantity` and
# `comparator`): the question is "quantity comparator threshold?".
COMPARATORS: dict[str, tuple[str, str]] = {
    "star_accel_reach": ("acceleration_28d on some day up to resolves_on", ">="),
    "star_accel_fall": ("acceleration_28d on some day up to resolves_on", "<="),
    "star_velocity_level": ("velocity_28d on resolves_on", ">"),
    "star_velocity_up": ("velocity_28d on resolves_on", ">"),
    "star_gain": ("stars gained from origin to resolves_on", ">="),
    "release_within": ("releases published after origin up to resolves_on", ">="),
    "commit_velocity_up": ("commit velocity_28d on resolves_on", ">"),
    "rocm_share_reach": (
        "90-day ROCm share of mainline commits on some day up to resolves_on",
        ">=",
    ),
    "rocm_release_mention": ("releases mentioning ROCm after origin up to resolves_on", ">="),
    "rocm_first_commit": ("ROCm-touching commits after origin up to resolves_on", ">="),
    "star_velocity_interval": ("velocity_28d on resolves_on", "within"),
}


def build(ctx: BriefingContext) -> Part:
    """The cards and their charts (written beside the markdown); for the appendix, every forecast
    at the same origin and each card's details."""
    cards = [_card(ctx, choice) for choice in ctx.cards]
    grid = grid_chart(ctx)
    # the regime guard's line is bookkeeping: after the body, above every forecast issued
    every = {"forecasts": [_forecast_row(f) for f in ctx.forecasts], "guard": regime_line(ctx)}
    head = more_head(ctx)
    return Part(
        ctx.render("sections/cards.md.j2", cards=cards, grid=grid, page=False),
        ctx.render("sections/cards.md.j2", cards=cards, grid=grid, page=True, more_head=head),
        {"cards": [card_data(choice, card) for choice, card in zip(ctx.cards, cards, strict=True)]},
        appendix=ctx.render("sections/cards_appendix.md.j2", cards=cards, more_head=head, **every),
        appendix_page=ctx.render("sections/cards_appendix.md.j2", cards=[], **every),
    )


def grid_chart(ctx: BriefingContext) -> Md | None:
    """The star cards' questions as small multiples above the cards (`fan_chart.cards_figure`),
    as the markdown image that shows it; None without a star card."""
    asked = [(c.repo, c.forecast) for c in ctx.cards if c.kind == "star"]
    if not asked:
        return None
    path = ctx.out_dir / f"{ctx.as_of}-cards.png"
    _, alt = cards_chart(ctx.store, asked, ctx.data_through, path)
    ctx.charts.append(path)
    return Md(f"![{safe_inline(alt)}]({path.name})")


def more_head(ctx: BriefingContext) -> list[Md]:
    """What every card's details share, said once above them: how the question was chosen, what
    the chart draws, how the ranges and the records were made, and the words the lines use."""
    versions = sorted({str(c.headline.get("model_version")) for c in ctx.cards})
    if not versions:
        return []
    return [
        Md(f"**The question.** {safe_inline(CHOICE_RULE)}."),
        Md(
            "**The chart** draws the card's quantity over the last 180 days with the forecast and "
            "the threshold asked (dashed)."
        ),
        Md(
            "**Ranges.** The 50%, 80% and 95% ranges are calibrated on later data than the model "
            "was fitted on; how often they held is in the model card. A calibration line gives the "
            "two points of past errors an 80% range is read between (the 10th and 90th when they "
            "run true)."
        ),
        Md(
            "**Records.** A card's records count answers to its kind of question (its question's "
            "form at its horizon) given with the same confidence; the backtest's are in the model "
            f"card of {and_list([safe_code(v) for v in versions])}."
        ),
        Md(
            f"**{COUNTED_TOO}:** what the model counted that is about the whole store, or already "
            "part of what usually happens. **Below the bar:** no strong "
            "evidence for the topic in the commit history, release notes, documents or probe "
            "checks, so it is not asserted."
        ),
    ]


def card_data(choice: CardChoice, card: dict[str, Any] | None = None) -> dict[str, Any]:
    """A card as plain data (`reports/DATE.json`): for a question about the velocity at its
    horizon, also the chance its interval gives the question's side and whether that is the
    answer (`card.interval.velocity_reading`)."""
    f, iv = choice.forecast, choice.interval
    head = choice.headline
    reading = (card or {}).get("reading")
    if reading is not None and reading.interval is not None:
        iv = reading.interval
    quantity, comparator = COMPARATORS.get(head["template"]) or (None, None)
    return {
        "repo": choice.repo,
        "kind": choice.kind,
        "template": head["template"],
        "horizon": head["horizon_days"],
        "origin": head["origin"],
        "resolves_on": head["resolves_on"],
        "question": f["question"] if f else None,
        "question_in_words": question_sentence(f) if f else None,
        "quantity": quantity if f else None,
        "comparator": comparator if f else None,
        "threshold": f["threshold"] if f else None,
        "probability": f["probability"] if f else None,
        "base_rate": f.get("base_rate") if f else None,
        "probability_from_interval": reading.p_interval if reading else None,
        # the word the card says ("none": no skill shown; `card.earned.earned_word`)
        "confidence": (card or {}).get("confidence_word"),
        "interval_agrees": reading.agrees if reading else None,
        "declared": choice.declared,
        "skill": {"demonstrated": choice.skilled, "reason": choice.skill_reason},
        "reasons": [
            {"text": str(r.text), "contribution": r.contribution, "without": r.without}
            for r in (card or {}).get("reasons", [])
        ],
        "interval": None
        if iv is None
        else {
            "quantity": "velocity_28d",
            "unit": "stars/day",
            "forecast_id": iv["forecast_id"],
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


def question_clause(f: dict[str, Any], subject: str) -> str:
    """The forecast's question as a clause about `subject` ('it' or the repository, as shu's
    markdown), e.g. "its 28-day pace on 30 Mar 2026 is above 4.54 stars/day"."""
    x, on, their = f["threshold"], day_text(f["resolves_on"]), possessive(subject)
    clauses = {
        "star_accel_reach": (
            f"{their} 28-day acceleration turns positive by {on}"
            if x == 0
            else f"{their} 28-day acceleration reaches {num(x, signed=True)} stars/day by {on}"
        ),
        "star_accel_fall": (
            f"{their} 28-day acceleration turns negative by {on}"
            if x == 0
            else f"{their} 28-day acceleration falls to {num(x, signed=True)} stars/day by {on}"
        ),
        "star_velocity_level": f"{their} 28-day pace on {on} is above {num(x)} stars/day",
        "star_velocity_up": f"{their} 28-day pace on {on} is above today's {num(x)} stars/day",
        "star_gain": f"{subject} gains at least {num(x, 0)} stars by {on}",
        "release_within": f"{subject} publishes a release by {on}",
        "commit_velocity_up": f"{their} 28-day commit pace on {on} is above today's {num(x)}",
        "rocm_share_reach": f"the share of {their} commits touching ROCm over 90 days reaches "
        f"{pct(x, 1)} by {on}",
        "rocm_release_mention": f"{subject} publishes a release whose notes mention ROCm by {on}",
        "rocm_first_commit": f"{subject} lands its first commit touching ROCm by {on}",
    }
    return clauses.get(f["template"]) or f"{template_words(f['template'])} by {on}"


def question_sentence(f: dict[str, Any]) -> str:
    """The forecast's question in words: repository, quantity, threshold and horizon."""
    x, repo, on = f["threshold"], safe_inline(f["repo"]), day_text(f["resolves_on"])
    origin = day_text(f["origin"])
    within = f"within {f['horizon_days']} days (by {on})"
    template = f["template"]
    if template in ("star_accel_reach", "star_accel_fall"):
        verb = "positive" if template == "star_accel_reach" else "negative"
        if x == 0:
            return f"Will {repo}'s 28-day star acceleration turn {verb} {within}?"
        reach = "reach" if template == "star_accel_reach" else "fall to"
        side = "or more" if template == "star_accel_reach" else "or less"
        return (
            f"Will {repo}'s 28-day star acceleration {reach} {num(x, signed=True)} "
            f"stars/day {side} on some day {within}?"
        )
    sentences = {
        "star_velocity_level": f"Will {repo}'s 28-day star velocity be above {num(x)} "
        f"stars/day on {on}?",
        "star_velocity_up": f"Will {repo}'s 28-day star velocity be above its {origin} value, "
        f"{num(x)} stars/day, on {on}?",
        "star_gain": f"Will {repo} gain at least {num(x, 0)} stars {within}?",
        "release_within": f"Will {repo} publish a release {within}?",
        "commit_velocity_up": f"Will {repo}'s 28-day commit velocity on {on} be above its "
        f"{origin} value, {num(x)} commits/day?",
        "rocm_share_reach": f"Will the share of {repo}'s mainline commits touching ROCm over "
        f"90 days reach {pct(x, 1)} {within}?",
        "rocm_release_mention": f"Will {repo} publish a release whose notes mention ROCm {within}?",
        "rocm_first_commit": f"Will {repo} land its first commit touching ROCm {within}?",
    }
    return sentences.get(template) or safe_inline(f.get("question") or template_words(template))


def _wider(widened: dict[str, float]) -> str:
    return "/".join(str(w) for w in sorted({round(100 * (w - 1)) for w in widened.values()}))


def regime_line(ctx: BriefingContext) -> Md | None:
    """The regime guard's line, only when it changed a forecast a card shows, naming which
    (a yes/no answer held towards its base rate, an 80% range widened)."""
    acted = regime_action(ctx)
    if acted is None:
        return None
    notice, held, widened = acted
    done = []
    if held:
        done.append(
            "held the answers on the cards of "
            + and_list([repo_link(r) for r in held])
            + f" closer to {USUAL_RATE}"
        )
    if widened:
        done.append(
            "made the 80% ranges on the cards of "
            + and_list([repo_link(r) for r in widened])
            + f" {_wider(widened)}% wider"
        )
    return Md(f"{notice}; so shu {' and '.join(done)}.")


# What a declared question is for, in plain words (no configuration file named: the reader of
# a forwarded note may have none).
DECLARED_MARK = (
    "A standing question for this repository: shu asks it every day, whatever the answer."
)


def _card(ctx: BriefingContext, choice: CardChoice) -> dict[str, Any]:
    first_receipt = len(ctx.book.receipts) + 1
    f, iv = choice.forecast, choice.interval
    head = choice.headline
    lead, iv_details = (
        ([], []) if iv is None else _split(interval_lead(ctx.store, ctx.book, head, ctx.said))
    )
    reading = velocity_reading(ctx.store, head)
    question = _question(ctx, f) if f is not None else None
    reasons, context, why_details = why_prediction(ctx, f, choice.repo, choice.kind)
    if f is not None:
        confidence, conf_details, word = why_confidence(ctx, f, choice.skilled)
    else:
        (confidence, conf_details), word = interval_confidence(ctx, head, choice.skilled), None
    used: set[tuple[str, int]] = set()
    topic = card_topic(ctx, choice.repo, choice.kind)
    topic_short = topic_lines(ctx, topic, used, short=True)
    answers, context_details = context_answers(ctx, choice.repo, head["template"], topic, used)
    topic_details = topic_lines(ctx, topic, used, short=False)
    marks = []
    if choice.declared:
        marks.append(Md(DECLARED_MARK))
    if f is None and choice.kind == "star":
        marks.append(Md("No yes/no question about it passed shu's bar today."))
    burst = _burst_line(ctx, f) if f is not None else None
    label = _reasons_label(f) if f is not None else ""
    card: dict[str, Any] = {
        "repo": choice.repo,
        "reading": reading,
        "heading": Md(
            f"{repo_link(choice.repo)} · {template_words(head['template'])} · "
            f"{head['horizon_days']} days"
        ),
        "question": question,
        "lead": (Md(f"{lead[0]}.") if f is not None else Md(f"**{lead[0]}**")) if lead else None,
        "confidence": confidence,
        "confidence_word": word,
        "chart": _chart(ctx, choice),
        "reasons": reasons,
        "details": [
            *[
                Md(f"**{label}:** {r.line()}" if i == 0 else str(r.line()))
                for i, r in enumerate(reasons)
            ],
            *([burst] if burst else []),
            *context,
            *why_details,
            *marks,
            *([Md(f"Why this question: {safe_inline(choice.why)}.")] if choice.why else []),
            *([] if choice.skilled else [Md(f"Skill: {safe_inline(choice.skill_reason)}.")]),
            *iv_details,
            *conf_details,
            *[Md(f"Topic: {line}") for line in topic_short],
            *topic_details,
            *[Md(f"Context: {line}") for line in answers],
            *context_details,
        ],
    }
    receipts = receipt_span(first_receipt, len(ctx.book.receipts))
    forecast = f"forecast {safe_code(head['forecast_id'])}"
    # the link between two varying words: no run of words repeats card to card
    card["footer"] = Md(
        f"*Receipts {receipts} · [why, and its chart]({'#' + slug_heading(MORE)}) · {forecast}*"
    )
    # on the page, in the summary that opens the card's details (plain text: no tag there)
    card["summary"] = (
        f"More on this card · receipts {receipts} · forecast {safe_inline(head['forecast_id'])}"
    )
    card["chart_markdown"] = Md(f"![{card['chart']['alt']}]({card['chart']['png']})")
    card["markdown"] = Md(card_markdown(card))
    card["page_markdown"] = Md(card_markdown(card, page=True))
    return card


# The appendix's heading over every card's reasons, chart and details.
MORE = "More on each card"


def slug_heading(heading: str) -> str:
    """The anchor a markdown renderer gives a heading ("More on each card" -> more-on-each-card)."""
    return "-".join(heading.lower().split())


# The templates asking whether the 28-day pace on the horizon day is above a threshold.
PACE_ON_DAY = frozenset({"star_velocity_up", "star_velocity_level"})


def _burst_line(ctx: BriefingContext, f: dict[str, Any]) -> Md | None:
    """On a card asking about the 28-day pace on its horizon day: the unusual gains today's pace
    carries that leave the window before that day, and what the pace of its other days means
    against the threshold (`story_words.burst_leaving_sentence`); None when there are none."""
    if f["template"] not in PACE_ON_DAY:
        return None
    story = next((s for s in ctx.stories if s.repo == f["repo"]), None)
    if story is None or str(story.day) != str(f["origin"])[:10]:
        return None
    return burst_leaving_sentence(
        ctx.store, ctx.book, story, date.fromisoformat(str(f["resolves_on"])[:10]), f["threshold"]
    )


def _reasons_label(f: dict[str, Any]) -> str:
    if f.get("base_rate") is None:
        return "Why" if f["probability"] >= 0.5 else "Why not"
    word = "more" if direction(f) > 0 else "less"
    # the usual rate in the label: four cards' "Why less likely than usual: The ..." would repeat
    return f"Why {word} likely than usual ({f['base_rate']:.0%})"


def card_markdown(card: dict[str, Any], page: bool = False) -> str:
    """The card's body as the section prints it (what `MAX_WORDS` is measured on): its heading,
    its question with its answer and the pace expected with its 80% range (one paragraph), how
    sure, and in the markdown its receipts with a link to its details in the appendix (on the
    HTML page they are in the summary of its details, which open below it)."""
    parts = [f"### {card['heading']}"]
    # one paragraph on the page, a line each in the markdown (a soft break)
    parts.append("\n".join(str(card[k]) for k in ("question", "lead") if card.get(k)))
    parts += [f"**How sure:** {line}" for line in card["confidence"]]
    if not page:
        parts.append(str(card["footer"]))
    return "\n\n".join(parts) + "\n"


def _split(lines: list[Md]) -> tuple[list[Md], list[Md]]:
    return lines[:1], lines[1:]


def _question(ctx: BriefingContext, f: dict[str, Any]) -> Md:
    key = {"forecast_id": f["forecast_id"]}
    r_p = ctx.book.row(
        "forecasts", key, "probability", f["probability"], f["origin"], f"{f['repo']} probability"
    )
    text = f"**{question_sentence(f)}** {pct(f['probability'])} yes"
    if f.get("base_rate") is not None:  # the number early: no run of words repeats card to card
        r_b = ctx.book.row(
            "forecasts", key, "base_rate", f["base_rate"], f["origin"], f"{f['repo']} base rate"
        )
        return Md(f"{text} (usually {pct(f['base_rate'])} for such questions) {ref(r_p, r_b)}.")
    return Md(f"{text} {ref(r_p)}; {USUAL_RATE} is not stored.")


def _chart(ctx: BriefingContext, choice: CardChoice) -> dict[str, Any]:
    if choice.kind == "rocm":
        path = ctx.out_dir / f"{ctx.as_of}-rocm-{slug(choice.repo)}.png"
        charts.rocm_chart(ctx.store, choice.headline, ctx.data_through, path)
        return {
            "png": path.name,
            "alt": f"{choice.repo}: ROCm share of mainline commits and the forecast",
        }
    path = ctx.out_dir / f"{ctx.as_of}-fan-{slug(choice.repo)}.png"
    _, _, title = fan_chart(
        ctx.store, choice.repo, ctx.data_through, path, HISTORY_DAYS, choice.forecast
    )
    return {"png": path.name, "alt": title}


def _forecast_row(f: dict[str, Any]) -> dict[str, Any]:
    interval = interval_text(f)
    return {
        "repo": f["repo"],
        "question": Md(
            f"{template_words(f['template'])}: "
            + (
                f"28-day pace on {day_text(f['resolves_on'])}"
                if interval
                else question_clause(f, "it")
            )
        ),
        "horizon": f["horizon_days"],
        "probability": Md(interval or pct(f["probability"])),
        "base_rate": Md(pct(f.get("base_rate"))),
        "confidence": "range" if interval else f["confidence"],
        "template": f["template"],
    }
