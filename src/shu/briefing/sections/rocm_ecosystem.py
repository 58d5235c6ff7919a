"""The "ROCm across the ecosystem" section: is ROCm work spreading across the repositories whose
commit history the store holds? The body is one short paragraph, its finding (`Finding`, worded
by `rocm_finding`): how the share of commits touching ROCm moved over 90 days across the
repositories counted on both days, against the largest such move of the year before (larger:
notable, and At a glance says it too) and against its own years, without the repository making
most ROCm commits when it makes over 40% of them, the tracked repositories it does not count,
and any tracked repository whose own share went the other way; then one line per repository
that made its first ROCm commit in the last year, linked to that commit (where it is a merge,
the commit that is not a merge that made the change, as far as the store can tell), and a chart
of the index over time. The appendix's "How the ROCm ecosystem is counted" holds the rest: where
the index stands on the data day and which repositories make most of its ROCm commits (the
share is commit-weighted), bots and AMD's own ROCm repositories left out, how it moved over 90
days and a year (also over only the repositories counted on both days, since histories that
start or end change who is counted), the figures the finding's comparisons rest on, each first
commit with what its repository did since, and how the index counts. Every number cites its
`rocm_index` row, a query over `rocm_index_repos`, or the commit; the same figures go to the
briefing JSON under `rocm_ecosystem`. The section only words them: the facts and the SELECTs
behind them are `shu.signals.rocm_facts`, the finding's sentences `rocm_finding`, the chart
`charts.index_chart`.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from shu.briefing.charts import index_chart
from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.rocm_finding import (
    both_receipt,
    finding_detail,
    finding_sentence,
    moved_against,
    share_receipt,
)
from shu.briefing.text import and_list, commit_url, day_text, pct, ref
from shu.safe_markdown import Md, safe_inline, safe_link
from shu.signals.rocm_facts import (
    ADOPTERS_SQL,
    CHANGE_SQL,
    DOMINANT_SHARE,
    FINDING_DAYS,
    HISTORY_SQL,
    LEADERS_SQL,
    SAME_REPOS_ACTIVE_SQL,
    SAME_REPOS_COUNT_SQL,
    SAME_REPOS_SQL,
    WITHOUT_SQL,
    histories_ended,
    index_day,
    index_row,
    not_counted,
)

LOOKBACKS = ((90, "90 days earlier"), (365, "a year earlier"))
ADOPTERS_SHOWN = 5
LEADERS_SHOWN = 3


def build(ctx: BriefingContext) -> Part:
    """The section's markdown, its chart beside it, and its JSON."""
    day = index_day(ctx.store, ctx.data_through)
    if day is None:  # nothing to count: left out of the body, the appendix says why
        return Part(
            "",
            left_out=(
                "ROCm across the ecosystem (no repository's commit history covers the 90 days "
                f"up to {day_text(ctx.data_through)})"
            ),
            data={
                "rocm_ecosystem": None,
                "notes": {
                    "rocm_ecosystem": "no repository's commit history covers the 90 days up "
                    f"to {ctx.data_through}"
                },
            },
        )
    found = ctx.rocm_finding
    lead = finding_sentence(ctx, found) if found is not None else None  # cited first
    now = _state(ctx, day)
    leaders = now["leaders"]
    now["without_top"] = _without_top(ctx, day, leaders)
    now["not_counted"] = _not_counted(ctx, day)
    top = now["without_top"]["repo"] if now["without_top"] else None
    moves = [
        _move(ctx, day, days, words, top, said=found is not None and days == FINDING_DAYS)
        for days, words in LOOKBACKS
    ]
    adopters = _adopters(ctx, day)
    ended = histories_ended(ctx.store, day)
    chart = ctx.out_dir / f"{ctx.as_of}-rocm-ecosystem.png"
    index_chart(ctx.store, day, chart)
    ctx.charts.append(chart)
    data = {
        "day": day,
        "finding": None
        if found is None
        else {
            "day_then": found.then,
            "repos_on_both_days": found.repos,
            "share_then": found.share_then,
            "share_now": found.share_now,
            "largest_move_year_before": found.largest_before,
            "notable": found.notable,
            "top": found.top,
            "share_then_without_top": found.without_then,
            "share_now_without_top": found.without_now,
            "largest_move_year_before_without_top": found.largest_without,
        },
        "against_field": []
        if found is None
        else [
            {"repo": r, "share_then": then, "share_now": now_}
            for r, then, now_ in moved_against(ctx, found)
        ],
        "repos": now["repos"],
        "repos_rocm_90d": now["repos_rocm_90d"],
        "rocm_share_90d": now["rocm_share_90d"],
        "nonbot_rocm_share_90d": now["nonbot_rocm_share_90d"],
        "adopters_365d": now["adopters_365d"],
        "amd_repos": now["amd_repos"],
        "third_party_repos_rocm_90d": now["third_party_repos_rocm_90d"],
        "third_party_rocm_share_90d": now["third_party_rocm_share_90d"],
        "most_rocm_commits": [{k: v for k, v in x.items() if k != "line"} for x in leaders],
        "rocm_share_90d_without_top": now["without_top"]["share"] if now["without_top"] else None,
        "tracked_not_counted": now["not_counted"]["repos"] if now["not_counted"] else [],
        "moves": [{k: v for k, v in m.items() if k not in ("line", "words")} for m in moves if m],
        "first_time_adopters": [
            {k: v for k, v in a.items() if k not in ("line", "short")} for a in adopters
        ],
        "histories_ended": ended,
        "chart": chart.name,
    }
    view: dict[str, Any] = {
        "lead": lead,
        # the lead already says the share without the repository making most ROCm commits
        "lead_has_top": found is not None and found.top is not None,
        "now": now,
        "moves": [m for m in moves if m],
        "adopters": adopters[:ADOPTERS_SHOWN],
        "more_adopters": max(0, len(adopters) - ADOPTERS_SHOWN),
        "ended": len(ended),
        "chart": chart.name,
        "as_of": ctx.data_through,
        "detail": finding_detail(ctx, found) if found is not None else None,
    }
    view["state"] = Md(ctx.render("sections/rocm_state.md.j2", **view).strip())
    return Part(
        ctx.render("sections/rocm_ecosystem.md.j2", **view),
        data={"rocm_ecosystem": data},
        appendix=ctx.render("sections/rocm_ecosystem_appendix.md.j2", **view),
    )


