"""The field by category: per category of the field watchlist (`Settings.field`), its share of
the stars the watchlist gained in the last 28 days, in the 28 days before and in the same 28 days
a year before, and its top movers by the pace underneath (bursts out), each number with the
SELECT over the facts layer's `star_days` that reproduces it (a `Citation`).

`field_view(store, day, field)` reads it. Rules (docs/design.md, "Facts layer"):

- A repository's gain over a window is its count at the window's end minus its count on the day
  before the window's first, each the last observed count of the `END_SLACK_DAYS` days to that
  day. A repository with no such count at either end is not counted in that window, and is named
  (`Window.missing`), never counted as 0; a repository the store holds no counts of at all is
  named apart (`FieldView.absent`).
- A category's share in a window is its counted repositories' gain over the gain of every
  counted repository of the watchlist in that window (None when that total is not positive).
  Two windows' shares are compared (`FieldView.gainer`) only when the earlier one counts at
  least `COMPARABLE_SHARE` of the repositories the last 28 days count. A category counted over
  fewer than `MIN_COUNTED` repositories in the last 28 days is `FieldView.thin`.
- A category's driver is its repository, counted in the last 28 days and the 28 before, whose
  gain changed most (in stars) the way the category's share moved (`Category.driver`).
- The pace underneath is the story's ordinary pace (`shu.signals.stories`, read through
  `story_reads.story_of`): the mean gain of the days of the last 28 outside any run of spike
  days or removal, against the same of the 28 before. A category's movers are its repositories
  counted in the last 28 days with the fastest pace underneath (`MOVERS`), a repository whose
  story has no data left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from shu.receipts import Citation
from shu.signals.stories import WINDOW, windows
from shu.signals.story_reads import ordinary_sql, story_of
from shu.store import Store

END_SLACK_DAYS = 3  # a window's end count: the last observed count of the 3 days to that day
YEAR_DAYS = 365  # "a year before": the same dates shifted back 365 days
MOVERS = 3  # top movers named per category
# a category counted over fewer repositories than this in a window has a share that is one or
# two repositories' gain, not a kind of project's: the briefing says so beside it
MIN_COUNTED = 3
# a window's shares are compared with the last 28 days' only when it counts at least this share
# of the repositories counted now (else the two are shares of different sets of repositories)
COMPARABLE_SHARE = 0.9
WINDOW_NAMES = ("now", "before", "year")


# Each watchlist repository's (category, repo, start count, end count, gained) in a window, from
# `star_days`; params: the watchlist as JSON ([{"repo": ..., "category": ...}, ...],
# `watchlist_json`), the day before the window's first and the window's last day.
GAINS_SQL = f"""WITH w AS (
  SELECT unnest(from_json(?::JSON, '[{{"repo": "VARCHAR", "category": "VARCHAR"}}]'),
                recursive := true)),
b AS (SELECT ?::DATE AS start_day, ?::DATE AS end_day),
ends AS (
  SELECT d.repo,
         arg_max(d.stars, d.day) FILTER (
           WHERE d.day BETWEEN b.start_day - {END_SLACK_DAYS} AND b.start_day) AS start_count,
         arg_max(d.stars, d.day) FILTER (
           WHERE d.day BETWEEN b.end_day - {END_SLACK_DAYS} AND b.end_day) AS end_count
  FROM star_days d, b
  WHERE d.observed AND d.repo IN (SELECT repo FROM w)
  GROUP BY d.repo),
gains AS (
  SELECT w.category, w.repo, e.start_count, e.end_count,
         e.end_count - e.start_count AS gained
  FROM w LEFT JOIN ends e USING (repo))"""
# One category's share of the watchlist's gain in a window, over the repositories counted on
# both ends (params: those of GAINS_SQL, then the category).
SHARE_SQL = (
    f"{GAINS_SQL}\nSELECT sum(gained) FILTER (WHERE category = ?) / "
    "nullif(sum(gained), 0) FROM gains WHERE gained IS NOT NULL"
)
# The stars the watchlist's counted repositories gained in a window (params: GAINS_SQL's).
GAINED_SQL = f"{GAINS_SQL}\nSELECT sum(gained) FROM gains WHERE gained IS NOT NULL"
# One repository's gain in a window (params: GAINS_SQL's, then the repository).
REPO_GAINED_SQL = f"{GAINS_SQL}\nSELECT gained FROM gains WHERE repo = ?"


def watchlist_json(watchlist: dict[str, list[str]]) -> str:
    """The watchlist as the JSON parameter of GAINS_SQL."""
    return json.dumps([{"repo": r, "category": c} for c, repos in watchlist.items() for r in repos])


@dataclass(frozen=True)
class Window:
    """One of the three windows: its days, the watchlist's gain over it, the repositories not
    counted (no count at an end)."""

    name: str  # 'now', 'before' or 'year'
    first: date
    last: date
    gained: float | None
    gained_cite: Citation | None
    counted: int
    missing: list[str]


@dataclass(frozen=True)
class Mover:
    """A repository's pace underneath (stars/day, bursts out) now and in the 28 days before."""

    repo: str
    pace: float
    pace_cite: Citation
    pace_before: float | None
    pace_before_cite: Citation | None


