"""The "ROCm across the ecosystem" section on made-up histories: its numbers are the index's,
each with a receipt that resolves, first ROCm commits link to their GitHub pages, outside text
stays inert, the chart and the JSON are written; without history it says so."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pandas as pd

from shu.briefing.compose import compose_briefing
from shu.receipts import resolve, stored_receipts
from shu.signals import refresh_signals

DAY = date(2026, 2, 28)
HOSTILE = "<script>alert(1)</script> [x](javascript:alert(1))"


def _commits() -> pd.DataFrame:
    """Three repositories over the 500 days to DAY: 'old/rocm' does ROCm work every 20th day
    throughout; 'new/adopter' makes its first ROCm commit 30 days before DAY (a merge, subject
    hostile); 'ROCm/ended', one of AMD's own, stops 200 days before DAY (its ROCm commits on
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
    return frame


def test_section_numbers_receipts_links_chart_and_json(store, settings):
    store.upsert("commits", _commits())
    refresh_signals(store, settings=settings)
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text()
    section = text[text.index("## ROCm across the ecosystem") :]
    section = section[: section.index("\n## ", 5)]
    now = store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [DAY]).df().iloc[0]
    assert now["repos"] == 2 and now["repos_rocm_90d"] == 2  # ROCm/ended has left
    assert f"**{now['repos_rocm_90d']} of the {now['repos']}** repositories" in section
    assert f"**{100 * now['rocm_share_90d']:.1f}%**" in section
    # who makes the ROCm commits: old/rocm's every 20th day outnumbers the adopter's one
    assert f"Of their {now['rocm_commits_90d']} ROCm commits" in section
    assert "old/rocm made 4 [" in section and "new/adopter made 1 [" in section
    assert "AMD's own ROCm repositories [" not in section.split("\n\n")[1]  # none counted
    # old/rocm makes 4 of the 5 ROCm commits (over 40%): the share without it is said too
    without = store.con.execute(
        "SELECT sum(rocm_commits_90d) / sum(commits_90d) FROM rocm_index_repos "
        "WHERE day = ? AND repo = 'new/adopter'",
        [DAY],
    ).fetchall()[0][0]
    assert (
        f"old/rocm made 80% of them; without it, {100 * without:.1f}% of the other "
        "repositories' commits touched ROCm [R"
    ) in section
    # the tracked repositories have no commit history here: the section says it leaves them out
    assert (
        "Not counted among the tracked repositories: acme/platform, acme/other-platform and "
        "acme/runtime have no commit history in the store [R"
    ) in section
    year = (
        store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [DAY - timedelta(days=365)])
        .df()
        .iloc[0]
    )
    assert year["repos"] == 3 and year["amd_repos"] == 1
    assert f"A year earlier ({DAY - timedelta(days=365)}): {year['repos_rocm_90d']} of 3" in section
    # a year earlier AMD's own ROCm/ended was counted: the share without it is said too
    third = f"{100 * year['third_party_rocm_share_90d']:.1f}%"
    assert year["third_party_rocm_share_90d"] < year["rocm_share_90d"]
    assert f"({third} [" in section and "without the 1 of AMD's own ROCm repositories" in section
    # old/rocm sets today's share, so the share without it is given for each earlier day too
    for days, words in ((90, "90 days earlier"), (365, "A year earlier")):
        then = DAY - timedelta(days=days)
        without_then = store.con.execute(
            "SELECT sum(rocm_commits_90d) / sum(commits_90d) FROM rocm_index_repos "
            "WHERE day = ? AND repo <> 'old/rocm'",
            [then],
        ).fetchall()[0][0]
        line = next(x for x in section.splitlines() if x.startswith(f"- {words} ({then})"))
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
    assert "Over only the 2 repositories counted on both days" in section
    assert "1 [R" in section.split("A year earlier")[1].split("then and")[0]
    sha = f"{469:040x}"
    assert f"(https://github.com/new/adopter/commit/{sha})" in section
    assert "on 2026-01-29" in section and "<script>" not in section
    assert "(a merge: the ROCm change came in with it)" in section
    assert "1 ROCm commit in the last 90 days" in section
    assert "(1 repository [R" in section
    assert "](javascript:" not in section
    # how the index counts, with the histories that end early, is in the appendix
    assert "How the index counts commits and repositories is in the appendix." in section
    counted = text[text.index("### How the ROCm ecosystem is counted") :].split("\n### ", 1)[0]
    assert "1 histories end earlier" in counted and text.index("## Appendix") < text.index(counted)
    receipts = stored_receipts(store, result.briefing_id)
    mine = [r for r in receipts if r.table in ("rocm_index", "rocm_index_repos", "commits")]
    assert len(mine) >= 10 and {r.kind for r in mine} == {"row", "query"}
    assert all(resolve(store, r) is None for r in receipts)
    assert any(r.table == "commits" and dict(r.key).get("sha") == sha for r in mine)
    chart = result.path.parent / f"{DAY}-rocm-ecosystem.png"
    assert chart.exists() and chart in result.charts
    data = json.loads(result.path.with_suffix(".json").read_text())["rocm_ecosystem"]
    assert data["repos_rocm_90d"] == 2 and data["rocm_share_90d"] == now["rocm_share_90d"]
    assert [a["repo"] for a in data["first_time_adopters"]] == ["new/adopter"]
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


def test_without_history_the_section_says_so(store, settings):
    # star counts but no commit history (a store with no data at all gets the no-data page)
    store.upsert(
        "stars_daily",
        pd.DataFrame({"repo": ["acme/platform"], "day": [DAY], "stars": [10], "source": "t"}),
    )
    result = compose_briefing(store, DAY, settings)
    text = result.path.read_text()
    assert "## ROCm across the ecosystem" in text
    assert "No repository's commit history covers the 90 days up to" in text
    doc = json.loads(result.path.with_suffix(".json").read_text())
    assert doc["rocm_ecosystem"] is None and "rocm_ecosystem" in doc["notes"]
