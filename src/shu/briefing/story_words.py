"""Stories (`shu.signals.stories`) in words: the "What moved" line of each tracked repository
that departs from its pace (those that held near it: `held_words`) and the shorter sentence
"At a glance" opens with, every number with its receipt (the title's phrases: `story_title`).

Numbers a story shows are the stored ones: the 28-day and 7-day velocities of `star_signals`
(row receipts), and stars gained over days or the mean gain of a window's ordinary days, re-read
with the SELECT that reproduces them (query receipts, `story_reads.gained_sql` / `ordinary_sql`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from shu.briefing.text import (
    and_list,
    days_text,
    num,
    pct,
    ref,
    release_link,
    repo_link,
    shown_value,
    signal_receipt,
)
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.signals.pace_path import PATH_SQL, STEADY_BAND
from shu.signals.stories import (
    WINDOW,
    Episode,
    Story,
    windows,
)
from shu.signals.story_reads import gained_sql, loss_days_sql, loss_verdict, ordinary_sql
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


def swung(story: Story) -> bool:
    """A steady story (the 28-day pace near its level of 28 days before) whose pace did not stay
    within the steady band over the last 90 days (`pace_path`): never called steady."""
    return story.kind == "steady" and story.path is not None and not story.path.held_steady


def _swing_words(story: Story) -> str:
    """How the 28-day pace of a `swung` story moved over the 90 days, in a few words."""
    path = story.path
    assert path is not None
    if path.shape == "rose":
        return f"up from {_pace(path.low)} stars/day in 90 days"
    if path.shape == "fell":
        return f"down from {_pace(path.high)} stars/day in 90 days"
    return f"after {_pace(path.low)}–{_pace(path.high)} stars/day in 90 days"


def kind_words(story: Story) -> str:
    """The story in a few words, with a change of pace underneath a burst or removal (and the
    last 7 days when they turned back)."""
    if story.shared is not None:  # told with the others that burst on the same days
        pace = "slower" if story.shared == "down" else "faster"
        return f"a burst shared with others; {pace} underneath"
    words = KIND_WORDS[story.kind]
    if story.net_departs:  # near its old pace only with the store-wide days (What moved's line)
        net, before = story.net_pace or 0.0, story.velocity_28d_before or 0.0
        side = "slower" if net < before else "faster"
        return f"{side} than 28 days before without {store_wide_when(story)}"
    if swung(story):
        words = f"near its pace of 28 days ago, {_swing_words(story)}"
    if story.week_leaving:
        first, last, out = oldest_week_out(story)
        pace = "faster" if story.week_leaving == "up" else "slower"
        when = f"{days_text(first, last)}, leaves the window by {days_text(out, out)}"
        return f"{words}; a {pace} week, {when}"
    under = story.underneath
    if under and story.kind not in ("pace_down", "pace_up", "steady", "no_data"):
        words += "; " + ("slower" if under == "down" else "faster") + " underneath"
        if story.turn:
            words += f", the last 7 days {'faster' if story.turn == 'up' else 'slower'} again"
    return words


class StoryReceipts:
    """The receipts of one story's numbers (each number shown as the store gives it), for the
    words of stories here and in `held_words`."""

    def __init__(self, store: Store, book: ReceiptBook, story: Story) -> None:
        self.store, self.book, self.story = store, book, story

    def signal(self, column: str, day: date) -> tuple[float | None, int]:
        return signal_receipt(self.store.con, self.book, self.story.repo, day, column)

    def velocity(self, before: bool = False) -> tuple[float | None, int]:
        day = self.story.day - timedelta(days=WINDOW) if before else self.story.day
        return self.signal("velocity_28d", day)

    def query(self, sql: str, params: list[Any], label: str) -> tuple[float | None, int]:
        row = self.store.con.execute(sql, params).fetchone()
        value = None if row is None else row[0]
        if value is None:
            return None, 0
        return float(value), self.book.query(
            "star_days", sql, params, value, self.story.day, f"{self.story.repo} {label}"
        )

    def path_range(self) -> tuple[int, int]:
        """The receipts of the lowest and highest 28-day pace of the story's 91 days
        (`pace_path.PATH_SQL`)."""
        path = self.story.path
        assert path is not None
        return tuple(  # type: ignore[return-value]
            self.book.query(
                "star_signals",
                PATH_SQL[end],
                path.params(),
                value,
                self.story.day,
                f"{self.story.repo} {end}est 28-day pace {path.first}..{path.day}",
            )
            for end, value in (("low", path.low), ("high", path.high))
        )

    def net(self) -> tuple[float | None, int]:
        """The mean daily gain of the last 28 days without the store-wide event days
        (`Story.store_wide_now`): the 28-day pace net of the store's event."""
        first, last = windows(self.story.day)["now"]
        sql, params = ordinary_sql(self.story.repo, first, last, self.story.store_wide_now)
        return self.query(sql, params, f"mean daily gain {first}..{last} without store-wide days")

    def gained(self, e: Episode) -> tuple[float | None, int]:
        sql, params = gained_sql(self.story.repo, e.first, e.last)
        return self.query(sql, params, f"stars gained {e.first}..{e.last}")

    def ordinary(self, window: str) -> tuple[float | None, int]:
        first, last = windows(self.story.day)[window]
        sql, params = ordinary_sql(self.story.repo, first, last, self.story.unusual)
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


