"""Evaluation: the one predictive distribution of the 28-day velocity (issue 27's targets), on a
walk-forward of the four templates it joins, against the models read alone in the same run.

Runs the walk-forward backtest (`shu.forecast.evaluation.backtest.run_backtest`, the code
`shu backtest` runs) of star_velocity_interval, star_velocity_up, star_velocity_level and
star_breakout at 30 days over weekly origins --from..--to (default 2025-02-05..2026-01-28: the
walk-forward's last 12 months whose outcomes the star data resolves), refitted every 8 weeks;
the run reads the yes/no answers and the interval from one distribution per (repository,
origin) and keeps each model's own answers beside them (`probability_classifier`, the
interval model's quantiles `g*`). Caches every prediction under --cache (Parquet per template,
plus backtest.json) so `--score-only` re-prints from it. Prints, after ("one distribution")
and before (each model alone):

- coherence: for every yes/no forecast read from a distribution, |p - P(V > x)| read from the
  stored distribution (its quantiles at 105 levels and its anchors); the same from the seven
  stored quantiles alone, linear between them (the issue's outside check: share above 0.05),
  and the share on opposite sides of 50% (median vs answer, 0.45/0.55 and a strict line, per
  velocity band); monotone quantiles;
- Brier skill per template overall (against climatology) and per velocity band against that
  band's own climatology;
- the interval: CRPS skill against persistence, 80% coverage per band, PIT deciles per band
  (plain, and randomised for a variable on the 1/28 lattice);
- the radar (star_breakout): precision@10/20/50 and, per origin, the mean stated probability of
  the top 10 and top 20 against the observed rate, with and without the tail shrink
  (`models.tail`).

`--reanchor DIR` re-reads a cached run through today's `calibration.distribution` (from each
model's own answers and the interval model's quantiles kept in the cache: the same inputs
`one_distribution.read_from_distribution` bends), writes the result as a cache under DIR with the
interval slice's scores recomputed, and prints it: a change to how the distribution is built is
measured in minutes instead of a new walk-forward.

`--since DAY` scores only the cached run's origins from DAY on (every slice's scores recomputed
on them, written beside the cache as `<cache>-since-DAY`): the whole walk-forward's last 12
months out of the same run.

Usage:
  .venv/bin/python benchmarks/bench_distribution.py --store /tmp/stars.duckdb
      [--from 2025-02-05] [--to 2026-01-28] [--cache /tmp/shu-bench/distribution] [--score-only]
      [--reanchor /tmp/shu-bench/distribution-reanchored] [--since 2025-02-05]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ("star_velocity_interval", "star_velocity_up", "star_velocity_level", "star_breakout")
ASKS = TEMPLATES[1:]


def walk(store: Path, start: date, end: date, cache: Path) -> None:
    """Run the walk-forward and cache its predictions and metrics."""
    from shu.forecast.evaluation.backtest import BacktestConfig, metrics_json, run_backtest
    from shu.store import open_store

    cache.mkdir(parents=True, exist_ok=True)
    config = BacktestConfig(start, end, TEMPLATES, (30,))
    t0 = time.perf_counter()
    with open_store(store, read_only=True) as s:
        s.con.execute("SET memory_limit='6GB'")
        s.con.execute("SET preserve_insertion_order=false")
        results = run_backtest(s.con, config, log=lambda m: print(m, flush=True))
    for r in results:
        r.predictions.to_parquet(cache / f"{r.template}.parquet", index=False)
    metrics = metrics_json(results, config, time.perf_counter() - t0)
    (cache / "backtest.json").write_text(json.dumps(metrics, default=str), encoding="utf-8")


def reanchor(cache: Path, out: Path) -> None:
    """Re-read the cached run through today's distribution code into the cache `out`."""
    from shu.forecast.evaluation.one_distribution import (
        DIST_COLUMNS,
        MODEL_COLUMNS,
        read_from_distribution,
    )
    from shu.forecast.evaluation.walk_forward import Walked

    out.mkdir(parents=True, exist_ok=True)
    iv = pd.read_parquet(cache / "star_velocity_interval.parquet")
    iv[DIST_COLUMNS] = iv[MODEL_COLUMNS].to_numpy()
    iv = iv.drop(columns=[*MODEL_COLUMNS, "anchor_x", "anchor_cdf"])
    walked = [Walked(TEMPLATES[0], 30, iv, [], 0, 0, interval=True)]
    before = {}
    for t in ASKS:
        p = pd.read_parquet(cache / f"{t}.parquet")
        before[t] = p["probability"].to_numpy(dtype=float)
        p["probability"] = p["probability_classifier"]
        walked.append(Walked(t, 30, p.drop(columns=["probability_classifier"]), [], 0, 0))
    read_from_distribution(walked)
    for w in walked:
        w.pred.to_parquet(out / f"{w.template}.parquet", index=False)
        if w.template in before:
            moved = np.abs(w.pred["probability"].to_numpy(dtype=float) - before[w.template])
            print(f"{w.template}: answers moved by at most {moved.max():.2e} against the cache")
    metrics = json.loads((cache / "backtest.json").read_text(encoding="utf-8"))
    _rescore_interval(metrics["slices"]["star_velocity_interval/30"], walked[0].pred)
    (out / "backtest.json").write_text(json.dumps(metrics, default=str), encoding="utf-8")


