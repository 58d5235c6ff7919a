"""The "Breaking out" section: the radar's top repositories that are not tracked, each with its
28-day velocity now, its probability of a breakout, the pace a breakout needs, and in a few words
what lifts its chance most (`strongest_for`; where nothing does, what lowers it most), with
receipts (`shu.operations.radar`), also as the briefing JSON's `radar` key (in the one shape of
an entry, `RadarEntry.as_json`, that `shu radar --json` prints, every driver kept); what the
topic filter left out goes to the appendix ("The radar's filter"), one line in the body. And the
radar's own track record, which the "Track record" section shows (`record_view`,
`record_data`)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import day_text, lower_first, num, pct, ref, repo_link
from shu.forecast.evaluation.precision_at_k import KS
from shu.forecast.models.artifact import CARD_JSON
from shu.forecast.models.tail import MIN_ORIGINS, TOP_K
from shu.forecast.questions.star import BREAKOUT_MIN, BREAKOUT_MULTIPLE
from shu.forecast.radar import entries as radar_data
from shu.forecast.radar.statements import FIRST_DAY_SQL, Driver, strongest_for
from shu.operations.radar import radar_view
from shu.receipts import Citation
from shu.safe_markdown import Md

TOP = 6
# the bar statement's features that are the pace itself (how fast it is, the bar it sets)
PACE_ITSELF = frozenset({"slog_velocity_28d", "log_bar"})
# A repository whose star data in the store began fewer days than this before the radar's day
# says so in its row: its 90-day pace, and the bar read from it, rest on less than that.
SHORT_DATA_DAYS = 90


def shown_on(
    ctx: BriefingContext, day: date, top: int = TOP
) -> tuple[radar_data.RadarScope, list[radar_data.RadarEntry]]:
    """The radar as the briefing shows it on `day` (here, in At a glance and since the last
    briefing): the top untracked repositories the topic filter keeps, and what it left out."""
    view = radar_view(ctx.store, ctx.settings, day, top)
    return view.scope, view.entries


def build(ctx: BriefingContext) -> Part:
    """The table of the top `TOP` untracked repositories on the radar whose name (or
    description) carries one of the radar's keywords (`shu.forecast.radar.topics`)."""
    view = radar_view(ctx.store, ctx.settings, ctx.as_of, TOP)
    scope, entries = view.scope, view.entries
    keywords = scope.keywords
    rows = []
    for e in entries:
        r_p = ctx.book.cite(e.probability_citation)
        r_v = ctx.book.cite(e.velocity_citation) if e.velocity_citation else 0
        rows.append(
            {
                "repo": Md(repo_link(e.repo) + _short_data(ctx, e)),
                "velocity": Md(f"{num(e.velocity_28d, 1)} {ref(r_v)}"),
                "probability": Md(f"{pct(e.probability, 1)} {ref(r_p)}"),
                "bar": _bar(e),
                "why": _lift(ctx, e),
            }
        )
    origin = entries[0].origin if entries else None
    data: dict[str, Any] = {"radar": [e.as_json() for e in entries]}
    nothing = view.why_empty  # why there is no forecast to show
    if keywords:
        data["radar_filter"] = {
            "keywords": list(keywords),
            "untracked_forecast": scope.n_forecast,
            "left_out": scope.n_left_out,
            "left_out_of_top": scope.left_out_top,
            "matched_descriptions": scope.n_described > 0,
        }
    if not entries:
        data["notes"] = {
            "radar": nothing
            or f"none of the {scope.n_forecast} untracked repositories forecast on or before "
            f"{ctx.as_of} matches the radar's keywords (radar_keywords)"
        }
    by = day_text(entries[0].resolves_on) if entries else None
    filtered = _filter_view(scope) if keywords and scope.n_forecast else None
    return Part(
        ctx.render(
            "sections/radar.md.j2",
            rows=rows,
            origin=day_text(origin) if origin else None,
            by=by,
            top=TOP,
            why=Md(nothing) if nothing else None,
            filtered=filtered,
            trust=_trust(ctx, entries[0]) if entries else None,
        ),
        data=data,
        appendix=ctx.render("sections/radar_appendix.md.j2", filtered=filtered, top=TOP)
        if filtered
        else "",
    )


def _bar(e: radar_data.RadarEntry) -> Md:
    """The bar a breakout needs, with what set it: twice today's 28-day pace, twice the 90-day
    pace (a repository that has slowed), or the minimum."""
    doubled = BREAKOUT_MULTIPLE * max(e.velocity_28d or 0.0, 1.0)
    if e.bar <= BREAKOUT_MIN and doubled < BREAKOUT_MIN:
        return Md(f"{num(e.bar, 1)} (the minimum)")
    if num(e.bar, 1) != num(doubled, 1):
        return Md(f"{num(e.bar, 1)} (twice its 90-day pace)")
    return Md(f"{num(e.bar, 1)} (twice its pace now)")


# A tail factor this close to 1 leaves the chances as the model gave them, in words.
FACTOR_NEUTRAL = 0.05


