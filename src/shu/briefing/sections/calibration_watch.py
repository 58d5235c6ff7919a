"""The briefing's calibration watch: is shu still as sure as it says, over the newest resolved
window, and what did it do when not.

Over the forecasts whose horizon ended in the `WATCH_DAYS` days to the briefing's day (void
ones and the breakout radar's, which has its own record, left out):
- yes/no forecasts per confidence band (max(p, 1 - p): low/medium/high): n, mean confidence,
  how often they came true as predicted and its Wilson 95% interval;
- interval forecasts per band of the 28-day velocity on their origin (the question's threshold,
  stars/day: <1, 1-5, 5-20, >=20): n, how often the 80% interval held and its interval.
A band is off when its nominal figure (the mean confidence; 0.80) lies outside that interval;
each off band gets one plain line saying what shu does about it (the online conformal levels
of that velocity band, or for yes/no forecasts the regime guard, else nothing until the next
refit). The regime guard's line ("On an average day this week N% of repositories lost stars,
against M% usually: ...") comes from the newest `market_regime` row. A day of the 28 to the
briefing's day when at least `MASS_LOSS_TIMES` the usual share of repositories lost stars is
named once, against the regime guard's usual share (one baseline for the note), with its receipts
(`mass_loss_day`). The record of the surest answers counts only those at least `DEPARTED` from
their base rate (`DEPARTED_SQL`). The whole watch is after the body: shu's bookkeeping.

`calibration_watch(store, day)` returns all of it as a plain dict (the briefing JSON's
`calibration_watch`); `build` renders it with receipts and draws the reliability chart the HTML
shows (OUT_DIR/DAY-calibration-watch.png, `charts.watch_chart`). The guard's line is also shown at
the top of the appendix's table of every forecast (`cards.regime_line`).
"""

from __future__ import annotations

import json
import math
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from shu.briefing.card.interval import interval_for
from shu.briefing.charts import watch_chart
from shu.briefing.context import BriefingContext, Part
from shu.briefing.story_words import StoreLoss
from shu.briefing.text import and_list, day_text, pct, pct_interval
from shu.forecast.calibration import guard as regime_guard
from shu.forecast.confidence import BANDS, band_sql
from shu.forecast.evaluation.scoring import wilson_interval
from shu.forecast.features.regime import REFERENCE_DAYS, REFERENCE_LAG_DAYS
from shu.forecast.models.interval import VELOCITY_BANDS, VELOCITY_EDGES
from shu.forecast.questions.registry import INTERVAL_TEMPLATE as INTERVAL
from shu.forecast.records import RADAR_SQL_LIST, REPLAYED_SQL
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.signals.star_days import largest_loss_day
from shu.store import Store

WATCH_DAYS = 56
# How sure an answer is, per confidence band, as the briefing's prose says it.
CONFIDENCE_WORDS = {"high": "80% sure or more", "medium": "65–80% sure", "low": "under 65% sure"}

_BAND_ROWS = f"""
SELECT {band_sql("f.probability")} AS band,
       greatest(f.probability, 1 - f.probability) AS sure,
       ((f.probability >= 0.5) = (r.outcome = 'yes'))::INT AS came_true,
       {REPLAYED_SQL} AS replayed,
       abs(f.probability - f.base_rate) AS departure
FROM forecasts f JOIN forecast_resolutions r USING (forecast_id)
WHERE r.outcome IN ('yes', 'no') AND f.template <> '{INTERVAL}'
  AND f.template NOT IN ({RADAR_SQL_LIST})
  AND f.resolves_on > ? AND f.resolves_on <= ?"""

_VELOCITY_CASE = (
    "CASE "
    + " ".join(
        f"WHEN f.threshold < {edge} THEN '{band}'"
        for edge, band in zip(VELOCITY_EDGES, VELOCITY_BANDS, strict=False)
    )
    + f" ELSE '{VELOCITY_BANDS[-1]}' END"
)

