"""Issuing today's forecasts, append-only: what `shu forecast`, `shu daily` and `shu replay` write.

For each trained template x horizon, each tracked repository with signals on the origin (for
the radar's templates, `ranked` in the registry: every repository in the store with a 28-day
velocity on the origin, whatever its source) gets the question its template's rule chooses
(`question_rows`), a calibrated probability (after the regime guard, `calibration.guard`), its
confidence band (`confidence`), the features it saw, its top drivers (from the model) and
receipts (the stored values behind its numbers), and the base rate it is read against: the
climatology of its template, horizon and threshold bucket that its model recorded when trained
(`base_rates.climatology_rate`, stored as `forecasts.base_rate`). Interval forecasts store
their predictive quantiles in `forecast_intervals` and, in `forecasts`, the nominal 0.8 that
their 80% interval holds. Questions users declare in shu.toml (`[[questions]]`) are issued the
same way with their own threshold, for every trained template x horizon they name. The
questions about the 28-day velocity on the horizon are read from one predictive distribution
per (repository, origin, horizon) (`calibration.distribution`); star_gain and the path
questions keep their models' answers, held to their bounds against that distribution
(`calibration.bounds`), star_gain at horizons of at most 28 days (a question about that
velocity) as one of the answers the distribution passes through.

The forecast id is a hash of (repo, template, threshold, horizon, origin, model version), so
re-running on the same day with the same model issues nothing new; existing rows are never
edited.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from shu.errors import ConfigError, StoreError
from shu.forecast.base_rates import climatology_rate
from shu.forecast.calibration import bounds, distribution, guard, state_store
from shu.forecast.confidence import confidence_band
from shu.forecast.features.examples import base_frame, threshold_bucket, with_thresholds
from shu.forecast.features.star import data_through
from shu.forecast.live.arrow_rows import distribution_table, insert_rows, interval_table
from shu.forecast.live.question_rows import declared_rocm_rows, declared_star_rows, rocm_rows
from shu.forecast.models.artifact import load_forecasters, model_path
from shu.forecast.models.forecaster import Forecaster
from shu.forecast.models.interval import DIST_LEVELS, QUANTILES, IntervalForecaster
from shu.forecast.questions.registry import Template, declared_problem, template
from shu.receipts import Citation
from shu.settings import DeclaredQuestion, Settings
from shu.store import Store, utcnow

# An interval forecast's row in `forecasts` reads as "the 80% interval will hold" at p = 0.8.
NOMINAL_80 = 0.8
RADAR_DRIVERS = 8
_DIST_QUANTILES = np.searchsorted(DIST_LEVELS, QUANTILES)  # QUANTILES among DIST_LEVELS


@dataclass(frozen=True)
class IssuedForecast:
    """One forecast row as written to `forecasts`."""

    forecast_id: str
    repo: str
    template: str
    origin: date
    horizon_days: int
    resolves_on: date
    threshold: float
    question: str
    probability: float
    confidence: str
    model_version: str
    features: str
    drivers: str
    receipts: str
    calibration: str | None = None
    base_rate: float | None = None
    base_rate_n: int | None = None
    distribution_id: str | None = None


def forecast_id(
    repo: str, template: str, threshold: float, horizon_days: int, origin: date, model_version: str
) -> str:
    """Deterministic id of a forecast (16 hex of SHA-256 over its defining fields)."""
    key = f"{repo}|{template}|{threshold:.6g}|{horizon_days}|{origin.isoformat()}|{model_version}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def distribution_id(repo: str, horizon_days: int, origin: date, model_version: str) -> str:
    """Deterministic id of a predictive distribution (16 hex of SHA-256)."""
    key = f"{repo}|distribution|{horizon_days}|{origin.isoformat()}|{model_version}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class _Asked:
    """One yes/no forecaster's questions on an origin, answered (calibrated and guarded)."""

    fc: Forecaster
    rows: pd.DataFrame
    probabilities: np.ndarray
    drivers: list[list[dict]]
    calibration: state_store.Applied | None
    block_rates: np.ndarray | None = None

    def records(
        self,
        model_version: str,
        probabilities: np.ndarray | None = None,
        distribution_ids: list[str | None] | None = None,
        bound_notes: list[dict | None] | None = None,
    ) -> list[IssuedForecast]:
        """The forecast rows (with `probabilities` read from distributions or held to their
        bounds when given, and the record of each bound checked)."""
        p = self.probabilities if probabilities is None else probabilities
        return [
            _record(
                row,
                self.fc,
                float(p[i]),
                self.drivers[i],
                pd.Timestamp(row["origin"]).date(),
                model_version,
                self.calibration,
                None if self.block_rates is None else float(self.block_rates[i]),
                None if distribution_ids is None else distribution_ids[i],
                None if bound_notes is None else bound_notes[i],
            )
            for i, row in enumerate(self.rows.to_dict("records"))
        ]


