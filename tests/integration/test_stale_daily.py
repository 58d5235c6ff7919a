"""`shu daily` on a store whose data ends 90 days before today, GitHub unreachable: its first
line says how old the data is and how to refresh it, it issues no question whose day has passed,
and its briefing presents none as a forecast (docs/daily-flow.md, "Stale and future days")."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from support.star_store import star_store

from shu.store import open_store, utcnow

ROOT = Path(__file__).resolve().parents[2]


def test_daily_on_a_store_90_days_stale(tmp_path: Path) -> None:
    today = utcnow().date()
    ends = today - timedelta(days=90)
    db = star_store(tmp_path, ends)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SHU_", "PREFECT_")) and k != "GITHUB_TOKEN"
    }
    env |= {
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "SHU_DB": str(db),
        "SHU_GITHUB_API_URL": "https://api.github.invalid",  # never resolves
        "SHU_PROBE_MAX_AGE_DAYS": "100000",  # the stored run below is reused, none is timed
        "COLUMNS": "200",
    }

    def shu(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "shu", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=600,
        )

    probe = shu("ingest", "probe", str(ROOT / "docs" / "probe" / "h200-full-warm.json"))
    assert probe.returncode == 0, probe.stderr
    # the forecasts a run on the store's last day would have issued, all resolved by today
    assert shu("forecast", "--as-of", str(ends)).returncode == 0
    with open_store(db, read_only=True) as store:
        before = store.con.execute("SELECT count(*) FROM forecasts").fetchall()[0][0]
    run = shu("daily")
    shown = run.stdout + run.stderr
    assert run.returncode == 3, shown  # GitHub could not be reached
    assert run.stdout.splitlines()[0] == (
        f"data: the store's data ends on {ends}, 90 days before today ({today}); only questions "
        "resolving after today are issued; refresh it with `shu ingest github` (the tracked "
        "repositories) or `shu ingest ranking PATH`"
    ), shown
    assert "Traceback" not in shown
    with open_store(db, read_only=True) as store:
        after = store.con.execute("SELECT count(*) FROM forecasts").fetchall()[0][0]
        past = store.con.execute(
            "SELECT count(*) FROM forecasts WHERE origin > ? AND resolves_on <= ?", [ends, today]
        ).fetchall()[0][0]
    assert before > 0 and past == 0, (before, after)
    assert "(0 forecast cards," in run.stdout, shown
    text = (tmp_path / "reports" / f"{today}.md").read_text(encoding="utf-8")
    assert "**Stale data:**" in text
    for horizon in (7, 30):
        day = ends + timedelta(days=horizon)
        assert f"{day.day} {day:%b %Y}" not in text and str(day) not in text, horizon
