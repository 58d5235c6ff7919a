"""Store probe results: validate a probe JSON document and upsert it into `probe_runs` and
`probe_results`.

Documents come from `python -m shu.probe --out PATH` on any host (`shu ingest probe PATH`) or
from a local run (`shu probe`). Ingest is idempotent by `run_id`: storing the same document
again changes nothing, whatever path it is read from (`source` and `ingested_at` keep the first
ingestion's). A malformed document is rejected whole with one line naming the file
and the field at fault; nothing is written for it but a 'failed' ingest_log row.

This module reads plain JSON and never imports torch, so any machine with the store can ingest.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from shu.errors import InputError
from shu.probe import FORMAT_VERSION
from shu.probe.inductor import FAMILY_WORDS
from shu.schema import TABLES_BY_NAME
from shu.store import Load, Store, utcnow

_ARROW_TYPES = {
    "VARCHAR": pa.string(),
    "DOUBLE": pa.float64(),
    "BOOLEAN": pa.bool_(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "TIMESTAMP": pa.timestamp("us"),
}

_NUMBER = (int, float)


class _Doc:
    """Typed access to a probe document that names the file and field on any error."""

    def __init__(self, data: Any, source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, field: str, problem: str) -> InputError:
        return InputError(f"probe JSON {self.source}: field '{field}' {problem}")

    def get(
        self, obj: Any, path: str, key: str, kind: type | tuple[type, ...], required: bool = True
    ) -> Any:
        field = f"{path}.{key}" if path else key
        if not isinstance(obj, dict):
            raise self.fail(path or "<top>", "must be an object")
        if key not in obj or obj[key] is None:
            if required:
                raise self.fail(field, "is missing")
            return None
        value = obj[key]
        bad_bool = kind in (_NUMBER, int) and isinstance(value, bool)
        if bad_bool or not isinstance(value, kind):
            names = "number" if kind is _NUMBER else getattr(kind, "__name__", str(kind))
            raise self.fail(field, f"must be {names}, got {type(value).__name__} {value!r:.40}")
        return value

    def timestamp(self, obj: Any, path: str, key: str) -> datetime:
        text = self.get(obj, path, key, str)
        try:
            moment = datetime.fromisoformat(text)
        except ValueError as exc:
            raise self.fail(
                f"{path}.{key}" if path else key, f"must be an ISO-8601 timestamp, got {text!r:.40}"
            ) from exc
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
        return moment


def load_probe_file(path: Path) -> dict:
    """Read a probe JSON file (one-line InputError when unreadable or not JSON)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"probe JSON {path}: cannot read: {exc.strerror or exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"probe JSON {path}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc


def probe_rows(doc: dict, source: str) -> tuple[dict, list[dict]]:
    """The `probe_runs` row and `probe_results` rows of a document (validated on the way)."""
    d = _Doc(doc, source)
    version = d.get(doc, "", "format_version", int)
    if version != FORMAT_VERSION:
        raise d.fail("format_version", f"is {version}; this shu reads version {FORMAT_VERSION}")
    env = d.get(doc, "", "environment", dict)
    ceilings = d.get(doc, "", "ceilings", dict)
    summary = d.get(doc, "", "summary", dict)
    settings = d.get(doc, "", "settings", dict)
    cache = d.get(doc, "", "compile_cache", dict)
    run_id = d.get(doc, "", "run_id", str)
    if not run_id.strip():
        raise d.fail("run_id", "is empty")
    backend = d.get(env, "environment", "backend", str)
    if backend not in ("cuda", "rocm", "cpu", "mps"):
        raise d.fail("environment.backend", f"must be cuda, rocm, cpu or mps, got {backend!r:.20}")
    results = d.get(doc, "", "results", list)
    run = {
        "run_id": run_id,
        "host": d.get(env, "environment", "host", str),
        "backend": backend,
        "device_name": d.get(env, "environment", "device_name", str, required=False),
        "device_arch": d.get(env, "environment", "device_arch", str, required=False),
        "driver_version": d.get(env, "environment", "driver_version", str, required=False),
        "cuda_version": d.get(env, "environment", "cuda_version", str, required=False),
        "hip_version": d.get(env, "environment", "hip_version", str, required=False),
        "torch_version": d.get(env, "environment", "torch_version", str),
        "triton_version": d.get(env, "environment", "triton_version", str, required=False),
        "cpu_model": d.get(env, "environment", "cpu_model", str, required=False),
        "cpu_threads": d.get(env, "environment", "cpu_threads", int, required=False),
        "started_at": d.timestamp(doc, "", "started_at"),
        "finished_at": d.timestamp(doc, "", "finished_at"),
        "wall_s": float(d.get(doc, "", "wall_s", _NUMBER)),
        "suite": d.get(doc, "", "suite", str),
        "suite_version": d.get(doc, "", "suite_version", str),
        "format_version": version,
        "dtype": d.get(settings, "settings", "dtype", str),
        "compile_cache": d.get(cache, "compile_cache", "state", str),
        "copy_gbps": float(d.get(ceilings, "ceilings", "copy_gbps", _NUMBER)),
        "matmul_tflops": float(d.get(ceilings, "ceilings", "matmul_tflops", _NUMBER)),
        "matmul_dtype": d.get(ceilings, "ceilings", "matmul_dtype", str),
        "n_kernels": d.get(summary, "summary", "n_kernels", int),
        "n_valid": d.get(summary, "summary", "n_valid", int),
        "geomean_speedup": _float(d.get(summary, "summary", "geomean_speedup", _NUMBER, False)),
        "geomean_speedup_clipped": _float(
            d.get(summary, "summary", "geomean_speedup_clipped", _NUMBER, False)
        ),
        "geomean_speedup_without_substitutions": _float(
            d.get(summary, "summary", "geomean_speedup_without_substitutions", _NUMBER, False)
        ),
        "pass_rate": float(d.get(summary, "summary", "pass_rate", _NUMBER)),
        "source": source,
        "raw_json": json.dumps(doc, sort_keys=True),
    }
    if run["n_kernels"] != len(results):
        raise d.fail(
            "summary.n_kernels", f"is {run['n_kernels']} but results holds {len(results)} kernels"
        )
    rows = [_result_row(d, r, f"results[{i}]", run_id) for i, r in enumerate(results)]
    names = [r["kernel"] for r in rows]
    if len(set(names)) != len(names):
        raise d.fail("results", "names a kernel twice")
    return run, rows


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


