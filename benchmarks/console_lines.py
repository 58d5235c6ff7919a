"""What `shu daily` prints on a machine without internet: lines, tracebacks and seconds.

Two cases:
- default: builds a small store from the ranking sample (../shared/data/stars/raw-sample,
  through `shu ingest ranking` and `shu signals`), then runs `shu daily` on it as a user would
  (a fresh PREFECT_HOME, so an ephemeral Prefect server; GitHub unreachable: SHU_GITHUB_API_URL
  points at a closed local port unless --github-url says otherwise) with the default thread
  runner and with SHU_TASK_RUNNER=dask;
- `--empty`: a new user's first run: a fresh folder, no store, no shu.toml, no ../shared, and a
  GitHub host name that does not resolve (https://api.github.invalid unless --github-url says
  otherwise): `shu daily` with no argument (target: within 30 s, about a dozen lines).

For each it prints exit status, lines on stdout and stderr, Python tracebacks, and seconds (with
--empty also the CPU seconds of all its processes and the load average around it: the machine is
shared, and a run at load 8 says little about a quiet one), and with --show the console itself.
Extra arguments after `--` go to `shu daily` (`-- --verbose`).

    PYTHONPATH=src .venv/bin/python benchmarks/console_lines.py [--empty] [--show] [-- --verbose]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared" / "data" / "stars" / "raw-sample"
DAY = "2026-02-28"


def shu(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=1800,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--github-url",
        default=None,
        help="GitHub API URL to (fail to) reach [default: a closed local port; with --empty a "
        "host name that does not resolve]",
    )
    parser.add_argument(
        "--empty", action="store_true", help="a new user's first run: empty store, fresh folder"
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of each case (--empty)")
    parser.add_argument("--show", action="store_true", help="print each run's console too")
    parser.add_argument("--runners", default="threads,dask", help="comma-separated")
    args, daily_args = parser.parse_known_args()
    daily_args = [a for a in daily_args if a != "--"]
    if args.empty:
        empty(args.github_url or "https://api.github.invalid", daily_args, args.runs, args.show)
        return
    args.github_url = args.github_url or "http://127.0.0.1:9"
    if not SAMPLE.is_dir():
        sys.exit(f"needs the ranking sample at {SAMPLE}")
    with tempfile.TemporaryDirectory(prefix="shu-console-") as tmp:
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SHU_", "PREFECT_")) and k != "GITHUB_TOKEN"
        }
        base |= {
            "SHU_GITHUB_API_URL": args.github_url,
            "SHU_REPORTS_DIR": f"{tmp}/reports",
            "COLUMNS": "120",
            "SHU_PROBE_MAX_AGE_DAYS": "36500",
        }
        db = f"{tmp}/shu.duckdb"
        for step in (["ingest", "ranking", str(SAMPLE)], ["signals"]):
            done = shu([*step, "--db", db], {**base, "PREFECT_HOME": f"{tmp}/prefect-setup"})
            if done.returncode:
                sys.exit(f"setup failed: shu {' '.join(step)}: {done.stderr.strip()[-400:]}")
        print(f"shu daily --as-of {DAY} {' '.join(daily_args)}  (GitHub at {args.github_url})")
        print(
            f"{'runner':8} {'exit':>4} {'stdout':>6} {'stderr':>6} {'lines':>6} "
            f"{'tracebacks':>10} {'seconds':>7}"
        )
        for runner in args.runners.split(","):
            env = {**base, "SHU_TASK_RUNNER": runner, "PREFECT_HOME": f"{tmp}/prefect-{runner}"}
            t0 = time.perf_counter()
            run = shu(["daily", "--as-of", DAY, "--db", db, *daily_args], env)
            seconds = time.perf_counter() - t0
            out, err = run.stdout.splitlines(), run.stderr.splitlines()
            tracebacks = (run.stdout + run.stderr).count("Traceback (most recent call last)")
            print(
                f"{runner:8} {run.returncode:>4} {len(out):>6} {len(err):>6} "
                f"{len(out) + len(err):>6} {tracebacks:>10} {seconds:>7.1f}",
                flush=True,
            )
            if args.show:
                print("--- stdout\n" + run.stdout + "--- stderr\n" + run.stderr + "---")


def empty(github_url: str, daily_args: list[str], runs: int, show: bool) -> None:
    """`shu daily` in a fresh folder with no store and no configuration, GitHub unreachable."""
    print(f"shu daily {' '.join(daily_args)}  (empty store, fresh folder, GitHub at {github_url})")
    print(
        f"{'exit':>4} {'stdout':>6} {'stderr':>6} {'lines':>6} {'tracebacks':>10} "
        f"{'seconds':>7} {'CPU s':>6}"
    )
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="shu-empty-") as tmp:
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("SHU_", "PREFECT_")) and k != "GITHUB_TOKEN"
            }
            env |= {"SHU_GITHUB_API_URL": github_url, "PREFECT_HOME": f"{tmp}/prefect"}
            load = os.getloadavg()[0]
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "shu", "daily", *daily_args],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp,
                timeout=1800,
            )
            seconds = time.perf_counter() - t0
            cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        out, err = run.stdout.splitlines(), run.stderr.splitlines()
        tracebacks = (run.stdout + run.stderr).count("Traceback (most recent call last)")
        print(
            f"{run.returncode:>4} {len(out):>6} {len(err):>6} {len(out) + len(err):>6} "
            f"{tracebacks:>10} {seconds:>7.1f} {cpu:>6.1f}   (load {load:.1f} -> "
            f"{os.getloadavg()[0]:.1f})",
            flush=True,
        )
        if show:
            print("--- stdout\n" + run.stdout + "--- stderr\n" + run.stderr + "---")


if __name__ == "__main__":
    main()
