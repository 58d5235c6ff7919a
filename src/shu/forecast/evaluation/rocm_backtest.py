"""Walk-forward backtest of the ROCm adoption templates on a store's commit and release history.

The walk forward of the star templates (`walk_forward.refit_blocks`, with the split rules of
`models.split`: refit every `refit_weeks`, calibration block after the fitting block, purged by
the horizon; climatology and persistence baselines from outcomes known before each origin;
`scoring.summarize`) over weekly origins of every repository with commits. The panel is small
(about 22 repositories), so a refit whose blocks are too small (< `MIN_FIT_ROWS` /
`MIN_CAL_ROWS`, or one outcome only) issues nothing for its test weeks and is counted
(`refits_skipped`, `test_rows_unscored`) instead of aborting the slice. A slice with too few
scored questions (fewer than `MIN_EVENTS` yes or no) reports why in `status` instead of a
number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date, timedelta

import duckdb
import pandas as pd

from shu.forecast.base_rates import climatology
from shu.forecast.evaluation.scoring import summarize
from shu.forecast.evaluation.walk_forward import (
    BacktestConfig,
    SliceResult,
    persistence,
    refit_blocks,
)
from shu.forecast.features import rocm
from shu.forecast.features.examples import Examples, build_rocm_examples
from shu.forecast.models.forecaster import fit_forecaster
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
    """One ROCm template x horizon walked forward (`walk_forward.refit_blocks`) and scored."""
    key = f"{examples.template}/{examples.horizon_days}"
    ex, h = examples.frame, examples.horizon_days
    chunks: list[pd.DataFrame] = []
    refits: list[dict] = []
    skipped, unscored = 0, 0
    for block in refit_blocks(examples, config):
        fit, cal, test = block.fit, block.cal, block.test
        if (
            len(fit) < MIN_FIT_ROWS
            or len(cal) < MIN_CAL_ROWS
            or fit["label"].nunique() < 2
            or cal["label"].nunique() < 2
        ):
            skipped += 1
            unscored += len(test)
            continue
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
        refits.append(block.counts())
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