# Scalars that have their own column; everything else (timing stats with raw samples, launch
# costs, reference timers, clocks, cache hits) goes to the `detail` JSON.
_RESULT_KEYS = {
    "kernel",
    "category",
    "shape",
    "dtype",
    "is_valid",
    "invalid_reason",
    "correct",
    "rel_error",
    "tolerance",
    "recompiles",
    "graph_breaks",
    "compile_s",
    "timer",
    "speedup",
    "speedup_unchecked",
    "achieved_unit",
    "achieved_eager",
    "achieved_compiled",
    "fraction_of_ceiling",
    "inductor",
}


def _result_row(d: _Doc, r: Any, path: str, run_id: str) -> dict:
    get = d.get
    is_valid = get(r, path, "is_valid", bool)
    timed = isinstance(r, dict) and r.get("compiled") is not None
    row: dict[str, Any] = {
        "run_id": run_id,
        "kernel": get(r, path, "kernel", str),
        "category": get(r, path, "category", str, required=False),
        "shape": get(r, path, "shape", str, required=False),
        "dtype": get(r, path, "dtype", str, required=False),
        "is_valid": is_valid,
        "invalid_reason": get(r, path, "invalid_reason", str, required=False),
        "correct": get(r, path, "correct", bool, required=False),
        "rel_error": _float(get(r, path, "rel_error", _NUMBER, required=False)),
        "tolerance": _float(get(r, path, "tolerance", _NUMBER, required=False)),
        "recompiles": get(r, path, "recompiles", int, required=timed),
        "graph_breaks": get(r, path, "graph_breaks", int, required=timed),
        "compile_s": _float(get(r, path, "compile_s", _NUMBER, required=False)),
        "timer": get(r, path, "timer", str, required=timed),
        "speedup": _float(get(r, path, "speedup", _NUMBER, required=is_valid)),
        "speedup_unchecked": _float(get(r, path, "speedup_unchecked", _NUMBER, required=timed)),
        "achieved_unit": get(r, path, "achieved_unit", str, required=False),
        "achieved_eager": _float(get(r, path, "achieved_eager", _NUMBER, required=False)),
        "achieved_compiled": _float(get(r, path, "achieved_compiled", _NUMBER, required=False)),
        "fraction_of_ceiling": _float(get(r, path, "fraction_of_ceiling", _NUMBER, required=False)),
    }
    if is_valid and not timed:
        raise d.fail(f"{path}.compiled", "is missing for a kernel marked valid")
    repeats = None
    for variant in ("eager", "compiled"):
        stats = get(r, path, variant, dict, required=timed)
        vpath = f"{path}.{variant}"
        row[f"{variant}_ms"] = _float(get(stats, vpath, "median_ms", _NUMBER)) if timed else None
        for q in ("p20", "p80"):
            row[f"{variant}_{q}_ms"] = (
                _float(get(stats, vpath, f"{q}_ms", _NUMBER)) if timed else None
            )
        row[f"{variant}_cv"] = _float(get(stats, vpath, "cv", _NUMBER)) if timed else None
        repeats = get(stats, vpath, "repeats", int) if timed else None
    row["repeats"] = repeats
    refs = get(r, path, "reference_timers", dict, required=False) or {}
    for variant in ("eager", "compiled"):
        ref = get(refs, f"{path}.reference_timers", variant, dict, required=False) or {}
        rpath = f"{path}.reference_timers.{variant}"
        row[f"do_bench_{variant}_ms"] = _float(get(ref, rpath, "do_bench_ms", _NUMBER, False))
    compiled_ref = refs.get("compiled") or {}
    row["per_iteration_compiled_ms"] = _float(
        get(
            compiled_ref,
            f"{path}.reference_timers.compiled",
            "per_iteration_events_ms",
            _NUMBER,
            False,
        )
    )
    peak = get(r, path, "peak_bytes", dict, required=False) or {}
    row["peak_bytes_eager"] = get(peak, f"{path}.peak_bytes", "eager", int, required=False)
    row["peak_bytes_compiled"] = get(peak, f"{path}.peak_bytes", "compiled", int, required=False)
    row.update(_inductor_columns(d, r, path))
    row["detail"] = json.dumps(
        {k: v for k, v in r.items() if k not in _RESULT_KEYS}, sort_keys=True
    )
    return row