_INTERVAL_ROWS = f"""
SELECT {_VELOCITY_CASE} AS band, i.held_80::INT AS held
FROM forecasts f JOIN interval_resolutions i USING (forecast_id)
WHERE f.template = '{INTERVAL}' AND f.resolves_on > ? AND f.resolves_on <= ?"""

# Per band, one number each (what a receipt cites; params: window start, day, band).
N_SQL = {
    "yes_no": f"SELECT count(*) FROM ({_BAND_ROWS}) WHERE band = ?",
    "intervals": f"SELECT count(*) FROM ({_INTERVAL_ROWS}) WHERE band = ?",
}
# Per band, how many of the yes/no forecasts were replayed (params as N_SQL's).
REPLAYED_N_SQL = f"SELECT count(*) FROM ({_BAND_ROWS}) WHERE band = ? AND replayed"
OBSERVED_SQL = {
    "yes_no": f"SELECT avg(came_true) FROM ({_BAND_ROWS}) WHERE band = ?",
    "intervals": f"SELECT avg(held) FROM ({_INTERVAL_ROWS}) WHERE band = ?",
}
# How far (in probability) from its base rate a yes/no answer must be to count in the watch's
# record of the surest answers: one at its base rate (a 1% chance of something that happened 1%
# of the time) is right about as often as it says by construction, whatever the model knows.
DEPARTED = 0.05
DEPARTED_ROWS = f"SELECT * FROM ({_BAND_ROWS}) WHERE band = ? AND departure >= {DEPARTED}"
# The same per band, over the answers at least DEPARTED from their base rate (params as N_SQL's).
DEPARTED_SQL = {
    "n": f"SELECT count(*) FROM ({DEPARTED_ROWS})",
    "observed": f"SELECT avg(came_true) FROM ({DEPARTED_ROWS})",
}

# A day on which at least this many times the usual share of repositories lost stars is named.
MASS_LOSS_TIMES = 3.0

_REGIME_SQL = "SELECT * FROM market_regime WHERE day <= ? ORDER BY day DESC LIMIT 1"

_LEVELS_SQL = f"""
SELECT band, levels, resolved_through, origin FROM forecast_calibration
WHERE template = '{INTERVAL}' AND levels IS NOT NULL AND origin <= ?
QUALIFY origin = max(origin) OVER ()
ORDER BY abs(horizon_days - 30), horizon_days, model_version"""


def build(ctx: BriefingContext) -> Part:
    """The watch, after the body (shu's bookkeeping): its sentences, the lines on what shu does
    and its chart, then its tables."""
    watch = calibration_watch(ctx.store, ctx.as_of)
    loss = mass_loss_day(ctx.store, ctx.as_of)
    watch["mass_loss_day"] = loss
    if not any(b["n"] for b in watch["yes_no"] + watch["intervals"]) and loss is None:
        start, end = (day_text(d) for d in watch["window"])
        return Part(
            "",
            data={"calibration_watch": watch},
            left_out=f"Calibration watch (no forecast resolved between {start} and {end})",
        )
    view = watch_section(ctx.store, ctx.book, ctx.as_of, ctx.out_dir, watch)
    ctx.charts.append(ctx.out_dir / view["chart"])
    # a day when several times the usual share of repositories lost stars: named once, here
    mass = mass_loss_sentence(ctx.book, ctx.as_of, loss) if loss else None
    return Part(
        "",
        data={"calibration_watch": watch},
        appendix=ctx.render(
            "sections/calibration_watch.md.j2", calibration_watch=view, mass_loss=mass
        )
        + ctx.render("sections/calibration_watch_appendix.md.j2", calibration_watch=view),
    )


