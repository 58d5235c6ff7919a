"""Outside text rendered through shu.safe_markdown cannot smuggle HTML, scripts or links, and
reads as itself: no HTML entity or backslash escape shows."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from shu.safe_markdown import finish_markdown, safe_inline, safe_link

# The most permissive renderer we could meet: raw HTML allowed, links and images enabled.
RENDER = MarkdownIt("commonmark", {"html": True}).enable("table").render

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href='javascript:alert(1)'>click</a>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click]( javascript:alert(1) )",
    "![pic](data:text/html;base64,PHNjcmlwdD4=)",
    "<javascript:alert(1)>",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
    "&#106;avascript:alert(1)",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "[a](java\tscript:alert(1))",
    "<!-- hidden --> <style>body{}</style>",
    "``<script>`` and `code` **bold** _em_",
    "line one\n# heading\n- list\n| a | b |\n|---|---|\n```\nfence\n```",
    "text\u202eoverride\u200b zero-width\x00nul",
    "<iframe src='https://evil.example'></iframe>",
    "[ok](https://example.com) and https://example.com plain",
]


def _html_problems(html: str) -> list[str]:
    problems = []
    tags = set(re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", html))
    # The only tags allowed are the paragraph wrapper and the code spans shu writes.
    if tags - {"p", "code"}:
        problems.append(f"tags {sorted(tags - {'p', 'code'})}")
    if re.search(r"(?i)<[a-z][^>]*\b(href|src|on\w+)\s*=", html):
        problems.append("a link or source attribute")
    return problems


@pytest.mark.parametrize("payload", HOSTILE)
def test_inline_renders_inert(payload: str) -> None:
    html = RENDER(finish_markdown("Note: " + safe_inline(payload)) + "\n")
    assert _html_problems(html) == [], html


@pytest.mark.parametrize("payload", HOSTILE)
def test_inline_in_table_cell_keeps_the_table(payload: str) -> None:
    md = finish_markdown("| a | b |\n|---|---|\n| " + safe_inline(payload) + " | x |\n")
    html = RENDER(md)
    assert (
        _html_problems(
            html.replace("<table>", "")
            .replace("<thead>", "")
            .replace("<tbody>", "")
            .replace("<tr>", "")
            .replace("<th>", "")
            .replace("<td>", "")
        )
        == []
    ), html
    assert html.count("<td>") == 2, html


def test_text_survives_as_text() -> None:
    text = "PyTorch 2.3 adds ROCm & [TPU] support_now *really* (within 10%) >= 1.5x a|b"
    md = finish_markdown(safe_inline(text))
    assert "\\" not in md and not re.search(r"&#?\w+;", md)  # no escape, no entity
    html = RENDER(md + "\n")
    assert re.sub(r"<[^>]+>", "", html).strip() == (
        "PyTorch 2.3 adds ROCm &amp; [TPU] support_now *really* (within 10%) &gt;= 1.5x a|b"
    )


def test_markup_words_become_code_spans_and_html_and_links_their_words() -> None:
    assert safe_inline("the years_since_rocm feature") == "the `years_since_rocm` feature"
    assert safe_inline("[ROCm] enable (`hip`)") == "`[ROCm]` enable (`` `hip` ``)"
    assert safe_inline("<b>ROCm</b> &lt;i&gt;now&lt;/i&gt;") == "ROCm now"
    assert safe_inline("[docs](https://x.example) ![img](https://x.example/a.png)") == "docs img"
    assert safe_inline("# not a heading") == "`#` not a heading"
    assert safe_inline("see https://x.example/a.") == "see `https://x.example/a`."


def test_invisible_characters_are_removed_and_lines_collapsed() -> None:
    assert safe_inline("a\u202eb\u200bc\x07d\n\n e") == "abcd e"


def test_inline_shortens_with_ellipsis() -> None:
    assert safe_inline("abcdefghij", max_chars=5) == "abcd…"


def test_inline_shortens_at_a_word_not_inside_one() -> None:
    """A long notice ends at a word ('…the newest of…'), never cut mid-word ('…of t…')."""
    text = "the radar forecasts from the newest of them " * 3
    short = safe_inline(text, max_chars=40)
    assert short == "the radar forecasts from the newest of…"
    assert len(short) <= 40


@pytest.mark.parametrize(
    "target",
    [
        "javascript:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "//evil.example/x",
        "file:///etc/passwd",
        " JAVASCRIPT:x",
    ],
)
def test_safe_link_refuses_other_schemes(target: str) -> None:
    rendered = safe_link("label", target)
    assert rendered == "label"
    assert "href" not in RENDER(rendered)


def test_safe_link_allows_http_and_relative_paths_and_cannot_be_closed_early() -> None:
    html = RENDER(safe_link("doc <1>", 'https://example.com/a b)("x"') + "\n")
    assert 'href="https://example.com/a%20b%29%28%22x%22"' in html
    assert "doc &lt;1&gt;" in html
    html = RENDER(safe_link("note", "docs/notes/rocm.md") + "\n")
    assert 'href="docs/notes/rocm.md"' in html
