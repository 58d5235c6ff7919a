"""The daily flow under Prefect's test harness, against the local GitHub API server.

The synthetic demo sample is served by `shu.testing.github_server`; the real client backfills
it, the forecaster is trained on it, and then the daily flow runs twice for the same day. The
briefing must have every section, every receipt must resolve to a stored row or passage, and the
second run must change no forecast.
"""

from __future__ import annotations

import json
import logging
from datetime import date
from pathlib import Path

import pytest

from shu.receipts import resolve, stored_receipts
from shu.store import open_store
from shu.testing.demo_sample import synthetic_sample
from shu.testing.github_server import GitHubAPIServer

DAY = date(2026, 3, 2)
SECTIONS = (
    "## At a glance",
    "## What moved",
    "## Forecasts",
    "### Probe and claims",
    "## Appendix",
    "### How to read this",
    "### Signals of the tracked repositories",
    "### Receipts",
    "*Receipts R",
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    out = tmp_path_factory.mktemp("daily")
    sample = synthetic_sample(DAY, seed=11)
    sample.write_notes(out / "notes")
    (out / "probe.json").write_text(json.dumps(sample.probe))
    with GitHubAPIServer(sample.repos) as server:
        overrides = {
            "db": str(out / "shu.duckdb"),
            "repos": [r.model_dump() for r in sample.tracked],
            "github_api_url": server.url,
            "reports_dir": str(out / "reports"),
            "models_dir": str(out / "models"),
            "document_paths": [str(out / "notes")],
            "aliases": {},
        }
        yield out, overrides, server


@pytest.fixture(scope="module")
def backfilled(served):
    """The served sample backfilled through the real client and its signals computed: the store
    both tests brief from (each may run alone, on any test worker)."""
    from shu.flows import ingest, stages
    from shu.flows.stages import settings_from

    out, overrides, server = served
    settings = settings_from(overrides)
    result = ingest.ingest(out / "shu.duckdb", settings, DAY, backfill=True)  # outside a flow
    stages.signals(out / "shu.duckdb", settings)
    return out, overrides, server, result


def _forecasts(db) -> list[tuple]:
    with open_store(db, read_only=True) as store:
        return store.con.execute(
            "SELECT * EXCLUDE (issued_at) FROM forecasts ORDER BY forecast_id"
        ).fetchall()


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_daily_flow_twice_same_day(prefect_harness, backfilled) -> None:
    from shu.demo import train_demo_model
    from shu.flows.daily import STAGES, daily_flow
    from shu.flows.ingest import NO_UNTRACKED_SOURCE
    from shu.flows.stages import settings_from

    out, overrides, server, backfill = backfilled
    settings = settings_from(overrides)
    db = out / "shu.duckdb"
    assert backfill.ok, backfill.message  # outside a flow: the same path as the flow's
    train_demo_model(
        db, settings, out / "probe.json", ("star_accel_reach", "star_velocity_interval"), (30,)
    )

    stage_lines = _Lines()
    STAGES.addHandler(stage_lines)
    STAGES.setLevel(logging.INFO)
    try:
        first = daily_flow(as_of=DAY, db=str(db), overrides=overrides)
    finally:
        STAGES.removeHandler(stage_lines)
    assert first["ingest"]["ok"], first["ingest"]["message"]
    # each stage's lines (the ingest's one per source), in order, as `shu daily` prints them
    assert stage_lines.lines == [
        f"{r['stage']}: {note}" for r in first.values() for note in (r["notes"] or [r["message"]])
    ]
    assert stage_lines.lines[0].startswith("ingest: GitHub: ")
    assert f"ingest: {NO_UNTRACKED_SOURCE}" in stage_lines.lines  # its own line
    assert NO_UNTRACKED_SOURCE in first["ingest"]["message"]  # nothing for the radar to load
    path = first["briefing"]["counts"]["path"]
    text = Path(path).read_text(encoding="utf-8")
    for section in SECTIONS:
        assert section in text, section
    # a section with nothing to say yet (no forecast resolved on a first run) is left out of the
    # body, and the appendix's first line says so
    left_out = next(
        (ln for ln in text.splitlines() if ln.startswith("Left out, having nothing")), ""
    )
    for heading in ("Calibration watch", "Track record"):
        assert f"## {heading}" in text or f"{heading} (" in left_out, heading
    assert text.startswith("> **SYNTHETIC DATA**")  # the stand-in serves generated repositories
    issued = _forecasts(db)
    assert issued, "the flow issued no forecast"
    assert "star_velocity_interval" in {row[2] for row in issued}
    assert "28-day pace on " in text and "80% likely between" in text  # the interval leads

    with open_store(db, read_only=True) as store:
        briefing_id = store.con.execute("SELECT briefing_id FROM briefings").fetchall()[0][0]
        receipts = stored_receipts(store, briefing_id)
        assert len(receipts) > 10
        assert {r.kind for r in receipts} >= {"row", "passage"}
        assert [resolve(store, r) for r in receipts] == [None] * len(receipts)

    server.clear_requests()
    second = daily_flow(as_of=DAY, db=str(db), overrides=overrides)
    assert _forecasts(db) == issued
    assert second["briefing"]["counts"]["path"] == path
    # The re-run only asked GitHub whether anything changed.
    assert server.requests and all(
        r.conditional for r in server.requests if "/repos/" in r.path and r.path.count("/") > 3
    )
    with open_store(db, read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM briefings").fetchall()[0][0] == 1


def test_github_unreachable_briefs_from_the_store(prefect_harness, backfilled) -> None:
    from shu.flows.daily import daily_flow

    out, overrides, _, _ = backfilled
    offline = {**overrides, "github_api_url": "http://127.0.0.1:9", "github_retries": 0}
    result = daily_flow(as_of=date(2026, 3, 4), db=str(out / "shu.duckdb"), overrides=offline)
    assert not result["ingest"]["ok"]
    assert "GitHub unreachable" in result["ingest"]["message"]
    assert "\n" not in result["ingest"]["message"]
    # the same outage reads the same whichever repository's request failed first
    assert "/repos/OWNER/NAME" in result["ingest"]["message"]
    assert not any(r.repo in result["ingest"]["message"] for r in synthetic_sample(DAY, 11).tracked)
    text = Path(result["briefing"]["counts"]["path"]).read_text(encoding="utf-8")
    assert "GitHub unreachable" in text
    assert "**Stale data:**" in text
