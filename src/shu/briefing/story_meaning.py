"""What a story's move means (`shu.signals.move_meaning`) in words: the sentence "What moved"
adds after each story, every figure with its receipt. It says how the move ranks in the
repository's own history, how the rest of its field category moved over the same days, the
forecast that the pace lasts, and what in the store coincides with the move, named as
coinciding, never as its cause. At a glance words its lead's rank and forecast with the same
functions (`rank_words`, `forecast_words`) and names them in `BriefingContext.said`
(`said_key`), so What moved does not say them again."""

from __future__ import annotations

from datetime import date

from shu.briefing.text import and_list, day_text, num, pct, ref, release_link
from shu.forecast.confidence import MEDIUM_FROM
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md, safe_inline
from shu.signals.move_meaning import Forecast, Meaning, Rank
from shu.signals.stories import Story

# a repository's move is told against its category's: the category's same-way change at least
# IN_STEP of its own is "in step"; an own change under OWN_MIN is not read against it at all
IN_STEP, OWN_MIN = 0.5, 0.05

# (column, side) -> what a record of it is called
_RECORD = {
    ("acceleration_28d", "low"): "largest 28-day fall",
    ("acceleration_28d", "high"): "largest 28-day rise",
    ("velocity_28d", "low"): "slowest 28-day pace",
    ("velocity_28d", "high"): "fastest 28-day pace",
}


def _month(day: date) -> str:
    return f"{day:%b %Y}"


def rank_words(book: ReceiptBook, rank: Rank) -> str:
    """'its largest 28-day fall since Mar 2023 [R, R]' (the last day before with one at least
    as large), or '... since its signals begin (Jan 2019) [R, R]'."""
    what = _RECORD[(rank.column, rank.side)]
    r_value = book.cite(rank.value_cite)
    if rank.since is None:
        r_first = book.cite(rank.first_cite)
        return f"its {what} since its signals begin ({_month(rank.first)}) {ref(r_value, r_first)}"
    return f"its {what} since {_month(rank.since)} {ref(r_value, book.cite(rank.since_cite))}"


def said_key(what: str, name: str) -> str:
    """The name of a fact in `BriefingContext.said`: 'rank' or 'forecast' of a repository's
    move, or how the rest of a 'category' moved."""
    return f"{what} of {name}"


# the forecast's lean, said before its figure: (lowest probability, words, whether the words
# lean the other way than the chance, which then says what it is the chance of); "likely"
# either way from the edge of medium confidence (`confidence.MEDIUM_FROM`: 65% sure of yes or
# of no); an answer between 45% and 55% has no lean, and is said to have none
LEANS = (
    (MEDIUM_FROM, "is likely to beat", False),
    (0.55, "leans towards beating", False),
    (0.45, "is as likely as not to beat", False),
    (1 - MEDIUM_FROM, "leans towards staying below", True),
    (0.0, "is likely to stay below", True),
)


def forecast_words(book: ReceiptBook, f: Forecast, whose: str = "its", counts: str = "") -> str:
    """'its 28-day pace is likely to stay below today's 4.5 on 30 Mar 2026 (a 12% chance [R]
    that it beats it)', the one forecast At a glance and What moved quote on whether a move
    lasts: its lean first (`LEANS`: a 51% answer says there is none), then the chance it beats
    today's pace ('(a 60% chance [R])' where the lean is towards beating it), its figures
    early, so the sentence said of several repositories repeats no six words; `counts`: the
    store-wide days today's pace counts ('19–20 Feb 2026'), said when there are any."""
    lean, against = next((words, other) for low, words, other in LEANS if f.probability >= low)
    chance = f"a {pct(f.probability)} chance {ref(book.cite(f.cite))}"
    text = (
        f"{whose} 28-day pace {lean} today's {num(f.threshold, 1)} on "
        f"{day_text(f.resolves_on)} ({chance}{' that it beats it' if against else ''})"
    )
    return text + (f", which counts {counts}" if counts else "")


def own_change(story: Story) -> float | None:
    """The story's own change of pace, relative: its ordinary days' (bursts out) when both
    windows have them, else its 28-day pace's; None when neither is known."""
    for now, before in (
        (story.ordinary_now, story.ordinary_before),
        (story.velocity_28d, story.velocity_28d_before),
    ):
        if now is not None and before is not None and before > 0:
            return now / before - 1
    return None


