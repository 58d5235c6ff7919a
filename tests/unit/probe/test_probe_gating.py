"""Gating: a miscompiled kernel, a recompiling kernel and a graph break are marked invalid.

These use real torch.compile with the "eager" backend (Dynamo tracing, guards and recompiles are
real; only Inductor's code generation is skipped), so each takes seconds, not a CPU compile.
"""

from __future__ import annotations

import pytest

from shu.probe.runner import measure_kernel, summarize_results
from shu.probe.suite import KERNELS, Kernel, Work


@pytest.fixture
def cpu(torch):
    return torch.device("cpu")


def _eager_backend(torch):
    return lambda fn: torch.compile(fn, backend="eager", dynamic=False)


def _measure(torch, kernel, compiler, cpu):
    return measure_kernel(
        kernel,
        cpu,
        torch.float32,
        "cpu",
        30,
        {"copy_gbps": 10.0, "matmul_tflops": 0.1},
        compiler=compiler,
    )


def test_a_correct_compile_is_valid(torch, cpu):
    result = _measure(torch, KERNELS["softmax"], _eager_backend(torch), cpu)
    assert result["is_valid"], result["invalid_reason"]
    assert result["speedup"] == result["speedup_unchecked"] > 0


def test_a_deliberately_wrong_compile_is_invalid(torch, cpu):
    def miscompile(fn):
        return torch.compile(lambda *args: fn(*args) * 1.01, backend="eager", dynamic=False)

    result = _measure(torch, KERNELS["softmax"], miscompile, cpu)
    assert not result["is_valid"]
    assert not result["correct"]
    assert result["rel_error"] == pytest.approx(0.01, rel=1e-3)
    assert result["invalid_reason"].startswith("incorrect")
    assert result["speedup"] is None and result["speedup_unchecked"] > 0
    summary = summarize_results([result])
    assert summary["n_valid"] == 0 and summary["geomean_speedup"] is None


def test_non_finite_output_is_invalid(torch, cpu):
    def poisoned(fn):
        return torch.compile(lambda *args: fn(*args) * float("nan"), backend="eager", dynamic=False)

    result = _measure(torch, KERNELS["softmax"], poisoned, cpu)
    assert not result["is_valid"] and result["rel_error"] is None
    assert "non-finite" in result["invalid_reason"]


def _tiny_kernel(torch, name, fn):
    def inputs(device, dtype, scale, seed):
        gen = torch.Generator().manual_seed(seed)
        return (torch.randn(64, 64, generator=gen, dtype=dtype),)

    return Kernel(
        name,
        "test",
        name,
        lambda device, dtype, scale: fn,
        inputs,
        lambda dtype, scale: Work(2 * 64 * 64 * 4, 0.0, "memory", "[64, 64]"),
    )


def test_recompiles_are_detected_and_invalidate(torch, cpu):
    calls = {"n": 0}

    def drifting(x):
        calls["n"] += 1  # a new Python int every call: a guard fails, Dynamo recompiles
        return x + 0 * calls["n"]

    result = _measure(torch, _tiny_kernel(torch, "drifting", drifting), _eager_backend(torch), cpu)
    assert result["correct"]
    assert result["recompiles"] >= torch._dynamo.config.recompile_limit
    assert not result["is_valid"]
    assert "recompiled" in result["invalid_reason"]
    assert "ran eagerly" in result["invalid_reason"]


def test_graph_breaks_are_counted_and_invalidate(torch, cpu):
    def broken(x):
        y = x * 2
        torch._dynamo.graph_break()
        return y + 1

    result = _measure(torch, _tiny_kernel(torch, "broken", broken), _eager_backend(torch), cpu)
    assert result["correct"] and result["recompiles"] == 0
    assert result["graph_breaks"] >= 1
    assert not result["is_valid"] and "graph break" in result["invalid_reason"]


def test_a_compile_failure_is_a_result_not_a_crash(torch, cpu):
    def failing(fn):
        raise RuntimeError("no compiler here")

    result = _measure(torch, KERNELS["softmax"], failing, cpu)
    assert not result["is_valid"]
    assert result["invalid_reason"] == "compile failed"
    assert "no compiler here" in result["error"]
