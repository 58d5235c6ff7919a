"""The "At a glance" section, the briefing on one screen: a few sentences and one table.

At most `MAX_SENTENCES` sentences and `MAX_WORDS` words (`text.word_count`; the table aside) on
what matters today, each with its number and receipt, in this order of priority: the most
important story (a shared burst's first, then the story that moved its pace most in stars/day:
`story_title.importance`) with what it means from numbers the store holds (how its 28-day
change of pace ranks in the repository's own record and the forecast that its pace lasts, the
same facts in the same words as What moved, which then does not repeat them: `with_meaning`);
a notable move of the share of commits touching ROCm (`rocm_finding.glance_sentence`; first,
as in the title, when no tracked repository's pace really changed: `story_title.rocm_leads`);
the next story; which category of the field gained share (`shu.signals.field`); the forecast that
departs most from its base rate among those this store's record of their kind of answer does
not undercut (naming the furthest one left out, with its record; led by that record when it
undercuts them all); and the top of the breakout radar. A sentence that would pass either
limit is left out. Nothing about shu's own bookkeeping (the regime guard, how its surest
answers fared): that is after the body. The page shows the sentences as a list. Then one table
row per tracked repository: its 28-day pace and last 7 days (what moved each is What moved's,
what its card asks is the card's: each said once).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.briefing.card.confidence import record_against_claim, record_receipts
from shu.briefing.context import BriefingContext, Part
from shu.briefing.held_words import store_wide_told
from shu.briefing.sections import radar as radar_section
from shu.briefing.sections import rocm_finding
from shu.briefing.sections.cards import question_clause
from shu.briefing.sections.field import share_text
from shu.briefing.story_meaning import forecast_words, rank_words, said_key
from shu.briefing.story_title import headline_worthy
from shu.briefing.story_words import shared_short, story_sentence, story_short
from shu.briefing.text import (
    cite_signal,
    day_text,
    num,
    pct,
    ref,
    repo_link,
    word_count,
)
from shu.forecast.records import LiveRecord
from shu.safe_markdown import Md, safe_inline
from shu.signals.reads import latest_star_signals
from shu.signals.stories import Story, burst_groups, shared_underneath
from shu.store import Store

MAX_SENTENCES = 5
MAX_WORDS = 150  # the sentences' words (`text.word_count`), the table aside
MAX_STORIES = 2


def build(ctx: BriefingContext) -> Part:
    """The sentences and the summary table."""
    sentences = glance_sentences(ctx)
    rows = [_row(ctx, repo) for repo in ctx.tracked]
    return Part(
        ctx.render("sections/glance.md.j2", sentences=sentences, rows=rows),
        data={"at_a_glance": [str(s) for s in sentences]},
    )


def previous_briefing(store: Store, day: date, synthetic: bool) -> dict[str, Any] | None:
    """The latest briefing before `day` of the same kind (real or synthetic), if any."""
    row = store.con.execute(
        "SELECT day, data_as_of, generated_at FROM briefings WHERE day < ? AND is_synthetic = ? "
        "ORDER BY day DESC LIMIT 1",
        [day, synthetic],
    ).fetchone()
    return {"day": row[0], "as_of": row[1], "generated_at": row[2]} if row else None


def glance_sentences(ctx: BriefingContext) -> list[Md]:
    """What matters today, in order of priority, within MAX_SENTENCES and MAX_WORDS; each
    sentence with a number and a receipt."""
    stories: list[Md] = []
    told: set[str] = set()
    lead: Story | None = None  # the first sentence's repository
    own = True  # whether the first sentence is about that one repository alone
    for group, first, last in burst_groups(ctx.stories):  # the title's shared phrase first
        under = shared_underneath(ctx.stories, group)
        if under is not None and len(stories) < MAX_STORIES:
            members = [s for s in ctx.stories if s.repo in group]
            stories.append(shared_short(ctx.store, ctx.book, members, first, last, under))
            told.update(group)
            lead, own = (lead, own) if lead else (members[0], False)
    for story in ctx.stories:
        if len(stories) >= MAX_STORIES:
            break
        if story.repo in told or not headline_worthy(story, ctx.stories):
            continue
        short = story_short(ctx.store, ctx.book, story)
        if short is not None:
            stories.append(short)
            lead = lead or story
    if not stories and ctx.stories and ctx.stories[0].kind != "no_data":
        stories.append(story_sentence(ctx.store, ctx.book, ctx.stories[0]))
        lead = ctx.stories[0]
    if stories and lead is not None:
        stories[0] = with_meaning(ctx, stories[0], lead, own)
    out: list[Md] = []
    rocm = rocm_finding.glance_sentence(ctx)  # a notable move of ROCm work
    candidates = (
        *((rocm, *stories) if ctx.rocm_leads else (*stories[:1], rocm, *stories[1:])),
        _field_sentence(ctx),
        _forecast_sentence(ctx),
        _radar_sentence(ctx),
    )
    for line in candidates:
        if line is None or len(out) >= MAX_SENTENCES:
            continue
        if sum(word_count(s) for s in (*out, line)) <= MAX_WORDS:
            out.append(line)
    if stories and lead is not None and stories[0] not in out:  # left out: What moved says it
        ctx.said -= {said_key("rank", lead.repo), said_key("forecast", lead.repo)}
    return out


def with_meaning(ctx: BriefingContext, sentence: Md, story: Story, own: bool = True) -> Md:
    """`sentence` with what `story`'s move means, from numbers the store holds: how its 28-day
    change of pace ranks in the repository's own record and the forecast that its pace lasts,
    the same facts in the same words as What moved (`story_meaning.rank_words`,
    `forecast_words`, from `ctx.meanings`), named in `ctx.said` so What moved does not repeat
    them; the forecast says when today's pace counts store-wide event days. `sentence` as it
    was when neither is known. A sentence about several repositories (`own` False) names the
    one it reads."""
    m = ctx.meanings.get(story.repo)
    if m is None:
        return sentence
    whose = "its" if own else f"{repo_link(story.repo)}'s"
    clauses = []
    if m.rank is not None:
        words = rank_words(ctx.book, m.rank)
        clauses.append(words if own else whose + words.removeprefix("its"))
        ctx.said.add(said_key("rank", story.repo))
    if m.forecast is not None:
        clauses.append(forecast_words(ctx.book, m.forecast, whose, store_wide_told(story)))
        ctx.said.add(said_key("forecast", story.repo))
    if not clauses:
        return sentence
    return Md(f"{str(sentence).rstrip('.')} — {'; '.join(clauses)}.")


def _field_sentence(ctx: BriefingContext) -> Md | None:
    """Which category of the field gained the most share of the stars the watchlist gained,
    against the 28 days before (None when the shares cannot be compared)."""
    moved = ctx.field.gainer("before")
    if moved is None:
        return None
    up, down = moved
    return Md(
        f"Across the field watchlist, {safe_inline(up.name)} took {share_text(ctx, up, 'now')} "
        f"of the stars gained in the last 28 days against {share_text(ctx, up, 'before')} the "
        f"28 before, the largest gain in share; {safe_inline(down.name)} lost the most."
    )


def _forecast_sentence(ctx: BriefingContext) -> Md | None:
    """The card whose answer departs most from its base rate among those this store's record
    does not undercut (`card.confidence.record_against_claim`: its kind of answer came true less
    often than the confidence it states); when the record undercuts every one, the furthest,
    led by that record."""
    from shu.briefing.choice import departure

    asked = [c.forecast for c in ctx.cards if c.forecast and departure(c.forecast) is not None]
    if not asked:
        return None
    asked.sort(key=lambda f: (departure(f), f["forecast_id"]), reverse=True)
    records = [record_against_claim(ctx, f) for f in asked]
    kept = next((i for i, (_, side) in enumerate(records) if side != "below"), None)
    if kept is None:  # the record undercuts every one: the furthest, its record first
        f, (live, side) = asked[0], records[0]
        lead = (
            "shu's most unusual call today, though such answers "
            f"{_came_true_only(ctx, live, _replayed(live))}"
        )
    else:
        f, (live, side) = asked[kept], records[kept]
        lead = "The forecast furthest from what usually happens"
        if kept:  # name the furthest one left out, and why
            left, (gone, _) = asked[0], records[0]
            record = _came_true_only(ctx, gone, _replayed(gone, ", all replayed"))
            lead = (
                f"Leaving out {repo_link(left['repo'])}'s {pct(left['probability'])} (such "
                f"answers {record}), the forecast furthest from what usually happens"
            )
    key = {"forecast_id": f["forecast_id"]}
    r_p = ctx.book.row(
        "forecasts", key, "probability", f["probability"], f["origin"], f"{f['repo']} probability"
    )
    r_b = ctx.book.row(
        "forecasts", key, "base_rate", f["base_rate"], f["origin"], f"{f['repo']} base rate"
    )
    more = "more" if f["probability"] > f["base_rate"] else "less"
    above = ""
    if side == "above":  # the record holds such answers more often than they claim
        r_n, r_hits = record_receipts(ctx, live)
        above = (
            f"; of every answer this confident to such questions resolved in this store so far "
            f"({live.n}{_replayed(live, ', all replayed')}), {live.hits} came true "
            f"{ref(r_hits, r_n)}"
        )
    text = (
        f"{lead}: {pct(f['probability'])} that {question_clause(f, repo_link(f['repo']))} "
        f"{ref(r_p)}, {more} likely than the {pct(f['base_rate'])} such questions came true in "
        f"the year before {ref(r_b)}{above}."
    )
    return Md(text)


def _came_true_only(ctx: BriefingContext, live: LiveRecord, replayed: str) -> str:
    """How few of this store's such answers came true, with its receipts."""
    r_n, r_hits = record_receipts(ctx, live)
    return (
        f"came true only {live.hits} of {live.n} times in this store{replayed} {ref(r_hits, r_n)}"
    )


