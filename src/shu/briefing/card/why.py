"""A card's reasons: the model's largest drivers in words, with the chance each leaves without
it, and the repository's signals, peers and releases on the data day.

The card shows up to `SHORT_DRIVERS` drivers, all pushing the answer the way it departs from the
base rate; the others (those pulling the other way said as such), and the signal, peer and
release context, go to its details (the HTML page's expandable part and the appendix). A driver
that cannot be a reason for departing from the base rate is never shown as one
(`context_only`): the feature the base rate is itself taken within, and those about the whole
store or the repository's peers rather than the repository.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from shu.briefing.context import BriefingContext
from shu.briefing.text import (
    cite_signal,
    day_text,
    days_text,
    lower_first,
    num,
    pct,
    ref,
    signal_receipt,
)
from shu.forecast.features.words import RADAR_STATEMENTS, StatementFacts, reads_up, statement
from shu.forecast.questions.registry import template as template_record
from shu.forecast.radar.statements import BUSIEST_DAY_ON_SQL, BUSIEST_DAY_SQL, STORE_WIDE
from shu.safe_markdown import Md, safe_inline
from shu.signals.reads import (
    CategoryMove,
    last_release_lift,
    latest_peer_signals,
    latest_release,
    latest_release_context,
    latest_star_signals,
)
from shu.signals.stories import Episode, Story

SHORT_DRIVERS = 3


@dataclass(frozen=True)
class Reason:
    """One driver of a forecast in words: what the feature says (with its receipt), how much it
    moved the chance (log-odds: positive raises it), and the chance with a typical value of it
    instead (the occlusion its contribution measures)."""

    text: Md
    contribution: float
    without: float
    feature: str = ""
    # the statement read on its own (`features.words.reads_up`): True says the pace is high or
    # rising, False low or falling, None neither
    reads: bool | None = None

    def line(self) -> Md:
        return Md(f"{self.text} — {pct(self.without)} had it been typical.")


def direction(f: dict[str, Any]) -> float:
    """Which way the answer departs from the base rate (log-odds; 0.5 without a base rate)."""
    base = f.get("base_rate")
    return _logit(f["probability"]) - _logit(0.5 if base is None else base)


def why_prediction(
    ctx: BriefingContext, f: dict[str, Any] | None, repo: str, kind: str
) -> tuple[list[Reason], list[Md], list[Md]]:
    """The card's reasons (shown), its context lines (shown) and its details, each number with
    its receipt. The shown reasons are the largest drivers (up to `SHORT_DRIVERS`) that push the
    answer the way it departs from the base rate, so together they add up to its direction; the
    drivers pulling the other way go to the details, said as such. `f` is the card's question
    (None: the card leads with the interval alone); `kind` "rocm" shows the repository's ROCm
    activity where a star card keeps its star signals in the details."""
    shown: list[Reason] = []
    context: list[Md] = []
    details: list[Md] = []
    if f is not None:
        reasons = driver_reasons(ctx, f)
        aside = context_only(f["template"])
        own = [r for r in reasons if r.feature not in aside]
        way = direction(f)
        along = [r for r in own if r.contribution * way > 0]
        against = [r for r in own if r.contribution * way <= 0]
        along, reads_other_way = _as_the_model_reads(f, along, way)
        shown = along[:SHORT_DRIVERS]
        details += [r.line() for r in along[SHORT_DRIVERS:]]
        details += [
            Md(
                "Counts towards the answer, though read on its own it points the other way: "
                f"{lower_first(r.line())}"
            )
            for r in reads_other_way
        ]
        details += [
            Md(f"Pulls the other way, less strongly: {lower_first(r.line())}") for r in against
        ]
        counted = [lower_first(r.line()).rstrip(".") for r in reasons if r.feature in aside]
        if counted:  # said once, however many there are
            details.append(Md(f"{COUNTED_TOO}: " + "; ".join(counted) + "."))
        if not reasons:
            details.append(Md("The model stored no drivers for this forecast."))
    if kind == "rocm":
        context += rocm_context(ctx, repo)
    else:
        (context if f is None else details).extend(_signal_context(ctx, repo))
    if f"context {repo}" not in ctx.said:  # a repository's second card: said on its first
        ctx.said.add(f"context {repo}")
        details += _peer_context(ctx, repo, ctx.categories)
        details += _release_context(ctx, repo)
    return shown, context, details


# What leads the drivers that are not the repository's own (about the whole store, or what the
# usual rate is already taken within), explained once above the cards' details.
COUNTED_TOO = "Counted too, not its own"


# Templates whose yes means a higher star pace, and those whose yes means a lower one: where a
# reason's reading (`Reason.reads`) can be set against the answer.
YES_IS_UP = frozenset({"star_velocity_up", "star_velocity_level", "star_accel_reach", "star_gain"})
YES_IS_DOWN = frozenset({"star_accel_fall"})
# Features the model reads against their face by their distance from the repository's usual
# level (a pace far above it tends to fall back, far below it to recover): a card says so.
RETURNS = frozenset(
    {
        "rel_velocity_7d",
        "rel_velocity_3d",
        "rel_acceleration_7d",
        "rel_acceleration_28d",
        "velocity_7d_z",
        "velocity_28d_z",
        "velocity_change_91d",
        "velocity_change_364d",
        "rel_velocity_vs_max_91d",
        "rel_velocity_28d_vs_90d",
    }
)


def reads_against(f: dict[str, Any], reason: Reason, way: float) -> bool:
    """Whether `reason`, read on its own, points the other way from the answer's departure from
    the base rate (`way`, log-odds): a pace below its usual level under "Why more likely than
    usual" (the radar leaves such a reason out for the same notion, `Driver.reads`)."""
    if reason.reads is None or way == 0:
        return False
    if f["template"] in YES_IS_UP:
        return reason.reads != (way > 0)
    if f["template"] in YES_IS_DOWN:
        return reason.reads != (way < 0)
    return False


