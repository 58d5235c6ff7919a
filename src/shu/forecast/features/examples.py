"""Historical questions with their features and resolved outcomes: the rows models learn from.

For a weekly grid of origins, every repository eligible for a template on an origin gets one
question per horizon, with the threshold the issuer would choose, features computed as of the
origin, and the outcome resolved by the same rule that resolves issued forecasts (the template's
record in `questions.registry` says which repositories are eligible, how the threshold is chosen
and how it resolves). An example's label becomes known on `known_on = origin + horizon`;
training code must only use examples known before the day it trains for.

Star-family templates read the star features (`base_frame`) on a grid anchored at a chosen day;
ROCm templates read the commit features on every Monday of each repository's commit span
(`features.rocm.weekly_origins`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.features import feature_names
from shu.forecast.features.star import build_features
from shu.forecast.questions.registry import template, threshold_features
from shu.forecast.questions.resolution import resolve_rows


@dataclass
class Examples:
    """Resolved questions of one template x horizon: keys, threshold, features and outcome."""

    template: str
    horizon_days: int
    frame: pd.DataFrame  # repo, origin, threshold, outcome, observed_value, bucket, features
    n_void: int

    @property
    def features(self) -> list[str]:
        return feature_names(self.template)


# DuckDB's memory cap while a backtest or `shu train` builds features over many origins: the
# whole ranking walk-forward (2020-01 .. 2026-01, 1.26 million repository-origins) needs more
# than 1.5 GB on a store opened read-only, which cannot spill (out of memory at 1.5 GB,
# 2026-12-02; it ran under 6 GB).
FEATURES_MEMORY_LIMIT = "6GB"


def weekly_grid(anchor: date, first: date, last: date) -> list[date]:
    """Days first..last that are a whole number of weeks from `anchor`."""
    start = anchor - timedelta(days=7 * ((anchor - first).days // 7))
    out, day = [], start
    while day <= last:
        if day >= first:
            out.append(day)
        day += timedelta(days=7)
    return out


def base_frame(
    con: duckdb.DuckDBPyConnection, origins: list[date], repos: list[str] | None = None
) -> pd.DataFrame:
    """Features for every repository with star signals on each origin (or only `repos`)."""
    con.execute("CREATE OR REPLACE TEMP TABLE _fc_grid (origin DATE)")
    con.executemany("INSERT INTO _fc_grid VALUES (?)", [[d] for d in origins])
    repo_filter = ""
    if repos is not None:
        con.execute("CREATE OR REPLACE TEMP TABLE _fc_repos (repo VARCHAR)")
        if repos:
            con.executemany("INSERT INTO _fc_repos VALUES (?)", [[r] for r in repos])
        repo_filter = "AND s.repo IN (SELECT repo FROM _fc_repos)"
    con.execute(f"""CREATE OR REPLACE TEMP TABLE _fc_origins AS
        SELECT s.repo, s.day AS origin FROM star_signals s JOIN _fc_grid g ON s.day = g.origin
        WHERE s.stars IS NOT NULL {repo_filter}""")
    try:
        return build_features(con, "_fc_origins")
    finally:
        con.execute("DROP TABLE IF EXISTS _fc_origins")
        con.execute("DROP TABLE IF EXISTS _fc_grid")


def with_thresholds(
    con: duckdb.DuckDBPyConnection, base: pd.DataFrame, name: str, horizon_days: int
) -> pd.DataFrame:
    """Eligible rows of `base` for star-family template `name`, with threshold, threshold
    features and bucket."""
    spec = template(name)
    if spec.threshold_sql is None or spec.eligible is None:
        raise ValueError(f"{name} is not a star-family template")
    con.register("_fc_base", base)
    try:
        picked = con.execute(
            f"SELECT row_number() OVER () - 1 AS qid, f.*, "
            f"{spec.threshold_sql('f', str(horizon_days))}::DOUBLE AS threshold "
            f"FROM _fc_base f WHERE {spec.eligible}"
        ).df()
    finally:
        con.unregister("_fc_base")
    picked = picked[picked["threshold"].notna()].reset_index(drop=True)
    extra = threshold_features(picked, name, picked["threshold"], horizon_days)
    picked = pd.concat([picked, extra], axis=1)
    picked["horizon_days"] = horizon_days
    picked["bucket"] = threshold_bucket(name, picked)
    return picked


def threshold_bucket(name: str, frame: pd.DataFrame) -> np.ndarray:
    """Climatology bucket per row (0 for templates with one bucket)."""
    buckets = template(name).buckets
    if buckets is None:
        return np.zeros(len(frame), dtype=np.int64)
    column, edges = buckets
    return np.searchsorted(np.asarray(edges), frame[column].to_numpy(dtype=float), side="right")


def resolve_frame(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """`frame` (repo, origin, horizon_days, threshold, ...) with each row's outcome,
    observed_value and detail."""
    resolved = resolve_rows(con, frame, name)
    return pd.concat([frame.reset_index(drop=True), resolved], axis=1)


def build_examples(
    con: duckdb.DuckDBPyConnection,
    base: pd.DataFrame,
    name: str,
    horizon_days: int,
    data_through: date,
) -> Examples:
    """Resolved examples of star-family `name` x `horizon_days` whose horizon ends by
    `data_through`."""
    frame = with_thresholds(con, base, name, horizon_days)
    end = pd.Timestamp(data_through - timedelta(days=horizon_days))
    frame = frame[pd.to_datetime(frame["origin"]) <= end].reset_index(drop=True)
    frame = resolve_frame(con, frame, name)
    return _labelled(name, horizon_days, frame)


# ---------------------------------------------------------------- ROCm adoption
def rocm_question_rows(base: pd.DataFrame, name: str, horizon_days: int) -> pd.DataFrame:
    """Rows of `base` (`features.rocm.build_features`) eligible for ROCm template `name`, with
    its threshold and threshold features."""
    pick = template(name).pick_rows
    if pick is None:
        raise ValueError(f"not a ROCm template: {name!r}")
    rows = pick(base)
    rows = pd.concat(
        [rows, threshold_features(rows, name, rows["threshold"], horizon_days)], axis=1
    )
    rows["horizon_days"] = horizon_days
    rows["bucket"] = 0
    return rows.reset_index(drop=True)


def build_rocm_examples(
    con: duckdb.DuckDBPyConnection, base: pd.DataFrame, name: str, horizon_days: int
) -> Examples:
    """Resolve every eligible question of `base` (from `features.rocm.build_features`); voids
    are counted. The frame also holds NaN acceleration_28d / velocity_28d (the star state the
    star templates keep; ROCm has none), so the backtest reads both families alike."""
    rows = rocm_question_rows(base, name, horizon_days)
    if rows.empty:
        resolved = pd.DataFrame(
            {
                "outcome": pd.Series(dtype=str),
                "observed_value": pd.Series(dtype=float),
                "detail": pd.Series(dtype=str),
            }
        )
    else:
        resolved = resolve_rows(con, rows, name)
    rows = pd.concat([rows, resolved[["outcome", "observed_value", "detail"]]], axis=1)
    examples = _labelled(name, horizon_days, rows)
    examples.frame["acceleration_28d"] = np.nan
    examples.frame["velocity_28d"] = np.nan
    return examples


def _labelled(name: str, horizon_days: int, frame: pd.DataFrame) -> Examples:
    """Resolved rows without the voids (counted), with label, origin as a timestamp and
    known_on."""
    void = ~frame["outcome"].isin(["yes", "no"])
    n_void = int(void.sum())
    frame = frame[~void].reset_index(drop=True)
    frame["label"] = (frame["outcome"] == "yes").astype(np.int8)
    frame["origin"] = pd.to_datetime(frame["origin"])
    frame["known_on"] = frame["origin"] + pd.Timedelta(days=horizon_days)
    return Examples(name, horizon_days, frame, n_void)
