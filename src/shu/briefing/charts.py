"""Briefing charts (matplotlib, Agg backend, PNG next to the markdown).

- `velocity_chart`: 28-day star velocity and acceleration of the headline repositories over the
  last 180 days, with each acceleration-threshold forecast drawn as a dashed line across its
  horizon.
- `reliability_chart`: observed frequency against forecast probability in equal-count bins,
  with the diagonal and the count per bin.
- `rocm_chart`: a ROCm card's chart: the repository's 90-day ROCm share of mainline commits over
  the last year, its releases whose notes mention ROCm, and the card's forecast (the share it
  asks about, or the window a ROCm release is asked for) with its probability.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from shu.forecast.features import rocm
from shu.settings import ROCM_PATTERN
from shu.store import Store

HISTORY_DAYS = 180


def slug(text: str) -> str:
    """`text` as part of a chart's file name."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def velocity_chart(
    store: Store, repos: list[str], as_of: date, forecasts: list[dict[str, Any]], path: Path
) -> Path:
    """Velocity/acceleration panels for `repos` up to `as_of`, with forecast thresholds."""
    fig, (ax_v, ax_a) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, dpi=100)
    start = as_of - timedelta(days=HISTORY_DAYS)
    drawn = False
    for i, repo in enumerate(repos):
        rows = store.con.execute(
            "SELECT day, velocity_28d, acceleration_28d FROM star_signals WHERE repo = ? AND "
            "day > ? AND day <= ? ORDER BY day",
            [repo, start, as_of],
        ).fetchall()
        if not rows:
            continue
        drawn = True
        color = f"C{i}"
        days = [r[0] for r in rows]
        ax_v.plot(days, [r[1] for r in rows], color=color, label=repo)
        ax_a.plot(days, [r[2] for r in rows], color=color, label=repo)
        for f in forecasts:
            if f["repo"] == repo and f["template"] == "star_accel_reach":
                ax_a.hlines(
                    f["threshold"],
                    f["origin"],
                    f["resolves_on"],
                    colors=color,
                    linestyles="dashed",
                    label=f"{repo} ≥ {f['threshold']:+.2f} by {f['resolves_on']} "
                    f"(p={f['probability']:.2f})",
                )
    ax_v.set_ylabel("velocity 28d (stars/day)")
    ax_a.set_ylabel("acceleration 28d (stars/day)")
    ax_a.axhline(0, color="grey", linewidth=0.5)
    ax_v.set_title(f"Star velocity and acceleration to {as_of}; dashed: forecast thresholds")
    if drawn:
        ax_v.legend(fontsize=8, loc="upper left")
        ax_a.legend(fontsize=7, loc="upper left")
    else:
        ax_v.text(0.5, 0.5, "no star signals stored", ha="center", transform=ax_v.transAxes)
    fig.text(
        0.01, 0.01, "Source: shu store, tables star_signals and forecasts", fontsize=7, color="grey"
    )
    fig.autofmt_xdate()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path


def reliability_chart(
    pairs: list[tuple[float, int]], path: Path, title: str, bins: int = 10
) -> Path:
    """Reliability diagram of (probability, outcome) pairs in equal-count bins."""
    fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="dotted", label="perfect calibration")
    ordered = sorted(pairs)
    n = len(ordered)
    if n:
        k = min(bins, n)
        xs, ys, counts = [], [], []
        for b in range(k):
            chunk = ordered[b * n // k : (b + 1) * n // k]
            if chunk:
                xs.append(sum(p for p, _ in chunk) / len(chunk))
                ys.append(sum(y for _, y in chunk) / len(chunk))
                counts.append(len(chunk))
        ax.plot(xs, ys, marker="o", label=f"resolved forecasts (n = {n:,})")
        for x, y, c in zip(xs, ys, counts, strict=True):
            ax.annotate(str(c), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    else:
        ax.text(0.5, 0.5, "no resolved forecasts yet", ha="center")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("forecast probability")
    ax.set_ylabel("observed frequency")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    fig.text(
        0.01,
        0.01,
        "Source: shu store, forecasts and forecast_resolutions",
        fontsize=7,
        color="grey",
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path


def rocm_chart(
    store: Store, forecast: dict[str, Any], as_of: date, path: Path, history_days: int = 365
) -> Path:
    """The ROCm card's chart for `forecast` (a ROCm template's question) up to `as_of`."""
    repo = forecast["repo"]
    start = as_of - timedelta(days=history_days)
    share = rocm.share_series(store.con, repo, start, as_of)
    releases = store.con.execute(
        "SELECT published_at::DATE FROM releases WHERE repo = ? AND published_at >= ? AND "
        "published_at < ? AND regexp_matches(coalesce(name, '') || chr(10) || "
        "coalesce(body, ''), ?) ORDER BY 1",
        [repo, start, as_of + timedelta(days=1), f"(?i)({ROCM_PATTERN})"],
    ).fetchall()
    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
    ax.plot(
        share["day"],
        100 * share["share_90d"],
        color="C3",
        label="ROCm share of mainline commits, 90 days (%)",
    )
    for i, (day,) in enumerate(releases):
        ax.axvline(
            day,
            color="C2",
            linewidth=0.8,
            alpha=0.7,
            label="release mentioning ROCm" if i == 0 else None,
        )
    p = forecast["probability"]
    if forecast["template"] == "rocm_share_reach":
        ax.hlines(
            100 * forecast["threshold"],
            forecast["origin"],
            forecast["resolves_on"],
            colors="C1",
            linestyles="dashed",
            label=f"asked: reaches {100 * forecast['threshold']:.1f}% by "
            f"{forecast['resolves_on']} (p = {p:.2f})",
        )
    else:
        ax.axvspan(
            forecast["origin"],
            forecast["resolves_on"],
            color="C1",
            alpha=0.15,
            label=f"asked: {forecast['template'].replace('_', ' ')} by "
            f"{forecast['resolves_on']} (p = {p:.2f})",
        )
    ax.set_xlim(start, forecast["resolves_on"])  # type: ignore[arg-type]  # dates: matplotlib converts them
    ax.set_ylim(bottom=0)
    ax.set_ylabel("share of commits (%)")
    ax.set_title(f"{repo}: ROCm share of mainline commits to {as_of} and the forecast", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    fig.text(
        0.01,
        0.01,
        "Source: shu store, tables commits, releases and forecasts",
        fontsize=7,
        color="grey",
    )
    fig.autofmt_xdate()
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path
