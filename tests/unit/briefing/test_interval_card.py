"""Forecast cards lead with the repository's velocity interval; questions read as questions;
interval forecasts are listed as intervals, never as the probability they are stored with."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pandas as pd

from shu.briefing.compose import compose_briefing
from shu.receipts import resolve, stored_receipts


def test_card_leads_with_the_interval_and_cites_it(filled, settings, day) -> None:
    repo = settings.repos[0].repo
    filled.upsert(
        "forecasts",
        pd.DataFrame(
            [
                {
                    "forecast_id": "iv-1",
                    "repo": repo,
                    "template": "star_velocity_interval",
                    "origin": day,
                    "horizon_days": 30,
                    "resolves_on": day + timedelta(days=30),
                    "threshold": 22.0,
                    "question": "q",
                    "probability": 0.8,
                    "confidence": "high",
                    "model_version": "test-1",
                    "features": "{}",
                    "drivers": "[]",
                    "receipts": "[]",
                    "issued_at": datetime(2026, 2, 28, 6),
                }
            ]
        ),
    )
    filled.upsert(
        "forecast_intervals",
        pd.DataFrame(
            [
                {
                    "forecast_id": "iv-1",
                    "quantity": "velocity_28d on resolves_on",
                    "unit": "stars/day",
                    "median": 24.1,
                    "lower_50": 21.5,
                    "upper_50": 26.9,
                    "lower_80": 18.9,
                    "upper_80": 30.2,
                    "lower_95": 15.0,
                    "upper_95": 35.5,
                }
            ]
        ),
    )
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    lead = "28-day pace expected then: 24.1 stars/day, 80% likely between 18.9 and 30.2"
    assert lead in text
    assert "95% likely 15.0–35.5" in result.path.with_suffix(".html").read_text()
    heading = next(line for line in text.splitlines() if line.startswith("### ") and repo in line)
    card = text[text.index(heading) :]
    # the question and its answer, then the range it expects, then how sure
    assert card.index("72% yes") < card.index(lead) < card.index("**How sure:**")
    doc = json.loads(result.path.with_suffix(".json").read_text())
    shown = next(c for c in doc["cards"] if c["repo"] == repo)
    assert (shown["threshold"], shown["comparator"]) == (0.5, ">=")
    assert shown["interval"]["forecast_id"] == "iv-1" and shown["interval"]["lower_80"] == 18.9
    receipts = stored_receipts(filled, result.briefing_id)
    assert any(r.table == "forecast_intervals" for r in receipts)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_sign_questions_read_as_turning() -> None:
    from shu.briefing.sections.cards import question_sentence

    f = {
        "repo": "a/b",
        "template": "star_accel_reach",
        "threshold": 0.0,
        "probability": 0.7,
        "horizon_days": 30,
        "resolves_on": "2026-03-30",
        "origin": "2026-02-28",
    }
    assert "acceleration turn positive within 30 days" in question_sentence(f)
    fall = f | {"template": "star_accel_fall", "probability": 0.2}
    assert "acceleration turn negative within 30 days" in question_sentence(fall)
    level = f | {"template": "star_accel_fall", "threshold": -2.0}
    assert "fall to -2.00 stars/day or less" in question_sentence(level)


def test_interval_forecasts_are_listed_as_intervals_not_probabilities(filled, settings, day):
    """In the table of all forecasts and in 'resolved since the last briefing', an interval
    forecast shows its median and 80% interval, and whether the value fell inside, never the
    0.8 it is stored with."""
    repo = settings.repos[0].repo
    rows = []
    for fid, origin in (("iv-old", day - timedelta(days=30)), ("iv-new", day)):
        rows.append(
            {
                "forecast_id": fid,
                "repo": repo,
                "template": "star_velocity_interval",
                "origin": origin,
                "horizon_days": 30,
                "resolves_on": origin + timedelta(days=30),
                "threshold": 22.0,
                "question": "q",
                "probability": 0.8,
                "confidence": "high",
                "model_version": "test-1",
                "features": "{}",
                "drivers": "[]",
                "receipts": "[]",
                "issued_at": datetime.combine(origin, datetime.min.time()),
            }
        )
    filled.upsert("forecasts", pd.DataFrame(rows))
    filled.upsert(
        "forecast_intervals",
        pd.DataFrame(
            [
                {
                    "forecast_id": fid,
                    "quantity": "velocity_28d on resolves_on",
                    "unit": "stars/day",
                    "median": m,
                    "lower_50": m - 2,
                    "upper_50": m + 2,
                    "lower_80": m - 5,
                    "upper_80": m + 5,
                    "lower_95": m - 9,
                    "upper_95": m + 9,
                }
                for fid, m in (("iv-old", 20.0), ("iv-new", 31.0))
            ]
        ),
    )
    filled.upsert(
        "forecast_resolutions",
        pd.DataFrame(
            [
                {
                    "forecast_id": "iv-old",
                    "outcome": "no",
                    "observed_value": 27.5,
                    "detail": "outside",
                    "resolved_at": datetime.combine(day, datetime.min.time()),
                }
            ]
        ),
    )
    text = compose_briefing(filled, day, settings).path.read_text()
    listed = next(
        line
        for line in text.splitlines()
        if line.startswith(f"| {repo} | star velocity: 28-day pace on 30 Mar 2026 | 30 |")
    )
    assert "median 31.00, 80%: 26.00–36.00" in listed and "80%" not in listed.split("|")[4][:5]
    assert listed.endswith("| range | `star_velocity_interval` |")
    resolved = next(
        line
        for line in text.splitlines()
        if line.startswith(f"| {repo} | star velocity | 30 | {day - timedelta(days=30)}")
    )
    assert "median 20.00, 80%: 15.00–25.00" in resolved and "outside 80%" in resolved
    assert "27.50" in resolved


def _velocity_pair(store, day, probability: float, threshold: float) -> dict:
    """A star_velocity_up question and the interval issued with it (same origin and model)."""
    base = {
        "repo": "a/b",
        "origin": day,
        "horizon_days": 30,
        "resolves_on": day + timedelta(days=30),
        "question": "q",
        "confidence": "medium",
        "model_version": "test-1",
        "features": "{}",
        "drivers": "[]",
        "receipts": "[]",
        "issued_at": datetime(2026, 2, 28, 6),
    }
    question = base | {
        "forecast_id": "q-1",
        "template": "star_velocity_up",
        "threshold": threshold,
        "probability": probability,
    }
    interval = base | {
        "forecast_id": "iv-1",
        "template": "star_velocity_interval",
        "threshold": 22.0,
        "probability": 0.8,
    }
    store.upsert("forecasts", pd.DataFrame([question, interval]))
    store.upsert(
        "forecast_intervals",
        pd.DataFrame(
            [
                {
                    "forecast_id": "iv-1",
                    "quantity": "velocity_28d on resolves_on",
                    "unit": "stars/day",
                    "median": 24.0,
                    "lower_50": 21.0,
                    "upper_50": 27.0,
                    "lower_80": 19.0,
                    "upper_80": 30.0,
                    "lower_95": 15.0,
                    "upper_95": 35.0,
                }
            ]
        ),
    )
    return question


def test_the_chance_an_interval_gives_a_threshold_is_read_between_its_quantiles() -> None:
    from shu.briefing.card.interval import asks_velocity, p_above

    iv = {
        "lower_95": 15.0,
        "lower_80": 19.0,
        "lower_50": 21.0,
        "median": 24.0,
        "upper_50": 27.0,
        "upper_80": 30.0,
        "upper_95": 35.0,
    }
    assert p_above(iv, 24.0) == 0.5
    assert abs(_said(iv, 25.5) - 0.375) < 1e-9  # halfway from the median to the 75% quantile
    assert abs(_said(iv, 20.0) - 0.825) < 1e-9
    assert abs(_said(iv, 10.0) - 0.975) < 1e-9 and abs(_said(iv, 50.0) - 0.025) < 1e-9
    assert p_above(iv | {"median": None}, 24.0) is None
    assert asks_velocity("star_velocity_up") and asks_velocity("star_breakout")
    assert not asks_velocity("star_gain") and not asks_velocity("star_accel_reach")
    assert not asks_velocity("star_velocity_interval")


def test_a_velocity_card_says_which_number_is_the_forecast_when_its_range_disagrees(
    store, day
) -> None:
    from shu.briefing.card.interval import interval_lead, velocity_reading
    from shu.receipts import ReceiptBook

    # the range gives 24 stars/day as its median: P(pace > 24) = 50%, the answer says 30%
    question = _velocity_pair(store, day, 0.30, 24.0)
    reading = velocity_reading(store, question)
    assert reading.p_interval == 0.5 and reading.agrees is False
    lead = str(interval_lead(store, ReceiptBook(), question)[0])
    assert lead.startswith("A separate range model puts the 28-day pace on 30 Mar 2026 at 24.0")
    assert "the chance of yes would be 50%" in lead and "the answer is the 30% above" in lead


def test_a_velocity_card_leads_with_its_range_when_both_agree(store, day) -> None:
    from shu.briefing.card.interval import interval_lead, velocity_reading
    from shu.receipts import ReceiptBook

    question = _velocity_pair(store, day, 0.52, 24.0)
    assert velocity_reading(store, question).agrees is True
    lead = str(interval_lead(store, ReceiptBook(), question)[0])
    # (its question, just before it, names the day)
    assert lead.startswith("28-day pace expected then: 24.0 stars/day, 80% likely between 19.0")


def _said(quantiles, x: float) -> float:
    """P(V > x) read from the interval's quantiles (`card.interval.p_above`), which has one."""
    from shu.briefing.card.interval import p_above

    p = p_above(quantiles, x)
    assert p is not None
    return p
