"""How well a ranking finds the events: precision@k per origin, averaged over origins, with
bootstrap confidence intervals over origins.

The breakout radar is read from the top: what matters is how many of the k repositories it puts
first break out. At each origin the scored questions are sorted by a score (highest first; ties
broken by repository name, missing scores last) and precision@k is the share of 'yes' among the
first k (all of them when an origin has fewer than k). The figure is the mean over origins, so
every origin weighs the same whatever its number of repositories; its 95% interval resamples
origins with replacement (the repositories of one origin share that day's market, so origins,
not rows, are the independent units). A ranking's lead over another of the same questions (the
model over momentum) resamples the same origins for both, so the lead gets its own interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

KS = (10, 20, 50)


def momentum(frame: pd.DataFrame) -> pd.Series:
    """The baseline ranking: velocity_7d - velocity_28d on the origin (stars/day), i.e. how far
    the last week ran ahead of the 28-day pace."""
    return frame["velocity_7d"] - frame["velocity_28d"]


def precision_by_origin(frame: pd.DataFrame, score: str, k: int) -> pd.Series:
    """Per origin: the share of label 1 among the k rows of `frame` with the highest `score`
    (columns origin, repo, label and `score`)."""
    ordered = frame.assign(_missing=frame[score].isna()).sort_values(
        ["origin", "_missing", score, "repo"], ascending=[True, True, False, True], kind="stable"
    )
    return ordered.groupby("origin", sort=True).head(k).groupby("origin")["label"].mean()


def ranking_metrics(
    frame: pd.DataFrame,
    scores: dict[str, str],
    baseline: str | None = None,
    ks: tuple[int, ...] = KS,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict:
    """precision@k of each named score column (name -> column of `frame`), with 95% intervals
    over origins; with `baseline` (one of the names), each other score's lead over it, paired
    over the same resampled origins.

    Returns {"n_origins", "rows_per_origin", "events_per_origin", and per score name
    {"precision_at_<k>": {"mean", "low", "high"}, "lead_over_<baseline>_at_<k>": {...}}}.
    """
    origins = np.sort(frame["origin"].unique())
    out: dict = {
        "n_origins": len(origins),
        "rows_per_origin": float(len(frame) / max(len(origins), 1)),
        "events_per_origin": float(frame["label"].sum() / max(len(origins), 1)),
    }
    if not len(origins):
        return out
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(origins), size=(n_boot, len(origins)))
    per_origin = {
        name: {k: precision_by_origin(frame, column, k).reindex(origins).to_numpy() for k in ks}
        for name, column in scores.items()
    }
    for name in scores:
        entry = {}
        for k in ks:
            values = per_origin[name][k]
            entry[f"precision_at_{k}"] = _mean_ci(values, draws)
            if baseline is not None and name != baseline:
                entry[f"lead_over_{baseline}_at_{k}"] = _mean_ci(
                    values - per_origin[baseline][k], draws
                )
        out[name] = entry
    return out


def _mean_ci(values: np.ndarray, draws: np.ndarray) -> dict:
    boot = values[draws].mean(axis=1)
    low, high = np.percentile(boot, [2.5, 97.5])
    return {"mean": float(values.mean()), "low": float(low), "high": float(high)}
