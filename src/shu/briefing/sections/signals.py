"""The signals of the tracked repositories, in the appendix: one table row each with its latest
star, peer and commit signals, lifecycle phase, last release and whether its data is stale."""

from __future__ import annotations

from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import num, pct, release_link, repo_link
from shu.safe_markdown import Md
from shu.signals.reads import (
    latest_commit_signals,
    latest_peer_signals,
    latest_phase,
    latest_release,
    latest_star_signals,
)


def build(ctx: BriefingContext) -> Part:
    """The signals table (in the appendix: the stories and cards say what it means)."""
    return Part(
        "",
        appendix=ctx.render(
            "sections/signals.md.j2", signals=[_row(ctx, repo) for repo in ctx.tracked]
        ),
    )


def _row(ctx: BriefingContext, repo: str) -> dict[str, Any]:
    star = latest_star_signals(ctx.store.con, repo, ctx.data_through) or {}
    commit = latest_commit_signals(ctx.store.con, repo, ctx.data_through) or {}
    phase = latest_phase(ctx.store.con, repo, ctx.data_through)
    rel = latest_release(ctx.store.con, repo, ctx.data_through)
    peer = latest_peer_signals(ctx.store.con, repo, ctx.data_through)
    stale = next((s for s in ctx.stale if s["repo"] == repo), None)
    return {
        "repo": repo_link(repo),
        "category": ctx.settings.category_of(repo) or "",
        "day": star.get("day"),
        "stars": Md(num(star.get("stars"))),
        "velocity_7d": Md(num(star.get("velocity_7d"))),
        "velocity_28d": Md(num(star.get("velocity_28d"))),
        "acceleration_28d": Md(num(star.get("acceleration_28d"), signed=True)),
        "z": Md(num(star.get("velocity_28d_z"), signed=True)),
        "commits_28d": Md(num(commit.get("commit_velocity_28d"))),
        "rocm_share": Md(pct(commit.get("rocm_share_28d"), 1)),
        "phase": (
            "—"
            if phase is None
            else f"none fits ({phase.phase} by growth rate, pace at its 91-day {phase.conflict})"
            if phase.conflict
            else phase.phase
        ),
        "peer_rank": (
            Md(f"{peer['category_rank']}/{peer['peers'] + 1}")
            if peer and peer.get("category_rank") is not None
            else Md("—")
        ),
        "last_release": (
            Md(f"{release_link(repo, rel['tag'])} ({rel['published_at'].date()})")
            if rel
            else Md("—")
        ),
        "stale": (
            Md(
                "**stale** (never observed)"
                if stale["last_day"] == "never"
                else f"**stale** (last observed {stale['last_day']})"
            )
            if stale
            else Md("")
        ),
    }
