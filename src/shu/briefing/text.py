"""shu's own words and numbers in the briefing, the one words module: number and percentage
formats, dates, the list joiners, links, receipt references and the citation of a stored signal,
and the Jinja2 environment every section renders with. A wording helper more than one module
could use lives here, not beside its first caller (`tests/unit/core/test_design.py` fails when a
briefing module defines one of these again).

Everything here writes shu's own markdown (`Md`); outside text still goes through
`shu.safe_markdown`. The template environment prints an `Md` as is and escapes every other string
(`_finalize`), so a value a section forgets to sanitise comes out inert rather than live.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import jinja2
from markdown_it import MarkdownIt

from shu.forecast.questions.registry import INTERVAL_TEMPLATE as INTERVAL
from shu.forecast.questions.registry import TEMPLATES
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md, safe_code, safe_inline, safe_link
from shu.signals.reads import signal_value

_REFS = re.compile(r"\s*\[R\d+(?:, R\d+)*\]")
# A forecast issued by `shu replay` (`records.REPLAYED_SQL`), in words.
REPLAYED_WHAT = "issued on the data as it was, not published then"
REPLAYED_WORDS = f"replayed forecasts ({REPLAYED_WHAT})"


def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    """A number for prose: thousands separators, fixed digits, '—' for missing."""
    if value is None:
        return "—"
    if isinstance(value, int) or (
        isinstance(value, float) and value.is_integer() and abs(value) >= 1000
    ):
        return f"{int(value):+,}" if signed else f"{int(value):,}"
    return f"{value:+,.{digits}f}" if signed else f"{value:,.{digits}f}"


def shown_value(value: float, digits: int) -> float:
    """`value` as the note shows it with `digits` decimals: what a figure derived from shown
    figures (a difference, a ratio) is computed from, so a reader redoing it gets the same."""
    return round(value, digits)


GITHUB = "https://github.com"


def repo_link(repo: str) -> Md:
    """The repository's name linked to its GitHub page."""
    return Md(safe_link(repo, f"{GITHUB}/{repo}"))


def release_link(repo: str, tag: str) -> Md:
    """A release's tag linked to its page on GitHub."""
    return Md(safe_link(tag, f"{GITHUB}/{repo}/releases/tag/{tag}"))


def document_target(location: str | None, out_dir: Path | None) -> str | None:
    """Where a document's link points: its address, or the local file relative to the
    briefing's folder (None when neither can be given). A relative location (a document keyed
    by its path under the project's root) is read from the current directory."""
    if not location:
        return None
    if location.startswith(("http://", "https://")):
        return location
    path = Path(location).absolute()
    if out_dir is None or not path.is_file():
        return None
    return Path(os.path.relpath(path, out_dir.resolve())).as_posix()


def commit_url(repo: str, sha: str) -> str:
    """The commit's page on GitHub."""
    return f"{GITHUB}/{repo}/commit/{sha}"


def commit_link(repo: str, sha: str, label: str | None = None) -> Md:
    """A commit (its short sha, or `label`) linked to its page on GitHub."""
    return Md(safe_link(label or sha[:10], commit_url(repo, sha)))


def day_text(day: date | str) -> str:
    """A day (a date, a timestamp or ISO text) as prose writes it: '14 Jan 2026'."""
    if isinstance(day, datetime):
        day = day.date()
    if isinstance(day, str):
        day = date.fromisoformat(day[:10])
    return f"{day.day} {day:%b %Y}"


def days_text(first: date, last: date) -> str:
    """A run of days as prose writes it: '17 Jan 2026', '14–17 Jan 2026', '30 Jan–2 Feb 2026'."""
    if first == last:
        return day_text(first)
    if (first.year, first.month) == (last.year, last.month):
        return f"{first.day}–{day_text(last)}"
    if first.year == last.year:
        return f"{first.day} {first:%b}–{day_text(last)}"
    return f"{day_text(first)}–{day_text(last)}"


# How often such questions usually come true (a forecast's base rate), in the body's words.
USUAL_RATE = "how often such questions usually come true"


