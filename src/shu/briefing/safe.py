"""Rendering untrusted outside text (release notes, documents, commit subjects) into markdown.

Everything that did not come from shu itself is treated as hostile. The rules:

- HTML cannot get through: `<`, `>` and `&` become entities, so tags, comments, autolinks and
  entity-encoded payloads (`&#106;avascript:`) all render as literal text.
- Markdown structure cannot be injected: every markdown-significant ASCII punctuation character is
  backslash-escaped, so `[x](javascript:…)`, `![img](data:…)`, reference definitions, emphasis,
  code spans and table pipes render as the characters they are.
- Inline text is one line: newlines and runs of whitespace collapse to one space, so outside text
  cannot start a heading, list, table row or fenced block; quoted blocks keep their lines but each
  is escaped and prefixed with `> `.
- Control, zero-width and bidirectional-override characters are removed.
- Links shu writes itself go through `safe_link`, which allows only `http(s)` URLs and relative
  paths; anything else is shown as text without a link.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, urlsplit

# ASCII punctuation that shapes markdown anywhere in a line (CommonMark allows a backslash before
# any ASCII punctuation). Characters that matter only at the start of a line are handled there.
_MD_SPECIAL = set("\\`*_{}[]()!|~$^")
_LINE_START = re.compile(r"^(\s*)([#+\-=])|^(\s*\d+)([.)])")
_HTML_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn"}
_WHITESPACE = re.compile(r"\s+")


def _strip_invisible(text: str, keep_newlines: bool) -> str:
    out = []
    for ch in text:
        if ch in "\t\n\r" and keep_newlines:
            out.append("\n" if ch != "\t" else " ")
        elif unicodedata.category(ch) in _INVISIBLE_CATEGORIES:
            out.append(" " if ch in "\t\n\r\x0b\x0c" else "")
        else:
            out.append(ch)
    return "".join(out)


def _escape_chars(text: str) -> str:
    out = []
    for ch in text:
        if ch in _HTML_ENTITIES:
            out.append(_HTML_ENTITIES[ch])
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    escaped = "".join(out)
    # A line starting with '#', '-', '+', '=', '>' or '1.' would become a heading, list or quote.
    return _LINE_START.sub(
        lambda m: (m.group(1) or m.group(3) or "") + "\\" + (m.group(2) or m.group(4)),
        escaped, count=1)


def safe_inline(text: object, max_chars: int | None = None) -> str:
    """Outside text as one line of inert markdown (optionally shortened, with an ellipsis)."""
    if text is None:
        return ""
    plain = _WHITESPACE.sub(" ", _strip_invisible(str(text), keep_newlines=False)).strip()
    if max_chars is not None and len(plain) > max_chars:
        plain = plain[: max(max_chars - 1, 0)].rstrip() + "…"
    return _escape_chars(plain)


def safe_code(text: object) -> str:
    """Text as one markdown code span, shown literally (no backslash escapes, which a code span
    would print): one line, invisible characters removed, fenced with more backticks than any
    run inside it. Markdown and HTML inside a code span are inert by definition."""
    plain = _WHITESPACE.sub(" ", _strip_invisible(str(text or ""), keep_newlines=False)).strip()
    longest = max((len(run) for run in re.findall(r"`+", plain)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if plain.startswith("`") or plain.endswith("`") else ""
    return f"{fence}{pad}{plain}{pad}{fence}" if plain else ""


def safe_quote(text: object, max_chars: int | None = None) -> str:
    """Outside text as an inert markdown block quote; its line breaks are kept."""
    if text is None:
        return ""
    cleaned = _strip_invisible(str(text), keep_newlines=True)
    if max_chars is not None and len(cleaned) > max_chars:
        cleaned = cleaned[: max(max_chars - 1, 0)].rstrip() + "…"
    lines = [_WHITESPACE.sub(" ", line).strip() for line in cleaned.split("\n")]
    kept: list[str] = []
    for line in lines:
        if line or (kept and kept[-1]):
            kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join("> " + _escape_chars(line) if line else ">" for line in kept)


def safe_link(label: object, target: str | None) -> str:
    """A markdown link to `target` when it is http(s) or a relative path; else the label alone.

    The label is escaped like any inline text; the target is percent-encoded so it cannot close
    the link early.
    """
    text = safe_inline(label) or safe_inline(target)
    if not target:
        return text
    target = target.strip()
    parts = urlsplit(target)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https") and parts.netloc:
        href = quote(target, safe=":/?#@!$&'*+,;=%~-._")
    elif not scheme and not parts.netloc and not target.startswith(("//", "\\")):
        href = quote(target, safe="/#%~-._")
    else:
        return text
    return f"[{text}]({href})"


class Md(str):
    """Markdown that shu wrote itself (outside text inside it already went through safe_*).

    The briefing templates print an `Md` as is and escape every other string, so forgetting to
    sanitise a value makes it inert rather than live.
    """

    __slots__ = ()
