"""Evaluation: how often the star_gain and path models' own answers contradict the one
predictive distribution F of the 28-day velocity on t+H (`shu.forecast.calibration.bounds`),
and what holding them to their bounds does to their Brier score, on walk-forward predictions.

Reads cached walk-forward predictions (the frames `run_backtest` returns, one Parquet per
template, as `benchmarks/bench_distribution.py --cache` writes them):
- `--dist DIR`: star_velocity_interval.parquet of a run read from one distribution (F's
  quantiles at `interval.DIST_LEVELS` as columns d<level>, its anchors as anchor_x /
  anchor_cdf), e.g. bench_distribution.py's cache;
- `--questions DIR`: star_gain.parquet, star_accel_reach.parquet, star_accel_fall.parquet of a
  run over the same origins and horizon (repo, origin, threshold, probability = the answer
  after the regime guard, label); `--walk` runs that walk-forward first (`run_backtest`, the
  code `shu backtest` runs, weekly origins --from..--to, refitted every 8 weeks) and caches it
  there.
For every question with a bound and an F on its (repository, origin) it reads the origin's
values from the store (`bounds.origin_values`), P_F of the bound's event, and prints per
template: how many answers violated the bound (below a lower bound by more than 1e-9; for
star_gain at H <= 28, more than 0.02 from F's), by how much, and the Brier score of the
answers as the models gave them and as held (`bounds.enforce`).

`--issued DIR` instead re-reads a cached walk-forward of one horizon (DIR holds the Parquet of
star_velocity_interval, the velocity questions and the three bounded templates, each as
`run_backtest` returned it) through today's `one_distribution.read_from_distribution` and
`one_distribution.hold_to_bounds`, as `shu backtest` now scores them, twice: with star_gain at H <=
28 an anchor of F (what `shu daily` issues) and without (F anchored on the velocity questions only,
gain read from it). It prints per bounded template the Brier skill of the model's own answers, of
the answers read from F without the gain anchor, and of the answers issued, against the sample's
own rate and against the backtest's climatology, with the `bounds` counts; and the velocity
questions' Brier skill read from F with and without the gain anchor.

Usage:
  .venv/bin/python benchmarks/bench_bounds.py --store /tmp/stars.duckdb \
      --dist /tmp/shu-bench/distribution --questions /tmp/shu-bench/bounds --horizon 30 \
      [--walk [--from 2025-02-05] [--to 2026-01-28]] [--no-removal]
  .venv/bin/python benchmarks/bench_bounds.py --store /tmp/stars.duckdb --issued DIR --horizon 7
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from shu.forecast.calibration import bounds  # noqa: E402
from shu.forecast.evaluation.scoring import brier, brier_of_rate  # noqa: E402
from shu.forecast.models.interval import DIST_LEVELS  # noqa: E402
from shu.store import open_store  # noqa: E402


def distributions(path: Path) -> dict[tuple[str, object], dict]:
    """F per (repo, origin day) from a cached interval prediction file."""
    cols = [f"d{round(float(a), 4):g}" for a in DIST_LEVELS]
    frame = pd.read_parquet(
        path, columns=["repo", "origin", "observed_value", *cols, "anchor_x", "anchor_cdf"]
    )
    q = frame[cols].to_numpy(float)
    levels = np.asarray(DIST_LEVELS, dtype=float)
    return {
        (r, pd.Timestamp(o).date()): {
            "levels": levels,
            "quantiles": q[i],
            "anchor_thresholds": np.asarray(ax if ax is not None else [], dtype=float),
            "anchor_cdf": np.asarray(ac if ac is not None else [], dtype=float),
            "observed": v,
        }
        for i, (r, o, v, ax, ac) in enumerate(
            zip(
                frame["repo"],
                frame["origin"],
                frame["observed_value"],
                frame["anchor_x"],
                frame["anchor_cdf"],
                strict=True,
            )
        )
    }


def walk(store: Path, start: date, end: date, horizon: int, out: Path) -> None:
    """The walk-forward of the bounded templates, each one's predictions cached in `out`."""
    from shu.forecast.evaluation.backtest import BacktestConfig, run_backtest

    out.mkdir(parents=True, exist_ok=True)
    config = BacktestConfig(start, end, bounds.BOUNDED, (horizon,))
    t0 = time.perf_counter()
    with open_store(store, read_only=True) as s:
        for result in run_backtest(s.con, config, log=lambda m: print(m, flush=True)):
            pred = result.predictions.drop(columns=["known_on"], errors="ignore")
            pred.to_parquet(out / f"{result.template}.parquet", index=False)
    print(f"walk-forward: {time.perf_counter() - t0:.0f} s")


