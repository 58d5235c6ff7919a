"""A pytest plugin that prints the CPU seconds each test cost (setup, call and teardown; its own
process and the child processes it waited for), the 40 costliest first.

Wall time on the shared development machine swings with the load; CPU time barely does, so this
is how to tell which tests belong in tests/integration (~10 CPU-seconds or more). Run serially:

    .venv/bin/python -m pytest tests/unit -n 0 -p support.cpu_times

With SHU_CPU_TIMES_FILE set, each test's line (CPU s, wall s, test) is also appended to that file
as soon as the test ends, so a run stopped part-way (a loaded machine, a deadline) still says
what the tests it finished cost.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator

import pytest

_COSTS: list[tuple[float, float, str]] = []


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    cpu, wall = _cpu_seconds(), time.perf_counter()
    yield
    _COSTS.append((_cpu_seconds() - cpu, time.perf_counter() - wall, item.nodeid))
    if os.environ.get("SHU_CPU_TIMES_FILE"):
        with open(os.environ["SHU_CPU_TIMES_FILE"], "a", encoding="utf-8") as out:
            out.write(f"{_COSTS[-1][0]:8.1f} {_COSTS[-1][1]:8.1f}  {item.nodeid}\n")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.write_sep("=", "CPU seconds per test (setup + call + teardown)")
    terminalreporter.write_line("   CPU s   wall s  test")
    for cpu, wall, nodeid in sorted(_COSTS, reverse=True)[:40]:
        terminalreporter.write_line(f"{cpu:8.1f} {wall:8.1f}  {nodeid}")
