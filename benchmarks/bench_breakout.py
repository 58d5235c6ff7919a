"""Evaluation: the breakout radar (issue 19) on the last 11 months the star history resolves,
beside the momentum ranking computed in the same run, with wall time and memory.

Runs `shu backtest --template star_breakout --horizon 30 --from 2025-03-01 --to 2026-01-31
--json [--predictions PATH]` as a child process on a store built from ../shared/data/stars
(ranking importer + `refresh_signals`, built once and reused; the build is not timed): weekly
origins over every repository in the store, refitted every 8 weeks on outcomes known before each
refit. Prints, for the model and for momentum (velocity_7d - velocity_28d on the origin):
precision@10/20/50 per origin averaged over origins with their 95% intervals over origins, and
the model's lead over momentum with its paired interval; then the Brier score, Brier skill
against the base rate known at each origin (trailing year of resolved questions) with its
block-bootstrap interval, skill against persistence, ECE; the repositories and breakouts per
origin. Targets (issue 19): precision@20 >= 0.08 and Brier skill > 0, each PASS/FAIL.

Usage:
  .venv/bin/python benchmarks/bench_breakout.py [--store /tmp/shu-bench/forecast.duckdb]
      [--predictions /tmp/breakout.parquet] [--from 2025-03-01] [--to 2026-01-31]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARQUET = ROOT.parent / "shared" / "data" / "stars" / "stars_daily.parquet"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_forecast_backtest import build_store, run_backtest  # noqa: E402  (shared recipes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/forecast.duckdb"))
    parser.add_argument("--predictions", type=Path, default=None)
    parser.add_argument("--from", dest="start", default="2025-03-01")
    parser.add_argument("--to", dest="end", default="2026-01-31")
    args = parser.parse_args()
    if not PARQUET.exists():
        print(f"skipped: {PARQUET} is absent")
        return 0
    if not args.store.exists():
        build_store(args.store)
    command = [
        str(ROOT / ".venv" / "bin" / "shu"),
        "backtest",
        "--template",
        "star_breakout",
        "--horizon",
        "30",
        "--from",
        args.start,
        "--to",
        args.end,
        "--json",
        "--db",
        str(args.store),
    ]
    if args.predictions:
        command += ["--predictions", str(args.predictions)]
    metrics, wall, peak_gib = run_backtest(command)
    if metrics is None:
        return 1
    m = metrics["slices"]["star_breakout/30"]
    ranked = m["ranking"]
    print(
        f"star_breakout/30, origins {args.start}..{args.end}: {ranked['n_origins']} weekly "
        f"origins, {ranked['rows_per_origin']:,.0f} repositories and "
        f"{ranked['events_per_origin']:.1f} breakouts per origin (base rate "
        f"{m['base_rate']:.4f}), {m['n']:,} scored, {m['n_void']:,} void"
    )

    def cell(c: dict) -> str:
        return f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"

    ks = [int(k.rsplit("_", 1)[1]) for k in ranked["model"] if k.startswith("precision_at_")]
    print(f"  {'':<22}" + "".join(f"{f'precision@{k} [95%]':<26}" for k in ks))
    for name in ("model", "momentum"):
        print(
            f"  {name:<22}" + "".join(f"{cell(ranked[name][f'precision_at_{k}']):<26}" for k in ks)
        )
    print(
        f"  {'model - momentum':<22}"
        + "".join(f"{cell(ranked['model'][f'lead_over_momentum_at_{k}']):<26}" for k in ks)
    )
    ci = m["ci95"]["bss_climatology"]
    print(
        f"  Brier {m['brier']:.5f} (base rate known at the origin {m['brier_climatology']:.5f}, "
        f"persistence {m['brier_persistence']:.5f}); skill vs base rate "
        f"{m['bss_climatology']:.4f} [{ci['low']:.4f}, {ci['high']:.4f}], vs persistence "
        f"{m['bss_persistence']:.4f}; ECE {m['ece']:.4f}"
    )
    p20 = ranked["model"]["precision_at_20"]["mean"]
    checks = [
        ("precision@20 >= 0.08", p20 >= 0.08),
        ("Brier skill vs base rate > 0", m["bss_climatology"] > 0),
    ]
    for label, passed in checks:
        print(f"  {label:<32} {'PASS' if passed else 'FAIL'}")
    print(f"whole backtest: {wall:.0f} s wall, peak RSS {peak_gib:.2f} GiB")
    print("ALL TARGETS MET" if all(p for _, p in checks) else "SOME TARGETS MISSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
