"""Stories (`shu.briefing.stories`) in words: the briefing's title, the "What moved" line of each
tracked repository and the shorter sentence "At a glance" opens with, every number with its
receipt.

Numbers a story shows are the stored ones: the 28-day and 7-day velocities of `star_signals`
(row receipts), and stars gained over days or the mean gain of a window's ordinary days, re-read
with the SELECT that reproduces them (query receipts, `stories.gained_sql` / `ordinary_sql`).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from shu.briefing.stories import WINDOW, Episode, Story, gained_sql, ordinary_sql, windows
from shu.briefing.text import days_text, num, ref, release_link, repo_link
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.store import Store

# Each kind of story in a few words (chart panels, the At a glance table).
KIND_WORDS = {
    "burst_left": "a burst left the 28-day window",
    "spike": "a one-day spike in the window",
    "burst": "a burst in the window",
    "release": "a burst after a release",
    "star_removal": "stars removed",
    "pace_down": "slowing",
    "pace_up": "speeding up",
    "steady": "steady",
    "no_data": "gap in the star counts",
}
TITLE_ARTEFACT_SHARE = 0.2


def kind_words(story: Story) -> str:
    """The story in a few words, with a change of pace underneath a burst or removal."""
    words = KIND_WORDS[story.kind]
    if story.pace_change and story.kind not in ("pace_down", "pace_up"):
        words += "; " + KIND_WORDS[f"pace_{story.pace_change}"] + " underneath"
    return words  # an episode names itself in the title when it moved the pace this much


class _StoryReceipts:
    """The receipts of one story's numbers (each number shown as the store gives it)."""

    def __init__(self, store: Store, book: ReceiptBook, story: Story) -> None:
        self.store, self.book, self.story = store, book, story

    def signal(self, column: str, day: date) -> tuple[float | None, int]:
        repo = self.story.repo
        row = self.store.con.execute(
            f'SELECT "{column}" FROM star_signals WHERE repo = ? AND day = ?', [repo, day]
        ).fetchone()
        if row is None or row[0] is None:
            return None, 0
        r = self.book.row(
            "star_signals", {"repo": repo, "day": day}, column, row[0], day, f"{repo} {column}"
        )
        return float(row[0]), r

    def velocity(self, before: bool = False) -> tuple[float | None, int]:
        day = self.story.day - timedelta(days=WINDOW) if before else self.story.day
        return self.signal("velocity_28d", day)

    def query(self, sql: str, params: list[Any], label: str) -> tuple[float | None, int]:
        row = self.store.con.execute(sql, params).fetchone()
        value = None if row is None else row[0]
        if value is None:
            return None, 0
        return float(value), self.book.query(
            "stars_daily", sql, params, value, self.story.day, f"{self.story.repo} {label}"
        )

    def gained(self, e: Episode) -> tuple[float | None, int]:
        sql, params = gained_sql(self.story.repo, e.first, e.last)
        return self.query(sql, params, f"stars gained {e.first}..{e.last}")

    def ordinary(self, window: str) -> tuple[float | None, int]:
        first, last = windows(self.story.day)[window]
        sql, params = ordinary_sql(self.story.repo, first, last, self.story.episodes)
        return self.query(sql, params, f"mean daily gain of ordinary days {first}..{last}")


def _stars(value: float | None) -> str:
    return num(value if value is None else abs(value), 0)


def _pace(value: float | None) -> str:
    return num(value, 1)


def _release(story: Story, e: Episode) -> str:
    if e.release is None:
        return ""
    tag, on = e.release
    return f" after release {release_link(story.repo, tag)} of {days_text(on, on)}"


def _ordinary_clause(c: _StoryReceipts) -> str:
    """'on the other days it gained X a day [R], against Y in the 28 days before [R]'."""
    now, r_now = c.ordinary("now")
    before, r_before = c.ordinary("before")
    if now is None or before is None:
        return ""
    return (
        f"on its other days it gained {_pace(now)} a day {ref(r_now)}, against "
        f"{_pace(before)} in the 28 days before {ref(r_before)}"
    )


