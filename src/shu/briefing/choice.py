"""Which forecast a repository's card headlines, among those issued for it at one origin.

Shared by the sections that show the headline forecast: at a glance, what moved (its chart) and
the cards themselves.
"""

from __future__ import annotations

import math
from typing import Any

from shu.briefing.facts import fit_base_rate
from shu.forecast.interval import TEMPLATE as INTERVAL
from shu.settings import Settings

TEMPLATE_PREFERENCE = ("star_accel_reach", "star_velocity_up", "star_gain",
                       "commit_velocity_up", "release_within")
HEADLINE_DEPARTURE = 0.4  # log-odds between a forecast and its base rate to count as informative


def headline_forecasts(forecasts: list[dict[str, Any]], tracked: list[str],
                       settings: Settings) -> list[dict[str, Any]]:
    """One forecast per tracked repository, among its star questions at the horizon nearest 30
    days (interval forecasts lead the card instead, see `card.interval`): the question whose
    answer is least known beforehand (fitting base rate nearest 0.5) among those where the model
    departs from that base rate by at least HEADLINE_DEPARTURE in log-odds; when none departs,
    the largest departure. Without a model card, the first template in TEMPLATE_PREFERENCE."""
    chosen = []
    for repo in tracked:
        mine = [f for f in forecasts if f["repo"] == repo and f["template"] != INTERVAL]
        if not mine:
            continue
        nearest = min(abs(f["horizon_days"] - 30) for f in mine)
        candidates = [f for f in mine if abs(f["horizon_days"] - 30) == nearest]
        stars = [f for f in candidates if f["template"].startswith("star_")] or candidates

        def rank(f: dict[str, Any]) -> tuple:
            base = fit_base_rate(settings, f["template"], f["horizon_days"], f["model_version"])
            departure = abs(_logit(f["probability"]) - _logit(base.rate)) if base else 0.0
            uncertainty = abs(base.rate - 0.5) if base else 0.5
            preference = (TEMPLATE_PREFERENCE.index(f["template"])
                          if f["template"] in TEMPLATE_PREFERENCE else len(TEMPLATE_PREFERENCE))
            return (departure < HEADLINE_DEPARTURE, uncertainty if departure >=
                    HEADLINE_DEPARTURE else -departure, preference, f["forecast_id"])

        chosen.append(min(stars, key=rank))
    return chosen


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))
