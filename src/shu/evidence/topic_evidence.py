"""Topic attribution backed by evidence: no evidence, no assertion.

For a repository and day, each configured topic (settings.topics, e.g. rocm-adoption) is scored
on stored evidence from before that day:

- commits: topic-flagged share of the repository's commits in the last 90 days
  (strong when >= 2% and >= 3 commits);
- releases: release notes of the last 180 days that mention the topic (strong: one or more);
- documents: passages that mention both the topic and the repository (strong: two or more);
- probe: claim checks about the topic that the latest probe supports (strong: one or more),
  configured ones and those read from documents (citing the passage and the probe row);
  counted only for a repository that already has other evidence for the topic, since the probe
  measures hardware, not a repository.

The topic with the most strong kinds (then the most items) is attributed; a topic with no strong
evidence is reported as "not asserted", with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from shu.evidence.checked_claims import configured_checks, document_checks
from shu.evidence.claim_types import split_run
from shu.evidence.retrieval import split_sentences
from shu.receipts import Citation
from shu.safe_markdown import safe_inline
from shu.settings import Settings, Topic
from shu.store import Store

COMMIT_WINDOW_DAYS = 90
RELEASE_WINDOW_DAYS = 180
MIN_COMMIT_SHARE = 0.02
MIN_TOPIC_COMMITS = 3
MIN_DOCUMENTS = 2


@dataclass
class EvidenceItem:
    """One line of evidence (already safe markdown) and its citations."""

    kind: str
    text: str
    citations: list[Citation]
    is_strong: bool


@dataclass
class TopicEvidence:
    """A topic's evidence for one repository."""

    name: str
    term: str
    items: list[EvidenceItem]

    @property
    def strong_kinds(self) -> set[str]:
        return {i.kind for i in self.items if i.is_strong}

    @property
    def asserted(self) -> bool:
        return bool(self.strong_kinds)

    @property
    def reason(self) -> str:
        if self.asserted:
            return "strong evidence: " + ", ".join(sorted(self.strong_kinds))
        return "no strong evidence from commits, release notes, documents or probe checks"


def attribute_topic(
    store: Store, settings: Settings, index: Any, repo: str, as_of: date
) -> TopicEvidence | None:
    """The best-supported topic for `repo` on `as_of`, or None when no topic has any evidence.

    `index` is the briefing's PassageIndex (unused here beyond the store; kept for symmetry with
    retrieval-based evidence).
    """
    del index
    found = [topic_evidence(store, topic, repo, as_of, settings) for topic in settings.topics]
    found = [t for t in found if t.items]
    if not found:
        return None
    found.sort(key=lambda t: (-len(t.strong_kinds), -len(t.items), t.name))
    return found[0]


def topic_evidence(
    store: Store, topic: Topic, repo: str, as_of: date, settings: Settings
) -> TopicEvidence:
    """Every piece of evidence linking `repo` to `topic` up to `as_of`."""
    pattern = re.compile(topic.pattern, re.IGNORECASE)
    items = [
        *_commit_evidence(store, topic, repo, as_of),
        *_release_evidence(store, topic, pattern, repo, as_of),
        *_document_evidence(store, topic, pattern, repo, as_of),
    ]
    if items:  # probe checks are about hardware, not a repository: they only add to a link
        items += _probe_evidence(store, pattern, settings)
        items += _document_claim_evidence(store, pattern, as_of, settings)
    return TopicEvidence(topic.name, topic.term or topic.name, items)


def _commit_evidence(store: Store, topic: Topic, repo: str, as_of: date) -> list[EvidenceItem]:
    start = as_of - timedelta(days=COMMIT_WINDOW_DAYS)
    where = "FROM commits WHERE repo = ? AND committed_at >= ? AND committed_at < ?"
    params = [
        repo,
        datetime.combine(start, datetime.min.time()) + timedelta(days=1),
        datetime.combine(as_of, datetime.min.time()) + timedelta(days=1),
    ]
    total_sql = f"SELECT count(*) {where}"
    flagged_sql = f"SELECT count(*) {where} AND list_contains(topics, ?)"
    total = store.con.execute(total_sql, params).fetchall()[0][0]
    flagged = store.con.execute(flagged_sql, [*params, topic.name]).fetchall()[0][0]
    if not flagged:
        return []
    share = flagged / total
    examples = store.con.execute(
        f"SELECT sha, subject, committed_at {where} AND list_contains(topics, ?) "
        "ORDER BY committed_at DESC, sha LIMIT 2",
        [*params, topic.name],
    ).fetchall()
    citations = [
        Citation(
            "query",
            "commits",
            {},
            "",
            flagged,
            as_of,
            f"{repo} {topic.name} commits",
            flagged_sql,
            [*params, topic.name],
        ),
        Citation("query", "commits", {}, "", total, as_of, f"{repo} commits", total_sql, params),
    ]
    citations += [
        Citation(
            "quote",
            "commits",
            {"repo": repo, "sha": sha},
            "subject",
            subject,
            committed.date(),
            f"{repo} {topic.name} commit",
        )
        for sha, subject, committed in examples
        if subject
    ]
    strong = share >= MIN_COMMIT_SHARE and flagged >= MIN_TOPIC_COMMITS
    # the window last, after the example: no run of words repeats from one card to the next
    text = (
        f"{flagged:,} of {total:,} commits ({100 * share:.1f}%) to {safe_inline(repo)} touch "
        f"{safe_inline(topic.term or topic.name)}"
    )
    if examples and examples[0][1]:
        text += f", e.g. “{safe_inline(examples[0][1], 120)}”"
    text += f" ({COMMIT_WINDOW_DAYS} days to {as_of})"
    return [EvidenceItem("commits", text + ".", citations, strong)]


