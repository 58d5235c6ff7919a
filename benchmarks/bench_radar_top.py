"""Evaluation: whether the radar's top says what came true, origin by origin and over every run of
consecutive origins, for its stated probability and its untailed one.

Reads a predictions parquet of star_breakout (`shu backtest --predictions`, or
`star_breakout.parquet` of a `bench_distribution.py` cache; columns repo, origin, probability,
probability_untailed and outcome or label) and prints, per variant:
- precision@10 / @20 (the share of each origin's top that came true, averaged over origins);
- each origin's top 10 / top 20 mean said against the share that came true, averaged over
  origins;
- over every run of --run consecutive origins (one starting at each origin): the share of runs
  whose mean top 10 / top 20 said minus came true is within 0.02, the worst run and the last;
  beside it, the share a perfectly calibrated top would reach ("calibrated"): the same tops with
  their outcomes drawn from their stated probabilities, independently (`DRAWS` draws: the mean
  share and its 10-90% range). That is the noise of a top of 10 or 20 rare events alone: what
  an honest probability reaches on average, whatever rule states it; real outcomes are also
  correlated (a repository stays in the top for weeks, its outcome windows overlapping), which
  widens that noise;
- the Brier score of every question and its skill against the rate over the origins read.

Variants: `stated` (probability: what was issued), `untailed` (probability_untailed: the
model's answer before the tail map and the regime guard); where the file has the model's knee
and fitted factor (`tail_knee`, `tail_fitted`: a run with the online tail factor), `fitted`
(the untailed answer through each refit's fitted factor: the rule before the online one,
without the guard) and, for each --replay WINDOW:PRIOR:TOP, the online rule of `models/tail.py`
re-applied with those settings (`online_factor`: each origin reads only the tops of origins
resolved by then), so they can be tuned without a walk-forward each. --until limits every figure
to origins before a day (tune on the first half, read the second); the replays still read the
resolved origins before it.

Usage:
  .venv/bin/python benchmarks/bench_radar_top.py /tmp/hT/b_all.parquet
      [--run 20] [--until 2023-01-01] [--since 2023-01-01] [--replay 26:0:20 13:8:20]
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

from shu.forecast.evaluation.scoring import brier, skill_score
from shu.forecast.models import tail

HORIZON = pd.Timedelta(days=30)
WITHIN = 0.02  # the target on the top's gap
DRAWS = 400  # simulated outcome draws of a perfectly calibrated top


def load(path: Path) -> pd.DataFrame:
    """The predictions with `origin` as a timestamp, `known_on` and `label` (0/1)."""
    frame = pd.read_parquet(path)
    if "label" not in frame:
        frame["label"] = frame["outcome"]
    frame["origin"] = pd.to_datetime(frame["origin"])
    frame["known_on"] = frame["origin"] + HORIZON
    return frame


def replayed(frame: pd.DataFrame, window: int, prior: float, k: int) -> np.ndarray:
    """The untailed answers through the online tail factor with these settings, each origin
    with its refit's knee and fitted factor."""
    tops = tail.origin_tops(
        frame[["repo", "origin", "known_on", "probability_untailed", "label"]], k
    )
    out = np.empty(len(frame))
    for origin, at in frame.groupby("origin").indices.items():
        knee = float(frame["tail_knee"].iloc[at[0]])
        fitted = float(frame["tail_fitted"].iloc[at[0]])
        factor, _ = tail.online_factor(tops, origin, (knee, fitted), window, prior)
        p = frame["probability_untailed"].to_numpy(dtype=float)[at]
        out[at] = tail.shrink_tail(p, (knee, factor))
    return out


def per_origin(frame: pd.DataFrame, column: str, k: int) -> pd.DataFrame:
    """Per origin (in order): the mean of `column` over its top `k` (said) and their rate of
    outcomes (seen: precision@k)."""
    top = frame.sort_values([column, "repo"], ascending=[False, True]).groupby("origin").head(k)
    return top.groupby("origin").agg(said=(column, "mean"), seen=("label", "mean")).sort_index()


def run_gaps(said: np.ndarray, seen: np.ndarray, run: int) -> np.ndarray:
    """The mean of (said - seen) over every run of `run` consecutive origins (rows: origins;
    the last axis holds the draws, if any)."""
    gap = said - seen
    cum = np.concatenate([np.zeros((1, *gap.shape[1:])), np.cumsum(gap, axis=0)])
    return (cum[run:] - cum[:-run]) / run


