"""The receipts, last in the appendix: every fact the other sections cited, numbered as cited
([R1], …), each with where it is stored (a row, a passage, a query, a value in a model card)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import document_target
from shu.receipts import ReceiptBook, display_path
from shu.safe_markdown import Md, safe_inline, safe_link

_NUMERIC = re.compile(r"-?[0-9][0-9.e+:T-]*")


def build(ctx: BriefingContext) -> Part:
    """The receipt list; built after every section that cites."""
    rows = receipt_rows(ctx.book, ctx.out_dir)
    return Part("", appendix=ctx.render("sections/receipts.md.j2", receipts=rows))


def receipt_rows(book: ReceiptBook, out_dir: Path | None = None) -> list[dict[str, Any]]:
    """One row per receipt: its number, kind and where the fact is stored (a document linked to
    its page: its address, or the file relative to `out_dir`, where the briefing is written)."""
    rows = []
    for number, receipt in enumerate(book.receipts, start=1):
        shown = book.display.get(number, {})
        if receipt.kind == "passage":
            where = shown.get("location")
            target = document_target(where, out_dir)
            title = safe_link(shown.get("title") or where, target)
            if where and not where.startswith(("http://", "https://")):
                title += f" · {safe_inline(display_path(where))}"
            rows.append(
                {
                    "no": number,
                    "kind": "document",
                    "what": Md(
                        f"{title} · {shown.get('published_on') or 'undated'} · passage "
                        f"{dict(receipt.key)['passage_no']}: “{safe_inline(receipt.value, 300)}”"
                    ),
                }
            )
        elif receipt.kind == "file":
            pointer = " → ".join(
                json.dumps(p) if isinstance(p, dict) else str(p)
                for p in json.loads(dict(receipt.key)["pointer"])
            )
            rows.append(
                {
                    "no": number,
                    "kind": "model card",
                    "what": Md(
                        f"{safe_inline(receipt.label)} = `{receipt.value}` · "
                        f"{safe_inline(display_path(receipt.table))} · {safe_inline(pointer)}"
                    ),
                }
            )
        elif receipt.kind == "query":
            sql = dict(receipt.key)["sql"]
            params = ", ".join(map(str, dict(receipt.key)["params"]))
            rows.append(
                {
                    "no": number,
                    "kind": "query",
                    "what": Md(
                        f"{safe_inline(receipt.label)} = `{receipt.value}` "
                        f"from `{receipt.table}` · as of {receipt.as_of or '—'} · "
                        f"`{_code(sql)}` with ({safe_inline(params)})"
                    ),
                }
            )
        else:
            key = ", ".join(f"{k}={v}" for k, v in receipt.key)
            value = (
                f"`{receipt.value}`"
                if _NUMERIC.fullmatch(receipt.value)
                else safe_inline(receipt.value, 300)
            )
            rows.append(
                {
                    "no": number,
                    "kind": "row" if receipt.kind == "row" else "quote",
                    "what": Md(
                        f"`{receipt.table}` · {safe_inline(key)} · "
                        f"{safe_inline(receipt.column)} = "
                        + (f"“{value}”" if receipt.kind == "quote" else value)
                        + f" · as of {receipt.as_of or '—'}"
                    ),
                }
            )
    return rows


def _code(text: str) -> str:
    """Our own SQL inside a code span (backticks removed so the span cannot break)."""
    return re.sub(r"\s+", " ", text.replace("`", "'")).strip()
