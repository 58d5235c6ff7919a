"""One predictive distribution of the 28-day star velocity on t+H per (repository, origin,
horizon), which every question about that velocity, the interval and the fan chart read.

Two models forecast that velocity: the interval model gives a whole distribution G (its
quantiles at `interval.DIST_LEVELS`, with the online conformal levels and the regime guard's
widening applied), and the yes/no models answer sharper questions about it (above today's
velocity, above a round level, a breakout), calibrated and guarded. The yes/no models are the
stronger at their thresholds, so the distribution is G bent to pass through their answers:

- each yes/no answer p about V > x (or V >= x: the same for a continuous distribution) is an
  anchor (x, c = 1 - p); the anchors of one forecast are made monotone in x by
  pool-adjacent-violators (equal weights; anchors at the same x are pooled);
- h is the monotone piecewise-linear map through (0, 0), (G(x_k), c_k) and (1, 1), and the
  distribution is F = h o G: F(x_k) = c_k exactly, F is monotone, and between and beyond the
  anchors it keeps G's shape;
- F's quantile at level a is G's quantile at h^-1(a).

A reader who has only the seven published quantiles (`interval.QUANTILES`: the interval, the
cards, `shu backtest --predictions`) reads a threshold linearly between them. F = h o G bends at
each anchor, so that reading can miss an answer by more than the room an outside check allows
(`SEVEN_ROOM`). Where it would, `publish_seven` moves the seven quantiles as little as it can
(least squares) such that they stay ascending, F can run through them and every anchor, and the
straight line between them reads every anchor within the room: all three conditions are linear
in the seven quantiles, so it is one small constrained least-squares problem. F is then redrawn
through the anchors inside each stretch between two published levels; stretches without an
answer keep F's shape, moved with their ends. The answers stay where they were (F(x_k) = c_k
exactly). Where the lattice leaves no such quantiles within `SEVEN_ROOM` (a slow repository:
a steep rise to one answer, then F almost flat up to the next), they are solved within
`SEVEN_ROOM_MOST`; where none exist even then, F is kept as it was.

A distribution is stored as its quantiles at `interval.DIST_LEVELS` plus its anchors (threshold,
F there); `cdf` reads P(V <= x) from those points, linear in x between them, so every stored
answer is read back exactly and any other threshold within the spacing of the levels (0.5-1%).
The regime guard acts before anchoring (on the yes/no answers and on G's width), so everything
read from the distribution carries it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shu.forecast.models.interval import QUANTILES

# Anchors are kept inside (C_EDGE, 1 - C_EDGE): a probability of exactly 0 or 1 would pin the
# whole tail of the distribution to one point.
C_EDGE = 1e-4
_TIE = 1e-9  # separates pooled anchors so the inverse map stays a function
SEVEN = np.asarray(QUANTILES, dtype=float)  # the published levels
# How far the seven quantiles' linear reading may miss an answer before they are moved (inside
# the 0.05 an outside reader allows for reading between seven points).
SEVEN_ROOM = 0.04
# Where the lattice leaves no seven quantiles within SEVEN_ROOM of every answer, they may miss by
# as much as this (still inside the outside reader's 0.05).
SEVEN_ROOM_MOST = 0.0495


@dataclass
class Distribution:
    """Predictive distributions of many forecasts: quantiles at `levels` and anchors (NaN where
    a forecast has fewer anchors than the widest)."""

    levels: np.ndarray  # (L,)
    quantiles: np.ndarray  # (n, L), stars/day
    anchor_x: np.ndarray  # (n, K) thresholds of the yes/no answers, NaN = none
    anchor_cdf: np.ndarray  # (n, K) F at each threshold after pooling: P(V <= x)

    def prob_above(self, x: np.ndarray) -> np.ndarray:
        """P(V > x) per forecast (x: one threshold per forecast)."""
        return self.prob_above_rows(np.arange(len(self.quantiles)), x)

    def prob_above_rows(self, rows: np.ndarray, x: np.ndarray) -> np.ndarray:
        """P(V > x[j]) of forecast rows[j], for each j."""
        x = np.asarray(x, dtype=float)
        return np.array(
            [
                1.0 - cdf(self.levels, self.quantiles[i], self.anchor_x[i], self.anchor_cdf[i], xj)
                for i, xj in zip(rows, x, strict=True)
            ]
        )


def pool_adjacent_violators(y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """The nondecreasing sequence closest to `y` in weighted least squares."""
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=float)
    values: list[float] = []
    weights: list[float] = []
    counts: list[int] = []
    for yi, wi in zip(y, w, strict=True):
        values.append(float(yi))
        weights.append(float(wi))
        counts.append(1)
        while len(values) > 1 and values[-2] > values[-1]:
            total = weights[-2] + weights[-1]
            merged = (values[-2] * weights[-2] + values[-1] * weights[-1]) / total
            counts[-2] += counts[-1]
            values[-2], weights[-2] = merged, total
            values.pop()
            weights.pop()
            counts.pop()
    return np.repeat(values, counts)


def monotone_anchors(x: np.ndarray, p_above: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Anchors (thresholds ascending, P(V <= x)) from yes/no answers P(V > x): NaN rows dropped,
    answers at the same threshold pooled, the rest made nondecreasing (pool-adjacent-violators),
    kept inside (C_EDGE, 1 - C_EDGE)."""
    x = np.asarray(x, dtype=float)
    c = 1.0 - np.asarray(p_above, dtype=float)
    ok = np.isfinite(x) & np.isfinite(c)
    x, c = x[ok], np.clip(c[ok], C_EDGE, 1.0 - C_EDGE)
    if not len(x):
        return x, c
    order = np.argsort(x, kind="stable")
    x, c = x[order], c[order]
    ux, first, counts = np.unique(x, return_index=True, return_counts=True)
    sums = np.add.reduceat(c, first)
    return ux, pool_adjacent_violators(sums / counts, counts)


