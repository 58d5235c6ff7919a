"""Benchmark: `shu ingest ranking` of the 7.2M-row ranking table against bare DuckDB's floor.

Each run, in a fresh temporary directory and each in its own process, back to back:

1. floor: `CREATE TABLE s AS SELECT lower(repo) repo, day, max(stars) stars, max(forks) forks
   FROM 'file' GROUP BY ALL` and `CHECKPOINT` into a new DuckDB file (Python + duckdb, start-up
   included; issue 20's definition, the same floor for both loads);
2. fresh: the whole command `shu ingest ranking FILE --db NEW` (start-up, store creation, load);
3. re-load: the same command again onto that store (nothing changes).

It prints per run and as medians the wall time of each, shu's time over the floor's (targets:
<= 2.0 for both loads, issue 20), the CPU time (user + system) of each process and its peak
resident memory (target <= 2 GiB, issue 2), plus the load average: the machine is shared, so
compare the ratios of one run, never figures from different runs.

    .venv/bin/python benchmarks/bench_ranking.py [PATH] [--runs 3]
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

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared/data/stars/stars_daily.parquet"

FLOOR = ("import duckdb, sys\ncon = duckdb.connect(sys.argv[2])\n"
         "con.execute('CREATE TABLE s AS SELECT lower(repo) repo, day, max(stars) stars, "
         "max(forks) forks FROM read_parquet(?) GROUP BY ALL', [sys.argv[1]])\n"
         "con.execute('CHECKPOINT')\ncon.close()")


def shu_command() -> list[str]:
    """The installed `shu` console script beside this interpreter (else `python -m shu`)."""
    script = Path(sys.executable).parent / "shu"
    return [str(script)] if script.exists() else [sys.executable, "-m", "shu"]


def timed(cmd: list[str]) -> tuple[float, float, float, str]:
    """Run `cmd`; (wall s, CPU s, peak RSS GiB, its stdout) of that one child process."""
    env = {**os.environ, "COLUMNS": "300", "SHU_QUIET": "1"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own CPU time and peak RSS
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.read().strip()[-500:]}")
        return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20,
                " ".join(out.read().split()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows: dict[str, list[tuple[float, float, float, str]]] = {"floor": [], "fresh": [],
                                                              "re-load": []}
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="shu-bench-ranking-") as tmp:
            db = str(Path(tmp) / "shu.duckdb")
            rows["floor"].append(timed([sys.executable, "-c", FLOOR, str(args.path),
                                        str(Path(tmp) / "floor.duckdb")]))
            rows["fresh"].append(timed([*shu_command(), "ingest", "ranking", str(args.path),
                                        "--db", db]))
            rows["re-load"].append(timed([*shu_command(), "ingest", "ranking", str(args.path),
                                          "--db", db]))
        floor = rows["floor"][-1][0]
        print(f"run {i + 1}: " + " | ".join(
            f"{name} {r[-1][0]:.2f} s (x{r[-1][0] / floor:.2f}; CPU {r[-1][1]:.2f} s, "
            f"{r[-1][2]:.2f} GiB)" for name, r in rows.items()) +
            f" | load avg {os.getloadavg()[0]:.1f}", flush=True)
    print(f"fresh:   {rows['fresh'][-1][3]}")
    print(f"re-load: {rows['re-load'][-1][3]}")
    print(f"medians over {args.runs} runs ({os.cpu_count()} cores, load average now "
          f"{os.getloadavg()[0]:.1f}):")
    print("| job | shu | floor (same run) | ratio | target |")
    print("|---|---:|---:|---:|---:|")
    for name in ("fresh", "re-load"):
        ratios = [s[0] / f[0] for s, f in zip(rows[name], rows["floor"], strict=True)]
        print(f"| ranking import, {name} | {statistics.median(r[0] for r in rows[name]):.2f} s "
              f"| {statistics.median(r[0] for r in rows['floor']):.2f} s "
              f"| {statistics.median(ratios):.2f}x | <= 2x |")
    for name, r in rows.items():
        print(f"{name}: CPU median {statistics.median(x[1] for x in r):.2f} s, peak RSS max "
              f"{max(x[2] for x in r):.2f} GiB")


if __name__ == "__main__":
    main()
