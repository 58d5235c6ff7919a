"""Benchmark: the fault harness — faults and bad input, measured in one table.

Runs every case of `tests/support/fault_harness.py` (GitHub API faults against the local server,
SIGKILL at random points of real `shu ingest ranking`, `shu ingest github`, `shu signals --full`
and `shu daily` processes, two writers at once) and prints one table: cases tried, survived,
refused with a one-line error, failed, rows lost, rows duplicated and the worst reader wait.

Targets: no case failed; 0 rows lost or duplicated; worst reader wait <= 1 s.

    python benchmarks/fault_harness.py [--kills 2] [--seed 12] [--fast] [--no-daily] [-v]

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
from support.fault_harness import CaseResult, run_harness, summary_table

MAX_READER_WAIT_S = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=2, help="SIGKILLs per command")
    parser.add_argument("--seed", type=int, default=12, help="seed of the kill points")
    parser.add_argument("--fast", action="store_true", help="the fast subset the tests run")
    parser.add_argument("--no-daily", action="store_true", help="skip `shu daily` (Prefect)")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case too")
    args = parser.parse_args()

    def show(r: CaseResult) -> None:
        if args.verbose:
            wait = "" if r.reader_wait_s is None else f" reader {r.reader_wait_s:.3f}s"
            print(
                f"{r.seconds:6.1f}s {r.outcome:8s} [{r.group}] {r.name}{wait}"
                + (f" — {r.detail[:160]}" if r.detail else ""),
                flush=True,
            )

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shu-faults-") as tmp:
        results = run_harness(
            Path(tmp),
            fast=args.fast,
            kills=args.kills,
            seed=args.seed,
            include_daily=not args.no_daily,
            progress=show,
        )
    print(summary_table(results))
    print(f"({time.perf_counter() - t0:.0f} s)")
    waits = [r.reader_wait_s for r in results if r.reader_wait_s is not None]
    missed = (
        any(not r.ok for r in results)
        or any(r.lost or r.duplicated for r in results)
        or (waits and max(waits) > MAX_READER_WAIT_S)
    )
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
