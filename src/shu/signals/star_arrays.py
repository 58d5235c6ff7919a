"""Computes the star_signals columns with numpy from the observations sorted by repository and
day: the arithmetic of a full refresh (`shu.signals.stars` reads the input from DuckDB and
writes the result back).

Definitions: `shu.schema.signals`; the pandas twin is `shu.signals.reference`, and
`sql/star_signals.sql` computes the same columns for an incremental refresh.

Method, on whole arrays (no loop per repository):
  1. Each observation holds its star count for up to 8 days (ages 0..7), until the next
     observation of the repository or the newest day of the input: together these are the
     fresh days, exactly the star_signals rows. A "run" is a stretch of fresh days with no stale
     day in it; inside a run the rows are consecutive days, so the day t - w is the row w
     positions back whenever t - w is not before the run's first day, which is also the
     condition for a w-day window to be defined (every day in it fresh).
  2. z-scores from exact integer running sums of the defined deltas d (count, sum, sum of
     squares; z is scale free, so z(velocity) = z(delta)) over the trailing 365 days: the
     running sum at the row minus the running sum just before the first row of t-364 .. t (365
     rows back inside a run; else found among the repository's earlier runs; else the
     repository's first row). The running sums may wrap around in int64; their differences over
     a year are still exact, since the true sums fit (|d| < 2^24 is checked).
The caller passes slices of repositories (fresh memory is the costly part at full size).
"""

from __future__ import annotations

import numpy as np

from shu.errors import StoreError

DAY_BITS = 20  # key = rid << DAY_BITS | day number: one sortable integer per (repository, day)
FRESH_DAYS = 7
Z_WINDOW_DAYS = 365
Z_MIN_VALUES = 28
MAX_DELTA = 1 << 24  # star changes below this keep every sum exact (incremental: in DOUBLE)


def _change(values: np.ndarray, w: int) -> np.ndarray:
    """values[i] - values[i - w] (0 in the first w rows, which no window uses)."""
    out = np.empty_like(values)
    out[:w] = 0
    np.subtract(values[w:], values[:-w], out=out[w:])
    return out


