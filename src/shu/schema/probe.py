"""Probe tables: one row per probe run (a host, a moment) and one per kernel timed."""

from shu.schema.base import Table, col

PROBE_RUNS = Table(
    name="probe_runs",
    description="Runs of `python -m shu.probe` on some host, ingested from its JSON "
    "(`shu probe` locally, `shu ingest probe FILE.json` from any other host).",
    primary_key=("run_id",),
    group="probe",
    columns=(
        col("run_id", "VARCHAR", "Id the probe gave the run (host, start time, random suffix)."),
        col("host", "VARCHAR", "Host name that ran it."),
        col("backend", "VARCHAR", "'cuda', 'rocm' (torch.version.hip set), 'cpu' or 'mps'."),
        col("device_name", "VARCHAR", "Accelerator or CPU model."),
        col(
            "device_arch",
            "VARCHAR",
            "sm_XY (CUDA), gcnArchName without features (ROCm), or the CPU architecture.",
        ),
        col("driver_version", "VARCHAR", "GPU driver version (nvidia-smi or amdgpu), if any."),
        col("cuda_version", "VARCHAR", "torch.version.cuda (NULL on ROCm and CPU-only builds)."),
        col("hip_version", "VARCHAR", "torch.version.hip (set only on ROCm builds)."),
        col("torch_version", "VARCHAR", "torch.__version__."),
        col("triton_version", "VARCHAR", "triton.__version__, NULL when Triton is absent."),
        col("cpu_model", "VARCHAR", "CPU model name."),
        col("cpu_threads", "INTEGER", "torch.get_num_threads() during the run.", "threads"),
        col("started_at", "TIMESTAMP", "When the run started (UTC)."),
        col("finished_at", "TIMESTAMP", "When the run finished (UTC)."),
        col("wall_s", "DOUBLE", "Wall time of the whole run, compiles included.", "s"),
        col("suite", "VARCHAR", "'quick' or 'full'."),
        col("suite_version", "VARCHAR", "Version of the fixed kernel suite."),
        col("format_version", "INTEGER", "Version of the probe's JSON document."),
        col("dtype", "VARCHAR", "Kernel dtype (bfloat16 on GPU, float32 on CPU)."),
        col(
            "compile_cache",
            "VARCHAR",
            "'cold' (every graph compiled), 'warm' (every graph from Inductor's cache) or 'mixed'.",
        ),
        col("copy_gbps", "DOUBLE", "Measured device copy bandwidth, bytes read + written.", "GB/s"),
        col(
            "matmul_tflops",
            "DOUBLE",
            "Measured large-matmul rate (dtype in matmul_dtype).",
            "TFLOP/s",
        ),
        col("matmul_dtype", "VARCHAR", "Dtype of the matmul ceiling."),
        col("n_kernels", "INTEGER", "Kernels run."),
        col(
            "n_valid",
            "INTEGER",
            "Kernels whose speedup counts (correct, no recompiles, no graph breaks).",
        ),
        col(
            "geomean_speedup",
            "DOUBLE",
            "Geometric mean compiled/eager speedup over valid kernels (raw).",
            "x",
        ),
        col(
            "geomean_speedup_clipped",
            "DOUBLE",
            "The same with slowdowns clipped to 1.0 (PyTorch dashboard convention).",
            "x",
        ),
        col(
            "geomean_speedup_without_substitutions",
            "DOUBLE",
            "Geometric mean over the valid kernels that Inductor did not partly replace by a "
            "library op of a family their eager code never called (see "
            "probe_results.substitutions); NULL for runs that did not record it.",
            "x",
        ),
        col("pass_rate", "DOUBLE", "Share of kernels that were valid.", "fraction"),
        col(
            "source",
            "VARCHAR",
            "Where the document was first stored from: a file path, or "
            "'shu probe' (storing it again from elsewhere keeps this).",
        ),
        col("ingested_at", "TIMESTAMP", "When it was first stored (UTC)."),
        col("raw_json", "VARCHAR", "The whole probe JSON (canonical form: sorted keys)."),
    ),
)

