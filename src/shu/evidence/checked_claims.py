"""The claim checks that the briefing and topic evidence show, with what they cite.

- `configured_checks(store)`: the configured claims (`settings.claims`) checked against the
  latest run per backend, each citing the probe run it was evaluated on;
- `document_checks(store, as_of)`: the checks of claims read from documents published by the
  briefing's data day (undated documents included); each carries its passage and probe rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from shu.evidence.claims import ClaimCheck, evaluate_claims
from shu.receipts import Citation
from shu.store import Store


@dataclass
class ConfiguredCheck:
    """A configured claim checked against the latest probe run: verdict, numbers, receipts."""

    claim: str
    verdict: str
    numbers: str
    citations: list[Any]


def configured_checks(store: Store) -> list[ConfiguredCheck]:
    """The configured claims (settings.claims) evaluated against the latest run per backend.

    Each check cites the probe run it was evaluated on (its `started_at` row); its numbers are
    the evaluator's own sentence, computed from that run's stored rows.
    """
    out = []
    for check in evaluate_claims(store, documents=False):
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
                f"{check.claim} [{check.backend}]", check.verdict, check.evidence, citations
            )
        )
    return out


def document_checks(store: Store, as_of: date) -> list[ClaimCheck]:
    """Checks of the claims read from documents published by `as_of` (or undated)."""
    return [
        c
        for c in evaluate_claims(store)
        if c.spec is not None
        and c.spec.from_document
        and (c.spec.published_on is None or c.spec.published_on <= as_of)
    ]