def _replayed(live: LiveRecord, words: str = " (all replayed)") -> str:
    return words if live.n and live.replayed == live.n else ""


def _radar_sentence(ctx: BriefingContext) -> Md | None:
    """The top of the breakout radar (repositories not tracked)."""
    _, entries = radar_section.shown_on(ctx, ctx.as_of, 1)
    if not entries:
        return None
    e = entries[0]
    r_p = ctx.book.cite(e.probability_citation)
    r_v = ctx.book.cite(e.velocity_citation) if e.velocity_citation else 0
    when = "now" if e.origin == ctx.as_of else f"on {day_text(e.origin)}, the radar's last run"
    now = f", from {num(e.velocity_28d, 1)} {when} {ref(r_v)}" if e.velocity_28d is not None else ""
    return Md(
        f"Top of the breakout radar: {repo_link(e.repo)}, a {pct(e.probability, 1)} chance "
        f"{ref(r_p)} that its 28-day pace on {day_text(e.resolves_on)} is at least {num(e.bar, 1)} "
        f"stars/day (the breakout bar){now}."
    )


def _row(ctx: BriefingContext, repo: str) -> dict[str, Any]:
    now = latest_star_signals(ctx.store.con, repo, ctx.data_through)
    cells: dict[str, Any] = {
        "repo": repo_link(repo),
        "velocity": Md("—"),
        "recent": Md("—"),
    }
    if now is not None:
        for name, col in (("velocity", "velocity_28d"), ("recent", "velocity_7d")):
            if now[col] is not None:
                r = cite_signal(ctx.book, repo, now["day"], col, now[col])
                cells[name] = Md(f"{num(now[col], 1)} {ref(r)}")
    return cells
