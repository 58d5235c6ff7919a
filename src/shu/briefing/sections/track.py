"""The "Track record" section. In the body, one plain line on how sure the forecasts have been:
how many yes/no forecasts reached their day in the window, and the widest gap the reliability
diagram shows between what they said and how often they came true, in words ("answers of
60–70% came true 85% of the time", `widest_gap`: tenths of probability, with at least
`GAP_MIN_N` answers), pointing to the full record; nothing when no forecast has resolved. After
the body (shu's bookkeeping): forecasts resolved since the last briefing, rolling scores of the
yes/no forecasts (Brier against the window's observed rate, skill, ECE, hit rate per band), the
observed coverage of the interval forecasts, the breakout radar's precision@k and Brier score
(its forecasts are scored apart: `radar.record_view`), and the reliability diagram.

`track_record(store, day, window_days)` is the section's data: read-only queries bounded by the
briefing's day, each aggregate with the SELECT that reproduces it (a query receipt).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from shu.briefing import charts
from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections import radar
from shu.briefing.text import (
    REPLAYED_WHAT,
    interval_text,
    num,
    pct,
    ref,
    shown_value,
    template_words,
)
from shu.forecast.evaluation.scoring import brier, brier_sql, ece, n_bins_for
from shu.forecast.live.replay import REPLAY_PREFIX
from shu.forecast.questions.registry import INTERVAL_TEMPLATE
from shu.forecast.records import BAND_SQL, RADAR_SQL_LIST, RIGHT_SQL
from shu.safe_markdown import Md, safe_inline
from shu.store import Store, dicts

TRACK_WINDOW_DAYS = 90
GAP_MIN_N = 20  # a tenth of probability is named only with at least this many answers in it
# A yes/no forecast's tenth of probability (0: under 10%, ..., 9: 90% or more).
TENTH_SQL = "least(floor(f.probability * 10), 9)"


def build(ctx: BriefingContext) -> Part:
    """The track record's tables and its reliability chart (written beside the markdown)."""
    track = track_record(ctx.store, ctx.as_of, TRACK_WINDOW_DAYS)
    radar_record = radar.record_data(ctx)
    if not track.n and radar_record is None:  # nothing to say: left out, the appendix says why
        void = f", {track.n_void} void" if track.n_void else ""
        return Part(
            "",
            data={"track_record": track_data(track, None)},
            left_out=(
                f"Track record (no yes/no forecast reached its day in the last "
                f"{TRACK_WINDOW_DAYS} days{void})"
            ),
        )
    reliability_png = ctx.out_dir / f"{ctx.as_of}-reliability.png"
    charts.reliability_chart(
        track.pairs,
        reliability_png,
        title=f"Reliability of resolved forecasts, {TRACK_WINDOW_DAYS} days to {ctx.as_of}",
    )
    ctx.charts.append(reliability_png)
    view = {
        "track": _view(ctx, track),
        "reliability_png": reliability_png.name,
        "radar": radar.record_view(ctx),
        "day": ctx.as_of,
        "gap": _gap_words(ctx, track),
        "replayed_what": REPLAYED_WHAT,
    }
    return Part(
        ctx.render("sections/track.md.j2", **view) if track.n else "",
        data={"track_record": track_data(track, radar_record)},
        appendix=ctx.render("sections/track_appendix.md.j2", **view),
    )


def track_data(track: TrackRecord, radar_record: dict[str, Any] | None) -> dict[str, Any]:
    """The track record as plain data (`reports/DATE.json`); `radar` is the breakout radar's
    own record (None before any of its forecasts resolved)."""
    return {
        "window_days": TRACK_WINDOW_DAYS,
        "n": track.n,
        "n_void": track.n_void,
        "n_replayed": track.n_replayed,
        "brier": track.brier,
        "observed_rate_brier": track.observed_rate_brier,
        "brier_skill": track.skill,
        "ece": track.ece,
        "observed_rate": track.observed_rate,
        "bands": [{"band": b, "n": n, "hit_rate": h} for b, n, h in track.bands],
        "tenths": track.tenths,
        "widest_gap": widest_gap(track),
        "intervals": None
        if not track.intervals
        else {
            "n": track.intervals.n,
            "coverage": {str(level): track.intervals.coverage[level] for level in INTERVAL_LEVELS},
        },
        "resolved_since_last_briefing": [
            {
                k: row[k]
                for k in (
                    "repo",
                    "template",
                    "horizon_days",
                    "origin",
                    "probability",
                    "base_rate",
                    "outcome",
                    "observed_value",
                    "replayed",
                    "forecast_id",
                )
            }
            for row in track.since_last
        ],
    }


