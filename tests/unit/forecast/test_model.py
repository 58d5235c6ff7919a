"""A bagged, calibrated forecaster survives the skops round trip with its predictions unchanged,
and its version changes with any fitted parameter. The fits of the estimator at its real
settings (members, rare events, trees as arrays) are in tests/integration/test_estimator_fits.py:
tens of CPU-seconds together."""

from __future__ import annotations

import numpy as np
from support.forecast_data import labelled_frame

from shu.forecast.models import estimator
from shu.forecast.models.artifact import load_forecasters, save_forecasters
from shu.forecast.models.forecaster import _logit, _occluded_probabilities, fit_forecaster
from shu.forecast.questions.registry import template


def test_a_template_fits_its_logistic_with_its_own_penalty():
    fit, cal = labelled_frame(1000, 1), labelled_frame(400, 2)
    for name in ("rocm_share_reach", "rocm_release_mention"):
        fc = fit_forecaster(name, 30, ["a", "b", "c"], fit, cal, "logistic")
        frozen = fc.model.calibrated_classifiers_[0].estimator.estimator
        assert template(name).logistic_c == frozen[-1].C
    assert template("rocm_share_reach").logistic_c < template("rocm_release_mention").logistic_c


def test_a_bagged_forecaster_round_trips_through_skops(monkeypatch, tmp_path):
    monkeypatch.setattr(estimator, "MEMBER_ROWS", 400)
    fit, cal = labelled_frame(1000, 1), labelled_frame(400, 2)
    fc = fit_forecaster("star_velocity_up", 30, ["a", "b", "c"], fit, cal)
    path = save_forecasters(tmp_path / "f.skops", [fc], "v1")
    version, (loaded,) = load_forecasters(path)
    assert version == "v1" and loaded.features == ["a", "b", "c"]
    np.testing.assert_allclose(loaded.predict(cal), fc.predict(cal))
    from shu.forecast.models.trees import BoostedTrees

    (vote,) = estimator._votes(loaded.model)  # saved as the members' trees' arrays
    assert len(vote.members_) == 3
    assert all(isinstance(m, BoostedTrees) for m in vote.members_)
    assert loaded.drivers(cal.head(2))[0]  # occlusion drivers work through the vote
    # the drivers (the vote's trees re-traversed only where they split on the occluded feature)
    # equal those of every (row, feature) pair predicted, rows already at a median included
    rows = cal.head(12).reset_index(drop=True)
    rows.loc[:5, "a"] = loaded.reference[0]
    rows.loc[3:8, "b"] = loaded.reference[1]
    x = estimator.model_matrix(rows, loaded.features)
    base = _logit(loaded.model.predict_proba(x)[:, 1])
    full = []
    for j in range(x.shape[1]):
        moved = x.copy()
        moved[:, j] = loaded.reference[j]
        full.append(base - _logit(loaded.model.predict_proba(moved)[:, 1]))
    expected = [
        [(loaded.features[j], round(float(full[j][i]), 4)) for j in range(3) if full[j][i] != 0]
        for i in range(len(rows))
    ]
    assert _occluded_probabilities(loaded.model, x, loaded.reference) is not None  # that path
    got = [sorted((d["feature"], d["contribution"]) for d in row) for row in loaded.drivers(rows)]
    assert got == [sorted(e) for e in expected]
    assert all(not any(d["feature"] == "a" for d in row) for row in loaded.drivers(rows)[:6])


def test_skops_is_imported_without_torch_and_leaves_torch_importable():
    """Loading a model costs no torch import (skops' walk over sklearn's packages would import
    it), and torch stays importable afterwards for the probe."""
    import subprocess
    import sys

    script = (
        "import importlib.util, sys\n"
        "from shu.forecast.models.artifact import skops_io\n"
        "sio = skops_io()\n"
        "assert sio.loads(sio.dumps({'a': 1})) == {'a': 1}\n"
        "print('torch' in sys.modules, importlib.util.find_spec('torch') is not None)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "True"]


def test_the_version_changes_with_any_fitted_parameter(monkeypatch):
    from datetime import date

    from shu.forecast.models.train import version_of

    monkeypatch.setattr(estimator, "MEMBER_ROWS", 400)
    fit, cal = labelled_frame(1000, 1), labelled_frame(400, 2)
    windows = {"star_velocity_up/30": {"fit_origins": ["a", "b"]}}
    day = date(2026, 2, 28)

    def version(seed: int) -> str:
        fc = fit_forecaster("star_velocity_up", 30, ["a", "b", "c"], fit, cal, seed=seed)
        return version_of(day, "hgb", windows, [fc])

    assert version(0) == version(0)  # a refit that changes nothing keeps its version
    assert version(1) != version(0)  # same windows, other members: a new version


def test_merging_keeps_the_saved_slices_of_models_not_retrained():
    from shu.forecast.models.artifact import merge_backtests

    saved = {
        "config": "star",
        "slices": {"star_gain/30": {"n": 1}, "rocm_share_reach/90": {"n": 2}},
    }
    rocm_only = {"config": None, "slices": {"rocm_share_reach/90": {"n": 3}}}
    merged = merge_backtests(rocm_only, saved, retrained={"rocm_share_reach/90"})
    assert merged == {
        "config": None,
        "slices": {"rocm_share_reach/90": {"n": 3}, "star_gain/30": {"n": 1}},
    }
    # a retrained model's old slice is dropped when the given backtest has none for it
    assert merge_backtests({"slices": {}}, saved, retrained={"star_gain/30"}) == {
        "slices": {"rocm_share_reach/90": {"n": 2}}
    }
    assert merge_backtests(None, saved, retrained=set()) is saved
