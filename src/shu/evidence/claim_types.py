"""The records claim checks work with (`claims`): a claim to check (`ClaimSpec`), a probe run with
its results (`ProbeRun`), a check's outcome (`ClaimCheck`), the verdict words, the kernels and
backends a claim can name, and a run's device class (`device_class`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from shu.evidence.claim_vocabulary import DEVICES
from shu.evidence.run_dates import made_after, run_made_words
from shu.receipts import Citation

SUPPORTED = "supported"
CONTRADICTED = "contradicted"
UNTESTABLE = "untestable here"

BACKENDS = ("cuda", "rocm", "cpu", "mps")
KERNELS = (
    "layernorm_gelu",
    "softmax",
    "gemm_bias_relu",
    "sdpa",
    "naive_attention",
    "transformer_block",
)
CONFIG_SOURCE = "shu.toml"
BUILD_WORDS = {"rocm": "ROCm", "cuda": "CUDA"}


@dataclass(frozen=True)
class ClaimSpec:
    """A claim in the `claims` table's vocabulary, from a document or from the settings."""

    claim_id: str
    text: str
    metric: str
    value: float | None
    comparison: str
    unit: str = ""
    workload: str | None = None
    device: str | None = None
    backend: str | None = None
    stack: str | None = None
    dtype: str | None = None
    quantity: str | None = None
    value_high: float | None = None
    tolerance: float | None = None
    baseline: str | None = None
    source: str = CONFIG_SOURCE
    doc_id: str | None = None
    passage_no: int | None = None
    title: str | None = None
    location: str | None = None
    published_on: date | None = None

    @property
    def from_document(self) -> bool:
        return self.doc_id is not None

    def describe(self) -> str:
        """What is claimed, in words: 'H100 · CUDA 12.4 · matmul float16: about 1580 TFLOP/s'."""
        who = " · ".join(x for x in (self.device or self.backend, self.stack) if x) or "any"
        what = " ".join(x for x in (self.workload, self.dtype) if x) or "unstated workload"
        if self.comparison == "no speedup":
            return f"{who} · {what}: no speedup"
        if self.metric == "build":
            return f"{who} · the torch build supports {BUILD_WORDS.get(self.workload or '', what)}"
        if self.comparison == "within" and self.metric == "relative" and self.tolerance:
            of = f" of {self.baseline}" if self.baseline else ""
            return (
                f"{who} · {what}: {self.quantity or 'time'} within {100 * self.tolerance:.4g}%{of}"
            )
        percent = self.unit == "fraction" or self.metric == "fraction_of_ceiling"
        value = (
            "?"
            if self.value is None
            else (f"{100 * self.value:.4g}%" if percent else f"{self.value:.4g}")
        )
        if self.value_high is not None:
            value += "-" + (
                f"{100 * self.value_high:.4g}%" if percent else f"{self.value_high:.4g}"
            )
        given = self.unit or ("x" if self.metric in ("speedup", "relative") else "")
        unit = "" if percent else {"x": "×"}.get(given, f" {given}" if given else "")
        of = (
            f" of {self.baseline}"
            if self.metric in ("relative", "fraction_of_ceiling") and self.baseline
            else ""
        )
        if self.metric == "relative" and self.baseline in KERNELS and not percent:
            of = f" the eager time of {self.baseline}"
        quantity = f" {self.quantity}" if self.metric == "relative" and self.quantity else ""
        return f"{who} · {what}: {self.comparison} {value}{unit}{quantity}{of}"


