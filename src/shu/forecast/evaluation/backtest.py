"""Walk-forward backtest: weekly origins, training only on labels known before each origin.

For each template x horizon, examples (`features.examples`) on a weekly grid anchored at the
first origin are resolved with the production rules and walked forward on the one loop
(`walk_forward.refit_blocks`): the model is refitted every `refit_weeks` weeks at a refit day T
on the fitting and calibration blocks `models.split` chooses on T (the rules `shu train` uses),
and tested on origins in [T, T + refit_weeks weeks): the last calibration origin is >= H days
before the first test origin (embargo = horizon). Each template goes down its family's path, read
from its record (`questions.registry`): the star templates (`star_backtest`: between refits the
regime guard and the online conformal levels apply as in production, and one horizon's answers
are read from one distribution, `one_distribution`) and the ROCm adoption templates
(`rocm_backtest`). Baselines use only outcomes known before each origin:
`base_rates.climatology`, and persistence = the repository's own trailing 365 days of known
outcomes, replaying its past changes against today's threshold (the template's
`persistence_event`), shrunk towards climatology with a weight of 2 examples
(`walk_forward.persistence`).

`run_backtest` returns predictions and metrics (`slice_scores`); `backtest_report` is the one
report `shu backtest` and the backtest flow print and write; `metrics` keys are documented in
docs/forecast/method.md.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from shu.errors import InputError
from shu.forecast.evaluation import predictions
from shu.forecast.evaluation.rocm_backtest import run_rocm_backtest
from shu.forecast.evaluation.slice_scores import score_binary, score_interval
from shu.forecast.evaluation.star_backtest import walk_star_templates
from shu.forecast.evaluation.walk_forward import BacktestConfig, SliceResult
from shu.forecast.features.examples import FEATURES_MEMORY_LIMIT
from shu.forecast.models import interval
from shu.forecast.questions import registry


def by_family(templates: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`templates` split into the star family's and the ROCm family's, in their order (each
    template's family read from its record)."""
    family = {name: registry.template(name).family for name in templates}
    return (
        tuple(t for t in templates if family[t] == "star"),
        tuple(t for t in templates if family[t] == "rocm"),
    )


def run_backtest(
    con: duckdb.DuckDBPyConnection, config: BacktestConfig, log: Callable[[str], None] = print
) -> list[SliceResult]:
    """Run the walk-forward backtest for every template x horizon in `config`, each down its
    family's path: the star slices first, then the ROCm ones."""
    if config.end < config.start:
        raise InputError(f"--to {config.end} is before --from {config.start}")
    star, rocm = by_family(config.templates)
    results = _star_results(con, config, star, log) if star else []
    if rocm:
        results += run_rocm_backtest(con, replace(config, templates=rocm), log)
    return results


def _star_results(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig,
    star: tuple[str, ...],
    log: Callable[[str], None],
) -> list[SliceResult]:
    walked = walk_star_templates(con, config, star, log)
    return [score_interval(w, config) if w.interval else score_binary(w, config) for w in walked]


def metrics_json(
    results: list[SliceResult],
    config: BacktestConfig,
    runtime_s: float,
    peak_rss_mib: float | None = None,
) -> dict:
    """The one JSON object `shu backtest --json` prints (keys in docs/forecast/method.md)."""
    cfg = asdict(config)
    cfg["start"], cfg["end"] = str(config.start), str(config.end)
    return {
        "config": cfg,
        "runtime_s": round(runtime_s, 1),
        "peak_rss_mib": peak_rss_mib,
        "slices": {f"{r.template}/{r.horizon_days}": r.metrics for r in results},
    }


def prediction_frames(results: list[SliceResult]) -> list[pd.DataFrame]:
    """Each slice's scored predictions in the `--predictions` layout (`predictions` module)."""
    frames = []
    for r in results:
        if not len(r.predictions):
            continue
        if registry.template(r.template).kind == "interval":
            q = r.predictions[[f"q{q}" for q in interval.QUANTILES]].to_numpy()
            frames.append(predictions.interval_frame(r.predictions, q, r.template, r.horizon_days))
        else:
            frames.append(predictions.binary_frame(r.predictions, r.template, r.horizon_days))
    return frames


