"""The skill gate: a template x horizon is chosen for cards only when its recorded walk-forward
skill's 95% interval lies above zero against every baseline it has."""

from __future__ import annotations

import json
from datetime import date

from shu.forecast.evaluation.model_card import write_model_card
from shu.forecast.evaluation.skill_gate import demonstrated_skill
from shu.forecast.models.train import TrainResult


def _ci(value, low, high):
    return {"value": value, "low": low, "high": high}


SLICES = {
    "star_velocity_up/30": {
        "n": 1000,
        "ci95": {
            "bss_climatology": _ci(0.20, 0.19, 0.21),
            "bss_persistence": _ci(0.24, 0.23, 0.25),
        },
    },
    "rocm_release_mention/30": {
        "n": 4911,
        "ci95": {
            "bss_climatology": _ci(0.56, 0.51, 0.61),
            "bss_persistence": _ci(0.02, -0.035, 0.07),
        },
    },
    "rocm_first_commit/90": {
        "n": 1683,
        "ci95": {
            "bss_climatology": _ci(-0.23, -0.44, -0.08),
            "bss_persistence": _ci(-0.3, -0.5, -0.07),
        },
    },
    "rocm_first_commit/30": {"n": 0, "status": "too few resolved questions to score: 8 events"},
    "star_velocity_interval/30": {
        "n": 500,
        "coverage": {"0.8": 0.8},
        "ci95": {"crps_skill_persistence": _ci(0.30, 0.29, 0.31)},
    },
    "star_velocity_interval/90": {"n": 500, "coverage": {"0.8": 0.8}},
}


def _models_dir(tmp_path):
    (tmp_path / "forecaster.json").write_text(json.dumps({"backtest": {"slices": SLICES}}))
    return tmp_path


def test_skill_above_zero_against_every_baseline_is_demonstrated(tmp_path):
    models = _models_dir(tmp_path)
    shown = demonstrated_skill("star_velocity_up", 30, models)
    assert shown.demonstrated and "climatology" in shown.reason and "persistence" in shown.reason
    assert demonstrated_skill("star_velocity_interval", 30, models).demonstrated


def test_each_way_of_lacking_skill_is_held_back_with_its_reason(tmp_path):
    models = _models_dir(tmp_path)
    mention = demonstrated_skill("rocm_release_mention", 30, models)
    assert not mention.demonstrated
    assert "against persistence (+0.020 [-0.035, +0.070])" in mention.reason
    assert "climatology" not in mention.reason  # it does beat climatology
    first = demonstrated_skill("rocm_first_commit", 90, models)
    assert not first.demonstrated and "climatology" in first.reason
    assert "8 events" in demonstrated_skill("rocm_first_commit", 30, models).reason
    assert "no walk-forward backtest" in demonstrated_skill("star_gain", 7, models).reason
    assert (
        "no confidence interval" in demonstrated_skill("star_velocity_interval", 90, models).reason
    )
    assert not demonstrated_skill("star_velocity_up", 30, tmp_path / "absent").demonstrated


def test_model_card_lists_what_is_held_back_and_why(tmp_path):
    interval = {
        "n": 500,
        "n_repos": 9,
        "coverage": {"0.5": 0.5, "0.8": 0.8, "0.95": 0.95},
        "crps": 0.8,
        "crps_persistence": 1.2,
        "crps_skill_persistence": 0.3,
        "ci95": {"crps_skill_persistence": _ci(0.30, 0.29, 0.31)},
    }
    slices = {
        "star_velocity_interval/30": interval,
        "rocm_first_commit/30": SLICES["rocm_first_commit/30"],
        "rocm_first_commit/90": {  # backtested, no model
            **SLICES["rocm_first_commit/90"],
            "n_repos": 17,
            "base_rate": 0.07,
            "brier": 0.08,
            "bss_climatology": -0.23,
            "bss_persistence": -0.3,
            "ece": 0.09,
            "n_void": 52,
            "bands": [{"band": "high", "n": 1496, "hit_rate": 0.93}],
        },
    }
    result = TrainResult(
        "v1",
        date(2026, 2, 28),
        [],
        windows={
            key: {
                "fit_origins": ["a", "b"],
                "calibration_origins": ["c", "d"],
                "fit_rows": 1,
                "calibration_rows": 1,
                "fit_base_rate": 0.5,
                "features": ["x"],
            }
            for key in ("star_velocity_interval/30", "rocm_first_commit/30", "star_gain/7")
        },
    )
    _, md = write_model_card(
        tmp_path, result, tmp_path / "absent.skops", {"config": {}, "slices": slices}
    )
    text = md.read_text()
    assert "## Skill gate" in text
    assert "Shown: CRPS skill of star_velocity_interval/30 above zero" in text
    assert "- rocm_first_commit/30: rocm_first_commit/30 was not scored: too few" in text
    assert "- star_gain/7: no walk-forward backtest of star_gain/7 is recorded" in text
    held, unshipped = text.split("Held back:")[1].split("Backtested but not shipped")
    assert "rocm_first_commit/90" not in held
    assert "- rocm_first_commit/90: Brier skill of rocm_first_commit/90 not above zero" in unshipped
    assert "rocm_first_commit/30:" not in unshipped  # it has a model: held back above


def test_model_card_carries_the_watch_of_the_newest_backtest_block(tmp_path):
    block = {
        "origins": ["2026-01-03", "2026-01-24"],
        "n": 400,
        "bands": {
            "low": {"n": 100, "hit_rate": 0.6, "mean_confidence": 0.57},
            "medium": {"n": 100, "hit_rate": 0.72, "mean_confidence": 0.72},
            "high": {"n": 200, "hit_rate": 0.70, "mean_confidence": 0.87},
        },
    }
    older = {**block, "origins": ["2025-11-01", "2025-12-20"]}
    slices = {
        "star_velocity_up/30": {
            "n": 800,
            "n_repos": 9,
            "n_void": 0,
            "base_rate": 0.4,
            "brier": 0.2,
            "bss_climatology": 0.2,
            "bss_persistence": 0.2,
            "ece": 0.01,
            "bands": [{"band": "high", "n": 200, "hit_rate": 0.7}],
            "ci95": {"bss_climatology": _ci(0.2, 0.19, 0.21)},
            "blocks": {"block_weeks": 8, "blocks": [older, block], "worst": older},
        }
    }
    result = TrainResult("v1", date(2026, 2, 28), [], windows={})
    json_path, md = write_model_card(
        tmp_path, result, tmp_path / "absent.skops", {"config": {}, "slices": slices}
    )
    card = json.loads(json_path.read_text())["backtest"]["slices"]["star_velocity_up/30"]
    assert "blocks" not in card and card["newest_block"] == block
    text = md.read_text()
    assert "## Calibration watch (newest 8 weeks of the backtest)" in text
    high = next(x for x in text.splitlines() if "| high band |" in x)
    assert high.startswith(
        "| star_velocity_up/30 | 2026-01-03 .. 2026-01-24 | high band | 200 | 0.870 | 0.700 ["
    ) and high.endswith("| off |")
    medium = next(x for x in text.splitlines() if "| medium band |" in x)
    assert medium.endswith("|  |")
