"""A real store of the tracked repositories' star counts ending on a given day: a long ranking
table written here, loaded by the real `shu ingest ranking`, signals by `shu signals`. For the
tests of stale and future days (a store whose data ends weeks before today)."""

from __future__ import annotations

import math
from datetime import date, timedelta
from pathlib import Path

from support.cli import shu

TRACKED = ("pytorch/pytorch", "tensorflow/tensorflow", "ollama/ollama")


def star_store(
    folder: Path,
    ends: date,
    days: int = 500,
    untracked: tuple[str, ...] = (),
    untracked_ends: date | None = None,
) -> Path:
    """`folder/shu.duckdb`: `days` days of star counts of the tracked repositories, the last on
    `ends` (a steady gain with a slow swing, different per repository), and of the `untracked`
    ones, which the breakout radar ranks (the last on `untracked_ends`, default `ends`), and
    their signals."""
    rows = ["day,repo,stars"]
    for k, repo in enumerate(TRACKED + untracked):
        last = ends if repo in TRACKED else (untracked_ends or ends)
        stars = 1000 * (k + 1)
        for i in range(days):
            stars += 20 + int(10 * math.sin(i / 30 + k)) + (i * (k + 3)) % 7
            rows.append(f"{last - timedelta(days=days - 1 - i)},{repo},{stars}")
    csv = folder / "counts.csv"
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    db = folder / "shu.duckdb"
    for step in (["ingest", "ranking", str(csv)], ["signals"]):
        done = shu(*step, db=db, cwd=folder)
        assert done.returncode == 0, done.stderr
    return db
