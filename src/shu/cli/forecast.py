"""Forecast commands: `shu train`, `shu forecast`, `shu resolve`, `shu backtest`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table as RichTable

from shu.cli import (
    DayAlias,
    DbOption,
    LimitOption,
    OriginAlias,
    SinceAlias,
    app,
    as_of_day,
    as_of_option,
    console,
    db_path,
    display,
    err_console,
    from_day,
    from_option,
    json_option,
    out_option,
    parse_day,
    print_json,
    print_rows,
    require_data,
    required,
    to_option,
)
from shu.errors import InputError
from shu.store import open_store

if TYPE_CHECKING:
    from datetime import date

    import duckdb

    from shu.forecast.live.issue import IssuedForecast


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
    estimator: str = typer.Option(
        "hgb", metavar="NAME", help="'hgb' (gradient boosting) or 'logistic'."
    ),
    backtest: Path | None = typer.Option(
        None, metavar="PATH", help="JSON from `shu backtest --json` to put in the model card."
    ),
    models_dir: Path | None = typer.Option(
        None, metavar="PATH", help="Where to write the model [default: settings.models_dir]."
    ),
    template: str | None = typer.Option(
        None,
        metavar="NAMES",
        help="Template(s), comma-separated [default: all with enough history].",
    ),
    horizon: str | None = typer.Option(
        None, metavar="DAYS", help="Horizon(s) in days, comma-separated [default: 7,30,90]."
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
    from shu.forecast.features.examples import FEATURES_MEMORY_LIMIT
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
        store.con.execute(f"SET memory_limit='{FEATURES_MEMORY_LIMIT}'")
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
    old_day: str | None = DayAlias,
    old_origin: str | None = OriginAlias,
    limit: int = LimitOption,
    as_json: bool = json_option(
        "Print every forecast issued as a JSON list (an interval's quantiles under "
        "'interval') instead of the tables."
    ),
    db: Path = DbOption,
) -> None:
    """Issue forecasts for the tracked repositories and the radar's (append-only; a re-run
    issues nothing new). Prints how many were issued, then the first rows of two tables: the
    yes/no questions (tracked repositories first, then by probability) and the velocity
    intervals (median and 80% range).

    Without --as-of it asks from the last day of data, and only questions that resolve after
    today: a store whose data ends weeks ago says so first and asks nothing about a day already
    past. --as-of asks every question of that day (a past day on purpose).

    \b
    Example: shu forecast
    Example: shu forecast --as-of 2026-02-28 --limit 50 --db data/shu.duckdb
    """
    from shu.operations.forecast import issue
    from shu.settings import get_settings
    from shu.store import last_data_day, stale_data_note, utcnow

    when = as_of_day(as_of, old_day, old_origin)
    settings = get_settings()
    today = utcnow().date()
    with open_store(db_path(db)) as store:
        require_data(store.con, when)
        note = None if when else stale_data_note(last_data_day(store.con), today)
        if note:
            err_console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
        issued = issue(store, settings, when, resolving_after=None if when else today)
        bounds = _interval_bounds(store.con, [f.forecast_id for f in issued])
        already = None if issued or as_json else _already_stored(store.con, when)
    if as_json:
        print_json([_as_json(f, bounds.get(f.forecast_id)) for f in issued])
        return
    if already is not None:
        console.print(already, highlight=False, markup=False, soft_wrap=True)
        return
    tracked = [r.repo for r in settings.repos]
    _print_issued(issued, bounds, tracked, limit)


def _already_stored(con: duckdb.DuckDBPyConnection, when: date | None) -> str:
    """What a run that issued nothing says: which day's forecasts the store already holds
    (`when`, else the last day of data, as `issue` asks from), how many, and the query that
    lists them; just "0 new forecasts" when it holds none of that day."""
    from shu.forecast.features.star import data_through

    day = when or data_through(con)
    n, repos = con.execute(
        "SELECT count(*), count(DISTINCT repo) FROM forecasts WHERE origin = ?", [day]
    ).fetchone() or (0, 0)
    if not n:  # nothing to ask (a stale store: no question resolves after today; its note says)
        return "0 new forecasts"
    query = (
        "select repo, question, probability, resolves_on from forecasts "
        f"where origin = '{day}' order by repo"
    )
    return (
        f"0 new forecasts: the {n:,} forecasts as of {day} (on {repos:,} "
        + ("repository" if repos == 1 else "repositories")
        + f') are already in the store; to see them: shu sql "{query}"'
    )


_INTERVAL_COLUMNS = (
    *("median", "lower_80", "upper_80", "lower_50", "upper_50", "lower_95", "upper_95"),
    "unit",
)


def _interval_bounds(con: duckdb.DuckDBPyConnection, ids: list[str]) -> dict[str, dict]:
    """forecast_id -> the stored interval (median, 50/80/95% bounds, unit) of each of `ids`
    that is an interval forecast."""
    if not ids:
        return {}
    rows = con.execute(
        f"SELECT forecast_id, {', '.join(_INTERVAL_COLUMNS)} FROM forecast_intervals "
        "WHERE list_contains(?, forecast_id)",
        [ids],
    ).fetchall()
    return {r[0]: dict(zip(_INTERVAL_COLUMNS, r[1:], strict=True)) for r in rows}


def _as_json(f: IssuedForecast, interval: dict | None) -> dict:
    """An issued forecast as one JSON object: its fields, the stored JSON ones as objects."""
    from dataclasses import asdict

    row = asdict(f)
    for key in ("features", "drivers", "receipts", "calibration"):
        if isinstance(row.get(key), str):
            row[key] = json.loads(row[key])
    if interval is not None:
        row["interval"] = interval
    return row


def _print_issued(
    issued: list[IssuedForecast], bounds: dict[str, dict], tracked: list[str], limit: int
) -> None:
    """The count, then the yes/no questions and the intervals as two tables of `limit` rows
    each, with how to get every row (`--limit 0`, or the query that lists them)."""
    questions = [f for f in issued if f.forecast_id not in bounds]
    intervals = [f for f in issued if f.forecast_id in bounds]
    order = {name: i for i, name in enumerate(tracked)}

    def first(f: IssuedForecast) -> tuple[int, float]:  # tracked as configured, then likeliest
        return (order.get(f.repo, len(order)), -f.probability)

    questions.sort(key=first)
    intervals.sort(key=first)
    repos = len({f.repo for f in issued})
    console.print(
        f"{len(issued):,} new forecasts as of {issued[0].origin}: {len(questions):,} yes/no "
        f"questions and {len(intervals):,} velocity intervals, on {repos:,} "
        + ("repository" if repos == 1 else "repositories"),
        highlight=False,
    )
    rest = (
        'every row: --limit 0, or `shu sql "select * from forecasts where origin = '
        f"'{issued[0].origin}' and model_version = '{issued[0].model_version}'\" --csv` "
        "(--json prints them as they are issued)"
    )
    if questions:
        print_rows(
            RichTable("repo", "question", "p", "confidence", title="yes/no questions"),
            [[f.repo, f.question, f"{f.probability:.2f}", f.confidence] for f in questions],
            limit,
            rest,
        )
    if intervals:
        print_rows(
            RichTable("repo", "question", "median", "80% range", "unit", title="intervals"),
            [
                [
                    f.repo,
                    f.question,
                    display(bounds[f.forecast_id]["median"]),
                    f"{display(bounds[f.forecast_id]['lower_80'])} – "
                    f"{display(bounds[f.forecast_id]['upper_80'])}",
                    bounds[f.forecast_id]["unit"],
                ]
                for f in intervals
            ],
            limit,
            rest,
        )


@app.command()
def resolve(
    as_of: str | None = as_of_option("Resolve as of this day [default: today, UTC]."),
    old_day: str | None = DayAlias,
    old_origin: str | None = OriginAlias,
    db: Path = DbOption,
) -> None:
    """Resolve every forecast whose horizon has passed (yes / no / void), once.

    \b
    Example: shu resolve
    Example: shu resolve --as-of 2026-02-28 --db data/shu.duckdb
    """
    from shu.forecast.live.resolve import resolve_forecasts

    when = as_of_day(as_of, old_day, old_origin)
    with open_store(db_path(db)) as store:
        require_data(store.con, when)
        counts = resolve_forecasts(store, as_of=when)
    console.print(", ".join(f"{k}: {v}" for k, v in counts.items()))


@app.command()
def backtest(
    start: str | None = from_option("First origin (YYYY-MM-DD; required)."),
    end: str | None = to_option("Last origin (YYYY-MM-DD; required)."),
    old_since: str | None = SinceAlias,
    template: str | None = typer.Option(
        None,
        metavar="NAMES",
        help="Template(s), comma-separated [default: star_accel_reach,star_velocity_up].",
    ),
    horizon: str | None = typer.Option(
        None, metavar="DAYS", help="Horizon(s) in days, comma-separated [default: 30]."
    ),
    estimator: str = typer.Option("hgb", metavar="NAME", help="'hgb' or 'logistic'."),
    refit_weeks: int = typer.Option(8, metavar="N", help="Refit the model every N weekly origins."),
    plain: bool = typer.Option(
        False,
        "--plain",
        help="Score the fitted models alone: no "
        "regime guard, no online conformal levels (for comparison).",
    ),
    as_json: bool = json_option("Print one JSON object (keys in docs/forecast/method.md)."),
    out: Path | None = out_option("Folder to write backtest.json and reliability.png into."),
    predictions: Path | None = typer.Option(
        None,
        metavar="PATH",
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

    from shu.forecast.evaluation.blocks import describe_worst
    from shu.forecast.evaluation.walk_forward import BacktestConfig
    from shu.operations.backtest import backtest as run_backtest

    d1 = required(from_day(start, old_since), "--from")
    d2 = required(parse_day(end, "--to"), "--to")
    config = BacktestConfig(
        d1,
        d2,
        _csv(template) or ("star_accel_reach", "star_velocity_up"),
        _horizons(horizon) or (30,),
        estimator=estimator,
        refit_weeks=refit_weeks,
        recalibrate=not plain,
    )

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    with open_store(db_path(db), read_only=True) as store:
        metrics = run_backtest(store, config, out_dir=out, predictions=predictions, log=log)
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
    _print_band_skill(metrics)
    _print_rankings(metrics)
    for key, m in metrics["slices"].items():
        if not m.get("n") and m.get("status"):
            console.print(f"{key}: {m['status']}", highlight=False)
        elif m.get("blocks"):
            console.print(describe_worst(key, m["blocks"]), highlight=False)
    console.print(f"{metrics['runtime_s']} s, peak RSS {metrics['peak_rss_mib']} MiB")


def _print_band_skill(metrics: dict) -> None:
    """Each slice's skill per band of today's velocity with its 95% interval: Brier skill
    against the band's own climatology (yes/no slices), CRPS skill against persistence
    (interval slices)."""
    from shu.forecast.models.interval import VELOCITY_BANDS

    table = RichTable("slice", "skill", *(f"{b} stars/day [95%] (n)" for b in VELOCITY_BANDS))
    for key, m in metrics["slices"].items():
        bands = m.get("by_velocity")
        if not bands:
            continue
        measure = "CRPS skill" if "coverage" in m else "BSS band clim"
        cells = []
        for name in VELOCITY_BANDS:
            row = bands.get(name)
            if row is None:
                cells.append("")
                continue
            ci = (
                row["crps_skill_persistence"]
                if "coverage" in m
                else row["ci95"]["bss_band_climatology"]
            )
            cells.append(f"{ci['value']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}] ({row['n']:,})")
        table.add_row(key, measure, *cells)
    if table.row_count:
        console.print(table)


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
