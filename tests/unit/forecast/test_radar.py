"""The breakout radar end to end on a made-up market of 40 repositories, some of which break out:
trained on the store, issued for every repository (at the newest day their counts were observed),
listed by probability with drivers in words whose every number has a receipt that resolves, its
record scored once forecasts resolve, and `shu radar` as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
from support.radar_market import DAYS, START, TRACKED, market

import shu
from shu.forecast.features import feature_names
from shu.forecast.live.issue import issue_forecasts, radar_origin
from shu.forecast.live.resolve import resolve_forecasts
from shu.forecast.models.train import train_forecasters
from shu.forecast.radar import entries as radar_mod
from shu.receipts import ReceiptBook, resolve
from shu.settings import Settings, TrackedRepo, get_settings
from shu.signals import refresh_signals
from shu.store import open_store


@pytest.fixture(scope="module")
def radar_store(tmp_path_factory):
    s = open_store(tmp_path_factory.mktemp("radar") / "shu.duckdb")
    s.upsert("stars_daily", market().assign(source="test"))
    refresh_signals(s, full=True, settings=get_settings())
    settings = Settings(repos=[TrackedRepo(repo=TRACKED, category="platform")], questions=[])
    origin = START + timedelta(days=DAYS - 1)
    trained = train_forecasters(
        s, templates=("star_breakout",), horizons=(30,), log=lambda _line: None
    )
    fc, version = trained.forecasters[0], trained.version
    issued = issue_forecasts(
        s, origin=origin, settings=settings, forecasters=[fc], model_version=version
    )
    yield s, settings, origin, fc, version, issued
    s.close()


def test_issued_for_every_repository_at_the_newest_observed_day(radar_store):
    s, settings, origin, fc, version, issued = radar_store
    others = origin - timedelta(days=10)  # the untracked counts stop 10 days before the origin
    assert radar_origin(s, origin, [TRACKED]) == others
    eligible = s.con.execute(
        "SELECT count(*) FROM star_signals WHERE day = ? AND velocity_28d IS NOT NULL", [others]
    ).fetchone()[0]
    assert eligible == 40 and len(issued) == 40
    assert {f.origin for f in issued} == {others}
    assert all(f.template == "star_breakout" for f in issued)
    # append-only: the same day again issues nothing
    assert (
        issue_forecasts(
            s, origin=origin, settings=settings, forecasters=[fc], model_version=version
        )
        == []
    )


def test_radar_lists_by_probability_with_drivers_in_words(radar_store):
    s, *_ = radar_store
    entries = radar_mod.radar(s, top=10)
    assert len(entries) == 10
    probabilities = [e.probability for e in entries]
    assert probabilities == sorted(probabilities, reverse=True)
    assert len(set(probabilities)) > 1  # the model tells repositories apart
    identifiers = set(feature_names("star_breakout"))
    worded = [d for e in entries for d in e.drivers]
    assert worded, "no driver could be worded"
    for d in worded:
        assert not any(name in d.text for name in identifiers), d.text
        assert any(ch.isdigit() for ch in d.text) and d.citations
        # what a statement says on its own, whichever way the model counts it
        if d.text.startswith("the 28-day pace rose") or (" ran " in d.text and "above" in d.text):
            assert d.reads is True, d.text
        if d.text.startswith("the 28-day pace fell") or (" ran " in d.text and "below" in d.text):
            assert d.reads is False, d.text
        if d.text.startswith("a breakout needs"):
            assert d.reads is False, d.text  # the bar is above the pace it needs to leave
        if d.text.endswith("stars in all"):
            assert d.reads is None, d.text
        # only a store fact (its size, its days in the store's data): not shown as a reason
        fact = d.text.endswith("stars in all") or d.text.startswith("in the store's star data")
        assert d.store_fact is fact, d.text
        # about the whole store or the repository's peers, not the repository: not shown either
        wide = d.text.startswith("across the store") or "repositories are accelerating" in d.text
        wide = wide or "peers' are accelerating" in d.text
        assert d.store_wide is wide, d.text
    assert {d.reads for d in worded} - {None}, "no statement read either way"
    untracked = radar_mod.radar(s, top=100, exclude=[TRACKED])
    assert len(untracked) == 39 and TRACKED not in {e.repo for e in untracked}


def test_every_number_has_a_receipt_that_resolves(radar_store):
    s, *_ = radar_store
    book = ReceiptBook()
    for e in radar_mod.radar(s, top=10):
        for c in e.citations():
            book.cite(c)
    assert book.receipts
    failures = [why for r in book.receipts if (why := resolve(s, r))]
    assert failures == []


def test_json_shapes(radar_store):
    s, *_ = radar_store
    entries = radar_mod.radar(s, top=3)
    assert len(entries) == 3
    full = json.loads(json.dumps(entries[0].as_json()))
    assert full["bar"] >= 10 and full["receipts"][0]["table"] == "forecasts"


def test_radar_record_once_forecasts_resolve(tmp_path, radar_store):
    s, settings, origin, fc, version, _ = radar_store
    assert radar_mod.radar_record(s, origin) is None  # nothing resolved yet
    # issue on earlier origins whose horizon has passed, then resolve them
    for back in (120, 113, 106, 99):
        issue_forecasts(
            s,
            origin=origin - timedelta(days=back),
            settings=settings,
            forecasters=[fc],
            model_version=version,
        )
    resolve_forecasts(s, as_of=origin)
    record = radar_mod.radar_record(s, origin, n_boot=200)
    assert record["n_origins"] == 4 and record["n"] > 100
    for k, p in record["precision"].items():
        assert 0 <= p["low"] <= p["mean"] <= p["high"] <= 1, k
    assert record["brier"]["low"] <= record["brier"]["mean"] <= record["brier"]["high"]
    count = s.con.execute(f"SELECT count(*) FROM ({record['sql']})", record["params"]).fetchone()[0]
    assert count == record["n"]


def test_shu_radar_cli(radar_store, tmp_path):
    s, *_ = radar_store
    s.con.execute("CHECKPOINT")
    copy = tmp_path / "copy.duckdb"  # the fixture's connection holds the original's write lock
    shutil.copy(s.path, copy)
    env = {**os.environ, "COLUMNS": "200", "SHU_DB": str(copy)}
    run = subprocess.run(
        [sys.executable, "-m", "shu", "radar", "--top", "5", "--json", "--all"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert run.returncode == 0, run.stderr
    listed = json.loads(run.stdout)
    assert len(listed) == 5 and listed[0]["drivers"]
    # the notebook API runs the same operation and gets the same entries
    assert json.loads(json.dumps(shu.radar(db=copy, top=5, filtered=False))) == listed
    assert "left out" not in run.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "shu", "radar", "--as-of", "yesterday"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert bad.returncode == 1 and "--as-of 'yesterday'" in bad.stderr


def test_shu_radar_keeps_by_topic_unless_all(radar_store, tmp_path):
    """By default only repositories whose name or description carries a radar keyword are
    listed, with how many were left out; --all lists every one."""
    s, *_ = radar_store
    s.con.execute("CHECKPOINT")
    copy = tmp_path / "copy.duckdb"
    shutil.copy(s.path, copy)
    described = {"mark/et-03": "LLM app development platform", "mark/et-07": "Quantized GGUF"}
    with open_store(copy) as c:
        c.upsert(
            "repos",
            pd.DataFrame([{"repo": r, "description": d} for r, d in described.items()]),
        )
    env = {**os.environ, "COLUMNS": "200", "SHU_DB": str(copy)}

    def radar(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "shu", "radar", "--top", "40", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=Path(__file__).resolve().parents[3],
        )

    kept = radar("--json")
    assert kept.returncode == 0, kept.stderr
    assert sorted(e["repo"] for e in json.loads(kept.stdout)) == sorted(described)
    assert "left out 38 of 40 repositories" in kept.stderr and "--all" in kept.stderr
    every = radar("--json", "--all")
    assert len(json.loads(every.stdout)) == 40
    table = radar()
    assert table.returncode == 0, table.stderr
    assert "mark/et-03" in table.stdout and "mark/et-01 " not in table.stdout
    assert "left out 38 of 40" in " ".join(table.stdout.split())
