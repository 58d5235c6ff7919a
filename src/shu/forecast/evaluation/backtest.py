"""Walk-forward backtest: weekly origins, training only on labels known before each origin.

For each template x horizon, examples (`features.examples`) on a weekly grid anchored at the
first origin are resolved with the production rules. The model is refitted every `refit_weeks`
weeks at a refit day T on the fitting and calibration blocks `models.split` chooses on T (the
rules `shu train` uses), and tested on origins in [T, T + refit_weeks weeks): the last
calibration origin is >= H days before the first test origin (embargo = horizon). Between
refits, the regime guard and the online conformal levels (`calibration`) apply as in production.
Baselines use only outcomes known before each origin: `base_rates.climatology`, and persistence
= the repository's own trailing 365 days of known outcomes, replaying its past changes against
today's threshold (the template's `persistence_event`), shrunk towards climatology with a weight
of 2 examples.

`run_backtest` returns predictions and metrics; `metrics` keys are documented in
docs/forecast/method.md.

Why one module: the refit blocks, the binary and interval walk-forwards and the baselines they
are scored against are one procedure whose no-look-ahead rules (what is known on each day) must
be read together; the per-block diagnostics (`blocks`), the scores (`scoring`,
`interval_scores`, `precision_at_k`) and the Parquet export (`predictions`) live apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from shu.errors import InputError, StoreError
from shu.forecast.base_rates import climatology
from shu.forecast.calibration import bounds, conformal, distribution, guard
from shu.forecast.calibration.regime import regime_frame
from shu.forecast.evaluation import blocks, interval_scores, precision_at_k, predictions
from shu.forecast.evaluation.scoring import brier, ece, hits_by_band, skill_score, summarize
from shu.forecast.features.examples import Examples, base_frame, build_examples, weekly_grid
from shu.forecast.features.star import data_through
from shu.forecast.models import interval
from shu.forecast.models.forecaster import fit_forecaster
from shu.forecast.models.split import (
    CAL_DAYS,
    MAX_FIT_ROWS,
    TRAIN_DAYS,
    TrainingConfig,
    fit_calibration_split,
)
from shu.forecast.questions import registry
from shu.progress import track

# The interval walk-forward keeps each forecast's quantiles at every `interval.DIST_LEVELS`
# (the distribution the yes/no answers are read from), in these columns.
DIST_COLUMNS = [f"d{a}" for a in interval.DIST_LEVELS]
_DIST_QUANTILES = np.searchsorted(interval.DIST_LEVELS, interval.QUANTILES)
BASELINE_COLUMNS = [f"b{q}" for q in interval.QUANTILES]  # the persistence baseline's
MODEL_COLUMNS = [f"g{a}" for a in interval.DIST_LEVELS]  # the interval model's, when anchored
RECENT_DAYS = 365  # the `last_12_months` figures: the months nearest to unseen data
PERSISTENCE_DAYS = 365
PERSISTENCE_PRIOR = 2.0
# Columns of each prediction kept for scoring (the features are dropped to save memory).
_KEPT = [
    "repo",
    "origin",
    "threshold",
    "acceleration_28d",
    "velocity_28d",
    "velocity_7d",
    "bucket",
    "label",
    "outcome",
    "observed_value",
]


@dataclass
class BacktestConfig:
    """Walk-forward settings (defaults are the documented ones)."""

    start: date
    end: date
    templates: tuple[str, ...] = ("star_accel_reach", "star_velocity_up")
    horizons: tuple[int, ...] = (30,)
    estimator: str = "hgb"
    calibration_method: str = "sigmoid"
    refit_weeks: int = 8
    cal_days: int = CAL_DAYS
    train_days: int = TRAIN_DAYS
    max_fit_rows: int = MAX_FIT_ROWS
    n_boot: int = 300
    seed: int = 0
    # the regime guard and the online conformal levels (`calibration.guard`,
    # `calibration.conformal`); False scores the fitted models alone (for comparison)
    recalibrate: bool = True
    # read the velocity questions and the interval from one distribution per (repository,
    # origin) when the run has both (`read_from_distribution`); False scores each model alone
    one_distribution: bool = True

    def training(self) -> TrainingConfig:
        """How each refit fits its model (the split rules `shu train` uses too)."""
        return TrainingConfig(
            self.estimator,
            self.calibration_method,
            self.cal_days,
            self.train_days,
            self.max_fit_rows,
            self.seed,
        )


@dataclass
class SliceResult:
    """Predictions and metrics of one template x horizon."""

    template: str
    horizon_days: int
    predictions: pd.DataFrame
    metrics: dict
    refits: list[dict] = field(default_factory=list)


def run_backtest(
    con: duckdb.DuckDBPyConnection, config: BacktestConfig, log: Callable[[str], None] = print
) -> list[SliceResult]:
    """Run the walk-forward backtest for every template x horizon in `config`."""
    if config.end < config.start:
        raise InputError(f"--to {config.end} is before --from {config.start}")
    last = data_through(con)
    first = con.execute("SELECT min(day) FROM star_signals").fetchall()[0][0]
    end = min(config.end, last)
    grid = weekly_grid(config.start, first + timedelta(days=56), end)
    t0 = time.perf_counter()
    base = base_frame(con, grid)
    distance = regime_frame(con, grid).set_index("origin")["distance"]
    log(
        f"features: {len(base):,} repo-origins on {len(grid)} weekly origins "
        f"({time.perf_counter() - t0:.0f}s)"
    )
    walked: list[_Walked] = []
    for template in config.templates:
        for horizon in config.horizons:
            t1 = time.perf_counter()
            examples = build_examples(con, base, template, horizon, last)
            interval_kind = registry.template(template).kind == "interval"
            walk = _walk_forward_interval if interval_kind else _walk_forward
            walked.append(walk(con, examples, config, distance, log))
            log(
                f"{template}/{horizon}d: {len(walked[-1].pred):,} scored, "
                f"{examples.n_void:,} void ({time.perf_counter() - t1:.0f}s)"
            )
            del examples
    if config.one_distribution:
        for horizon in config.horizons:
            same = [w for w in walked if w.horizon_days == horizon]
            read_from_distribution(same, con)
            hold_to_bounds(con, same)
    return [_score_interval(w, config) if w.interval else _score_binary(w, config) for w in walked]


@dataclass
class _Walked:
    """One template x horizon's predictions before scoring (with their baselines)."""

    template: str
    horizon_days: int
    pred: pd.DataFrame
    refits: list[dict]
    n_void: int
    n_examples: int
    interval: bool = False
    state: conformal.State | None = None


