"""The ROCm ecosystem's finding in words (`shu.signals.rocm_facts.finding`): the first
paragraph of the "ROCm across the ecosystem" section (the move, against the year before and
against its own years, without the repository making most ROCm commits, who is not counted, and
any tracked repository whose own share went the other way), At a glance's sentence when the move
is notable, and the figures behind the comparisons for the appendix, every number with its
receipt.
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
    REPO_SHARE_SQL,
    SAME_REPOS_COUNT_SQL,
    SAME_REPOS_SQL,
    SAME_REPOS_WITHOUT_SQL,
    YEAR_SHARE_SQL,
    AgainstHistory,
    Finding,
    YearShare,
    against_history,
    index_row,
    not_counted,
    own_shares,
    past_window,
    yearly_shares,
)

# a year at today's level (`rocm_facts.LEVEL_BAND`) reads as "at its level" only when the two
# shares differ by under this (relative); else the sentence says which way today's is
SAME_LEVEL = 0.05


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
    """The finding in plain words, each number with its receipt: the move over the same
    repositories against the year before's, the share without the repository making most ROCm
    commits, and (in the section) the share against its own years, the tracked repositories not
    counted and any whose own share went the other way; for At a glance (`glance`), one
    sentence, with the repositories it names linked and those not counted named in brackets.
    The figures the comparisons rest on are the appendix's (`finding_detail`)."""
    day, then = f.day, f.then
    book = ctx.book
    r_both = both_receipt(book, day, then, f.repos)
    r_now = share_receipt(book, day, then, f.share_now)
    r_then = share_receipt(book, then, day, f.share_then)
    went = _went(f.share_then, f.share_now)
    when = f"in {FINDING_DAYS} days" if glance else f"in the {FINDING_DAYS} days to {day_text(day)}"
    move = (
        f"held at {pct(f.share_now, 1)} {ref(r_now, r_then)} {when}"
        if went == "held"
        else f"{went} from {pct(f.share_then, 1)} {ref(r_then)} to {pct(f.share_now, 1)} "
        f"{ref(r_now)} {when}"
    )
    text = (
        f"The share of commits touching ROCm {move}, over the same {f.repos} repositories with "
        f"commit history in the store {ref(r_both)}"
    )
    if glance:
        text += uncounted_words(ctx, day, short=True)
    if f.largest_before is not None:
        r_past = _past_receipt(ctx, f)
        text += (
            f", more than in any {FINDING_DAYS} days of the year before {ref(r_past)}"
            if f.notable
            else f", within what the year before showed {ref(r_past)}"
        )
    sentences = [text + ("" if glance else ".")]
    if not glance and (history := history_words(ctx, f)):
        sentences.append(history)
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
        # the move holds without it: say so as the answer to "is it one repository?"
        still = _larger_without(f) and went_without == went != "held"
        without = (
            f"held at {pct(f.without_now, 1)} {ref(r_wn, r_wt)}"
            if went_without == "held"
            else f"{'still ' if still else ''}{went_without} from {pct(f.without_then, 1)} "
            f"{ref(r_wt)} to {pct(f.without_now, 1)} {ref(r_wn)}"
        )
        name = repo_link(f.top) if glance else safe_inline(f.top)
        if glance:
            return Md(
                f"{text}; without {name}, which made {f.top_commits} of the {f.rocm_commits} "
                f"ROCm commits {ref(r_top, r_all)}, it {without}."
            )
        sentences.append(
            f"Without {name}, which made {f.top_commits} of the {f.rocm_commits} ROCm commits "
            f"{ref(r_top, r_all)}, it {without}."
        )
    if glance:
        return Md(text + ".")
    if uncounted := uncounted_words(ctx, day):
        sentences.append(f"Not counted: {uncounted}.")
    sentences.extend(against_field(ctx, f))
    return Md(" ".join(sentences))


def _larger_without(f: Finding) -> bool:
    """Whether the move without the top repository is larger than any of the year before's
    without it."""
    return (
        f.largest_without is not None
        and f.without_now is not None
        and f.without_then is not None
        and abs(f.without_now - f.without_then) > f.largest_without
    )


def _past_receipt(ctx: BriefingContext, f: Finding) -> int:
    """The receipt of the largest 90-day move of the year before the finding's."""
    assert f.largest_before is not None
    return ctx.book.query(
        "rocm_index_repos",
        PAST_MOVES_SQL,
        past_window(f.then),
        f.largest_before,
        f.then,
        f"the largest {FINDING_DAYS}-day move of the ROCm share (over the repositories "
        f"counted at both ends) in the {PAST_DAYS} days to {f.then}",
    )


def finding_detail(ctx: BriefingContext, f: Finding) -> Md | None:
    """For the appendix: the figures the finding's comparisons rest on (the year before's
    largest 90-day move, with and without the top repository, and what the years are); None
    when there is none."""
    parts = []
    if f.largest_before is not None:
        parts.append(
            f"The largest {FINDING_DAYS}-day move of the share in the year before was "
            f"{100 * f.largest_before:.1f} percentage points {ref(_past_receipt(ctx, f))}"
        )
        if f.top is not None and f.largest_without is not None:
            r_pw = ctx.book.query(
                "rocm_index_repos",
                PAST_MOVES_WITHOUT_SQL,
                [*past_window(f.then), f.top],
                f.largest_without,
                f.then,
                f"the largest {FINDING_DAYS}-day move of the ROCm share (over the repositories "
                f"counted at both ends, {f.top} left out) in the {PAST_DAYS} days to {f.then}",
            )
            parts[-1] += (
                f", {100 * f.largest_without:.1f} points without {safe_inline(f.top)} {ref(r_pw)}"
            )
    h = _history(ctx, f)
    if h is not None:
        parts.append(
            f"A year's share is the mean 90-day share of its days, from {h[1].first_year} on"
        )
    return Md(". ".join(parts) + ".") if parts else None


