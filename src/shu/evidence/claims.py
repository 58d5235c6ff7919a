"""Claim checks: configured and document claims matched to probe measurements, with verdicts.

Two kinds of claims are checked: the configured list (`settings.claims`, from shu.toml; the
defaults are six compiler claims) and every claim `shu ingest docs` read from a document
(`claims` table). Each is matched to probe runs of the same device class (H100, H200, MI300X,
CPU… read from `probe_runs.device_name`; a claim naming only a backend takes that backend's
latest run; a configured claim naming neither is checked on the latest run of every backend),
then to the measurement of the same workload: a kernel's speedup, achieved rate or fraction of
ceiling (`probe_results`), the suite geomean, or the run's measured ceilings (`matmul_tflops`,
`copy_gbps`) for peak claims. Verdicts:

- `supported`: the measurement meets the claim: "about" within ±`claim_tolerance` (10%),
  "within N%" within N%, "up to"/"at most" and "at least" as bounds, a range inclusive,
  "no speedup" while the speedup is at most 1 + `claim_no_speedup_tolerance`;
- `contradicted`: it does not (measured/claimed ratio given);
- `untestable here`: no run on that device/backend, or no kernel for that workload (models,
  all-reduce, latencies at other shapes), or the kernel is not valid in that run; the reason
  says which.

Speed is not the whole of a claim. A claim that states a mechanism of one kernel, a fusion or a
single pass ("fused into the epilogue", "never goes back to memory between the two steps"), is
supported only when the run's record of Inductor's output code (`probe_results.inductor`) shows
that kernel as one kernel call; its check keeps the two halves apart (`number_verdict`,
`mechanism_verdict`, and `verdict_words`: "contradicted: the number holds; the fusion it
credits did not happen"), so a number that holds is never read as one that failed. A
comparison with a library kernel that Inductor itself substituted for the compared kernel says
so. A geomean claim is judged on the geomean without the kernels Inductor substituted (a
library kernel's speed is not generated code's); it names the kernels that carry the raw
geomean, and where the substitution alone carries the claim its verdict says so
("contradicted: the raw geomean supports it only because Inductor substituted a library
kernel for naive_attention … (SDPA)"). A claim about ROCm support of the build is judged on a
ROCm run only (a CUDA build says nothing about it).

A check for a dated briefing (`evaluate_claims(store, day=…)`) uses the runs made by that
day first and says how far its run lies from the day (`run_dates`).

`evaluate_claims(store)` returns a `ClaimCheck` per claim and run, carrying the numbers, the
passage it was read from and the probe rows it was checked against (both receipts).

Matching a claim to a run, measuring its workload and judging the verdict are one decision over
the same `ClaimSpec` and `ProbeRun`, read together here; the records themselves (and the verdict
words) are in `claim_types`.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from shu.evidence.claim_types import (
    BACKENDS,
    CONTRADICTED,
    KERNELS,
    SUPPORTED,
    UNTESTABLE,
    ClaimCheck,
    ClaimSpec,
    Measurement,
    ProbeRun,
    UntestableError,
)
from shu.evidence.claim_vocabulary import DEVICES
from shu.evidence.document_claims import document_claims
from shu.evidence.run_dates import known_first
from shu.evidence.suite_geomean import carriers, without_substitutions
from shu.receipts import Citation
from shu.settings import ConfiguredClaim, Settings
from shu.store import Store


def configured_specs(settings: Settings) -> tuple[ClaimSpec, ...]:
    """The configured claims (settings.claims) as ClaimSpecs."""
    claims = settings.claims
    return tuple(_from_config(c) for c in claims)


def _from_config(c: ConfiguredClaim) -> ClaimSpec:
    return ClaimSpec(
        c.id,
        c.text,
        c.metric,
        c.value,
        c.comparison,
        workload=c.workload,
        device=c.device,
        backend=c.backend,
        dtype=c.dtype,
        value_high=c.value_high,
        tolerance=c.tolerance,
        baseline=c.baseline,
    )


def stored_specs(store: Store) -> list[ClaimSpec]:
    """Every claim read from documents (the `claims` table) as ClaimSpecs."""
    return [
        ClaimSpec(
            r["claim_id"],
            r["quote"],
            r["metric"],
            r["value"],
            r["comparison"],
            unit=r["unit"],
            workload=r["workload"],
            device=r["device"],
            backend=r["backend"],
            stack=r["stack"],
            dtype=r["dtype"],
            quantity=r["quantity"],
            value_high=r["value_high"],
            tolerance=r["tolerance"],
            baseline=r["baseline"],
            source=f"{r['location']} · passage {r['passage_no']}",
            doc_id=r["doc_id"],
            passage_no=r["passage_no"],
            title=r["title"],
            location=r["location"],
            published_on=r["published_on"],
        )
        for r in document_claims(store)
    ]


def all_runs(store: Store) -> list[ProbeRun]:
    """Every probe run with its results, newest first."""
    cur = store.con.execute(
        "SELECT * EXCLUDE (raw_json) FROM probe_runs ORDER BY started_at DESC, run_id DESC"
    )
    names = [d[0] for d in cur.description]
    runs = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    rcur = store.con.execute("SELECT * FROM probe_results")
    rnames = [d[0] for d in rcur.description]
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rcur.fetchall():
        rec = dict(zip(rnames, row, strict=True))
        results.setdefault(rec["run_id"], {})[rec["kernel"]] = rec
    return [ProbeRun(run, results.get(run["run_id"], {})) for run in runs]


def evaluate_claims(
    store: Store,
    settings: Settings,
    claims: tuple[ClaimSpec, ...] | None = None,
    documents: bool = True,
    day: date | None = None,
) -> list[ClaimCheck]:
    """Every claim (configured, then read from documents unless `documents` is False) against
    the runs it applies to; with `day` (a briefing's), the runs made by that day first and each
    check dated against it (`run_dates`)."""
    specs = list(claims if claims is not None else configured_specs(settings))
    if documents and claims is None:
        specs += stored_specs(store)
    runs = known_first(all_runs(store), day)
    checks = []
    for spec in specs:
        for backend, run, reason in _targets(spec, runs):
            if run is None:
                checks.append(
                    ClaimCheck(
                        spec.claim_id,
                        spec.text,
                        backend,
                        UNTESTABLE,
                        reason,
                        threshold=spec.value,
                        spec=spec,
                        reason=reason,
                        day=day,
                    )
                )
                continue
            checks.append(_check(spec, run, runs, settings, day))
    return checks


def _targets(spec: ClaimSpec, runs: list[ProbeRun]) -> list[tuple[str, ProbeRun | None, str]]:
    """The runs a claim is checked on, or (backend, None, why not)."""
    if spec.device:
        run = next(
            (
                r
                for r in runs
                if r.device_class == spec.device.upper() or r.device_class == spec.device
            ),
            None,
        )
        backend = spec.backend or next((b for n, _, b in DEVICES if n == spec.device), "any")
        if run is None:
            have = sorted({r.device_class for r in runs})
            gap = _workload_gap(spec)
            return [
                (
                    backend,
                    None,
                    f"no probe run on {spec.device} in the store (runs on: "
                    f"{', '.join(have) or 'none'})" + (f"; and {gap}" if gap else ""),
                )
            ]
        return [(run.run["backend"], run, "")]
    latest: dict[str, ProbeRun] = {}
    for run in runs:
        latest.setdefault(run.run["backend"], run)
    if spec.metric == "build" and not spec.backend:
        # Whether PyTorch supports ROCm is shown by a ROCm build; a CUDA or CPU build of torch
        # saying "no HIP" is no evidence against it.
        run = latest.get("rocm")
        if run is None:
            others = ", ".join(sorted(b for b in latest if b != "rocm"))
            why = "no probe run on rocm in the store" + (
                f" (a {others} build cannot show whether PyTorch supports ROCm)" if others else ""
            )
            return [("rocm", None, why)]
        return [("rocm", run, "")]
    if spec.backend:
        run = latest.get(spec.backend)
        if run is None:
            return [(spec.backend, None, f"no probe run on {spec.backend} in the store")]
        return [(spec.backend, run, "")]
    if spec.from_document:
        return [("any", None, "the claim names no device or backend to match a probe run")]
    if not latest:
        return [("any", None, "no probe run on any backend in the store")]
    return [(b, latest[b], "") for b in BACKENDS if b in latest]


def _check(
    spec: ClaimSpec, run: ProbeRun, runs: list[ProbeRun], settings: Settings, day: date | None
) -> ClaimCheck:
    base = {
        "day": day,
        "claim_id": spec.claim_id,
        "claim": spec.text,
        "backend": run.run["backend"],
        "threshold": spec.value,
        "run_id": run.run["run_id"],
        "run_started_at": run.run["started_at"],
        "device_name": run.run["device_name"],
        "suite": run.run["suite"],
        "spec": spec,
    }
    try:
        measured, sentence, cites = _measure(spec, run, runs, settings)
    except UntestableError as why:
        return ClaimCheck(
            verdict=UNTESTABLE, evidence=f"{why}; {run.describe()}", reason=str(why), **base
        )
    if spec.metric == "build":
        ok = bool(measured)
        return ClaimCheck(
            verdict=SUPPORTED if ok else CONTRADICTED, evidence=sentence, probe_cites=cites, **base
        )
    carried = None
    if spec.metric == "speedup" and spec.workload == "suite":
        measured, sentence, cites, carried = without_substitutions(
            run, (measured, sentence, cites), lambda m: _holds(spec, m, settings)[0]
        )
    ok, rule = _holds(spec, measured, settings)
    ratio = measured / spec.value if spec.value else None
    evidence = f"{sentence}; claim {rule}" + _stack_note(spec, run)
    if ratio is not None and not ok:
        evidence += f"; measured/claimed = {ratio:.2f}"
    if spec.metric == "speedup" and spec.workload == "suite":
        evidence += carriers(run)
    verdict = number = SUPPORTED if ok else CONTRADICTED
    reason = mechanism_verdict = None
    mechanism = _mechanism(spec, run)
    if mechanism is not None:
        holds, words, mcites = mechanism
        cites += mcites
        evidence += f"; {words}"
        mechanism_verdict = UNTESTABLE if holds is None else SUPPORTED if holds else CONTRADICTED
        if ok and holds is None:
            verdict, reason = UNTESTABLE, words
        elif ok and not holds:
            verdict = CONTRADICTED
    return ClaimCheck(
        verdict=verdict,
        evidence=f"{evidence}; {run.describe()}",
        measured=measured,
        ratio=ratio,
        probe_cites=cites,
        reason=reason,
        number_verdict=number,
        mechanism_verdict=mechanism_verdict,
        carried_by_substitution=carried,
        **base,
    )


# A claim that states how a kernel gets faster: a fusion, one pass, data kept on chip. "fused"
# before a noun ("fused SDPA", "a fused attention kernel") names a kind of kernel, not something
# Inductor is said to do, and does not count.
MECHANISM = re.compile(
    r"\bfuses\b|\bfusing\b|\bfusion\b|\bfuse\b|\bfused\s+(?:into|together|with)\b|"
    r"\b(?:single|one)\s+(?:pass|kernel)\b|"
    r"\bnever\s+(?:goes|go|going|travels?|returns?)\s+back\s+to\s+(?:\w+\s+)?memory|"
    r"\bround[- ]trips?\b|\bstays?\s+(?:in|on)[- ](?:chip|registers?|SRAM|shared memory)",
    re.IGNORECASE,
)


def _mechanism(
    spec: ClaimSpec, run: ProbeRun
) -> tuple[bool | None, str, tuple[Citation, ...]] | None:
    """For a claim stating a fusion or single pass of one kernel: whether Inductor's output code
    runs that kernel as one kernel call (None: not recorded), in words, and the row cited.
    None when the claim states no such mechanism or is not about one kernel."""
    wl = spec.workload
    if wl not in KERNELS or not MECHANISM.search(spec.text):
        return None
    record = run.inductor(wl)
    if record is None or record.get("kernel_calls") is None:
        return (
            None,
            f"the claim states a fusion, but this run did not record what Inductor generated for "
            f"{wl} (a probe run from before it did), so the mechanism is not checked",
            (),
        )
    calls = record["kernel_calls"]
    names = record.get("generated_kernel_names") or []
    library = [c["op"] for c in record.get("extern_calls") or []]
    cite = (run.cite_kernel(wl, "generated_kernels", f"probe {wl} generated kernels"),)
    if calls == 1 and len(names) == 1:
        return True, f"mechanism holds: Inductor generated one kernel for it ({names[0]})", cite
    parts = [f"{len(names)} generated kernel{'s' if len(names) != 1 else ''}"]
    if library:
        parts.append("library " + ", ".join(library))
    return (
        False,
        f"mechanism not as claimed: the compiled {wl} runs {calls} kernel calls "
        f"({'; '.join(parts)}), not one fused kernel",
        cite,
    )


def _stack_note(spec: ClaimSpec, run: ProbeRun) -> str:
    """Says so when the claim states a CUDA/ROCm version other than the run's."""
    m = re.fullmatch(r"(CUDA|ROCm|HIP) (\d[\d.]*)", spec.stack or "")
    if m is None:
        return ""
    have = run.run["cuda_version"] if m.group(1) == "CUDA" else run.run["hip_version"]
    if have and not have.startswith(m.group(2)):
        return f" (the claim states {spec.stack}; this run used {m.group(1)} {have})"
    return ""


def _holds(spec: ClaimSpec, m: float, settings: Settings) -> tuple[bool, str]:
    """Whether measurement `m` meets the claim, and the rule applied, in words."""
    v, c = spec.value, spec.comparison
    given = spec.unit or ("x" if spec.metric in ("speedup", "relative") else "")
    unit = {"x": "×", "fraction": ""}.get(given, f" {given}" if given else "")
    percent = spec.unit == "fraction" or spec.metric == "fraction_of_ceiling"

    def show(x: float) -> str:
        return f"{100 * x:.4g}%" if percent else f"{x:.4g}{unit}"

    if c == "no speedup":
        limit = 1 + settings.claim_no_speedup_tolerance
        return m <= limit, f"'no speedup' read as at most {limit:.2f}×"
    if v is None:
        raise UntestableError("the claim states no value")
    if c in ("up to", "at most"):
        return m <= v, f"'{c} {show(v)}' read as an upper bound"
    if c == "at least":
        return m >= v, f"'at least {show(v)}' read as a lower bound"
    if c == "between" and spec.value_high is not None:
        return v <= m <= spec.value_high, f"range {show(v)}-{show(spec.value_high)} inclusive"
    tol = spec.tolerance if spec.tolerance is not None else settings.claim_tolerance
    if c == "within" and spec.metric == "relative":
        return abs(m / v - 1) <= tol, (
            f"'within {100 * tol:.4g}%' read as a ratio of {v - tol:.4g} to {v + tol:.4g}"
        )
    return abs(m / v - 1) <= tol, f"'{c} {show(v)}' read as within ±{100 * tol:.0f}%"


def _measure(
    spec: ClaimSpec, run: ProbeRun, runs: list[ProbeRun], settings: Settings
) -> Measurement:
    wl, metric = spec.workload, spec.metric
    if metric == "build":
        hip = run.run["hip_version"]
        build = (
            f"HIP {hip}"
            if hip
            else f"torch.version.hip = None (CUDA {run.run['cuda_version']} build)"
            if run.run["cuda_version"]
            else "torch.version.hip = None (CPU-only build)"
        )
        return (
            1.0 if hip else 0.0,
            f"torch {run.run['torch_version']} reports {build}; run {run.run['run_id']}",
            (run.cite_run("hip_version", "probe run HIP version"),),
        )
    gap = _workload_gap(spec)
    if gap:
        raise UntestableError(gap)
    if metric in ("latency", "throughput"):
        raise UntestableError(
            f"no {metric} measurement comparable to the claim's (the probe's "
            "timings are at its own shapes)"
        )
    if metric == "relative":
        return _relative(spec, run, runs, settings)
    assert wl is not None  # _workload_gap said so
    return _quantity(spec, run, wl, metric, settings)


def _workload_gap(spec: ClaimSpec) -> str | None:
    """Why no probe kernel can measure the claim's workload (None when one may)."""
    wl = spec.workload
    if wl is None:
        return "the claim names no workload the probe measures"
    if wl.startswith("model:"):
        return f"no kernel for workload {wl[6:]} (the probe times single kernels, not models)"
    if wl == "all-reduce":
        return "no kernel for all-reduce (the probe times one device, no collectives)"
    return None


def _quantity(
    spec: ClaimSpec, run: ProbeRun, wl: str, metric: str, settings: Settings
) -> Measurement:
    r = run.run
    if metric == "speedup":
        if wl == "suite":
            if not r["n_valid"] or r["geomean_speedup"] is None:
                raise UntestableError("no valid kernel")
            return (
                r["geomean_speedup"],
                f"geomean speedup {r['geomean_speedup']:.2f}x raw "
                f"({r['geomean_speedup_clipped']:.2f}x with slowdowns clipped to 1.0) over "
                f"{r['n_valid']}/{r['n_kernels']} valid kernels",
                (run.cite_run("geomean_speedup", "probe geomean speedup"),),
            )
        row = _kernel(run, wl)
        _dtype_matches(spec, row["dtype"], settings)
        return (
            row["speedup"],
            f"compiled {wl} {row['speedup']:.2f}x eager ({row['shape']}, {row['dtype']})",
            (run.cite_kernel(wl, "speedup", f"probe {wl} speedup"),),
        )
    if metric == "fraction_of_ceiling":
        row = _kernel(run, wl)
        frac = row["fraction_of_ceiling"]
        if frac is None:
            raise UntestableError(f"no achieved rate for {wl}")
        ceiling = (
            f"copy bandwidth {r['copy_gbps']:.0f} GB/s"
            if row["achieved_unit"] == "GB/s"
            else f"{r['matmul_dtype']} matmul {r['matmul_tflops']:.4g} TFLOP/s"
        )
        return (
            frac,
            f"compiled {wl} reached {row['achieved_compiled']:.4g} "
            f"{row['achieved_unit']} = {100 * frac:.0f}% of the measured {ceiling}",
            (run.cite_kernel(wl, "fraction_of_ceiling", f"probe {wl} fraction of ceiling"),),
        )
    if metric in ("TFLOP/s", "GB/s"):
        if wl == "matmul" and metric == "TFLOP/s":
            if r["matmul_tflops"] is None:
                raise UntestableError("no matmul ceiling measured")
            note = _dtype_matches(spec, r["matmul_dtype"], settings)
            return (
                r["matmul_tflops"],
                f"measured {r['matmul_dtype']} matmul ceiling "
                f"{r['matmul_tflops']:.4g} TFLOP/s{note}",
                (run.cite_run("matmul_tflops", "probe matmul ceiling"),),
            )
        if wl == "copy" and metric == "GB/s":
            if r["copy_gbps"] is None:
                raise UntestableError("no copy bandwidth measured")
            return (
                r["copy_gbps"],
                f"measured copy bandwidth {r['copy_gbps']:.4g} GB/s",
                (run.cite_run("copy_gbps", "probe copy bandwidth"),),
            )
        if wl in KERNELS:
            row = _kernel(run, wl)
            if row["achieved_unit"] != metric:
                raise UntestableError(
                    f"the probe reports {wl} in {row['achieved_unit']}, not {metric}"
                )
            note = _dtype_matches(spec, row["dtype"], settings)
            return (
                row["achieved_compiled"],
                f"compiled {wl} reached "
                f"{row['achieved_compiled']:.4g} {metric} ({row['shape']}, {row['dtype']})"
                f"{note}",
                (run.cite_kernel(wl, "achieved_compiled", f"probe {wl} achieved {metric}"),),
            )
    raise UntestableError(f"no {metric} measurement for workload {wl}")


def _substituted_baseline(run: ProbeRun, wl: str, base: str) -> str:
    """Says so when Inductor replaced `wl` by the very library kernel `base` calls."""
    mine, theirs = run.inductor(wl), run.inductor(base)
    if mine is None or theirs is None:
        return ""
    families = {c["family"] for c in theirs.get("extern_calls") or []}
    same = [s for s in mine.get("substitutions") or [] if s["family"] in families]
    if not same:
        return ""
    return (
        f"; but Inductor itself replaced {wl} by {same[0]['by']}, the library kernel {base} "
        f"calls, so this compares that kernel with itself, not generated code with it"
    )


def _kernel(run: ProbeRun, kernel: str) -> dict[str, Any]:
    if kernel not in KERNELS:
        raise UntestableError(f"no kernel for workload {kernel}")
    row = run.results.get(kernel)
    if row is None:
        raise UntestableError(f"kernel {kernel} is not in this run")
    if not row["is_valid"]:
        raise UntestableError(f"kernel {kernel} is not valid ({row['invalid_reason']})")
    return row


def _dtype_matches(spec: ClaimSpec, measured: str | None, settings: Settings) -> str:
    if spec.dtype is None or measured is None or spec.dtype == measured:
        return ""
    if settings.claim_dtype_equivalents.get(spec.dtype) == measured:
        return (
            f" (the claim is about {spec.dtype}; checked against {measured}, configured "
            "as equivalent)"
        )
    raise UntestableError(f"the claim is about {spec.dtype}, the probe measured {measured}")


def _relative(
    spec: ClaimSpec, run: ProbeRun, runs: list[ProbeRun], settings: Settings
) -> Measurement:
    wl, base = spec.workload, spec.baseline
    if base in KERNELS and wl in KERNELS:  # time of the compiled kernel / eager baseline
        row, other = _kernel(run, wl), _kernel(run, base)
        ratio = row["compiled_ms"] / other["eager_ms"]
        cites: tuple[Citation, ...] = (
            run.cite_kernel(wl, "compiled_ms", f"probe {wl} compiled ms"),
            run.cite_kernel(base, "eager_ms", f"probe {base} eager ms"),
        )
        same = _substituted_baseline(run, wl, base)
        if same:
            cites += (run.cite_kernel(wl, "substitutions", f"probe {wl} substitutions"),)
        return (
            ratio,
            f"compiled {wl.replace('_', ' ')} {row['compiled_ms']:.4g} ms vs eager "
            f"{base} {other['eager_ms']:.4g} ms at the same shapes ({ratio:.2f}x; eager "
            f"{wl.replace('_', ' ')} {row['eager_ms']:.4g} ms){same}",
            cites,
        )
    if base is None:
        raise UntestableError("the claim names nothing to compare with")
    baseline_run: ProbeRun | None = next((r for r in runs if r.device_class == base), None)
    if baseline_run is None and base.split()[0].lower() in ("cuda", "rocm"):
        baseline_run = next(
            (r for r in runs if r.run["backend"] == base.split()[0].lower() and r is not run), None
        )
    if baseline_run is None:
        raise UntestableError(f"no probe run on {base}, the claim's baseline")
    metric = {"TFLOP/s": "TFLOP/s", "GB/s": "GB/s", "bandwidth": "GB/s"}.get(spec.quantity or "")
    if metric is None or wl is None:
        raise UntestableError(
            f"no measurement of {spec.quantity or 'that quantity'} to compare "
            f"{run.device_class} with {base}"
        )
    mine = _quantity(spec, run, wl, metric, settings)
    theirs = _quantity(spec, baseline_run, wl, metric, settings)
    ratio = mine[0] / theirs[0]
    return (
        ratio,
        f"{run.device_class}: {mine[1]}; {baseline_run.device_class}: {theirs[1]} "
        f"(ratio {100 * ratio:.1f}%)",
        mine[2] + theirs[2],
    )
