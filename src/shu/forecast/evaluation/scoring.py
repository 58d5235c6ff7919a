"""Scores for binary probability forecasts: Brier, skill scores, log loss, ECE, Murphy, bands.

Everything is on the 0-1 Brier scale. `outcomes` are 0/1 arrays, `probabilities` in [0, 1].
ECE uses equal-count bins (5 below 1,000 forecasts, 10 from 1,000). The Murphy decomposition is
computed over the same bins (REL - RES + UNC equals the Brier score exactly when forecasts are
constant within each bin; otherwise up to the within-bin variance term). Confidence intervals come
from a block bootstrap whose blocks are (repository x month of origin), so the correlation between
overlapping forecasts on one repository is respected.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from shu.forecast.confidence import BANDS, confidence_bands

LOG_LOSS_EPS = 1e-6


def squared_errors(outcomes: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """Each forecast's Brier score: (probability - outcome)^2 (what `brier` averages)."""
    o, p = _arrays(outcomes, probabilities)
    return (p - o) ** 2


def brier(outcomes: np.ndarray, probabilities: np.ndarray) -> float:
    """Mean squared difference between probability and outcome (0-1 scale)."""
    return float(np.mean(squared_errors(outcomes, probabilities)))


def brier_of_rate(yes: float, n: float) -> float:
    """The Brier score of forecasting the observed rate yes / n for each of n questions:
    rate (1 - rate) (the uncertainty term of the Murphy decomposition)."""
    rate = yes / n
    return rate * (1 - rate)


def squared_error_sql(probability: str, outcome: str) -> str:
    """A forecast's Brier score in SQL, over a probability and a 0/1 outcome expression."""
    return f"power({probability} - {outcome}, 2)"


def brier_sql(probability: str, outcome: str) -> str:
    """The Brier score in SQL: the mean of `squared_error_sql` over the rows selected."""
    return f"avg({squared_error_sql(probability, outcome)})"


def log_loss(outcomes: np.ndarray, probabilities: np.ndarray) -> float:
    """Mean negative log-likelihood (natural log), probabilities clipped to [1e-6, 1 - 1e-6]."""
    o, p = _arrays(outcomes, probabilities)
    p = np.clip(p, LOG_LOSS_EPS, 1 - LOG_LOSS_EPS)
    return float(-np.mean(o * np.log(p) + (1 - o) * np.log(1 - p)))


def skill_score(score: float, reference_score: float) -> float:
    """1 - score / reference (Brier skill score when both are Brier scores); NaN if ref is 0."""
    return 1.0 - score / reference_score if reference_score > 0 else math.nan


def n_bins_for(n: int) -> int:
    """Bins for ECE/Murphy: 5 below 1,000 forecasts, 10 from 1,000."""
    return 10 if n >= 1000 else 5


