"""Evaluation: the surest yes/no answers in the weeks many repositories lose stars at once (a star
purge), against the other weeks (issue 40's first target).

Reads a walk-forward's cached predictions (a `bench_distribution.py --cache` folder, or any
folder of `<template>.parquet` files written from `shu backtest --predictions`) and the store it
ran on, and marks each origin by the store's loss share (`features.regime.regime_frame`: the
share of repositories whose count fell, over the 7 and 28 days to the origin, against the median
daily share of the year to it). A **purge origin** is one whose 7-day share was `--ratio` (1.5)
times the year's median or more. For star_velocity_up/30 and star_velocity_level/30 it prints:

- answers of 0.8 or more (what the forecast said, mean probability) against the share that came
  true, in purge origins and the rest, and among them the rebound answers (the 28-day pace on
  the origin at or below 0: "above today's" read as a rebound);
- the February 2026 wave: origins whose 30 days ran into February 2026 (2026-01-07 ..
  2026-01-28), fitted without it (the walk-forward's refits read outcomes known by their day);
- every equal-count decile of the answers, overall: mean said against came true, and the
  largest gap.

With `--compare OTHER` the same figures for a second cache (before -> after). With `--try
TAU,...` each cache is also scored with the answers of repositories losing stars (pace <= 0) on
purge origins pulled towards how often such questions came true in the year before
(`climatology`, the stand-in for the calibration block's rate the guard reads) by each factor
tau (logit p' = logit c + tau (logit p - logit c)): what a stronger purge rule would do, without
a walk-forward. Usage:

    .venv/bin/python benchmarks/bench_purge.py --store /tmp/st/stars.duckdb \\
        --cache /tmp/bd/base-all [--compare /tmp/bd/new-all] [--ratio 1.5] [--since 2020-01-01]
        [--try 0.8,0.6,0.4]
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from scipy.special import expit, logit

from shu.forecast.evaluation.scoring import brier
from shu.forecast.features.regime import regime_frame

TEMPLATES = ("star_velocity_up", "star_velocity_level")
SURE = 0.8
FEB_WAVE = (pd.Timestamp("2026-01-07"), pd.Timestamp("2026-01-28"))


def loss_shares(store: Path, origins: list[date]) -> pd.DataFrame:
    """Each origin's 7- and 28-day loss share against the year's median (`regime_frame`)."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        frame = regime_frame(con, origins)
    finally:
        con.close()
    return frame[["origin", "loss_share_ratio_7d", "loss_share_ratio_28d"]]


def load(cache: Path, template: str, since: pd.Timestamp) -> pd.DataFrame:
    pred = pd.read_parquet(
        cache / f"{template}.parquet",
        columns=["repo", "origin", "probability", "label", "velocity_28d", "climatology"],
    )
    pred["origin"] = pd.to_datetime(pred["origin"])
    return pred[(pred["origin"] >= since) & pred["label"].notna()]


def said_seen(rows: pd.DataFrame) -> str:
    if not len(rows):
        return "n 0"
    said, seen = rows["probability"].mean(), rows["label"].mean()
    return f"n {len(rows):>7,}  said {said:.3f}  came true {seen:.3f}  gap {seen - said:+.3f}"


def held(pred: pd.DataFrame, purge: set[pd.Timestamp], tau: float) -> pd.DataFrame:
    """The answers of repositories losing stars on purge origins pulled towards `climatology`
    by `tau` (see the module docstring)."""
    out = pred.copy()
    acts = out["origin"].isin(purge) & (out["velocity_28d"] <= 0)
    p = np.clip(out.loc[acts, "probability"].to_numpy(), 1e-6, 1 - 1e-6)
    c = np.clip(out.loc[acts, "climatology"].to_numpy(), 1e-4, 1 - 1e-4)
    out.loc[acts, "probability"] = expit(logit(c) + tau * (logit(p) - logit(c)))
    return out


def _brier(pred: pd.DataFrame) -> float:
    return brier(pred["label"].to_numpy(dtype=float), pred["probability"].to_numpy())


def report(pred: pd.DataFrame, purge: set[pd.Timestamp], label: str) -> None:
    """The sure answers by kind of week, the February wave, the deciles."""
    sure = pred[pred["probability"] >= SURE]
    in_purge = sure["origin"].isin(purge)
    rebound = sure["velocity_28d"] <= 0
    wave = sure["origin"].between(*FEB_WAVE)
    print(f"  {label}")
    print(f"    answers >= {SURE} in purge origins ({len(purge)}): {said_seen(sure[in_purge])}")
    print(f"      of them rebounds (pace <= 0):      {said_seen(sure[in_purge & rebound])}")
    print(f"    answers >= {SURE} in the other origins:  {said_seen(sure[~in_purge])}")
    print(f"      of them rebounds:                  {said_seen(sure[~in_purge & rebound])}")
    print(f"    answers >= {SURE}, the February 2026 wave: {said_seen(sure[wave])}")
    print(f"      of them rebounds:                  {said_seen(sure[wave & rebound])}")
    rank = pred["probability"].rank(method="first") / len(pred)
    decile = np.minimum((rank * 10).astype(int), 9)
    by = pred.groupby(decile).agg(said=("probability", "mean"), seen=("label", "mean"))
    gaps = (by["seen"] - by["said"]).to_numpy()
    cells = "  ".join(f"{s:.2f}/{o:.2f}" for s, o in zip(by["said"], by["seen"], strict=True))
    print(f"    deciles said/came true: {cells}")
    print(f"    largest decile gap {gaps[np.argmax(np.abs(gaps))]:+.3f}")
    in_all = pred["origin"].isin(purge)
    print(
        f"    Brier: all {_brier(pred):.5f}, purge origins {_brier(pred[in_all]):.5f}, "
        f"the rest {_brier(pred[~in_all]):.5f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--compare", type=Path, help="a second cache, scored the same way")
    ap.add_argument("--ratio", type=float, default=1.5)
    ap.add_argument("--since", type=date.fromisoformat, default=date(2020, 1, 1))
    ap.add_argument("--try", dest="taus", default="", help="factors tau, comma-separated")
    args = ap.parse_args()
    since = pd.Timestamp(args.since)
    caches = [args.cache] + ([args.compare] if args.compare else [])
    for template in TEMPLATES:
        runs = [load(c, template, since) for c in caches]
        origins = sorted({d.date() for r in runs for d in r["origin"].unique()})
        shares = loss_shares(args.store, origins)
        purge = set(shares.loc[shares["loss_share_ratio_7d"] >= args.ratio, "origin"])
        purge28 = shares.loc[shares["loss_share_ratio_28d"] >= args.ratio, "origin"]
        print(
            f"{template}/30: {len(origins)} origins from {origins[0]}; purge origins (7-day "
            f"share >= {args.ratio}x the year's median): "
            + ", ".join(str(d.date()) for d in sorted(purge))
            + f"; by the 28-day share: {len(purge28)}"
        )
        for cache, pred in zip(caches, runs, strict=True):
            report(pred, purge, str(cache))
            for tau in [float(t) for t in args.taus.split(",") if t]:
                report(held(pred, purge, tau), purge, f"{cache}, held by tau {tau}")


if __name__ == "__main__":
    main()
