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
