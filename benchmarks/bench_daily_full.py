"""Benchmark: ingest peak memory, `shu forecast` and an offline `shu daily` on the star data.

The real star data end to end, on the full store.

On a fresh temporary folder, each command in its own process, back to back:

1. `shu ingest ranking PATH --db NEW` (default PATH: ../shared/data/stars/stars_daily.parquet,
   or a directory of daily github-ranking-YYYY-MM-DD.csv files): wall, CPU and peak resident
   memory (target <= 2 GiB);
2. `shu signals --db NEW` (wall, CPU);
3. a copy of that store, then `shu forecast --as-of DAY --db COPY` (target <= 120 s quiet);
4. another copy, then `shu daily --as-of DAY --db COPY2` with GitHub unreachable
   (`SHU_GITHUB_API_URL=http://127.0.0.1:9`; it exits 3, saying so; target <= 60 s quiet); the
   probe runs when due, as in a user's run (a store without a probe run: the quick suite).

With `--store FILE` (a store that already holds the stars and their signals), steps 1-2 are
skipped and the copies are made from FILE. It prints each command's wall time, CPU time (user +
system) and peak memory, and the load average: the machine is shared, so a figure at load 8 says
little about a quiet one; CPU seconds barely depend on the load.

    .venv/bin/python benchmarks/bench_daily_full.py [PATH] [--store FILE] [--day 2026-02-28]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from cli_timing import Timed, load, shu_command, timed

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared/data/stars/stars_daily.parquet"
OFFLINE = {"SHU_GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_TOKEN": ""}


def line(name: str, run: Timed) -> str:
    return (
        f"{name}: {run.wall_s:.1f} s wall, {run.cpu_s:.1f} s CPU, peak {run.peak_gib:.2f} GiB "
        f"({load()})"
    )


def copy_store(src: Path, dst: Path) -> Path:
    for suffix in ("", ".wal"):
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")
    return dst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--store", type=Path, help="a store with stars and signals already")
    parser.add_argument("--day", default="2026-02-28", help="the day forecast and briefed")
    args = parser.parse_args()
    shu = shu_command()
    with tempfile.TemporaryDirectory(prefix="shu-bench-daily-") as tmp:
        work = Path(tmp)
        env = {"PREFECT_HOME": str(work / "prefect")}
        if args.store is None:
            store = work / "stars.duckdb"
            ingest = timed([*shu, "ingest", "ranking", str(args.path), "--db", str(store)])
            print(line(f"ingest ranking {args.path.name}", ingest), flush=True)
            print(f"  {ingest.stdout[:300]}")
            signals = timed([*shu, "signals", "--db", str(store)])
            print(line("signals", signals), flush=True)
        else:
            store = args.store
        forecast_db = copy_store(store, work / "forecast.duckdb")
        forecast = timed([*shu, "forecast", "--as-of", args.day, "--db", str(forecast_db)])
        print(line("forecast", forecast), flush=True)
        daily_db = copy_store(store, work / "daily.duckdb")
        daily = timed(
            [*shu, "daily", "--as-of", args.day, "--db", str(daily_db)],
            env={**env, **OFFLINE, "SHU_REPORTS_DIR": str(work / "reports")},
            ok=(0, 3),
        )
        print(line("daily (GitHub unreachable)", daily), flush=True)
        print(f"  {daily.stdout[:400]}")
    print(f"targets: ingest peak <= 2 GiB, forecast <= 120 s, daily <= 60 s (quiet); {load()}")


if __name__ == "__main__":
    main()
