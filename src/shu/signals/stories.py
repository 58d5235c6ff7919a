"""What happened to a repository's star pace, told by its cause.

The 28-day acceleration (`velocity_28d(t) - velocity_28d(t - 28)`) moves for reasons a reader
must tell apart: a few days of unusual gains entering or leaving the 28-day window move it as
much as a real change of pace does. `detect(repo, counts, day, releases)` reads the
repository's observed star counts of the 56 days to `day` and its releases, and says which of
these it was (the cases are defined in docs/design.md, "Stories"; `story_reads.story_of` reads
them from the facts layer's `star_days`):

- `burst_left`: a burst (up to `RUN_MAX_DAYS` days of unusual gains) in the 28 days before the
  window left it, so the 28-day pace fell though the repository did not slow down;
- `spike` / `burst`: one day (a spike) or a few days (a burst) of unusual gains inside the
  window lift the 28-day pace until they leave it, 28 days later;
- `release`: such a burst that began within `RELEASE_LEAD_DAYS` days after a release;
- `star_removal`: days on which the count fell (stars removed, e.g. GitHub purging accounts),
  inside the window or leaving it;
- `pace_down` / `pace_up`: a real change of pace: the ordinary days (the days outside any run of
  spike days, however small, and any removal) of the last 28 ran at least `PACE_CHANGE`
  below/above those of the 28 before, and the ordinary days of the last 7 agree;
- `steady`: none of these moves the pace by `STEADY_SHARE` of its ordinary level; when the
  oldest week of the window ran at least `WEEK_LEAVING_SHARE` above or below the 28-day pace,
  the story names it (`Story.week_leaving`): it leaves the window within 7 days;
- `no_data`: a gap of more than 7 days in the counts leaves the windows undefined.

A run of spike days (of removal days) at least half of whose days are store-wide spike (removal)
days (`market_spikes`: many of the store's repositories at once) is the store's event, not the
repository's: it is kept apart (`Story.store_wide`), is no cause of the story and no shared
burst, and its days are not ordinary days.

The 28-day acceleration splits exactly into the change of the ordinary pace and each episode's
effect (its gains above the ordinary day of its window, over 28, with a minus sign for the
window before); the story is the largest of them. Every number a story shows is re-read with
its SELECT (`story_reads.gained_sql`, `story_reads.ordinary_sql`) so it can be cited as a query
receipt.

These are facts of a window, not of a day: a spike day is one against the median gain of the
56 days to the story's day, so they are computed per story from `star_days`, not stored.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import pairwise
from typing import Any

from shu.signals.pace_path import PacePath

WINDOW = 28
MAX_GAP_DAYS = 7  # more unobserved days than this in a row: the windows are undefined
RUN_MAX_DAYS = 7  # a run of unusual days longer than this is a change of pace, not a burst
RELEASE_LEAD_DAYS = 3  # a burst starting this many days after a release (or on its day) follows it
# A spike day (what a reader sees as a spike in the chart, whatever its size against other
# repositories) gains at least max(SPIKE_TIMES x the ordinary day, the ordinary day + CORE_MIN)
# stars; a run of them extends to neighbouring days of at least ordinary + max(ordinary, EDGE_MIN).
SPIKE_TIMES, CORE_MIN, EDGE_MIN = 2.0, 10.0, 5.0
# An episode matters when it brings at least max(SIGNIFICANT_DAYS ordinary days, SIGNIFICANT_MIN)
# stars above the ordinary (a removal: loses that many).
SIGNIFICANT_DAYS, SIGNIFICANT_MIN = 5.0, 10.0
REMOVAL_MIN = 3.0  # a removal day loses at least max(half an ordinary day, REMOVAL_MIN) stars
PACE_CHANGE = 0.15  # relative change of the ordinary pace that counts as a change of pace
PACE_CONFIRM = 0.10  # the last 7 ordinary days must sit this far on the same side
PACE_MIN = 0.3  # stars/day: smaller changes of the ordinary pace are noise
# bursts on the same days in several repositories: the ordinary pace of each moved at least this
# share of its earlier level, all the same way, is a change beneath the shared burst
SHARED_CHANGE = 0.10
STEADY_SHARE = 0.10  # a cause smaller than this share of the ordinary pace leaves it steady
# a steady pace whose oldest week in the window ran at least this share above / below the 28-day
# pace: that week leaves the window within 7 days, and the story says so
WEEK_LEAVING_SHARE = 0.25

KINDS = (
    "burst_left",
    "spike",
    "burst",
    "release",
    "star_removal",
    "pace_down",
    "pace_up",
    "steady",
    "no_data",
)


@dataclass(frozen=True)
class Episode:
    """Consecutive days of unusual gains (a burst) or of lost stars (a removal)."""

    kind: str  # "burst", "removal", or "small": spike days too small to move the pace
    first: date
    last: date
    stars: float  # net stars over those days
    excess: float  # stars above the window's ordinary days over those days (negative: below)
    window: str  # "now": in the 28 days to the day; "before": in the 28 days before them
    effect: float  # what it does to the 28-day acceleration, stars/day
    release: tuple[str, date] | None = None  # (tag, published day) of the release it followed

    @property
    def days(self) -> int:
        return (self.last - self.first).days + 1


@dataclass
class Story:
    """A repository's star pace on `day` and what moved it."""

    repo: str
    day: date
    kind: str
    velocity_28d: float | None = None
    velocity_28d_before: float | None = None  # on day - 28
    velocity_7d: float | None = None
    median_gain: float | None = None  # the ordinary day of the 56 days to `day`
    ordinary_now: float | None = None  # mean gain of the ordinary days of the last 28
    ordinary_before: float | None = None  # ... of the 28 before them
    ordinary_7d: float | None = None  # ... of the last 7
    first_week: float | None = None  # mean gain of the window's oldest 7 days (all of them)
    pace_change: str | None = None  # "down" / "up" when the ordinary pace changed (confirmed)
    effect: float = 0.0  # the primary cause's share of the acceleration, stars/day
    episodes: list[Episode] = field(default_factory=list)
    # runs of spike days that bring too few stars to move the pace: named, and (as every burst's)
    # their days are not ordinary days
    small: list[Episode] = field(default_factory=list)
    gap: tuple[date, date] | None = None  # the unobserved days, for `no_data`
    # "down" / "up": one of several tracked repositories that burst on the same days and all ran
    # slower / faster on their other days (`shared_underneath`; set by `mark_shared`)
    shared: str | None = None
    # runs of spike (removal) days that fell on store-wide spike (removal) days
    # (`market_spikes`): the store's event, not this repository's, so no cause of its story;
    # their days are not ordinary days either
    store_wide: list[Episode] = field(default_factory=list)
    path: PacePath | None = None  # the 28-day pace's last 91 days (`pace_path`, by `story_of`)

    @property
    def acceleration_28d(self) -> float | None:
        if self.velocity_28d is None or self.velocity_28d_before is None:
            return None
        return self.velocity_28d - self.velocity_28d_before

    @property
    def primary(self) -> Episode | None:
        """The episode the story is about (None for a change of pace, steady or no data)."""
        if self.kind in ("burst_left", "spike", "burst", "release", "star_removal"):
            return max(self.episodes, key=lambda e: abs(e.effect))
        return None

    @property
    def window_bursts(self) -> list[Episode]:
        """Bursts inside the last 28 days (they hold the 28-day pace up until they leave)."""
        return [e for e in self.episodes if e.kind == "burst" and e.window == "now"]

    @property
    def store_wide_now(self) -> list[Episode]:
        """The runs on store-wide event days inside the last 28 days: the stored 28-day pace
        (and any rank or forecast read from it) counts them."""
        return [e for e in self.store_wide if e.window == "now"]

    @property
    def net_pace(self) -> float | None:
        """The 28-day pace without the store-wide event days inside the window (the stored
        28-day pace when there are none): what the repository itself gained a day."""
        runs, v28 = self.store_wide_now, self.velocity_28d
        if v28 is None or not runs:
            return v28
        days = WINDOW - sum(min(e.days, WINDOW) for e in runs)
        return (v28 * WINDOW - sum(e.stars for e in runs)) / max(days, 1)

    @property
    def net_departs(self) -> bool:
        """Whether the 28-day pace, net of store-wide event days, sits at least PACE_CHANGE of
        the pace of 28 days before away from it: near its pace only with the store's event."""
        net, before = self.net_pace, self.velocity_28d_before
        if not self.store_wide_now or net is None or before is None:
            return False
        return abs(net - before) >= PACE_CHANGE * max(before, 1.0)

    @property
    def named_small(self) -> list[Episode]:
        """The runs of spike days too small to move the pace that the story names: those inside
        the last 28 days (the chart shows them beside the 28-day pace they sit in)."""
        return [e for e in self.small if e.window == "now"]

    @property
    def unusual(self) -> list[Episode]:
        """Every run of days that is not ordinary: the episodes, the smaller runs of spike days
        and the runs on store-wide event days (in both windows)."""
        return self.episodes + self.small + self.store_wide

    @property
    def reference(self) -> float:
        """The earlier ordinary pace (at least 1): what a cause's size is weighed against."""
        return max(self.ordinary_before or 0.0, 1.0)

    @property
    def underneath(self) -> str | None:
        """'down' / 'up' when the ordinary days of the last 28 ran at least max(PACE_CHANGE of
        the earlier, PACE_MIN) below / above those of the 28 before, whether the last 7 days
        confirm it or not (a confirmed one is `pace_change`)."""
        if self.pace_change:
            return self.pace_change
        if self.ordinary_now is None or self.ordinary_before is None:
            return None
        change = self.ordinary_now - self.ordinary_before
        if abs(change) < max(PACE_CHANGE * self.reference, PACE_MIN):
            return None
        return "down" if change < 0 else "up"

    @property
    def mostly(self) -> bool:
        """Whether an episode is the story and the ordinary days moved the same way as the
        28-day pace too: both causes hold, the episode's the larger."""
        acc = self.acceleration_28d
        under = self.underneath
        return (
            self.primary is not None
            and under is not None
            and acc is not None
            and (acc < 0) == (under == "down")
        )

    @property
    def turn(self) -> str | None:
        """'up' / 'down' when the ordinary days changed pace over the 28 days but the last 7
        turned back: unconfirmed, and the last 7 ordinary days sit at least PACE_CONFIRM (of the
        earlier pace) above / below the ordinary days of the last 28."""
        under = self.underneath
        if under is None or self.pace_change or self.ordinary_7d is None:
            return None
        back = self.ordinary_7d - (self.ordinary_now or 0.0)
        if abs(back) < PACE_CONFIRM * self.reference or (back > 0) == (under == "up"):
            return None
        return "up" if back > 0 else "down"

    @property
    def beside(self) -> list[Episode]:
        """Episodes other than the story's own that move the 28-day pace by at least
        STEADY_SHARE of the earlier ordinary pace (for a change of pace: every such episode),
        the largest first."""
        own = self.primary
        return sorted(
            (
                e
                for e in self.episodes
                if e is not own and abs(e.effect) >= STEADY_SHARE * self.reference
            ),
            key=lambda e: -abs(e.effect),
        )

    @property
    def oldest_week(self) -> tuple[date, date]:
        """The first and last of the window's oldest 7 days (the first to leave it)."""
        first = self.day - timedelta(days=WINDOW - 1)
        return first, first + timedelta(days=6)

    @property
    def week_leaving(self) -> str | None:
        """'up' / 'down' when the story is steady and the oldest 7 days of the window (the first
        to leave it) ran at least WEEK_LEAVING_SHARE above / below the 28-day pace; else None."""
        v28, week = self.velocity_28d, self.first_week
        if self.kind != "steady" or v28 is None or week is None or v28 <= 0:
            return None
        if abs(week / v28 - 1) < WEEK_LEAVING_SHARE:
            return None
        return "up" if week > v28 else "down"

    @property
    def is_artefact(self) -> bool:
        """Whether what moved the 28-day pace is a few days of counts, not the pace itself."""
        return self.primary is not None


