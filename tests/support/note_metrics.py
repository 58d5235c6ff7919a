"""The briefing read as a note, measured: the figures the note's targets name, from the markdown
(and the JSON beside it), by rules of their own rather than by shu's code.

- body words: everything before the appendix's first heading (`## Appendix`), counting words of
  letters (whitespace-separated tokens with at least one letter) outside code blocks, receipt
  markers (`[R3, R7]`) and image links; a link counts by its label, not its address;
- words per card (its chart and receipt lines aside);
- jargon in the body: method terms and template names a reader should not meet there;
- boilerplate: the 6-word phrases (of whitespace-separated words, numbers included,
  lower-cased, inside one line of prose: tables, headings, link targets, receipt markers and
  code aside)
  that occur more than `MAX_PHRASE_REPEATS` times in the note before its receipts list
  (`### Receipts`), each with its count;
- At a glance: its sentences before the table, and whether each has a number and a receipt;
- At a glance: its sentences before the table (a list's items, or lines), their words (the table
  aside), and whether each has a number and a receipt;
- bookkeeping in the body: the headings of shu's own bookkeeping (regime guard, calibration
  watch, the full track record, probe runs, claims) found before the appendix;
- body screens: the HTML page beside the markdown opened in chromium (Playwright,
  `support.browser`) at 1280×800, the offset of the appendix's first element (its collapsed
  `<details>`) divided by 800 (`body_screens`; None where chromium is not there);
- repositories named in At a glance or the radar, and whether each links to its GitHub page;
- receipts cited in the body and whether each is defined in the appendix;
- per card about the velocity at the horizon: its answer against P(velocity > threshold) read
  linearly between the stored quantiles of its own interval; the JSON cards' thresholds.

`benchmarks/note_metrics.py PATH.md` prints them; the demo's test checks them.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

JARGON = (
    # the method's own names a market analyst does not have (issue 39, problem 5)
    r"\bregime guard",
    r"\bbase rates?\b",
    r"log-odds",
    r"\bBrier\b",
    r"\bpercentiles? of past errors\b",
    r"— without it: \d",
    r"\bwidened\b[^.]*\bby \d+(?:\.\d+)?% of their width",
    r"with a typical value",
    r"walk-forward",
    r"\bbands?\b",
    r"\borigins?\b",
    r"\bconformal\b",
    r"\bECE\b",
    r"\bclimatology\b",
    r"\bstar_accel_reach\b",
    r"\bstar_accel_fall\b",
    r"\bstar_velocity_up\b",
    r"\bstar_velocity_level\b",
    r"\bstar_velocity_interval\b",
    r"\bstar_gain\b",
    r"\bstar_breakout\b",
    r"\brelease_within\b",
    r"\bcommit_velocity_up\b",
    r"\brocm_share_reach\b",
    r"\brocm_release_mention\b",
    r"\brocm_first_commit\b",
)
VELOCITY_AT_HORIZON = ("star_velocity_up", "star_velocity_level")
LEVELS = (
    (0.025, "lower_95"),
    (0.10, "lower_80"),
    (0.25, "lower_50"),
    (0.50, "median"),
    (0.75, "upper_50"),
    (0.90, "upper_80"),
    (0.975, "upper_95"),
)
MAX_BODY_WORDS = 1500
MAX_BODY_SCREENS = 6
SCREEN = (1280, 800)  # a desktop browser's window, CSS pixels
PHRASE_WORDS = 6
MAX_PHRASE_REPEATS = 3
MAX_CARD_WORDS = 150
MAX_GLANCE_SENTENCES = 5
MAX_GLANCE_WORDS = 150
# Headings of shu's own bookkeeping, which belong after the body.
BOOKKEEPING = (
    "Regime guard",
    "Calibration watch",
    "Track record in full",
    "Probe and claims",
    "Probe runs",
    "Claims",
)
# The offset from the page's top of the appendix's first element (the collapsed <details> whose
# summary begins "Appendix"), in CSS pixels; null when the page has none.
APPENDIX_TOP_JS = """() => {
  const s = [...document.querySelectorAll('details > summary')]
    .find(e => e.textContent.trim().startsWith('Appendix'));
  return s ? s.parentElement.getBoundingClientRect().top + window.scrollY : null;
}"""

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_RECEIPTS = re.compile(r"\[R\d+(?:[,–-]\s*R\d+)*\]")
_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")
_REPO_LINK = re.compile(r"\[([^\]]+)\]\(https://github\.com/([^)\s/]+/[^)\s/]+)\)")
_WORD = re.compile(r"[^\W\d_]")


def _plain(markdown: str) -> str:
    """The text a reader reads: no code blocks, images or receipt markers; links as labels."""
    text = _FENCE.sub(" ", markdown)
    text = _IMAGE.sub(" ", text)
    text = _RECEIPTS.sub(" ", text)
    return _LINK.sub(lambda m: m.group(1), text)


def count_words(markdown: str) -> int:
    """Words of letters in `markdown` (see the module docstring)."""
    tokens = re.split(r"[\s|]+", _plain(markdown))
    return sum(1 for t in tokens if _WORD.search(t.strip("*_`#>-")))


def split(markdown: str) -> tuple[str, str]:
    """(body, appendix): the appendix starts at its first heading, `## Appendix`."""
    at = re.search(r"^## Appendix\b", markdown, re.M)
    return (markdown, "") if at is None else (markdown[: at.start()], markdown[at.start() :])


def section(markdown: str, heading: str) -> str:
    """The `## heading` section of `markdown` up to the next `## ` heading ('' when absent)."""
    at = re.search(rf"^## {re.escape(heading)}\b.*$", markdown, re.M)
    if at is None:
        return ""
    rest = markdown[at.end() :]
    end = re.search(r"^## ", rest, re.M)
    return rest if end is None else rest[: end.start()]


def cards(body: str) -> list[str]:
    """The forecast cards: each `### ` block of the Forecasts section."""
    forecasts = section(body, "Forecasts")
    return [c for c in re.split(r"^(?=### )", forecasts, flags=re.M) if c.startswith("### ")]


def card_words(card: str) -> int:
    """A card's words, its chart and its receipts line aside."""
    lines = [line for line in card.splitlines() if not line.startswith("*Receipts ")]
    return count_words("\n".join(lines))


