"""Issue -> resolve -> score on a tiny store where every answer is known, including `void`."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import pytest

from shu.forecast.evaluation.model_card import band_track_record, write_model_card
from shu.forecast.evaluation.scoring import summarize
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.live.resolve import resolve_forecasts, track_record
from shu.forecast.models.artifact import model_path, save_forecasters
from shu.forecast.models.split import TrainingConfig
from shu.forecast.models.train import train_forecasters
from shu.settings import TrackedRepo, load_settings

TEMPLATES = ("star_accel_reach", "star_velocity_up")
VOID_REPO = "org03/repo03"


def _expected(signals, repo, template, origin, horizon, threshold):
    """The answer computed independently from the synthetic series."""
    s = signals[signals["repo"] == repo].set_index("day")
    if template == "star_velocity_up":
        end = origin + timedelta(days=horizon)
        if end not in s.index:
            return "void"
        return "yes" if s.loc[end, "velocity_28d"] > threshold else "no"
    window = [origin + timedelta(days=i) for i in range(1, horizon + 1)]
    values = [s.loc[d, "acceleration_28d"] for d in window if d in s.index]
    if len(values) < horizon:
        return "void"
    return "yes" if any(v >= threshold for v in values) else "no"


def test_issue_resolve_score_end_to_end(synthetic_store, synthetic, tmp_path):
    store = synthetic_store
    signals = synthetic
    last = signals["day"].max()
    repos = sorted(signals["repo"].unique())[:6]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "models"
    )
    config = TrainingConfig(cal_days=56, train_days=400)
    result = train_forecasters(
        store, templates=TEMPLATES, horizons=(7,), config=config, log=lambda _m: None
    )
    assert {(f.template, f.horizon_days) for f in result.forecasters} == {(t, 7) for t in TEMPLATES}
    artifact = save_forecasters(model_path(settings), result.forecasters, result.version)
    # a backtest slice where the high band was right 8 times out of 10
    p = np.array([0.9] * 8 + [0.1] * 2 + [0.5] * 4)
    o = np.array([1] * 8 + [1] * 2 + [0, 1, 0, 1])
    metrics = summarize(
        o, p, np.full(14, 0.5), np.full(14, 0.5), list("abcdefghijklmn"), n_boot=20
    ) | {"n_repos": 14, "n_void": 1}
    # ... of them 4 on repositories gaining 20 or more stars a day, 3 right
    fast = {"n": 4, "right": 3, "hit_rate": 0.75}
    metrics["by_velocity"] = {">=20": {"n": 6, "bands": [{"band": "high", **fast}]}}
    write_model_card(
        settings.models_dir,
        result,
        artifact,
        backtest={
            "config": {"start": "2024-01-01", "end": "2024-02-01"},
            "slices": {"star_velocity_up/7": metrics},
        },
    )
    overall = {"n": 10, "right": 8, "hit_rate": 0.8, "velocity_band": None}
    assert band_track_record(settings.models_dir, "star_velocity_up", 7, "high") == overall
    # the card keeps the slice's velocity bands: a repository's own band where measured
    assert band_track_record(settings.models_dir, "star_velocity_up", 7, "high", ">=20") == {
        **fast,
        "velocity_band": ">=20",
    }
    assert band_track_record(settings.models_dir, "star_velocity_up", 7, "high", "<1") == overall
    assert "star_velocity_up/7" in (settings.models_dir / "forecaster.md").read_text()

    origin = last - timedelta(days=7)
    issued = issue_forecasts(store, origin=origin, settings=settings)
    assert len(issued) == len(repos) * len(TEMPLATES)
    for f in issued:
        assert 0.0 < f.probability < 1.0
        assert f.confidence in ("low", "medium", "high")
        assert f.resolves_on == last
        drivers = json.loads(f.drivers)
        assert drivers and {"feature", "value", "sign", "contribution"} <= set(drivers[0])
        assert json.loads(f.receipts)[0]["table"] == "star_signals"
    # same day, same model: nothing new, nothing edited
    before = store.con.execute("SELECT * FROM forecasts ORDER BY forecast_id").fetchall()
    assert issue_forecasts(store, origin=origin, settings=settings) == []
    assert store.con.execute("SELECT * FROM forecasts ORDER BY forecast_id").fetchall() == before

    # not resolvable yet: the resolution day is not loaded / not reached
    assert resolve_forecasts(store, as_of=last - timedelta(days=1))["pending"] == len(issued)
    # the resolution day's data of one repository goes missing -> its questions are void
    store.con.execute("DELETE FROM star_signals WHERE repo = ? AND day = ?", [VOID_REPO, last])
    signals = signals[~((signals["repo"] == VOID_REPO) & (signals["day"] == last))]

    counts = resolve_forecasts(store, as_of=last)
    assert counts["pending"] == 0
    assert counts["void"] >= 1
    assert sum(counts[k] for k in ("yes", "no", "void")) == len(issued)
    rows = store.con.execute("""SELECT f.repo, f.template, f.threshold, r.outcome, f.probability
        FROM forecasts f JOIN forecast_resolutions r USING (forecast_id)""").fetchall()
    for repo, template, threshold, outcome, _ in rows:
        assert outcome == _expected(signals, repo, template, origin, 7, threshold), (repo, template)
    assert ("star_velocity_up", "void") in {(t, o) for r, t, _, o, _ in rows if r == VOID_REPO}
    assert resolve_forecasts(store, as_of=last) == {"yes": 0, "no": 0, "void": 0, "pending": 0}

    record = {(r["template"], r["horizon_days"]): r for r in track_record(store)}
    for template in TEMPLATES:
        mine = [(p, o) for _, t, _, o, p in rows if t == template]
        scored = [(p, 1.0 if o == "yes" else 0.0) for p, o in mine if o != "void"]
        rec = record[(template, 7)]
        assert rec["n"] == len(scored)
        assert rec["n_void"] == sum(o == "void" for _, o in mine)
        assert rec["brier"] == pytest.approx(np.mean([(p - o) ** 2 for p, o in scored]))
        assert sum(b["n"] for b in rec["bands"]) == len(scored)
