"""The note in a market analyst's words: no method jargon in the body, no phrase repeated as
boilerplate, and no section in the body that has nothing to say (the appendix says which were
left out and why), on a composed small-store briefing (issue 39, Build 5 and 10)."""

from __future__ import annotations

import json
import re

from support.note_metrics import (
    MAX_PHRASE_REPEATS,
    before_receipts,
    jargon_in,
    repeated_phrases,
    split,
)

from shu.briefing.compose import compose_briefing


def test_the_body_has_no_jargon_and_no_phrase_is_boilerplate(filled, settings, day) -> None:
    text = compose_briefing(filled, day, settings).path.read_text(encoding="utf-8")
    body, appendix = split(text)
    assert appendix and jargon_in(body) == {}, jargon_in(body)
    # the terms stay where they are explained: the appendix's How to read this
    assert "base rate" in appendix
    assert repeated_phrases(before_receipts(text)) == {}, MAX_PHRASE_REPEATS
    # a probe run's identity is said in full once; the claims checked on it after refer to it
    assert text.count("Test CPU, torch 2.13.0, quick suite v1, run run1") == 1
    assert re.search(r"^\| .* \| CPU \|$", text, re.M)  # each claim row names it by its device
    # a card's drivers about the whole store: one line per card, however many
    assert text.count("Counted too, not its own:") == 4  # explained once above the three


def test_sections_with_nothing_to_say_are_left_out(filled, settings, day) -> None:
    store = filled
    store.con.execute("DELETE FROM probe_results")
    store.con.execute("DELETE FROM probe_runs")
    store.con.execute("DELETE FROM forecast_resolutions")
    result = compose_briefing(store, day, settings)
    text = result.path.read_text(encoding="utf-8")
    body, appendix = split(text)
    for gone in (
        "## Calibration watch",
        "## Track record",
        "## Probe and claims",
        "## ROCm across the ecosystem",
        "No probe run is stored",
        "nothing to watch yet",
        "no record yet",
        "nothing to count yet",
    ):
        assert gone not in body, gone
    # no empty chart beside them either
    assert "-reliability.png" not in body and "-calibration-watch.png" not in body
    assert not any(
        p.name.endswith(("-reliability.png", "-calibration-watch.png")) for p in result.charts
    )
    # one line in the appendix names each, with why
    (line,) = [ln for ln in appendix.splitlines() if ln.startswith("Left out, having nothing")]
    # (the calibration watch, after the body, is kept while it has a day of mass loss to name)
    watch_said = "lost stars in one day" in appendix
    left = "Calibration watch (no forecast resolved between 4 Jan 2026 and 28 Feb 2026)" in line
    assert watch_said != left, (watch_said, line)
    assert "Track record (no yes/no forecast reached its day in the last 90 days)" in line
    assert "Probe and claims (no probe run is stored: `shu probe`" in line
    assert "ROCm across the ecosystem (no repository's commit history covers" in line
    assert "Left out, having nothing" in result.path.with_suffix(".html").read_text(
        encoding="utf-8"
    )
    # the sections that have something to say stay, and the JSON keeps its keys
    assert "## What moved" in body and "## Forecasts" in body
    doc = json.loads(result.path.with_suffix(".json").read_text(encoding="utf-8"))
    assert doc["track_record"]["n"] == 0
    assert [why.split(" (")[0] for why in doc["left_out"]] == [
        "ROCm across the ecosystem",
        "Track record",
        "Calibration watch",
        "Probe and claims",
    ]  # the body's order, then the bookkeeping after it
    # the built-in claims, untestable without a run, stay in the JSON only
    assert doc["claims"] and {c["verdict"] for c in doc["claims"]} == {"untestable here"}


def test_a_store_with_runs_and_resolutions_keeps_them(filled, settings, day) -> None:
    text = compose_briefing(filled, day, settings).path.read_text(encoding="utf-8")
    body, appendix = split(text)
    assert "## Track record" in body  # its one line; the bookkeeping after the body
    for kept in ("### Calibration watch", "### Track record in full", "### Probe and claims"):
        assert kept in appendix, kept
    assert "Left out, having nothing" not in body
    # only the ROCm index, which has no 90 days of commit history here, is left out
    # (this fixture's store may hold no 90 days of commit history: then it alone is named)
    lines = [ln for ln in appendix.splitlines() if ln.startswith("Left out, having nothing")]
    assert all(
        ln.count("(") == 1 and ln.startswith("Left out, having nothing to say yet: ROCm")
        for ln in lines
    ), lines
    assert len(lines) == 1 or "## ROCm across the ecosystem" in body
