"""The declaration types every table is described with: once, with types, units and meaning."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Column:
    """One column: DuckDB type, what it holds, and its unit (empty when unitless)."""

    name: str
    type: str
    description: str
    unit: str = ""
    nullable: bool = True


@dataclass(frozen=True)
class Table:
    """One table analysts can rely on: its columns, primary key and meaning."""

    name: str
    description: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    group: str = "core"
    notes: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    view_sql: str = ""  # non-empty: a view over other tables, defined by this SELECT
    # False: the primary key gets no index (no PRIMARY KEY clause). Every writer keeps it unique
    # by construction (keyed upserts: new rows are only those whose key is absent) and
    # `Store.duplicate_keys` checks it. For big tables whose index costs more than it guards.
    key_indexed: bool = True

    def column(self, name: str) -> Column:
        """The declared column called `name` (KeyError when absent)."""
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"{self.name}.{name}")

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def ddl(self) -> str:
        """CREATE TABLE statement for this declaration (CREATE OR REPLACE VIEW for a view)."""
        if self.view_sql:
            return f'CREATE OR REPLACE VIEW "{self.name}" AS {self.view_sql}'
        cols = []
        for c in self.columns:
            null = "" if c.nullable and c.name not in self.primary_key else " NOT NULL"
            cols.append(f'"{c.name}" {c.type}{null}')
        if self.primary_key and self.key_indexed:
            cols.append("PRIMARY KEY (" + ", ".join(f'"{k}"' for k in self.primary_key) + ")")
        return f'CREATE TABLE IF NOT EXISTS "{self.name}" (\n  ' + ",\n  ".join(cols) + "\n)"


def col(name: str, type_: str, description: str, unit: str = "", nullable: bool = True) -> Column:
    """Shorthand for Column(...)."""
    return Column(name, type_, description, unit, nullable)
