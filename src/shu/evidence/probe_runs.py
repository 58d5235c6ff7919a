"""The probe runs stored (`probe_runs`, `probe_results`): each backend's latest run, a run's
kernels, and how old the newest run is (what `shu daily` reads to decide whether to probe
again, and the briefing's probe section words).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.store import Store, dicts


def latest_probe_runs(store: Store) -> list[dict[str, Any]]:
    """The latest probe run per backend."""
    return dicts(
        store.con.execute(
            "SELECT * EXCLUDE (raw_json) FROM probe_runs QUALIFY row_number() OVER "
            "(PARTITION BY backend ORDER BY started_at DESC, run_id) = 1 ORDER BY backend"
        )
    )


def probe_kernels(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The kernels of probe run `run_id`, each with its timings and what Inductor did."""
    return dicts(
        store.con.execute(
            "SELECT kernel, is_valid, eager_ms, compiled_ms, speedup, generated_kernels, "
            "eager_kernels, substitutions, inductor_did FROM probe_results "
            "WHERE run_id = ? ORDER BY kernel",
            [run_id],
        )
    )


def latest_probe_age_days(store: Store, day: date) -> int | None:
    """Days since the newest probe run (None when there is none)."""
    started = store.con.execute("SELECT max(started_at) FROM probe_runs").fetchall()[0][0]
    return None if started is None else (day - started.date()).days


def stored_run_identities(store: Store) -> list[dict[str, Any]]:
    """Every stored probe run's identity fields (`claim_types.run_identity` words them)."""
    return dicts(
        store.con.execute(
            "SELECT run_id, device_name, torch_version, suite, suite_version FROM probe_runs"
        )
    )
