"""Probe JSON into the store: round trip, idempotence, and one-line errors on bad documents."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from shu.errors import InputError
from shu.probe_ingest import ingest_probe_file, store_probe_document
from shu.schema import TABLES_BY_NAME
from shu.store import open_store


def _rows(store, sql, *params):
    return store.con.execute(sql, list(params)).fetchall()


def test_quick_run_round_trips_into_the_store(store, quick_run):
    load = store_probe_document(store, quick_run, "test")
    n = len(quick_run["results"])
    assert (load.rows_inserted, load.rows_updated) == (1 + n, 0)
    run = store.con.execute(
        "SELECT backend, suite, suite_version, geomean_speedup, geomean_speedup_clipped, "
        "pass_rate, n_valid, copy_gbps, cpu_threads, raw_json FROM probe_runs WHERE run_id = ?",
        [quick_run["run_id"]],
    ).fetchall()[0]
    summary = quick_run["summary"]
    assert run[:3] == ("cpu", "quick", quick_run["suite_version"])
    assert run[3] == pytest.approx(summary["geomean_speedup"])
    assert run[4] == pytest.approx(summary["geomean_speedup_clipped"])
    assert run[5:7] == (summary["pass_rate"], summary["n_valid"])
    assert run[7] == pytest.approx(quick_run["ceilings"]["copy_gbps"])
    assert run[8] == 1
    assert json.loads(run[9]) == json.loads(json.dumps(quick_run))
    stored = {
        r[0]: r[1:]
        for r in _rows(
            store,
            "SELECT kernel, is_valid, eager_ms, compiled_ms, eager_p20_ms, compiled_p80_ms, "
            "repeats, speedup, detail FROM probe_results WHERE run_id = ?",
            quick_run["run_id"],
        )
    }
    for r in quick_run["results"]:
        valid, eager, compiled, p20, p80, repeats, speedup, detail = stored[r["kernel"]]
        assert valid is r["is_valid"]
        assert (eager, compiled) == pytest.approx(
            (r["eager"]["median_ms"], r["compiled"]["median_ms"])
        )
        assert (p20, p80) == pytest.approx((r["eager"]["p20_ms"], r["compiled"]["p80_ms"]))
        assert repeats == r["compiled"]["repeats"]
        assert speedup == pytest.approx(r["speedup"])
        assert json.loads(detail)["wall_s"] == pytest.approx(r["wall_s"])


def test_ingest_is_idempotent_by_run_id(store, quick_run, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(quick_run))
    first = ingest_probe_file(store, path)
    again = ingest_probe_file(store, path)
    assert first.rows_inserted == 1 + len(quick_run["results"])
    assert (again.rows_inserted, again.rows_updated) == (0, 0)
    assert _rows(store, "SELECT count(*) FROM probe_runs") == [(1,)]
    assert _rows(store, "SELECT count(DISTINCT ingested_at) FROM probe_runs") == [(1,)]


def test_the_same_document_from_another_path_updates_nothing(store, quick_run, tmp_path):
    first, copy_of_it = tmp_path / "run.json", tmp_path / "elsewhere" / "run.json"
    copy_of_it.parent.mkdir()
    for path in (first, copy_of_it):
        path.write_text(json.dumps(quick_run))
    ingest_probe_file(store, first)
    again = ingest_probe_file(store, copy_of_it)
    assert (again.rows_inserted, again.rows_updated) == (0, 0)
    assert _rows(store, "SELECT source FROM probe_runs") == [(str(first),)]
    changed = copy.deepcopy(quick_run)
    changed["summary"]["pass_rate"] = 0.5  # a changed document is still an update
    assert store_probe_document(store, changed, str(copy_of_it)).rows_updated == 1


def test_gpu_run_from_another_host_is_stored(store, h200_run):
    store_probe_document(store, h200_run, "docs/probe/h200-full-warm.json")
    assert _rows(
        store, "SELECT backend, device_arch, hip_version IS NULL, compile_cache FROM probe_runs"
    ) == [("cuda", "sm_90", True, "warm")]
    rows = _rows(
        store,
        "SELECT kernel, timer, do_bench_compiled_ms, per_iteration_compiled_ms, "
        "peak_bytes_eager FROM probe_results ORDER BY kernel",
    )
    assert len(rows) == 6
    for kernel, timer, do_bench, per_iteration, peak in rows:
        assert timer == "cuda_events_flush_primed", kernel
        assert do_bench > 0 and per_iteration > 0 and peak > 0


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (
            lambda d: d["results"][1]["compiled"].__setitem__("median_ms", "fast"),
            "results[1].compiled.median_ms",
        ),
        (lambda d: d["environment"].pop("backend"), "environment.backend"),
        (lambda d: d["environment"].__setitem__("backend", "tpu"), "environment.backend"),
        (lambda d: d.__setitem__("started_at", "yesterday"), "started_at"),
        (lambda d: d["results"][0].__setitem__("is_valid", "yes"), "results[0].is_valid"),
        (lambda d: d["summary"].__setitem__("n_kernels", 99), "summary.n_kernels"),
        (lambda d: d.__setitem__("format_version", 99), "format_version"),
    ],
)
def test_malformed_documents_fail_with_file_and_field(store, quick_run, tmp_path, mutate, field):
    doc = copy.deepcopy(quick_run)
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        ingest_probe_file(store, path)
    message = str(err.value)
    assert "\n" not in message
    assert str(path) in message and f"'{field}'" in message
    assert _rows(store, "SELECT count(*) FROM probe_runs") == [(0,)]
    assert _rows(store, "SELECT count(*) FROM probe_results") == [(0,)]
    assert _rows(store, "SELECT status FROM ingest_log") == [("failed",)]


def test_not_json_names_the_file_and_position(store, tmp_path):
    path = tmp_path / "truncated.json"
    path.write_text('{"format_version": 1, "run_id": ')
    with pytest.raises(InputError, match=r"truncated\.json: not valid JSON at line 1"):
        ingest_probe_file(store, path)


BEFORE_INDUCTOR = Path(__file__).parent / "fixtures" / "h100-full-warm-before-inductor.json"
INDUCTOR_COLUMNS = (
    "generated_kernels",
    "eager_kernels",
    "substitutions",
    "inductor_did",
    "inductor",
)


def test_the_inductor_record_is_stored_in_its_columns(store, attention_run):
    doc, _, _ = attention_run
    store_probe_document(store, doc, "cpu attention")
    rows = {
        r[0]: r[1:]
        for r in _rows(
            store,
            f"SELECT kernel, {', '.join(INDUCTOR_COLUMNS)}, detail FROM probe_results",
        )
    }
    for r in doc["results"]:
        generated, eager, _, did, record, detail = rows[r["kernel"]]
        assert generated == r["inductor"]["generated_kernels"]
        assert eager is None  # no device profiler on a CPU
        assert did == r["inductor"]["summary"]
        assert json.loads(record) == r["inductor"] and "inductor" not in json.loads(detail)
    assert rows["sdpa"][2] is None
    assert rows["naive_attention"][2] == (
        "bmm+mul+_softmax+bmm → aten._scaled_dot_product_flash_attention_for_cpu (SDPA)"
    )
    (without,) = _rows(store, "SELECT geomean_speedup_without_substitutions FROM probe_runs")[0]
    assert without == pytest.approx(doc["summary"]["geomean_speedup_without_substitutions"])


def test_a_document_from_before_the_inductor_record_still_ingests(store):
    """A real H100 run of the probe before it read Inductor's code: stored, new columns NULL."""
    old = json.loads(BEFORE_INDUCTOR.read_text())
    assert "inductor" not in old["results"][0]
    load = ingest_probe_file(store, BEFORE_INDUCTOR)
    assert load.rows_inserted == 1 + len(old["results"])
    nulls = " AND ".join(f"{c} IS NULL" for c in INDUCTOR_COLUMNS)
    assert _rows(store, f"SELECT count(*) FROM probe_results WHERE {nulls}") == [(6,)]
    assert _rows(store, "SELECT geomean_speedup_without_substitutions FROM probe_runs") == [(None,)]