def _state(ctx: BriefingContext, day: date) -> dict[str, Any]:
    """The index on `day`, each number with its receipt."""
    row = index_row(ctx.store, day)
    assert row is not None

    def cite(column: str, label: str) -> int:
        return ctx.book.row("rocm_index", {"day": day}, column, row[column], day, label)

    refs = {
        "repos_rocm_90d": cite("repos_rocm_90d", "of them, with ROCm commits in the 90 days"),
        "repos": cite("repos", "repositories whose history covers the 90 days"),
        "rocm_share_90d": cite("rocm_share_90d", "share of their commits touching ROCm"),
        "nonbot_rocm_share_90d": cite(
            "nonbot_rocm_share_90d", "share of their commits by people touching ROCm"
        ),
        "adopters_365d": cite("adopters_365d", "first ROCm commits in the last year"),
        "rocm_commits_90d": cite("rocm_commits_90d", "their commits touching ROCm"),
    }
    leaders = _leaders(ctx, day, row["rocm_commits_90d"])
    amd = None
    if row["amd_repos"]:
        r_amd = cite("amd_repos", "of them, AMD's own ROCm repositories")
        r_n3 = cite("third_party_repos_rocm_90d", "with ROCm commits, AMD's own left out")
        r_s3 = cite(
            "third_party_rocm_share_90d", "share of commits touching ROCm, AMD's own left out"
        )
        amd = Md(
            f"{row['amd_repos']} of the {row['repos']} are AMD's own ROCm repositories "
            f"{ref(r_amd)}; without "
            f"them, {row['third_party_repos_rocm_90d']} of {row['repos'] - row['amd_repos']} "
            f"repositories made ROCm commits {ref(r_n3)} and "
            f"{pct(row['third_party_rocm_share_90d'], 1)} of their commits touched ROCm "
            f"{ref(r_s3)}."
        )
    return {
        **row,
        "day": day,
        "leaders": leaders,
        "amd": amd,
        "share": Md(pct(row["rocm_share_90d"], 1)),
        "nonbot_share": Md(pct(row["nonbot_rocm_share_90d"], 1)),
        "refs": {
            "count": ref(refs["repos_rocm_90d"], refs["repos"]),
            **{k: ref(v) for k, v in refs.items()},
        },
    }


