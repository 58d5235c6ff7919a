"""Claim tables: quantitative hardware/compiler claims read from document passages.

Verdicts are not stored: they depend on which probe runs the store holds, so `shu claims`
(`shu.evidence.claims.evaluate_claims`) computes them against the latest runs each time.
"""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field(
        "value",
        "DOUBLE",
        "Claimed value in `unit` (the low end of a range); fractions for percentages.",
    ),
    Field("claim_id", "VARCHAR", "'doc_id:passage_no:claim_no'."),
    Field("claim_no", "INTEGER", "0-based position of the claim within the passage."),
    Field(
        "quote",
        "VARCHAR",
        "The sentence or table row as it appears in the passage (untrusted text).",
    ),
    Field(
        "device",
        "VARCHAR",
        "Device class the claim is about: H100, H200, A100, MI300X, "
        "MI250, CPU, …; NULL when it names none.",
    ),
    Field("stack", "VARCHAR", "Software stack as stated, e.g. 'CUDA 12.4', 'ROCm 6.0'."),
    Field(
        "workload",
        "VARCHAR",
        "What was measured: a probe kernel (softmax, layernorm_gelu, "
        "gemm_bias_relu, sdpa, naive_attention, transformer_block), 'matmul', 'copy', "
        "'suite', 'all-reduce', or 'model:NAME'.",
    ),
    Field(
        "metric",
        "VARCHAR",
        "'speedup', 'TFLOP/s', 'GB/s', 'latency', 'throughput', "
        "'fraction_of_ceiling' or 'relative' (a share of another device/stack/kernel).",
    ),
    Field(
        "comparison",
        "VARCHAR",
        "'about', 'up to', 'at least', 'at most', 'between', 'within' or 'no speedup'.",
    ),
    Field("value_high", "DOUBLE", "High end of a stated range (NULL otherwise)."),
    Field(
        "baseline",
        "VARCHAR",
        "What the claim compares against: 'eager', a device, a stack "
        "or library (cuDNN, NCCL), or a kernel.",
    ),
    Field("extractor_version", "VARCHAR", "Version of the extraction rules."),
    Field("extracted_at", "TIMESTAMP", "When it was extracted (UTC)."),
    Field("n_claims", "INTEGER", "Claims found.", "claims"),
)

CLAIMS = Table(
    name="claims",
    description="Quantitative hardware/compiler claims extracted from document passages (one "
    "per sentence figure or table cell), each with its passage as receipt. "
    "Re-ingesting a document replaces its claims.",
    primary_key=("claim_id",),
    group="evidence",
    notes="Filled by `shu ingest docs` (rules in `shu/evidence/extract.py`); checked against "
    "probe runs by `shu claims`.",
    columns=FIELDS.hold(
        "claim_id",
        "doc_id",
        "passage_no",
        "claim_no",
        "quote",
        "device",
        "backend",
        "stack",
        "workload",
        "dtype",
        "metric",
        "unit",
        "quantity",
        "comparison",
        "value",
        "value_high",
        "tolerance",
        "baseline",
        "extractor_version",
        "extracted_at",
        described={
            "doc_id": "Document the claim was read from.",
            "passage_no": "Passage within the document (the receipt).",
            "backend": (
                "'cuda', 'rocm' or 'cpu' (stated, or implied by the device); NULL when unknown."
            ),
            "dtype": "bfloat16, float16, float32, tf32, fp8 or int8, when stated.",
            "unit": (
                "Unit of value: 'x', 'TFLOP/s', 'GB/s', 'ms', 'images/s', 'tokens/s', 'fraction'."
            ),
            "quantity": "For metric 'relative': what is compared (e.g. 'TFLOP/s', 'throughput').",
            "tolerance": "Relative tolerance stated in the claim ('within 10%' -> "
            "0.10); NULL: the configured default applies.",
        },
    ),
)

CLAIM_EXTRACTIONS = Table(
    name="claim_extractions",
    description="One row per document whose passages were read for claims: which rules, when, "
    "how many claims (0 included), so re-ingesting with new rules re-reads it.",
    primary_key=("doc_id",),
    group="evidence",
    columns=FIELDS.hold(
        "doc_id",
        "content_hash",
        "extractor_version",
        "n_claims",
        "extracted_at",
        described={
            "content_hash": "documents.content_hash that was read.",
        },
    ),
)

TABLES = (CLAIMS, CLAIM_EXTRACTIONS)
