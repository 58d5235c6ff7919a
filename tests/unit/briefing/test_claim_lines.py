"""The claims checked against the probe, as the appendix lists them: what the rows share (their
document, the run's identity, when it was made) said once at the head, each row keeping what
differs; a claim whose number held but whose mechanism did not says so."""

from __future__ import annotations

from datetime import UTC, date, datetime

from shu.briefing.sections.claims import claims_view
from shu.evidence.claims import CONTRADICTED, SUPPORTED, ClaimCheck, ClaimSpec
from shu.receipts import ReceiptBook

H100 = "NVIDIA H100 80GB HBM3, torch 2.11.0+cu130, full suite v2026.11.1, run {}"


def check(
    claim_id: str,
    text: str,
    number: str,
    mechanism: str | None,
    evidence: str,
    run_id: str = "vm-1",
    doc: str = "matmul",
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
        doc_id=f"doc-{doc}",
        passage_no=0,
        title=f"{doc.title()} throughput",
        location=f"notes/{doc}.md",
    )
    verdict = CONTRADICTED if CONTRADICTED in (number, mechanism) else SUPPORTED
    return ClaimCheck(
        claim_id,
        text,
        "cuda",
        verdict,
        f"{evidence}; {H100.format(run_id)}",
        run_id=run_id,
        run_started_at=datetime(2026, 11, 27, 3, 35, tzinfo=UTC),
        device_name="NVIDIA H100 80GB HBM3",
        spec=spec,
        number_verdict=number,
        mechanism_verdict=mechanism,
        day=date(2026, 2, 28),
    )


FUSED = (
    "compiled `gemm_bias_relu` reached 638.6 TFLOP/s; claim 'at least 600 TFLOP/s' read as "
    "a lower bound; mechanism not as claimed: the compiled `gemm_bias_relu` runs 2 kernel "
    "calls, not one fused kernel"
)
SLOW = (
    "compiled `gemm_bias_relu` reached 512 TFLOP/s; claim 'at least 600 TFLOP/s' read as a "
    "lower bound; measured/claimed = 0.85"
)


def test_a_claim_whose_number_held_says_so_and_that_the_fusion_did_not_happen() -> None:
    fused = check("a", "With the bias fused into the epilogue, >= 600 TFLOP/s.", SUPPORTED,
                  CONTRADICTED, FUSED)  # fmt: skip
    slow = check("b", "A GEMM reaches at least 600 TFLOP/s.", CONTRADICTED, None, SLOW)
    view = claims_view([fused, slow], ReceiptBook())
    assert view["n_contradicted"] == 2 and view["n_number_held"] == 1
    by = {item["claim"].split("”")[0]: item for item in view["checked"]}
    line = by["“With the bias fused into the epilogue, >= 600 TFLOP/s."]
    assert line["verdict_words"] == (
        "**contradicted** (the number holds; the fusion it credits did not happen)"
    )
    assert "mechanism not as claimed" in line["measured"]
    assert by["“A GEMM reaches at least 600 TFLOP/s."]["verdict_words"] == "**contradicted**"


def test_what_the_rows_share_is_said_once_at_the_head() -> None:
    checks = [
        check("a", "A fused GEMM reaches 600 TFLOP/s.", SUPPORTED, CONTRADICTED, FUSED),
        check("b", "A GEMM reaches at least 600 TFLOP/s.", CONTRADICTED, None, SLOW),
        check(
            "c", "Another GEMM claim.", CONTRADICTED, None, SLOW.replace("512", "500"), doc="other"
        ),
    ]
    book = ReceiptBook()
    view = claims_view(checks, book)
    # one table per document, its title once at its head (linked), rows under it
    assert [len(d["rows"]) for d in view["documents"]] == [2, 1]
    assert "Matmul throughput" in view["documents"][0]["title"]
    # the run named in full once, with when it was made; no row repeats either
    (head,) = view["runs"]
    assert head.startswith("Made 9 months after this briefing's day, so not known on it: ")
    assert H100.format("vm-1") in head and "27 Nov 2026" in head
    for item in view["checked"]:
        assert item["run"] == "H100"
        assert "not known" not in item["measured"] and "vm-1" not in item["measured"]
        assert "reached" in item["measured"]
        assert "passage 0 [R" in item["claim"] and "throughput" not in item["claim"]
    # two runs of one device class: each row names its run by its id
    two = claims_view([*checks[:2], check("d", "Other run.", CONTRADICTED, None, SLOW, "vm-2")],
                      ReceiptBook())  # fmt: skip
    assert {i["run"] for i in two["checked"]} == {"`vm-1`", "`vm-2`"}
    (head,) = two["runs"]  # both made the same span after the day: one line
    assert H100.format("vm-1") in head and H100.format("vm-2") in head