def _view(ctx: BriefingContext, track: TrackRecord) -> dict[str, Any]:
    resolved = []
    for row in track.since_last:
        r = ctx.book.row(
            "forecast_resolutions",
            {"forecast_id": row["forecast_id"]},
            "outcome",
            row["outcome"],
            row["resolved_at"].date(),
            "resolution",
        )
        interval = interval_text(row)
        outcome = safe_inline(row["outcome"])
        if interval:
            outcome = {"yes": "inside 80%", "no": "outside 80%"}.get(row["outcome"], outcome)
        resolved.append(
            {
                "repo": row["repo"],
                "template": template_words(row["template"]),
                "horizon": row["horizon_days"],
                "origin": f"{row['origin']}{' (replayed)' if row['replayed'] else ''}",
                "forecast": Md(interval or pct(row["probability"])),
                "base_rate": Md("—" if interval else pct(row["base_rate"])),
                "outcome": Md(f"{outcome} {ref(r)}"),
                "observed": Md(num(row["observed_value"])),
            }
        )
    metrics = None
    if track.n:
        r_n = ctx.book.query(
            "forecast_resolutions",
            track.n_sql,
            track.params,
            track.n,
            ctx.as_of,
            "resolved forecasts in window",
        )
        r_b = ctx.book.query(
            "forecast_resolutions",
            track.brier_sql,
            track.params,
            track.brier,
            ctx.as_of,
            "rolling Brier",
        )
        r_c = ctx.book.query(
            "forecast_resolutions",
            track.observed_rate_sql,
            track.params,
            track.observed_rate,
            ctx.as_of,
            "observed rate",
        )
        metrics = {
            "n": Md(f"{track.n:,} {ref(r_n)}"),
            "n_void": track.n_void,
            "brier": Md(f"{track.brier:.3f} {ref(r_b)}"),
            "observed_rate": Md(f"{pct(track.observed_rate, 1)} {ref(r_c)}"),
            "observed_rate_brier": Md(f"{track.observed_rate_brier:.3f}"),
            "skill": Md(num(track.skill, 3, signed=True)),
            "skill_words": skill_words(track),
            "ece": Md(f"{track.ece:.3f}"),
            "ece_bins": n_bins_for(track.n),
            "bands": [{"band": b, "n": n, "hit_rate": Md(pct(h))} for b, n, h in track.bands],
        }
    intervals = None
    if track.intervals:
        iv = track.intervals
        r_n = ctx.book.query(
            "interval_resolutions",
            iv.n_sql,
            track.params,
            iv.n,
            ctx.as_of,
            "resolved interval forecasts in window",
        )
        intervals = {
            "n": Md(f"{iv.n:,} {ref(r_n)}"),
            "levels": [
                {
                    "nominal": f"{level}%",
                    "observed": Md(
                        pct(iv.coverage[level], 1)
                        + " "
                        + ref(
                            ctx.book.query(
                                "interval_resolutions",
                                iv.coverage_sql[level],
                                track.params,
                                iv.coverage[level],
                                ctx.as_of,
                                f"observed coverage of the {level}% intervals",
                            )
                        )
                    ),
                }
                for level in INTERVAL_LEVELS
            ],
        }
    return {
        "since": track.since,
        "resolved": resolved,
        "metrics": metrics,
        "intervals": intervals,
        "window_days": TRACK_WINDOW_DAYS,
        "n_void": track.n_void,
        "n_replayed": track.n_replayed,
    }


def widest_gap(track: TrackRecord) -> dict[str, Any] | None:
    """The tenth of probability (with at least `GAP_MIN_N` answers) whose answers came true
    furthest from how often they said: its bounds, n, mean answer and share that came true."""
    shown = [b for b in track.tenths if b["n"] >= GAP_MIN_N]
    if not shown:
        return None
    return max(shown, key=lambda b: (abs(b["observed"] - b["said"]), b["n"]))


