"""Resolution of issued forecasts once their horizon has passed, and their live track record.

A forecast is resolvable when its resolution day is on or before `as_of` and the table its rule
reads covers that day (the latest day loaded into it), so late data leaves it pending rather
than voiding it. Each resolution is written once to `forecast_resolutions` (append-only) with
the outcome ('yes', 'no', 'void'), the observed value and how it resolved; a resolved interval
forecast also gets its `interval_resolutions` row (observed value, which intervals held, CRPS).
"""

from __future__ import annotations

from datetime import date

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.evaluation.scoring import brier, hits_by_band
from shu.forecast.models.interval import QUANTILES
from shu.forecast.questions.registry import template
from shu.forecast.questions.resolution import resolve_questions
from shu.store import Store, utcnow

_COVERAGE_SQL = {
    "star_signals": "SELECT max(day) FROM star_signals WHERE stars IS NOT NULL",
    "commit_signals": "SELECT max(day) FROM commit_signals",
    "commits": "SELECT max(committed_at)::DATE FROM commits",
}


def _data_through(store: Store, table: str, as_of: date) -> date:
    """The last day `table` has data for, at or before `as_of` (date.min when none)."""
    sql = _COVERAGE_SQL.get(table)
    if sql is None:  # releases: an absent release is an answer, so as_of is the limit
        return as_of
    newest = store.con.execute(sql).fetchall()[0][0]
    return min(newest, as_of) if newest is not None else date.min


def resolve_forecasts(store: Store, as_of: date | None = None) -> dict[str, int]:
    """Resolve every pending forecast whose horizon has passed by `as_of` (default: today).

    Returns counts: {'yes', 'no', 'void', 'pending'} ('pending' = not yet resolvable). A re-run
    resolves nothing twice.
    """
    as_of = as_of or utcnow().date()
    counts = {"yes": 0, "no": 0, "void": 0, "pending": 0}
    pending = store.con.execute("""
        SELECT f.forecast_id AS qid, f.repo, f.origin, f.horizon_days, f.threshold, f.template,
               f.resolves_on, i.lower_80, i.upper_80
        FROM forecasts f LEFT JOIN forecast_resolutions r USING (forecast_id)
        LEFT JOIN forecast_intervals i USING (forecast_id)
        WHERE r.forecast_id IS NULL""").df()
    if pending.empty:
        return counts
    with store.transaction():
        for name, group in pending.groupby("template"):
            data_through = _data_through(store, template(name).reads, as_of)
            due = group[pd.to_datetime(group["resolves_on"]).dt.date <= data_through]
            counts["pending"] += len(group) - len(due)
            if due.empty:
                continue
            store.con.register("_fc_due_df", due)
            try:
                store.con.execute(
                    "CREATE OR REPLACE TEMP TABLE _fc_due AS SELECT qid, repo, origin::DATE AS "
                    "origin, horizon_days::INTEGER AS horizon_days, threshold, "
                    "lower_80::DOUBLE AS lower_80, upper_80::DOUBLE AS upper_80 FROM _fc_due_df"
                )
                resolved = resolve_questions(store.con, name, "_fc_due")
            finally:
                store.con.unregister("_fc_due_df")
                store.con.execute("DROP TABLE IF EXISTS _fc_due")
            resolved = resolved.rename(columns={"qid": "forecast_id"})
            resolved["resolved_at"] = utcnow()
            store.con.register("_fc_res", resolved)
            try:
                store.con.execute("""
                    INSERT INTO forecast_resolutions
                      (forecast_id, outcome, observed_value, detail, resolved_at)
                    SELECT forecast_id, outcome, observed_value, detail, resolved_at
                    FROM _fc_res WHERE forecast_id NOT IN
                      (SELECT forecast_id FROM forecast_resolutions)""")
            finally:
                store.con.unregister("_fc_res")
            for outcome, n in resolved["outcome"].value_counts().items():
                counts[str(outcome)] += int(n)
        record_interval_resolutions(store.con)
    return counts


def track_record(store: Store) -> list[dict]:
    """Live scores of resolved forecasts per template x horizon (voids counted apart).

    Each row: template, horizon_days, n (scored), n_void, observed_rate (the share of yes among
    the scored), brier, and bands
    (per confidence band: n, right, hit_rate).
    """
    df = store.con.execute("""
        SELECT f.template, f.horizon_days, f.probability, r.outcome
        FROM forecasts f JOIN forecast_resolutions r USING (forecast_id)
        ORDER BY f.template, f.horizon_days""").df()
    out = []
    for (name, horizon), g in df.groupby(["template", "horizon_days"], sort=True):
        scored = g[g["outcome"] != "void"]
        o = (scored["outcome"] == "yes").to_numpy(dtype=float)
        p = scored["probability"].to_numpy(dtype=float)
        out.append(
            {
                "template": name,
                "horizon_days": int(horizon),
                "n": len(scored),
                "n_void": int((g["outcome"] == "void").sum()),
                "observed_rate": float(o.mean()) if len(o) else np.nan,
                "brier": brier(o, p) if len(o) else np.nan,
                "bands": [
                    {"band": b.band, "n": b.n, "right": b.right, "hit_rate": b.hit_rate}
                    for b in hits_by_band(o, p)
                ],
            }
        )
    return out


# ---------------------------------------------------------------- interval forecasts
_RECORD_SQL = """
INSERT INTO interval_resolutions
  (forecast_id, observed_value, held_50, held_80, held_95, crps, resolved_at)
SELECT i.forecast_id, r.observed_value,
  r.observed_value BETWEEN i.lower_50 AND i.upper_50,
  r.observed_value BETWEEN i.lower_80 AND i.upper_80,
  r.observed_value BETWEEN i.lower_95 AND i.upper_95,
  2.0 / 7.0 * ({pinball}), r.resolved_at
FROM forecast_intervals i JOIN forecast_resolutions r USING (forecast_id)
WHERE r.outcome <> 'void' AND i.forecast_id NOT IN (SELECT forecast_id FROM interval_resolutions)
"""


def _pinball_sql() -> str:
    terms = []
    for tau, name in zip(
        QUANTILES,
        ("lower_95", "lower_80", "lower_50", "median", "upper_50", "upper_80", "upper_95"),
        strict=True,
    ):
        d = f"(r.observed_value - i.{name})"
        terms.append(f"greatest({tau} * {d}, {tau - 1.0:.3f} * {d})")
    return " + ".join(terms)


def record_interval_resolutions(con: duckdb.DuckDBPyConnection) -> int:
    """Write `interval_resolutions` for every resolved, non-void interval forecast that has no
    row yet (whether each interval held, and the CRPS); return how many rows were written."""
    before = con.execute("SELECT count(*) FROM interval_resolutions").fetchall()[0][0]
    con.execute(_RECORD_SQL.format(pinball=_pinball_sql()))
    return con.execute("SELECT count(*) FROM interval_resolutions").fetchall()[0][0] - before