def store_loss(ctx: BriefingContext) -> StoreLoss | None:
    """The store-wide share of repository-days losing stars this week with its receipt, when
    the regime guard is on for the briefing's day (None when it is off)."""
    regime = _newest_regime(ctx.store, ctx.as_of)
    if not regime or not regime.get("guard_on"):
        return None
    day = date.fromisoformat(regime["day"])
    r = ctx.book.row(
        "market_regime",
        {"day": regime["day"]},
        "share_falling_7d",
        regime["share_falling_7d"],
        day,
        "share of repositories losing stars per day, last 7 days",
    )
    return StoreLoss(day, float(regime["share_falling_7d"]), r)


def mass_loss_day(store: Store, day: date) -> dict[str, Any] | None:
    """The day of the 28 the regime guard reads (those to its newest `market_regime` row on or
    before `day`) when the largest share of the store's repositories lost stars, with that share
    and the guard's usual share (`usual_share_falling_7d`), when it was at least
    `MASS_LOSS_TIMES` the usual (None otherwise, or when the guard has no usual share)."""
    regime = _newest_regime(store, day)
    usual = (regime or {}).get("usual_share_falling_7d")
    if regime is None or usual is None or not usual > 0:
        return None
    anchor = date.fromisoformat(regime["day"])
    row = largest_loss_day(store.con, anchor)
    if row is None or row[1] < MASS_LOSS_TIMES * usual:
        return None
    return {
        "day": str(row[0]),
        "share": float(row[1]),
        "usual": float(usual),
        "regime_day": regime["day"],
    }


def _loss_day_receipt(book: ReceiptBook, day: date, loss: dict[str, Any]) -> int:
    on = date.fromisoformat(loss["day"])
    return book.row(
        "market_days",
        {"day": loss["day"]},
        "share_losing",
        loss["share"],
        day,
        f"share of repositories losing stars on {on}",
    )


def _usual_receipt(book: ReceiptBook, regime_day: str, usual: float) -> int:
    return book.row(
        "market_regime",
        {"day": regime_day},
        "usual_share_falling_7d",
        usual,
        date.fromisoformat(regime_day),
        "usual share of repositories losing stars per day (median over the reference window)",
    )


def mass_loss_sentence(book: ReceiptBook, day: date, loss: dict[str, Any]) -> Md:
    """The mass-loss day in one sentence: its share against the regime guard's usual one (the
    baseline the regime guard's line quotes), each with a receipt."""
    r_day = _loss_day_receipt(book, day, loss)
    r_usual = _usual_receipt(book, loss["regime_day"], loss["usual"])
    period = usual_period(date.fromisoformat(loss["regime_day"]))
    return Md(
        f"On {day_text(date.fromisoformat(loss['day']))}, {pct(loss['share'])} of the store's "
        f"repositories lost stars in one day [R{r_day}], {loss['share'] / loss['usual']:.0f} "
        f"times the {pct(loss['usual'], 1)} usual ({period}) [R{r_usual}]."
    )


def regime_notice(ctx: BriefingContext, loss_day: bool = False) -> Md | None:
    """ "On an average day this week N% of repositories lost stars, against M% usually" with its
    receipts, when the regime guard is on for the briefing's day (None when it is off); with
    `loss_day`, led by the day of the 28 the guard reads when a mass loss of stars fell on one
    (`mass_loss_day`): "On D, X% of repositories lost stars in one day; on an average day this
    week N% did, against M% usually"."""
    loss = store_loss(ctx)
    if loss is None:
        return None
    regime = _newest_regime(ctx.store, ctx.as_of)
    assert regime is not None
    r_usual = _usual_receipt(ctx.book, regime["day"], regime["usual_share_falling_7d"])
    cited = f"[R{loss.receipt}, R{r_usual}]"
    mass = mass_loss_day(ctx.store, ctx.as_of) if loss_day else None
    if mass is None:
        return Md(f"{_losing(regime)} {cited}")
    r_day = _loss_day_receipt(ctx.book, ctx.as_of, mass)
    return Md(
        f"On {day_text(date.fromisoformat(mass['day']))}, {pct(mass['share'])} of repositories "
        f"lost stars in one day [R{r_day}]; on an average day this week "
        f"{pct(regime['share_falling_7d'], 1)} did, against "
        f"{pct(regime['usual_share_falling_7d'], 1)} usually "
        f"({usual_period(date.fromisoformat(regime['day']))}) {cited}"
    )


