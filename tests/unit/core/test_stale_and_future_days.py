"""Days that make no sense are refused, and a stale store asks nothing about a past day.

- A future `--as-of` (later than the last day of data and than today) is refused in one line
  naming the last day of data: `shu brief`, `shu forecast`, `shu radar`, `shu daily`.
- A store whose data ends weeks before today: `shu forecast` says so first and issues only the
  questions that resolve after today; the briefing of today presents no question whose day has
  passed as a forecast, nor does its breakout radar (`docs/daily-flow.md`, "Stale and future
  days").

Real stores, filled by the real `shu ingest ranking` and answered by the shipped model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest
from support.star_store import star_store

from shu.store import last_data_day, open_store, utcnow


def _ends(db: Path) -> date:
    """The store's last day of data, as built (read back, so a run across midnight still
    compares the store with the day the command sees)."""
    with open_store(db, read_only=True) as store:
        last = last_data_day(store.con)
    assert last is not None
    return last


def shu(*args: str, db: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHU_")}
    env |= {"SHU_DB": str(db), "COLUMNS": "200", "SHU_GITHUB_API_URL": "http://127.0.0.1:9"}
    return subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )


@pytest.fixture(scope="module")
def stale_90(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("stale90")
    return star_store(folder, utcnow().date() - timedelta(days=90))


@pytest.mark.parametrize(
    "command",
    [["brief"], ["forecast"], ["radar"], ["resolve"], ["daily"]],
    ids=lambda c: c[0],
)
def test_a_future_as_of_is_refused_naming_the_last_day_of_data(command, stale_90) -> None:
    proc = shu(*command, "--as-of", "2030-01-01", db=stale_90, cwd=stale_90.parent)
    today, ends = utcnow().date(), _ends(stale_90)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: --as-of 2030-01-01: in the future (today is {today}; the store's data ends on "
        f"{ends})"
    ]
    with open_store(stale_90, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM briefings").fetchall()[0][0] == 0


def test_a_stale_store_is_forecast_only_about_days_still_ahead(stale_90) -> None:
    """Data ending 90 days ago: every question would resolve on or before today (7, 30 and 90
    days), so none is issued, and the first line says how old the data is and how to refresh."""
    proc = shu("forecast", db=stale_90, cwd=stale_90.parent)
    today, ends = utcnow().date(), _ends(stale_90)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        f"note: the store's data ends on {ends}, {(today - ends).days} days before today "
        f"({today}); only questions "
        "resolving after today are issued; refresh it with `shu ingest github` (the tracked "
        "repositories) or `shu ingest ranking PATH`"
    )
    assert proc.stdout.startswith("0 new forecasts")
    with open_store(stale_90, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM forecasts").fetchall()[0][0] == 0


def test_a_store_60_days_stale_gets_only_its_90_day_questions(tmp_path) -> None:
    db = star_store(tmp_path, utcnow().date() - timedelta(days=60))
    proc = shu("forecast", db=db, cwd=tmp_path)
    today, ends = utcnow().date(), _ends(db)
    assert proc.returncode == 0, proc.stderr
    assert f"{(today - ends).days} days before today" in proc.stderr.splitlines()[0]
    with open_store(db, read_only=True) as store:
        horizons = store.con.execute(
            "SELECT DISTINCT horizon_days FROM forecasts WHERE template NOT IN ('star_breakout')"
        ).fetchall()
        first = store.con.execute("SELECT min(resolves_on) FROM forecasts").fetchall()[0][0]
    assert horizons == [(90,)] and first > today


def test_todays_briefing_of_a_stale_store_presents_no_past_day_as_a_forecast(stale_90) -> None:
    """Forecasts issued from the store's last day (explicitly, as of that day) all resolve on or
    before today: today's briefing shows none of them as a card, nor their days."""
    ends = _ends(stale_90)
    issued = shu("forecast", "--as-of", str(ends), db=stale_90, cwd=stale_90.parent)
    assert issued.returncode == 0 and "new forecasts" in issued.stdout, issued.stderr
    with open_store(stale_90, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM forecasts").fetchall()[0][0] > 0
    out = stale_90.parent / "today"
    today = utcnow().date()
    proc = shu("brief", "--as-of", str(today), "--out", str(out), db=stale_90, cwd=stale_90.parent)
    assert proc.returncode == 0, proc.stderr
    assert "(0 forecast cards," in proc.stdout, proc.stdout
    text = (out / f"{today}.md").read_text(encoding="utf-8")
    for horizon in (7, 30):
        day = ends + timedelta(days=horizon)
        assert f"{day.day} {day:%b %Y}" not in text and str(day) not in text, horizon
    # the briefing of that last day itself still shows them: they were forecasts then
    then = shu("brief", "--as-of", str(ends), "--out", str(out), db=stale_90, cwd=stale_90.parent)
    assert then.returncode == 0 and "(0 forecast cards," not in then.stdout, then.stdout


def test_a_stale_stores_radar_shows_no_breakout_forecast_whose_day_has_passed(tmp_path) -> None:
    """Breakout forecasts issued from the last day of a store 90 days stale are about a day 60
    days past: today's briefing and `shu radar --as-of` today list none of them and say why
    (the day they were about, how to load fresh counts); on that last day they were open, and
    `shu radar --as-of` it lists them."""
    others = ("lab/llm-serve", "lab/torch-kernels", "lab/vision-models")
    db = star_store(tmp_path, utcnow().date() - timedelta(days=90), untracked=others)
    ends, today = _ends(db), utcnow().date()
    issued = shu("forecast", "--as-of", str(ends), db=db, cwd=tmp_path)
    assert issued.returncode == 0, issued.stderr
    with open_store(db, read_only=True) as store:
        breakouts = store.con.execute(
            "SELECT DISTINCT repo, origin, resolves_on FROM forecasts "
            "WHERE template = 'star_breakout' AND horizon_days = 30 AND repo LIKE 'lab/%' "
            "ORDER BY repo"
        ).fetchall()
    about = ends + timedelta(days=30)
    assert breakouts == [(repo, ends, about) for repo in sorted(others)]
    why = (
        f"the newest breakout forecasts, of {ends}, are about {about}, not after {today}, so "
        "none of them forecasts anything (the star counts of the repositories the radar scans "
        f"end on {ends}); load fresh counts with `shu ingest ranking PATH` (or set "
        "`ranking_files` for `shu daily`), then run `shu forecast`"
    )

    out = tmp_path / "today"
    brief = shu("brief", "--as-of", str(today), "--out", str(out), db=db, cwd=tmp_path)
    assert brief.returncode == 0, brief.stderr
    briefing = json.loads((out / f"{today}.json").read_text(encoding="utf-8"))
    assert briefing["radar"] == [] and briefing["notes"]["radar"] == why
    text = (out / f"{today}.md").read_text(encoding="utf-8")
    radar_section = text.split("## Breaking out", 1)[1].split("\n## ", 1)[0]
    assert f"No breakout forecast to show: {why}." in radar_section
    assert not any(repo in radar_section for repo in others), radar_section

    now = shu("radar", "--as-of", str(today), "--all", db=db, cwd=tmp_path)
    assert now.returncode == 0, now.stderr
    assert now.stdout.split() == f"no star_breakout forecast to show on {today}: {why}".split()
    listed = shu("radar", "--as-of", str(today), "--all", "--json", db=db, cwd=tmp_path)
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stderr
    then = shu("radar", "--as-of", str(ends), "--all", "--json", db=db, cwd=tmp_path)
    assert then.returncode == 0, then.stderr
    assert sorted(e["repo"] for e in json.loads(then.stdout)) == sorted(others)
    assert {e["resolves_on"] for e in json.loads(then.stdout)} == {str(about)}


def test_a_radar_whose_counts_end_past_its_horizon_is_not_asked(tmp_path) -> None:
    """The tracked repositories' counts end yesterday, the others' 60 days ago: `shu forecast`
    asks the tracked repositories' questions, and the radar's only at horizons that still end
    after today (90 days), never its 30-day breakout question, whose day has passed."""
    today = utcnow().date()
    db = star_store(
        tmp_path,
        today - timedelta(days=1),
        untracked=("lab/llm-serve", "lab/torch-kernels"),
        untracked_ends=today - timedelta(days=60),
    )
    proc = shu("forecast", db=db, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open_store(db, read_only=True) as store:
        radar = store.con.execute(
            "SELECT DISTINCT origin, horizon_days FROM forecasts WHERE repo LIKE 'lab/%'"
        ).fetchall()
        tracked = store.con.execute(
            "SELECT count(*) FROM forecasts WHERE repo = 'pytorch/pytorch'"
        ).fetchall()[0][0]
        past = store.con.execute(
            "SELECT count(*) FROM forecasts WHERE resolves_on <= ?", [today]
        ).fetchall()[0][0]
    assert tracked > 0 and past == 0
    assert radar == [(today - timedelta(days=60), 90)], radar
