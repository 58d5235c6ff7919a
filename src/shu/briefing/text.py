"""shu's own words and numbers in the briefing: number formats, receipt references, confidence
bands, the title, and the Jinja2 environment every section renders with.

Everything here writes shu's own markdown (`Md`); outside text still goes through
`shu.briefing.safe`. The template environment prints an `Md` as is and escapes every other string
(`_finalize`), so a value a section forgets to sanitise comes out inert rather than live.
"""

from __future__ import annotations

from typing import Any

import jinja2

from shu.briefing.facts import CategoryMove
from shu.briefing.safe import Md, safe_code, safe_inline
from shu.forecast.interval import TEMPLATE as INTERVAL

BANDS = (("low", 0.5, 0.65), ("medium", 0.65, 0.80), ("high", 0.80, 1.0001))


def num(value: float | None, digits: int = 2, signed: bool = False) -> str:
    """A number for prose: thousands separators, fixed digits, '—' for missing."""
    if value is None:
        return "—"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and
                                  abs(value) >= 1000):
        return f"{int(value):+,}" if signed else f"{int(value):,}"
    return f"{value:+,.{digits}f}" if signed else f"{value:,.{digits}f}"


def pct(value: float | None, digits: int = 0) -> str:
    """A share as a percentage ('—' for missing)."""
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def ref(*numbers: int) -> Md:
    """Receipt references as shown in the text, e.g. [R3, R7]."""
    unique = list(dict.fromkeys(n for n in numbers if n))
    return Md("[" + ", ".join(f"R{n}" for n in unique) + "]") if unique else Md("")


def band_of(probability: float) -> str:
    """Confidence band of max(p, 1 - p): low < 0.65 <= medium < 0.80 <= high."""
    sure = max(probability, 1 - probability)
    return next(name for name, lo, hi in BANDS if lo <= sure < hi)


def category_phrase(category: str) -> str:
    """A category as a plural title phrase ('inference-runtime' -> 'Inference Runtimes')."""
    words = category.replace("_", "-").split("-")
    text = " ".join(w.capitalize() for w in words)
    return text if text.endswith("s") else text + "s"


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
        return (f"{category_phrase(first.category)} and {category_phrase(second.category)} "
                f"{first.verb}")
    return (f"{category_phrase(first.category)} {first.verb} as "
            f"{category_phrase(second.category)} {second.verb}")


def interval_text(f: dict[str, Any]) -> str | None:
    """An interval forecast's median and 80% interval (it is stored with p = 0.8, which is not
    a probability of anything); None for the other templates."""
    if f["template"] != INTERVAL or f["median"] is None:
        return None
    return f"median {num(f['median'])}, 80%: {num(f['lower_80'])}–{num(f['upper_80'])}"


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
        finalize=_finalize, autoescape=False, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["code"] = lambda value: Md(safe_code(value))  # identifiers, shown literally
    return env
