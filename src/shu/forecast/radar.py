"""The breakout radar: the newest `star_breakout` forecasts over every repository, ranked by
probability, each with its velocity now, the drivers in plain words with their numbers, and the
receipts behind each number.

`radar(store, as_of, top)` reads what `shu forecast` / `shu daily` issued (the forecasts of the
newest origin on or before `as_of`; one per repository, the latest issued when a model was
retrained that day) and returns `RadarEntry`s: plain data that `shu radar` prints (or dumps as
JSON), the briefing's "Breaking out" section renders and `reports/DATE.json` carries
(`radar_json`). Nothing is recomputed: the probability, the bar and the model's drivers are the
stored forecast's; the numbers the drivers quote are stored `star_signals` rows on the origin
(or a few days before it), each cited as a `Citation`.

Drivers come from the model (the features that moved this forecast's log-odds most, stored with
it at issue) and are worded from the raw values behind them, never with feature names: each
feature belongs to one statement (`STATEMENTS`); the first `MAX_DRIVERS` statements that the
data can back are kept, in the order of the model's drivers, each saying whether it points
towards a breakout or against one.

`radar_record(store, day)` scores the radar's resolved forecasts the way the backtest does:
precision@10/20/50 per origin and the Brier score with its skill against the base rate, each
with n and a 95% interval over origins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from shu.forecast.ranking import KS, ranking_metrics
from shu.receipts import Citation
from shu.store import Store

TEMPLATE = "star_breakout"
HORIZON_DAYS = 30
MAX_DRIVERS = 3

# Feature -> the statement that puts it in words (features without one are not worded).
STATEMENTS = {
    "rel_velocity_7d": "week", "log_velocity_7d_vs_bar": "week", "rel_acceleration_7d": "week",
    "velocity_7d_z": "week",
    "rel_velocity_3d": "days3", "log_velocity_3d_vs_bar": "days3",
    "log_velocity_28d_vs_bar": "bar", "log_bar": "bar", "slog_velocity_28d": "bar",
    "rel_acceleration_28d": "accel", "rel_accel_sd_91d": "accel", "rel_accel_max_91d": "accel",
    "max_day_share_28d": "spike", "rel_median_gain_28d": "spike",
    "phase_emerging": "phase", "phase_expansion": "phase", "phase_decline": "phase",
    "market_velocity_z": "market", "market_rel_acceleration": "market",
    "category_accelerating_share": "category", "category_rel_acceleration": "category",
    "rel_velocity_28d_vs_90d": "quarter", "velocity_change_91d": "quarter",
    "rel_velocity_vs_max_91d": "quarter",
    "velocity_28d_z": "year", "velocity_change_364d": "year", "log_star_growth_364d": "year",
    "log_stars": "size",
    "rel_velocity_7d_lag7": "weeks", "rel_velocity_7d_lag14": "weeks",
    "rel_velocity_7d_lag21": "weeks",
    "history_years": "age", "coverage_91d": "age",
}


@dataclass
class Driver:
    """One reason in words, whether it points towards a breakout, and the rows it quotes."""

    text: str
    towards: bool
    citations: list[Citation] = field(default_factory=list)


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
            "repo": self.repo, "origin": str(self.origin), "horizon_days": self.horizon_days,
            "resolves_on": str(self.resolves_on), "probability": self.probability,
            "bar": self.bar, "velocity_28d": self.velocity_28d, "velocity_7d": self.velocity_7d,
            "forecast_id": self.forecast_id, "model_version": self.model_version,
            "drivers": [{"text": d.text, "towards_breakout": d.towards,
                         "receipts": [_citation_json(c) for c in d.citations]}
                        for d in self.drivers],
            "receipts": [_citation_json(c) for c in self.citations()],
        }

    def citations(self) -> list[Citation]:
        """Every row this entry quotes: its probability, velocity, then the drivers'."""
        out = [self.probability_citation]
        if self.velocity_citation is not None:
            out.append(self.velocity_citation)
        for d in self.drivers:
            out.extend(c for c in d.citations if c not in out)
        return out