def _as_the_model_reads(
    f: dict[str, Any], along: list[Reason], way: float
) -> tuple[list[Reason], list[Reason]]:
    """The reasons pushing the answer its way, each that reads the other way on its own said with
    how the model reads it (a pace likely to recover, or to fall back: `RETURNS`); and those
    reading the other way that the card cannot explain so (for the details)."""
    kept, aside = [], []
    for r in along:
        if not reads_against(f, r, way):
            kept.append(r)
        elif r.feature in RETURNS:
            # (five words: with the figure after them, no run of six repeats reason to reason)
            how = "ease" if r.reads else "recover"
            text = Md(f"{r.text}, read as likely to {how}")
            kept.append(Reason(text, r.contribution, r.without, r.feature, r.reads))
        else:
            aside.append(r)
    return kept, aside


def context_only(template: str) -> frozenset[str]:
    """The features a card does not give as reasons for its answer departing from the base
    rate: the one its base rate is taken within (the template's climatology buckets: the base
    rate already conditions on it, so it cannot explain a departure from it), and those about
    the whole store or the repository's peers (`radar.statements.STORE_WIDE`, which the radar
    leaves out for the same reason)."""
    buckets = template_record(template).buckets
    wide = {name for name, kind in RADAR_STATEMENTS.items() if kind in STORE_WIDE}
    return frozenset(wide | ({buckets[0]} if buckets else set()))


def rocm_context(ctx: BriefingContext, repo: str) -> list[Md]:
    """The repository's ROCm activity in the year to the data day, as query receipts."""
    act = ctx.rocm_activity(repo)
    r_c = ctx.book.query(
        "commits",
        act.commits_sql,
        act.params,
        act.commits,
        ctx.data_through,
        f"{repo} ROCm-touching commits in a year",
    )
    r_r = ctx.book.query(
        "releases",
        act.releases_sql,
        act.params,
        act.releases,
        ctx.data_through,
        f"{repo} releases mentioning ROCm in a year",
    )
    return [
        Md(
            f"In the year to {ctx.data_through}: {act.commits:,} ROCm-touching commits {ref(r_c)} "
            f"and {act.releases:,} releases whose notes mention ROCm {ref(r_r)}."
        )
    ]


def driver_reasons(ctx: BriefingContext, f: dict[str, Any]) -> list[Reason]:
    """One reason per stored driver the vocabulary can say, largest contribution first, each
    quoting the days and numbers behind it where it can (`statement_facts`)."""
    drivers = json.loads(f["drivers"] or "[]")
    facts, cited = statement_facts(ctx, f, {str(d.get("feature")) for d in drivers})
    out = []
    for d in drivers:
        name = str(d.get("feature"))
        value, r = _feature_receipt(ctx, f, name)
        number = _as_float(value if value is not None else d.get("value"))
        said = statement(name, number, f["template"], facts)
        contribution = _as_float(d.get("contribution"))
        if said is None or contribution is None:
            continue
        without = _expit(_logit(f["probability"]) - contribution)
        refs = ref(r, *cited.get(name, []))
        out.append(
            Reason(
                Md(f"{safe_inline(said)} {refs}"),
                contribution,
                without,
                name,
                reads_up(name, number),
            )
        )
    return sorted(out, key=lambda r: -abs(r.contribution))