def _ordinary_clause(c: StoryReceipts) -> str:
    """'on the other days it gained X a day [R], against Y in the 28 days before [R]'."""
    now, r_now = c.ordinary("now")
    before, r_before = c.ordinary("before")
    if now is None or before is None:
        return ""
    return (
        f"on its other days it gained {_pace(now)} a day {ref(r_now)}, against "
        f"{_pace(before)} in the 28 days before {ref(r_before)}"
    )


@dataclass(frozen=True)
class StoreLoss:
    """The store-wide loss of stars on a week the regime guard is on: the share of
    repository-days whose count fell over the 7 days to `day`, and its receipt."""

    day: date
    share: float
    receipt: int


def story_sentence(
    store: Store, book: ReceiptBook, story: Story, store_loss: StoreLoss | None = None
) -> Md:
    """The repository's "What moved" line: what happened and why, each number cited; on a week
    many repositories lost stars (`store_loss`), a dip (a slowing, stars removed) weighed
    against the store-wide loss (a confirmed slowing; stars removed inside the window)."""
    said = _sentence(store, book, story)
    removed = any(e.kind == "removal" and e.window == "now" for e in story.episodes)
    if store_loss is None or not (story.pace_change == "down" or removed):
        return said
    return Md(str(said)[:-1] + loss_clause(store, book, story, store_loss, removed) + ".")


def loss_clause(
    store: Store, book: ReceiptBook, story: Story, loss: StoreLoss, removed: bool
) -> str:
    """'; it lost stars on 1 of its last 7 days [R, R], in line with the 8.8% of repositories
    that did on an average day this week [R]' (or none of them, or beyond it)."""
    first, last = story.day - timedelta(days=6), story.day
    (lost_sql, steps_sql), params = loss_days_sql(story.repo, first, last)
    c = StoryReceipts(store, book, story)
    lost, r_lost = c.query(lost_sql, params, f"days losing stars {first}..{last}")
    steps, r_steps = c.query(steps_sql, params, f"day-to-day changes {first}..{last}")
    if lost is None or not steps:
        return ""
    k, n = int(lost), int(steps)
    verdict = loss_verdict(k, n, loss.share)
    share = pct(loss.share, 1)
    dip = "its loss" if removed else "its slowing"
    if verdict == "none":
        return (
            f"; it lost stars on none of its last {n} days {ref(r_lost, r_steps)}, while {share} "
            f"of repositories did on an average day this week {ref(loss.receipt)}: {dip} is its "
            "own, not the store-wide loss"
        )
    how = "in line with" if verdict == "in line" else "beyond"
    return (
        f"; it lost stars on {k} of its last {n} days {ref(r_lost, r_steps)}, {how} the {share} "
        f"of repositories that did on an average day this week {ref(loss.receipt)}"
    )


