"""Evaluation: the breakout radar answered by a fresher estimator, against the one that ships.

The shipped breakout forecaster (`forecaster.fit_forecaster`) fits its estimator on the fitting
block and learns its sigmoid on the calibration block, the newest half year of resolved
questions, which the estimator never reads. Here each refit block of the walk-forward also fits
the same estimator (same settings and seed) on both blocks together and reads it through the
shipped sigmoid: its log-odds are first put on the shipped estimator's scale over the fitting
rows both read, by their least-squares line (`line`) or their mean difference (`shift`); with
every 'yes' row kept, the fresher estimator's members hold more of them, so its raw log-odds
(`raw`) run about 0.2-0.6 higher. Prints precision@10 / @20 of each against the shipped
answers, paired over origins (`precision_at_k.ranking_metrics`), and their mean answer and
Brier skill against the rate of the origins read, overall and on origins from --recent; writes
one parquet per variant that `bench_radar_top.py` reads (its top's runs with the online tail
factor replayed: `--replay 8:0:20`, the shipped setting). `--cal-days` shortens the
calibration block (182 days ships), the other way to let the shipped estimator read newer rows:
its `shipped` parquet is then that walk.

Reads the cache of `bench_feature_sets.py --templates star_breakout` (its examples and the same
refit blocks: base features, no regime guard, no one distribution). Last figures and the
decision: docs/forecast/method.md, "A fresher breakout estimator".

Usage:
  .venv/bin/python benchmarks/bench_radar_fresh.py --cache /tmp/shu-bench/feature-sets
      --out /tmp/shu-bench/fresh [--from 2020-01-01] [--to 2026-01-28] [--seed 0] [--cal-days 182]
  .venv/bin/python benchmarks/bench_radar_top.py /tmp/shu-bench/fresh/radar-line-seed0.parquet \
      --replay 8:0:20
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_feature_sets as fs

from shu.forecast.evaluation.precision_at_k import ranking_metrics
from shu.forecast.evaluation.scoring import brier, skill_score
from shu.forecast.models.estimator import (
    make_estimator,
    model_matrix,
    single_openmp_thread,
)
from shu.forecast.models.forecaster import fit_forecaster
from shu.forecast.models.split import CAL_DAYS
from shu.forecast.questions import registry

VARIANTS = {"shipped": "p_shipped", "line": "p_line", "shift": "p_shift", "raw": "p_raw"}


def walk(cache: Path, start: date, end: date, seed: int, cal_days: int) -> pd.DataFrame:
    """Per test row: the shipped answer and the fresher estimator's three readings."""
    ex = pd.read_parquet(cache / f"{fs.RADAR}.parquet")
    names = fs._base_names(fs.RADAR)
    spec = registry.template(fs.RADAR)
    t0 = time.perf_counter()
    chunks = []
    for test, fit, cal in fs._blocks(fs.RADAR, ex, start, end, cal_days):
        fc = fit_forecaster(fs.RADAR, fs.HORIZON, names, fit, cal, "hgb", "sigmoid", seed)
        both = pd.concat([fit, cal])
        x_fit, x_both, x_test = (model_matrix(d, fc.features) for d in (fit, both, test))
        (inner,) = fc.model.calibrated_classifiers_
        shipped, sigmoid = inner.estimator.estimator, inner.calibrators[0]
        fresh = make_estimator("hgb", seed, spec.rare_event, spec.logistic_c)
        with single_openmp_thread():
            fresh.fit(x_both, both["label"].to_numpy())
            old, new = shipped.decision_function(x_fit), fresh.decision_function(x_fit)
            score = fresh.decision_function(x_test)
        slope, intercept = np.polyfit(new, old, 1)
        shift = float(np.mean(old - new))
        tail = fc.tail or (np.nan, np.nan)
        chunks.append(
            test[["repo", "origin", "label"]].assign(
                p_shipped=fc.predict(test, tail=False),
                p_line=sigmoid.predict(slope * score + intercept),
                p_shift=sigmoid.predict(score + shift),
                p_raw=sigmoid.predict(score),
                tail_knee=tail[0],
                tail_fitted=tail[1],
            )
        )
        print(
            f"refit before {test['origin'].min().date()}: line {slope:.3f} x {intercept:+.3f}, "
            f"shift {shift:+.3f} ({time.perf_counter() - t0:.0f}s)",
            flush=True,
        )
    return pd.concat(chunks, ignore_index=True)


def report(pred: pd.DataFrame, label: str) -> None:
    """precision@k leads over the shipped answers, mean answer and Brier skill of each."""
    m = ranking_metrics(pred, VARIANTS, baseline="shipped", ks=fs.RADAR_KS)
    y = pred["label"].to_numpy(dtype=float)
    ref = brier(y, np.full(len(y), y.mean()))
    for name, column in VARIANTS.items():
        p = pred[column].to_numpy()
        parts = []
        for k in fs.RADAR_KS:
            part = f"p@{k} {m[name][f'precision_at_{k}']['mean']:.3f}"
            if name != "shipped":
                d = m[name][f"lead_over_shipped_at_{k}"]
                part += f" ({d['mean']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}])"
            parts.append(part)
        print(
            f"{label} ({m['n_origins']} origins) {name:>7}: {'  '.join(parts)}  mean answer "
            f"{p.mean():.4f} (rate {y.mean():.4f})  BSS {skill_score(brier(y, p), ref):.4f}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/shu-bench/feature-sets"))
    ap.add_argument("--out", type=Path, default=Path("/tmp/shu-bench/fresh"))
    ap.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2020, 1, 1))
    ap.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2026, 1, 28))
    ap.add_argument("--recent", type=date.fromisoformat, default=date(2025, 2, 5))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cal-days", type=int, default=CAL_DAYS, help="the calibration block's days")
    args = ap.parse_args()
    pred = walk(args.cache, args.start, args.end, args.seed, args.cal_days)
    report(pred, "all")
    report(pred[pred["origin"] >= pd.Timestamp(args.recent)], f"from {args.recent}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, column in VARIANTS.items():
        pred[["repo", "origin", "label", "tail_knee", "tail_fitted"]].assign(
            probability_untailed=pred[column], probability=pred[column]
        ).to_parquet(args.out / f"radar-{name}-seed{args.seed}.parquet")
    print(f"parquets for bench_radar_top.py under {args.out}")


if __name__ == "__main__":
    main()