def _trust(ctx: BriefingContext, e: radar_data.RadarEntry) -> Md | None:
    """How far to trust the chances, in two sentences: how often the radar's 10 most likely came
    true in the backtest against the momentum ranking's 10 (the model card's record of the
    model that issued them), and which way the online tail factor they were issued with moved
    them (`models.tail`: its top's last resolved weeks said more, or less, than came true).
    None when neither is stored."""
    parts = []
    card = Path(ctx.settings.models_dir) / CARD_JSON
    key = f"{radar_data.TEMPLATE}/{e.horizon_days}"
    meta = json.loads(card.read_text(encoding="utf-8")) if card.exists() else {}
    ranking = (meta.get("backtest") or {}).get("slices", {}).get(key, {}).get("ranking")
    if meta.get("version") == e.model_version and ranking and "model" in ranking:
        k = KS[0]
        cited = []
        for name in ("model", "momentum"):
            value = ranking[name][f"precision_at_{k}"]["mean"]
            pointer = ["backtest", "slices", key, "ranking", name, f"precision_at_{k}", "mean"]
            r = ctx.book.file(str(card), pointer, value, None, f"backtest precision@{k}, {name}")
            cited.append(f"{pct(value)} {ref(r)}")
        parts.append(
            f"in the backtest ({ranking['n_origins']} weekly days) {cited[0]} of its top {k} "
            f"broke out, against {cited[1]} of the {k} whose last week most outran their 28-day "
            "pace."
        )
    row = ctx.store.con.execute(
        "SELECT c.band, c.tail_factor, c.n_resolved FROM forecasts f JOIN forecast_calibration c "
        "ON c.origin = f.origin AND c.model_version = f.model_version "
        "AND c.template = f.template AND c.horizon_days = f.horizon_days "
        "WHERE f.forecast_id = ? AND c.tail_factor IS NOT NULL",
        [e.forecast_id],
    ).fetchone()
    if row is not None:
        band, factor, n_resolved = row
        r = ctx.book.row(
            "forecast_calibration",
            {
                "origin": e.origin,
                "model_version": e.model_version,
                "template": radar_data.TEMPLATE,
                "horizon_days": e.horizon_days,
                "band": band,
            },
            "tail_factor",
            factor,
            e.origin,
            "the radar's online tail factor",
        )
        moved, why = (
            (
                "today's are left as the model gave them",
                "those weeks' top said about what came true",
            )
            if abs(factor - 1) < FACTOR_NEUTRAL
            else ("today's are raised", "those weeks' top broke out more often than it said")
            if factor > 1
            else ("today's are lowered", "those weeks' top broke out less often than it said")
        )
        weeks = (n_resolved or 0) // TOP_K
        basis = (
            f"tuned weekly to how its top {TOP_K} of the last {weeks} resolved weeks came out"
            if weeks >= MIN_ORIGINS
            else "scaled to what came true of the model's top in the weeks it was calibrated "
            f"on (fewer than {MIN_ORIGINS} of the radar's weeks have resolved)"
        )
        parts.append(
            f"Chances are {basis}; {moved} (tail factor {num(factor, 2)} {ref(r)}), as {why}."
        )
    if not parts:
        return None
    return Md("How far to trust these chances: " + lower_first(" ".join(parts)))


def _lift(ctx: BriefingContext, e: radar_data.RadarEntry) -> Md:
    """What lifts the chance most, in a few words with its receipts (`strongest_for`); where
    that is the pace itself (the same reason on most rows), the next of its own reasons too;
    where every driver lowers it, the one lowering it most, said as such."""
    d = strongest_for(e.drivers)
    if d is None:
        if e.drivers:
            return Md(f"nothing lifts it; most against it: {_short(ctx, e.drivers[0], e)}")
        return Md("the model names no reason")
    if d.kind == "bar" and d.feature in PACE_ITSELF:
        rest = [x for x in e.drivers if x.towards and x.kind != "bar" and not x.store_wide]
        if rest:
            first = _short(ctx, d, e, compact=True)
            return Md(f"{first}; then {_short(ctx, rest[0], e, compact=True)}")
    return Md(_short(ctx, d, e))


def _short(
    ctx: BriefingContext, d: Driver, e: radar_data.RadarEntry, *, compact: bool = False
) -> str:
    """A driver as the table's few words (the bar is in its own column, so the statement about
    the pace against it says only how near it is), with the receipts of the rows it quotes;
    `compact`: one of two reasons, its figures in brackets left out (the pace itself, first,
    without its figure: the table's pace column gives it)."""
    refs = ref(*(ctx.book.cite(c) for c in d.citations))
    v28 = e.velocity_28d
    if d.kind == "bar" and v28 is not None and e.bar > 0:
        if d.feature == "log_bar":
            return f"how fast it already is, the bar it sets {refs}"
        if d.feature == "slog_velocity_28d":  # compact: the pace is in its own column
            return f"its pace {refs}" if compact else f"its pace of {num(v28, 1)} stars/day {refs}"
        return f"its pace, already {pct(max(v28, 0.0) / e.bar)} of the bar {refs}"
    if d.kind == "days3":  # its rows: the count now, 3 days before, the bar
        now, before = (float(c.value) for c in d.citations[:2])
        return f"the last 3 days at {num((now - before) / 3, 1)} stars/day {refs}"
    if d.kind == "size":
        return f"its size, {d.text} {refs}"
    if d.store_wide:  # the same for every row: said as such, its figure in the JSON
        return f"only what the whole store or its peers did, nothing of its own {refs}"
    text = d.text
    if compact:  # after "its pace of ...": the pace goes unsaid, the figures in brackets too
        text = text.split(" (")[0].replace("the 28-day pace sits ", "its pace ")
    return f"{text} {refs}"


