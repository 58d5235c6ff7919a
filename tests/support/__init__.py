"""Helpers only the tests and benchmarks use, kept out of the installed `shu` package.

- `support.fault_harness`: GitHub API faults, SIGKILLed `shu` processes and concurrent writers,
  measured against clean runs (`benchmarks/fault_harness.py` runs every case, the tests a subset).
- `support.gharchive_files`: hourly GH Archive files in the real event schema, generated.
- `support.browser`: a headless system chromium driven by Playwright (the HTML briefing test).
- `support.signal_data`: synthetic and real-sample star and commit histories for the signal tests.
- `support.forecast_data`: synthetic star_signals from known series for the forecast tests.
- `support.radar_market`: a made-up market of repositories that break out now and then (radar).
- `support.cli`: `shu` run as a user runs it, in a child process.
- `support.cpu_times`: a pytest plugin printing each test's CPU seconds (`-p support.cpu_times`).

pytest puts `tests/` on `sys.path` (`pythonpath` in pyproject.toml), so tests import them as
`from support.browser import ...`; a benchmark inserts `tests/` into `sys.path` itself before
importing. What users of shu may want (the local GitHub API server and the datasets `shu demo`
serves) stays in `shu.testing`.
"""