@dataclass(frozen=True)
class Driver:
    """The repository of a category whose gain moved most the way the category's share did,
    from the 28 days before to the last 28: its stars gained in each."""

    repo: str
    gained: float
    gained_cite: Citation
    gained_before: float
    gained_before_cite: Citation


@dataclass
class Category:
    """A category of the field: its repositories, its share in each window, its movers and the
    repository that drove its share's move (`driver`)."""

    name: str
    repos: list[str]
    shares: dict[str, float | None] = field(default_factory=dict)
    share_cites: dict[str, Citation | None] = field(default_factory=dict)
    counted: dict[str, int] = field(default_factory=dict)
    movers: list[Mover] = field(default_factory=list)
    driver: Driver | None = None

    def change(self, a: str = "now", b: str = "before") -> float | None:
        """The share in window `a` minus that in `b` (None when either is unmeasured)."""
        x, y = self.shares.get(a), self.shares.get(b)
        return None if x is None or y is None else x - y


@dataclass
class FieldView:
    """The field on `day`: its windows, its categories, and its repositories without counts."""

    day: date
    windows: dict[str, Window]
    categories: list[Category]
    absent: list[str]  # repositories of the watchlist the store holds no counts of

    @property
    def repos(self) -> int:
        return sum(len(c.repos) for c in self.categories)

    def comparable(self, window: str) -> bool:
        """Whether `window` counts at least COMPARABLE_SHARE of the repositories counted in the
        last 28 days, so its shares compare with theirs."""
        now = self.windows["now"].counted
        return now > 0 and self.windows[window].counted >= COMPARABLE_SHARE * now

    def thin(self, window: str = "now") -> list[Category]:
        """The categories counted in `window` over fewer than MIN_COUNTED repositories (at least
        one): their share is that of one or two repositories."""
        return [c for c in self.categories if 0 < c.counted.get(window, 0) < MIN_COUNTED]

    def gainer(self, against: str = "before") -> tuple[Category, Category] | None:
        """The categories whose share rose most and fell most from `against` to now (None when
        fewer than two have both shares, or `against` is not `comparable`)."""
        if not self.comparable(against):
            return None
        moved = [c for c in self.categories if c.change("now", against) is not None]
        if len(moved) < 2:
            return None
        moved.sort(key=lambda c: c.change("now", against) or 0.0)
        return moved[-1], moved[0]

    def as_json(self) -> dict[str, Any]:
        """The view as the briefing's JSON sidecar carries it (`field`)."""
        return {
            "day": str(self.day),
            "windows": {
                w.name: {
                    "first": str(w.first),
                    "last": str(w.last),
                    "gained": w.gained,
                    "gained_receipt": w.gained_cite.as_json() if w.gained_cite else None,
                    "repos_counted": w.counted,
                    "not_counted": w.missing,
                }
                for w in self.windows.values()
            },
            "categories": [
                {
                    "category": c.name,
                    "repos": c.repos,
                    "few_counted": c in self.thin(),
                    "shares": {
                        n: {
                            "share": c.shares.get(n),
                            "repos_counted": c.counted.get(n, 0),
                            "receipt": (cite.as_json() if (cite := c.share_cites.get(n)) else None),
                        }
                        for n in WINDOW_NAMES
                    },
                    "driver": (
                        None
                        if c.driver is None
                        else {
                            "repo": c.driver.repo,
                            "gained": c.driver.gained,
                            "gained_receipt": c.driver.gained_cite.as_json(),
                            "gained_before": c.driver.gained_before,
                            "gained_before_receipt": c.driver.gained_before_cite.as_json(),
                        }
                    ),
                    "movers": [
                        {
                            "repo": m.repo,
                            "pace": m.pace,
                            "pace_receipt": m.pace_cite.as_json(),
                            "pace_before": m.pace_before,
                            "pace_before_receipt": (
                                m.pace_before_cite.as_json() if m.pace_before_cite else None
                            ),
                        }
                        for m in c.movers
                    ],
                }
                for c in self.categories
            ],
            "absent": self.absent,
        }


def field_windows(day: date) -> dict[str, tuple[date, date]]:
    """The last 28 days to `day`, the 28 before them, and the same 28 days a year before."""
    first = day - timedelta(days=WINDOW - 1)
    year = timedelta(days=YEAR_DAYS)
    return {
        "now": (first, day),
        "before": (first - timedelta(days=WINDOW), day - timedelta(days=WINDOW)),
        "year": (first - year, day - year),
    }


