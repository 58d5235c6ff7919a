"""Wall time of `shu demo` on a fresh folder, Prefect start-up included (target <= 45 s on the
2-core machine when it is quiet).

Runs the command as a user would, in a fresh folder and PREFECT_HOME (ephemeral API server), N
times, and prints each run's wall time, the CPU time it used (user + system, all its processes)
and the load average around it (the machine is shared: a run at load 8 says little about a quiet
one), then the median; with --phases, the demo's own timeline of the last run (its "[ t s]"
lines: backfill, training, each replayed day, the daily flow).

Usage: .venv/bin/python benchmarks/bench_demo.py [--runs 3] [--phases]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phases", action="store_true", help="print the last run's timeline")
    args = parser.parse_args()
    times, stdout = [], ""
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "PREFECT_HOME": str(Path(tmp) / "prefect")}
            env.pop("PREFECT_API_URL", None)
            load = os.getloadavg()[0]
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "shu", "demo", "--out", str(Path(tmp) / "demo")],
                env=env,
                check=True,
                capture_output=True,
                text=True,
                cwd=tmp,
            )
            times.append(time.perf_counter() - t0)
            cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
            stdout = run.stdout
            warnings = [line for line in run.stderr.splitlines() if "Warning" in line]
            print(
                f"run {i + 1}: {times[-1]:.1f} s wall, {cpu:.1f} s CPU, load {load:.1f} -> "
                f"{os.getloadavg()[0]:.1f}, {len(warnings)} warning lines",
                flush=True,
            )
    print(
        f"shu demo wall time: median {statistics.median(times):.1f} s over {len(times)} runs "
        f"(min {min(times):.1f}, max {max(times):.1f})"
    )
    if args.phases:
        for line in stdout.splitlines():
            if re.match(r"^\[\s*[\d.]+ s\]", line):
                print("  " + line[:110])


if __name__ == "__main__":
    main()
