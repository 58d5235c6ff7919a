"""Today's forecasts as `shu forecast` and the daily flow issue them: the tracked repositories'
questions, the declared ones and the breakout radar, with the settings passed in."""

from __future__ import annotations

from datetime import date

from shu.forecast.live.issue import IssuedForecast, issue_forecasts
from shu.settings import Settings
from shu.store import Store


def issue(store: Store, settings: Settings, day: date | None) -> list[IssuedForecast]:
    """Issue the forecasts as of `day` (None: the last day with star data) with the model in
    `settings.models_dir`; the forecasts newly written (none on a same-day re-run)."""
    return issue_forecasts(store, origin=day, settings=settings)
