"""A briefing with no data says so and names the commands that load data, instead of a page of
dashes that reads like a quiet day; a day before the data is said to be one."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd

from shu.briefing.compose import compose_briefing
from shu.store import LOAD_COMMANDS, NO_DATA


def test_an_empty_store_gets_a_page_that_says_so(store, settings) -> None:
    result = compose_briefing(store, date(2026, 2, 28), settings, notices=["GitHub unreachable"])
    assert result.no_data and result.n_forecasts == 0 and result.stale_repos == []
    text = result.path.read_text(encoding="utf-8")
    assert text.startswith("# No data yet: nothing to brief")
    assert "· no data ·" in text and "data as of" not in text
    assert "**Notice:** GitHub unreachable" in text
    assert f"## No data yet\n\n{NO_DATA[0].upper()}{NO_DATA[1:]}" in text
    for command, _ in LOAD_COMMANDS:
        assert f"- `{command}` — " in text
    # shu's own code words stay code spans (not escaped backticks)
    assert "stand-in `python -m shu.testing.github_server` (README)" in text
    # none of the sections a day with data has: no table of dashes, no stale list
    for absent in ("## At a glance", "## Signals", "## Forecasts", "Stale data", "| — |"):
        assert absent not in text
    doc = json.loads(result.path.with_suffix(".json").read_text(encoding="utf-8"))
    assert doc["cards"] == [] and doc["radar"] is None
    assert doc["notes"]["cards"].startswith("no data: ")
    row = store.con.execute("SELECT title, n_forecasts FROM briefings").fetchone()
    assert row == ("No data yet: nothing to brief", 0)


def test_a_day_before_the_data_is_named(store, settings) -> None:
    store.upsert(
        "stars_daily",
        pd.DataFrame(
            {"repo": ["acme/platform"], "day": [date(2026, 1, 5)], "stars": [10], "source": "t"}
        ),
    )
    before = compose_briefing(store, date(2019, 1, 1), settings)
    assert before.no_data
    assert "The store's data starts on 2026-01-05, after this briefing's day" in (
        before.path.read_text(encoding="utf-8")
    )
    assert not compose_briefing(store, date(2026, 1, 6), settings).no_data
