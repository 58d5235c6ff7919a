"""What the stored forecasts say, read for the briefing: the tracked repositories' latest
forecasts and interval forecasts, and the track record of each kind of answer, this store's
(its resolved forecasts: how many, how many came true as said, how many were replayed, with the
SELECTs that count them) and the backtest's (the model card beside the model).

Read-only queries, each bounded by the day asked about (nothing after it is read). The SQL
fragments the briefing's track-record sections build on are defined here once: a forecast's
confidence band (`BAND_SQL`), whether it came true as said (`RIGHT_SQL`), the radar's
templates (`RADAR_SQL_LIST`, which have their own record) and a replayed forecast
(`REPLAYED_SQL`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.confidence import band_sql
from shu.forecast.live.replay import REPLAY_PREFIX
from shu.forecast.questions.registry import INTERVAL_TEMPLATE, RANKED_TEMPLATES
from shu.settings import Settings
from shu.signals.reads import signal_value
from shu.store import Store, dicts

BAND_SQL = band_sql("f.probability")  # a stored forecast's confidence band
RIGHT_SQL = "((f.probability >= 0.5) = (r.outcome = 'yes'))"
# The radar's forecasts (every repository in the store) have their own section and record.
RADAR_SQL_LIST = ", ".join(f"'{t}'" for t in RANKED_TEMPLATES)


# A forecast issued by `shu replay` (on the data as it was, never published at the time).
REPLAYED_SQL = f"f.model_version LIKE '{REPLAY_PREFIX}%'"


def resolved_replayed(store: Store, day: date) -> tuple[int, int]:
    """How many of the forecasts of the tracked questions (not the radar's) resolved by `day`
    were replayed, and how many resolved in all: the track record is the replay's when the
    first is the second."""
    row = store.con.execute(
        f"SELECT count(*) FILTER (WHERE {REPLAYED_SQL}), count(*) FROM forecasts f "
        "JOIN forecast_resolutions r USING (forecast_id) "
        f"WHERE f.resolves_on <= ? AND f.template NOT IN ({RADAR_SQL_LIST})",
        [day],
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def latest_forecasts(store: Store, tracked: list[str], day: date) -> list[dict[str, Any]]:
    """Forecasts for tracked repositories at the latest origin not after `day`, per repository
    and template from the model version issued last at that origin (a retrained model's
    forecasts supersede, in the briefing, those of the model before; both stay stored; a
    template issued by another model keeps its own). The radar's forecasts are left out: they
    have their own section; so is every question resolving on or before `day` (of a stale
    store: an answer about a past day is no forecast). Interval forecasts carry their median
    and 50/80/95% bounds (`median`, `lower_50` … `upper_95`; NULL for the other templates)."""
    marks = ", ".join("?" for _ in tracked) or "NULL"
    return dicts(
        store.con.execute(
            "WITH mine AS (SELECT * FROM forecasts WHERE origin <= ? AND resolves_on > ? "
            f"AND repo IN ({marks}) "
            f"AND template NOT IN ({RADAR_SQL_LIST})), "
            "latest AS (SELECT repo, template, arg_max(model_version, issued_at) AS model_version "
            "FROM mine WHERE origin = (SELECT max(origin) FROM mine) GROUP BY repo, template) "
            "SELECT f.*, i.median, i.lower_50, i.upper_50, i.lower_80, i.upper_80, i.lower_95, "
            "i.upper_95 FROM mine f JOIN latest USING (repo, template, model_version) "
            "LEFT JOIN forecast_intervals i USING (forecast_id) "
            "WHERE f.origin = (SELECT max(origin) FROM mine) "
            "ORDER BY repo, template, horizon_days, threshold, forecast_id",
            [day, day, *tracked],
        )
    )


@dataclass
class BandRate:
    """How often the model's backtest forecasts in one band came true as predicted (within
    `velocity_band`, the repository's band of today's velocity, where the card measured it)."""

    model_version: str
    n: int
    hit_rate: float
    card_path: str
    pointer: list[Any]
    velocity_band: str | None = None


def backtest_band_rate(
    store: Store, settings: Settings, forecast: dict[str, Any], band: str
) -> BandRate | None:
    """The backtest hit rate of the forecast's template, horizon and band from the model card
    (`forecaster.json` beside the model), when the card holds one for this model version:
    among answers on repositories in the velocity band of the forecast's (its 28-day star
    velocity on the origin, `interval.velocity_band`) where the card holds that band's record,
    else over all of them."""
    from shu.forecast.evaluation.model_card import band_track_record
    from shu.forecast.models.artifact import CARD_JSON
    from shu.forecast.models.interval import VELOCITY_BANDS, velocity_band

    card = Path(settings.models_dir) / CARD_JSON
    velocity = signal_value(store.con, "velocity_28d", forecast["repo"], forecast["origin"])
    vband = (
        None if velocity is None else VELOCITY_BANDS[int(velocity_band(np.array([velocity]))[0])]
    )
    rate = band_track_record(
        Path(settings.models_dir), forecast["template"], forecast["horizon_days"], band, vband
    )
    if rate is None or rate.get("hit_rate") is None:
        return None
    version = json.loads(card.read_text(encoding="utf-8")).get("version")
    if version != forecast["model_version"]:
        return None
    key = f"{forecast['template']}/{forecast['horizon_days']}"
    within = ["by_velocity", rate["velocity_band"]] if rate["velocity_band"] else []
    pointer = ["backtest", "slices", key, *within, "bands", {"band": band}, "hit_rate"]
    return BandRate(
        version, int(rate["n"]), float(rate["hit_rate"]), str(card), pointer, rate["velocity_band"]
    )


def backtest_interval_coverage(settings: Settings, forecast: dict[str, Any]) -> BandRate | None:
    """How often the backtest's 80% intervals of the interval forecast's horizon held, from the
    model card (`BandRate.hit_rate` = the observed coverage), when the card is its model's."""
    from shu.forecast.models.artifact import CARD_JSON

    path = Path(settings.models_dir) / CARD_JSON
    if not path.exists():
        return None
    card = json.loads(path.read_text(encoding="utf-8"))
    key = f"{forecast['template']}/{forecast['horizon_days']}"
    slice_ = ((card.get("backtest") or {}).get("slices") or {}).get(key) or {}
    coverage = (slice_.get("coverage") or {}).get("0.8")
    if coverage is None or card.get("version") != forecast["model_version"]:
        return None
    return BandRate(
        card["version"],
        int(slice_.get("n") or 0),
        float(coverage),
        str(path),
        ["backtest", "slices", key, "coverage", "0.8"],
    )