def since(cache: Path, day: date, out: Path) -> None:
    """The cached run's origins from `day` on, as a cache under `out` with every slice's scores
    recomputed on them (the walk-forward's last 12 months, out of the whole run)."""
    from shu.forecast.evaluation.slice_scores import score_binary
    from shu.forecast.evaluation.walk_forward import BacktestConfig, Walked

    out.mkdir(parents=True, exist_ok=True)
    metrics = json.loads((cache / "backtest.json").read_text(encoding="utf-8"))
    config = BacktestConfig(day, date.fromisoformat(metrics["config"]["end"]), TEMPLATES, (30,))
    for t in TEMPLATES:
        p = pd.read_parquet(cache / f"{t}.parquet")
        p = p[pd.to_datetime(p["origin"]) >= pd.Timestamp(day)].reset_index(drop=True)
        p.to_parquet(out / f"{t}.parquet", index=False)
        if t == TEMPLATES[0]:
            _rescore_interval(metrics["slices"][f"{t}/30"], p)
        else:
            walked = Walked(t, 30, p, [], 0, len(p))
            metrics["slices"][f"{t}/30"] = score_binary(walked, config).metrics
    (out / "backtest.json").write_text(json.dumps(metrics, default=str), encoding="utf-8")


def _rescore_interval(m: dict, pred: pd.DataFrame) -> None:
    """The interval slice's scores (`m`) recomputed on `pred`: CRPS skill with its interval,
    coverage overall and per velocity band."""
    from shu.forecast.evaluation import interval_scores
    from shu.forecast.evaluation.star_backtest import BASELINE_COLUMNS
    from shu.forecast.models.interval import QUANTILES, VELOCITY_BANDS, velocity_band

    model_q = pred[[f"q{q}" for q in QUANTILES]].to_numpy()
    baseline_q = pred[BASELINE_COLUMNS].to_numpy()
    observed = pred["observed_value"].to_numpy()
    m.update(interval_scores.interval_metrics(observed, model_q, baseline_q))
    blocks = (pred["repo"] + "|" + pd.to_datetime(pred["origin"]).dt.strftime("%Y-%m")).to_numpy()
    m["ci95"]["crps_skill_persistence"] = interval_scores.crps_skill_ci(
        observed, model_q, baseline_q, blocks
    )
    if "g0.5" in pred:
        g = pred[[f"g{q}" for q in QUANTILES]].to_numpy()
        m.setdefault("distribution", {})["interval_model"] = {
            k: v
            for k, v in interval_scores.interval_metrics(observed, g, baseline_q).items()
            if k in ("coverage", "crps", "crps_skill_persistence")
        }
    band = velocity_band(pred["velocity_28d"].to_numpy())
    m["coverage_by_velocity"] = {
        label: {
            "n": int((band == k).sum()),
            "coverage": interval_scores.coverage(observed[band == k], model_q[band == k]),
        }
        for k, label in enumerate(VELOCITY_BANDS)
        if (band == k).any()
    }


