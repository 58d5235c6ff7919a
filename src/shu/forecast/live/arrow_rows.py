"""The rows today's forecasts add to `forecast_distributions` and `forecast_intervals`, as Arrow
tables inserted in one statement each (a row at a time, ~10k radar distributions took a minute
through executemany)."""

from __future__ import annotations

import pyarrow as pa

from shu.store import Store, utcnow


def insert_rows(store: Store, table: str, rows: pa.Table) -> None:
    """Insert an Arrow table's rows into `table` by column name (one statement, not a row at a
    time: ~10k radar distributions took a minute through executemany)."""
    store.con.register("_fc_rows", rows)
    try:
        cols = ", ".join(rows.column_names)
        store.con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM _fc_rows")
    finally:
        store.con.unregister("_fc_rows")


def distribution_table(distributions: list[dict]) -> pa.Table:
    """Rows of `forecast_distributions` (the dicts `issue` builds per distribution), issued now."""
    floats, texts = pa.list_(pa.float64()), pa.list_(pa.string())
    types = {
        "distribution_id": pa.string(),
        "repo": pa.string(),
        "origin": pa.date32(),
        "horizon_days": pa.int32(),
        "model_version": pa.string(),
        "velocity_28d": pa.float64(),
        "levels": floats,
        "quantiles": floats,
        "anchor_templates": texts,
        "anchor_thresholds": floats,
        "anchor_probability": floats,
        "anchor_cdf": floats,
    }
    columns = {
        name: pa.array([d[name] for d in distributions], kind) for name, kind in types.items()
    }
    now = utcnow()
    columns["issued_at"] = pa.array([now] * len(distributions), pa.timestamp("us"))
    return pa.table(columns)


def interval_table(intervals: list[list]) -> pa.Table:
    """Rows of `forecast_intervals`: [forecast_id, *QUANTILES values] each."""
    names = ("lower_95", "lower_80", "lower_50", "median", "upper_50", "upper_80", "upper_95")
    n = len(intervals)
    return pa.table(
        {
            "forecast_id": pa.array([r[0] for r in intervals], pa.string()),
            "quantity": pa.array(["velocity_28d on resolves_on"] * n, pa.string()),
            "unit": pa.array(["stars/day"] * n, pa.string()),
            **{
                name: pa.array([float(r[1 + k]) for r in intervals], pa.float64())
                for k, name in enumerate(names)
            },
        }
    )