def statement_facts(
    ctx: BriefingContext, f: dict[str, Any], names: set[str]
) -> tuple[StatementFacts, dict[str, list[int]]]:
    """What the drivers `names` of forecast `f` can quote beyond their values (which days a past
    week covers and when they are out of the window; the 28-day pace 28 days before and on the
    origin; the busiest of the last 28 days and its stars), and the receipts of those numbers by
    feature."""
    origin = date.fromisoformat(str(f["origin"])[:10])
    weeks = {}
    for lag in (7, 14, 21):  # a past week still in the window, and when it is out of it
        first, last = origin - timedelta(days=lag + 6), origin - timedelta(days=lag)
        out = last + timedelta(days=28)
        weeks[lag] = f"{days_text(first, last)} (out of the 28-day window by {day_text(out)})"
    cited: dict[str, list[int]] = {}
    pace = None
    if "rel_acceleration_28d" in names:
        then, now = (
            signal_receipt(
                ctx.store.con, ctx.book, f["repo"], origin - timedelta(days=28), "velocity_28d"
            ),
            signal_receipt(ctx.store.con, ctx.book, f["repo"], origin, "velocity_28d"),
        )
        if then[0] is not None and now[0] is not None:
            pace = (then[0], now[0])
            cited["rel_acceleration_28d"] = [then[1], now[1]]
    busiest = None
    if "max_day_share_28d" in names:
        params = [f["repo"], origin, origin]
        row = ctx.store.con.execute(BUSIEST_DAY_SQL, params).fetchone()
        when = ctx.store.con.execute(BUSIEST_DAY_ON_SQL, params).fetchone()
        if row and row[0] is not None and when and when[0] is not None:
            label = f"{f['repo']} busiest of the 28 days to {origin}"
            r_s = ctx.book.query("star_days", BUSIEST_DAY_SQL, params, row[0], origin, label)
            r_d = ctx.book.query(
                "star_days", BUSIEST_DAY_ON_SQL, params, when[0], origin, label + ": its day"
            )
            busiest = (day_text(when[0]), float(row[0]))
            cited["max_day_share_28d"] = [r_d, r_s]
    return StatementFacts(weeks=weeks, pace=pace, busiest=busiest), cited


def _feature_receipt(ctx: BriefingContext, f: dict[str, Any], name: str) -> tuple[Any, int]:
    features = json.loads(f["features"] or "{}")
    if name not in features:
        return None, 0
    value = features[name]
    return value, ctx.book.row(
        "forecasts",
        {"forecast_id": f["forecast_id"]},
        f"features.{name}",
        value,
        f["origin"],
        f"{f['repo']} feature {name}",
    )


