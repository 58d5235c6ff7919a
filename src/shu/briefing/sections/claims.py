"""Claims read from documents, checked against the probe: in the body, how many were
contradicted, supported or untestable and each contradicted one in short; in the appendix,
every claim with its verdict.

Every claim read from a document published by the briefing's data day (undated documents
included) is listed with its verdict, contradicted first, then supported, each citing both
receipts: the passage it was read from (quoted) and the probe row(s) it was checked against.
Untestable claims follow in short, each with its reason, up to `MAX_UNTESTABLE`.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import ref
from shu.evidence.checked_claims import document_checks
from shu.evidence.claims import CONTRADICTED, SUPPORTED, UNTESTABLE, ClaimCheck
from shu.receipts import ReceiptBook, display_path
from shu.safe_markdown import Md, safe_inline
from shu.store import Store

MAX_UNTESTABLE = 12
QUOTE_CHARS = 300
SHORT_QUOTE_CHARS = 140  # a contradicted claim as the body quotes it (the appendix has it whole)


def build(ctx: BriefingContext) -> Part:
    """The checked claims, contradicted first, and the untestable ones in short."""
    checks = document_checks(ctx.store, ctx.as_of)
    data = [
        {
            "text": c.claim,
            "source": display_path(c.spec.location) if c.spec.location else c.spec.title,
            "title": c.spec.title,
            "passage_no": c.spec.passage_no,
            "verdict": c.verdict,
            "evidence": c.reason or c.evidence,
        }
        for c in checks
    ]
    view = claims_view(checks, ctx.book)
    return Part(
        ctx.render("sections/claims.md.j2", claims=view),
        data={"claims": data},
        appendix=ctx.render("sections/claims_appendix.md.j2", claims=view),
    )


def cite_passage(book: ReceiptBook, check: ClaimCheck) -> int:
    """The receipt of the passage a document claim was read from."""
    s = check.spec
    return book.passage(
        s.doc_id,
        s.passage_no,
        s.text,
        title=s.title,
        location=s.location,
        published_on=s.published_on,
        label="claim source",
    )


def cite_probe(book: ReceiptBook, check: ClaimCheck) -> list[int]:
    """The receipts of the probe rows a verdict rests on."""
    as_of = check.run_started_at.date() if check.run_started_at else None
    return [book.row(c.table, c.key, c.column, c.value, as_of, c.label) for c in check.probe_cites]


def claims_section(store: Store, book: ReceiptBook, as_of: date) -> dict[str, Any]:
    """The section's view of the claims read from documents published by `as_of`."""
    return claims_view(document_checks(store, as_of), book)


def claims_view(checks: list[ClaimCheck], book: ReceiptBook) -> dict[str, Any]:
    """The section's view: counts, checked claims (contradicted first) and untestable ones."""
    order = {CONTRADICTED: 0, SUPPORTED: 1}
    checked = sorted(
        (c for c in checks if c.verdict in order),
        key=lambda c: (order[c.verdict], c.spec.location or "", c.claim_id),
    )
    items = []
    for c in checked:
        r_passage = cite_passage(book, c)
        r_probe = cite_probe(book, c)
        items.append(
            {
                "verdict": c.verdict,
                "short": Md(
                    f"“{safe_inline(c.claim, SHORT_QUOTE_CHARS)}” "
                    f"({safe_inline(c.spec.title or c.spec.location)}) {ref(r_passage)}; "
                    f"the probe measured otherwise {ref(*r_probe)}"
                ),
                "text": Md(
                    f"**{c.verdict}** · “{safe_inline(c.claim, QUOTE_CHARS)}” — "
                    f"{safe_inline(c.spec.title or c.spec.location)}, passage {c.spec.passage_no} "
                    f"{ref(r_passage)} · claimed: {safe_inline(c.spec.describe())} · probe: "
                    f"{safe_inline(c.evidence)} {ref(*r_probe)}"
                ),
            }
        )
    untestable = [c for c in checks if c.verdict == UNTESTABLE]
    shown = []
    for c in untestable[:MAX_UNTESTABLE]:
        r_passage = cite_passage(book, c)
        shown.append(
            Md(
                f"“{safe_inline(c.claim, 160)}” {ref(r_passage)} "
                f"({safe_inline(c.spec.describe())}) — "
                f"{safe_inline(c.reason or c.evidence, 300)}"
            )
        )
    return {
        "n": len(checks),
        "n_documents": len({c.spec.doc_id for c in checks}),
        "n_contradicted": sum(c.verdict == CONTRADICTED for c in checks),
        "n_supported": sum(c.verdict == SUPPORTED for c in checks),
        "n_untestable": len(untestable),
        "checked": items,
        "untestable": shown,
        "more_untestable": max(0, len(untestable) - MAX_UNTESTABLE),
    }
