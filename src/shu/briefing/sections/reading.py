""" "How to read this", first in the appendix: the few terms the note still needs, each in one
or two plain sentences (the body uses no other method term)."""

from __future__ import annotations

from shu.briefing.context import BriefingContext, Part


def build(ctx: BriefingContext) -> Part:
    """The glossary (appendix only)."""
    return Part("", appendix=ctx.render("sections/reading.md.j2"))