def _gap_words(ctx: BriefingContext, track: TrackRecord) -> Md | None:
    """'answers of 60–70% came true 85% of the time [R4]' for `widest_gap` (None: none)."""
    gap = widest_gap(track)
    if gap is None:
        return None
    params = [*track.params, gap["tenth"]]
    where = f"{track.scored_sql} AND {TENTH_SQL} = ?"
    r_n = ctx.book.query(
        "forecast_resolutions",
        f"SELECT count(*) {where}",
        params,
        gap["n"],
        ctx.as_of,
        f"resolved forecasts of {gap['tenth'] * 10}-{gap['tenth'] * 10 + 10}%",
    )
    r_o = ctx.book.query(
        "forecast_resolutions",
        f"SELECT avg((r.outcome = 'yes')::INT) {where}",
        params,
        gap["observed"],
        ctx.as_of,
        f"share of forecasts of {gap['tenth'] * 10}-{gap['tenth'] * 10 + 10}% that came true",
    )
    lo, hi = gap["tenth"] * 10, gap["tenth"] * 10 + 10
    return Md(
        f"answers of {lo}–{hi}% ({gap['n']:,} {ref(r_n)}) came true {pct(gap['observed'])} of "
        f"the time {ref(r_o)}"
    )


def skill_words(track: TrackRecord) -> str:
    """How much better (or worse) the Brier score is than always saying the window's observed
    rate, in %, from the two scores as the note shows them (3 decimals), so a reader redoing it
    from them gets the same figure."""
    if track.brier is None or track.observed_rate_brier is None:
        return "nothing to compare it with"
    reference = shown_value(track.observed_rate_brier, 3)
    if reference <= 0:
        return "nothing to compare it with"
    skill = 1 - shown_value(track.brier, 3) / reference
    if abs(skill) < 0.005:
        return "no better than that"
    return f"{abs(100 * skill):.0f}% {'better' if skill > 0 else 'worse'}"


@dataclass
class TrackRecord:
    """Resolutions since the last briefing and rolling scores over a window of resolved days."""

    since: datetime | None
    since_last: list[dict[str, Any]]
    n: int = 0
    n_void: int = 0
    n_replayed: int = 0  # forecasts in the window issued by `shu replay` (resolved incl. void)
    brier: float | None = None
    observed_rate: float | None = None  # the share of yes among the window's scored forecasts
    observed_rate_brier: float | None = None  # Brier of always saying it, per template x horizon
    skill: float | None = None
    ece: float | None = None
    bands: list[tuple[str, int, float]] = field(default_factory=list)
    pairs: list[tuple[float, int]] = field(default_factory=list)
    # per tenth of probability with answers: tenth (0-9), n, mean answer, share that came true
    tenths: list[dict[str, Any]] = field(default_factory=list)
    scored_sql: str = ""  # FROM ... WHERE of the scored yes/no forecasts (params: `params`)
    n_sql: str = ""
    brier_sql: str = ""
    observed_rate_sql: str = ""
    params: list[Any] = field(default_factory=list)
    intervals: IntervalRecord | None = None


INTERVAL_LEVELS = (50, 80, 95)


@dataclass
class IntervalRecord:
    """Resolved interval forecasts in the track record's window: how often each central
    interval held (`coverage`: nominal % -> observed share), with the SELECTs behind them."""

    n: int
    n_sql: str
    coverage: dict[int, float] = field(default_factory=dict)
    coverage_sql: dict[int, str] = field(default_factory=dict)