def _short_data(ctx: BriefingContext, e: radar_data.RadarEntry) -> Md:
    """The words " (in the store's data since DAY [Rn])" when the repository's star data began
    fewer than `SHORT_DATA_DAYS` days before the radar's day, so a reader can weigh its row ("" if
    not)."""
    if e.first_day is None or (e.origin - e.first_day).days >= SHORT_DATA_DAYS:
        return Md("")
    r = ctx.book.cite(
        Citation(
            "query",
            "star_signals",
            {},
            "",
            e.first_day,
            e.origin,
            f"{e.repo} first day with star data",
            sql=FIRST_DAY_SQL,
            params=[e.repo],
        )
    )
    return Md(f" (in the store's data since {day_text(e.first_day)} {ref(r)})")


def _filter_view(scope: radar_data.RadarScope) -> dict[str, Any]:
    """What the section (one line) and the appendix say of the topic filter: how many it kept
    and left out, which of the most likely it left out, what it matched on."""
    top = scope.left_out_top
    named = ", ".join(repo_link(r) for r in top)
    return {
        "n_forecast": f"{scope.n_forecast:,}",
        "n_kept": f"{scope.n_forecast - scope.n_left_out:,}",
        "n_left_out": f"{scope.n_left_out:,}",
        "n_top": len(top),
        "top_named": Md(named),
        "descriptions": scope.n_described > 0,
    }


def precision_sql(rows_sql: str, k: int) -> str:
    """The SELECT of precision@k over the radar's scored rows (`rows_sql`: repo, origin,
    probability, label): per origin the share that broke out among the k most likely (ties by
    repository, as `precision_at_k.precision_by_origin` ranks them), averaged over origins."""
    return (
        "SELECT avg(hit) FROM (SELECT origin, avg(label) AS hit FROM (SELECT origin, label, "
        "row_number() OVER (PARTITION BY origin ORDER BY probability DESC NULLS LAST, repo) "
        f"AS k FROM ({rows_sql})) WHERE k <= {k} GROUP BY origin)"
    )


def record_data(ctx: BriefingContext) -> dict[str, Any] | None:
    """The radar's record as plain data for `reports/DATE.json` (None before any resolved)."""
    record = radar_data.radar_record(ctx.store, ctx.as_of)
    if record is None:
        return None
    return {k: v for k, v in record.items() if k not in ("sql", "params")}


def record_view(ctx: BriefingContext) -> dict[str, Any] | None:
    """The radar's scores over its resolved forecasts, worded for the track record (None when
    none has resolved)."""
    record = radar_data.radar_record(ctx.store, ctx.as_of)
    if record is None:
        return None

    def interval(m: dict, digits: int = 3) -> Md:
        return Md(f"{m['mean']:.{digits}f} [{m['low']:.{digits}f}, {m['high']:.{digits}f}]")

    origins = record["n_origins"]
    top = []
    for k in KS[:1]:
        hit = record["precision"][k]["mean"]
        r_hit = ctx.book.query(
            "forecast_resolutions",
            precision_sql(record["sql"], k),
            record["params"],
            hit,
            ctx.as_of,
            f"share of the radar's top {k} that broke out, averaged over its days",
        )
        top.append((k, Md(f"{pct(hit)} {ref(r_hit)}")))
    # the base rate the top's hit rate is read against: the share of every resolved radar
    # forecast of those days that broke out
    base = record["events"] / record["n"]
    r_base = ctx.book.query(
        "forecast_resolutions",
        f"SELECT avg(label) FROM ({record['sql']})",
        record["params"],
        base,
        ctx.as_of,
        "share of resolved radar forecasts that broke out",
    )
    r_n = ctx.book.query(
        "forecast_resolutions",
        f"SELECT count(*) FROM ({record['sql']})",
        record["params"],
        record["n"],
        ctx.as_of,
        "resolved radar forecasts",
    )

    return {
        "n": Md(f"{record['n']:,} {ref(r_n)}"),
        "origins": f"{origins} day{'' if origins == 1 else 's'}",
        "events": record["events"],
        "precision": Md(", ".join(f"top {k} {interval(record['precision'][k], 2)}" for k in KS)),
        "top": top,
        "base_rate": Md(f"{pct(base, 1)} {ref(r_base)}"),
        "brier": interval(record["brier"], 4),
        "skill": interval(record["skill"]),
    }