def _sentence(store: Store, book: ReceiptBook, story: Story) -> Md:
    c = StoryReceipts(store, book, story)
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
            f"stars/day {ref(r_v28)} {'mostly ' if story.mostly else ''}because the "
            f"{_stars(stars)} stars it gained on {days_text(e.first, e.last)}{_release(story, e)} "
            f"{ref(r_e)} left the 28-day window"
        )
        clause = _ordinary_clause(c)
        if story.mostly:  # both causes hold: say the second in the title's words
            now, r_now = c.ordinary("now")
            before, r_before = c.ordinary("before")
            clause = (
                f"its other days {'slowed' if story.underneath == 'down' else 'sped up'} too, "
                f"to {_pace(now)} a day {ref(r_now)} from {_pace(before)} in the 28 days before "
                f"{ref(r_before)}"
            )
        if story.pace_change == "down":
            return Md(text + "; " + clause + ".")
        # No confirmed change of the ordinary pace: give the ordinary days and the last 7 and let
        # the reader weigh them (asserting "not because it slowed" overstated what is known).
        turn = ""
        if story.turn:
            turn = f", {'faster' if story.turn == 'up' else 'slower'} than its other days"
        return Md(
            text
            + (f"; {clause}" if clause else "")
            + f"; its last 7 days ran at {_pace(recent)} stars/day {ref(r_recent)}{turn}."
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
        return Md(text + _small_clause(c) + ".")
    before, r_before = c.velocity(before=True)
    under = ""
    if story.underneath and story.named_small:  # the runs of spike days hide a change beneath
        under = f"; {_ordinary_clause(c)}, {'slower' if story.underneath == 'down' else 'faster'}"
    if story.shared is not None and v28 is not None and before is not None:
        return Md(_shared_line(c, link, (v28, r_v28), (before, r_before)) + under + ".")
    if story.net_departs:
        net, r_net = c.net()
        shown, was = shown_value(net or 0.0, 1), shown_value(before or 0.0, 1)
        side = "slower" if shown < was else "faster"
        share = f", {pct(abs(shown / was - 1))} {side}" if was > 0 else ""
        return Md(
            f"{link}'s 28-day pace is {_pace(v28)} stars/day {ref(r_v28)} against "
            f"{_pace(before)} 28 days before {ref(r_before)}, but without "
            f"{store_wide_when(story)} it gained {_pace(net)} a day {ref(r_net)}{share}"
            + _small_clause(c)
            + "."
        )
    if swung(story):
        r_low, r_high = c.path_range()
        path = story.path
        assert path is not None
        moved = {
            "rose": f"rose from {_pace(path.low)} {ref(r_low)}",
            "fell": f"fell from {_pace(path.high)} {ref(r_high)}",
        }.get(
            path.shape,
            f"ran from {_pace(path.low)} {ref(r_low)} to {_pace(path.high)} {ref(r_high)}",
        )
        held = (
            f"{link}'s 28-day pace is {_pace(v28)} stars/day {ref(r_v28)}, near the "
            f"{_pace(before)} of 28 days before {ref(r_before)}, but it did not hold steady: over "
            f"the last 90 days it {moved} (steady means within {pct(STEADY_BAND)} of today's)"
        )
    else:
        held = (
            f"{link} holds its pace: {_pace(v28)} stars/day over the last 28 days {ref(r_v28)}, "
            f"against {_pace(before)} in the 28 before {ref(r_before)}"
        )
    return Md(held + _small_clause(c) + under + _week_leaving_clause(c, v28) + ".")


def store_wide_when(story: Story) -> str:
    """The store-wide event days inside the story's 28-day window ('19–20 Feb 2026'; '' when
    none): what its stored 28-day pace counts besides the repository's own days."""
    runs = story.store_wide_now
    return and_list([days_text(e.first, e.last) for e in runs]) if runs else ""


def oldest_week_out(story: Story) -> tuple[date, date, date]:
    """The first and last of the oldest 7 days of the story's window, and the day they are all out
    of it."""
    first, last = story.oldest_week
    return first, last, last + timedelta(days=WINDOW)


def _week_leaving_clause(c: StoryReceipts, v28: float | None) -> str:
    """'; its oldest week in the window, 1–7 Feb 2026, brought 805 stars [R] (115.0 a day, 32%
    above the 28-day pace) and leaves it by 7 Mar 2026' for a steady story whose oldest week
    ran far from its pace (`Story.week_leaving`); the % from the figures shown."""
    story = c.story
    if not story.week_leaving or v28 is None:
        return ""
    first, last, out = oldest_week_out(story)
    stars, r_e = c.query(*gained_sql(story.repo, first, last), f"stars gained {first}..{last}")
    if stars is None:
        return ""
    per_day, pace = shown_value(stars / 7, 1), shown_value(v28, 1)
    if pace <= 0:
        return ""
    ratio = per_day / pace
    return (
        f"; its oldest week in the window, {days_text(first, last)}, brought {_stars(stars)} stars "
        f"{ref(r_e)} ({_pace(per_day)} a day, {pct(abs(ratio - 1))} "
        f"{'above' if ratio > 1 else 'below'} the 28-day pace) and leaves it by "
        f"{days_text(out, out)}"
    )


def _shared_line(
    c: StoryReceipts, link: str, now: tuple[float, int], before: tuple[float, int]
) -> str:
    """The line of a steady repository that burst on the same days as others: how its 28-day
    pace moved ('slipped from 27.8 to 26.5 stars/day despite a burst on 19–20 Feb 2026 (133
    stars in 2 days)'), the burst named as what held it up, not as what it rests on."""
    (v28, r_v28), (was, r_was) = now, before
    shown, shown_was = round(v28, 1), round(was, 1)
    if shown < shown_was:
        move, joint = f"slipped from {_pace(was)} {ref(r_was)} to", "despite"
    elif shown > shown_was:
        move, joint = f"rose from {_pace(was)} {ref(r_was)} to", "with"
    else:
        move, joint = f"held at {_pace(was)} {ref(r_was)}, now", "with"
    text = f"{link}'s 28-day pace {move} {_pace(v28)} stars/day {ref(r_v28)}"
    small = c.story.named_small
    if not small:
        return text + _small_clause(c)
    e = small[0]
    stars, r_e = c.gained(e)
    noun = "a spike" if e.days == 1 else "a burst"
    span = "in 1 day" if e.days == 1 else f"in {e.days} days"
    text += (
        f" {joint} {noun} on {days_text(e.first, e.last)} ({_stars(stars)} stars {span} {ref(r_e)})"
    )
    return text + _small_clause(c, skip=1)


def _small_clause(c: StoryReceipts, skip: int = 0) -> str:
    """'; it also had a burst on 19–20 Feb 2026 (133 stars in 2 days [R])' for each run of spike
    days inside the window too small to move the pace (a spike the chart shows is named; a run of
    two days or more is a burst, never a spike); `skip`: the first runs, already named."""
    out = ""
    for e in c.story.named_small[skip:]:
        stars, r_e = c.gained(e)
        what = "spiked" if e.days == 1 else "had a burst"
        span = "in 1 day" if e.days == 1 else f"in {e.days} days"
        out += (
            f"; it also {what} on {days_text(e.first, e.last)} ({_stars(stars)} stars {span} "
            f"{ref(r_e)})"
        )
    return out


def shared_short(
    store: Store, book: ReceiptBook, members: list[Story], first: date, last: date, under: str
) -> Md:
    """One At a glance sentence for tracked repositories that gained unusually many stars on the
    same days and all ran slower (`under` 'down') or faster on their other days (the title's
    shared phrase), each figure with its receipt."""
    gains, paces = [], []
    for story in members:
        c = StoryReceipts(store, book, story)
        sql, params = gained_sql(story.repo, first, last)
        stars, r_e = c.query(sql, params, f"stars gained {first}..{last}")
        now, r_now = c.ordinary("now")
        before, r_before = c.ordinary("before")
        gains.append(f"{_stars(stars)} {ref(r_e)}")
        paces.append(f"{_pace(before)} to {_pace(now)} {ref(r_before, r_now)}")
    links = [repo_link(s.repo) for s in members]

    each = {2: "both", 3: "all three", 4: "all four"}.get(len(members), f"all {len(members)}")
    return Md(
        f"{and_list(links)} gained unusually many stars on {days_text(first, last)} "
        f"({and_list(gains)} stars), and {each} ran {'slower' if under == 'down' else 'faster'} "
        f"on their other days than in the 28 days before ({and_list(paces)} a day)."
    )


def story_short(store: Store, book: ReceiptBook, story: Story) -> Md | None:
    """One sentence for "At a glance" (None for a steady pace or no data: not news)."""
    c = StoryReceipts(store, book, story)
    link = repo_link(story.repo)
    e = story.primary
    if story.kind == "burst_left" and e is not None:
        v28, r_v28 = c.velocity()
        was, r_was = c.velocity(before=True)
        stars, r_e = c.gained(e)
        recent, r_recent = c.signal("velocity_7d", story.day)
        now, r_now = c.ordinary("now")
        before, r_before = c.ordinary("before")
        if story.mostly:
            tail = (
                f"its other days slowed too, from {_pace(before)} to {_pace(now)} a day "
                f"{ref(r_before, r_now)}, and its last 7 days ran at {_pace(recent)} "
                f"{ref(r_recent)}"
            )
        else:
            tail = f"its last 7 days ran at {_pace(recent)} stars/day {ref(r_recent)}"
        # the two paces as shown, not their difference: a difference of the stored values can
        # round away from the difference of the figures the note shows
        moved = "rose" if v28 is not None and was is not None and v28 > was else "fell"
        return Md(
            f"{link}'s 28-day pace {moved} from {_pace(was)} to {_pace(v28)} stars/day "
            f"{ref(r_was, r_v28)} {'mostly ' if story.mostly else ''}because a burst of "
            f"{_stars(stars)} stars on {days_text(e.first, e.last)} {ref(r_e)} left the window; "
            f"{tail}."
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


def leaving_bursts(story: Story, on: date) -> list[Episode]:
    """The runs of unusual gains inside the 28 days to the story's day (bursts, and runs of spike
    days too small to move the pace on their own) that leave the 28-day window by `on`: the 28-day
    pace of `on` no longer counts them."""
    return sorted(
        (
            e
            for e in story.episodes + story.small
            if e.kind in ("burst", "small")
            and e.window == "now"
            and e.last + timedelta(days=WINDOW) <= on
        ),
        key=lambda e: e.first,
    )


def burst_leaving_sentence(
    store: Store, book: ReceiptBook, story: Story, on: date, threshold: float
) -> Md | None:
    """For a card asking whether the 28-day pace on `on` is above `threshold`: one sentence when
    today's pace carries unusual gains that leave the window before `on` (None otherwise): the
    gains and when they leave, the pace of its other days (the figures "What moved" gives, with
    the same receipts) and what that pace means against the threshold. Facts only: the answer
    stays the model's."""
    bursts = leaving_bursts(story, on)
    if not bursts or story.kind == "no_data":
        return None
    c = StoryReceipts(store, book, story)
    other, r_other = c.ordinary("now")
    if other is None:
        return None
    gains = []
    for e in bursts:
        stars, r_e = c.gained(e)
        gains.append(f"{_stars(stars)} stars of {days_text(e.first, e.last)} {ref(r_e)}")
    leaves = max(e.last for e in bursts) + timedelta(days=WINDOW)
    what = gains[0] if len(gains) == 1 else ", ".join(gains[:-1]) + " and the " + gains[-1]
    when = "on" if len(bursts) == 1 else "by"
    text = (
        f"The {what} leave the 28-day window {when} {days_text(leaves, leaves)}; its other days "
        f"ran {_pace(other)} a day {ref(r_other)}, "
    )
    asked = f"{num(threshold, 2)} on {days_text(on, on)}"
    # how far apart they are, from the figures as shown (a reader redoes it from them)
    shown, bar = shown_value(other, 1), shown_value(threshold, 2)
    if shown > bar:
        text += (
            f"{pct(shown / bar - 1)} above the {num(threshold, 2)} asked for {days_text(on, on)}"
        )
    elif shown <= 0:
        text += f"so to be above {asked} it must gain stars again"
    else:
        ratio = bar / shown
        faster = f"{ratio:.1f} times as fast as" if ratio >= 2 else f"{pct(ratio - 1)} faster than"
        text += f"so to be above {asked} it must run {faster} they did"
    last_week = windows(story.day)["7d"][0]
    if all(e.last < last_week for e in story.unusual):  # the last 7 days are all ordinary
        recent, r_recent = c.signal("velocity_7d", story.day)
        if recent is not None:
            text += f"; its last 7 days ran {_pace(recent)} {ref(r_recent)}"
    return Md(text + ".")