def spike_day(gain: float, ordinary: float) -> bool:
    """Whether a day's `gain` is a spike: at least SPIKE_TIMES times the `ordinary` day (the
    median gain) and CORE_MIN stars more than it; the one definition of an unusual day, whatever
    the repository's size against others."""
    return gain >= max(SPIKE_TIMES * ordinary, ordinary + CORE_MIN)


def detect(
    repo: str,
    counts: dict[date, float],
    day: date,
    releases: list[tuple[str, date]] | None = None,
    store_wide: dict[date, str] | None = None,
) -> Story:
    """The story of `repo` on `day` from its observed star counts (day -> count; absent days
    unobserved), its releases ((tag, published day)) and the store-wide event days (day ->
    'spike' or 'removal', `market_spikes.store_wide_days`); see the module docstring."""
    first = day - timedelta(days=2 * WINDOW)
    seen = sorted(d for d in counts if d <= day)
    base = [d for d in seen if d <= first]
    if not base or first - base[-1] > timedelta(days=MAX_GAP_DAYS) or seen[-1] < first:
        return Story(repo, day, "no_data", gap=_longest_gap(seen, first, day))
    points = [base[-1], *[d for d in seen if d > first]]
    for a, b in pairwise(points):
        if (b - a).days > MAX_GAP_DAYS + 1:
            return Story(repo, day, "no_data", gap=(a + timedelta(days=1), b - timedelta(days=1)))
    gains = _daily_gains(counts, points, first, day)  # day -> stars, for first+1 .. day
    days = sorted(gains)
    before = days[:WINDOW]
    now = days[WINDOW:]
    median = statistics.median(gains.values())
    ordinary = max(median, 0.0)
    runs = _runs(gains, days, lambda g: spike_day(g, ordinary))
    runs = [
        _extend(r, gains, days, ordinary + max(ordinary, EDGE_MIN))
        for r in runs
        if len(r) <= RUN_MAX_DAYS
    ]
    runs = [r for r in _merge(runs) if len(r) <= RUN_MAX_DAYS]
    significant = max(SIGNIFICANT_DAYS * ordinary, SIGNIFICANT_MIN)
    bursts = [r for r in runs if sum(gains[d] - median for d in r) >= significant]
    small = [r for r in runs if r not in bursts]
    removals = _runs(gains, days, lambda g: g < 0 and -g >= max(0.5 * ordinary, REMOVAL_MIN))
    removals = [
        r
        for r in removals
        if len(r) <= RUN_MAX_DAYS
        and -sum(gains[d] for d in r) >= max(2 * ordinary, SIGNIFICANT_MIN)
    ]
    # one rule for every repository: no day of a run of spike days (however small) or of a
    # removal is an ordinary day
    unusual = {d for r in bursts + small + removals for d in r}
    # a run at least half of whose days the whole store spiked (lost stars) on is the store's
    events = store_wide or {}
    shared = [
        (kind, r)
        for kind, found, event in (
            ("burst", bursts, "spike"),
            ("small", small, "spike"),
            ("removal", removals, "removal"),
        )
        for r in found
        if 2 * sum(events.get(d) == event for d in r) >= len(r)
    ]
    bursts = [r for r in bursts if ("burst", r) not in shared]
    small = [r for r in small if ("small", r) not in shared]
    removals = [r for r in removals if ("removal", r) not in shared]

    def ordinary_mean(window: list[date]) -> float | None:
        plain = [gains[d] for d in window if d not in unusual]
        return sum(plain) / len(plain) if plain else None

    story = Story(
        repo,
        day,
        "steady",
        velocity_28d=sum(gains[d] for d in now) / WINDOW,
        velocity_28d_before=sum(gains[d] for d in before) / WINDOW,
        velocity_7d=sum(gains[d] for d in now[-7:]) / 7,
        median_gain=median,
        ordinary_now=ordinary_mean(now),
        ordinary_before=ordinary_mean(before),
        ordinary_7d=ordinary_mean(now[-7:]),
        first_week=sum(gains[d] for d in now[:7]) / 7,
    )
    levels = {
        "now": story.ordinary_now or 0.0,
        "before": story.ordinary_before or 0.0,
    }
    found_runs = [("burst", bursts), ("removal", removals), ("small", small)]
    for kind, found in [*found_runs, *(("store_wide_" + k, [r]) for k, r in shared)]:
        for run in found:
            window = "now" if 2 * sum(d >= now[0] for d in run) > len(run) else "before"
            excess = sum(gains[d] - levels["now" if d >= now[0] else "before"] for d in run)
            effect = sum(
                (gains[d] - levels["now"]) / WINDOW
                if d >= now[0]
                else -(gains[d] - levels["before"]) / WINDOW
                for d in run
            )
            if kind.startswith("store_wide_"):
                kind, into = kind.removeprefix("store_wide_"), story.store_wide
            else:
                into = story.small if kind == "small" else story.episodes
            into.append(
                Episode(
                    kind,
                    run[0],
                    run[-1],
                    sum(gains[d] for d in run),
                    excess,
                    window,
                    effect,
                    _release_before(releases or [], run[0]) if kind != "removal" else None,
                )
            )
    reference = max(story.ordinary_before or 0.0, 1.0)
    change = None
    if story.ordinary_now is not None and story.ordinary_before is not None:
        change = story.ordinary_now - story.ordinary_before
        if (
            abs(change) >= max(PACE_CHANGE * reference, PACE_MIN)
            and story.ordinary_7d is not None
            and (story.ordinary_7d - story.ordinary_before) * change > 0
            and abs(story.ordinary_7d - story.ordinary_before) >= PACE_CONFIRM * reference
        ):
            story.pace_change = "down" if change < 0 else "up"
    causes: list[tuple[float, str]] = [(e.effect, _kind(e)) for e in story.episodes]
    if story.pace_change and change is not None:
        causes.append((change, f"pace_{story.pace_change}"))
    if causes:
        effect, kind = max(causes, key=lambda c: abs(c[0]))
        if abs(effect) >= STEADY_SHARE * reference:
            story.kind, story.effect = kind, effect
    return story


