"""`shu signals` and `shu signals show` as a user runs them (a real process, a real store)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.signal_data import insert_observations, synthetic_observations

from shu.store import open_store

ROOT = Path(__file__).resolve().parents[3]


def shu(*args: str, db: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200", "SHU_DB": str(db)}
    return subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def test_signals_refresh_and_show(tmp_path):
    db = tmp_path / "s.duckdb"
    with open_store(db) as store:
        insert_observations(store, synthetic_observations())
    first = shu("signals", db=db)
    assert first.returncode == 0, first.stderr
    assert "star_signals" in first.stdout and "full" in first.stdout
    again = shu("signals", db=db)
    assert "up to date" in again.stdout
    forced = shu("signals", "--full", db=db)
    assert "requested" in forced.stdout
    show = shu("signals", "show", "quad/ratic", db=db)
    assert show.returncode == 0, show.stderr
    assert "velocity_28d" in show.stdout and "lifecycle_phase" in show.stdout
    missing = shu("signals", "show", "no/such", db=db)
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1 and "no signals for no/such" in missing.stderr
