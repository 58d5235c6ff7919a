"""Claims read from documents, checked against the probe, after the body (shu's bookkeeping):
first how many were contradicted, supported or untestable and each contradicted one in short;
then every claim with its verdict.

Each verdict says when the probe run it was checked against was made relative to the
briefing's day; a claim is checked against the latest run made by that day, a later one only
where none was, and then named as not known on the day (`evidence.run_dates`).

Every claim read from a document published by the briefing's data day (undated documents
included) is listed once with its verdict, contradicted first, then supported, each citing both
receipts: the passage(s) it was read from (the first quoted; the same claim in several documents
is one line citing each) and the probe row(s) it was checked against. Untestable claims follow in
short, each with its reason (one line per passage and reason), up to `MAX_UNTESTABLE`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.probe import nothing_to_check, runs_named_once
from shu.briefing.text import document_target, ref
from shu.evidence.checked_claims import ClaimGroup, document_checks, group_checks
from shu.evidence.claims import CONTRADICTED, SUPPORTED, UNTESTABLE, ClaimCheck, ClaimSpec
from shu.receipts import ReceiptBook, display_path
from shu.safe_markdown import Md, safe_inline, safe_link
from shu.settings import Settings
from shu.store import Store

MAX_UNTESTABLE = 12
QUOTE_CHARS = 300
SHORT_QUOTE_CHARS = 140  # a contradicted claim as the body quotes it (the appendix has it whole)


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
    view = claims_view(checks, ctx.book, ctx.out_dir, lambda text: runs_named_once(ctx, text))
    return Part(  # after the body: shu's bookkeeping
        "",
        data={"claims": data},
        appendix=ctx.render("sections/claims.md.j2", claims=view)
        + ctx.render("sections/claims_appendix.md.j2", claims=view),
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


def clauses(text: str) -> list[str]:
    """`text` split at each '; ' outside parentheses (a verdict's evidence: what was measured
    first, then how the claim was read and why it failed)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and text.startswith("; ", i):
            out.append(text[start:i])
            start = i + 2
    return [*out, text[start:]]


def measured_words(evidence: str) -> str:
    """What the probe measured, as the body quotes it: the evidence's first clause, and the
    clause saying the mechanism is not as claimed when there is one (a number can meet a claim
    whose mechanism the probe contradicts)."""
    parts = clauses(evidence)
    said = parts[0].removeprefix("measured ")
    why = next((c for c in parts[1:] if c.startswith("mechanism not as claimed")), None)
    return f"{said}, but {why.removeprefix('mechanism not as claimed: ')}" if why else said


def claims_section(
    store: Store, book: ReceiptBook, as_of: date, settings: Settings
) -> dict[str, Any]:
    """The section's view of the claims read from documents published by `as_of`."""
    return claims_view(document_checks(store, as_of, settings), book)


def _sources(book: ReceiptBook, group: ClaimGroup) -> str:
    """'Title, passage N [R1]', then '; also in Title2, passage M [R2]' for each other source."""
    parts = []
    for spec in group.sources:
        r = cite_passage(book, group.check, spec)
        parts.append(
            f"{safe_inline(spec.title or spec.location)}, passage {spec.passage_no} {ref(r)}"
        )
    return parts[0] + "".join(f"; also in {p}" for p in parts[1:])


def claims_view(
    checks: list[ClaimCheck],
    book: ReceiptBook,
    out_dir: Path | None = None,
    name_runs: Callable[[str], str] = str,
) -> dict[str, Any]:
    """The section's view: counts, checked claims (contradicted first) and untestable ones,
    each claim once (`group_checks`); `name_runs` words the probe runs a claim's evidence names
    (`probe.runs_named_once`: in full once per note)."""
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
        r_passages = [cite_passage(book, c, spec) for spec in g.sources]
        r_probe = cite_probe(book, c)
        measured = safe_inline(measured_words(c.evidence), 2 * SHORT_QUOTE_CHARS)
        halves = c.verdict_words.removeprefix(c.verdict).removeprefix(": ")
        when = f" ({safe_inline(c.run_made)})" if c.run_made else ""
        items.append(
            {
                "verdict": c.verdict,
                "number_held": c.number_verdict == SUPPORTED,
                "short": Md(
                    f"“{safe_inline(c.claim, SHORT_QUOTE_CHARS)}” "
                    f"({_title_link(g.sources[0], out_dir)}) "
                    f"{ref(*r_passages)}; "
                    + (f"{safe_inline(halves.replace('; ', ', but '))}: " if halves else "")
                    + f"the probe measured {measured}{when} {ref(*r_probe)}"
                ),
                "text": Md(
                    f"**{c.verdict}**{f' ({safe_inline(halves)})' if halves else ''} · "
                    f"“{safe_inline(c.claim, QUOTE_CHARS)}” — {where} · "
                    f"claimed: {safe_inline('; '.join(g.claimed))} · probe{when}: "
                    f"{safe_inline(name_runs(c.evidence))} {ref(*r_probe)}"
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
                f"{safe_inline(name_runs(g.check.reason or g.check.evidence), 300)}"
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
        "untestable": shown,
        "more_untestable": max(0, len(untestable) - MAX_UNTESTABLE),
    }