def _burst_days(stories: list[Story]) -> dict[str, set[date]]:
    """Each repository's days inside one of its runs of spike days (a burst, or one too small to
    move its pace: a spike a reader sees in the chart is named all the same)."""
    return {
        s.repo: {
            e.first + timedelta(days=k)
            for e in s.episodes + s.named_small
            if e.kind in ("burst", "small")
            for k in range(e.days)
        }
        for s in stories
    }


def shared_bursts(stories: list[Story]) -> dict[str, list[str]]:
    """For each repository, the other repositories among `stories` with spike days on some of
    the same days as one of its own: several repositories gaining at once on the same days is an
    event of the market (or of the counts), not of one repository."""
    days = _burst_days(stories)
    return {
        repo: [other for other in days if other != repo and mine & days[other]]
        for repo, mine in days.items()
        if mine
    }


def shared_underneath(stories: list[Story], group: list[str]) -> str | None:
    """'down' / 'up' when every repository of `group` (a set of `burst_groups`, two or more) ran
    slower / faster on its ordinary days than in the 28 days before, each by at least
    max(SHARED_CHANGE of its earlier ordinary pace (at least 1), PACE_MIN) stars/day: several
    repositories agreeing is what lets a smaller change than one repository's PACE_CHANGE count;
    else None."""
    members = [s for s in stories if s.repo in group]
    sides = set()
    for s in members:
        if s.ordinary_now is None or s.ordinary_before is None:
            return None
        change = s.ordinary_now - s.ordinary_before
        if abs(change) < max(SHARED_CHANGE * s.reference, PACE_MIN):
            return None
        sides.add("down" if change < 0 else "up")
    return sides.pop() if len(sides) == 1 and len(members) > 1 else None