@dataclass
class LiveRecord:
    """Resolved forecasts of one kind in this store: how many, and how many came true as said
    (or held, for intervals), with the SELECTs that count them."""

    n: int
    hits: int
    n_sql: str
    hits_sql: str
    params: list[Any]
    replayed: int = 0  # how many of the n were replayed (`REPLAYED_SQL`), not issued live


def live_band_record(
    store: Store, template: str, horizon: int, band: str | None, day: date
) -> LiveRecord:
    """This store's resolved forecasts of `template` at `horizon` days (its kind of question)
    answered with confidence `band` (every band: None), and how many came true as said."""
    base = (
        "FROM forecasts f JOIN forecast_resolutions r USING (forecast_id) WHERE "
        "f.template = ? AND f.horizon_days = ? AND "
        + (f"{BAND_SQL} = ? AND " if band is not None else "")
        + "r.outcome <> 'void' AND f.resolves_on <= ?"
    )
    params: list[Any] = [template, horizon, *([band] if band is not None else []), day]
    return _record(store, base, RIGHT_SQL, params)


def live_interval_record(store: Store, horizon: int, day: date) -> LiveRecord:
    """Resolved interval forecasts of `horizon` in this store: how many, and how many fell
    inside their 80% interval."""
    base = (
        "FROM forecasts f JOIN interval_resolutions i USING (forecast_id) WHERE "
        f"f.template = '{INTERVAL_TEMPLATE}' AND f.horizon_days = ? AND f.resolves_on <= ?"
    )
    return _record(store, base, "i.held_80", [horizon, day])


def _record(store: Store, base: str, hit: str, params: list[Any]) -> LiveRecord:
    """The record of the resolved forecasts `base` selects (a FROM ... WHERE clause): how many,
    how many `hit` (an SQL condition), how many replayed, and the queries its receipts cite."""
    n, hits, replayed = store.con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE {hit}), "
        f"count(*) FILTER (WHERE {REPLAYED_SQL}) {base}",
        params,
    ).fetchall()[0]
    return LiveRecord(
        int(n),
        int(hits),
        f"SELECT count(*) {base}",
        f"SELECT count(*) FILTER (WHERE {hit}) {base}",
        params,
        int(replayed),
    )


def interval_forecasts(con: duckdb.DuckDBPyConnection, repo: str, as_of: date) -> pd.DataFrame:
    """The latest origin's interval forecasts of `repo` issued up to `as_of` (one row per
    horizon: resolves_on, median, lower/upper 50/80/95), or an empty frame when none are stored
    (or the store has no `forecast_intervals` table)."""
    has = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = "
        "'main' AND table_name = 'forecast_intervals'"
    ).fetchall()[0][0]
    if not has:
        return pd.DataFrame()
    return con.execute(
        """
        WITH f AS (SELECT * FROM forecasts WHERE repo = ? AND origin <= ?
                   AND forecast_id IN (SELECT forecast_id FROM forecast_intervals))
        SELECT f.origin, f.horizon_days, f.resolves_on, i.unit, i.median, i.lower_50,
               i.upper_50, i.lower_80, i.upper_80, i.lower_95, i.upper_95
        FROM f JOIN forecast_intervals i USING (forecast_id)
        WHERE f.origin = (SELECT max(origin) FROM f) ORDER BY f.horizon_days""",
        [repo, as_of],
    ).df()