def score(
    store: Path, dist_dir: Path, questions: Path, horizon: int, no_removal: bool = False
) -> None:
    f = distributions(dist_dir / "star_velocity_interval.parquet")
    print(f"F: {len(f):,} (repository, origin) distributions at {horizon} days")
    with open_store(store, read_only=True) as s:
        for template in bounds.BOUNDED:
            path = questions / f"{template}.parquet"
            if not path.exists():
                print(f"{template}/{horizon}: no predictions at {path}")
                continue
            q = pd.read_parquet(
                path, columns=["repo", "origin", "threshold", "probability", "label"]
            )
            q = q.dropna(subset=["label"]).reset_index(drop=True)
            lag = bounds.lag_days(template, horizon)
            if bounds.rule(template, horizon, 1.0, 0.0, 0.0, 0.0) is None:
                print(f"{template}/{horizon}: {len(q):,} scored, no bound at this horizon")
                continue
            days = [pd.Timestamp(o).date() for o in q["origin"]]
            known: dict[tuple[str, object], pd.Series] = {}
            for day in sorted(set(days)):
                repos = sorted(set(q["repo"][[d == day for d in days]]))
                for _, v in bounds.origin_values(s.con, repos, day, lag).iterrows():
                    known[(v["repo"], day)] = v
            raw, held, p_f, label, removal = [], [], [], [], []
            seen, broken = 0, 0  # the bound's event observed; and the question's outcome not
            relation = None
            for repo, day, x, p, y in zip(
                q["repo"], days, q["threshold"], q["probability"], q["label"], strict=True
            ):
                d, v = f.get((repo, day)), known.get((repo, day))
                if d is None or v is None:
                    continue
                vals = [None if pd.isna(v[k]) else float(v[k]) for k in bounds.KNOWN]
                if no_removal:
                    vals[-1] = 0.0
                b = bounds.rule(template, horizon, float(x), *vals)
                if b is None:
                    continue
                relation = b.relation
                pb = bounds.probability(
                    b, d["levels"], d["quantiles"], d["anchor_thresholds"], d["anchor_cdf"]
                )
                raw.append(float(p))
                held.append(bounds.enforce(b, float(p), pb))
                p_f.append(pb)
                label.append(float(y))
                removal.append(b.removal_allowance)
                obs = float(d["observed"])
                if np.isfinite(obs):
                    if b.relation == "=":  # on V's lattice: V > velocity
                        event = obs > b.velocity + 1e-9
                    elif b.side == "above":
                        event = obs >= b.velocity - 1e-9
                    else:
                        event = obs <= b.velocity
                    seen += bool(event)
                    # a lower bound: the event implies 'yes'; "=": the event is the question
                    broken += bool(event and y == 0) or (b.relation == "=" and not event and y == 1)
            if not raw:
                print(f"{template}/{horizon}: {len(q):,} scored, none with an F on its origin")
                continue
            r, h, pf, y = (np.asarray(a) for a in (raw, held, p_f, label))
            if relation == "=":
                off = np.abs(r - pf) > 0.02
                gap = np.abs(r - pf)
            else:
                off = r < pf - 1e-9
                gap = np.maximum(pf - r, 0.0)
            print(
                f"{template}/{horizon} ({relation}): {len(r):,} with a bound of {len(q):,} scored; "
                f"violated {off.mean():.4f} ({off.sum():,}); gap where violated: mean "
                f"{gap[off].mean() if off.any() else 0:.4f}, max {gap.max():.4f}; "
                f"removal allowance > 0 on {np.mean(np.asarray(removal) > 0):.3f}"
            )
            print(
                f"  on the outcomes: V(t+H) met the bound's event on {seen:,}; the question "
                f"resolved 'no' on {broken:,} of them (a loss beyond the allowance; for '=', "
                f"either way)"
            )
            bs_clim = brier(y, np.full_like(y, y.mean()))
            for name, p in (("model", r), ("held", h)):
                bs = brier(y, p)
                print(
                    f"  Brier {name}: {bs:.6f} (skill vs the sample's rate {1 - bs / bs_clim:.5f})"
                )
            if off.any():
                print(
                    f"  on the violated: yes rate {y[off].mean():.3f}, model said "
                    f"{r[off].mean():.3f}, F's bound {pf[off].mean():.3f}"
                )


