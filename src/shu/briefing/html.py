"""The HTML briefing: the markdown briefing as one self-contained page, and an index of them.

`write_html(md_path, title, page_markdown)` renders the page's markdown (the briefing plus each
card's details, between the paragraphs `%%details%% Summary` and `%%/details%%`, which become an
expandable `<details>` block; CommonMark + tables, raw HTML disabled) to `REPORTS/YYYY-MM-DD.html`:
every chart it references embedded as a base64 PNG, every receipt reference `[R3, R7]` a link to
its receipt (`id="R3"`; in At a glance, whose sentences are a list, small superscript links).
Only a whole paragraph shu wrote can be a details marker: outside text is always inside a
sentence of shu's. The rendered body then goes through `nh3` (a maintained HTML sanitiser) with
an allow-list of tags and attributes: no script, no event handler, no style attribute, links
only to http(s) or `#R…`, images only as embedded PNG. The page also carries a
Content-Security-Policy that allows no script at all, so outside text (release notes, documents,
commit subjects) cannot run even if it slipped through.

On a phone (390 px) no table widens the page: cells wrap at spaces, a repository's name may
break after its slash (a `<wbr>`), headers and padding shrink, and a table still wider than the
screen scrolls sideways inside its own box, a shadow at the edge showing that more columns are
there.

`write_index(reports_dir)` writes `REPORTS/index.html` listing every briefing page, newest first.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import nh3
from markdown_it import MarkdownIt

INDEX_NAME = "index.html"
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)
TAGS = {
    "a",
    "blockquote",
    "br",
    "code",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "hr",
    "img",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
    "del",
    "details",
    "summary",
    "wbr",
    "sup",
}
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "li": {"id"},
    "td": {"style"},
    "th": {"style"},
}
_DATA_PNG = re.compile(r"^data:image/png;base64,[A-Za-z0-9+/=]+$")
_ALIGN = re.compile(r"^text-align:(left|right|center)$")
_REFS = re.compile(r"\[(R\d+(?:, R\d+)*)\]")
_RECEIPT_ITEM = re.compile(r"<li><strong>(R\d+)</strong>")
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_IMG = re.compile(r'<img src="([^"]+)"')
_DETAILS_OPEN = re.compile(r"<p>%%details%% ([^<>]*)</p>")
_DETAILS_CLOSE = "<p>%%/details%%</p>"
# A link in a table cell whose text is a repository's name (owner/name): a line may break after
# its slash, so a narrow column wraps it there rather than widening the table past a phone's
# screen (links elsewhere keep their text as it is).
_CELL = re.compile(r"<td[^>]*>.*?</td>", re.S)
_REPO_LINK_TEXT = re.compile(r"(<a [^>]*>)([\w.-]+)/([\w.-]+)</a>")
# The body: everything before the appendix's details (the whole page when it has none)
_BODY = re.compile(r"\A(.*?)(?=<details><summary>Appendix|\Z)", re.S)

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 76rem; margin: 2rem auto; padding: 0 1rem;
       color: #1b1b1b; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
h3 { margin-top: 1.3rem; }
table { border-collapse: collapse; font-size: 13px; margin: 0.8rem 0; display: block;
        max-width: 100%; overflow-x: auto;
        background: linear-gradient(to right, #fff 30%, #fff0) left / 2rem 100% no-repeat local,
          linear-gradient(to left, #fff 30%, #fff0) right / 2rem 100% no-repeat local,
          radial-gradient(farthest-side at 0 50%, #0003, #0000) left / 0.7rem 100% no-repeat
          scroll,
          radial-gradient(farthest-side at 100% 50%, #0003, #0000) right / 0.7rem 100%
          no-repeat scroll; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.45rem; overflow-wrap: break-word; }
@media (max-width: 40rem) {
  body { padding: 0 0.6rem; }
  table { font-size: 12px; }
  th, td { padding: 0.15rem 0.3rem; }
  th { font-size: 11px; }
  td a { overflow-wrap: anywhere; }
}
th { background: #f4f4f4; }
img { max-width: 100%; height: auto; }
/* a chart takes half the width on a desktop, the text beside it; charts in a row sit side by
   side, in order; headings, tables and details start below them */
p:has(> img) { float: left; width: 45%; margin: 0 1.2rem 0.6rem 0; }
h1, h2, h3, table, details, hr { clear: both; }
ul { overflow: hidden; }  /* a list beside a chart stays beside it, its bullets clear of it */
@media (max-width: 760px) { p:has(> img) { float: none; width: auto; margin: 0.6rem 0; } }
code { background: #f3f3f3; padding: 0 0.2rem; border-radius: 3px; font-size: 0.92em; }
blockquote { border-left: 4px solid #c33; margin: 0.6rem 0; padding: 0.2rem 0.8rem;
             background: #fff6f6; }
li:target { background: #fff3b0; }
sup { font-size: 0.7em; line-height: 0; } sup a { color: #777; text-decoration: none; }
nav { font-size: 13px; color: #555; }
details { margin: 0.4rem 0 1rem; font-size: 14px; } summary { cursor: pointer; color: #555; }
"""


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    """Keep an allowed attribute only when its value is safe for where it is."""
    if tag == "img" and attr == "src":
        return value if _DATA_PNG.match(value) else None
    if tag == "a" and attr == "href":
        if value.startswith(("http://", "https://")) or re.fullmatch(r"#R\d+", value):
            return value
        if re.fullmatch(r"[\w.-]+\.html", value):  # the index's links to briefing pages
            return value
        if re.fullmatch(r"(?:\.\./)*[\w-]+(?:/[\w.-]+)*\.md", value):  # a local document
            return value
        return None
    if attr == "style":
        return value if _ALIGN.match(value) else None
    if attr == "id":
        return value if re.fullmatch(r"R\d+", value) else None
    return value


