"""`shu backtest`, `shu train`, `shu forecast`, `shu resolve` as a user runs them.

The backtest and the star model trained with it (`star_model`) are made once for the module:
the first test checks them and forecasts with them, the second merges ROCm models into a copy.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli import shu
from support.forecast_data import history_store, synthetic_signals

from shu.signals.star_days import refresh_star_days
from shu.store import open_store


@dataclass
class StarModel:
    """A synthetic store, its `shu backtest --json` run and the `shu train` made with it."""

    db: Path
    bt: Path
    metrics: dict
    models: Path


@pytest.fixture(scope="module")
def star_model(tmp_path_factory) -> StarModel:
    tmp = tmp_path_factory.mktemp("star_model")
    db = tmp / "shu.duckdb"
    with open_store(db) as store:
        store.upsert("star_signals", synthetic_signals())
        refresh_star_days(store)
    out = shu(
        "backtest",
        "--from",
        "2024-01-01",
        "--to",
        "2024-02-10",
        "--horizon",
        "7",
        "--template",
        "star_velocity_up",
        "--refit-weeks",
        "8",
        "--json",
        "--out",
        str(tmp / "bt"),
        db=db,
    )
    assert out.returncode == 0, out.stderr
    models = tmp / "models"
    trained = shu(
        "train",
        "--models-dir",
        str(models),
        "--horizon",
        "7",
        "--template",
        "star_velocity_up,release_within",
        "--backtest",
        str(tmp / "bt" / "backtest.json"),
        db=db,
    )
    assert trained.returncode == 0, trained.stderr
    return StarModel(db, tmp / "bt", json.loads(out.stdout), models)


def test_backtest_json_train_forecast_resolve(star_model: StarModel):
    db = star_model.db
    s = star_model.metrics["slices"]["star_velocity_up/7"]
    assert s["n"] > 100 and s["n_repos"] == 24 and s["n_refits"] == 1
    assert 0 <= s["ece"] <= 1 and s["ci95"]["brier"]["low"] <= s["brier"]
    assert sum(b["n"] for b in s["bands"]) == s["n"]
    assert (star_model.bt / "reliability.png").stat().st_size > 1000

    bad = shu("backtest", "--from", "2024-13-01", "--to", "2024-02-10", db=db)
    assert bad.returncode == 1 and "--from '2024-13-01'" in bad.stderr

    models = star_model.models
    assert (models / "forecaster.skops").stat().st_size < 5_000_000
    card = json.loads((models / "forecaster.json").read_text())
    assert set(card["models"]) == {"star_velocity_up/7"}
    assert set(card["skipped"]) == {"release_within/7"}  # no release history in the store
    assert card["backtest"]["slices"]["star_velocity_up/7"]["n"] == s["n"]

    repos = json.dumps(
        [{"repo": "org01/repo01", "category": "x"}, {"repo": "org02/repo02", "category": "x"}]
    )
    out = shu(
        "forecast", "--origin", "2024-02-10", db=db, SHU_MODELS_DIR=str(models), SHU_REPOS=repos
    )
    assert out.returncode == 0, out.stderr
    assert "2 new forecasts" in out.stdout
    again = shu(
        "forecast", "--origin", "2024-02-10", db=db, SHU_MODELS_DIR=str(models), SHU_REPOS=repos
    )
    assert "0 new forecasts" in again.stdout
    out = shu("resolve", "--as-of", "2024-02-16", db=db)
    assert "pending: 2" in out.stdout  # resolves on 2024-02-17
    out = shu("resolve", "--as-of", "2024-02-17", db=db)
    assert out.returncode == 0, out.stderr
    assert "pending: 0" in out.stdout


def test_train_rocm_from_a_history_store_merges_into_the_star_model(
    star_model: StarModel, tmp_path
):
    """`shu train --merge` adds the ROCm models (logistic whatever --estimator says) to a saved
    star model, keeps its models and backtest, and a re-run replaces rather than duplicates."""
    from shu.forecast.models.artifact import load_forecasters

    models = tmp_path / "models"  # a copy: the module's star model stays as trained
    shutil.copytree(star_model.models, models)
    star_card = json.loads((models / "forecaster.json").read_text())

    history = tmp_path / "history.duckdb"
    history_store(history)
    alone = shu(
        "train",
        "--models-dir",
        str(tmp_path / "alone"),
        "--horizon",
        "30",
        "--template",
        "rocm_release_mention",
        db=history,
    )
    assert alone.returncode == 0, alone.stderr  # trains as of the newest commit: no stars needed
    for _ in range(2):
        out = shu(
            "train",
            "--models-dir",
            str(models),
            "--horizon",
            "30",
            "--template",
            "rocm_release_mention",
            "--merge",
            db=history,
        )
        assert out.returncode == 0, out.stderr
        card = json.loads((models / "forecaster.json").read_text())
        assert set(card["models"]) == {"star_velocity_up/7", "rocm_release_mention/30"}
        assert card["models"]["star_velocity_up/7"] == star_card["models"]["star_velocity_up/7"]
        assert card["backtest"] == star_card["backtest"]
        assert card["version"] != star_card["version"]
        version, forecasters = load_forecasters(models / "forecaster.skops")
        assert version == card["version"]
        by_key = {f"{f.template}/{f.horizon_days}": f for f in forecasters}
        assert sorted(by_key) == sorted(card["models"]) and len(forecasters) == 2
        assert by_key["rocm_release_mention/30"].estimator == "logistic"
        assert card["models"]["rocm_release_mention/30"]["trained_through"] == "2023-12-29"

    empty = shu(
        "train",
        "--models-dir",
        str(tmp_path / "none"),
        "--template",
        "rocm_first_commit",
        "--merge",
        db=history,
    )
    assert empty.returncode == 1 and "--merge: no saved model" in empty.stderr
