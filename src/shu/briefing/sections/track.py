"""The "Track record" section: forecasts resolved since the last briefing, rolling scores of the
yes/no forecasts (Brier against climatology, skill, ECE, hit rate per confidence band), the
observed coverage of the interval forecasts, the breakout radar's precision@k and Brier score
(its forecasts are scored apart: `radar.record_view`), and the reliability diagram."""

from __future__ import annotations

from typing import Any

from shu.briefing import charts, facts
from shu.briefing.context import BriefingContext, Part
from shu.briefing.safe import Md, safe_inline
from shu.briefing.sections import radar
from shu.briefing.text import interval_text, num, pct, ref

TRACK_WINDOW_DAYS = 90


def build(ctx: BriefingContext) -> Part:
    """The track record's tables and its reliability chart (written beside the markdown)."""
    track = facts.track_record(ctx.store, ctx.day, TRACK_WINDOW_DAYS)
    reliability_png = ctx.out_dir / f"{ctx.day}-reliability.png"
    charts.reliability_chart(track.pairs, reliability_png,
                             title=f"Reliability of resolved forecasts, {TRACK_WINDOW_DAYS} days "
                                   f"to {ctx.day}")
    ctx.charts.append(reliability_png)
    return Part(ctx.render("sections/track.md.j2", track=_view(ctx, track),
                           reliability_png=reliability_png.name,
                           radar=radar.record_view(ctx)))


def _view(ctx: BriefingContext, track: facts.TrackRecord) -> dict[str, Any]:
    resolved = []
    for row in track.since_last:
        r = ctx.book.row("forecast_resolutions", {"forecast_id": row["forecast_id"]}, "outcome",
                         row["outcome"], row["resolved_at"].date(), "resolution")
        interval = interval_text(row)
        outcome = safe_inline(row["outcome"])
        if interval:
            outcome = {"yes": "inside 80%", "no": "outside 80%"}.get(row["outcome"], outcome)
        resolved.append({"repo": row["repo"], "template": row["template"],
                         "horizon": row["horizon_days"],
                         "origin": f"{row['origin']}{' (replayed)' if row['replayed'] else ''}",
                         "forecast": Md(interval or pct(row["probability"])),
                         "outcome": Md(f"{outcome} {ref(r)}"),
                         "observed": Md(num(row["observed_value"]))})
    metrics = None
    if track.n:
        r_n = ctx.book.query("forecast_resolutions", track.n_sql, track.params, track.n,
                             ctx.day, "resolved forecasts in window")
        r_b = ctx.book.query("forecast_resolutions", track.brier_sql, track.params, track.brier,
                             ctx.day, "rolling Brier")
        r_c = ctx.book.query("forecast_resolutions", track.base_sql, track.params,
                             track.base_rate, ctx.day, "climatology base rate")
        metrics = {
            "n": Md(f"{track.n:,} {ref(r_n)}"),
            "n_void": track.n_void,
            "brier": Md(f"{track.brier:.3f} {ref(r_b)}"),
            "base_rate": Md(f"{pct(track.base_rate, 1)} {ref(r_c)}"),
            "climatology_brier": Md(f"{track.climatology_brier:.3f}"),
            "skill": Md(num(track.skill, 3, signed=True)),
            "ece": Md(f"{track.ece:.3f}"),
            "bands": [{"band": b, "n": n, "hit_rate": Md(pct(h))} for b, n, h in track.bands],
        }
    intervals = None
    if track.intervals:
        iv = track.intervals
        r_n = ctx.book.query("interval_resolutions", iv.n_sql, track.params, iv.n, ctx.day,
                             "resolved interval forecasts in window")
        intervals = {"n": Md(f"{iv.n:,} {ref(r_n)}"), "levels": [
            {"nominal": f"{level}%", "observed": Md(pct(iv.coverage[level], 1) + " " + ref(
                ctx.book.query("interval_resolutions", iv.coverage_sql[level], track.params,
                               iv.coverage[level], ctx.day,
                               f"observed coverage of the {level}% intervals")))}
            for level in facts.INTERVAL_LEVELS]}
    return {"since": track.since, "resolved": resolved, "metrics": metrics,
            "intervals": intervals, "window_days": TRACK_WINDOW_DAYS,
            "n_void": track.n_void, "n_replayed": track.n_replayed}
