"""When a probe run was made against a briefing's day: which runs a dated claim check uses,
and the words that say how far the run lies from that day.

The rule (docs/daily-flow.md, "Probe and claims"): a claim checked for a dated briefing uses,
per device or backend, the latest run made on or before the briefing's day, what an analyst
could have known that morning. Only where no run was made by then does it fall back to the
earliest run made after the day, and its verdict then says so ("run made 9 months after this
briefing's day, so not known on it"): a later measurement is still the best evidence there is
about a claim, but it is never presented as if it were known on the day.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Protocol, TypeVar


class _Dated(Protocol):
    @property
    def started_on(self) -> date | None: ...


R = TypeVar("R", bound=_Dated)


def known_first(runs: list[R], day: date | None) -> list[R]:
    """`runs` (newest first) reordered so that the first run matching a claim is the one the
    rule picks: the runs made on or before `day`, newest first, then those made after it,
    oldest first, then undated ones. Unchanged when `day` is None (no briefing day: the latest
    run counts)."""
    if day is None:
        return list(runs)
    by = [r for r in runs if r.started_on is not None and r.started_on <= day]
    after = [r for r in runs if r.started_on is not None and r.started_on > day]
    undated = [r for r in runs if r.started_on is None]
    return by + after[::-1] + undated


def run_made_words(started_at: datetime | None, day: date | None) -> str | None:
    """'run made 3 days before this briefing's day', 'run made on this briefing's day', 'run
    made 9 months after this briefing's day, so not known on it'; None without a day or a
    start time."""
    if started_at is None or day is None:
        return None
    days = (started_at.date() - day).days
    if days == 0:
        return "run made on this briefing's day"
    span = _span(abs(days))
    if days < 0:
        return f"run made {span} before this briefing's day"
    return f"run made {span} after this briefing's day, so not known on it"


def made_after(started_at: datetime | None, day: date | None) -> bool:
    """True when the run was made after the briefing's day."""
    return started_at is not None and day is not None and started_at.date() > day


def _span(days: int) -> str:
    """'1 day', '45 days', '9 months', '2 years': days under 60, months under two years."""
    if days < 60:
        return f"{days} day{'' if days == 1 else 's'}"
    if days < 730:
        return f"{round(days / 30.44)} months"
    return f"{round(days / 365.25)} years"
