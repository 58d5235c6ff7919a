"""A card's topic evidence and its context: the questions shu asks itself about the repository
(answered only from corpus passages that name its subject), its peers and its lifecycle phase."""

from __future__ import annotations

from typing import Any

from shu.briefing import facts as ev
from shu.briefing.card.answers import answered_sentences, question_subject
from shu.briefing.context import BriefingContext
from shu.briefing.safe import Md, safe_inline
from shu.briefing.text import num, ref
from shu.evidence import topics

QUANTITY_TERMS = {"star_accel_reach": "star acceleration", "star_velocity_up": "star velocity",
                  "star_gain": "star velocity", "commit_velocity_up": "commit velocity",
                  "release_within": "release", "star_accel_fall": "star acceleration",
                  "star_velocity_level": "star velocity"}


def topic_lines(ctx: BriefingContext, topic: topics.TopicEvidence | None) -> list[Md]:
    """The card's topic evidence lines (or why no topic is asserted)."""
    if topic is None:
        return [Md("No configured topic has evidence for this repository; none is asserted.")]
    lines = []
    for item in topic.items:
        refs = [ctx.book.cite(c) for c in item.citations]
        lines.append(Md(item.text + " " + ref(*refs)))
    if not topic.asserted:
        lines.append(Md(f"Evidence for {safe_inline(topic.name)} is below the bar "
                        f"({safe_inline(topic.reason)}); the topic is not asserted."))
    return lines


def context_answers(ctx: BriefingContext, f: dict[str, Any],
                    topic: topics.TopicEvidence | None) -> list[dict[str, Any]]:
    """The context questions the corpus answers, one line for those it does not, and the
    repository's landscape among its peers and lifecycle phase."""
    repo = f["repo"]
    short = repo.split("/")[-1]
    quantity = QUANTITY_TERMS.get(f["template"], "star velocity")
    if topic and topic.asserted:
        term = topic.term
        questions = [
            ("WHAT", f"What is {term}?", f"{term} {short}"),
            ("WHY IT MATTERED", f"Why has {term} mattered for {short}?",
             f"{term} {short} performance support adoption"),
            ("WHY NOW", f"What recent activity ties {repo} to {term}?",
             f"{term} {short} release new"),
            ("TERM", f"What does '{term}' mean here?", f"{term} means platform software"),
        ]
    else:
        questions = [
            ("WHAT", f"What is {short}?", f"{short}"),
            ("WHY IT MATTERED", f"Why does {short} matter to its users?", f"{short} users"),
            ("WHY NOW", f"What explains {repo}'s current pace?",
             f"{short} release attention stars"),
            ("TERM", f"What does '{quantity}' measure?", f"{quantity} measure"),
        ]
    out: list[dict[str, Any]] = []
    unanswered: list[str] = []
    for label, question, query in questions:
        answer = ctx.index.answer(query)
        sentences = answered_sentences(answer, question_subject(label, repo, topic, quantity))
        refs = []
        for sentence in sentences:
            hit = next(c for c in answer.citations if sentence in c.text or
                       sentence.rstrip("…") in " ".join(c.text.split()))
            refs.append(ctx.book.passage(hit.doc_id, hit.passage_no, sentence.rstrip("…"),
                                         title=hit.title, location=hit.location,
                                         published_on=hit.published_on,
                                         label=f"{repo} {label.lower()}"))
        text = ""
        if sentences:
            text = " ".join(f"“{safe_inline(s)}”" for s in sentences) + " " + ref(*refs)
        if label == "WHY NOW" and topic is not None:
            recent = [i for i in topic.items if i.kind in ("release", "commits")]
            for item in recent[:2]:
                text += " " + item.text + " " + ref(*[ctx.book.cite(c)
                                                      for c in item.citations])
        if not text.strip():
            unanswered.append(question)
            continue
        out.append({"label": label, "question": question, "answer": Md(text.strip())})
    if unanswered:
        out.append({"label": "NO ANSWER", "question": "",
                    "answer": Md("The corpus has no passage answering: "
                                 + "; ".join(safe_inline(q) for q in unanswered))})
    out.append({"label": "LANDSCAPE", "question": f"Where does {repo} stand among its peers?",
                "answer": _landscape(ctx, repo)})
    out.append({"label": "LIFECYCLE", "question": f"Which phase is {repo} in?",
                "answer": _lifecycle(ctx, repo)})
    return out


def _landscape(ctx: BriefingContext, repo: str) -> Md:
    category = ctx.settings.category_of(repo)
    rows = []
    for peer in [r.repo for r in ctx.settings.repos if r.category == category]:
        row = ev.latest_row(ctx.store, "star_signals", peer, ctx.as_of)
        if row is None or row["velocity_28d"] is None:
            continue
        r = ctx.book.row("star_signals", {"repo": peer, "day": row["day"]}, "velocity_28d",
                         row["velocity_28d"], row["day"], f"{peer} velocity_28d")
        rows.append((row["velocity_28d"], f"{safe_inline(peer)} {num(row['velocity_28d'])} "
                                          f"stars/day {ref(r)}"))
    if len(rows) < 2:
        return Md(f"From signals: {safe_inline(repo)} has no other tracked peer with a "
                  f"measurable 28-day velocity in the {safe_inline(category or 'unset')} "
                  "category.")
    rows.sort(key=lambda r: -r[0])
    return Md(f"From signals, 28-day star velocity in the {safe_inline(category)} category on "
              f"{ctx.as_of}: " + "; ".join(r[1] for r in rows) + ".")


def _lifecycle(ctx: BriefingContext, repo: str) -> Md:
    phase = ev.lifecycle_phase(ctx.store, repo, ctx.as_of)
    if phase is None:
        return Md("From signals: no lifecycle phase is stored for this repository yet.")
    r = ctx.book.row(phase.table, phase.key, phase.column, phase.phase, phase.day,
                     f"{repo} lifecycle phase")
    return Md(f"From signals: **{safe_inline(phase.phase)}** on {phase.day} {ref(r)}"
              + (f" ({safe_inline(phase.why)})" if phase.why else "") + ".")
