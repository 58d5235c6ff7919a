"""Forecast commands: `shu train`, `shu forecast`, `shu resolve`, `shu backtest`."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import (
    DbOption,
    app,
    as_of_option,
    console,
    day_option,
    db_path,
    err_console,
    old_name,
    parse_day,
    require_data,
    required_day,
)
from shu.errors import InputError
from shu.store import open_store


def _csv(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


def _horizons(value: str | None) -> tuple[int, ...] | None:
    try:
        days = tuple(int(h) for h in (_csv(value) or ()))
    except ValueError:
        raise InputError(f"--horizon {value!r}: expected whole days, e.g. 30 or 7,30") from None
    if any(d < 1 for d in days):
        raise InputError(f"--horizon {value!r}: horizons are at least 1 day")
    return days or None


@app.command()
def train(
    db: Path = DbOption,
    estimator: str = typer.Option("hgb", help="'hgb' (gradient boosting) or 'logistic'."),
    backtest: Path | None = typer.Option(
        None, help="JSON from `shu backtest --json` to put in the model card."
    ),
    models_dir: Path | None = typer.Option(
        None, help="Where to write the model [default: settings.models_dir]."
    ),
    template: str | None = typer.Option(
        None, help="Template(s), comma-separated [default: all with enough history]."
    ),
    horizon: str | None = typer.Option(
        None, help="Horizon(s) in days, comma-separated [default: 7,30,90]."
    ),
    merge: bool = typer.Option(
        False,
        "--merge",
        help="Keep the saved models this run does "
        "not retrain, and their backtest slices where --backtest lacks them (e.g. train the "
        "ROCm templates from a store of imported histories into the star model).",
    ),
) -> None:
    """Fit and calibrate the forecaster on the store; save it (skops) with its model card.

    \b
    Example: shu train --db data/shu.duckdb --models-dir models/
    Example: shu train --db history.duckdb --template rocm_share_reach,rocm_release_mention --merge
    """
    from shu.forecast.evaluation.model_card import write_model_card
    from shu.forecast.models.artifact import MODEL_FILE, merge_previous, save_forecasters
    from shu.forecast.models.estimator import ESTIMATORS
    from shu.forecast.models.split import TrainingConfig
    from shu.forecast.models.train import train_forecasters
    from shu.forecast.questions.registry import HORIZONS, TEMPLATES
    from shu.forecast.questions.registry import template as get_template
    from shu.settings import get_settings

    templates = _csv(template) or tuple(TEMPLATES)
    for name in templates:
        get_template(name)
    horizons = _horizons(horizon) or HORIZONS

    if estimator not in ESTIMATORS:
        raise InputError(f"--estimator {estimator!r}: choose from {', '.join(ESTIMATORS)}")
    bt = None
    if backtest is not None:
        try:
            bt = json.loads(backtest.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"--backtest {backtest}: not a readable JSON file ({exc})") from exc
    out_dir = models_dir or get_settings().models_dir
    if merge and not (Path(out_dir) / MODEL_FILE).exists():
        raise InputError(
            f"--merge: no saved model in {out_dir} to merge into (train without --merge first)"
        )
    with open_store(db_path(db), read_only=True) as store:
        store.con.execute("SET memory_limit='1500MB'")
        store.con.execute("SET preserve_insertion_order=false")
        result = train_forecasters(
            store, templates, horizons, config=TrainingConfig(estimator), log=console.print
        )
    if merge:
        result, bt = merge_previous(result, Path(out_dir), bt)
    artifact = save_forecasters(Path(out_dir) / MODEL_FILE, result.forecasters, result.version)
    _, card_md = write_model_card(Path(out_dir), result, artifact, bt)
    console.print(
        f"model {result.version}: {artifact} ({artifact.stat().st_size:,} bytes), card {card_md}"
    )


@app.command()
def forecast(
    as_of: str | None = as_of_option(
        "Issue as of this day (YYYY-MM-DD) [default: the last day with star data]."
    ),
    origin: str | None = old_name("--origin"),
    db: Path = DbOption,
) -> None:
    """Issue forecasts for the tracked repositories (append-only; a re-run issues nothing new).

    Without --as-of it asks from the last day of data, and only questions that resolve after
    today: a store whose data ends weeks ago says so first and asks nothing about a day already
    past. --as-of asks every question of that day (a past day on purpose).

    \b
    Example: shu forecast
    Example: shu forecast --as-of 2026-02-28 --db data/shu.duckdb
    """
    from shu.forecast.live.issue import issue_forecasts
    from shu.store import last_data_day, stale_data_note, utcnow

    day = day_option(as_of, origin, "--origin")
    today = utcnow().date()
    with open_store(db_path(db)) as store:
        require_data(store.con, day)
        note = None if day else stale_data_note(last_data_day(store.con), today)
        if note:
            err_console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
        issued = issue_forecasts(store, origin=day, resolving_after=None if day else today)
    out = RichTable("repo", "question", "p", "confidence")
    for f in issued:
        out.add_row(f.repo, f.question, f"{f.probability:.2f}", f.confidence)
    console.print(out, highlight=False)
    console.print(f"{len(issued)} new forecasts")


@app.command()
def resolve(
    as_of: str | None = as_of_option("Resolve as of this day [default: today, UTC]."),
    db: Path = DbOption,
) -> None:
    """Resolve every forecast whose horizon has passed (yes / no / void), once.

    \b
    Example: shu resolve
    Example: shu resolve --as-of 2026-02-28 --db data/shu.duckdb
    """
    from shu.forecast.live.resolve import resolve_forecasts

    day = parse_day(as_of)
    with open_store(db_path(db)) as store:
        require_data(store.con, day)
        counts = resolve_forecasts(store, as_of=day)
    console.print(", ".join(f"{k}: {v}" for k, v in counts.items()))


@app.command()
def backtest(
    start: str = typer.Option(..., "--from", help="First origin (YYYY-MM-DD)."),
    end: str = typer.Option(..., "--to", help="Last origin (YYYY-MM-DD)."),
    template: str | None = typer.Option(
        None, help="Template(s), comma-separated [default: star_accel_reach,star_velocity_up]."
    ),
    horizon: str | None = typer.Option(
        None, help="Horizon(s) in days, comma-separated [default: 30]."
    ),
    estimator: str = typer.Option("hgb", help="'hgb' or 'logistic'."),
    refit_weeks: int = typer.Option(8, help="Refit the model every N weekly origins."),
    plain: bool = typer.Option(
        False,
        "--plain",
        help="Score the fitted models alone: no "
        "regime guard, no online conformal levels (for comparison).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print one JSON object (keys in docs/forecast/method.md)."
    ),
    out: Path | None = typer.Option(
        None, metavar="FOLDER", help="Folder to write backtest.json and reliability.png into."
    ),
    predictions: Path | None = typer.Option(
        None,
        help="Write every scored prediction as Parquet (a .parquet path). One template: "
        "that file; several: one file per template beside it, the template's name before the "
        "suffix (preds.parquet -> preds.star_velocity_up.parquet); a template's horizons share "
        "its file. Binary columns: repo, origin, template, horizon, threshold, velocity_28d, "
        "probability, outcome; interval columns: repo, origin, template, horizon, "
        "velocity_28d, median, lower_50, upper_50, lower_80, upper_80, lower_95, upper_95, "
        "observed. Read from one distribution (the interval template with star_velocity_up, "
        "_level or star_breakout): yes/no files add probability_classifier and distribution, "
        "interval files distribution_quantiles, anchor_thresholds and anchor_cdf; star_gain "
        "and the path templates, held to their bounds against it, probability_classifier and "
        "bounded.",
    ),
    db: Path = DbOption,
) -> None:
    """Walk-forward backtest over weekly origins, training only on labels known before each.

    \b
    Example: shu backtest --from 2020-01-01 --to 2026-01-15 --horizon 30 --out backtest/
    Example: shu backtest --from 2024-01-01 --to 2026-01-15 --template star_velocity_interval --json
    Example: shu backtest --from 2025-03-01 --to 2026-01-31 --predictions preds.parquet
    """
    import sys

    from shu.forecast.evaluation.backtest import BacktestConfig, backtest_report
    from shu.forecast.evaluation.blocks import describe_worst
    from shu.forecast.models.estimator import ESTIMATORS
    from shu.forecast.questions.registry import template as get_template

    d1, d2 = required_day(start, "--from"), required_day(end, "--to")
    templates = _csv(template) or ("star_accel_reach", "star_velocity_up")
    for name in templates:
        get_template(name)
    horizons = _horizons(horizon) or (30,)
    if estimator not in ESTIMATORS:
        raise InputError(f"--estimator {estimator!r}: choose from {', '.join(ESTIMATORS)}")
    config = BacktestConfig(
        d1,
        d2,
        templates,
        horizons,
        estimator=estimator,
        refit_weeks=refit_weeks,
        recalibrate=not plain,
    )

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    from dataclasses import replace

    from shu.forecast.evaluation.predictions import predictions_paths, write_predictions
    from shu.forecast.evaluation.rocm_backtest import rocm_report
    from shu.forecast.questions.registry import ROCM_TEMPLATES

    if predictions is not None:
        predictions_paths(predictions, list(templates))  # a bad path fails before the run
    scored: list | None = [] if predictions is not None else None
    star = tuple(t for t in templates if t not in ROCM_TEMPLATES)
    with open_store(db_path(db), read_only=True) as store:
        metrics = (
            backtest_report(
                store.con, replace(config, templates=star), out_dir=out, log=log, scored=scored
            )
            if star
            else None
        )
        if len(star) < len(templates):  # ROCm adoption slices: commits/releases, no stars
            metrics = rocm_report(store.con, config, metrics, out_dir=out, log=log, scored=scored)
    assert metrics is not None  # star templates, ROCm ones or both: a report ran
    if predictions is not None:
        for path in write_predictions(predictions, scored or [], list(templates)):
            log(f"predictions: {path}")
    if as_json:
        print(json.dumps(metrics, default=str))
        return
    table = RichTable(
        "slice",
        "n",
        "repos",
        "base",
        "Brier",
        "BSS clim [95%]",
        "BSS pers",
        "ECE",
        "high right",
        "void",
    )
    intervals = RichTable(
        "slice", "n", "repos", "coverage 50/80/95%", "CRPS", "CRPS persistence", "CRPS skill"
    )
    for key, m in metrics["slices"].items():
        if m.get("n") and "coverage" in m:
            c = m["coverage"]
            intervals.add_row(
                key,
                f"{m['n']:,}",
                f"{m['n_repos']:,}",
                f"{c['0.5']:.3f} / {c['0.8']:.3f} / {c['0.95']:.3f}",
                f"{m['crps']:.4f}",
                f"{m['crps_persistence']:.4f}",
                f"{m['crps_skill_persistence']:.3f}",
            )
            continue
        if not m.get("n"):
            table.add_row(key, "0", "", "", "", "", "", "", "", "")
            continue
        ci = m["ci95"]["bss_climatology"]
        high = next(b for b in m["bands"] if b["band"] == "high")
        table.add_row(
            key,
            f"{m['n']:,}",
            f"{m['n_repos']:,}",
            f"{m['base_rate']:.3f}",
            f"{m['brier']:.4f}",
            f"{m['bss_climatology']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]",
            f"{m['bss_persistence']:.3f}",
            f"{m['ece']:.4f}",
            f"{high['hit_rate']:.3f} (n={high['n']:,})",
            f"{m['n_void']:,}",
        )
    console.print(table)
    if intervals.row_count:
        console.print(intervals)
    _print_rankings(metrics)
    for key, m in metrics["slices"].items():
        if not m.get("n") and m.get("status"):
            console.print(f"{key}: {m['status']}", highlight=False)
        elif m.get("blocks"):
            console.print(describe_worst(key, m["blocks"]), highlight=False)
    console.print(f"{metrics['runtime_s']} s, peak RSS {metrics['peak_rss_mib']} MiB")


def _print_rankings(metrics: dict) -> None:
    """precision@k of the radar slices (star_breakout) beside the momentum ranking."""
    from shu.forecast.evaluation.precision_at_k import KS

    table = RichTable(
        "slice", "ranking", *(f"precision@{k} [95%]" for k in KS), "origins", "events/origin"
    )
    for key, m in metrics["slices"].items():
        ranked = m.get("ranking")
        if not ranked or not ranked.get("n_origins"):
            continue
        for name in ("model", "momentum"):
            cells = [
                f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"
                for c in (ranked[name][f"precision_at_{k}"] for k in KS)
            ]
            table.add_row(
                key, name, *cells, f"{ranked['n_origins']}", f"{ranked['events_per_origin']:.1f}"
            )
    if table.row_count:
        console.print(table)
