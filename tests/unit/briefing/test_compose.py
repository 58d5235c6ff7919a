"""Composing a briefing from a directly filled store: sections, receipts, safety, idempotence."""

from __future__ import annotations

import json
import re
from datetime import timedelta

from markdown_it import MarkdownIt

from shu.briefing.compose import compose_briefing
from shu.receipts import resolve, stored_receipts


def test_briefing_has_every_section_and_card_part(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    page = result.path.with_suffix(".html").read_text()
    assert result.path.name == f"{day}.md"
    body, appendix = text.split("\n## Appendix\n")
    for heading in (
        "## At a glance",
        "## What moved",
        "## Breaking out",
        "## Forecasts",
        "## Track record",
    ):
        assert heading in body, heading
    for heading in (
        "### How to read this",
        "### Every forecast issued for the tracked repositories",
        "### More on each card",
        "### Signals of the tracked repositories",
        "### Calibration watch",
        "### Calibration watch in full",
        "### Track record in full",
        "### Probe and claims",
        "### Probe runs in full",
        "### Claims checked against the probe",
        "### Receipts",
    ):
        assert heading in appendix and heading not in body, heading
    assert result.n_forecasts == 3
    for part in ("**How sure:**", "(usually 45% for such questions)"):
        assert body.count(part) == 3, part
    # a card's reasons and chart are in its details: the appendix's, and the page's expandable
    forecasts = split_cards(body)
    assert "Why more likely than usual" not in body
    # one chart in the section: the cards' small multiples above them, none in a card
    assert forecasts.count("![") == 1 and forecasts.index("![") < forecasts.index("### ")
    assert len(re.findall(r"\*\*Why more likely than usual \(\d+%\):\*\*", appendix)) == 3
    # Topic and context lines give way first: to the card's details, never the card itself.
    assert "Topic:" not in body and appendix.count("- Topic:") == 3
    # Context questions appear only where the corpus answers them (acme/platform's ROCm ones).
    assert appendix.count("- Context:") == 1 and "*What is ROCm?*" in appendix
    # the rest of each card is in the HTML page's expandable details and the appendix
    assert page.count("<details><summary>More on this card · receipts R") == 3
    assert page.count("<details><summary>Appendix: ") == 1
    for part in (
        "From signals, 28-day star velocity in the",
        "Release context:",
        "Each card asks, of the questions issued",  # how its question was chosen: said once
    ):
        assert part not in body and part in appendix and part in page, part
    assert all(p.exists() for p in result.charts)


def test_bookkeeping_comes_after_the_body(filled, settings, day) -> None:
    # the body follows what a reader needs first (stories, the field, the radar, the forecasts,
    # ROCm) and keeps one line on how sure the forecasts have been; shu's own bookkeeping (the
    # regime guard, calibration watch, full track record, probe runs and claims) is after it.
    # 24 more resolved answers of 65%, 20 of them yes: the widest gap the reliability chart shows
    for k in range(24):
        filled.con.execute(
            "INSERT INTO forecasts SELECT * REPLACE (? AS forecast_id, 0.65 AS probability) "
            "FROM forecasts WHERE forecast_id = 'acme/platform-1'",
            [f"more-{k}"],
        )
        filled.con.execute(
            "INSERT INTO forecast_resolutions SELECT * REPLACE (? AS forecast_id, ? AS outcome) "
            "FROM forecast_resolutions WHERE forecast_id = 'acme/platform-1'",
            [f"more-{k}", "yes" if k < 20 else "no"],
        )
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    body, appendix = text.split("\n## Appendix\n")
    headings = [line for line in body.splitlines() if line.startswith("## ")]
    assert headings[-1] == "## Track record"
    # (the ROCm index has no 90 days of commit history here: left out, test_plain_note)
    assert "## ROCm across the ecosystem" not in headings
    for bookkeeping in ("Calibration watch", "Probe and claims", "Claims", "Regime guard"):
        assert bookkeeping not in body, bookkeeping
    assert "Brier" not in body and "reliability" not in body.lower()
    track = body.split("## Track record\n\n", 1)[1]
    assert len([p for p in track.split("\n\n") if p.strip()]) == 1  # one plain line
    assert track.startswith("How sure the forecasts have been: of the ")
    assert re.search(
        r"of the 30 \[R\d+\] yes/no forecasts whose day came in the 90 days to 28 Feb 2026, "
        r"answers of 60–70% \(24 \[R\d+\]\) came true 83% of the time \[R\d+\], the widest gap",
        track,
    ), track
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)
    assert "are after the appendix's tables" in track
    # ... and after the appendix's tables, in this order, the receipts last
    order = [
        "### Every forecast issued for the tracked repositories",
        "### Calibration watch\n",
        "### Track record in full",
        "### Probe and claims",
        "### Claims checked against the probe",
        "### Receipts",
    ]
    at = [appendix.index(h) for h in order]
    assert at == sorted(at), order
    probe = appendix.split("### Probe and claims\n\n", 1)[1]
    assert probe.startswith("A thread apart from the repositories: shu times compiled PyTorch")
    assert "![Reliability diagram" in appendix.split("### Track record in full", 1)[1]