def regime_action(ctx: BriefingContext) -> tuple[Md, list[str], dict[str, float]] | None:
    """When the regime guard changed a forecast a card shows: its notice (with its receipt),
    the repositories whose yes/no answers it held towards their base rates and those whose 80%
    ranges it widened (by how much); None when it changed none."""
    held, widened = [], {}
    for choice in ctx.cards:
        f = choice.forecast
        state = json.loads(f["calibration"]) if f and f.get("calibration") else {}
        if state.get("applies"):
            held.append(choice.repo)
        iv = choice.interval or (interval_for(ctx.store, f) if f else None)
        state = json.loads(iv["calibration"]) if iv and iv.get("calibration") else {}
        if state.get("widen", 1.0) > 1.0:
            widened[choice.repo] = state["widen"]
    notice = regime_notice(ctx)
    if notice is None or not (held or widened):
        return None
    return notice, list(dict.fromkeys(held)), widened


def calibration_watch(store: Store, day: date, window_days: int = WATCH_DAYS) -> dict[str, Any]:
    """The watch as plain data (see the module docstring)."""
    params = [day - timedelta(days=window_days), day]
    bands = {
        r[0]: r
        for r in store.con.execute(
            f"SELECT band, count(*), avg(sure), sum(came_true) FROM ({_BAND_ROWS}) GROUP BY band",
            params,
        ).fetchall()
    }
    yes_no = []
    for band in BANDS:
        _, n, mean_confidence, right = bands.get(band, (band, 0, None, 0))
        row = _with_interval(
            {"band": band, "n": int(n), "mean_confidence": mean_confidence},
            int(right),
            int(n),
            mean_confidence,
        )
        yes_no.append(row)
    held = {
        r[0]: r
        for r in store.con.execute(
            f"SELECT band, count(*), sum(held) FROM ({_INTERVAL_ROWS}) GROUP BY band", params
        ).fetchall()
    }
    intervals = []
    for band in VELOCITY_BANDS:
        _, n, k = held.get(band, (band, 0, 0))
        intervals.append(
            _with_interval({"band": band, "n": int(n), "nominal": 0.8}, int(k), int(n), 0.8)
        )
    regime = _newest_regime(store, day)
    levels = _newest_levels(store, day)
    watch = {
        "day": str(day),
        "window": [str(params[0] + timedelta(days=1)), str(day)],
        "window_days": window_days,
        "yes_no": yes_no,
        "intervals": intervals,
        "regime": regime,
        "interval_levels": levels,
        "sql": {
            "n": N_SQL,
            "observed": OBSERVED_SQL,
            "params": [str(p) for p in params] + ["<band>"],
        },
    }
    watch["departed"] = departed_band(store, day)
    watch["guard_line"] = guard_line(regime)
    watch["lines"] = _action_lines(watch)
    return watch


def departed_band(store: Store, day: date, band: str = "high") -> dict[str, Any]:
    """The yes/no forecasts of `band` resolved in the watch window that stood at least `DEPARTED`
    from their base rate: n, how many were replayed, mean confidence, how often they came true
    and whether the confidence lies outside that share's 95% interval (`off`)."""
    params = [day - timedelta(days=WATCH_DAYS), day, band]
    row = store.con.execute(
        f"SELECT count(*), coalesce(sum(came_true), 0), avg(sure), "
        f"count(*) FILTER (WHERE replayed) FROM ({DEPARTED_ROWS})",
        params,
    ).fetchone()
    n, right, said, replayed = row if row else (0, 0, None, 0)
    out = {"band": band, "n": int(n), "mean_confidence": said, "replayed": int(replayed)}
    return _with_interval(out, int(right), int(n), said)


