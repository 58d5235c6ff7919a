"""A briefing rendered from hostile outside text is inert: release notes, commit subjects,
document titles/locations/passages, repository descriptions, probe host names and run notices
carrying HTML, scripts, javascript:/data: links, remote images, fake headings, table pipes,
unicode bidi overrides and very long lines change nothing but the words shown."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote

import pandas as pd
from markdown_it import MarkdownIt

from shu.briefing.compose import compose_briefing
from shu.evidence.document_claims import refresh_claims

MARK = "PWNED"
BIDI = "\u202e\u202d\u202a\u202b\u202c\u2066\u2067\u2068\u2069\u200e\u200f\u200b\ufeff"
LONG = "ROCm " + "A" * 200_000
HOSTILE = [
    f"<script>alert('{MARK}')</script>",
    f"<img src=https://evil.example/{MARK}.png onerror=alert(1)>",
    f"<iframe src='https://evil.example/{MARK}'></iframe><!-- {MARK} -->",
    f"[click {MARK}](javascript:alert(1)) [data {MARK}](data:text/html;base64,PHNjcmlwdD4=)",
    f"![remote {MARK}](https://evil.example/{MARK}.png) ![x][r]\n\n[r]: https://evil.example/r",
    f"<https://evil.example/{MARK}> &#106;avascript:alert(1) &lt;script&gt;",
    f"\n# {MARK} fake heading\n## {MARK}\n{MARK}\n===\n",
    f"| {MARK} | cell |\n|---|---|\n| a | b |",
    f"a | b | c {MARK} || \\| escaped",
    f"ROCm {BIDI}evil{MARK}\u202e gnp.exe",
    f"```\n{MARK} fence\n```\n    indented {MARK}\n> quoted {MARK}\n- list {MARK}\n1. item",
    f"*emph {MARK}* __strong__ ~~strike~~ `code {MARK}` $x^2$",
    LONG,
]
BODY = "Adds ROCm 6.4 support for MI300. " + " ".join(HOSTILE)


def _poison(store) -> None:
    """Replace every piece of outside text the sample store holds with the hostile corpus."""
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": "acme/platform",
                    "tag": f"v9<script>{MARK}</script>|x",
                    "name": HOSTILE[3],
                    "published_at": datetime(2026, 2, 20, 12),
                    "is_prerelease": False,
                    "body": BODY + " " + "x" * (5 * 1024 * 1024),  # 5 MB notes
                    "url": f"javascript:alert('{MARK}')",
                    "source": "github",
                }
            ]
        ),
    )
    commits = []
    for i, text in enumerate(HOSTILE * 2):
        commits.append(
            {
                "repo": "acme/platform",
                "sha": f"{i + 1000:040x}",
                "committed_at": datetime(2026, 2, 20) + timedelta(hours=i),
                "subject": "[ROCm] " + text.replace("\n", " "),
                "topics": ["rocm-adoption"],
                "touches_rocm": True,
                "source": "github",
            }
        )
    store.upsert("commits", pd.DataFrame(commits))
    store.upsert(
        "documents",
        pd.DataFrame(
            [
                {
                    "doc_id": f"h{i}",
                    "location": loc,
                    "title": f"ROCm {text}",
                    "published_on": date(2026, 2, 1) + timedelta(days=i),
                    "content_hash": f"h{i}",
                    "format": "markdown",
                    "text": text,
                }
                for i, (loc, text) in enumerate(
                    [
                        (f"javascript:alert('{MARK}')", HOSTILE[0]),
                        ("data:text/html;base64,PHNjcmlwdD4=", HOSTILE[1]),
                        (f"https://evil.example/{MARK})<script>", HOSTILE[6]),
                        (f"//evil.example/{MARK}", HOSTILE[7]),
                    ]
                )
            ]
        ),
    )
    store.upsert(
        "passages",
        pd.DataFrame(
            [
                {
                    "doc_id": f"h{i}",
                    "passage_no": 0,
                    "text": f"ROCm is AMD's GPU stack for the platform project MI300. {text}",
                }
                for i, text in enumerate(
                    [
                        HOSTILE[0] + HOSTILE[4],
                        HOSTILE[6] + HOSTILE[9],
                        HOSTILE[7] + HOSTILE[10],
                        LONG,
                    ]
                )
            ]
        ),
    )
    claim = (
        f"On CPU, <script>{MARK}</script> [x](javascript:alert(1)) torch.compile gives a "
        f"2.5x speedup over eager for softmax | {MARK} | \u202eevil {MARK}. On H100 it "
        f"reaches 900 TFLOP/s in bfloat16 <img src=https://evil.example/{MARK}.png>."
    )
    store.upsert(
        "documents",
        pd.DataFrame(
            [
                {
                    "doc_id": "h4",
                    "location": "notes/claims.md",
                    "title": f"# {MARK} claims",
                    "published_on": date(2026, 2, 10),
                    "content_hash": "h4",
                    "format": "markdown",
                    "text": claim,
                }
            ]
        ),
    )
    store.upsert("passages", pd.DataFrame([{"doc_id": "h4", "passage_no": 0, "text": claim}]))
    assert refresh_claims(store, [f"h{i}" for i in range(5)]) >= 2
    store.con.execute("UPDATE repos SET description = ? ", [" ".join(HOSTILE[:10])])
    store.con.execute(
        "UPDATE probe_runs SET device_name = ?, host = ?", [HOSTILE[0] + HOSTILE[7], HOSTILE[6]]
    )


FAKE_STRUCTURE = [
    rf"<h[1-6]>[^<]*{MARK}",  # fake headings
    rf"<th>[^<]*{MARK}",
    rf"<td>\s*{MARK}",  # a table smuggled in
    rf"<pre><code>{MARK}",
    rf"<code>code {MARK}",
    r"<code>    indented",
    rf"<li>list {MARK}",
    rf"<blockquote>\s*<p>quoted {MARK}",
    rf"<em>emph {MARK}",
    r"<strong>strong</strong>",
    r"<del>strike",
    rf">click {MARK}</a>",
    rf">data {MARK}</a>",
    rf"<a href=\"https://evil.example/{MARK}\">",
]


def test_briefing_from_hostile_text_is_inert(filled, settings, day):
    _poison(filled)
    notices = [f"GitHub failed for acme/platform ({h})" for h in HOSTILE]
    text = compose_briefing(filled, day, settings, notices=notices).path.read_text()
    html = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(text)
    # the corpus did get in (else the other checks prove nothing), claims section included
    assert text.count(MARK) >= 10 and "evil" in text
    claims = text.split("### Claims checked against the probe")[1].split("\n### ")[0]
    assert MARK in claims
    # no live HTML, script, event handler, remote image or javascript:/data: link
    for tag in ("<script", "<iframe", "<!--", '<a href="javascript'):
        assert tag not in html.lower(), tag
    assert not re.search(r"<[a-z][^>]*\son\w+=", html, re.I)
    for src in re.findall(r'<img src="([^"]*)"', html):  # only shu's own charts
        assert re.fullmatch(r"[\w.-]+\.png", src), src
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith(("http://", "https://")) or "://" not in href, href
        assert not href.lower().startswith(("data:", "vbscript:", "javascript:", "//")), href
        assert "<" not in href and ">" not in href, href
    # no heading, table, code block, list, quote, emphasis or link made by outside text
    for pattern in FAKE_STRUCTURE:
        assert not re.search(pattern, html), pattern
    # shu's own tables keep their columns (a pipe in outside text is escaped)
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
            width = _cells(line)
            assert _cells(lines[i - 1]) == width
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                assert _cells(lines[j]) == width, lines[j]
                j += 1
    # bidi overrides and invisible characters are gone
    assert not set(BIDI) & set(text)
    # very long lines and 5 MB release notes are cut short
    assert len(text) < 200_000
    assert max(len(line) for line in lines) < 5_000
    assert "x" * 1000 not in text and "A" * 1000 not in text


def _cells(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line)) - 1


_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
_ENTITY = re.compile(r"&#?\w+;")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def test_markdown_reads_clean_and_nothing_from_a_document_is_live(filled, settings, day):
    """What a reader of the raw markdown sees has no HTML entity or backslash escape (but `\\|`
    in a table cell); rendered as CommonMark + tables, no raw HTML, no image but shu's charts and
    no link but to where a cited document was read from."""
    _poison(filled)
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    locations = {row[0] for row in filled.con.execute("SELECT location FROM documents").fetchall()}
    # shu's own links: each repository's GitHub page, its releases' and its commits' pages
    from shu.briefing.sections.cards import MORE, slug_heading

    repos = {r for (r,) in filled.con.execute("SELECT DISTINCT repo FROM stars_daily").fetchall()}
    releases = filled.con.execute("SELECT repo, tag FROM releases").fetchall()
    commits = filled.con.execute("SELECT repo, sha FROM commits").fetchall()
    github = (
        {f"https://github.com/{r}" for r in repos}
        | {f"https://github.com/{r}/releases/tag/{t}" for r, t in releases}
        | {f"https://github.com/{r}/commit/{sha}" for r, sha in commits}
        | {f"#{slug_heading(MORE)}"}  # and a card's link to its details in the appendix
    )
    in_cell = False
    seen_links = 0
    for tok in tokens:
        assert tok.type not in ("html_block", "html_inline"), tok.content[:200]
        if tok.type in ("td_open", "th_open"):
            in_cell = True
        elif tok.type in ("td_close", "th_close"):
            in_cell = False
        if tok.type != "inline":
            continue
        # the raw source outside code spans: no entity, no escape (a table cell may hold \|)
        raw = _CODE_SPAN.sub("", tok.content)
        if in_cell:
            raw = raw.replace("\\|", "")
        assert not _ESCAPE.search(raw), _ESCAPE.search(raw).group(0) + " in " + raw[:300]
        assert not _ENTITY.search(raw), raw[:300]
        for child in tok.children or []:
            if child.type == "text":
                assert "\\" not in child.content and not _ENTITY.search(child.content)
            if child.type == "image":
                assert re.fullmatch(r"[\w.-]+\.png", child.attrGet("src")), child.attrGet("src")
                assert (result.path.parent / child.attrGet("src")).exists()
            if child.type == "link_open":
                seen_links += 1
                target = unquote(child.attrGet("href"))
                if target in github:
                    continue
                # a local document (keyed by its path under the project's root, the current
                # directory) is linked relative to the briefing's folder: that file, no other
                local = (result.path.parent / target).resolve()
                if local.is_file():
                    assert any(local == Path(loc).resolve() for loc in locations), target
                    continue
                assert target in locations and target.startswith(("http://", "https://")), target
    # the corpus did get in, and the page says so in words
    assert text.count(MARK) >= 10 and seen_links >= 1
