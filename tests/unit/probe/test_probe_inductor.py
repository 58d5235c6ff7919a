"""What Inductor did: its output code read (torch 2.11's CUDA wrapper from the committed H100 run,
torch 2.13's CPU wrapper from this machine), substitutions found by op family, the committed
records checked against their code and the profiler, the record on a real CPU run, and that
reading the code never touches the timing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shu.probe import inductor
from shu.probe.inductor import describe, family_of, find_substitutions, parse_output_code

DOCS_PROBE = Path(__file__).resolve().parents[3] / "docs" / "probe"
CODE = DOCS_PROBE / "inductor-code"
GPU_RUNS = ("h100-full-cold", "h100-full-warm", "h200-full-cold", "h200-full-warm")


def code(backend: str, kernel: str) -> str:
    """Output code Inductor wrote for a suite kernel: `cuda` from the committed H100 run (torch
    2.11, Triton), `cpu` from this project's CPU (torch 2.13, C++); see docs/probe/README.md."""
    path = CODE / backend / f"{kernel}.py"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path.read_text()


def test_a_fused_triton_kernel_is_one_generated_kernel_and_one_launch():
    got = parse_output_code([code("cuda", "layernorm_gelu")])
    assert got["generated_kernel_names"] == ["triton_red_fused_gelu_native_layer_norm_0"]
    assert got["kernel_language"] == "Triton"
    assert got["generated_launches"] == 1 and got["extern_calls"] == []
    assert got["kernel_calls"] == 1


def test_a_library_gemm_and_its_epilogue_are_two_kernel_calls():
    cuda = parse_output_code([code("cuda", "gemm_bias_relu")])
    assert cuda["generated_kernel_names"] == ["triton_poi_fused_add_relu_0"]
    assert cuda["extern_calls"] == [{"op": "extern_kernels.mm", "family": "matmul", "count": 1}]
    assert cuda["kernel_calls"] == 2
    cpu = parse_output_code([code("cpu", "gemm_bias_relu")])  # the bias folded into addmm
    assert cpu["extern_calls"] == [{"op": "extern_kernels.addmm", "family": "matmul", "count": 1}]
    assert cpu["kernel_language"] == "C++" and cpu["kernel_calls"] == 2


def test_an_sdpa_call_is_read_from_the_call_not_from_comments_or_strings():
    text = code("cuda", "naive_attention")
    assert text.count("_scaled_dot_product_cudnn_attention") > 1  # comments, asserts, the call
    got = parse_output_code([text])
    assert got["generated_kernels"] == 0
    assert got["extern_calls"] == [
        {"op": "aten._scaled_dot_product_cudnn_attention", "family": "sdpa", "count": 1}
    ]
    cpu = parse_output_code([code("cpu", "naive_attention")])
    assert [c["op"] for c in cpu["extern_calls"]] == [
        "aten._scaled_dot_product_flash_attention_for_cpu"
    ]


def test_a_call_spelled_inside_a_kernel_body_is_not_a_call():
    body = "def triton_poi_fused_0(in_ptr0):\n    extern_kernels.mm(a, b)  # not a wrapper call\n"
    text = (
        f"triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''\n{body}''', "
        "device_str='cuda')\n"
        "def call(args):\n"
        "    triton_poi_fused_0.run(buf0, 16, stream=stream0)\n"
        "    triton_poi_fused_0.run(buf1, 16, stream=stream0)\n"
    )
    got = parse_output_code([text])
    assert got["extern_calls"] == [] and got["generated_launches"] == 2


@pytest.mark.parametrize("run", GPU_RUNS)
def test_the_committed_records_match_the_code_and_the_profiler(run):
    """Each committed GPU run's record is what the committed code parses to, and the kernel
    calls read from the code are the device kernels the profiler saw one compiled call launch."""
    path = DOCS_PROBE / f"{run}.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        record = r["inductor"]
        parsed = parse_output_code([code("cuda", r["kernel"])])
        assert {k: record[k] for k in parsed} == parsed, r["kernel"]
        assert record["kernel_calls"] == record["compiled_kernels"], r["kernel"]
        assert record["code_source"] == "FX graph cache"  # the timed compile's own graph
        assert (r["kernel"] == "naive_attention") == bool(record["substitutions"])


@pytest.mark.parametrize(
    ("op", "family"),
    [
        ("aten._scaled_dot_product_flash_attention", "sdpa"),
        ("aten._scaled_dot_product_efficient_attention", "sdpa"),
        ("aten._scaled_dot_product_cudnn_attention", "sdpa"),
        ("aten._scaled_dot_product_flash_attention_for_cpu", "sdpa"),
        ("extern_kernels.addmm", "matmul"),
        ("extern_kernels.bmm", "matmul"),
        ("aten.bmm", "matmul"),
        ("mkl._mkl_linear", "matmul"),
        ("extern_kernels.convolution", "convolution"),
        ("aten._softmax", "_softmax"),
    ],
)
def test_ops_fall_into_families(op, family):
    assert family_of(op) == family


