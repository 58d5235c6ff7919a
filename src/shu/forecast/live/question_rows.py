"""Today's questions as rows a forecaster reads: the tracked repositories' questions with the
threshold each template's rule chooses, and the questions users declared (`[[questions]]` in
shu.toml) with their own threshold, each with its features as of the origin.
"""

from __future__ import annotations

from datetime import date

import duckdb
import pandas as pd

from shu.forecast.features.examples import rocm_question_rows, threshold_bucket
from shu.forecast.features.rocm import build_features as rocm_features
from shu.forecast.questions.registry import template, threshold_features
from shu.settings import DeclaredQuestion


def rocm_rows(
    con: duckdb.DuckDBPyConnection, origin: date, repos: list[str], name: str, horizon_days: int
) -> pd.DataFrame:
    """Today's questions of ROCm template `name` for `repos` as of `origin`, with their
    features."""
    base = rocm_features(con, pd.DataFrame({"repo": repos, "origin": [origin] * len(repos)}))
    return rocm_question_rows(base, name, horizon_days)


def declared_star_rows(
    base: pd.DataFrame, name: str, horizon_days: int, questions: list[DeclaredQuestion]
) -> pd.DataFrame:
    """Rows of `base` (star features on the origin) for the declared questions of star-family
    template `name` x `horizon_days`, with the declared threshold (repositories without a
    defined state on the origin are skipped)."""
    mine = [q for q in questions if q.template == name and q.horizon == horizon_days]
    eligible = base[base["velocity_28d"].notna() & base["acceleration_28d"].notna()]
    parts = [
        eligible[eligible["repo"] == q.repo].assign(threshold=float(q.threshold)) for q in mine
    ]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    rows = pd.concat(parts, ignore_index=True)
    extra = threshold_features(rows, name, rows["threshold"], horizon_days)
    rows = pd.concat([rows, extra], axis=1)
    rows["horizon_days"] = horizon_days
    rows["bucket"] = threshold_bucket(name, rows)
    return rows


def declared_rocm_rows(
    con: duckdb.DuckDBPyConnection,
    origin: date,
    name: str,
    horizon_days: int,
    questions: list[DeclaredQuestion],
) -> pd.DataFrame:
    """Rows for the declared questions of ROCm template `name` x `horizon_days`, with the
    declared threshold where the template has one to choose (a share for rocm_share_reach; the
    others ask with X = 1). Repositories without counted commits on the origin are skipped."""
    mine = [q for q in questions if q.template == name and q.horizon == horizon_days]
    if not mine:
        return pd.DataFrame()
    base = rocm_features(
        con, pd.DataFrame({"repo": [q.repo for q in mine], "origin": [origin] * len(mine)})
    )
    own = template(name).declared_threshold
    parts = []
    for q in mine:
        rows = base[base["repo"] == q.repo].copy()
        if rows.empty:
            continue
        rows["threshold"] = float(q.threshold) if own else 1.0
        parts.append(
            pd.concat(
                [rows, threshold_features(rows, name, rows["threshold"], horizon_days)], axis=1
            )
        )
    if not parts:
        return pd.DataFrame()
    rows = pd.concat(parts, ignore_index=True)
    rows["horizon_days"] = horizon_days
    rows["bucket"] = 0
    return rows
