"""The "ROCm across the ecosystem" section: is ROCm work spreading across the repositories whose
commit history the store holds? It leads with its finding (`Finding`): how the share of commits
touching ROCm moved over 90 days across the repositories counted on both days, against the
largest such move of the year before (larger: notable, and At a glance says it too), and the
share without the repository making most ROCm commits when it makes over 40% of them. Then where
the ROCm ecosystem index (`rocm_index`) stands on the data day and which repositories make most
of its ROCm commits (the share is commit-weighted), which tracked repositories it does not count
(no commit history in the store, or none covering the 90 days), how it moved over 90 days and a
year (also over only the repositories counted on both days, since histories that start or end
change who is counted, and without AMD's own ROCm repositories, whose work is mostly ROCm), the
repositories that made their first ROCm commit in the last year with a link to that commit
(where it is a merge, first the commit that is not a merge that made the change, as far as the
store can tell) and what they did since, and a chart of the index over time. Every number cites
its `rocm_index` row, a query over `rocm_index_repos`, or the commit; the same figures go to the
briefing JSON under `rocm_ecosystem`; how the index counts commits and repositories goes to the
appendix.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import day_text, pct, ref, repo_link
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md, safe_inline, safe_link
from shu.store import Store

LOOKBACKS = ((90, "90 days earlier"), (365, "a year earlier"))
ADOPTERS_SHOWN = 5
LEADERS_SHOWN = 3
# Both days' shares over the repositories counted on both days (the first ? is the day whose
# share it is, the second the other day).
SAME_REPOS_SQL = (
    "SELECT sum(rocm_commits_90d) / nullif(sum(commits_90d), 0) FROM rocm_index_repos "
    "WHERE day = ? AND repo IN (SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
SAME_REPOS_COUNT_SQL = (
    "SELECT count(*) FROM rocm_index_repos WHERE day = ? AND repo IN "
    "(SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
# Repositories counted on both days with ROCm commits in the first day's window.
SAME_REPOS_ACTIVE_SQL = (
    "SELECT count(*) FROM rocm_index_repos WHERE day = ? AND rocm_commits_90d > 0 AND repo IN "
    "(SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
ADOPTERS_SQL = """
SELECT a.repo, a.first_rocm_day, a.first_rocm_sha, c.committed_at, c.subject, c.parents,
       a.rocm_commits_90d
