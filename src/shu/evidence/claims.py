"""Claim checks: hardware and compiler claims tested against the latest probe run per backend.

Each claim in `CLAIMS` is evaluated, for every backend it applies to, against that backend's
latest run in `probe_runs` / `probe_results` and gets one verdict:

- `supported`: the measurement meets the claim;
- `contradicted`: the measurement is there and does not meet it;
- `untestable here`: no run on that backend, or the kernels it needs are absent or invalid
  (no speedup counts without correctness).

`evaluate_claims(store) -> list[ClaimCheck]` is what the briefing calls; every check carries the
numbers behind its verdict and the run it came from, so the briefing can cite them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shu.store import Store

SUPPORTED = "supported"
CONTRADICTED = "contradicted"
UNTESTABLE = "untestable here"

BACKENDS = ("cuda", "rocm", "cpu", "mps")


@dataclass(frozen=True)
class ClaimCheck:
    """One claim's verdict on one backend, with the numbers and the run behind it."""

    claim_id: str
    claim: str
    backend: str
    verdict: str
    evidence: str
    measured: float | None = None
    threshold: float | None = None
    run_id: str | None = None
    run_started_at: datetime | None = None
    device_name: str | None = None
    suite: str | None = None


@dataclass(frozen=True)
class ProbeRun:
    """A probe run as claims see it: the `probe_runs` row and its results by kernel."""

    run: dict[str, Any]
    results: dict[str, dict[str, Any]]

    def valid(self, kernel: str) -> dict[str, Any] | None:
        """The kernel's result row when present and valid, else None."""
        row = self.results.get(kernel)
        return row if row and row["is_valid"] else None

    def describe(self) -> str:
        r = self.run
        return (f"{r['device_name']}, torch {r['torch_version']}, {r['suite']} suite "
                f"v{r['suite_version']}, run {r['run_id']}")


Outcome = tuple[str, str, float | None]  # verdict, evidence, measured value


@dataclass(frozen=True)
class Claim:
    """A claim the probe can test. `backends`: where it applies (None: every backend run)."""

    claim_id: str
    text: str
    threshold: float | None
    check: Callable[[ProbeRun, float | None], Outcome]
    backends: tuple[str, ...] | None = None


def _missing(run: ProbeRun, kernel: str) -> Outcome:
    row = run.results.get(kernel)
    if row is None:
        return UNTESTABLE, f"kernel {kernel} is not in this run ({run.describe()})", None
    return (UNTESTABLE, f"kernel {kernel} is not valid ({row['invalid_reason']}) in "
            f"{run.describe()}", None)


def _verdict(ok: bool) -> str:
    return SUPPORTED if ok else CONTRADICTED


def _geomean_at_least(run: ProbeRun, threshold: float | None) -> Outcome:
    r = run.run
    if not r["n_valid"] or r["geomean_speedup"] is None:
        return UNTESTABLE, f"no valid kernel in {run.describe()}", None
    gm = r["geomean_speedup"]
    return (_verdict(gm >= threshold),
            f"geomean speedup {gm:.2f}x raw ({r['geomean_speedup_clipped']:.2f}x with slowdowns "
            f"clipped to 1.0) over {r['n_valid']}/{r['n_kernels']} valid kernels; "
            f"{run.describe()}", gm)


def _build_supports_rocm(run: ProbeRun, _threshold: float | None) -> Outcome:
    r = run.run
    if r["hip_version"]:
        return SUPPORTED, f"torch {r['torch_version']} reports HIP {r['hip_version']}", None
    build = f"CUDA {r['cuda_version']} build" if r["cuda_version"] else "CPU-only build"
    return (CONTRADICTED, f"torch {r['torch_version']} reports torch.version.hip = None "
            f"({build}); run {r['run_id']}", None)


def _fraction_of_ceiling(kernel: str) -> Callable[[ProbeRun, float | None], Outcome]:
    def check(run: ProbeRun, threshold: float | None) -> Outcome:
        row = run.valid(kernel)
        if row is None:
            return _missing(run, kernel)
        frac = row["fraction_of_ceiling"]
        if frac is None:
            return UNTESTABLE, f"no achieved rate for {kernel} in {run.describe()}", None
        ceiling = (f"copy bandwidth {run.run['copy_gbps']:.0f} GB/s"
                   if row["achieved_unit"] == "GB/s" else
                   f"{run.run['matmul_dtype']} matmul {run.run['matmul_tflops']:.4g} TFLOP/s")
        return (_verdict(frac >= threshold),
                f"compiled {kernel} reached {row['achieved_compiled']:.4g} "
                f"{row['achieved_unit']} = {100 * frac:.0f}% of the measured {ceiling}; "
                f"{run.describe()}", frac)
    return check


