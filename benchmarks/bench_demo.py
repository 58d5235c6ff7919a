"""Wall time of `shu demo` on a fresh folder, Prefect start-up included (target <= 60 s).

Runs the command as a user would, in a fresh PREFECT_HOME (ephemeral API server), N times, and
prints each wall time and the median.

Usage: .venv/bin/python benchmarks/bench_demo.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times = []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "PREFECT_HOME": str(Path(tmp) / "prefect")}
            env.pop("PREFECT_API_URL", None)
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "shu", "demo", "--out", str(Path(tmp) / "demo")],
                env=env,
                check=True,
                capture_output=True,
                cwd=tmp,
            )
            times.append(time.perf_counter() - t0)
            print(f"run {i + 1}: {times[-1]:.1f} s", flush=True)
    print(
        f"shu demo wall time: median {statistics.median(times):.1f} s over {len(times)} runs "
        f"(min {min(times):.1f}, max {max(times):.1f})"
    )


if __name__ == "__main__":
    main()