def _outside_p_above(q7: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(V > x) from seven quantiles, linear between them (held at 2.5%/97.5% beyond)."""
    from shu.forecast.models.interval import QUANTILES

    return np.array([1 - np.interp(xi, qi, QUANTILES) for qi, xi in zip(q7, x, strict=True)])


LATTICE = 1.0 / 28.0  # velocity_28d takes the values (whole stars) / 28


def _pit(
    levels: np.ndarray, q: np.ndarray, ax: list, ac: list, observed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per outcome y: F(y) (the plain PIT) and the randomised PIT of a variable on the 1/28
    lattice, uniform between F(y - 1/28) = P(V < y) and F(y) = P(V <= y) (Czado, Gneiting and
    Held 2009): the plain PIT of an outcome that repeats today's value, common below 1
    star/day, sits at the top of its step."""
    hi, lo, u = pit_parts(levels, q, ax, ac, observed)
    return hi, lo + u * (hi - lo)


def pit_parts(
    levels: np.ndarray, q: np.ndarray, ax: list, ac: list, observed: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per outcome y: P(V <= y), P(V < y) and the uniform draw that places the randomised PIT
    between them (seeded, so every reading of one cache draws the same)."""
    from shu.forecast.calibration import distribution as dist

    hi = np.array(
        [
            dist.cdf(levels, q[i], np.asarray(ax[i]), np.asarray(ac[i]), observed[i])
            for i in range(len(observed))
        ]
    )
    lo = np.array(
        [
            dist.cdf(levels, q[i], np.asarray(ax[i]), np.asarray(ac[i]), observed[i] - LATTICE)
            for i in range(len(observed))
        ]
    )
    return hi, lo, np.random.default_rng(0).uniform(size=len(observed))


def score(cache: Path) -> None:
    """Print every figure from the cached run."""
    from shu.forecast.calibration import distribution as dist
    from shu.forecast.models.interval import DIST_LEVELS, QUANTILES, VELOCITY_BANDS, velocity_band

    metrics = json.loads((cache / "backtest.json").read_text(encoding="utf-8"))
    sl = metrics["slices"]
    iv = pd.read_parquet(cache / "star_velocity_interval.parquet")
    d_cols = [f"d{a}" for a in DIST_LEVELS]
    g_cols = [f"g{a}" for a in DIST_LEVELS]
    q7 = [f"q{q}" for q in QUANTILES]
    g7 = [f"g{q}" for q in QUANTILES]
    origins = sorted(iv["origin"].unique())
    print(
        f"walk-forward {pd.Timestamp(origins[0]).date()}..{pd.Timestamp(origins[-1]).date()}: "
        f"{len(origins)} weekly origins, 30 days, runtime {metrics['runtime_s']:.0f} s"
    )
    fq = iv[d_cols].to_numpy()
    print(f"\nquantiles monotone: {bool(np.all(np.diff(fq, axis=1) >= -1e-9))} ({len(iv):,} rows)")
    key = pd.MultiIndex.from_arrays([iv["repo"], iv["origin"]])

    print("\n== coherence (yes/no answer vs P(V > x) of the same (repo, origin)) ==")
    for t in ASKS:
        p = pd.read_parquet(cache / f"{t}.parquet")
        at = key.get_indexer(pd.MultiIndex.from_arrays([p["repo"], p["origin"]]))
        hit = at >= 0
        rows, x = at[hit], p["threshold"].to_numpy(dtype=float)[hit]
        after = p["probability"].to_numpy(dtype=float)[hit]
        before = p["probability_classifier"].to_numpy(dtype=float)[hit]
        stored = np.array(
            [
                1
                - dist.cdf(
                    DIST_LEVELS,
                    fq[i],
                    np.asarray(iv["anchor_x"].iloc[i]),
                    np.asarray(iv["anchor_cdf"].iloc[i]),
                    xi,
                )
                for i, xi in zip(rows, x, strict=True)
            ]
        )
        out_after = _outside_p_above(iv[q7].to_numpy()[rows], x)
        out_before = _outside_p_above(iv[g7].to_numpy()[rows], x)
        med_after, med_before = iv["q0.5"].to_numpy()[rows], iv["g0.5"].to_numpy()[rows]
        band = velocity_band(p["velocity_28d"].to_numpy()[hit])

        def opposite(
            prob: np.ndarray, med: np.ndarray, lo: float, hi: float, x: np.ndarray = x
        ) -> np.ndarray:
            return ((med > x) & (prob < lo)) | ((med < x) & (prob > hi))

        gap = np.abs(after - stored)
        print(
            f"{t}: {hit.sum():,} of {len(p):,} read from a distribution "
            f"({(~hit).sum():,} without an interval forecast keep their own answer)\n"
            f"  stored distribution: max |p - P_F(>x)| {gap.max():.2e}, share > 0.02 "
            f"{(gap > 0.02).mean():.4f}\n"
            f"  seven quantiles, linear: share |gap| > 0.05 after "
            f"{np.mean(np.abs(after - out_after) > 0.05):.3f} "
            f"({int(np.sum(np.abs(after - out_after) > 0.05)):,} pairs)"
            f" / before {np.mean(np.abs(before - out_before) > 0.05):.3f}; "
            f"opposite sides (0.45/0.55) after {opposite(after, med_after, 0.45, 0.55).mean():.4f}"
            f" / before {opposite(before, med_before, 0.45, 0.55).mean():.4f}"
        )
        side_after = ((med_after > x) & (after < 0.5)) | ((med_after < x) & (after > 0.5))
        side_before = ((med_before > x) & (before < 0.5)) | ((med_before < x) & (before > 0.5))
        strict = " ".join(
            f"{name} {side_after[band == k].mean():.3f}/{side_before[band == k].mean():.3f}"
            for k, name in enumerate(VELOCITY_BANDS)
            if (band == k).any()
        )
        print(f"  strict 50% line per band, after/before: {strict}")

    print("\n== Brier skill: overall vs climatology; per band vs the band's own climatology ==")
    for t in ASKS:
        m = sl[f"{t}/30"]
        ci = m["ci95"]["bss_climatology"]
        before = m.get("distribution", {}).get("bss_climatology_classifier", float("nan"))
        print(
            f"{t}/30: n {m['n']:,}  BSS after {m['bss_climatology']:.4f} "
            f"[{ci['low']:.4f}, {ci['high']:.4f}]  before {before:.4f}  ECE {m['ece']:.4f}; "
            f"moved by pooling {m.get('distribution', {}).get('moved', 0):,}"
        )
        for name, b in m["by_velocity"].items():
            print(
                f"  {name:>5}: n {b['n']:>7,}  rate {b['observed_rate']:.3f}  BSS(band clim) "
                f"after {b['bss_band_climatology']:.4f}  before "
                f"{b.get('bss_band_climatology_classifier', float('nan')):.4f}"
            )

    print("\n== interval: CRPS skill, 80% coverage and PIT deciles per band ==")
    m = sl["star_velocity_interval/30"]
    g = m["distribution"]["interval_model"]
    print(
        f"CRPS skill vs persistence: after {m['crps_skill_persistence']:.4f} "
        f"[{m['ci95']['crps_skill_persistence']['low']:.4f}, "
        f"{m['ci95']['crps_skill_persistence']['high']:.4f}]  before "
        f"{g['crps_skill_persistence']:.4f}; coverage 50/80/95 after "
        f"{m['coverage']['0.5']:.3f}/{m['coverage']['0.8']:.3f}/{m['coverage']['0.95']:.3f} "
        f"before {g['coverage']['0.5']:.3f}/{g['coverage']['0.8']:.3f}/{g['coverage']['0.95']:.3f}"
    )
    observed = iv["observed_value"].to_numpy(dtype=float)
    band = velocity_band(iv["velocity_28d"].to_numpy())
    pit_f, rpit_f = _pit(DIST_LEVELS, fq, list(iv["anchor_x"]), list(iv["anchor_cdf"]), observed)
    empty = [np.array([])] * len(iv)
    pit_g, rpit_g = _pit(DIST_LEVELS, iv[g_cols].to_numpy(), empty, empty, observed)
    lo, hi = iv["q0.1"].to_numpy(), iv["q0.9"].to_numpy()
    glo, ghi = iv["g0.1"].to_numpy(), iv["g0.9"].to_numpy()
    for k, name in enumerate(VELOCITY_BANDS):
        s = band == k
        if not s.any():
            continue
        cov = np.mean((observed[s] >= lo[s]) & (observed[s] <= hi[s]))
        gcov = np.mean((observed[s] >= glo[s]) & (observed[s] <= ghi[s]))
        print(f"  {name:>5}: n {s.sum():>7,}  80% coverage after {cov:.3f} before {gcov:.3f}")
        for label, pit in (
            ("PIT after          ", pit_f),
            ("PIT before         ", pit_g),
            ("random. PIT after  ", rpit_f),
            ("random. PIT before ", rpit_g),
        ):
            dec = np.histogram(np.clip(pit[s], 0, 1 - 1e-12), bins=10, range=(0, 1))[0] / s.sum()
            print(
                f"         {label}{' '.join(f'{v:.3f}' for v in dec)} "
                f"(range {dec.min():.3f}-{dec.max():.3f})"
            )

    print("\n== radar (star_breakout/30) ==")
    b = pd.read_parquet(cache / "star_breakout.parquet")
    m = sl["star_breakout/30"]
    r = m["ranking"]["model"]
    for k in (10, 20, 50):
        c = r[f"precision_at_{k}"]
        print(f"  precision@{k}: {c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]")
    # probability: read from the distribution (tail shrink, guard, pooling); _classifier: the
    # breakout model's guarded answer before pooling; _untailed: before the tail shrink (and
    # before the guard)
    for col in [
        c for c in ("probability", "probability_classifier", "probability_untailed") if c in b
    ]:
        for k in (10, 20):
            top = b.sort_values([col, "repo"], ascending=[False, True]).groupby("origin").head(k)
            per = top.groupby("origin").agg(said=(col, "mean"), seen=("label", "mean"))
            print(
                f"  top {k} by {col}: said {per['said'].mean():.3f}, came true "
                f"{per['seen'].mean():.3f} over {len(per)} origins"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/forecast.duckdb"))
    parser.add_argument("--from", dest="start", default="2025-02-05")
    parser.add_argument("--to", dest="end", default="2026-01-28")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/shu-bench/distribution"))
    parser.add_argument("--score-only", action="store_true")
    parser.add_argument("--reanchor", type=Path, help="re-read --cache into this cache, score it")
    parser.add_argument(
        "--since", type=date.fromisoformat, help="score only --cache's origins from this day on"
    )
    args = parser.parse_args()
    if args.since:
        sliced = args.cache.with_name(f"{args.cache.name}-since-{args.since}")
        since(args.cache, args.since, sliced)
        score(sliced)
        return 0
    if args.reanchor:
        reanchor(args.cache, args.reanchor)
        score(args.reanchor)
        return 0
    if not args.score_only:
        if not args.store.exists():
            print(
                f"no store at {args.store}: build one as docs/forecast/backtest.md says "
                "(shu ingest ranking, then shu signals --full)",
                file=sys.stderr,
            )
            return 2
        walk(args.store, date.fromisoformat(args.start), date.fromisoformat(args.end), args.cache)
    score(args.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
