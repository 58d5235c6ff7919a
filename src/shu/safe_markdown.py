"""Rendering untrusted outside text (release notes, documents, commit subjects) as clean, inert
markdown: what a reader of the raw file sees is the text itself, never an HTML entity or a
backslash escape, and nothing in it becomes a link, an image, raw HTML or markdown structure.

Everything that did not come from shu itself is treated as hostile. `safe_inline`:

- decodes HTML entities first (`&lt;b&gt;` is the tag it spells, `&amp;` is `&`), so none shows;
- drops raw HTML: tags, comments, declarations and processing instructions go, the text between
  tags stays (`<b>ROCm</b>` reads ROCm); an autolink `<https://…>` keeps its address as text;
- drops links and images, keeping their words: `[label](target)`, `![alt](src)`,
  `[label][ref]` read `label` / `alt`;
- shows in a code span, where markdown is inert and every character is itself, any remaining
  word markdown could read as markup: one holding `` ` * _ [ ] \\ ~ ``, a `<` that could open a
  tag, an entity-like `&name;`, an address (`://`, `www.`), or a block marker first on the line
  (`#`, `>`, `-`, `+`, `=`, `1.`); adjacent such words share one span, punctuation around them
  stays outside it;
- writes `|` as a placeholder that `finish_markdown` turns into `\\|` on a table row (the one
  escape: tables unescape it in their cells, code spans included) and into `|` elsewhere;
- keeps it to one line: whitespace collapses; control, zero-width, bidirectional-override and
  private-use characters are removed (so outside text cannot forge the placeholder).

`safe_code` shows an identifier in a code span; `safe_link` writes shu's own links, allowing only
`http(s)` URLs and relative paths (anything else is shown as text without a link).
"""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import quote, urlsplit

PIPE = "\ue000"  # an outside `|`, until `finish_markdown` knows whether it sits in a table
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn"}
_WHITESPACE = re.compile(r"\s+")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
_RAW_HTML = re.compile(
    r"<!--.*?(?:-->|$)|<![^>]*>?|<\?.*?(?:\?>|$)"
    r"|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>",
    re.S,
)
_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()]|\([^()]*\))*\)")
_REF_LINK = re.compile(r"!?\[([^\[\]]*)\]\[[^\[\]]*\]")
_MARKUP = re.compile(r"[`*_\[\]\\~]|<[A-Za-z/!?]|&#?\w+;|://|^www\.", re.IGNORECASE)
_LINE_START = re.compile(r"^(?:#{1,6}|[-+*]|=+|-+|\d{1,9}[.)])$|^>")
_EDGE = re.compile(r"^([(“\"'‘]*)(.*?)([.,;:!?)”\"'’]*)$", re.S)
_TABLE_ROW = re.compile(r"^\s*\|")


def _strip_invisible(text: str) -> str:
    return "".join(
        " "
        if ch in "\t\n\r\x0b\x0c"
        else ""
        if unicodedata.category(ch) in _INVISIBLE_CATEGORIES
        else ch
        for ch in text
    )


def _decode(text: str) -> str:
    """HTML entities decoded until none is left (an entity may encode another)."""
    for _ in range(3):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


def _clean(text: str) -> str:
    """One line of outside text with raw HTML, links and images reduced to their words."""
    text = _WHITESPACE.sub(" ", _strip_invisible(_decode(text)))
    text = _AUTOLINK.sub(r" \1 ", text)
    text = _RAW_HTML.sub(" ", text)
    for _ in range(3):  # a label may itself have held a link
        text = _REF_LINK.sub(r"\1", _LINK.sub(r"\1", text))
    return _WHITESPACE.sub(" ", text).strip()


def _code_span(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", PIPE)


def _needs_code(word: str, first: bool) -> bool:
    return bool(_MARKUP.search(word) or (first and _LINE_START.search(word)))


def _span(words: list[str]) -> str:
    """Adjacent words markdown could read as markup, as one code span (punctuation around them
    outside it)."""
    edge = _EDGE.match(" ".join(words))
    assert edge is not None  # every part of the pattern may be empty: it matches any text
    lead, core, trail = edge.groups()
    if not core or not _needs_code(core, first=not lead):
        lead, core, trail = "", " ".join(words), ""
    return lead + _code_span(core) + trail.replace("|", PIPE)


def safe_inline(text: object, max_chars: int | None = None) -> str:
    """Outside text as one line of clean, inert markdown (optionally shortened, with an
    ellipsis)."""
    if text is None:
        return ""
    plain = _clean(str(text))
    if max_chars is not None and len(plain) > max_chars:
        cut = plain[: max(max_chars - 1, 0)]
        space = cut.rfind(" ", max_chars // 2)  # end at a word, not in the middle of one
        plain = (cut[:space] if space > 0 else cut).rstrip() + "…"
    out: list[str] = []
    run: list[str] = []
    for i, word in enumerate(w for w in plain.split(" ") if w):
        if _needs_code(word, i == 0):
            run.append(word)
            continue
        if run:
            out.append(_span(run))
            run = []
        out.append(word.replace("|", PIPE))
    if run:
        out.append(_span(run))
    return " ".join(out)


def safe_code(text: object) -> str:
    """Text as one markdown code span, shown literally: one line, invisible characters removed,
    fenced with more backticks than any run inside it. Markdown and HTML inside a code span are
    inert by definition."""
    plain = _WHITESPACE.sub(" ", _strip_invisible(str(text or ""))).strip()
    return _code_span(plain) if plain else ""


def safe_link(label: object, target: str | None) -> str:
    """A markdown link to `target` when it is http(s) or a relative path; else the label alone.

    The label is cleaned like any inline text; the target is percent-encoded so it cannot close
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


def finish_markdown(markdown: str) -> str:
    """The briefing's markdown with each outside `|` placed: `\\|` on table rows, `|` elsewhere."""
    return "\n".join(
        line.replace(PIPE, "\\|" if _TABLE_ROW.match(line) else "|")
        for line in markdown.split("\n")
    )


class Md(str):
    """Markdown that shu wrote itself (outside text inside it already went through safe_*).

    The briefing templates print an `Md` as is and clean every other string, so forgetting to
    sanitise a value makes it inert rather than live.
    """

    __slots__ = ()
