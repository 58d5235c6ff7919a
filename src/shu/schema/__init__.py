"""Every table shu stores, declared once (name, columns, types, units, meaning, primary key).

The store creates tables from these declarations and `docs/data-dictionary.md` is rendered from
them (`shu docs`); a test fails when the rendered file is stale.
"""

from shu.schema import (
    activity,
    briefing,
    calibration_state,
    claims,
    core,
    forecasts,
    gharchive,
    intervals,
    market_spikes,
    probe,
    replay,
    rocm_index,
    signals,
    star_days,
)
from shu.schema.base import Column, Table

ALL_TABLES: tuple[Table, ...] = (
    core.TABLES
    + activity.TABLES
    + signals.TABLES
    + star_days.TABLES
    + market_spikes.TABLES
    + rocm_index.TABLES
    + forecasts.TABLES
    + intervals.TABLES
    + calibration_state.TABLES
    + probe.TABLES
    + briefing.TABLES
    + claims.TABLES
    + gharchive.TABLES
    + replay.TABLES
)
TABLES_BY_NAME: dict[str, Table] = {t.name: t for t in ALL_TABLES}

__all__ = ["ALL_TABLES", "TABLES_BY_NAME", "Column", "Table"]