def whose_move(name: str, own: float | None, category: float, rest: str) -> str:
    """The category clause read against repository `name`'s own change (`own`): whether its
    move is the category's ('in step with its category, as ...', when the rest moved the same
    way by at least `IN_STEP` of its own change) or its own ('mostly LocalAI's own move, as
    ...'; 'LocalAI's own move, as ...' when the rest moved the other way); `rest` alone when its
    own change is unknown or under `OWN_MIN`."""
    if own is None or abs(own) < OWN_MIN:
        return rest
    if own * category > 0 and abs(category) >= IN_STEP * abs(own):
        return f"in step with its category, as {rest}"
    if own * category > 0:
        return f"mostly {name}'s own move, as {rest}"
    return f"{name}'s own move, as {rest}"


def meaning_parts(
    book: ReceiptBook,
    m: Meaning,
    said: set[str] | None = None,
    counts: str = "",
    own: float | None = None,
) -> list[str]:
    """The clauses of `meaning_sentence`, each with its receipts (none when nothing is known);
    a rank or forecast already in `said` (At a glance gave it) is not said again: the forecast
    is referred to; the rest of a category is said on its first story only (named in `said`:
    its later stories' peers are nearly the same repositories), read against the repository's
    own change of pace (`own`, `own_change`: whether the move is its own or its category's)."""
    said = set() if said is None else said
    parts = []
    ranks = [rank_words(book, r) for r in (m.rank, m.level) if r is not None]
    if ranks and said_key("rank", m.repo) not in said:
        parts.append(and_list(ranks))
    c = m.category
    told = c is not None and said_key("category", c.name) in said
    if c is not None and c.change is not None and not told:
        said.add(said_key("category", c.name))  # once a note: its later stories refer to it
        r_now, r_before = book.cite(c.now_cite), book.cite(c.before_cite)
        move = (
            "held their pace"
            if round(c.change, 2) == 0
            else f"ran {pct(abs(c.change))} {'faster' if c.change > 0 else 'slower'}"
        )
        rest = (
            f"the rest of {safe_inline(c.name)} ({c.repos} repositories) {move} "
            f"({num(c.now, 1)} against {num(c.before, 1)} stars/day {ref(r_now, r_before)})"
        )
        parts.append(whose_move(safe_inline(m.repo.split("/")[-1]), own, c.change, rest))
    f = m.forecast
    if f is not None:
        said_before = said_key("forecast", m.repo) in said
        parts.append(
            "its forecast is in At a glance"
            if said_before
            else forecast_words(book, f, counts=counts)
        )
    beside = []
    days: dict[date, list[tuple[str, int]]] = {}  # the releases, by day: said once a day
    many = False  # more than one release
    for x in m.coinciding:
        if x.kind == "release":
            days.setdefault(x.day, []).append((release_link(m.repo, x.what), book.cite(x.cite)))
    if days:
        each = [
            f"{and_list([t for t, _ in tags])} of {day_text(d)} {ref(*[r for _, r in tags])}"
            for d, tags in days.items()
        ]
        many = sum(len(tags) for tags in days.values()) > 1
        beside.append(f"{'releases' if many else 'release'} {and_list(each)}")
    for x in m.coinciding:
        if x.kind == "release":
            continue
        r = ref(book.cite(x.cite))
        if x.kind == "document":
            beside.append(f"“{safe_inline(x.what)}” of {day_text(x.day)} {r}")
        else:
            beside.append(f"a burst of commits around {day_text(x.day)} {r}")
    if m.more_releases:
        beside.append(f"{m.more_releases} more release{'s' if m.more_releases > 1 else ''}")
    if beside:
        one = len(beside) == 1 and not many
        parts.append(
            f"{and_list(beside)} {'coincides' if one else 'coincide'} with it (in time only)"
        )
    return parts


def meaning_sentence(
    book: ReceiptBook,
    m: Meaning | None,
    said: set[str] | None = None,
    counts: str = "",
    own: float | None = None,
) -> Md | None:
    """'What it means: its largest 28-day fall since Mar 2023 [R]; keras's own move, as the rest
    of training frameworks (9 repositories) ran 4% faster (…); its 28-day pace is likely to
    stay below today's 26.5 on 30 Mar 2026 (a 12% chance [R] that it beats it); release v1.2 of
    24 Feb 2026 [R] coincides with it (in time only).' None when nothing is known; `said`,
    `counts` and `own` as for `meaning_parts`."""
    parts = [] if m is None else meaning_parts(book, m, said, counts, own)
    if not parts:
        return None
    return Md("What it means: " + "; ".join(parts) + ".")