def read_from_distribution(
    walked: list[_Walked], con: duckdb.DuckDBPyConnection | None = None
) -> None:
    """Where one horizon's run has the interval template and yes/no templates that ask about the
    same velocity (`registry.READS_DISTRIBUTION`), bend each interval forecast through the
    yes/no answers of its (repository, origin) and read both from the result
    (`calibration.distribution`): the interval rows get its quantiles, the yes/no rows its
    P(V > threshold) (`probability`; the answer before, `probability_classifier`). Yes/no rows
    with no interval forecast on their (repository, origin) keep their own answer
    (`distribution` False). With the store `con`, star_gain at H <= 28 is an anchor too, at the
    velocity its question is on V's lattice (`bounds.gain_thresholds`, D(28-H) as of the
    origin), as `shu daily` issues it; its answer is read back by `hold_to_bounds`."""
    dist = next((w for w in walked if w.interval and len(w.pred)), None)
    asks = [w for w in walked if w.template in registry.READS_DISTRIBUTION and len(w.pred)]
    for w in asks:
        w.pred["probability_classifier"] = w.pred["probability"]
        w.pred["distribution"] = False
    sources = [(w, w.pred["threshold"].to_numpy(dtype=float)) for w in asks]
    if con is not None and dist is not None:
        sources += [
            (w, bounds.gain_thresholds(con, w.horizon_days, w.pred))
            for w in walked
            if w.template == "star_gain"
            and len(w.pred)
            and bounds.lag_days(w.template, w.horizon_days) is not None
        ]
    if dist is None or not sources:
        return
    g = dist.pred[DIST_COLUMNS].to_numpy(dtype=float)
    dist.pred = iv = pd.concat(  # the interval model's own quantiles, kept for comparison
        [dist.pred, pd.DataFrame(g, columns=MODEL_COLUMNS, index=dist.pred.index)], axis=1
    )
    key = pd.MultiIndex.from_arrays([iv["repo"], iv["origin"]])
    ax = np.full((len(iv), len(sources)), np.nan)
    ap = np.full((len(iv), len(sources)), np.nan)
    rows = []
    for k, (w, vx) in enumerate(sources):
        at = key.get_indexer(pd.MultiIndex.from_arrays([w.pred["repo"], w.pred["origin"]]))
        at[~np.isfinite(vx)] = -1
        hit = at >= 0
        ax[at[hit], k] = vx[hit]
        ap[at[hit], k] = w.pred["probability"].to_numpy(dtype=float)[hit]
        rows.append(at)
    f = distribution.anchor(interval.DIST_LEVELS, g, ax, ap)
    iv[DIST_COLUMNS] = f.quantiles
    iv[[f"q{q}" for q in interval.QUANTILES]] = f.quantiles[:, _DIST_QUANTILES]
    dist.pred = iv.copy().assign(anchor_x=list(f.anchor_x), anchor_cdf=list(f.anchor_cdf))
    for k, w in enumerate(asks):
        at = rows[k]
        hit = at >= 0
        read = f.prob_above_rows(at[hit], w.pred["threshold"].to_numpy(dtype=float)[hit])
        probability = w.pred["probability"].to_numpy(dtype=float).copy()
        probability[hit] = read
        w.pred["probability"] = probability
        w.pred["distribution"] = hit


