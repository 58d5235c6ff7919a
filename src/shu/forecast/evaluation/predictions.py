"""Every scored prediction of a backtest as Parquet (`shu backtest --predictions PATH`), so anyone
can recompute any figure the backtest reports.

Binary templates: one row per scored question with `BINARY_COLUMNS`; interval templates:
`INTERVAL_COLUMNS` (the predictive median and central 50/80/95% bounds, stars/day). Columns:
- `repo`, `origin` (DATE), `template`, `horizon` (days);
- `threshold` (binary: the question's X), `velocity_28d` (the 28-day star velocity on the
  origin, stars/day: its velocity band is what `coverage_by_velocity` groups by);
- `probability` (the forecast P(yes)), `outcome` (0/1);
- interval: `median`, `lower_50` .. `upper_95`, `observed` (velocity_28d on origin + horizon).
Where the run read the velocity questions and the interval from one distribution per
(repository, origin) (`one_distribution.read_from_distribution`), extra columns follow: yes/no
`probability_classifier` (the yes/no model's calibrated, guarded answer before; `probability`
is the distribution's P(V > threshold)) and `distribution` (whether it was read from one);
star_gain and the path templates, held to their bounds against that distribution
(`one_distribution.hold_to_bounds`), `probability_classifier` (the model's answer before) and
`bounded` (whether a bound was checked);
a radar template with a tail map adds `probability_untailed` (the model's answer without it,
before the regime guard), `tail_knee` and `tail_fitted` (its model's knee and fitted factor) and
`tail_factor` (the factor its answer was issued with: the online one, `models.tail`);
interval `distribution_quantiles` (list: the distribution's quantiles at
`interval.DIST_LEVELS`), `anchor_thresholds` and `anchor_cdf` (lists: the thresholds it passes
through and P(V <= threshold) there), so any threshold can be read back
(`calibration.distribution.cdf`).

File layout (`write_predictions`): a run with one template writes PATH itself; a run with
several writes one file per template beside it, the template's name before the suffix
(`preds.parquet` -> `preds.star_velocity_up.parquet`, `preds.star_velocity_interval.parquet`);
the horizons of a template share its file (column `horizon`). Any backtest that produces
probabilities (the star templates, `star_breakout`) builds its frame with `binary_frame`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from shu.errors import InputError
from shu.forecast.models.interval import DIST_LEVELS

BINARY_COLUMNS = (
    "repo",
    "origin",
    "template",
    "horizon",
    "threshold",
    "velocity_28d",
    "probability",
    "outcome",
)
INTERVAL_COLUMNS = (
    "repo",
    "origin",
    "template",
    "horizon",
    "velocity_28d",
    "median",
    "lower_50",
    "upper_50",
    "lower_80",
    "upper_80",
    "lower_95",
    "upper_95",
    "observed",
)
# Interval bound column -> the predictive quantile it is (index into interval.QUANTILES order).
INTERVAL_BOUNDS = ("lower_95", "lower_80", "lower_50", "median", "upper_50", "upper_80", "upper_95")


def binary_frame(pred: pd.DataFrame, template: str, horizon_days: int) -> pd.DataFrame:
    """`BINARY_COLUMNS` from a frame with repo, origin, threshold, velocity_28d, probability and
    label (0/1)."""
    out = pd.DataFrame(
        {
            "repo": pred["repo"].astype(str).to_numpy(),
            "origin": pd.to_datetime(pred["origin"]).dt.date.to_numpy(),
            "template": template,
            "horizon": np.full(len(pred), horizon_days, dtype=np.int32),
            "threshold": pred["threshold"].to_numpy(dtype=float),
            "velocity_28d": pred["velocity_28d"].to_numpy(dtype=float),
            "probability": pred["probability"].to_numpy(dtype=float),
            "outcome": pred["label"].to_numpy().astype(np.int8),
        }
    )
    extra = [
        c
        for c in (
            "probability_classifier",
            "distribution",
            "bounded",
            "probability_untailed",
            "tail_knee",
            "tail_fitted",
            "tail_factor",
        )
        if c in pred
    ]
    for c in extra:
        out[c] = pred[c].to_numpy()
    return out[[*BINARY_COLUMNS, *extra]]


def interval_frame(
    pred: pd.DataFrame, quantiles: np.ndarray, template: str, horizon_days: int
) -> pd.DataFrame:
    """`INTERVAL_COLUMNS` from a frame with repo, origin, velocity_28d and observed_value, and
    the (rows, 7) predictive quantiles in `interval.QUANTILES` order."""
    q = np.asarray(quantiles, dtype=float)
    if q.shape != (len(pred), len(INTERVAL_BOUNDS)):
        raise ValueError(
            f"quantiles {q.shape} do not match {len(pred)} rows x {len(INTERVAL_BOUNDS)} levels"
        )
    out = pd.DataFrame(
        {
            "repo": pred["repo"].astype(str).to_numpy(),
            "origin": pd.to_datetime(pred["origin"]).dt.date.to_numpy(),
            "template": template,
            "horizon": np.full(len(pred), horizon_days, dtype=np.int32),
            "velocity_28d": pred["velocity_28d"].to_numpy(dtype=float),
            "observed": pred["observed_value"].to_numpy(dtype=float),
        }
    )
    for k, name in enumerate(INTERVAL_BOUNDS):
        out[name] = q[:, k]
    extra = []
    if "anchor_x" in pred:
        columns = [f"d{a}" for a in DIST_LEVELS]
        out["distribution_quantiles"] = list(pred[columns].to_numpy(dtype=float))
        out["anchor_thresholds"] = list(pred["anchor_x"])
        out["anchor_cdf"] = list(pred["anchor_cdf"])
        extra = ["distribution_quantiles", "anchor_thresholds", "anchor_cdf"]
    return out[[*INTERVAL_COLUMNS, *extra]]


def predictions_paths(path: Path, templates: list[str]) -> dict[str, Path]:
    """Where each template's predictions go: PATH for a single template, else one file per
    template beside it (`preds.parquet` -> `preds.<template>.parquet`)."""
    path = Path(path)
    if path.suffix.lower() != ".parquet":
        raise InputError(f"--predictions {path}: expected a file name ending in .parquet")
    unique = list(dict.fromkeys(templates))
    if len(unique) == 1:
        return {unique[0]: path}
    return {t: path.with_name(f"{path.stem}.{t}{path.suffix}") for t in unique}


def write_predictions(
    path: Path, frames: list[pd.DataFrame], templates: list[str] | None = None
) -> list[Path]:
    """Write the frames (from `binary_frame` / `interval_frame`) as Parquet, grouped by template
    (the run's `templates`, default those in the frames, decide the layout: see the module
    docstring); a template without predictions gets no file. Each file is written whole and
    then renamed into place, so a reader never sees half a file. Returns the paths written."""
    by_template: dict[str, list[pd.DataFrame]] = {}
    for frame in frames:
        for template, part in frame.groupby("template", sort=False):
            by_template.setdefault(str(template), []).append(part)
    written = []
    for template, target in predictions_paths(path, templates or list(by_template)).items():
        if template not in by_template:
            continue
        data = pd.concat(by_template[template], ignore_index=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        data.to_parquet(partial, index=False)
        partial.replace(target)
        written.append(target)
    return written
