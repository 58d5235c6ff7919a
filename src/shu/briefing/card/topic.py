"""A card's topic evidence and its context: the questions shu asks itself about the repository
(answered only from corpus passages that name its subject, no passage twice on a card), its
peers and its lifecycle phase.

A star card's topic is the best-supported configured topic
(`evidence.topic_evidence.attribute_topic`);
a ROCm card's is always the ROCm topic, so its evidence comes from ROCm commits, release notes
and passages. The card shows the strongest topic line and up to `SHORT_ANSWERS` answered
questions; the rest goes to its details.
"""

from __future__ import annotations

from shu.briefing.card.answers import answered_sentences, question_subject
from shu.briefing.context import BriefingContext
from shu.briefing.text import cite_signal, commit_link, num, ref, release_link, template_words
from shu.evidence.topic_evidence import TopicEvidence, attribute_topic, topic_evidence
from shu.receipts import Citation
from shu.safe_markdown import Md, safe_inline
from shu.settings import Settings, Topic
from shu.signals.reads import Phase, latest_phase, latest_star_signals

SHORT_ANSWERS = 2
QUOTE_CHARS = 160  # a quoted sentence on the card (the receipt keeps the whole sentence)
Used = set[tuple[str, int]]  # (doc_id, passage_no) already quoted on the card


def rocm_topic(settings: Settings) -> Topic | None:
    """The configured topic that flags ROCm-touching commits."""
    return next((t for t in settings.topics if t.flag_column == "touches_rocm"), None)


def card_topic(ctx: BriefingContext, repo: str, kind: str) -> TopicEvidence | None:
    """The topic a card reports on: ROCm for a ROCm card, else the best-supported one."""
    if kind == "rocm":
        topic = rocm_topic(ctx.settings)
        return (
            topic_evidence(ctx.store, topic, repo, ctx.data_through, ctx.settings)
            if topic
            else None
        )
    return attribute_topic(ctx.store, ctx.settings, ctx.index, repo, ctx.data_through)


def topic_lines(
    ctx: BriefingContext, topic: TopicEvidence | None, used: Used, short: bool
) -> list[Md]:
    """The card's topic evidence: with `short` its first line (or why no topic is asserted),
    else the others, leaving out a line whose passages the card already quotes. Passages cited
    count as quoted on the card."""
    if topic is None:
        return (
            [Md("No configured topic has evidence for this repository; none is asserted.")]
            if short
            else []
        )
    items = topic.items[:1] if short else topic.items[1:]
    lines = []
    for item in items:
        passages = {
            (c.key["doc_id"], c.key["passage_no"]) for c in item.citations if c.kind == "passage"
        }
        if not short and passages and passages <= used:
            continue
        refs = ref(*[_cite(ctx, c, used) for c in item.citations])
        lines.append(Md(item.text + " " + refs + _links(item.citations)))
    if not short and not topic.asserted:
        lines.append(
            Md(
                f"Evidence for {safe_inline(topic.term)}: below the bar"
                + (
                    " (as above)"
                    if f"bar {topic.reason}" in ctx.said
                    else f" ({safe_inline(topic.reason)}); the topic is not asserted"
                )
                + "."
            )
        )
        ctx.said.add(f"bar {topic.reason}")
    return lines


def _links(citations: list[Citation]) -> str:
    """Links to the commits and releases an evidence line quotes (' — commit abc1234, …')."""
    links = []
    for c in citations:
        key = c.key or {}
        if c.table == "commits" and key.get("sha") and key.get("repo"):
            links.append(f"commit {commit_link(key['repo'], key['sha'])}")
        elif c.table == "releases" and key.get("tag") and key.get("repo"):
            links.append(f"release {release_link(key['repo'], key['tag'])}")
    unique = list(dict.fromkeys(links))
    return (" — " + ", ".join(unique)) if unique else ""


def _cite(ctx: BriefingContext, c: Citation, used: Used) -> int:
    if c.kind == "passage":
        used.add((c.key["doc_id"], c.key["passage_no"]))
    return ctx.book.cite(c)