def story_sentence(store: Store, book: ReceiptBook, story: Story) -> Md:
    """The repository's "What moved" line: what happened and why, each number cited."""
    c = _StoryReceipts(store, book, story)
    link = repo_link(story.repo)
    v28, r_v28 = c.velocity()
    if story.kind == "no_data":
        gap = story.gap
        where = f" from {days_text(*gap)}" if gap else ""
        return Md(f"{link}: its star counts have a gap{where}, so its 28-day pace is undefined.")
    e = story.primary
    if story.kind == "burst_left" and e is not None:
        stars, r_e = c.gained(e)
        before, r_before = c.velocity(before=True)
        recent, r_recent = c.signal("velocity_7d", story.day)
        text = (
            f"{link}: its 28-day pace fell from {_pace(before)} {ref(r_before)} to {_pace(v28)} "
            f"stars/day {ref(r_v28)} because the {_stars(stars)} stars it gained on "
            f"{days_text(e.first, e.last)}{_release(story, e)} {ref(r_e)} left the 28-day window"
        )
        clause = _ordinary_clause(c)
        if story.pace_change == "down":
            return Md(text + "; " + clause + ".")
        # No confirmed change of the ordinary pace: give the ordinary days and the last 7 and let
        # the reader weigh them (asserting "not because it slowed" overstated what is known).
        return Md(
            text
            + (f"; {clause}" if clause else "")
            + f"; its last 7 days ran at {_pace(recent)} stars/day {ref(r_recent)}."
        )
    if story.kind in ("spike", "burst", "release") and e is not None:
        stars, r_e = c.gained(e)
        leaves = e.last + timedelta(days=WINDOW)
        when, release = days_text(e.first, e.last), _release(story, e)
        head = (
            f"one day, {when}, brought {_stars(stars)} stars{release} {ref(r_e)}, which lifts"
            if e.days == 1
            else f"{_stars(stars)} stars gained on {when}{release} {ref(r_e)} lift"
        )
        clause = _ordinary_clause(c)
        return Md(
            f"{link}: {head} its 28-day pace to {_pace(v28)} stars/day {ref(r_v28)} until "
            f"{'it leaves' if e.days == 1 else 'they leave'} the window on "
            f"{days_text(leaves, leaves)}" + (f"; {clause}" if clause else "") + "."
        )
    if story.kind == "star_removal" and e is not None:
        lost, r_e = c.gained(e)
        if e.window == "now":
            leaves = e.last + timedelta(days=WINDOW)
            return Md(
                f"{link}: it lost {_stars(lost)} stars on {days_text(e.first, e.last)} "
                f"{ref(r_e)} (stars removed, not a change of pace), which holds its 28-day pace "
                f"down at {_pace(v28)} stars/day {ref(r_v28)} until {days_text(leaves, leaves)}."
            )
        return Md(
            f"{link}: the {_stars(lost)} stars it lost on {days_text(e.first, e.last)} "
            f"{ref(r_e)} left the 28-day window, which lifts its pace to {_pace(v28)} stars/day "
            f"{ref(r_v28)} though it did not speed up."
        )
    if story.kind in ("pace_down", "pace_up"):
        now, r_now = c.ordinary("now")
        before, r_before = c.ordinary("before")
        recent, r_recent = c.ordinary("7d")
        verb = "is slowing" if story.kind == "pace_down" else "is speeding up"
        text = (
            f"{link} {verb}: its ordinary days over the last 28 ran at {_pace(now)} stars/day "
            f"{ref(r_now)} against {_pace(before)} in the 28 days before {ref(r_before)}, and "
            f"the last 7 days at {_pace(recent)} {ref(r_recent)}"
        )
        for b in story.window_bursts:
            stars, r_b = c.gained(b)
            leaves = b.last + timedelta(days=WINDOW)
            text += (
                f"; {_stars(stars)} stars on {days_text(b.first, b.last)} {ref(r_b)} hold its "
                f"28-day pace at {_pace(v28)} {ref(r_v28)} until {days_text(leaves, leaves)}"
            )
        return Md(text + ".")
    before, r_before = c.velocity(before=True)
    return Md(
        f"{link} holds its pace: {_pace(v28)} stars/day over the last 28 days {ref(r_v28)}, "
        f"against {_pace(before)} in the 28 before {ref(r_before)}."
    )


