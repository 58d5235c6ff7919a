"""Today's forecasts as `shu forecast` and the daily flow issue them: the tracked repositories'
questions, the declared ones and the breakout radar, with the settings passed in."""

from __future__ import annotations

from datetime import date

from shu.forecast.live.issue import IssuedForecast, issue_forecasts
from shu.settings import Settings
from shu.store import Store


def issue(
    store: Store, settings: Settings, as_of: date | None, resolving_after: date | None = None
) -> list[IssuedForecast]:
    """Issue the forecasts as of `as_of` (None: the last day with star data) with the model in
    `settings.models_dir`; with `resolving_after` (today, when no day was asked for) only the
    questions that resolve after it. The forecasts newly written (none on a same-day re-run)."""
    return issue_forecasts(store, origin=as_of, settings=settings, resolving_after=resolving_after)
