"""The "At a glance" section, the briefing in a few sentences and one table.

Three to five sentences on what matters today and why, each with its number and receipt: the
newsworthy stories first (a real change of pace, then the largest move that was only a few days
of counts: `shu.signals.stories`), the forecast that departs most from its base rate among
those this store's record of their kind of answer does not undercut (naming the furthest one
left out, with its record; led by that record when it undercuts them all), the top of the
breakout radar, and how sure shu has lately been against how often it was right on answers that
departed from their base rate; and one more, after the stories, when the regime guard changed
today's forecasts (many more repositories than usual losing stars), naming the day when a mass
loss of stars fell in the 28 days it reads. Then one table row per tracked repository: its
28-day pace and last 7 days, what moved it, and what its card asks (or its velocity interval
when the card asks nothing).

A notable move of the share of commits touching ROCm across the ecosystem (more over 90 days
than in any 90 days of the year before) is one more sentence, right after the stories
(`rocm_finding.glance_sentence`).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from shu.briefing.card.confidence import record_against_claim, record_receipts
from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections import calibration_watch as watch
from shu.briefing.sections import radar as radar_section
from shu.briefing.sections import rocm_finding
from shu.briefing.sections.cards import USUAL_RATE, question_clause, regime_sentence
from shu.briefing.story_words import kind_words, shared_short, story_sentence, story_short
from shu.briefing.text import REPLAYED_WHAT, cite_signal, day_text, num, pct, ref, repo_link
from shu.forecast.records import LiveRecord
from shu.safe_markdown import Md
from shu.signals.reads import latest_star_signals
from shu.signals.stories import burst_groups, shared_underneath
from shu.store import Store

MAX_SENTENCES = 5
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
    """What matters today, in up to MAX_SENTENCES sentences, each with a number and a receipt."""
    out: list[Md] = []
    told: set[str] = set()
    for group, first, last in burst_groups(ctx.stories):  # the title's shared phrase first
        under = shared_underneath(ctx.stories, group)
        if under is not None and len(out) < MAX_STORIES:
            members = [s for s in ctx.stories if s.repo in group]
            out.append(shared_short(ctx.store, ctx.book, members, first, last, under))
            told.update(group)
    for story in ctx.stories:
        if len(out) >= MAX_STORIES:
            break
        if story.repo in told:
            continue
        short = story_short(ctx.store, ctx.book, story)
        if short is not None:
            out.append(short)
    if not out and ctx.stories and ctx.stories[0].kind != "no_data":
        out.append(story_sentence(ctx.store, ctx.book, ctx.stories[0]))
    n_stories = len(out)
    for line in (_forecast_sentence(ctx), _radar_sentence(ctx), _calibration_sentence(ctx)):
        if line is not None and len(out) < MAX_SENTENCES:
            out.append(line)
    # a platform-wide loss of stars that changed today's forecasts: one more sentence, after
    # the stories
    regime = regime_sentence(ctx)
    if regime is not None:
        out.insert(n_stories, regime)
    rocm = rocm_finding.glance_sentence(ctx)  # a notable move of ROCm work: news, after stories
    if rocm is not None:
        out.insert(n_stories, rocm)
    return out


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
        f"Top of the breakout radar: {repo_link(e.repo)}, {pct(e.probability, 1)} {ref(r_p)} "
        f"that its 28-day pace on {day_text(e.resolves_on)} is at least {num(e.bar, 1)} "
        f"stars/day (the breakout bar){now}."
    )


def _calibration_sentence(ctx: BriefingContext) -> Md | None:
    """How often shu's surest yes/no forecasts came true lately, against how sure it said,
    counting only those at least `calibration_watch.DEPARTED` from their base rate (an answer at
    its base rate comes true as often as it says by construction)."""
    d = watch.departed_band(ctx.store, ctx.as_of)
    if not d["n"]:
        return None
    r_n, r_o = watch.departed_receipts(ctx.book, ctx.as_of, d)
    # replayed forecasts were issued on the data of their day but never published: say so
    who, aside = "forecasts shu gave", ""
    if d["replayed"] == d["n"]:
        who, aside = "replayed forecasts", f" ({REPLAYED_WHAT})"
    elif d["replayed"]:
        params = [ctx.as_of - timedelta(days=watch.WATCH_DAYS), ctx.as_of, d["band"]]
        r_r = ctx.book.query(
            "forecast_resolutions",
            watch.DEPARTED_SQL["replayed"],
            params,
            d["replayed"],
            ctx.as_of,
            "replayed forecasts of them",
        )
        aside = f" ({d['replayed']:,} {ref(r_r)} of them replayed: {REPLAYED_WHAT})"
    verdict = ""
    if d["off"]:
        verdict = (
            ": more sure than it should have been"
            if d["mean_confidence"] > d["observed"]
            else ": less sure than it could have been"
        )
    return Md(
        f"Of the {d['n']:,} {ref(r_n)} {who} at 80% or more and at least "
        f"{round(100 * watch.DEPARTED)} points from {USUAL_RATE} that resolved in the last "
        f"{watch.WATCH_DAYS // 7} weeks{aside}, {pct(d['observed'])} came true {ref(r_o)} "
        f"against {pct(d['mean_confidence'])} said{verdict}."
    )


def _row(ctx: BriefingContext, repo: str) -> dict[str, Any]:
    now = latest_star_signals(ctx.store.con, repo, ctx.data_through)
    story = next((s for s in ctx.stories if s.repo == repo), None)
    cells: dict[str, Any] = {
        "repo": repo_link(repo),
        "velocity": Md("—"),
        "recent": Md("—"),
        "story": kind_words(story) if story else "—",
        "forecast": _forecast_cell(ctx, repo),
    }
    if now is not None:
        for name, col in (("velocity", "velocity_28d"), ("recent", "velocity_7d")):
            if now[col] is not None:
                r = cite_signal(ctx.book, repo, now["day"], col, now[col])
                cells[name] = Md(f"{num(now[col], 1)} {ref(r)}")
    return cells


def _forecast_cell(ctx: BriefingContext, repo: str) -> Md:
    """What the repository's star card asks and answers, else its velocity interval."""
    card = next((c for c in ctx.cards if c.repo == repo and c.kind == "star"), None)
    if card is None:
        return Md("none issued")
    f = card.headline
    key = {"forecast_id": f["forecast_id"]}
    if card.forecast is not None:
        r = ctx.book.row(
            "forecasts", key, "probability", f["probability"], f["origin"], f"{repo} probability"
        )
        return Md(f"{pct(f['probability'])} {ref(r)} that {question_clause(f, 'it')}")
    refs = [
        ctx.book.row(
            "forecast_intervals",
            key,
            column,
            f[column],
            f["origin"],
            f"{repo} {column} of velocity_28d on {f['resolves_on']}",
        )
        for column in ("median", "lower_80", "upper_80")
    ]
    return Md(
        f"28-day pace on {day_text(f['resolves_on'])}: {num(f['median'], 1)} "
        f"(80% between {num(f['lower_80'], 1)} and {num(f['upper_80'], 1)}) {ref(*refs)}"
    )