def moved_against(ctx: BriefingContext, f: Finding) -> list[tuple[str, float, float]]:
    """(repository, its share then, now) for each tracked repository whose own ROCm share moved,
    as shown, the other way from the share over the repositories counted on both days; none
    when that share held."""
    went = _went(f.share_then, f.share_now)
    return [
        (repo, then, now)
        for repo, then, now in own_shares(ctx.store, ctx.tracked, f.day, f.then)
        if went != "held" and _went(then, now) not in ("held", went)
    ]


def against_field(ctx: BriefingContext, f: Finding) -> list[str]:
    """One sentence per repository of `moved_against` ('ollama/ollama's own share went the
    other way: it fell from 3.5% [R] to 0.4% [R] of its commits.')."""
    out = []
    for repo, then, now in moved_against(ctx, f):
        own = _went(then, now)
        r_then, r_now = (
            ctx.book.query(
                "rocm_index_repos",
                REPO_SHARE_SQL,
                [repo, d],
                v,
                d,
                f"{repo}'s own share of commits touching ROCm in the 90 days to {d}",
            )
            for d, v in ((f.then, then), (f.day, now))
        )
        out.append(
            f"{repo_link(repo)}'s own share went the other way: it {own} from {pct(then, 1)} "
            f"{ref(r_then)} to {pct(now, 1)} {ref(r_now)} of its commits."
        )
    return out


def glance_sentence(ctx: BriefingContext) -> Md | None:
    """At a glance's sentence on ROCm work across the ecosystem: the finding, only when it is
    notable (`Finding.notable`)."""
    f = ctx.rocm_finding
    return finding_sentence(ctx, f, glance=True) if f is not None and f.notable else None


def uncounted_words(ctx: BriefingContext, day: date, *, short: bool = False) -> str:
    """'pytorch/pytorch and tensorflow/tensorflow, tracked but with no commit history in the
    store [R, R]': the tracked repositories the share leaves out, named where it is stated;
    `short` (At a glance): ' (not counting pytorch/pytorch and tensorflow/tensorflow [R, R])';
    '' when it counts every one."""
    none, short_history = not_counted(ctx.store, ctx.tracked, day)
    refs = [
        ctx.book.query("commits", HISTORY_SQL, [r], 0, day, f"{r}'s commits in the store")
        for r in none
    ]
    if short:
        names = and_list([repo_link(r) for r in (*none, *short_history)])
        return f" (not counting {names}{' ' + ref(*refs) if refs else ''})" if names else ""
    parts = []
    if none:
        parts.append(
            f"{and_list([repo_link(r) for r in none])}, tracked but with no commit history in "
            f"the store {ref(*refs)}"
        )
    if short_history:
        parts.append(
            f"{and_list([repo_link(r) for r in short_history])}, whose history does not cover "
            "the 90 days"
        )
    return "; nor ".join(parts)


def _years(run: list[YearShare]) -> str:
    """'2019' or '2017–19'."""
    a, b = run[0].year, run[-1].year
    return str(a) if a == b else f"{a}–{str(b)[2:]}" if a // 100 == b // 100 else f"{a}–{b}"


def _history(ctx: BriefingContext, f: Finding) -> tuple[float, AgainstHistory] | None:
    """Today's share over every repository counted, among the whole years before it."""
    row = index_row(ctx.store, f.day)
    if row is None or row["rocm_share_90d"] is None:
        return None
    share = float(row["rocm_share_90d"])
    h = against_history(share, yearly_shares(ctx.store, f.day), f.day.year)
    if h is None or (h.level is None and not h.above and not h.below):
        return None
    return share, h


def history_words(ctx: BriefingContext, f: Finding) -> str:
    """'That is a little above 2024's 3.7% [R], below 2017–19's 10–12% [R, R, R].': today's
    share among the whole years before it (the mean 90-day share of each, `finding_detail`
    says so), over every repository counted today, named as such where it shows differently
    from the finding's; '' without a year to compare."""
    found = _history(ctx, f)
    if found is None:
        return ""
    share, h = found
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
        then = f"{pct(h.level.share, 1)} {ref(cite(h.level))}"
        if abs(share / h.level.share - 1) < SAME_LEVEL:
            back = "at" if h.level.year == f.day.year - 1 else "back to"
            parts.append(f"{back} {h.level.year}'s level ({then})")
        else:  # within the band, but a reader compares the two figures: say which way
            side = "above" if share > h.level.share else "below"
            parts.append(f"a little {side} {h.level.year}'s {then}")
    if h.above:
        parts.append("below " + and_list([spread(run) for run in h.above]))
    if h.below:
        parts.append("above " + and_list([spread(run) for run in h.below]))
    if pct(share, 1) == pct(f.share_now, 1):
        return f"That is {and_list(parts)}."
    r_share = book.row(
        "rocm_index",
        {"day": f.day},
        "rocm_share_90d",
        share,
        f.day,
        "share of their commits touching ROCm",
    )
    return (
        f"Over every repository counted on {day_text(f.day)}, {pct(share, 1)} {ref(r_share)}, "
        f"it is {and_list(parts)}."
    )