FROM rocm_index_repos a JOIN commits c ON c.repo = a.repo AND c.sha = a.first_rocm_sha
WHERE a.day = ? AND a.first_time_adopter AND a.first_rocm_day > ?
ORDER BY a.first_rocm_day DESC, a.repo
"""
LEADERS_SQL = """
SELECT repo, rocm_commits_90d FROM rocm_index_repos
WHERE day = ? AND rocm_commits_90d > 0 ORDER BY rocm_commits_90d DESC, repo LIMIT ?
"""

# The share without the repository making the most ROCm commits (params: day, that repository),
# said when it makes over DOMINANT_SHARE of them.
WITHOUT_SQL = (
    "SELECT sum(rocm_commits_90d) / nullif(sum(commits_90d), 0) FROM rocm_index_repos "
    "WHERE day = ? AND repo <> ?"
)
DOMINANT_SHARE = 0.4
HISTORY_SQL = "SELECT count(*) FROM commits WHERE repo = ?"
# The share over the repositories counted on both days, one repository left out (params: the
# day whose share it is, the repository, the other day).
SAME_REPOS_WITHOUT_SQL = (
    "SELECT sum(rocm_commits_90d) / nullif(sum(commits_90d), 0) FROM rocm_index_repos "
    "WHERE day = ? AND repo <> ? AND repo IN (SELECT repo FROM rocm_index_repos WHERE day = ?)"
)
# The finding's move is over FINDING_DAYS; it is notable when it is larger (either way) than
# every move over as many days, over the repositories counted at both ends, that ended in the
# PAST_DAYS before the move began (params: the first and last end day of those moves; in the
# _WITHOUT one, then the repository left out).
FINDING_DAYS = 90
PAST_DAYS = 365
_PAST_MOVES = f"""
WITH pairs AS (
    SELECT a.day, a.rocm_commits_90d AS rocm_end, a.commits_90d AS commits_end,
           b.rocm_commits_90d AS rocm_start, b.commits_90d AS commits_start
    FROM rocm_index_repos a
    JOIN rocm_index_repos b ON b.repo = a.repo AND b.day = a.day - {FINDING_DAYS}
    WHERE a.day BETWEEN ? AND ?{{without}}
), moves AS (
    SELECT sum(rocm_end) / nullif(sum(commits_end), 0)
           - sum(rocm_start) / nullif(sum(commits_start), 0) AS move
    FROM pairs GROUP BY day
)
SELECT max(abs(move)) FROM moves
"""
PAST_MOVES_SQL = _PAST_MOVES.format(without="")
PAST_MOVES_WITHOUT_SQL = _PAST_MOVES.format(without=" AND a.repo <> ?")
# For a first ROCm commit on the main line that is a merge: the first commit touching ROCm that
# is not a merge, committed at or before it (params: repository, the merge's time). The store
# keeps how many parents a commit has, not which, so this is the first such commit, not one
# traced through the merge.
CHANGE_SQL = """
SELECT sha, committed_at, subject FROM commits
WHERE repo = ? AND touches_rocm AND coalesce(parents, 1) <= 1 AND committed_at <= ?
ORDER BY committed_at, sha LIMIT 1
"""


def build(ctx: BriefingContext) -> Part:
    """The section's markdown, its chart beside it, and its JSON."""
    day = _index_day(ctx.store, ctx.as_of)
    if day is None:
        return Part(
            ctx.render("sections/rocm_ecosystem.md.j2", now=None, as_of=ctx.as_of),
            data={
                "rocm_ecosystem": None,
                "notes": {
                    "rocm_ecosystem": "no repository's commit history covers the 90 days up "
                    f"to {ctx.as_of}"
                },
            },
        )
    found = finding(ctx.store, ctx.as_of)
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
    ended = _histories_ended(ctx.store, day)
    chart = ctx.out_dir / f"{ctx.day}-rocm-ecosystem.png"
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
        "first_time_adopters": [{k: v for k, v in a.items() if k != "line"} for a in adopters],
        "histories_ended": ended,
        "chart": chart.name,
    }
    view = {
        "lead": lead,
        # the lead already says the share without the repository making most ROCm commits
        "lead_has_top": found is not None and found.top is not None,
        "now": now,
        "moves": [m for m in moves if m],
        "adopters": adopters[:ADOPTERS_SHOWN],
        "more_adopters": max(0, len(adopters) - ADOPTERS_SHOWN),
        "ended": len(ended),
        "chart": chart.name,
        "as_of": ctx.as_of,
    }
    return Part(
        ctx.render("sections/rocm_ecosystem.md.j2", **view),
        data={"rocm_ecosystem": data},
        appendix=ctx.render("sections/rocm_ecosystem_appendix.md.j2", **view),
    )


@dataclass(frozen=True)
class Finding:
    """How the share of commits touching ROCm moved over FINDING_DAYS, over the repositories
    counted at both ends, and whether that is news: the section's first sentence, and At a
    glance's when `notable`."""

    day: date
    then: date
    repos: int  # counted on both days
    share_then: float
    share_now: float
    largest_before: float | None  # the largest move either way in the PAST_DAYS before `then`
    rocm_commits: int  # today's ROCm commits over every repository counted today
    top: str | None = None  # the repository making over DOMINANT_SHARE of them
    top_commits: int = 0
    without_then: float | None = None  # the share without `top`, same repositories
    without_now: float | None = None
    largest_without: float | None = None  # `largest_before` without `top`

    @property
    def move(self) -> float:
        return self.share_now - self.share_then

    @property
    def notable(self) -> bool:
        """The move is larger, either way, than every move over as many days in the year
        before it began."""
        return self.largest_before is not None and abs(self.move) > self.largest_before


