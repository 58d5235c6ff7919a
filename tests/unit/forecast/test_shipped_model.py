"""The committed model (models/forecaster.skops) matches the code: it loads under the type
check, every model's features exist, and it issues star, interval and ROCm adoption forecasts
for a tracked repository with stars and commits, which is what `shu daily` does with it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd

from shu.forecast.features import feature_names
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.models.artifact import load_forecasters
from shu.settings import TrackedRepo, load_settings

MODELS = Path(__file__).resolve().parents[3] / "models"


def test_shipped_model_loads_and_its_card_matches():
    version, forecasters = load_forecasters(MODELS / "forecaster.skops")
    card = json.loads((MODELS / "forecaster.json").read_text(encoding="utf-8"))
    assert version == card["version"]
    keys = {f"{f.template}/{f.horizon_days}" for f in forecasters}
    assert keys == set(card["models"])
    for f in forecasters:
        known = feature_names(f.template)
        assert set(f.features) <= set(known), f"{f.template}: features the code no longer makes"
    assert {"star_velocity_up/30", "star_velocity_interval/30", "rocm_share_reach/90"} <= keys


def test_shipped_model_issues_star_interval_and_rocm_forecasts(
    synthetic_store, synthetic, tmp_path
):
    repo = sorted(synthetic["repo"].unique())[0]
    last = synthetic["day"].max()
    t0 = datetime.combine(last - timedelta(days=400), datetime.min.time())
    synthetic_store.upsert(
        "commits",
        pd.DataFrame(
            [
                {
                    "repo": repo,
                    "sha": f"c{i}",
                    "committed_at": t0 + timedelta(days=i, hours=9),
                    "subject": "hip: fix kernel" if i % 9 == 0 else "work",
                    "parents": 1,
                    "is_mainline": True,
                    "touches_rocm": i % 9 == 0,
                    "source": "history",
                }
                for i in range(401)
            ]
        ),
    )  # through the origin: the share is defined on it
    settings = load_settings(repos=[TrackedRepo(repo=repo, category="test")], models_dir=MODELS)
    issued = issue_forecasts(synthetic_store, origin=last, settings=settings)
    templates = {f.template for f in issued}
    assert {"star_velocity_up", "star_velocity_interval", "rocm_share_reach"} <= templates
    assert all(0.0 < f.probability < 1.0 for f in issued)
