"""The HTML briefing in a real headless chromium: loads clean, receipts jump, no outside script.

The browser test drives Debian's chromium (`apt-get install chromium`; `scripts/setup` installs it
when run as root with apt) through Playwright (the dev extra); it skips, saying which is missing,
without either.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from datetime import datetime
from html.parser import HTMLParser

import pandas as pd
import pytest
from support.browser import BrowserDidNotStart, HeadlessBrowser, find_chromium
from support.note_metrics import (
    APPENDIX_TOP_JS,
    MAX_BODY_SCREENS,
    MAX_GLANCE_SENTENCES,
    MAX_GLANCE_WORDS,
    SCREEN,
    measure,
)

from shu.briefing.compose import compose_briefing
from shu.briefing.html import sanitize

PAYLOADS = (
    "<img src=x onerror=\"console.error('pwned-img')\"> "
    "<script>console.error('pwned-script')</script> "
    "<a href=\"javascript:console.error('pwned-link')\">click</a> "
    "![i](javascript:console.error('pwned-md')) <svg onload=console.error('pwned-svg')>"
)

needs_chromium = pytest.mark.skipif(
    find_chromium() is None,
    reason="needs chromium for the headless-browser test (apt-get install chromium)",
)
needs_playwright = pytest.mark.skipif(
    importlib.util.find_spec("playwright") is None,
    reason="needs playwright for the headless-browser test (pip install -e '.[dev]')",
)


def started_browser() -> HeadlessBrowser:
    """A started browser, or a skip saying chromium is installed but would not start here."""
    try:
        return HeadlessBrowser()
    except BrowserDidNotStart as exc:
        pytest.skip(f"chromium is installed but would not start: {exc}")


@pytest.fixture
def briefing(filled, settings, day):
    """A briefing whose outside text (a release note, a passage) carries script payloads."""
    filled.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": "acme/platform",
                    "tag": "v2.4.0",
                    "name": "v2.4.0 " + PAYLOADS,
                    "published_at": datetime(2026, 2, 20, 12),
                    "is_prerelease": False,
                    "body": "Adds ROCm 7 support. " + PAYLOADS,
                    "source": "git",
                }
            ]
        ),
    )
    filled.upsert(
        "passages",
        pd.DataFrame(
            [
                {
                    "doc_id": "n2",
                    "passage_no": 1,
                    "text": "The platform project and ROCm: " + PAYLOADS,
                }
            ]
        ),
    )
    return compose_briefing(filled, day, settings)


class _Elements(HTMLParser):
    """Every element and attribute of a page, as the browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]


def test_html_page_is_self_contained_and_sanitised(briefing):
    page = briefing.path.with_suffix(".html").read_text(encoding="utf-8")
    parsed = _Elements()
    parsed.feed(page)
    assert not {"script", "iframe", "svg", "object", "embed"} & set(parsed.tags)
    assert not [a for a in parsed.attrs if a[1].startswith("on")]
    hrefs = [v for t, k, v in parsed.attrs if k == "href"]
    local = [h for h in hrefs if not h.startswith(("#R", "http://", "https://", "index.html"))]
    # any other link is a stored document's local file, relative to the page, with no scheme
    assert hrefs and all(
        ":" not in h and (briefing.path.parent / h).resolve().is_file() for h in local
    ), local
    assert all(v.startswith("data:image/png;base64,") for t, k, v in parsed.attrs if k == "src")
    assert "pwned-script" in page  # the payload is shown as text, not dropped silently
    assert '.png"' not in page  # every chart embedded, none linked
    assert "Content-Security-Policy" in page
    index = (briefing.path.parent / "index.html").read_text(encoding="utf-8")
    assert f'href="{briefing.path.with_suffix(".html").name}"' in index
    # At a glance is a list, not one paragraph; the body's receipts are small superscript
    # links, the appendix's stay bracketed links
    start = page.index("<h2>At a glance</h2>")
    glance = page[start : page.index("<h2>", start + 4)]
    assert glance.removeprefix("<h2>At a glance</h2>\n").startswith("<ul>\n<li>")
    assert "<p>" not in glance.split("<table>")[0]
    link = r'<a href="#R\d+"[^>]*>R\d+</a>'
    assert re.search(rf"<sup>{link}(, {link})*</sup>", glance), glance
    assert "[<a href" not in glance
    appendix = page.index("<details><summary>Appendix")
    assert "[<a href" not in page[:appendix] and "<sup><a href" in page[:appendix]
    assert "[<a href" in page[appendix:]
    # the note's own measure of the small store's briefing: At a glance within its limits, and
    # shu's bookkeeping after the body
    m = measure(briefing.path)
    assert 1 <= m.glance_sentences <= MAX_GLANCE_SENTENCES
    assert m.glance_sentences == m.glance_sentences_with_number_and_receipt
    assert m.glance_words <= MAX_GLANCE_WORDS and m.bookkeeping_in_body == []


