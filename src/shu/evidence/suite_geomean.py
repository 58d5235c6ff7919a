"""A claim about the probe suite's geomean, judged without the kernels Inductor substituted.

Where Inductor hands a kernel to a library kernel (the suite's naive attention becomes cuDNN's
SDPA), that kernel's speedup is the library's, not generated code's, and it can carry the whole
geomean (1.69x with it on the H100, 1.32x without). So `claims` judges a geomean claim on
`probe_runs.geomean_speedup_without_substitutions` where the run substituted a kernel, names
the raw geomean beside it and the kernels that carry it, and where the raw geomean meets the
claim and the other does not, says that only the substitution carries it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from shu.receipts import Citation


class _Run(Protocol):
    """What these checks read of a probe run (`claims.ProbeRun`)."""

    @property
    def run(self) -> dict[str, Any]: ...

    @property
    def results(self) -> dict[str, dict[str, Any]]: ...

    def cite_run(self, column: str, label: str) -> Citation: ...

    def cite_kernel(self, kernel: str, column: str, label: str) -> Citation: ...


def carriers(run: _Run) -> str:
    """Which kernels carry a run's raw geomean (those above it), marking the ones Inductor
    replaced by a library kernel, and the range of the others."""
    valid = sorted(
        ((k, row["speedup"]) for k, row in run.results.items() if row["is_valid"]),
        key=lambda kv: -kv[1],
    )
    gm = run.run["geomean_speedup"]
    if not valid or gm is None:
        return ""
    subs = substituted(run)
    above = [(k, s) for k, s in valid if s > gm]
    rest = [s for k, s in valid if s <= gm]
    text = "; carried by " + ", ".join(
        f"{k} {s:.2f}x" + (" (Inductor substituted a library kernel)" if k in subs else "")
        for k, s in above
    )
    if rest:
        text += f"; the other {len(rest)} at {min(rest):.2f}-{max(rest):.2f}x"
    return text


def substituted(run: _Run) -> dict[str, str]:
    """The valid kernels Inductor replaced by a library kernel, each with what replaced it as
    the run stored it (`probe_results.substitutions`: 'bmm+mul+_softmax+bmm →
    aten._scaled_dot_product_cudnn_attention (SDPA)')."""
    return {
        k: row["substitutions"]
        for k, row in run.results.items()
        if row["is_valid"] and row.get("substitutions")
    }


def without_substitutions(
    run: _Run, raw: tuple[float, str, tuple[Citation, ...]], meets: Callable[[float], bool]
) -> tuple[float, str, tuple[Citation, ...], str | None]:
    """A geomean claim's measurement without the kernels Inductor substituted (the raw one
    when the run substituted none or did not record it), and, where the raw geomean meets the
    claim and that one does not, what says so: 'the raw geomean supports it only because
    Inductor substituted a library kernel for naive_attention (1.69x with it, 1.32x without):
    … → aten._scaled_dot_product_cudnn_attention (SDPA)'."""
    without = run.run.get("geomean_speedup_without_substitutions")
    subs = substituted(run)
    if without is None or not subs:
        return (*raw, None)
    names = ", ".join(sorted(subs))
    cites = raw[2] + (
        run.cite_run(
            "geomean_speedup_without_substitutions", "probe geomean without substitutions"
        ),
        *(run.cite_kernel(k, "substitutions", f"probe {k} substitutions") for k in sorted(subs)),
    )
    n = (run.run["n_valid"] or 0) - len(subs)
    sentence = (
        f"geomean speedup {without:.2f}x over the other {n} valid kernels, without {names}, "
        f"which Inductor handed to a library kernel ({raw[0]:.2f}x raw with "
        f"{'it' if len(subs) == 1 else 'them'})"
    )
    carried = None
    if meets(raw[0]) and not meets(without):
        one = len(subs) == 1
        carried = (
            f"the raw geomean supports it only because Inductor substituted a library kernel "
            f"for {names} ({raw[0]:.2f}x with {'it' if one else 'them'}, {without:.2f}x "
            f"without): " + ", ".join(subs[k] for k in sorted(subs))
        )
    return without, sentence, cites, carried
