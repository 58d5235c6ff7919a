"""A headless chromium driven over the DevTools protocol, for testing the HTML briefing.

`HeadlessBrowser.open(url)` loads a page and records every console message, uncaught exception
and failed load; `evaluate(js)` runs JavaScript in the page and returns its value. It needs a
chromium binary (Debian: `apt-get install chromium`; `find_chromium()` says where it is or None)
and the `websockets` package. Used by tests only; nothing in shu's pipeline depends on it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """Path of an installed chromium/chrome, or None."""
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


class HeadlessBrowser:
    """One headless chromium process with one page; use as a context manager."""

    def __init__(self, binary: str | None = None, timeout_s: float = 30.0) -> None:
        self.binary = binary or find_chromium()
        if self.binary is None:
            raise RuntimeError("no chromium found (apt-get install chromium)")
        self.timeout_s = timeout_s
        self.console: list[dict[str, Any]] = []
        self.exceptions: list[str] = []
        self.log_entries: list[dict[str, Any]] = []
        self._id = 0
        self._profile = tempfile.TemporaryDirectory(prefix="shu-chromium-")
        self._proc = subprocess.Popen(
            [self.binary, "--headless", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--remote-debugging-port=0", f"--user-data-dir={self._profile.name}",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._ws = self._connect_page()
        for method in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(method)

    def _connect_page(self) -> Any:
        from urllib.request import urlopen

        from websockets.sync.client import connect

        port_file = Path(self._profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout_s
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self._proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        targets = json.loads(urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(t for t in targets if t.get("type") == "page")
        return connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result (events seen meanwhile recorded)."""
        self._id += 1
        my_id = self._id
        self._ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        deadline = time.monotonic() + self.timeout_s
        while True:
            msg = json.loads(self._ws.recv(timeout=max(deadline - time.monotonic(), 0.1)))
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._record(msg)

    def _record(self, msg: dict[str, Any]) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.console.append({"type": params.get("type"), "args": [
                a.get("value", a.get("description")) for a in params.get("args", [])]})
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.exceptions.append(details.get("exception", {}).get("description")
                                   or details.get("text", "exception"))
        elif method == "Log.entryAdded":
            self.log_entries.append(params.get("entry", {}))

    def open(self, url: str, settle_s: float = 0.5) -> None:
        """Navigate to `url`, wait for the load event, then let late messages arrive."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if self.evaluate("document.readyState") == "complete":
                break
            time.sleep(0.05)
        end = time.monotonic() + settle_s
        while time.monotonic() < end:
            self.evaluate("1")
            time.sleep(0.05)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (returned by value)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}: {result['exceptionDetails'].get('text')}")
        return result.get("result", {}).get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error-level log entries, as text."""
        out = [" ".join(map(str, c["args"])) for c in self.console
               if c["type"] in ("error", "assert")]
        out += self.exceptions
        out += [f"{e.get('source')}: {e.get('text')} {e.get('url', '')}"
                for e in self.log_entries if e.get("level") == "error"]
        return out

    def close(self) -> None:
        ws = getattr(self, "_ws", None)
        if ws is not None:
            ws.close()
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._profile.cleanup()

    def __enter__(self) -> HeadlessBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
