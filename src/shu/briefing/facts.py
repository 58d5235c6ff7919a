"""The stored facts a briefing reads: signals, forecasts, releases, track record, probe runs.

Read-only queries over the store, each bounded by the briefing's day (nothing after it is
read). Aggregates carry the SELECT that reproduces them so the briefing can cite it as a query
receipt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from shu.forecast.confidence import band_sql
from shu.forecast.live.replay import REPLAY_PREFIX
from shu.forecast.questions.registry import INTERVAL_TEMPLATE, RANKED_TEMPLATES
from shu.settings import Settings
from shu.signals.reads import last_count_day, last_signal_day
from shu.store import Store

BAND_SQL = band_sql("f.probability")  # a stored forecast's confidence band
RIGHT_SQL = "((f.probability >= 0.5) = (r.outcome = 'yes'))"
# The radar's forecasts (every repository in the store) have their own section and record.
RADAR_SQL_LIST = ", ".join(f"'{t}'" for t in RANKED_TEMPLATES)
LIFECYCLE_RULE = (
    "decline: velocity under 0.01% of stars a day; emerging: at least 0.5% a day "
    "and not decelerating; expansion: acceleration at least 10% of velocity; "
    "else maturation"
)


# A forecast issued by `shu replay` (on the data as it was, never published at the time).
REPLAYED_SQL = f"f.model_version LIKE '{REPLAY_PREFIX}%'"
REPLAYED_WHAT = "issued on the data as it was, not published then"
REPLAYED_WORDS = f"replayed forecasts ({REPLAYED_WHAT})"


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


def dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The rows of an executed DuckDB cursor as dicts keyed by column name."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def data_as_of(store: Store, tracked: list[str], day: date | None) -> date | None:
    """Latest day with star signals for any tracked repository, not after `day`."""
    return last_signal_day(store.con, tracked, day)


def stale_repos(store: Store, tracked: list[str], day: date) -> list[dict[str, Any]]:
    """Tracked repositories whose latest star observation is older than the day before `day`."""
    out = []
    for repo in tracked:
        last = last_count_day(store.con, repo, day)
        if last is None or last < day - timedelta(days=1):
            out.append({"repo": repo, "last_day": last or "never"})
    return out


@dataclass
class CategoryMove:
    """A category's mean 28-day acceleration and velocity (category_signals) on a day."""

    category: str
    members: list[str]
    acceleration: float | None
    velocity: float | None
    sql: str
    velocity_sql: str
    params: list[Any]


def category_accelerations(store: Store, settings: Settings, as_of: date) -> list[CategoryMove]:
    """One CategoryMove per configured category, from its category_signals row on `as_of`."""
    categories: dict[str, list[str]] = {}
    for r in settings.repos:
        categories.setdefault(r.category, []).append(r.repo)
    out = []
    for category, members in categories.items():
        sql = "SELECT acceleration_28d_mean FROM category_signals WHERE category = ? AND day = ?"
        velocity_sql = (
            "SELECT velocity_28d_mean FROM category_signals WHERE category = ? AND day = ?"
        )
        params = [category, as_of]
        row = store.con.execute(
            "SELECT acceleration_28d_mean, velocity_28d_mean FROM category_signals "
            "WHERE category = ? AND day = ?",
            params,
        ).fetchone()
        acceleration, velocity = row if row else (None, None)
        out.append(
            CategoryMove(category, members, acceleration, velocity, sql, velocity_sql, params)
        )
    return out


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


def latest_row(store: Store, table: str, repo: str, day: date) -> dict[str, Any] | None:
    """The latest row of a (repo, day)-keyed table for `repo` not after `day`."""
    rows = dicts(
        store.con.execute(
            f'SELECT * FROM "{table}" WHERE repo = ? AND day <= ? ORDER BY day DESC LIMIT 1',
            [repo, day],
        )
    )
    return rows[0] if rows else None


# How a repository's 28-day change of pace ranks in its own record: the last day before the
# current 28 days with a change at least as large the same way (params: repo, the window's first
# day, the change), else where its record of changes begins (params: repo, day).
MOVE_SINCE_SQL = {
    "up": "SELECT CAST(max(day) AS VARCHAR) FROM star_signals "
    "WHERE repo = ? AND day < ? AND acceleration_28d >= ?",
    "down": "SELECT CAST(max(day) AS VARCHAR) FROM star_signals "
    "WHERE repo = ? AND day < ? AND acceleration_28d <= ?",
}
MOVE_RECORD_START_SQL = (
    "SELECT CAST(min(day) AS VARCHAR) FROM star_signals "
    "WHERE repo = ? AND day <= ? AND acceleration_28d IS NOT NULL"
)


@dataclass
class MoveRank:
    """A repository's 28-day change of pace on `day` against its own record: `since` is the last
    day before the 28 days to `day` with a change at least as large the same way (None: none in
    its record, which begins on `record_start`); `sql`/`params` reproduce the day cited."""

    repo: str
    day: date
    acceleration: float
    direction: str  # "up" / "down"
    since: date | None
    record_start: date
    sql: str
    params: list[Any]

    @property
    def cited(self) -> str:
        """The day the receipt cites (ISO text): `since`, else `record_start`."""
        return str(self.since or self.record_start)


