"""The "What moved" section: each configured category's mean 28-day acceleration and velocity,
the chart of the headline repositories' velocity and acceleration (with their forecast
thresholds), and one velocity comparison chart per category."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from shu.briefing import charts
from shu.briefing.charts import HISTORY_DAYS, slug
from shu.briefing.compare import compare_chart, compare_frame
from shu.briefing.context import BriefingContext, Part
from shu.briefing.facts import CategoryMove
from shu.briefing.text import num, ref
from shu.safe_markdown import Md, safe_inline


def build(ctx: BriefingContext) -> Part:
    """The category lines and the section's charts (written beside the markdown)."""
    velocity_png = ctx.out_dir / f"{ctx.day}-velocity.png"
    charts.velocity_chart(
        ctx.store,
        [f["repo"] for f in ctx.headline] or ctx.tracked,
        ctx.as_of,
        ctx.headline,
        velocity_png,
    )
    ctx.charts.append(velocity_png)
    return Part(
        ctx.render(
            "sections/moved.md.j2",
            categories=[_category_line(ctx, c) for c in ctx.categories],
            velocity_png=velocity_png.name,
            comparisons=_category_charts(ctx),
        )
    )


def _category_line(ctx: BriefingContext, c: CategoryMove) -> Md:
    if c.acceleration is None:
        return Md(f"**{safe_inline(c.category)}**: no acceleration measurable on {ctx.as_of}.")
    key = {"category": c.category, "day": ctx.as_of}
    r_acc = ctx.book.row(
        "category_signals",
        key,
        "acceleration_28d_mean",
        c.acceleration,
        ctx.as_of,
        f"{c.category} mean acceleration_28d",
    )
    r_vel = ctx.book.row(
        "category_signals",
        key,
        "velocity_28d_mean",
        c.velocity,
        ctx.as_of,
        f"{c.category} mean velocity_28d",
    )
    members = ", ".join(safe_inline(m) for m in c.members)
    return Md(
        f"**{safe_inline(c.category)}** ({members}) {c.verb.lower()}: mean 28-day "
        f"acceleration {num(c.acceleration, signed=True)} stars/day {ref(r_acc)} on a mean "
        f"28-day velocity of {num(c.velocity)} stars/day {ref(r_vel)}."
    )


def _category_charts(ctx: BriefingContext) -> list[dict[str, Any]]:
    """One velocity comparison chart per configured category that has star signals."""
    out = []
    categories: dict[str, list[str]] = {}
    for r in ctx.settings.repos:
        categories.setdefault(r.category, []).append(r.repo)
    for category, repos in categories.items():
        present = [
            r[0]
            for r in ctx.store.con.execute(
                "SELECT DISTINCT repo FROM star_signals WHERE list_contains(?, repo)", [repos]
            ).fetchall()
        ]
        ordered = [r for r in repos if r in present]
        if not ordered:
            continue
        frame = compare_frame(
            ctx.store.con,
            ordered,
            "velocity",
            since=ctx.as_of - timedelta(days=HISTORY_DAYS),
            until=ctx.as_of,
        )
        path = ctx.out_dir / f"{ctx.day}-compare-{slug(category)}.png"
        compare_chart(
            frame,
            "velocity",
            path,
            title=(
                f"{category}: 28-day star velocity (stars/day), {HISTORY_DAYS} days to {ctx.as_of}"
            ),
        )
        out.append({"category": category, "png": path.name, "repos": ordered})
    return out
