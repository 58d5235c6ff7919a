"""Evaluation: the ROCm adoption templates on the real histories, with wall time.

Builds a store from ../shared/data/history with `shu ingest history` (timed; reused when it
exists), then runs `shu backtest --from 2019-01-01 --to 2026-08-22 --template
rocm_share_reach,rocm_release_mention,rocm_first_commit --horizon 30,90 --estimator logistic
--json --out OUT` as a child process, which merges the ROCm slices into OUT/backtest.json
(keeping the other slices). Prints per slice: scored n, yes count, repositories, base rate,
BSS vs climatology (95% CI) and vs persistence, ECE, high-band hit rate, or the reason it is not
scored; and the backtest's wall time.

Usage:
  .venv/bin/python benchmarks/bench_rocm_backtest.py [--store /tmp/shu-bench/rocm.duckdb]
      [--out docs/forecast]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HISTORY = ROOT.parent / "shared" / "data" / "history"
TEMPLATES = "rocm_share_reach,rocm_release_mention,rocm_first_commit"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/rocm.duckdb"))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "forecast")
    args = parser.parse_args()
    if not HISTORY.is_dir():
        print(f"skipped: {HISTORY} is absent")
        return 0
    shu = str(ROOT / ".venv" / "bin" / "shu")
    if not args.store.exists():
        args.store.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        subprocess.run(
            [shu, "ingest", "history", str(HISTORY), "--db", str(args.store)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"shu ingest history: {time.perf_counter() - t0:.1f} s (38 repositories)")
    t0 = time.perf_counter()
    done = subprocess.run(
        [
            shu,
            "backtest",
            "--from",
            "2019-01-01",
            "--to",
            "2026-08-22",
            "--template",
            TEMPLATES,
            "--horizon",
            "30,90",
            "--estimator",
            "logistic",
            "--json",
            "--out",
            str(args.out),
            "--db",
            str(args.store),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
        return done.returncode
    metrics = json.loads(done.stdout)
    for key in (k for k in metrics["slices"] if k.startswith("rocm_")):
        m = metrics["slices"][key]
        if not m.get("n"):
            print(f"{key}: not scored -- {m.get('status')}")
            continue
        ci = m["ci95"]["bss_climatology"]
        high = next(b for b in m["bands"] if b["band"] == "high")
        print(
            f"{key}: n={m['n']:,} yes={m['n_yes']:,} repos={m['n_repos']} "
            f"base={m['base_rate']:.3f} BSS_clim={m['bss_climatology']:.3f} "
            f"[{ci['low']:.3f}, {ci['high']:.3f}] BSS_pers={m['bss_persistence']:.3f} "
            f"ECE={m['ece']:.3f} high-band right={high['hit_rate']:.3f} (n={high['n']:,}) "
            f"void={m['n_void']:,} refits skipped={m['refits_skipped']}"
        )
    print(f"backtest wall time: {wall:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
