"""Resolving questions by their template's exact rule: one path for the backtest's historical
questions and for issued forecasts, so the two can never disagree.

Each template's resolution SQL (its record in `registry`) reads a questions table with columns
(qid, repo, origin DATE, horizon_days INTEGER, threshold DOUBLE, lower_80 DOUBLE, upper_80
DOUBLE; the bounds are read by the interval template only) and returns qid, outcome
('yes'/'no'/'void'), observed_value and detail.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.questions.registry import template

OUTCOME_COLUMNS = ["outcome", "observed_value", "detail"]


def resolve_questions(con: duckdb.DuckDBPyConnection, name: str, questions: str) -> pd.DataFrame:
    """Resolve the questions of template `name` held in table/view `questions` (see the module
    docstring). Only call it for questions whose horizon has passed and whose data has been
    loaded (see `live.resolve`)."""
    return con.execute(template(name).resolution_sql.format(q=questions)).df()


def resolve_rows(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """`OUTCOME_COLUMNS` for each row of `frame` (repo, origin, horizon_days, threshold), in
    the order of its rows."""
    questions = frame[["repo", "origin", "horizon_days", "threshold"]].reset_index(drop=True)
    questions.insert(0, "qid", np.arange(len(questions)))
    questions["origin"] = pd.to_datetime(questions["origin"]).dt.date
    con.register("_fc_q_df", questions)
    try:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _fc_q AS SELECT qid, repo, origin::DATE AS "
            "origin, horizon_days::INTEGER AS horizon_days, threshold, "
            "NULL::DOUBLE AS lower_80, NULL::DOUBLE AS upper_80 FROM _fc_q_df"
        )
        resolved = resolve_questions(con, name, "_fc_q")
    finally:
        con.unregister("_fc_q_df")
        con.execute("DROP TABLE IF EXISTS _fc_q")
    return (
        resolved.set_index("qid")
        .reindex(range(len(questions)))[OUTCOME_COLUMNS]
        .reset_index(drop=True)
    )
