"""A card's line on the calibration state its forecast was issued with (the
forecast's `calibration` column, written by `issue_forecasts`), citing its
`forecast_calibration` row."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from shu.briefing.text import pct
from shu.forecast.calibration.guard import GUARD_FROM
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.store import Store


def regime_words(distance: float | None, said: set[str] | None = None) -> str:
    """The store's regime on the forecast's day in plain words: whether many more (or fewer)
    repositories than usual were losing stars, with the guard's own measure and where it acts
    (`guard.GUARD_FROM`). Said once per note (`said` holds what the note has stated): empty
    after that, the first card's line having said it."""
    fact = f"regime {distance}"
    if said is not None and fact in said:
        return ""
    if said is not None:
        said.add(fact)
    if distance is None:
        return (
            "how many repositories were losing stars could not be told from usual "
            "(too few repositories or too little history)"
        )
    if distance >= GUARD_FROM:
        how = "many more repositories than usual were losing stars"
    elif distance <= -GUARD_FROM:
        how = "fewer repositories than usual were losing stars"
    else:
        how = "about as many repositories as usual were losing stars"
    return (
        f"{how} ({distance:.1f} on the regime guard's scale, where 0 is usual and the guard "
        f"acts from {GUARD_FROM:.0f})"
    )


def calibration_line(
    store: Store, book: ReceiptBook, f: dict[str, Any], said: set[str] | None = None
) -> Md | None:
    """One sentence for the card of forecast `f` (None for forecasts issued without one). The
    levels are cited as their `forecast_calibration` row stores them (the forecast's own copy
    is rounded). The store's regime is said once per note (`said`, see `regime_words`), and a
    row's levels once: a later card citing the same row refers to the first."""
    if not f.get("calibration"):
        return None
    state = json.loads(f["calibration"])
    key = state["row"]
    distance = state.get("regime_distance")
    regime = regime_words(distance, said)
    origin = date.fromisoformat(key["origin"])
    if "levels" in state:
        levels = state["levels"]
        stored = store.con.execute(
            "SELECT levels FROM forecast_calibration WHERE origin = ? AND model_version = ? AND "
            "template = ? AND horizon_days = ? AND band = ?",
            [origin, key["model_version"], key["template"], key["horizon_days"], key["band"]],
        ).fetchone()
        r = book.row(
            "forecast_calibration",
            key,
            "levels",
            stored[0] if stored else json.dumps(levels),
            origin,
            f"{f['repo']} online conformal levels",
        )
        read = (
            f"from the questions resolved through {state['resolved_through']}"
            if state.get("resolved_through")
            else "before any question had resolved"
        )
        if said is not None and f"calibration R{r}" in said:  # the same row: said on a card above
            return Md(f"Calibration: read as on a card above [R{r}].")
        if said is not None:
            said.add(f"calibration R{r}")
        widen = state.get("widen", 1.0)
        return Md(
            f"Calibration: {_lead(regime)}80% range between the {100 * levels[1]:.1f}th and "
            f"{100 * levels[5]:.1f}th percentiles of past errors, as repositories of "
            f"{key['band']} stars/day needed {read}"
            + (f", and widened {pct(widen - 1)} by the regime guard" if widen > 1 else "")
            + f" [R{r}]."
        )
    r = book.row(
        "forecast_calibration",
        key,
        "shrink",
        state.get("shrink"),
        origin,
        f"{f['repo']} regime guard",
    )
    if state.get("applies"):
        # the rate its model was calibrated on (stored as "base_rate" by forecasts issued before
        # it was named apart from the climatology the card shows)
        rate = state.get("calibration_block_rate", state.get("base_rate"))
        return Md(
            f"Calibration: {regime + ', so ' if regime else ''}the regime guard held this "
            "forecast of a "
            f"repository losing stars closer to the rate its model was calibrated on "
            f"({pct(rate)}), keeping {pct(state['shrink'])} of its distance from it "
            f"(on the odds scale) [R{r}]."
        )
    if not regime:
        return Md(f"Calibration: the model's own answer [R{r}].")
    return Md(
        f"Calibration: {regime}; the regime guard left this forecast as the model gave it [R{r}]."
    )


def _lead(regime: str) -> str:
    return f"{regime}; " if regime else ""