def _move(
    ctx: BriefingContext,
    day: date,
    days: int,
    words: str,
    top: str | None = None,
    *,
    said: bool = False,
) -> dict[str, Any] | None:
    """The index `days` before `day`, and both days' shares over the repositories counted on
    both (left out of the line when `said`: the section's lead gives them); with `top` (the
    repository setting today's share), the share without it then too, as today's is given;
    None when the index has no row then."""
    then = day - timedelta(days=days)
    row = index_row(ctx.store, then)
    if row is None:
        return None
    r_n = ctx.book.row(
        "rocm_index",
        {"day": then},
        "repos_rocm_90d",
        row["repos_rocm_90d"],
        then,
        f"repositories with ROCm commits in the 90 days to {then}",
    )
    r_of = ctx.book.row(
        "rocm_index",
        {"day": then},
        "repos",
        row["repos"],
        then,
        f"repositories whose history covers the 90 days to {then}",
    )
    r_share = ctx.book.row(
        "rocm_index",
        {"day": then},
        "rocm_share_90d",
        row["rocm_share_90d"],
        then,
        f"share of commits touching ROCm in the 90 days to {then}",
    )
    amd = ""
    if row["amd_repos"]:
        r_amd = ctx.book.row(
            "rocm_index",
            {"day": then},
            "amd_repos",
            row["amd_repos"],
            then,
            f"AMD's own ROCm repositories counted on {then}",
        )
        r_s3 = ctx.book.row(
            "rocm_index",
            {"day": then},
            "third_party_rocm_share_90d",
            row["third_party_rocm_share_90d"],
            then,
            f"share of commits touching ROCm in the 90 days to {then}, AMD's own left out",
        )
        amd = (
            f"{pct(row['third_party_rocm_share_90d'], 1)} {ref(r_s3)} without the "
            f"{row['amd_repos']} of AMD's own ROCm repositories then counted {ref(r_amd)}"
        )
    asides = [amd] if amd else []
    without = None
    if top is not None:
        without = ctx.store.con.execute(WITHOUT_SQL, [then, top]).fetchall()[0][0]
    if without is not None:
        r_without = ctx.book.query(
            "rocm_index_repos",
            WITHOUT_SQL,
            [then, top],
            float(without),
            then,
            f"share of commits touching ROCm in the 90 days to {then}, {top} left out",
        )
        asides.append(f"{pct(float(without), 1)} {ref(r_without)} without {safe_inline(top)}")
    amd = f" ({'; '.join(asides)})" if asides else ""
    con = ctx.store.con
    both = con.execute(SAME_REPOS_COUNT_SQL, [day, then]).fetchall()[0][0]
    active_now = con.execute(SAME_REPOS_ACTIVE_SQL, [day, then]).fetchall()[0][0]
    active_then = con.execute(SAME_REPOS_ACTIVE_SQL, [then, day]).fetchall()[0][0]
    r_active_now = ctx.book.query(
        "rocm_index_repos",
        SAME_REPOS_ACTIVE_SQL,
        [day, then],
        active_now,
        day,
        f"of the repositories counted on both {then} and {day}, those with ROCm commits in "
        f"the 90 days to {day}",
    )
    r_active_then = ctx.book.query(
        "rocm_index_repos",
        SAME_REPOS_ACTIVE_SQL,
        [then, day],
        active_then,
        then,
        f"of the repositories counted on both {then} and {day}, those with ROCm commits in "
        f"the 90 days to {then}",
    )
    share_now = con.execute(SAME_REPOS_SQL, [day, then]).fetchall()[0][0]
    share_then = con.execute(SAME_REPOS_SQL, [then, day]).fetchall()[0][0]
    r_both = both_receipt(ctx.book, day, then, both)
    r_now = share_receipt(ctx.book, day, then, share_now)
    r_then = share_receipt(ctx.book, then, day, share_then)
    line = Md(
        f"{words.capitalize()} ({then}): {row['repos_rocm_90d']} of {row['repos']} "
        f"repositories {ref(r_n, r_of)}, {pct(row['rocm_share_90d'], 1)} of commits "
        f"{ref(r_share)}{amd}. Over only the {both} repositories counted on both days "
        f"{ref(r_both)}: {active_then} {ref(r_active_then)} then and {active_now} "
        f"{ref(r_active_now)} now made ROCm commits"
        + (
            "."
            if said
            else f", and the share went from {pct(share_then, 1)} {ref(r_then)} to "
            f"{pct(share_now, 1)} {ref(r_now)}."
        )
    )
    return {
        "days": days,
        "words": words,
        "day": then,
        "repos": row["repos"],
        "repos_rocm_90d": row["repos_rocm_90d"],
        "rocm_share_90d": row["rocm_share_90d"],
        "amd_repos": row["amd_repos"],
        "third_party_rocm_share_90d": row["third_party_rocm_share_90d"],
        "rocm_share_90d_without_top": None if without is None else float(without),
        "repos_on_both_days": both,
        "repos_rocm_then_same_repos": active_then,
        "repos_rocm_now_same_repos": active_now,
        "share_then_same_repos": share_then,
        "share_now_same_repos": share_now,
        "line": line,
    }


