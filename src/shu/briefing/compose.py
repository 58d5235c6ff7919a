"""Composing the daily briefing from the store: its sections, files and stored record.

`compose_briefing(store, day)` reads only what is stored (signals, forecasts, resolutions,
releases, commits, documents, probe runs), builds each section (`shu.briefing.sections`, one
module per section; a store with no data on or before the day gets the header and a page that
says so, `sections/no_data.py`), writes `REPORTS/YYYY-MM-DD.md` (the body, then the appendix: how
to read it, the full tables and the receipts; the HTML page shows the appendix collapsed) with its
charts, the HTML page and the briefing as data (`YYYY-MM-DD.json`, `shu.briefing.data`) beside
it, and records the briefing and every receipt it cites in `briefings` / `briefing_receipts`.
Re-running it for the same day rewrites the same files and rows (idempotent).

Every number shown is either a stored value with a row receipt, or an aggregate with the SELECT
that reproduces it (a query receipt); quotations come from stored passages or release notes.
Outside text is rendered through `shu.safe_markdown`: the template environment escapes every
value that is not explicitly shu's own markdown (`Md`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from shu.briefing import html
from shu.briefing.context import BriefingContext, Part
from shu.briefing.data import briefing_data, write_data
from shu.briefing.sections import build_sections, header, no_data
from shu.safe_markdown import finish_markdown
from shu.settings import Settings
from shu.store import Store, utcnow

APPENDIX_HEADING = (
    "## Appendix\n\nHow to read this note, every forecast issued today, the full tables behind "
    "the short sections above, and the receipts every [Rn] points to.\n\n"
)
APPENDIX_SUMMARY = "Appendix: how to read this, every forecast, full tables and receipts"


@dataclass
class BriefingResult:
    """What `compose_briefing` wrote."""

    briefing_id: str
    path: Path
    title: str
    n_forecasts: int
    n_receipts: int
    charts: list[Path] = field(default_factory=list)
    stale_repos: list[str] = field(default_factory=list)
    no_data: bool = False  # the store held no data on or before the day: the page says so


def compose_briefing(
    store: Store,
    day: date | None,
    settings: Settings,
    *,
    reports_dir: Path | None = None,
    synthetic: bool = False,
    notices: list[str] | None = None,
) -> BriefingResult:
    """Write the briefing for `day` (default: the latest day with star signals) and record it.

    Args:
        store: an open, writable store.
        day: the briefing's day; data after it is never read.
        settings: tracked repositories, topics, reports_dir.
        reports_dir: where to write (default: `settings.reports_dir_for` the store).
        synthetic: mark the briefing as built from the synthetic demo sample.
        notices: one-line notices shown at the top (e.g. "GitHub unreachable: …").
    """
    out_dir = Path(reports_dir) if reports_dir else settings.reports_dir_for(store.path)
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = BriefingContext.open(store, day, settings, out_dir, synthetic, notices)
    briefing_id = f"demo-{ctx.as_of}" if synthetic else str(ctx.as_of)
    parts: list[Part]
    appendix: list[Part]
    if ctx.no_data:  # the header and a page that says so; no appendix
        parts, appendix = [header.build(ctx), no_data.build(ctx)], []
    else:
        parts, appendix = build_sections(ctx)
    body = "".join(part.markdown for part in parts)
    page = "".join(part.page or part.markdown for part in parts)
    every = list({id(p): p for p in (*parts, *appendix)}.values())  # each section's part once
    if appendix:
        left_out = left_out_line(every)
        body += APPENDIX_HEADING + left_out + "".join(p.appendix for p in appendix)
        page += (
            f"%%details%% {APPENDIX_SUMMARY}\n\n"
            + left_out
            + "".join(p.appendix if p.appendix_page is None else p.appendix_page for p in appendix)
        ).rstrip("\n") + "\n\n%%/details%%\n"  # its own paragraph, never the last list item's
    markdown = finish_markdown(body)
    path = out_dir / f"{ctx.as_of}.md"
    path.write_text(markdown, encoding="utf-8")
    html.write_html(path, ctx.title, finish_markdown(page))
    html.write_index(out_dir)
    write_data(path.with_suffix(".json"), briefing_data(ctx, every))
    n_cards = len(ctx.cards)
    _record(ctx, briefing_id, path, markdown, n_cards)
    return BriefingResult(
        briefing_id,
        path,
        ctx.title,
        n_cards,
        len(ctx.book.receipts),
        list(ctx.charts),
        [] if ctx.no_data else [s["repo"] for s in ctx.stale],
        ctx.no_data,
    )


def left_out_line(parts: list[Part]) -> str:
    """The appendix's one line naming the sections left out of the note (the body's and the
    bookkeeping after it), each once with why (empty when none was)."""
    left = [p.left_out for p in parts if p.left_out]
    if not left:
        return ""
    return "Left out, having nothing to say yet: " + "; ".join(left) + ".\n\n"


def _record(
    ctx: BriefingContext, briefing_id: str, path: Path, markdown: str, n_cards: int
) -> None:
    import pandas as pd

    receipts = pd.DataFrame(
        [
            {
                "briefing_id": briefing_id,
                "receipt_no": i,
                "kind": r.kind,
                "table_name": r.table,
                "row_key": r.key_json,
                "column_name": r.column,
                "value": r.value,
                "as_of": r.as_of,
                "label": r.label,
            }
            for i, r in enumerate(ctx.book.receipts, start=1)
        ],
        columns=[
            "briefing_id",
            "receipt_no",
            "kind",
            "table_name",
            "row_key",
            "column_name",
            "value",
            "as_of",
            "label",
        ],
    )
    receipts["as_of"] = pd.to_datetime(receipts["as_of"]).dt.date
    briefing = pd.DataFrame(
        [
            {
                "briefing_id": briefing_id,
                "day": ctx.as_of,
                "title": ctx.title,
                "path": str(path),
                "content_hash": hashlib.sha256(markdown.encode()).hexdigest(),
                "n_forecasts": n_cards,
                "is_synthetic": ctx.synthetic,
                "generated_at": utcnow(),
                "data_as_of": ctx.data_through,
                "stale_repos": [s["repo"] for s in ctx.stale],
            }
        ]
    )
    with ctx.store.transaction():
        ctx.store.con.execute("DELETE FROM briefing_receipts WHERE briefing_id = ?", [briefing_id])
        if len(receipts):
            ctx.store.upsert("briefing_receipts", receipts)
        ctx.store.upsert("briefings", briefing)
