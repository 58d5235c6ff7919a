"""The star features of a (repository, origin) pair, computed in DuckDB from data on or before
the origin: what the star, commit and release templates read.

Inputs are the signal tables (`star_signals`, `commit_signals`) and `releases`; nothing here
recomputes a signal. Every read is either an equality on a day at or before the origin or a
backward-looking window ending on the origin (a test shifts the future and checks the features do
not change). Scale-free forms (ratios to the repository's own velocity, z-scores, signed logs)
let one model serve small and large repositories. What the signal tables do not hold is derived
here from `star_signals`, said where it is done:
- rolling 91-day spread and maximum of acceleration_28d and velocity_28d;
- lagged velocity_28d (91 and 364 days) and stars a year ago;
- velocity_7d 7, 14 and 21 days before the origin (relative to velocity_28d): which week of the
  28-day window the stars came in, i.e. what leaves the window next;
- daily star gains (`star_days.gain`, the facts layer's: the change of `stars` between
  consecutive rows, per day elapsed; `shu.signals.star_days`): their
  median over the 28 days to the origin, the busiest day's share of the window's stars, and the
  3-day mean, each relative to velocity_28d: whether the window's stars came in a spike that
  will not repeat;
- market context: the cross-sectional median of velocity_28d_z and of relative acceleration
  over every repository on the origin (alongside `category_signals` of the repository's
  category, or the 'untracked' market baseline).
Feature sets only some templates read (`FEATURE_SETS`, named by a template's registry
record), computed by every build so training, backtest and the daily job read the same:
- "pace": the 28-day pace without its busiest day and without its three busiest days (mean of
  the other daily gains) and the upper quartile of the daily gains, relative to velocity_28d:
  what the pace is once a burst has left the window. A trimmed pace, deliberately not the
  stories' ordinary pace (`shu.signals.stories`: the mean gain outside the runs of spike days
  of a 56-day window): the trim needs no window beyond the 28 days and is what the shipped
  model learnt on;
- "engagement": forks and open issues (issues + pull requests) from `stars_daily` on the origin
  and 7 and 28 days before it (exact days): forks and open issues per star, the fork pace over
  28 days and its last-7-day change relative to the star pace, the open-issue count's log
  change over 7 and 28 days and its pace relative to the star pace. A count missing on one of
  those days (a repository whose history holds no counts; one first seen today through the
  GitHub API, which gives today's counts only) leaves the features that need it NaN, which the
  gradient-boosting models route down their learned missing-value branch;
- "market_losses": the store's removals per origin, from the regime's loss shares
  (`features.regime.regime_frame`, the one definition of the share of repositories losing
  stars): the 28-day share, its change from the 28 days before, its ratio to the year's median;
- "removals" (the repository's own: loss days over 28 and 91 days, the fall below its 91-day
  peak, its largest one-day loss), "peers" (its velocity band's median relative acceleration
  and share accelerating) and "calendar" (year-end holiday days ahead of a 30-day question):
  measured, read by no template (docs/forecast/method.md says what each added).
Release context comes from `release_context`, lifecycle from `star_signals.lifecycle_phase`,
topic activity from `commit_signals.rocm_share_28d`.

The question's threshold relative to the current state (threshold features, so one model serves
any X) is the template's own: `questions.star`, listed in `questions.registry`.
"""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import pandas as pd

from shu.errors import StoreError
from shu.forecast.features.regime import regime_frame
from shu.signals.star_days import ensure_current