def test_a_library_op_of_a_family_eager_never_called_is_a_substitution():
    calls = parse_output_code([code("cuda", "naive_attention")])["extern_calls"]
    subs = find_substitutions(["bmm", "mul", "_softmax", "bmm"], calls)
    assert subs == [
        {
            "family": "sdpa",
            "by": "aten._scaled_dot_product_cudnn_attention",
            "replaced": ["bmm", "mul", "_softmax", "bmm"],
        }
    ]
    # eager SDPA compiled to another variant of the same library op: no substitution
    assert find_substitutions(["_scaled_dot_product_flash_attention"], calls) == []
    # mm + add + relu compiled to a library GEMM: the same family, no substitution
    gemm = parse_output_code([code("cuda", "gemm_bias_relu")])["extern_calls"]
    assert find_substitutions(["mm", "add", "relu"], gemm) == []
    # a fallback op outside the library families is not taken for a rewrite
    sort = [{"op": "aten.sort", "family": "sort", "count": 1}]
    assert find_substitutions(["topk"], sort) == []


def test_describe_says_what_was_replaced_and_counts_kernels():
    record = {
        **parse_output_code([code("cuda", "naive_attention")]),
        "eager_ops": ["bmm", "mul", "_softmax", "bmm"],
        "eager_kernels": 4,
        "compiled_kernels": 1,
    }
    record["substitutions"] = find_substitutions(record["eager_ops"], record["extern_calls"])
    text = describe(record)
    assert text.startswith("replaced bmm+mul+_softmax+bmm by the library SDPA kernel")
    assert "device kernels per call: eager 4, compiled 1" in text
    fused = {
        **parse_output_code([code("cpu", "layernorm_gelu")]),
        "eager_ops": ["native_layer_norm", "gelu"],
    }
    assert describe(fused) == "1 generated C++ kernel (eager ran 2 aten ops)"


# ----------------------------------------------------------------------------- real compiles
def test_cpu_run_detects_the_attention_substitution(attention_run):
    doc, _, _ = attention_run
    by = {r["kernel"]: r["inductor"] for r in doc["results"]}
    naive, sdpa = by["naive_attention"], by["sdpa"]
    assert naive["error"] is None and naive["graphs"] == 1
    assert [s["family"] for s in naive["substitutions"]] == ["sdpa"]
    assert "scaled_dot_product" in naive["substitutions"][0]["by"]
    assert naive["generated_kernels"] == 0
    assert {"bmm", "_softmax"} <= set(naive["eager_ops"])
    assert "by the library SDPA kernel" in naive["summary"]
    assert sdpa["substitutions"] == [] and sdpa["generated_kernels"] == 0
    assert [c["family"] for c in sdpa["extern_calls"]] == ["sdpa"]
    assert naive["eager_kernels"] is None and "no device profiler on cpu" in naive["profiler_note"]
    assert doc["summary"]["substituted_kernels"] == ["naive_attention"]
    sdpa_speedup = next(r["speedup"] for r in doc["results"] if r["kernel"] == "sdpa")
    assert doc["summary"]["geomean_speedup_without_substitutions"] == pytest.approx(sdpa_speedup)


def test_the_code_is_read_only_after_every_kernel_was_timed(attention_run):
    """Every timed phase ran before the first read of generated code, and reading it changed
    no field the timing wrote (samples, compile_s, cache counts) nor the cache state."""
    doc, events, snapshots = attention_run
    n_timed = events.count("time")  # the ceilings, then each kernel
    assert n_timed == 3 and events == ["time"] * n_timed + ["inspect"] * 2
    from shu.probe.runner import _cache_state

    for r in doc["results"]:
        assert {k: v for k, v in r.items() if k != "inductor"} == snapshots[r["kernel"]]
    hits = sum(r["fxgraph_cache"]["hits"] for r in doc["results"])
    misses = sum(r["fxgraph_cache"]["misses"] for r in doc["results"])
    cache = doc["compile_cache"]
    assert (cache["fxgraph_hits"], cache["fxgraph_misses"]) == (hits, misses)
    assert cache["state"] == _cache_state(hits, misses, cache["had_entries_at_start"])
    assert doc["summary"]["inductor_inspect_s"] > 0


def test_a_compiler_without_inductor_records_why_there_is_no_code(torch):
    from shu.probe.suite import KERNELS

    kernel = KERNELS["softmax"]
    cpu = torch.device("cpu")
    fn = kernel.make_fn(cpu, torch.float32, "cpu")
    inputs = kernel.make_inputs(cpu, torch.float32, "cpu", 0)
    record = inductor.inspect_kernel(
        fn, inputs, cpu, lambda f: torch.compile(f, backend="eager", dynamic=False)
    )
    assert record["code_source"] is None and record["substitutions"] == []
    assert record["error"] == "no Inductor output code (the compiler did not run Inductor)"
    assert record["summary"].startswith("not recorded")
