"""The briefing's comparison charts: one per category (its repositories' 28-day velocity over the
last 180 days) and one forecast fan per card, written beside the markdown as PNG files."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from shu.briefing.compare import compare_chart, compare_frame, fan_chart
from shu.settings import Settings
from shu.store import Store

HISTORY_DAYS = 180


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def category_charts(store: Store, settings: Settings, as_of: date, out_dir: Path,
                    day: date) -> list[dict[str, Any]]:
    """One velocity comparison chart per configured category that has star signals."""
    out = []
    categories: dict[str, list[str]] = {}
    for r in settings.repos:
        categories.setdefault(r.category, []).append(r.repo)
    for category, repos in categories.items():
        present = [r[0] for r in store.con.execute(
            "SELECT DISTINCT repo FROM star_signals WHERE list_contains(?, repo)",
            [repos]).fetchall()]
        ordered = [r for r in repos if r in present]
        if not ordered:
            continue
        frame = compare_frame(store.con, ordered, "velocity",
                              since=as_of - timedelta(days=HISTORY_DAYS), until=as_of)
        path = out_dir / f"{day}-compare-{_slug(category)}.png"
        compare_chart(frame, "velocity", path, title=(
            f"{category}: 28-day star velocity (stars/day), {HISTORY_DAYS} days to {as_of}"))
        out.append({"category": category, "png": path.name, "repos": ordered})
    return out


def card_fan(store: Store, repo: str, as_of: date, out_dir: Path, day: date) -> tuple[str, bool]:
    """The card's history-and-fan chart; its file name and whether a fan was drawn."""
    path = out_dir / f"{day}-fan-{_slug(repo)}.png"
    _, has_fan = fan_chart(store.con, repo, as_of, path, HISTORY_DAYS)
    return path.name, has_fan