def _with_interval(row: dict, right: int, n: int, nominal: float | None) -> dict:
    lo, hi = wilson_interval(right, n)
    row.update(
        {
            "observed": right / n if n else None,
            "ci_low": None if n == 0 else lo,
            "ci_high": None if n == 0 else hi,
            "off": bool(n and nominal is not None and not lo <= nominal <= hi),
        }
    )
    return row


def _newest_regime(store: Store, day: date) -> dict | None:
    cur = store.con.execute(_REGIME_SQL, [day])
    row = cur.fetchone()
    if row is None:
        return None
    out = dict(zip([d[0] for d in cur.description], row, strict=True))
    out = {
        k: (
            str(v)
            if isinstance(v, date)
            else (None if isinstance(v, float) and math.isnan(v) else v)
        )
        for k, v in out.items()
    }
    g = regime_guard.guard(out.get("distance"), out.get("loss_share_ratio_7d"))
    out.update({"guard_on": g.on, "shrink": g.shrink, "widen": g.widen})
    return out


def _newest_levels(store: Store, day: date) -> dict | None:
    rows = store.con.execute(_LEVELS_SQL, [day]).fetchall()
    if not rows:
        return None
    out: dict[str, Any] = {
        "origin": str(rows[0][3]),
        "resolved_through": None if rows[0][2] is None else str(rows[0][2]),
        "bands": {},
    }
    for band, levels, _, _ in rows:  # the horizon nearest 30 days first
        out["bands"].setdefault(band, [round(float(x), 4) for x in levels])
    return out


def usual_period(day: date) -> str:
    """Over what the regime's usual share is taken: the median week of the `REFERENCE_DAYS` days
    ending `REFERENCE_LAG_DAYS` before `day` (`forecast.features.regime`)."""
    end = day - timedelta(days=REFERENCE_LAG_DAYS)
    years = REFERENCE_DAYS // 365
    span = f"{years} years" if REFERENCE_DAYS % 365 < 7 else f"{REFERENCE_DAYS} days"
    return f"the median week of the {span} to {day_text(end)}"


def _losing(regime: dict) -> str:
    return (
        f"On an average day this week {pct(regime['share_falling_7d'], 1)} of "
        f"repositories lost stars, against {pct(regime['usual_share_falling_7d'], 1)} "
        f"usually ({usual_period(date.fromisoformat(regime['day']))})"
    )


def guard_line(regime: dict | None) -> str | None:
    """What the regime guard does while it is on (None when off), in one plain line: it holds
    the yes/no forecasts of repositories losing stars towards their base rate and widens the
    80% ranges (a purge alone, many more repositories losing stars than the year's usual share,
    holds the yes/no forecasts only); breakout forecasts it leaves alone."""
    if not regime or not regime.get("guard_on"):
        return None
    wider = regime["widen"] - 1
    ranges = f", and 80% ranges are {pct(wider)} wider" if wider > 0 else ""
    return (
        f"{_losing(regime)}: the yes/no forecasts of repositories losing stars are held closer "
        f"to how often such questions usually come true{ranges}; "
        "breakout forecasts are left as the model gave them."
    )


