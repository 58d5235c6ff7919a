"""Refreshes `rocm_index_repos` (the rows the ROCm ecosystem index `rocm_index` adds up) from
`commits` and `releases` with `sql/rocm_index.sql`, always in full: the table is small, and a
history loaded late can change any past day. Counted commits and the ROCm flag are the ones of
`commit_signals`, except that a commit copied into several repositories (mirrored or vendored:
the same sha, or the same author, author time and subject) counts once, in the repository where
it landed first (`COUNTED_ONCE_SQL`)."""

from __future__ import annotations

import time

from shu.settings_tables import ROCM_PATTERN
from shu.signals.commits import COUNTED_ONCE_SQL
from shu.signals.runs import TableRefresh, record_full_refresh
from shu.signals.sqlfiles import run_sql
from shu.store import Store

# The ROCm pattern as a case-insensitive RE2 literal for release names and notes (the rule of
# the ROCm release question and the briefing's ROCm facts).
ROCM_PATTERN_SQL = "'(?i)(" + ROCM_PATTERN.replace("'", "''") + ")'"
# Owners whose repositories are AMD's own ROCm software (the organisation's current and former
# names): their ROCm work is the vendor's, not adoption, so the index also counts without them.
AMD_OWNERS = (
    "ROCm",
    "ROCmSoftwarePlatform",
    "RadeonOpenCompute",
    "GPUOpen-ProfessionalCompute-Libraries",
)
AMD_OWNERS_SQL = "[" + ", ".join(f"'{o.lower()}'" for o in AMD_OWNERS) + "]"


def amd_own(repo: str) -> bool:
    """Whether `repo` ('owner/name') is one of AMD's own ROCm repositories (`AMD_OWNERS`)."""
    return repo.split("/", 1)[0].lower() in {o.lower() for o in AMD_OWNERS}


def refresh_rocm_index(store: Store, run_id: str) -> TableRefresh:
    """Recompute `rocm_index_repos` for every repository with commits."""
    t0 = time.perf_counter()
    con = store.con
    with store.transaction():
        run_sql(
            con,
            "rocm_index",
            target="TABLE rocm_index_repos",
            counted_commits=COUNTED_ONCE_SQL.format(repos="SELECT repo FROM commits"),
            rocm_pattern=ROCM_PATTERN_SQL,
            amd_owners=AMD_OWNERS_SQL,
        )
        result = record_full_refresh(store, "rocm_index_repos", run_id, t0, "commits")
    return result
