"""The probe runs a table of claim checks rests on, named once at its head and by a short label
in its rows.

A claim's evidence ends with its run named in full (`claim_types.run_identity`: device, torch,
suite, run id), and every check says when its run was made against the briefing's day
(`run_dates.run_made_words`). Both are shared by every row checked against the same run, so the
table's head states them once per run, grouped by when the runs were made ("Made 9 months after
this briefing's day, so not known on it: the H100 run (…) and the H200 run (…)"), and each row
keeps only its run's label ("H100", or the run id where two runs share a device class). The
per-claim facts stay whole in the JSON sidecar.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from shu.briefing.text import and_list, day_text, ref
from shu.evidence.claim_types import device_class, split_run
from shu.evidence.run_dates import run_made_words
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md, safe_code, safe_inline


@dataclass
class _Run:
    identity: str | None  # the run named in full, as its checks' evidence ends
    started_at: datetime | None
    device: str  # its device class ('H100')


@dataclass
class RunNames:
    """The runs of one table's checks (`add` each, then `label` and `heads`)."""

    day: date | None  # the briefing's day the runs are dated against
    runs: dict[str, _Run] = field(default_factory=dict)

    def add(
        self,
        evidence: str,
        run_id: str | None,
        started_at: datetime | None,
        device_name: str | None,
        backend: str | None,
    ) -> str:
        """Record the run of one check; `evidence` without the run's identity at its end."""
        if not run_id:
            return evidence
        said, identity = split_run(evidence, run_id)
        run = self.runs.setdefault(
            run_id, _Run(None, started_at, device_class(device_name, backend))
        )
        run.identity = run.identity or identity
        return said

    def label(self, run_id: str | None) -> str:
        """The run's label in a row: its device class, or its id where the table's runs share
        that class; '—' for a check without a run."""
        if not run_id or run_id not in self.runs:
            return "—"
        device = self.runs[run_id].device
        shared = sum(r.device == device for r in self.runs.values()) > 1
        return safe_code(run_id) if shared else safe_inline(device)

    def heads(self, book: ReceiptBook, said: set[str] | None = None) -> list[Md]:
        """One line per distinct 'made … this briefing's day' (all of them without a day): the
        runs made then, each named in full with its start day's receipt, or as named above when
        `said` (the note's `ctx.said`) holds it already; each named is added to `said`."""
        said = set() if said is None else said
        groups: dict[str, list[str]] = {}
        for run_id, run in self.runs.items():
            when = run_made_words(run.started_at, self.day) or "undated against this briefing"
            full = run.identity or f"run {run_id}"
            if full in said:
                named = f"the {self.label(run_id)} run (named above)"
            else:
                r = book.row(
                    "probe_runs",
                    {"run_id": run_id},
                    "started_at",
                    run.started_at,
                    run.started_at.date() if run.started_at else None,
                    f"probe run {run_id}",
                )
                started = f"{day_text(run.started_at)}, " if run.started_at else ""
                named = f"the {self.label(run_id)} run ({started}{safe_inline(full)}) {ref(r)}"
                said.add(full)
            groups.setdefault(when, []).append(named)
        return [
            Md(f"{safe_inline(when.removeprefix('run ')).capitalize()}: {and_list(named)}.")
            for when, named in groups.items()
        ]
