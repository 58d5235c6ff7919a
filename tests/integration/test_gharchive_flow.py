"""The GH Archive fan-out flow on a real 2-worker Dask LocalCluster: workers parse, flow writes."""

from __future__ import annotations

import os
from datetime import date

import pytest
from support.gharchive_files import generate_days

from shu.store import open_store

pytest.importorskip("prefect_dask", reason="needs the optional extra: pip install 'shu[dask]'")


def test_gharchive_flow_on_a_two_worker_dask_cluster(prefect_harness, tmp_path) -> None:
    from shu.flows.ingest import run_gharchive_flow

    _, truth = generate_days(
        tmp_path / "hours", date(2026, 6, 1), days=1, events_per_day=2400, n_repos=30
    )
    db = tmp_path / "shu.duckdb"
    with open_store(db) as store:  # an anchor, so the fold has something to derive
        repo = max(truth.stars, key=lambda r: truth.stars[r])[0]
        store.con.execute(
            "INSERT INTO stars_daily (repo, day, stars, source) VALUES "
            "(?, DATE '2026-05-31', 1000, 'ranking')",
            [repo],
        )
    overrides = {
        "task_runner": "dask",
        "dask_workers": 2,
        "gharchive_batch_files": 6,
        "aliases": {},
    }
    result = run_gharchive_flow(db, [str(tmp_path / "hours")], overrides)
    assert result["ok"], result["message"]
    assert result["batches"] == 4
    pids = {w.rsplit(":", 1)[1] for w in result["workers"]}
    assert pids and str(os.getpid()) not in pids  # parsed in Dask worker processes
    assert result["folded"] == {"removed": 0, "written": 1}
    with open_store(db, read_only=True) as store:
        stars = dict(
            ((r, d), n)
            for r, d, n in store.con.execute(
                "SELECT repo, day, stars_added FROM stars_added_daily"
            ).fetchall()
        )
        assert stars == dict(truth.stars)
        assert store.con.execute(
            "SELECT stars FROM stars_daily WHERE repo = ? AND source = 'gharchive'", [repo]
        ).fetchall()[0][0] == (1000 + truth.stars[(repo, date(2026, 6, 1))])
    again = run_gharchive_flow(db, [str(tmp_path / "hours")], overrides)
    assert again["batches"] == 0 and "24 already loaded" in again["message"]


def test_daily_ingest_stage_loads_gharchive_paths_on_threads(prefect_harness, tmp_path) -> None:
    from prefect import flow

    from shu.flows import ingest
    from shu.settings import load_settings

    _, truth = generate_days(
        tmp_path / "hours", date(2026, 6, 2), days=1, events_per_day=480, n_repos=10
    )
    overrides = {"repos": [], "aliases": {}, "gharchive_paths": [str(tmp_path / "hours")]}

    @flow
    def ingest_only() -> dict:
        settings = load_settings(**overrides)
        return ingest.ingest(
            tmp_path / "s.duckdb", settings, date(2026, 6, 2), False, overrides
        ).as_dict()

    report = ingest_only()
    assert report["ok"] and "GH Archive: 24 files loaded" in report["message"]
    with open_store(tmp_path / "s.duckdb", read_only=True) as store:
        assert store.con.execute("SELECT sum(stars_added) FROM stars_added_daily").fetchall()[0][
            0
        ] == sum(truth.stars.values())
