"""The briefing's head: the synthetic-data banner, the title, the day, data day and model
versions, notices (e.g. "GitHub unreachable") and the tracked repositories whose data is stale."""

from __future__ import annotations

from shu.briefing.context import BriefingContext, Part
from shu.safe_markdown import Md, safe_inline
from shu.store import utcnow

NOTICE_MAX_CHARS = 400  # a notice may quote outside text (an error message): keep it short


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
        )
    )