def jargon_in(markdown: str) -> dict[str, int]:
    """Each `JARGON` pattern found in `markdown`'s readable text, with its count."""
    plain = _plain(markdown)
    found = {}
    for pattern in JARGON:
        hits = len(re.findall(pattern, plain, re.I if pattern != r"\bECE\b" else 0))
        if hits:
            found[pattern] = hits
    return found


def before_receipts(markdown: str) -> str:
    """The note up to its receipts list (`### Receipts`; all of it when there is none)."""
    at = re.search(r"^### Receipts\b", markdown, re.M)
    return markdown if at is None else markdown[: at.start()]


def repeated_phrases(
    markdown: str, words: int = PHRASE_WORDS, most: int = MAX_PHRASE_REPEATS
) -> dict[str, int]:
    """The `words`-word phrases occurring more than `most` times in `markdown`'s prose: each line
    that is not a table row or a heading, read as its words (lower-cased, edge punctuation off;
    a number is a word, so the same sentence about two repositories' different figures is no
    repeat); a phrase never spans two lines."""
    counts: dict[str, int] = {}
    for line in _plain(markdown).splitlines():
        if line.lstrip().startswith(("|", "#")):  # tables and headings are the note's frame
            continue
        tokens = [t.strip("*_`#>-.,;:()“”\"'—!?").lower() for t in line.split()]
        tokens = [t for t in tokens if re.search(r"\w", t)]
        for i in range(len(tokens) - words + 1):
            phrase = " ".join(tokens[i : i + words])
            counts[phrase] = counts.get(phrase, 0) + 1
    return {p: n for p, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n > most}


def glance_prose(body: str) -> str:
    """The At a glance section before its table."""
    return section(body, "At a glance").split("\n|", 1)[0]


