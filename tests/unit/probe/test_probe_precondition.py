"""The GPU pre-conditioning rule (pure), and what the committed H200 run records about it."""

from __future__ import annotations

import math

import pytest

from shu.probe.runner import CV_TARGET, summarize_results
from shu.probe.timing import Precondition, is_settled, window_spread

RULE = Precondition(min_ms=1000.0, max_ms=3500.0, window_ms=1000.0, tolerance=0.02)


def test_window_spread_uses_only_the_last_rounds():
    medians = [2.0, 1.0, 1.00, 1.01, 1.005]
    assert window_spread(medians, 6) is None
    assert math.isclose(window_spread(medians, 3), 0.01)
    assert math.isclose(window_spread(medians, 4), 0.01)
    assert math.isclose(window_spread(medians, 5), 1.0)


def test_settled_needs_the_minimum_load_and_every_variant_steady():
    steady = [1.0, 1.001, 0.999, 1.0, 1.002]
    assert is_settled({"eager": steady, "compiled": steady}, 5, 1200.0, RULE)
    # before min_ms of load a steady-looking window (boost clocks, cap not yet reached) is not
    assert not is_settled({"eager": steady, "compiled": steady}, 5, 800.0, RULE)
    # one variant still moving (a clamp inside the window) keeps the GPU under load
    clamped = [1.0, 1.0, 1.18, 1.0, 1.0]
    assert not is_settled({"eager": steady, "compiled": clamped}, 5, 2000.0, RULE)
    # too few rounds yet
    assert not is_settled({"eager": steady[:3], "compiled": steady[:3]}, 5, 2000.0, RULE)


def test_cpu_runs_do_not_precondition(quick_run):
    assert quick_run["settings"]["precondition"] is None
    assert quick_run["ceilings"]["precondition_ms"] is None
    assert all("precondition_ms" not in r for r in quick_run["results"])
    summary = quick_run["summary"]
    assert summary["cv_target"] == CV_TARGET
    over = [
        r["kernel"]
        for r in quick_run["results"]
        if max(r["eager"]["cv"], r["compiled"]["cv"]) > CV_TARGET
    ]
    assert summary["kernels_over_cv_target"] == over


def test_the_h200_run_records_its_preconditioning(h200_run):
    if "precondition" not in h200_run["settings"]:
        pytest.skip("the committed H200 run predates pre-conditioning")
    rule = Precondition(**h200_run["settings"]["precondition"])
    assert h200_run["ceilings"]["precondition_ms"] >= rule.min_ms
    for r in h200_run["results"]:
        conditioned = r["launch"]["precondition"]
        assert r["precondition_ms"] == conditioned["precondition_ms"] >= rule.min_ms
        # the committed run's recorded trace, read back (no time is measured here): its
        # rounds in order, the last within the pre-conditioning it reports
        recorded = [t["elapsed_ms"] for t in conditioned["trace"]]
        assert recorded == sorted(recorded)
        assert recorded[-1] <= conditioned["precondition_ms"]
        assert {"sm_clock_mhz", "power_w"} <= set(conditioned["trace"][-1])
        if conditioned["settled"]:
            assert all(s <= rule.tolerance for s in conditioned["window_spread"].values())
        else:  # stopped by the time limit (plus the round in flight)
            assert recorded[-1] >= rule.max_ms
    summary = summarize_results(h200_run["results"])
    assert summary["max_cv"] == h200_run["summary"]["max_cv"]
    assert summary["kernels_over_cv_target"] == h200_run["summary"]["kernels_over_cv_target"]
