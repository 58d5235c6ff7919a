"""A headless chromium driven by Playwright, for testing the HTML briefing in a real browser.

`HeadlessBrowser.open(url)` loads a page and records every console message, uncaught exception
and failed request; `evaluate(js)` runs JavaScript in the page and returns its value. It drives
the system's chromium (Debian: `apt-get install chromium`; `find_chromium()` says where it is,
or None) through Playwright's `executable_path`, so Playwright never downloads a browser.

Starting chromium is the one step a loaded machine can stall (CI once ran past a 30 s launch on
2 busy cores), so the launch waits `launch_timeout_s` and tries a second time before it gives
up with `BrowserDidNotStart`, which a test turns into a skip that says so.
"""

from __future__ import annotations

import shutil
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Headless, and nothing that phones home or updates itself while a test runs.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


class BrowserDidNotStart(RuntimeError):
    """Chromium was found but did not start (twice) within the launch timeout."""


def find_chromium() -> str | None:
    """Path of an installed chromium/chrome, or None."""
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


class HeadlessBrowser:
    """One headless chromium with one page; use as a context manager."""

    def __init__(
        self, binary: str | None = None, timeout_s: float = 30.0, launch_timeout_s: float = 120.0
    ) -> None:
        from playwright.sync_api import Error, sync_playwright

        self.binary = binary or find_chromium()
        if self.binary is None:
            raise RuntimeError("no chromium found (apt-get install chromium)")
        self.console: list[dict[str, Any]] = []
        self.exceptions: list[str] = []
        self.failed_requests: list[str] = []
        self._playwright = sync_playwright().start()
        try:
            self._browser = self._launch(launch_timeout_s, Error)
            self.page = self._browser.new_page()
        except Exception:
            self._playwright.stop()
            raise
        self.page.set_default_timeout(timeout_s * 1000)
        self.page.on(
            "console",
            lambda m: self.console.append(
                {"type": m.type, "text": m.text, "url": m.location.get("url", "")}
            ),
        )
        self.page.on("pageerror", lambda exc: self.exceptions.append(str(exc)))
        self.page.on(
            "requestfailed", lambda r: self.failed_requests.append(f"{r.url}: {r.failure}")
        )

    def _launch(self, timeout_s: float, error: type[Exception]) -> Any:
        """The launched browser; a second try after a failed start, then BrowserDidNotStart."""
        failures = []
        for _ in range(2):
            try:
                return self._playwright.chromium.launch(
                    executable_path=self.binary,
                    headless=True,
                    args=list(CHROMIUM_ARGS),
                    timeout=timeout_s * 1000,
                )
            except error as exc:
                failures.append(str(exc).splitlines()[0])
        raise BrowserDidNotStart(
            f"{self.binary} did not start within {timeout_s:.0f} s, twice: {failures[-1]}"
        )

    def open(self, url: str) -> None:
        """Navigate to `url` and wait until the page and everything it loads has arrived."""
        self.page.goto(url, wait_until="load")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (or a function's result) in the page."""
        return self.page.evaluate(expression)

    def errors(self) -> list[str]:
        """Console errors and assertions, uncaught exceptions and failed loads, as text."""
        return (
            [c["text"] for c in self.console if c["type"] in ("error", "assert")]
            + self.exceptions
            + self.failed_requests
        )

    def close(self) -> None:
        self._browser.close()
        self._playwright.stop()

    def __enter__(self) -> HeadlessBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