def test_title_comes_from_the_stories(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    # the runtime's daily gains fall (negative curvature) and its last days were not observed:
    # its ordinary days and the days since run below the 28 days before; the platforms' pace
    # rises by less than a change of pace needs (their 28-day acceleration is no news).
    assert result.title == "runtime slows down"
    moved = result.path.read_text().split("## What moved")[1].split("\n## ")[0]
    assert moved.index("acme/runtime") < moved.index("acme/platform")
    assert "[acme/runtime](https://github.com/acme/runtime) is slowing: its ordinary days" in moved
    # the platforms' 28-day pace is near its level of 28 days ago: told together, in one
    # sentence, each with the range its pace ran over 90 days (it rose: their gains grow every
    # day), never called steady (test_pace_labels)
    assert "holds its pace" not in moved and "steady" not in moved
    held = [x for x in moved.splitlines() if x.startswith("- Near their pace of 28 days ago: ")]
    assert len(held) == 1, moved
    assert held[0].count(" over 90 days [R") == 2 and "acme/other-platform" in held[0], held


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


def _how_sure(text: str) -> list[str]:
    """Every card's "How sure" line."""
    return [line for line in text.splitlines() if line.startswith("**How sure:**")]


def split_cards(body: str) -> str:
    """The body's Forecasts section."""
    return body.split("## Forecasts", 1)[1].split("\n## ", 1)[0]


def test_confidence_cites_live_record_and_no_backtest_claim_without_one(filled, settings, day):
    text = compose_briefing(filled, day, settings).path.read_text()
    sure = _how_sure(text)
    assert len(sure) == 3
    for line in sure:
        assert "Medium confidence (72% yes)" in line
        # 3 answers are too few to weigh: the word is the answer's own
        assert "came true 100% in this store's live record (3 of 3: too few)" in line
        assert "backtest" not in line


def test_a_question_no_better_than_a_coin_is_no_card_unless_declared(filled, settings, day):
    """Such answers came true 20% of the time in the backtest: no card asks the question; declared,
    its card says it has shown no skill, and its details where the two records disagree."""
    from shu.settings import DeclaredQuestion

    card = json.loads((settings.models_dir / "forecaster.json").read_text())
    bands = [{"band": "medium", "n": 1000, "right": 200, "hit_rate": 0.2}]
    card["backtest"]["slices"]["star_accel_reach/30"]["bands"] = bands
    (settings.models_dir / "forecaster.json").write_text(json.dumps(card))
    result = compose_briefing(filled, day, settings)
    assert _how_sure(result.path.read_text()) == []
    asked = filled.con.execute(
        "SELECT repo, template, horizon_days, threshold FROM forecasts WHERE origin = ? AND "
        "template = 'star_accel_reach' ORDER BY repo LIMIT 1",
        [day],
    ).fetchone()
    declared = DeclaredQuestion(
        repo=asked[0], template=asked[1], horizon=asked[2], threshold=asked[3]
    )
    result = compose_briefing(filled, day, settings.model_copy(update={"questions": [declared]}))
    text = result.path.read_text()
    [line] = _how_sure(text)
    assert line.startswith(
        "**How sure:** No skill shown: such answers came true 20% in the backtest"
    )
    assert "no better than a coin" in line
    # 3 of 3 right: 44-100% with 95% confidence, above the backtest's 18-23%
    more = text.split("### More on each card")[1]
    assert "This store's record (44%–100% with 95% confidence) is above the backtest's" in more
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_confidence_quotes_the_backtest_record_of_its_own_velocity_band(filled, settings, day):
    """A card on a repository gaining 20 or more stars a day quotes the backtest's answers on
    such repositories (the slice's `by_velocity` record), not the overall one; the others
    theirs."""
    from shu.forecast.models.interval import VELOCITY_BANDS, velocity_band

    filled.con.execute(
        "UPDATE star_signals SET velocity_28d = 31.5 WHERE repo = 'acme/platform' AND day = ?",
        [day],
    )
    card = json.loads((settings.models_dir / "forecaster.json").read_text())
    slice_ = card["backtest"]["slices"]["star_accel_reach/30"]
    slice_["bands"] = [{"band": "medium", "n": 1000, "right": 200, "hit_rate": 0.2}]
    slice_["by_velocity"] = {
        name: {"bands": [{"band": "medium", "n": 10 + k, "right": 9, "hit_rate": 9 / (10 + k)}]}
        for k, name in enumerate(VELOCITY_BANDS)
    }
    (settings.models_dir / "forecaster.json").write_text(json.dumps(card))
    result = compose_briefing(filled, day, settings)
    lines = _how_sure(result.path.read_text())
    assert len(lines) == 3
    assert not any("1,000 answers" in line for line in lines)  # never the overall record
    fast = [line for line in lines if "at 20 or more stars a day" in line]
    assert len(fast) == 1  # acme/platform's card alone
    said = "69% in the backtest (at 20 or more stars a day: 13 answers)"
    assert said in fast[0]
    others = [line for line in lines if line not in fast]
    for repo in ("acme/other-platform", "acme/runtime"):  # each quotes its own band's n
        velocity = filled.con.execute(
            "SELECT velocity_28d FROM star_signals WHERE repo = ? AND day = ?", [repo, day]
        ).fetchone()[0]
        n = 10 + int(velocity_band([velocity])[0])
        assert any(
            re.search(rf"in the backtest \(at [^:]+ stars a day: {n} answers\)", x) for x in others
        )
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)
    pointers = {r.key for r in receipts if r.kind == "file"}
    assert any('"by_velocity", ">=20", "bands"' in dict(k)["pointer"] for k in pointers)


