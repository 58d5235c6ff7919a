"""The probe, after the body (shu's bookkeeping): first one sentence per backend's latest run
(how much faster compiled kernels ran than eager, on average, and which kernels Inductor handed
to a library kernel instead of generating code); then its kernels, each with what Inductor made
of it (kernels generated against kernels eager launched, library calls, patterns replaced by a
library op), and the configured claims checked against it. The claims read from documents follow
(`sections.claims`)."""

from __future__ import annotations

from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.briefing.sections.run_names import RunNames
from shu.briefing.text import num, pct, ref
from shu.evidence.checked_claims import configured_checks, document_checks
from shu.evidence.probe_runs import latest_probe_runs, probe_kernels
from shu.evidence.run_dates import made_after, run_made_words
from shu.safe_markdown import Md, safe_inline


def build(ctx: BriefingContext) -> Part:
    """The probe runs' tables and the configured claims' verdicts."""
    out_runs = []
    for run in latest_probe_runs(ctx.store):
        started = run["started_at"].date() if run["started_at"] else None
        r = ctx.book.row(
            "probe_runs",
            {"run_id": run["run_id"]},
            "geomean_speedup",
            run["geomean_speedup"],
            started,
            f"probe {run['backend']} geomean",
        )
        kernels = probe_kernels(ctx.store, run["run_id"])
        out_runs.append(
            {
                "after_day": made_after(run["started_at"], ctx.as_of),
                "made": run_made_words(run["started_at"], ctx.as_of),
                "backend": run["backend"],
                "device": run["device_name"],
                "started": run["started_at"],
                "suite": run["suite"],
                "geomean": Md(f"{num(run['geomean_speedup'])}× {ref(r)}"),
                "clipped": Md(f"{num(run['geomean_speedup_clipped'])}×"),
                "pass_rate": Md(pct(run["pass_rate"])),
                "n_kernels": len(kernels),
                "n_valid": sum(1 for k in kernels if k["is_valid"]),
                "kernels": [_kernel_row(ctx, run, k, started) for k in kernels],
                "cpu_note": cpu_note(run["backend"], run["geomean_speedup"]),
                **_substituted(ctx, run, kernels, started),
            }
        )
    claims, data = [], []
    runs = RunNames(ctx.as_of)
    checks = configured_checks(ctx.store, ctx.settings, ctx.as_of)
    numbers = [
        runs.add(c.numbers, c.run_id, c.run_started_at, c.device_name, c.backend) for c in checks
    ]
    for claim, said in zip(checks, numbers, strict=True):
        claims.append(
            {
                "claim": claim.claim,
                "verdict": claim.verdict,
                "verdict_words": claim.verdict_words.removeprefix(claim.verdict),
                "numbers": Md(safe_inline(said)),
                "run": Md(runs.label(claim.run_id)),
            }
        )
        data.append(
            {
                "text": claim.claim,
                "source": "built-in",
                "verdict": claim.verdict,
                "evidence": claim.numbers,
                "verdict_in_words": claim.verdict_words,
                "run_made": claim.run_made,
                "run_after_day": claim.run_after_day,
            }
        )
    if nothing_to_check(ctx):
        return Part("", data={"claims": data}, left_out=NOTHING_TO_CHECK)
    probe = {
        "runs": out_runs,
        "claims": claims,
        "claim_runs": runs.heads(ctx.book, ctx.said),
        "max_age_days": ctx.settings.probe_max_age_days,
    }
    return Part(  # after the body: shu's bookkeeping
        "",
        data={"claims": data},
        appendix=ctx.render("sections/probe.md.j2", probe=probe)
        + ctx.render("sections/probe_appendix.md.j2", probe=probe),
    )


# Why Probe and claims is left out of the body when `nothing_to_check`.
NOTHING_TO_CHECK = (
    "Probe and claims (no probe run is stored: `shu probe`, or `shu ingest probe FILE.json` from "
    "a GPU host; and no hardware or compiler claim has been read from the documents: "
    "`shu ingest docs`)"
)


