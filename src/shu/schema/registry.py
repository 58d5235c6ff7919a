"""The field registry as a whole: every schema module's fields (the shared ones and each
module's own), and the check that keeps one meaning per column name.

`field_problems` is what the registry test asserts empty: a name declared with two types or
units (unless `fields.HOMONYMS` gives the reason it keeps two meanings), a table column not made
from a registered field (declared inline, or from a field set the registry does not hold), a
column described in its own words without saying so (`FieldSet.hold(described=...)`), and a
declared exception that no longer applies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from shu.schema.base import Field, FieldSet, Table


def collect_fields(field_sets: Iterable[FieldSet]) -> dict[str, tuple[Field, ...]]:
    """Every declared field by name, each declaration once (a homonym has several)."""
    out: dict[str, list[Field]] = {}
    seen: set[int] = set()

    def add(fs: FieldSet) -> None:
        if id(fs) in seen:
            return
        seen.add(id(fs))
        if fs.base is not None:
            add(fs.base)
        for f in fs.own.values():
            out.setdefault(f.name, []).append(f)

    for fs in field_sets:
        add(fs)
    return {name: tuple(fields) for name, fields in out.items()}


def field_problems(
    tables: Iterable[Table],
    fields: Mapping[str, tuple[Field, ...]],
    homonyms: Mapping[str, str],
    meaning_exceptions: Mapping[tuple[str, str], str] = {},
) -> list[str]:
    """One line per breach of "one meaning per column name" (empty when there is none)."""
    problems = []
    for name, declared in fields.items():
        kinds = {(f.type, f.unit) for f in declared}
        if len(kinds) > 1 and name not in homonyms:
            shown = ", ".join(f"{t} in {u or 'no unit'}" for t, u in sorted(kinds))
            problems.append(f"field {name!r} is declared with two types or units: {shown}")
    problems += [
        f"homonym {name!r} is declared once only: drop it from HOMONYMS"
        for name in homonyms
        if len(fields.get(name, ())) < 2
    ]
    held = set()
    for table in tables:
        for c in table.columns:
            held.add((table.name, c.name))
            f = c.declared
            if f is None or f not in fields.get(c.name, ()) or (f.type, f.unit) != (c.type, c.unit):
                problems.append(
                    f"{table.name}.{c.name} ({c.type}, {c.unit or 'no unit'}) has no field: "
                    "declare it in its module's FIELDS (or shu.schema.fields) and hold it by name"
                )
            elif not c.specific and c.description != f.description:
                problems.append(
                    f"{table.name}.{c.name} is described unlike its field without saying so "
                    "(FieldSet.hold(described=...))"
                )
    problems += [
        f"meaning exception {t}.{c} names no column"
        for t, c in meaning_exceptions
        if (t, c) not in held
    ]
    return problems
