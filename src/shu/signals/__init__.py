"""Signals computed in DuckDB SQL: star and commit velocity/acceleration, peer, release and
lifecycle context. `refresh_signals(store, full=False)` recomputes them; `latest_signals(store,
repo)` reads the newest values of one repository.
"""

from __future__ import annotations

from typing import Any

from shu.store import Store


def refresh_signals(store: Store, full: bool = False) -> dict[str, Any]:
    """Recompute every signal table; incrementally (days after the last computed one) unless
    `full`. Returns, per table, the mode, rows written and seconds taken."""
    from shu.signals.stars import refresh_star_signals

    out: dict[str, Any] = {}
    star = refresh_star_signals(store, full=full)
    out[star.target] = {"mode": star.mode, "reason": star.reason, "rows": star.rows_written,
                        "seconds": round(star.seconds, 3),
                        "to_day": star.to_day.isoformat() if star.to_day else None}
    return out


def latest_signals(store: Store, repo: str) -> dict[str, Any]:
    """The newest star_signals row of `repo` as a dict ({} when it has none)."""
    cur = store.con.execute(
        "SELECT * FROM star_signals WHERE repo = ? ORDER BY day DESC LIMIT 1", [repo])
    row = cur.fetchone()
    if row is None:
        return {}
    return dict(zip([d[0] for d in cur.description], row, strict=True))


__all__ = ["latest_signals", "refresh_signals"]
