"""GH Archive ingestion speed and memory against a bare DuckDB `read_json` on the same files.

Generates one day of hourly files in the real event schema (`tests/support/gharchive_files.py`;
default 4,000,000 events over 20,000 repositories, the volume of a 2025-2026 day), then, each in
a fresh process so peak memory is its own:

- bare: `SELECT repo.name, day, count(*) FROM read_json(files, columns=...) WHERE type =
  'WatchEvent' GROUP BY ALL` (the floor: one scan, one aggregate, nothing written);
- shu: `ingest_gharchive` into a fresh (already created) store: every table, ingest_log, in
  batches of hourly files, then the fold into stars_daily.

Prints events/s, both times, their ratio (target: within 3x) and peak RSS.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_gharchive.py [--events 4000000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

BARE = """
import json, resource, sys, time, duckdb
files = json.loads(sys.argv[1])
t0 = time.perf_counter()
rows = duckdb.sql(
    "SELECT repo.name AS repo, CAST(created_at AS DATE) AS day, count(*) AS stars "
    "FROM read_json($f, columns = {'type': 'VARCHAR', 'repo': 'STRUCT(name VARCHAR)', "
    "'created_at': 'TIMESTAMP'}, format = 'newline_delimited') "
    "WHERE type = 'WatchEvent' GROUP BY ALL", params={"f": files}).fetchall()
print(json.dumps({"seconds": time.perf_counter() - t0, "groups": len(rows),
                  "stars": sum(r[2] for r in rows),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SHU = """
import json, resource, sys, time
from shu.settings import load_settings
from shu.signals.gharchive_fold import fold_into_stars_daily
from shu.sources.gharchive import ingest_gharchive
from shu.store import open_store
files, db, batch = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
with open_store(db) as store:  # creating the store is a one-off, not part of the load
    t0 = time.perf_counter()
    s = ingest_gharchive(store, files, load_settings(aliases={}, gharchive_batch_files=batch))
    fold_into_stars_daily(store)
    stars = store.con.execute("SELECT sum(stars_added) FROM stars_added_daily").fetchone()[0]
print(json.dumps({"seconds": time.perf_counter() - t0, "events": s.events, "stars": int(stars),
                  "failed": len(s.failed), "rows": s.rows,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _child(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=4_000_000, help="events in the day")
    parser.add_argument("--repos", type=int, default=20_000, help="distinct repositories")
    parser.add_argument("--batch", type=int, default=4, help="hourly files per scan")
    parser.add_argument("--dir", type=Path, default=None, help="reuse/keep files here")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support
    from support.gharchive_files import generate_days

    tmp = tempfile.TemporaryDirectory(prefix="shu-gha-")
    where = args.dir or Path(tmp.name)
    hours = where / "hours"
    files = sorted(hours.glob("*.json.gz")) if hours.is_dir() else []
    if len(files) != 24:
        t0 = time.perf_counter()
        files, _ = generate_days(hours, date(2026, 1, 15), 1, args.events, args.repos,
                                 processes=2, count_truth=False)
        print(f"generated {args.events:,} events in 24 hourly files in "
              f"{time.perf_counter() - t0:.1f}s")
    size = sum(f.stat().st_size for f in files)
    print(f"files: 24 hourly .json.gz, {size / 1e6:,.0f} MB compressed")
    names = json.dumps([str(f) for f in files])
    bare = _child(BARE, names)
    db = where / "bench.duckdb"
    db.unlink(missing_ok=True)
    ours = _child(SHU, names, str(db), str(args.batch))
    assert ours["stars"] == bare["stars"] and ours["failed"] == 0, (ours, bare)
    print(f"bare DuckDB read_json WatchEvent aggregate: {bare['seconds']:.2f}s, "
          f"peak RSS {bare['peak_mb']:,.0f} MB")
    print(f"shu ingest gharchive (all tables + ingest_log + fold, batches of {args.batch}): "
          f"{ours['seconds']:.2f}s, {ours['events'] / ours['seconds']:,.0f} events/s, "
          f"peak RSS {ours['peak_mb']:,.0f} MB")
    print(f"ratio shu / bare: {ours['seconds'] / bare['seconds']:.2f}x (target <= 3x)")
    print(f"rows written: {ours['rows']}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
