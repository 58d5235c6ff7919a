"""Runs the suite: ceilings, then each kernel eager against compiled, gated, then a summary.

A kernel's speedup counts only when the kernel is *valid*: compiled output within the dtype's
tolerance of eager output (on the timing inputs and on a fresh draw), exactly one compiled
frame (no recompiles during warm-up or timing: past `recompile_limit` Dynamo silently falls back
to eager), no graph breaks, and no compile error. The summary's geometric means run over valid
kernels only: `geomean_speedup` raw, and `geomean_speedup_clipped` with slowdowns counted as
1.0 the way PyTorch's Inductor dashboard reports it.

Why one module of ~400 lines: the probe ships as torch + the standard library only and runs
as `python -m shu.probe` on hosts that have nothing else; its run loop, validity checks and
summary share one kernel record and read best top to bottom.
"""

from __future__ import annotations

import math
import statistics
import time
import traceback
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import torch

from shu.probe import FORMAT_VERSION, environment, inductor, timing
from shu.probe.suite import SUITE_VERSION, TOLERANCE, Kernel, kernels_for

Compiler = Callable[[Callable[..., torch.Tensor]], Callable[..., torch.Tensor]]

COMPILE_SETTINGS = {
    "backend": "inductor",
    "mode": "default",
    "dynamic": False,
    "fullgraph": False,
    "cudagraphs": False,
}

# GPU load before each kernel's samples (and the ceilings'): until the power/clock state settles.
PRECONDITION = timing.Precondition()
CV_TARGET = 0.03


