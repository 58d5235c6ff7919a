"""The calibration state in production: each origin's regime and the state its forecasts are
issued with, computed with `guard` and `conformal` and kept in the store (`market_regime`,
`forecast_calibration`).

`prepare(store, forecasters, origin, version)` is what `issue_forecasts` (so `shu forecast`,
`shu daily` and `shu replay`) calls before issuing. For each forecaster:
- the regime guard of the origin (`regime.regime_frame`, written to `market_regime`);
- interval templates: the online conformal state, continued from the newest state stored before
  the origin (whatever model version wrote it: the state follows the stream of questions, as in
  the backtest) and updated, when due (weekly), from the questions the store's star history has
  resolved since: examples built exactly as the backtest builds them
  (`features.examples.build_examples`) for every repository with star signals on each weekly origin
  o = origin - H - 7k whose resolution day lies after the state's last one and on or before the
  origin (never later), read as PIT values of the current model, widened by the guard of their
  own origin. With no stored state it starts from the nominal levels and reads the last
  `WARMUP_UPDATES` weekly origins in order;
- a yes/no template whose model has a tail map (the radar): the online tail factor
  (`models.tail.online_factor`), re-fitted when due (weekly; in between, the newest factor the
  same model stored before the origin) from the questions of the weekly origins
  o = origin - H - 7k (k < `tail.WINDOW_ORIGINS`) resolved by the origin, built as the backtest
  builds them, read untailed with the current model; `answers` issues through it.
The rows written for the origin are reused when it is issued again, so re-runs converge. The
backtest reads each question as issued (the model of its refit); production has one model and
reads the resolved questions with it (for questions inside its calibration block that is
in-sample, and the update is then close to neutral).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from shu.forecast.calibration import conformal
from shu.forecast.calibration import guard as regime_guard
from shu.forecast.calibration.conformal import State
from shu.forecast.calibration.guard import Guard
from shu.forecast.features.examples import base_frame, build_examples
from shu.forecast.features.regime import regime_frame
from shu.forecast.models import tail
from shu.forecast.models.forecaster import Forecaster
from shu.forecast.models.interval import VELOCITY_BANDS, IntervalForecaster, velocity_band
from shu.store import Store

WARMUP_UPDATES = 8
ALL_BANDS = "all"  # the band name of a yes/no template's state


@dataclass
class TailFactor:
    """The radar's online tail factor on an origin and what it read."""

    factor: float
    n_resolved: int  # the resolved questions read (each resolved origin's top)
    resolved_through: date | None  # the newest resolution day read
    updated_on: date  # the origin it was fitted on


@dataclass
class Applied:
    """What one template x horizon's forecasts on an origin are issued with."""

    template: str
    horizon_days: int
    guard: Guard
    state: State | None = None  # interval templates only
    rows: list[dict] = field(default_factory=list)  # its `forecast_calibration` rows
    tail: TailFactor | None = None  # a yes/no template with a tail map (the radar) only

    def describe(
        self,
        origin: date,
        model_version: str,
        velocity: float | None = None,
        calibration_block_rate: float | None = None,
    ) -> dict:
        """The `calibration` JSON of one forecast (its state row and what it applied)."""
        band = (
            ALL_BANDS
            if self.state is None
            else VELOCITY_BANDS[
                int(velocity_band(np.array([velocity if velocity is not None else 0.0]))[0])
            ]
        )
        out: dict[str, Any] = {
            "row": {
                "origin": str(origin),
                "model_version": model_version,
                "template": self.template,
                "horizon_days": self.horizon_days,
                "band": band,
            },
            "regime_distance": self.guard.distance,
        }
        if self.state is None:
            out.update(
                {
                    "shrink": self.guard.shrink,
                    "calibration_block_rate": calibration_block_rate,
                    "applies": bool(
                        self.guard.shrink < 1 and velocity is not None and velocity <= 0
                    ),
                }
            )
            if self.tail is not None:
                out["tail_factor"] = round(self.tail.factor, 4)
        else:
            k = VELOCITY_BANDS.index(band)
            out.update(
                {
                    "widen": self.guard.widen,
                    "levels": [round(float(x), 4) for x in self.state.levels[k]],
                    "resolved_through": None
                    if self.state.resolved_through is None
                    else str(self.state.resolved_through.date()),
                }
            )
        return out


