"""Signals computed in DuckDB SQL (the SQL lives in `shu/signals/sql/`).

`refresh_signals(store, full=False, settings=...)` recomputes, in order: `star_signals`
(incrementally unless `full`), the facts layer over it (`star_days`, `market_days`:
`star_days.py`; `market_spikes`: `market_spikes.py`), `commit_signals`, the rows of the ROCm
ecosystem index (`rocm_index_repos`), and the peer and release tables built on them
(`peers_and_releases`, which read the settings' tracked repositories); `latest_signals(store,
repo)` reads the newest values of one repository. Definitions: `shu.schema.signals`.

From a notebook, one repository's signals are `shu.star_signals(repo)` (`shu.notebook`).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from shu.progress import progress
from shu.settings import Settings
from shu.store import Store


def refresh_signals(store: Store, full: bool = False, *, settings: Settings) -> dict[str, Any]:
    """Recompute every signal table: star_signals (only the days after the last computed one,
    unless `full` or older input changed), the facts layer over it (star_days, market_days,
    market_spikes),
    commit_signals, rocm_index_repos (the ROCm
    ecosystem index's rows), category_signals and peer_signals (from the first new star day),
    release_signals and release_context.

    Returns {table: {mode, reason, rows, seconds, to_day}} and the total under 'seconds'.
    """
    from shu.signals.commits import refresh_commit_signals
    from shu.signals.market_spikes import refresh_market_spikes
    from shu.signals.peers_and_releases import refresh_peer_signals, refresh_release_signals
    from shu.signals.rocm_index import refresh_rocm_index
    from shu.signals.star_days import refresh_star_days
    from shu.signals.stars import refresh_star_signals

    t0 = time.perf_counter()
    run_id = str(uuid.uuid4())
    store.con.execute("SET enable_progress_bar = false")
    with progress("signals", total=4, unit="tables") as bar:
        star = refresh_star_signals(store, run_id, full=full)
        bar.advance(note="star_signals")
        results = [star, *refresh_star_days(store, run_id, star)]
        results.append(refresh_market_spikes(store, run_id, results[1]))
        results += [refresh_commit_signals(store, run_id), refresh_rocm_index(store, run_id)]
        bar.advance(note="star_days, market_days, commit_signals, rocm_index_repos")
        results += refresh_peer_signals(store, run_id, star, settings)
        bar.advance(note="category/peer signals")
        results += refresh_release_signals(store, run_id)
        bar.advance(note="release signals")
    out: dict[str, Any] = {r.target: r.summary() for r in results}
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def latest_signals(store: Store, repo: str) -> dict[str, Any]:
    """The newest signals of `repo`: the star_signals columns of its latest day at the top level,
    and under 'commits', 'peers' and 'releases' the latest commit_signals, peer_signals and
    release_context rows (each only when it has one). {} when it has none of them."""
    out: dict[str, Any] = {}
    for key, table in (
        ("", "star_signals"),
        ("commits", "commit_signals"),
        ("peers", "peer_signals"),
        ("releases", "release_context"),
    ):
        cur = store.con.execute(
            f"SELECT * FROM {table} WHERE repo = ? ORDER BY day DESC LIMIT 1", [repo]
        )
        row = cur.fetchone()
        if row is None:
            continue
        values = dict(zip([d[0] for d in cur.description], row, strict=True))
        if key:
            out.setdefault("repo", repo)
            out[key] = values
        else:
            out.update(values)
    return out


__all__ = ["latest_signals", "refresh_signals"]
