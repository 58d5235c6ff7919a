"""Probe fixtures: one real quick-suite run on CPU for the whole session, and a kernel factory."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

DOCS_PROBE = Path(__file__).resolve().parents[3] / "docs" / "probe"


@pytest.fixture(scope="session")
def torch():
    """torch itself; probe tests skip (with the reason) where it is not installed."""
    return pytest.importorskip("torch", reason="the probe needs torch (pip install -e .[probe])")


@pytest.fixture(scope="session")
def quick_run(torch) -> dict:
    """The real CPU quick suite, run once (Inductor compiles ~3 kernels; < 2 min on 2 cores).

    One CPU thread: on a shared 2-core machine OpenMP barriers with 2 threads stall for ms.
    """
    from shu.probe.runner import run_probe

    return run_probe(device="cpu", suite="quick", threads=1)


@pytest.fixture(scope="session")
def h200_run() -> dict:
    """The real H200 full-suite run committed under docs/probe/ (warm compile cache)."""
    path = DOCS_PROBE / "h200-full-warm.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def attention_run(torch):
    """The full suite's two attention kernels on this CPU (5 repeats, one thread), with the
    runner's phases logged: (document, ["time"|"inspect", ...], each result as `_inspect` got
    it)."""
    from shu.probe import runner, timing

    events: list[str] = []
    snapshots: dict[str, dict] = {}
    mp = pytest.MonkeyPatch()
    real_timer, real_inspect = timing.host_interleaved, runner._inspect

    def timed(*args, **kwargs):
        events.append("time")
        return real_timer(*args, **kwargs)

    def inspected(kernel, result, *args):
        events.append("inspect")
        snapshots[kernel.name] = copy.deepcopy(result)
        return real_inspect(kernel, result, *args)

    mp.setattr(timing, "host_interleaved", timed)
    mp.setattr(runner, "_inspect", inspected)
    try:
        doc = runner.run_probe(
            device="cpu",
            suite="full",
            kernels=["sdpa", "naive_attention"],
            repeats=5,
            threads=1,
        )
    finally:
        mp.undo()
    return doc, events, snapshots
