"""The claim checks that the briefing and topic evidence show, with what they cite.

- `configured_checks(store, settings, as_of)`: the configured claims (`settings.claims`)
  checked against the latest run per backend (with a briefing's day `as_of`: the latest made by
  it, else the earliest after it, named as later; `evidence.run_dates`), each citing the probe
  run it was evaluated on;
- `document_checks(store, data_through, settings, as_of)`: the checks of claims read from
  documents published by the briefing's data day (undated documents included), dated the same
  way; each carries its passage and probe rows;
- `group_checks(checks)`: those checks as a reader should meet them, each claim once: the same
  claim with the same verdict and evidence from several documents is one group keeping every
  passage as a receipt, and the claims of one passage left untestable for one reason are one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from shu.evidence.claims import UNTESTABLE, ClaimCheck, ClaimSpec, evaluate_claims
from shu.receipts import Citation
from shu.settings import Settings
from shu.store import Store


@dataclass
class ConfiguredCheck:
    """A configured claim checked against the latest probe run: verdict, numbers, receipts."""

    claim: str
    verdict: str
    numbers: str
    citations: list[Any]
    verdict_words: str = ""  # split into the number and the fusion where the claim states both
    run_made: str | None = None  # when its run was made against the briefing's day, in words
    run_after_day: bool = False  # the run was made after the briefing's day
    # the run it was evaluated on (`numbers` ends naming it in full), for naming it once
    run_id: str | None = None
    run_started_at: datetime | None = None
    device_name: str | None = None
    backend: str | None = None


def configured_checks(
    store: Store, settings: Settings, as_of: date | None = None
) -> list[ConfiguredCheck]:
    """The configured claims (settings.claims) evaluated against the latest run per backend
    (made by the briefing's day `as_of` where one was; see the module docstring).

    Each check cites the probe run it was evaluated on (its `started_at` row); its numbers are
    the evaluator's own sentence, computed from that run's stored rows.
    """
    out = []
    for check in evaluate_claims(store, settings, documents=False, day=as_of):
        citations = []
        if check.run_id:
            citations.append(
                Citation(
                    "row",
                    "probe_runs",
                    {"run_id": check.run_id},
                    "started_at",
                    check.run_started_at,
                    check.run_started_at.date() if check.run_started_at else None,
                    f"probe run {check.run_id}",
                )
            )
        out.append(
            ConfiguredCheck(
                f"{check.claim} [{check.backend}]",
                check.verdict,
                check.evidence,
                citations,
                check.verdict_words,
                check.run_made,
                check.run_after_day,
                check.run_id,
                check.run_started_at,
                check.device_name,
                check.backend,
            )
        )
    return out


def document_checks(
    store: Store, data_through: date, settings: Settings, as_of: date | None = None
) -> list[ClaimCheck]:
    """Checks of the claims read from documents published by `data_through` (or undated), their
    runs dated against the briefing's day `as_of` (default `data_through`)."""
    return [
        c
        for c in evaluate_claims(store, settings, day=as_of or data_through)
        if c.spec is not None
        and c.spec.from_document
        and (c.spec.published_on is None or c.spec.published_on <= data_through)
    ]


@dataclass(frozen=True)
class ClaimGroup:
    """One claim as listed: a representative check, every passage stating it, what is claimed
    (several parts when one passage's claims share one untestable reason)."""

    check: ClaimCheck
    sources: tuple[ClaimSpec, ...]
    claimed: tuple[str, ...]

    @property
    def verdict(self) -> str:
        return self.check.verdict


def group_checks(checks: list[ClaimCheck]) -> list[ClaimGroup]:
    """Each claim once, in first-seen order (see the module docstring); specs must be set."""
    same: dict[tuple[str, str, str], list[tuple[ClaimCheck, ClaimSpec]]] = {}
    for c in checks:
        assert c.spec is not None
        claim = (c.verdict, c.reason or c.evidence, c.spec.describe())
        same.setdefault(claim, []).append((c, c.spec))
    groups: list[ClaimGroup] = []
    by_passage: dict[tuple[tuple[tuple[str | None, int | None], ...], str], int] = {}
    for members in same.values():
        specs = tuple({(s.doc_id, s.passage_no): s for _, s in members}.values())
        group = ClaimGroup(members[0][0], specs, (specs[0].describe(),))
        key = (
            tuple((s.doc_id, s.passage_no) for s in specs),
            group.check.reason or group.check.evidence,
        )
        if group.verdict == UNTESTABLE and key in by_passage:
            i = by_passage[key]
            groups[i] = replace(groups[i], claimed=groups[i].claimed + group.claimed)
            continue
        if group.verdict == UNTESTABLE:
            by_passage[key] = len(groups)
        groups.append(group)
    return groups
