"""Which corpus sentences answer a card's context question.

A context question is shown only when the corpus answers it: the retrieval answer is not weak and
a quoted sentence names the question's subject and term (e.g. both 'ROCm' and 'pytorch' for
"Why has ROCm mattered for pytorch?"). Sentences that match the query's words but not its
subject are dropped instead of being quoted as if they answered it.
"""

from __future__ import annotations

import re

from shu.evidence.retrieval import Answer
from shu.evidence.topic_evidence import TopicEvidence


def question_subject(
    label: str, repo: str, topic: TopicEvidence | None, quantity: str
) -> tuple[str, ...]:
    """The words a sentence must contain to answer the question labelled `label`."""
    short = repo.split("/")[-1]
    if topic is not None and topic.asserted:
        term = topic.term
        return (term,) if label in ("WHAT", "TERM") else (term, short)
    if label == "TERM":
        return tuple(quantity.split())
    return (short,)


def mentions(sentence: str, word: str) -> bool:
    """Whether `sentence` contains `word` as a whole word (case-insensitive)."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", sentence, re.IGNORECASE) is not None


def answered_sentences(answer: Answer, words: tuple[str, ...]) -> list[str]:
    """The sentences of `answer` that name every one of `words` ([] when the answer is weak)."""
    if answer.is_weak:
        return []
    return [s for s in answer.sentences if all(mentions(s, w) for w in words)]
