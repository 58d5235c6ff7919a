"""Historical questions with their features and resolved outcomes: the rows models learn from.

For a weekly grid of origins, every repository whose state is defined on the origin gets one
question per template and horizon, with the threshold the issuer would choose, features computed
as of the origin, and the outcome resolved by the same rule that resolves issued forecasts.
An example's label becomes known on `known_on = origin + horizon`; training code must only use
examples known before the day it trains for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.features.star import build_features, feature_names, threshold_features
from shu.forecast.questions.templates import resolve_questions, threshold_sql

# Which state on the origin makes a repository eligible for a template's question.
ELIGIBLE = {
    "star_accel_reach": "acceleration_28d IS NOT NULL AND velocity_28d IS NOT NULL",
    "star_accel_fall": "acceleration_28d IS NOT NULL AND velocity_28d IS NOT NULL",
    "star_velocity_up": "acceleration_28d IS NOT NULL AND velocity_28d IS NOT NULL",
    "star_velocity_level": "acceleration_28d IS NOT NULL AND velocity_28d > 0",
    "star_gain": "acceleration_28d IS NOT NULL AND velocity_28d IS NOT NULL",
    "release_within": "months_since_release IS NOT NULL",
    "commit_velocity_up": "commit_velocity_28d IS NOT NULL",
    "star_velocity_interval": "acceleration_28d IS NOT NULL AND velocity_28d IS NOT NULL",
    "star_breakout": "velocity_28d IS NOT NULL",
}
# Climatology is computed per template and threshold bucket: edges on the threshold feature.
BUCKETS = {
    "star_accel_reach": ("gap_rel_sd", (0.25, 0.5, 1.0, 2.0, 4.0)),
    "star_accel_fall": ("gap_rel_sd", (-4.0, -2.0, -1.0, -0.5, -0.25)),
    "star_velocity_level": ("log_level_vs_velocity", (-0.5, -0.2, 0.0, 0.2, 0.5)),
    "star_gain": ("log_gain_vs_pace", (-1.0, -0.5, 0.0, 0.5, 1.0)),
}


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
    con: duckdb.DuckDBPyConnection, base: pd.DataFrame, template: str, horizon_days: int
) -> pd.DataFrame:
    """Eligible rows of `base` for `template`, with threshold, threshold features and bucket."""
    con.register("_fc_base", base)
    try:
        picked = con.execute(
            f"SELECT row_number() OVER () - 1 AS qid, f.*, "
            f"{threshold_sql(template, 'f', str(horizon_days))}::DOUBLE AS threshold "
            f"FROM _fc_base f WHERE {ELIGIBLE[template]}"
        ).df()
    finally:
        con.unregister("_fc_base")
    picked = picked[picked["threshold"].notna()].reset_index(drop=True)
    extra = threshold_features(picked, template, picked["threshold"], horizon_days)
    picked = pd.concat([picked, extra], axis=1)
    picked["horizon_days"] = horizon_days
    picked["bucket"] = threshold_bucket(template, picked)
    return picked


def threshold_bucket(template: str, frame: pd.DataFrame) -> np.ndarray:
    """Climatology bucket per row (0 for templates with one bucket)."""
    if template not in BUCKETS:
        return np.zeros(len(frame), dtype=np.int64)
    column, edges = BUCKETS[template]
    return np.searchsorted(np.asarray(edges), frame[column].to_numpy(dtype=float), side="right")


def resolve_frame(
    con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, template: str
) -> pd.DataFrame:
    """outcome / observed_value / detail for each row of `frame` (qid, repo, origin, ...)."""
    questions = frame[["qid", "repo", "origin", "horizon_days", "threshold"]].copy()
    questions["origin"] = pd.to_datetime(questions["origin"]).dt.date
    con.register("_fc_q_df", questions)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _fc_q AS SELECT qid, repo, origin::DATE AS "
            "origin, horizon_days::INTEGER AS horizon_days, threshold, "
            "NULL::DOUBLE AS lower_80, NULL::DOUBLE AS upper_80 FROM _fc_q_df"
        )
        resolved = resolve_questions(con, template, "_fc_q")
    finally:
        con.unregister("_fc_q_df")
        con.execute("DROP TABLE IF EXISTS _fc_q")
    return frame.merge(resolved, on="qid", how="left")


def build_examples(
    con: duckdb.DuckDBPyConnection,
    base: pd.DataFrame,
    template: str,
    horizon_days: int,
    data_end: date,
) -> Examples:
    """Resolved examples of `template` x `horizon_days` whose horizon ends by `data_end`."""
    frame = with_thresholds(con, base, template, horizon_days)
    end = pd.Timestamp(data_end - timedelta(days=horizon_days))
    frame = frame[pd.to_datetime(frame["origin"]) <= end].reset_index(drop=True)
    frame = resolve_frame(con, frame, template)
    void = frame["outcome"].ne("yes") & frame["outcome"].ne("no")
    n_void = int(void.sum())
    frame = frame[~void].reset_index(drop=True)
    frame["label"] = (frame["outcome"] == "yes").astype(np.int8)
    frame["origin"] = pd.to_datetime(frame["origin"])
    frame["known_on"] = frame["origin"] + pd.Timedelta(days=horizon_days)
    return Examples(template, horizon_days, frame, n_void)