def _as_float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _expit(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _signal_context(ctx: BriefingContext, repo: str) -> list[Md]:
    row = latest_star_signals(ctx.store.con, repo, ctx.data_through)
    if row is None:
        return [Md(f"No star signals are stored for {safe_inline(repo)} up to {ctx.data_through}.")]
    cite = {
        c: cite_signal(ctx.book, repo, row["day"], c, row[c])
        for c in ("stars", "velocity_28d", "acceleration_28d")
        if row[c] is not None
    }
    if "velocity_28d" not in cite:
        return [
            Md(
                f"{safe_inline(repo)}'s 28-day pace is undefined on {day_text(row['day'])} "
                "(a gap in the star data spans the window)."
            )
        ]
    text = (
        f"On {day_text(row['day'])} {safe_inline(repo)} had {num(row['stars'], 0)} stars "
        f"{ref(cite.get('stars', 0))}; its 28-day pace was {num(row['velocity_28d'], 1)} "
        f"stars/day {ref(cite['velocity_28d'])}"
    )
    if "acceleration_28d" in cite:
        text += (
            f" ({num(row['acceleration_28d'], 1, signed=True)} on the 28 days before "
            f"{ref(cite['acceleration_28d'])})"
        )
    return [Md(text + ".")]


def _peer_context(ctx: BriefingContext, repo: str, categories: list[CategoryMove]) -> list[Md]:
    category = ctx.settings.category_of(repo)
    move = next((c for c in categories if c.category == category), None)
    peers = [p for p in (move.members if move else []) if p != repo]
    parts = []
    for peer in peers:
        row = latest_star_signals(ctx.store.con, peer, ctx.data_through)
        if row is None or row["acceleration_28d"] is None:
            continue
        r = cite_signal(ctx.book, peer, row["day"], "acceleration_28d", row["acceleration_28d"])
        parts.append(f"{safe_inline(peer)} {num(row['acceleration_28d'], signed=True)} {ref(r)}")
    if not move or move.acceleration is None:
        return []
    r_cat = ctx.book.row(
        "category_signals",
        {"category": move.category, "day": ctx.data_through},
        "acceleration_28d_mean",
        move.acceleration,
        ctx.data_through,
        f"{move.category} mean acceleration_28d",
    )
    first = f"peers {category}" not in ctx.said  # the category's line: on its first card only
    ctx.said.add(f"peers {category}")
    text = "Peer context"
    if first:
        text += (
            f": the {safe_inline(category)} category's mean 28-day acceleration is "
            f"{num(move.acceleration, signed=True)} {ref(r_cat)}"
        )
        if parts:
            text += "; peers: " + ", ".join(parts)
    peer_row = latest_peer_signals(ctx.store.con, repo, ctx.data_through)
    if peer_row and peer_row.get("relative_acceleration_28d") is not None:
        key = {"repo": repo, "day": peer_row["day"]}
        r_rel = ctx.book.row(
            "peer_signals",
            key,
            "relative_acceleration_28d",
            peer_row["relative_acceleration_28d"],
            peer_row["day"],
            f"{repo} acceleration relative to peers",
        )
        r_rank = ctx.book.row(
            "peer_signals",
            key,
            "category_rank",
            peer_row["category_rank"],
            peer_row["day"],
            f"{repo} rank in category",
        )
        text += (
            f"{'; ' if first else ': '}{num(peer_row['relative_acceleration_28d'], signed=True)} "
            f"{ref(r_rel)} against its peers' mean, rank {peer_row['category_rank']} {ref(r_rank)} "
            f"of {peer_row['peers'] + 1}"
            + (" in the category" if first else f" in {safe_inline(category)}")
        )
    elif not first:
        return []
    return [Md(text + ".")]


def _release_context(ctx: BriefingContext, repo: str) -> list[Md]:
    rel = latest_release(ctx.store.con, repo, ctx.data_through)
    if rel is None:
        return [
            Md(
                f"Release context: no release of {safe_inline(repo)} is stored up to "
                f"{ctx.data_through}."
            )
        ]
    r = ctx.book.row(
        "releases",
        {"repo": repo, "tag": rel["tag"]},
        "published_at",
        rel["published_at"],
        rel["published_at"].date(),
        f"{repo} latest release",
    )
    days = (ctx.data_through - rel["published_at"].date()).days
    # each clause with a figure of its own within five words: no run repeats card to card
    text = (
        f"Release context: the latest release, {safe_inline(rel['tag'])}, was published on "
        f"{rel['published_at'].date()} {ref(r)}, {days} day{'s' if days != 1 else ''} before"
    )
    context = latest_release_context(ctx.store.con, repo, ctx.data_through)
    if context and context.get("median_interval_days") is not None:
        r_cad = ctx.book.row(
            "release_context",
            {"repo": repo, "day": context["day"]},
            "median_interval_days",
            context["median_interval_days"],
            context["day"],
            f"{repo} release cadence",
        )
        text += (
            f"; stable releases every {num(context['median_interval_days'], 0)} days (median) "
            f"{ref(r_cad)}"
        )
    lift = last_release_lift(ctx.store.con, repo, ctx.data_through)
    if lift is not None:
        r_lift = ctx.book.row(
            "release_signals",
            {"repo": repo, "tag": lift["tag"]},
            "star_lift",
            lift["star_lift"],
            lift["day"],
            f"{repo} {lift['tag']} star lift",
        )
        moved = (
            f"after {safe_inline(lift['tag'])}, {num(lift['star_lift'], signed=True)} stars/day "
            f"on the pace over 14 days against the 28 before {ref(r_lift)}"
        )
        story = next((s for s in ctx.stories if s.repo == repo), None)
        other = None if story is None else lift_cause(story, lift["tag"], lift["day"])
        if other is None:
            text += f"; {moved}"
        else:  # say what moved it: the release did not
            where = "before" if other.first < lift["day"] else "after"
            text += (
                f"; {moved}, because of the unusual gains of {days_text(other.first, other.last)} "
                f"in the days {where} it (see What moved), not the release"
            )
    return [Md(text + ".")]


def lift_cause(story: Story, tag: str, day: date) -> Episode | None:
    """The largest run of unusual days in the repository's story (a burst, a smaller run of spike
    days, a removal) inside the windows a release's star lift compares (the gains of the 28 days
    to the release day and of the 14 after it, `release_signals.star_lift`), other than a burst
    that followed this release: what moved the lift instead of the release; None when none."""
    first = day - timedelta(days=LIFT_BEFORE_DAYS - 1)
    last = day + timedelta(days=LIFT_AFTER_DAYS)
    inside = [
        e
        for e in story.unusual
        if e.first <= last and e.last >= first and (e.release is None or e.release[0] != tag)
    ]
    return max(inside, key=lambda e: abs(e.stars), default=None)


LIFT_BEFORE_DAYS, LIFT_AFTER_DAYS = 28, 14  # the windows `release_signals.star_lift` compares
