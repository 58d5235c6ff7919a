"""The probe: in the body, one sentence per backend's latest run (how much faster compiled
kernels ran than eager, on average); in the appendix, its kernels and the configured claims
checked against it. The claims read from documents follow (`sections.claims`)."""

from __future__ import annotations

from typing import Any

from shu.briefing import facts
from shu.briefing.context import BriefingContext, Part
from shu.briefing.text import num, pct, ref
from shu.evidence.checked_claims import configured_checks
from shu.safe_markdown import Md, safe_inline


def build(ctx: BriefingContext) -> Part:
    """The probe runs' tables and the configured claims' verdicts."""
    out_runs = []
    for run in facts.latest_probe_runs(ctx.store):
        started = run["started_at"].date() if run["started_at"] else None
        r = ctx.book.row(
            "probe_runs",
            {"run_id": run["run_id"]},
            "geomean_speedup",
            run["geomean_speedup"],
            started,
            f"probe {run['backend']} geomean",
        )
        out_runs.append(
            {
                "after_day": started is not None and started > ctx.day,
                "backend": run["backend"],
                "device": run["device_name"],
                "started": run["started_at"],
                "suite": run["suite"],
                "geomean": Md(f"{num(run['geomean_speedup'])}× {ref(r)}"),
                "clipped": Md(f"{num(run['geomean_speedup_clipped'])}×"),
                "pass_rate": Md(pct(run["pass_rate"])),
                "n_kernels": sum(1 for k in facts.probe_kernels(ctx.store, run["run_id"])),
                "kernels": [_kernel_row(k) for k in facts.probe_kernels(ctx.store, run["run_id"])],
            }
        )
    claims, data = [], []
    for claim in configured_checks(ctx.store):
        refs = [ctx.book.cite(c) for c in claim.citations]
        claims.append(
            {
                "claim": claim.claim,
                "verdict": claim.verdict,
                "numbers": Md(safe_inline(claim.numbers) + " " + ref(*refs)),
            }
        )
        data.append(
            {
                "text": claim.claim,
                "source": "built-in",
                "verdict": claim.verdict,
                "evidence": claim.numbers,
            }
        )
    probe = {"runs": out_runs, "claims": claims, "max_age_days": ctx.settings.probe_max_age_days}
    return Part(
        ctx.render("sections/probe.md.j2", probe=probe),
        data={"claims": data},
        appendix=ctx.render("sections/probe_appendix.md.j2", probe=probe),
    )


def _kernel_row(k: dict[str, Any]) -> dict[str, Any]:
    return {
        "kernel": k["kernel"],
        "valid": "yes" if k["is_valid"] else "no",
        "eager": Md(num(k["eager_ms"], 3)),
        "compiled": Md(num(k["compiled_ms"], 3)),
        "speedup": Md(num(k["speedup"]) + "×"),
    }
