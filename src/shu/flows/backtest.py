"""The backtest flow: a walk-forward backtest of the forecaster as one Prefect run."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from shu.flows.stages import settings_from
from shu.snapshot import open_for_reading


@task(name="backtest", cache_policy=NO_CACHE)
def backtest_task(
    db: Path,
    start: date,
    end: date,
    templates: list[str] | None,
    horizons: list[int] | None,
    out_dir: Path | None,
    predictions: Path | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the backtest (`shu.operations.backtest`, as `shu backtest` does) on a read-only view
    of the store and return its metrics JSON."""
    from prefect import get_run_logger

    from shu.forecast.evaluation.walk_forward import BacktestConfig
    from shu.operations.backtest import backtest

    store, _ = open_for_reading(db)
    try:
        chosen: dict[str, Any] = dict(options or {})
        if templates:
            chosen["templates"] = tuple(templates)
        if horizons:
            chosen["horizons"] = tuple(horizons)
        config = BacktestConfig(start=start, end=end, **chosen)
        return backtest(store, config, out_dir, predictions, log=get_run_logger().info)
    finally:
        store.close()


@flow(name="shu-backtest", log_prints=True)
def backtest_flow(
    start: date,
    end: date,
    db: str | None = None,
    templates: list[str] | None = None,
    horizons: list[int] | None = None,
    out_dir: str | None = None,
    overrides: dict[str, Any] | None = None,
    predictions: str | None = None,
    estimator: str = "hgb",
    refit_weeks: int = 8,
    plain: bool = False,
) -> dict[str, Any]:
    """Walk-forward backtest over origins in [start, end], every template down its family's
    path (star and ROCm alike), the same report `shu backtest --json` prints."""
    settings = settings_from(overrides)
    return backtest_task(
        Path(db) if db else settings.db,
        start,
        end,
        templates,
        horizons,
        Path(out_dir) if out_dir else None,
        Path(predictions) if predictions else None,
        {"estimator": estimator, "refit_weeks": refit_weeks, "recalibrate": not plain},
    )
