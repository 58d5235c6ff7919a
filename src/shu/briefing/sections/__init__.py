"""The briefing's sections, one module each, in the order the briefing shows them.

A section module holds its data query and its rendering together and provides one function:

    def build(ctx: BriefingContext) -> Part

It reads what it shows from the store through `ctx` (`shu.briefing.context`: the store, the
briefing's day and data day, settings, and the facts several sections share, such as the
forecasts the cards headline), cites every number through `ctx.book` (the receipt book), writes
any chart beside the markdown (`ctx.out_dir`, listed in `ctx.charts` when the briefing's result
should name it) and returns its markdown, rendered from `templates/sections/<name>.md.j2` with
`ctx.render`: a heading, its body, and the blank line before the next section. What it keeps
out of the body (full tables, the receipts) goes in `Part.appendix`, which the briefing shows
after the body in `APPENDIX` order (collapsed on the HTML page); a section shown only after the
body (the bookkeeping: calibration watch, probe, claims) returns an empty `markdown`. Outside
text goes through `shu.safe_markdown`; the templates escape any string that is not shu's `Md`.

To add a section: write `sections/<name>.py` with `build` and its template, and put the module in
`SECTIONS` where it belongs in the body and/or in `APPENDIX` when it has a part after the body.
Sections are built in that order (the body's first) except the two kept apart in `BUILT_FIRST`
and `BUILT_LAST` (receipts are numbered in the order they are first cited).
"""

from __future__ import annotations

from types import ModuleType

from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections import (
    calibration_watch,
    cards,
    claims,
    field,
    glance,
    header,
    moved,
    probe,
    radar,
    reading,
    receipts,
    rocm_ecosystem,
    signals,
    since,
    track,
)

# The body: what the reader needs first, in the order it shows (everything before the appendix).
SECTIONS: tuple[ModuleType, ...] = (
    header,  # title, data day, notices, stale data
    glance,  # At a glance: what matters in a few sentences, and one row per repository
    field,  # The field by category: which kind of project gains attention against which
    since,  # Since the last briefing (nothing on a first briefing)
    moved,  # What moved: each repository's story, from its causes
    radar,  # Breaking out: the radar's top untracked repositories
    cards,  # Forecasts
    rocm_ecosystem,  # ROCm across the ecosystem (how it is counted: in the appendix)
    track,  # How sure the forecasts have been: one line, pointing to the full record below
)
# After the body, in this order: how to read the note, the full tables, then shu's own
# bookkeeping (the calibration watch with the regime guard, the full track record, the probe's
# runs and the claims checked against them; sections with no body part), the receipts last.
APPENDIX: tuple[ModuleType, ...] = (
    reading,
    field,
    radar,
    cards,
    signals,
    rocm_ecosystem,
    calibration_watch,
    track,
    probe,
    claims,
    receipts,
)
# The cards are built first so that each card's receipts are one run of numbers from its first
# (R1 on the first card), which the card lists at its end.
BUILT_FIRST: tuple[ModuleType, ...] = (cards,)
# The receipt list is built last: it lists what every other section cited.
BUILT_LAST: tuple[ModuleType, ...] = (receipts,)


def build_sections(ctx: BriefingContext) -> tuple[list[Part], list[Part]]:
    """Every section's part in the body's order, and the parts in the appendix's order."""
    every = dict.fromkeys((*SECTIONS, *APPENDIX))  # the body's first, in order, once each
    middle = [s for s in every if s not in BUILT_FIRST + BUILT_LAST]
    built = {s.__name__: s.build(ctx) for s in (*BUILT_FIRST, *middle, *BUILT_LAST)}
    return [built[s.__name__] for s in SECTIONS], [built[s.__name__] for s in APPENDIX]