def test_confidence_falls_back_to_the_record_of_its_kind_of_question(filled, settings, day):
    """With none of the card's confidence resolved, the card quotes its kind of question's
    record at every confidence (its template at its horizon), or says none has resolved."""
    filled.con.execute(
        "UPDATE forecasts SET probability = 0.95 WHERE forecast_id IN "
        "(SELECT forecast_id FROM forecast_resolutions)"
    )
    text = compose_briefing(filled, day, settings).path.read_text()
    sure = _how_sure(text)
    assert len(sure) == 3
    for line in sure:
        assert (
            "in this store, none at this confidence, and 3 of 6 at every confidence (50%)" in line
        )
    filled.con.execute("DELETE FROM forecast_resolutions")
    text = compose_briefing(filled, day, settings).path.read_text()
    sure = _how_sure(text)
    assert all(s.endswith("; this store: none yet.") for s in sure)


def test_a_declared_question_says_what_it_is_for_in_plain_words(filled, settings, day):
    from shu.settings import DeclaredQuestion

    f = filled.con.execute(
        "SELECT repo, template, horizon_days, threshold FROM forecasts WHERE origin = ? AND "
        "template = 'star_accel_reach' ORDER BY repo LIMIT 1",
        [day],
    ).fetchone()
    question = DeclaredQuestion(repo=f[0], template=f[1], horizon=f[2], threshold=f[3])
    text = compose_briefing(
        filled, day, settings.model_copy(update={"questions": [question]})
    ).path.read_text()
    cards = text.split("\n## Forecasts\n")[1].split("\n## ")[0]
    more = text.split("### More on each card")[1].split("\n### ")[0]  # that section alone
    assert "- A standing question for this repository: shu asks it every day, whatever" in more
    assert "shu.toml" not in cards and "shu.toml" not in more  # no file the reader may lack


def test_disagreement_is_one_sentence_only_beyond_the_intervals():
    from shu.briefing.card.confidence import disagreement

    # The example's Keras card: 87% of 177,540 in the backtest, 25 of 44 in the store.
    said = disagreement((154_460, 177_540), (25, 44), "in this store's replay")
    # its scope is every such answer resolved so far, not a recent window: never "lately"
    assert said == (
        "This store's record (42%–70% with 95% confidence) is below the backtest's (87%): "
        "in this store's replay, such answers held less often than the confidence says."
    )
    assert disagreement((154_460, 177_540), (38, 44)) is None  # 86%: inside
    assert disagreement((0, 0), (3, 4)) is None and disagreement((5, 10), (0, 0)) is None


