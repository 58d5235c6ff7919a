"""Composing a briefing from a directly filled store: sections, receipts, safety, idempotence."""

from __future__ import annotations

from markdown_it import MarkdownIt

from shu.briefing.compose import compose_briefing
from shu.receipts import resolve, stored_receipts


def test_briefing_has_every_section_and_card_part(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    page = result.path.with_suffix(".html").read_text()
    assert result.path.name == f"{day}.md"
    for heading in (
        "## What moved",
        "## Forecasts",
        "## Signals",
        "## Probe results and claim checks",
        "## Track record",
        "## Receipts",
    ):
        assert heading in text
    assert result.n_forecasts == 3
    for part in (
        "**Why this prediction:**",
        "**Why this confidence:**",
        "**Topic:**",
        "against a base rate of 45%",
    ):
        assert text.count(part) == 3, part
    # Context questions appear only where the corpus answers them (acme/platform's ROCm ones).
    assert text.count("**Context:**") == 1 and "*What is ROCm?*" in text
    assert "*Horizon ~30 days · confidence: medium · topic: ROCm ·" in text
    # the rest of each card is in the HTML page's expandable details, not in the markdown
    assert page.count("<details><summary>More on this card</summary>") == 3
    for part in (
        "From signals, 28-day star velocity in the",
        "Release context:",
        "Why this question:",
    ):
        assert part not in text and part in page, part
    assert all(p.exists() for p in result.charts)


def test_title_comes_from_category_signals(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    # platform repos have positive curvature (accelerating), the runtime negative.
    assert result.title in (
        "Platforms Accelerate as Inference Runtimes Decelerate",
        "Inference Runtimes Decelerate as Platforms Accelerate",
    )


def test_every_receipt_resolves_and_is_stored(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    receipts = stored_receipts(filled, result.briefing_id)
    assert len(receipts) == result.n_receipts > 20
    assert {r.kind for r in receipts} >= {"row", "query", "passage", "quote"}
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_tampered_receipt_does_not_resolve(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    receipts = stored_receipts(filled, result.briefing_id)
    filled.con.execute("UPDATE star_signals SET velocity_28d = velocity_28d + 1")
    assert any(resolve(filled, r) for r in receipts)


def test_confidence_cites_live_record_and_no_backtest_claim_without_one(filled, settings, day):
    result = compose_briefing(filled, day, settings)
    assert "no backtest hit rate is stored for this band" in result.path.read_text()
    assert "Live record of this store" in result.path.with_suffix(".html").read_text()


def test_topic_needs_evidence(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    other_card = text.split("### `acme/other-platform`")[1].split("###")[0]
    assert "topic: none asserted" in other_card
    assert "No configured topic has evidence" in other_card
    runtime_card = text.split("### `acme/runtime`")[1].split("###")[0]
    assert "topic: quantization" in runtime_card  # one release note mentions GGUF
    platform_card = text.split("### `acme/platform`")[1].split("###")[0]
    assert "8 of 40 commits (20.0%)" in platform_card
    page = result.path.with_suffix(".html").read_text()
    assert "Release v2.3.0 (2026-02-10) mentions ROCm" in page


def test_stale_repository_is_marked(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    assert result.stale_repos == ["acme/runtime"]
    assert "**Stale data:** acme/runtime" in result.path.read_text()


def test_outside_text_is_inert(filled, settings, day) -> None:
    text = compose_briefing(filled, day, settings).path.read_text()
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    assert "<script" not in html
    assert (
        "javascript:" not in html.replace("javascript:alert", "") or 'href="javascript' not in html
    )
    assert 'href="javascript' not in html


def test_rerun_rewrites_the_same_briefing(filled, settings, day) -> None:
    first = compose_briefing(filled, day, settings)
    body = first.path.read_text().split("\n", 3)[3]
    second = compose_briefing(filled, day, settings)
    assert second.path.read_text().split("\n", 3)[3] == body
    assert filled.con.execute("SELECT count(*) FROM briefings").fetchone()[0] == 1
    assert (
        filled.con.execute("SELECT count(*) FROM briefing_receipts").fetchone()[0]
        == first.n_receipts
    )


def test_synthetic_briefing_says_so_first(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings, synthetic=True)
    assert result.path.read_text().splitlines()[0].startswith("> **SYNTHETIC DATA**")
    assert result.briefing_id == f"demo-{day}"


def _card(text: str, repo: str) -> str:
    start = text.index(f"### `{repo}`")
    end = text.find("\n### ", start + 1)
    return text[start:end]


def test_cards_read_cleanly(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    # Identifiers in headings and code spans are shown literally, never backslash-escaped.
    assert "### `acme/platform` · star acceleration · 30 days" in text
    assert "\\_" not in "".join(line for line in text.splitlines() if line.startswith("#"))
    md = MarkdownIt("commonmark").enable("table")
    spans = [
        t.content
        for tok in md.parse(text)
        if tok.children
        for t in tok.children
        if t.type == "code_inline"
    ]
    assert spans and not [s for s in spans if "\\" in s]
    # A one-screen summary before the details: every tracked repository, with its forecast.
    glance = text[text.index("## At a glance") : text.index("## What moved")]
    for repo in ("acme/platform", "acme/other-platform", "acme/runtime"):
        assert f"| `{repo}` |" in glance
    assert glance.count("P(yes) 72%") == 3 and "first briefing" in glance
    # Questions the corpus cannot answer collapse into one line in the details, never quoted.
    other = _card(text, "acme/other-platform")
    assert "**Context:**" not in other and "“" not in other
    page = result.path.with_suffix(".html").read_text()
    other_page = page[page.index("acme/other-platform</code> · star") :]
    other_page = other_page[: other_page.index("</details>")]
    assert other_page.count("The corpus has no passage answering:") == 1
    platform = _card(text, "acme/platform")
    context = next(line for line in platform.splitlines() if line.startswith("- **Context:**"))
    assert "ROCm" in context.split("?*", 1)[1]


def test_summary_says_what_changed_since_the_previous_briefing(filled, settings, day) -> None:
    from datetime import timedelta

    compose_briefing(filled, day - timedelta(days=7), settings)
    text = compose_briefing(filled, day, settings).path.read_text()
    glance = text[text.index("## At a glance") : text.index("## What moved")]
    assert f"since the {day - timedelta(days=7)} briefing" in glance
    assert glance.count("velocity +") + glance.count("velocity -") >= 2
    assert "(was " in glance
