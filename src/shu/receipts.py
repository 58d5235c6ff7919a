"""Receipts: every number and quotation in a briefing points at a stored row or passage.

A `ReceiptBook` hands out numbers ([R1], [R2], …) as a briefing is composed; the same fact cited
twice gets the same number. Kinds:

- `row`: a column value of the row with the given primary key (must equal it; floats to 1e-9);
- `passage` / `quote`: a quotation that must appear in a document passage / a text column
  (e.g. a release's notes);
- `query`: an aggregate (a count, a share, a Brier score) with the read-only SELECT over stored
  rows that reproduces it;
- `file`: a value in a JSON file shu wrote (the model card's backtest hit rates), with the
  path of keys to it (a `{"key": value}` step picks the list element with that key).

`resolve()` checks a receipt against the store. The briefing's receipts are stored in
`briefing_receipts` so anyone can re-check them later with `shu sql`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from shu.schema import TABLES_BY_NAME
from shu.store import Store


def value_text(value: Any) -> str:
    """A stored value as receipt text: exact (repr for floats, ISO for dates)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


@dataclass(frozen=True)
class Receipt:
    """One cited fact: a row's column value, or a passage's quoted text."""

    kind: str
    table: str
    key: tuple[tuple[str, Any], ...]
    column: str
    value: str
    as_of: date | None = None
    label: str = ""

    @property
    def key_json(self) -> str:
        return json.dumps(
            {
                k: value_text(v)
                if isinstance(v, date | datetime)
                else (list(v) if isinstance(v, tuple) else v)
                for k, v in self.key
            }
        )


@dataclass(frozen=True)
class Citation:
    """A stored fact a number or a line rests on: the one type every part of shu cites with (an
    evidence line, a probe verdict, a radar driver, a forecast's receipts). A `ReceiptBook` turns
    it into a numbered `Receipt` (`cite`); `as_json` and `as_record` are its two written forms."""

    kind: str  # 'row', 'quote', 'query' or 'passage'
    table: str
    key: dict[str, Any]
    column: str
    value: Any
    as_of: date | None = None
    label: str = ""
    sql: str = ""
    params: list[Any] = field(default_factory=list)
    title: str | None = None
    location: str | None = None

    def as_json(self) -> dict[str, Any]:
        """As JSON for readers (`shu radar --json`): kind, table, value, then the SELECT and its
        parameters (a query) or the row's key and column; dates as ISO text."""
        out: dict[str, Any] = {"kind": self.kind, "table": self.table, "value": _iso(self.value)}
        if self.kind == "query":
            out.update({"sql": self.sql, "params": [_iso(p) for p in self.params]})
        else:
            out.update({"key": {k: _iso(v) for k, v in self.key.items()}, "column": self.column})
        return out

    def as_record(self) -> dict[str, Any]:
        """As a forecast stores it among its receipts (`forecasts.receipts`): table, key, column,
        value and the day it is as of."""
        return {
            "table": self.table,
            "key": self.key,
            "column": self.column,
            "value": self.value,
            "as_of": None if self.as_of is None else str(self.as_of),
        }


def _iso(v: Any) -> Any:
    return str(v) if isinstance(v, date) else v


@dataclass
class ReceiptBook:
    """Numbers receipts in the order they are first cited."""

    receipts: list[Receipt] = field(default_factory=list)
    display: dict[int, dict[str, Any]] = field(default_factory=dict)
    _numbers: dict[tuple, int] = field(default_factory=dict)

    def _add(self, receipt: Receipt, display: dict[str, Any] | None = None) -> int:
        ident = (receipt.kind, receipt.table, receipt.key, receipt.column, receipt.value)
        if ident not in self._numbers:
            self.receipts.append(receipt)
            self._numbers[ident] = len(self.receipts)
            self.display[len(self.receipts)] = display or {}
        return self._numbers[ident]

    def row(
        self,
        table: str,
        key: dict[str, Any],
        column: str,
        value: Any,
        as_of: date | None = None,
        label: str = "",
    ) -> int:
        """Cite `table`.`column` = `value` for the row with primary key `key`; its number."""
        declared = TABLES_BY_NAME[table].primary_key
        if set(key) != set(declared):
            raise ValueError(
                f"receipt for {table}: key {sorted(key)} is not its primary key {list(declared)}"
            )
        return self._add(
            Receipt(
                "row",
                table,
                tuple((k, key[k]) for k in declared),
                column,
                value_text(value),
                as_of,
                label,
            )
        )

    def quote(
        self,
        table: str,
        key: dict[str, Any],
        column: str,
        quotation: str,
        as_of: date | None = None,
        label: str = "",
    ) -> int:
        """Cite `quotation` as appearing in text column `column` of a row; its number."""
        declared = TABLES_BY_NAME[table].primary_key
        return self._add(
            Receipt(
                "quote",
                table,
                tuple((k, key[k]) for k in declared),
                column,
                quotation,
                as_of,
                label,
            )
        )

    def query(
        self,
        table: str,
        sql: str,
        params: list[Any],
        value: Any,
        as_of: date | None = None,
        label: str = "",
    ) -> int:
        """Cite an aggregate `value` over `table` with the SELECT that reproduces it."""
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            raise ValueError("query receipts must be a SELECT")
        params_key = tuple(value_text(p) if isinstance(p, date | datetime) else p for p in params)
        return self._add(
            Receipt(
                "query",
                table,
                (("sql", sql), ("params", params_key)),
                "",
                value_text(value),
                as_of,
                label,
            )
        )

    def file(
        self, path: str, pointer: list[Any], value: Any, as_of: date | None = None, label: str = ""
    ) -> int:
        """Cite `value` at `pointer` inside the JSON file at `path`; its number."""
        return self._add(
            Receipt(
                "file",
                str(path),
                (("path", str(path)), ("pointer", json.dumps(pointer))),
                "",
                value_text(value),
                as_of,
                label,
            )
        )

    def passage(
        self,
        doc_id: str,
        passage_no: int,
        quotation: str,
        *,
        title: str | None,
        location: str | None,
        published_on: date | None,
        label: str = "",
    ) -> int:
        """Cite `quotation` from passage (doc_id, passage_no); its number."""
        return self._add(
            Receipt(
                "passage",
                "passages",
                (("doc_id", doc_id), ("passage_no", passage_no)),
                "text",
                quotation,
                published_on,
                label,
            ),
            {"title": title, "location": location, "published_on": published_on},
        )

    def cite(self, c: Citation) -> int:
        """Cite a stored fact an evidence line rests on; its number."""
        if c.kind == "row":
            return self.row(c.table, c.key, c.column, c.value, c.as_of, c.label)
        if c.kind == "quote":
            return self.quote(c.table, c.key, c.column, c.value, c.as_of, c.label)
        if c.kind == "query":
            return self.query(c.table, c.sql, c.params, c.value, c.as_of, c.label)
        return self.passage(
            c.key["doc_id"],
            c.key["passage_no"],
            c.value,
            title=c.title,
            location=c.location,
            published_on=c.as_of,
            label=c.label,
        )

    def get(self, number: int) -> Receipt:
        return self.receipts[number - 1]