@dataclass
class _Pending:
    """One horizon's forecasts about the 28-day velocity on origin + horizon, to be read from
    one distribution per (repository, origin)."""

    interval: tuple[IntervalForecaster, pd.DataFrame, state_store.Applied] | None = None
    asked: list[_Asked] = field(default_factory=list)
    # questions not read from the distribution but held to their bounds against it
    bounded: list[_Asked] = field(default_factory=list)


def _hold_to_bounds(
    store: Store, pending: _Pending, model_version: str, distributions: list[dict]
) -> list[IssuedForecast]:
    """The forecasts of one horizon's star_gain and path questions, each answer held to its
    bound against the distribution of its (repository, origin) (`calibration.bounds`), what
    was checked recorded in its `calibration` state under `bound`. A star_gain answer at
    H <= 28 is an anchor of that distribution (`_read_distribution`): its bound reads it back,
    and the forecast names the distribution it was read from."""
    by_key = {(d["repo"], d["origin"]): d for d in distributions}
    out: list[IssuedForecast] = []
    for a in pending.bounded:
        p, notes = bounds.bound_answers(
            store.con, a.fc.template, a.fc.horizon_days, a.rows, a.probabilities, by_key
        )
        ids = [n["distribution_id"] if n and n["relation"] == "=" else None for n in notes]
        out.extend(a.records(model_version, p, ids, notes))
    return out


def _anchors(store: Store, pending: _Pending) -> list[tuple[_Asked, np.ndarray]]:
    """The answers one horizon's distributions pass through, each question set with the
    velocity threshold of each of its questions (NaN: not an anchor): the velocity questions at
    their own thresholds, star_gain at H <= 28 at the velocity its question is on V's lattice
    (`bounds.gain_thresholds`, from D(28-H) as of the origin)."""
    out = [(a, a.rows["threshold"].to_numpy(dtype=float)) for a in pending.asked]
    for a in pending.bounded:
        if (
            a.fc.template == "star_gain"
            and bounds.lag_days("star_gain", a.fc.horizon_days) is not None
        ):
            out.append((a, bounds.gain_thresholds(store.con, a.fc.horizon_days, a.rows)))
    return out