def backtest_report(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig,
    out_dir: Path | None = None,
    log: Callable[[str], None] = print,
    scored: list[pd.DataFrame] | None = None,
) -> dict:
    """Run the backtest of every template in `config` and return the `--json` object: the star
    slices' report (`config` naming the star templates) with the ROCm slices added (their own
    `rocm_config`; `config` None when there is no star template). With `out_dir`, also write
    `backtest.json` there (ROCm slices merged into a file already there, its other slices kept)
    and the star slices' `reliability.png`; with `scored` (a list), append every scored
    prediction to it (`prediction_frames`). (What `shu backtest` and the backtest flow call,
    through `shu.operations.backtest`.)

    Caps DuckDB's memory on `con` at 1.5 GB (it spills to disk beyond) so the whole run stays
    under 4 GiB.
    """
    if config.end < config.start:
        raise InputError(f"--to {config.end} is before --from {config.start}")
    star, rocm = by_family(config.templates)
    if not star and not rocm:
        raise InputError("no template to backtest: name at least one with --template")
    metrics = (
        _star_report(con, replace(config, templates=star), out_dir, log, scored) if star else None
    )
    if rocm:
        metrics = _add_rocm(con, replace(config, templates=rocm), metrics, out_dir, log, scored)
    assert metrics is not None  # star templates, ROCm ones or both: a report ran
    return metrics


def _star_report(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig,
    out_dir: Path | None,
    log: Callable[[str], None],
    scored: list[pd.DataFrame] | None,
) -> dict:
    """The star slices' report (see `backtest_report`)."""
    import resource

    con.execute(f"SET memory_limit='{FEATURES_MEMORY_LIMIT}'")
    con.execute("SET preserve_insertion_order=false")
    t0 = time.perf_counter()
    results = _star_results(con, config, config.templates, log)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    metrics = metrics_json(results, config, time.perf_counter() - t0, round(peak, 1))
    if scored is not None:
        scored.extend(prediction_frames(results))
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "backtest.json").write_text(
            json.dumps(metrics, indent=1, default=str) + "\n", encoding="utf-8"
        )
        write_reliability_diagram(results, out_dir / "reliability.png")
    return metrics


def _add_rocm(
    con: duckdb.DuckDBPyConnection,
    config: BacktestConfig,
    metrics: dict | None,
    out_dir: Path | None,
    log: Callable[[str], None],
    scored: list[pd.DataFrame] | None,
) -> dict:
    """Add the ROCm slices of `config` to a report (a new one if None; see `backtest_report`)."""
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
    cfg["templates"] = list(config.templates)
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


def write_reliability_diagram(results: list[SliceResult], path: Path) -> Path:
    """One reliability panel per slice (equal-count bins), with counts and the diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slices = [r for r in results if r.metrics.get("n") and "reliability" in r.metrics]
    fig, axes = plt.subplots(
        1, max(len(slices), 1), figsize=(4.6 * max(len(slices), 1), 4.6), squeeze=False
    )
    for ax, r in zip(axes[0], slices, strict=False):
        rel = r.metrics["reliability"]
        x = [b["mean_probability"] for b in rel]
        y = [b["observed_frequency"] for b in rel]
        ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
        ax.plot(x, y, marker="o", color="tab:blue", label="model")
        ax.hist(
            r.predictions["probability"],
            bins=20,
            range=(0, 1),
            weights=np.full(len(r.predictions), 1 / len(r.predictions)),
            color="tab:blue",
            alpha=0.15,
            label="share of forecasts",
        )
        m = r.metrics
        ax.set_title(
            f"{r.template} H={r.horizon_days}d\nn={m['n']:,}  "
            f"BSS={m['bss_climatology']:.3f}  ECE={m['ece']:.3f}",
            fontsize=9,
        )
        ax.set_xlabel("forecast probability")
        ax.set_ylabel("observed frequency")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
