"""Replay: run the daily forecast stages for past days on the data as it was on each day.

For each day D in [from, to]: the model is refitted on refit days (the first replayed day and
the first of every month after it) with `train_forecasters(as_of=R - 1)`, i.e. only on origins
up to the day before and outcomes known by then; forecasts are issued as of D for the tracked
repositories (`issue_forecasts(origin=D)`: features read only rows on or before D); and every
forecast whose horizon has passed by D is resolved (`resolve_forecasts(as_of=D)`: rules read
only rows up to the resolution day). So each forecast is issued and resolved as it would have
been, out of sample, and the briefing's track record on `to` is real.

Signals are computed once for the whole store: every signal on a day is defined from
observations on or before it (ASOF counts, trailing windows), so the rows of day D are what
`shu signals` would have written on D. Replayed forecasts carry a model_version starting
`REPLAY_PREFIX` (their resolutions join on forecast_id), and each run is recorded in
`replay_runs`. A question already forecast by a replay on that day is not issued again (even
when this run's refit gives another model version: another start day or template set), so a
re-run over the same or overlapping days adds no forecasts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

import pandas as pd

from shu.errors import InputError, StoreError
from shu.forecast.features.star import data_through
from shu.forecast.live.issue import issue_forecasts
from shu.forecast.live.resolve import resolve_forecasts
from shu.forecast.models.split import TrainingConfig
from shu.forecast.models.train import train_forecasters
from shu.forecast.questions.registry import HORIZONS, TEMPLATES
from shu.settings import Settings
from shu.store import Store, utcnow

REPLAY_PREFIX = "replay-"


@dataclass
class ReplayResult:
    """What a replay did."""

    run_id: str
    day_from: date
    day_to: date
    refit_days: list[date] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    issued: int = 0
    resolved: dict[str, int] = field(default_factory=lambda: {"yes": 0, "no": 0, "void": 0})
    skipped: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0


def refit_days(start: date, end: date) -> list[date]:
    """`start` and the first day of every month in (start, end]."""
    days, day = [start], date(start.year, start.month, 1)
    while True:
        day = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        if day > end:
            return days
        days.append(day)


def replay(
    store: Store,
    start: date,
    end: date,
    settings: Settings,
    templates: tuple[str, ...] = tuple(TEMPLATES),
    horizons: tuple[int, ...] = HORIZONS,
    config: TrainingConfig | None = None,
    log: Callable[[str], None] = print,
    every_days: int = 1,
) -> ReplayResult:
    """Replay the days `start`..`end` (see the module docstring); returns what it wrote.

    With `every_days` > 1 forecasts are issued only on `start` and every `every_days` days after
    it (weekly origins for the breakout radar, whose features over every repository cost
    seconds a day); resolution still runs every day.

    InputError when `end` is before `start` or after the last day with star data.
    """
    if end < start:
        raise InputError(f"--to {end} is before --from {start}")
    if every_days < 1:
        raise InputError(f"--every {every_days}: issue on every day (1) or every N days")
    last = data_through(store.con)
    if end > last:
        raise InputError(f"--to {end} is after the last day with star data ({last})")
    t0 = time.perf_counter()
    started = utcnow()
    result = ReplayResult(run_id=uuid.uuid4().hex[:16], day_from=start, day_to=end)
    refits = set(refit_days(start, end))
    forecasters: list = []
    version = ""
    day = start
    while day <= end:
        if day in refits:
            forecasters, version = _refit(store, day, templates, horizons, config, result, log)
        if forecasters and (day - start).days % every_days == 0:
            issued = issue_forecasts(
                store,
                origin=day,
                settings=settings,
                forecasters=forecasters,
                model_version=version,
                once_per=REPLAY_PREFIX,
            )
            result.issued += len(issued)
        counts = resolve_forecasts(store, as_of=day)
        for outcome in ("yes", "no", "void"):
            result.resolved[outcome] += counts.get(outcome, 0)
        day += timedelta(days=1)
    result.wall_s = time.perf_counter() - t0
    store.upsert(
        "replay_runs",
        pd.DataFrame(
            [
                {
                    "run_id": result.run_id,
                    "day_from": start,
                    "day_to": end,
                    "refit_days": sorted(result.refit_days),
                    "model_versions": result.versions,
                    "forecasts_issued": result.issued,
                    "resolutions_written": sum(result.resolved.values()),
                    "wall_s": round(result.wall_s, 1),
                    "started_at": started,
                    "finished_at": utcnow(),
                }
            ]
        ),
    )
    log(
        f"replayed {start}..{end}: {result.issued:,} forecasts issued, "
        f"{sum(result.resolved.values()):,} resolved, {len(result.refit_days)} refits, "
        f"{result.wall_s:.0f} s"
    )
    return result


def _refit(
    store: Store,
    day: date,
    templates: tuple[str, ...],
    horizons: tuple[int, ...],
    config: TrainingConfig | None,
    result: ReplayResult,
    log: Callable[[str], None],
) -> tuple[list, str]:
    """Train on outcomes known the day before `day`; the replay model version."""
    as_of = day - timedelta(days=1)
    t0 = time.perf_counter()
    try:
        trained = train_forecasters(
            store,
            templates,
            horizons,
            config,
            log=lambda _m: None,
            as_of=as_of,
        )
    except StoreError as exc:
        result.skipped[str(day)] = str(exc)
        log(f"refit on {day}: nothing trainable ({exc}); no forecasts until the next refit")
        return [], ""
    version = REPLAY_PREFIX + trained.version
    result.refit_days.append(day)
    result.versions.append(version)
    for key, why in trained.skipped.items():
        result.skipped[f"{day} {key}"] = why
    log(
        f"refit on {day} (outcomes known by {as_of}): {len(trained.forecasters)} models, "
        f"{time.perf_counter() - t0:.0f} s"
    )
    return trained.forecasters, version
