"""The declaration types every table is described with: fields (a column name's type, unit and
meaning, declared once), the columns a table holds, and the table itself."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Column:
    """One column of a table: the field it holds (name, DuckDB type, unit, empty when unitless)
    and what it holds there. `specific`: the table describes the field in its own words (a
    named exception to the field's description; type and unit are always the field's).
    `declared`: the field it was made from (None for a column declared inline, which the
    registry check reports)."""

    name: str
    type: str
    description: str
    unit: str = ""
    nullable: bool = True
    specific: bool = False
    declared: Field | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Field:
    """One column name, declared once: its DuckDB type, unit and meaning, wherever it is held."""

    name: str
    type: str
    description: str
    unit: str = ""

    def column(self, description: str = "") -> Column:
        """This field as a table holds it (in the table's own words when `description`)."""
        return Column(
            self.name,
            self.type,
            description or self.description,
            self.unit,
            specific=bool(description),
            declared=self,
        )


class FieldSet:
    """Fields declared once each: those of `base` (shared by several schema modules) and one
    module's own. A table picks its columns from here by name (`hold`). A module may declare a
    field of a name `base` holds only when `homonyms` lists that name, with the reason it keeps
    two meanings."""

    def __init__(
        self,
        fields: Iterable[Field],
        base: FieldSet | None = None,
        homonyms: Mapping[str, str] | None = None,
    ) -> None:
        self.base = base
        self.homonyms: Mapping[str, str] = (
            homonyms if homonyms is not None else (base.homonyms if base else {})
        )
        self.own: dict[str, Field] = {}
        for f in fields:
            shadows = base is not None and f.name in base and f.name not in self.homonyms
            if f.name in self.own or shadows:
                raise ValueError(f"field {f.name!r} declared twice")
            self.own[f.name] = f

    def __contains__(self, name: str) -> bool:
        return name in self.own or (self.base is not None and name in self.base)

    def __getitem__(self, name: str) -> Field:
        if name in self.own:
            return self.own[name]
        if self.base is None:
            raise KeyError(f"no field {name!r} declared (add it to shu.schema's fields)")
        return self.base[name]

    def extend(self, *fields: Field) -> FieldSet:
        """A set holding these fields besides this set's."""
        return FieldSet(fields, base=self)

    def hold(self, *names: str, described: Mapping[str, str] | None = None) -> tuple[Column, ...]:
        """The columns a table holds, in order: each the field of that name, described in the
        table's own words where `described` names it (the explicit exceptions)."""
        described = described or {}
        unknown = set(described) - set(names)
        if unknown:
            raise ValueError(f"described fields not held: {sorted(unknown)}")
        return tuple(self[n].column(described.get(n, "")) for n in names)


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
    # True: shu's own bookkeeping (`http_cache`), not an analyst table: `shu export` and
    # `shu.export_tables` leave it out (`shu.schema.INTERNAL_TABLES`).
    internal: bool = False

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
