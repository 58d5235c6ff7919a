"""The breakout radar as every reader gets it: the top repositories by probability of a
breakout that the topic filter keeps, why the radar is empty when it is, and the one JSON shape
of its entries (`RadarEntry.as_json`), for `shu radar`, the notebook API and the briefing. The
default is here, once: the repositories outside the tracked list (setting `repos`), through the
topic filter, as the briefing's "Breaking out" shows them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from shu.forecast.radar.entries import RadarEntry, RadarScope, radar, radar_scope, why_empty
from shu.forecast.radar.topics import radar_keywords
from shu.settings import Settings
from shu.store import Store


@dataclass
class RadarView:
    """The radar on a day: its entries, what the topic filter kept and left out, and why no
    forecast is there to show (None when there is one)."""

    entries: list[RadarEntry]
    scope: RadarScope
    why_empty: str | None

    def left_out(self) -> str | None:
        """The line saying how many repositories the topic filter left out (None if none)."""
        if not self.scope.keywords or not self.scope.n_left_out:
            return None
        return (
            f"left out {self.scope.n_left_out:,} of {self.scope.n_forecast:,} repositories "
            "whose name and description carry none of the radar's keywords (radar_keywords)"
        )

    def as_json(self) -> list[dict[str, Any]]:
        """Every entry in the one JSON shape (`RadarEntry.as_json`)."""
        return [e.as_json() for e in self.entries]


def radar_view(
    store: Store,
    settings: Settings,
    day: date | None,
    top: int,
    tracked: bool = False,
    filtered: bool = True,
) -> RadarView:
    """The `top` repositories of the newest star_breakout forecasts on or before `day` (None:
    the newest), leaving out the tracked ones unless `tracked` and, when `filtered`, those whose
    name and description carry none of the radar's keywords (setting `radar_keywords`)."""
    exclude = [] if tracked else [r.repo for r in settings.repos]
    keywords = radar_keywords(settings) if filtered else ()
    scope = radar_scope(store, keywords, day, top, exclude=exclude)
    only = scope.kept if keywords else None
    entries = radar(store, day, top, exclude=exclude, only=only)
    why = None if scope.n_forecast else why_empty(store, day, settings.models_dir, exclude)
    return RadarView(entries, scope, why)