def hold_to_bounds(con: duckdb.DuckDBPyConnection, walked: list[_Walked]) -> None:
    """Where one horizon's run has the interval template, hold the answers of star_gain and the
    path questions (`bounds.BOUNDED`) to their bounds against the distribution F of the same
    (repository, origin) (`bounds.bound_answers`: the rules `shu daily` issues by, from values
    of the store as of each origin), so the backtest scores what shu issues: `probability` the
    held answer (star_gain at H <= 28: F's, which `read_from_distribution` anchored on it),
    `probability_classifier` the model's own, `bounded` whether a bound was checked (False: no
    F on its origin, no bound at this horizon, or a value it needs missing)."""
    dist = next((w for w in walked if w.interval and len(w.pred)), None)
    held = [w for w in walked if w.template in bounds.BOUNDED and len(w.pred)]
    if dist is None or not held:
        return
    iv = dist.pred
    q = iv[DIST_COLUMNS].to_numpy(dtype=float)
    none = np.array([])
    anchor_x = iv["anchor_x"] if "anchor_x" in iv else [none] * len(iv)
    anchor_cdf = iv["anchor_cdf"] if "anchor_cdf" in iv else [none] * len(iv)
    by_key = {
        (repo, pd.Timestamp(o).date()): {
            "levels": interval.DIST_LEVELS,
            "quantiles": q[i],
            "anchor_thresholds": ax,
            "anchor_cdf": ac,
        }
        for i, (repo, o, ax, ac) in enumerate(
            zip(iv["repo"], iv["origin"], anchor_x, anchor_cdf, strict=True)
        )
    }
    known = _known_values(con, [w for w in held if bounds.has_bound(w.template, w.horizon_days)])
    for w in held:
        own = w.pred["probability"].to_numpy(dtype=float)
        p, notes = bounds.bound_answers(
            con, w.template, w.horizon_days, w.pred, own, by_key, known.get(w.template)
        )
        w.pred["probability_classifier"] = own
        w.pred["probability"] = p
        w.pred["bounded"] = [n is not None for n in notes]


