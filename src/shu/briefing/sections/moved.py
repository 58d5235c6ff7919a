"""The "What moved" section: for each tracked repository what moved its star pace and why
(`shu.signals.stories`: a burst leaving the 28-day window, a spike, a release, stars removed, or
a real change of pace), the most important first, and once for each set of tracked repositories
that burst on the same days (after the last of their stories); the chart of the stars each
gained per day with the days its story names, and one 28-day velocity comparison chart per
category (a log axis where the repositories differ tenfold, gaps drawn and named)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from shu.briefing import charts
from shu.briefing.charts import HISTORY_DAYS, pace_gaps, slug
from shu.briefing.compare import compare_chart, compare_frame, needs_log
from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.calibration_watch import store_loss
from shu.briefing.story_words import kind_words, story_sentence
from shu.briefing.text import and_list, days_text, repo_link
from shu.safe_markdown import Md
from shu.signals.reads import repos_with_signals
from shu.signals.stories import burst_groups, shared_underneath


def build(ctx: BriefingContext) -> Part:
    """The story lines and the section's charts (written beside the markdown)."""
    stories_png = ctx.out_dir / f"{ctx.as_of}-stories.png"
    charts.stories_chart(ctx.store, ctx.stories, ctx.data_through, stories_png)
    ctx.charts.append(stories_png)
    loss = store_loss(ctx)  # a week many repositories lost stars: each dip weighed against it
    lines = [story_sentence(ctx.store, ctx.book, s, loss) for s in ctx.stories]
    # spike days on the same days in several tracked repositories: said once; first, with their
    # stories after it, where all of them ran slower (or all faster) on their other days (the
    # title's first phrase), else after the last of their stories
    shown = list(lines)
    lead: list[Md] = []
    for group, first, last in reversed(burst_groups(ctx.stories)):
        under = shared_underneath(ctx.stories, group)
        at = max(i for i, s in enumerate(ctx.stories) if s.repo in group)
        if under is None:
            shown.insert(at + 1, same_days_line(group, first, last))
    for group, first, last in burst_groups(ctx.stories):
        under = shared_underneath(ctx.stories, group)
        if under is not None:
            mine = [line for s, line in zip(ctx.stories, lines, strict=True) if s.repo in group]
            lead += [same_days_line(group, first, last, under), *mine]
            shown = [line for line in shown if line not in mine]
    shown = lead + shown
    return Part(
        ctx.render(
            "sections/moved.md.j2",
            lines=shown,
            stories_png=stories_png.name,
            comparisons=_category_charts(ctx),
        ),
        data={
            "stories": [
                {
                    "repo": s.repo,
                    "kind": s.kind,
                    "in_words": kind_words(s),
                    "sentence": str(line),
                    "velocity_28d": s.velocity_28d,
                    "velocity_28d_before": s.velocity_28d_before,
                    "velocity_7d": s.velocity_7d,
                    "ordinary_now": s.ordinary_now,
                    "ordinary_before": s.ordinary_before,
                    "episodes": [
                        {
                            "kind": e.kind,
                            "first": e.first,
                            "last": e.last,
                            "stars": e.stars,
                            "window": e.window,
                            "effect": e.effect,
                            "release": e.release[0] if e.release else None,
                        }
                        for e in s.episodes
                    ],
                    # runs of spike days inside the window too small to move the pace (named)
                    "spikes": [
                        {"first": e.first, "last": e.last, "stars": e.stars} for e in s.named_small
                    ],
                }
                for s, line in zip(ctx.stories, lines, strict=True)
            ],
            "shared_bursts": [
                {"repos": group, "first": first, "last": last}
                for group, first, last in burst_groups(ctx.stories)
            ],
        },
    )


def same_days_line(repos: list[str], first: date, last: date, under: str | None = None) -> Md:
    """'tensorflow/tensorflow and keras-team/keras gained unusually many stars on the same days
    (19–20 Feb 2026); shu knows no cause.', and where all of them ran slower (`under` 'down') or
    faster ('up') on their other days, that too."""
    names = [repo_link(r) for r in repos]
    who = and_list(names)
    text = (
        f"{who} gained unusually many stars on the same days ({days_text(first, last)}); shu "
        "knows no cause"
    )
    if under is not None:
        each = "both" if len(repos) == 2 else f"all {len(repos)}"
        text += (
            f". {each.capitalize()} also ran {'slower' if under == 'down' else 'faster'} on "
            "their other days than in the 28 days before (each line below gives the figures)"
        )
    return Md(text + ".")


def _category_charts(ctx: BriefingContext) -> list[dict[str, Any]]:
    """One velocity comparison chart per configured category that has star signals."""
    out = []
    categories: dict[str, list[str]] = {}
    for r in ctx.settings.repos:
        categories.setdefault(r.category, []).append(r.repo)
    since = ctx.data_through - timedelta(days=HISTORY_DAYS)
    for category, repos in categories.items():
        present = repos_with_signals(ctx.store.con, repos)
        ordered = [r for r in repos if r in present]
        if not ordered:
            continue
        frame = compare_frame(
            ctx.store.con, ordered, "velocity", since=since, until=ctx.data_through
        )
        gaps = pace_gaps(ctx.store, ordered, since, ctx.data_through)
        log = needs_log(frame)
        path = ctx.out_dir / f"{ctx.as_of}-compare-{slug(category)}.png"
        compare_chart(
            frame,
            "velocity",
            path,
            log=log,
            title=(
                f"{category}: 28-day star velocity (stars/day), {HISTORY_DAYS} days to "
                f"{ctx.data_through}"
            ),
            gaps=gaps,
            span=(since, ctx.data_through),
        )
        out.append(
            {
                "category": category,
                "png": path.name,
                "repos": ordered,
                "log": log,
                "gaps": [g.label() for g in gaps],
            }
        )
    return out