def origin_regime(store: Store, origin: date) -> dict:
    """The store's regime on `origin` (`regime.COLUMNS`), written to `market_regime`."""
    row = regime_frame(store.con, [origin]).iloc[0]
    record = {k: (None if pd.isna(v) else v) for k, v in row.items()}
    frame = pd.DataFrame([{**{k: v for k, v in record.items() if k != "origin"}, "day": origin}])
    frame["n_repos"] = frame["n_repos"].astype("int64")
    store.upsert("market_regime", frame)
    return record


def prepare(store: Store, forecasters: list, origin: date, model_version: str) -> dict:
    """{(template, horizon): Applied} for the star forecasters issued on `origin` (see the
    module docstring); writes the origin's `market_regime` and `forecast_calibration` rows."""
    regime = origin_regime(store, origin)
    guard = regime_guard.guard(regime["distance"], regime["loss_share_ratio_7d"])
    out = {}
    for fc in forecasters:
        key = (fc.template, fc.horizon_days)
        if isinstance(fc, IntervalForecaster):
            state = _stored(store, fc, origin, model_version) or _advance(store, fc, origin)
            applied = Applied(fc.template, fc.horizon_days, guard, state)
        else:
            applied = Applied(fc.template, fc.horizon_days, guard)
            if getattr(fc, "tail", None) is not None:
                applied.tail = _tail_factor(store, fc, origin, model_version)
        applied.rows = _rows(applied, origin, model_version)
        out[key] = applied
    rows = [r for a in out.values() for r in a.rows]
    if rows:
        store.upsert("forecast_calibration", pd.DataFrame(rows))
    return out


def _rows(applied: Applied, origin: date, model_version: str) -> list[dict]:
    common = {
        "origin": origin,
        "model_version": model_version,
        "template": applied.template,
        "horizon_days": applied.horizon_days,
        "regime_distance": applied.guard.distance,
    }
    if applied.state is None:
        t = applied.tail
        return [
            {
                **common,
                "band": ALL_BANDS,
                "shrink": applied.guard.shrink,
                "widen": None,
                "levels": None,
                "resolved_through": None if t is None else t.resolved_through,
                "n_resolved": None if t is None else t.n_resolved,
                "updated_on": None if t is None else t.updated_on,
                "tail_factor": None if t is None else t.factor,
            }
        ]
    s = applied.state
    return [
        {
            **common,
            "band": band,
            "shrink": None,
            "widen": applied.guard.widen,
            "levels": [float(x) for x in s.levels[k]],
            "resolved_through": None if s.resolved_through is None else s.resolved_through.date(),
            "n_resolved": s.n_resolved,
            "updated_on": None if s.updated_on is None else s.updated_on.date(),
            "tail_factor": None,
        }
        for k, band in enumerate(VELOCITY_BANDS)
    ]


def _stored(store: Store, fc: IntervalForecaster, origin: date, model_version: str) -> State | None:
    """The state already written for this origin and model (a re-run), if any."""
    return _load(store, fc, "origin = ? AND model_version = ?", [origin, model_version])


def _load(store: Store, fc: IntervalForecaster, where: str, params: list) -> State | None:
    rows = store.con.execute(
        f"""
        SELECT origin, band, levels, resolved_through, n_resolved, updated_on
        FROM forecast_calibration
        WHERE template = ? AND horizon_days = ? AND levels IS NOT NULL AND {where}
        QUALIFY origin = max(origin) OVER ()
          AND model_version = min(model_version) OVER (PARTITION BY origin)""",
        [fc.template, fc.horizon_days, *params],
    ).df()
    if rows.empty:
        return None
    state = conformal.initial_state(fc.template, fc.horizon_days)
    for _, r in rows.iterrows():
        state.levels[VELOCITY_BANDS.index(r["band"])] = np.asarray(r["levels"], dtype=float)
    first = rows.iloc[0]
    state.resolved_through = (
        None if pd.isna(first["resolved_through"]) else pd.Timestamp(first["resolved_through"])
    )
    state.n_resolved = int(first["n_resolved"] or 0)
    state.updated_on = None if pd.isna(first["updated_on"]) else pd.Timestamp(first["updated_on"])
    return state


def _advance(store: Store, fc: IntervalForecaster, origin: date) -> State:
    """The newest state stored before `origin`, updated on `origin` when due."""
    state = _load(store, fc, "origin < ?", [origin])
    h = fc.horizon_days
    if state is None:
        state = conformal.initial_state(fc.template, h)
        weekly = [origin - timedelta(days=h + 7 * k) for k in range(WARMUP_UPDATES)]
    elif state.due(origin):
        weekly = [origin - timedelta(days=h + 7 * k) for k in range(WARMUP_UPDATES)]
        weekly = [
            o
            for o in weekly
            if state.resolved_through is None
            or pd.Timestamp(o + timedelta(days=h)) > state.resolved_through
        ]
    else:
        return state
    batch = resolved_batch(store, fc, sorted(weekly), origin)
    for day in sorted(weekly):  # one update per weekly origin, in order, as the backtest does
        part = batch[batch["known_on"] <= pd.Timestamp(day + timedelta(days=h))]
        state = conformal.update(state, part, day + timedelta(days=h))
    state.updated_on = pd.Timestamp(origin)
    return state