def nothing_to_check(ctx: BriefingContext) -> bool:
    """True when the store holds no probe run and no claim has been read from a document:
    Probe and claims has nothing to say and is left out of the body (the configured claims,
    untestable without a run, stay in the JSON)."""
    if latest_probe_runs(ctx.store):
        return False
    return not document_checks(ctx.store, ctx.data_through, ctx.settings, ctx.as_of)


def cpu_note(backend: str, geomean: float | None) -> Md | None:
    """For a CPU run, one plain sentence on reading its number (None for any other backend):
    compiled code slower than eager is what small kernels on a CPU usually show, not a fault."""
    if backend != "cpu":
        return None
    if geomean is not None and geomean < 1:
        return Md(
            "On a CPU that is normal for kernels this small: eager already calls tuned library "
            "routines and there is little memory traffic for compiled code to save, so it often "
            "runs slower; the probe is meant for GPUs (`shu probe` on one, or its JSON from a "
            "GPU host)."
        )
    return Md(
        "This is a CPU run: on kernels this small compiled code often runs no faster than "
        "eager, so the number says little about a GPU (`shu probe` on one, or its JSON from a "
        "GPU host)."
    )


def _kernel_row(
    ctx: BriefingContext, run: dict[str, Any], k: dict[str, Any], started: Any
) -> dict[str, Any]:
    did = k["inductor_did"]
    if did is not None:
        r = ctx.book.row(
            "probe_results",
            {"run_id": run["run_id"], "kernel": k["kernel"]},
            "inductor_did",
            did,
            started,
            f"probe {k['kernel']}: what Inductor did",
        )
        did_md = Md(f"{safe_inline(did)} {ref(r)}")
    else:
        did_md = Md("not recorded (a run from before the probe read Inductor's code)")
    return {
        "kernel": k["kernel"],
        "valid": "yes" if k["is_valid"] else "no",
        "eager": Md(num(k["eager_ms"], 3)),
        "compiled": Md(num(k["compiled_ms"], 3)),
        "speedup": Md(num(k["speedup"]) + "×"),
        "inductor": did_md,
    }


def _substituted(
    ctx: BriefingContext, run: dict[str, Any], kernels: list[dict[str, Any]], started: Any
) -> dict[str, Any]:
    """The kernels Inductor handed to a library kernel: for the appendix, one line each
    ('naive_attention 6.07× — Inductor replaced it by a library kernel: …') and the geomean
    without them (`substituted`); for the body, one sentence naming them (`substituted_short`)."""
    lines, names = [], []
    for k in kernels:
        if not k["substitutions"]:
            continue
        r = ctx.book.row(
            "probe_results",
            {"run_id": run["run_id"], "kernel": k["kernel"]},
            "substitutions",
            k["substitutions"],
            started,
            f"probe {k['kernel']} substitutions",
        )
        names.append(f"{safe_inline(k['kernel'])} ({num(k['speedup'])}× {ref(r)})")
        lines.append(
            Md(
                f"{safe_inline(k['kernel'])} {num(k['speedup'])}× — Inductor replaced it by a "
                f"library kernel: {safe_inline(k['substitutions'])} {ref(r)}; the speedup is that "
                "kernel's, not generated code's"
            )
        )
    if not lines:
        return {"substituted": [], "substituted_short": None}
    one = len(names) == 1
    short = (
        f"Inductor handed {', '.join(names)} to a library kernel, so "
        f"{'that speedup is' if one else 'those speedups are'} the library's, not compiled code's"
    )
    without = run.get("geomean_speedup_without_substitutions")
    if without is not None:
        r = ctx.book.row(
            "probe_runs",
            {"run_id": run["run_id"]},
            "geomean_speedup_without_substitutions",
            without,
            started,
            f"probe {run['backend']} geomean without substitutions",
        )
        lines.append(Md(f"geometric mean of the other valid kernels: {num(without)}× {ref(r)}"))
        short += f"; without {'it' if one else 'them'} the average is {num(without)}× {ref(r)}"
    return {"substituted": lines, "substituted_short": Md(short + ".")}
