"""A backtest slice seen block by block: the figures pooled scores hide, and the worst block.

Origins are cut into consecutive blocks of `BLOCK_WEEKS` weeks from the backtest's first origin
(the refit blocks when refitting every 8 weeks). Per block:
- yes/no slices: n, base rate, mean probability, ECE (equal-count bins, as `scoring.ece`), the
  top and bottom decile of p (mean p, observed frequency and gap = mean p - observed), the largest
  |gap| over all ten deciles, and per confidence band (max(p, 1 - p): low/medium/high) n, hit
  rate and mean confidence;
- interval slices: n, coverage of the 50/80/95% intervals, and 80% coverage per band of the
  28-day velocity on the origin (`interval.VELOCITY_BANDS`, stars/day).
The worst block is the one furthest outside its targets, in multiples of each target's
tolerance: yes/no max(ECE / `ECE_TARGET`, largest decile |gap| / `DECILE_TOLERANCE`); interval
the largest |80% coverage - 0.80| / `COVERAGE_TOLERANCE` over the block and each velocity band
with at least `MIN_BAND_ROWS` rows. `miss` is that multiple (> 1: outside a target). Only
blocks with at least `MIN_WORST_ORIGINS` weekly origins compete for worst (a block cut short by
a data gap, e.g. the single origin 2021-09-08 before the 2021-10 .. 12 gap, is listed but would
name one week's noise).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from shu.forecast.confidence import BANDS, confidence_bands
from shu.forecast.evaluation import interval_scores
from shu.forecast.evaluation.scoring import ece, equal_count_bins
from shu.forecast.models import interval

BLOCK_WEEKS = 8
ECE_TARGET = 0.02
DECILE_TOLERANCE = 0.05  # every decile's mean p within 0.05 of its observed frequency
COVERAGE_TOLERANCE = 0.03  # 80% intervals: 0.77-0.83
MIN_BAND_ROWS = 100
MIN_WORST_ORIGINS = 4


def block_index(
    origins: pd.Series, anchor: pd.Timestamp, block_weeks: int = BLOCK_WEEKS
) -> np.ndarray:
    """Block number of each origin: whole `block_weeks`-week steps since `anchor`."""
    days = (pd.to_datetime(origins) - pd.Timestamp(anchor)).dt.days.to_numpy()
    return days // (7 * block_weeks)


def _span(origins: pd.Series) -> dict:
    return {
        "origins": [
            str(pd.Timestamp(origins.min()).date()),
            str(pd.Timestamp(origins.max()).date()),
        ],
        "n_origins": int(pd.Series(origins).nunique()),
    }


def decile_table(outcomes: np.ndarray, probabilities: np.ndarray) -> list[dict]:
    """Per equal-count tenth of p (lowest first): n, mean p, observed frequency and gap."""
    o = np.asarray(outcomes, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    bins = equal_count_bins(p, 10)
    rows = []
    for k in range(10):
        m = bins == k
        if m.any():
            rows.append(
                {
                    "n": int(m.sum()),
                    "mean_probability": float(p[m].mean()),
                    "observed": float(o[m].mean()),
                    "gap": float(p[m].mean() - o[m].mean()),
                }
            )
    return rows


def binary_block(outcomes: np.ndarray, probabilities: np.ndarray) -> dict:
    """The figures of one block of yes/no forecasts (see the module docstring)."""
    o = np.asarray(outcomes, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    deciles = decile_table(o, p)
    bands = confidence_bands(p)
    right = (p >= 0.5) == (o == 1)
    out = {
        "n": len(o),
        "base_rate": float(o.mean()),
        "mean_probability": float(p.mean()),
        "ece": ece(o, p),
        "top_decile": deciles[-1],
        "bottom_decile": deciles[0],
        "max_decile_gap": max(abs(d["gap"]) for d in deciles),
        "bands": {},
    }
    for band in BANDS:
        m = bands == band
        out["bands"][band] = {
            "n": int(m.sum()),
            "hit_rate": float(right[m].mean()) if m.any() else math.nan,
            "mean_confidence": float(np.maximum(p[m], 1 - p[m]).mean()) if m.any() else math.nan,
        }
    out["miss"] = max(out["ece"] / ECE_TARGET, out["max_decile_gap"] / DECILE_TOLERANCE)
    return out


def interval_block(observed: np.ndarray, quantiles: np.ndarray, velocity: np.ndarray) -> dict:
    """The figures of one block of interval forecasts (see the module docstring)."""
    y = np.asarray(observed, dtype=float)
    band = interval.velocity_band(velocity)
    coverage = interval_scores.coverage(y, quantiles)
    by_velocity: dict[str, dict[str, Any]] = {}
    out: dict[str, Any] = {"n": len(y), "coverage": coverage, "coverage_by_velocity": by_velocity}
    misses = [abs(out["coverage"]["0.8"] - 0.8)]
    for k, label in enumerate(interval.VELOCITY_BANDS):
        m = band == k
        if not m.any():
            continue
        cov = interval_scores.coverage(y[m], quantiles[m])["0.8"]
        by_velocity[label] = {"n": int(m.sum()), "coverage_80": cov}
        if m.sum() >= MIN_BAND_ROWS:
            misses.append(abs(cov - 0.8))
    out["miss"] = max(misses) / COVERAGE_TOLERANCE
    return out


def binary_blocks(pred: pd.DataFrame, anchor: pd.Timestamp, block_weeks: int = BLOCK_WEEKS) -> dict:
    """{"block_weeks", "blocks": [...], "worst": the block with the largest miss} for a frame
    with origin, probability and label."""
    idx = block_index(pred["origin"], anchor, block_weeks)
    blocks = []
    for k in np.unique(idx):
        part = pred[idx == k]
        row = _span(part["origin"])
        row.update(binary_block(part["label"].to_numpy(), part["probability"].to_numpy()))
        blocks.append(row)
    return _with_worst(blocks, block_weeks)


def interval_blocks(
    pred: pd.DataFrame, quantiles: np.ndarray, anchor: pd.Timestamp, block_weeks: int = BLOCK_WEEKS
) -> dict:
    """The same for interval forecasts: a frame with origin, observed_value and velocity_28d,
    and its (rows, len(QUANTILES)) predictive quantiles."""
    idx = block_index(pred["origin"], anchor, block_weeks)
    blocks = []
    for k in np.unique(idx):
        m = idx == k
        part = pred[m]
        row = _span(part["origin"])
        row.update(
            interval_block(
                part["observed_value"].to_numpy(), quantiles[m], part["velocity_28d"].to_numpy()
            )
        )
        blocks.append(row)
    return _with_worst(blocks, block_weeks)


def _with_worst(blocks: list[dict], block_weeks: int) -> dict:
    whole = [b for b in blocks if b["n_origins"] >= MIN_WORST_ORIGINS] or blocks
    worst = max(whole, key=lambda b: b["miss"]) if whole else None
    return {"block_weeks": block_weeks, "blocks": blocks, "worst": worst}


def describe_worst(key: str, blocks: dict) -> str:
    """One line naming a slice's worst block and its figures (for `shu backtest`'s output)."""
    w = blocks.get("worst")
    if not w:
        return f"{key}: no block"
    span = f"{w['origins'][0]}..{w['origins'][1]}"
    if "ece" in w:
        top, bottom = w["top_decile"], w["bottom_decile"]
        return (
            f"{key} worst {blocks['block_weeks']}-week block {span} (n={w['n']:,}): ECE "
            f"{w['ece']:.4f}, top decile {top['mean_probability']:.3f} -> "
            f"{top['observed']:.3f}, bottom decile {bottom['mean_probability']:.3f} -> "
            f"{bottom['observed']:.3f}, largest decile gap {w['max_decile_gap']:.3f}"
        )
    bands = ", ".join(f"{b} {v['coverage_80']:.3f}" for b, v in w["coverage_by_velocity"].items())
    return (
        f"{key} worst {blocks['block_weeks']}-week block {span} (n={w['n']:,}): 80% "
        f"coverage {w['coverage']['0.8']:.3f}; by velocity band {bands}"
    )