def test_sanitizer_drops_active_content():
    dirty = (
        '<p onclick="x()">a<script>alert(1)</script><a href="javascript:alert(1)">l</a>'
        '<img src="https://evil/x.png"><img src="data:image/png;base64,AAAA">'
        '<iframe src="https://evil"></iframe><a href="#R3">R3</a></p>'
    )
    clean = sanitize(dirty)
    for bad in ("onclick", "<script", "javascript:", "evil", "<iframe"):
        assert bad not in clean
    assert 'src="data:image/png;base64,AAAA"' in clean and 'href="#R3"' in clean


@needs_chromium
@needs_playwright
def test_in_a_headless_browser(briefing):
    page = briefing.path.with_suffix(".html")
    with started_browser() as browser:
        browser.open(page.as_uri())
        assert browser.errors() == []
        assert browser.console == []  # no payload logged anything: no outside script ran
        assert browser.evaluate("document.querySelectorAll('script').length") == 0
        images = browser.evaluate(
            "Array.from(document.images).map(i => [i.complete, i.naturalWidth])"
        )
        assert len(images) >= 4 and all(ok and width > 0 for ok, width in images)
        broken = browser.evaluate("""(() => {
            const bad = [];
            const links = Array.from(document.querySelectorAll('a[href^="#R"]'));
            for (const a of links) {
              const id = a.getAttribute('href').slice(1);
              const target = document.getElementById(id);
              if (!target) { bad.push('missing ' + id); continue; }
              a.click();
              const top = target.getBoundingClientRect().top;
              const atBottom = window.scrollY + window.innerHeight >=
                               document.documentElement.scrollHeight - 2;
              if (location.hash !== '#' + id || (Math.abs(top) > 2 && !atBottom))
                bad.push('no jump ' + id);
            }
            return [links.length, bad];
        })()""")
        n_links, bad = broken
        assert n_links >= briefing.n_receipts and bad == []
        receipts = browser.evaluate("document.querySelectorAll('li[id^=\"R\"]').length")
        assert receipts == briefing.n_receipts
        # the body fits the screens a desktop reader gets (1280x800)
        browser.page.set_viewport_size({"width": SCREEN[0], "height": SCREEN[1]})
        browser.open(page.as_uri())
        screens = browser.evaluate(APPENDIX_TOP_JS) / SCREEN[1]
        assert 1 < screens <= MAX_BODY_SCREENS
        browser.open((page.parent / "index.html").as_uri())
        assert browser.errors() == []
        browser.open(browser.evaluate("document.querySelector('li a').href"))
        assert browser.evaluate("document.title") == briefing.title


def test_shu_brief_open_hands_the_page_to_the_browser(filled, settings, day, tmp_path):
    db = filled.path
    filled.close()
    opened = tmp_path / "opened.txt"
    fake = tmp_path / "browser.sh"
    fake.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    fake.chmod(0o755)
    out = tmp_path / "out"
    env = {
        **os.environ,
        "BROWSER": str(fake),
        "SHU_REPOS": settings.model_dump_json(include={"repos"})[len('{"repos":') : -1],
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "shu",
            "brief",
            "--day",
            str(day),
            "--out",
            str(out),
            "--db",
            str(db),
            "--open",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert opened.read_text().strip() == (out / f"{day}.html").resolve().as_uri()


@needs_playwright
@needs_chromium
def test_tables_fit_a_phone(briefing):
    """At 390 px (a phone), no table widens the page: each fits its box or, wider than the
    screen, scrolls sideways inside it; tables of up to five columns fit without scrolling."""
    with started_browser() as browser:
        browser.page.set_viewport_size({"width": 390, "height": 844})
        browser.open(briefing.path.with_suffix(".html").as_uri())
        page_width, screen = browser.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert page_width <= screen
        tables = browser.evaluate("""Array.from(document.querySelectorAll('table')).map(t => {
            const box = t.getBoundingClientRect();
            return {columns: t.rows[0].cells.length, content: t.scrollWidth,
                    width: t.clientWidth, right: box.right,
                    scrolls: ['auto', 'scroll'].includes(getComputedStyle(t).overflowX)};
        })""")
        assert tables
        for t in tables:
            assert t["right"] <= screen and (t["content"] <= t["width"] or t["scrolls"]), t
        narrow = [t for t in tables if t["columns"] <= 5]
        assert narrow and all(t["content"] <= t["width"] for t in narrow), narrow
