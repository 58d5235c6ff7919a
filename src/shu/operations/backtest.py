"""The walk-forward backtest as `shu backtest` and the backtest flow run it: the templates checked,
every template down its family's path (`forecast.evaluation.backtest.backtest_report`), the
report written where asked and the scored predictions as Parquet."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from shu.errors import InputError
from shu.forecast.evaluation.backtest import backtest_report
from shu.forecast.evaluation.predictions import predictions_paths, write_predictions
from shu.forecast.evaluation.walk_forward import BacktestConfig
from shu.forecast.models.estimator import ESTIMATORS
from shu.forecast.questions.registry import template
from shu.store import Store


def backtest(
    store: Store,
    config: BacktestConfig,
    out_dir: Path | None = None,
    predictions: Path | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Backtest every template x horizon of `config` on `store` and return the `--json` object
    (keys in docs/forecast/method.md); with `out_dir`, write backtest.json and reliability.png
    there; with `predictions` (a .parquet path), every scored prediction
    (`predictions.write_predictions`). A template or estimator that does not exist, or a bad
    predictions path, fails before the run."""
    for name in config.templates:
        template(name)
    if config.estimator not in ESTIMATORS:
        raise InputError(f"--estimator {config.estimator!r}: choose from {', '.join(ESTIMATORS)}")
    if predictions is not None:
        predictions_paths(predictions, list(config.templates))
    scored: list | None = [] if predictions is not None else None
    metrics = backtest_report(store.con, config, out_dir=out_dir, log=log, scored=scored)
    if predictions is not None:
        for path in write_predictions(predictions, scored or [], list(config.templates)):
            log(f"predictions: {path}")
    return metrics