def _ends(levels: np.ndarray, q: np.ndarray, extra: np.ndarray) -> tuple[float, float]:
    """Where a distribution's CDF reaches 0 and 1: its outer quantiles extended by twice the
    distance between the outer two tail levels (0.5% and 2.5%), beyond every anchor."""
    lo_tail = max(q[np.searchsorted(levels, 0.025)] - q[0], 1e-6)
    hi_tail = max(q[-1] - q[np.searchsorted(levels, 0.975)], 1e-6)
    lo, hi = q[0] - 2.0 * lo_tail, q[-1] + 2.0 * hi_tail
    if len(extra):
        lo, hi = min(lo, float(extra.min()) - lo_tail), max(hi, float(extra.max()) + hi_tail)
    return lo, hi


def knots(
    levels: np.ndarray, quantiles: np.ndarray, anchor_x: np.ndarray, anchor_cdf: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The points (x ascending, F(x) nondecreasing) a stored distribution's CDF runs through:
    its quantiles, its anchors and its two ends."""
    levels = np.asarray(levels, dtype=float)
    q = np.asarray(quantiles, dtype=float)
    ok = np.isfinite(anchor_x) & np.isfinite(anchor_cdf)
    ax, ac = np.asarray(anchor_x, dtype=float)[ok], np.asarray(anchor_cdf, dtype=float)[ok]
    lo, hi = _ends(levels, q, ax)
    xs = np.concatenate([[lo], q, ax, [hi]])
    cs = np.concatenate([[0.0], levels, ac, [1.0]])
    order = np.lexsort((cs, xs))
    return xs[order], np.maximum.accumulate(cs[order])


def cdf(
    levels: np.ndarray,
    quantiles: np.ndarray,
    anchor_x: np.ndarray,
    anchor_cdf: np.ndarray,
    x: float,
) -> float:
    """P(V <= x) from one stored distribution (linear in x between its points; at a threshold
    where the distribution has a step, the top of the step)."""
    xs, cs = knots(levels, quantiles, anchor_x, anchor_cdf)
    if x < xs[0]:
        return 0.0
    if x >= xs[-1]:
        return 1.0
    right = int(np.searchsorted(xs, x, side="right"))  # xs[right - 1] <= x < xs[right]
    x0, x1, c0, c1 = xs[right - 1], xs[right], cs[right - 1], cs[right]
    return float(c0 if x1 <= x0 else c0 + (c1 - c0) * (x - x0) / (x1 - x0))


def quantile(
    levels: np.ndarray,
    quantiles: np.ndarray,
    anchor_x: np.ndarray,
    anchor_cdf: np.ndarray,
    a: np.ndarray,
) -> np.ndarray:
    """Quantiles at levels `a` of one stored distribution (the inverse of `cdf`)."""
    xs, cs = knots(levels, quantiles, anchor_x, anchor_cdf)
    cs = cs + _TIE * np.arange(len(cs))  # flat stretches: the first point of each
    return np.interp(np.asarray(a, dtype=float), cs, xs)


def anchor(
    levels: np.ndarray,
    g_quantiles: np.ndarray,
    anchor_x: np.ndarray,
    anchor_p_above: np.ndarray,
) -> Distribution:
    """Bend each distribution G (its quantiles at `levels`, rows) through its yes/no answers
    (`anchor_p_above[i, k]` = P(V > `anchor_x[i, k]`), NaN where absent): F = h o G (module
    docstring). A row without answers keeps G."""
    levels = np.asarray(levels, dtype=float)
    g = np.asarray(g_quantiles, dtype=float)
    ax = np.atleast_2d(np.asarray(anchor_x, dtype=float))
    ap = np.atleast_2d(np.asarray(anchor_p_above, dtype=float))
    n, width = len(g), ax.shape[1]
    out_q = g.copy()
    out_x = np.full((n, width), np.nan)
    out_c = np.full((n, width), np.nan)
    for i in range(n):
        x, c = monotone_anchors(ax[i], ap[i])
        if not len(x):
            continue
        out_x[i, : len(x)], out_c[i, : len(x)] = x, c
        lo, hi = _ends(levels, g[i], x)
        gx = np.concatenate([[lo], g[i], [hi]])
        gl = np.concatenate([[0.0], levels, [1.0]])
        u = np.interp(x, gx, gl)  # G at each anchor
        u = np.clip(u, C_EDGE / 2, 1.0 - C_EDGE / 2)
        u = u + _TIE * np.arange(len(u))
        hc = np.concatenate([[0.0], c + _TIE * np.arange(len(c)), [1.0]])
        hu = np.concatenate([[0.0], u, [1.0]])
        # F's quantile at level a: G's quantile at h^-1(a)
        out_q[i] = publish_seven(levels, np.interp(np.interp(levels, hc, hu), gl, gx), x, c)
    return Distribution(levels, out_q, out_x, out_c)


def seven_miss(levels: np.ndarray, q: np.ndarray, x: np.ndarray, c: np.ndarray) -> float:
    """The most the seven published quantiles, read linearly, miss an anchor's F (held at the
    outer levels beyond them, as an outside reader does)."""
    at = np.searchsorted(levels, SEVEN)
    return float(np.max(np.abs(np.interp(x, q[at], SEVEN) - c))) if len(x) else 0.0


def publish_seven(
    levels: np.ndarray, quantiles: np.ndarray, anchor_x: np.ndarray, anchor_cdf: np.ndarray
) -> np.ndarray:
    """F's quantiles (at `levels`) moved so that its seven published quantiles, read linearly,
    pass within `SEVEN_ROOM` of every anchor, where they did not (module docstring). Anchors
    ascending in x and in F, finite."""
    levels = np.asarray(levels, dtype=float)
    q = np.asarray(quantiles, dtype=float)
    x, c = np.asarray(anchor_x, dtype=float), np.asarray(anchor_cdf, dtype=float)
    miss = seven_miss(levels, q, x, c)
    if miss <= SEVEN_ROOM:
        return q
    at = np.searchsorted(levels, SEVEN)
    z = _nearest_seven(q[at], x, c)
    if z is None:
        return q
    moved = _redraw(levels, q, z, x, c)
    if moved is None or not _reads_back(levels, moved, x, c):
        return q
    return moved if seven_miss(levels, moved, x, c) < miss else q


def _reads_back(levels: np.ndarray, q: np.ndarray, x: np.ndarray, c: np.ndarray) -> bool:
    """Whether the distribution (q, anchors) still reads every anchor exactly and is monotone."""
    return bool(np.all(np.diff(q) >= 0)) and all(
        abs(cdf(levels, q, x, c, xk) - ck) <= 1e-6 for xk, ck in zip(x, c, strict=True)
    )


def _line_weights(a: float) -> np.ndarray:
    """The weights on the seven quantiles of the linear reading at level `a` (inside them)."""
    j = int(np.clip(np.searchsorted(SEVEN, a, side="right") - 1, 0, len(SEVEN) - 2))
    t = (a - SEVEN[j]) / (SEVEN[j + 1] - SEVEN[j])
    w = np.zeros(len(SEVEN))
    w[j], w[j + 1] = 1.0 - t, t
    return w


def _nearest_seven(f7: np.ndarray, x: np.ndarray, c: np.ndarray) -> np.ndarray | None:
    """The seven quantiles nearest `f7` (least squares) that F can pass through with its
    anchors, and that a linear reader reads within `SEVEN_ROOM` of every anchor (or, where
    that is impossible, within `SEVEN_ROOM_MOST`); None when no such quantiles exist. All the
    conditions are linear in the seven quantiles z:

    - z ascending;
    - F runs through z and the anchors: z_j < x_k where SEVEN_j < c_k, z_j > x_k above;
    - the linear reading at x_k lies in [c_k - room, c_k + room]: the straight line between
      the seven reads level c_k - room at or left of x_k and c_k + room at or right of it
      (a bound beyond the outer levels holds by itself: the reader holds there).
    """
    for room in (SEVEN_ROOM, SEVEN_ROOM_MOST):
        z = _seven_within(f7, x, c, room - 1e-4)  # a little inside, for rounding
        if z is not None:
            return z
    return None


def _seven_within(f7: np.ndarray, x: np.ndarray, c: np.ndarray, room: float) -> np.ndarray | None:
    """`_nearest_seven` for one room."""
    from scipy.optimize import minimize

    centre, scale = float(f7.mean()), max(float(f7[-1] - f7[0]), 1e-3)
    xs = (x - centre) / scale  # solved on a unit scale
    gap = 1e-6  # apart, on that scale: a quantile on an anchor would make F step there
    rows: list[np.ndarray] = []
    bounds: list[float] = []  # rows[i] @ u >= bounds[i]
    for j in range(len(SEVEN) - 1):
        step = np.zeros(len(SEVEN))
        step[j], step[j + 1] = -1.0, 1.0
        rows.append(step)
        bounds.append(gap)
    for xk, ck in zip(xs, c, strict=True):
        for j, level in enumerate(SEVEN):
            e = np.zeros(len(SEVEN))
            e[j] = 1.0 if level > ck else -1.0
            rows.append(e)
            bounds.append(xk + gap if level > ck else -xk + gap)
        if ck - room > SEVEN[0]:
            rows.append(-_line_weights(ck - room))
            bounds.append(-xk)
        if ck + room < SEVEN[-1]:
            rows.append(_line_weights(ck + room))
            bounds.append(xk)
    a, b = np.asarray(rows), np.asarray(bounds)
    start = (f7 - centre) / scale
    fit = minimize(
        lambda u: float(np.sum((u - start) ** 2)),
        start,
        jac=lambda u: 2.0 * (u - start),
        constraints=[{"type": "ineq", "fun": lambda u: a @ u - b, "jac": lambda _u: a}],
        method="SLSQP",
        options={"maxiter": 200, "ftol": 1e-12},
    )
    if not fit.success or np.any(a @ fit.x - b < -1e-9):
        return None
    return centre + scale * fit.x


def _redraw(
    levels: np.ndarray, q: np.ndarray, z: np.ndarray, x: np.ndarray, c: np.ndarray
) -> np.ndarray | None:
    """F's quantiles with its seven moved to `z`: through the anchors inside each stretch
    between two published levels that holds any, F's shape mapped onto the moved ends
    elsewhere; the tails move with the outer quantiles. None when not monotone."""
    at = np.searchsorted(levels, SEVEN)
    f7 = q[at]
    stretch = np.searchsorted(SEVEN, c, side="right") - 1  # SEVEN[j] <= c < SEVEN[j + 1]
    out = q.copy()
    for j in range(len(SEVEN) - 1):
        lo, hi = at[j], at[j + 1] + 1
        inside = stretch == j
        if inside.any():
            px = np.concatenate([[z[j]], x[inside], [z[j + 1]]])
            pc = np.concatenate([[SEVEN[j]], c[inside], [SEVEN[j + 1]]])
            if np.any(np.diff(px) < 0) or np.any(np.diff(pc) < 0):
                return None
            out[lo:hi] = np.interp(levels[lo:hi], pc + _TIE * np.arange(len(pc)), px)
        elif f7[j + 1] > f7[j]:
            out[lo:hi] = z[j] + (q[lo:hi] - f7[j]) / (f7[j + 1] - f7[j]) * (z[j + 1] - z[j])
        else:
            out[lo:hi] = z[j] + (levels[lo:hi] - SEVEN[j]) / (SEVEN[j + 1] - SEVEN[j]) * (
                z[j + 1] - z[j]
            )
    out[: at[0]] = q[: at[0]] + (z[0] - f7[0])  # the tails move with the outer quantiles
    out[at[-1] + 1 :] = q[at[-1] + 1 :] + (z[-1] - f7[-1])
    return out
