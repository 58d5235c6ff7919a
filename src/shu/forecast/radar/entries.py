"""The breakout radar: the newest `star_breakout` forecasts over every repository, ranked by
probability, each with its velocity now, the drivers in plain words with their numbers, and the
receipts behind each number.

`radar(store, as_of, top)` reads what `shu forecast` / `shu daily` issued (the forecasts of the
newest origin on or before `as_of` that resolve after it, so a stale store's old forecasts, whose
day has passed, never read as the radar's; one per repository, the latest issued when a model
was retrained that day) and returns `RadarEntry`s: plain data that `shu radar` prints (or dumps as
JSON) and the briefing's "Breaking out" section renders. Nothing is recomputed: the
probability, the bar and the model's drivers are the stored forecast's, worded by
`shu.forecast.radar.statements` with a `Citation` for every number they quote.

`radar_scope(store, keywords, ...)` says which repositories the topic filter
(`shu.forecast.radar.topics`) keeps, for `radar(..., only=scope.kept)`; `why_empty` says why
there is nothing to show (no repository to scan, the newest forecasts resolved before the day
asked, no breakout forecaster, none issued yet).

`radar_record(store, day)` scores the radar's resolved forecasts the way the backtest does:
precision@10/20/50 per origin and the Brier score with its skill against the base rate, each
with n and a 95% interval over origins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from shu.forecast.evaluation.precision_at_k import KS, ranking_metrics
from shu.forecast.evaluation.scoring import brier_of_rate, skill_score, squared_errors
from shu.forecast.models.artifact import CARD_JSON
from shu.forecast.questions.registry import RANKED_TEMPLATES
from shu.forecast.radar.statements import (
    Driver,
    as_date,
    drivers_in_words,
    float_or_none,
    signal_citation,
)
from shu.forecast.radar.topics import matches
from shu.receipts import Citation
from shu.store import Store

(TEMPLATE,) = RANKED_TEMPLATES  # the radar's template: asked of every repository
HORIZON_DAYS = 30


@dataclass
class RadarEntry:
    """One repository on the radar."""

    repo: str
    origin: date
    horizon_days: int
    resolves_on: date
    probability: float
    bar: float  # the breakout bar: velocity_28d on resolves_on must reach it (stars/day)
    velocity_28d: float | None
    velocity_7d: float | None
    forecast_id: str
    model_version: str
    drivers: list[Driver]
    probability_citation: Citation
    velocity_citation: Citation | None
    first_day: date | None = None  # the first day of its star data in the store

    def as_json(self) -> dict[str, Any]:
        """The entry as JSON-ready plain data: the one shape `shu radar --json` prints and the
        briefing's `reports/DAY.json` holds under `radar`, every number with the rows it rests
        on (`receipts`, each a `Citation.as_json`)."""
        return {
            "repo": self.repo,
            "origin": str(self.origin),
            "horizon_days": self.horizon_days,
            "resolves_on": str(self.resolves_on),
            "probability": self.probability,
            "bar": self.bar,
            "velocity_28d": self.velocity_28d,
            "velocity_7d": self.velocity_7d,
            "forecast_id": self.forecast_id,
            "model_version": self.model_version,
            "drivers": [
                {
                    "text": d.text,
                    "feature": d.feature,
                    "towards_breakout": d.towards,
                    "reads_for_breakout": d.reads,
                    "store_fact": d.store_fact,
                    "store_wide": d.store_wide,
                    "receipts": [c.as_json() for c in d.citations],
                }
                for d in self.drivers
            ],
            "receipts": [c.as_json() for c in self.citations()],
        }

    def citations(self) -> list[Citation]:
        """Every row this entry quotes: its probability, velocity, then the drivers'."""
        out = [self.probability_citation]
        if self.velocity_citation is not None:
            out.append(self.velocity_citation)
        for d in self.drivers:
            out.extend(c for c in d.citations if c not in out)
        return out


# The newest origin's forecasts still open on the day asked (resolving after it: an answer about
# a day already past is no forecast), one per repository (the latest issued).
_PICKED = """
WITH newest AS (
  SELECT max(origin) AS origin FROM forecasts
  WHERE template = ? AND horizon_days = ? AND origin <= ? AND resolves_on > ?),
picked AS (
  SELECT f.* FROM forecasts f JOIN newest n ON f.origin = n.origin
  WHERE f.template = ? AND f.horizon_days = ? {exclude}
  QUALIFY row_number() OVER (PARTITION BY f.repo ORDER BY f.issued_at DESC,
                             f.forecast_id) = 1)
"""