def _known_values(con: duckdb.DuckDBPyConnection, walked: list[_Walked]) -> dict[str, pd.DataFrame]:
    """What each template's bound reads from the store as of each origin (`bounds.known_at`),
    aligned with its predictions; read once per lag for the templates that share it."""
    out: dict[str, pd.DataFrame] = {}
    lags = {w.template: bounds.lag_days(w.template, w.horizon_days) for w in walked}
    for lag in set(lags.values()):
        same = [w for w in walked if lags[w.template] == lag]
        pairs = pd.concat([w.pred[["repo", "origin"]] for w in same], ignore_index=True)
        pairs = pairs.drop_duplicates().reset_index(drop=True)
        table = pd.concat([pairs, bounds.known_at(con, pairs, lag)], axis=1)
        for w in same:
            merged = w.pred[["repo", "origin"]].merge(table, how="left", on=["repo", "origin"])
            out[w.template] = merged.set_axis(w.pred.index)[list(bounds.KNOWN)]
    return out


def _refit_blocks(
    examples: Examples, config: BacktestConfig, refits: list[dict]
) -> Iterator[tuple[pd.Timestamp, pd.DataFrame, pd.DataFrame, pd.DataFrame]]:
    """Walk forward every `refit_weeks` from config.start to config.end, yielding (refit_day,
    the origins tested until the next refit, the fitting rows, the calibration rows) for each
    block with test rows and appending its row counts to `refits`."""
    ex, h = examples.frame, examples.horizon_days
    start, end = pd.Timestamp(config.start), pd.Timestamp(config.end)
    rng = np.random.default_rng(config.seed)
    step = pd.Timedelta(days=7 * config.refit_weeks)
    refit_days = list(pd.date_range(start, end, freq=step)) if start <= end else []
    for refit_day in track(refit_days, f"backtest {examples.template}/{h}d", unit="refits"):
        test = ex[
            (ex["origin"] >= refit_day) & (ex["origin"] < refit_day + step) & (ex["origin"] <= end)
        ]
        if not len(test):
            continue
        fit, cal = fit_calibration_split(ex, refit_day, h, config.training(), rng)
        refits.append(
            {
                "refit_day": str(refit_day.date()),
                "fit_rows": len(fit),
                "calibration_rows": len(cal),
                "test_rows": len(test),
            }
        )
        yield refit_day, test, fit, cal


def _guards(origins: pd.Series, distance: pd.Series, config: BacktestConfig) -> pd.DataFrame:
    """The regime guard (`guard.guard`) of each row's origin (off without recalibrate)."""
    days = pd.to_datetime(origins)
    found = distance.reindex(days.unique())
    table = {
        day: guard.guard(d if config.recalibrate and pd.notna(d) else None)
        for day, d in found.items()
    }
    return pd.DataFrame(
        {"shrink": [table[d].shrink for d in days], "widen": [table[d].widen for d in days]},
        index=origins.index,
    )


