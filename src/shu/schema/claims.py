"""Claim tables: quantitative hardware/compiler claims read from document passages.

Verdicts are not stored: they depend on which probe runs the store holds, so `shu claims`
(`shu.evidence.claims.evaluate_claims`) computes them against the latest runs each time.
"""

from shu.schema.base import Table, col

CLAIMS = Table(
    name="claims",
    description="Quantitative hardware/compiler claims extracted from document passages (one "
    "per sentence figure or table cell), each with its passage as receipt. "
    "Re-ingesting a document replaces its claims.",
    primary_key=("claim_id",),
    group="activity",
    notes="Filled by `shu ingest docs` (rules in `shu/evidence/extract.py`); checked against "
    "probe runs by `shu claims`.",
    columns=(
        col("claim_id", "VARCHAR", "'doc_id:passage_no:claim_no'."),
        col("doc_id", "VARCHAR", "Document the claim was read from."),
        col("passage_no", "INTEGER", "Passage within the document (the receipt)."),
        col("claim_no", "INTEGER", "0-based position of the claim within the passage."),
        col(
            "quote",
            "VARCHAR",
            "The sentence or table row as it appears in the passage (untrusted text).",
        ),
        col(
            "device",
            "VARCHAR",
            "Device class the claim is about: H100, H200, A100, MI300X, "
            "MI250, CPU, …; NULL when it names none.",
        ),
        col(
            "backend",
            "VARCHAR",
            "'cuda', 'rocm' or 'cpu' (stated, or implied by the device); NULL when unknown.",
        ),
        col("stack", "VARCHAR", "Software stack as stated, e.g. 'CUDA 12.4', 'ROCm 6.0'."),
        col(
            "workload",
            "VARCHAR",
            "What was measured: a probe kernel (softmax, layernorm_gelu, "
            "gemm_bias_relu, sdpa, naive_attention, transformer_block), 'matmul', 'copy', "
            "'suite', 'all-reduce', or 'model:NAME'.",
        ),
        col("dtype", "VARCHAR", "bfloat16, float16, float32, tf32, fp8 or int8, when stated."),
        col(
            "metric",
            "VARCHAR",
            "'speedup', 'TFLOP/s', 'GB/s', 'latency', 'throughput', "
            "'fraction_of_ceiling' or 'relative' (a share of another device/stack/kernel).",
        ),
        col(
            "unit",
            "VARCHAR",
            "Unit of value: 'x', 'TFLOP/s', 'GB/s', 'ms', 'images/s', 'tokens/s', 'fraction'.",
        ),
        col(
            "quantity",
            "VARCHAR",
            "For metric 'relative': what is compared (e.g. 'TFLOP/s', 'throughput').",
        ),
        col(
            "comparison",
            "VARCHAR",
            "'about', 'up to', 'at least', 'at most', 'between', 'within' or 'no speedup'.",
        ),
        col(
            "value",
            "DOUBLE",
            "Claimed value in `unit` (the low end of a range); fractions for percentages.",
        ),
        col("value_high", "DOUBLE", "High end of a stated range (NULL otherwise)."),
        col(
            "tolerance",
            "DOUBLE",
            "Relative tolerance stated in the claim ('within 10%' -> "
            "0.10); NULL: the configured default applies.",
            "fraction",
        ),
        col(
            "baseline",
            "VARCHAR",
            "What the claim compares against: 'eager', a device, a stack "
            "or library (cuDNN, NCCL), or a kernel.",
        ),
        col("extractor_version", "VARCHAR", "Version of the extraction rules."),
        col("extracted_at", "TIMESTAMP", "When it was extracted (UTC)."),
    ),
)

CLAIM_EXTRACTIONS = Table(
    name="claim_extractions",
    description="One row per document whose passages were read for claims: which rules, when, "
    "how many claims (0 included), so re-ingesting with new rules re-reads it.",
    primary_key=("doc_id",),
    group="activity",
    columns=(
        col("doc_id", "VARCHAR", "Document id."),
        col("content_hash", "VARCHAR", "documents.content_hash that was read."),
        col("extractor_version", "VARCHAR", "Version of the extraction rules."),
        col("n_claims", "INTEGER", "Claims found.", "claims"),
        col("extracted_at", "TIMESTAMP", "When (UTC)."),
    ),
)

TABLES = (CLAIMS, CLAIM_EXTRACTIONS)
