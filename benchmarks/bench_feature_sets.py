"""Evaluation: what each star feature set (`features.star.FEATURE_SETS`: forks and open issues,
the pace without a burst, ...) adds to the 30-day velocity models and to the breakout radar,
one set at a time.

Builds the features (`examples.base_frame`, the code training, the backtest and the daily job
run) on the weekly origins the walk-forward needs, the resolved examples of each template asked
(star_velocity_up, star_velocity_level, star_velocity_interval, star_breakout; at 30 days) whose
cache is missing, and caches them under --cache. Then, for each variant (the base features plus
some of the set features), walks forward as the backtest does (refit every 8 weeks from --from
to --to, the split of `split.fit_calibration_split`), fitting the models alone (no regime guard,
no online levels, no one-distribution reading: those are `bench_distribution.py`'s), and prints
(the variants: `base`, `engagement`, `pace`, `all`, a set's name, the engagement set's `forks`
or `issues` alone, names joined by '+'):

- yes/no templates: Brier skill against climatology overall and per band of today's velocity
  against that band's own climatology (the backtest's `band_skill`);
- the interval: CRPS (2 x mean pinball loss over the seven quantiles, stars/day) overall and per
  band, 80% coverage, and on the repositories whose 28-day pace is mostly a burst
  (velocity_28d >= 2 and the pace without the 3 busiest days below 0.35 of it): the share of
  outcomes below the 10% quantile and below the median;
- the radar (star_breakout, asked of every repository with a velocity_28d; the forecaster with
  its calibration; its tail map does not change the order, so the ranking reads the calibrated
  probability without it): precision@10 and @20 (per origin, averaged over origins, 95%
  bootstrap interval over origins, `evaluation.precision_at_k`) and Brier skill against
  climatology (without and with the fitted tail map), overall and on origins from --recent.

Usage:
  .venv/bin/python benchmarks/bench_feature_sets.py --store /tmp/stars.duckdb
      [--cache /tmp/shu-bench/feature-sets] [--variants base,engagement,pace,all]
      [--templates star_velocity_up,star_velocity_interval,star_breakout] [--seed 0]
      [--recent 2025-02-05]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from shu.forecast.models.forecaster import Forecaster

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ("star_velocity_up", "star_velocity_level", "star_velocity_interval")
RADAR = "star_breakout"
HORIZON = 30
RADAR_KS = (10, 20)
BANDS = ("<1", "1-5", "5-20", ">=20")


def variant_features(name: str) -> list[str]:
    """The set features a variant adds: 'base' none, 'all' every set, a set's name its
    features, 'forks' / 'issues' the engagement set's fork or open-issue features alone,
    names joined by '+' add each ('engagement+removals': what shipped and the removals)."""
    from shu.forecast.features.star import ALL_SET_FEATURES, FEATURE_SETS

    if "+" in name:
        return list(dict.fromkeys(f for part in name.split("+") for f in variant_features(part)))
    if name == "base":
        return []
    if name == "all":
        return list(ALL_SET_FEATURES)
    if name == "forks":
        return [f for f in FEATURE_SETS["engagement"] if "fork" in f]
    if name == "issues":
        return [f for f in FEATURE_SETS["engagement"] if "issue" in f]
    return list(FEATURE_SETS[name])


def build(store: Path, cache: Path, start: date, end: date, templates: list[str]) -> None:
    """Features and resolved examples of `templates`, cached per template."""
    from shu.forecast.features.examples import base_frame, build_examples, weekly_grid
    from shu.forecast.features.star import data_through
    from shu.forecast.models.split import CAL_DAYS, TRAIN_DAYS
    from shu.store import open_store

    cache.mkdir(parents=True, exist_ok=True)
    first = date.fromordinal(start.toordinal() - TRAIN_DAYS - CAL_DAYS - 2 * HORIZON)
    t0 = time.perf_counter()
    with open_store(store, read_only=True) as s:
        s.con.execute("SET memory_limit='6GB'")
        s.con.execute("SET preserve_insertion_order=false")
        base = base_frame(s.con, weekly_grid(start, first, end))
        print(f"features: {len(base):,} repo-origins ({time.perf_counter() - t0:.0f}s)", flush=True)
        last = data_through(s.con)
        for t in templates:
            build_examples(s.con, base, t, HORIZON, last).frame.to_parquet(cache / f"{t}.parquet")
    print(f"examples cached under {cache} ({time.perf_counter() - t0:.0f}s)", flush=True)


def _blocks(
    template: str, ex: pd.DataFrame, start: date, end: date, cal_days: int | None = None
) -> Iterator[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]]:
    """(test, fit, calibration) per refit, as the backtest chooses them
    (`walk_forward.refit_blocks`, refitting every 8 weeks with the default split, or with a
    calibration block of `cal_days`)."""
    from shu.forecast.evaluation.walk_forward import BacktestConfig, refit_blocks
    from shu.forecast.features.examples import Examples
    from shu.forecast.models.split import CAL_DAYS

    config = BacktestConfig(start, end, (template,), (HORIZON,), cal_days=cal_days or CAL_DAYS)
    for block in refit_blocks(Examples(template, HORIZON, ex, 0), config):
        yield block.test, block.fit, block.cal


def _base_names(template: str) -> list[str]:
    from shu.forecast.features import feature_names
    from shu.forecast.features.star import ALL_SET_FEATURES

    return [f for f in feature_names(template) if f not in ALL_SET_FEATURES]


def _fitted_blocks(
    template: str, names: list[str], ex: pd.DataFrame, start: date, end: date, seed: int
) -> Iterator[tuple[pd.DataFrame, Forecaster]]:
    """Each refit block's test rows with the forecaster fitted on its fit and calibration rows
    (the backtest's estimator and calibration), in order."""
    from shu.forecast.models.forecaster import fit_forecaster

    for test, fit, cal in _blocks(template, ex, start, end):
        yield test, fit_forecaster(template, HORIZON, names, fit, cal, "hgb", "sigmoid", seed)


def score_binary(
    cache: Path, template: str, variant: str, start: date, end: date, seed: int = 0
) -> None:
    """Walk forward one yes/no template with one variant's features; print its skill."""
    from shu.forecast.base_rates import climatology
    from shu.forecast.evaluation.scoring import brier, skill_score
    from shu.forecast.models.interval import velocity_band

    ex = pd.read_parquet(cache / f"{template}.parquet")
    names = _base_names(template) + variant_features(variant)
    t0 = time.perf_counter()
    chunks = []
    for test, fc in _fitted_blocks(template, names, ex, start, end, seed):
        chunks.append(
            test[["origin", "velocity_28d", "label", "bucket"]].assign(p=fc.predict(test))
        )
    pred = pd.concat(chunks, ignore_index=True)
    band = velocity_band(pred["velocity_28d"])
    clim = climatology(ex, pred)
    clim_band = climatology(
        ex[["known_on", "label"]].assign(bucket=velocity_band(ex["velocity_28d"])),
        pred[["origin"]].assign(bucket=band),
    )
    y, p = pred["label"].to_numpy(dtype=float), pred["p"].to_numpy()

    def skill(ref: np.ndarray, m: np.ndarray) -> float:
        return skill_score(brier(y[m], p[m]), brier(y[m], ref[m]))

    every = np.ones(len(pred), dtype=bool)
    bands = "  ".join(f"{b} {skill(clim_band, band == k):.4f}" for k, b in enumerate(BANDS))
    print(
        f"{template}/{HORIZON} {variant:>8}: n {len(pred):,}  BSS {skill(clim, every):.4f}  "
        f"per band (band climatology) {bands}  ({time.perf_counter() - t0:.0f}s)",
        flush=True,
    )


def score_interval(cache: Path, variant: str, start: date, end: date, seed: int = 0) -> None:
    """Walk forward the interval model with one variant's features; print its scores."""
    from shu.forecast.models import interval

    template = interval.TEMPLATE
    ex = pd.read_parquet(cache / f"{template}.parquet")
    names = _base_names(template) + variant_features(variant)
    t0 = time.perf_counter()
    q, keep = [], []
    for test, fit, cal in _blocks(template, ex, start, end):
        q.append(interval.fit_interval(HORIZON, names, fit, cal, seed).quantiles(test))
        keep.append(test)
    test = pd.concat(keep, ignore_index=True)
    qs = np.vstack(q)
    y = test["observed_value"].to_numpy(dtype=float)
    v = test["velocity_28d"].to_numpy(dtype=float)
    levels = np.asarray(interval.QUANTILES)
    err = y[:, None] - qs
    crps = 2 * np.mean(np.maximum(levels * err, (levels - 1) * err), axis=1)
    held = (y >= qs[:, 1]) & (y <= qs[:, 5])
    band = interval.velocity_band(v)
    bands = "  ".join(
        f"{b} {crps[band == k].mean():.4f}/{held[band == k].mean():.3f}"
        for k, b in enumerate(BANDS)
    )
    trim = test["rel_trim3_velocity_28d"].to_numpy(dtype=float)
    burst = (v >= 2) & (trim < 0.35)
    print(
        f"{template}/{HORIZON} {variant:>8}: n {len(test):,}  CRPS {crps.mean():.4f}  80% "
        f"{held.mean():.3f}  per band CRPS/80% {bands}  burst n {int(burst.sum())}: CRPS "
        f"{crps[burst].mean():.3f}, below 10% {np.mean(y[burst] < qs[burst, 1]):.3f}, below "
        f"median {np.mean(y[burst] < qs[burst, 3]):.3f}  ({time.perf_counter() - t0:.0f}s)",
        flush=True,
    )


def score_radar(
    cache: Path, variant: str, start: date, end: date, recent: date, seed: int = 0
) -> None:
    """Walk forward the breakout radar with one variant's features; print its precision@k
    and Brier skill, overall and on the origins from `recent`. Its predictions are kept under
    `cache` (`_radar_file`), and where the base variant's at the same seed are there, its lead
    over them is printed too (`_radar_lead`)."""
    from shu.forecast.base_rates import climatology
    from shu.forecast.models.tail import shrink_tail

    ex = pd.read_parquet(cache / f"{RADAR}.parquet")
    names = _base_names(RADAR) + variant_features(variant)
    t0 = time.perf_counter()
    chunks = []
    for test, fc in _fitted_blocks(RADAR, names, ex, start, end, seed):
        p = fc.predict(test, tail=False)
        kept = test[["repo", "origin", "label", "bucket"]]
        chunks.append(kept.assign(p=p, p_tail=shrink_tail(p, fc.tail)))
    pred = pd.concat(chunks, ignore_index=True)
    pred["climatology"] = climatology(ex, pred)
    parts = [
        _radar_figures(pred, "all"),
        _radar_figures(pred[pred["origin"] >= pd.Timestamp(recent)], f"from {recent}"),
    ]
    print(
        f"{RADAR}/{HORIZON} {variant:>8}: n {len(pred):,}  {'  |  '.join(parts)}  "
        f"({time.perf_counter() - t0:.0f}s)",
        flush=True,
    )
    pred[["repo", "origin", "label", "p"]].to_parquet(_radar_file(cache, variant, seed))
    base = _radar_file(cache, "base", seed)
    if variant != "base" and base.exists():
        _radar_lead(pred, pd.read_parquet(base), variant, recent)


def _radar_file(cache: Path, variant: str, seed: int) -> Path:
    """Where a variant's radar predictions at a seed are kept."""
    return cache / f"{RADAR}-pred-{variant}-seed{seed}.parquet"


def _radar_lead(pred: pd.DataFrame, base: pd.DataFrame, variant: str, recent: date) -> None:
    """Print a variant's precision@k lead over the base features, paired over the same
    resampled origins (`precision_at_k.ranking_metrics`), overall and from `recent`."""
    from shu.forecast.evaluation.precision_at_k import ranking_metrics

    both = pred[["repo", "origin", "label", "p"]].merge(
        base[["repo", "origin", "p"]], on=["repo", "origin"], suffixes=("", "_base")
    )
    parts = []
    for label, rows in (
        ("all", both),
        (f"from {recent}", both[both["origin"] >= pd.Timestamp(recent)]),
    ):
        m = ranking_metrics(rows, {"v": "p", "base": "p_base"}, baseline="base", ks=RADAR_KS)
        leads = "  ".join(
            f"p@{k} {d['mean']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}]"
            for k in RADAR_KS
            for d in [m["v"][f"lead_over_base_at_{k}"]]
        )
        parts.append(f"{label}: {leads}")
    print(f"{RADAR}/{HORIZON} {variant:>8} lead over base: {'  |  '.join(parts)}", flush=True)


def _radar_figures(pred: pd.DataFrame, label: str) -> str:
    """precision@k [95% over origins] and Brier skill (without / with the tail map) of `pred`."""
    from shu.forecast.evaluation.precision_at_k import ranking_metrics
    from shu.forecast.evaluation.scoring import brier, skill_score

    ranks = ranking_metrics(pred, {"model": "p"}, ks=RADAR_KS)
    y = pred["label"].to_numpy(dtype=float)
    ref = brier(y, pred["climatology"].to_numpy())
    bss = [skill_score(brier(y, pred[c].to_numpy()), ref) for c in ("p", "p_tail")]
    prec = "  ".join(
        f"p@{k} {m['mean']:.3f} [{m['low']:.3f}, {m['high']:.3f}]"
        for k in RADAR_KS
        for m in [ranks["model"][f"precision_at_{k}"]]
    )
    return f"{label} ({ranks['n_origins']} origins): {prec}  BSS {bss[0]:.4f} (tail {bss[1]:.4f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/shu-bench/feature-sets"))
    ap.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2025, 3, 5))
    ap.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2026, 1, 28))
    ap.add_argument("--variants", default="base,engagement,pace,all")
    ap.add_argument("--templates", default=",".join(TEMPLATES))
    ap.add_argument("--seed", type=int, default=0, help="the models' seed (the split's is 0)")
    ap.add_argument(
        "--recent",
        type=date.fromisoformat,
        default=date(2025, 2, 5),
        help="the radar's figures also on the origins from this day",
    )
    args = ap.parse_args()
    templates = args.templates.split(",")
    missing = [t for t in templates if not (args.cache / f"{t}.parquet").exists()]
    if missing:
        build(args.store, args.cache, args.start, args.end, missing)
    for template in templates:
        for variant in args.variants.split(","):
            if template == "star_velocity_interval":
                score_interval(args.cache, variant, args.start, args.end, args.seed)
            elif template == RADAR:
                score_radar(args.cache, variant, args.start, args.end, args.recent, args.seed)
            else:
                score_binary(args.cache, template, variant, args.start, args.end, args.seed)


if __name__ == "__main__":
    main()