def _without_top(
    ctx: BriefingContext, day: date, leaders: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The share of commits touching ROCm without the repository making the most ROCm commits,
    when it makes over DOMINANT_SHARE of them (None otherwise): one repository then sets the
    share."""
    if not leaders or (leaders[0]["of_all"] or 0) <= DOMINANT_SHARE:
        return None
    top = leaders[0]["repo"]
    share = ctx.store.con.execute(WITHOUT_SQL, [day, top]).fetchall()[0][0]
    if share is None:
        return None
    r = ctx.book.query(
        "rocm_index_repos",
        WITHOUT_SQL,
        [day, top],
        float(share),
        day,
        f"share of commits touching ROCm in the 90 days to {day}, {top} left out",
    )
    return {
        "repo": top,
        "share": float(share),
        "line": Md(
            f"{safe_inline(top)} made {pct(leaders[0]['of_all'])} of them; without it, "
            f"{pct(float(share), 1)} of the other repositories' commits touched ROCm {ref(r)}."
        ),
    }


def _not_counted(ctx: BriefingContext, day: date) -> dict[str, Any] | None:
    """The tracked repositories the index does not count on `day`: those whose commit history
    the store does not hold (each with a receipt of its commit count, 0), and those whose
    history does not cover the 90 days. None when it counts every tracked repository."""
    none, short = not_counted(ctx.store, ctx.tracked, day)
    missing = [r for r in ctx.tracked if r in none or r in short]
    if not missing:
        return None
    refs = [
        ctx.book.query("commits", HISTORY_SQL, [repo], 0, day, f"{repo}'s commits in the store")
        for repo in none
    ]
    parts = []
    if none:
        parts.append(
            f"{and_list([safe_inline(r) for r in none])} "
            f"{'has' if len(none) == 1 else 'have'} no commit history in the store {ref(*refs)}"
        )
    if short:
        parts.append(
            f"{and_list([safe_inline(r) for r in short])}'s history does not cover the 90 days"
        )
    return {
        "repos": missing,
        "line": Md(
            f"Not counted among the tracked repositories: {'; '.join(parts)}, so this section "
            "does not cover "
            f"{'it' if len(missing) == 1 else 'them'}."
        ),
    }


def _leaders(ctx: BriefingContext, day: date, total: int) -> list[dict[str, Any]]:
    """The repositories with the most ROCm commits in the 90 days to `day` (the share is
    commit-weighted, so these move it most), each with its receipt and share of the total."""
    rows = ctx.store.con.execute(LEADERS_SQL, [day, LEADERS_SHOWN]).fetchall()
    out = []
    for repo, n in rows:
        r = ctx.book.row(
            "rocm_index_repos",
            {"repo": repo, "day": day},
            "rocm_commits_90d",
            n,
            day,
            f"{repo}'s ROCm commits in the 90 days to {day}",
        )
        out.append(
            {
                "repo": repo,
                "rocm_commits_90d": n,
                "of_all": n / total if total else None,
                "line": Md(f"{safe_inline(repo)} made {n} {ref(r)}"),
            }
        )
    return out


def _adopters(ctx: BriefingContext, day: date) -> list[dict[str, Any]]:
    """Repositories whose first ROCm commit landed in the year to `day`, newest first."""
    rows = ctx.store.con.execute(ADOPTERS_SQL, [day, day - timedelta(days=365)]).fetchall()
    out = []
    for repo, first_day, sha, committed_at, subject, parents, rocm_90d in rows:
        merge = (parents or 1) > 1
        change = _change(ctx, repo, committed_at) if merge else None  # cited first: read first
        r = ctx.book.row(
            "commits",
            {"repo": repo, "sha": sha},
            "committed_at",
            committed_at,
            first_day,
            f"{repo}'s first ROCm commit",
        )
        r_since = ctx.book.row(
            "rocm_index_repos",
            {"repo": repo, "day": day},
            "rocm_commits_90d",
            rocm_90d,
            day,
            f"{repo}'s ROCm commits in the 90 days to {day}",
        )
        url = commit_url(repo, sha)
        shown = f"{safe_link(sha[:10], url)} “{safe_inline(subject or '', 90)}” {ref(r)}"
        if change is not None:  # name the commit that made the change, then the merge
            when = "" if change["day"] == first_day else f" on {change['day']}"
            shown = (
                f"{change['shown']}{when}, a commit off the main line; the main line first "
                f"shows ROCm work in the merge {shown}{'' if when else ' the same day'}"
            )
        elif merge:
            shown += (
                " (a merge, and the store holds no earlier commit touching ROCm that is not "
                "one: the change is first visible in the merge)"
            )
        line = Md(
            f"**{safe_inline(repo)}** on {first_day}: {shown}; {rocm_90d} ROCm "
            f"commit{'' if rocm_90d == 1 else 's'} in the last 90 days {ref(r_since)}"
        )
        # the body's one line: the commit that made the change, the merge said in brackets
        if change is not None:
            merged = "the same day" if change["day"] == first_day else f"on {day_text(first_day)}"
            first = f"{change['shown']} (off the main line, merged {merged})"
        else:
            first = f"{safe_link(sha[:10], url)} “{safe_inline(subject or '', 90)}” {ref(r)}"
            first += " (a merge)" if merge else ""
        when = change["day"] if change is not None else first_day
        out.append(
            {
                "repo": repo,
                "day": first_day,
                "sha": sha,
                "url": url,
                "subject": subject,
                "merge": merge,
                "change": None if change is None else {k: change[k] for k in ("sha", "url")},
                "rocm_commits_90d": rocm_90d,
                "line": line,
                "short": Md(f"**{safe_inline(repo)}**, {day_text(when)}: {first}"),
            }
        )
    return out


def _change(ctx: BriefingContext, repo: str, merged_at: datetime) -> dict[str, Any] | None:
    """For a first ROCm commit that is a merge: the first commit touching ROCm that is not a
    merge, committed at or before it (`CHANGE_SQL`), shown linked with its receipt; None when
    the store holds none."""
    row = ctx.store.con.execute(CHANGE_SQL, [repo, merged_at]).fetchone()
    if row is None:
        return None
    sha, committed_at, subject = row
    r = ctx.book.row(
        "commits",
        {"repo": repo, "sha": sha},
        "committed_at",
        committed_at,
        committed_at.date(),
        f"{repo}'s first commit touching ROCm that is not a merge",
    )
    url = commit_url(repo, sha)
    return {
        "sha": sha,
        "url": url,
        "day": committed_at.date(),
        "shown": f"{safe_link(sha[:10], url)} “{safe_inline(subject or '', 90)}” {ref(r)}",
    }
