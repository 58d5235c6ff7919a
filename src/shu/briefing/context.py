"""What every briefing section reads: the store, the day, the receipt book, and the facts more
than one section shows (tracked repositories, categories, forecasts, the forecasts the cards
headline), each computed once per briefing.

A section gets a `BriefingContext` and returns a `Part` (see `shu.briefing.sections`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import jinja2

from shu.briefing.card.earned import beats_coin
from shu.briefing.choice import CardChoice, choose_cards
from shu.briefing.story_title import briefing_title, importance, rocm_leads
from shu.briefing.text import template_env
from shu.evidence.retrieval import PassageIndex
from shu.forecast.evaluation.skill_gate import demonstrated_skill
from shu.forecast.records import latest_forecasts
from shu.receipts import ReceiptBook
from shu.repos import holds_synthetic
from shu.settings import Settings
from shu.signals.field import FieldView, field_view
from shu.signals.move_meaning import Meaning, meaning
from shu.signals.reads import CategoryMove, category_moves, last_signal_day, stale_repos
from shu.signals.rocm_facts import Finding, RocmActivity, finding, rocm_activity
from shu.signals.stories import Story, mark_shared
from shu.signals.story_reads import story_of
from shu.store import Store, first_data_day, utcnow

# The title of a briefing whose store holds no data on or before its day (sections/no_data.py).
NO_DATA_TITLE = "No data yet: nothing to brief"


@dataclass
class Part:
    """What a section built: its markdown in the body, ending with the blank line before the
    next section; the markdown of the HTML page when that differs (cards add their expandable
    details); its plain data for `reports/DATE.json` (top-level key -> JSON-ready value; lists
    under the same key from several sections are joined); and what it puts in the appendix
    (the full tables behind a short body, the receipts), in the same form."""

    markdown: str
    page: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    appendix: str = ""  # what the section puts in the appendix (after the body), if anything
    appendix_page: str | None = None  # the HTML page's appendix part, when that differs
    # a section with nothing to say is left out of the body: "Its heading: why" (the appendix
    # names each one left out, once; `markdown` is then empty)
    left_out: str = ""


@dataclass
class BriefingContext:
    """One briefing being composed: where it reads from, what it has cited, what it wrote."""

    store: Store
    settings: Settings
    as_of: date  # the date the briefing is about (the CLI's --as-of)
    data_through: date  # the last day with data, not after `as_of`
    out_dir: Path
    synthetic: bool = False
    notices: list[str] = field(default_factory=list)
    book: ReceiptBook = field(default_factory=ReceiptBook)
    charts: list[Path] = field(default_factory=list)  # charts the result reports, in order
    # facts the note has already stated in full (a name per fact): a later mention refers back
    said: set[str] = field(default_factory=set)
    _rocm: dict[str, RocmActivity] = field(default_factory=dict, repr=False)

    @classmethod
    def open(
        cls,
        store: Store,
        as_of: date | None,
        settings: Settings,
        out_dir: Path,
        synthetic: bool = False,
        notices: list[str] | None = None,
    ) -> BriefingContext:
        """The context for `as_of` (default: the latest day with star signals of a tracked
        repository; today when there is none); `data_through` is that latest day, not after
        `as_of`."""
        through = last_signal_day(store.con, [r.repo for r in settings.repos], as_of)
        as_of = as_of or through or utcnow().date()
        synthetic = synthetic or holds_synthetic(store)
        return cls(
            store, settings, as_of, through or as_of, out_dir, synthetic, list(notices or [])
        )

    @cached_property
    def index(self) -> PassageIndex:
        """The corpus as of the data day, for the cards' context questions."""
        return PassageIndex.from_store(self.store, self.data_through)

    @cached_property
    def tracked(self) -> list[str]:
        return [r.repo for r in self.settings.repos]

    @cached_property
    def stale(self) -> list[dict[str, Any]]:
        """Tracked repositories whose latest star observation is older than the day before."""
        return stale_repos(self.store.con, self.tracked, self.as_of)

    @cached_property
    def categories(self) -> list[CategoryMove]:
        return category_moves(self.store.con, self.settings, self.data_through)

    @cached_property
    def field(self) -> FieldView:
        """The field watchlist by category on the data day (`shu.signals.field`)."""
        return field_view(self.store, self.data_through, self.settings.field)

    @cached_property
    def first_data_day(self) -> date | None:
        """The first day the store holds a star count or a commit (None: no data at all)."""
        return first_data_day(self.store.con)

    @cached_property
    def no_data(self) -> bool:
        """True when the store holds no data on or before the day: the briefing says so."""
        return self.first_data_day is None or self.first_data_day > self.as_of

    @cached_property
    def stories(self) -> list[Story]:
        """What moved each tracked repository's star pace (`shu.signals.stories`), the most
        important first."""
        told = [story_of(self.store, repo, self.data_through) for repo in self.tracked]
        return mark_shared(sorted(told, key=lambda s: -importance(s)))

    @cached_property
    def meanings(self) -> dict[str, Meaning | None]:
        """What each story's move means (`shu.signals.move_meaning`), by repository: At a glance
        and What moved word the same facts (the same forecast), each said once."""
        return {
            s.repo: meaning(self.store, s, self.settings.field, self.as_of) for s in self.stories
        }

    @cached_property
    def rocm_finding(self) -> Finding | None:
        """How the share of commits touching ROCm moved over the last 90 days of the index
        (`rocm_facts.finding`), read once for the title, At a glance and the section."""
        return finding(self.store, self.data_through)

    @cached_property
    def rocm_leads(self) -> bool:
        """Whether that move heads the note (`story_title.rocm_leads`)."""
        return rocm_leads(self.rocm_finding, self.stories)

    @cached_property
    def title(self) -> str:
        if self.no_data:
            return NO_DATA_TITLE
        return briefing_title(self.stories, self.rocm_finding)

    @cached_property
    def forecasts(self) -> list[dict[str, Any]]:
        """The tracked repositories' forecasts at the latest origin not after the day."""
        return latest_forecasts(self.store, self.tracked, self.as_of)

    @cached_property
    def cards(self) -> list[CardChoice]:
        """What each card asks (`shu.briefing.choice`), in the order the cards are shown."""
        return choose_cards(
            self.forecasts,
            self.tracked,
            self.settings.questions,
            self.skill,
            lambda repo: self.rocm_activity(repo).active,
            self.beats_coin,
        )

    @cached_property
    def headline(self) -> list[dict[str, Any]]:
        """The question each tracked repository's star card asks (none: it leads with the
        interval alone), as at a glance and the velocity chart show it."""
        return [c.forecast for c in self.cards if c.kind == "star" and c.forecast]

    def skill(self, template: str, horizon_days: int) -> tuple[bool, str]:
        """Whether the model has demonstrated skill at `template` x `horizon_days`, and why."""
        verdict = demonstrated_skill(template, horizon_days, Path(self.settings.models_dir))
        return verdict.demonstrated, verdict.reason

    def beats_coin(self, f: dict[str, Any]) -> bool:
        """Whether such answers as yes/no forecast `f`'s came true more often than a coin's."""
        return beats_coin(self.store, self.settings, f, self.as_of)

    def rocm_activity(self, repo: str) -> RocmActivity:
        """The repository's ROCm commits and releases in the year to the data day."""
        if repo not in self._rocm:
            self._rocm[repo] = rocm_activity(self.store, repo, self.data_through)
        return self._rocm[repo]

    @cached_property
    def _env(self) -> jinja2.Environment:
        return template_env()

    def render(self, template: str, **view: Any) -> str:
        """`templates/<template>` rendered with `view`."""
        return self._env.get_template(template).render(**view)
