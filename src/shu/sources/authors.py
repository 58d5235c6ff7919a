"""Author identity without personal data: a hashed id from the e-mail and a bot heuristic.

The e-mail itself is never stored; `author_id` is the first 12 hex digits of SHA-1 of the
lower-cased, whitespace-stripped address, the same derivation as the shared git histories, so a
commit gets the same id from the GitHub API and from a local clone.
"""

from __future__ import annotations

import hashlib
import re

BOT_PATTERN = re.compile(
    r"\[bot\]|\bbot\b|dependabot|renovate|github-actions|copybara|pre-commit-ci|mergify|"
    r"jenkins|-ci@|pytorchbot|updatebot|facebook-github-bot",
    re.IGNORECASE,
)


def author_id(email: str | None) -> str | None:
    """First 12 hex of SHA-1 of the normalised e-mail; None when there is no e-mail."""
    if not email or not email.strip():
        return None
    return hashlib.sha1(email.strip().lower().encode("utf-8")).hexdigest()[:12]


def looks_like_bot(*names: str | None) -> bool:
    """True when any of the author's name, login or e-mail looks like an automation account."""
    return any(n and BOT_PATTERN.search(n) for n in names)
