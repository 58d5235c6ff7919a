"""Composing the daily briefing from the store: title, forecast cards, evidence and track record.

`compose_briefing(store, day)` reads only what is stored (signals, forecasts, resolutions,
releases, commits, documents, probe runs), builds a view for the Jinja2 templates in
`shu/briefing/templates/`, writes `REPORTS/YYYY-MM-DD.md` with its charts, and records the
briefing and every receipt it cites in `briefings` / `briefing_receipts`. Re-running it for the
same day rewrites the same files and rows (idempotent).

Every number shown is either a stored value with a row receipt, or an aggregate with the SELECT
that reproduces it (a query receipt); quotations come from stored passages or release notes.
Outside text is rendered through `shu.briefing.safe`: the template environment escapes every
value that is not explicitly shu's own markdown (`Md`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import jinja2

from shu.briefing import card_charts as briefing_charts
from shu.briefing import facts as ev
from shu.briefing import html
from shu.briefing.answers import answered_sentences, question_subject
from shu.briefing.claims_section import claims_section
from shu.briefing.interval_card import interval_lead
from shu.briefing.safe import Md, safe_code, safe_inline, safe_link
from shu.briefing.summary import summary_rows
from shu.evidence import topics
from shu.evidence.receipts import ReceiptBook
from shu.evidence.retrieval import PassageIndex
from shu.forecast.interval import TEMPLATE as INTERVAL
from shu.settings import Settings, get_settings
from shu.store import Store, utcnow

TEMPLATE_PREFERENCE = ("star_accel_reach", "star_velocity_up", "star_gain",
                       "commit_velocity_up", "release_within")
BANDS = (("low", 0.5, 0.65), ("medium", 0.65, 0.80), ("high", 0.80, 1.0001))
TRACK_WINDOW_DAYS = 90
NOTICE_MAX_CHARS = 400  # a notice may quote outside text (an error message): keep it short
HEADLINE_DEPARTURE = 0.4  # log-odds between a forecast and its base rate to count as informative
QUANTITY_TERMS = {"star_accel_reach": "star acceleration", "star_velocity_up": "star velocity",
                  "star_gain": "star velocity", "commit_velocity_up": "commit velocity",
                  "release_within": "release", "star_accel_fall": "star acceleration",
                  "star_velocity_level": "star velocity"}
_NUMERIC = re.compile(r"-?[0-9][0-9.e+:T-]*")

FEATURE_LABELS = {
    "log_stars": "log of stars",
    "slog_velocity_28d": "signed log of the 28-day star velocity",
    "rel_velocity_7d": "7-day velocity / 28-day velocity",
    "rel_acceleration_7d": "7-day acceleration / 28-day velocity",
    "rel_acceleration_28d": "28-day acceleration / 28-day velocity",
    "velocity_7d_z": "7-day velocity z-score (trailing year)",
    "velocity_28d_z": "28-day velocity z-score (trailing year)",
    "rel_accel_sd_91d": "spread of acceleration over 91 days / velocity",
    "rel_accel_max_91d": "highest acceleration in 91 days / velocity",
    "rel_velocity_vs_max_91d": "velocity / its 91-day high",
    "velocity_change_91d": "relative change of velocity over 91 days",
    "velocity_change_364d": "relative change of velocity over a year",
    "log_star_growth_364d": "log star growth over a year",
    "history_years": "years of star history (capped at 3)",
    "coverage_91d": "share of the last 91 days with a velocity",
    "market_velocity_z": "median velocity z-score of all repositories",
    "market_rel_acceleration": "median relative acceleration of all repositories",
    "category_accelerating_share": "share of its category accelerating",
    "category_rel_acceleration": "its category's median relative acceleration",
    "phase_emerging": "lifecycle phase is emerging (0/1)",
    "phase_expansion": "lifecycle phase is expansion (0/1)",
    "phase_decline": "lifecycle phase is decline (0/1)",
    "months_since_release": "months since the last release",
    "releases_365d": "releases in the last year",
    "release_interval_ratio": "time since release / usual release interval",
    "slog_commit_velocity_28d": "signed log of the 28-day commit velocity",
    "rel_commit_acceleration_28d": "28-day commit acceleration / commit velocity",
    "rocm_share_28d": "share of ROCm-flagged commits (28 days)",
    "rel_velocity_7d_lag7": "7-day velocity a week earlier / 28-day velocity",
    "rel_velocity_7d_lag14": "7-day velocity two weeks earlier / 28-day velocity",
    "rel_velocity_7d_lag21": "7-day velocity three weeks earlier / 28-day velocity",
    "rel_median_gain_28d": "median daily stars over 28 days / 28-day velocity",
    "max_day_share_28d": "share of the 28 days' stars gained on the busiest day",
    "rel_velocity_3d": "3-day velocity / 28-day velocity",
    "gap_rel_velocity": "threshold minus acceleration, / velocity",
    "gap_rel_sd": "threshold minus acceleration, in 91-day spreads",
    "slog_threshold": "signed log of the threshold",
    "log_gain_vs_pace": "log of the star gain asked / the current pace",
    "log_level_vs_velocity": "log of the velocity asked / the current velocity",
}


@dataclass
class BriefingResult:
    """What `compose_briefing` wrote."""

    briefing_id: str
    path: Path
    title: str
    n_forecasts: int
    n_receipts: int
    charts: list[Path] = field(default_factory=list)
    stale_repos: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- formatting
def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    """A number for prose: thousands separators, fixed digits, '—' for missing."""
    if value is None:
        return "—"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and
                                  abs(value) >= 1000):
        return f"{int(value):+,}" if signed else f"{int(value):,}"
    return f"{value:+,.{digits}f}" if signed else f"{value:,.{digits}f}"


def pct(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def ref(*numbers: int) -> Md:
    """Receipt references as shown in the text, e.g. [R3, R7]."""
    unique = list(dict.fromkeys(n for n in numbers if n))
    return Md("[" + ", ".join(f"R{n}" for n in unique) + "]") if unique else Md("")


def band_of(probability: float) -> str:
    """Confidence band of max(p, 1 - p): low < 0.65 <= medium < 0.80 <= high."""
    sure = max(probability, 1 - probability)
    return next(name for name, lo, hi in BANDS if lo <= sure < hi)


def category_phrase(category: str) -> str:
    words = category.replace("_", "-").split("-")
    text = " ".join(w.capitalize() for w in words)
    return text if text.endswith("s") else text + "s"


# --------------------------------------------------------------------------- templates
def _finalize(value: Any) -> Any:
    """Every value printed by a template: shu's markdown as is, anything else escaped."""
    if isinstance(value, Md):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    return safe_inline(value)


