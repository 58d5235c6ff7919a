"""Benchmark: `shu ingest gharchive` against bare DuckDB's floor on the same hourly files.

Generates GH Archive hourly files in the real event schema once
(`tests/support/gharchive_files.py`; default 1,200,000 events over 48 hours and 20,000
repositories; kept under --dir for later runs), then each run, each in its own
process, back to back:

1. floor: `read_json` of the hourly files with columns `type`, `repo STRUCT(name)`,
   `created_at`, counting WatchEvents per repository and day (Python + duckdb, start-up
   included; nothing written);
2. shu: the whole command `shu ingest gharchive DIR --db STORE` (start-up, every table,
   ingest_log, the fold into stars_daily) onto a store created beforehand, outside the timing
   (a user's store exists; creating one is not GH Archive's cost).

It checks that shu's stars given equal the floor's count, and prints per run and as medians
both wall times and their ratio (target <= 1.5x at 1M events and more), each
process's CPU time and peak memory, and the throughput: events/s of wall time and events per
CPU-second (per core). The machine is shared: compare the ratios of one run.

With --dask it also runs the daily flow's fan-out (`run_gharchive_flow`, SHU_TASK_RUNNER=dask on
a LocalCluster of --workers processes; Prefect's ephemeral server and the cluster's start-up
included) once onto a fresh store and prints its wall time and events/s (the flow's own
figure, from its first file to its last write, is in its summary line).

    .venv/bin/python benchmarks/bench_gharchive.py [--events 1200000] [--days 2] [--runs 3]
    .venv/bin/python benchmarks/bench_gharchive.py --events 10000000 --days 2 --runs 1 --dask
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import duckdb
from cli_timing import Timed, load, ratio_table, run_line, shu_command, timed

FLOOR = """
import duckdb, glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/*.json.gz"))
duckdb.execute("SET enable_progress_bar = false")
rows = duckdb.sql(
    "SELECT repo.name AS repo, CAST(created_at AS DATE) AS day, count(*) AS stars "
    "FROM read_json($f, columns = {'type': 'VARCHAR', 'repo': 'STRUCT(name VARCHAR)', "
    "'created_at': 'TIMESTAMP'}, format = 'newline_delimited') "
    "WHERE type = 'WatchEvent' GROUP BY ALL", params={"f": files}).fetchall()
print(json.dumps({"stars": sum(r[2] for r in rows)}))
"""
STARS_ADDED_SQL = "SELECT sum(stars_added) FROM stars_added_daily"  # every star the run loaded
CREATE_STORE = "import sys; from shu.store import open_store; open_store(sys.argv[1]).close()"
DASK_FLOW = """
import json, sys
from shu.flows.ingest import run_gharchive_flow
result = run_gharchive_flow(sys.argv[1], [sys.argv[2]], {"task_runner": "dask", "aliases": {},
                            "dask_workers": int(sys.argv[3])})
print(json.dumps({"ok": result["ok"], "message": result["message"],
                  "workers": len(result["workers"]), "batches": result["batches"]}))
"""


def hourly_files(where: Path, events: int, days: int, repos: int) -> Path:
    """The directory of generated hourly files (made once; reused when complete)."""
    hours = where / f"{events}-events-{days}-days-{repos}-repos"
    if len(list(hours.glob("*.json.gz"))) != 24 * days:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
        from support.gharchive_files import generate_days

        t0 = time.perf_counter()
        generate_days(
            hours, date(2026, 1, 15), days, events // days, repos, processes=2, count_truth=False
        )
        print(
            f"generated {events:,} events in {24 * days} hourly files in "
            f"{time.perf_counter() - t0:.0f} s"
        )
    return hours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_200_000, help="events in all")
    parser.add_argument("--days", type=int, default=2, help="days of 24 hourly files")
    parser.add_argument("--repos", type=int, default=20_000, help="distinct repositories")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "shu-bench-gha",
        help="where the generated files are kept",
    )
    parser.add_argument("--dask", action="store_true", help="also time the Dask fan-out flow")
    parser.add_argument("--workers", type=int, default=2, help="Dask workers (with --dask)")
    args = parser.parse_args()
    hours = hourly_files(args.dir, args.events, args.days, args.repos)
    size = sum(f.stat().st_size for f in hours.glob("*.json.gz"))
    print(
        f"files: {24 * args.days} hourly .json.gz, {size / 1e6:,.0f} MB compressed, "
        f"{args.events:,} events"
    )
    runs: dict[str, list[Timed]] = {"floor": [], "shu": []}
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="shu-bench-gha-") as tmp:
            db = str(Path(tmp) / "shu.duckdb")
            timed([sys.executable, "-c", CREATE_STORE, db])
            runs["floor"].append(timed([sys.executable, "-c", FLOOR, str(hours)]))
            runs["shu"].append(
                timed([*shu_command(), "ingest", "gharchive", str(hours), "--db", db])
            )
            with duckdb.connect(db, read_only=True) as con:
                stars = con.execute("SELECT sum(stars_added) FROM stars_added_daily").fetchall()[0][
                    0
                ]
        expected = json.loads(runs["floor"][-1].stdout)["stars"]
        if stars != expected:
            sys.exit(f"shu counted {stars} stars given, the floor {expected}")
        print(run_line(i + 1, runs), flush=True)
    print(f"shu: {runs['shu'][-1].stdout}")
    print(f"medians over {args.runs} runs ({load()} now); stars given equal the floor's:")
    print(
        ratio_table(
            [
                (
                    f"`shu ingest gharchive` of {24 * args.days} hourly files, "
                    f"{args.events / 1e6:.1f}M events",
                    runs["shu"],
                    runs["floor"],
                    "<= 1.5x",
                )
            ]
        )
    )
    for name, r in runs.items():
        wall = statistics.median(x.wall_s for x in r)
        cpu = statistics.median(x.cpu_s for x in r)
        print(
            f"{name}: {args.events / wall:,.0f} events/s of wall time, "
            f"{args.events / cpu:,.0f} events per CPU-second, CPU median {cpu:.2f} s, "
            f"peak RSS max {max(x.peak_gib for x in r):.2f} GiB"
        )
    if args.dask:
        dask_flow(hours, args.events, args.workers)


def dask_flow(hours: Path, events: int, workers: int) -> None:
    """The fan-out flow on a LocalCluster of `workers` processes, once, onto a fresh store."""
    with tempfile.TemporaryDirectory(prefix="shu-bench-gha-dask-") as tmp:
        db = str(Path(tmp) / "shu.duckdb")
        timed([sys.executable, "-c", CREATE_STORE, db])
        run = timed(
            [sys.executable, "-c", DASK_FLOW, db, str(hours), str(workers)],
            env={"PREFECT_HOME": str(Path(tmp) / "prefect")},
        )
        with duckdb.connect(db, read_only=True) as con:
            stars = con.execute(STARS_ADDED_SQL).fetchall()[0][0]
    result = json.loads(run.stdout[run.stdout.rindex('{"ok"') :])  # after any flow log lines
    print(
        f"Dask flow, {workers} workers ({result['batches']} batches on {result['workers']} "
        f"worker processes): {run.wall_s:.1f} s wall with Prefect and cluster start-up, "
        f"{events / run.wall_s:,.0f} events/s; {result['message']}; stars given {stars:,}; "
        f"{load()}"
    )


if __name__ == "__main__":
    main()