_RADAR_SQL = (
    _PICKED
    + """
SELECT p.forecast_id, p.repo, p.origin, p.horizon_days, p.resolves_on, p.threshold,
       p.probability, p.model_version, p.drivers,
       s.stars, s.velocity_7d, s.velocity_28d, s.velocity_90d, s.velocity_28d_z,
       s.acceleration_28d, s.lifecycle_phase,
       s3.stars AS stars_3, s7.velocity_7d AS velocity_7d_lag7, f.first_day,
       coalesce(r.category, 'untracked') AS category, cs.accelerating_share,
       (SELECT median(velocity_28d_z) FROM star_signals m
        WHERE m.day = p.origin AND m.velocity_28d IS NOT NULL) AS market_velocity_z
FROM picked p
LEFT JOIN star_signals s ON s.repo = p.repo AND s.day = p.origin
LEFT JOIN star_signals s3 ON s3.repo = p.repo AND s3.day = p.origin - 3
LEFT JOIN star_signals s7 ON s7.repo = p.repo AND s7.day = p.origin - 7
LEFT JOIN (SELECT repo, min(day) AS first_day FROM star_signals
           WHERE repo IN (SELECT repo FROM picked) GROUP BY repo) f ON f.repo = p.repo
LEFT JOIN repos r ON r.repo = p.repo
LEFT JOIN category_signals cs ON cs.category = coalesce(r.category, 'untracked')
  AND cs.day = p.origin
ORDER BY p.probability DESC, p.repo
LIMIT ?
"""
)

_RANKED_SQL = (
    _PICKED
    + """
SELECT p.repo, r.description FROM picked p LEFT JOIN repos r ON r.repo = p.repo
ORDER BY p.probability DESC, p.repo
"""
)


def _where(exclude: list[str] | None, only: list[str] | None) -> tuple[str, list[str]]:
    """The SQL that leaves out `exclude` and keeps only `only` (None: every repository), with
    its parameters."""
    sql, params = "", []
    if exclude:
        sql += f"AND f.repo NOT IN ({', '.join('?' for _ in exclude)}) "
        params += exclude
    if only is not None:
        sql += f"AND f.repo IN ({', '.join('?' for _ in only) or 'NULL'})"
        params += only
    return sql, params


def radar(
    store: Store,
    as_of: date | None = None,
    top: int = 20,
    horizon_days: int = HORIZON_DAYS,
    exclude: list[str] | None = None,
    only: list[str] | None = None,
) -> list[RadarEntry]:
    """The `top` repositories by probability of a breakout, from the newest star_breakout
    forecasts issued for an origin on or before `as_of` that resolve after it (default: the
    newest of any day, resolved or not), leaving out the
    repositories in `exclude` (e.g. the tracked ones) and, when `only` is given, any not in it
    (`RadarScope.kept`). Empty when none was issued."""
    where, names = _where(exclude, only)
    rows = store.con.execute(
        _RADAR_SQL.format(exclude=where),
        [TEMPLATE, horizon_days, *_open_on(as_of), TEMPLATE, horizon_days, *names, top],
    ).df()
    return [_entry(store, r) for r in rows.to_dict("records")]


@dataclass
class RadarScope:
    """Which repositories of the newest breakout forecasts the radar's topic filter keeps."""

    keywords: tuple[str, ...]  # empty: no filter
    n_forecast: int  # repositories with a forecast at the newest origin (`exclude` aside)
    kept: list[str]  # the first `top` of those the filter keeps, by probability
    n_left_out: int  # repositories the filter left out
    left_out_top: list[str]  # those among the `top` most likely before filtering
    n_described: int  # repositories whose description (in `repos`) was matched too