def _file_value(receipt: Receipt) -> tuple[bool, Any]:
    key = dict(receipt.key)
    try:
        node: Any = json.loads(Path(key["path"]).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False, None
    for step in json.loads(key["pointer"]):
        if isinstance(step, dict):
            ((name, wanted),) = step.items()
            node = next((e for e in node if isinstance(e, dict) and e.get(name) == wanted), None)
        elif isinstance(node, dict):
            node = node.get(step)
        else:
            node = None
        if node is None:
            return False, None
    return True, node


def _stored_value(store: Store, receipt: Receipt) -> tuple[bool, Any]:
    if receipt.kind == "file":
        return _file_value(receipt)
    if receipt.kind == "query":
        key = dict(receipt.key)
        row = store.con.execute(key["sql"], list(key["params"])).fetchone()
        return row is not None, None if row is None else row[0]
    where = " AND ".join(f'"{k}" = ?' for k, _ in receipt.key)
    params = [v for _, v in receipt.key]
    if receipt.column.startswith("features."):
        name = receipt.column.split(".", 1)[1]
        expr = "json_extract(features, ?)"
        params = [f'$."{name}"', *params]
    else:
        expr = f'"{receipt.column}"'
    row = store.con.execute(
        f'SELECT {expr} FROM "{receipt.table}" WHERE {where}', params
    ).fetchone()
    if row is None:
        return False, None
    value = row[0]
    if receipt.column.startswith("features.") and value is not None:
        value = json.loads(str(value))
    return True, value


def resolve(store: Store, receipt: Receipt) -> str | None:
    """None when the receipt matches the store; otherwise why it does not."""
    found, stored = _stored_value(store, receipt)
    if not found:
        return f"{receipt.table} has no row or value at {receipt.key_json}"
    if receipt.kind in ("passage", "quote"):
        if " ".join(receipt.value.split()) not in " ".join(str(stored).split()):
            return f"quotation not in {receipt.table}.{receipt.column} {receipt.key_json}"
        return None
    if isinstance(stored, int | float) and not isinstance(stored, bool):
        try:
            cited = float(receipt.value)
        except ValueError:
            return f"{receipt.table}.{receipt.column} {receipt.key_json}: cited {receipt.value!r}"
        if math.isclose(cited, float(stored), rel_tol=1e-9, abs_tol=1e-12):
            return None
    elif value_text(stored) == receipt.value:
        return None
    return (
        f"{receipt.table}.{receipt.column} {receipt.key_json}: stored "
        f"{value_text(stored)!r}, cited {receipt.value!r}"
    )


def stored_receipts(store: Store, briefing_id: str) -> list[Receipt]:
    """The receipts a stored briefing cites, in number order."""
    rows = store.con.execute(
        "SELECT kind, table_name, row_key, column_name, value, as_of, label "
        "FROM briefing_receipts WHERE briefing_id = ? ORDER BY receipt_no",
        [briefing_id],
    ).fetchall()
    out = []
    for kind, table, key_json, column, value, as_of, label in rows:
        key = json.loads(key_json)
        items: tuple[tuple[str, Any], ...]
        if kind == "query":
            items = (("sql", key["sql"]), ("params", tuple(key["params"])))
        elif kind == "file":
            items = (("path", key["path"]), ("pointer", key["pointer"]))
        else:
            items = tuple((k, key[k]) for k in TABLES_BY_NAME[table].primary_key)
        out.append(Receipt(kind, table, items, column, value, as_of, label))
    return out


def display_path(location: str) -> str:
    """A stored document path as a reader sees it: relative to the working directory when it
    lies under it (no machine's absolute paths in a briefing or its JSON), else as stored."""
    path = Path(location)
    try:
        return str(path.relative_to(Path.cwd())) if path.is_absolute() else location
    except ValueError:
        return location