# No resolved question: typed like a batch, so comparing its `known_on` with a day works.
_NO_BATCH = pd.DataFrame(
    {
        "known_on": pd.Series([], dtype="datetime64[us]"),
        "band": pd.Series([], dtype="int64"),
        "pit": pd.Series([], dtype="float64"),
    }
)


def resolved_batch(
    store: Store, fc: IntervalForecaster, origins: list[date], as_of: date
) -> pd.DataFrame:
    """The questions of `fc`'s template x horizon asked on `origins` about every repository
    with star signals, resolved by `as_of` (as the backtest builds them), as (known_on, band,
    pit) under the current model and each origin's guard."""
    if not origins:
        return _NO_BATCH.copy()
    base = base_frame(store.con, origins)
    examples = build_examples(store.con, base, fc.template, fc.horizon_days, as_of).frame
    if examples.empty:
        return _NO_BATCH.copy()
    distance = regime_frame(store.con, origins).set_index("origin")["distance"]
    widen = np.array(
        [
            regime_guard.guard(None if pd.isna(d) else float(d)).widen
            for d in distance.reindex(pd.to_datetime(examples["origin"]))
        ]
    )
    return pd.DataFrame(
        {
            "known_on": pd.to_datetime(examples["known_on"]).to_numpy(),
            "band": velocity_band(examples["velocity_28d"].to_numpy()),
            "pit": fc.pit(examples, widen),
        }
    )


def answers(fc: Forecaster, rows: pd.DataFrame, applied: Applied | None) -> np.ndarray:
    """`fc`'s calibrated answers on `rows`, through the online tail factor where `applied` has
    one (else through the model's own tail map, if any); before the regime guard."""
    if applied is None or applied.tail is None or fc.tail is None:
        return fc.predict(rows)
    return tail.shrink_tail(fc.predict(rows, tail=False), (fc.tail[0], applied.tail.factor))


def _tail_factor(store: Store, fc: Forecaster, origin: date, model_version: str) -> TailFactor:
    """The online tail factor on `origin`: the one already stored for it by this model (a
    re-run), else this model's newest before it while not due (fitted under 7 days before),
    else fitted now (`fit_tail_factor`)."""
    row = store.con.execute(
        """
        SELECT origin, tail_factor, n_resolved, resolved_through, updated_on
        FROM forecast_calibration
        WHERE template = ? AND horizon_days = ? AND model_version = ? AND tail_factor IS NOT NULL
          AND origin <= ? AND updated_on > ?
        ORDER BY origin DESC LIMIT 1""",
        [fc.template, fc.horizon_days, model_version, origin, origin - timedelta(days=7)],
    ).fetchall()
    if row:
        _, factor, n, through, updated = row[0]
        return TailFactor(float(factor), int(n or 0), through, updated)
    return fit_tail_factor(store, fc, origin)


def fit_tail_factor(store: Store, fc: Forecaster, origin: date) -> TailFactor:
    """The online tail factor fitted on `origin` from the radar's questions of the weekly
    origins before it (module docstring), read untailed with `fc`."""
    assert fc.tail is not None
    h = fc.horizon_days
    weekly = sorted(origin - timedelta(days=h + 7 * k) for k in range(tail.WINDOW_ORIGINS))
    examples = build_examples(store.con, base_frame(store.con, weekly), fc.template, h, origin)
    frame = examples.frame
    if frame.empty:
        return TailFactor(fc.tail[1], 0, None, origin)
    tops = tail.origin_tops(
        frame[["repo", "origin", "known_on", "label"]].assign(
            probability_untailed=fc.predict(frame, tail=False)
        )
    )
    factor, n = tail.online_factor(tops, pd.Timestamp(origin), fc.tail)
    read = tops[pd.to_datetime(tops["known_on"]) <= pd.Timestamp(origin)]
    through = pd.to_datetime(read["known_on"]).max() if n else None
    return TailFactor(
        factor, len(read) if n else 0, None if through is None else through.date(), origin
    )
