"""Claims read from documents, checked against the probe, after the body (shu's bookkeeping):
how many were contradicted, supported or untestable; the probe runs they were checked against,
each named once with when it was made against the briefing's day; then one table per document
(its title once, at the table's head), every claim checked with its verdict; the untestable ones
in short.

A claim is checked against the latest run made by the briefing's day, a later one only where
none was, and then named as not known on the day (`evidence.run_dates`). What is shared by the
rows (the document, the run's identity, when it was made) is said once at the head, and each row
keeps what differs (`run_names`); the JSON sidecar keeps every claim's facts whole.

Every claim read from a document published by the briefing's data day (undated documents
included) is listed once with its verdict, contradicted first, then supported, each citing both
receipts: the passage(s) it was read from (the same claim in several documents is one row citing
each) and the probe row(s) it was checked against. Untestable claims follow in short, each with
its reason (one line per passage and reason), up to `MAX_UNTESTABLE`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.probe import nothing_to_check
from shu.briefing.sections.run_names import RunNames
from shu.briefing.text import document_target, ref
from shu.evidence.checked_claims import ClaimGroup, document_checks, group_checks
from shu.evidence.claims import CONTRADICTED, SUPPORTED, UNTESTABLE, ClaimCheck, ClaimSpec
from shu.receipts import ReceiptBook, display_path
from shu.safe_markdown import Md, safe_inline, safe_link
from shu.settings import Settings
from shu.store import Store

MAX_UNTESTABLE = 12
QUOTE_CHARS = 300


def build(ctx: BriefingContext) -> Part:
    """The checked claims, contradicted first, and the untestable ones in short."""
    if nothing_to_check(ctx):  # left out with Probe and claims (`probe.NOTHING_TO_CHECK`)
        return Part("", data={"claims": []})
    checks = document_checks(ctx.store, ctx.data_through, ctx.settings, ctx.as_of)
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
            "number_verdict": g.check.number_verdict,
            "mechanism_verdict": g.check.mechanism_verdict,
            "verdict_in_words": g.check.verdict_words,
            "evidence": g.check.reason or g.check.evidence,
            "run_made": g.check.run_made,
            "run_after_day": g.check.run_after_day,
        }
        for g in group_checks(checks)
    ]
    view = claims_view(checks, ctx.book, ctx.out_dir, ctx.as_of, ctx.said)
    return Part(  # after the body: shu's bookkeeping
        "",
        data={"claims": data},
        appendix=ctx.render("sections/claims.md.j2", claims=view),
    )


def _title_link(spec: ClaimSpec, out_dir: Path | None) -> str:
    """A claim's document by its title, linked to its page or file where one can be given."""
    title = spec.title or spec.location or "untitled document"
    target = document_target(spec.location, out_dir)
    return safe_link(title, target) if target else safe_inline(title)


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


def claims_section(
    store: Store, book: ReceiptBook, as_of: date, settings: Settings
) -> dict[str, Any]:
    """The section's view of the claims read from documents published by `as_of`."""
    return claims_view(document_checks(store, as_of, settings), book, day=as_of)


def _passages(book: ReceiptBook, group: ClaimGroup) -> str:
    """'passage N [R1]' of the claim's first document (the table's head names it), then '; also
    in Title2, passage M [R2]' for each other passage stating it."""
    parts = []
    for i, spec in enumerate(group.sources):
        r = cite_passage(book, group.check, spec)
        title = "" if i == 0 else f"{safe_inline(spec.title or spec.location)}, "
        parts.append(f"{title}passage {spec.passage_no} {ref(r)}")
    return parts[0] + "".join(f"; also in {p}" for p in parts[1:])


def claims_view(
    checks: list[ClaimCheck],
    book: ReceiptBook,
    out_dir: Path | None = None,
    day: date | None = None,
    said: set[str] | None = None,
) -> dict[str, Any]:
    """The section's view: counts, the runs checked against (`RunNames`: each named once in the
    note, `said` holding those named before, with when it was made against the briefing's
    `day`), and the checked claims (contradicted first),
    one table per document (named once at its head), each claim once (`group_checks`)."""
    groups = group_checks(checks)
    order = {CONTRADICTED: 0, SUPPORTED: 1}
    checked = sorted(
        (g for g in groups if g.verdict in order),
        key=lambda g: (order[g.verdict], g.sources[0].location or "", g.check.claim_id),
    )
    runs = RunNames(day or next((c.day for c in checks if c.day), None))
    evidence = {
        id(g): runs.add(
            g.check.evidence,
            g.check.run_id,
            g.check.run_started_at,
            g.check.device_name,
            g.check.backend,
        )
        for g in checked
    }
    documents: dict[tuple[str | None, str | None], dict[str, Any]] = {}
    items = []
    for g in checked:
        c = g.check
        first = g.sources[0]
        r_probe = cite_probe(book, c)
        halves = c.verdict_words.removeprefix(c.verdict).removeprefix(": ")
        item = {
            "verdict": c.verdict,
            "number_held": c.number_verdict == SUPPORTED,
            "verdict_words": Md(f"**{c.verdict}**{f' ({safe_inline(halves)})' if halves else ''}"),
            "claim": Md(f"“{safe_inline(c.claim, QUOTE_CHARS)}” {_passages(book, g)}"),
            "claimed": Md(safe_inline("; ".join(g.claimed))),
            "measured": Md(f"{safe_inline(evidence[id(g)])} {ref(*r_probe)}"),
            "run": Md(runs.label(c.run_id)),
        }
        items.append(item)
        doc = documents.setdefault(
            (first.doc_id, first.location), {"title": Md(_title_link(first, out_dir)), "rows": []}
        )
        doc["rows"].append(item)
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
        # contradicted on the mechanism alone: the number they state held
        "n_number_held": sum(
            g.verdict == CONTRADICTED and g.check.number_verdict == SUPPORTED for g in groups
        ),
        "n_supported": sum(g.verdict == SUPPORTED for g in groups),
        "n_untestable": len(untestable),
        "checked": items,
        "documents": list(documents.values()),
        "runs": runs.heads(book, said),
        "untestable": shown,
        "more_untestable": max(0, len(untestable) - MAX_UNTESTABLE),
    }