def equal_count_bins(probabilities: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin index (0..n_bins-1) per forecast: sorted by probability, split into equal counts."""
    p = np.asarray(probabilities, dtype=float)
    order = np.argsort(p, kind="stable")
    bins = np.empty(len(p), dtype=np.int64)
    bins[order] = (np.arange(len(p)) * n_bins) // max(len(p), 1)
    return bins


def ece(outcomes: np.ndarray, probabilities: np.ndarray, n_bins: int | None = None) -> float:
    """Expected calibration error with equal-count bins: sum_k n_k/N |mean p_k - mean o_k|."""
    o, p = _arrays(outcomes, probabilities)
    if len(o) == 0:
        return math.nan
    bins = equal_count_bins(p, n_bins or n_bins_for(len(p)))
    return _ece_from_sums(np.bincount(bins), np.bincount(bins, p), np.bincount(bins, o))


def _ece_from_sums(count: np.ndarray, sum_p: np.ndarray, sum_o: np.ndarray) -> float:
    total = count.sum()
    return float(np.abs(sum_p - sum_o).sum() / total) if total else math.nan


@dataclass(frozen=True)
class Murphy:
    """Brier = reliability - resolution + uncertainty (binned)."""

    reliability: float
    resolution: float
    uncertainty: float


def murphy(outcomes: np.ndarray, probabilities: np.ndarray, n_bins: int | None = None) -> Murphy:
    """Murphy decomposition over equal-count bins: REL, RES and UNC = base rate (1 - base rate)."""
    o, p = _arrays(outcomes, probabilities)
    bins = equal_count_bins(p, n_bins or n_bins_for(len(p)))
    count = np.bincount(bins).astype(float)
    keep = count > 0
    mean_p = np.bincount(bins, p)[keep] / count[keep]
    mean_o = np.bincount(bins, o)[keep] / count[keep]
    base = o.mean()
    n = len(o)
    return Murphy(
        reliability=float(np.sum(count[keep] * (mean_p - mean_o) ** 2) / n),
        resolution=float(np.sum(count[keep] * (mean_o - base) ** 2) / n),
        uncertainty=float(brier_of_rate(o.sum(), n)),
    )


@dataclass(frozen=True)
class BandHits:
    """How often forecasts in a confidence band were right (p >= 0.5 and yes, or p < 0.5 and no)."""

    band: str
    n: int
    right: int
    hit_rate: float
    ci_low: float
    ci_high: float
    mean_confidence: float


def wilson_interval(right: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95% interval for a binomial proportion (NaNs when n = 0)."""
    if n == 0:
        return math.nan, math.nan
    phat = right / n
    denom = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def hits_by_band(outcomes: np.ndarray, probabilities: np.ndarray) -> list[BandHits]:
    """Per band (low, medium, high): n, right, hit rate and its Wilson 95% interval."""
    o, p = _arrays(outcomes, probabilities)
    bands = confidence_bands(p)
    right = (p >= 0.5) == (o == 1)
    out = []
    for band in BANDS:
        mask = bands == band
        n = int(mask.sum())
        k = int(right[mask].sum())
        lo, hi = wilson_interval(k, n)
        out.append(
            BandHits(
                band,
                n,
                k,
                k / n if n else math.nan,
                lo,
                hi,
                float(np.maximum(p[mask], 1 - p[mask]).mean()) if n else math.nan,
            )
        )
    return out


def reliability_table(
    outcomes: np.ndarray, probabilities: np.ndarray, n_bins: int | None = None
) -> list[dict[str, float]]:
    """Per equal-count bin: n, mean forecast probability, observed frequency (for diagrams)."""
    o, p = _arrays(outcomes, probabilities)
    bins = equal_count_bins(p, n_bins or n_bins_for(len(p)))
    rows = []
    for k in range(int(bins.max()) + 1 if len(bins) else 0):
        m = bins == k
        if m.any():
            rows.append(
                {
                    "n": int(m.sum()),
                    "mean_probability": float(p[m].mean()),
                    "observed_frequency": float(o[m].mean()),
                }
            )
    return rows


@dataclass(frozen=True)
class Interval:
    """A point estimate with a bootstrap 95% interval."""

    value: float
    low: float
    high: float


def block_bootstrap(
    outcomes: np.ndarray,
    probabilities: np.ndarray,
    climatology: np.ndarray,
    persistence: np.ndarray,
    blocks: Sequence | np.ndarray,
    n_boot: int = 500,
    seed: int = 0,
) -> dict[str, Interval]:
    """Block-bootstrap 95% intervals for Brier, BSS (climatology, persistence), log loss and ECE.

    Blocks (e.g. 'repo|YYYY-MM') are resampled with replacement; every statistic is a ratio of
    per-block sums, so each replicate is a weighted sum. ECE keeps the full sample's bins.
    """
    o, p = _arrays(outcomes, probabilities)
    c = np.asarray(climatology, dtype=float)
    q = np.asarray(persistence, dtype=float)
    _, block_ix = np.unique(np.asarray(blocks), return_inverse=True)
    n_blocks = int(block_ix.max()) + 1
    pc = np.clip(p, LOG_LOSS_EPS, 1 - LOG_LOSS_EPS)
    per_row = {
        "n": np.ones_like(p),
        "se": squared_errors(o, p),
        "se_clim": squared_errors(o, c),
        "se_pers": squared_errors(o, q),
        "ll": -(o * np.log(pc) + (1 - o) * np.log(1 - pc)),
    }
    sums = {k: np.bincount(block_ix, v, minlength=n_blocks) for k, v in per_row.items()}
    bins = equal_count_bins(p, n_bins_for(len(p)))
    n_bins = int(bins.max()) + 1
    cell = block_ix * n_bins + bins
    size = n_blocks * n_bins
    cell_p = np.bincount(cell, p, minlength=size).reshape(n_blocks, n_bins)
    cell_o = np.bincount(cell, o, minlength=size).reshape(n_blocks, n_bins)

    def stats(weights: np.ndarray) -> dict[str, float]:
        s = {k: float(weights @ v) for k, v in sums.items()}
        return {
            "brier": s["se"] / s["n"],
            "bss_climatology": skill_score(s["se"], s["se_clim"]),
            "bss_persistence": skill_score(s["se"], s["se_pers"]),
            "log_loss": s["ll"] / s["n"],
            "ece": float(np.abs(weights @ cell_p - weights @ cell_o).sum() / s["n"]),
        }

    point = stats(np.ones(n_blocks))
    rng = np.random.default_rng(seed)
    reps: dict[str, list[float]] = {k: [] for k in point}
    for _ in range(n_boot):
        weights = np.bincount(rng.integers(0, n_blocks, n_blocks), minlength=n_blocks)
        for k, v in stats(weights.astype(float)).items():
            reps[k].append(v)
    return {
        k: Interval(
            point[k], float(np.nanpercentile(reps[k], 2.5)), float(np.nanpercentile(reps[k], 97.5))
        )
        for k in point
    }


def skill_ci(
    scores: np.ndarray,
    reference_scores: np.ndarray,
    blocks: Sequence | np.ndarray,
    n_boot: int = 500,
    seed: int = 0,
) -> dict[str, float]:
    """Skill 1 - sum(scores) / sum(reference_scores) with a block-bootstrap 95% interval
    ({value, low, high}): per-row scores (squared errors for Brier skill, CRPS for CRPS skill)
    summed per block (e.g. 'repo|YYYY-MM'), blocks resampled whole with replacement, as in
    `block_bootstrap`. NaN where the reference sums to 0."""
    _, block_ix = np.unique(np.asarray(blocks), return_inverse=True)
    n_blocks = int(block_ix.max()) + 1 if len(block_ix) else 0
    own = np.bincount(block_ix, np.asarray(scores, dtype=float), minlength=n_blocks)
    ref = np.bincount(block_ix, np.asarray(reference_scores, dtype=float), minlength=n_blocks)
    rng = np.random.default_rng(seed)
    reps = np.full(n_boot, np.nan)
    for i in range(n_boot):
        weights = np.bincount(rng.integers(0, n_blocks, n_blocks), minlength=n_blocks)
        denominator = weights @ ref
        if denominator > 0:
            reps[i] = 1.0 - (weights @ own) / denominator
    total = ref.sum()
    finite = reps[np.isfinite(reps)]
    return {
        "value": float(1.0 - own.sum() / total) if total > 0 else float("nan"),
        "low": float(np.percentile(finite, 2.5)) if len(finite) else float("nan"),
        "high": float(np.percentile(finite, 97.5)) if len(finite) else float("nan"),
    }


def summarize(
    outcomes: np.ndarray,
    probabilities: np.ndarray,
    climatology: np.ndarray,
    persistence: np.ndarray,
    blocks: Sequence | np.ndarray,
    n_boot: int = 500,
    seed: int = 0,
) -> dict:
    """All scores for one slice (template x horizon) as a JSON-ready dict (keys in scoring docs)."""
    o, p = _arrays(outcomes, probabilities)
    if len(o) == 0:
        return {"n": 0}
    clim = np.asarray(climatology, dtype=float)
    pers = np.asarray(persistence, dtype=float)
    bs = brier(o, p)
    m = murphy(o, p)
    ci = block_bootstrap(o, p, clim, pers, blocks, n_boot=n_boot, seed=seed)
    return {
        "n": len(o),
        "base_rate": float(o.mean()),
        "brier": bs,
        "brier_climatology": brier(o, clim),
        "brier_persistence": brier(o, pers),
        "bss_climatology": skill_score(bs, brier(o, clim)),
        "bss_persistence": skill_score(bs, brier(o, pers)),
        "log_loss": log_loss(o, p),
        "log_loss_climatology": log_loss(o, clim),
        "ece": ece(o, p),
        "ece_bins": n_bins_for(len(o)),
        "murphy": asdict(m),
        "bands": [asdict(b) for b in hits_by_band(o, p)],
        "reliability": reliability_table(o, p),
        "ci95": {k: asdict(v) for k, v in ci.items()},
        "bootstrap": {
            "replicates": n_boot,
            "blocks": "repo x month of origin",
            "n_blocks": len(set(blocks)),
        },
    }


def _arrays(outcomes: np.ndarray, probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    o = np.asarray(outcomes, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    if o.shape != p.shape:
        raise ValueError(f"outcomes {o.shape} and probabilities {p.shape} differ in shape")
    return o, p
