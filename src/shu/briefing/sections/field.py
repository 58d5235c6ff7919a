"""The "The field by category" section: which kind of ML-infrastructure project is gaining
attention against which, in words, from the field view the facts layer computes
(`shu.signals.field`): per category of the field watchlist (`Settings.field`) its share of the
stars the watchlist gained in the last 28 days, the 28 before and the same 28 days a year
before, in a table that fits a phone (the year before only when it counts nearly as many
repositories as now: `FieldView.comparable`, else the lead says why it is left out), the
repository that led each moving category's share (`Category.driver`), and its fastest
repositories by the pace underneath (bursts out), every number with its receipt. A category
counted over fewer than `MIN_COUNTED` repositories is flagged beside its share. The first
sentence says how many of the watchlist's repositories are counted; the appendix's "How the
field is counted" names the others. Left out (with a note) when no category has a share in
the last 28 days.
"""

from __future__ import annotations

from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import day_text, num, pct, ref, repo_link
from shu.receipts import Citation
from shu.safe_markdown import Md, safe_inline
from shu.signals.field import MIN_COUNTED, WINDOW_NAMES, Category, FieldView

NAMED_MISSING = 8  # a window's repositories without counts are named up to this many


def build(ctx: BriefingContext) -> Part:
    """The section, or nothing (with a note) when the field has no share in the last 28 days."""
    view = ctx.field
    data: dict[str, Any] = {"field": view.as_json()}
    if all(c.shares.get("now") is None for c in view.categories):
        data["notes"] = {
            "field": "no repository of the field watchlist has counts at both ends "
            "of the last 28 days"
        }
        return Part("", data=data)
    year = view.comparable("year")
    return Part(
        ctx.render(
            "sections/field.md.j2",
            lead=_lead(ctx, view) if year else Md(f"{_lead(ctx, view)} {_year_left_out(view)}"),
            rows=[_row(ctx, c, year) for c in view.categories],
            movers=[line for c in view.categories if (line := _movers(ctx, c))],
            year=year,
            year_counted=view.windows["year"].counted,
            now_counted=view.windows["now"].counted,
            thin=_thin(view),
        ),
        data=data,
        appendix=ctx.render("sections/field_appendix.md.j2", counted=_counted(view)),
    )


def _cite(ctx: BriefingContext, cite: Citation | None) -> int:
    return 0 if cite is None else ctx.book.cite(cite)


def share_text(ctx: BriefingContext, c: Category, window: str) -> Md:
    """'27% [R3]', or '—' when the category had no repository counted in that window."""
    share = c.shares.get(window)
    if share is None:
        return Md("—")
    shown = pct(share, 1) if abs(share) < 0.01 else pct(share)
    return Md(f"{shown} {ref(_cite(ctx, c.share_cites.get(window)))}")


def _row(ctx: BriefingContext, c: Category, year: bool) -> dict[str, str]:
    return {
        "name": safe_inline(c.name),
        **{w: share_text(ctx, c, w) for w in WINDOW_NAMES if year or w != "year"},
    }


def _year_left_out(view: FieldView) -> Md:
    """Why the table has no year-before column: too few of today's repositories counted then
    (`FieldView.comparable`), so its shares would be of another field."""
    then, now = view.windows["year"].counted, view.windows["now"].counted
    return Md(f"A year before is not shown: only {then} of these {now} repositories counted then.")


