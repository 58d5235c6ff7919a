"""What Inductor made of a kernel: the kernels it generated, the library ops it calls instead,
the patterns it replaced by a library op, and what the same function launches eagerly.

A speedup says how much faster the compiled call is, not why. This module reads the answer from
Inductor's own output code (the Python wrapper module it writes for each graph, captured through
`GraphLowering.save_output_code`, the hook `torch._inductor.utils.run_and_get_code` uses):
`generated_kernels` (Triton kernels on GPUs, C++ kernels on CPUs, defined through
`async_compile.*`), the launches of those kernels per call, `extern_calls` (library ops such as
`extern_kernels.mm`/`addmm` or `torch.ops.aten._scaled_dot_product_*`), and `substitutions`:
library ops of a family (SDPA, matmul, convolution) that the eager function never called, i.e.
a pattern Inductor rewrote into a library call (its attention pattern pass turns a written-out
softmax(q kᵀ) v into the SDPA kernel). Op families, not names, are matched, so every SDPA variant
(`_scaled_dot_product_flash_attention`, `_efficient_attention`, `_cudnn_attention`,
`_flash_attention_for_cpu`) and every torch version's spelling count alike.

The eager side: the aten ops one eager call dispatches (a `TorchDispatchMode`), and on CUDA/ROCm
the device kernels one eager and one compiled call launch (`torch.profiler`); on a CPU the
profiler has no device kernels to count, so those stay None.

`inspect_kernel` runs only after the whole suite has been timed (`runner._run`): it compiles a
fresh copy of the function (from Inductor's cache, since the timed compile filled it), so the
timed samples, `compile_s` and the compile-cache classification are read before it starts and
never see it. `parse_output_code` and `describe` are plain Python, so they are tested on the
output code of other torch versions without compiling.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

# Library op families: an extern call of a family the eager function never used is a rewrite.
FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "sdpa",
        re.compile(
            r"scaled_dot_product|flash_attention|efficient_attention|cudnn_attention|"
            r"flex_attention|fused_attention"
        ),
    ),
    (
        "matmul",
        re.compile(
            r"^_*(mm|addmm|bmm|baddbmm|matmul|linear|mkl_linear|linear_pointwise|int_mm|"
            r"scaled_mm|mv|addmv|dot|mm_plus_mm|tuned_mm|tuned_addmm|tuned_bmm)$"
        ),
    ),
    ("convolution", re.compile(r"conv")),
)
FAMILY_WORDS = {"sdpa": "SDPA", "matmul": "matmul", "convolution": "convolution"}

# Ops in the wrapper that allocate, alias or check tensors: not compute.
_NOT_COMPUTE = {
    "_alloc_from_pool",
    "empty",
    "empty_strided",
    "empty_like",
    "as_strided",
    "reinterpret_tensor",
    "resize_",
    "set_",
    "record_stream",
    "_reinterpret_view",
}
# Eager aten ops that only alias, wrap or describe a tensor (views are dropped by `is_view`).
_EAGER_METADATA = {
    "_unsafe_view",
    "detach",
    "alias",
    "lift_fresh",
    "empty",
    "empty_strided",
    "empty_like",
    "_local_scalar_dense",
    "sym_size",
    "sym_stride",
    "sym_numel",
}

_TRIPLE = re.compile(r"r?'''.*?'''|r?\"\"\".*?\"\"\"", re.DOTALL)
_COMMENT = re.compile(r"^\s*#.*$", re.MULTILINE)
_DEFINE = re.compile(r"^(\w+) = async_compile\.(\w+)\(", re.MULTILINE)
_LANGUAGE = {
    "triton": "Triton",
    "cpp": "C++",
    "cpp_pybinding": "C++",
    "cuda": "CUDA",
    "rocm": "ROCm",
    "halide": "Halide",
    "mps": "Metal",
}
_EXTERN = re.compile(r"(?<![\w.])extern_kernels\.(\w+)\(")
_TORCH_OP = re.compile(r"(?<![\w.])torch\.ops\.(\w+)\.(\w+)(?:\.(\w+))?\(")
_ATEN_ALIAS = re.compile(r"(?<![\w.])aten\.(\w+)\.(\w+)\(")


def family_of(op: str) -> str:
    """'sdpa', 'matmul', 'convolution', or the op's own name for any other op."""
    base = op.rsplit(".", 1)[-1] if op.startswith("extern_kernels.") else _base(op)
    for name, pattern in FAMILIES:
        if pattern.search(base):
            return name
    return base


