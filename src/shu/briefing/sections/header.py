"""The briefing's head: the synthetic-data banner, the title, the day, data day and model
versions, notices (e.g. "GitHub unreachable") and the tracked repositories whose data is stale."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import REPLAYED_WORDS, day_text
from shu.forecast.records import resolved_replayed
from shu.safe_markdown import Md, safe_inline
from shu.store import utcnow

NOTICE_MAX_CHARS = 400  # a notice may quote outside text (an error message): keep it short
STALE_MODEL_DAYS = 60  # a model whose data ends this long before the briefing's day says so


def model_age(ctx: BriefingContext, versions: list[str]) -> str | None:
    """'models trained on data through <day>, N days before this briefing' when the model card
    beside the model (its version among `versions`) says the shown forecasts' models saw no data
    for STALE_MODEL_DAYS or more before the briefing's day; None otherwise."""
    from shu.forecast.models.artifact import CARD_JSON

    path = Path(ctx.settings.models_dir) / CARD_JSON
    if not path.exists():
        return None
    card = json.loads(path.read_text(encoding="utf-8"))
    if card.get("version") not in versions:
        return None
    asked = {f"{f['template']}/{f['horizon_days']}" for f in ctx.forecasts}
    ends = [
        date.fromisoformat(m["trained_through"])
        for key, m in card.get("models", {}).items()
        if key in asked and m.get("trained_through")
    ]
    if not ends or (ctx.as_of - max(ends)).days < STALE_MODEL_DAYS:
        return None
    newest = max(ends)
    return (
        f"models trained on data through {day_text(newest)}, "
        f"{(ctx.as_of - newest).days} days before this briefing"
    )


def record_source(ctx: BriefingContext) -> str | None:
    """Where the track record comes from when replayed forecasts are in it (None when every
    resolved forecast was published at the time)."""
    replayed, resolved = resolved_replayed(ctx.store, ctx.as_of)
    if not replayed:
        return None
    return f"track record {'' if replayed == resolved else 'partly '}from {REPLAYED_WORDS}"


def build(ctx: BriefingContext) -> Part:
    """The title block down to the first section."""
    versions = sorted({f["model_version"] for f in ctx.forecasts if f["model_version"]})
    return Part(
        ctx.render(
            "sections/header.md.j2",
            synthetic=ctx.synthetic,
            title=ctx.title,
            day=ctx.as_of,
            as_of=None if ctx.no_data else ctx.data_through,
            generated_at=utcnow().replace(microsecond=0),
            model_versions=versions,
            model_age=model_age(ctx, versions),
            notices=[Md(safe_inline(n, max_chars=NOTICE_MAX_CHARS)) for n in ctx.notices],
            stale=[] if ctx.no_data else ctx.stale,  # no data at all: nothing is stale
            record_source=record_source(ctx),
        )
    )