def _read_distribution(
    store: Store,
    pending: _Pending,
    model_version: str,
    intervals: dict[str, list[float]],
    distributions: list[dict],
) -> list[IssuedForecast]:
    """The forecasts of one horizon read from one distribution per (repository, origin): the
    interval model's distribution for every repository a question is asked about (tracked or on
    the radar), bent through the answers (`_anchors`; `calibration.distribution.anchor`); each
    velocity question's probability is the distribution's P(V > threshold), each interval its
    quantiles (star_gain's answers are read back by `_hold_to_bounds`). The distributions are
    appended to `distributions` (rows of `forecast_distributions`). Without an interval model
    the answers are issued as they are."""
    if pending.interval is None:
        return [r for a in pending.asked for r in a.records(model_version)]
    fc, rows, calibration = pending.interval
    assert calibration.state is not None
    anchors = _anchors(store, pending)
    cols = list(dict.fromkeys(["repo", "origin", "velocity_28d", *fc.features]))
    frames = [rows[cols]] + [a.rows[cols] for a, _ in anchors]
    every = pd.concat(frames, ignore_index=True)
    every["day"] = [pd.Timestamp(o).date() for o in every["origin"]]
    every = every.drop_duplicates(["repo", "day"]).reset_index(drop=True)
    if every.empty:
        return []
    at = {(r, d): i for i, (r, d) in enumerate(zip(every["repo"], every["day"], strict=True))}
    g = fc.quantiles(every, calibration.state.levels, calibration.guard.widen, DIST_LEVELS)
    # per distribution: the (question set, row) pairs anchoring it
    pairs: list[list[tuple[int, int]]] = [[] for _ in range(len(every))]
    for k, (a, vx) in enumerate(anchors):
        for j, (r, o) in enumerate(zip(a.rows["repo"], a.rows["origin"], strict=True)):
            if np.isfinite(vx[j]):
                pairs[at[(r, pd.Timestamp(o).date())]].append((k, j))
    width = max([1, *(len(x) for x in pairs)])
    ax = np.full((len(every), width), np.nan)
    ap = np.full((len(every), width), np.nan)
    for i, mine in enumerate(pairs):
        for m, (k, j) in enumerate(mine):
            ax[i, m] = float(anchors[k][1][j])
            ap[i, m] = float(anchors[k][0].probabilities[j])
    f = distribution.anchor(DIST_LEVELS, g, ax, ap)
    ids = [
        distribution_id(r, fc.horizon_days, d, model_version)
        for r, d in zip(every["repo"], every["day"], strict=True)
    ]
    read = [np.full(len(a.rows), np.nan) for a, _ in anchors]
    for i, mine in enumerate(pairs):
        if not mine:
            continue
        p = f.prob_above_rows(np.full(len(mine), i), ax[i, : len(mine)])
        for m, (k, j) in enumerate(mine):
            read[k][j] = p[m]
    # the columns as lists: a Series read row by row (`.iloc[i]`) costs ~1 s CPU on the radar
    repos, days = every["repo"].tolist(), every["day"].tolist()
    velocities = every["velocity_28d"].tolist()
    levels = DIST_LEVELS.tolist()
    for i in range(len(every)):
        mine = pairs[i]
        distributions.append(
            {
                "distribution_id": ids[i],
                "repo": repos[i],
                "origin": days[i],
                "horizon_days": fc.horizon_days,
                "model_version": model_version,
                "velocity_28d": float(velocities[i]),
                "levels": list(levels),
                "quantiles": f.quantiles[i].tolist(),
                "anchor_templates": [anchors[k][0].fc.template for k, _ in mine],
                "anchor_thresholds": [float(x) for x in ax[i, : len(mine)]],
                "anchor_probability": [float(p) for p in ap[i, : len(mine)]],
                "anchor_cdf": [1.0 - float(read[k][j]) for k, j in mine],
            }
        )
    out: list[IssuedForecast] = []
    for k, a in enumerate(pending.asked):
        days = [pd.Timestamp(o).date() for o in a.rows["origin"]]
        mine_ids: list[str | None] = [
            ids[at[(r, d)]] for r, d in zip(a.rows["repo"], days, strict=True)
        ]
        out.extend(a.records(model_version, read[k], mine_ids))
    for row in rows.to_dict("records"):
        i = at[(row["repo"], pd.Timestamp(row["origin"]).date())]
        record = _record(
            row,
            fc,
            NOMINAL_80,
            [],
            pd.Timestamp(row["origin"]).date(),
            model_version,
            calibration,
            distribution_id=ids[i],
        )
        intervals[record.forecast_id] = [float(q) for q in f.quantiles[i][_DIST_QUANTILES]]
        out.append(record)
    return out


