"""The breakout radar: the newest `star_breakout` forecasts over every repository, ranked by
probability, each with its velocity now, the drivers in plain words with their numbers, and the
receipts behind each number.

`radar(store, as_of, top)` reads what `shu forecast` / `shu daily` issued (the forecasts of the
newest origin on or before `as_of`; one per repository, the latest issued when a model was
retrained that day) and returns `RadarEntry`s: plain data that `shu radar` prints (or dumps as
JSON) and the briefing's "Breaking out" section renders. Nothing is recomputed: the
probability, the bar and the model's drivers are the stored forecast's, worded by
`shu.forecast.radar.statements` with a `Citation` for every number they quote.

`radar_record(store, day)` scores the radar's resolved forecasts the way the backtest does:
precision@10/20/50 per origin and the Brier score with its skill against the base rate, each
with n and a 95% interval over origins.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from shu.forecast.evaluation.precision_at_k import KS, ranking_metrics
from shu.forecast.questions.registry import RANKED_TEMPLATES
from shu.forecast.radar.statements import (
    Driver,
    as_date,
    drivers_in_words,
    float_or_none,
    signal_citation,
)
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

    def as_json(self) -> dict[str, Any]:
        """The entry as JSON-ready plain data (what `shu radar --json` prints)."""
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
                    "towards_breakout": d.towards,
                    "reads_for_breakout": d.reads,
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


_RADAR_SQL = """
WITH newest AS (
  SELECT max(origin) AS origin FROM forecasts
  WHERE template = ? AND horizon_days = ? AND origin <= ?),
picked AS (
  SELECT f.* FROM forecasts f JOIN newest n ON f.origin = n.origin
  WHERE f.template = ? AND f.horizon_days = ? {exclude}
  QUALIFY row_number() OVER (PARTITION BY f.repo ORDER BY f.issued_at DESC,
                             f.forecast_id) = 1)
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


def radar(
    store: Store,
    as_of: date | None = None,
    top: int = 20,
    horizon_days: int = HORIZON_DAYS,
    exclude: list[str] | None = None,
) -> list[RadarEntry]:
    """The `top` repositories by probability of a breakout, from the newest star_breakout
    forecasts issued for an origin on or before `as_of` (default: any), leaving out the
    repositories in `exclude` (e.g. the tracked ones). Empty when none was issued."""
    as_of = as_of or date.max
    names = list(exclude or [])
    not_in = f"AND f.repo NOT IN ({', '.join('?' for _ in names)})" if names else ""
    rows = store.con.execute(
        _RADAR_SQL.format(exclude=not_in),
        [TEMPLATE, horizon_days, as_of, TEMPLATE, horizon_days, *names, top],
    ).df()
    return [_entry(store, r) for r in rows.to_dict("records")]


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
    by_origin = frame.assign(sq=(frame["probability"] - frame["label"]) ** 2).groupby("origin")
    sq_sum = by_origin["sq"].sum().reindex(origins).to_numpy()
    yes = by_origin["label"].sum().reindex(origins).to_numpy()
    count = by_origin.size().reindex(origins).to_numpy()
    draws = np.random.default_rng(seed).integers(0, len(origins), (n_boot, len(origins)))

    def brier_and_skill(pick: np.ndarray) -> tuple[float, float]:
        n, k = count[pick].sum(), yes[pick].sum()
        score = sq_sum[pick].sum() / n
        base = k / n
        reference = base * (1 - base)
        return score, (1 - score / reference) if reference > 0 else np.nan

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