def burst_groups(stories: list[Story]) -> list[tuple[list[str], date, date]]:
    """The repositories among `stories` that burst on the same days, each group once (in the
    order of `stories`: repositories linked through shared burst days), with the first and last
    of the days on which at least two of them burst; a repository sharing no day is in none."""
    days = _burst_days(stories)
    shared = shared_bursts(stories)
    out: list[tuple[list[str], date, date]] = []
    placed: set[str] = set()
    for s in stories:
        if s.repo in placed or not shared.get(s.repo):
            continue
        group, todo = [], [s.repo]
        while todo:
            repo = todo.pop(0)
            if repo in group:
                continue
            group.append(repo)
            todo.extend(shared.get(repo, []))
        group = [t.repo for t in stories if t.repo in group]
        placed.update(group)
        common = sorted(
            d
            for d in set().union(*(days[r] for r in group))
            if sum(d in days[r] for r in group) > 1
        )
        out.append((group, common[0], common[-1]))
    return out


def _kind(e: Episode) -> str:
    if e.kind == "removal":
        return "star_removal"
    if e.window == "before":
        return "burst_left"
    if e.release is not None:
        return "release"
    return "spike" if e.days == 1 else "burst"


def _longest_gap(seen: list[date], first: date, day: date) -> tuple[date, date] | None:
    """The longest run of unobserved days in [first, day] (None when every day is observed)."""
    marks = [first - timedelta(days=1), *[d for d in seen if first <= d <= day]]
    marks.append(day + timedelta(days=1))
    best = max(pairwise(marks), key=lambda ab: (ab[1] - ab[0]).days)
    if (best[1] - best[0]).days <= 1:
        return None
    return best[0] + timedelta(days=1), best[1] - timedelta(days=1)


