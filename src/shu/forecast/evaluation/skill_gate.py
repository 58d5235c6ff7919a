"""Which template x horizon has demonstrated skill: the gate before shu chooses one for a card.

A template x horizon has demonstrated skill when its walk-forward backtest, recorded with the
shipped model (`models/forecaster.json`, key `backtest.slices["<template>/<horizon>"]`, written
by `shu train --backtest FILE.json`; the ROCm backtest's slices are merged into the same file),
puts the 95% block-bootstrap interval of its skill above zero against every baseline it has:
- yes/no templates: Brier skill vs climatology (`ci95.bss_climatology`) and, where the slice
  has a persistence baseline, vs persistence (`ci95.bss_persistence`);
- interval templates: CRPS skill vs persistence with its empirical spread
  (`ci95.crps_skill_persistence`).
No recorded backtest, an unscored slice (too few events: its `status`) or a lower bound at or
below zero is no demonstrated skill, and `reason` says which in one plain sentence.

Held-back templates are still issued, resolved and scored (their track record can earn them a
new backtest); the briefing does not choose them for a card, and a question the user declared
still gets its card, marked "no demonstrated skill".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from shu.forecast.models.artifact import CARD_JSON

# Baselines per kind of slice: (name in prose, key under ci95).
BINARY_BASELINES = (("climatology", "bss_climatology"), ("persistence", "bss_persistence"))
INTERVAL_BASELINES = (("persistence", "crps_skill_persistence"),)


@dataclass(frozen=True)
class Skill:
    """The gate's verdict for one template x horizon."""

    template: str
    horizon_days: int
    demonstrated: bool
    reason: str  # one plain sentence: why it is, or is not, shown as a card chosen by shu
    # baseline -> {"value", "low", "high"}: the walk-forward skill and its 95% interval
    against: dict[str, dict[str, float]] = field(default_factory=dict)


def read_backtest_slices(models_dir: Path) -> dict[str, dict]:
    """The backtest slices recorded with the model in `models_dir` ({} when none)."""
    path = Path(models_dir) / CARD_JSON
    if not path.exists():
        return {}
    card = json.loads(path.read_text(encoding="utf-8"))
    return (card.get("backtest") or {}).get("slices") or {}


def judge(template: str, horizon_days: int, metrics: dict | None) -> Skill:
    """The verdict for one template x horizon from its backtest slice (None: not backtested)."""
    key = f"{template}/{horizon_days}"
    if not metrics:
        return Skill(
            template,
            horizon_days,
            False,
            f"no walk-forward backtest of {key} is recorded with the model",
        )
    if not metrics.get("n"):
        why = metrics.get("status") or "no question of it was scored"
        return Skill(template, horizon_days, False, f"{key} was not scored: {why}")
    ci = metrics.get("ci95") or {}
    kind, baselines = (
        ("CRPS", INTERVAL_BASELINES) if "coverage" in metrics else ("Brier", BINARY_BASELINES)
    )
    against = {name: ci[k] for name, k in baselines if k in ci}
    if not against:
        return Skill(
            template,
            horizon_days,
            False,
            f"the backtest of {key} has no confidence interval for its {kind} skill",
        )
    failed = [
        f"{name} ({_interval(against[name])})" for name in against if not against[name]["low"] > 0
    ]
    if failed:
        return Skill(
            template,
            horizon_days,
            False,
            f"{kind} skill of {key} not above zero against " + " and ".join(failed),
            against,
        )
    shown = " and ".join(f"{name} ({_interval(v)})" for name, v in against.items())
    return Skill(
        template, horizon_days, True, f"{kind} skill of {key} above zero against {shown}", against
    )


def demonstrated_skill(template: str, horizon_days: int, models_dir: Path) -> Skill:
    """Whether shu may choose `template` x `horizon_days` for a card (see the module docstring).

    Example: ``demonstrated_skill("rocm_first_commit", 90, Path("models")).demonstrated`` is
    False, and its ``reason`` reads "Brier skill of rocm_first_commit/90 not above zero against
    climatology (-0.235 [-0.441, -0.079]) and persistence (...)".
    """
    return judge(
        template, horizon_days, read_backtest_slices(models_dir).get(f"{template}/{horizon_days}")
    )


def _interval(v: dict[str, float]) -> str:
    return f"{v['value']:+.3f} [{v['low']:+.3f}, {v['high']:+.3f}]"