def star_signal_arrays(key: np.ndarray, stars: np.ndarray, max_dn: int) -> dict[str, np.ndarray]:
    """The star_signals rows of the observations of whole repositories: `key` = rid << 20 | day
    number (int64, sorted, unique), `stars` their counts (int64), `max_dn` the newest day of the
    input (no row after it). Raises StoreError when the keys are out of order or a change is too
    large to sum exactly.

    Returns arrays of one length, one element per row, in (rid, day) order: rid, dn (day number,
    int32), stars, age (days since the observation stars comes from, int32), the star changes
    d7 = stars(t) - stars(t-7), d28, d90, dd7 = d7(t) - d7(t-7), dd28 (int64), each defined only
    where its flag ok7, ok28, ok90, ok14, ok56 is True, z7 and z28 (z-scores of d7 and d28
    against their trailing year, NaN = none) and gap (bool).
    """
    n = len(key)
    rid = (key >> DAY_BITS).astype(np.int32)
    dn = (key & ((1 << DAY_BITS) - 1)).astype(np.int32)
    new_repo = np.ones(n, bool)
    np.not_equal(rid[1:], rid[:-1], out=new_repo[1:])
    last_of_repo = np.ones(n, bool)
    last_of_repo[:-1] = new_repo[1:]
    to_next = np.empty(n, np.int32)
    np.subtract(dn[1:], dn[:-1], out=to_next[:-1])
    to_next[-1] = 0
    if n and (to_next[~last_of_repo] <= 0).any():
        raise StoreError(
            "star_signals: observations out of (repository, day) order or a day "
            "observed twice; star_signals left as it was"
        )
    # days each observation covers: until the next one, at most 8 (ages 0..7), never past max_dn
    span = np.minimum(to_next, FRESH_DAYS + 1)
    span[last_of_repo] = np.minimum(FRESH_DAYS + 1, max_dn - dn[last_of_repo] + 1)
    opens_run = new_repo.copy()
    opens_run[1:] |= to_next[:-1] > FRESH_DAYS + 1
    run_first = np.flatnonzero(opens_run)
    repo_first = np.flatnonzero(new_repo)
    since_run = dn - np.repeat(dn[run_first], np.diff(np.append(run_first, n)))
    since_repo = dn - np.repeat(dn[repo_first], np.diff(np.append(repo_first, n)))
    row0 = np.zeros(n, np.int64)  # row of each observation's own day
    np.cumsum(span[:-1], out=row0[1:])
    rows = int(row0[-1] + span[-1]) if n else 0

    # ---------------------------------------------------------------- one row per fresh day
    age = np.arange(rows, dtype=np.int32)
    age -= np.repeat(row0.astype(np.int32), span)
    day = np.repeat(dn, span)
    day += age
    back = np.repeat(since_run, span)  # days since the run's first day
    back += age
    since = np.repeat(since_repo, span)  # days since the repository's first day
    since += age
    g_stars = np.repeat(stars, span)
    ok = {w: back >= w for w in (7, 14, 28, 56, 90)}
    d7, d28, d90 = _change(g_stars, 7), _change(g_stars, 28), _change(g_stars, 90)
    dd7, dd28 = _change(d7, 7), _change(d28, 28)
    # a 7- or 28-day window or acceleration NULL because it reaches a stale day after the
    # repository's first day (not because the history is short)
    gap = np.zeros(rows, bool)
    for w in (7, 14, 28, 56):
        gap |= (since >= w) & ~ok[w]
    if (np.abs(d28[ok[28]]) >= MAX_DELTA).any() or (np.abs(d7[ok[7]]) >= MAX_DELTA).any():
        raise StoreError(
            "star_signals: a 28-day star change of 2^24 or more cannot be summed "
            "exactly; star_signals left as it was"
        )

    # ---------------------------------------------------------------- trailing year
    # start[i]: the first row of the trailing year of row i (running sums before it subtract)
    start = np.arange(1 - Z_WINDOW_DAYS, rows + 1 - Z_WINDOW_DAYS, dtype=np.int64)
    young = since < Z_WINDOW_DAYS  # the year reaches before the repository's start
    start[young] = np.repeat(np.repeat(row0[repo_first], np.diff(np.append(repo_first, n))), span)[
        young
    ]
    lookup = np.flatnonzero(~young & (back < Z_WINDOW_DAYS))  # t-365 is before this run
    del back, since, young
    if len(lookup):
        run_row0 = row0[run_first]
        run_len = np.diff(np.append(run_row0, rows))
        run_key = key[run_first]
        target = (np.repeat(rid, span)[lookup].astype(np.int64) << DAY_BITS) + (
            day[lookup] - Z_WINDOW_DAYS
        )
        r = np.searchsorted(run_key, target, side="right") - 1  # the run holding t-365 or before
        start[lookup] = run_row0[r] + np.minimum(target - run_key[r], run_len[r] - 1) + 1
    z7 = _zscores(d7, ok[7], start)
    z28 = _zscores(d28, ok[28], start)

    return {
        "rid": np.repeat(rid, span),
        "dn": day,
        "stars": g_stars,
        "age": age,
        "d7": d7,
        "d28": d28,
        "d90": d90,
        "dd7": dd7,
        "dd28": dd28,
        "ok7": ok[7],
        "ok28": ok[28],
        "ok90": ok[90],
        "ok14": ok[14],
        "ok56": ok[56],
        "z7": z7,
        "z28": z28,
        "gap": gap,
    }


def _zscores(d: np.ndarray, defined: np.ndarray, start: np.ndarray) -> np.ndarray:
    """z-score of each defined d against the defined d of rows start[i] .. i, with the formula
    and operation order of `sql/star_zscores_incremental.sql`: (n d - s) / sqrt((n q - s^2) n /
    (n - 1)), NaN (NULL) with fewer than 28 values or no spread."""
    rows = len(d)
    values = np.where(defined, d, 0)
    running = {}
    for part, series in (("n", defined), ("s", values), ("q", values * values)):
        running[part] = np.zeros(rows + 1, np.int64)
        np.cumsum(series, out=running[part][1:], dtype=np.int64)
    del values
    cnt, total, squares = ((running[p][1:] - running[p][start]).astype(np.float64) for p in "nsq")
    del running
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = cnt * squares - total * total
        z = (cnt * d - total) / np.sqrt(spread * cnt / (cnt - 1))
    z[~(defined & (cnt >= Z_MIN_VALUES) & (spread > 0))] = np.nan
    return z