def issue_forecasts(
    store: Store,
    origin: date | None = None,
    *,
    settings: Settings,
    forecasters: list[Forecaster] | None = None,
    model_version: str | None = None,
    once_per: str | None = None,
    resolving_after: date | None = None,
) -> list[IssuedForecast]:
    """Issue forecasts for the tracked repositories as of `origin` (default: last data day).

    `settings` are the entry point's (passed in, never read here). With `resolving_after` (the
    daily job gives its day, `shu forecast` today), only the questions that resolve after that
    day are asked: a store whose data ends weeks ago asks nothing about a day already past (its
    7- and 30-day questions), which would read as a forecast; nor does the radar, whose origin
    is the newest day the untracked repositories' counts were observed (`radar_origin`).

    Loads the model from `settings.models_dir` unless `forecasters` and `model_version` are
    given. With `once_per` (a model_version prefix), a question (repo, template, threshold,
    horizon, origin) already forecast by any version with that prefix is not issued again, so
    `shu replay` re-runs converge even when a refit gives another version. Returns the forecasts
    newly written (empty on a same-day re-run).
    """
    if forecasters is None:
        model_version, forecasters = load_forecasters(model_path(settings))
    if not model_version:
        raise StoreError("a model version is needed to issue forecasts")
    origin = origin or data_through(store.con)
    _check_declared(settings.questions, forecasters)
    if resolving_after is not None:
        forecasters = [
            fc for fc in forecasters if origin + timedelta(days=fc.horizon_days) > resolving_after
        ]
        if not forecasters:
            return []
    repos = list(
        dict.fromkeys([r.repo for r in settings.repos] + [q.repo for q in settings.questions])
    )
    base = base_frame(store.con, [origin], repos)
    everyone = None  # every repository with signals on the origin (the radar), when needed
    radar_day: date | None = None  # the radar's origin (`radar_origin`), when needed
    issued: list[IssuedForecast] = []
    intervals: dict[str, list[float]] = {}
    distributions: list[dict] = []
    # per horizon: the interval model and the velocity questions, read from one distribution
    pending: dict[int, _Pending] = {}
    with store.transaction():  # the calibration rows commit with the forecasts that use them
        applied = state_store.prepare(
            store,
            [fc for fc in forecasters if template(fc.template).family == "star"],
            origin,
            model_version,
        )
        for fc in forecasters:
            spec = template(fc.template)
            if spec.family == "rocm":
                rows = rocm_rows(store.con, origin, repos, fc.template, fc.horizon_days)
                rows = pd.concat(
                    [
                        rows,
                        declared_rocm_rows(
                            store.con, origin, fc.template, fc.horizon_days, settings.questions
                        ),
                    ],
                    ignore_index=True,
                )
            else:
                if spec.ranked:
                    radar_day = radar_day or radar_origin(store, origin, repos)
                    if (
                        resolving_after is not None
                        and radar_day + timedelta(days=fc.horizon_days) <= resolving_after
                    ):  # the others' counts end too long ago: the question is about a past day
                        continue
                    if everyone is None:
                        everyone = base_frame(store.con, [radar_day])
                rows = with_thresholds(
                    store.con, everyone if spec.ranked else base, fc.template, fc.horizon_days
                )
            # the interval model is kept without a tracked repository to forecast: the radar's
            # answers are still read from its distributions
            if rows.empty and not isinstance(fc, IntervalForecaster):
                continue
            calibration = applied.get((fc.template, fc.horizon_days))
            if isinstance(fc, IntervalForecaster):
                if calibration is None or calibration.state is None:
                    raise StoreError(f"{fc.template}/{fc.horizon_days}: no calibration state")
                pending.setdefault(fc.horizon_days, _Pending()).interval = (fc, rows, calibration)
                continue
            if spec.family == "star":
                declared = declared_star_rows(
                    base, fc.template, fc.horizon_days, settings.questions
                )
                rows = pd.concat([rows, declared], ignore_index=True)
            probabilities = state_store.answers(fc, rows, calibration)
            # of the model itself, before the guard; the radar words its drivers from the raw
            # values behind them, so it keeps enough to find three it can word
            drivers = fc.drivers(rows, top=RADAR_DRIVERS if spec.ranked else 4)
            block_rates = None
            if calibration is not None:
                block_rates = fc.calibration_block_rate(threshold_bucket(fc.template, rows))
                probabilities = guard.shrink_probabilities(
                    probabilities,
                    block_rates,
                    rows["velocity_28d"].to_numpy(),
                    calibration.guard.shrink,
                )
            asked = _Asked(fc, rows.reset_index(drop=True), probabilities, drivers, calibration)
            asked.block_rates = block_rates
            if spec.reads_distribution:
                pending.setdefault(fc.horizon_days, _Pending()).asked.append(asked)
            elif fc.template in bounds.BOUNDED:
                pending.setdefault(fc.horizon_days, _Pending()).bounded.append(asked)
            else:
                issued.extend(asked.records(model_version))
        for horizon in pending.values():
            read: list[dict] = []
            issued.extend(_read_distribution(store, horizon, model_version, intervals, read))
            issued.extend(_hold_to_bounds(store, horizon, model_version, read))
            distributions.extend(read)
        issued = list({f.forecast_id: f for f in issued}.values())
        inserted = _append(store, issued, intervals, once_per, distributions)
    return [f for f in issued if f.forecast_id in inserted]


