"""Loads the signal SQL files shipped in `shu/signals/sql/` and runs them statement by statement.

Placeholders `{name}` in a file are filled with values computed by shu itself (integers, ISO
dates, and SQL fragments shu's code shares between queries; never user text), so the SQL stays
plain and readable in the package.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import duckdb


@cache
def load_sql(name: str) -> tuple[str, ...]:
    """The statements of `sql/<name>.sql`, comments removed, in order."""
    text = resources.files("shu.signals").joinpath("sql", f"{name}.sql").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return tuple(s.strip() for s in "\n".join(lines).split(";\n") if s.strip().rstrip(";"))


def run_sql(con: duckdb.DuckDBPyConnection, name: str, **values: Any) -> None:
    """Run every statement of `sql/<name>.sql` with its placeholders filled from `values`."""
    for statement in load_sql(name):
        con.execute(statement.rstrip(";").format_map(values))
