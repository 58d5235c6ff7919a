"""A backtest slice's metrics from its walked predictions (keys in docs/forecast/method.md): the
yes/no slices' scores (`score_binary`: skill, calibration, bands, blocks, the latest year, the
guard's and the one distribution's effect, skill per velocity band, the radar's ranking) and
the interval slices' (`score_interval`: coverage, CRPS, per block and velocity band)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pandas as pd

from shu.forecast.calibration import bounds
from shu.forecast.evaluation import blocks, interval_scores, precision_at_k
from shu.forecast.evaluation.scoring import (
    brier,
    ece,
    hits_by_band,
    skill_ci,
    skill_score,
    squared_errors,
    summarize,
)
from shu.forecast.evaluation.star_backtest import BASELINE_COLUMNS
from shu.forecast.evaluation.walk_forward import BacktestConfig, SliceResult, Walked
from shu.forecast.models import interval
from shu.forecast.questions import registry

RECENT_DAYS = 365  # the `last_12_months` figures: the months nearest to unseen data


def score_binary(walked: Walked, config: BacktestConfig) -> SliceResult:
    """A yes/no slice's metrics (keys in docs/forecast/method.md)."""
    pred, h, refits = walked.pred, walked.horizon_days, walked.refits
    if not len(pred):
        return SliceResult(walked.template, h, pred, {"n": 0}, refits)
    boot_blocks = _boot_blocks(pred)
    metrics = summarize(
        pred["label"].to_numpy(),
        pred["probability"].to_numpy(),
        pred["climatology"].to_numpy(),
        pred["persistence"].to_numpy(),
        boot_blocks,
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
    metrics["by_velocity"] = band_skill(pred, config.n_boot, config.seed)
    if "distribution" in pred:
        metrics["distribution"] = _distribution_effect(pred)
    if "bounded" in pred:
        metrics["bounds"] = bounds_effect(pred)
    if registry.template(walked.template).ranked:  # a radar: read from the top
        metrics["ranking"] = precision_at_k.ranking_metrics(
            pred.assign(momentum=precision_at_k.momentum(pred)),
            {"model": "probability", "momentum": "momentum"},
            baseline="momentum",
            n_boot=config.n_boot,
            seed=config.seed,
        )
    return SliceResult(walked.template, h, pred, metrics, refits)


def band_skill(pred: pd.DataFrame, n_boot: int, seed: int) -> dict:
    """Per band of today's velocity (`interval.VELOCITY_BANDS`): n, the observed rate and the
    Brier skill against the band's own climatology (`climatology_band`: the question's trailing
    year rate within the band, known at each origin) with its block-bootstrap 95% interval
    (`ci95`, `scoring.skill_ci` over repository x month-of-origin blocks), and the hit rate of
    each confidence band within it (`bands`, as the slice's: what a card on a repository of
    that velocity quotes); with the classifiers' own answers too where the slice was read from
    the one distribution."""
    band = interval.velocity_band(pred["velocity_28d"].to_numpy())
    blocks = _boot_blocks(pred)
    out = {}
    for k, name in enumerate(interval.VELOCITY_BANDS):
        part = pred[band == k]
        if not len(part):
            continue
        o = part["label"].to_numpy()
        reference = squared_errors(o, part["climatology_band"].to_numpy())
        ci = skill_ci(
            squared_errors(o, part["probability"].to_numpy()),
            reference,
            blocks[band == k],
            n_boot,
            seed,
        )
        row = {
            "n": len(part),
            "observed_rate": float(o.mean()),
            "bss_band_climatology": ci["value"],
            "ci95": {"bss_band_climatology": ci},
            "bands": [asdict(b) for b in hits_by_band(o, part["probability"].to_numpy())],
        }
        if "probability_classifier" in part:
            row["bss_band_climatology_classifier"] = skill_score(
                brier(o, part["probability_classifier"]), float(reference.mean())
            )
        out[name] = row
    return out


def _boot_blocks(pred: pd.DataFrame) -> np.ndarray:
    """Each prediction's bootstrap block: its repository x month of origin ('repo|YYYY-MM')."""
    return (pred["repo"] + "|" + pred["origin"].dt.strftime("%Y-%m")).to_numpy()


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


def bounds_effect(pred: pd.DataFrame) -> dict:
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


def score_interval(walked: Walked, config: BacktestConfig) -> SliceResult:
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
    boot_blocks = _boot_blocks(pred)
    metrics["ci95"] = {
        "crps_skill_persistence": interval_scores.crps_skill_ci(
            observed, model_q, baseline_q, boot_blocks, config.n_boot, config.seed
        )
    }
    band = interval.velocity_band(pred["velocity_28d"].to_numpy())
    metrics["coverage_by_velocity"] = {
        label: {
            "n": int((band == k).sum()),
            "coverage": interval_scores.coverage(observed[band == k], model_q[band == k]),
        }
        for k, label in enumerate(interval.VELOCITY_BANDS)
        if (band == k).any()
    }
    metrics["by_velocity"] = {
        label: {
            "n": int((band == k).sum()),
            "crps_skill_persistence": interval_scores.crps_skill_ci(
                observed[band == k],
                model_q[band == k],
                baseline_q[band == k],
                boot_blocks[band == k],
                config.n_boot,
                config.seed,
            ),
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
