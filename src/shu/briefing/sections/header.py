"""The briefing's head: the synthetic-data banner, the title, the day, data day and model
versions, notices (e.g. "GitHub unreachable") and the tracked repositories whose data is stale."""

from __future__ import annotations

from shu.briefing.context import BriefingContext, Part
from shu.briefing.facts import REPLAYED_WORDS, resolved_replayed
from shu.safe_markdown import Md, safe_inline
from shu.store import utcnow

NOTICE_MAX_CHARS = 400  # a notice may quote outside text (an error message): keep it short


def record_source(ctx: BriefingContext) -> str | None:
    """Where the track record comes from when replayed forecasts are in it (None when every
    resolved forecast was published at the time)."""
    replayed, resolved = resolved_replayed(ctx.store, ctx.day)
    if not replayed:
        return None
    return f"track record {'' if replayed == resolved else 'partly '}from {REPLAYED_WORDS}"


def build(ctx: BriefingContext) -> Part:
    """The title block down to the first section."""
    return Part(
        ctx.render(
            "sections/header.md.j2",
            synthetic=ctx.synthetic,
            title=ctx.title,
            day=ctx.day,
            as_of=None if ctx.no_data else ctx.as_of,
            generated_at=utcnow().replace(microsecond=0),
            model_versions=sorted(
                {f["model_version"] for f in ctx.forecasts if f["model_version"]}
            ),
            notices=[Md(safe_inline(n, max_chars=NOTICE_MAX_CHARS)) for n in ctx.notices],
            stale=[] if ctx.no_data else ctx.stale,  # no data at all: nothing is stale
            record_source=record_source(ctx),
        )
    )
