"""Walk-forward backtest of the ROCm adoption templates on a store's commit and release history.

The split rules of the star templates (`models.split`: refit every
`refit_weeks`, calibration block after the fitting block, purged by the horizon; climatology and
persistence baselines from outcomes known before each origin; `scoring.summarize`) over weekly
origins of every repository with commits. The panel is small (about 22 repositories), so a refit
whose blocks are too small (< `MIN_FIT_ROWS` / `MIN_CAL_ROWS`, or one outcome only) issues
nothing for its test weeks and is counted (`refits_skipped`, `test_rows_unscored`) instead of
aborting the slice. A slice with too few scored questions (fewer than `MIN_EVENTS` yes or no)
reports why in `status` instead of a number.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import date, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.base_rates import climatology
from shu.forecast.evaluation.backtest import (
    BacktestConfig,
    SliceResult,
    persistence,
    prediction_frames,
)
from shu.forecast.evaluation.scoring import summarize
from shu.forecast.features import rocm
from shu.forecast.features.examples import Examples, build_rocm_examples
from shu.forecast.models.forecaster import fit_forecaster
from shu.forecast.models.split import fit_calibration_split
from shu.forecast.questions.registry import ROCM_TEMPLATES, template

MIN_EVENTS = 30
# A template a repository answers 'yes' once at most (`once_per_repository`: a first ROCm
# commit): its yes answers on successive weekly origins are one event seen several times; at
# least this many repositories must have one.
MIN_INDEPENDENT_EVENTS = 10
MIN_FIT_ROWS = 100
MIN_CAL_ROWS = 50
_KEPT = [
    "repo",
    "origin",
    "threshold",
    "acceleration_28d",
    "velocity_28d",
    "bucket",
    "label",
    "outcome",
    "observed_value",
]
DEFAULT = BacktestConfig(
    start=date(2019, 1, 1),
    end=date(2026, 8, 22),
    templates=ROCM_TEMPLATES,
    horizons=(30, 90),
    estimator="logistic",
)


def run_rocm_backtest(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig = DEFAULT,
    log: Callable[[str], None] = print,
) -> list[SliceResult]:
    """Backtest each ROCm template x horizon of `config` (other templates are ignored)."""
    t0 = time.perf_counter()
    first = config.start - timedelta(days=config.train_days + config.cal_days + 400)
    origins = rocm.weekly_origins(con, first, config.end)
    base = rocm.build_features(con, origins)
    log(f"rocm features: {len(base):,} repo-origins ({time.perf_counter() - t0:.1f}s)")
    results = []
    for name in (t for t in config.templates if t in ROCM_TEMPLATES):
        for horizon in config.horizons:
            examples = build_rocm_examples(con, base, name, horizon)
            results.append(_score(con, examples, config, log))
    return results


def _score(
    con: duckdb.DuckDBPyConnection,
    examples: Examples,
    config: BacktestConfig,
    log: Callable[[str], None],
) -> SliceResult:
    key = f"{examples.template}/{examples.horizon_days}"
    ex, h = examples.frame, examples.horizon_days
    rng = np.random.default_rng(config.seed)
    chunks, refits, skipped, unscored = [], [], 0, 0
    step = pd.Timedelta(days=7 * config.refit_weeks)
    refit_day, end = pd.Timestamp(config.start), pd.Timestamp(config.end)
    while len(ex) and refit_day <= end:
        test = ex[
            (ex["origin"] >= refit_day) & (ex["origin"] < refit_day + step) & (ex["origin"] <= end)
        ]
        if len(test):
            fit, cal = fit_calibration_split(ex, refit_day, h, config.training(), rng)
            if (
                len(fit) < MIN_FIT_ROWS
                or len(cal) < MIN_CAL_ROWS
                or fit["label"].nunique() < 2
                or cal["label"].nunique() < 2
            ):
                skipped += 1
                unscored += len(test)
            else:
                fc = fit_forecaster(
                    examples.template,
                    h,
                    examples.features,
                    fit,
                    cal,
                    config.estimator,
                    config.calibration_method,
                    config.seed,
                )
                kept = test[_KEPT].copy()
                kept["probability"] = fc.predict(test)
                chunks.append(kept)
                refits.append(
                    {
                        "refit_day": str(refit_day.date()),
                        "fit_rows": len(fit),
                        "calibration_rows": len(cal),
                        "test_rows": len(test),
                    }
                )
        refit_day += step
    pred = pd.concat(chunks, ignore_index=True) if chunks else pd.DataFrame(columns=_KEPT)
    yes = int(pred["label"].sum()) if len(pred) else 0
    counts = {
        "template": examples.template,
        "horizon_days": h,
        "n_void": examples.n_void,
        "n_yes": yes,
        "n_no": len(pred) - yes,
        "n_refits": len(refits),
        "refits_skipped": skipped,
        "test_rows_unscored": unscored,
        "n_repos": int(pred["repo"].nunique()) if len(pred) else 0,
        "estimator": config.estimator,
    }
    events = int(pred.loc[pred["label"] == 1, "repo"].nunique()) if len(pred) else 0
    once = template(examples.template).once_per_repository
    counts["n_independent_events"] = events if once else None
    status = None
    if min(yes, len(pred) - yes) < MIN_EVENTS:
        status = (
            f"too few resolved questions to score: {yes} yes / {len(pred) - yes} no "
            f"scored (at least {MIN_EVENTS} of each needed); {unscored} test questions "
            f"fell in {skipped} refits without enough history"
        )
    elif once and events < MIN_INDEPENDENT_EVENTS:
        status = (
            f"too few resolved questions to score: the {yes} yes answers are {events} "
            f"repositories' first ROCm commits (at least {MIN_INDEPENDENT_EVENTS} "
            "independent events needed)"
        )
    if status:
        log(f"{key}: {status}")
        return SliceResult(examples.template, h, pred, {"n": 0, "status": status, **counts}, refits)
    pred["climatology"] = climatology(ex, pred)
    pred["persistence"] = persistence(con, ex, pred, examples.template)
    blocks = pred["repo"] + "|" + pd.to_datetime(pred["origin"]).dt.strftime("%Y-%m")
    metrics = summarize(
        pred["label"].to_numpy(),
        pred["probability"].to_numpy(),
        pred["climatology"].to_numpy(),
        pred["persistence"].to_numpy(),
        blocks.to_numpy(),
        n_boot=config.n_boot,
        seed=config.seed,
    )
    metrics.update(counts)
    metrics["status"] = "scored"
    log(
        f"{key}: n={metrics['n']:,} BSS(clim)={metrics['bss_climatology']:.3f} "
        f"ECE={metrics['ece']:.3f} ({skipped} refits skipped)"
    )
    return SliceResult(examples.template, h, pred, metrics, refits)


def rocm_report(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig,
    metrics: dict | None = None,
    out_dir: Path | None = None,
    log: Callable[[str], None] = print,
    scored: list[pd.DataFrame] | None = None,
) -> dict:
    """Add the ROCm slices of `config` to a `shu backtest --json` object (a new one if None).

    With `out_dir`, (re)writes `backtest.json` there with the ROCm slices merged in (slices of
    other templates already in the file are kept); with `scored` (a list), appends the scored
    predictions to it (`backtest.prediction_frames`).
    """
    t0 = time.perf_counter()
    results = run_rocm_backtest(con, config, log)
    if scored is not None:
        scored.extend(prediction_frames(results))
    slices = {f"{r.template}/{r.horizon_days}": r.metrics for r in results}
    if metrics is None:
        metrics = {"config": None, "runtime_s": 0.0, "peak_rss_mib": None, "slices": {}}
    metrics["slices"].update(slices)
    cfg = asdict(config)
    cfg["start"], cfg["end"] = str(config.start), str(config.end)
    cfg["templates"] = [t for t in config.templates if t in ROCM_TEMPLATES]
    elapsed = time.perf_counter() - t0
    metrics["rocm_config"] = {**cfg, "runtime_s": round(elapsed, 1)}
    metrics["runtime_s"] = round((metrics.get("runtime_s") or 0.0) + elapsed, 1)
    if out_dir is not None:
        path = out_dir / "backtest.json"
        kept = json.loads(path.read_text(encoding="utf-8")) if path.exists() else metrics
        if kept is not metrics:
            kept["slices"].update(slices)
            kept["rocm_config"] = metrics["rocm_config"]
        out_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(kept, indent=1, default=str) + "\n", encoding="utf-8")
    return metrics