def glance_sentences(body: str) -> list[str]:
    """The At a glance section's sentences before its table (a list's items, or lines)."""
    lines = [line.strip().removeprefix("- ") for line in glance_prose(body).splitlines()]
    text = " ".join(line for line in lines if line)
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def bookkeeping_in_body(body: str) -> list[str]:
    """The bookkeeping headings (`BOOKKEEPING`) and bold labels found in the body."""
    found = []
    for name in BOOKKEEPING:
        if re.search(rf"^#+ {re.escape(name)}\b|\*\*{re.escape(name)}\.?\*\*", body, re.M):
            found.append(name)
    return found


def body_screens(html: Path, screen: tuple[int, int] = SCREEN) -> float | None:
    """How many screens of `screen` (width, height) the page's body fills in chromium: the
    offset of the appendix's first element over the height; None without chromium or an
    appendix."""
    from support.browser import BrowserDidNotStart, HeadlessBrowser, find_chromium

    if find_chromium() is None:
        return None
    try:
        browser = HeadlessBrowser()
    except BrowserDidNotStart:
        return None
    with browser:
        browser.page.set_viewport_size({"width": screen[0], "height": screen[1]})
        browser.open(html.resolve().as_uri())
        top = browser.evaluate(APPENDIX_TOP_JS)
    return None if top is None else float(top) / screen[1]


def _repos(markdown: str, doc: dict[str, Any] | None) -> set[str]:
    known: set[str] = set()
    if doc:
        for key in ("cards", "radar", "stories"):
            known |= {item["repo"] for item in doc.get(key) or [] if item.get("repo")}
    return known | {m.group(2) for m in _REPO_LINK.finditer(markdown)}


def unlinked_repositories(text: str, repos: set[str]) -> list[str]:
    """Mentions of `repos` in `text` that are not a link to their GitHub page."""
    linked = _REPO_LINK.sub(" ", text)
    out = []
    for repo in sorted(repos):
        if re.search(rf"(?<![\w./-]){re.escape(repo)}(?![\w/-])", _IMAGE.sub(" ", linked)):
            out.append(repo)
    return out


def p_above(interval: dict[str, Any], threshold: float) -> float | None:
    """P(value > threshold) read linearly between the interval's stored quantiles (the tails
    beyond the 2.5% and 97.5% levels held flat)."""
    points = [(interval.get(k), q) for q, k in LEVELS]
    if any(v is None for v, _ in points):
        return None
    values = [float(v) for v, _ in points]  # type: ignore[arg-type]
    levels = [q for _, q in points]
    if threshold <= values[0]:
        return 1 - levels[0]
    if threshold >= values[-1]:
        return 1 - levels[-1]
    for i in range(len(values) - 1):
        (v0, q0), (v1, q1) = (values[i], levels[i]), (values[i + 1], levels[i + 1])
        if v0 <= threshold <= v1:
            q = q0 if v1 == v0 else q0 + (q1 - q0) * (threshold - v0) / (v1 - v0)
            return 1 - q
    return None


