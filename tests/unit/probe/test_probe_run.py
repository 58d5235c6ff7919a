"""The real CPU quick suite: environment, timing statistics, gating fields and the summary."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

from shu.probe import FORMAT_VERSION
from shu.probe.__main__ import format_table, rate
from shu.probe.runner import geomean
from shu.probe.suite import SUITE_VERSION, SUITES

ROOT = Path(__file__).resolve().parents[3]


def test_run_describes_the_environment(quick_run, torch):
    env = quick_run["environment"]
    assert env["backend"] == "cpu"
    assert env["torch_version"] == torch.__version__
    assert env["hip_version"] == torch.version.hip
    assert env["cpu_threads"] == 1
    assert env["cpu_model"]
    assert quick_run["format_version"] == FORMAT_VERSION
    assert quick_run["suite_version"] == SUITE_VERSION
    assert quick_run["compile_cache"]["state"] in ("cold", "warm", "mixed")
    assert quick_run["ceilings"]["copy_gbps"] > 0
    assert quick_run["ceilings"]["matmul_tflops"] > 0
    assert quick_run["ceilings"]["matmul_dtype"] == "float32"


def test_every_quick_kernel_is_measured_and_valid(quick_run):
    assert [r["kernel"] for r in quick_run["results"]] == list(SUITES["quick"])
    for r in quick_run["results"]:
        assert r["is_valid"], (r["kernel"], r["invalid_reason"])
        assert r["correct"] and r["rel_error"] <= r["tolerance"] == 1e-4
        assert r["recompiles"] == 0 and r["graph_breaks"] == 0 and r["frames_compiled"] == 1
        assert r["timer"] == "host_perf_counter"
        assert r["compile_s"] >= 0
        for variant in ("eager", "compiled"):
            stats = r[variant]
            assert stats["repeats"] == len(stats["samples_ms"]) == 30
            assert stats["p20_ms"] <= stats["median_ms"] <= stats["p80_ms"]
            assert stats["cv"] >= 0
        assert math.isclose(r["speedup"], r["eager"]["median_ms"] / r["compiled"]["median_ms"])
        assert r["achieved_compiled"] > 0 and r["fraction_of_ceiling"] > 0


def test_summary_is_the_geomean_of_valid_kernels(quick_run):
    speedups = [r["speedup"] for r in quick_run["results"] if r["is_valid"]]
    summary = quick_run["summary"]
    assert summary["n_valid"] == len(speedups)
    assert summary["pass_rate"] == len(speedups) / len(quick_run["results"])
    assert math.isclose(summary["geomean_speedup"], geomean(speedups))
    assert math.isclose(
        summary["geomean_speedup_clipped"], geomean([max(s, 1.0) for s in speedups])
    )
    assert summary["geomean_speedup_clipped"] >= summary["geomean_speedup"]


def test_document_is_strict_json_and_prints_as_a_table(quick_run):
    text = json.dumps(quick_run, allow_nan=False)
    assert json.loads(text)["run_id"] == quick_run["run_id"]
    table = format_table(quick_run)
    for kernel in SUITES["quick"]:
        assert kernel in table
    assert "geomean speedup raw" in table and "clipped at 1.0" in table


def test_probe_package_imports_only_torch_and_the_standard_library():
    code = (
        "import sys, shu.probe.runner, shu.probe.__main__\n"
        "heavy = {'duckdb', 'pydantic', 'pandas', 'prefect', 'pyarrow', 'shu.store', "
        "'shu.settings'} & set(sys.modules)\n"
        "print(sorted(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert out == "[]"


def test_a_slow_rate_is_printed_in_the_unit_that_fits():
    """A CPU's gemm at 0.0412 TFLOP/s, 98% of its ceiling, reads 41.2 GFLOP/s, never 0.0
    TFLOP/s beside 98; fast rates keep their unit (the committed H200 run)."""
    doc = json.loads((ROOT / "docs" / "probe" / "h200-full-cold.json").read_text())
    table = format_table(doc)
    assert re.search(r"gemm_bias_relu .* 641\.8 TFLOP/s +95 ", table), table
    assert "ceilings: copy 4247.9 GB/s" in table
    gemm = next(r for r in doc["results"] if r["kernel"] == "gemm_bias_relu")
    gemm["achieved_compiled"], gemm["fraction_of_ceiling"] = 0.0412, 0.98
    doc["ceilings"]["matmul_tflops"] = 0.042
    table = format_table(doc)
    assert re.search(r"gemm_bias_relu .* 41\.2 GFLOP/s +98 ", table), table
    assert "matmul 42.0 GFLOP/s" in table and " 0.0 " not in table
    assert [rate(v, u) for v, u in [(0.0005, "TFLOP/s"), (0.5, "GB/s"), (2.0, "other")]] == [
        "500.0 MFLOP/s",
        "500.0 MB/s",
        "2.0 other",
    ]