def test_topic_needs_evidence(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    more = text.split("### More on each card")[1]

    def details(repo: str) -> str:
        return more.split(f"**[{repo}](https://github.com/{repo})")[1].split("\n**[")[0]

    assert "No configured topic has evidence" in details("acme/other-platform")
    assert "mentions quantization" in details("acme/runtime")  # one release note: GGUF
    assert "8 of 40 commits (20.0%)" in details("acme/platform")
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
    start = text.index(f"### [{repo}](")
    end = text.find("\n### ", start + 1)
    return text[start:end]


def test_cards_read_cleanly(filled, settings, day) -> None:
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    # Identifiers in headings and code spans are shown literally, never backslash-escaped.
    assert (
        "### [acme/platform](https://github.com/acme/platform) · star acceleration · 30 days"
        in text
    )
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
    # A one-screen summary before the details: sentences, then every tracked repository with
    # its link and paces (what its card asks is said once, on the card); nothing "since the
    # last briefing" on a first briefing.
    glance = text[text.index("## At a glance") : text.index("## What moved")]
    sentences = glance.split("\n\n")[1].splitlines()
    assert 1 <= len(sentences) <= 5 and all(s.startswith("- ") for s in sentences)
    assert all(re.search(r"\d", s) and re.search(r"\[R\d+", s) for s in sentences)
    for repo in ("acme/platform", "acme/other-platform", "acme/runtime"):
        assert f"| [{repo}](https://github.com/{repo}) |" in glance
    assert "that its 28-day acceleration reaches +0.50 stars/day by 30 Mar" not in glance
    assert "+0.50 stars/day" in text.split("## Forecasts", 1)[1]  # it is on the cards
    assert "since the last briefing" not in text.lower()
    # Questions the corpus cannot answer collapse into one line in the details, never quoted.
    other = _card(text, "acme/other-platform")
    assert "Context" not in other and "“" not in other
    page = result.path.with_suffix(".html").read_text()
    other_page = page[page.index(">acme/other-platform</a> · star") :]
    other_page = other_page[: other_page.index("</details>")]
    # (said in full on the note's first card with such questions, shorter after it)
    unanswered = re.findall(r"(?:The corpus has no passage answering|Unanswered too):", other_page)
    assert len(unanswered) == 1
    assert text.count("The corpus has no passage answering:") == 1
    more = text.split("### More on each card")[1]
    context = next(line for line in more.splitlines() if line.startswith("- Context:"))
    assert "ROCm" in context.split("?*", 1)[1]
    # A card's reasons are the repository's own: the store's median repository and the
    # threshold's distance (what the base rate is taken within) are in the details, not shown
    # as why the answer departs from the base rate.
    card = more.split("**[acme/platform](")[1].split("\n**[")[0]
    shown = card[: card.index("Counted too")]
    assert "Why more likely than usual (" in shown
    assert "median repository" not in shown and "standard deviations" not in shown
    # said once per card (three cards), however many such drivers a card has
    assert more.count("- Counted too, not its own: ") == 3


def test_summary_says_what_changed_since_the_previous_briefing(filled, settings, day) -> None:

    # the last briefing on 14 Feb, while the forecasts of 19 Jan were still open (they resolve
    # on 18 Feb: a briefing after that day shows no forecast of theirs)
    compose_briefing(filled, day - timedelta(days=14), settings)
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    since = text[text.index("### Since the last briefing (14 Feb 2026)") : text.index("## What")]
    # the chance of each card's question was 85% at the origin the last briefing saw, 72% now
    assert since.count("star acceleration in 30 days: 85%") == 3
    assert since.count("→ 72%") == 3 and since.count("(-13 points)") == 3
    assert "No yes/no forecast reached its day since." in since
    doc = json.loads(result.path.with_suffix(".json").read_text())
    moves = doc["since_last_briefing"]["moves"]
    assert len(moves) == 3 and {m["then"] for m in moves} == {0.85}
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_a_replayed_track_record_says_so_in_the_header_and_the_track_line(
    filled, settings, day
) -> None:
    def head_and_track() -> tuple[str, str]:
        text = compose_briefing(filled, day, settings).path.read_text()
        head = next(line for line in text.splitlines() if line.startswith("*shu daily"))
        body = text.split("\n## Appendix\n")[0]
        return head, body[body.index("## Track record") :]

    head, track = head_and_track()
    assert "replayed" not in head and "replayed" not in track
    assert re.search(r"of the 6 \[R\d+\] yes/no forecasts whose day came in the 90 days", track)
    # the same resolved forecasts, issued by a replay: the record is the replay's
    filled.con.execute(
        "UPDATE forecasts SET model_version = 'replay-' || model_version "
        "WHERE forecast_id IN (SELECT forecast_id FROM forecast_resolutions)"
    )
    head, track = head_and_track()
    assert (
        "track record from replayed forecasts (issued on the data as it was, not published then)"
        in head
    )
    assert "(replayed ones among them: issued on the data as it was, not published then)" in track


def test_the_header_says_when_the_models_data_ends_long_before_the_briefing(
    filled, settings, day
) -> None:
    """A briefing whose forecasts come from models that saw no data for months says how old
    that data is; a fresh model says nothing."""
    import json

    card_path = settings.models_dir / "forecaster.json"
    card = json.loads(card_path.read_text())

    def header() -> str:
        return compose_briefing(filled, day, settings).path.read_text().split("\n## ")[0]

    card["models"]["star_accel_reach/30"]["trained_through"] = str(day - timedelta(days=10))
    card_path.write_text(json.dumps(card))
    assert "models trained on data through" not in header()
    card["models"]["star_accel_reach/30"]["trained_through"] = str(day - timedelta(days=272))
    card_path.write_text(json.dumps(card))
    assert "(models trained on data through 1 Jun 2025, 272 days before this briefing)" in header()


def test_a_replayed_record_is_never_called_live(filled, settings, day):
    filled.con.execute(
        "UPDATE forecasts SET model_version = 'replay-2026-01-01-test' WHERE forecast_id IN "
        "(SELECT forecast_id FROM forecast_resolutions)"
    )
    text = compose_briefing(filled, day, settings).path.read_text()
    sure = _how_sure(text)
    assert len(sure) == 3
    for line in sure:
        assert "100% in this store's record (3 of 3, replayed: too few)" in line
    assert "live record" not in text


def _glance_forecast_sentence(text: str) -> str:
    glance = text[text.index("## At a glance") : text.index("## What moved")]
    leads = ("- The forecast furthest", "- Leaving out ", "- shu's most unusual call")
    (line,) = [s for s in glance.splitlines() if s.startswith(leads)]
    return line.removeprefix("- ")


def test_at_a_glance_never_leads_with_a_forecast_its_record_undercuts(filled, settings, day):
    # 72% answers, and such answers came true 3 of 3 times (44-100%): nothing to say
    text = compose_briefing(filled, day, settings).path.read_text()
    line = _glance_forecast_sentence(text)
    assert line.startswith("The forecast furthest from what usually happens: 72% that ")
    assert "came true" not in line.split("year before")[1]
    # acme/runtime's answer now 15% (85% no, the furthest from the 45% base rate), and such
    # high-confidence answers came true 0 of 3 times (0-56%): not the one At a glance leads with
    filled.con.execute(
        "UPDATE forecasts SET probability = 0.15, confidence = 'high' "
        "WHERE forecast_id = 'acme/runtime-0'"
    )
    filled.con.execute(
        "UPDATE forecast_resolutions SET outcome = 'no' WHERE forecast_id LIKE '%-1'"
    )
    line = _glance_forecast_sentence(compose_briefing(filled, day, settings).path.read_text())
    assert re.match(
        r"Leaving out \[acme/runtime\]\(https://github\.com/acme/runtime\)'s 15% \(such answers "
        r"came true only 0 of 3 times in this store \[R\d+, R\d+\]\), the forecast furthest from "
        r"what usually happens: 72% that ",
        line,
    ), line
    # now the 72% answers' record undercuts them too (0 of 3): the furthest, its record first
    filled.con.execute(
        "UPDATE forecast_resolutions SET outcome = 'yes' WHERE forecast_id LIKE '%-2'"
    )
    result = compose_briefing(filled, day, settings)
    line = _glance_forecast_sentence(result.path.read_text())
    assert re.match(
        r"shu's most unusual call today, though such answers came true only 0 of 3 times in "
        r"this store \[R\d+, R\d+\]: 15% that \[acme/runtime\]",
        line,
    ), line
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_the_record_of_the_surest_answers_leaves_out_those_at_their_base_rate(
    filled, settings, day
) -> None:
    # two near-certain no's at their base rate (2% of a ROCm release note, where 2% came true),
    # resolved in the window: right by construction, so the watch's record of the surest
    # answers away from their base rate leaves them out
    for k in range(2):
        filled.con.execute(
            "INSERT INTO forecasts SELECT * REPLACE (? AS forecast_id, "
            "'rocm_release_mention' AS template, 0.02 AS probability, 0.02 AS base_rate, "
            "'high' AS confidence) FROM forecasts WHERE forecast_id = 'acme/platform-1'",
            [f"near-{k}"],
        )
        filled.con.execute(
            "INSERT INTO forecast_resolutions SELECT * REPLACE (? AS forecast_id, 'no' AS outcome) "
            "FROM forecast_resolutions WHERE forecast_id = 'acme/platform-1'",
            [f"near-{k}"],
        )
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    # the watch (after the body) keeps every answer in its band, and gives the figure of those
    # away from their base rate beside it
    watch = text[
        text.index("### Calibration watch\n") : text.index("### Calibration watch in full")
    ]
    assert re.search(
        r"answers 80% sure or more came true 100\.0% \[R\d+\] of 5 \[R\d+\] times, against "
        r"90\.2% said \(of the 3 \[R\d+\] at least 5 points from how often such questions "
        r"usually come true, 100\.0% "
        r"\[R\d+\], against 85\.0% said\)",
        watch,
    ), watch
    doc = json.loads(result.path.with_suffix(".json").read_text())
    assert doc["calibration_watch"]["departed"]["n"] == 3
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_at_a_glance_leads_with_what_the_move_means(filled, settings, day) -> None:
    # acme/runtime slows down: the first sentence says so and what it means in its own record
    # (no 28-day fall as large on any day before: `move_meaning.story_rank`, worded as What moved
    # words it), and no sentence is about shu itself
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    glance = text[text.index("## At a glance") : text.index("\n| repository")]
    first = glance.split("\n\n")[1].splitlines()[0]
    assert first.startswith("- [acme/runtime](https://github.com/acme/runtime) is slowing")
    found = re.search(
        r" — its largest 28-day fall since its signals begin \((.+?)\) \[R\d+, R\d+\]", first
    )
    assert found, first
    now, start = filled.con.execute(
        "SELECT last(acceleration_28d ORDER BY day), min(day) FROM star_signals "
        "WHERE repo = 'acme/runtime' AND day <= ? AND acceleration_28d IS NOT NULL",
        [day],
    ).fetchone()
    assert found.group(1) == f"{start:%b %Y}"
    as_large = filled.con.execute(
        "SELECT count(*) FROM star_signals WHERE repo = 'acme/runtime' AND day < ? "
        "AND acceleration_28d <= ?",
        [day, now],
    ).fetchone()[0]
    assert now < 0 and as_large == 0
    for about_shu in ("regime guard", "shu widened", "forecasts shu gave", "replayed"):
        assert about_shu not in glance.split("\n|")[0], about_shu
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_a_question_a_quoted_passage_answers_is_not_called_unanswered(
    filled, settings, day, tmp_path
):
    from shu.briefing.card.topic import context_answers
    from shu.briefing.context import BriefingContext

    def answers(used: set) -> tuple[list[str], str]:
        ctx = BriefingContext.open(filled, day, settings, tmp_path)
        short, details = context_answers(ctx, "acme/platform", "star_accel_reach", None, used)
        asked = [str(x) for x in short + details if str(x).startswith("*")]
        return asked, " ".join(str(x) for x in details if "no passage answering" in str(x))

    asked, unanswered = answers(set())
    assert asked, "the notes answer a question about acme/platform"
    question = asked[0].split("*")[1]
    assert question not in unanswered
    # the same passages already quoted elsewhere on the card: not quoted again, and the
    # question they answer is not said to be one the corpus cannot answer
    every = {
        tuple(r) for r in filled.con.execute("SELECT doc_id, passage_no FROM passages").fetchall()
    }
    asked, unanswered = answers(every)
    assert not asked and question not in unanswered
