"""Which question a repository's card asks, among every forecast issued for it at one origin.

A card should say something an analyst did not know. For each tracked repository, its candidate
questions are its binary forecasts at the origin: every template, threshold and horizon issued
(the star card: star, commit and release templates; the ROCm card: the ROCm adoption templates).

- A question the user declared (`[[questions]]` in shu.toml: same repository, template, horizon
  and threshold) always gets a card, whatever its probability; when its template x horizon has
  no demonstrated skill, or such answers came true no more often than a coin's, the card says
  so.
- Otherwise a question qualifies when its template x horizon has demonstrated skill
  (`shu.forecast.evaluation.skill_gate`), such answers as its came true more often than a
  coin's (`beats_coin`: the backtest's hit rate and this store's record, as
  `card.earned.earned_word` reads them), its base rate is known (the climatology stored with
  it), the model departs from that base rate by at least `MARGIN` in log-odds (at a 50% base
  rate: below 40% or above 60%; at 20%: below 14% or above 27%), and its probability lies
  within `SHOWN` (10-90%).
  The card asks the qualifying question whose base rate is nearest 0.5 -- the one whose answer
  was least known beforehand -- breaking ties by the larger departure, then the horizon nearest
  30 days, then the forecast id.
- When none qualifies, the star card leads with the repository's velocity interval alone (the
  interval forecast nearest 30 days; the card says so when the interval template has no
  demonstrated skill); a ROCm card is not shown.
- A ROCm card is shown only for a repository with ROCm activity in the year to the data day
  (ROCm-touching commits or releases whose notes mention ROCm) or a declared ROCm question.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shu.briefing.text import pct
from shu.forecast.questions.registry import INTERVAL_TEMPLATE as INTERVAL
from shu.forecast.questions.registry import ROCM_TEMPLATES
from shu.settings import DeclaredQuestion

MARGIN = 0.4  # log-odds between a forecast and its base rate for the forecast to say something
SHOWN = (0.1, 0.9)  # an undeclared question is asked only with a probability in this range
# (template, horizon) -> (demonstrated?, one plain sentence why or why not)
SkillGate = Callable[[str, int], tuple[bool, str]]


@dataclass
class CardChoice:
    """What one card shows: its question (None: it leads with the interval alone), the interval
    forecast it leads with, whether the user declared the question, and the skill verdict of the
    question's template (or of the interval's, when there is no question)."""

    repo: str
    kind: str  # "star" or "rocm"
    forecast: dict[str, Any] | None
    interval: dict[str, Any] | None
    declared: bool
    skilled: bool
    skill_reason: str
    why: str  # why this question, or why none, in one sentence ("": chosen by `CHOICE_RULE`)

    def __post_init__(self) -> None:
        if self.forecast is None and self.interval is None:
            raise ValueError(f"a card for {self.repo} needs a question or an interval")

    @property
    def headline(self) -> dict[str, Any]:
        """The forecast the card is about: its question, else its interval."""
        lead = self.forecast or self.interval
        assert lead is not None  # __post_init__
        return lead


def is_declared(f: dict[str, Any], questions: list[DeclaredQuestion]) -> bool:
    """Whether forecast `f` asks a question the user declared."""
    return any(
        q.repo == f["repo"]
        and q.template == f["template"]
        and q.horizon == f["horizon_days"]
        and math.isclose(q.threshold, f["threshold"])
        for q in questions
    )


def departure(f: dict[str, Any]) -> float | None:
    """|logit(p) - logit(base rate)| (None without a stored base rate)."""
    if f.get("base_rate") is None:
        return None
    return abs(_logit(f["probability"]) - _logit(f["base_rate"]))


def choose_cards(
    forecasts: list[dict[str, Any]],
    tracked: list[str],
    questions: list[DeclaredQuestion],
    skill: SkillGate,
    rocm_active: Callable[[str], bool],
    beats_coin: Callable[[dict[str, Any]], bool] | None = None,
) -> list[CardChoice]:
    """The cards of the tracked repositories: per repository its declared questions, else its
    chosen star card, then its ROCm card (see the module docstring). `beats_coin` says whether
    such answers as a forecast's came true more often than a coin's (None: every one did)."""
    gate = _answer_gate(skill, beats_coin)
    out: list[CardChoice] = []
    for repo in tracked:
        mine = [f for f in forecasts if f["repo"] == repo]
        intervals = [f for f in mine if f["template"] == INTERVAL]
        star = [
            f for f in mine if f["template"] != INTERVAL and f["template"] not in ROCM_TEMPLATES
        ]
        rocm = [f for f in mine if f["template"] in ROCM_TEMPLATES]
        out += _cards(repo, "star", star, intervals, questions, gate)
        if rocm and (rocm_active(repo) or any(is_declared(f, questions) for f in rocm)):
            out += _cards(repo, "rocm", rocm, [], questions, gate)
    return out


# The skill verdict of one forecast: its template x horizon's, and its own kind of answer's.
AnswerGate = Callable[[dict[str, Any]], tuple[bool, str]]
COIN = "such answers came true no more often than a coin's (the backtest or this store's record)"


def _answer_gate(
    skill: SkillGate, beats_coin: Callable[[dict[str, Any]], bool] | None
) -> AnswerGate:
    """A forecast's skill: its template x horizon's demonstrated skill, and (yes/no answers)
    whether such answers came true more often than a coin's."""

    def gate(f: dict[str, Any]) -> tuple[bool, str]:
        skilled, reason = skill(f["template"], f["horizon_days"])
        if skilled and f["template"] != INTERVAL and beats_coin is not None and not beats_coin(f):
            return False, COIN
        return skilled, reason

    return gate


