"""The track record scores yes/no forecasts only; interval forecasts (stored as "the 80%
interval holds" at p = 0.8) get their own line: observed coverage of each central interval."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pandas as pd
import pytest

from shu.briefing.compose import compose_briefing
from shu.briefing.sections.track import TRACK_WINDOW_DAYS, track_record
from shu.receipts import resolve, stored_receipts

# (held_50, held_80, held_95) of four resolved interval forecasts: coverage 25%, 75%, 100%
HELD = [(True, True, True), (False, True, True), (False, True, True), (False, False, True)]


def _resolved(
    fid: str, repo: str, template: str, origin, threshold: float, p: float, yes: bool, value: float
) -> tuple[dict, dict]:
    """A forecast issued on `origin` at 30 days and its resolution (a row of each table)."""
    forecast = {
        "forecast_id": fid,
        "repo": repo,
        "template": template,
        "origin": origin,
        "horizon_days": 30,
        "resolves_on": origin + timedelta(days=30),
        "threshold": threshold,
        "question": "q",
        "probability": p,
        "confidence": "high" if max(p, 1 - p) >= 0.8 else "low",
        "model_version": "test-1",
        "features": "{}",
        "drivers": "[]",
        "receipts": "[]",
        "issued_at": datetime(2026, 1, 1, 6),
    }
    resolution = {
        "forecast_id": fid,
        "outcome": "yes" if yes else "no",
        "observed_value": value,
        "detail": "",
        "resolved_at": datetime(2026, 2, 26, 6),
    }
    return forecast, resolution


def _add_resolved_intervals(store, settings, day) -> None:
    repo = settings.repos[0].repo
    forecasts, resolutions, intervals = [], [], []
    for k, held in enumerate(HELD):
        fid, origin = f"iv-{k}", day - timedelta(days=35 + k)
        forecast, resolution = _resolved(
            fid, repo, "star_velocity_interval", origin, 22.0, 0.8, held[1], 20.0
        )
        forecasts.append(forecast)
        resolutions.append(resolution)
        intervals.append(
            {
                "forecast_id": fid,
                "observed_value": 20.0,
                "held_50": held[0],
                "held_80": held[1],
                "held_95": held[2],
                "crps": 1.0,
                "resolved_at": datetime(2026, 2, 26, 6),
            }
        )
    store.upsert("forecasts", pd.DataFrame(forecasts))
    store.upsert("forecast_resolutions", pd.DataFrame(resolutions))
    store.upsert("interval_resolutions", pd.DataFrame(intervals))


def test_interval_forecasts_do_not_enter_the_yes_no_scores(filled, settings, day) -> None:
    before = track_record(filled, day, TRACK_WINDOW_DAYS)
    assert before.n > 0 and before.intervals is None
    _add_resolved_intervals(filled, settings, day)
    after = track_record(filled, day, TRACK_WINDOW_DAYS)
    assert (
        after.n,
        after.n_void,
        after.brier,
        after.observed_rate,
        after.skill,
        after.ece,
        after.bands,
        after.pairs,
    ) == (
        before.n,
        before.n_void,
        before.brier,
        before.observed_rate,
        before.skill,
        before.ece,
        before.bands,
        before.pairs,
    )
    assert after.intervals is not None
    assert after.intervals.n == len(HELD)
    assert after.intervals.coverage == {50: 0.25, 80: 0.75, 95: 1.0}


def test_briefing_shows_interval_coverage_with_receipts(filled, settings, day) -> None:
    _add_resolved_intervals(filled, settings, day)
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    section = text[text.index("### Track record in full") :]  # after the body
    assert "Ranges, scored apart" in section
    # the coverage is stated once, in the table, not again in the prose
    assert section.count("75.0%") + section.count(" 75% ") == 1
    for nominal, observed in (("50%", "25.0%"), ("80%", "75.0%"), ("95%", "100.0%")):
        line = next(x for x in section.splitlines() if x.startswith(f"| {nominal} |"))
        assert f"| {observed} [R" in line
    receipts = stored_receipts(filled, result.briefing_id)
    labels = {
        r.label
        for r in receipts
        if r.table == "interval_resolutions" and "watch window" not in r.label
    }  # (the calibration watch cites its own)
    assert labels == {
        "resolved interval forecasts in window",
        *(f"observed coverage of the {v}% intervals" for v in (50, 80, 95)),
    }
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_skill_in_percent_agrees_with_the_two_brier_scores_shown() -> None:
    """The note shows both Brier scores with 3 decimals; the "% better" is what a reader gets
    from those two figures (0.124 against 0.135: 8%), not from the unrounded ones (8.5%: 9%)."""
    from shu.briefing.sections.track import TrackRecord, skill_words

    track = TrackRecord(None, [], brier=0.1237, observed_rate_brier=0.1352)
    assert skill_words(track) == "8% better"
    assert skill_words(TrackRecord(None, [], brier=0.15, observed_rate_brier=0.12)) == "25% worse"
    assert skill_words(TrackRecord(None, [], brier=0.1, observed_rate_brier=0.0)) == (
        "nothing to compare it with"
    )


# Resolved radar forecasts on two days: (probability, broke out) of 12 repositories each; the
# top 10 of the first day hold 3 breakouts, of the second 1; one more broke out outside them.
RADAR_DAYS = {
    35: [(0.5 - 0.02 * i, i in (0, 4, 9, 11)) for i in range(12)],
    42: [(0.4 - 0.02 * i, i == 2) for i in range(12)],
}


def test_radar_record_line_gives_its_receipt_and_the_base_rate(filled, settings, day) -> None:
    """Track record's radar line: the top 10's hit rate with the SELECT that reproduces it, and
    the base rate it is read against (the share of all the radar's resolved forecasts of those
    days that broke out), with its own."""
    forecasts, resolutions = [], []
    for back, rows in RADAR_DAYS.items():
        origin = day - timedelta(days=back)
        for i, (p, yes) in enumerate(rows):
            fid = f"radar-{back}-{i}"
            forecast, resolution = _resolved(
                fid, f"other/repo-{i:02d}", "star_breakout", origin, 10.0, p, yes, 1.0
            )
            forecasts.append(forecast)
            resolutions.append(resolution)
    filled.upsert("forecasts", pd.DataFrame(forecasts))
    filled.upsert("forecast_resolutions", pd.DataFrame(resolutions))
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    short = text[text.index("### Track record in full") :]  # after the body
    # top 10: 3 of 10, then 1 of 10: 20%; all: 5 of 24 broke out, 20.8%
    assert re.search(
        r"n = 24 \[R(\d+)\] resolved forecasts over the 2 days whose 30 days have passed, 5 "
        r"breakouts\. Of its top 10 on each of those days, 20% \[R(\d+)\] broke out, against "
        r"20\.8% \[R(\d+)\] of all of them\.",
        short,
    ), short
    assert short.count("24 [R") == 1  # the count is stated once
    receipts = stored_receipts(filled, result.briefing_id)
    labels = {r.label: r for r in receipts}
    top = labels["share of the radar's top 10 that broke out, averaged over its days"]
    base = labels["share of resolved radar forecasts that broke out"]
    assert float(top.value) == pytest.approx(0.2) and float(base.value) == pytest.approx(5 / 24)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)