def radar_scope(
    store: Store,
    keywords: tuple[str, ...],
    as_of: date | None = None,
    top: int = 20,
    horizon_days: int = HORIZON_DAYS,
    exclude: list[str] | None = None,
) -> RadarScope:
    """The repositories of the newest star_breakout forecasts on or before `as_of` (and open on
    it, as `radar`) whose name or description carries one of `keywords` (`topics.matches`), by
    probability."""
    where, names = _where(exclude, None)
    rows = store.con.execute(
        _RANKED_SQL.format(exclude=where),
        [TEMPLATE, horizon_days, *_open_on(as_of), TEMPLATE, horizon_days, *names],
    ).fetchall()
    keep = [matches(keywords, repo, description) for repo, description in rows]
    return RadarScope(
        keywords=keywords,
        n_forecast=len(rows),
        kept=[repo for (repo, _), k in zip(rows, keep, strict=True) if k][:top],
        n_left_out=keep.count(False),
        left_out_top=[repo for (repo, _), k in zip(rows[:top], keep[:top], strict=True) if not k],
        n_described=sum(1 for _, description in rows if description),
    )


def _open_on(as_of: date | None) -> tuple[date, date]:
    """The bounds of `_PICKED` for `as_of`: origins on or before it, resolving after it (None:
    any origin, resolved or not: the newest there is)."""
    return (as_of, as_of) if as_of is not None else (date.max, date.min)


