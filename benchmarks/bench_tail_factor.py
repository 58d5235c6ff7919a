"""Evaluation: how well one calibration block pins the radar's tail-shrink factor, and what the
top of each origin's ranking says under three factor rules.

Walks star_breakout/30 refits the way `shu backtest` does (`walk_forward.refit_blocks`,
`fit_forecaster`: same split, seed and estimator) on a store opened read-only, and for each refit
prints the tail's knee and factor (`models/tail.py`: factor = (seen - knee) / (said - knee) on the
calibration block's top `TAIL_SHARE`), the rows and distinct repositories above the knee, and the
factor's standard error by the delta method with the residuals summed per repository (a repository
stays at the top for weeks, so its rows are not independent). Then the between-refit variance of the
factors beyond their standard errors (DerSimonian-Laird tau^2) and, over the walk's weekly origins,
each origin's top 10 / top 20 mean stated probability against the rate that came true (averaged over
origins) and precision@20 under: block - each refit's own factor (what ships); pooled - the
precision-weighted mean of this and every earlier refit's factor of the walk (earlier origins only;
clipped to [0, 1] after pooling); toward1 - each refit's factor shrunk towards 1 (no shrink) by its
own standard error (positive-part James-Stein: 1 - d max(0, 1 - se^2 / d^2), d = 1 - factor); none -
no tail shrink. The regime guard is left out (it changed no top forecast on the 32 origins of
2025-03..2026-01).

Usage:
  .venv/bin/python benchmarks/bench_tail_factor.py --store /tmp/shu-bench/forecast.duckdb
      [--from 2025-03-01] [--to 2026-01-31]
"""

from __future__ import annotations

import argparse
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from shu.forecast.evaluation.walk_forward import BacktestConfig, refit_blocks
from shu.forecast.features.examples import base_frame, build_examples, weekly_grid
from shu.forecast.features.star import data_through
from shu.forecast.models.forecaster import fit_forecaster
from shu.forecast.models.tail import TAIL_SHARE
from shu.store import open_store

TEMPLATE, HORIZON = "star_breakout", 30


def factor_se(p: np.ndarray, y: np.ndarray, repo: np.ndarray) -> tuple[float, float, int, int]:
    """One calibration block's unclipped factor, its standard error with the residuals summed
    per repository, the rows above the knee and the distinct repositories among them."""
    knee = float(np.quantile(p, 1.0 - TAIL_SHARE))
    top = p > knee
    pt, yt = p[top], y[top].astype(float)
    said = pt.mean() - knee
    factor = (yt.mean() - knee) / said
    resid = pd.Series(yt - knee - factor * (pt - knee)).groupby(repo[top]).sum()
    se = float(np.sqrt((resid**2).sum()) / (top.sum() * said))
    return factor, se, int(top.sum()), len(resid)


def top_k(pred: pd.DataFrame, col: str, k: int) -> tuple[float, float]:
    top = pred.sort_values([col, "repo"], ascending=[False, True]).groupby("origin").head(k)
    per = top.groupby("origin").agg(said=(col, "mean"), seen=("label", "mean"))
    return float(per["said"].mean()), float(per["seen"].mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/forecast.duckdb"))
    parser.add_argument("--from", dest="start", default="2025-03-01")
    parser.add_argument("--to", dest="end", default="2026-01-31")
    args = parser.parse_args()
    if not args.store.exists():
        print(f"skipped: {args.store} is absent (bench_breakout.py builds it)")
        return 0
    config = BacktestConfig(
        start=date.fromisoformat(args.start),
        end=date.fromisoformat(args.end),
        templates=(TEMPLATE,),
    )
    with open_store(args.store, read_only=True) as store:
        con = store.con
        last = data_through(con)
        first = con.execute("SELECT min(day) FROM star_signals").fetchall()[0][0]
        grid = weekly_grid(config.start, first + timedelta(days=56), min(config.end, last))
        examples = build_examples(con, base_frame(con, grid), TEMPLATE, HORIZON, last)
    chunks, blocks = [], []
    for block in refit_blocks(examples, config):
        refit_day, test, fit, cal = block.refit_day, block.test, block.fit, block.cal
        forecaster = fit_forecaster(
            TEMPLATE, HORIZON, examples.features, fit, cal, config.estimator, seed=config.seed
        )
        if forecaster.tail is None:
            continue
        p_cal = forecaster.predict(cal, tail=False)
        factor, se, rows, repos = factor_se(p_cal, cal["label"].to_numpy(), cal["repo"].to_numpy())
        knee = forecaster.tail[0]
        blocks.append((refit_day, knee, factor, se))
        print(
            f"{refit_day.date()}: knee {knee:.4f}, factor {factor:.3f} +- {se:.3f} "
            f"(shipped {forecaster.tail[1]:.3f}), {rows} rows above the knee, {repos} repositories"
        )
        chunks.append(
            test[["repo", "origin", "label"]].assign(
                refit_day=refit_day, knee=knee, p=forecaster.predict(test, tail=False)
            )
        )
    f = np.array([b[2] for b in blocks])
    w = 1.0 / np.array([b[3] for b in blocks]) ** 2
    pooled = np.cumsum(w * f) / np.cumsum(w)
    q = float((w * (f - (w * f).sum() / w.sum()) ** 2).sum())
    tau2 = max(0.0, (q - (len(f) - 1)) / (w.sum() - (w**2).sum() / w.sum()))
    print(
        f"factors {f.mean():.3f} +- {f.std(ddof=1):.3f} between refits; median standard error "
        f"{np.median(1 / np.sqrt(w)):.3f}; between-refit variance beyond it tau^2 = {tau2:.4f}"
    )
    rules = {
        "block": np.clip(f, 0, 1),
        "pooled": np.clip(pooled, 0, 1),
        "toward1": np.array(
            [
                1 - (1 - x) * max(0.0, 1 - s**2 / (1 - x) ** 2) if x < 1 else 1.0
                for x, s in zip(f, 1 / np.sqrt(w), strict=True)
            ]
        ),
        "none": np.ones(len(f)),
    }
    pred = pd.concat(chunks, ignore_index=True)
    day_index = pred["refit_day"].map({b[0]: i for i, b in enumerate(blocks)}).to_numpy()
    print(f"{pred['origin'].nunique()} origins {args.start}..{args.end}: said / came true")
    for name, factors in rules.items():
        fac, knee, p = factors[day_index], pred["knee"].to_numpy(), pred["p"].to_numpy()
        pred[name] = np.where(p > knee, knee + fac * (p - knee), p)
        (s10, o10), (s20, o20) = top_k(pred, name, 10), top_k(pred, name, 20)
        print(
            f"  {name:8s} top 10 {s10:.3f} / {o10:.3f} ({s10 - o10:+.3f})  top 20 {s20:.3f} / "
            f"{o20:.3f} ({s20 - o20:+.3f})  precision@20 {o20:.3f}  factors "
            + " ".join(f"{x:.2f}" for x in factors)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