def default_compiler(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """`torch.compile` as the probe uses it: Inductor, default mode, static shapes.

    fullgraph stays False on purpose: a graph break is then counted (and invalidates the
    kernel) instead of aborting the run.
    """
    return torch.compile(fn, dynamic=False)


def relative_error(actual: torch.Tensor, expected: torch.Tensor) -> float:
    """||actual - expected|| / ||expected|| in float64; inf when either holds NaN/inf."""
    a, e = actual.detach().double(), expected.detach().double()
    if a.shape != e.shape or not (torch.isfinite(a).all() and torch.isfinite(e).all()):
        return math.inf
    denom = torch.linalg.vector_norm(e).item()
    diff = torch.linalg.vector_norm(a - e).item()
    return diff / denom if denom > 0 else diff


def _counters() -> dict[str, dict[str, int]]:
    from torch._dynamo.utils import counters

    return {k: dict(v) for k, v in counters.items()}


def _clear_counters() -> None:
    from torch._dynamo.utils import counters

    counters.clear()


def _peak_bytes(fn: Callable[[], object], device: torch.device) -> int | None:
    """Peak device memory one call allocates beyond what was live before it (CUDA only)."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    base = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    out = fn()
    torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - base
    del out
    return int(peak)


def _rate(work_amount: float, ms: float | None, per: float) -> float | None:
    return work_amount / (ms * 1e-3) / per if ms and work_amount else None


def measure_kernel(
    kernel: Kernel,
    device: torch.device,
    dtype: torch.dtype,
    scale: str,
    repeats: int,
    ceilings: dict,
    compiler: Compiler = default_compiler,
    cuda_timer: timing.CudaTimer | None = None,
) -> dict:
    """Time one kernel eager against compiled and decide whether its speedup counts."""
    t_kernel = time.perf_counter()
    clock_before = environment.sm_clock_mhz(device)
    fn = kernel.make_fn(device, dtype, scale)
    inputs = kernel.make_inputs(device, dtype, scale, 0)
    work = kernel.work(dtype, scale)
    result: dict = {
        "kernel": kernel.name,
        "category": kernel.category,
        "description": kernel.description,
        "shape": work.shape,
        "dtype": str(dtype).removeprefix("torch."),
        "bound": work.bound,
        "bytes_moved": work.bytes_moved,
        "flops": work.flops,
        "tolerance": TOLERANCE[dtype],
        "error": None,
        "sm_clock_mhz_before": clock_before,
    }
    torch._dynamo.reset()
    _clear_counters()

    def eager() -> torch.Tensor:
        return fn(*inputs)

    with torch.no_grad():
        timing.warm_up(eager, device)
        t0 = time.perf_counter()
        expected = eager()
        timing.sync(device)
        eager_call_s = time.perf_counter() - t0
        try:
            compiled_fn = compiler(fn)
            t0 = time.perf_counter()
            actual = compiled_fn(*inputs)
            timing.sync(device)
            result["compile_s"] = max(time.perf_counter() - t0 - eager_call_s, 0.0)
        except Exception as exc:  # a compile failure is a result, not a crash of the probe
            result.update(
                is_valid=False,
                invalid_reason="compile failed",
                error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}",
                traceback=traceback.format_exc(limit=3),
            )
            return _finish(result, t_kernel)
        frames_after_first_call = _counters().get("frames", {}).get("total", 0)

        def compiled() -> torch.Tensor:
            return compiled_fn(*inputs)

        fresh = kernel.make_inputs(device, dtype, scale, 1)
        errors = [relative_error(actual, expected), relative_error(compiled_fn(*fresh), fn(*fresh))]
        del fresh, actual, expected
        worst = max(errors)
        result["rel_error"] = worst if math.isfinite(worst) else None  # None: NaN/inf/shape
        result["correct"] = math.isfinite(worst) and worst <= TOLERANCE[dtype]

        timing.warm_up(compiled, device)
        fns: dict[str, Callable[[], object]] = {"eager": eager, "compiled": compiled}
        if cuda_timer is not None:
            enqueue = {n: cuda_timer.enqueue_us(f) for n, f in fns.items()}
            stats, result["launch"] = cuda_timer.interleaved(
                fns, repeats, enqueue, block=20, precondition=PRECONDITION
            )
            conditioned = result["launch"]["precondition"]
            result["precondition_ms"] = conditioned["precondition_ms"]
            result["precondition_settled"] = conditioned["settled"]
            result["timer"] = "cuda_events_flush_primed"
            result["reference_timers"] = {
                name: _reference_timers(
                    cuda_timer,
                    f,
                    enqueue[name],
                    min(repeats, 30),
                    rounds=3 if name == "compiled" else 1,
                )
                for name, f in fns.items()
            }
            result["sm_clock_mhz_after"] = environment.sm_clock_mhz(device)
        else:
            batch = max(timing.host_batch_size(f, 0.002, device) for f in fns.values())
            stats = timing.host_interleaved(fns, repeats, batch, device)
            result["timer"] = "host_perf_counter"
            result["launch"] = {"calls_per_sample": batch}
        result["peak_bytes"] = {n: _peak_bytes(f, device) for n, f in fns.items()}

    counters = _counters()
    frames_total = counters.get("frames", {}).get("total", 0)
    result["frames_compiled"] = counters.get("frames", {}).get("ok", 0)
    result["recompiles"] = frames_total - frames_after_first_call
    result["graph_breaks"] = sum(counters.get("graph_break", {}).values())
    inductor = counters.get("inductor", {})
    result["fxgraph_cache"] = {
        "hits": inductor.get("fxgraph_cache_hit", 0),
        "misses": inductor.get("fxgraph_cache_miss", 0),
    }
    eager_stats, compiled_stats = stats["eager"], stats["compiled"]
    result["eager"] = eager_stats.as_dict()
    result["compiled"] = compiled_stats.as_dict()
    speedup = eager_stats.median_ms / compiled_stats.median_ms
    reasons = []
    if not result["correct"]:
        err = result["rel_error"]
        reasons.append(
            f"incorrect: rel_error {'non-finite' if err is None else f'{err:.3g}'}"
            f" > {TOLERANCE[dtype]:g}"
        )
    if result["recompiles"]:
        reasons.append(f"recompiled {result['recompiles']}x after the first call")
        if result["recompiles"] >= torch._dynamo.config.recompile_limit:
            reasons.append("hit recompile_limit: later calls ran eagerly")
    if result["graph_breaks"]:
        reasons.append(f"{result['graph_breaks']} graph break(s)")
    if result["frames_compiled"] < 1:
        reasons.append("nothing was compiled (ran eagerly)")
    result["is_valid"] = not reasons
    result["invalid_reason"] = "; ".join(reasons) or None
    result["speedup_unchecked"] = speedup
    result["speedup"] = speedup if result["is_valid"] else None
    ceiling_key = "copy_gbps" if work.bound == "memory" else "matmul_tflops"
    per = 1e9 if work.bound == "memory" else 1e12
    amount = work.bytes_moved if work.bound == "memory" else work.flops
    result["achieved_unit"] = "GB/s" if work.bound == "memory" else "TFLOP/s"
    result["achieved_eager"] = _rate(amount, eager_stats.median_ms, per)
    result["achieved_compiled"] = _rate(amount, compiled_stats.median_ms, per)
    ceiling = ceilings.get(ceiling_key)
    result["fraction_of_ceiling"] = (
        result["achieved_compiled"] / ceiling if ceiling and result["achieved_compiled"] else None
    )
    return _finish(result, t_kernel)


def _reference_timers(
    cuda_timer: timing.CudaTimer,
    fn: Callable[[], object],
    enqueue_us: float,
    repeats: int,
    rounds: int = 3,
) -> dict:
    """Other timers on the same call, to show what the primary timer handles.

    `per_iteration_events_ms` and `host_sync_ms` include launch gaps; `do_bench_cudagraph_ms`
    has none (graph replay, but no L2 flush between replays). `do_bench` runs
    `rounds` times, alternating with blocks of the primary timer (one more block closes the
    bracket); the two are compared median to median (`primed_paired_ms`, `do_bench_ms`),
    because tensor-core kernels drift with the GPU's clock under its power cap: only
    measurements taken back to back compare timers rather than moments. Each primary block is
    one 100 ms settle then 20 samples (one variant only, so a second settle would add nothing).
    """
    per_iter, host_sync = cuda_timer.per_iteration(fn, repeats)
    primed: list[float] = []
    benches: list[float] = []
    for _ in range(rounds):
        block, _ = cuda_timer.interleaved({"fn": fn}, 20, {"fn": enqueue_us}, block=20)
        primed.append(block["fn"].median_ms)
        bench = timing.do_bench_median_ms(fn)
        if bench is None:
            break
        benches.append(bench)
    if benches:
        block, _ = cuda_timer.interleaved({"fn": fn}, 20, {"fn": enqueue_us}, block=20)
        primed.append(block["fn"].median_ms)
    paired = statistics.median(primed)
    bench_ms = statistics.median(benches) if benches else None
    graph_ms, graph_error = timing.do_bench_cudagraph_median_ms(fn)
    return {
        "per_iteration_events_ms": per_iter.median_ms,
        "host_sync_ms": host_sync.median_ms,
        "do_bench_ms": bench_ms,
        "do_bench_rounds_ms": benches,
        "do_bench_cudagraph_ms": graph_ms,
        "do_bench_cudagraph_error": graph_error,
        "primed_paired_ms": paired,
        "primed_blocks_ms": primed,
        "primed_vs_do_bench": paired / bench_ms - 1 if bench_ms else None,
    }


def _finish(result: dict, t_kernel: float) -> dict:
    result.setdefault("is_valid", False)
    result.setdefault("speedup", None)
    result["wall_s"] = time.perf_counter() - t_kernel
    return result


def measure_ceilings(device: torch.device, cuda_timer: timing.CudaTimer | None) -> dict:
    """Device copy bandwidth (bytes read + written) and a large matmul's FLOP rate."""
    on_gpu = cuda_timer is not None
    copy_elems = (1 << 28) if on_gpu else (1 << 24)  # 1 GiB / 64 MiB of float32
    n = 8192 if on_gpu else 1024
    mm_dtype = torch.bfloat16 if device.type != "cpu" else torch.float32
    gen = torch.Generator(device=device)
    gen.manual_seed(7)
    src = torch.randn(copy_elems, generator=gen, device=device)
    dst = torch.empty_like(src)
    a = torch.randn((n, n), generator=gen, device=device).to(mm_dtype)
    b = torch.randn((n, n), generator=gen, device=device).to(mm_dtype)
    fns: dict[str, Callable[[], object]] = {
        "copy": lambda: dst.copy_(src),
        "matmul": lambda: a @ b,
    }
    with torch.no_grad():
        for f in fns.values():
            timing.warm_up(f, device)
        if cuda_timer is not None:
            stats, method = cuda_timer.interleaved(
                fns, 20, {"copy": 0.0, "matmul": 0.0}, precondition=PRECONDITION
            )
            timer = "cuda_events_flush_primed"
            conditioned = method["precondition"]
        else:
            stats = timing.host_interleaved(fns, 10, 1, device)
            timer = "host_perf_counter"
            conditioned = None
    copy_bytes = 2 * src.numel() * src.element_size()
    return {
        "copy_gbps": copy_bytes / (stats["copy"].median_ms * 1e-3) / 1e9,
        "copy_bytes": copy_bytes,
        "matmul_tflops": 2.0 * n**3 / (stats["matmul"].median_ms * 1e-3) / 1e12,
        "matmul_shape": f"{n}x{n}x{n}",
        "matmul_dtype": str(mm_dtype).removeprefix("torch."),
        "copy_cv": stats["copy"].cv,
        "matmul_cv": stats["matmul"].cv,
        "timer": timer,
        "precondition_ms": conditioned["precondition_ms"] if conditioned else None,
        "precondition_settled": conditioned["settled"] if conditioned else None,
    }


def geomean(values: list[float]) -> float | None:
    """Geometric mean, or None for an empty list."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize_results(results: list[dict]) -> dict:
    """Pass rate and the two labelled geometric means over valid kernels."""
    speedups = [r["speedup"] for r in results if r["is_valid"]]
    long_enough = [r for r in results if r["is_valid"] and r["compiled"]["median_ms"] >= 0.05]
    paired = [
        abs(r["reference_timers"]["compiled"]["primed_vs_do_bench"])
        for r in long_enough
        if (r.get("reference_timers") or {}).get("compiled", {}).get("primed_vs_do_bench")
        is not None
    ]
    measured = [r for r in results if "compiled" in r]
    return {
        "max_cv": max((max(r["eager"]["cv"], r["compiled"]["cv"]) for r in measured), default=None),
        "cv_target": CV_TARGET,
        "kernels_over_cv_target": [
            r["kernel"] for r in measured if max(r["eager"]["cv"], r["compiled"]["cv"]) > CV_TARGET
        ],
        "do_bench_max_abs_deviation": max(paired) if paired else None,
        "do_bench_note": "largest |primed/do_bench - 1| of compiled timings over valid kernels "
        ">= 50 us, each do_bench bracketed by primary-timer blocks",
        "n_kernels": len(results),
        "n_valid": len(speedups),
        "pass_rate": len(speedups) / len(results) if results else 0.0,
        "geomean_speedup": geomean(speedups),
        "geomean_speedup_clipped": geomean([max(s, 1.0) for s in speedups]),
        "geomean_note": "geomean_speedup: raw geometric mean of eager/compiled over valid "
        "kernels; geomean_speedup_clipped: slowdowns counted as 1.0x (PyTorch "
        "Inductor dashboard convention)",
    }


def summarize_substitutions(results: list[dict], inspect_s: float) -> dict:
    """Which valid kernels Inductor partly replaced by a library op, and the geomean without
    them (what the compiler's own code generation is worth on the rest)."""
    substituted = [r["kernel"] for r in results if (r.get("inductor") or {}).get("substitutions")]
    rest = [r["speedup"] for r in results if r["is_valid"] and r["kernel"] not in substituted]
    return {
        "substituted_kernels": substituted,
        "geomean_speedup_without_substitutions": geomean(rest),
        "inductor_inspect_s": inspect_s,
    }


def run_probe(
    device: str = "auto",
    suite: str = "quick",
    repeats: int | None = None,
    kernels: list[str] | None = None,
    compiler: Compiler = default_compiler,
    progress: Callable[[str], None] | None = None,
    threads: int | None = None,
    code_dir: str | None = None,
) -> dict:
    """Run the probe and return its JSON-ready document (see docs/probe/README.md).

    `threads` pins torch's intra-op CPU threads for the run (restored afterwards); on a
    shared or oversubscribed CPU, fewer threads than cores avoids OpenMP barrier stalls.
    `code_dir`, when given, receives each kernel's Inductor output code as `KERNEL.py`.
    """
    previous_threads = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        return _run(
            device, suite, repeats, kernels, compiler, progress or (lambda _msg: None), code_dir
        )
    finally:
        torch.set_num_threads(previous_threads)


def _run(
    device: str,
    suite: str,
    repeats: int | None,
    kernels: list[str] | None,
    compiler: Compiler,
    say: Callable[[str], None],
    code_dir: str | None = None,
) -> dict:
    t_run = time.perf_counter()
    started_at = datetime.now(UTC)
    dev = environment.resolve_device(device)
    scale = "gpu" if dev.type != "cpu" else "cpu"
    dtype = torch.bfloat16 if dev.type != "cpu" else torch.float32
    repeats = repeats or (100 if dev.type != "cpu" else 30)
    chosen = kernels_for(suite)
    if kernels:
        unknown = sorted(set(kernels) - {k.name for k in chosen})
        if unknown:
            raise ValueError(f"kernels {unknown} are not in the {suite!r} suite")
        chosen = [k for k in chosen if k.name in kernels]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cache_dir = environment.inductor_cache_dir()
    cache_warm_at_start = environment.cache_has_entries(cache_dir)
    env = environment.describe(dev)
    say(
        f"probe on {env['backend']} ({env['device_name']}), suite {suite} v{SUITE_VERSION}, "
        f"torch {env['torch_version']}, {env['cpu_threads']} CPU threads, inductor cache "
        f"{'has entries' if cache_warm_at_start else 'empty'} at start"
    )
    state_before = environment.gpu_state() if env["backend"] == "cuda" else None
    cuda_timer = (
        timing.CudaTimer(dev, read_gpu=lambda: environment.gpu_reading(dev))
        if dev.type == "cuda"
        else None
    )
    ceilings = measure_ceilings(dev, cuda_timer)
    say(
        f"ceilings: copy {ceilings['copy_gbps']:.0f} GB/s, {ceilings['matmul_dtype']} matmul "
        f"{ceilings['matmul_tflops']:.3g} TFLOP/s"
    )
    results = []
    for kernel in chosen:
        r = measure_kernel(kernel, dev, dtype, scale, repeats, ceilings, compiler, cuda_timer)
        results.append(r)
        say(_progress_line(r))
    state_after = environment.gpu_state() if env["backend"] == "cuda" else None
    hits = sum(r.get("fxgraph_cache", {}).get("hits", 0) for r in results)
    misses = sum(r.get("fxgraph_cache", {}).get("misses", 0) for r in results)
    cache_state = _cache_state(hits, misses, cache_warm_at_start)
    # Only now, with every sample, compile_s and cache count of the suite taken, is the
    # generated code read: from a fresh compile of each kernel, so timing never sees it.
    t_inspect = time.perf_counter()
    for kernel, r in zip(chosen, results, strict=True):
        r["inductor"] = _inspect(kernel, r, dev, dtype, scale, compiler, code_dir)
        say(f"  {kernel.name:<18} inductor: {r['inductor']['summary']}")
    inspect_s = time.perf_counter() - t_inspect
    finished_at = datetime.now(UTC)
    return {
        "format_version": FORMAT_VERSION,
        "run_id": f"{env['host']}-{started_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}",
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": finished_at.isoformat(timespec="seconds"),
        "wall_s": time.perf_counter() - t_run,
        "suite": suite,
        "suite_version": SUITE_VERSION,
        "kernels_selected": [k.name for k in chosen],
        "settings": {
            **COMPILE_SETTINGS,
            "dtype": str(dtype).removeprefix("torch."),
            "tf32": False,
            "repeats": repeats,
            "shapes": scale,
            "precondition": PRECONDITION.as_dict() if cuda_timer else None,
            "compiler": getattr(compiler, "__name__", repr(compiler)),
        },
        "environment": env,
        "compile_cache": {
            "dir": cache_dir,
            "had_entries_at_start": cache_warm_at_start,
            "fxgraph_hits": hits,
            "fxgraph_misses": misses,
            "state": cache_state,
        },
        "gpu_state_before": state_before,
        "gpu_state_after": state_after,
        "ceilings": ceilings,
        "results": results,
        "summary": {**summarize_results(results), **summarize_substitutions(results, inspect_s)},
    }


def _inspect(
    kernel: Kernel,
    result: dict,
    device: torch.device,
    dtype: torch.dtype,
    scale: str,
    compiler: Compiler,
    code_dir: str | None = None,
) -> dict:
    """The kernel's `inductor` record (`inductor.inspect_kernel`), or why there is none."""
    if "compile_s" not in result:
        return {
            "error": "not compiled (compile failed)",
            "summary": "not recorded (compile failed)",
        }
    fn = kernel.make_fn(device, dtype, scale)
    inputs = kernel.make_inputs(device, dtype, scale, 0)

    def keep(codes: list[str]) -> None:
        if code_dir is not None:
            folder = Path(code_dir)
            folder.mkdir(parents=True, exist_ok=True)
            text = "\n# ---- the next graph's output code ----\n".join(codes)
            (folder / f"{kernel.name}.py").write_text(text, encoding="utf-8")

    try:
        return inductor.inspect_kernel(fn, inputs, device, compiler, keep)
    except Exception as exc:  # reading the code is a record, never a reason to lose the run
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
        return {"error": error, "summary": f"not recorded ({error})"}


def _cache_state(hits: int, misses: int, had_entries: bool) -> str:
    """'cold' (every graph compiled from scratch), 'warm' (every graph from cache), 'mixed'."""
    if hits == 0 and misses == 0:
        return "warm" if had_entries else "cold"
    if hits == 0:
        return "cold"
    return "warm" if misses == 0 else "mixed"


def _progress_line(r: dict) -> str:
    if "compiled" not in r:
        return f"  {r['kernel']:<18} INVALID ({r['invalid_reason']}: {r['error']})"
    flag = "ok" if r["is_valid"] else f"INVALID ({r['invalid_reason']})"
    return (
        f"  {r['kernel']:<18} eager {r['eager']['median_ms']:.4f} ms  compiled "
        f"{r['compiled']['median_ms']:.4f} ms  x{r['speedup_unchecked']:.2f}  "
        f"compile {r['compile_s']:.1f}s  {flag}"
    )
