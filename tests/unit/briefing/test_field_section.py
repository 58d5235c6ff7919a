"""The "The field by category" section: after At a glance, a table of each category's shares
with receipts that resolve, its movers, a category of few repositories flagged, the
repositories not counted counted in the body and named in the appendix, the JSON sidecar's
`field`; and left out, with a note, when the field has no counts."""

from __future__ import annotations

import json
import re

from shu.briefing.compose import compose_briefing
from shu.receipts import resolve, stored_receipts

FIELD = {
    "platforms": ["acme/platform", "acme/other-platform"],
    "runtimes": ["acme/runtime", "acme/absent"],
}


def test_the_field_section_words_the_shares_with_receipts(filled, settings, day):
    settings = settings.model_copy(update={"field": FIELD})
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    body = text.split("## Appendix")[0]
    # after At a glance, before the stories
    assert body.index("## At a glance") < body.index("## The field by category")
    assert body.index("## The field by category") < body.index("## What moved")
    section = body[body.index("## The field by category") :].split("\n## ")[0]
    # acme/runtime's last five days are unobserved: not counted, so platforms hold all of now
    assert re.search(r"\| platforms \| 100% \[R\d+\] \| \d+% \[R\d+\] \|\n", section), section
    # no repository has counts a year before: that column would be another field's, so it is
    # left out with a line saying why
    assert "| A year before" not in section
    assert "A year before is not shown: only 0 of these 2 repositories counted then." in section
    assert "| runtimes | — |" in section
    # the body counts the repositories not counted; the appendix names them
    assert (
        "the 2 repositories counted of the watchlist's 4 gained" in section
        and "`acme/absent`" not in section
    )
    counted = text[text.index("### How the field is counted") :].split("\n### ")[0]
    assert "`acme/absent`" in counted and "Without a count at an end now: `acme/runtime`" in (
        counted
    )
    # platforms counts two repositories now: its share is flagged as theirs, not a kind's
    assert re.search(r"platforms counts 2 repositories, so its share is that of so few", section)
    # the movers: the pace underneath now, then before, receipts in reading order; a
    # repository not counted now is no mover
    movers = re.search(
        r"- platforms: \[acme/platform\]\S+ [\d.]+ \[R(\d+)\] \([\d.]+ \[R(\d+)\]", section
    )
    assert movers and int(movers[1]) < int(movers[2]), section
    assert "- runtimes:" not in section
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)
    doc = json.loads(result.path.with_suffix(".json").read_text())
    field = doc["field"]
    assert [c["category"] for c in field["categories"]] == ["platforms", "runtimes"]
    assert field["absent"] == ["acme/absent"]
    assert field["windows"]["now"]["not_counted"] == ["acme/runtime"]
    platforms = field["categories"][0]
    assert platforms["shares"]["now"]["share"] == 1.0
    assert platforms["shares"]["now"]["receipt"]["table"] == "star_days"
    assert [m["repo"] for m in platforms["movers"]] == ["acme/platform", "acme/other-platform"]


def test_the_lead_names_the_repository_that_moved_a_share(filled, settings, day):
    # both accelerate, acme/platform more: its category's share rises, and it led the rise;
    # the other category's share falls while its one repository still gained more: none led it
    field = {"platforms": ["acme/platform"], "others": ["acme/other-platform"]}
    settings = settings.model_copy(update={"field": field})
    text = compose_briefing(filled, day, settings).path.read_text()
    section = text[text.index("## The field by category") :].split("\n## ")[0]
    lead = section.split("\n\n")[1]
    assert re.search(
        r"platforms took \d+% \[R\d+\] against \d+% \[R\d+\] in the 28 days before, the largest "
        r"gain in share \(led by \[acme/platform\]\S+: [\d,]+ stars against [\d,]+ "
        r"\[R\d+, R\d+\]\), "
        r"while others went from \d+% \[R\d+\] to \d+% \[R\d+\]\.",
        lead,
    ), lead


def test_a_field_without_counts_is_left_out_with_a_note(filled, settings, day):
    result = compose_briefing(filled, day, settings)  # the default field: none in this store
    assert "## The field by category" not in result.path.read_text()
    doc = json.loads(result.path.with_suffix(".json").read_text())
    assert "no repository" in doc["notes"]["field"]
    assert doc["field"]["absent"] == [r for v in settings.field.values() for r in v]