def _near(intervals: list[dict[str, Any]], horizon: int) -> dict[str, Any] | None:
    """The interval forecast whose horizon is nearest `horizon` (the shorter on a tie)."""
    if not intervals:
        return None
    return min(intervals, key=lambda f: (abs(f["horizon_days"] - horizon), f["horizon_days"]))


def _cards(
    repo: str,
    kind: str,
    candidates: list[dict[str, Any]],
    intervals: list[dict[str, Any]],
    questions: list[DeclaredQuestion],
    skill: AnswerGate,
) -> list[CardChoice]:
    declared = [f for f in candidates if is_declared(f, questions)]
    if declared:
        out = []
        for f in declared:
            skilled, reason = skill(f)
            out.append(
                CardChoice(
                    repo,
                    kind,
                    f,
                    _near(intervals, f["horizon_days"]),
                    True,
                    skilled,
                    reason,
                    "declared by the user",
                )
            )
        return out
    qualifying = []
    for f in candidates:
        skilled, reason = skill(f)
        moved = departure(f)
        if (
            skilled
            and moved is not None
            and moved >= MARGIN
            and SHOWN[0] <= f["probability"] <= SHOWN[1]
        ):
            qualifying.append(
                (
                    abs(f["base_rate"] - 0.5),
                    -moved,
                    abs(f["horizon_days"] - 30),
                    f["forecast_id"],
                    f,
                    reason,
                )
            )
    if qualifying:
        *_, f, reason = min(qualifying, key=lambda q: q[:4])
        return [
            CardChoice(
                repo,
                kind,
                f,
                _near(intervals, f["horizon_days"]),
                False,
                True,
                reason,
                "",  # chosen by the rule: said once, above every card's details
            )
        ]
    interval = _near(intervals, 30)
    if interval is not None:
        skilled, reason = skill(interval)
        return [
            CardChoice(
                repo, kind, None, interval, False, skilled, reason, _why_none(len(candidates))
            )
        ]
    return []


# How a card's question is chosen, said once at the head of the cards' details.
CHOICE_RULE = (
    "Each card asks, of the questions issued for its repository, the one whose usual rate is "
    "nearest 50% among those where shu has shown skill at such questions and such answers came "
    "true more often than a coin's, the answer departs from the usual rate by at least "
    f"{MARGIN} on the log-odds scale and lies between {pct(SHOWN[0])} and {pct(SHOWN[1])}; "
    "with none, a star card leads with its 28-day pace range alone"
)


def _why_none(n: int) -> str:
    return f"none of {n} yes/no questions issued passed the rule above, so the range leads"


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))