def radar_origin(store: Store, origin: date, tracked: list[str]) -> date:
    """The radar's origin: the newest day on or before `origin` on which some repository
    outside `tracked` had its star count observed (not held from an earlier day), so that when
    only the tracked repositories got fresh counts (no ranking file or GH Archive hours loaded)
    the radar forecasts from the newest counts the others have, not from days on which their
    counts are merely carried forward; `origin` itself when the store has no other repository.
    """
    marks = ", ".join("?" for _ in tracked) or "NULL"
    day = store.con.execute(
        f"SELECT max(day) FROM star_signals WHERE day <= ? AND stars_age_days = 0 "
        f"AND repo NOT IN ({marks})",
        [origin, *tracked],
    ).fetchone()
    return (day[0] if day else None) or origin


def _check_declared(
    questions: list[DeclaredQuestion], forecasters: Iterable[Forecaster | IntervalForecaster]
) -> None:
    """ConfigError (one line) for the first declared question that cannot be issued: the
    settings' own check (`declared_problem`, again: settings built in code skip validation), or
    no trained model of its template at its horizon among `forecasters`."""
    trained = {(fc.template, fc.horizon_days) for fc in forecasters}
    for i, q in enumerate(questions):
        problem = declared_problem(q.template, q.horizon, q.threshold)
        if problem is None and (q.template, q.horizon) not in trained:
            problem = f"no trained model asks {q.template} at {q.horizon} days (shu train)"
        if problem:
            raise ConfigError(f"questions[{i}]: {q.repo}: {problem}")


def _record(
    row: Mapping[str, Any],
    fc: Forecaster | IntervalForecaster,
    probability: float,
    drivers: list[dict],
    origin: date,
    model_version: str,
    calibration: state_store.Applied | None = None,
    calibration_block_rate: float | None = None,
    distribution_id: str | None = None,
    bound: dict | None = None,
) -> IssuedForecast:
    """The row of one forecast. `calibration_block_rate` (the rate the regime guard pulls
    towards, recorded in the forecast's calibration state) is not its climatology: the
    climatology its model recorded when trained is stored as `base_rate`. `bound`: what
    `calibration.bounds` checked the answer against (kept in the calibration state)."""
    threshold = float(row["threshold"])
    spec = template(fc.template)
    seen = {name: _seen(row[name]) for name in fc.features}
    receipts = _receipts(spec, row, origin)
    climatology = climatology_rate(getattr(fc, "climatology", None), row.get("bucket", 0))
    state = None
    if calibration is not None:
        velocity = None if pd.isna(row["velocity_28d"]) else float(row["velocity_28d"])
        state = calibration.describe(origin, model_version, velocity, calibration_block_rate)
        column = "shrink" if calibration.state is None else "levels"
        receipts.append(
            Citation("row", "forecast_calibration", state["row"], column, state.get(column), origin)
        )
    if bound is not None:
        state = {**(state or {}), "bound": bound}
    return IssuedForecast(
        forecast_id=forecast_id(
            row["repo"], fc.template, threshold, fc.horizon_days, origin, model_version
        ),
        repo=row["repo"],
        template=fc.template,
        origin=origin,
        horizon_days=fc.horizon_days,
        resolves_on=origin + timedelta(days=fc.horizon_days),
        threshold=threshold,
        question=spec.question(row["repo"], origin, fc.horizon_days, threshold),
        probability=probability if not math.isnan(probability) else 0.5,
        confidence=confidence_band(probability),
        model_version=model_version,
        features=json.dumps(seen),
        drivers=json.dumps(drivers),
        receipts=json.dumps([c.as_record() for c in receipts]),
        calibration=None if state is None else json.dumps(state),
        base_rate=climatology[0] if climatology else None,
        base_rate_n=climatology[1] if climatology else None,
        distribution_id=distribution_id,
    )