def finding(store: Store, as_of: date) -> Finding | None:
    """The share's move over the FINDING_DAYS to the index's newest day on or before `as_of`
    (None when the index has no row that long before, or no commit to count)."""
    day = _index_day(store, as_of)
    if day is None:
        return None
    then = day - timedelta(days=FINDING_DAYS)
    con = store.con
    share_now = con.execute(SAME_REPOS_SQL, [day, then]).fetchall()[0][0]
    share_then = con.execute(SAME_REPOS_SQL, [then, day]).fetchall()[0][0]
    if share_now is None or share_then is None:
        return None
    repos = con.execute(SAME_REPOS_COUNT_SQL, [day, then]).fetchall()[0][0]
    largest = con.execute(PAST_MOVES_SQL, _past_window(then)).fetchall()[0][0]
    total = con.execute("SELECT rocm_commits_90d FROM rocm_index WHERE day = ?", [day]).fetchall()
    rocm_commits = int(total[0][0] or 0)
    out = Finding(
        day,
        then,
        repos,
        float(share_then),
        float(share_now),
        None if largest is None else float(largest),
        rocm_commits,
    )
    leader = con.execute(LEADERS_SQL, [day, 1]).fetchall()
    if not leader or not rocm_commits or leader[0][1] / rocm_commits <= DOMINANT_SHARE:
        return out
    top, n = leader[0]
    without_now = con.execute(SAME_REPOS_WITHOUT_SQL, [day, top, then]).fetchall()[0][0]
    without_then = con.execute(SAME_REPOS_WITHOUT_SQL, [then, top, day]).fetchall()[0][0]
    if without_now is None or without_then is None:
        return out
    largest_without = con.execute(PAST_MOVES_WITHOUT_SQL, [*_past_window(then), top]).fetchall()
    return replace(
        out,
        top=top,
        top_commits=n,
        without_then=float(without_then),
        without_now=float(without_now),
        largest_without=None if largest_without[0][0] is None else float(largest_without[0][0]),
    )


def _both_receipt(book: ReceiptBook, day: date, other: date, n: int) -> int:
    """The receipt of how many repositories are counted on both `day` and `other`."""
    return book.query(
        "rocm_index_repos",
        SAME_REPOS_COUNT_SQL,
        [day, other],
        n,
        day,
        f"repositories counted on both {min(day, other)} and {max(day, other)}",
    )


def _share_receipt(
    book: ReceiptBook, day: date, other: date, value: float, without: str | None = None
) -> int:
    """The receipt of the ROCm share on `day` over the repositories counted on both `day` and
    `other` (`without` left out)."""
    label = f"ROCm share on {day} over the repositories counted on both days"
    if without is None:
        return book.query("rocm_index_repos", SAME_REPOS_SQL, [day, other], value, day, label)
    return book.query(
        "rocm_index_repos",
        SAME_REPOS_WITHOUT_SQL,
        [day, without, other],
        value,
        day,
        f"{label}, {without} left out",
    )


def _past_window(then: date) -> list[date]:
    """The first and last end day of the moves a finding is measured against."""
    return [then - timedelta(days=PAST_DAYS - 1), then]


def _went(start: float, end: float) -> str:
    """'rose' or 'fell' as shown to one decimal of a percentage, else 'held'."""
    a, b = round(100 * start, 1), round(100 * end, 1)
    return "rose" if b > a else "fell" if b < a else "held"


