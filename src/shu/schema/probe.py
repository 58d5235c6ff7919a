"""Probe tables: one row per probe run (a host, a moment) and one per kernel timed."""

from shu.schema.base import Table, col

PROBE_RUNS = Table(
    name="probe_runs",
    description="Runs of `python -m shu.probe` on some host, ingested from its JSON.",
    primary_key=("run_id",),
    group="probe",
    columns=(
        col("run_id", "VARCHAR", "Id the probe gave the run."),
        col("host", "VARCHAR", "Host name that ran it."),
        col("backend", "VARCHAR", "'cuda', 'rocm', 'cpu' or 'mps'."),
        col("device_name", "VARCHAR", "Accelerator or CPU model."),
        col("started_at", "TIMESTAMP", "When the run started (UTC)."),
        col("suite", "VARCHAR", "'quick' or 'full'."),
        col("suite_version", "VARCHAR", "Version of the fixed kernel suite."),
        col("torch_version", "VARCHAR", "torch.__version__."),
        col("geomean_speedup", "DOUBLE", "Geometric mean compiled/eager speedup over valid "
            "kernels (raw).", "x"),
        col("geomean_speedup_clipped", "DOUBLE", "The same with slowdowns clipped to 1.0 (PyTorch "
            "dashboard convention).", "x"),
        col("pass_rate", "DOUBLE", "Share of kernels that were valid.", "fraction"),
        col("raw_json", "VARCHAR", "The whole probe JSON as produced."),
    ),
)

PROBE_RESULTS = Table(
    name="probe_results",
    description="Per-kernel results of a probe run.",
    primary_key=("run_id", "kernel"),
    group="probe",
    columns=(
        col("run_id", "VARCHAR", "Probe run."),
        col("kernel", "VARCHAR", "Kernel name in the suite."),
        col("is_valid", "BOOLEAN", "Correct, no recompiles, no graph breaks: the speedup counts."),
        col("eager_ms", "DOUBLE", "Median eager time.", "ms"),
        col("compiled_ms", "DOUBLE", "Median compiled time.", "ms"),
        col("speedup", "DOUBLE", "eager_ms / compiled_ms.", "x"),
        col("detail", "VARCHAR", "JSON: every other measured field for this kernel."),
    ),
)

TABLES = (PROBE_RUNS, PROBE_RESULTS)
