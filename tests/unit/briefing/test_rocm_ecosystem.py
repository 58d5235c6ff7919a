"""The "ROCm across the ecosystem" section on made-up histories: its numbers are the index's,
each with a receipt that resolves, first ROCm commits link to their GitHub pages, outside text
stays inert, the chart and the JSON are written; the body is one paragraph, the first commits
one line each and the chart, the counts in full in the appendix; a tracked repository whose own
share moves against the field's is said to; without history it says so."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta

import pandas as pd

from shu.briefing.compose import compose_briefing
from shu.briefing.story_title import rocm_leads
from shu.receipts import resolve, stored_receipts
from shu.signals import refresh_signals
from shu.signals.rocm_facts import Finding
from shu.signals.stories import Story

DAY = date(2026, 2, 28)
HOSTILE = "<script>alert(1)</script> [x](javascript:alert(1))"


def _commits(side: bool = True) -> pd.DataFrame:
    """Three repositories over the 500 days to DAY: 'old/rocm' does ROCm work every 20th day
    throughout; 'new/adopter' makes its first ROCm commit 30 days before DAY (a merge, subject
    hostile; with `side`, the commit that made the change, off the main line, came two hours
    before it); 'ROCm/ended', one of AMD's own, stops 200 days before DAY (its ROCm commits on
    its days 100..249, 250 to 400 days before DAY)."""
    start = datetime(2026, 2, 28) - timedelta(days=499)
    rows = []
    for i in range(500):
        t = start + timedelta(days=i, hours=8)
        rows.append(
            ("old/rocm", f"o{i:039d}", t, i % 20 == 0, "ROCm: kernels" if i % 20 == 0 else "work")
        )
        adopt = i == 469
        rows.append(
            ("new/adopter", f"{i:040x}", t, adopt, "Add ROCm " + HOSTILE if adopt else "fix")
        )
        if i < 300:
            hip = 100 <= i <= 249
            rows.append(("ROCm/ended", f"e{i:039d}", t, hip, "hip port" if hip else "x"))
    frame = pd.DataFrame(rows, columns=["repo", "sha", "committed_at", "touches_rocm", "subject"])
    frame["is_mainline"] = True
    frame["parents"] = [2 if sha == f"{469:040x}" else 1 for sha in frame["sha"]]
    frame["author_is_bot"] = False
    frame["source"] = "git"
    if side:
        made = frame[frame["sha"] == f"{469:040x}"].assign(
            sha=SIDE, subject="HIP kernels " + HOSTILE, parents=1, is_mainline=False
        )
        made["committed_at"] -= timedelta(hours=2)
        frame = pd.concat([frame, made], ignore_index=True)
    return frame


SIDE = "5" * 40  # new/adopter's commit that made the ROCm change, off the main line


def test_section_numbers_receipts_links_chart_and_json(store, settings):
    store.upsert("commits", _commits())
    refresh_signals(store, settings=settings)
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text()
    section = text[text.index("## ROCm across the ecosystem") :]
    section = section[: section.index("\n## ", 5)]
    # the counts in full, and how the index counts, are in the appendix
    counted = text[text.index("### How the ROCm ecosystem is counted") :].split("\n### ", 1)[0]
    assert text.index("## Appendix") < text.index(counted)
    now = store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [DAY]).df().iloc[0]
    assert now["repos"] == 2 and now["repos_rocm_90d"] == 2  # ROCm/ended has left
    paragraphs = section.split("\n\n")
    # the finding leads, one paragraph: the share over the same repositories 90 days apart,
    # against the moves of the year before (ROCm/ended's made larger ones), and who makes most
    # of it
    lead = paragraphs[1]
    share = store.con.execute(
        "SELECT sum(rocm_commits_90d) / sum(commits_90d) FROM rocm_index_repos WHERE day = ? "
        "AND repo IN ('old/rocm', 'new/adopter')",
        [DAY - timedelta(days=90)],
    ).fetchall()[0][0]
    assert round(100 * share, 1) == round(100 * now["rocm_share_90d"], 1)  # so it 'held'
    assert lead.startswith(
        f"The share of commits touching ROCm held at {100 * now['rocm_share_90d']:.1f}% [R"
    ), lead
    assert (
        "] in the 90 days to 28 Feb 2026, over the same 2 repositories with commit history in "
        "the store [R"
    ) in lead
    # how it compares is said in the body, with its receipt; the figure is the appendix's
    assert ", within what the year before showed [R" in lead and "points" not in lead
    assert "The largest 90-day move of the share in the year before was " in counted
    # old/rocm makes 4 of the 5 ROCm commits (over 40%): the share without it is said too
    without = store.con.execute(
        "SELECT sum(rocm_commits_90d) / sum(commits_90d) FROM rocm_index_repos "
        "WHERE day = ? AND repo = 'new/adopter'",
        [DAY],
    ).fetchall()[0][0]
    assert " Without old/rocm, which made 4 of the 5 ROCm commits [R" in lead
    assert "], it rose from 0.0% [R" in lead
    assert f"to {100 * without:.1f}% [R" in lead
    # ... and the counts are the appendix's, without repeating the share without old/rocm
    counts = counted.split("\n\n")[1]
    assert counts.startswith(f"{now['repos_rocm_90d']} of the {now['repos']} repositories")
    assert f"and {100 * now['rocm_share_90d']:.1f}% of their commits did [R" in counts
    assert "without it, " not in section and "without it, " not in counted
    # who makes the ROCm commits: old/rocm's every 20th day outnumbers the adopter's one
    assert f"Of their {now['rocm_commits_90d']} ROCm commits" in counts
    assert "old/rocm made 4 [" in counts and "new/adopter made 1 [" in counts
    assert "AMD's own ROCm repositories [" not in counts  # none counted
    assert "Of their" not in section
    # not notable, so At a glance leaves it out
    glance = text[text.index("## At a glance") : text.index("\n| repository")]
    assert "ROCm" not in glance
    # the tracked repositories have no commit history here: the lead names them
    assert (
        " Not counted: [acme/platform](https://github.com/acme/platform), "
        "[acme/other-platform](https://github.com/acme/other-platform) and "
        "[acme/runtime](https://github.com/acme/runtime), tracked but with no commit history in "
        "the store [R"
    ) in lead
    assert "Not counted among the tracked repositories" not in section  # said once, in the lead
    year = (
        store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [DAY - timedelta(days=365)])
        .df()
        .iloc[0]
    )
    assert year["repos"] == 3 and year["amd_repos"] == 1
    assert f"A year earlier ({DAY - timedelta(days=365)}): {year['repos_rocm_90d']} of 3" in counted
    assert "A year earlier" not in section and "90 days earlier" not in section
    # a year earlier AMD's own ROCm/ended was counted: the share without it is said too
    third = f"{100 * year['third_party_rocm_share_90d']:.1f}%"
    assert year["third_party_rocm_share_90d"] < year["rocm_share_90d"]
    assert f"({third} [" in counted and "without the 1 of AMD's own ROCm repositories" in counted
    # old/rocm sets today's share, so the share without it is given for each earlier day too
    for days, words in ((90, "90 days earlier"), (365, "A year earlier")):
        then = DAY - timedelta(days=days)
        without_then = store.con.execute(
            "SELECT sum(rocm_commits_90d) / sum(commits_90d) FROM rocm_index_repos "
            "WHERE day = ? AND repo <> 'old/rocm'",
            [then],
        ).fetchall()[0][0]
        line = next(x for x in counted.splitlines() if x.startswith(f"- {words} ({then})"))
        assert f"{100 * without_then:.1f}% [R" in line and "] without old/rocm" in line, line
        move = next(
            m
            for m in json.loads(result.path.with_suffix(".json").read_text())["rocm_ecosystem"][
                "moves"
            ]
            if m["days"] == days
        )
        assert move["rocm_share_90d_without_top"] == without_then
    # over the 2 repositories counted on both days: 1 had ROCm work then (old/rocm), 2 now
    assert "Over only the 2 repositories counted on both days" in counted
    assert "1 [R" in counted.split("A year earlier")[1].split("then and")[0]
    sha = f"{469:040x}"
    assert f"(https://github.com/new/adopter/commit/{sha})" in counted
    assert "on 2026-01-29" in counted and "<script>" not in text
    # the first ROCm commit on the main line is a merge: the body's one line names the commit
    # that made the change, the merge in brackets; the appendix's names both, and what the
    # repository did since
    short = next(x for x in section.splitlines() if x.startswith("- **new/adopter**"))
    assert short.startswith(
        f"- **new/adopter**, 29 Jan 2026: [{SIDE[:10]}](https://github.com/new/adopter/commit/"
        f"{SIDE}) “HIP kernels"
    ), short
    assert short.endswith("] (off the main line, merged the same day)") and sha not in short
    adopter = next(x for x in counted.splitlines() if x.startswith("- **new/adopter**"))
    assert adopter.startswith(
        f"- **new/adopter** on 2026-01-29: [{SIDE[:10]}](https://github.com/new/adopter/commit/"
        f"{SIDE}) “HIP kernels"
    ), adopter
    assert ", a commit off the main line; the main line first shows ROCm work in the merge [" in (
        adopter
    )
    assert adopter.index(SIDE) < adopter.index(sha) and " the same day;" in adopter
    assert "1 ROCm commit in the last 90 days" in counted
    assert "ROCm commit in the last 90 days" not in section
    assert "(1 repository [R" in section
    assert "](javascript:" not in text
    # how the index counts, with the histories that end early, is in the appendix
    assert "how the index counts commits and repositories, are in the appendix." in section
    assert "1 histories end earlier" in counted
    receipts = stored_receipts(store, result.briefing_id)
    mine = [r for r in receipts if r.table in ("rocm_index", "rocm_index_repos", "commits")]
    assert len(mine) >= 10 and {r.kind for r in mine} == {"row", "query"}
    assert all(resolve(store, r) is None for r in receipts)
    assert any(r.table == "commits" and dict(r.key).get("sha") == sha for r in mine)
    assert any(r.table == "commits" and dict(r.key).get("sha") == SIDE for r in mine)
    chart = result.path.parent / f"{DAY}-rocm-ecosystem.png"
    assert chart.exists() and chart in result.charts
    data = json.loads(result.path.with_suffix(".json").read_text())["rocm_ecosystem"]
    assert data["repos_rocm_90d"] == 2 and data["rocm_share_90d"] == now["rocm_share_90d"]
    assert [a["repo"] for a in data["first_time_adopters"]] == ["new/adopter"]
    assert data["first_time_adopters"][0]["change"]["sha"] == SIDE
    assert data["finding"]["notable"] is False and data["finding"]["top"] == "old/rocm"
    assert data["histories_ended"] == [{"repo": "ROCm/ended", "last_day": "2025-08-12"}]
    assert [x["repo"] for x in data["most_rocm_commits"]] == ["old/rocm", "new/adopter"]
    assert data["rocm_share_90d_without_top"] == without
    assert set(data["tracked_not_counted"]) == {
        "acme/platform",
        "acme/other-platform",
        "acme/runtime",
    }
    year_move = next(m for m in data["moves"] if m["days"] == 365)
    assert year_move["amd_repos"] == 1 and year_move["repos_rocm_now_same_repos"] == 2


def test_without_history_the_section_is_left_out_saying_why(store, settings):
    # star counts but no commit history (a store with no data at all gets the no-data page):
    # nothing to count, so the section leaves the body and the appendix says why
    store.upsert(
        "stars_daily",
        pd.DataFrame({"repo": ["acme/platform"], "day": [DAY], "stars": [10], "source": "t"}),
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text()
    assert "## ROCm across the ecosystem" not in text
    assert (
        "ROCm across the ecosystem (no repository's commit history covers the 90 days up to "
        "28 Feb 2026)" in text.split("## Appendix")[1]
    )
    doc = json.loads(result.path.with_suffix(".json").read_text())
    assert doc["rocm_ecosystem"] is None and "rocm_ecosystem" in doc["notes"]


def test_a_merge_with_no_earlier_commit_is_said_to_be_the_first_visible(store, settings):
    store.upsert("commits", _commits(side=False))
    refresh_signals(store, settings=settings)
    text = compose_briefing(store, DAY, settings).path.read_text()
    short, adopter = [x for x in text.splitlines() if x.startswith("- **new/adopter**")]
    assert short.endswith("] (a merge)"), short
    assert (
        "(a merge, and the store holds no earlier commit touching ROCm that is not one: the "
        "change is first visible in the merge)"
    ) in adopter
    assert "off the main line" not in adopter and "off the main line" not in short


def _surge() -> pd.DataFrame:
    """Two repositories over the 600 days to DAY, one commit a day each: 'a/steady' does ROCm
    work every 20th day throughout; 'b/surge' none until every day of the last 60 days."""
    start = datetime(2026, 2, 28) - timedelta(days=599)
    rows = []
    for i in range(600):
        t = start + timedelta(days=i, hours=8)
        rows.append(("a/steady", f"a{i:039d}", t, i % 20 == 0))
        rows.append(("b/surge", f"b{i:039d}", t, i >= 540))
    frame = pd.DataFrame(rows, columns=["repo", "sha", "committed_at", "touches_rocm"])
    frame["subject"] = ["ROCm work" if r else "work" for r in frame["touches_rocm"]]
    frame["is_mainline"] = True
    frame["parents"] = 1
    frame["author_is_bot"] = False
    frame["source"] = "git"
    return frame


def _largest_move_the_year_before(store, without: str = "") -> float:
    """Recomputed apart from the section: each day's 90-day move of the share over the
    repositories counted on both days (`without` left out), for moves ending in the year before
    the last 90 days."""
    rows = store.con.execute("SELECT * FROM rocm_index_repos").df()
    rows = rows[rows["repo"] != without]
    by_day = {d: g.set_index("repo") for d, g in rows.groupby(rows["day"].dt.date)}
    then = DAY - timedelta(days=90)
    moves = []
    for k in range(365):
        end = then - timedelta(days=k)
        start = end - timedelta(days=90)
        if end not in by_day or start not in by_day:
            continue
        both = by_day[end].index.intersection(by_day[start].index)
        a, b = by_day[end].loc[both], by_day[start].loc[both]
        share_end = a["rocm_commits_90d"].sum() / a["commits_90d"].sum()
        share_start = b["rocm_commits_90d"].sum() / b["commits_90d"].sum()
        moves.append(abs(share_end - share_start))
    return max(moves)


def test_a_notable_move_leads_the_section_and_has_a_sentence_at_a_glance(store, settings):
    store.upsert("commits", _surge())
    refresh_signals(store, settings=settings)
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text()
    largest = _largest_move_the_year_before(store)
    assert 0 < largest < 0.05  # a/steady's one commit in 20 wobbles; b/surge's 60 days do not
    points = f"{100 * largest:.1f} percentage points [R"
    glance = text[text.index("## At a glance") : text.index("\n| repository")]
    sentence = next(x for x in glance.splitlines() if "ROCm" in x).removeprefix("- ")
    assert sentence.startswith("The share of commits touching ROCm rose from "), sentence
    # no tracked repository's pace really changed: the move heads the note, title and glance
    assert re.match(
        r"# ROCm work rose from \d+\.\d% to \d+\.\d% of commits in 90 days, its largest 90-day "
        r"move in a year",
        text,
    ), text.splitlines()[0]
    assert glance.split("\n- ")[1].strip() == sentence
    assert "] in 90 days, over the same 2 repositories" in sentence  # short: no windows
    # short: how the move compares is said with its receipt; the figure is the section's
    assert ", more than in any 90 days of the year before [R" in sentence
    assert "percentage points" not in sentence
    steady = dict(
        store.con.execute(
            "SELECT day, rocm_commits_90d / commits_90d FROM rocm_index_repos "
            "WHERE repo = 'a/steady' AND day IN (?, ?)",
            [DAY, DAY - timedelta(days=90)],
        ).fetchall()
    )
    then, now = steady[DAY - timedelta(days=90)], steady[DAY]
    assert round(100 * then, 1) != round(100 * now, 1)
    went = "rose" if now > then else "fell"  # against b/surge's rise: no "still"
    # b/surge makes most of the ROCm commits: named, linked, and the share without it given
    assert went == "fell" and re.search(
        r"; without \[b/surge\]\(https://github\.com/b/surge\), which made 60 of the \d+ ROCm "
        rf"commits \[R\d+, R\d+\], it fell from {100 * then:.1f}% \[R\d+\] to "
        rf"{100 * now:.1f}% \[R\d+\]\.$",
        sentence,
    ), sentence
    past = _largest_move_the_year_before(store, without="b/surge")
    section = text[text.index("## ROCm across the ecosystem") :].split("\n\n")[1]
    assert section.startswith("The share of commits touching ROCm rose from ")
    assert "] in the 90 days to 28 Feb 2026, over the same 2 repositories" in section
    assert re.search(
        rf" Without b/surge, which made 60 of the \d+ ROCm commits \[R\d+, R\d+\], it fell from "
        rf"{100 * then:.1f}% \[R\d+\] to {100 * now:.1f}% \[R\d+\]\.",
        section,
    ), section
    # the figures the comparisons rest on are the appendix's
    assert "points" not in section
    counted = text[text.index("### How the ROCm ecosystem is counted") :].split("\n### ", 1)[0]
    assert f"in the year before was {points}" in counted
    assert re.search(rf", {100 * past:.1f} points without b/surge \[R\d+\]\.", counted), counted
    # a/steady, untracked, fell against the field: only a tracked repository is said to
    assert "went the other way" not in section
    # what "notable" means is said where the note explains its terms
    reading = text[text.index("### How to read this") :].split("\n### ", 1)[0]
    assert "**ROCm share**" in reading and "any 90-day stretch of the preceding year" in reading
    data = json.loads(result.path.with_suffix(".json").read_text())["rocm_ecosystem"]["finding"]
    assert data["notable"] is True and data["largest_move_year_before"] == largest
    receipts = stored_receipts(store, result.briefing_id)
    assert all(resolve(store, r) is None for r in receipts)


def test_the_same_move_stays_out_of_at_a_glance_when_the_year_before_moved_more(store, settings):
    # the same surge, but a/steady swung harder the year before: b/surge's rise is not news
    frame = _surge()
    swing = (frame["repo"] == "a/steady") & frame["committed_at"].between(
        datetime(2025, 4, 1), datetime(2025, 6, 30)
    )
    frame.loc[swing, "touches_rocm"] = True
    store.upsert("commits", frame)
    refresh_signals(store, settings=settings)
    text = compose_briefing(store, DAY, settings).path.read_text()
    glance = text[text.index("## At a glance") : text.index("\n| repository")]
    assert "ROCm" not in glance
    section = text[text.index("## ROCm across the ecosystem") :].split("\n\n")[1]
    assert ", within what the year before showed [R" in section


def test_a_move_that_holds_without_the_largest_repository_says_it_still_does(store, settings):
    # c/also starts ROCm work every third day of the last 90 days: without b/surge the share
    # still rises, by more than any 90-day move of the year before
    frame = _surge()
    also = frame[frame["repo"] == "a/steady"].assign(repo="c/also")
    also["sha"] = "c" + also["sha"].str[1:]
    also["touches_rocm"] = [i >= 510 and i % 3 == 0 for i in range(len(also))]
    store.upsert("commits", pd.concat([frame, also], ignore_index=True))
    refresh_signals(store, settings=settings)
    text = compose_briefing(store, DAY, settings).path.read_text()
    glance = text[text.index("## At a glance") : text.index("\n| repository")]
    sentence = next(x for x in glance.splitlines() if "ROCm" in x).removeprefix("- ")
    assert "ROCm commits [R" in sentence and "], it still rose from " in sentence
    section = text[text.index("## ROCm across the ecosystem") :].split("\n\n")[1]
    assert re.search(
        r" Without b/surge, which made \d+ of the \d+ ROCm commits \[R\d+, R\d+\], it "
        r"still rose from ",
        section,
    ), section


def _two_histories(store, settings, late_from=None):
    """Two repositories from Sep 2022: ROCm work on every 2nd day (a 90-day share of exactly
    50%) until 2 Oct 2024, then on every 10th (exactly 10%), and from `late_from` on every 9th;
    the briefing of DAY composed over them."""
    start = datetime(2022, 9, 1)
    low_from = datetime(2024, 10, 3)
    rows = []
    for i in range((datetime(2026, 2, 28) - start).days + 1):
        t = start + timedelta(days=i, hours=8)
        every = 9 if late_from and t >= late_from else 10 if t >= low_from else 2
        rocm = i % every == 0
        for repo in ("a/one", "b/two"):  # two alike: one repository's history is no ecosystem
            sha = f"{repo[0]}{i:039d}"
            rows.append((repo, sha, t, rocm, "ROCm work" if rocm else "work"))
    frame = pd.DataFrame(rows, columns=["repo", "sha", "committed_at", "touches_rocm", "subject"])
    frame["is_mainline"] = True
    frame["parents"] = 1
    frame["author_is_bot"] = False
    frame["source"] = "git"
    store.upsert("commits", frame)
    refresh_signals(store, settings=settings)
    return compose_briefing(store, DAY, settings)


def test_a_share_near_a_years_level_says_which_way_it_differs(store, settings):
    # 11% in the last 90 days against 2025's 10%: within the band of a year's level, but a
    # reader compares the two figures, so not "at 2025's level"
    text = _two_histories(store, settings, late_from=datetime(2025, 12, 1)).path.read_text()
    lead = text[text.index("## ROCm across the ecosystem") :].split("\n\n")[1]
    assert re.search(r"That is a little above 2025's 10\.\d% \[R\d+\]", lead), lead
    assert "2025's level" not in lead


def test_the_share_is_told_against_every_year_since_the_histories_begin(store, settings):
    """The histories of `_two_histories`: today's 10% is at 2025's level and below 2023–24's
    (2022, counted on its last month only, has no mean); the uncounted tracked repositories are
    named in the same sentence."""
    result = _two_histories(store, settings)
    text = result.path.read_text()
    lead = text[text.index("## ROCm across the ecosystem") :].split("\n\n")[1]
    assert lead.startswith("The share of commits touching ROCm held at 10.0% [R"), lead
    assert " Not counted: [acme/platform](https://github.com/acme/platform), " in lead
    # every repository counted today is counted 90 days before: the same share, not restated
    assert re.search(
        r"\. That is at 2025's level \(10\.0% \[R\d+\]\) and below 2023–24's 4\d–50% "
        r"\[R\d+, R\d+\]\.",
        lead,
    ), lead
    counted = text[text.index("### How the ROCm ecosystem is counted") :].split("\n### ", 1)[0]
    assert "A year's share is the mean 90-day share of its days, from 2023 on." in counted
    receipts = stored_receipts(store, result.briefing_id)
    assert all(resolve(store, r) is None for r in receipts)


def test_a_tracked_repository_whose_own_share_moves_against_the_field_says_so(store, settings):
    """The share over every repository rises (b/surge's last 60 days) while the tracked
    acme/platform's own share falls (its one ROCm commit in 20 wobbles down): one sentence says
    so, both shares recomputed apart with receipts that resolve; the JSON carries them."""
    frame = _surge()
    frame.loc[frame["repo"] == "a/steady", "repo"] = "acme/platform"
    store.upsert("commits", frame)
    refresh_signals(store, settings=settings)
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text()
    lead = text[text.index("## ROCm across the ecosystem") :].split("\n\n")[1]
    assert lead.startswith("The share of commits touching ROCm rose from "), lead
    own = dict(
        store.con.execute(
            "SELECT day, rocm_commits_90d / commits_90d FROM rocm_index_repos "
            "WHERE repo = 'acme/platform' AND day IN (?, ?)",
            [DAY, DAY - timedelta(days=90)],
        ).fetchall()
    )
    then, now = own[DAY - timedelta(days=90)], own[DAY]
    assert round(100 * now, 1) < round(100 * then, 1)
    assert re.search(
        r"\[acme/platform\]\(https://github\.com/acme/platform\)'s own share went the other "
        rf"way: it fell from {100 * then:.1f}% \[R\d+\] to {100 * now:.1f}% \[R\d+\] of its "
        r"commits\.$",
        lead,
    ), lead
    data = json.loads(result.path.with_suffix(".json").read_text())["rocm_ecosystem"]
    assert data["against_field"] == [
        {"repo": "acme/platform", "share_then": then, "share_now": now}
    ]
    receipts = stored_receipts(store, result.briefing_id)
    assert any("acme/platform's own share" in r.label for r in receipts)
    assert all(resolve(store, r) is None for r in receipts)


def test_a_real_change_of_pace_keeps_the_head_of_the_note_from_rocm():
    day = date(2026, 2, 28)
    notable = Finding(day, day - timedelta(days=90), 2, 0.017, 0.045, 0.02, 341)
    quiet = Finding(day, day - timedelta(days=90), 2, 0.017, 0.020, 0.02, 341)
    burst = Story("a/b", day, "burst_left", effect=-31.0)
    small_slowing = Story("c/d", day, "pace_down", effect=-2.0)
    slowing = Story("c/d", day, "pace_down", effect=-20.0)
    assert rocm_leads(notable, [burst, small_slowing]) and rocm_leads(notable, [])
    # the most important story a real slowdown (20 stars/day, weighed twice): it is the news
    assert not rocm_leads(notable, [burst, slowing])
    assert not rocm_leads(quiet, [burst]) and not rocm_leads(None, [burst])