def radar_json(entries: list[RadarEntry]) -> list[dict[str, Any]]:
    """The radar as the briefing JSON carries it: repo, probability, velocity_28d."""
    return [{"repo": e.repo, "probability": e.probability, "velocity_28d": e.velocity_28d}
            for e in entries]


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
FIRST_DAY_SQL = "SELECT min(day) FROM star_signals WHERE repo = ?"
# The busiest day among the 28 up to the origin: the largest daily gain (stars between
# consecutive rows, per day elapsed), as the model's `max_day_share_28d` reads it.
BUSIEST_DAY_SQL = (
    "SELECT max(gain) FROM (SELECT day, (stars - lag(stars) OVER (ORDER BY day)) / "
    "(day - lag(day) OVER (ORDER BY day)) AS gain FROM star_signals WHERE repo = ? "
    "AND day BETWEEN ?::DATE - 60 AND ?::DATE) WHERE day > ?::DATE - 28")
MARKET_SQL = ("SELECT median(velocity_28d_z) FROM star_signals WHERE day = ?::DATE "
              "AND velocity_28d IS NOT NULL")
PHASES = {
    "emerging": "gaining at least 0.5% of its stars a day and not slowing",
    "expansion": "its 28-day pace grew by at least a tenth of itself in 28 days",
    "maturation": "still growing, no longer fast",
    "decline": "gaining under 0.01% of its stars a day",
}


def radar(store: Store, as_of: date | None = None, top: int = 20,
          horizon_days: int = HORIZON_DAYS, exclude: list[str] | None = None
          ) -> list[RadarEntry]:
    """The `top` repositories by probability of a breakout, from the newest star_breakout
    forecasts issued for an origin on or before `as_of` (default: any), leaving out the
    repositories in `exclude` (e.g. the tracked ones). Empty when none was issued."""
    as_of = as_of or date.max
    names = list(exclude or [])
    not_in = (f"AND f.repo NOT IN ({', '.join('?' for _ in names)})" if names else "")
    rows = store.con.execute(_RADAR_SQL.format(exclude=not_in), [
        TEMPLATE, horizon_days, as_of, TEMPLATE, horizon_days, *names, top]).df()
    return [_entry(store, r) for r in rows.to_dict("records")]


def _value(v: Any) -> float | None:
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v)


def _day(v: Any) -> date:
    return pd.Timestamp(v).date()


def _entry(store: Store, row: dict[str, Any]) -> RadarEntry:
    origin = _day(row["origin"])
    repo = row["repo"]
    probability = float(row["probability"])
    v28 = _value(row["velocity_28d"])
    prob = Citation("row", "forecasts", {"forecast_id": row["forecast_id"]}, "probability",
                    probability, origin, f"{repo} breakout probability")
    velocity = (None if v28 is None else
                _signal(repo, origin, "velocity_28d", v28))
    return RadarEntry(
        repo=repo, origin=origin, horizon_days=int(row["horizon_days"]),
        resolves_on=_day(row["resolves_on"]), probability=probability,
        bar=float(row["threshold"]), velocity_28d=v28, velocity_7d=_value(row["velocity_7d"]),
        forecast_id=row["forecast_id"], model_version=row["model_version"],
        drivers=drivers_in_words(store, row), probability_citation=prob,
        velocity_citation=velocity)


def _signal(repo: str, day: date, column: str, value: float) -> Citation:
    return Citation("row", "star_signals", {"repo": repo, "day": day}, column, value, day,
                    f"{repo} {column} on {day}")


def _pct(ratio: float) -> str:
    return f"{abs(ratio - 1) * 100:.0f}% {'above' if ratio >= 1 else 'below'}"


def drivers_in_words(store: Store, row: dict[str, Any],
                     limit: int = MAX_DRIVERS) -> list[Driver]:
    """The model's drivers of one stored forecast as statements with numbers (see the module
    docstring); `row` holds the forecast (drivers, threshold, origin, resolves_on) and the
    stored values the statements quote (a statement that needs more asks `store`)."""
    stored = json.loads(row["drivers"] or "[]")
    out: list[Driver] = []
    said: set[str] = set()
    for d in stored:
        kind = STATEMENTS.get(d["feature"])
        if kind is None or kind in said:
            continue
        driver = _statement(store, kind, row, d["sign"] == "+")
        if driver is not None:
            said.add(kind)
            out.append(driver)
        if len(out) >= limit:
            break
    return out