def _inductor_columns(d: _Doc, r: dict, path: str) -> dict[str, Any]:
    """The columns of a result's `inductor` record; all NULL for documents without one (runs
    made before the probe recorded it)."""
    record = d.get(r, path, "inductor", dict, required=False)
    if record is None:
        return dict.fromkeys(
            ("generated_kernels", "eager_kernels", "substitutions", "inductor_did", "inductor")
        )
    ipath = f"{path}.inductor"
    subs = d.get(record, ipath, "substitutions", list, required=False) or []
    texts = []
    for i, sub in enumerate(subs):
        spath = f"{ipath}.substitutions[{i}]"
        replaced = d.get(sub, spath, "replaced", list, required=False) or []
        family = d.get(sub, spath, "family", str, required=False)
        texts.append(
            f"{'+'.join(map(str, replaced)) or 'pattern'} → {d.get(sub, spath, 'by', str)}"
            + (f" ({FAMILY_WORDS.get(family, family)})" if family else "")
        )
    return {
        "generated_kernels": d.get(record, ipath, "generated_kernels", int, required=False),
        "eager_kernels": d.get(record, ipath, "eager_kernels", int, required=False),
        "substitutions": "; ".join(texts) or None,
        "inductor_did": d.get(record, ipath, "summary", str, required=False),
        "inductor": json.dumps(record, sort_keys=True),
    }


def _arrow(table: str, rows: list[dict]) -> pa.Table:
    decl = TABLES_BY_NAME[table]
    names = [c for c in decl.column_names if c in rows[0]] if rows else decl.column_names
    schema = pa.schema([(c.name, _ARROW_TYPES[c.type]) for c in decl.columns if c.name in names])
    return pa.Table.from_pylist([{k: row.get(k) for k in names} for row in rows], schema=schema)


def store_probe_document(store: Store, doc: dict, source: str) -> Load:
    """Validate `doc` and upsert it (one transaction, one ingest_log row). Idempotent."""
    with store.load(source=source, target="probe_runs") as load:
        run, results = probe_rows(doc, source)
        load.rows_read = 1 + len(results)
        # A run is identified by run_id: where and when it was first stored stay as they were,
        # so the same document again (from any path, or another copy of it) updates nothing.
        first_seen = store.con.execute(
            "SELECT ingested_at, source FROM probe_runs WHERE run_id = ?", [run["run_id"]]
        ).fetchall()
        run["ingested_at"], run["source"] = first_seen[0] if first_seen else (utcnow(), source)
        load.add(store.upsert("probe_runs", _arrow("probe_runs", [run])))
        if results:
            load.add(store.upsert("probe_results", _arrow("probe_results", results)))
        load.message = (
            f"run {run['run_id']} ({run['backend']}, {run['suite']}): "
            f"{load.rows_inserted} inserted, {load.rows_updated} updated"
        )
    return load


def ingest_probe_file(store: Store, path: Path) -> Load:
    """`shu ingest probe PATH`: read, validate and store one probe JSON file."""
    return store_probe_document(store, load_probe_file(path), str(path))