def issued(store: Path, cache: Path, horizon: int) -> None:
    """The cached run re-read as `shu backtest` scores it now (module docstring)."""
    from shu.forecast.evaluation.one_distribution import (
        DIST_COLUMNS,
        MODEL_COLUMNS,
        hold_to_bounds,
        read_from_distribution,
    )
    from shu.forecast.evaluation.slice_scores import bounds_effect
    from shu.forecast.evaluation.walk_forward import Walked
    from shu.forecast.questions.registry import READS_DISTRIBUTION

    def load(gain_anchor: bool) -> dict[str, pd.DataFrame]:
        iv = pd.read_parquet(cache / "star_velocity_interval.parquet")
        if MODEL_COLUMNS[0] in iv:  # the interval model's own G, before any anchoring
            iv[DIST_COLUMNS] = iv[MODEL_COLUMNS].to_numpy()
        iv = iv.drop(columns=[c for c in (*MODEL_COLUMNS, "anchor_x", "anchor_cdf") if c in iv])
        walked = [Walked("star_velocity_interval", horizon, iv, [], 0, 0, interval=True)]
        for t in (*READS_DISTRIBUTION, *bounds.BOUNDED):
            path = cache / f"{t}.parquet"
            if not path.exists():
                continue
            p = pd.read_parquet(path)
            if "probability_classifier" in p:  # the model's own answer, after the guard
                p["probability"] = p["probability_classifier"]
            p = p.drop(columns=[c for c in ("probability_classifier", "distribution") if c in p])
            walked.append(Walked(t, horizon, p, [], 0, 0))
        print(f"  templates: {', '.join(w.template for w in walked)}", flush=True)
        t0 = time.perf_counter()
        with open_store(store, read_only=True) as s:
            read_from_distribution(walked, s.con if gain_anchor else None)
            t1 = time.perf_counter()
            hold_to_bounds(s.con, walked)
        print(
            f"  read_from_distribution {t1 - t0:.0f} s, hold_to_bounds "
            f"{time.perf_counter() - t1:.0f} s",
            flush=True,
        )
        return {w.template: w.pred for w in walked if not w.interval}

    runs = {}
    for name, anchored in (("read from F", False), ("issued", True)):
        print(f"{name}: star_gain at <= 28 days an anchor of F: {anchored}", flush=True)
        runs[name] = load(anchored)
    for t, pred in runs["issued"].items():
        if t not in bounds.BOUNDED:  # a velocity question: read from F with or without gain
            y = pred["label"].to_numpy(dtype=float)
            bs_rate = brier_of_rate(y.sum(), len(y))
            print(f"{t}/{horizon}: {len(y):,} scored")
            answers = {"own model": pred["probability_classifier"]}
            answers.update({name: run[t]["probability"] for name, run in runs.items()})
            for name, p in answers.items():
                bs = brier(y, p.to_numpy(dtype=float))
                print(
                    f"  {name:>12}: Brier {bs:.6f}, skill vs the sample's rate "
                    f"{1 - bs / bs_rate:.4f}"
                )
            continue
        y = pred["label"].to_numpy(dtype=float)
        bs_rate = brier_of_rate(y.sum(), len(y))
        bs_clim = brier(y, pred["climatology"].to_numpy(dtype=float))
        print(f"{t}/{horizon}: {len(y):,} scored; bounds {bounds_effect(pred)}")
        answers = {
            "own model": pred["probability_classifier"],
            "read from F": runs["read from F"][t]["probability"],
            "issued": pred["probability"],
        }
        for name, p in answers.items():
            bs = brier(y, p.to_numpy(dtype=float))
            print(
                f"  {name:>12}: Brier {bs:.6f}, skill vs the sample's rate {1 - bs / bs_rate:.4f}, "
                f"vs climatology {1 - bs / bs_clim:.4f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--dist", type=Path)
    ap.add_argument("--questions", type=Path)
    ap.add_argument("--issued", type=Path, help="a cached run to re-read as shu backtest does")
    ap.add_argument("--horizon", type=int, default=30)
    ap.add_argument("--walk", action="store_true", help="run the walk-forward into --questions")
    ap.add_argument("--from", dest="start", type=date.fromisoformat, default=date(2025, 2, 5))
    ap.add_argument("--to", dest="end", type=date.fromisoformat, default=date(2026, 1, 28))
    ap.add_argument(
        "--no-removal", action="store_true", help="r = 0: the bounds as if stars only grew"
    )
    args = ap.parse_args()
    if args.issued:
        issued(args.store, args.issued, args.horizon)
        return
    if args.dist is None or args.questions is None:
        ap.error("--dist and --questions are needed (or --issued)")
    if args.walk:
        walk(args.store, args.start, args.end, args.horizon, args.questions)
    score(args.store, args.dist, args.questions, args.horizon, args.no_removal)


if __name__ == "__main__":
    main()