def radar_model_in(models_dir: Path) -> bool | None:
    """Whether the trained model in `models_dir` has a breakout forecaster, from its model card
    (None when there is no readable card)."""
    try:
        card = json.loads((Path(models_dir) / CARD_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    models = card.get("models", {}) if isinstance(card, dict) else {}
    return any(str(key).startswith(f"{TEMPLATE}/") for key in models)


def why_empty(
    store: Store, as_of: date | None, models_dir: Path, exclude: list[str] | None = None
) -> str:
    """Why the radar has no forecast to show on or before `as_of`, and what to do, in one
    sentence: no repository to scan besides those in `exclude` (the tracked ones), forecasts
    whose day is not after `as_of` (a stale store), a model without a breakout forecaster, or
    forecasts not issued yet."""
    names = list(exclude or [])
    not_in = f"AND repo NOT IN ({', '.join('?' for _ in names)})" if names else ""
    (n,) = store.con.execute(
        f"SELECT count(DISTINCT repo) FROM stars_daily WHERE day <= ? {not_in}",
        [as_of or date.max, *names],
    ).fetchone() or (0,)
    if not n:
        others = " besides the tracked ones" if names else ""
        return (
            f"the store holds the star counts of no repository{others}, so there is nothing "
            "for the radar to scan: set `ranking_files` in shu.toml (a daily ranking file, "
            "e.g. `data/ranking/github-ranking-{day}.csv`) or `gharchive_paths` (GH Archive "
            "hours) for `shu daily` to load fresh counts of other repositories every day, or "
            "load a history once with `shu ingest ranking PATH`"
        )
    closed = _resolved_by(store, as_of, names, not_in)
    if closed is not None:
        return closed
    if radar_model_in(models_dir) is False:
        return (
            f"the model in `{models_dir}` has no breakout forecaster: train one "
            "(`shu train --template star_breakout`), then run `shu forecast`"
        )
    what = f"{n:,} {'repository' if n == 1 else 'repositories'}" + (
        " besides the tracked ones" if names else ""
    )
    return (
        f"the store holds the star counts of {what}, but no breakout forecast of them is "
        "stored: run `shu forecast` (or `shu daily`) to issue them (a repository needs 28 "
        "days of counts)"
    )


def _resolved_by(store: Store, as_of: date | None, names: list[str], not_in: str) -> str | None:
    """Why the radar is empty when its newest forecasts on or before `as_of` all resolved by
    that day (a stale store: the untracked repositories' counts end too long before it), with
    how to refresh them; None when there are none such."""
    if as_of is None:
        return None
    origin, resolves_on = store.con.execute(
        "SELECT max(origin), max(resolves_on) FROM forecasts WHERE template = ? "
        f"AND horizon_days = ? AND origin <= ? {not_in}",
        [TEMPLATE, HORIZON_DAYS, as_of, *names],
    ).fetchone() or (None, None)
    if origin is None:
        return None
    (last,) = store.con.execute(
        f"SELECT max(day) FROM stars_daily WHERE day <= ? {not_in}", [as_of, *names]
    ).fetchone() or (None,)
    return (
        f"the newest breakout forecasts, of {origin}, are about {resolves_on}, not after "
        f"{as_of}, so none of them forecasts anything (the star counts of the repositories the "
        f"radar scans end on {last}); load fresh counts with `shu ingest ranking PATH` (or set "
        "`ranking_files` for `shu daily`), then run `shu forecast`"
    )


def _entry(store: Store, row: dict[str, Any]) -> RadarEntry:
    origin = as_date(row["origin"])
    repo = row["repo"]
    probability = float(row["probability"])
    v28 = float_or_none(row["velocity_28d"])
    prob = Citation(
        "row",
        "forecasts",
        {"forecast_id": row["forecast_id"]},
        "probability",
        probability,
        origin,
        f"{repo} breakout probability",
    )
    velocity = None if v28 is None else signal_citation(repo, origin, "velocity_28d", v28)
    return RadarEntry(
        repo=repo,
        origin=origin,
        horizon_days=int(row["horizon_days"]),
        resolves_on=as_date(row["resolves_on"]),
        probability=probability,
        bar=float(row["threshold"]),
        velocity_28d=v28,
        velocity_7d=float_or_none(row["velocity_7d"]),
        forecast_id=row["forecast_id"],
        model_version=row["model_version"],
        drivers=drivers_in_words(store, row),
        probability_citation=prob,
        velocity_citation=velocity,
        first_day=None if pd.isna(row["first_day"]) else as_date(row["first_day"]),
    )


# ---------------------------------------------------------------- the radar's track record
_RECORD_SQL = """
SELECT f.repo, f.origin, f.probability, (r.outcome = 'yes')::INT AS label
FROM forecasts f JOIN forecast_resolutions r USING (forecast_id)
WHERE f.template = ? AND f.horizon_days = ? AND r.outcome IN ('yes', 'no')
  AND f.resolves_on <= ?
QUALIFY row_number() OVER (PARTITION BY f.repo, f.origin ORDER BY f.issued_at DESC,
                           f.forecast_id) = 1
"""


def radar_record(
    store: Store, day: date, horizon_days: int = HORIZON_DAYS, n_boot: int = 1000, seed: int = 0
) -> dict[str, Any] | None:
    """How the radar's resolved forecasts (resolved on or before `day`) scored: precision@k
    per origin averaged over origins, the Brier score and its skill against the observed rate
    of the same forecasts, each with n (forecasts, origins) and a 95% interval from resampling
    origins. None when none has resolved. `sql`/`params` reproduce the scored rows."""
    params = [TEMPLATE, horizon_days, day]
    frame = store.con.execute(_RECORD_SQL, params).df()
    if frame.empty:
        return None
    ranked = ranking_metrics(frame, {"radar": "probability"}, ks=KS, n_boot=n_boot, seed=seed)
    origins = np.sort(frame["origin"].unique())
    sq = squared_errors(frame["label"].to_numpy(), frame["probability"].to_numpy())
    by_origin = frame.assign(sq=sq).groupby("origin")
    sq_sum = by_origin["sq"].sum().reindex(origins).to_numpy()
    yes = by_origin["label"].sum().reindex(origins).to_numpy()
    count = by_origin.size().reindex(origins).to_numpy()
    draws = np.random.default_rng(seed).integers(0, len(origins), (n_boot, len(origins)))

    def brier_and_skill(pick: np.ndarray) -> tuple[float, float]:
        n, k = count[pick].sum(), yes[pick].sum()
        score = sq_sum[pick].sum() / n
        return score, skill_score(score, brier_of_rate(k, n))

    brier, skill = brier_and_skill(np.arange(len(origins)))
    boot = np.array([brier_and_skill(d) for d in draws])
    low, high = np.nanpercentile(boot, [2.5, 97.5], axis=0)
    return {
        "n": len(frame),
        "n_origins": len(origins),
        "events": int(frame["label"].sum()),
        "precision": {k: ranked["radar"][f"precision_at_{k}"] for k in KS},
        "brier": {"mean": float(brier), "low": float(low[0]), "high": float(high[0])},
        "skill": {"mean": float(skill), "low": float(low[1]), "high": float(high[1])},
        "sql": _RECORD_SQL,
        "params": params,
    }
