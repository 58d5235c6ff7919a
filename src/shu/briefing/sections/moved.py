"""The "What moved" section: for each tracked repository what moved its star pace and why
(`shu.signals.stories`: a burst leaving the 28-day window, a spike, a release, stars removed, or
a real change of pace), the most important first, each followed by what its move means
(`story_meaning`: its rank in its own history, its category, the forecast, what coincides);
first, once, any store-wide event (many of the store's repositories spiking or losing stars on
the same days, `market_spikes`) a story set aside; and once for each set of tracked repositories
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
from shu.briefing.story_meaning import meaning_sentence
from shu.briefing.story_words import kind_words, story_sentence
from shu.briefing.text import and_list, day_text, days_text, ref, repo_link
from shu.safe_markdown import Md
from shu.signals.market_spikes import ELIGIBLE_MIN, store_wide_days
from shu.signals.move_meaning import Meaning, Rank, meaning
from shu.signals.reads import repos_with_signals
from shu.signals.stories import burst_groups, shared_underneath


def build(ctx: BriefingContext) -> Part:
    """The story lines and the section's charts (written beside the markdown)."""
    stories_png = ctx.out_dir / f"{ctx.as_of}-stories.png"
    charts.stories_chart(ctx.store, ctx.stories, ctx.data_through, stories_png)
    ctx.charts.append(stories_png)
    loss = store_loss(ctx)  # a week many repositories lost stars: each dip weighed against it
    meanings = [meaning(ctx.store, s, ctx.settings.field, ctx.as_of) for s in ctx.stories]
    lines = [
        _with_meaning(ctx, story_sentence(ctx.store, ctx.book, s, loss), m)
        for s, m in zip(ctx.stories, meanings, strict=True)
    ]
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
    events = store_wide_events(ctx)
    shown = ([store_wide_line(ctx, events)] if events else []) + lead + shown
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
                    # runs on store-wide event days: the store's, not this repository's
                    "store_wide": [
                        {"kind": e.kind, "first": e.first, "last": e.last, "stars": e.stars}
                        for e in s.store_wide
                    ],
                    # runs of spike days inside the window too small to move the pace (named)
                    "spikes": [
                        {"first": e.first, "last": e.last, "stars": e.stars} for e in s.named_small
                    ],
                    "meaning": meaning_data(m),
                }
                for s, line, m in zip(ctx.stories, lines, meanings, strict=True)
            ],
            "store_wide_events": [
                {"day": d, "kind": kind, "repos": n, "ordinary": o, "tracked": repos}
                for d, (kind, n, o, repos) in events.items()
            ],
            "shared_bursts": [
                {"repos": group, "first": first, "last": last}
                for group, first, last in burst_groups(ctx.stories)
            ],
        },
    )


def _with_meaning(ctx: BriefingContext, line: Md, m: Meaning | None) -> Md:
    """The story's line followed by what its move means (`story_meaning`), when anything is
    known."""
    extra = meaning_sentence(ctx.book, m)
    return line if extra is None else Md(f"{line} {extra}")


def meaning_data(m: Meaning | None) -> dict[str, Any] | None:
    """What a story's move means, for the JSON: the records' days, the category's paces, the
    forecast and the coinciding facts."""
    if m is None:
        return None

    def rank(r: Rank | None) -> dict[str, Any] | None:
        return None if r is None else {"value": r.value, "since": r.since, "first": r.first}

    c, f = m.category, m.forecast
    return {
        "first": m.first,
        "last": m.last,
        "move_28d_record": rank(m.rank),
        "pace_28d_record": rank(m.level),
        "category": None
        if c is None
        else {"name": c.name, "repos": c.repos, "pace_now": c.now, "pace_before": c.before},
        "forecast": None
        if f is None
        else {
            "forecast_id": f.forecast_id,
            "probability": f.probability,
            "threshold": f.threshold,
            "resolves_on": f.resolves_on,
        },
        "coinciding": [{"kind": x.kind, "day": x.day, "what": x.what} for x in m.coinciding],
        "more_releases": m.more_releases,
    }


def store_wide_events(ctx: BriefingContext) -> dict[date, tuple[str, int, float, list[str]]]:
    """The store-wide event days some tracked repository's story set aside (`Story.store_wide`):
    day -> (kind, repositories, ordinary day's count, the tracked repositories that moved with
    it)."""
    days: dict[date, list[str]] = {}
    for s in ctx.stories:
        for e in s.store_wide:
            for k in range(e.days):
                days.setdefault(e.first + timedelta(days=k), []).append(s.repo)
    if not days:
        return {}
    wide = store_wide_days(ctx.store.con, min(days), max(days))
    return {d: (*wide[d], days[d]) for d in sorted(days) if d in wide}


def store_wide_line(
    ctx: BriefingContext, events: dict[date, tuple[str, int, float, list[str]]]
) -> Md:
    """The store-wide events, told once: on which days how many of the store's repositories
    spiked (or lost stars) against an ordinary day, each count with its receipt, and the tracked
    repositories whose stories leave those days out."""
    parts = []
    for kind in ("spike", "removal"):
        mine = {d: e for d, e in events.items() if e[0] == kind}
        if not mine:
            continue
        column, ordinary = (
            ("repos_spiking", "ordinary_spiking")
            if kind == "spike"
            else ("repos_removing", "ordinary_removing")
        )
        counts = [
            f"{n} {ref(ctx.book.row('market_spikes', {'day': d}, column, n, d, f'{kind} {d}'))}"
            for d, (_k, n, _o, _r) in mine.items()
        ]
        last = max(mine)
        o = mine[last][2]
        r_o = ctx.book.row("market_spikes", {"day": last}, ordinary, o, last, f"ordinary {kind}")
        what = (
            "gained at least twice their ordinary day's stars" if kind == "spike" else "lost stars"
        )
        tracked = sorted({r for e in mine.values() for r in e[3]})
        who = and_list([repo_link(r) for r in tracked])
        first = min(mine)
        when = (
            days_text(first, last)
            if (last - first).days + 1 == len(mine)
            else and_list([day_text(d) for d in mine])
        )
        parts.append(
            f"On {when} the whole store moved: {and_list(counts)} of the "
            f"repositories that gain {ELIGIBLE_MIN:.0f} or more stars on a median day {what}, "
            f"against {o:.0f} on an ordinary day {ref(r_o)}: an event of GitHub or of the "
            f"counts, not of one repository. {who} moved with it; "
            f"{'its story leaves' if len(tracked) == 1 else 'their stories leave'} those days out."
        )
    return Md(" ".join(parts))


def same_days_line(repos: list[str], first: date, last: date, under: str | None = None) -> Md:
    """'tensorflow/tensorflow and keras-team/keras gained unusually many stars on the same days
    (19–20 Feb 2026).' (what coincides with each is in its own line), and where all of them ran
    slower (`under` 'down') or faster ('up') on their other days, that too."""
    names = [repo_link(r) for r in repos]
    who = and_list(names)
    text = f"{who} gained unusually many stars on the same days ({days_text(first, last)})"
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