def context_answers(
    ctx: BriefingContext, repo: str, template: str, topic: TopicEvidence | None, used: Used
) -> tuple[list[Md], list[Md]]:
    """The context questions a passage not yet quoted on the card answers (short: up to
    SHORT_ANSWERS; details: the others, those no passage answers (one the card already quotes
    counts as answering), and the repository's landscape among its peers and lifecycle
    phase)."""
    short = repo.split("/")[-1]
    quantity = template_words(template)
    if topic and topic.asserted:
        term = topic.term
        questions = [
            ("WHAT", f"What is {term}?", f"{term} {short}"),
            (
                "WHY IT MATTERED",
                f"Why has {term} mattered for {short}?",
                f"{term} {short} performance support adoption",
            ),
            (
                "WHY NOW",
                f"What recent activity ties {repo} to {term}?",
                f"{term} {short} release new",
            ),
            ("TERM", f"What does '{term}' mean here?", f"{term} means platform software"),
        ]
    else:
        questions = [
            ("WHAT", f"What is {short}?", f"{short}"),
            ("WHY IT MATTERED", f"Why does {short} matter to its users?", f"{short} users"),
            (
                "WHY NOW",
                f"What explains {repo}'s current pace?",
                f"{short} release attention stars",
            ),
            ("TERM", f"What does '{quantity}' measure?", f"{quantity} measure"),
        ]
    answered: list[Md] = []
    unanswered: list[str] = []
    for label, question, query in questions:
        answer = ctx.index.answer(query)
        sentences = answered_sentences(answer, question_subject(label, repo, topic, quantity))
        quotes = []
        for sentence in sentences:
            hit = next(
                c
                for c in answer.citations
                if sentence in c.text or sentence.rstrip("…") in " ".join(c.text.split())
            )
            if (hit.doc_id, hit.passage_no) in used:
                continue
            used.add((hit.doc_id, hit.passage_no))
            r = ctx.book.passage(
                hit.doc_id,
                hit.passage_no,
                sentence.rstrip("…"),
                title=hit.title,
                location=hit.location,
                published_on=hit.published_on,
                label=f"{repo} {label.lower()}",
            )
            quotes.append(f"“{safe_inline(sentence, QUOTE_CHARS)}” {ref(r)}")
        if quotes:
            answered.append(Md(f"*{safe_inline(question)}* " + " ".join(quotes)))
        elif not sentences:  # a passage the card already quotes answers it: not "unanswered"
            unanswered.append(question)
    details = answered[SHORT_ANSWERS:]
    if unanswered:  # said in full once per note, shorter after
        lead = (
            "Unanswered too"
            if "unanswered" in ctx.said
            else ("The corpus has no passage answering")
        )
        ctx.said.add("unanswered")
        details.append(Md(f"{lead}: " + "; ".join(safe_inline(q) for q in unanswered)))
    landscape = _landscape(ctx, repo)
    if str(landscape) not in ctx.said:  # a category's paces: on its first card only
        ctx.said.add(str(landscape))
        details.append(landscape)
    details.append(_lifecycle(ctx, repo))
    return answered[:SHORT_ANSWERS], details


def _landscape(ctx: BriefingContext, repo: str) -> Md:
    category = ctx.settings.category_of(repo)
    rows = []
    for peer in [r.repo for r in ctx.settings.repos if r.category == category]:
        row = latest_star_signals(ctx.store.con, peer, ctx.data_through)
        if row is None or row["velocity_28d"] is None:
            continue
        r = cite_signal(ctx.book, peer, row["day"], "velocity_28d", row["velocity_28d"])
        rows.append(
            (
                row["velocity_28d"],
                f"{safe_inline(peer)} {num(row['velocity_28d'])} stars/day {ref(r)}",
            )
        )
    if len(rows) < 2:
        return Md(
            f"From signals: {safe_inline(repo)} has no other tracked peer with a "
            f"measurable 28-day velocity in the {safe_inline(category or 'unset')} "
            "category."
        )
    rows.sort(key=lambda r: -r[0])
    return Md(
        f"From signals, 28-day star velocity in the {safe_inline(category)} category on "
        f"{ctx.data_through}: " + "; ".join(r[1] for r in rows) + "."
    )


def _lifecycle(ctx: BriefingContext, repo: str) -> Md:
    phase = latest_phase(ctx.store.con, repo, ctx.data_through)
    if phase is None:
        return Md("From signals: no lifecycle phase is stored for this repository yet.")
    r = ctx.book.row(
        phase.table, phase.key, phase.column, phase.phase, phase.day, f"{repo} lifecycle phase"
    )
    if phase.conflict is not None and phase.path is not None:  # a phase the path contradicts
        return Md(f"From signals: {lifecycle_conflict_words(phase)} {ref(r)}.")
    # the rule's definitions once per note; after that the phase alone
    why = "" if not phase.why or "lifecycle rule" in ctx.said else f" ({safe_inline(phase.why)})"
    ctx.said.add("lifecycle rule")
    return Md(f"From signals: **{safe_inline(phase.phase)}** on {phase.day} {ref(r)}{why}.")


def lifecycle_conflict_words(phase: Phase) -> str:
    """A lifecycle phase its pace's 91-day path contradicts, in words true of both: the growth
    rate the phase rule read, and where the 28-day pace stands on its 91 days; no phase named."""
    path = phase.path
    assert path is not None
    if phase.conflict == "high":
        return (
            f"gaining under 0.01% of its stars a day on {phase.day}, slow for its size, while "
            f"its 28-day pace ({num(path.now, 1)} stars/day) is at its 91-day high: no lifecycle "
            "phase fits both"
        )
    return (
        f"growing fast for its size on {phase.day} ({phase.phase} by growth rate), while its "
        f"28-day pace ({num(path.now, 1)} stars/day) is at its 91-day low: no lifecycle phase fits "
        "both"
    )