def test_a_store_from_before_gains_the_columns_by_migration(store_path, attention_run):
    """A store whose probe tables predate the Inductor columns: migration 4 rebuilds them in
    the declared column order with every row kept."""
    with open_store(store_path) as s:
        ingest_probe_file(s, BEFORE_INDUCTOR)
        before = _rows(s, "SELECT * FROM probe_results ORDER BY kernel")
        for column in INDUCTOR_COLUMNS:
            s.con.execute(f"ALTER TABLE probe_results DROP COLUMN {column}")
        s.con.execute("ALTER TABLE probe_runs DROP COLUMN geomean_speedup_without_substitutions")
        s.con.execute("DELETE FROM _shu_migrations WHERE version = 4")
    with open_store(store_path) as s:
        names = [n for v, n, _ in s.migrations() if v == 4]
        assert names == ["probe_runs, probe_results: what Inductor did, rows kept"]
        assert not any("auto:" in n for _, n, _ in s.migrations())
        for table in ("probe_runs", "probe_results"):
            cols = [d[0] for d in s.con.execute(f"SELECT * FROM {table} LIMIT 0").description]
            assert cols == TABLES_BY_NAME[table].column_names
        after = _rows(s, "SELECT * FROM probe_results ORDER BY kernel")
        assert after == before
        store_probe_document(s, attention_run[0], "cpu attention")
        assert _rows(s, "SELECT count(*) FROM probe_results WHERE inductor IS NOT NULL") == [(2,)]