def _base(op: str) -> str:
    """'aten._scaled_dot_product_flash_attention' -> '_scaled_dot_product_flash_attention'."""
    parts = op.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def parse_output_code(codes: list[str]) -> dict[str, Any]:
    """Generated kernels, their launches and the library calls in Inductor's output code.

    `codes`: the wrapper modules of every graph of one compiled function. Kernel sources (the
    triple-quoted Triton or C++ bodies) are left out before calls are counted, so only the
    wrapper's own calls count.
    """
    names: list[str] = []
    languages: Counter[str] = Counter()
    launches = 0
    extern: Counter[str] = Counter()
    for code in codes:
        defined = [(m.group(1), m.group(2)) for m in _DEFINE.finditer(code)]
        wrapper = _COMMENT.sub("", _TRIPLE.sub("''", code))
        for name, kind in defined:
            names.append(name)
            languages[_LANGUAGE.get(kind, kind)] += 1
            launches += len(re.findall(rf"(?<![\w.']){re.escape(name)}(?:\.run\(|\[|\()", wrapper))
        for m in _EXTERN.finditer(wrapper):
            extern[f"extern_kernels.{m.group(1)}"] += 1
        for m in _TORCH_OP.finditer(wrapper):
            namespace, op = m.group(1), m.group(2)
            if namespace != "inductor" and op not in _NOT_COMPUTE:
                extern[f"{namespace}.{op}"] += 1
        for m in _ATEN_ALIAS.finditer(wrapper):
            if m.group(1) not in _NOT_COMPUTE:
                extern[f"aten.{m.group(1)}"] += 1
    calls = [{"op": op, "family": family_of(op), "count": n} for op, n in extern.items()]
    return {
        "graphs": len(codes),
        "generated_kernels": len(names),
        "generated_kernel_names": names,
        "kernel_language": "+".join(sorted(languages)) or None,
        "generated_launches": launches,
        "extern_calls": calls,
        "kernel_calls": launches + sum(extern.values()),
    }


def find_substitutions(eager_ops: list[str], extern_calls: list[dict]) -> list[dict[str, Any]]:
    """Library calls of a family the eager function never dispatched: rewrites by Inductor.

    Only the library families of `FAMILIES` count (an op outside them that eager did not
    dispatch under the same name is more likely a decomposition's fallback than a rewrite).
    Each names the family, the op Inductor calls (`by`) and the eager ops it stands for (those
    of a family no library call of the compiled code keeps, in eager order).
    """
    library = {name for name, _ in FAMILIES}
    eager_families = {family_of(f"aten.{op}") for op in eager_ops}
    kept = {c["family"] for c in extern_calls}
    out = []
    for call in extern_calls:
        if call["family"] not in library or call["family"] in eager_families:
            continue
        replaced = [op for op in eager_ops if family_of(f"aten.{op}") not in kept]
        out.append({"family": call["family"], "by": call["op"], "replaced": replaced})
    return out


def describe(record: dict[str, Any]) -> str:
    """What Inductor did, in one sentence, from an `inductor` record (as the JSON holds it)."""
    if record.get("error") and record.get("generated_kernels") is None:
        return f"not recorded ({record['error']})"
    parts = []
    subs = record.get("substitutions") or []
    for s in subs:
        parts.append(
            f"replaced {'+'.join(s['replaced']) or 'the pattern'} by the library "
            f"{FAMILY_WORDS.get(s['family'], s['family'])} kernel ({s['by']})"
        )
    n = record.get("generated_kernels") or 0
    lang = record.get("kernel_language") or "generated"
    if n:
        parts.append(f"{n} generated {lang} kernel{'s' if n != 1 else ''}")
    elif not subs:
        parts.append("no generated kernel")
    substituted = {s["by"] for s in subs}
    library = [c for c in record.get("extern_calls") or [] if c["op"] not in substituted]
    if library:
        parts.append(
            "library "
            + ", ".join(
                f"{c['op'].rsplit('.', 1)[-1]}" + (f" ×{c['count']}" if c["count"] > 1 else "")
                for c in library
            )
        )
    sentence = "; ".join(parts)
    if subs and not n:
        sentence += "; no kernel of its own"
    eager_k = record.get("eager_kernels")
    compiled_k = record.get("compiled_kernels")
    if eager_k is not None:
        sentence += f" (device kernels per call: eager {eager_k}, compiled {compiled_k})"
    elif record.get("eager_ops") is not None:
        ops = record["eager_ops"]
        sentence += f" (eager ran {len(ops)} aten op{'s' if len(ops) != 1 else ''})"
    return sentence