@dataclass(frozen=True)
class ClaimCheck:
    """One claim's verdict on one run (or why none could be reached), with both receipts."""

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
    spec: ClaimSpec | None = None
    ratio: float | None = None
    # the stored probe values the verdict rests on (`row` citations of probe_runs/probe_results)
    probe_cites: tuple[Citation, ...] = field(default_factory=tuple)
    reason: str | None = None  # why untestable, without the run description
    # The verdict's two halves where a claim states a number and a mechanism (a fusion, one
    # pass): whether the number holds, and whether the mechanism happened (None: none stated).
    number_verdict: str | None = None
    mechanism_verdict: str | None = None
    day: date | None = None  # the briefing's day the run is dated against (None: undated check)
    # the substitution alone carries an aggregate claim: what it says ("supported only because…")
    carried_by_substitution: str | None = None

    @property
    def run_made(self) -> str | None:
        """When the run was made against the briefing's day, in words (None: no run or day)."""
        return run_made_words(self.run_started_at, self.day) if self.run_id else None

    @property
    def run_after_day(self) -> bool:
        """True when the run was made after the briefing's day (not known on it)."""
        return bool(self.run_id) and made_after(self.run_started_at, self.day)

    @property
    def verdict_words(self) -> str:
        """The verdict in words, split into the number and the fusion it credits where the
        claim states both: 'contradicted: the number holds; the fusion it credits did not
        happen'. Just the verdict otherwise."""
        number, mechanism = self.number_verdict, self.mechanism_verdict
        if self.carried_by_substitution:
            return f"{self.verdict}: {self.carried_by_substitution}"
        if mechanism is None or number is None:
            return self.verdict
        holds = "the number holds" if number == SUPPORTED else "the number does not hold"
        fusion = {
            SUPPORTED: "the fusion it credits happened",
            CONTRADICTED: "the fusion it credits did not happen",
            UNTESTABLE: "whether the fusion it credits happened was not recorded",
        }[mechanism]
        return f"{self.verdict}: {holds}; {fusion}"

    def as_json(self) -> dict[str, Any]:
        """The check as `shu claims --json` prints it."""
        s = self.spec
        source: Any = CONFIG_SOURCE
        if s is not None and s.from_document:
            source = {
                "document": s.location,
                "title": s.title,
                "doc_id": s.doc_id,
                "passage": s.passage_no,
            }
        return {
            "id": self.claim_id,
            "claim": self.claim,
            "verdict": self.verdict,
            "number_verdict": self.number_verdict,
            "mechanism_verdict": self.mechanism_verdict,
            "verdict_in_words": self.verdict_words,
            "claimed_as": s.describe() if s else None,
            "source": source,
            "device": s.device if s else None,
            "backend": self.backend,
            "stack": s.stack if s else None,
            "workload": s.workload if s else None,
            "dtype": s.dtype if s else None,
            "metric": s.metric if s else None,
            "unit": s.unit if s else None,
            "comparison": s.comparison if s else None,
            "claimed": self.threshold,
            "claimed_high": s.value_high if s else None,
            "baseline": s.baseline if s else None,
            "measured": self.measured,
            "ratio": self.ratio,
            "run_id": self.run_id,
            "run_device": self.device_name,
            "run_made": self.run_made,
            "run_after_day": self.run_after_day,
            "evidence": self.evidence,
            "probe_rows": [
                {"table": c.table, "key": c.key, "column": c.column, "value": c.value}
                for c in self.probe_cites
            ],
        }


@dataclass(frozen=True)
class ProbeRun:
    """A probe run as claims see it: the `probe_runs` row and its results by kernel."""

    run: dict[str, Any]
    results: dict[str, dict[str, Any]]

    @property
    def device_class(self) -> str:
        return device_class(self.run["device_name"], self.run["backend"])

    @property
    def started_on(self) -> date | None:
        started = self.run["started_at"]
        return started.date() if started else None

    def valid(self, kernel: str) -> dict[str, Any] | None:
        """The kernel's result row when present and valid, else None."""
        row = self.results.get(kernel)
        return row if row and row["is_valid"] else None

    def inductor(self, kernel: str) -> dict[str, Any] | None:
        """The kernel's record of Inductor's output code, or None (not in the run, or a run
        made before the probe recorded it)."""
        text = (self.results.get(kernel) or {}).get("inductor")
        return json.loads(text) if text else None

    def describe(self) -> str:
        return run_identity(self.run)

    def cite_run(self, column: str, label: str) -> Citation:
        return Citation(
            "row",
            "probe_runs",
            {"run_id": self.run["run_id"]},
            column,
            self.run[column],
            label=label,
        )

    def cite_kernel(self, kernel: str, column: str, label: str) -> Citation:
        return Citation(
            "row",
            "probe_results",
            {"run_id": self.run["run_id"], "kernel": kernel},
            column,
            self.results[kernel][column],
            label=label,
        )


class UntestableError(Exception):
    """Raised inside measuring: the claim cannot be tested on this run (message says why)."""


Measurement = tuple[float, str, tuple[Citation, ...]]  # value, sentence, cites


def device_class(device_name: str | None, backend: str | None) -> str:
    """'H100', 'MI300X', 'CPU'… for a run's device name (the name itself when unknown)."""
    if backend == "cpu":
        return "CPU"
    for name, pattern, _ in DEVICES:
        if re.search(rf"\b{pattern}\b", device_name or "", re.IGNORECASE):
            return name
    return device_name or "unknown"


def split_run(evidence: str, run_id: str | None) -> tuple[str, str | None]:
    """(`evidence` without the run named in full at its end, that naming): a check's evidence
    ends with `run_identity` of its run; (evidence, None) when it does not."""
    head, _, tail = evidence.rpartition("; ")
    if run_id and head and tail.endswith(f"run {run_id}"):
        return head, tail
    return evidence, None


def run_identity(run: dict[str, Any]) -> str:
    """A probe run named in full, as a claim's evidence ends with it: device, torch, suite and
    run id (a `probe_runs` row)."""
    return (
        f"{run['device_name']}, torch {run['torch_version']}, {run['suite']} suite "
        f"v{run['suite_version']}, run {run['run_id']}"
    )