def finding_sentence(ctx: BriefingContext, f: Finding, *, glance: bool = False) -> Md:
    """The finding in one plain sentence, each number with its receipt; for At a glance
    (`glance`), shorter (the two 90-day windows go unnamed) and with the repository it names
    linked (At a glance links every repository it names)."""
    day, then = f.day, f.then
    book = ctx.book
    r_both = _both_receipt(book, day, then, f.repos)
    r_now = _share_receipt(book, day, then, f.share_now)
    r_then = _share_receipt(book, then, day, f.share_then)
    went = _went(f.share_then, f.share_now)
    windows = f"in the {FINDING_DAYS} days to"
    if glance:
        move = (
            f"held at {pct(f.share_now, 1)} {ref(r_now, r_then)} over {FINDING_DAYS} days"
            if went == "held"
            else f"{went} from {pct(f.share_then, 1)} {ref(r_then)} to {pct(f.share_now, 1)} "
            f"{ref(r_now)} in {FINDING_DAYS} days"
        )
    elif went == "held":
        move = (
            f"held at {pct(f.share_now, 1)} {windows} {day_text(day)} {ref(r_now)}, as "
            f"{windows} {day_text(then)} {ref(r_then)}"
        )
    else:
        move = (
            f"{went} from {pct(f.share_then, 1)} {ref(r_then)} {windows} {day_text(then)} to "
            f"{pct(f.share_now, 1)} {ref(r_now)} {windows} {day_text(day)}"
        )
    text = (
        f"The share of commits touching ROCm {move}, over the same {f.repos} repositories with "
        f"commit history in the store {ref(r_both)}"
    )
    if f.largest_before is not None:
        r_past = book.query(
            "rocm_index_repos",
            PAST_MOVES_SQL,
            _past_window(then),
            f.largest_before,
            then,
            f"the largest {FINDING_DAYS}-day move of the ROCm share (over the repositories "
            f"counted at both ends) in the {PAST_DAYS} days to {then}",
        )
        points = f"{100 * f.largest_before:.1f} percentage points {ref(r_past)}"
        if glance:  # At a glance says how it compares; the section gives the figure
            text += (
                f", more than in any {FINDING_DAYS} days of the year before {ref(r_past)}"
                if f.notable
                else f", within what the year before showed {ref(r_past)}"
            )
        else:
            text += (
                f", more than in any {FINDING_DAYS} days of the year before (moves of at most "
                f"{points})"
                if f.notable
                else f", within what the year before showed ({FINDING_DAYS}-day moves of up to "
                f"{points})"
            )
    if f.top is not None and f.without_then is not None and f.without_now is not None:
        r_top = book.row(
            "rocm_index_repos",
            {"repo": f.top, "day": day},
            "rocm_commits_90d",
            f.top_commits,
            day,
            f"{f.top}'s ROCm commits in the 90 days to {day}",
        )
        r_all = book.row(
            "rocm_index",
            {"day": day},
            "rocm_commits_90d",
            f.rocm_commits,
            day,
            "their commits touching ROCm",
        )
        r_wn = _share_receipt(book, day, then, f.without_now, without=f.top)
        r_wt = _share_receipt(book, then, day, f.without_then, without=f.top)
        went_without = _went(f.without_then, f.without_now)
        without = (
            f"held at {pct(f.without_now, 1)} {ref(r_wn, r_wt)}"
            if went_without == "held"
            else f"{went_without} from {pct(f.without_then, 1)} {ref(r_wt)} to "
            f"{pct(f.without_now, 1)} {ref(r_wn)}"
        )
        name = repo_link(f.top) if glance else safe_inline(f.top)
        larger = f.largest_without is not None and (
            abs(f.without_now - f.without_then) > f.largest_without
        )
        # the move holds without it: say so as the answer to "is it one repository?"
        still = larger and went_without == went != "held"
        if glance:
            return Md(
                f"{text}; without {name}, which made {f.top_commits} of the {f.rocm_commits} "
                f"ROCm commits {ref(r_top, r_all)}, it {'still ' if still else ''}{without}."
            )
        text += (
            f"; {name} made {f.top_commits} of the {f.rocm_commits} ROCm commits "
            f"{ref(r_top, r_all)}, {'but' if still else 'and'} without it the share "
            f"{'still ' if still else ''}{without}"
        )
        if f.largest_without is not None:
            r_pw = book.query(
                "rocm_index_repos",
                PAST_MOVES_WITHOUT_SQL,
                [*_past_window(then), f.top],
                f.largest_without,
                then,
                f"the largest {FINDING_DAYS}-day move of the ROCm share (over the repositories "
                f"counted at both ends, {f.top} left out) in the {PAST_DAYS} days to {then}",
            )
            points = f"{100 * f.largest_without:.1f} points {ref(r_pw)}"
            text += (
                f", also more than in any {FINDING_DAYS} days of the year before without it "
                f"(at most {points})"
                if larger
                else f", within what the year before showed without it (up to {points})"
            )
    return Md(text + ".")


def glance_sentence(ctx: BriefingContext) -> Md | None:
    """At a glance's sentence on ROCm work across the ecosystem: the finding, only when it is
    notable (`Finding.notable`)."""
    f = finding(ctx.store, ctx.as_of)
    return finding_sentence(ctx, f, glance=True) if f is not None and f.notable else None


def _index_day(store: Store, as_of: date) -> date | None:
    """The newest day of the index on or before `as_of`."""
    return store.con.execute("SELECT max(day) FROM rocm_index WHERE day <= ?", [as_of]).fetchall()[
        0
    ][0]


def _row(store: Store, day: date) -> dict[str, Any] | None:
    cur = store.con.execute("SELECT * FROM rocm_index WHERE day = ?", [day])
    row = cur.fetchone()
    return None if row is None else dict(zip([d[0] for d in cur.description], row, strict=True))


