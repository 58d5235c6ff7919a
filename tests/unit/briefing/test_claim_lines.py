"""A contradicted claim in the briefing's body says what the probe measured and, where the
numbers meet the claim but its mechanism does not hold, why it is contradicted."""

from __future__ import annotations


def test_the_body_says_what_the_probe_measured_and_why_the_mechanism_fails() -> None:
    from shu.briefing.sections.claims import clauses, measured_words

    evidence = (
        "compiled `gemm_bias_relu` reached 638.6 TFLOP/s (M=8192 N=8192 K=8192, bfloat16); "
        "claim 'at least 600 TFLOP/s' read as a lower bound; mechanism not as claimed: the "
        "compiled `gemm_bias_relu` runs 2 kernel calls (1 generated kernel; library "
        "`extern_kernels.mm`), not one fused kernel; NVIDIA H100 80GB HBM3"
    )
    assert len(clauses(evidence)) == 4  # the '; ' inside parentheses does not split
    assert measured_words(evidence) == (
        "compiled `gemm_bias_relu` reached 638.6 TFLOP/s (M=8192 N=8192 K=8192, bfloat16), but "
        "the compiled `gemm_bias_relu` runs 2 kernel calls (1 generated kernel; library "
        "`extern_kernels.mm`), not one fused kernel"
    )
    assert measured_words("measured copy bandwidth 4251 GB/s; claim 'x'") == (
        "copy bandwidth 4251 GB/s"
    )


def test_a_claim_whose_number_held_says_so_and_that_the_fusion_did_not_happen() -> None:
    from shu.briefing.sections.claims import claims_view
    from shu.evidence.claims import CONTRADICTED, SUPPORTED, ClaimCheck, ClaimSpec
    from shu.receipts import ReceiptBook

    def check(
        claim_id: str, text: str, number: str, mechanism: str | None, evidence: str
    ) -> ClaimCheck:
        spec = ClaimSpec(
            claim_id,
            text,
            "TFLOP/s",
            600.0,
            "at least",
            unit="TFLOP/s",
            workload="gemm_bias_relu",
            device="H100",
            doc_id=f"doc-{claim_id}",
            passage_no=0,
            title="Matmul throughput",
            location="notes/matmul.md",
        )
        verdict = CONTRADICTED if CONTRADICTED in (number, mechanism) else SUPPORTED
        return ClaimCheck(
            claim_id,
            text,
            "cuda",
            verdict,
            evidence,
            spec=spec,
            number_verdict=number,
            mechanism_verdict=mechanism,
        )

    fused = check(
        "a",
        "With the bias fused into the epilogue, >= 600 TFLOP/s.",
        SUPPORTED,
        CONTRADICTED,
        "compiled `gemm_bias_relu` reached 638.6 TFLOP/s; claim 'at least 600 TFLOP/s' read as "
        "a lower bound; mechanism not as claimed: the compiled `gemm_bias_relu` runs 2 kernel "
        "calls, not one fused kernel; NVIDIA H100",
    )
    slow = check(
        "b",
        "A GEMM reaches at least 600 TFLOP/s.",
        CONTRADICTED,
        None,
        "compiled `gemm_bias_relu` reached 512 TFLOP/s; claim 'at least 600 TFLOP/s' read as a "
        "lower bound; measured/claimed = 0.85; NVIDIA H100",
    )
    view = claims_view([fused, slow], ReceiptBook())
    assert view["n_contradicted"] == 2 and view["n_number_held"] == 1
    by = {item["short"].split("”")[0]: item for item in view["checked"]}
    line = by["“With the bias fused into the epilogue, >= 600 TFLOP/s."]
    assert (
        "; the number holds, but the fusion it credits did not happen: the probe measured "
        in (line["short"])
    )
    assert line["text"].startswith(
        "**contradicted** (the number holds; the fusion it credits did not happen) · "
    )
    plain = by["“A GEMM reaches at least 600 TFLOP/s."]
    assert "number" not in plain["short"] and plain["text"].startswith("**contradicted** · ")
