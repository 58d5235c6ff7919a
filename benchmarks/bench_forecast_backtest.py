"""Evaluation: the issue-5 backtest targets on the real star history, with wall time and memory.

Runs `shu backtest --from 2020-01-01 --to 2026-01-15 --horizon 30 --json --out OUT` as a child
process on a store built from ../shared/data/stars (ranking importer + `refresh_signals`, built
once and reused; the build is not part of the timed backtest), then prints per template:
n scored, repositories, BSS vs climatology with its block-bootstrap 95% interval, BSS vs
persistence, ECE, the high band's hit rate, and the whole run's wall time and peak RSS (from the
child's rusage), each with its target and PASS/FAIL.
Targets: n >= 10,000 over >= 500 repositories; BSS_clim >= 0.15 with lower bound > 0.05;
BSS_pers >= 0; ECE <= 0.03; high band right >= 80%; <= 600 s and <= 4 GiB.

Usage:
  .venv/bin/python benchmarks/bench_forecast_backtest.py [--store /tmp/shu-bench/forecast.duckdb]
      [--out docs/forecast] [--estimator hgb] [--refit-weeks 8]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARQUET = ROOT.parent / "shared" / "data" / "stars" / "stars_daily.parquet"


def build_store(path: Path) -> None:
    from shu.signals import refresh_signals
    from shu.sources.ranking import import_ranking
    from shu.store import open_store

    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open_store(path) as store:
        import_ranking(store, PARQUET)
        refresh_signals(store, full=True)
    print(f"built {path} in {time.perf_counter() - t0:.0f} s (not part of the backtest)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/forecast.duckdb"))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "forecast")
    parser.add_argument("--estimator", default="hgb")
    parser.add_argument("--refit-weeks", type=int, default=8)
    args = parser.parse_args()
    if not PARQUET.exists():
        print(f"skipped: {PARQUET} is absent")
        return 0
    if not args.store.exists():
        build_store(args.store)
    command = [str(ROOT / ".venv" / "bin" / "shu"), "backtest", "--from", "2020-01-01",
               "--to", "2026-01-15", "--horizon", "30", "--template",
               "star_velocity_up,star_accel_reach", "--estimator", args.estimator,
               "--refit-weeks", str(args.refit_weeks), "--json", "--out", str(args.out),
               "--db", str(args.store)]
    print("$ " + " ".join(command), flush=True)
    t0 = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - t0
    peak_gib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 / 1024
    if done.returncode != 0:  # its stderr (progress and the error) went to ours
        return done.returncode
    metrics = json.loads(done.stdout)
    ok = True

    def check(label: str, value: float, passed: bool, target: str) -> None:
        nonlocal ok
        ok &= passed
        print(f"  {label:<28} {value:>12,.4f}   target {target:<22} "
              f"{'PASS' if passed else 'FAIL'}")

    for key, m in metrics["slices"].items():
        print(f"{key}: base rate {m['base_rate']:.3f}, Brier {m['brier']:.4f} "
              f"(climatology {m['brier_climatology']:.4f}, persistence "
              f"{m['brier_persistence']:.4f}), void {m['n_void']:,}")
        ci = m["ci95"]["bss_climatology"]
        high = next(b for b in m["bands"] if b["band"] == "high")
        check("n scored", m["n"], m["n"] >= 10_000, ">= 10,000")
        check("repositories", m["n_repos"], m["n_repos"] >= 500, ">= 500")
        check("BSS vs climatology", m["bss_climatology"], m["bss_climatology"] >= 0.15,
              ">= 0.15")
        check("  bootstrap 95% lower", ci["low"], ci["low"] > 0.05, "> 0.05")
        check("BSS vs persistence", m["bss_persistence"], m["bss_persistence"] >= 0, ">= 0")
        check("ECE (equal-count)", m["ece"], m["ece"] <= 0.03, "<= 0.03")
        check(f"high band right (n={high['n']:,})", high["hit_rate"], high["hit_rate"] >= 0.8,
              ">= 0.80")
    print("whole backtest:")
    check("wall time, s", wall, wall <= 600, "<= 600")
    check("peak RSS, GiB", peak_gib, peak_gib <= 4, "<= 4")
    print(f"wrote {args.out / 'backtest.json'} and {args.out / 'reliability.png'}")
    print("ALL TARGETS MET" if ok else "SOME TARGETS MISSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