def _seen(value: Any) -> float | None:
    """A feature's value as stored with its forecast: rounded to 6 places, None when missing
    (a float is checked without pandas: ~40 values a forecast, 10,000 forecasts a day)."""
    if isinstance(value, float):
        return None if value != value else round(float(value), 6)
    return None if pd.isna(value) else round(float(value), 6)


def _receipts(spec: Template, row: Mapping[str, Any], origin: date) -> list[Citation]:
    """The stored values on the origin behind a forecast's features (`spec.receipts`): star
    templates cite their `star_signals` row; the ROCm templates the commit and release
    aggregates over trailing windows ending on the origin."""
    star = spec.family == "star"
    return [
        Citation(
            "row",
            "star_signals" if star else ("releases" if c == "months_since_release" else "commits"),
            {"repo": row["repo"], ("day" if star else "window_end"): str(origin)},
            c,
            None if pd.isna(row[c]) else float(row[c]),
            origin,
        )
        for c in spec.receipts
    ]


def _append(
    store: Store,
    issued: list[IssuedForecast],
    intervals: dict[str, list[float]],
    once_per: str | None = None,
    distributions: list[dict] | None = None,
) -> set[str]:
    """Insert forecasts whose id is not stored yet (never touching existing rows), with the
    predictive quantiles of interval forecasts (`intervals`: forecast_id -> QUANTILES values)
    in `forecast_intervals`, in one transaction; return the new ids. With `once_per`, questions
    already forecast by a version starting with it count as stored (re-keyed to this batch's
    version)."""
    if not issued:
        return set()
    frame = pd.DataFrame([f.__dict__ for f in issued])
    frame["base_rate_n"] = frame["base_rate_n"].astype("Int64")
    frame["issued_at"] = utcnow()
    origins = sorted({f.origin for f in issued})  # the radar's may be earlier (radar_origin)
    version = issued[0].model_version
    marks = ", ".join("?" for _ in origins)
    with store.transaction():
        existing = {
            r[0]
            for r in store.con.execute(
                f"SELECT forecast_id FROM forecasts WHERE origin IN ({marks})", origins
            ).fetchall()
        }
        if once_per:
            existing |= {
                forecast_id(repo, template, threshold, horizon, day, version)
                for repo, template, threshold, horizon, day in store.con.execute(
                    "SELECT repo, template, threshold, horizon_days, origin "
                    f"FROM forecasts WHERE origin IN ({marks}) "
                    "AND starts_with(model_version, ?)",
                    [*origins, once_per],
                ).fetchall()
            }
        frame = frame[~frame["forecast_id"].isin(existing)]
        if frame.empty:
            return set()
        store.con.register("_fc_new", frame)
        try:
            cols = ", ".join(frame.columns)
            store.con.execute(f"INSERT INTO forecasts ({cols}) SELECT {cols} FROM _fc_new")
        finally:
            store.con.unregister("_fc_new")
        new_intervals = [
            [fid, *q] for fid, q in intervals.items() if fid in set(frame["forecast_id"])
        ]
        named = set(frame["distribution_id"].dropna())
        new_distributions = [d for d in distributions or [] if d["distribution_id"] in named]
        if new_distributions:
            stored = {
                r[0]
                for r in store.con.execute(
                    f"SELECT distribution_id FROM forecast_distributions WHERE origin IN ({marks})",
                    origins,
                ).fetchall()
            }
            fresh = [d for d in new_distributions if d["distribution_id"] not in stored]
            if fresh:
                insert_rows(store, "forecast_distributions", distribution_table(fresh))
        if new_intervals:
            insert_rows(store, "forecast_intervals", interval_table(new_intervals))
    return set(frame["forecast_id"])
