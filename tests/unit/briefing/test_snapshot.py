"""Analysts read while a flow writes: `shu sql` falls back to the snapshot the flow refreshes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

from shu.errors import StoreError
from shu.snapshot import open_for_reading, open_for_writing, refresh_snapshot, snapshot_path
from shu.store import open_store

HOLD = textwrap.dedent("""
    import sys, time
    from shu.store import open_store
    store = open_store(sys.argv[1])
    store.con.execute("INSERT INTO repos (repo) VALUES ('late/write')")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
""")


def _hold_write_lock(path, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def _store_with_snapshot(store_path):
    with open_store(store_path) as store:
        store.upsert("repos", pd.DataFrame({"repo": ["a/b", "c/d"]}))
        refresh_snapshot(store)
    return snapshot_path(store_path)


def test_reader_uses_snapshot_while_a_writer_holds_the_store(store_path) -> None:
    snap = _store_with_snapshot(store_path)
    assert snap.exists()
    proc = _hold_write_lock(store_path, 20)
    try:
        store, note = open_for_reading(store_path)
        with store:
            assert note is not None and "snapshot" in note
            repos = store.con.execute("SELECT repo FROM repos ORDER BY repo").fetchall()
        assert repos == [("a/b",), ("c/d",)]  # the snapshot, not the half-done write
    finally:
        proc.kill()
        proc.wait()


def test_shu_sql_works_during_a_run(store_path) -> None:
    _store_with_snapshot(store_path)
    proc = _hold_write_lock(store_path, 20)
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "shu",
                "sql",
                "select count(*) AS n from repos",
                "--csv",
                "--db",
                str(store_path),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        proc.kill()
        proc.wait()
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["n", "2"]
    assert "reading its snapshot" in out.stderr


def test_without_a_snapshot_the_lock_error_is_one_line(store_path) -> None:
    with open_store(store_path):
        pass
    proc = _hold_write_lock(store_path, 20)
    try:
        with pytest.raises(StoreError, match="being written by another process"):
            open_for_reading(store_path)
    finally:
        proc.kill()
        proc.wait()


def test_writer_waits_for_a_reader_to_finish(store_path) -> None:
    with open_store(store_path):
        pass
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
        import sys, time
        from shu.store import open_store
        s = open_store(sys.argv[1], read_only=True)
        print("reading", flush=True)
        time.sleep(1.5)
        """),
            str(store_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout is not None
    assert reader.stdout.readline().strip() == "reading"
    t0 = time.monotonic()
    with open_for_writing(store_path, wait_s=30) as store:
        store.con.execute("INSERT INTO repos (repo) VALUES ('x/y')")
    assert time.monotonic() - t0 >= 0.5
    reader.wait()
