"""Every table shu stores, declared once (name, columns, types, units, meaning, primary key),
and every column name once as a field (`ALL_FIELDS`: type, unit, meaning).

The store creates tables from these declarations and `docs/data-dictionary.md` is rendered from
them (`shu docs`); a test fails when the rendered file is stale, and one when a column name is
declared with two types or units or a column has no field (`registry.field_problems`).
"""

from shu.schema import (
    briefing,
    calibration_state,
    claims,
    core,
    forecasts,
    gharchive,
    intervals,
    market_spikes,
    probe,
    project,
    replay,
    rocm_index,
    signals,
    star_days,
)
from shu.schema.base import Column, Field, Table
from shu.schema.fields import HOMONYMS, MEANING_EXCEPTIONS
from shu.schema.registry import collect_fields

# The schema modules in the data dictionary's order: each declares its own FIELDS and TABLES.
_MODULES = (
    core,
    project,
    signals,
    star_days,
    market_spikes,
    rocm_index,
    forecasts,
    intervals,
    calibration_state,
    probe,
    briefing,
    claims,
    gharchive,
    replay,
)
ALL_TABLES: tuple[Table, ...] = tuple(t for m in _MODULES for t in m.TABLES)
# The tables that are shu's own bookkeeping, not the analysts' (`Table.internal`).
INTERNAL_TABLES: frozenset[str] = frozenset(t.name for t in ALL_TABLES if t.internal)
TABLES_BY_NAME: dict[str, Table] = {t.name: t for t in ALL_TABLES}

# Every declared field by name (two declarations only for the names in HOMONYMS).
ALL_FIELDS: dict[str, tuple[Field, ...]] = collect_fields(m.FIELDS for m in _MODULES)

__all__ = [
    "ALL_FIELDS",
    "ALL_TABLES",
    "HOMONYMS",
    "INTERNAL_TABLES",
    "MEANING_EXCEPTIONS",
    "TABLES_BY_NAME",
    "Column",
    "Field",
    "Table",
]
