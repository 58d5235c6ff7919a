"""Configured claim checks against the latest probe run per backend: verdicts follow the
numbers."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta

from shu.evidence.claims import (
    CONTRADICTED,
    SUPPORTED,
    UNTESTABLE,
    configured_specs,
    evaluate_claims,
)
from shu.probe_ingest import store_probe_document


def _by(checks):
    return {(c.claim_id, c.backend): c for c in checks}


def test_empty_store_makes_every_claim_untestable(store):
    checks = evaluate_claims(store)
    assert {c.claim_id for c in checks} == {c.claim_id for c in configured_specs()}
    assert len(checks) == 6
    assert {c.verdict for c in checks} == {UNTESTABLE}


def test_claims_on_a_cpu_run_and_a_gpu_run(store, quick_run, h200_run):
    store_probe_document(store, quick_run, "cpu")
    store_probe_document(store, h200_run, "gpu")
    checks = _by(evaluate_claims(store))
    for backend, doc in (("cpu", quick_run), ("cuda", h200_run)):
        gm = doc["summary"]["geomean_speedup"]
        check = checks[("inductor_geomean_1_5x", backend)]
        assert check.verdict == (SUPPORTED if gm >= 1.5 else CONTRADICTED)
        assert check.measured == gm and check.run_id == doc["run_id"]
        assert f"{gm:.2f}x" in check.evidence
        assert checks[("torch_build_supports_rocm", backend)].verdict == CONTRADICTED
        ln = next(r for r in doc["results"] if r["kernel"] == "layernorm_gelu")
        check = checks[("layernorm_gelu_30pct_copy_bw", backend)]
        assert check.verdict == (SUPPORTED if ln["fraction_of_ceiling"] >= 0.30 else CONTRADICTED)
        assert f"{100 * ln['fraction_of_ceiling']:.0f}%" in check.evidence
    assert checks[("rocm_inductor_geomean_1_5x", "rocm")].verdict == UNTESTABLE
    assert checks[("naive_attention_fused_to_sdpa_speed", "cpu")].verdict == UNTESTABLE
    naive = next(r for r in h200_run["results"] if r["kernel"] == "naive_attention")
    sdpa = next(r for r in h200_run["results"] if r["kernel"] == "sdpa")
    ratio = naive["compiled"]["median_ms"] / sdpa["eager"]["median_ms"]
    check = checks[("naive_attention_fused_to_sdpa_speed", "cuda")]
    assert check.measured == ratio
    assert check.verdict == (SUPPORTED if ratio <= 1.10 else CONTRADICTED)


def test_only_the_latest_run_per_backend_counts(store, quick_run):
    store_probe_document(store, quick_run, "cpu")
    later = copy.deepcopy(quick_run)
    later["run_id"] = quick_run["run_id"] + "-later"
    started = datetime.fromisoformat(quick_run["started_at"]) + timedelta(hours=1)
    later["started_at"] = started.isoformat()
    ln = next(r for r in later["results"] if r["kernel"] == "layernorm_gelu")
    ln.update(is_valid=False, correct=False, speedup=None, invalid_reason="incorrect: test")
    store_probe_document(store, later, "cpu, later")
    checks = _by(evaluate_claims(store))
    check = checks[("layernorm_gelu_30pct_copy_bw", "cpu")]
    assert check.run_id == later["run_id"]
    assert check.verdict == UNTESTABLE
    assert "not valid (incorrect: test)" in check.evidence