# Base features (one row per repo x origin), in model order.
BASE_FEATURES = (
    "log_stars",
    "slog_velocity_28d",
    "rel_velocity_7d",
    "rel_acceleration_7d",
    "rel_acceleration_28d",
    "velocity_7d_z",
    "velocity_28d_z",
    "rel_accel_sd_91d",
    "rel_accel_max_91d",
    "rel_velocity_vs_max_91d",
    "velocity_change_91d",
    "velocity_change_364d",
    "log_star_growth_364d",
    "history_years",
    "coverage_91d",
    "market_velocity_z",
    "market_rel_acceleration",
    "category_accelerating_share",
    "category_rel_acceleration",
    "phase_emerging",
    "phase_expansion",
    "phase_decline",
    "months_since_release",
    "releases_365d",
    "release_interval_ratio",
    "slog_commit_velocity_28d",
    "rel_commit_acceleration_28d",
    "rocm_share_28d",
    "rel_velocity_7d_lag7",
    "rel_velocity_7d_lag14",
    "rel_velocity_7d_lag21",
    "rel_median_gain_28d",
    "max_day_share_28d",
    "rel_velocity_3d",
)
# Features only some templates read (their registry record's `feature_sets` names the set);
# every build computes them, so the backtest, `shu train` and the daily job read the same.
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    # forks and open issues (issues + pull requests) from `stars_daily`: the level per star and
    # the change over 7 and 28 days (NaN where a day's count is missing)
    "engagement": (
        "log_forks_per_star",
        "rel_fork_velocity_28d",
        "rel_fork_acceleration_7d",
        "log_open_issues_per_star",
        "open_issues_change_28d",
        "open_issues_change_7d",
        "rel_open_issue_velocity_28d",
    ),
    # the 28-day pace without its busiest days: what is left when a burst leaves the window
    "pace": ("rel_trim3_velocity_28d", "rel_trim1_velocity_28d", "rel_q75_gain_28d"),
    # the repository's own removals: the share of its days that lost stars over 28 and 91
    # days, how far it sits below its 91-day peak, its largest one-day loss over 91 days
    # relative to its pace
    "removals": (
        "loss_day_share_28d",
        "loss_day_share_91d",
        "log_peak_drop_91d",
        "rel_largest_loss_91d",
    ),
    # the store's removals (`features.regime`): the share of repositories losing stars on a
    # day over the 28 days to the origin, its change from the 28 days before, and its ratio to
    # the median daily share of the year to the origin (a purge reads 1.5 or more)
    "market_losses": (
        "market_loss_share_28d",
        "market_loss_share_change_28d",
        "market_loss_share_ratio",
    ),
    # the momentum of the repository's peers by pace: the repositories in its band of today's
    # velocity (<1, 1-5, 5-20, >=20 stars/day): their median relative acceleration and the
    # share accelerating (the ranking files carry no category for most repositories)
    "peers": ("band_rel_acceleration", "band_accelerating_share"),
    # the calendar: year-end holiday days (24 Dec .. 1 Jan) in the 28 days a 30-day question's
    # pace is measured over, less those in the 28 days to the origin (the weekday mix of a
    # 28-day window is always four of each day)
    "calendar": ("holiday_days_ahead",),
}
ALL_SET_FEATURES = tuple(f for names in FEATURE_SETS.values() for f in names)
# The median daily share of repositories losing stars in the ranking files, 2018-12 .. 2026-02
# (`market_days`, days of 100 repositories or more): what "market_losses" reads on a store too
# small to say (`_market_losses`).
USUAL_LOSS_SHARE = 0.044
# The rolling windows (`roll`) are read on the origins only, and reach 90 days back at most, so
# they are computed over the days from 90 before the first origin on (the same rows in every
# window frame); the lagged values (l7 .. l364) are plain star_signals columns, read from `s`.
# The 28-day order statistics and counts of the daily gains (`q`: median, upper quartile, the
# busiest days, the days counted) are aggregated over each origin's own 28 days, not windowed
# over every day: they do not depend on the order rows are combined in, so they equal the
# windows' values, at the origins only (the median's and the quartile's windows over every day
# took ~1.5 s each a call on the full store). The sums and the spread stay windows: a float
# sum's last bits depend on that order, and the features must be the ones the models were
# trained on.
_FEATURES_SQL = """
WITH o AS (SELECT DISTINCT repo, origin FROM {origins}),
lim AS (SELECT min(origin) - 400 AS d0, min(origin) - 90 AS w0, max(origin) AS d1 FROM o),
s AS (
  SELECT s.* FROM star_signals s, lim
  WHERE s.day BETWEEN lim.d0 AND lim.d1 AND s.repo IN (SELECT repo FROM o)),
g AS (
  SELECT s.*, f.gain FROM s JOIN lim ON s.day >= lim.w0 LEFT JOIN (
    SELECT f.repo, f.day, f.gain FROM star_days f, lim
    WHERE f.day BETWEEN lim.w0 AND lim.d1 AND f.repo IN (SELECT repo FROM o)) f
  ON f.repo = s.repo AND f.day = s.day),
roll AS (
  SELECT repo, day, stars, velocity_7d, velocity_28d, velocity_90d, acceleration_7d,
    acceleration_28d,
    velocity_7d_z, velocity_28d_z, lifecycle_phase,
    stddev_samp(acceleration_28d) OVER w91 AS accel_sd_91d,
    max(acceleration_28d) OVER w91 AS accel_max_91d,
    max(velocity_28d) OVER w91 AS velocity_max_91d,
    count(velocity_28d) OVER w91 AS velocity_days_91d,
    avg(gain) OVER w3 AS velocity_3d,
    sum(gain) OVER w28 AS gain_sum_28d,
    count(gain) FILTER (WHERE gain < 0) OVER w28 AS loss_days_28d,
    count(gain) OVER w91 AS gain_days_91d,
    count(gain) FILTER (WHERE gain < 0) OVER w91 AS loss_days_91d,
    max(stars) OVER w91 AS stars_max_91d,
    min(gain) OVER w91 AS gain_min_91d
  FROM g
  WINDOW w91 AS (PARTITION BY repo ORDER BY day RANGE BETWEEN INTERVAL 90 DAYS PRECEDING
                 AND CURRENT ROW),
         w28 AS (PARTITION BY repo ORDER BY day RANGE BETWEEN INTERVAL 27 DAYS PRECEDING
                 AND CURRENT ROW),
         w3 AS (PARTITION BY repo ORDER BY day RANGE BETWEEN INTERVAL 2 DAYS PRECEDING
                AND CURRENT ROW)),
q AS (
  SELECT o.repo, o.origin, median(g.gain) AS gain_median_28d,
    quantile_cont(g.gain, 0.75) AS gain_q75_28d, max(g.gain) AS gain_max_28d,
    count(g.gain) AS gain_days_28d, max(g.gain, 3) AS gain_top3_28d
  FROM o JOIN g ON g.repo = o.repo AND g.day BETWEEN o.origin - 27 AND o.origin
  GROUP BY o.repo, o.origin),
peer AS (
  SELECT day, CASE WHEN velocity_28d < 1 THEN 0 WHEN velocity_28d < 5 THEN 1
                   WHEN velocity_28d < 20 THEN 2 ELSE 3 END AS band,
    median(acceleration_28d / greatest(abs(velocity_28d), 0.5)) AS band_rel_acceleration,
    avg((acceleration_28d > 0)::INT) AS band_accelerating_share
  FROM star_signals WHERE day IN (SELECT origin FROM o) AND velocity_28d IS NOT NULL
    AND acceleration_28d IS NOT NULL
  GROUP BY ALL),
d AS (
  SELECT d.repo, d.day, d.forks, d.open_issues FROM stars_daily d, lim
  WHERE d.day BETWEEN lim.d0 AND lim.d1 AND d.repo IN (SELECT repo FROM o)),
first_seen AS (
  SELECT repo, min(day) AS first_day FROM star_signals
  WHERE repo IN (SELECT repo FROM o) AND stars IS NOT NULL GROUP BY repo),
market AS (
  SELECT day, median(velocity_28d_z) AS market_velocity_z,
         median(acceleration_28d / greatest(abs(velocity_28d), 0.5)) AS market_rel_acceleration
  FROM star_signals WHERE day IN (SELECT origin FROM o) AND velocity_28d IS NOT NULL
  GROUP BY day),
cat AS (
  SELECT o.repo, o.origin, cs.accelerating_share,
         cs.acceleration_28d_median / greatest(abs(cs.velocity_28d_mean), 0.5) AS rel_accel
  FROM o LEFT JOIN repos r ON r.repo = o.repo
  JOIN category_signals cs ON cs.category = coalesce(r.category, 'untracked')
    AND cs.day = o.origin)
SELECT o.repo, o.origin,
  c.stars, c.velocity_7d, c.velocity_28d, c.velocity_90d, c.velocity_3d, c.acceleration_7d,
  c.acceleration_28d,
  c.accel_sd_91d, cs.commit_velocity_28d,
  ln(1 + greatest(c.stars, 0)) AS log_stars,
  sign(c.velocity_28d) * ln(1 + abs(c.velocity_28d)) AS slog_velocity_28d,
  c.velocity_7d / greatest(abs(c.velocity_28d), 0.5) AS rel_velocity_7d,
  c.acceleration_7d / greatest(abs(c.velocity_28d), 0.5) AS rel_acceleration_7d,
  c.acceleration_28d / greatest(abs(c.velocity_28d), 0.5) AS rel_acceleration_28d,
  c.velocity_7d_z, c.velocity_28d_z,
  c.accel_sd_91d / greatest(abs(c.velocity_28d), 0.5) AS rel_accel_sd_91d,
  c.accel_max_91d / greatest(abs(c.velocity_28d), 0.5) AS rel_accel_max_91d,
  c.velocity_28d / greatest(c.velocity_max_91d, 0.5) AS rel_velocity_vs_max_91d,
  (c.velocity_28d - l91.velocity_28d)
    / greatest(abs(c.velocity_28d), abs(l91.velocity_28d), 0.5) AS velocity_change_91d,
  (c.velocity_28d - l364.velocity_28d)
    / greatest(abs(c.velocity_28d), abs(l364.velocity_28d), 0.5) AS velocity_change_364d,
  CASE WHEN l364.stars IS NOT NULL AND c.stars IS NOT NULL
       THEN ln((1 + greatest(c.stars, 0)) / (1 + greatest(l364.stars, 0))) END
    AS log_star_growth_364d,
  least(o.origin - f.first_day, 1095) / 365.0 AS history_years,
  c.velocity_days_91d / 91.0 AS coverage_91d,
  m.market_velocity_z, m.market_rel_acceleration,
  cat.accelerating_share AS category_accelerating_share,
  cat.rel_accel AS category_rel_acceleration,
  CASE WHEN c.lifecycle_phase IS NOT NULL THEN (c.lifecycle_phase = 'emerging')::INT END
    AS phase_emerging,
  CASE WHEN c.lifecycle_phase IS NOT NULL THEN (c.lifecycle_phase = 'expansion')::INT END
    AS phase_expansion,
  CASE WHEN c.lifecycle_phase IS NOT NULL THEN (c.lifecycle_phase = 'decline')::INT END
    AS phase_decline,
  CASE WHEN rc.days_since_release IS NOT NULL THEN least(rc.days_since_release, 365) / 30.0
    END AS months_since_release, rc.releases_365d,
  rc.days_since_release / nullif(rc.median_interval_days, 0) AS release_interval_ratio,
  sign(cs.commit_velocity_28d) * ln(1 + abs(cs.commit_velocity_28d)) AS slog_commit_velocity_28d,
  cs.commit_acceleration_28d / greatest(abs(cs.commit_velocity_28d), 0.1)
    AS rel_commit_acceleration_28d,
  cs.rocm_share_28d,
  l7.velocity_7d / greatest(abs(c.velocity_28d), 0.5) AS rel_velocity_7d_lag7,
  l14.velocity_7d / greatest(abs(c.velocity_28d), 0.5) AS rel_velocity_7d_lag14,
  l21.velocity_7d / greatest(abs(c.velocity_28d), 0.5) AS rel_velocity_7d_lag21,
  q.gain_median_28d / greatest(abs(c.velocity_28d), 0.5) AS rel_median_gain_28d,
  q.gain_max_28d / greatest(abs(c.velocity_28d) * 28, 1) AS max_day_share_28d,
  c.velocity_3d / greatest(abs(c.velocity_28d), 0.5) AS rel_velocity_3d,
  ln(1 + d0.forks) - ln(1 + greatest(c.stars, 0)) AS log_forks_per_star,
  (d0.forks - d28.forks) / 28 / greatest(abs(c.velocity_28d), 0.5) AS rel_fork_velocity_28d,
  ((d0.forks - d7.forks) / 7 - (d0.forks - d28.forks) / 28)
    / greatest(abs(c.velocity_28d), 0.5) AS rel_fork_acceleration_7d,
  ln(1 + d0.open_issues) - ln(1 + greatest(c.stars, 0)) AS log_open_issues_per_star,
  ln(1 + d0.open_issues) - ln(1 + d28.open_issues)
    AS open_issues_change_28d,
  ln(1 + d0.open_issues) - ln(1 + d7.open_issues)
    AS open_issues_change_7d,
  (d0.open_issues - d28.open_issues) / 28 / greatest(abs(c.velocity_28d), 0.5)
    AS rel_open_issue_velocity_28d,
  CASE WHEN q.gain_days_28d > 6 THEN (c.gain_sum_28d - list_sum(q.gain_top3_28d))
    / (q.gain_days_28d - 3) / greatest(abs(c.velocity_28d), 0.5) END AS rel_trim3_velocity_28d,
  CASE WHEN q.gain_days_28d > 6 THEN (c.gain_sum_28d - list_max(q.gain_top3_28d))
    / (q.gain_days_28d - 1) / greatest(abs(c.velocity_28d), 0.5) END AS rel_trim1_velocity_28d,
  q.gain_q75_28d / greatest(abs(c.velocity_28d), 0.5) AS rel_q75_gain_28d,
  CASE WHEN q.gain_days_28d > 0 THEN c.loss_days_28d / q.gain_days_28d END
    AS loss_day_share_28d,
  CASE WHEN c.gain_days_91d > 0 THEN c.loss_days_91d / c.gain_days_91d END
    AS loss_day_share_91d,
  ln(1 + greatest(c.stars_max_91d, 0)) - ln(1 + greatest(c.stars, 0)) AS log_peak_drop_91d,
  least(c.gain_min_91d, 0) / greatest(abs(c.velocity_28d), 0.5) AS rel_largest_loss_91d,
  peer.band_rel_acceleration, peer.band_accelerating_share,
  (SELECT count(*) FROM range(3, 31) r(k)
     WHERE (month(o.origin + r.k::INT) = 12 AND day(o.origin + r.k::INT) >= 24)
        OR (month(o.origin + r.k::INT) = 1 AND day(o.origin + r.k::INT) = 1))
  - (SELECT count(*) FROM range(0, 28) r(k)
     WHERE (month(o.origin - r.k::INT) = 12 AND day(o.origin - r.k::INT) >= 24)
        OR (month(o.origin - r.k::INT) = 1 AND day(o.origin - r.k::INT) = 1))
    AS holiday_days_ahead
FROM o
LEFT JOIN roll c ON c.repo = o.repo AND c.day = o.origin
LEFT JOIN q ON q.repo = c.repo AND q.origin = c.day
LEFT JOIN s l7 ON l7.repo = o.repo AND l7.day = o.origin - 7
LEFT JOIN s l14 ON l14.repo = o.repo AND l14.day = o.origin - 14
LEFT JOIN s l21 ON l21.repo = o.repo AND l21.day = o.origin - 21
LEFT JOIN s l91 ON l91.repo = o.repo AND l91.day = o.origin - 91
LEFT JOIN s l364 ON l364.repo = o.repo AND l364.day = o.origin - 364
LEFT JOIN d d0 ON d0.repo = o.repo AND d0.day = o.origin
LEFT JOIN d d7 ON d7.repo = o.repo AND d7.day = o.origin - 7
LEFT JOIN d d28 ON d28.repo = o.repo AND d28.day = o.origin - 28
LEFT JOIN first_seen f ON f.repo = o.repo AND f.first_day <= o.origin
LEFT JOIN market m ON m.day = o.origin
LEFT JOIN peer ON peer.day = o.origin AND peer.band = CASE WHEN c.velocity_28d < 1 THEN 0
  WHEN c.velocity_28d < 5 THEN 1 WHEN c.velocity_28d < 20 THEN 2 ELSE 3 END
LEFT JOIN cat ON cat.repo = o.repo AND cat.origin = o.origin
LEFT JOIN release_context rc ON rc.repo = o.repo AND rc.day = o.origin
LEFT JOIN commit_signals cs ON cs.repo = o.repo AND cs.day = o.origin AND NOT coalesce(cs.gap,
  FALSE)
ORDER BY o.repo, o.origin
"""


