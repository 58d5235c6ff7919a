"""Benchmark: ingest peak memory, `shu forecast` and an offline `shu daily` on the star data,
the daily's figure stage by stage.

The real star data end to end, on the full store.

On a fresh temporary folder, each command in its own process, back to back:

1. `shu ingest ranking PATH --db NEW` (default PATH: ../shared/data/stars/stars_daily.parquet,
   or a directory of daily github-ranking-YYYY-MM-DD.csv files): wall, CPU and peak resident
   memory (target <= 2 GiB);
2. `shu signals --db NEW` (wall, CPU);
3. a copy of that store, then `shu forecast --as-of DAY --db COPY` (target <= 120 s quiet);
4. another copy, then `shu daily --as-of DAY --db COPY2` with GitHub unreachable
   (`SHU_GITHUB_API_URL=http://127.0.0.1:9`; it exits 3, saying so; target <= 60 s quiet), its
   wall and CPU per stage: each stage prints its line as it finishes, so a stage's figure runs
   from the previous line to its first one, the CPU that of the whole process tree (shu,
   Prefect's server) read at each line. The probe runs when due, as in a user's run (a store
   without a probe run: the quick suite on the CPU); `--probe-fresh` stores a probe run first
   (not timed), as on the six days of seven the probe is not due.

With `--store FILE` (a store that already holds the stars and their signals), steps 1-2 are
skipped and the copies are made from FILE (its signals brought up to date first by
`shu signals`, timed on its own line: a daily run finds them computed up to the day before).
It prints each command's wall time, CPU time (user + system) and peak memory, and the load
average: the machine is shared, so a figure at load 8 says little about a quiet one; CPU seconds
barely depend on the load. `--skip-forecast` leaves out step 3; `--keep DIR` copies the daily's
store and reports to DIR (to compare two versions' forecasts and briefing). The ephemeral Prefect
server's database lives in a fresh PREFECT_HOME, so its migrations run in every measurement, as
on a user's first day; `--prefect-home DIR` keeps it in DIR between runs instead, as on every day
after the first (a first run there migrates it).

    .venv/bin/python benchmarks/bench_daily_full.py [PATH] [--store FILE] [--day 2026-02-28]
        [--probe-fresh] [--skip-forecast] [--keep DIR] [--prefect-home DIR]
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from cli_timing import Timed, load, shu_command, timed

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared/data/stars/stars_daily.parquet"
OFFLINE = {"SHU_GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_TOKEN": ""}
PROBE_RUN = ROOT / "docs/probe/h200-full-warm.json"
# The daily's lines, in the order its stages finish: 'stage: ...' (`shu.flows.stages`), and
# before them the store's age ('data: ...') and the GitHub client's first retry (ingest begun).
STAGES = ("ingest", "signals", "resolve", "forecast", "probe", "briefing", "snapshot")


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


TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command name ([] when the process is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text[text.rindex(")") + 2 :].split()


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process `pid`, its children that ended and those still
    running, from /proc (Linux)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))):
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        fields = _stat(current)
        if fields:  # utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 here
            total += sum(int(x) for x in fields[11:15])
        todo += parents.get(current, [])
    return total / TICK


START = "start: imports, settings, the store's age"
PREFECT = "Prefect's server starts, the flow begins"


def step_ended(text: str, done: set[str]) -> str | None:
    """The step whose end this output line marks (None: none, or one already ended): the store's
    age line ends the start, the GitHub client's first retry Prefect's start, a stage's first
    line that stage."""
    stage = text.split(":", 1)[0]
    if text.startswith("data:"):
        name = START
    elif "GitHub GET" in text and not done & set(STAGES):
        name = PREFECT
    elif stage in STAGES:
        name = stage
    else:
        return None
    return None if name in done else name


def staged(cmd: list[str], env: dict[str, str]) -> tuple[Timed, list[tuple[str, float, float]]]:
    """Run `cmd` (exit 0 or 3), its output read line by line: (step, wall s, CPU s) per step,
    each step ending at the first line of the next, and the whole run's Timed (CPU from wait4)."""
    env = {**os.environ, "COLUMNS": "300", "SHU_QUIET": "1", "PYTHONUNBUFFERED": "1", **env}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True, bufsize=1
    )
    marks: list[tuple[str, float, float]] = [("", 0.0, 0.0)]
    lines: list[str] = []
    assert proc.stdout is not None
    for text in proc.stdout:
        lines.append(text.rstrip())
        name = step_ended(text, {m[0] for m in marks})
        if name is not None:
            marks.append((name, time.perf_counter() - t0, tree_cpu(proc.pid)))
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {' / '.join(lines[-8:])}")
    cpu = usage.ru_utime + usage.ru_stime
    marks.append(("flow ends, Prefect's server stops", wall, cpu))
    steps = [
        (name, wall_b - wall_a, cpu_b - cpu_a)
        for (_, wall_a, cpu_a), (name, wall_b, cpu_b) in itertools.pairwise(marks)
    ]
    stage_lines = [x for x in lines if x.split(":", 1)[0] in ("data", *STAGES)]
    return Timed(wall, cpu, usage.ru_maxrss / 2**20, " / ".join(stage_lines)), steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--store", type=Path, help="a store with stars and signals already")
    parser.add_argument("--day", default="2026-02-28", help="the day forecast and briefed")
    parser.add_argument("--probe-fresh", action="store_true", help="a probe run stored first")
    parser.add_argument("--skip-forecast", action="store_true", help="no `shu forecast` run")
    parser.add_argument("--keep", type=Path, help="copy the daily's store and reports here")
    parser.add_argument("--prefect-home", type=Path, help="a PREFECT_HOME kept between runs")
    args = parser.parse_args()
    shu = shu_command()
    with tempfile.TemporaryDirectory(prefix="shu-bench-daily-") as tmp:
        work = Path(tmp)
        env = {"PREFECT_HOME": str(args.prefect_home or work / "prefect")}
        if args.store is None:
            store = work / "stars.duckdb"
            ingest = timed([*shu, "ingest", "ranking", str(args.path), "--db", str(store)])
            print(line(f"ingest ranking {args.path.name}", ingest), flush=True)
            print(f"  {ingest.stdout[:300]}")
        else:
            store = copy_store(args.store, work / "stars.duckdb")
        signals = timed([*shu, "signals", "--db", str(store)])
        print(line("signals", signals), flush=True)
        if not args.skip_forecast:
            forecast_db = copy_store(store, work / "forecast.duckdb")
            forecast = timed([*shu, "forecast", "--as-of", args.day, "--db", str(forecast_db)])
            print(line("forecast", forecast), flush=True)
        daily_db = copy_store(store, work / "daily.duckdb")
        if args.probe_fresh:
            timed([*shu, "ingest", "probe", str(PROBE_RUN), "--db", str(daily_db)])
        daily, steps = staged(
            [*shu, "daily", "--as-of", args.day, "--db", str(daily_db)],
            env={
                **env,
                **OFFLINE,
                "SHU_REPORTS_DIR": str(work / "reports"),
                **({"SHU_PROBE_MAX_AGE_DAYS": "100000"} if args.probe_fresh else {}),
            },
        )
        if args.keep is not None:  # to compare the forecasts and briefing of two versions
            args.keep.mkdir(parents=True, exist_ok=True)
            copy_store(daily_db, args.keep / "daily.duckdb")
            shutil.copytree(work / "reports", args.keep / "reports", dirs_exist_ok=True)
        print(line("daily (GitHub unreachable)", daily), flush=True)
        for name, wall_s, cpu_s in steps:
            print(f"  {name:<44} {wall_s:7.1f} s wall {cpu_s:7.1f} s CPU")
        print(f"  {daily.stdout[:1200]}")
    print(f"targets: ingest peak <= 2 GiB, forecast <= 120 s, daily <= 60 s (quiet); {load()}")


if __name__ == "__main__":
    main()