def _walk_forward(
    con: duckdb.DuckDBPyConnection,
    examples: Examples,
    config: BacktestConfig,
    distance: pd.Series,
    log: Callable[[str], None],
) -> _Walked:
    ex = examples.frame
    h = examples.horizon_days
    chunks: list[pd.DataFrame] = []
    refits: list[dict] = []
    t_fit = time.perf_counter()
    for refit_day, test, fit, cal in _refit_blocks(examples, config, refits):
        if len(fit) < 200 or len(cal) < 100:
            raise StoreError(
                f"{examples.template}/{h}d: too little history before "
                f"{refit_day.date()} ({len(fit)} fitting, {len(cal)} "
                "calibration rows); start the backtest later"
            )
        forecaster = fit_forecaster(
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
        kept["probability_model"] = forecaster.predict(test)
        if forecaster.tail is not None:  # the radar's tail shrink: the answer without it too
            kept["probability_untailed"] = forecaster.predict(test, tail=False)
            log(
                f"  {refit_day.date()}: tail knee {forecaster.tail[0]:.4f}, "
                f"factor {forecaster.tail[1]:.3f}"
            )
        kept["shrink"] = _guards(test["origin"], distance, config)["shrink"]
        kept["probability"] = guard.shrink_probabilities(
            kept["probability_model"].to_numpy(),
            forecaster.calibration_block_rate(test["bucket"]),
            test["velocity_28d"].to_numpy(),
            kept["shrink"].to_numpy(),
        )
        kept["refit_day"] = refit_day
        chunks.append(kept)
    log(f"  {len(refits)} refits: {time.perf_counter() - t_fit:.0f}s")
    walked = _Walked(examples.template, h, pd.DataFrame(), refits, examples.n_void, len(ex))
    if not chunks:
        return walked
    pred = pd.concat(chunks, ignore_index=True)
    t0 = time.perf_counter()
    pred["climatology"] = climatology(ex, pred)
    t1 = time.perf_counter()
    pred["persistence"] = persistence(con, ex, pred, examples.template)
    # the climatology of the question within each band of today's velocity, for the skill per
    # band (`band_skill`)
    pred["climatology_band"] = climatology(
        ex[["known_on", "label"]].assign(bucket=interval.velocity_band(ex["velocity_28d"])),
        pred[["origin"]].assign(bucket=interval.velocity_band(pred["velocity_28d"])),
    )
    log(f"  baselines: climatology {t1 - t0:.0f}s, persistence {time.perf_counter() - t1:.0f}s")
    walked.pred = pred
    return walked


def _score_binary(walked: _Walked, config: BacktestConfig) -> SliceResult:
    """A yes/no slice's metrics (keys in docs/forecast/method.md)."""
    pred, h, refits = walked.pred, walked.horizon_days, walked.refits
    if not len(pred):
        return SliceResult(walked.template, h, pred, {"n": 0}, refits)
    boot_blocks = pred["repo"] + "|" + pred["origin"].dt.strftime("%Y-%m")
    metrics = summarize(
        pred["label"].to_numpy(),
        pred["probability"].to_numpy(),
        pred["climatology"].to_numpy(),
        pred["persistence"].to_numpy(),
        boot_blocks.to_numpy(),
        n_boot=config.n_boot,
        seed=config.seed,
    )
    metrics.update(
        {
            "template": walked.template,
            "horizon_days": h,
            "n_void": walked.n_void,
            "void_share_all_history": walked.n_void / max(walked.n_void + walked.n_examples, 1),
            "n_repos": int(pred["repo"].nunique()),
            "n_origins": int(pred["origin"].nunique()),
            "n_refits": len(refits),
            "estimator": config.estimator,
            "last_12_months": _recent_binary(pred),
            "blocks": blocks.binary_blocks(pred, pd.Timestamp(config.start)),
            "guard": _guard_effect(pred),
        }
    )
    metrics["by_velocity"] = band_skill(pred)
    if "distribution" in pred:
        metrics["distribution"] = _distribution_effect(pred)
    if "bounded" in pred:
        metrics["bounds"] = _bounds_effect(pred)
    if registry.template(walked.template).ranked:  # a radar: read from the top
        metrics["ranking"] = precision_at_k.ranking_metrics(
            pred.assign(momentum=precision_at_k.momentum(pred)),
            {"model": "probability", "momentum": "momentum"},
            baseline="momentum",
            n_boot=config.n_boot,
            seed=config.seed,
        )
    return SliceResult(walked.template, h, pred, metrics, refits)


def band_skill(pred: pd.DataFrame) -> dict:
    """Per band of today's velocity (`interval.VELOCITY_BANDS`): n, the observed rate and the
    Brier skill against the band's own climatology (`climatology_band`: the question's trailing
    year rate within the band, known at each origin); with the classifiers' own answers too
    where the slice was read from the one distribution."""
    band = interval.velocity_band(pred["velocity_28d"].to_numpy())
    out = {}
    for k, name in enumerate(interval.VELOCITY_BANDS):
        part = pred[band == k]
        if not len(part):
            continue
        o = part["label"].to_numpy()
        ref = brier(o, part["climatology_band"])
        row = {
            "n": len(part),
            "observed_rate": float(o.mean()),
            "bss_band_climatology": skill_score(brier(o, part["probability"]), ref),
        }
        if "probability_classifier" in part:
            row["bss_band_climatology_classifier"] = skill_score(
                brier(o, part["probability_classifier"]), ref
            )
        out[name] = row
    return out


def _distribution_effect(pred: pd.DataFrame) -> dict:
    """What reading the answers from the one distribution changed: how many were read from it,
    how many the monotone pooling moved (by more than 0.001), and the slice's Brier skill with
    the classifiers' own answers."""
    labels = pred["label"].to_numpy()
    moved = (pred["probability"] - pred["probability_classifier"]).abs() > 1e-3
    return {
        "read": int(pred["distribution"].sum()),
        "own_model": int((~pred["distribution"]).sum()),
        "moved": int(moved.sum()),
        "bss_climatology_classifier": skill_score(
            brier(labels, pred["probability_classifier"]), brier(labels, pred["climatology"])
        ),
    }


def _bounds_effect(pred: pd.DataFrame) -> dict:
    """What holding the answers to their bounds against the one distribution changed
    (`hold_to_bounds`): how many were checked against a bound, how many kept their model's
    answer without one (`own_model`), how many moved (by more than `bounds.MOVED`; star_gain at
    H <= 28: where F's answer is not its own, i.e. where pooling moved it), and the slice's
    Brier skill with the models' own answers."""
    labels = pred["label"].to_numpy()
    moved = (pred["probability"] - pred["probability_classifier"]).abs() > bounds.MOVED
    return {
        "checked": int(pred["bounded"].sum()),
        "own_model": int((~pred["bounded"]).sum()),
        "moved": int(moved.sum()),
        "bss_climatology_classifier": skill_score(
            brier(labels, pred["probability_classifier"]), brier(labels, pred["climatology"])
        ),
    }


def _guard_effect(pred: pd.DataFrame) -> dict:
    """What the regime guard changed: origins it was on, forecasts it moved, their Brier score
    before and after (the cost or gain where it acted), and the slice's skill without it."""
    moved = (pred["probability"] - pred["probability_model"]).abs() > 1e-12
    o = pred.loc[moved, "label"].to_numpy()
    labels = pred["label"].to_numpy()
    return {
        "bss_climatology_without_guard": skill_score(
            brier(labels, pred["probability_model"]), brier(labels, pred["climatology"])
        ),
        "origins_on": int(pred.loc[pred["shrink"] < 1, "origin"].nunique()),
        "forecasts_moved": int(moved.sum()),
        "brier_model": brier(o, pred.loc[moved, "probability_model"]) if moved.any() else None,
        "brier_guarded": brier(o, pred.loc[moved, "probability"]) if moved.any() else None,
    }


def _recent(pred: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The predictions of the last `RECENT_DAYS` of origins, and the range they cover."""
    first = pred["origin"].max() - pd.Timedelta(days=RECENT_DAYS - 1)
    recent = pred[pred["origin"] >= first]
    return recent, {
        "n": len(recent),
        "origins": [str(recent["origin"].min().date()), str(recent["origin"].max().date())],
    }


def _recent_binary(pred: pd.DataFrame) -> dict:
    """Skill, calibration and the high band over the latest year of origins only (drift shows
    there first: it is the nearest stand-in for the months after the data)."""
    recent, out = _recent(pred)
    o, p = recent["label"].to_numpy(), recent["probability"].to_numpy()
    high = next(b for b in hits_by_band(o, p) if b.band == "high")
    out.update(
        {
            "bss_climatology": skill_score(brier(o, p), brier(o, recent["climatology"])),
            "ece": ece(o, p),
            "high_band": {
                "n": high.n,
                "hit_rate": high.hit_rate,
                "mean_confidence": high.mean_confidence,
            },
        }
    )
    return out


def _walk_forward_interval(
    con: duckdb.DuckDBPyConnection,
    examples: Examples,
    config: BacktestConfig,
    distance: pd.Series,
    log: Callable[[str], None],
) -> _Walked:
    """The same refits and splits as `_walk_forward`, scoring predictive quantiles instead.

    Origins are issued in order: before each, the online conformal levels read the questions
    issued earlier whose outcome is known by then (`conformal.update`), and the regime
    guard's widening applies."""
    ex = examples.frame
    h = examples.horizon_days
    chunks: list[pd.DataFrame] = []
    refits: list[dict] = []
    state = conformal.initial_state(examples.template, h)
    pending: list[tuple[pd.DataFrame, interval.IntervalForecaster]] = []  # issued, unresolved
    for refit_day, test, fit, cal in _refit_blocks(examples, config, refits):
        forecaster = interval.fit_interval(h, examples.features, fit, cal, config.seed)
        for origin, rows in test.groupby("origin", sort=True):
            if config.recalibrate:
                state, pending = _read_resolved(state, pending, origin)
            widen = _guards(rows["origin"], distance, config)["widen"].to_numpy()
            kept = rows[["repo", "origin", "known_on", "velocity_28d", "observed_value"]].copy()
            fine = forecaster.quantiles(
                rows, state.levels if config.recalibrate else None, widen, interval.DIST_LEVELS
            )
            kept = pd.concat(
                [
                    kept,
                    pd.DataFrame(fine, columns=DIST_COLUMNS, index=kept.index),
                    pd.DataFrame(
                        fine[:, _DIST_QUANTILES],
                        columns=[f"q{q}" for q in interval.QUANTILES],
                        index=kept.index,
                    ),
                ],
                axis=1,
            )
            kept["widen"] = widen
            kept["refit_day"] = refit_day
            chunks.append(kept)
            pending.append((rows.assign(widen=widen), forecaster))
    walked = _Walked(
        examples.template, h, pd.DataFrame(), refits, examples.n_void, len(ex), True, state
    )
    if not chunks:
        return walked
    pred = pd.concat(chunks, ignore_index=True)
    pred[BASELINE_COLUMNS] = interval_scores.persistence_quantiles(con, ex, pred)
    walked.pred = pred
    return walked


def _score_interval(walked: _Walked, config: BacktestConfig) -> SliceResult:
    """An interval slice's metrics (keys in docs/forecast/method.md)."""
    pred, h, refits, state = walked.pred, walked.horizon_days, walked.refits, walked.state
    if not len(pred) or state is None:
        return SliceResult(walked.template, h, pred, {"n": 0}, refits)
    model_q = pred[[f"q{q}" for q in interval.QUANTILES]].to_numpy()
    baseline_q = pred[BASELINE_COLUMNS].to_numpy()
    observed = pred["observed_value"].to_numpy()
    metrics = interval_scores.interval_metrics(observed, model_q, baseline_q)
    metrics.update(
        {
            "template": walked.template,
            "horizon_days": h,
            "n_void": walked.n_void,
            "n_repos": int(pred["repo"].nunique()),
            "n_origins": int(pred["origin"].nunique()),
            "n_refits": len(refits),
            "estimator": "hgb-quantile+conformal",
        }
    )
    if "anchor_x" in pred:  # read from the one distribution: the interval model's own scores
        g = pred[[f"g{q}" for q in interval.QUANTILES]].to_numpy()
        metrics["distribution"] = {
            "anchored": int(pred["anchor_x"].map(lambda a: np.isfinite(a).any()).sum()),
            "interval_model": {
                k: v
                for k, v in interval_scores.interval_metrics(observed, g, baseline_q).items()
                if k in ("coverage", "crps", "crps_skill_persistence")
            },
        }
    boot_blocks = (pred["repo"] + "|" + pred["origin"].dt.strftime("%Y-%m")).to_numpy()
    metrics["ci95"] = {
        "crps_skill_persistence": interval_scores.crps_skill_ci(
            pred["observed_value"].to_numpy(),
            model_q,
            baseline_q,
            boot_blocks,
            config.n_boot,
            config.seed,
        )
    }
    band = interval.velocity_band(pred["velocity_28d"].to_numpy())
    observed = pred["observed_value"].to_numpy()
    metrics["coverage_by_velocity"] = {
        label: {
            "n": int((band == k).sum()),
            "coverage": interval_scores.coverage(observed[band == k], model_q[band == k]),
        }
        for k, label in enumerate(interval.VELOCITY_BANDS)
        if (band == k).any()
    }
    metrics["blocks"] = blocks.interval_blocks(pred, model_q, pd.Timestamp(config.start))
    metrics["online"] = {
        "questions_read": state.n_resolved,
        "resolved_through": state.resolved_through,
        "guard_origins_on": int(pred.loc[pred["widen"] > 1, "origin"].nunique()),
        "final_levels": {
            band: [round(float(x), 4) for x in state.levels[k]]
            for k, band in enumerate(interval.VELOCITY_BANDS)
        },
    }
    recent, metrics["last_12_months"] = _recent(pred)
    rows = pred.index.get_indexer(recent.index)
    metrics["last_12_months"].update(
        {
            k: v
            for k, v in interval_scores.interval_metrics(
                recent["observed_value"].to_numpy(), model_q[rows], baseline_q[rows]
            ).items()
            if k in ("coverage", "crps_skill_persistence")
        }
    )
    return SliceResult(walked.template, h, pred, metrics, refits)


def _read_resolved(
    state: conformal.State,
    pending: list[tuple[pd.DataFrame, interval.IntervalForecaster]],
    origin: pd.Timestamp,
) -> tuple[conformal.State, list]:
    """Update `state` on `origin` from the issued questions resolved by then (each read as the
    forecast that was issued: its model and its widening); return it and the still pending."""
    due = [(rows, fc) for rows, fc in pending if rows["known_on"].max() <= origin]
    left = [(rows, fc) for rows, fc in pending if rows["known_on"].max() > origin]
    if not due:
        return state, left
    batch = pd.concat(
        [
            pd.DataFrame(
                {
                    "known_on": rows["known_on"].to_numpy(),
                    "band": interval.velocity_band(rows["velocity_28d"].to_numpy()),
                    "pit": fc.pit(rows, rows["widen"].to_numpy()),
                }
            )
            for rows, fc in due
        ],
        ignore_index=True,
    )
    return conformal.update(state, batch, origin), left


def persistence(
    con: duckdb.DuckDBPyConnection, ex: pd.DataFrame, pred: pd.DataFrame, template: str
) -> np.ndarray:
    """Per prediction: the repository's own trailing-year event rate, shrunk to climatology."""
    event = registry.template(template).persistence_event
    cols = [
        "repo",
        "origin",
        "known_on",
        "label",
        "observed_value",
        "acceleration_28d",
        "velocity_28d",
        "threshold",
    ]
    history = ex[cols]
    target = pred[
        ["repo", "origin", "threshold", "acceleration_28d", "velocity_28d", "climatology"]
    ].copy()
    target["row"] = np.arange(len(target))
    con.register("_fc_hist", history)
    con.register("_fc_target", target)
    try:
        counts = con.execute(f"""
            SELECT t.row, count(p.repo) AS n,
                   coalesce(sum(CASE WHEN {event} THEN 1 ELSE 0 END), 0) AS k
            FROM _fc_target t LEFT JOIN _fc_hist p ON p.repo = t.repo
              AND p.known_on <= t.origin
              AND p.known_on > t.origin - INTERVAL {PERSISTENCE_DAYS} DAY
            GROUP BY t.row ORDER BY t.row""").df()
    finally:
        con.unregister("_fc_hist")
        con.unregister("_fc_target")
    k = counts["k"].to_numpy(dtype=float)
    n = counts["n"].to_numpy(dtype=float)
    return (k + PERSISTENCE_PRIOR * target["climatology"].to_numpy()) / (n + PERSISTENCE_PRIOR)


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
    """Run the backtest and return the `--json` object; with `out_dir`, also write
    `backtest.json` and `reliability.png` there; with `scored` (a list), append every scored
    prediction to it (`prediction_frames`). (What `shu backtest` and flows call.)

    Caps DuckDB's memory on `con` at 1.5 GB (it spills to disk beyond) so the whole run stays
    under 4 GiB.
    """
    import json
    import resource

    con.execute("SET memory_limit='1500MB'")
    con.execute("SET preserve_insertion_order=false")
    t0 = time.perf_counter()
    results = run_backtest(con, config, log=log)
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
