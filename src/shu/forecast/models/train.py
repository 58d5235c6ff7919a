"""Training the production forecaster on the whole store, with the split rules the walk-forward
backtest uses at each refit (`split`).

At T = the last day with star data, each template x horizon is fitted and calibrated on the
blocks `split.fit_calibration_split` chooses on T. Templates without enough resolved history in
the store (e.g. commits or releases not loaded) are skipped and listed in the model card. A
template whose record names an estimator (the ROCm adoption templates:
`questions.rocm.ESTIMATOR`) is fitted with it whatever the estimator asked for; trained alone (a
store of imported histories, no star counts) the ROCm templates train as of the newest commit.

Saving the result, and folding it into models already saved (`shu train --merge`), is
`artifact`'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
import pandas as pd

from shu.errors import StoreError
from shu.forecast.base_rates import climatology_counts, fit_block_rate
from shu.forecast.features import feature_names, rocm, star
from shu.forecast.features.examples import (
    base_frame,
    build_examples,
    build_rocm_examples,
    weekly_grid,
)
from shu.forecast.models import interval
from shu.forecast.models.forecaster import Forecaster, fit_forecaster
from shu.forecast.models.split import TrainingConfig, fit_calibration_split
from shu.forecast.questions.registry import HORIZONS, ROCM_TEMPLATES, TEMPLATES, template
from shu.progress import track
from shu.store import Store

MIN_FIT_ROWS = 300
MIN_CALIBRATION_ROWS = 100


@dataclass
class TrainResult:
    """What `train_forecasters` produced."""

    version: str
    trained_through: date
    forecasters: list[Forecaster | interval.IntervalForecaster]
    skipped: dict[str, str] = field(default_factory=dict)
    windows: dict[str, dict] = field(default_factory=dict)


def train_forecasters(
    store: Store,
    templates: tuple[str, ...] = tuple(TEMPLATES),
    horizons: tuple[int, ...] = HORIZONS,
    config: TrainingConfig | None = None,
    log: Callable[[str], None] = print,
    as_of: date | None = None,
) -> TrainResult:
    """Fit and calibrate one model per template x horizon on the store's history.

    `as_of` (default: the last day with star data, or with a commit when only ROCm templates
    are asked for) trains as on that day: only origins up to it and outcomes known by it
    (`shu replay` refits this way).
    """
    adoption_only = all(t in ROCM_TEMPLATES for t in templates)
    end = rocm.data_through(store.con) if adoption_only else star.data_through(store.con)
    if end is None:
        raise StoreError(
            "no commit is loaded: run `shu ingest history`, `shu ingest git` or `shu ingest "
            "github` before training the ROCm templates"
        )
    last = min(as_of, end) if as_of else end
    config = config or TrainingConfig()
    oldest = last - timedelta(days=config.train_days + config.cal_days + 2 * max(horizons))
    today = pd.Timestamp(last)
    rng = np.random.default_rng(config.seed)
    result = TrainResult(version="", trained_through=last, forecasters=[])
    star_base = rocm_base = None
    for name in templates:
        for horizon in track(horizons, f"train {name}", unit="models"):
            key = f"{name}/{horizon}"
            spec = template(name)
            estimator = spec.estimator or config.estimator
            names = feature_names(name)
            if spec.family == "rocm":  # ROCm adoption: features from commits and releases
                if rocm_base is None:
                    rocm_base = rocm.build_features(
                        store.con, rocm.weekly_origins(store.con, oldest, last)
                    )
                ex = build_rocm_examples(store.con, rocm_base, name, horizon).frame
            else:
                if star_base is None:
                    first = store.con.execute("SELECT min(day) FROM star_signals").fetchall()[0][0]
                    star_base = base_frame(
                        store.con, weekly_grid(last, max(first + timedelta(days=56), oldest), last)
                    )
                ex = build_examples(store.con, star_base, name, horizon, last).frame
            fit, cal = fit_calibration_split(ex, today, horizon, config, rng)
            binary = spec.kind == "yes_no"
            why = _too_little(fit, cal, binary)
            if why:
                result.skipped[key] = why
                log(f"{key}: skipped, {why}")
                continue
            try:
                fc = (
                    fit_forecaster(
                        name,
                        horizon,
                        names,
                        fit,
                        cal,
                        estimator,
                        config.calibration_method,
                        config.seed,
                    )
                    if binary
                    else interval.fit_interval(horizon, names, fit, cal, config.seed)
                )
            except StoreError as exc:
                result.skipped[key] = str(exc)
                continue
            if isinstance(fc, Forecaster):  # yes/no: the climatology it is read against
                fc.climatology = climatology_counts(ex, last)
            result.forecasters.append(fc)
            result.windows[key] = {
                "fit_origins": [str(fit["origin"].min().date()), str(fit["origin"].max().date())],
                "calibration_origins": [
                    str(cal["origin"].min().date()),
                    str(cal["origin"].max().date()),
                ],
                "fit_rows": len(fit),
                "calibration_rows": len(cal),
                "fit_base_rate": fit_block_rate(fit) if binary else None,
                "features": fc.features,
                "estimator": fc.estimator,
                "trained_through": str(last),
            }
            log(f"{key}: fitted on {len(fit):,} rows, calibrated on {len(cal):,}")
    if not result.forecasters:
        raise StoreError("no template had enough resolved history to train on; load more data")
    result.version = version_of(last, config.estimator, result.windows, result.forecasters)
    return result


def _too_little(fit: pd.DataFrame, cal: pd.DataFrame, binary: bool) -> str | None:
    """Why these blocks cannot train a model (None when they can)."""
    if len(fit) < MIN_FIT_ROWS or len(cal) < MIN_CALIBRATION_ROWS:
        return f"too little resolved history ({len(fit)} fitting, {len(cal)} calibration rows)"
    for name, block in (("fitting", fit), ("calibration", cal)):
        if binary and block["label"].nunique() < 2:
            answer = "yes" if block["label"].iloc[0] == 1 else "no"
            return (
                f"every question of the {name} block ({len(block):,} rows, origins "
                f"{block['origin'].min().date()} .. {block['origin'].max().date()}) "
                f"resolved '{answer}': nothing to tell apart"
            )
    return None


def version_of(last: date, estimator: str, windows: dict, forecasters: list) -> str:
    """A model version: the last data day, the estimator(s) and a digest of the windows and of
    every fitted parameter (`parameters_digest`), so a refit that changes any split, leaf,
    calibration map or conformal offset is a new version even on the same windows."""
    h = hashlib.sha256(repr(sorted(windows.items())).encode())
    for fc in sorted(forecasters, key=lambda f: (f.template, f.horizon_days)):
        h.update(f"{fc.template}/{fc.horizon_days}".encode())
        parameters_digest(fc.bundle(), h)
    return f"{last.isoformat()}-{estimator}-{h.hexdigest()[:8]}"


def parameters_digest(value: object, h: hashlib._Hash) -> None:
    """Feed `value` (a forecaster's bundle: numbers, strings, arrays, containers and fitted
    estimators, walked through their attributes) into the hash `h`, deterministically."""
    if isinstance(value, np.ndarray):
        h.update(f"{value.dtype.str}{value.shape}".encode())
        h.update(
            np.ascontiguousarray(value).tobytes()
            if value.dtype != object
            else repr(value.tolist()).encode()
        )
    elif value is None or isinstance(value, bool | int | float | str | np.generic):
        h.update(repr(value).encode())
    elif isinstance(value, dict):
        for key in sorted(value, key=repr):
            h.update(repr(key).encode())
            parameters_digest(value[key], h)
    elif isinstance(value, list | tuple):
        h.update(b"[")
        for item in value:
            parameters_digest(item, h)
        h.update(b"]")
    elif hasattr(value, "__dict__"):
        h.update(type(value).__qualname__.encode())
        parameters_digest(
            {k: v for k, v in vars(value).items() if not isinstance(v, np.random.Generator)}, h
        )
    else:
        h.update(type(value).__qualname__.encode())
