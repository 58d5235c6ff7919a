"""Configured claim checks against the latest probe run per backend: verdicts follow the
numbers."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import datetime, timedelta

from shu.evidence.claims import (
    CONTRADICTED,
    SUPPORTED,
    UNTESTABLE,
    ClaimSpec,
    configured_specs,
    evaluate_claims,
)
from shu.probe_ingest import store_probe_document
from shu.settings import get_settings


def _by(checks):
    return {(c.claim_id, c.backend): c for c in checks}


def test_empty_store_makes_every_claim_untestable(store):
    checks = evaluate_claims(store, settings=get_settings())
    assert {c.claim_id for c in checks} == {
        c.claim_id for c in configured_specs(settings=get_settings())
    }
    assert len(checks) == 6
    assert {c.verdict for c in checks} == {UNTESTABLE}


def test_claims_on_a_cpu_run_and_a_gpu_run(store, quick_run, h200_run):
    store_probe_document(store, quick_run, "cpu")
    store_probe_document(store, h200_run, "gpu")
    checks = _by(evaluate_claims(store, settings=get_settings()))
    for backend, doc in (("cpu", quick_run), ("cuda", h200_run)):
        # a geomean claim is judged without the kernels Inductor substituted, where any were
        summary = doc["summary"]
        substituted = any((r.get("inductor") or {}).get("substitutions") for r in doc["results"])
        gm = (
            summary["geomean_speedup_without_substitutions"]
            if substituted
            else summary["geomean_speedup"]
        )
        check = checks[("inductor_geomean_1_5x", backend)]
        assert check.verdict == (SUPPORTED if gm >= 1.5 else CONTRADICTED)
        assert check.measured == gm and check.run_id == doc["run_id"]
        assert f"{gm:.2f}x" in check.evidence
        ln = next(r for r in doc["results"] if r["kernel"] == "layernorm_gelu")
        check = checks[("layernorm_gelu_30pct_copy_bw", backend)]
        assert check.verdict == (SUPPORTED if ln["fraction_of_ceiling"] >= 0.30 else CONTRADICTED)
        assert f"{100 * ln['fraction_of_ceiling']:.0f}%" in check.evidence
    assert checks[("rocm_inductor_geomean_1_5x", "rocm")].verdict == UNTESTABLE
    # a CUDA or CPU build says nothing about ROCm support: judged on a ROCm run only
    rocm = checks[("torch_build_supports_rocm", "rocm")]
    assert rocm.verdict == UNTESTABLE and rocm.run_id is None
    assert "a cpu, cuda build cannot show whether PyTorch supports ROCm" in rocm.evidence
    assert not any(k[0] == "torch_build_supports_rocm" and k[1] != "rocm" for k in checks)
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
    checks = _by(evaluate_claims(store, settings=get_settings()))
    check = checks[("layernorm_gelu_30pct_copy_bw", "cpu")]
    assert check.run_id == later["run_id"]
    assert check.verdict == UNTESTABLE
    assert "not valid (incorrect: test)" in check.evidence


def _cpu_claim(claim_id, text, workload, **kw):
    return ClaimSpec(
        claim_id,
        text,
        kw.pop("metric", "speedup"),
        kw.pop("value", 0.01),
        kw.pop("comparison", "at least"),
        unit="x",
        workload=workload,
        backend="cpu",
        **kw,
    )


def test_a_fusion_claim_is_judged_on_the_generated_code(store, quick_run):
    """On the real CPU run: LayerNorm+GELU compiles to one C++ kernel, the GEMM to a library
    addmm plus a ReLU kernel, so only the first fusion claim holds; the speed part of both
    holds (>= 0.01x)."""
    store_probe_document(store, quick_run, "cpu")
    claims = (
        _cpu_claim(
            "ln",
            "LayerNorm followed by GELU is faster once compiled, because the normalised tensor "
            "never goes back to memory between the two steps.",
            "layernorm_gelu",
        ),
        _cpu_claim(
            "gemm",
            "With the bias and the ReLU fused into the epilogue, the compiled GEMM is faster.",
            "gemm_bias_relu",
        ),
        _cpu_claim("plain", "A compiled softmax is faster than the eager one.", "softmax"),
    )
    by = {c.claim_id: c for c in evaluate_claims(store, claims=claims, settings=get_settings())}
    ln = next(r["inductor"] for r in quick_run["results"] if r["kernel"] == "layernorm_gelu")
    assert ln["kernel_calls"] == 1  # what the verdict below rests on
    assert by["ln"].verdict == SUPPORTED
    assert f"Inductor generated one kernel for it ({ln['generated_kernel_names'][0]})" in (
        by["ln"].evidence
    )
    assert any(c.column == "generated_kernels" for c in by["ln"].probe_cites)
    gemm = next(r["inductor"] for r in quick_run["results"] if r["kernel"] == "gemm_bias_relu")
    assert gemm["kernel_calls"] == 2
    assert by["gemm"].verdict == CONTRADICTED
    assert "mechanism not as claimed: the compiled gemm_bias_relu runs 2 kernel calls" in (
        by["gemm"].evidence
    )
    assert by["plain"].verdict == SUPPORTED and "mechanism" not in by["plain"].evidence
    # the verdict keeps its halves apart: the GEMM's number held, the fusion did not happen
    assert (by["gemm"].number_verdict, by["gemm"].mechanism_verdict) == (SUPPORTED, CONTRADICTED)
    assert by["gemm"].verdict_words == (
        "contradicted: the number holds; the fusion it credits did not happen"
    )
    assert by["gemm"].as_json()["number_verdict"] == SUPPORTED
    assert by["gemm"].as_json()["mechanism_verdict"] == CONTRADICTED
    assert by["ln"].verdict_words == "supported: the number holds; the fusion it credits happened"
    assert by["plain"].mechanism_verdict is None and by["plain"].verdict_words == SUPPORTED


def test_a_fusion_claim_whose_number_fails_says_the_fusion_happened(store, quick_run):
    store_probe_document(store, quick_run, "cpu")
    claim = _cpu_claim(
        "ln",
        "LayerNorm and GELU are fused into a single kernel, 1000x faster than eager.",
        "layernorm_gelu",
        value=1000.0,
    )
    (check,) = evaluate_claims(store, claims=(claim,), settings=get_settings())
    assert check.verdict == CONTRADICTED
    assert (check.number_verdict, check.mechanism_verdict) == (CONTRADICTED, SUPPORTED)
    assert check.verdict_words == (
        "contradicted: the number does not hold; the fusion it credits happened"
    )


def test_a_fusion_claim_on_a_run_without_the_record_is_untestable(store, quick_run):
    old = copy.deepcopy(quick_run)
    for r in old["results"]:
        del r["inductor"]
    store_probe_document(store, old, "cpu, before the probe read the code")
    claim = _cpu_claim(
        "ln", "Compiled, LayerNorm and GELU are fused into a single kernel.", "layernorm_gelu"
    )
    (check,) = evaluate_claims(store, claims=(claim,), settings=get_settings())
    assert check.verdict == UNTESTABLE
    assert "did not record what Inductor generated for layernorm_gelu" in check.reason
    assert check.verdict_words == (
        "untestable here: the number holds; whether the fusion it credits happened was not recorded"
    )


def test_a_comparison_with_the_kernel_inductor_substituted_says_so(store, attention_run):
    doc, _, _ = attention_run
    store_probe_document(store, doc, "cpu attention")
    checks = _by(evaluate_claims(store, settings=get_settings()))
    check = checks[("naive_attention_fused_to_sdpa_speed", "cpu")]
    by = doc["results"][[r["kernel"] for r in doc["results"]].index("naive_attention")]
    assert (
        f"Inductor itself replaced naive_attention by {by['inductor']['substitutions'][0]['by']}"
        in check.evidence
    )
    assert "compares that kernel with itself" in check.evidence
    assert any(c.column == "substitutions" for c in check.probe_cites)


def test_a_geomean_claim_names_its_carriers_and_the_value_without_substitutions(
    store, attention_run
):
    doc, _, _ = attention_run
    store_probe_document(store, doc, "cpu attention")
    check = _by(evaluate_claims(store, settings=get_settings()))[("inductor_geomean_1_5x", "cpu")]
    speed = {r["kernel"]: r["speedup"] for r in doc["results"]}
    gm, without = (
        doc["summary"]["geomean_speedup"],
        doc["summary"]["geomean_speedup_without_substitutions"],
    )
    top = max(speed, key=speed.get)
    assert f"carried by {top} {speed[top]:.2f}x" in check.evidence
    # judged on the geomean without the substituted kernel, the raw one named beside it
    assert f"geomean speedup {without:.2f}x over the other" in check.evidence
    assert (
        f"without naive_attention, which Inductor handed to a library kernel ({gm:.2f}x raw"
        in check.evidence
    )
    assert check.measured == without
    assert check.verdict == (SUPPORTED if without >= 1.5 else CONTRADICTED)
    carried = gm >= 1.5 > without
    assert (check.carried_by_substitution is not None) == carried
    if carried:
        assert check.verdict_words.startswith(
            "contradicted: the raw geomean supports it only because Inductor substituted a "
            "library kernel for naive_attention"
        )


def test_a_within_claim_reads_as_what_it_says(store, attention_run):
    spec = ClaimSpec(
        "w",
        "Compiled naive attention runs within 5% of fused SDPA.",
        "relative",
        1.0,
        "within",
        unit="fraction",
        workload="naive_attention",
        device="H200",
        tolerance=0.05,
        baseline="sdpa",
        quantity="time",
    )
    assert spec.describe() == "H200 · naive_attention: time within 5% of sdpa"
    store_probe_document(store, attention_run[0], "cpu attention")
    (check,) = evaluate_claims(
        store, claims=(replace(spec, device=None, backend="cpu"),), settings=get_settings()
    )
    assert "'within 5%' read as a ratio of 0.95 to 1.05" in check.evidence
    assert "100%" not in check.evidence