def _daily_gains(
    counts: dict[date, float], points: list[date], first: date, day: date
) -> dict[date, float]:
    """Stars gained on each day of (first, day]; a count seen after unobserved days is spread
    evenly over them (the last count carries to `day` when `day` itself is unobserved)."""
    gains: dict[date, float] = {}
    for a, b in pairwise(points):
        per_day = (counts[b] - counts[a]) / (b - a).days
        for k in range(1, (b - a).days + 1):
            d = a + timedelta(days=k)
            if first < d <= day:
                gains[d] = per_day
    d = points[-1] + timedelta(days=1)
    while d <= day:
        gains[d] = 0.0
        d += timedelta(days=1)
    return gains


def _runs(gains: dict[date, float], days: list[date], unusual: Any) -> list[list[date]]:
    """Runs of consecutive days whose gain is `unusual`."""
    runs: list[list[date]] = []
    for d in days:
        if unusual(gains[d]):
            if runs and runs[-1][-1] == d - timedelta(days=1):
                runs[-1].append(d)
            else:
                runs.append([d])
    return runs


def _extend(run: list[date], gains: dict[date, float], days: list[date], edge: float) -> list[date]:
    """`run` with its neighbouring days of at least `edge` stars added, up to RUN_MAX_DAYS."""
    out = list(run)
    while len(out) < RUN_MAX_DAYS:
        left, right = out[0] - timedelta(days=1), out[-1] + timedelta(days=1)
        options = [d for d in (left, right) if d in gains and gains[d] >= edge]
        if not options:
            break
        pick = max(options, key=lambda d: gains[d])
        out = [pick, *out] if pick == left else [*out, pick]
    return out