def story_short(store: Store, book: ReceiptBook, story: Story) -> Md | None:
    """One sentence for "At a glance" (None for a steady pace or no data: not news)."""
    c = _StoryReceipts(store, book, story)
    link = repo_link(story.repo)
    e = story.primary
    if story.kind == "burst_left" and e is not None:
        acceleration, r_acc = c.signal("acceleration_28d", story.day)
        stars, r_e = c.gained(e)
        recent, r_recent = c.signal("velocity_7d", story.day)
        tail = (
            f"and its ordinary days slowed too {ref(c.ordinary('now')[1], c.ordinary('before')[1])}"
            if story.pace_change == "down"
            else f"its last 7 days ran at {_pace(recent)} stars/day {ref(r_recent)}"
        )
        moved = "rose" if acceleration is not None and acceleration > 0 else "fell"
        size = None if acceleration is None else abs(acceleration)
        return Md(
            f"{link}'s 28-day pace {moved} by {_pace(size)} stars/day {ref(r_acc)} because "
            f"a burst of {_stars(stars)} stars on {days_text(e.first, e.last)} {ref(r_e)} left "
            f"the window; {tail}."
        )
    if story.kind in ("spike", "burst", "release") and e is not None:
        v28, r_v28 = c.velocity()
        stars, r_e = c.gained(e)
        now, r_now = c.ordinary("now")
        return Md(
            f"{link}'s 28-day pace of {_pace(v28)} stars/day {ref(r_v28)} rests on "
            f"{_stars(stars)} stars gained on {days_text(e.first, e.last)}{_release(story, e)} "
            f"{ref(r_e)}; on its other days it gained {_pace(now)} a day {ref(r_now)}."
        )
    if story.kind == "star_removal" and e is not None:
        lost, r_e = c.gained(e)
        now, r_now = c.ordinary("now")
        return Md(
            f"{link} lost {_stars(lost)} stars on {days_text(e.first, e.last)} {ref(r_e)}, "
            f"which moves its 28-day pace; its ordinary days gained {_pace(now)} a day "
            f"{ref(r_now)}."
        )
    if story.kind in ("pace_down", "pace_up"):
        recent, r_recent = c.ordinary("7d")
        before, r_before = c.ordinary("before")
        verb = "is slowing" if story.kind == "pace_down" else "is speeding up"
        return Md(
            f"{link} {verb}: {_pace(recent)} stars/day over the last 7 days {ref(r_recent)} "
            f"against {_pace(before)} on the ordinary days of the 28 before {ref(r_before)}."
        )
    return None


def importance(story: Story) -> float:
    """How much the story moved the pace, relative to its ordinary level (for ordering)."""
    reference = max(story.ordinary_before or 0.0, 1.0)
    if story.kind in ("steady", "no_data"):
        return 0.0
    if story.kind in ("pace_down", "pace_up"):
        return abs(story.effect) / reference + 1.0  # a real change of pace is the news
    return abs(story.acceleration_28d or story.effect) / reference


def story_title(stories: list[Story]) -> str:
    """The briefing's title: who changed pace, and the largest move that was only a few days of
    counts (a burst, a spike, a removal), by cause."""
    if not stories:
        return "No tracked repository has star data yet"
    slow = sorted((s for s in stories if s.pace_change == "down"), key=lambda s: -importance(s))
    fast = sorted((s for s in stories if s.pace_change == "up"), key=lambda s: -importance(s))
    parts = []
    if fast and slow:
        parts.append(
            f"{_names(fast)} {_verb(fast, 'speed')} up as {_names(slow)} {_verb(slow, 'slow')} down"
        )
    elif slow:
        parts.append(f"{_names(slow)} {_verb(slow, 'slow')} down")
    elif fast:
        parts.append(f"{_names(fast)} {_verb(fast, 'speed')} up")
    named = {s.repo for s in slow + fast}
    artefacts = [
        s
        for s in stories
        if s.is_artefact and s.repo not in named and importance(s) >= TITLE_ARTEFACT_SHARE
    ]
    if artefacts:
        parts.append(_artefact_phrase(max(artefacts, key=importance)))
    if not parts:
        measured = [s for s in stories if s.kind != "no_data"]
        if not measured:
            return "No tracked repository has a measurable 28-day pace"
        parts.append(
            f"{_names(measured, limit=3)} {_verb(measured, 'hold')} their pace"
            if len(measured) > 1
            else f"{_names(measured)} holds its pace"
        )
    return "; ".join(parts)  # names keep their own spelling, even first


def _name(story: Story) -> str:
    return story.repo.split("/")[-1]


def _names(stories: list[Story], limit: int = 2) -> str:
    names = [_name(s) for s in stories[:limit]]
    if len(stories) > limit:
        names.append(f"{len(stories) - limit} more")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _verb(stories: list[Story], verb: str) -> str:
    return verb if len(stories) > 1 else verb + "s"


def _artefact_phrase(story: Story) -> str:
    e = story.primary
    assert e is not None
    name = _name(story)
    move = "drop" if (story.acceleration_28d or e.effect) < 0 else "rise"
    when = days_text(e.first, e.last)
    if story.kind == "burst_left":
        month = f"{e.first:%B}"
        article = "an" if month[0] in "AEIOU" else "a"
        return f"{name}'s {move} is {article} {month} burst leaving its 28-day window"
    if story.kind == "release" and e.release:
        return f"{name}'s {move} follows release {e.release[0]}"
    if story.kind == "spike":
        return f"{name}'s {move} is a one-day spike on {when}"
    if story.kind == "burst":
        return f"{name}'s {move} is a {e.days}-day burst on {when}"
    return f"{name} lost {abs(e.stars):,.0f} stars on {when}"