def _state(ctx: BriefingContext, day: date) -> dict[str, Any]:
    """The index on `day`, each number with its receipt."""
    row = _row(ctx.store, day)
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
    row = _row(ctx.store, then)
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
    r_both = _both_receipt(ctx.book, day, then, both)
    r_now = _share_receipt(ctx.book, day, then, share_now)
    r_then = _share_receipt(ctx.book, then, day, share_then)
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
    counted = {
        r[0]
        for r in ctx.store.con.execute(
            "SELECT repo FROM rocm_index_repos WHERE day = ?", [day]
        ).fetchall()
    }
    missing = [r for r in ctx.tracked if r not in counted]
    if not missing:
        return None
    none, short, refs = [], [], []
    for repo in missing:
        n = ctx.store.con.execute(HISTORY_SQL, [repo]).fetchall()[0][0]
        if n:
            short.append(repo)
            continue
        none.append(repo)
        refs.append(
            ctx.book.query("commits", HISTORY_SQL, [repo], 0, day, f"{repo}'s commits in the store")
        )
    parts = []
    if none:
        parts.append(
            f"{_and([safe_inline(r) for r in none])} "
            f"{'has' if len(none) == 1 else 'have'} no commit history in the store {ref(*refs)}"
        )
    if short:
        parts.append(
            f"{_and([safe_inline(r) for r in short])}'s history does not cover the 90 days"
        )
    return {
        "repos": missing,
        "line": Md(
            f"Not counted among the tracked repositories: {'; '.join(parts)}, so this section "
            "does not cover "
            f"{'it' if len(missing) == 1 else 'them'}."
        ),
    }


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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


def commit_url(repo: str, sha: str) -> str:
    """The commit's page on GitHub."""
    return f"https://github.com/{repo}/commit/{sha}"


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


def _histories_ended(store: Store, day: date) -> list[dict[str, Any]]:
    """Repositories counted at some time before `day` whose history ends before it."""
    rows = store.con.execute(
        "SELECT repo, max(day) FROM rocm_index_repos GROUP BY repo HAVING max(day) < ? "
        "ORDER BY 2 DESC, 1",
        [day],
    ).fetchall()
    return [{"repo": r, "last_day": d} for r, d in rows]


def index_chart(store: Store, day: date, path: Path) -> Path:
    """The index up to `day`: repositories counted and those with ROCm work in the trailing 90
    days, first-time adoptions marked; below, the share of commits touching ROCm."""
    rows = store.con.execute(
        "SELECT day, repos, repos_rocm_90d, rocm_share_90d, nonbot_rocm_share_90d, amd_repos, "
        "third_party_repos_rocm_90d, third_party_rocm_share_90d FROM rocm_index WHERE day <= ? "
        "ORDER BY day",
        [day],
    ).fetchall()
    firsts = store.con.execute(
        "SELECT first_rocm_day, count(DISTINCT repo) FROM rocm_index_repos WHERE day = "
        "first_rocm_day AND first_time_adopter AND day <= ? GROUP BY 1 ORDER BY 1",
        [day],
    ).fetchall()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True, dpi=100)
    days = [r[0] for r in rows]
    top.plot(days, [r[1] for r in rows], color="grey", label="repositories counted")
    top.plot(days, [r[2] for r in rows], color="C3", label="with ROCm commits in the last 90 days")
    if any(r[5] for r in rows):
        top.plot(
            days,
            [r[6] for r in rows],
            color="C0",
            linewidth=0.9,
            label="of those, not AMD's own",
        )
    if firsts:
        counts = {r[0]: r[2] for r in rows}
        top.scatter(
            [f for f, _ in firsts],
            [counts.get(f, 0) for f, _ in firsts],
            marker="^",
            color="C2",
            zorder=3,
            label="a repository's first ROCm commit",
            s=18,
        )
    top.set_ylabel("repositories")
    top.legend(fontsize=8, loc="upper left")
    bottom.plot(days, [100 * (r[3] or 0) for r in rows], color="C3", label="all commits")
    if any(r[5] for r in rows):
        bottom.plot(
            days,
            [100 * (r[7] or 0) for r in rows],
            color="C0",
            label="AMD's own ROCm repositories left out",
        )
    bottom.plot(
        days,
        [100 * (r[4] or 0) for r in rows],
        color="C1",
        linewidth=0.8,
        label="commits by people (bots left out)",
    )
    bottom.set_ylabel("% of commits touching ROCm")
    bottom.legend(fontsize=8, loc="upper left")
    top.set_title(f"ROCm work across the repositories with commit history, to {day}")
    fig.text(
        0.01,
        0.01,
        "Source: shu store, view rocm_index (90-day windows)",
        fontsize=7,
        color="grey",
    )
    fig.autofmt_xdate()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path
