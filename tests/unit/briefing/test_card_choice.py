"""Which question a card asks: least known beforehand among those the model says something about,
never an undeclared one outside 10-90%, declared ones always; ROCm cards only with ROCm activity."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

import pandas as pd

from shu.briefing.choice import MARGIN, SHOWN, choose_cards, departure
from shu.settings import DeclaredQuestion
from shu.signals.rocm_facts import rocm_activity

REPO = "acme/platform"


def _f(
    template: str,
    p: float,
    base: float | None,
    horizon: int = 30,
    threshold: float = 1.0,
    repo: str = REPO,
) -> dict:
    return {
        "repo": repo,
        "template": template,
        "horizon_days": horizon,
        "probability": p,
        "base_rate": base,
        "threshold": threshold,
        "forecast_id": f"{repo}-{template}-{horizon}-{threshold}",
    }


def _skilled(*keys: str):
    def gate(template: str, horizon: int) -> tuple[bool, str]:
        ok = f"{template}/{horizon}" in keys
        return ok, "skill above zero" if ok else "no walk-forward backtest is recorded"

    return gate


ALL = _skilled(
    "star_accel_reach/30",
    "star_velocity_up/30",
    "star_gain/30",
    "star_gain/7",
    "star_velocity_interval/30",
    "rocm_share_reach/30",
    "rocm_release_mention/30",
)


def _choose(forecasts, questions=(), skill=ALL, rocm_active=lambda _repo: True):
    return choose_cards(forecasts, [REPO], list(questions), skill, rocm_active)


def test_the_least_known_question_where_the_model_departs_is_asked():
    forecasts = [
        _f("star_accel_reach", 0.85, 0.80),  # departs little from a known answer
        _f("star_velocity_up", 0.70, 0.42),  # departs, base rate near 0.5
        _f("star_gain", 0.35, 0.12),  # departs, base rate far from 0.5
        _f("star_gain", 0.50, 0.49, horizon=7),
    ]  # nearest 0.5, but says nothing
    [card] = _choose(forecasts)
    assert card.forecast["template"] == "star_velocity_up" and not card.declared
    assert card.skilled and departure(card.forecast) >= MARGIN


def test_no_undeclared_card_outside_ten_to_ninety_percent():
    rng = random.Random(5)
    templates = ["star_accel_reach", "star_velocity_up", "star_gain"]
    for _ in range(300):
        forecasts = [
            _f(rng.choice(templates), rng.random(), rng.uniform(0.01, 0.99), threshold=float(i))
            for i in range(rng.randint(1, 6))
        ]
        forecasts.append(_f("star_velocity_interval", 0.8, None))
        for card in _choose(forecasts):
            assert not card.declared
            if card.forecast is not None:
                assert SHOWN[0] <= card.forecast["probability"] <= SHOWN[1]
                assert departure(card.forecast) >= MARGIN


def test_none_qualifies_the_card_leads_with_the_interval_alone():
    interval = _f("star_velocity_interval", 0.8, None)
    forecasts = [
        _f("star_accel_reach", 0.97, 0.60),  # outside 10-90%
        _f("star_velocity_up", 0.70, None),  # no base rate stored
        _f("star_gain", 0.40, 0.40),  # no departure
        _f("star_accel_fall", 0.30, 0.60),  # departs, but no demonstrated skill
        interval,
    ]
    [card] = _choose(forecasts)
    assert card.forecast is None and card.interval == interval and card.headline == interval
    assert "the range leads" in card.why
    # an interval without demonstrated skill still leads the card, which says so
    [card] = _choose(forecasts, skill=_skilled("star_accel_reach/30"))
    assert card.interval == interval and not card.skilled
    assert _choose(forecasts[:-1]) == []  # no question qualifies and no interval: no card


def test_declared_questions_get_their_card_whatever_the_probability_and_skill():
    declared = DeclaredQuestion(repo=REPO, template="star_accel_fall", threshold=-2.0, horizon=30)
    forecasts = [
        _f("star_velocity_up", 0.70, 0.42),
        _f("star_accel_fall", 0.97, 0.60, threshold=-2.0),
    ]
    [card] = _choose(forecasts, [declared])
    assert card.declared and card.forecast["template"] == "star_accel_fall"
    assert not card.skilled and "no walk-forward backtest" in card.skill_reason


def test_rocm_cards_only_with_rocm_activity_or_a_declared_question():
    forecasts = [
        _f("star_velocity_up", 0.70, 0.42),
        _f("rocm_share_reach", 0.30, 0.10, threshold=0.05),
    ]
    kinds = [c.kind for c in _choose(forecasts, rocm_active=lambda _repo: True)]
    assert kinds == ["star", "rocm"]
    assert [c.kind for c in _choose(forecasts, rocm_active=lambda _repo: False)] == ["star"]
    declared = DeclaredQuestion(repo=REPO, template="rocm_share_reach", threshold=0.05, horizon=30)
    cards = _choose(forecasts, [declared], rocm_active=lambda _repo: False)
    assert [(c.kind, c.declared) for c in cards] == [("star", False), ("rocm", True)]
    # active but no ROCm question says anything (at its base rate): no ROCm card
    quiet = [forecasts[0], _f("rocm_share_reach", 0.10, 0.10, threshold=0.05)]
    assert [c.kind for c in _choose(quiet)] == ["star"]


def test_rocm_activity_counts_the_last_year_of_commits_and_release_notes(store):
    day = date(2026, 2, 28)

    def commit(i: int, when: datetime, rocm: bool, repo: str = REPO) -> dict:
        return {
            "repo": repo,
            "sha": f"{i:040x}",
            "committed_at": when,
            "subject": "s",
            "topics": [],
            "touches_rocm": rocm,
            "source": "git",
        }

    store.upsert(
        "commits",
        pd.DataFrame(
            [
                commit(1, datetime(2025, 1, 10), True),  # over a year before: not counted
                commit(2, datetime(2025, 6, 1), False),
                commit(3, datetime(2026, 2, 1), True, "acme/other"),
                commit(4, datetime(2026, 3, 5), True),
            ]
        ),
    )  # after the day: not counted
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": REPO,
                    "tag": "v1",
                    "name": "v1",
                    "published_at": datetime(2025, 9, 1),
                    "is_prerelease": False,
                    "body": "Adds MI300 support via ROCm 6.",
                    "source": "git",
                },
                {
                    "repo": REPO,
                    "tag": "v0",
                    "name": "v0",
                    "published_at": datetime(2024, 9, 1),
                    "is_prerelease": False,
                    "body": "ROCm builds.",
                    "source": "git",
                },
            ]
        ),
    )
    act = rocm_activity(store, REPO, day)
    assert (act.commits, act.releases, act.active) == (0, 1, True)
    assert not rocm_activity(store, REPO, date(2024, 6, 1)).active
    assert rocm_activity(store, "acme/other", day).commits == 1
    assert store.con.execute(act.commits_sql, act.params).fetchone()[0] == act.commits


def test_the_newest_model_supersedes_per_template_at_the_latest_origin(filled, settings, day):
    from shu.forecast.records import latest_forecasts

    def row(fid: str, template: str, version: str, hour: int, origin=day) -> dict:
        return {
            "forecast_id": fid,
            "repo": REPO,
            "template": template,
            "origin": origin,
            "horizon_days": 30,
            "resolves_on": origin + timedelta(days=30),
            "threshold": 0.5,
            "question": "q",
            "probability": 0.6,
            "confidence": "low",
            "model_version": version,
            "features": "{}",
            "drivers": "[]",
            "receipts": "[]",
            "issued_at": datetime(2026, 2, 28, hour),
        }

    filled.upsert(
        "forecasts",
        pd.DataFrame(
            [
                row("retrained", "star_accel_reach", "test-2", 8),  # supersedes test-1's
                row("merged", "rocm_release_mention", "rocm-1", 9),  # another model, other template
                row("radar", "star_breakout", "radar-1", 10),  # the radar's: its own section
                row("older", "star_gain", "test-1", 5, day - timedelta(days=1)),
            ]
        ),
    )
    got = {
        (f["repo"], f["template"]): f["model_version"]
        for f in latest_forecasts(filled, [REPO, "acme/runtime"], day)
    }
    assert got == {
        (REPO, "star_accel_reach"): "test-2",
        (REPO, "rocm_release_mention"): "rocm-1",
        ("acme/runtime", "star_accel_reach"): "test-1",
    }
