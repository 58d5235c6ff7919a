"""The notebook API (`import shu; shu.connect()` …) and `shu export`, on a real filled store."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import duckdb
import pandas as pd
import pytest

import shu
from shu.errors import InputError
from shu.notebook import analyst_tables
from shu.snapshot import refresh_snapshot
from shu.store import open_store

HOLD = textwrap.dedent("""
    import sys, time
    from shu.store import open_store
    store = open_store(sys.argv[1])
    print("locked", flush=True)
    time.sleep(30)
""")


@pytest.fixture
def db(filled):
    """The filled store's path, closed so that readers can open it."""
    path = filled.path
    filled.close()
    return path


def test_connect_is_read_only(db):
    con = shu.connect(db)
    assert con.execute("SELECT count(*) FROM forecasts").fetchone()[0] == 9
    with pytest.raises(duckdb.Error, match="read-only"):
        con.execute("DELETE FROM forecasts")
    con.close()


def test_notebook_names_are_functions_and_packages_are_packages():
    """One name, one thing: the notebook helpers are functions of their own, and the signals
    package is a plain module (no longer callable as a helper)."""
    import types

    import shu.notebook
    import shu.signals

    for name in ("connect", "star_signals", "forecasts", "track_record", "radar", "export_tables"):
        assert getattr(shu, name) is getattr(shu.notebook, name)
        assert isinstance(getattr(shu, name), types.FunctionType)
    assert type(shu.signals) is types.ModuleType and not callable(shu.signals)


def test_helpers_return_dataframes(db):
    con = shu.connect(db)
    sig = shu.star_signals("acme/platform", "2026-02-01", con=con)
    assert isinstance(sig, pd.DataFrame)
    assert sig["repo"].unique().tolist() == ["acme/platform"]
    assert str(sig["day"].min().date()) == "2026-02-01" and sig["day"].is_monotonic_increasing
    assert {"velocity_28d", "acceleration_28d"} <= set(sig.columns)
    with pytest.raises(InputError, match="no star signals for 'nope/nope'"):
        shu.star_signals("nope/nope", con=con)
    fc = shu.forecasts(con=con)
    assert len(fc) == 9 and fc["outcome"].notna().sum() == 6
    assert shu.forecasts("acme/runtime", con=con)["repo"].unique().tolist() == ["acme/runtime"]
    tr = shu.track_record(con=con)
    assert len(tr) == 6
    expected = (tr["probability"] - tr["outcome"]) ** 2
    assert (tr["brier"] - expected).abs().max() < 1e-12
    assert tr.loc[tr["probability"] == 0.85, "right_as_predicted"].all()
    con.close()


def test_connect_reads_the_snapshot_while_a_run_holds_the_store(db):
    with open_store(db) as store:
        refresh_snapshot(store)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.warns(UserWarning, match="reading its snapshot"):
            con = shu.connect(db)
        assert len(shu.track_record(con=con)) == 6
        con.close()
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_shu_export_writes_every_analyst_table(db, tmp_path, fmt):
    out = tmp_path / "export"
    proc = subprocess.run(
        [sys.executable, "-m", "shu", "export", str(out), "--format", fmt, "--db", str(db)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    tables = analyst_tables(con)
    assert {"stars_daily", "star_signals", "forecasts", "forecast_resolutions"} <= set(tables)
    # shu's own bookkeeping (the ETags of GitHub responses) is not an analyst table
    assert "http_cache" not in tables and not (out / f"http_cache.{fmt}").exists()
    assert (
        con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'http_cache'"
        ).fetchone()[0]
        == 1
    )
    for name in tables:
        path = out / f"{name}.{fmt}"
        reader = "read_parquet" if fmt == "parquet" else "read_csv_auto"
        stored = con.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
        assert (
            con.execute(f"SELECT count(*) FROM {reader}(?)", [str(path)]).fetchone()[0] == stored
        ), name
    con.close()
    assert not list(out.glob("*.partial"))


def test_export_rejects_a_bad_format_and_an_unknown_table(db, tmp_path):
    with pytest.raises(InputError, match="--format 'xlsx'"):
        shu.export_tables(tmp_path, "xlsx", db=db)
    with pytest.raises(InputError, match="no table nope"):
        shu.export_tables(tmp_path, "csv", tables=["nope"], db=db)


def test_connect_is_confined_to_the_store(tmp_path) -> None:
    """`shu.connect()` is the analyst connection of `shu sql`: no file reachable through it."""
    db = tmp_path / "s.duckdb"
    open_store(db).close()
    con = shu.connect(db)
    try:
        with pytest.raises(Exception, match="disabled by configuration"):
            con.execute(f"COPY (SELECT 1) TO '{tmp_path / 'x.csv'}'")
        assert not (tmp_path / "x.csv").exists()
    finally:
        con.close()


def test_helpers_without_con_share_the_connection_of_connect(db, tmp_path) -> None:
    """The README's `con = shu.connect(); shu.star_signals(...)`: one connection per store in
    the process, reused by every helper called without `con=`; closed, the next call opens a
    new one. An export while it is open says in one line what to do."""
    con = shu.connect(db)
    try:
        assert shu.connect(db) is con
        assert len(shu.star_signals("acme/platform", db=db)) > 0
        assert len(shu.forecasts(db=db)) == 9 and len(shu.track_record(db=db)) == 6
        with pytest.raises(InputError, match=r"close that connection first \(con\.close\(\)\)"):
            shu.export_tables(tmp_path / "out", db=db)
    finally:
        con.close()
    again = shu.connect(db)
    try:
        assert again is not con and len(shu.track_record(db=db)) == 6
    finally:
        again.close()
    assert shu.export_tables(tmp_path / "out", db=db)