def build_features(con: duckdb.DuckDBPyConnection, origins: str) -> pd.DataFrame:
    """Base features for every (repo, origin) in table/view `origins`.

    Returns one row per pair: repo, origin, the state on the origin (stars, velocity_7d,
    velocity_28d, velocity_90d, velocity_3d, acceleration_7d, acceleration_28d, accel_sd_91d,
    commit_velocity_28d) and `BASE_FEATURES` (NaN where the data does not exist).
    """
    ensure_current(con)
    df = con.execute(_FEATURES_SQL.format(origins=origins)).df()
    df = df.merge(_market_losses(con, df["origin"]), on="origin", how="left")
    for name in BASE_FEATURES + ALL_SET_FEATURES:
        df[name] = df[name].astype("float64")
    return df


def _market_losses(con: duckdb.DuckDBPyConnection, origins: pd.Series) -> pd.DataFrame:
    """The "market_losses" features per origin, from the regime's loss shares
    (`features.regime.regime_frame`: one definition of the share of repositories losing
    stars): the 28-day share, its change from 28 days before, its ratio to the year's median.
    Where the store cannot say (fewer than `regime.MIN_REPOS` repositories: a store of a few
    tracked repositories), a usual market: the share `USUAL_LOSS_SHARE`, no change, ratio 1,
    since the models never saw these features missing (the ranking files always hold a
    cross-section) and would route a missing value down an arbitrary branch."""
    days = sorted({pd.Timestamp(d).date() for d in origins.unique()})
    before = [d - timedelta(days=28) for d in days]
    frame = regime_frame(con, sorted(set(days) | set(before))).set_index("origin")
    now = frame.reindex(pd.to_datetime(days))
    then = frame.reindex(pd.to_datetime(before))
    return pd.DataFrame(
        {
            "origin": pd.to_datetime(days).astype(origins.dtype),
            "market_loss_share_28d": now["share_falling_28d"].fillna(USUAL_LOSS_SHARE).to_numpy(),
            "market_loss_share_change_28d": (
                now["share_falling_28d"].to_numpy() - then["share_falling_28d"].to_numpy()
            ),
            "market_loss_share_ratio": now["loss_share_ratio_28d"].fillna(1.0).to_numpy(),
        }
    ).fillna({"market_loss_share_change_28d": 0.0})


def data_through(con: duckdb.DuckDBPyConnection) -> date:
    """The last day with a star count in `star_signals` (StoreError when empty)."""
    day = con.execute("SELECT max(day) FROM star_signals WHERE stars IS NOT NULL").fetchall()[0][0]
    if day is None:
        raise StoreError("star_signals is empty: run `shu signals` after loading stars")
    return day
