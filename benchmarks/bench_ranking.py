"""Benchmark: `shu ingest ranking` of the 7.2M-row ranking table against bare DuckDB's floor.

Each run, in a fresh temporary directory and each in its own process, back to back:

1. floor: `CREATE TABLE s AS SELECT lower(repo) repo, day, max(stars) stars, max(forks) forks
   FROM 'file' GROUP BY ALL` and `CHECKPOINT` into a new DuckDB file (Python + duckdb, start-up
   included; the same floor for both loads);
2. fresh: the whole command `shu ingest ranking FILE --db NEW` (start-up, store creation, load);
3. re-load: the same command again onto that store (nothing changes).

It prints per run and as medians the wall time of each, shu's time over the floor's (targets:
<= 2.0 for both loads), the CPU time (user + system) of each process and its peak
resident memory (target <= 2 GiB), plus the load average: the machine is shared, so
compare the ratios of one run, never figures from different runs.

    .venv/bin/python benchmarks/bench_ranking.py [PATH] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from cli_timing import Timed, load, ratio_table, run_line, shu_command, timed

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared/data/stars/stars_daily.parquet"

FLOOR = (
    "import duckdb, sys\ncon = duckdb.connect(sys.argv[2])\n"
    "con.execute('CREATE TABLE s AS SELECT lower(repo) repo, day, max(stars) stars, "
    "max(forks) forks FROM read_parquet(?) GROUP BY ALL', [sys.argv[1]])\n"
    "con.execute('CHECKPOINT')\ncon.close()"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[Timed]] = {"floor": [], "fresh": [], "re-load": []}
    ingest = [*shu_command(), "ingest", "ranking", str(args.path), "--db"]
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="shu-bench-ranking-") as tmp:
            db = str(Path(tmp) / "shu.duckdb")
            runs["floor"].append(
                timed(
                    [sys.executable, "-c", FLOOR, str(args.path), str(Path(tmp) / "floor.duckdb")]
                )
            )
            runs["fresh"].append(timed([*ingest, db]))
            runs["re-load"].append(timed([*ingest, db]))
        print(run_line(i + 1, runs), flush=True)
    print(f"fresh:   {runs['fresh'][-1].stdout}")
    print(f"re-load: {runs['re-load'][-1].stdout}")
    print(f"medians over {args.runs} runs ({load()} now):")
    print(
        ratio_table(
            [
                ("`shu ingest ranking` into an empty store", runs["fresh"], runs["floor"], "<= 2x"),
                ("the same again (nothing changes)", runs["re-load"], runs["floor"], "<= 2x"),
            ]
        )
    )
    for name, r in runs.items():
        print(
            f"{name}: CPU median {statistics.median(x.cpu_s for x in r):.2f} s, peak RSS max "
            f"{max(x.peak_gib for x in r):.2f} GiB"
        )


if __name__ == "__main__":
    main()
