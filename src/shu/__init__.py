"""shu: signals, calibrated forecasts, a GPU probe and a daily briefing with receipts.

The notebook API (`shu.connect()`, `shu.star_signals(repo)`, `shu.forecasts()`,
`shu.track_record()`, `shu.radar()`, `shu.export_tables(path)`) lives in `shu.notebook`; it is
loaded on first use so that `import shu` stays cheap. Each of these names is a function and
nothing else; the subpackages (`shu.signals`, `shu.forecast`, ...) are imported as usual
(`import shu.signals`).
"""

from typing import Any

__version__ = "0.1.0"

_NOTEBOOK = ("connect", "star_signals", "forecasts", "track_record", "radar", "export_tables")


def __getattr__(name: str) -> Any:
    if name in _NOTEBOOK:
        from shu import notebook

        return getattr(notebook, name)
    raise AttributeError(f"module 'shu' has no attribute {name!r}")
