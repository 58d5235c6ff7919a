"""The page a briefing is when the store holds no data on or before its day: it says so, and
names the commands that load data (`shu.store.LOAD_COMMANDS`), instead of a page of dashes that
looks like a quiet day. Built after the header, in place of every other section."""

from __future__ import annotations

from shu.briefing.context import BriefingContext, Part
from shu.briefing.data import KEYS
from shu.safe_markdown import Md, safe_code, safe_inline
from shu.store import LOAD_COMMANDS, NO_DATA


def build(ctx: BriefingContext) -> Part:
    """Why there is nothing to brief, and what loads data."""
    first = ctx.first_data_day
    reason = (
        f"{NO_DATA[0].upper()}{NO_DATA[1:]}"
        if first is None
        else f"The store's data starts on {first}, after this briefing's day"
    )
    return Part(
        ctx.render(
            "sections/no_data.md.j2",
            reason=reason,
            notices=bool(ctx.notices),
            commands=[(command, _words(what)) for command, what in LOAD_COMMANDS],
        ),
        data={"no_data": reason, "notes": {key: f"no data: {reason}" for key in KEYS}},
    )


def _words(text: str) -> Md:
    """shu's own words with `backticked` commands shown as code spans (every other string a
    template prints is escaped, backticks included)."""
    out = []
    for i, part in enumerate(text.split("`")):
        if i % 2:
            out.append(safe_code(part))
            continue
        words = safe_inline(part)
        lead = " " if part.startswith(" ") else ""
        trail = " " if part.endswith(" ") and words else ""
        out.append(lead + words + trail)
    return Md("".join(out))
