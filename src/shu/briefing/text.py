"""shu's own words and numbers in the briefing: number formats, receipt references, confidence
the title, and the Jinja2 environment every section renders with.

Everything here writes shu's own markdown (`Md`); outside text still goes through
`shu.safe_markdown`. The template environment prints an `Md` as is and escapes every other string
(`_finalize`), so a value a section forgets to sanitise comes out inert rather than live.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markdown_it import MarkdownIt

from shu.briefing.facts import CategoryMove
from shu.forecast.questions.registry import INTERVAL_TEMPLATE as INTERVAL
from shu.forecast.questions.registry import TEMPLATES
from shu.safe_markdown import Md, safe_code, safe_inline

_REFS = re.compile(r"\s*\[R\d+(?:, R\d+)*\]")


def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    """A number for prose: thousands separators, fixed digits, '—' for missing."""
    if value is None:
        return "—"
    if isinstance(value, int) or (
        isinstance(value, float) and value.is_integer() and abs(value) >= 1000
    ):
        return f"{int(value):+,}" if signed else f"{int(value):,}"
    return f"{value:+,.{digits}f}" if signed else f"{value:,.{digits}f}"


def pct(value: float | None, digits: int = 0) -> str:
    """A share as a percentage ('—' for missing)."""
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def ref(*numbers: int) -> Md:
    """Receipt references as shown in the text, e.g. [R3, R7]."""
    unique = list(dict.fromkeys(n for n in numbers if n))
    return Md("[" + ", ".join(f"R{n}" for n in unique) + "]") if unique else Md("")


def category_phrase(category: str) -> str:
    """A category as a plural title phrase ('inference-runtime' -> 'Inference Runtimes')."""
    words = category.replace("_", "-").split("-")
    text = " ".join(w.capitalize() for w in words)
    return text if text.endswith("s") else text + "s"


def template_words(template: str) -> str:
    """What `template` asks about, in words (its identifier with spaces when shu has none)."""
    known = TEMPLATES.get(template)
    return known.words if known else template.replace("_", " ")


def briefing_title(categories: list[CategoryMove]) -> str:
    """The briefing's title: the two categories whose pace changes most, and how."""
    moves = [c for c in categories if c.acceleration is not None]
    if not moves:
        return "No category-level movement measurable yet"
    moves.sort(key=lambda c: -abs(c.relative or 0.0))
    first = moves[0]
    if len(moves) == 1:
        return f"{category_phrase(first.category)} {first.verb}"
    second = moves[1]
    if first.verb == second.verb:
        return (
            f"{category_phrase(first.category)} and {category_phrase(second.category)} {first.verb}"
        )
    return (
        f"{category_phrase(first.category)} {first.verb} as "
        f"{category_phrase(second.category)} {second.verb}"
    )


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
    return env