def _action_lines(watch: dict) -> list[str]:
    """One plain line per yes/no band that is off by more than its interval allows, and one per
    treatment of the 80% ranges that are (the bands shu treated alike share their line)."""
    lines = []
    regime = watch["regime"] or {}
    for b in watch["yes_no"]:
        if not b["off"]:
            continue
        said = "more" if b["mean_confidence"] > b["observed"] else "less"
        what = (
            "many more repositories than usual are losing stars this week, so shu holds the "
            "forecasts of those losing stars closer to how often such questions usually come true"
            if regime.get("guard_on")
            else "shu leaves yes/no answers as the model gives them until the next `shu train` "
            "refits on these outcomes (correcting them from month-old outcomes made past "
            "forecasts worse)"
        )
        ci = pct_interval(b["ci_low"], b["ci_high"], 0)
        lines.append(
            f"Answers {CONFIDENCE_WORDS[b['band']]} came true {pct(b['observed'])} of the time "
            f"(95% interval {ci}, n = {b['n']:,}) against {pct(b['mean_confidence'])} said: "
            f"shu was {said} sure than it should have been; {what}."
        )
    levels = (watch["interval_levels"] or {}).get("bands", {})
    ranges: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for b in watch["intervals"]:
        if not b["off"]:
            continue
        now = levels.get(b["band"])
        through = (watch["interval_levels"] or {}).get("resolved_through")
        through = day_text(through) if through else "the briefing's day"
        if not now:
            what = "shu has no correction stored yet for ranges of this size"
        elif abs(now[1] - 0.1) < 0.005 and abs(now[5] - 0.9) < 0.005:
            what = (
                "shu has not moved them yet: the questions resolved through "
                f"{through} do not ask it to"
            )
        else:
            move = level_move(now[1], now[5])
            what = f"shu {move}, as the questions resolved through {through} asked"
        label = _velocity_label(b["band"])
        # too wide / too narrow from the coverage, except where the correction read a bias
        # (both ends moved the same way): then the line says it shifted them instead
        width = "too wide" if b["observed"] > 0.8 else "too narrow"
        shifted = bool(now) and level_move(now[1], now[5]).startswith("shifted")
        verdict = "" if shifted else f", {width}"
        ci = pct_interval(b["ci_low"], b["ci_high"], 0)
        held = f"{pct(b['observed'])} of the time (95% interval {ci}, n = {b['n']:,})"
        ranges.setdefault((verdict, what), []).append((label, held))
    for (verdict, what), bands in ranges.items():  # bands treated alike: the treatment once
        lines.append(
            f"80% ranges of repositories gaining {and_list([lb for lb, _ in bands])} stars/day "
            f"held {and_list([held for _, held in bands])}{verdict}; {what}."
        )
    return lines


# How far (in levels) an end of the 80% range or its width must move to count as moved.
LEVEL_MOVED = 0.005
WIDTH_MOVED = 0.01


def level_move(lower: float, upper: float) -> str:
    """What the online levels of an 80% range (read at the `lower` and `upper` levels of past
    errors instead of 0.1 and 0.9) did to it, in words: "shifted them up/down to correct a bias"
    when both ends moved the same way, else "made them narrower/wider", or "kept them" when
    neither moved. A shifted range is not said to be narrower or wider: the levels' spread is
    not its width in stars/day (past errors are skewed: 0.13-0.98 of them can span more stars
    than 0.1-0.9, or fewer), and a range that held too rarely read as "made narrower" misleads;
    with both ends moving apart or together the width's direction is certain."""
    d_low, d_high = lower - 0.1, upper - 0.9
    same_way = (d_low >= LEVEL_MOVED and d_high >= LEVEL_MOVED) or (
        d_low <= -LEVEL_MOVED and d_high <= -LEVEL_MOVED
    )
    if same_way:
        return f"shifted them {'up' if d_low > 0 else 'down'} to correct a bias"
    d_width = d_high - d_low
    if abs(d_width) >= WIDTH_MOVED:
        return f"made them {'narrower' if d_width < 0 else 'wider'}"
    return "kept them"


