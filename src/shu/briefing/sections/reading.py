""" "How to read this", first in the appendix: the few terms the note still needs, each in one
or two plain sentences (the body uses no other method term)."""

from __future__ import annotations

from shu.briefing.card.earned import RECORD_ENOUGH
from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.calibration_watch import DEPARTED, MASS_LOSS_TIMES
from shu.forecast.models.tail import TOP_K, WINDOW_ORIGINS


def build(ctx: BriefingContext) -> Part:
    """The glossary (appendix only), with the thresholds it names as the code sets them."""
    return Part(
        "",
        appendix=ctx.render(
            "sections/reading.md.j2",
            departed_points=round(100 * DEPARTED),
            mass_loss_times=f"{MASS_LOSS_TIMES:g}",
            record_enough=RECORD_ENOUGH,
            tail_top=TOP_K,
            tail_weeks=WINDOW_ORIGINS,
        ),
    )