def _lead(ctx: BriefingContext, view: FieldView) -> Md:
    """Which category gained share against which over the 28 days before, each with the
    repository that led its move, and against a year before when the year's shares are
    measured."""
    now = view.windows["now"]
    moved = view.gainer("before")
    total = f"{num(now.gained, 0)} {ref(_cite(ctx, now.gained_cite))}"
    uncounted = view.repos - now.counted
    counted = (
        f"the {now.counted} repositories counted of the watchlist's {view.repos}"
        if uncounted
        else f"the field's {now.counted} repositories"
    )
    head = f"In the 28 days to {day_text(now.last)} {counted} gained {total} stars, of which"
    if moved is None:
        top = max(
            (c for c in view.categories if c.shares.get("now") is not None),
            key=lambda c: c.shares["now"] or 0.0,
        )
        return Md(f"{head} {safe_inline(top.name)} took the most, {share_text(ctx, top, 'now')}.")
    up, down = moved
    sentence = (
        f"{head} {safe_inline(up.name)} took {share_text(ctx, up, 'now')} against "
        f"{share_text(ctx, up, 'before')} in the 28 days before, the largest gain in share"
        f"{_led_by(ctx, up)}, while {safe_inline(down.name)} went from "
        f"{share_text(ctx, down, 'before')} to {share_text(ctx, down, 'now')}{_led_by(ctx, down)}."
    )
    year = view.gainer("year")
    if year is not None:
        y_up, y_down = year
        sentence += (
            f" Against the same 28 days a year before, {safe_inline(y_up.name)} gained most "
            f"({share_text(ctx, y_up, 'year')} then) and {safe_inline(y_down.name)} lost most "
            f"({share_text(ctx, y_down, 'year')} then; {view.windows['year'].counted} repositories "
            "counted then)."
        )
    return Md(sentence)


def _led_by(ctx: BriefingContext, c: Category) -> str:
    """' (led by llama.cpp: 2,064 stars against 1,713 [R, R])', or ' (pulled down by ...)' for
    a share that fell: the repository that moved the category's share most
    (`Category.driver`), '' when none did."""
    d = c.driver
    if d is None:
        return ""
    r_now, r_before = _cite(ctx, d.gained_cite), _cite(ctx, d.gained_before_cite)
    led = "led by" if (c.change("now", "before") or 0.0) > 0 else "pulled down by"
    return (
        f" ({led} {repo_link(d.repo)}: {num(d.gained, 0)} stars against "
        f"{num(d.gained_before, 0)} {ref(r_now, r_before)})"
    )


def _movers(ctx: BriefingContext, c: Category) -> Md | None:
    """'training frameworks: transformers 41.1 a day [R] (51.1 [R] the 28 days before), ...'."""
    if not c.movers:
        return None
    parts = []
    for m in c.movers:
        now = f"{repo_link(m.repo)} {num(m.pace, 1)} {ref(_cite(ctx, m.pace_cite))}"
        before = (
            ""
            if m.pace_before is None
            else f" ({num(m.pace_before, 1)} {ref(_cite(ctx, m.pace_before_cite))} before)"
        )
        parts.append(now + before)
    return Md(f"{safe_inline(c.name)}: {', '.join(parts)}")


def _names(repos: list[str]) -> str:
    if len(repos) > NAMED_MISSING:
        return f"{len(repos)} repositories (named in the JSON)"
    return ", ".join(f"`{r}`" for r in repos)


def _thin(view: FieldView) -> Md | None:
    """'compilers, kernels and GPU stacks counts 2 repositories, so its share is theirs, not
    a kind of project's.' for the categories counted over fewer than MIN_COUNTED now."""
    thin = view.thin()
    if not thin:
        return None
    parts = [
        f"{safe_inline(c.name)} counts {c.counted['now']} "
        f"{'repository' if c.counted['now'] == 1 else 'repositories'}"
        for c in thin
    ]
    return Md(
        f"{'; '.join(parts)}, so {'its share is' if len(thin) == 1 else 'their shares are'} "
        f"that of so few repositories (under {MIN_COUNTED}), not of a kind of project."
    )


def _counted(view: FieldView) -> Md:
    """How many repositories each window counts, and which are not counted."""
    w = view.windows
    line = (
        f"Shares are over the repositories with a count at both ends of a window: "
        f"{w['now'].counted} of {view.repos} now, {w['before'].counted} in the 28 days before, "
        f"{w['year'].counted} a year before."
    )
    if view.absent:
        line += f" No counts in the store: {_names(view.absent)}."
    for name, words in (("now", "now"), ("year", "a year before")):
        if w[name].missing:
            line += f" Without a count at an end {words}: {_names(w[name].missing)}."
    return Md(line)