def watch_section(
    store: Store, book: ReceiptBook, day: date, out_dir: Path, watch: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The section's view: the watch (`calibration_watch`, computed here unless given) with
    receipts on its numbers, its lines, and the chart (written to
    OUT_DIR/DAY-calibration-watch.png)."""
    watch = watch if watch is not None else calibration_watch(store, day)
    params = [day - timedelta(days=watch["window_days"]), day]
    rows = [
        _cited_row(book, "yes_no", b, params, day, "forecasts")
        | {"said": Md(pct(b["mean_confidence"], 1))}
        for b in watch["yes_no"]
    ]
    coverage = [
        _cited_row(book, "intervals", b, params, day, "80% intervals") for b in watch["intervals"]
    ]
    chart = out_dir / f"{day}-calibration-watch.png"
    watch_chart(watch, chart)
    said = []
    for b, row in zip(watch["yes_no"], rows, strict=True):
        if b["n"]:
            said.append(
                Md(
                    f"answers {CONFIDENCE_WORDS[b['band']]} came true {row['observed']} of "
                    f"{row['n']} times, against {pct(b['mean_confidence'], 1)} said"
                    + _departed_clause(book, day, watch, b)
                )
            )
    held = [
        Md(f"{row['observed']} for repositories gaining {row['band']} stars/day ({row['n']})")
        for b, row in zip(watch["intervals"], coverage, strict=True)
        if b["n"]
    ]
    return {
        "window": watch["window"],
        "said": Md("; ".join(said)),
        "held": Md(", ".join(held)),
        "yes_no": rows,
        "intervals": coverage,
        "lines": [Md(line) for line in watch["lines"]],
        "chart": chart.name,
        "any": any(b["n"] for b in watch["yes_no"] + watch["intervals"]),
    }


def _departed_clause(book: ReceiptBook, day: date, watch: dict, b: dict) -> str:
    """After the surest band's figures, when some of its answers stood near their base rate: the
    figures of those at least `DEPARTED` from it, with their receipts."""
    d = watch.get("departed") or {}
    if b["band"] != d.get("band") or not d.get("n") or d["n"] == b["n"]:
        return ""
    r_n, r_o = departed_receipts(book, day, d)
    return (
        f" (of the {d['n']:,} [R{r_n}] at least {round(100 * DEPARTED)} points from how often "
        f"such questions usually come true, {pct(d['observed'], 1)} [R{r_o}], against "
        f"{pct(d['mean_confidence'], 1)} said)"
    )


def departed_receipts(book: ReceiptBook, day: date, d: dict[str, Any]) -> tuple[int, int]:
    """The receipts (count, share that came true) of `departed_band`'s figures."""
    params = [day - timedelta(days=WATCH_DAYS), day, d["band"]]
    label = (
        f"forecasts in the {d['band']} band at least {round(100 * DEPARTED)} points from their "
        "base rate, resolved in the watch window"
    )
    r_n = book.query("forecast_resolutions", DEPARTED_SQL["n"], params, d["n"], day, label)
    r_o = book.query(
        "forecast_resolutions",
        DEPARTED_SQL["observed"],
        params,
        d["observed"],
        day,
        f"share of the {label} that came true",
    )
    return r_n, r_o


def _cited_row(book: ReceiptBook, kind: str, b: dict, params: list, day: date, what: str) -> dict:
    """A table row of the section: n and the observed share, each with its query receipt."""
    table = "forecast_resolutions" if kind == "yes_no" else "interval_resolutions"
    label = f"{what} in the {b['band']} band resolved in the watch window"
    r_n = book.query(table, N_SQL[kind], [*params, b["band"]], b["n"], day, label)
    observed = Md(pct(b["observed"], 1))
    if b["n"]:
        r_o = book.query(
            table,
            OBSERVED_SQL[kind],
            [*params, b["band"]],
            b["observed"],
            day,
            f"share of the {label} that held",
        )
        observed = Md(f"{pct(b['observed'], 1)} [R{r_o}]")
    band = Md(_velocity_label(b["band"])) if kind == "intervals" else b["band"]
    return {
        "band": band,
        "n": Md(f"{b['n']:,} [R{r_n}]"),
        "observed": observed,
        "ci": Md(pct_interval(b["ci_low"], b["ci_high"])),
        "off": "off" if b["off"] else "",
    }


def _velocity_label(band: str) -> str:
    """A velocity band's name as a reader writes it ('>=20' reads '≥ 20')."""
    return {"<1": "< 1", ">=20": "≥ 20"}.get(band, band.replace("-", "–"))
