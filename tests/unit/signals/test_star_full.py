"""The full refresh of star_signals checks every recomputed row against the stored one and writes
only what differs: nothing over current signals, the repositories that differ after an edit, and
every row when most differ. Whatever it writes, the table ends equal to the pandas reference."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest
from support.signal_data import (
    START,
    assert_same_signals,
    insert_observations,
    signals_frame,
    stars_frame,
)

from shu.errors import StoreError
from shu.settings import get_settings
from shu.signals import refresh_signals, star_full
from shu.signals.reference import star_signals_reference


def full(store) -> dict:
    return refresh_signals(store, full=True, settings=get_settings())["star_signals"]


def rows_of(store, *repos: str) -> int:
    marks = ", ".join("?" for _ in repos)
    return store.con.execute(
        f"SELECT count(*) FROM star_signals WHERE repo IN ({marks})", list(repos)
    ).fetchone()[0]


def assert_equals_reference(store) -> None:
    assert_same_signals(signals_frame(store), star_signals_reference(stars_frame(store)))


def test_full_over_current_signals_writes_nothing(synthetic_store):
    first = full(synthetic_store)
    assert first["rows"] == rows_of(synthetic_store, "lin/ear", "quad/ratic", "sho/rt") > 0
    again = full(synthetic_store)
    assert again["mode"] == "full" and again["rows"] == 0
    assert "3 repositories recomputed, 0 differed" in again["reason"]
    assert_equals_reference(synthetic_store)


def test_full_rewrites_only_the_repositories_that_differ(synthetic_store):
    full(synthetic_store)
    con = synthetic_store.con
    con.execute(
        "UPDATE star_signals SET velocity_7d = velocity_7d + 1 WHERE repo = 'lin/ear' AND day = ?",
        [START + timedelta(days=30)],
    )
    con.execute(
        "DELETE FROM star_signals WHERE repo = 'sho/rt' AND day = ?", [START + timedelta(days=105)]
    )
    con.execute("INSERT INTO star_signals (repo, day, stars) VALUES ('gone/repo', ?, 1)", [START])
    result = full(synthetic_store)
    assert "3 repositories recomputed, 3 differed" in result["reason"]
    assert result["rows"] == rows_of(synthetic_store, "lin/ear", "sho/rt")  # quad/ratic kept
    assert rows_of(synthetic_store, "gone/repo") == 0
    assert_equals_reference(synthetic_store)


def test_full_writes_every_row_when_the_first_slice_mostly_differs(synthetic_store):
    full(synthetic_store)
    synthetic_store.con.execute("UPDATE star_signals SET stars_age_days = stars_age_days + 100")
    result = full(synthetic_store)
    assert "most rows differed, every row written" in result["reason"]
    assert result["rows"] == rows_of(synthetic_store, "lin/ear", "quad/ratic", "sho/rt")
    assert_equals_reference(synthetic_store)


def test_full_writes_every_row_when_most_differ_after_the_first_slice(synthetic_store, monkeypatch):
    """Slices of ~50 observations: the first (lin/ear) is unchanged, so every slice is checked;
    quad/ratic, most of the rows, differs: every row is written."""
    monkeypatch.setattr(star_full, "SLICE_ROWS", 50)
    full(synthetic_store)
    synthetic_store.con.execute("UPDATE star_signals SET gap = NOT gap WHERE repo = 'quad/ratic'")
    result = full(synthetic_store)
    assert "3 repositories recomputed, 1 differed, every row written" in result["reason"]
    assert_equals_reference(synthetic_store)


def test_full_inside_a_transaction_checks_on_its_connection(synthetic_store):
    """Inside the caller's transaction the stored rows are digested on its connection (another
    would not see what the transaction wrote)."""
    full(synthetic_store)
    with synthetic_store.transaction():
        synthetic_store.con.execute("DELETE FROM star_signals WHERE repo = 'sho/rt'")
        result = full(synthetic_store)
    assert "1 differed" in result["reason"] and result["rows"] == rows_of(synthetic_store, "sho/rt")
    assert_equals_reference(synthetic_store)


def test_a_failure_in_a_later_slice_leaves_the_table(synthetic_store, monkeypatch):
    """A repository whose changes cannot be summed exactly, in a slice DuckDB is reading: one
    clear error, star_signals as it was."""
    monkeypatch.setattr(star_full, "SLICE_ROWS", 50)
    full(synthetic_store)
    before = signals_frame(synthetic_store)
    jump = [("zz/jump", START + timedelta(days=i), 0 if i < 10 else 20_000_000) for i in range(20)]
    insert_observations(synthetic_store, pd.DataFrame(jump, columns=["repo", "day", "stars"]))
    with pytest.raises(StoreError, match="cannot be summed exactly") as caught:
        full(synthetic_store)
    assert "\n" not in str(caught.value)
    assert_same_signals(signals_frame(synthetic_store), before)
