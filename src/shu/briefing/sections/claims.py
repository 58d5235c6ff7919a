"""The "Claims checked against the probe" section: claims read from documents, with verdicts.

Every claim read from a document published by the briefing's data day (undated documents
included) is listed once with its verdict, contradicted first, then supported, each citing both
receipts: the passage(s) it was read from (the first quoted; the same claim in several documents
is one line citing each) and the probe row(s) it was checked against. Untestable claims follow in
short, each with its reason (one line per passage and reason), up to `MAX_UNTESTABLE`.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import ref
from shu.evidence.checked_claims import ClaimGroup, document_checks, group_checks
from shu.evidence.claims import CONTRADICTED, SUPPORTED, UNTESTABLE, ClaimCheck, ClaimSpec
from shu.receipts import ReceiptBook, display_path
from shu.safe_markdown import Md, safe_inline
from shu.store import Store

MAX_UNTESTABLE = 12
QUOTE_CHARS = 300


def build(ctx: BriefingContext) -> Part:
    """The checked claims, contradicted first, and the untestable ones in short."""
    checks = document_checks(ctx.store, ctx.as_of)
    data = [
        {
            "text": g.check.claim,
            "source": _where(g.sources[0]),
            "title": g.sources[0].title,
            "passage_no": g.sources[0].passage_no,
            "sources": [
                {"source": _where(s), "title": s.title, "passage_no": s.passage_no}
                for s in g.sources
            ],
            "claimed": list(g.claimed),
            "verdict": g.verdict,
            "evidence": g.check.reason or g.check.evidence,
        }
        for g in group_checks(checks)
    ]
    return Part(
        ctx.render("sections/claims.md.j2", claims=claims_view(checks, ctx.book)),
        data={"claims": data},
    )


def _where(spec: ClaimSpec) -> str | None:
    return display_path(spec.location) if spec.location else spec.title


def cite_passage(book: ReceiptBook, check: ClaimCheck, spec: ClaimSpec | None = None) -> int:
    """The receipt of the passage a document claim was read from (or of `spec`'s passage)."""
    s = spec or check.spec
    assert s is not None and s.doc_id is not None and s.passage_no is not None
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


def _sources(book: ReceiptBook, group: ClaimGroup) -> str:
    """'Title, passage N [R1]', then '; also in Title2, passage M [R2]' for each other source."""
    parts = []
    for spec in group.sources:
        r = cite_passage(book, group.check, spec)
        parts.append(
            f"{safe_inline(spec.title or spec.location)}, passage {spec.passage_no} {ref(r)}"
        )
    return parts[0] + "".join(f"; also in {p}" for p in parts[1:])


def claims_view(checks: list[ClaimCheck], book: ReceiptBook) -> dict[str, Any]:
    """The section's view: counts, checked claims (contradicted first) and untestable ones,
    each claim once (`group_checks`)."""
    groups = group_checks(checks)
    order = {CONTRADICTED: 0, SUPPORTED: 1}
    checked = sorted(
        (g for g in groups if g.verdict in order),
        key=lambda g: (order[g.verdict], g.sources[0].location or "", g.check.claim_id),
    )
    items = []
    for g in checked:
        c = g.check
        where = _sources(book, g)
        r_probe = cite_probe(book, c)
        items.append(
            {
                "verdict": c.verdict,
                "text": Md(
                    f"**{c.verdict}** · “{safe_inline(c.claim, QUOTE_CHARS)}” — {where} · "
                    f"claimed: {safe_inline('; '.join(g.claimed))} · probe: "
                    f"{safe_inline(c.evidence)} {ref(*r_probe)}"
                ),
            }
        )
    untestable = [g for g in groups if g.verdict == UNTESTABLE]
    shown = []
    for g in untestable[:MAX_UNTESTABLE]:
        refs = [cite_passage(book, g.check, spec) for spec in g.sources]
        shown.append(
            Md(
                f"“{safe_inline(g.check.claim, 160)}” {ref(*refs)} "
                f"({safe_inline('; '.join(g.claimed))}) — "
                f"{safe_inline(g.check.reason or g.check.evidence, 300)}"
            )
        )
    return {
        "n": len(groups),
        "n_documents": len({c.spec.doc_id for c in checks if c.spec is not None}),
        "n_contradicted": sum(g.verdict == CONTRADICTED for g in groups),
        "n_supported": sum(g.verdict == SUPPORTED for g in groups),
        "n_untestable": len(untestable),
        "checked": items,
        "untestable": shown,
        "more_untestable": max(0, len(untestable) - MAX_UNTESTABLE),
    }
