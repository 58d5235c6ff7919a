"""The "Since the last briefing" section: what changed since the previous briefing of the same
kind (real or synthetic), and nothing at all on a first briefing.

- forecasts of the tracked repositories whose chance moved by `MOVE_POINTS` points or more (the
  same repository, question and horizon, at the previous briefing's day against today's);
- repositories new in the breakout radar's top `radar.TOP`;
- forecasts that reached their day since that briefing was written: how many, and how many
  came true as predicted (each count a query receipt).
"""

from __future__ import annotations

from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections import radar as radar_section
from shu.briefing.sections.glance import previous_briefing
from shu.briefing.text import day_text, num, pct, ref, repo_link, template_words
from shu.forecast.questions.registry import INTERVAL_TEMPLATE as INTERVAL
from shu.forecast.records import RADAR_SQL_LIST, RIGHT_SQL, latest_forecasts
from shu.safe_markdown import Md

MOVE_POINTS = 10  # percentage points
MAX_MOVES = 8

_RESOLVED = (
    "FROM forecast_resolutions r JOIN forecasts f USING (forecast_id) WHERE r.resolved_at > ? "
    f"AND f.resolves_on <= ? AND f.template NOT IN ({RADAR_SQL_LIST}) AND f.template <> "
    f"'{INTERVAL}' AND r.outcome IN ('yes', 'no')"
)
RESOLVED_SQL = f"SELECT count(*) {_RESOLVED}"
RIGHT_RESOLVED_SQL = f"SELECT count(*) FILTER (WHERE {RIGHT_SQL}) {_RESOLVED}"


def build(ctx: BriefingContext) -> Part:
    """The section, or nothing when there is no previous briefing."""
    before = previous_briefing(ctx.store, ctx.as_of, ctx.synthetic)
    if before is None:
        return Part(
            "",
            data={
                "since_last_briefing": None,
                "notes": {"since_last_briefing": "first briefing: nothing to compare with"},
            },
        )
    moves = _moves(ctx, before)
    new = _new_on_radar(ctx, before)
    resolved = _resolved(ctx, before)
    return Part(
        ctx.render(
            "sections/since.md.j2",
            before=day_text(before["day"]),
            moves=[m["line"] for m in moves],
            new=new["line"],
            resolved=resolved["line"],
        ),
        data={
            "since_last_briefing": {
                "previous_day": before["day"],
                "moves": [{k: v for k, v in m.items() if k != "line"} for m in moves],
                "new_on_radar": new["repos"],
                "resolved": {k: v for k, v in resolved.items() if k != "line"},
            }
        },
    )


def _moves(ctx: BriefingContext, before: dict[str, Any]) -> list[dict[str, Any]]:
    then = {
        (f["repo"], f["template"], f["horizon_days"]): f
        for f in latest_forecasts(ctx.store, ctx.tracked, before["day"])
        if f["template"] != INTERVAL
    }
    out = []
    for f in ctx.forecasts:
        old = then.get((f["repo"], f["template"], f["horizon_days"]))
        if f["template"] == INTERVAL or old is None or old["origin"] == f["origin"]:
            continue
        move = 100 * (f["probability"] - old["probability"])
        if abs(move) < MOVE_POINTS:
            continue
        out.append((abs(move), f["forecast_id"], f, old, move))
    out.sort(key=lambda m: (-m[0], m[1]))
    lines = []
    for _, _, f, old, move in out[:MAX_MOVES]:
        r_now = ctx.book.row(
            "forecasts",
            {"forecast_id": f["forecast_id"]},
            "probability",
            f["probability"],
            f["origin"],
            f"{f['repo']} probability",
        )
        r_then = ctx.book.row(
            "forecasts",
            {"forecast_id": old["forecast_id"]},
            "probability",
            old["probability"],
            old["origin"],
            f"{f['repo']} probability at the previous briefing",
        )
        asked = (
            ""
            if old["threshold"] == f["threshold"]
            else f" (threshold {num(old['threshold'])} then, {num(f['threshold'])} now)"
        )
        lines.append(
            {
                "repo": f["repo"],
                "template": f["template"],
                "horizon": f["horizon_days"],
                "then": old["probability"],
                "now": f["probability"],
                "line": Md(
                    f"{repo_link(f['repo'])}, {template_words(f['template'])} in "
                    f"{f['horizon_days']} days: {pct(old['probability'])} {ref(r_then)} → "
                    f"{pct(f['probability'])} {ref(r_now)} ({move:+.0f} points){asked}."
                ),
            }
        )
    return lines


def _new_on_radar(ctx: BriefingContext, before: dict[str, Any]) -> dict[str, Any]:
    _, now = radar_section.shown_on(ctx, ctx.as_of)
    _, then = radar_section.shown_on(ctx, before["day"])
    if not now or (then and then[0].origin == now[0].origin):
        return {"repos": [], "line": None}
    known = {e.repo for e in then}
    new = [e for e in now if e.repo not in known]
    if not new:
        return {"repos": [], "line": Md("No new repository in the breakout radar's top.")}
    shown = ", ".join(
        f"{repo_link(e.repo)} ({pct(e.probability)} {ref(ctx.book.cite(e.probability_citation))})"
        for e in new
    )
    return {
        "repos": [e.repo for e in new],
        "line": Md(f"New in the breakout radar's top {radar_section.TOP}: {shown}."),
    }


def _resolved(ctx: BriefingContext, before: dict[str, Any]) -> dict[str, Any]:
    params = [before["generated_at"], ctx.as_of]
    n, right = (_count(ctx, sql, params) for sql in (RESOLVED_SQL, RIGHT_RESOLVED_SQL))
    if not n:
        return {"n": 0, "right": 0, "line": Md("No yes/no forecast reached its day since.")}
    r_n = ctx.book.query(
        "forecast_resolutions",
        RESOLVED_SQL,
        params,
        n,
        ctx.as_of,
        "resolved since the last briefing",
    )
    r_right = ctx.book.query(
        "forecast_resolutions",
        RIGHT_RESOLVED_SQL,
        params,
        right,
        ctx.as_of,
        "of them as predicted",
    )
    return {
        "n": n,
        "right": right,
        "line": Md(
            f"{n:,} yes/no forecasts reached their day {ref(r_n)}; {right:,} came true as "
            f"predicted {ref(r_right)} (the track record in the appendix lists them)."
        ),
    }


def _count(ctx: BriefingContext, sql: str, params: list[Any]) -> int:
    row = ctx.store.con.execute(sql, params).fetchone()
    return 0 if row is None else int(row[0])
