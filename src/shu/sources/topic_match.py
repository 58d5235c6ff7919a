"""Topic matching: the configured topic patterns applied to commit subjects and paths, so each
commit carries the topics it mentions (attributing a topic to a repository, from evidence, is
`evidence.topic_evidence`).

`settings.topics` defines each topic as a case-insensitive Python regex; a topic with a
`flag_column` (e.g. rocm-adoption -> `touches_rocm`) also fills that boolean column on `commits`.
Both the GitHub and the local-git sources use this one matcher, so a commit gets the same
`topics` and flags whichever source loaded it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from shu.errors import ConfigError
from shu.settings import Topic


@dataclass(frozen=True)
class TopicMatcher:
    """Compiled topic patterns; `match` returns the names of the topics a text mentions."""

    topics: tuple[tuple[str, re.Pattern[str], str | None], ...]

    @classmethod
    def from_topics(cls, topics: Iterable[Topic]) -> TopicMatcher:
        compiled = []
        for topic in topics:
            try:
                compiled.append(
                    (topic.name, re.compile(topic.pattern, re.IGNORECASE), topic.flag_column)
                )
            except re.error as exc:
                raise ConfigError(f"topic {topic.name!r}: invalid pattern: {exc}") from exc
        return cls(tuple(compiled))

    def match(self, *texts: str | None) -> list[str]:
        """Names of every topic whose pattern matches any of `texts` (in configured order)."""
        present = [t for t in texts if t]
        return [name for name, pattern, _ in self.topics if any(pattern.search(t) for t in present)]

    def flags(self, matched: list[str]) -> dict[str, bool]:
        """Boolean flag columns (e.g. touches_rocm) for a list of matched topic names."""
        return {column: name in matched for name, _, column in self.topics if column}