def sanitize(fragment: str) -> str:
    """`fragment` with only the allowed tags, attributes and link/image targets left."""
    return nh3.clean(
        fragment,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "data"},
        attribute_filter=_attribute_filter,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def render_body(markdown: str, assets_dir: Path) -> str:
    """The briefing's markdown as a sanitised HTML fragment, charts inlined, receipts linked."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = md.render(markdown)
    body = _DETAILS_OPEN.sub(r"<details><summary>\1</summary>", body)
    body = body.replace(_DETAILS_CLOSE, "</details>")
    body = _IMG.sub(lambda m: f'<img src="{_inline_png(m.group(1), assets_dir)}"', body)
    body = _CELL.sub(lambda m: _REPO_LINK_TEXT.sub(r"\1\2/<wbr>\3</a>", m.group(0)), body)
    body = _RECEIPT_ITEM.sub(r'<li id="\1"><strong>\1</strong>', body)
    body = _BODY.sub(lambda m: _REFS.sub(_superscript, m.group(1)), body, count=1)
    body = _REFS.sub(lambda m: f"[{_links(m.group(1))}]", body)
    return sanitize(body)


def _links(refs: str) -> str:
    """'R3, R7' as links to those receipts."""
    return ", ".join(f'<a href="#{r}">{r}</a>' for r in refs.split(", "))


def _superscript(m: re.Match[str]) -> str:
    """A receipt reference as the body shows it: small, raised links, no brackets (the appendix
    keeps them bracketed, for whoever checks them)."""
    return f"<sup>{_links(m.group(1))}</sup>"


def _inline_png(src: str, assets_dir: Path) -> str:
    """A chart referenced by a relative path as a data: URL ('' when it is not a local PNG)."""
    src = html.unescape(src)
    if "/" in src or "\\" in src or not src.endswith(".png"):
        return ""
    path = assets_dir / src
    if not path.is_file():
        return ""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def page(title: str, body: str, nav: str = "") -> str:
    """A complete HTML document around an already sanitised `body`."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"{nav}{body}\n</body>\n</html>\n"
    )


def write_html(md_path: Path, title: str, page_markdown: str | None = None) -> Path:
    """Write the HTML page beside the markdown briefing `md_path` (same stem) from
    `page_markdown` (default: the briefing itself); return its path."""
    body = render_body(
        page_markdown if page_markdown is not None else md_path.read_text(encoding="utf-8"),
        md_path.parent,
    )
    nav = f'<nav><a href="{INDEX_NAME}">All briefings</a></nav>\n'
    out = md_path.with_suffix(".html")
    out.write_text(page(title, body, sanitize(nav)), encoding="utf-8")
    return out


def write_index(reports_dir: Path) -> Path:
    """Write `reports_dir/index.html`: every briefing page there, newest first."""
    items = []
    for path in sorted(reports_dir.glob("*.html"), reverse=True):
        if path.name == INDEX_NAME:
            continue
        found = _TITLE.search(path.read_text(encoding="utf-8", errors="replace")[:4000])
        title = html.unescape(found.group(1)) if found else path.stem
        items.append(
            f'<li><a href="{html.escape(path.name)}">{html.escape(path.stem)}</a> · '
            f"{html.escape(title)}</li>"
        )
    body = "<h1>shu briefings</h1>\n" + (
        f"<ul>\n{''.join(items)}\n</ul>" if items else "<p>No briefing yet.</p>"
    )
    out = reports_dir / INDEX_NAME
    out.write_text(page("shu briefings", sanitize(body)), encoding="utf-8")
    return out