def _release_evidence(
    store: Store, topic: Topic, pattern: re.Pattern[str], repo: str, as_of: date
) -> list[EvidenceItem]:
    rows = store.con.execute(
        "SELECT tag, name, body, published_at FROM releases WHERE repo = ? AND published_at >= ? "
        "AND published_at < ? ORDER BY published_at DESC, tag",
        [repo, as_of - timedelta(days=RELEASE_WINDOW_DAYS), as_of + timedelta(days=1)],
    ).fetchall()
    items = []
    for tag, name, body, published_at in rows:
        for column, text in (("body", body), ("name", name)):
            sentence = next((s for s in split_sentences(text or "") if pattern.search(s)), None)
            if sentence is None:
                continue
            sentence = sentence.rstrip("…")
            cite = [
                Citation(
                    "row",
                    "releases",
                    {"repo": repo, "tag": tag},
                    "published_at",
                    published_at,
                    published_at.date(),
                    f"{repo} {tag} published",
                ),
                Citation(
                    "quote",
                    "releases",
                    {"repo": repo, "tag": tag},
                    column,
                    sentence,
                    published_at.date(),
                    f"{repo} {tag} notes",
                ),
            ]
            items.append(
                EvidenceItem(
                    "release",
                    f"Release {safe_inline(tag)} ({published_at.date()}) mentions "
                    f"{safe_inline(topic.term or topic.name)}: “{safe_inline(sentence, 200)}”.",
                    cite,
                    True,
                )
            )
            break
        if len(items) >= 2:
            break
    return items


def _document_evidence(
    store: Store, topic: Topic, pattern: re.Pattern[str], repo: str, as_of: date
) -> list[EvidenceItem]:
    names = {repo.lower(), repo.split("/")[-1].lower()}
    rows = store.con.execute(
        "SELECT p.doc_id, p.passage_no, p.text, d.title, d.location, d.published_on FROM passages "
        "p JOIN documents d USING (doc_id) WHERE d.published_on IS NULL OR d.published_on <= ? "
        "ORDER BY d.published_on DESC NULLS LAST, p.doc_id, p.passage_no",
        [as_of],
    ).fetchall()
    matched: dict[str, tuple] = {}
    for doc_id, passage_no, text, title, location, published_on in rows:
        if doc_id in matched:
            continue
        for sentence in split_sentences(text):
            lowered = sentence.lower()
            if pattern.search(sentence) and any(n in lowered for n in names):
                matched[doc_id] = (passage_no, sentence.rstrip("…"), title, location, published_on)
                break
    if not matched:
        return []
    strong = len(matched) >= MIN_DOCUMENTS
    citations = [
        Citation(
            "passage",
            "passages",
            {"doc_id": d, "passage_no": p},
            "text",
            s,
            day,
            f"{repo} {topic.name} document",
            title=title,
            location=loc,
        )
        for d, (p, s, title, loc, day) in list(matched.items())[:3]
    ]
    first = next(iter(matched.values()))
    text = (
        f"{len(matched)} document(s) in the corpus mention both {safe_inline(repo)} and "
        f"{safe_inline(topic.term or topic.name)}, e.g. “{safe_inline(first[1], 160)}”."
    )
    return [EvidenceItem("documents", text, citations, strong)]


def _probe_evidence(
    store: Store, pattern: re.Pattern[str], settings: Settings
) -> list[EvidenceItem]:
    items = []
    for check in configured_checks(store, settings):
        if not pattern.search(check.claim) or check.verdict not in ("supported", "contradicted"):
            continue
        items.append(
            EvidenceItem(
                "probe",
                f"Probe claim check “{safe_inline(check.claim)}”: "
                f"**{safe_inline(check.verdict)}** "
                f"({safe_inline(split_run(check.numbers, check.run_id)[0])}).",
                list(check.citations),
                check.verdict == "supported",
            )
        )
    return items


def _document_claim_evidence(
    store: Store, pattern: re.Pattern[str], as_of: date, settings: Settings
) -> list[EvidenceItem]:
    """Claims read from documents that match the topic and that a probe run decided."""
    items = []
    for check in document_checks(store, as_of, settings):
        s = check.spec
        assert s is not None  # document_checks keeps only checks with a spec
        if check.verdict not in ("supported", "contradicted") or not pattern.search(
            f"{check.claim} {s.stack or ''} {check.backend}"
        ):
            continue
        as_run = check.run_started_at.date() if check.run_started_at else None
        citations = [
            Citation(
                "passage",
                "passages",
                {"doc_id": s.doc_id, "passage_no": s.passage_no},
                "text",
                s.text,
                s.published_on,
                "claim source",
                title=s.title,
                location=s.location,
            )
        ]
        citations += [replace(c, as_of=as_run) for c in check.probe_cites]
        items.append(
            EvidenceItem(
                "probe",
                f"Document claim “{safe_inline(s.text, 160)}”, checked against the probe"
                # the run's identity and its date against the day: named once, with the claims
                + (" (on a run made after the briefing's day)" if check.run_after_day else "")
                + f": **{safe_inline(check.verdict_words)}** "
                f"({safe_inline(split_run(check.evidence, check.run_id)[0], 240)}).",
                citations,
                check.verdict == "supported",
            )
        )
    return items