def template_env() -> jinja2.Environment:
    """The Jinja2 environment: package templates, default-deny escaping via `finalize`."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("shu.briefing", "templates"),
        finalize=_finalize, autoescape=False, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["code"] = lambda value: Md(safe_code(value))  # identifiers, shown literally
    return env


# --------------------------------------------------------------------------- claim sentences
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


# --------------------------------------------------------------------------- composition
@dataclass
class _Context:
    store: Store
    settings: Settings
    day: date
    as_of: date
    book: ReceiptBook
    index: PassageIndex


def compose_briefing(store: Store, day: date | None = None, settings: Settings | None = None,
                     *, reports_dir: Path | None = None, synthetic: bool = False,
                     notices: list[str] | None = None) -> BriefingResult:
    """Write the briefing for `day` (default: the latest day with star signals) and record it.

    Args:
        store: an open, writable store.
        day: the briefing's day; data after it is never read.
        settings: tracked repositories, topics, reports_dir.
        reports_dir: where to write (default settings.reports_dir).
        synthetic: mark the briefing as built from the synthetic demo sample.
        notices: one-line notices shown at the top (e.g. "GitHub unreachable: …").
    """
    settings = settings or get_settings()
    tracked = [r.repo for r in settings.repos]
    as_of = ev.data_as_of(store, tracked, day)
    day = day or as_of or utcnow().date()
    as_of = as_of or day
    out_dir = Path(reports_dir or settings.reports_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    briefing_id = f"demo-{day}" if synthetic else str(day)
    ctx = _Context(store, settings, day, as_of, ReceiptBook(),
                   PassageIndex.from_store(store, as_of))

    stale = ev.stale_repos(store, tracked, day)
    categories = ev.category_accelerations(store, settings, as_of)
    title = _title(categories)
    forecasts = ev.latest_forecasts(store, tracked, day)
    headline = _headline(forecasts, tracked, settings)
    # ROCm adoption (forecast/rocm.py): one more card per repository with commit history.
    rocm_cards = _headline([f for f in forecasts if f["template"].startswith("rocm_")],
                           tracked, settings)
    cards = [_card(ctx, f, categories) for f in headline + rocm_cards]
    track = ev.track_record(store, day, TRACK_WINDOW_DAYS)

    from shu.briefing import charts

    velocity_png = out_dir / f"{day}-velocity.png"
    reliability_png = out_dir / f"{day}-reliability.png"
    charts.velocity_chart(store, [f["repo"] for f in headline] or tracked, as_of,
                          headline, velocity_png)
    charts.reliability_chart(track.pairs, reliability_png,
                             title=f"Reliability of resolved forecasts, {TRACK_WINDOW_DAYS} days "
                                   f"to {day}")
    comparisons = briefing_charts.category_charts(store, settings, as_of, out_dir, day)
    for card in cards:
        card["fan_png"], card["has_fan"] = briefing_charts.card_fan(store, card["repo"], as_of,
                                                                    out_dir, day)
    view = {
        "synthetic": synthetic,
        "title": title,
        "day": day,
        "as_of": as_of,
        "generated_at": utcnow().replace(microsecond=0),
        "notices": [Md(safe_inline(n, max_chars=NOTICE_MAX_CHARS)) for n in (notices or [])],
        "summary": summary_rows(store, ctx.book, tracked, headline, as_of, day, synthetic),
        "comparisons": comparisons,
        "stale": stale,
        "categories": [_category_line(ctx, c) for c in categories],
        "cards": cards,
        "other_forecasts": [_forecast_row(f) for f in forecasts
                            if f not in headline and f not in rocm_cards],
        "signals": [_signals_row(ctx, repo, stale) for repo in tracked],
        "probe": _probe_section(ctx),
        "claims": claims_section(ctx.store, ctx.book, ctx.as_of),
        "track": _track_section(ctx, track),
        "velocity_png": velocity_png.name,
        "reliability_png": reliability_png.name,
        "receipts": _receipt_rows(ctx.book),
        "model_versions": sorted({f["model_version"] for f in forecasts if f["model_version"]}),
    }
    markdown = template_env().get_template("briefing.md.j2").render(**view)
    path = out_dir / f"{day}.md"
    path.write_text(markdown, encoding="utf-8")
    html.write_html(path, title)
    html.write_index(out_dir)
    _record(ctx, briefing_id, path, title, markdown, len(cards), synthetic, stale)
    return BriefingResult(briefing_id, path, title, len(cards), len(ctx.book.receipts),
                          [velocity_png, reliability_png], [s["repo"] for s in stale])


def _title(categories: list[ev.CategoryMove]) -> str:
    moves = [c for c in categories if c.acceleration is not None]
    if not moves:
        return "No category-level movement measurable yet"
    moves.sort(key=lambda c: -abs(c.relative or 0.0))
    first = moves[0]
    if len(moves) == 1:
        return f"{category_phrase(first.category)} {first.verb}"
    second = moves[1]
    if first.verb == second.verb:
        return (f"{category_phrase(first.category)} and {category_phrase(second.category)} "
                f"{first.verb}")
    return (f"{category_phrase(first.category)} {first.verb} as "
            f"{category_phrase(second.category)} {second.verb}")


def _category_line(ctx: _Context, c: ev.CategoryMove) -> Md:
    if c.acceleration is None:
        return Md(f"**{safe_inline(c.category)}**: no acceleration measurable on {ctx.as_of}.")
    key = {"category": c.category, "day": ctx.as_of}
    r_acc = ctx.book.row("category_signals", key, "acceleration_28d_mean", c.acceleration,
                         ctx.as_of, f"{c.category} mean acceleration_28d")
    r_vel = ctx.book.row("category_signals", key, "velocity_28d_mean", c.velocity, ctx.as_of,
                         f"{c.category} mean velocity_28d")
    members = ", ".join(safe_inline(m) for m in c.members)
    return Md(f"**{safe_inline(c.category)}** ({members}) {c.verb.lower()}: mean 28-day "
              f"acceleration {num(c.acceleration, signed=True)} stars/day {ref(r_acc)} on a mean "
              f"28-day velocity of {num(c.velocity)} stars/day {ref(r_vel)}.")


def _headline(forecasts: list[dict[str, Any]], tracked: list[str],
              settings: Settings) -> list[dict[str, Any]]:
    """One forecast per tracked repository, among its star questions at the horizon nearest 30
    days (interval forecasts lead the card instead, see `interval_card`): the question whose
    answer is least known beforehand (fitting base rate nearest 0.5) among those where the model
    departs from that base rate by at least HEADLINE_DEPARTURE in log-odds; when none departs,
    the largest departure. Without a model card, the first template in TEMPLATE_PREFERENCE."""
    chosen = []
    for repo in tracked:
        mine = [f for f in forecasts if f["repo"] == repo and f["template"] != INTERVAL]
        if not mine:
            continue
        nearest = min(abs(f["horizon_days"] - 30) for f in mine)
        candidates = [f for f in mine if abs(f["horizon_days"] - 30) == nearest]
        stars = [f for f in candidates if f["template"].startswith("star_")] or candidates

        def rank(f: dict[str, Any]) -> tuple:
            base = ev.fit_base_rate(settings, f["template"], f["horizon_days"],
                                    f["model_version"])
            departure = abs(_logit(f["probability"]) - _logit(base.rate)) if base else 0.0
            uncertainty = abs(base.rate - 0.5) if base else 0.5
            preference = (TEMPLATE_PREFERENCE.index(f["template"])
                          if f["template"] in TEMPLATE_PREFERENCE else len(TEMPLATE_PREFERENCE))
            return (departure < HEADLINE_DEPARTURE, uncertainty if departure >=
                    HEADLINE_DEPARTURE else -departure, preference, f["forecast_id"])

        chosen.append(min(stars, key=rank))
    return chosen


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _forecast_text(f: dict[str, Any]) -> str | None:
    """An interval forecast's median and 80% interval (it is stored with p = 0.8, which is not
    a probability of anything); None for the other templates."""
    if f["template"] != INTERVAL or f["median"] is None:
        return None
    return f"median {num(f['median'])}, 80%: {num(f['lower_80'])}–{num(f['upper_80'])}"


def _forecast_row(f: dict[str, Any]) -> dict[str, Any]:
    interval = _forecast_text(f)
    return {"repo": f["repo"], "template": f["template"], "horizon": f["horizon_days"],
            "threshold": Md(num(f["threshold"], signed=f["template"] == "star_accel_reach")),
            "probability": Md(interval or pct(f["probability"])),
            "confidence": "interval" if interval else f["confidence"], "id": f["forecast_id"]}


# --------------------------------------------------------------------------- forecast card
def _card(ctx: _Context, f: dict[str, Any], categories: list[ev.CategoryMove]) -> dict[str, Any]:
    topic = topics.attribute_topic(ctx.store, ctx.settings, ctx.index, f["repo"], ctx.as_of)
    first_receipt = len(ctx.book.receipts) + 1
    card = {
        "lead": ([] if f["template"].startswith("rocm_")  # star interval leads star cards
                 else interval_lead(ctx.store, ctx.book, f)),
        "claim": claim_sentence(f),
        "repo": f["repo"],
        "template": f["template"],
        "forecast_id": f["forecast_id"],
        "why_prediction": _why_prediction(ctx, f, categories),
        "why_confidence": _why_confidence(ctx, f),
        "topic_evidence": _topic_lines(ctx, topic),
        "context": _context_answers(ctx, f, topic),
        "horizon": f["horizon_days"],
        "confidence": f["confidence"] or band_of(f["probability"]),
        "topic": topic.name if topic and topic.asserted else None,
    }
    card["receipts"] = list(range(first_receipt, len(ctx.book.receipts) + 1))
    return card


def _feature_receipt(ctx: _Context, f: dict[str, Any], name: str) -> tuple[Any, int]:
    features = json.loads(f["features"] or "{}")
    if name not in features:
        return None, 0
    value = features[name]
    return value, ctx.book.row("forecasts", {"forecast_id": f["forecast_id"]},
                               f"features.{name}", value, f["origin"],
                               f"{f['repo']} feature {name}")


def _why_prediction(ctx: _Context, f: dict[str, Any],
                    categories: list[ev.CategoryMove]) -> list[Md]:
    lines: list[Md] = []
    r_prob = ctx.book.row("forecasts", {"forecast_id": f["forecast_id"]}, "probability",
                          f["probability"], f["origin"], f"{f['repo']} probability")
    drivers = json.loads(f["drivers"] or "[]")
    if drivers:
        parts = []
        for d in drivers[:4]:
            name = str(d.get("feature"))
            value, r = _feature_receipt(ctx, f, name)
            shown = value if value is not None else d.get("value")
            label = FEATURE_LABELS.get(name, name)
            contribution = d.get("contribution")
            direction = "towards yes" if (contribution or 0) > 0 else "towards no"
            parts.append(f"{safe_inline(label)} ({safe_code(name)}) = "
                         f"{num(_as_float(shown))} {ref(r)} pushed {direction} "
                         f"({num(_as_float(contribution), 2, signed=True)} log-odds)")
        lines.append(Md(f"The model gives {pct(f['probability'])} {ref(r_prob)} for yes; its "
                        "largest drivers: " + "; ".join(parts) + "."))
    else:
        lines.append(Md(f"The model gives {pct(f['probability'])} {ref(r_prob)} for yes; it "
                        "stored no drivers for this forecast."))
    base = ev.fit_base_rate(ctx.settings, f["template"], f["horizon_days"], f["model_version"])
    if base is not None:
        r_base = ctx.book.file(base.card_path, base.pointer, base.rate, None,
                               f"{f['template']}/{f['horizon_days']} fitting base rate")
        lines.append(Md(f"Against the base rate: {pct(base.rate)} {ref(r_base)} of the "
                        f"{safe_code(f['template'])} questions at {f['horizon_days']} days the "
                        "model was fitted on resolved yes; the drivers above move this one to "
                        f"{pct(f['probability'])}."))
    lines.extend(_signal_context(ctx, f["repo"]))
    lines.extend(_peer_context(ctx, f["repo"], categories))
    lines.extend(_release_context(ctx, f["repo"]))
    return lines


def _as_float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _signal_context(ctx: _Context, repo: str) -> list[Md]:
    row = ev.latest_row(ctx.store, "star_signals", repo, ctx.as_of)
    if row is None:
        return [Md(f"No star signals are stored for {safe_inline(repo)} up to {ctx.as_of}.")]
    key = {"repo": repo, "day": row["day"]}
    cite = {c: ctx.book.row("star_signals", key, c, row[c], row["day"], f"{repo} {c}")
            for c in ("stars", "velocity_28d", "acceleration_28d") if row[c] is not None}
    if "velocity_28d" not in cite:
        return [Md(f"{safe_inline(repo)}'s 28-day velocity is undefined on {row['day']} "
                   "(a gap in the star data spans the window).")]
    text = (f"On {row['day']} {safe_inline(repo)} had {num(row['stars'])} stars "
            f"{ref(cite.get('stars', 0))}, a 28-day velocity of {num(row['velocity_28d'])} "
            f"stars/day {ref(cite['velocity_28d'])}")
    if "acceleration_28d" in cite:
        text += (f" and a 28-day acceleration of {num(row['acceleration_28d'], signed=True)} "
                 f"{ref(cite['acceleration_28d'])}")
    return [Md(text + ".")]


def _peer_context(ctx: _Context, repo: str, categories: list[ev.CategoryMove]) -> list[Md]:
    category = ctx.settings.category_of(repo)
    move = next((c for c in categories if c.category == category), None)
    peers = [p for p in (move.members if move else []) if p != repo]
    parts = []
    for peer in peers:
        row = ev.latest_row(ctx.store, "star_signals", peer, ctx.as_of)
        if row is None or row["acceleration_28d"] is None:
            continue
        r = ctx.book.row("star_signals", {"repo": peer, "day": row["day"]}, "acceleration_28d",
                         row["acceleration_28d"], row["day"], f"{peer} acceleration_28d")
        parts.append(f"{safe_inline(peer)} {num(row['acceleration_28d'], signed=True)} {ref(r)}")
    if not move or move.acceleration is None:
        return []
    r_cat = ctx.book.row("category_signals", {"category": move.category, "day": ctx.as_of},
                         "acceleration_28d_mean", move.acceleration, ctx.as_of,
                         f"{move.category} mean acceleration_28d")
    text = (f"Peer context: the {safe_inline(category)} category's mean 28-day acceleration is "
            f"{num(move.acceleration, signed=True)} {ref(r_cat)}")
    if parts:
        text += "; peers: " + ", ".join(parts)
    peer = ev.latest_row(ctx.store, "peer_signals", repo, ctx.as_of)
    if peer and peer.get("relative_acceleration_28d") is not None:
        key = {"repo": repo, "day": peer["day"]}
        r_rel = ctx.book.row("peer_signals", key, "relative_acceleration_28d",
                             peer["relative_acceleration_28d"], peer["day"],
                             f"{repo} acceleration relative to peers")
        r_rank = ctx.book.row("peer_signals", key, "category_rank", peer["category_rank"],
                              peer["day"], f"{repo} rank in category")
        text += (f"; relative to its peers' mean it is "
                 f"{num(peer['relative_acceleration_28d'], signed=True)} {ref(r_rel)}, rank "
                 f"{peer['category_rank']} {ref(r_rank)} of {peer['peers'] + 1} in the category")
    return [Md(text + ".")]


def _release_context(ctx: _Context, repo: str) -> list[Md]:
    rel = ev.latest_release(ctx.store, repo, ctx.as_of)
    if rel is None:
        return [Md(f"Release context: no release of {safe_inline(repo)} is stored up to "
                   f"{ctx.as_of}.")]
    r = ctx.book.row("releases", {"repo": repo, "tag": rel["tag"]}, "published_at",
                     rel["published_at"], rel["published_at"].date(), f"{repo} latest release")
    days = (ctx.as_of - rel["published_at"].date()).days
    text = (f"Release context: the latest release, {safe_inline(rel['tag'])}, was published on "
            f"{rel['published_at'].date()} {ref(r)}, {days} day{'s' if days != 1 else ''} "
            f"before {ctx.as_of}")
    context = ev.latest_row(ctx.store, "release_context", repo, ctx.as_of)
    if context and context.get("median_interval_days") is not None:
        r_cad = ctx.book.row("release_context", {"repo": repo, "day": context["day"]},
                             "median_interval_days", context["median_interval_days"],
                             context["day"], f"{repo} release cadence")
        text += (f"; its stable releases come every {num(context['median_interval_days'], 0)} "
                 f"days (median) {ref(r_cad)}")
    lift = ev.last_release_lift(ctx.store, repo, ctx.as_of)
    if lift is not None:
        r_lift = ctx.book.row("release_signals", {"repo": repo, "tag": lift["tag"]},
                              "star_lift", lift["star_lift"], lift["day"],
                              f"{repo} {lift['tag']} star lift")
        text += (f"; after {safe_inline(lift['tag'])} star velocity moved "
                 f"{num(lift['star_lift'], signed=True)} stars/day over the 14 days after it "
                 f"against the 28 before {ref(r_lift)}")
    return [Md(text + ".")]


def _why_confidence(ctx: _Context, f: dict[str, Any]) -> list[Md]:
    p = f["probability"]
    band = f["confidence"] or band_of(p)
    side = "yes" if p >= 0.5 else "no"
    r_conf = ctx.book.row("forecasts", {"forecast_id": f["forecast_id"]}, "confidence",
                          f["confidence"], f["origin"], f"{f['repo']} confidence band")
    lo, hi = next((lo, hi) for name, lo, hi in BANDS if name == band)
    lines = [Md(f"The model says **{side}** with {pct(max(p, 1 - p))}: the **{band}** band "
                f"({lo:.2f} ≤ max(p, 1 − p) < {min(hi, 1.0):.2f}) {ref(r_conf)}.")]
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


def _backtest_receipt(ctx: _Context, backtest: ev.BandRate) -> int:
    return ctx.book.file(backtest.card_path, backtest.pointer, backtest.hit_rate, None,
                         "backtest hit rate (model card)")


# --------------------------------------------------------------------------- topics & context
def _topic_lines(ctx: _Context, topic: topics.TopicEvidence | None) -> list[Md]:
    if topic is None:
        return [Md("No configured topic has evidence for this repository; none is asserted.")]
    lines = []
    for item in topic.items:
        refs = [_cite_evidence(ctx, c) for c in item.citations]
        lines.append(Md(item.text + " " + ref(*refs)))
    if not topic.asserted:
        lines.append(Md(f"Evidence for {safe_inline(topic.name)} is below the bar "
                        f"({safe_inline(topic.reason)}); the topic is not asserted."))
    return lines


def _cite_evidence(ctx: _Context, c: topics.Citation) -> int:
    if c.kind == "row":
        return ctx.book.row(c.table, c.key, c.column, c.value, c.as_of, c.label)
    if c.kind == "quote":
        return ctx.book.quote(c.table, c.key, c.column, c.value, c.as_of, c.label)
    if c.kind == "query":
        return ctx.book.query(c.table, c.sql, c.params, c.value, c.as_of, c.label)
    return ctx.book.passage(c.key["doc_id"], c.key["passage_no"], c.value, title=c.title,
                            location=c.location, published_on=c.as_of, label=c.label)


def _context_answers(ctx: _Context, f: dict[str, Any],
                     topic: topics.TopicEvidence | None) -> list[dict[str, Any]]:
    repo = f["repo"]
    short = repo.split("/")[-1]
    quantity = QUANTITY_TERMS.get(f["template"], "star velocity")
    if topic and topic.asserted:
        term = topic.term
        questions = [
            ("WHAT", f"What is {term}?", f"{term} {short}"),
            ("WHY IT MATTERED", f"Why has {term} mattered for {short}?",
             f"{term} {short} performance support adoption"),
            ("WHY NOW", f"What recent activity ties {repo} to {term}?",
             f"{term} {short} release new"),
            ("TERM", f"What does '{term}' mean here?", f"{term} means platform software"),
        ]
    else:
        questions = [
            ("WHAT", f"What is {short}?", f"{short}"),
            ("WHY IT MATTERED", f"Why does {short} matter to its users?", f"{short} users"),
            ("WHY NOW", f"What explains {repo}'s current pace?",
             f"{short} release attention stars"),
            ("TERM", f"What does '{quantity}' measure?", f"{quantity} measure"),
        ]
    out: list[dict[str, Any]] = []
    unanswered: list[str] = []
    for label, question, query in questions:
        answer = ctx.index.answer(query)
        sentences = answered_sentences(answer, question_subject(label, repo, topic, quantity))
        refs = []
        for sentence in sentences:
            hit = next(c for c in answer.citations if sentence in c.text or
                       sentence.rstrip("…") in " ".join(c.text.split()))
            refs.append(ctx.book.passage(hit.doc_id, hit.passage_no, sentence.rstrip("…"),
                                         title=hit.title, location=hit.location,
                                         published_on=hit.published_on,
                                         label=f"{repo} {label.lower()}"))
        text = ""
        if sentences:
            text = " ".join(f"“{safe_inline(s)}”" for s in sentences) + " " + ref(*refs)
        if label == "WHY NOW" and topic is not None:
            recent = [i for i in topic.items if i.kind in ("release", "commits")]
            for item in recent[:2]:
                text += " " + item.text + " " + ref(*[_cite_evidence(ctx, c)
                                                      for c in item.citations])
        if not text.strip():
            unanswered.append(question)
            continue
        out.append({"label": label, "question": question, "answer": Md(text.strip())})
    if unanswered:
        out.append({"label": "NO ANSWER", "question": "",
                    "answer": Md("The corpus has no passage answering: "
                                 + "; ".join(safe_inline(q) for q in unanswered))})
    out.append({"label": "LANDSCAPE", "question": f"Where does {repo} stand among its peers?",
                "answer": _landscape(ctx, repo)})
    out.append({"label": "LIFECYCLE", "question": f"Which phase is {repo} in?",
                "answer": _lifecycle(ctx, repo)})
    return out


def _landscape(ctx: _Context, repo: str) -> Md:
    category = ctx.settings.category_of(repo)
    rows = []
    for peer in [r.repo for r in ctx.settings.repos if r.category == category]:
        row = ev.latest_row(ctx.store, "star_signals", peer, ctx.as_of)
        if row is None or row["velocity_28d"] is None:
            continue
        r = ctx.book.row("star_signals", {"repo": peer, "day": row["day"]}, "velocity_28d",
                         row["velocity_28d"], row["day"], f"{peer} velocity_28d")
        rows.append((row["velocity_28d"], f"{safe_inline(peer)} {num(row['velocity_28d'])} "
                                          f"stars/day {ref(r)}"))
    if len(rows) < 2:
        return Md(f"From signals: {safe_inline(repo)} has no other tracked peer with a "
                  f"measurable 28-day velocity in the {safe_inline(category or 'unset')} "
                  "category.")
    rows.sort(key=lambda r: -r[0])
    return Md(f"From signals, 28-day star velocity in the {safe_inline(category)} category on "
              f"{ctx.as_of}: " + "; ".join(r[1] for r in rows) + ".")


def _lifecycle(ctx: _Context, repo: str) -> Md:
    phase = ev.lifecycle_phase(ctx.store, repo, ctx.as_of)
    if phase is None:
        return Md("From signals: no lifecycle phase is stored for this repository yet.")
    r = ctx.book.row(phase.table, phase.key, phase.column, phase.phase, phase.day,
                     f"{repo} lifecycle phase")
    return Md(f"From signals: **{safe_inline(phase.phase)}** on {phase.day} {ref(r)}"
              + (f" ({safe_inline(phase.why)})" if phase.why else "") + ".")


# --------------------------------------------------------------------------- tables & sections
def _signals_row(ctx: _Context, repo: str, stale: list[dict[str, Any]]) -> dict[str, Any]:
    star = ev.latest_row(ctx.store, "star_signals", repo, ctx.as_of) or {}
    commit = ev.latest_row(ctx.store, "commit_signals", repo, ctx.as_of) or {}
    phase = ev.lifecycle_phase(ctx.store, repo, ctx.as_of)
    rel = ev.latest_release(ctx.store, repo, ctx.as_of)
    stale_row = next((s for s in stale if s["repo"] == repo), None)
    return {
        "repo": repo,
        "category": ctx.settings.category_of(repo) or "",
        "day": star.get("day"),
        "stars": Md(num(star.get("stars"))),
        "velocity_7d": Md(num(star.get("velocity_7d"))),
        "velocity_28d": Md(num(star.get("velocity_28d"))),
        "acceleration_28d": Md(num(star.get("acceleration_28d"), signed=True)),
        "z": Md(num(star.get("velocity_28d_z"), signed=True)),
        "commits_28d": Md(num(commit.get("velocity_28d"))),
        "rocm_share": Md(pct(commit.get("rocm_share_28d"), 1)),
        "phase": phase.phase if phase else "—",
        "peer_rank": Md(f"{peer['category_rank']}/{peer['peers'] + 1}") if (
            peer := ev.latest_row(ctx.store, "peer_signals", repo, ctx.as_of)) and
        peer.get("category_rank") is not None else Md("—"),
        "last_release": (Md(f"{safe_inline(rel['tag'])} ({rel['published_at'].date()})")
                         if rel else Md("—")),
        "stale": (Md("**stale** (never observed)" if stale_row["last_day"] == "never" else
                     f"**stale** (last observed {stale_row['last_day']})") if stale_row
                  else Md("")),
    }


def _probe_section(ctx: _Context) -> dict[str, Any]:
    runs = ev.latest_probe_runs(ctx.store)
    out_runs = []
    for run in runs:
        r = ctx.book.row("probe_runs", {"run_id": run["run_id"]}, "geomean_speedup",
                         run["geomean_speedup"], run["started_at"].date() if run["started_at"]
                         else None, f"probe {run['backend']} geomean")
        started = run["started_at"].date() if run["started_at"] else None
        out_runs.append({
            "after_day": started is not None and started > ctx.day,
            "backend": run["backend"], "device": run["device_name"],
            "started": run["started_at"], "suite": run["suite"],
            "geomean": Md(f"{num(run['geomean_speedup'])}× {ref(r)}"),
            "clipped": Md(f"{num(run['geomean_speedup_clipped'])}×"),
            "pass_rate": Md(pct(run["pass_rate"])),
            "kernels": [{"kernel": k["kernel"], "valid": "yes" if k["is_valid"] else "no",
                         "eager": Md(num(k["eager_ms"], 3)),
                         "compiled": Md(num(k["compiled_ms"], 3)),
                         "speedup": Md(num(k["speedup"]) + "×")}
                        for k in ev.probe_kernels(ctx.store, run["run_id"])],
        })
    claims = []
    for claim in ev.claim_checks(ctx.store):
        refs = [_cite_evidence(ctx, c) for c in claim.citations]
        claims.append({"claim": claim.claim, "verdict": claim.verdict,
                       "numbers": Md(safe_inline(claim.numbers) + " " + ref(*refs))})
    return {"runs": out_runs, "claims": claims,
            "max_age_days": ctx.settings.probe_max_age_days}


def _track_section(ctx: _Context, track: ev.TrackRecord) -> dict[str, Any]:
    resolved = []
    for row in track.since_last:
        r = ctx.book.row("forecast_resolutions", {"forecast_id": row["forecast_id"]}, "outcome",
                         row["outcome"], row["resolved_at"].date(), "resolution")
        interval = _forecast_text(row)
        outcome = safe_inline(row["outcome"])
        if interval:
            outcome = {"yes": "inside 80%", "no": "outside 80%"}.get(row["outcome"], outcome)
        resolved.append({"repo": row["repo"], "template": row["template"],
                         "horizon": row["horizon_days"],
                         "origin": f"{row['origin']}{' (replayed)' if row['replayed'] else ''}",
                         "forecast": Md(interval or pct(row["probability"])),
                         "outcome": Md(f"{outcome} {ref(r)}"),
                         "observed": Md(num(row["observed_value"]))})
    metrics = None
    if track.n:
        r_n = ctx.book.query("forecast_resolutions", track.n_sql, track.params, track.n,
                             ctx.day, "resolved forecasts in window")
        r_b = ctx.book.query("forecast_resolutions", track.brier_sql, track.params, track.brier,
                             ctx.day, "rolling Brier")
        r_c = ctx.book.query("forecast_resolutions", track.base_sql, track.params,
                             track.base_rate, ctx.day, "climatology base rate")
        metrics = {
            "n": Md(f"{track.n:,} {ref(r_n)}"),
            "n_void": track.n_void,
            "brier": Md(f"{track.brier:.3f} {ref(r_b)}"),
            "base_rate": Md(f"{pct(track.base_rate, 1)} {ref(r_c)}"),
            "climatology_brier": Md(f"{track.climatology_brier:.3f}"),
            "skill": Md(num(track.skill, 3, signed=True)),
            "ece": Md(f"{track.ece:.3f}"),
            "bands": [{"band": b, "n": n, "hit_rate": Md(pct(h))} for b, n, h in track.bands],
        }
    intervals = None
    if track.intervals:
        iv = track.intervals
        r_n = ctx.book.query("interval_resolutions", iv.n_sql, track.params, iv.n, ctx.day,
                             "resolved interval forecasts in window")
        intervals = {"n": Md(f"{iv.n:,} {ref(r_n)}"), "levels": [
            {"nominal": f"{level}%", "observed": Md(pct(iv.coverage[level], 1) + " " + ref(
                ctx.book.query("interval_resolutions", iv.coverage_sql[level], track.params,
                               iv.coverage[level], ctx.day,
                               f"observed coverage of the {level}% intervals")))}
            for level in ev.INTERVAL_LEVELS]}
    return {"since": track.since, "resolved": resolved, "metrics": metrics,
            "intervals": intervals, "window_days": TRACK_WINDOW_DAYS,
            "n_void": track.n_void, "n_replayed": track.n_replayed}


def _receipt_rows(book: ReceiptBook) -> list[dict[str, Any]]:
    rows = []
    for number, receipt in enumerate(book.receipts, start=1):
        shown = book.display.get(number, {})
        if receipt.kind == "passage":
            where = shown.get("location")
            title = safe_link(shown.get("title") or where, _link_target(where))
            if where and not _link_target(where):
                title += f" · {safe_inline(_display_path(where))}"
            rows.append({"no": number, "kind": "document", "what": Md(
                f"{title} · {shown.get('published_on') or 'undated'} · passage "
                f"{dict(receipt.key)['passage_no']}: “{safe_inline(receipt.value, 300)}”")})
        elif receipt.kind == "file":
            pointer = " → ".join(json.dumps(p) if isinstance(p, dict) else str(p)
                                 for p in json.loads(dict(receipt.key)["pointer"]))
            rows.append({"no": number, "kind": "model card", "what": Md(
                f"{safe_inline(receipt.label)} = `{receipt.value}` · "
                f"{safe_inline(_display_path(receipt.table))} · {safe_inline(pointer)}")})
        elif receipt.kind == "query":
            sql = dict(receipt.key)["sql"]
            params = ", ".join(map(str, dict(receipt.key)["params"]))
            rows.append({"no": number, "kind": "query", "what": Md(
                f"{safe_inline(receipt.label)} = `{receipt.value}` from `{receipt.table}` · as of "
                f"{receipt.as_of or '—'} · `{_code(sql)}` with ({safe_inline(params)})")})
        else:
            key = ", ".join(f"{k}={v}" for k, v in receipt.key)
            value = (f"`{receipt.value}`" if _NUMERIC.fullmatch(receipt.value)
                     else safe_inline(receipt.value, 300))
            rows.append({"no": number, "kind": "row" if receipt.kind == "row" else "quote",
                         "what": Md(f"`{receipt.table}` · {safe_inline(key)} · "
                                    f"{safe_inline(receipt.column)} = "
                                    + (f"“{value}”" if receipt.kind == "quote" else value)
                                    + f" · as of {receipt.as_of or '—'}")})
    return rows


def _code(text: str) -> str:
    """Our own SQL inside a code span (backticks removed so the span cannot break)."""
    return re.sub(r"\s+", " ", text.replace("`", "'")).strip()


def _display_path(location: str) -> str:
    """A stored document path relative to the working directory when it lies under it."""
    path = Path(location)
    try:
        return str(path.relative_to(Path.cwd())) if path.is_absolute() else location
    except ValueError:
        return location


def _link_target(location: str | None) -> str | None:
    if not location:
        return None
    if location.startswith(("http://", "https://")):
        return location
    return None


def _record(ctx: _Context, briefing_id: str, path: Path, title: str, markdown: str,
            n_cards: int, synthetic: bool, stale: list[dict[str, Any]]) -> None:
    import pandas as pd

    receipts = pd.DataFrame([{
        "briefing_id": briefing_id, "receipt_no": i, "kind": r.kind, "table_name": r.table,
        "row_key": r.key_json, "column_name": r.column, "value": r.value, "as_of": r.as_of,
        "label": r.label} for i, r in enumerate(ctx.book.receipts, start=1)],
        columns=["briefing_id", "receipt_no", "kind", "table_name", "row_key", "column_name",
                 "value", "as_of", "label"])
    receipts["as_of"] = pd.to_datetime(receipts["as_of"]).dt.date
    briefing = pd.DataFrame([{
        "briefing_id": briefing_id, "day": ctx.day, "title": title, "path": str(path),
        "content_hash": hashlib.sha256(markdown.encode()).hexdigest(), "n_forecasts": n_cards,
        "is_synthetic": synthetic, "generated_at": utcnow(), "data_as_of": ctx.as_of,
        "stale_repos": [s["repo"] for s in stale]}])
    with ctx.store.transaction():
        ctx.store.con.execute("DELETE FROM briefing_receipts WHERE briefing_id = ?",
                              [briefing_id])
        if len(receipts):
            ctx.store.upsert("briefing_receipts", receipts)
        ctx.store.upsert("briefings", briefing)