def _merge(runs: list[list[date]]) -> list[list[date]]:
    """Runs that overlap or touch, joined."""
    out: list[list[date]] = []
    for run in sorted(runs):
        if out and run[0] <= out[-1][-1] + timedelta(days=1):
            out[-1] = sorted(set(out[-1]) | set(run))
        else:
            out.append(run)
    return out


def _release_before(releases: list[tuple[str, date]], start: date) -> tuple[str, date] | None:
    """The latest release published on `start` or up to RELEASE_LEAD_DAYS days before it."""
    near = [
        (tag, on)
        for tag, on in releases
        if start - timedelta(days=RELEASE_LEAD_DAYS) <= on <= start
    ]
    return max(near, key=lambda r: (r[1], r[0])) if near else None


def daily_gains(counts: dict[date, float], first: date, day: date) -> dict[date, float]:
    """Stars gained on each day of (first, day] that the counts cover without a gap of more
    than MAX_GAP_DAYS unobserved days (a count after unobserved days spread evenly over them)."""
    seen = sorted(d for d in counts if d <= day)
    gains: dict[date, float] = {}
    for a, b in pairwise(seen):
        if (b - a).days <= MAX_GAP_DAYS + 1 and b > first:
            gains.update(_daily_gains(counts, [a, b], first, b))
    return gains


def windows(day: date) -> dict[str, tuple[date, date]]:
    """The last 28 days to `day`, the 28 before them and the last 7: (first, last) each."""
    return {
        "now": (day - timedelta(days=WINDOW - 1), day),
        "before": (day - timedelta(days=2 * WINDOW - 1), day - timedelta(days=WINDOW)),
        "7d": (day - timedelta(days=6), day),
    }


def mark_shared(stories: list[Story]) -> list[Story]:
    """`stories` with `Story.shared` set on every member of a `burst_groups` group whose
    members all ran slower (or faster) underneath, so every place that names a story (the
    title, the table, the charts, "What moved") tells it the same way."""
    for group, _first, _last in burst_groups(stories):
        under = shared_underneath(stories, group)
        for s in stories:
            if s.repo in group:
                s.shared = under
    return stories