@dataclass
class NoteMetrics:
    """The note's figures (see the module docstring)."""

    path: str
    body_words: int = 0
    appendix_words: int = 0
    card_words: list[int] = field(default_factory=list)
    jargon: dict[str, int] = field(default_factory=dict)
    repeated_phrases: dict[str, int] = field(default_factory=dict)
    glance_sentences: int = 0
    glance_words: int = 0
    glance_sentences_with_number_and_receipt: int = 0
    bookkeeping_in_body: list[str] = field(default_factory=list)
    body_screens: float | None = None  # measured only when asked (`measure(..., screens=True)`)
    glance_repos_unlinked: list[str] = field(default_factory=list)
    radar_repos_unlinked: list[str] = field(default_factory=list)
    receipts_cited_in_body: int = 0
    receipts_cited_undefined: list[str] = field(default_factory=list)
    velocity_cards: list[dict[str, Any]] = field(default_factory=list)
    json_cards_with_threshold: int = 0
    json_cards_with_question: int = 0

    def targets(self) -> dict[str, bool]:
        """Each target of the note, met or not (the body's screens only where measured)."""
        screens = {}
        if self.body_screens is not None:
            screens[f"body <= {MAX_BODY_SCREENS} screens at {SCREEN[0]}x{SCREEN[1]}"] = (
                self.body_screens <= MAX_BODY_SCREENS
            )
        return {
            **screens,
            f"body <= {MAX_BODY_WORDS} words": self.body_words <= MAX_BODY_WORDS,
            "no jargon in the body": not self.jargon,
            f"no {PHRASE_WORDS}-word phrase more than {MAX_PHRASE_REPEATS} times before the "
            "receipts": not self.repeated_phrases,
            f"1-{MAX_GLANCE_SENTENCES} At a glance sentences, each with a number and a receipt": (
                1 <= self.glance_sentences <= MAX_GLANCE_SENTENCES
                and self.glance_sentences == self.glance_sentences_with_number_and_receipt
            ),
            f"At a glance <= {MAX_GLANCE_WORDS} words": self.glance_words <= MAX_GLANCE_WORDS,
            "bookkeeping after the body": not self.bookkeeping_in_body,
            f"each card <= {MAX_CARD_WORDS} words": all(
                n <= MAX_CARD_WORDS for n in self.card_words
            ),
            "every repository in At a glance and the radar linked": not (
                self.glance_repos_unlinked or self.radar_repos_unlinked
            ),
            "velocity cards' answers within 0.05 of their own interval": all(
                c["within"] for c in self.velocity_cards
            ),
            "JSON cards carry the threshold": (
                self.json_cards_with_threshold == self.json_cards_with_question
            ),
            "every receipt cited in the body defined in the appendix": not (
                self.receipts_cited_undefined
            ),
        }


def measure(path: Path, screens: bool = False) -> NoteMetrics:
    """The figures of the briefing at `path` (its JSON read from beside it when there); with
    `screens`, the body's screens measured in chromium on the HTML page beside it."""
    markdown = path.read_text(encoding="utf-8")
    sidecar = path.with_suffix(".json")
    doc = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else None
    body, appendix = split(markdown)
    m = NoteMetrics(str(path), count_words(body), count_words(appendix))
    m.card_words = [card_words(c) for c in cards(body)]
    m.jargon = jargon_in(body)
    m.repeated_phrases = repeated_phrases(before_receipts(markdown))
    sentences = glance_sentences(body)
    m.glance_sentences = len(sentences)
    m.glance_words = count_words(glance_prose(body))
    m.bookkeeping_in_body = bookkeeping_in_body(body)
    html = path.with_suffix(".html")
    if screens and html.exists():
        m.body_screens = body_screens(html)
    m.glance_sentences_with_number_and_receipt = sum(
        1 for s in sentences if re.search(r"\d", _RECEIPTS.sub("", s)) and _RECEIPTS.search(s)
    )
    repos = _repos(markdown, doc)
    m.glance_repos_unlinked = unlinked_repositories(section(body, "At a glance"), repos)
    m.radar_repos_unlinked = unlinked_repositories(section(body, "Breaking out"), repos)
    cited = {f"R{n}" for refs in _RECEIPTS.findall(body) for n in re.findall(r"R(\d+)", refs)}
    defined = set(re.findall(r"^- \*\*(R\d+)\*\*", appendix, re.M))
    m.receipts_cited_in_body = len(cited)
    m.receipts_cited_undefined = sorted(cited - defined, key=lambda r: int(r[1:]))
    for card in (doc or {}).get("cards") or []:
        if card.get("question") is not None:
            m.json_cards_with_question += 1
            m.json_cards_with_threshold += card.get("threshold") is not None
        if card.get("template") in VELOCITY_AT_HORIZON and card.get("interval"):
            read = p_above(card["interval"], float(card["threshold"]))
            m.velocity_cards.append(
                {
                    "repo": card["repo"],
                    "template": card["template"],
                    "threshold": card["threshold"],
                    "answer": card["probability"],
                    "from_interval": read,
                    "within": read is not None and abs(card["probability"] - read) <= 0.05,
                }
            )
    return m


def as_dict(m: NoteMetrics) -> dict[str, Any]:
    """The figures and the targets as plain data."""
    return {**asdict(m), "targets": m.targets()}