def calibrated_share(
    frame: pd.DataFrame, column: str, k: int, run: int, seed: int = 0
) -> tuple[float, float, float]:
    """The share of runs within `WITHIN` were each origin's top `k` outcomes drawn from their
    stated probabilities, independently: its mean over `DRAWS` draws and its 10% and 90%
    quantiles."""
    top = frame.sort_values([column, "repo"], ascending=[False, True]).groupby("origin").head(k)
    rows = top.groupby("origin").indices
    p = top[column].to_numpy(dtype=float)
    rng = np.random.default_rng(seed)
    said = np.array([p[at].mean() for at in rows.values()])
    seen = np.stack(
        [(rng.random((len(at), DRAWS)) < p[at, None]).mean(axis=0) for at in rows.values()]
    )
    shares = np.mean(np.abs(run_gaps(said[:, None], seen, run)) <= WITHIN, axis=0)
    low, high = np.quantile(shares, [0.1, 0.9])
    return float(shares.mean()), float(low), float(high)


def report(name: str, frame: pd.DataFrame, column: str, run: int) -> None:
    """One variant's line of figures."""
    y = frame["label"].to_numpy(dtype=float)
    p = frame[column].to_numpy(dtype=float)
    score = brier(y, p)
    skill = skill_score(score, brier(y, np.full(len(y), y.mean())))
    line = f"{name:<16} Brier {score:.7f} (skill {skill:.4f})"
    for k in (10, 20):
        per = per_origin(frame, column, k)
        gap = (per["said"] - per["seen"]).to_numpy()
        runs = run_gaps(per["said"].to_numpy(), per["seen"].to_numpy(), run)
        line += (
            f" | top {k}: p@{k} {per['seen'].mean():.3f}, said {per['said'].mean():.3f} vs "
            f"{per['seen'].mean():.3f} ({gap.mean():+.3f}); runs of {run}: "
        )
        if len(runs):
            mean, low, high = calibrated_share(frame, column, k, run)
            line += (
                f"{np.mean(np.abs(runs) <= WITHIN):.0%} of {len(runs)} within {WITHIN} "
                f"(calibrated {mean:.0%}, 10-90% of draws {low:.0%}-{high:.0%}), "
                f"worst {runs[np.argmax(np.abs(runs))]:+.3f}, last {runs[-1]:+.3f}"
            )
        else:
            line += "none (fewer origins)"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("predictions", type=Path, help="star_breakout predictions parquet")
    parser.add_argument("--run", type=int, default=20, help="consecutive origins per run")
    parser.add_argument("--since", type=date.fromisoformat, help="first origin read")
    parser.add_argument("--until", type=date.fromisoformat, help="origins before this day")
    parser.add_argument(
        "--replay", nargs="*", default=[], help="online rule settings WINDOW:PRIOR:TOP"
    )
    args = parser.parse_args()
    frame = load(args.predictions)
    variants = {"stated": "probability", "untailed": "probability_untailed"}
    if "tail_knee" in frame:
        frame["fitted"] = tail.shrink_tail_rows(
            frame["probability_untailed"].to_numpy(dtype=float),
            frame["tail_knee"].to_numpy(dtype=float),
            frame["tail_fitted"].to_numpy(dtype=float),
        )
        variants["fitted"] = "fitted"
        for spec in args.replay:
            window, prior, k = spec.split(":")
            frame[spec] = replayed(frame, int(window), float(prior), int(k))
            variants[f"online {spec}"] = spec
    read = frame
    if args.since:
        read = read[read["origin"] >= pd.Timestamp(args.since)]
    if args.until:
        read = read[read["origin"] < pd.Timestamp(args.until)]
    print(
        f"{read['origin'].nunique()} origins {read['origin'].min().date()} .. "
        f"{read['origin'].max().date()}, {len(read):,} questions, rate {read['label'].mean():.4f}"
    )
    if "tail_factor" in read:
        f = read.groupby("origin")["tail_factor"].first()
        print(
            f"online factor issued: median {f.median():.3f}, range {f.min():.3f}-{f.max():.3f}, "
            f"above 1 on {np.mean(f > 1):.0%} of origins"
        )
    for name, column in variants.items():
        report(name, read, column, args.run)


if __name__ == "__main__":
    main()
