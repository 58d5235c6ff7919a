"""Timing whole commands for the benchmarks: one child process each, its wall time, CPU time
and peak memory (its own, from `wait4`), and the table the speed benchmarks print.

The machine these run on is shared, so a benchmark times shu and its floor back to back in the
same run and compares their ratio per run; `load()` says how busy the machine was.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Timed:
    """One command's run."""

    wall_s: float
    cpu_s: float
    peak_gib: float
    stdout: str


def shu_command() -> list[str]:
    """The installed `shu` console script beside this interpreter (else `python -m shu`)."""
    script = Path(sys.executable).parent / "shu"
    return [str(script)] if script.exists() else [sys.executable, "-m", "shu"]


def timed(cmd: list[str], env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> Timed:
    """Run `cmd` to the end (exits the benchmark with its stderr when its exit status is not
    one of `ok`)."""
    env = {**os.environ, "COLUMNS": "300", "SHU_QUIET": "1", **(env or {})}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own CPU time and peak RSS
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode not in ok:
            sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.read().strip()[-800:]}")
        return Timed(
            wall,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 2**20,
            " ".join(out.read().split()),
        )


def load() -> str:
    """The 1-minute load average and the number of cores, for the printed figures."""
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def run_line(i: int, runs: dict[str, list[Timed]], floor: str = "floor") -> str:
    """One run's times, each with its ratio to the floor of the same run."""
    base = runs[floor][-1].wall_s
    return (
        f"run {i}: "
        + " | ".join(
            f"{name} {r[-1].wall_s:.2f} s (x{r[-1].wall_s / base:.2f}; CPU {r[-1].cpu_s:.2f} s, "
            f"{r[-1].peak_gib:.2f} GiB)"
            for name, r in runs.items()
        )
        + f" | {load()}"
    )


def ratio_table(rows: list[tuple[str, list[Timed], list[Timed], str]]) -> str:
    """The markdown table (job | shu | floor | ratio | target) of medians over the runs; the
    ratio is the median of the per-run ratios."""
    lines = ["| job | shu | floor (same run) | ratio | target |", "|---|---:|---:|---:|---:|"]
    for job, ours, floor, target in rows:
        ratios = [o.wall_s / f.wall_s for o, f in zip(ours, floor, strict=True)]
        lines.append(
            f"| {job} | {statistics.median(o.wall_s for o in ours):.2f} s | "
            f"{statistics.median(f.wall_s for f in floor):.2f} s | "
            f"{statistics.median(ratios):.2f}x | {target} |"
        )
    return "\n".join(lines)