def track_record(store: Store, day: date, window_days: int) -> TrackRecord:
    """The briefing's track record as of `day`.

    Rolling scores cover yes/no forecasts that resolved (void is counted apart) with
    `resolves_on` in (day - window_days, day]. Their skill is read against the window's own
    observed rate of yes per template and horizon (known only afterwards, so a stricter reference
    than the climatology each forecast was issued against): skill = 1 - Brier / the Brier of
    always saying that rate. ECE is `evaluation.scoring.ece` (its equal-count bins). Interval
    forecasts (stored as "the 80% interval holds" at p = 0.8) are not scored with them: their
    record is the observed coverage of each central interval against its nominal level
    (`intervals`). The radar's forecasts (every repository in the store) are left out: they have
    their own record (`shu.forecast.radar.entries.radar_record`).
    """
    since = store.con.execute(
        "SELECT max(generated_at) FROM briefings WHERE day < ?", [day]
    ).fetchall()[0][0]
    since_last = dicts(
        store.con.execute(
            "SELECT f.forecast_id, f.repo, f.template, f.horizon_days, f.origin, f.probability, "
            "f.base_rate, "
            "r.outcome, r.observed_value, r.resolved_at, "
            f"f.model_version LIKE '{REPLAY_PREFIX}%' AS replayed, "
            "i.median, i.lower_80, i.upper_80 "
            "FROM forecast_resolutions r JOIN forecasts f USING (forecast_id) "
            "LEFT JOIN forecast_intervals i USING (forecast_id) "
            "WHERE r.resolved_at > ? AND f.resolves_on <= ? "
            f"AND f.template NOT IN ({RADAR_SQL_LIST}) "
            "ORDER BY r.resolved_at DESC, f.forecast_id LIMIT 12",
            [since or datetime(1970, 1, 1), day],
        )
    )
    window = (
        "FROM forecasts f JOIN forecast_resolutions r USING (forecast_id) WHERE "
        "f.resolves_on > ? AND f.resolves_on <= ? "
        f"AND f.template NOT IN ({RADAR_SQL_LIST})"
    )
    params = [day - timedelta(days=window_days), day]
    record = TrackRecord(since, since_last, params=params)
    record.n_replayed = int(
        store.con.execute(
            f"SELECT count(*) {window} AND f.model_version LIKE '{REPLAY_PREFIX}%'", params
        ).fetchall()[0][0]
    )
    record.intervals = _interval_record(store, params)
    window += f" AND f.template <> '{INTERVAL_TEMPLATE}'"
    void_sql = f"SELECT count(*) {window} AND r.outcome = 'void'"
    record.n_void = int(store.con.execute(void_sql, params).fetchall()[0][0])
    scored = f"{window} AND r.outcome IN ('yes', 'no')"
    record.scored_sql = scored
    record.n_sql = f"SELECT count(*) {scored}"
    outcome = "(r.outcome = 'yes')::INT"
    record.brier_sql = f"SELECT {brier_sql('f.probability', outcome)} {scored}"
    record.observed_rate_sql = f"SELECT avg((r.outcome = 'yes')::INT) {scored}"
    record.n = int(store.con.execute(record.n_sql, params).fetchall()[0][0])
    if not record.n:
        return record
    record.brier = float(store.con.execute(record.brier_sql, params).fetchall()[0][0])
    record.observed_rate = float(
        store.con.execute(record.observed_rate_sql, params).fetchall()[0][0]
    )
    rows = store.con.execute(
        f"SELECT f.probability, (r.outcome = 'yes')::INT AS y, "
        f"avg((r.outcome = 'yes')::INT) OVER (PARTITION BY f.template, f.horizon_days) AS rate, "
        f"{BAND_SQL} AS band, {RIGHT_SQL} AS is_right {scored} ORDER BY f.probability",
        params,
    ).fetchall()
    record.pairs = [(float(p), int(y)) for p, y, _, _, _ in rows]
    record.tenths = [
        {"tenth": int(t), "n": int(n), "said": float(said), "observed": float(observed)}
        for t, n, said, observed in store.con.execute(
            f"SELECT {TENTH_SQL} AS tenth, count(*), avg(f.probability), "
            f"avg((r.outcome = 'yes')::INT) {scored} GROUP BY tenth ORDER BY tenth",
            params,
        ).fetchall()
    ]
    record.observed_rate_brier = brier(
        np.array([y for _, y, _, _, _ in rows], dtype=float),
        np.array([c for _, _, c, _, _ in rows], dtype=float),
    )
    if record.observed_rate_brier > 0:
        record.skill = 1 - record.brier / record.observed_rate_brier
    record.ece = ece(
        np.array([y for _, y in record.pairs], dtype=float),
        np.array([p for p, _ in record.pairs], dtype=float),
    )
    for band in ("low", "medium", "high"):
        members = [r for r in rows if r[3] == band]
        if members:
            record.bands.append(
                (band, len(members), sum(1 for r in members if r[4]) / len(members))
            )
    return record


def _interval_record(store: Store, params: list[Any]) -> IntervalRecord | None:
    """Coverage of the interval forecasts resolved in the window (None when there is none)."""
    base = (
        "FROM forecasts f JOIN interval_resolutions i USING (forecast_id) WHERE "
        f"f.template = '{INTERVAL_TEMPLATE}' AND f.resolves_on > ? AND f.resolves_on <= ?"
    )
    n_sql = f"SELECT count(*) {base}"
    n = int(store.con.execute(n_sql, params).fetchall()[0][0])
    if not n:
        return None
    record = IntervalRecord(n, n_sql)
    for level in INTERVAL_LEVELS:
        record.coverage_sql[level] = f"SELECT avg(i.held_{level}::INT) {base}"
        record.coverage[level] = float(
            store.con.execute(record.coverage_sql[level], params).fetchall()[0][0]
        )
    return record
