"""What a story's move means, from numbers: the facts "What moved" (and At a glance) word after
each story, computed below the briefing, each with the stored row or the SELECT that reproduces
it (a `Citation`). Never a cause: only what the store holds beside the move.

`meaning(store, story, field)` gathers them for one story (`shu.signals.stories.Story`):

- `rank`: how the 28-day move ranks in the repository's own history (`history_rank` over
  `star_signals.acceleration_28d`): the last day before it on which the 28-day pace moved at
  least as far the same way, or none since its signals begin ("its largest 28-day fall since
  Mar 2023"); and `level`, the same for the 28-day pace itself ("its slowest 28-day pace
  since ..."). Said only when that day is at least `RANK_MIN_DAYS` back (a move larger a few
  days ago is the same move still unfolding, not a record), and never while store-wide event
  days sit in the 28-day window (`Story.store_wide_now`): the stored pace counts the store's
  event, so its rank would be the store's, not the repository's;
- `category`: the pace of the other repositories of its field category (`Settings.field`) over
  the last 28 days against the 28 before, over the repositories counted in both windows
  (`category_pace`, the field view's gains from `star_days`);
- `forecast`: the forecast issued on the story's day that its 28-day pace in `FORECAST_HORIZON`
  days is above today's (`star_velocity_up`, from `forecasts`);
- `coinciding`: releases published (pre-releases left out), documents dated and commit bursts
  (a day whose 7-day commit pace is `COMMIT_BURST_Z` standard deviations above its usual,
  `commit_signals`) on the move's days (`_move_days`: the episode's; for a change of pace the
  28-day window; for a steady pace the oldest week when it ran far from the pace, else none),
  `RELEASE_LEAD_DAYS` before them included: named as coinciding, never as the cause. A release
  the story already names is left out; beyond `COINCIDING_MAX` releases, how many more
  (`Meaning.more_releases`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from shu.receipts import Citation
from shu.signals.field import GAINS_SQL, watchlist_json
from shu.signals.stories import RELEASE_LEAD_DAYS, WINDOW, Story, windows
from shu.store import Store

RANK_MIN_DAYS = 90  # a record "since" a day fewer days back than this is not said
FORECAST_TEMPLATE, FORECAST_HORIZON = "star_velocity_up", 30
COMMIT_BURST_Z = 2.0
COINCIDING_MAX = 3  # at most this many coinciding facts per kind

# The last day before `day` on which the column was at least (`>=`) / at most (`<=`) the value
# (params: repo, day, value); and the first day the column is known (params: repo, day).
_SINCE_SQL = "SELECT max(day) FROM star_signals WHERE repo = ? AND day < ? AND {column} {op} ?"
_FIRST_SQL = (
    "SELECT min(day) FROM star_signals WHERE repo = ? AND day <= ? AND {column} IS NOT NULL"
)
# The watchlist's gained stars per day over a window (params: GAINS_SQL's).
PACE_SQL = f"{GAINS_SQL}\nSELECT sum(gained) / {WINDOW}.0 FROM gains WHERE gained IS NOT NULL"
RELEASES_SQL = (
    "SELECT tag, published_at FROM releases WHERE repo = ? AND published_at >= ? AND "
    "published_at < ? AND NOT coalesce(is_prerelease, false) ORDER BY published_at, tag"
)
DOCUMENTS_SQL = (
    "SELECT p.doc_id, p.passage_no, p.text, d.title, d.location, d.published_on "
    "FROM passages p JOIN documents d USING (doc_id) WHERE d.published_on BETWEEN ? AND ? "
    "AND contains(lower(p.text), lower(?)) ORDER BY d.published_on, p.doc_id, p.passage_no"
)
COMMIT_BURSTS_SQL = (
    "SELECT day, commit_velocity_7d_z FROM commit_signals WHERE repo = ? AND day BETWEEN ? AND ? "
    "AND commit_velocity_7d_z >= ? ORDER BY commit_velocity_7d_z DESC, day"
)


@dataclass(frozen=True)
class Rank:
    """How a value of `column` on `day` ranks in the repository's history: `since` the last day
    before it with one at least as far the same way (None: none since `first`)."""

    column: str
    side: str  # 'high' (a rise, a fast pace) or 'low'
    value: float
    value_cite: Citation
    since: date | None
    since_cite: Citation
    first: date
    first_cite: Citation


@dataclass(frozen=True)
class CategoryPace:
    """The other repositories of the story's field category: stars/day over the last 28 days and
    the 28 before, over the `repos` counted in both."""

    name: str
    repos: int
    now: float
    now_cite: Citation
    before: float
    before_cite: Citation

    @property
    def change(self) -> float | None:
        return None if self.before <= 0 else self.now / self.before - 1


@dataclass(frozen=True)
class Forecast:
    """The forecast that the 28-day pace on `resolves_on` is above `threshold` (today's)."""

    forecast_id: str
    probability: float
    threshold: float
    resolves_on: date
    cite: Citation


@dataclass(frozen=True)
class Coinciding:
    """A fact of the store on the move's days: a release, a dated document's passage naming the
    repository, or a commit burst."""

    kind: str  # 'release', 'document' or 'commits'
    day: date
    what: str  # the tag, the document's title, or the z-score as text
    cite: Citation


@dataclass
class Meaning:
    """What a story's move means, each part None (or empty) where the store cannot say."""

    repo: str
    day: date
    first: date  # the move's days: the episode's, else the 28-day window
    last: date
    rank: Rank | None = None
    level: Rank | None = None
    category: CategoryPace | None = None
    forecast: Forecast | None = None
    coinciding: list[Coinciding] = field(default_factory=list)
    more_releases: int = 0  # releases on the move's days beyond the COINCIDING_MAX named

    @property
    def citations(self) -> list[Citation]:
        """Every citation the meaning rests on."""
        out: list[Citation] = []
        for r in (self.rank, self.level):
            if r is not None:
                out += [r.value_cite, r.since_cite, r.first_cite]
        if self.category is not None:
            out += [self.category.now_cite, self.category.before_cite]
        if self.forecast is not None:
            out.append(self.forecast.cite)
        return out + [c.cite for c in self.coinciding]


def history_rank(store: Store, repo: str, day: date, column: str, side: str) -> Rank | None:
    """How `column` of star_signals ('acceleration_28d' or 'velocity_28d') on `day` ranks in
    `repo`'s history: the last day before `day` with a value at least as high (`side` 'high') or
    as low ('low'); None when `day` has no value."""
    con = store.con
    row = con.execute(
        f"SELECT {column} FROM star_signals WHERE repo = ? AND day = ?", [repo, day]
    ).fetchone()
    if row is None or row[0] is None:
        return None
    value = float(row[0])
    value_cite = Citation(
        "row", "star_signals", {"repo": repo, "day": day}, column, row[0], day, f"{repo} {column}"
    )
    sql = _SINCE_SQL.format(column=column, op=">=" if side == "high" else "<=")
    since = con.execute(sql, [repo, day, row[0]]).fetchall()[0][0]
    since_cite = Citation(
        "query",
        "star_signals",
        {},
        "",
        since,
        day,
        f"{repo}: last day before {day} with {column} {'>=' if side == 'high' else '<='} it",
        sql=sql,
        params=[repo, day, row[0]],
    )
    first_sql = _FIRST_SQL.format(column=column)
    first = con.execute(first_sql, [repo, day]).fetchall()[0][0]
    first_cite = Citation(
        "query",
        "star_signals",
        {},
        "",
        first,
        day,
        f"{repo}: first day with {column}",
        sql=first_sql,
        params=[repo, day],
    )
    return Rank(column, side, value, value_cite, since, since_cite, first, first_cite)


def category_pace(store: Store, day: date, name: str, repos: list[str]) -> CategoryPace | None:
    """The stars/day `repos` (a category, the story's repository left out) gained over the last
    28 days to `day` and the 28 before, over those counted in both windows (None when none)."""
    spans = {w: windows(day)[w] for w in ("now", "before")}
    counted: set[str] | None = None
    for first, last in spans.values():
        rows = store.con.execute(
            f"{GAINS_SQL}\nSELECT repo FROM gains WHERE gained IS NOT NULL",
            [watchlist_json({name: repos}), first - timedelta(days=1), last],
        ).fetchall()
        got = {r for (r,) in rows}
        counted = got if counted is None else counted & got
    both = [r for r in repos if counted and r in counted]
    if not both:
        return None
    listed = watchlist_json({name: both})
    cites = {}
    for w, (first, last) in spans.items():
        params: list[object] = [listed, first - timedelta(days=1), last]
        value = store.con.execute(PACE_SQL, params).fetchall()[0][0]
        if value is None:
            return None
        cites[w] = Citation(
            "query",
            "star_days",
            {},
            "",
            float(value),
            day,
            f"stars/day the other {len(both)} repositories of {name} gained {first}..{last}",
            sql=PACE_SQL,
            params=params,
        )
    now, before = cites["now"], cites["before"]
    return CategoryPace(name, len(both), float(now.value), now, float(before.value), before)


def forecast_to_last(
    store: Store, repo: str, day: date, after: date | None = None
) -> Forecast | None:
    """The forecast issued on `day` that `repo`'s 28-day pace FORECAST_HORIZON days on is above
    its value on `day` (the latest model version's; None when none was issued, or when it
    resolves on or before `after`, the briefing's day: of a stale store, an answer about a past
    day is no forecast)."""
    row = store.con.execute(
        "SELECT forecast_id, probability, threshold, resolves_on FROM forecasts WHERE repo = ? "
        "AND template = ? AND origin = ? AND horizon_days = ? AND resolves_on > ? "
        "ORDER BY issued_at DESC LIMIT 1",
        [repo, FORECAST_TEMPLATE, day, FORECAST_HORIZON, after or day],
    ).fetchone()
    if row is None or row[1] is None:
        return None
    fid, p, threshold, resolves = row
    cite = Citation(
        "row",
        "forecasts",
        {"forecast_id": fid},
        "probability",
        p,
        day,
        f"{repo}: P(28-day pace on {resolves} above {threshold})",
    )
    return Forecast(fid, float(p), float(threshold), resolves, cite)


def coinciding(
    store: Store, repo: str, first: date, last: date, skip_tags: set[str] | None = None
) -> list[Coinciding]:
    """Releases, documents naming `repo` and commit bursts from RELEASE_LEAD_DAYS before `first`
    to `last` (at most COINCIDING_MAX of each kind), releases in `skip_tags` left out."""
    start = first - timedelta(days=RELEASE_LEAD_DAYS)
    out: list[Coinciding] = []
    params: list[object] = [repo, start, last + timedelta(days=1)]
    rels = store.con.execute(RELEASES_SQL, params).fetchall()
    for tag, published in [r for r in rels if r[0] not in (skip_tags or set())][:COINCIDING_MAX]:
        on = published.date() if isinstance(published, datetime) else published
        out.append(
            Coinciding(
                "release",
                on,
                tag,
                Citation(
                    "row",
                    "releases",
                    {"repo": repo, "tag": tag},
                    "published_at",
                    published,
                    last,
                    f"{repo} release {tag}",
                ),
            )
        )
    name = repo.split("/", 1)[1]
    docs = store.con.execute(DOCUMENTS_SQL, [start, last, name]).fetchall()
    seen: set[str] = set()
    for doc_id, no, text, title, location, published_on in docs:
        if doc_id in seen or len(seen) >= COINCIDING_MAX:
            continue
        seen.add(doc_id)
        quote = _quote(text, name)
        out.append(
            Coinciding(
                "document",
                published_on,
                title or location or doc_id,
                Citation(
                    "passage",
                    "passages",
                    {"doc_id": doc_id, "passage_no": no},
                    "text",
                    quote,
                    published_on,
                    f"{title or doc_id} naming {name}",
                    title=title,
                    location=location,
                ),
            )
        )
    bursts = store.con.execute(COMMIT_BURSTS_SQL, [repo, start, last, COMMIT_BURST_Z]).fetchall()
    for on, z in bursts[:1]:  # the strongest day of the burst
        out.append(
            Coinciding(
                "commits",
                on,
                f"{float(z):.1f}",
                Citation(
                    "row",
                    "commit_signals",
                    {"repo": repo, "day": on},
                    "commit_velocity_7d_z",
                    z,
                    last,
                    f"{repo} 7-day commit pace z-score",
                ),
            )
        )
    return out


def releases_between(
    store: Store, repo: str, first: date, last: date, skip_tags: set[str] | None = None
) -> int:
    """How many releases of `repo` `coinciding` looks at (RELEASE_LEAD_DAYS before `first` to
    `last`), those in `skip_tags` left out."""
    params: list[object] = [repo, first - timedelta(days=RELEASE_LEAD_DAYS), last + timedelta(1)]
    return sum(
        tag not in (skip_tags or set())
        for tag, _ in store.con.execute(RELEASES_SQL, params).fetchall()
    )


def _quote(text: str, name: str, width: int = 60) -> str:
    """A short exact quotation of `text` around the first mention of `name`."""
    at = text.lower().find(name.lower())
    start = max(0, at - width // 2)
    return text[start : start + width].strip()


def category_of(repo: str, watchlist: dict[str, list[str]]) -> str | None:
    """The field category holding `repo` (None when the watchlist does not list it)."""
    return next((name for name, repos in watchlist.items() if repo in repos), None)


def meaning(
    store: Store, story: Story, watchlist: dict[str, list[str]], as_of: date | None = None
) -> Meaning | None:
    """What `story`'s move means (see the module docstring); None for a story without data.
    `as_of`, the briefing's day, bounds the forecast it quotes (`forecast_to_last`)."""
    if story.kind == "no_data":
        return None
    e = story.primary
    days = _move_days(story)
    first, last = days if days is not None else windows(story.day)["now"]
    out = Meaning(story.repo, story.day, first, last)
    out.rank = story_rank(store, story)
    side = _side(story)
    if side is not None and not story.store_wide_now:
        out.level = _kept(history_rank(store, story.repo, story.day, "velocity_28d", side))
    name = category_of(story.repo, watchlist)
    if name is not None:
        others = [r for r in watchlist[name] if r != story.repo]
        out.category = category_pace(store, story.day, name, others) if others else None
    out.forecast = forecast_to_last(store, story.repo, story.day, as_of)
    if days is not None:
        named = {e.release[0]} if e is not None and e.release else set()
        out.coinciding = coinciding(store, story.repo, first, last, named)
        out.more_releases = releases_between(store, story.repo, first, last, named) - sum(
            x.kind == "release" for x in out.coinciding
        )
    return out


def story_rank(store: Store, story: Story) -> Rank | None:
    """How the story's 28-day change of pace ranks in its repository's own history (a rise
    against its rises, a fall against its falls); None without a change, or when the record it
    sets reaches fewer than RANK_MIN_DAYS back (the same move still unfolding), when the
    change runs against the story's own direction (`_side`), or when store-wide event days sit
    in the window (the stored change counts them)."""
    side = _side(story)
    if side is None or story.store_wide_now:
        return None
    return _kept(history_rank(store, story.repo, story.day, "acceleration_28d", side))


def _side(story: Story) -> str | None:
    """'high' for a rise, 'low' for a fall: the sign of the 28-day change, when the story tells
    the same way (None without a change, or when they disagree: a pace slowing underneath a
    burst whose spike days lift the raw 28-day change is no record rise)."""
    acc = story.acceleration_28d
    if not acc or (story.effect and (story.effect > 0) != (acc > 0)):
        return None
    return "high" if acc > 0 else "low"


def _move_days(story: Story) -> tuple[date, date] | None:
    """The days the story's move happened on: its episode's; for a change of pace, the 28-day
    window; for a steady pace whose oldest week ran far from it, that week; else None (a steady
    pace: nothing moved, so nothing coincides)."""
    e = story.primary
    if e is not None:
        return e.first, e.last
    if story.kind in ("pace_down", "pace_up"):
        return windows(story.day)["now"]
    if story.week_leaving:
        return story.oldest_week
    return None


def _kept(rank: Rank | None) -> Rank | None:
    """`rank` when it says something: its record reaches RANK_MIN_DAYS back or more."""
    if rank is None or rank.value_cite.as_of is None:
        return None
    back = rank.since if rank.since is not None else rank.first
    return rank if (rank.value_cite.as_of - back).days >= RANK_MIN_DAYS else None