def _query(store: Store, sql: str, params: list[Any], day: date, label: str) -> Citation | None:
    row = store.con.execute(sql, params).fetchone()
    if row is None or row[0] is None:
        return None
    return Citation("query", "star_days", {}, "", float(row[0]), day, label, sql=sql, params=params)


def field_view(store: Store, day: date, watchlist: dict[str, list[str]]) -> FieldView:
    """The field on `day` for `watchlist` (category -> repositories); see the module docstring."""
    pairs = [(repo, name) for name, repos in watchlist.items() for repo in repos]
    listed = watchlist_json(watchlist)
    held = {
        r
        for (r,) in store.con.execute(
            "SELECT DISTINCT repo FROM star_days WHERE observed AND day <= ? AND repo IN "
            "(SELECT unnest(?::VARCHAR[]))",
            [day, [r for r, _ in pairs]],
        ).fetchall()
    }
    categories = [Category(name, list(repos)) for name, repos in watchlist.items()]
    views: dict[str, Window] = {}
    gains: dict[str, dict[str, float]] = {}  # window -> repository -> stars gained (counted)
    window_params: dict[str, list[Any]] = {}
    for name, (first, last) in field_windows(day).items():
        params: list[Any] = [listed, first - timedelta(days=1), last]
        window_params[name] = params
        rows = store.con.execute(
            f"{GAINS_SQL}\nSELECT category, repo, gained FROM gains", params
        ).fetchall()
        gains[name] = {repo: float(g) for _c, repo, g in rows if g is not None}
        counted = set(gains[name])
        views[name] = Window(
            name,
            first,
            last,
            *_total(store, params, day, f"stars the field gained {first}..{last}"),
            len(counted),
            [r for r, _ in pairs if r in held and r not in counted],
        )
        for c in categories:
            cite = _query(
                store,
                SHARE_SQL,
                [*params, c.name],
                day,
                f"{c.name}'s share of the stars the field gained {first}..{last}",
            )
            c.counted[name] = sum(r in counted for r in c.repos)
            c.share_cites[name] = cite
            c.shares[name] = None if cite is None or not c.counted[name] else float(cite.value)
    counted_now = set(held).difference(views["now"].missing)
    for c in categories:
        c.movers = _movers(store, day, [r for r in c.repos if r in counted_now])
        c.driver = _driver(store, day, c, gains, window_params)
    return FieldView(day, views, categories, [r for r, _ in pairs if r not in held])


def _driver(
    store: Store,
    day: date,
    c: Category,
    gains: dict[str, dict[str, float]],
    params: dict[str, list[Any]],
) -> Driver | None:
    """The repository of `c`, counted in the last 28 days and the 28 before, whose gain changed
    most (in stars) the way `c`'s share moved; None when the share did not move or no
    repository's gain moved that way."""
    change = c.change("now", "before")
    if not change:
        return None
    way = 1.0 if change > 0 else -1.0
    both = [r for r in c.repos if r in gains["now"] and r in gains["before"]]
    moved = [(way * (gains["now"][r] - gains["before"][r]), r) for r in both]
    moved = [(m, r) for m, r in moved if m > 0]
    if not moved:
        return None
    repo = max(moved)[1]
    cites = {}
    for window in ("now", "before"):
        first, last = field_windows(day)[window]
        cite = _query(
            store,
            REPO_GAINED_SQL,
            [*params[window], repo],
            day,
            f"stars {repo} gained {first}..{last}",
        )
        if cite is None:
            return None
        cites[window] = cite
    return Driver(
        repo, float(cites["now"].value), cites["now"], float(cites["before"].value), cites["before"]
    )


def _total(
    store: Store, params: list[Any], day: date, label: str
) -> tuple[float | None, Citation | None]:
    cite = _query(store, GAINED_SQL, params, day, label)
    return (None if cite is None else float(cite.value)), cite


def _movers(store: Store, day: date, repos: list[str]) -> list[Mover]:
    """The `MOVERS` repositories of `repos` with the fastest pace underneath on `day`."""
    out = []
    for repo in repos:
        story = story_of(store, repo, day)
        if story.kind == "no_data":
            continue
        paces: dict[str, Citation | None] = {}
        for window in ("now", "before"):
            first, last = windows(day)[window]
            sql, params = ordinary_sql(repo, first, last, story.unusual)
            paces[window] = _query(
                store, sql, params, day, f"{repo} mean daily gain of ordinary days {first}..{last}"
            )
        now = paces["now"]
        if now is None:
            continue
        before = paces["before"]
        out.append(
            Mover(
                repo,
                float(now.value),
                now,
                None if before is None else float(before.value),
                before,
            )
        )
    return sorted(out, key=lambda m: -m.pace)[:MOVERS]
