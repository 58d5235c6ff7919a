"""A card's "Why this prediction": the model's probability and its largest drivers, the base
rate it departs from, and the repository's signals, peers and releases on the data day."""

from __future__ import annotations

import json
from typing import Any

from shu.briefing import facts as ev
from shu.briefing.context import BriefingContext
from shu.briefing.safe import Md, safe_code, safe_inline
from shu.briefing.text import num, pct, ref

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



def _feature_receipt(ctx: BriefingContext, f: dict[str, Any],
                     name: str) -> tuple[Any, int]:
    features = json.loads(f["features"] or "{}")
    if name not in features:
        return None, 0
    value = features[name]
    return value, ctx.book.row("forecasts", {"forecast_id": f["forecast_id"]},
                               f"features.{name}", value, f["origin"],
                               f"{f['repo']} feature {name}")


def why_prediction(ctx: BriefingContext, f: dict[str, Any],
                   categories: list[ev.CategoryMove]) -> list[Md]:
    """The card's "Why this prediction" lines, each number with its receipt."""
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


def _signal_context(ctx: BriefingContext, repo: str) -> list[Md]:
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


def _peer_context(ctx: BriefingContext, repo: str,
                  categories: list[ev.CategoryMove]) -> list[Md]:
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


def _release_context(ctx: BriefingContext, repo: str) -> list[Md]:
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
