"""The ROCm ecosystem's finding in words (`shu.signals.rocm_facts.finding`): the first sentence
of the "ROCm across the ecosystem" section, and At a glance's when the move is notable, every
number with its receipt.
"""

from __future__ import annotations

from datetime import date

from shu.briefing.context import BriefingContext
from shu.briefing.text import and_list, day_text, pct, ref, repo_link
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md, safe_inline
from shu.signals.rocm_facts import (
    FINDING_DAYS,
    HISTORY_SQL,
    PAST_DAYS,
    PAST_MOVES_SQL,
    PAST_MOVES_WITHOUT_SQL,
    SAME_REPOS_COUNT_SQL,
    SAME_REPOS_SQL,
    SAME_REPOS_WITHOUT_SQL,
    YEAR_SHARE_SQL,
    Finding,
    YearShare,
    against_history,
    finding,
    index_row,
    not_counted,
    past_window,
    yearly_shares,
)


def both_receipt(book: ReceiptBook, day: date, other: date, n: int) -> int:
    """The receipt of how many repositories are counted on both `day` and `other`."""
    return book.query(
        "rocm_index_repos",
        SAME_REPOS_COUNT_SQL,
        [day, other],
        n,
        day,
        f"repositories counted on both {min(day, other)} and {max(day, other)}",
    )


def share_receipt(
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
    r_both = both_receipt(book, day, then, f.repos)
    r_now = share_receipt(book, day, then, f.share_now)
    r_then = share_receipt(book, then, day, f.share_then)
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
        f"commit history in the store {ref(r_both)}{uncounted_words(ctx, day)}"
    )
    if f.largest_before is not None:
        r_past = book.query(
            "rocm_index_repos",
            PAST_MOVES_SQL,
            past_window(then),
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
    if not glance:
        text += history_words(ctx, f)
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
        r_wn = share_receipt(book, day, then, f.without_now, without=f.top)
        r_wt = share_receipt(book, then, day, f.without_then, without=f.top)
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
                [*past_window(then), f.top],
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
    f = finding(ctx.store, ctx.data_through)
    return finding_sentence(ctx, f, glance=True) if f is not None and f.notable else None


def uncounted_words(ctx: BriefingContext, day: date) -> str:
    """' (not counting pytorch/pytorch and tensorflow/tensorflow, tracked but with no commit
    history in the store [R, R])': the tracked repositories the share leaves out, named where it
    is stated; '' when it counts every one."""
    none, short = not_counted(ctx.store, ctx.tracked, day)
    parts = []
    if none:
        refs = [
            ctx.book.query("commits", HISTORY_SQL, [r], 0, day, f"{r}'s commits in the store")
            for r in none
        ]
        parts.append(
            f"{and_list([repo_link(r) for r in none])}, tracked but with no commit history in "
            f"the store {ref(*refs)}"
        )
    if short:
        parts.append(
            f"{and_list([repo_link(r) for r in short])}, whose history does not cover the 90 days"
        )
    return f" (not counting {'; nor '.join(parts)})" if parts else ""


def _years(run: list[YearShare]) -> str:
    """'2019' or '2017–19'."""
    a, b = run[0].year, run[-1].year
    return str(a) if a == b else f"{a}–{str(b)[2:]}" if a // 100 == b // 100 else f"{a}–{b}"


def history_words(ctx: BriefingContext, f: Finding) -> str:
    """'; the share over every repository counted on 28 Feb 2026, 4.6% [R], is back to 2024's
    level (3.8% [R]) and below 2017–19's 10–12% [R, R, R], against the mean 90-day share of each
    year from 2016 on': today's share of every counted repository among the
    whole years before it; '' without one."""
    row = index_row(ctx.store, f.day)
    if row is None or row["rocm_share_90d"] is None:
        return ""
    share = float(row["rocm_share_90d"])
    years = yearly_shares(ctx.store, f.day)
    h = against_history(share, years, f.day.year)
    if h is None or (h.level is None and not h.above and not h.below):
        return ""
    book = ctx.book

    def cite(y: YearShare) -> int:
        return book.query(
            "rocm_index",
            YEAR_SHARE_SQL,
            [y.year, f.day],
            y.share,
            f.day,
            f"mean 90-day ROCm share of {y.year}",
        )

    def spread(run: list[YearShare]) -> str:
        low, high = pct(min(y.share for y in run)), pct(max(y.share for y in run))
        shown = low if low == high else f"{low[:-1]}–{high}"
        return f"{_years(run)}'s {shown} {ref(*[cite(y) for y in run])}"

    parts = []
    if h.level is not None:
        back = "at" if h.level.year == f.day.year - 1 else "back to"
        parts.append(
            f"{back} {h.level.year}'s level ({pct(h.level.share, 1)} {ref(cite(h.level))})"
        )
    if h.above:
        parts.append("below " + and_list([spread(run) for run in h.above]))
    if h.below:
        parts.append("above " + and_list([spread(run) for run in h.below]))
    r_share = book.row(
        "rocm_index",
        {"day": f.day},
        "rocm_share_90d",
        row["rocm_share_90d"],
        f.day,
        "share of their commits touching ROCm",
    )
    lead = (
        f"; the share over every repository counted on {day_text(f.day)}, {pct(share, 1)} "
        f"{ref(r_share)}, is"
    )
    return (
        f"{lead} {and_list(parts)}, against the mean 90-day share of each year from "
        f"{h.first_year} on"
    )
