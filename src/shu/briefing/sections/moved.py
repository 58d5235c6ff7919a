"""The "What moved" section: for each tracked repository what moved its star pace and why
(`shu.signals.stories`: a burst leaving the 28-day window, a spike, a release, stars removed, or
a real change of pace), the most important first, each followed by what its move means
(`story_meaning`: its rank in its own history, its category, the forecast, what coincides);
first, once, any store-wide event (many of the store's repositories spiking or losing stars on
the same days, `market_spikes`) a story set aside; and once for each set of tracked repositories
that burst on the same days (after the last of their stories). Only departures get their own
line: the repositories that held near their pace of 28 days ago are told together, last, in one
sentence (`story_words.held_sentence`), each pace net of store-wide event days. Then the chart
of the stars each gained per day with the 28-day pace and the days each story names (the
28-day paces compared across repositories are `shu compare`'s)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from shu.briefing import charts
from shu.briefing.context import BriefingContext, Part
from shu.briefing.held_words import STORE_WIDE_SAID, held, held_sentence, store_wide_when
from shu.briefing.sections.calibration_watch import store_loss
from shu.briefing.story_meaning import meaning_sentence, own_change
from shu.briefing.story_words import kind_words, story_sentence
from shu.briefing.text import and_list, day_text, days_text, ref, repo_link
from shu.safe_markdown import Md
from shu.signals.market_spikes import ELIGIBLE_MIN, store_wide_days
from shu.signals.move_meaning import Meaning, Rank
from shu.signals.stories import Story, burst_groups, shared_underneath


def build(ctx: BriefingContext) -> Part:
    """The story lines and the section's chart (written beside the markdown)."""
    stories_png = ctx.out_dir / f"{ctx.as_of}-stories.png"
    charts.stories_chart(ctx.store, ctx.stories, ctx.data_through, stories_png)
    ctx.charts.append(stories_png)
    loss = store_loss(ctx)  # a week many repositories lost stars: each dip weighed against it
    events = store_wide_events(ctx)
    wide = [store_wide_line(ctx, events)] if events else []
    if events:
        ctx.said.add(STORE_WIDE_SAID)  # the line names the days: later mentions refer to them
    grouped = {r for group, _, _ in burst_groups(ctx.stories) for r in group}
    calm = [s for s in ctx.stories if held(s) and s.repo not in grouped]
    told = [s for s in ctx.stories if s not in calm]
    meanings = [ctx.meanings.get(s.repo) for s in ctx.stories]
    own = {
        s.repo: _with_meaning(ctx, story_sentence(ctx.store, ctx.book, s, loss), s) for s in told
    }
    together = held_sentence(ctx.store, ctx.book, calm, ctx.said) if calm else None
    lines = [own[s.repo] for s in told]
    # spike days on the same days in several tracked repositories: said once; first, with their
    # stories after it, where all of them ran slower (or all faster) on their other days (the
    # title's first phrase), else after the last of their stories
    shown = list(lines)
    lead: list[Md] = []
    for group, first, last in reversed(burst_groups(told)):
        under = shared_underneath(told, group)
        at = max(i for i, s in enumerate(told) if s.repo in group)
        if under is None:
            shown.insert(at + 1, same_days_line(group, first, last))
    for group, first, last in burst_groups(told):
        under = shared_underneath(told, group)
        if under is not None:
            mine = [line for s, line in zip(told, lines, strict=True) if s.repo in group]
            lead += [same_days_line(group, first, last, under), *mine]
            shown = [line for line in shown if line not in mine]
    shown = wide + lead + shown + ([together] if together is not None else [])
    return Part(
        ctx.render(
            "sections/moved.md.j2",
            lines=shown,
            stories_png=stories_png.name,
        ),
        data={
            "stories": [
                {
                    "repo": s.repo,
                    "kind": s.kind,
                    "in_words": kind_words(s),
                    "sentence": str(own.get(s.repo, together)),
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
                for s, m in zip(ctx.stories, meanings, strict=True)
            ],
            "store_wide_events": [
                {
                    "day": d,
                    "kind": kind,
                    "repos": n,
                    "ordinary": o,
                    "counted": m,
                    "tracked": repos,
                }
                for d, (kind, n, o, m, repos) in events.items()
            ],
            "shared_bursts": [
                {"repos": group, "first": first, "last": last}
                for group, first, last in burst_groups(ctx.stories)
            ],
        },
    )


def _with_meaning(ctx: BriefingContext, line: Md, story: Story) -> Md:
    """The story's line followed by what its move means (`story_meaning`), when anything is
    known: what At a glance said already (`ctx.said`) is not said again."""
    extra = meaning_sentence(
        ctx.book, ctx.meanings.get(story.repo), ctx.said, store_wide_when(story), own_change(story)
    )
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


Event = tuple[str, int, float, int, list[str]]


def store_wide_events(ctx: BriefingContext) -> dict[date, Event]:
    """The store-wide event days some tracked repository's story set aside (`Story.store_wide`):
    day -> (kind, repositories, ordinary day's count, repositories counted, the tracked
    repositories that moved with it)."""
    days: dict[date, list[str]] = {}
    for s in ctx.stories:
        for e in s.store_wide:
            for k in range(e.days):
                days.setdefault(e.first + timedelta(days=k), []).append(s.repo)
    if not days:
        return {}
    wide = store_wide_days(ctx.store.con, min(days), max(days))
    return {d: (*wide[d], days[d]) for d in sorted(days) if d in wide}


def store_wide_line(ctx: BriefingContext, events: dict[date, Event]) -> Md:
    """The store-wide events, told once: on which days how many of the store's repositories
    spiked (or lost stars) against an ordinary day, out of how many were counted (one total
    when every day counted the same number, else each day's), each count with its receipt, and
    the tracked repositories whose stories and paces leave those days out."""
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

        def cited(d: date, col: str, value: float, label: str) -> str:
            return ref(ctx.book.row("market_spikes", {"day": d}, col, value, d, label))

        counts = {d: f"{e[1]} {cited(d, column, e[1], f'{kind} {d}')}" for d, e in mine.items()}
        totals = {
            d: f"{e[3]} {cited(d, 'repos_eligible', e[3], f'counted {d}')}" for d, e in mine.items()
        }
        last = max(mine)
        if len({e[3] for e in mine.values()}) == 1:
            of = f"{and_list(list(counts.values()))} of the {totals[last]}"
        else:
            of = and_list([f"{counts[d]} of {totals[d]}" for d in mine])
        o = mine[last][2]
        r_o = cited(last, ordinary, o, f"ordinary {kind}")
        what = (
            "gained at least twice their ordinary day's stars" if kind == "spike" else "lost stars"
        )
        tracked = sorted({r for e in mine.values() for r in e[4]})
        who = and_list([repo_link(r) for r in tracked])
        first = min(mine)
        when = (
            days_text(first, last)
            if (last - first).days + 1 == len(mine)
            else and_list([day_text(d) for d in mine])
        )
        theirs = (
            "its story and pace leave" if len(tracked) == 1 else "their stories and paces leave"
        )
        parts.append(
            f"On {when} several times the usual number of repositories spiked together: {of} "
            f"repositories that gain "
            f"{ELIGIBLE_MIN:.0f} or more stars on a median day {what}, against {o:.0f} on an "
            f"ordinary day {r_o}: an event of GitHub or of the counts, not of one repository. "
            f"{who} moved with it; {theirs} those days out."
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