# ----------------------------------------------------------------------------- with torch
def eager_ops(fn: Callable[[], object]) -> list[str]:
    """The compute aten ops one call of `fn` dispatches, in order (views and metadata left out)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: list[str] = []

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            name = func._overloadpacket.__name__
            if not getattr(func, "is_view", False) and name not in _EAGER_METADATA:
                seen.append(name)
            return func(*args, **(kwargs or {}))

    with Recorder():
        fn()
    return seen


def device_kernels(fn: Callable[[], object], device: Any, calls: int = 3) -> dict[str, Any]:
    """Device kernels one call launches, from `torch.profiler` (CUDA/ROCm only; else None)."""
    import torch

    if device.type != "cuda":
        return {"kernels": None, "names": [], "error": f"no device profiler on {device.type}"}
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    try:
        fn()
        torch.cuda.synchronize(device)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize(device)
        names = [
            e.name
            for e in prof.events()
            if e.device_type == DeviceType.CUDA
            and not e.name.lower().startswith(("memcpy", "memset"))
        ]
    except Exception as exc:  # the profiler is a reading, not a reason to lose the run
        return {"kernels": None, "names": [], "error": f"{type(exc).__name__}: {exc}"[:200]}
    if not names:
        return {"kernels": None, "names": [], "error": "the profiler saw no device kernel"}
    distinct = list(dict.fromkeys(n[:100] for n in names))
    return {"kernels": round(len(names) / calls), "names": distinct[:12], "error": None}


def output_code(compiled_fn: Callable[..., object], inputs: tuple) -> list[str]:
    """Run `compiled_fn(*inputs)` once and return the output code Inductor wrote or loaded."""
    from torch._inductor.graph import GraphLowering

    codes: list[str] = []
    previous = GraphLowering.save_output_code
    GraphLowering.save_output_code = staticmethod(codes.append)
    try:
        compiled_fn(*inputs)
    finally:
        GraphLowering.save_output_code = previous
    return list(dict.fromkeys(codes))


def inspect_kernel(
    fn: Callable[..., Any],
    inputs: tuple,
    device: Any,
    compiler: Callable[[Callable[..., Any]], Callable[..., Any]],
    keep_code: Callable[[list[str]], None] | None = None,
) -> dict[str, Any]:
    """The `inductor` record of one kernel: read after its timing, from a fresh compile.

    `keep_code`, when given, receives the output-code modules read (to save them beside the
    JSON, for a reader who wants to check the record against the code).

    The fresh compile normally loads the timed compile's graph from Inductor's FX-graph cache
    (`code_source` "FX graph cache"); when no code comes back that way it compiles again with
    the caches off ("recompiled without caches"). Dynamo is reset before and after, and its counters
    cleared after, so nothing of this reaches the next measurement.
    """
    import torch
    from torch._dynamo.utils import counters

    t0 = time.perf_counter()
    record: dict[str, Any] = {"error": None}
    with torch.no_grad():
        try:
            record["eager_ops"] = eager_ops(lambda: fn(*inputs))
        except Exception as exc:
            record["eager_ops"] = None
            record["error"] = f"eager ops: {type(exc).__name__}: {exc}"[:200]
        eager_k = device_kernels(lambda: fn(*inputs), device)
        compiled: Callable[..., Any] | None = None
        try:
            torch._dynamo.reset()
            counters.clear()
            compiled = compiler(fn)
            codes = output_code(compiled, inputs)
            hit = counters["inductor"].get("fxgraph_cache_hit", 0)
            source = "FX graph cache" if hit else "compiled"
            if not codes:
                torch._dynamo.reset()
                with torch._inductor.config.patch(force_disable_caches=True):
                    compiled = compiler(fn)
                    codes, source = output_code(compiled, inputs), "recompiled without caches"
        except Exception as exc:
            codes, source, compiled = [], None, None
            record["error"] = f"compile: {type(exc).__name__}: {str(exc).splitlines()[0]}"[:200]
        compiled_k = (
            device_kernels(lambda: compiled(*inputs), device)
            if compiled is not None and codes
            else {"kernels": None, "names": [], "error": "not compiled"}
        )
    torch._dynamo.reset()
    counters.clear()
    record["code_source"] = source if codes else None
    if codes:
        record.update(parse_output_code(codes))
        if keep_code is not None:
            keep_code(codes)
    elif record["error"] is None:
        record["error"] = "no Inductor output code (the compiler did not run Inductor)"
    record["substitutions"] = (
        find_substitutions(record["eager_ops"], record["extern_calls"])
        if codes and record["eager_ops"] is not None
        else []
    )
    record["eager_kernels"] = eager_k["kernels"]
    record["compiled_kernels"] = compiled_k["kernels"]
    record["eager_kernel_names"] = eager_k["names"]
    record["compiled_kernel_names"] = compiled_k["names"]
    record["profiler_note"] = eager_k["error"] or compiled_k["error"]
    record["inspect_s"] = time.perf_counter() - t0
    record["summary"] = describe(record)
    return record