def move_rank(store: Store, repo: str, day: date) -> MoveRank | None:
    """How the latest 28-day change of pace of `repo` not after `day` ranks in its own record
    (None when it has none, or it is zero)."""
    row = store.con.execute(
        "SELECT day, acceleration_28d FROM star_signals WHERE repo = ? AND day <= ? "
        "AND acceleration_28d IS NOT NULL ORDER BY day DESC LIMIT 1",
        [repo, day],
    ).fetchone()
    if row is None or not row[1]:
        return None
    on, acceleration = row[0], float(row[1])
    direction = "up" if acceleration > 0 else "down"
    params: list[Any] = [repo, on - timedelta(days=28), acceleration]
    found = store.con.execute(MOVE_SINCE_SQL[direction], params).fetchall()[0][0]
    start = store.con.execute(MOVE_RECORD_START_SQL, [repo, on]).fetchall()[0][0]
    if found is not None:
        sql = MOVE_SINCE_SQL[direction]
    else:
        sql, params = MOVE_RECORD_START_SQL, [repo, on]
    return MoveRank(
        repo,
        on,
        acceleration,
        direction,
        date.fromisoformat(found) if found else None,
        date.fromisoformat(start),
        sql,
        params,
    )


def latest_release(store: Store, repo: str, day: date) -> dict[str, Any] | None:
    """The latest release (or tag) of `repo` published on or before `day`."""
    rows = dicts(
        store.con.execute(
            "SELECT tag, name, published_at, is_prerelease FROM releases WHERE repo = ? AND "
            "published_at < ? ORDER BY published_at DESC, tag LIMIT 1",
            [repo, day + timedelta(days=1)],
        )
    )
    return rows[0] if rows else None


def last_release_lift(store: Store, repo: str, day: date) -> dict[str, Any] | None:
    """The latest release whose 14-day star lift was measurable by `day` (d + 14 <= day)."""
    rows = dicts(
        store.con.execute(
            "SELECT tag, day, star_lift FROM release_signals WHERE repo = ? AND star_lift IS NOT "
            "NULL AND day + INTERVAL 14 DAY <= ? ORDER BY day DESC, tag LIMIT 1",
            [repo, day],
        )
    )
    return rows[0] if rows else None


@dataclass
class Phase:
    """A lifecycle phase row: where it is stored and what it says."""

    table: str
    key: dict[str, Any]
    column: str
    phase: str
    day: date
    why: str | None = None


def lifecycle_phase(store: Store, repo: str, day: date) -> Phase | None:
    """The repository's lifecycle phase on (or before) `day` (star_signals.lifecycle_phase)."""
    row = latest_row(store, "star_signals", repo, day)
    if row is None or row.get("lifecycle_phase") is None:
        return None
    return Phase(
        "star_signals",
        {"repo": repo, "day": row["day"]},
        "lifecycle_phase",
        row["lifecycle_phase"],
        row["day"],
        LIFECYCLE_RULE,
    )


@dataclass
class BandRate:
    """How often the model's backtest forecasts in one band came true as predicted."""

    model_version: str
    n: int
    hit_rate: float
    card_path: str
    pointer: list[Any]


def backtest_band_rate(settings: Settings, forecast: dict[str, Any], band: str) -> BandRate | None:
    """The backtest hit rate of the forecast's template, horizon and band from the model card
    (`forecaster.json` beside the model), when the card holds one for this model version."""
    from shu.forecast.evaluation.model_card import band_track_record
    from shu.forecast.models.artifact import CARD_JSON

    card = Path(settings.models_dir) / CARD_JSON
    rate = band_track_record(
        Path(settings.models_dir), forecast["template"], forecast["horizon_days"], band
    )
    if rate is None or rate.get("hit_rate") is None:
        return None
    version = json.loads(card.read_text(encoding="utf-8")).get("version")
    if version != forecast["model_version"]:
        return None
    pointer = [
        "backtest",
        "slices",
        f"{forecast['template']}/{forecast['horizon_days']}",
        "bands",
        {"band": band},
        "hit_rate",
    ]
    return BandRate(version, int(rate["n"]), float(rate["hit_rate"]), str(card), pointer)


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

    @property
    def words(self) -> str:
        """Whose record it is, in words: "live" only when none of it was replayed."""
        if not self.replayed:
            return "this store's live record"
        return (
            "this store's record (replayed)"
            if self.replayed == self.n
            else "this store's record (partly replayed)"
        )


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


def latest_probe_runs(store: Store) -> list[dict[str, Any]]:
    """The latest probe run per backend."""
    return dicts(
        store.con.execute(
            "SELECT * EXCLUDE (raw_json) FROM probe_runs QUALIFY row_number() OVER "
            "(PARTITION BY backend ORDER BY started_at DESC, run_id) = 1 ORDER BY backend"
        )
    )


def probe_kernels(store: Store, run_id: str) -> list[dict[str, Any]]:
    return dicts(
        store.con.execute(
            "SELECT kernel, is_valid, eager_ms, compiled_ms, speedup, generated_kernels, "
            "eager_kernels, substitutions, inductor_did FROM probe_results "
            "WHERE run_id = ? ORDER BY kernel",
            [run_id],
        )
    )


def latest_probe_age_days(store: Store, day: date) -> int | None:
    """Days since the newest probe run (None when there is none)."""
    started = store.con.execute("SELECT max(started_at) FROM probe_runs").fetchall()[0][0]
    return None if started is None else (day - started.date()).days


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