def _naive_attention_vs_sdpa(run: ProbeRun, threshold: float | None) -> Outcome:
    naive, sdpa = run.valid("naive_attention"), run.valid("sdpa")
    if naive is None:
        return _missing(run, "naive_attention")
    if sdpa is None:
        return _missing(run, "sdpa")
    ratio = naive["compiled_ms"] / sdpa["eager_ms"]
    return (_verdict(ratio <= threshold),
            f"compiled naive attention {naive['compiled_ms']:.4g} ms vs eager SDPA "
            f"{sdpa['eager_ms']:.4g} ms at the same shapes ({ratio:.2f}x; eager naive "
            f"{naive['eager_ms']:.4g} ms); {run.describe()}", ratio)


CLAIMS: tuple[Claim, ...] = (
    Claim("inductor_geomean_1_5x", "Inductor gives >= 1.5x over eager on average on this "
          "backend", 1.5, _geomean_at_least),
    Claim("rocm_inductor_geomean_1_5x", "Inductor gives >= 1.5x over eager on average on AMD "
          "GPUs (ROCm)", 1.5, _geomean_at_least, backends=("rocm",)),
    Claim("torch_build_supports_rocm", "This PyTorch build supports ROCm", None,
          _build_supports_rocm),
    Claim("layernorm_gelu_30pct_copy_bw", "Compiled layernorm+GELU reaches >= 30% of the "
          "device's copy bandwidth", 0.30, _fraction_of_ceiling("layernorm_gelu")),
    Claim("gemm_epilogue_70pct_matmul_peak", "A compiled GEMM with a bias+ReLU epilogue reaches "
          ">= 70% of the device's measured matmul rate", 0.70,
          _fraction_of_ceiling("gemm_bias_relu")),
    Claim("naive_attention_fused_to_sdpa_speed", "Inductor makes naive attention as fast as "
          "fused SDPA (within 10%)", 1.10, _naive_attention_vs_sdpa),
)


def latest_runs(store: Store) -> dict[str, ProbeRun]:
    """The latest probe run per backend (by started_at), with its results."""
    cur = store.con.execute(
        "SELECT * FROM probe_runs QUALIFY row_number() OVER (PARTITION BY backend "
        "ORDER BY started_at DESC, run_id DESC) = 1")
    names = [d[0] for d in cur.description]
    runs = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    out: dict[str, ProbeRun] = {}
    for run in runs:
        rcur = store.con.execute("SELECT * FROM probe_results WHERE run_id = ?", [run["run_id"]])
        rnames = [d[0] for d in rcur.description]
        results = {row[0]: row[1] for row in (
            (r[rnames.index("kernel")], dict(zip(rnames, r, strict=True)))
            for r in rcur.fetchall())}
        out[run["backend"]] = ProbeRun(run=run, results=results)
    return out


def evaluate_claims(store: Store, claims: tuple[Claim, ...] = CLAIMS) -> list[ClaimCheck]:
    """Every claim against the latest run of each backend it applies to.

    A claim with no `backends` is checked on each backend that has a run (and reported
    untestable once, on no backend, when the store holds no probe run at all); a claim bound
    to backends is checked on each of them, untestable where no run exists.
    """
    runs = latest_runs(store)
    checks = []
    for claim in claims:
        backends = claim.backends or tuple(b for b in BACKENDS if b in runs) or ("any",)
        for backend in backends:
            run = runs.get(backend)
            if run is None:
                where = "any backend" if backend == "any" else backend
                checks.append(ClaimCheck(claim.claim_id, claim.text, backend, UNTESTABLE,
                                         f"no probe run on {where} in the store",
                                         threshold=claim.threshold))
                continue
            verdict, evidence, measured = claim.check(run, claim.threshold)
            checks.append(ClaimCheck(
                claim.claim_id, claim.text, backend, verdict, evidence, measured,
                claim.threshold, run.run["run_id"], run.run["started_at"],
                run.run["device_name"], run.run["suite"]))
    return checks