def pct(value: float | None, digits: int = 0) -> str:
    """A share as a percentage ('—' for missing)."""
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def pct_span(low: float, high: float) -> str:
    """Two shares as a range of percentages ('12%–45%'), one when both show the same."""
    return pct(low) if pct(low) == pct(high) else f"{pct(low)}–{pct(high)}"


def pct_interval(low: float | None, high: float | None, digits: int = 1) -> str:
    """A share's confidence interval, the sign once ('12.3–45.6%'; '—' without one)."""
    return "—" if low is None else f"{100 * low:.{digits}f}–{pct(high, digits)}"


def and_list(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c': the one joiner of the briefing's lists."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def and_more(items: Sequence[str], limit: int) -> str:
    """The first `limit` of `items` joined and the rest counted: 'a, b and 2 more'."""
    shown = list(items[:limit])
    if len(items) > limit:
        shown.append(f"{len(items) - limit} more")
    return and_list(shown)


def possessive(subject: str) -> str:
    """'its' for 'it', else the subject's possessive ("pytorch/pytorch's")."""
    return "its" if subject == "it" else f"{subject}'s"


def lower_first(text: str) -> Md:
    """`text` with its first letter in lower case (a sentence continued after a colon)."""
    return Md(text[:1].lower() + text[1:])


def ref(*numbers: int) -> Md:
    """Receipt references as shown in the text, e.g. [R3, R7]."""
    unique = list(dict.fromkeys(n for n in numbers if n))
    return Md("[" + ", ".join(f"R{n}" for n in unique) + "]") if unique else Md("")


def receipt_span(first: int, last: int) -> Md:
    """Receipts `first` to `last` as a range ('R3–R7', 'R3'; 'none' when there are none)."""
    if last < first:
        return Md("none")
    return Md(f"R{first}" if first == last else f"R{first}–R{last}")


def cite_signal(book: ReceiptBook, repo: str, day: date, column: str, value: Any) -> int:
    """Cite `repo`'s stored `star_signals.<column>` = `value` on `day`; the receipt's number."""
    return book.row(
        "star_signals", {"repo": repo, "day": day}, column, value, day, f"{repo} {column}"
    )


def signal_receipt(
    con: duckdb.DuckDBPyConnection, book: ReceiptBook, repo: str, day: date, column: str
) -> tuple[float | None, int]:
    """`repo`'s stored `star_signals.<column>` on `day` and its receipt ((None, 0) when
    absent)."""
    value = signal_value(con, column, repo, day)
    if value is None:
        return None, 0
    return float(value), cite_signal(book, repo, day, column, value)


def template_words(template: str) -> str:
    """What `template` asks about, in words (its identifier with spaces when shu has none)."""
    known = TEMPLATES.get(template)
    return known.words if known else template.replace("_", " ")


def interval_text(f: dict[str, Any]) -> str | None:
    """An interval forecast's median and 80% interval (it is stored with p = 0.8, which is not
    a probability of anything); None for the other templates."""
    if f["template"] != INTERVAL or f["median"] is None:
        return None
    return f"median {num(f['median'])}, 80%: {num(f['lower_80'])}–{num(f['upper_80'])}"


def visible_text(markdown: str) -> str:
    """What a reader sees of `markdown` (text and code, no markup), receipt references left out:
    how long a card's prose is."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    text = " ".join(
        "".join(
            child.content for child in tok.children or [] if child.type in ("text", "code_inline")
        )
        for tok in tokens
        if tok.type == "inline"
    )
    return _REFS.sub("", text)


_WORD = re.compile(r"\S*[^\W\d_]\S*")


def word_count(markdown: str) -> int:
    """Words a reader meets in `markdown`: whitespace-separated tokens with at least one letter,
    in its visible text (link labels, not addresses; no image, code block or receipt
    reference)."""
    return len(_WORD.findall(visible_text(markdown)))


def _finalize(value: Any) -> Any:
    """Every value printed by a template: shu's markdown as is, anything else escaped."""
    if isinstance(value, Md):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    return safe_inline(value)


def template_env() -> jinja2.Environment:
    """The Jinja2 environment: package templates, default-deny escaping via `finalize`."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("shu.briefing", "templates"),
        finalize=_finalize,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["code"] = lambda value: Md(safe_code(value))  # identifiers, shown literally
    env.filters["day"] = day_text
    return env
