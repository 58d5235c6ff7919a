"""The probe flow: run the GPU/CPU probe on this host and store its result.

One serve process (or worker) per GPU host runs this flow; results merge in the store.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from shu.flows import stages
from shu.flows.stages import settings_from
from shu.store import utcnow

probe_task = task(name="probe", cache_policy=NO_CACHE)(stages.probe)


@flow(name="shu-probe", log_prints=True)
def probe_flow(
    db: str | None = None, force: bool = True, overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run the probe now (force) or only when the latest run is too old."""
    settings = settings_from(overrides)
    if force:
        settings = settings.model_copy(update={"probe_max_age_days": -1})
    as_of: date = utcnow().date()
    return probe_task(Path(db) if db else settings.db, settings, as_of).as_dict()
