"""The briefing's sections, one module each, in the order the briefing shows them.

A section module holds its data query and its rendering together and provides one function:

    def build(ctx: BriefingContext) -> Part

It reads what it shows from the store through `ctx` (`shu.briefing.context`: the store, the
briefing's day and data day, settings, and the facts several sections share, such as the
forecasts the cards headline), cites every number through `ctx.book` (the receipt book), writes
any chart beside the markdown (`ctx.out_dir`, listed in `ctx.charts` when the briefing's result
should name it) and returns its markdown, rendered from `templates/sections/<name>.md.j2` with
`ctx.render`: a heading, its body, and the blank line before the next section. Outside text goes
through `shu.safe_markdown`; the templates escape any string that is not shu's own `Md`.

To add a section: write `sections/<name>.py` with `build` and its template, and put the module in
`SECTIONS` where it belongs. Sections are built in `SECTIONS` order except the two kept apart in
`BUILT_FIRST` and `BUILT_LAST` (receipts are numbered in the order they are first cited).
"""

from __future__ import annotations

from types import ModuleType

from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections import (
    calibration_watch,
    cards,
    claims,
    glance,
    header,
    moved,
    probe,
    radar,
    receipts,
    rocm_ecosystem,
    signals,
    track,
)

SECTIONS: tuple[ModuleType, ...] = (
    header,  # title, data day, notices, stale data
    glance,  # At a glance
    radar,  # Breaking out: the radar's top untracked repositories
    moved,  # What moved
    cards,  # Forecasts
    rocm_ecosystem,  # ROCm across the ecosystem
    signals,  # Signals
    probe,  # Probe results and claim checks
    claims,  # Claims checked against the probe
    calibration_watch,  # Calibration watch
    track,  # Track record
    receipts,  # Receipts
)
# The cards are built first so that each card's receipts are one run of numbers from its first
# (R1 on the first card), which the card lists at its end.
BUILT_FIRST: tuple[ModuleType, ...] = (cards,)
# The receipt list is built last: it lists what every other section cited.
BUILT_LAST: tuple[ModuleType, ...] = (receipts,)


def build_sections(ctx: BriefingContext) -> list[Part]:
    """Every section's part, in the briefing's order."""
    middle = [s for s in SECTIONS if s not in BUILT_FIRST + BUILT_LAST]
    built = {s.__name__: s.build(ctx) for s in (*BUILT_FIRST, *middle, *BUILT_LAST)}
    return [built[s.__name__] for s in SECTIONS]
