"""What a repository's story reads from the store, and the SELECTs behind the numbers it shows.

`story_of(store, repo, day)` reads the repository's observed star counts from the facts layer
(`star_days`, computed by `shu signals`), its releases and the store-wide event days
(`market_spikes`), and tells its story (`stories.detect`), with the path of its 28-day pace
(`pace_path`). The SELECTs (`gained_sql`, `ordinary_sql`, `loss_days_sql`) re-read each number
a story shows from `star_days`, so the briefing cites them as query receipts; `loss_verdict`
weighs the losing days `loss_days_sql` counts against the store-wide share.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Any

from shu.signals.market_spikes import store_wide_days
from shu.signals.pace_path import pace_path
from shu.signals.stories import MAX_GAP_DAYS, WINDOW, Episode, Story, detect
from shu.store import Store


def stored_counts(store: Store, repo: str, first: date, day: date) -> dict[date, float]:
    """`repo`'s observed star counts from `first` to `day` (absent days unobserved)."""
    return {
        d: float(s)
        for d, s in store.con.execute(
            "SELECT day, stars FROM star_days WHERE repo = ? AND day >= ? AND day <= ? "
            "AND observed",
            [repo, first, day],
        ).fetchall()
    }


def story_of(store: Store, repo: str, day: date) -> Story:
    """`repo`'s story on `day`, from its stored daily counts and releases (nothing after `day`)."""
    first = day - timedelta(days=2 * WINDOW + MAX_GAP_DAYS + 1)
    counts = stored_counts(store, repo, first, day)
    releases = [
        (tag, published.date())
        for tag, published in store.con.execute(
            "SELECT tag, published_at FROM releases WHERE repo = ? AND published_at >= ? AND "
            "published_at < ?",
            [repo, first, day + timedelta(days=1)],
        ).fetchall()
    ]
    events = {d: kind for d, (kind, *_counts) in store_wide_days(store.con, first, day).items()}
    story = detect(repo, counts, day, releases, events)
    story.path = pace_path(store.con, repo, day)
    return story


def loss_days_sql(repo: str, first: date, last: date) -> tuple[tuple[str, str], list[Any]]:
    """The SELECTs of `repo`'s day-to-day changes from `first` to `last` (a count observed on the
    day and the day before, as the store-wide share counts them): how many fell, and how many
    there were; both take the same parameters."""
    steps = "FROM star_days WHERE repo = ? AND day BETWEEN ? AND ? AND days_since_previous = 1"
    params: list[Any] = [repo, first, last]
    return (
        f"SELECT count(*) FILTER (WHERE change < 0) {steps}",
        f"SELECT count(*) {steps}",
    ), params


# The SELECTs behind the numbers a story shows (cited as query receipts): the latest count on
# or before a day, stars gained over days, and the mean gain of a window's ordinary days.
STARS_AT = "(SELECT arg_max(stars, day) FROM star_days WHERE repo = ? AND day <= ? AND observed)"


def gained_sql(repo: str, first: date, last: date) -> tuple[str, list[Any]]:
    """Stars gained from `first` to `last` (both included): count(last) - count(first - 1)."""
    return (
        f"SELECT {STARS_AT} - {STARS_AT}",
        [repo, last, repo, first - timedelta(days=1)],
    )


def ordinary_sql(
    repo: str, first: date, last: date, episodes: list[Episode]
) -> tuple[str, list[Any]]:
    """The mean daily gain of the days `first`..`last` outside `episodes` (clipped to them)."""
    terms, params = [f"{STARS_AT} - {STARS_AT}"], [repo, last, repo, first - timedelta(days=1)]
    n = (last - first).days + 1
    for e in episodes:
        a, b = max(e.first, first), min(e.last, last)
        if a > b:
            continue
        terms.append(f"- ({STARS_AT} - {STARS_AT})")
        params += [repo, b, repo, a - timedelta(days=1)]
        n -= (b - a).days + 1
    return f"SELECT ({' '.join(terms)}) / {max(n, 1)}.0", params


LOSS_TAIL = 0.05  # a repository's losing days beyond the store-wide share: binomial tail below


def loss_verdict(lost_days: int, steps: int, share: float) -> str:
    """How a repository's days with a falling count weigh against the store's: 'none' when it
    lost stars on none of its `steps` day-to-day changes; 'beyond' when losing on `lost_days` or
    more of them is less than LOSS_TAIL likely were each day a loss with the store-wide `share`
    (the share of repository-days whose count fell, `market_regime.share_falling_7d`); else
    'in line'."""
    if lost_days <= 0:
        return "none"
    p = min(max(share, 0.0), 1.0)
    tail = sum(
        math.comb(steps, k) * p**k * (1 - p) ** (steps - k) for k in range(lost_days, steps + 1)
    )
    return "beyond" if tail < LOSS_TAIL else "in line"