PROBE_RESULTS = Table(
    name="probe_results",
    description="Per-kernel results of a probe run. Timings are medians of interleaved repeats "
    "after warm-up; the timer column says how they were taken.",
    primary_key=("run_id", "kernel"),
    group="probe",
    columns=(
        col("run_id", "VARCHAR", "Probe run."),
        col("kernel", "VARCHAR", "Kernel name in the suite."),
        col(
            "category",
            "VARCHAR",
            "memory-bound fusion, gemm+epilogue, attention, transformer block.",
        ),
        col("shape", "VARCHAR", "Shapes the kernel ran at."),
        col("dtype", "VARCHAR", "Input dtype."),
        col("is_valid", "BOOLEAN", "Correct, no recompiles, no graph breaks: the speedup counts."),
        col("invalid_reason", "VARCHAR", "Why not valid (NULL when valid)."),
        col("correct", "BOOLEAN", "Compiled output within tolerance of eager output."),
        col(
            "rel_error",
            "DOUBLE",
            "Worst ||compiled - eager|| / ||eager|| over two input draws (NULL when non-finite).",
            "ratio",
        ),
        col("tolerance", "DOUBLE", "Largest rel_error accepted for this dtype.", "ratio"),
        col("recompiles", "INTEGER", "Frames compiled after the first call (must be 0)."),
        col("graph_breaks", "INTEGER", "Dynamo graph breaks (must be 0)."),
        col(
            "compile_s",
            "DOUBLE",
            "First compiled call minus one eager call (cold or warm "
            "cache: see probe_runs.compile_cache).",
            "s",
        ),
        col(
            "timer",
            "VARCHAR",
            "'cuda_events_flush_primed' (device events, L2 flushed, launch "
            "gaps hidden) or 'host_perf_counter'.",
        ),
        col("repeats", "INTEGER", "Interleaved samples per variant."),
        col("eager_ms", "DOUBLE", "Median eager time.", "ms"),
        col("eager_p20_ms", "DOUBLE", "20th percentile eager time.", "ms"),
        col("eager_p80_ms", "DOUBLE", "80th percentile eager time.", "ms"),
        col("eager_cv", "DOUBLE", "Coefficient of variation of eager samples.", "fraction"),
        col("compiled_ms", "DOUBLE", "Median compiled time.", "ms"),
        col("compiled_p20_ms", "DOUBLE", "20th percentile compiled time.", "ms"),
        col("compiled_p80_ms", "DOUBLE", "80th percentile compiled time.", "ms"),
        col("compiled_cv", "DOUBLE", "Coefficient of variation of compiled samples.", "fraction"),
        col("speedup", "DOUBLE", "eager_ms / compiled_ms; NULL when the kernel is not valid.", "x"),
        col(
            "speedup_unchecked",
            "DOUBLE",
            "eager_ms / compiled_ms whether valid or not (do not report without is_valid).",
            "x",
        ),
        col(
            "do_bench_eager_ms", "DOUBLE", "triton.testing.do_bench median, eager (GPU only).", "ms"
        ),
        col(
            "do_bench_compiled_ms",
            "DOUBLE",
            "triton.testing.do_bench median, compiled (GPU only).",
            "ms",
        ),
        col(
            "per_iteration_compiled_ms",
            "DOUBLE",
            "Naive per-iteration event timing of the "
            "compiled call, launch gaps included (GPU only).",
            "ms",
        ),
        col("achieved_unit", "VARCHAR", "'GB/s' for memory-bound kernels, 'TFLOP/s' otherwise."),
        col(
            "achieved_eager",
            "DOUBLE",
            "Eager rate in achieved_unit (minimum bytes or FLOPs over eager_ms).",
        ),
        col("achieved_compiled", "DOUBLE", "Compiled rate in achieved_unit."),
        col(
            "fraction_of_ceiling",
            "DOUBLE",
            "achieved_compiled over the run's measured copy bandwidth or matmul rate.",
            "fraction",
        ),
        col(
            "peak_bytes_eager",
            "BIGINT",
            "Peak device memory of one eager call (GPU only).",
            "bytes",
        ),
        col(
            "peak_bytes_compiled",
            "BIGINT",
            "Peak device memory of one compiled call (GPU only).",
            "bytes",
        ),
        col(
            "generated_kernels",
            "INTEGER",
            "Kernels Inductor generated for the compiled call (Triton on GPUs, C++ on CPUs), "
            "read from its output code; NULL for runs that did not record it.",
            "kernels",
        ),
        col(
            "eager_kernels",
            "INTEGER",
            "Device kernels one eager call launched (torch.profiler; GPU only).",
            "kernels",
        ),
        col(
            "substitutions",
            "VARCHAR",
            "Patterns Inductor replaced by a library op of a family the eager code never "
            "called, e.g. 'bmm+mul+_softmax+bmm → aten._scaled_dot_product_cudnn_attention "
            "(SDPA)' ('; '-separated); NULL when none or not recorded.",
        ),
        col(
            "inductor_did",
            "VARCHAR",
            "What Inductor made of the kernel, in one sentence (generated kernels, library "
            "calls, substitutions, eager kernel count).",
        ),
        col(
            "inductor",
            "VARCHAR",
            "JSON: the probe's whole record of the compiled code (generated kernel names and "
            "launches, extern_calls with op families, substitutions, eager aten ops, profiler "
            "kernel counts and names); NULL for runs that did not record it.",
        ),
        col(
            "detail",
            "VARCHAR",
            "JSON: every other measured field for this kernel (raw "
            "samples, launch costs, reference timers, cache hits).",
        ),
    ),
)

TABLES = (PROBE_RUNS, PROBE_RESULTS)