class _Facts:
    """The values one radar row quotes, each with the citation of the stored row behind it."""

    def __init__(self, store: Store, row: dict[str, Any]) -> None:
        self.store, self.row = store, row
        self.repo, self.origin = row["repo"], _day(row["origin"])
        self.v7, self.v28 = _value(row["velocity_7d"]), _value(row["velocity_28d"])
        self.v90, self.bar = _value(row["velocity_90d"]), float(row["threshold"])

    def signal(self, column: str, value: Any, day: date | None = None) -> Citation:
        return _signal(self.repo, day or self.origin, column, value)

    def bar_cite(self) -> Citation:
        return Citation("row", "forecasts", {"forecast_id": self.row["forecast_id"]},
                        "threshold", self.bar, self.origin, f"{self.repo} breakout bar")

    def query(self, sql: str, params: list[Any], value: Any, label: str) -> Citation:
        return Citation("query", "star_signals", {}, "", value, self.origin, label, sql=sql,
                        params=params)


def _week(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v7 is None or f.v28 is None:
        return None
    cites = [f.signal("velocity_7d", f.v7), f.signal("velocity_28d", f.v28)]
    if f.v28 > 0:
        return (f"the last 7 days ran {_pct(f.v7 / f.v28)} the 28-day pace ({f.v7:,.1f} "
                f"against {f.v28:,.1f} stars/day)", cites)
    return f"the last 7 days gained {f.v7:,.1f} stars/day, the last 28 days {f.v28:,.1f}", cites


def _days3(f: _Facts) -> tuple[str, list[Citation]] | None:
    now, before = _value(f.row["stars"]), _value(f.row["stars_3"])
    if now is None or before is None:
        return None
    gained = int(now) - int(before)
    return (f"the last 3 days brought {gained:,} stars ({gained / 3:,.1f} a day) against a "
            f"breakout bar of {f.bar:,.1f} stars/day",
            [f.signal("stars", int(now)),
             f.signal("stars", int(before), f.origin - timedelta(days=3)), f.bar_cite()])


def _bar(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v28 is None:
        return None
    return (f"a breakout needs 28 days at {f.bar:,.1f} stars/day or more by "
            f"{_day(f.row['resolves_on'])}; the last 28 days ran at {f.v28:,.1f}",
            [f.bar_cite(), f.signal("velocity_28d", f.v28)])


def _quarter(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v28 is None or f.v90 is None or f.v90 <= 0:
        return None
    return (f"the 28-day pace is {_pct(f.v28 / f.v90)} the 90-day pace ({f.v28:,.1f} against "
            f"{f.v90:,.1f} stars/day)",
            [f.signal("velocity_28d", f.v28), f.signal("velocity_90d", f.v90)])


def _year(f: _Facts) -> tuple[str, list[Citation]] | None:
    z = _value(f.row["velocity_28d_z"])
    if z is None:
        return None
    return (f"the 28-day pace sits {abs(z):.1f} standard deviations "
            f"{'above' if z >= 0 else 'below'} its own past year",
            [f.signal("velocity_28d_z", z)])


def _size(f: _Facts) -> tuple[str, list[Citation]] | None:
    stars = _value(f.row["stars"])
    if stars is None:
        return None
    return f"{int(stars):,} stars in all", [f.signal("stars", int(stars))]


def _weeks(f: _Facts) -> tuple[str, list[Citation]] | None:
    before = _value(f.row["velocity_7d_lag7"])
    if before is None or f.v7 is None:
        return None
    return (f"{f.v7:,.1f} stars/day this week after {before:,.1f} the week before",
            [f.signal("velocity_7d", f.v7),
             f.signal("velocity_7d", before, f.origin - timedelta(days=7))])


def _age(f: _Facts) -> tuple[str, list[Citation]] | None:
    first = f.row["first_day"]
    if first is None or pd.isna(first):
        return None
    first = _day(first)
    days = (f.origin - first).days
    if days >= 1095:
        return None  # the model caps history at three years: nothing to say
    return (f"in the store's star data for {days:,} days (since {first})",
            [f.query(FIRST_DAY_SQL, [f.repo], first, f"{f.repo} first day with star data")])


def _accel(f: _Facts) -> tuple[str, list[Citation]] | None:
    a28 = _value(f.row["acceleration_28d"])
    if a28 is None:
        return None
    return (f"the 28-day pace {'rose' if a28 >= 0 else 'fell'} by {abs(a28):,.1f} stars/day "
            "over the last 28 days", [f.signal("acceleration_28d", a28)])


def _spike(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v28 is None or f.v28 <= 0:
        return None
    params = [f.repo, f.origin, f.origin, f.origin]
    busiest = _value(f.store.con.execute(BUSIEST_DAY_SQL, params).fetchone()[0])
    if busiest is None:
        return None
    return (f"the busiest of the last 28 days brought {busiest:,.0f} stars, "
            f"{100 * busiest / (28 * f.v28):.0f}% of the {28 * f.v28:,.0f} they gained",
            [f.query(BUSIEST_DAY_SQL, params, busiest, f"{f.repo} busiest day's stars"),
             f.signal("velocity_28d", f.v28)])


def _phase(f: _Facts) -> tuple[str, list[Citation]] | None:
    phase = f.row["lifecycle_phase"]
    if phase not in PHASES:
        return None
    return (f"its star curve is in the '{phase}' phase ({PHASES[phase]})",
            [f.signal("lifecycle_phase", phase)])


def _market(f: _Facts) -> tuple[str, list[Citation]] | None:
    z = _value(f.row["market_velocity_z"])
    if z is None:
        return None
    return (f"across the store, the median repository's 28-day pace sits {abs(z):.1f} "
            f"standard deviations {'above' if z >= 0 else 'below'} its own past year",
            [f.query(MARKET_SQL, [f.origin], z, "median velocity_28d_z of the store")])


def _category(f: _Facts) -> tuple[str, list[Citation]] | None:
    share, category = _value(f.row["accelerating_share"]), f.row["category"]
    if share is None:
        return None
    group = "untracked repositories" if category == "untracked" else f"its '{category}' peers"
    return (f"{100 * share:.0f}% of {group} are accelerating",
            [Citation("row", "category_signals", {"category": category, "day": f.origin},
                      "accelerating_share", share, f.origin, f"{category} accelerating share")])


# Statement kind -> its wording (None when the data behind it is missing).
_WORDING = {"week": _week, "days3": _days3, "bar": _bar, "quarter": _quarter, "year": _year,
            "size": _size, "weeks": _weeks, "age": _age, "accel": _accel, "spike": _spike,
            "phase": _phase, "market": _market, "category": _category}


def _statement(store: Store, kind: str, row: dict[str, Any], towards: bool) -> Driver | None:
    """The statement `kind` for `row`, or None when the data behind it is missing."""
    worded = _WORDING[kind](_Facts(store, row))
    return None if worded is None else Driver(worded[0], towards, worded[1])


def _citation_json(c: Citation) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": c.kind, "table": c.table, "value": _json_value(c.value)}
    if c.kind == "query":
        out.update({"sql": c.sql, "params": [_json_value(p) for p in c.params]})
    else:
        out.update({"key": {k: _json_value(v) for k, v in c.key.items()}, "column": c.column})
    return out


def _json_value(v: Any) -> Any:
    return str(v) if isinstance(v, date) else v


# ---------------------------------------------------------------- the radar's track record
_RECORD_SQL = """
SELECT f.repo, f.origin, f.probability, (r.outcome = 'yes')::INT AS label
FROM forecasts f JOIN forecast_resolutions r USING (forecast_id)
WHERE f.template = ? AND f.horizon_days = ? AND r.outcome IN ('yes', 'no')
  AND f.resolves_on <= ?
QUALIFY row_number() OVER (PARTITION BY f.repo, f.origin ORDER BY f.issued_at DESC,
                           f.forecast_id) = 1
"""


def radar_record(store: Store, day: date, horizon_days: int = HORIZON_DAYS,
                 n_boot: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    """How the radar's resolved forecasts (resolved on or before `day`) scored: precision@k
    per origin averaged over origins, the Brier score and its skill against the base rate of
    the same forecasts, each with n (forecasts, origins) and a 95% interval from resampling
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
        "n": len(frame), "n_origins": len(origins), "events": int(frame["label"].sum()),
        "precision": {k: ranked["radar"][f"precision_at_{k}"] for k in KS},
        "brier": {"mean": float(brier), "low": float(low[0]), "high": float(high[0])},
        "skill": {"mean": float(skill), "low": float(low[1]), "high": float(high[1])},
        "sql": _RECORD_SQL, "params": params,
    }
